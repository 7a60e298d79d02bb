"""What a grading process pays to start: the CPU seconds of importing what a `--jobs` worker imports
(`maskdiff_solutions.course.run.student`) in a fresh interpreter, as the package does it (jsonschema's IRI
parser, rfc3987_syntax, left out: maskdiff_solutions/__init__.py) against a baseline that imports
that parser first, as nbformat would without the package's guard. The two ways alternate, each
round in fresh interpreters, so a change of load hits both.

    python benchmarks/startup.py [--rounds 8]

Prints the median and the range of each way's user + system CPU seconds, and the load before and
after (`os.getloadavg`)."""
import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WAYS = {
    "package (parser left out)": "import maskdiff_solutions.course.run.student",
    "baseline (parser imported)": "import rfc3987_syntax; import maskdiff_solutions.course.run.student",
}


def cpu_seconds(code):
    """User + system CPU seconds of one fresh interpreter running `code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    rounds = parser.parse_args().rounds
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    seconds = {way: [] for way in WAYS}
    cpu_seconds("import maskdiff_solutions.course.run.student")  # warm the file cache once
    for _ in range(rounds):
        for way, code in WAYS.items():
            seconds[way].append(cpu_seconds(code))
    for way, values in seconds.items():
        print(f"{way:28s} median {statistics.median(values):5.2f} s CPU "
              f"(min {min(values):.2f}, max {max(values):.2f}, {rounds} rounds)")
    saved = statistics.median(seconds[list(WAYS)[1]]) - statistics.median(seconds[list(WAYS)[0]])
    print(f"saved per grading process: {saved:.2f} s CPU; load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
