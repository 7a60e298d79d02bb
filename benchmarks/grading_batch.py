"""Grading the awkward batch against the same number of clean submissions, serial and --jobs 2.

Budget (issue 7): the awkward batch (tests.support.cases: one student per pathological
case, an endless loop among them) takes at most 2x the time of as many clean submissions.
Also prints what the per-student scratch workspaces cost: the time spent merging them into the
gradebook.

    python benchmarks/grading_batch.py [--jobs 2]
"""
import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, installed or not
from tests.support import cases  # noqa: E402
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def timed(course, batch, workspace, jobs):
    started = time.perf_counter()
    report = grade(course, batch, workspace, jobs=jobs, progress=False)
    return time.perf_counter() - started, report


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2, help="the parallel run's --jobs (default 2)")
    args = parser.parse_args()
    course = Course.load(ROOT)
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        awkward = scratch / "awkward"
        cases.build(course, awkward)
        students = sorted(p.name for p in awkward.iterdir())
        clean = scratch / "clean"
        for index, _ in enumerate(students):
            shutil.copytree(awkward / "reference", clean / f"clean{index:02d}")
        n = len(students)
        print(f"{n} students per batch, {len(course.notebooks())} notebook(s) each")
        figures = {}
        for jobs in (1, args.jobs):
            for name, batch in (("clean", clean), ("awkward", awkward)):
                seconds, report = timed(course, batch, scratch / f"ws-{name}-{jobs}", jobs)
                figures[(name, jobs)] = seconds
                print(f"{name:<8} --jobs {jobs}: {seconds:6.1f} s = {seconds / n:5.2f} s per submission "
                      f"(merging scratch workspaces: {report.merge_seconds:.2f} s in all)")
        for jobs in (1, args.jobs):
            ratio = figures[("awkward", jobs)] / figures[("clean", jobs)]
            print(f"--jobs {jobs}: awkward / clean = {ratio:.2f} (budget 2.00)")
        print(f"speed-up of --jobs {args.jobs} on the clean batch: "
              f"{figures[('clean', 1)] / figures[('clean', args.jobs)]:.2f}x")


if __name__ == "__main__":
    main()
