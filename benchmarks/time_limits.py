"""How far the load can go before the canary stops proving (issue 63): the reference of each notebook
graded by the canary (`grade`, sandbox as configured, one student who handed in nothing of the course,
so the canary is all the work) with no busy process beside it, then with N busy processes, each in a
session of its own as other people's work is (tests/support/busy.py), for each N asked for.

    python benchmarks/time_limits.py [--notebook 06 ...] [--busy 0,2,4,8,12]

For each notebook and load: the canary's verdict (passed; late: a time limit stopped a cell, so the
notebook is not proved and grading goes on; failed), the grading's seconds, the load average before and
after, the three cells that computed the longest, each with its CPU time (its busiest thread, the
checker's included: what the limit counts) and its clock time, and how many cells ran past 30 s of clock
time (each of them nbgrader's clock limit, used before issue 63, would have stopped). The cell limit is 30 s of computing; the backstop 4 times that of clock time.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nbformat.v4 import new_markdown_cell, new_notebook  # noqa: E402

from maskdiff_solutions.course.intake import notebooks  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402
from maskdiff_solutions.course.run import preprocessors  # noqa: E402
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.run.canary import CanaryFailed  # noqa: E402
from maskdiff_solutions.course.sandbox import time_limits  # noqa: E402
from tests.support import busy  # noqa: E402

CELLS = []   # (the cell's grade_id or index, its Spent) of every cell graded in this process
LIMIT = 30   # nbgrader_config.py's c.Execute.timeout


def record_cells():
    """Keep each code cell's time as SurvivingExecute measures it: from the reading at its start to one
    taken as it ends."""
    original = preprocessors.SurvivingExecute.preprocess_cell

    def preprocess_cell(self, cell, resources, index):
        out = original(self, cell, resources, index)
        start = getattr(self, "_last", None)
        if cell.cell_type == "code" and start is not None and self._meter is not None:
            CELLS.append((notebooks.grade_id(cell) or index, time_limits.spent(start, self._meter.read())))
        return out
    preprocessors.SurvivingExecute.preprocess_cell = preprocess_cell


def nobody(folder):
    """A student who handed in an essay, not a notebook of the course: the canary proves every
    notebook asked for and the student costs nothing to grade."""
    folder.mkdir(parents=True)
    notebooks.write(new_notebook(cells=[new_markdown_cell("# My essay")]), folder / "essay.ipynb")


def one(course, collected, scratch, stem):
    CELLS.clear()
    started, before = time.perf_counter(), busy.load()
    try:
        report = grade(course, collected, Path(scratch) / f"w-{stem}-{time.time_ns()}", progress=False,
                       notebooks=[stem], prove_again=True, any_notebooks=True)
        verdict = "late" if "ran out of time" in report.canary else "passed"
    except CanaryFailed as err:
        verdict = f"FAILED: {str(err)[:160]}"
    seconds = time.perf_counter() - started
    dearest = sorted(CELLS, key=lambda cell: -cell[1].busy)[:3]
    past = sum(spent.wall > LIMIT for _, spent in CELLS)
    return (f"{seconds:6.1f} s  {verdict:8.8s}  dearest cells, CPU (clock): "
            + ", ".join(f"{name} {spent.busy:.1f} ({spent.wall:.1f}) s" for name, spent in dearest)
            + f"  past {LIMIT} s of clock: {past}  load {before} -> {busy.load()}"
            + (f"\n      {verdict}" if verdict.startswith("FAILED") else ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--notebook", action="append", dest="notebooks", metavar="NN")
    parser.add_argument("--busy", default="0,4,8", help="busy processes beside the grading, comma-separated")
    args = parser.parse_args()
    course = Course.load(ROOT)
    stems = [name[:2] for name in course.select(args.notebooks)]
    levels = [int(n) for n in args.busy.split(",")]
    record_cells()
    print(f"{busy.cores()} cores; load average at the start {busy.load()}; notebooks {', '.join(stems)}; "
          f"busy processes {levels}")
    with tempfile.TemporaryDirectory() as scratch:
        collected = Path(scratch) / "collected"
        nobody(collected / "student")
        for level in levels:
            with busy.busy(level):
                for stem in stems:
                    print(f"{stem} beside {level:2d} busy: {one(course, collected, scratch, stem)}", flush=True)
    print(f"load average at the end {busy.load()}")


if __name__ == "__main__":
    main()
