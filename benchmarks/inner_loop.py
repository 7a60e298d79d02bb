"""The maintainer's inner loop, `python -m pytest -m "not slow"`, timed as CONTRIBUTING tells it to be run,
and with one process (`-n 0`) beside it.

    python benchmarks/inner_loop.py [--workers default 0]

For each way it prints the wall time, the CPU seconds of pytest and its workers (user + system), the
tests that passed, failed and were skipped, and the load average before and after: on a shared machine
the wall time follows the load, the CPU seconds much less (a run alone on the 2-core machine takes
about its CPU seconds with one process, about half with two workers).
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load():
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(workers):
    """One run of the inner loop; `workers` "default" leaves pytest's own settings (pyproject) alone."""
    argv = [sys.executable, "-m", "pytest", "-m", "not slow", "-q", "-p", "no:cacheprovider"]
    if workers != "default":
        argv += ["-n", workers]
    before, cpu, started = load(), cpu_of_children(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - started, cpu_of_children() - cpu
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    counts = dict((kind, int(n)) for n, kind in re.findall(r"(\d+) (passed|failed|skipped|deselected|error)", summary))
    print(f"{' '.join(argv[1:])}\n  wall {wall:.0f} s ({wall / 60:.1f} min), CPU {cpu:.0f} s, "
          f"load {before} before, {load()} after\n  {counts}", flush=True)
    return done.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", nargs="+", default=["default", "0"],
                        help='"default" (as pyproject says) or a number for -n; default: both ways')
    args = parser.parse_args()
    status = 0
    for workers in args.workers:
        status |= run(workers)
    return status


if __name__ == "__main__":
    sys.exit(main())
