"""The maintainer's inner loop, `python -m pytest -m "not slow"`, timed as CONTRIBUTING tells it to be run,
and with one process (`-n 0`) beside it.

    python benchmarks/inner_loop.py [--workers default 0]
    python benchmarks/inner_loop.py --write-slow [--from LOG]

For each way it prints the wall time, the CPU seconds of pytest and its workers (user + system), the
tests that passed, failed and were skipped, and the load average before and after: on a shared machine
the wall time follows the load, the CPU seconds much less (a run alone on the 2-core machine takes
about its CPU seconds with one process, about half with two workers).

--write-slow runs the inner loop once (as CONTRIBUTING tells it, with `--durations=0`), or reads such a
run's output (--from), and adds to tests/measured_slow.txt every test whose setup, call and teardown
took SLOW_TEST seconds or more, and every module whose other tests still took SLOW_MODULE seconds
together: CI runs them, the inner loop leaves them (tests/conftest.py). Entries are only added; a
test that became cheap is taken out by hand.
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
sys.path.insert(0, str(ROOT))
from tests.support.slow_list import SLOW_LIST, entries  # noqa: E402
SLOW_TEST, SLOW_MODULE = 2.0, 20.0   # seconds on the idle 2-core machine
DURATION = re.compile(r"^\s*([0-9.]+)s (?:setup|call|teardown)\s+(\S.*?)\s*$")


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


def seconds_per_test(text):
    """{node id: setup + call + teardown seconds} from pytest's `--durations=0` report."""
    seconds = {}
    for line in text.splitlines():
        found = DURATION.match(line)
        if found:
            seconds[found[2]] = seconds.get(found[2], 0.0) + float(found[1])
    return seconds


def slow_entries(seconds):
    """The node ids of SLOW_TEST seconds or more, then the modules whose other tests add up to SLOW_MODULE."""
    tests = sorted(node for node, took in seconds.items() if took >= SLOW_TEST)
    rest = {}
    for node, took in seconds.items():
        if took < SLOW_TEST:
            module = node.split("::")[0] + "::"
            rest[module] = rest.get(module, 0.0) + took
    modules = sorted(module for module, took in rest.items() if took >= SLOW_MODULE)
    return [(m, rest[m]) for m in modules] + [(t, seconds[t]) for t in tests if not t.startswith(tuple(modules))]


def write_slow(text):
    known = set(entries())
    added = [(entry, took) for entry, took in slow_entries(seconds_per_test(text))
             if entry not in known and not entry.startswith(tuple(known))]
    with open(SLOW_LIST, "a") as out:
        for entry, took in added:
            out.write(f"{entry}  # {took:.1f} s\n")
    print(f"{len(added)} entries added to {SLOW_LIST.relative_to(ROOT)}: "
          f"{sum(took for _, took in added):.0f} s of the inner loop's test time")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", nargs="+", default=["default", "0"],
                        help='"default" (as pyproject says) or a number for -n; default: both ways')
    parser.add_argument("--write-slow", action="store_true", help="add the tests measured slow to "
                        "tests/measured_slow.txt")
    parser.add_argument("--from", dest="log", type=Path, help="with --write-slow: a run's output to read "
                        "instead of running the inner loop")
    args = parser.parse_args()
    if args.write_slow:
        if args.log:
            text = args.log.read_text()
        else:
            argv = [sys.executable, "-m", "pytest", "-m", "not slow", "-q", "-p", "no:cacheprovider", "--durations=0"]
            text = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True).stdout
        write_slow(text)
        return 0
    status = 0
    for workers in args.workers:
        status |= run(workers)
    return status


if __name__ == "__main__":
    sys.exit(main())
