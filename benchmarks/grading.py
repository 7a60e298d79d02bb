"""How long grading takes, each figure next to its baseline, in one run.

- hidden checks: seconds for all checks of a notebook on the reference (budget: 15 s per notebook);
- autograde: seconds per submission through nbgrader, against executing the same solved notebook
  with nbclient under NBGRADER_EXECUTION (the floor: what a kernel run alone costs);
- demo: wall time of `python -m maskdiff_solutions demo`.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbclient

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term.demo import build_submissions
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.run.student import hidden_package_first
from maskdiff_solutions.course.layout import Course

ROOT = Path(__file__).resolve().parents[1]


def hidden_checks():
    by_notebook = {}
    for name in grading.CHECKS:
        if name.startswith(("plot_", "show_")):  # plot checks read a drawing: benchmarks/plot_checks.py
            continue
        function = getattr(reference, name.split(".")[0])
        started = time.perf_counter()
        assert grading.evaluate(name, function).passed, name
        module = grading.CHECKS[name].__module__.rsplit(".", 1)[-1]
        by_notebook[module] = by_notebook.get(module, 0.0) + time.perf_counter() - started
    return by_notebook


def plain_execution(path):
    nb = notebooks.read(path)
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    try:
        started = time.perf_counter()
        with hidden_package_first():
            nbclient.NotebookClient(nb, timeout=120, allow_errors=True,
                                    resources={"metadata": {"path": str(path.parent)}}).execute()
        return time.perf_counter() - started
    finally:
        del os.environ["NBGRADER_EXECUTION"]


def main():
    course = Course.load(ROOT)
    for module, seconds in hidden_checks().items():
        print(f"hidden checks [{module}]: {seconds:.2f} s (budget 15 s)")
    with tempfile.TemporaryDirectory() as scratch:
        batch = Path(scratch) / "collected"
        build_submissions(course, batch)
        baseline = sum(plain_execution(batch / "reference" / name) for name in course.notebooks())
        print(f"plain nbclient run of the solved notebooks: {baseline:.1f} s (baseline)")
        students = sorted(p.name for p in batch.iterdir())
        started = time.perf_counter()
        grade(course, batch, Path(scratch) / "workspace")
        batch_seconds = time.perf_counter() - started
        print(f"autograde + feedback + export, {len(students)} submissions: {batch_seconds:.1f} s "
              f"= {batch_seconds / len(students):.1f} s per submission (budget 60 s)")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(ROOT), "demo"],
                   check=True, capture_output=True)
    print(f"demo wall time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
