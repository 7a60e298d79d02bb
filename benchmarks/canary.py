"""What the canary costs a one-student grading, proved once: the same student's notebooks graded into
one workspace three ways, in one run, against the same grading with --no-canary.

    python benchmarks/canary.py [--notebook 01 --notebook 04 ...]   (default: all five)

1. --no-canary (the baseline), 2. the first grading with the canary (it proves the reference),
3. a second grading under the same setup (the canary is left out, canary-proof.json), 4. --no-canary
again, so that a change of load shows. Prints seconds, second / no-canary (target at most 1.1), and
the load average at the start and the end.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from maskdiff_solutions.course.intake import notebooks  # noqa: E402
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def timed(course, collected, workspace, selection, canary):
    started = time.perf_counter()
    report = grade(course, collected, workspace, progress=False, notebooks=selection, canary=canary)
    seconds = time.perf_counter() - started
    assert all(row.status == "graded" and row.auto_score == row.auto_max for row in report.rows), report.rows
    return seconds, report.canary


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notebook", action="append", dest="notebooks", metavar="NN")
    args = parser.parse_args()
    course = Course.load(ROOT)
    selected = course.select(args.notebooks)
    print(f"load average at the start: {os.getloadavg()[0]:.2f}; notebooks: {', '.join(selected)}")
    with tempfile.TemporaryDirectory() as scratch:
        collected = Path(scratch) / "collected" / "student"
        collected.mkdir(parents=True)
        for name in selected:
            nb = notebooks.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))
            notebooks.write(nb, collected / name)
        runs = {}
        for label, canary, workspace in (("--no-canary", False, "plain"), ("first, proves", True, "proved"),
                                         ("second, proved before", True, "proved"),
                                         ("--no-canary again", False, "plain2")):
            runs[label], said = timed(course, collected.parent, Path(scratch) / workspace, args.notebooks, canary)
            print(f"{label:24s} {runs[label]:6.1f} s" + (f"   | {said.splitlines()[0][:110]}" if said else ""))
            shutil.rmtree(Path(scratch) / "plain", ignore_errors=True)
    baseline = (runs["--no-canary"] + runs["--no-canary again"]) / 2
    print(f"second grading / no-canary (mean of both): {runs['second, proved before'] / baseline:.2f} "
          f"(target at most 1.1); first / no-canary: {runs['first, proves'] / baseline:.2f}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
