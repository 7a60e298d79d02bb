"""The check before handing in (each notebook's last cell, maskdiff_client/handin.py): how long it takes
on each reference notebook run as a student runs it (tests/support/as_student.py: quick mode, this
machine's CPU), against the whole notebook's run, and what it lists there and on the release.

    python benchmarks/hand_in_check.py [--notebook 01 ...]

The visible checks it runs again are the test cells' own, so its time is about theirs."""
import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maskdiff_solutions.course.intake import notebooks as nbtools  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402
from tests.support import as_student  # noqa: E402


def cell_seconds(cell):
    """The cell's time in the kernel, from the timestamps nbclient records."""
    from datetime import datetime
    ran = cell.metadata["execution"]
    stamp = [datetime.fromisoformat(ran[key].replace("Z", "+00:00")) for key in ("iopub.execute_input", "shell.execute_reply")]
    return (stamp[1] - stamp[0]).total_seconds()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", action="append", help="notebook numbers (default: all)")
    args = parser.parse_args()
    course = Course.load(Path(__file__).resolve().parents[1])
    names = [n for n in course.notebooks() if not args.notebook or n[:2] in args.notebook]
    print(f"load {os.getloadavg()[0]:.2f}")
    print(f"{'notebook':<32}{'run (s)':>9}{'check (s)':>11}{'checks':>8}{'rows':>6}{'left':>6}{'release left':>14}")
    for name in names:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            ran = as_student.run(nbtools.read(course.source_dir / name), Path(folder) / "source", name)
            whole = time.perf_counter() - started
            report = as_student.hand_in_report(ran)
            released = as_student.run(nbtools.read(course.release_dir / name), Path(folder) / "release", name,
                                      allow_errors=True)
        checks = re.search(r"(\d+) visible checks? run again", report).group(1)
        cell = next(c for c in ran.cells if nbtools.grade_id(c) == as_student.HAND_IN_CELL)
        seconds = cell_seconds(cell)
        rows = len(as_student.done(report)) + len(as_student.to_do(report))
        print(f"{name:<32}{whole:>9.1f}{seconds:>11.2f}{checks:>8}{rows:>6}{len(as_student.to_do(report)):>6}"
              f"{len(as_student.to_do(as_student.hand_in_report(released))):>14}")


if __name__ == "__main__":
    main()
