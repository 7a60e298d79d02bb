"""One whole submission (every notebook, the reference student) graded with --no-canary, against the
same solved notebooks run bare one after another with nbclient under NBGRADER_EXECUTION, in one run,
alternating, after one warm-up of each (issue 54: the grading / bare ratio, goal at most 0.6 on 2 cores).

    python benchmarks/whole_submission.py [--rounds 2] [--notebook 01 ...]

Prints each round's seconds, the ratio per round and of the medians, and the load average beside each.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

import nbclient  # noqa: E402

from maskdiff_solutions.course.intake import notebooks  # noqa: E402
from maskdiff_solutions.course.layout import Course, warm_caches  # noqa: E402
from maskdiff_solutions.course.run import by_notebook  # noqa: E402
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.run.student import hidden_package_first  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def bare(folder, names):
    """The solved notebooks executed one after another, as the grader's kernels would run them alone."""
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    started, each = time.perf_counter(), []
    try:
        with hidden_package_first():
            for name in names:
                nb = notebooks.read(folder / name)
                begun = time.perf_counter()
                nbclient.NotebookClient(nb, timeout=600, allow_errors=True, kernel_name="python3",
                                        resources={"metadata": {"path": str(folder)}}).execute()
                each.append(f"{name[:2]} {time.perf_counter() - begun:.1f}")
    finally:
        del os.environ["NBGRADER_EXECUTION"]
    print("   notebooks: " + ", ".join(each))
    return time.perf_counter() - started


SPANS = []   # (notebook, start, end) of each unit of the last grading, from its start
PARTS = {}   # seconds of the last grading by part, summed over its threads (--breakdown)


def timed_part(owner, attribute, part):
    """Add the seconds each call of owner.attribute takes to PARTS[part]."""
    original = getattr(owner, attribute)

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            PARTS[part] = PARTS.get(part, 0.0) + time.perf_counter() - started
    setattr(owner, attribute, wrapper)


def breakdown():
    """Where a grading's time goes: the parts below, each summed over the threads that ran it (two
    notebooks at once: the parts add up to more than the wall time)."""
    from maskdiff_solutions.course.run import batch, committer, preprocessors, student
    from maskdiff_solutions.grading import checker
    timed_part(batch, "up_to_date_gradebook", "gradebook from source/ (generate or the kept copy)")
    timed_part(preprocessors.SurvivingExecute, "preprocess", "kernel: start, cells, stop")
    timed_part(preprocessors.SurvivingExecute, "preprocess_cell", "kernel: cells (hidden checks included)")
    timed_part(checker.Checker, "_run", "checker: hidden checks (calls into the kernel included)")
    timed_part(by_notebook.NotebookAutograde, "convert_single_notebook", "nbgrader autograde (its passes and the kernel)")
    timed_part(student, "finish", "scores, handed-in outputs and feedback")
    timed_part(committer.Committer, "student", "the record: the student committed")


def timed_units():
    """Record when each notebook's unit (course/run/by_notebook.py) starts and ends: the lanes."""
    original = by_notebook.autograde_unit

    def autograde_unit(unit, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original(unit, *args, **kwargs)
        finally:
            SPANS.append((unit.name[:2], started, time.perf_counter()))
    by_notebook.autograde_unit = autograde_unit


def graded(course, collected, workspace, selection, notebook_jobs=None):
    SPANS.clear()
    PARTS.clear()
    started = time.perf_counter()
    report = grade(course, collected, workspace, progress=False, notebooks=selection, canary=False,
                   notebook_jobs=notebook_jobs)
    seconds = time.perf_counter() - started
    print("   units: " + ", ".join(f"{name} {a - started:.1f}-{b - started:.1f}" for name, a, b in SPANS))
    for part, total in PARTS.items():
        print(f"   {total:6.1f} s  {part}")
    assert all(row.status == "graded" and row.auto_score == row.auto_max for row in report.rows), report.rows
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--notebook", action="append", dest="notebooks", metavar="NN")
    parser.add_argument("--also-notebook-jobs", type=int, metavar="M",
                        help="also grade with --notebook-jobs M in each round (default: only grade's default)")
    parser.add_argument("--breakdown", action="store_true", help="print where each grading's time went")
    args = parser.parse_args()
    course = Course.load(ROOT)
    selected = course.select(args.notebooks)
    warm_caches()
    timed_units()
    if args.breakdown:
        breakdown()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}; notebooks: {', '.join(selected)}")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        student = scratch / "collected" / "student"
        student.mkdir(parents=True)
        for name in selected:
            nb = notebooks.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))
            notebooks.write(nb, student / name)
        ways = ["bare", "graded"] + ([f"graded, --notebook-jobs {args.also_notebook_jobs}"]
                                     if args.also_notebook_jobs else [])
        times = {way: [] for way in ways}
        for index in range(args.rounds + 1):   # round 0 warms both up and is not counted
            for number, way in enumerate(ways):
                load = os.getloadavg()[0]
                seconds = (bare(student, selected) if way == "bare" else
                           graded(course, student.parent, scratch / f"ws{index}-{number}", args.notebooks,
                                  args.also_notebook_jobs if number == 2 else None))
                print(f"round {index} {way:7s} {seconds:6.1f} s   (load {load:.2f} -> {os.getloadavg()[0]:.2f})"
                      + ("   warm-up" if index == 0 else ""), flush=True)
                if index:
                    times[way].append(seconds)
    for way in ways[1:]:
        per_round = ", ".join(f"{g / b:.2f}" for g, b in zip(times[way], times["bare"]))
        ratio = statistics.median(times[way]) / statistics.median(times["bare"])
        print(f"{way} / bare: {ratio:.2f} by the medians ({per_round} per round); goal at most 0.6")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
