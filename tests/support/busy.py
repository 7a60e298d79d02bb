"""Other people's work on the grading machine, for the tests and benchmarks of the time limits (course/
sandbox/time_limits.py): busy processes that each spin a core forever, each started in a session of its
own (setsid), as other users' processes are.

The session matters: Linux's autogroup scheduler gives all the processes of one session one share of
the CPU, so busy loops started in the test's own session would take their share from the test (and the
grader it runs) and barely slow a kernel, which runs in a session of its own; such a test would prove
nothing. Each busy process here takes one full share, as a stranger's would.
"""
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

SPIN = "while True:\n    pass\n"


def cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def load():
    """/proc/loadavg's 1-, 5- and 15-minute load averages, as text."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def session_of(pid):
    with open(f"/proc/{pid}/stat") as handle:
        text = handle.read()
    return int(text[text.rindex(")") + 2:].split()[3])


@contextmanager
def busy(processes):
    """`processes` busy loops, each the leader of a session of its own, for the duration of the with
    block; all killed at its end, whatever happened (a test that fails or is interrupted included)."""
    started = []
    try:
        for _ in range(processes):
            started.append(subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        time.sleep(0.5)   # running before the work they are to slow starts
        for process in started:
            assert process.poll() is None, "a busy process ended at once"
            assert session_of(process.pid) == process.pid, "each busy process leads a session of its own"
        yield started
    finally:
        for process in started:
            try:
                os.killpg(process.pid, signal.SIGKILL)   # its own session's group: it and nothing else
            except OSError:
                pass
            process.wait()
