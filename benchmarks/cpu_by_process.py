"""Where a command's CPU goes, by kind of process: students' kernels, the test workers, the grading pool, ...

    python benchmarks/cpu_by_process.py [--every 1.0] -- bash .ci/run

Runs the command and, once every `--every` seconds until it ends, counts the processes of the machine that are
running (state R in /proc/<pid>/stat), each under its kind (KINDS: the first pattern its command line holds).
Each count is about one CPU-second (at 1 s); a share is the kind's part of all counts. Processes that live
less than the interval are seen in proportion to their time, as a sampling profiler sees functions. Reading
/proc once a second costs about 1 % of one core. Prints the table, the samples and the average number of
processes running, and the command's exit status (which it also exits with)."""
import argparse
import collections
import os
import subprocess
import sys
import time

# (kind, patterns): a process is of the first kind one of whose patterns its command line holds
KINDS = (
    ("students' kernels (ipykernel)", ("ipykernel",)),
    ("busy processes of the load tests", ("while True:\n    pass",)),
    ("the checker's stand-in kernel", ("student_kernel",)),
    ("grading pool workers (nbgrader, the checker)", ("multiprocessing", "spawn_main")),
    ("test workers (pytest-xdist)", ("import sys;exec(eval(sys",)),
    ("pytest's main process", ("pytest",)),
    ("the course's command line", ("maskdiff_solutions",)),
    ("set-up (pip, compileall)", ("compileall", " pip ", "-m pip")),
    ("browser (the screenshot test)", ("chrom",)),
)


def kind(command):
    for name, patterns in KINDS:
        if any(pattern in command for pattern in patterns):
            return name
    return "other python" if "python" in command else "other"


def running(own):
    """The command lines of the processes running now, but this one."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == own:
            continue
        try:
            with open(f"/proc/{pid}/stat") as handle:
                stat = handle.read()
            if stat[stat.rindex(")") + 2] != "R":
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue   # it ended between the listing and the read
        if command:
            found.append(command)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=1.0, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to measure after --")
    counts, samples, started = collections.Counter(), 0, time.monotonic()
    process = subprocess.Popen(command)
    while process.poll() is None:
        samples += 1
        counts.update(kind(line) for line in running(os.getpid()))
        time.sleep(args.every)
    total = sum(counts.values()) or 1
    print(f"\n{time.monotonic() - started:.0f} s, {samples} samples, {total / max(samples, 1):.2f} processes running "
          f"on average ({os.cpu_count()} cores); exit status {process.returncode}")
    for name, count in counts.most_common():
        print(f"{100 * count / total:5.1f} %  {count * args.every:7.0f} s  {name}")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
