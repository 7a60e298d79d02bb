"""A kernel's time limits measured in what its code computes, not in the clock of a machine that
other work may share (course/run/preprocessors.py applies them): on a busy machine a cell's clock time
stretches with other people's work, its CPU time does not.

A reading holds, for every thread of the kernel's processes (its cgroup where the sandbox has one,
else the process tree under the kernel's first process) and of the grader's checker thread that
serves it, the CPU time it has run and the time it waited, ready, for a CPU (schedstat); and per
process the CPU time of its threads that have ended and of its children that it has reaped.

Between two readings, `Spent.busy` is the CPU time of the busiest thread plus that of the threads and
child processes that ended: a Python loop runs in one thread, and torch's parallel work splits
evenly over its threads, so on an idle machine `busy` grows as fast as the clock does while the
code computes, and it does not grow while the code sleeps or waits. `Spent.wanted` adds the time the
busiest thread waited for a CPU: what it would have run on a machine of its own.
"""
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PROC = Path("/proc")
COMPUTED, WAITED, STARVED = "computed", "waited", "starved"   # why a limit ran out


@dataclass
class Reading:
    at: float                                          # time.monotonic()
    threads: dict = field(default_factory=dict)        # (pid, tid) -> (ran s, waited s)
    processes: dict = field(default_factory=dict)      # pid -> (CPU s of all its threads, reaped children s)


@dataclass
class Spent:
    wall: float = 0.0
    busy: float = 0.0     # CPU s of the busiest thread, plus threads and children that ended
    wanted: float = 0.0   # the same, with the busiest thread's waits for a CPU

    def __add__(self, other):
        return Spent(self.wall + other.wall, self.busy + other.busy, self.wanted + other.wanted)


def _stat_fields(path):
    """The fields of a /proc stat file after the command name (which may hold spaces)."""
    text = path.read_text()
    return text[text.rindex(")") + 2:].split()


def _thread_times(task):
    """(ran s, waited s) of one thread: schedstat where the kernel keeps it (nanoseconds), else the
    thread's stat in clock ticks, with no waits known."""
    try:
        ran, waited, _ = (task / "schedstat").read_text().split()
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        fields = _stat_fields(task / "stat")
        return (int(fields[11]) + int(fields[12])) / TICKS, 0.0


def read(pids, extra_threads=()):
    """A Reading of the processes `pids` (all their threads) and of the threads `extra_threads`
    ((pid, tid) pairs); a process or thread that ends while it is read is left out."""
    reading = Reading(time.monotonic())
    for pid in pids:
        base = PROC / str(pid)
        try:
            fields = _stat_fields(base / "stat")
            tids = [entry.name for entry in (base / "task").iterdir()]
        except (OSError, ValueError, IndexError):
            continue
        reading.processes[pid] = ((int(fields[11]) + int(fields[12])) / TICKS,
                                  (int(fields[13]) + int(fields[14])) / TICKS)
        for tid in tids:
            try:
                reading.threads[(pid, int(tid))] = _thread_times(base / "task" / tid)
            except (OSError, ValueError, IndexError):
                continue
    for pid, tid in extra_threads:
        try:
            reading.threads[(pid, tid)] = _thread_times(PROC / str(pid) / "task" / str(tid))
        except (OSError, ValueError, IndexError):
            continue
    return reading


def spent(before, after):
    """What ran between two readings (a thread or process new since `before` counts from zero)."""
    ran = {key: after.threads[key][0] - before.threads.get(key, (0.0, 0.0))[0] for key in after.threads}
    waited = {key: after.threads[key][1] - before.threads.get(key, (0.0, 0.0))[1] for key in after.threads}
    ended = 0.0
    for pid, (cpu, reaped) in after.processes.items():
        cpu0, reaped0 = before.processes.get(pid, (0.0, 0.0))
        live = sum(value for (owner, _), value in ran.items() if owner == pid)
        # a tick's rounding in the process's own total is no thread that ended
        ended += max(0.0, cpu - cpu0 - live - 2 / TICKS) + max(0.0, reaped - reaped0)
    busiest = max(ran.values(), default=0.0)
    hungriest = max((ran[key] + waited[key] for key in ran), default=0.0)
    return Spent(after.at - before.at, busiest + ended, max(busiest, hungriest) + ended)


def tree(root):
    """root and every process below it (a scan of /proc's parent ids)."""
    children = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int(_stat_fields(entry / "stat")[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


class KernelMeter:
    """Reads one kernel's processes: those of its cgroup (`procs`: the cgroup.procs files of the
    sandbox's groups, which a process cannot leave) where there is one, else the tree under `root`;
    plus `extra_threads` (the checker's thread in the grader, whose work a hidden test cell waits on)."""

    def __init__(self, root, procs=(), extra_threads=()):
        self.root, self.procs, self.extra_threads = root, [Path(p) for p in procs], list(extra_threads)

    def pids(self):
        for procs in self.procs:
            try:
                found = [int(pid) for pid in procs.read_text().split()]
            except (OSError, ValueError):
                continue
            if found:
                return found
        return tree(self.root)

    def read(self):
        return read(self.pids(), self.extra_threads)


def verdict(spent, limit, backstop):
    """Why a cell (or notebook) that has `spent` must stop under `limit`: COMPUTED once it has run its
    limit of clock time and computed that long; past `backstop` times its limit of clock time, STARVED
    where it wanted its limit of CPU time and the machine kept it waiting, else WAITED (it slept or
    waited); None while it may go on."""
    if spent.wall >= limit and spent.busy >= limit:
        return COMPUTED
    if spent.wall >= limit * backstop:
        return STARVED if spent.wanted >= limit else WAITED
    return None
