"""`demo`: three sample submissions graded offline, each expected to get the score it deserves.

- reference: every answer cell filled with the source notebook's solution -> full autograded marks;
- untouched: the release notebooks as handed out -> no autograded marks;
- buggy: the reference with one realistic bug from the mutant catalog (course/term/demo_bug.py) -> partial
  marks.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..intake import notebooks
from ..intake.notebooks import solved
from ..records.rows import print_table
from ..run.batch import grade
from ..sandbox.settings import available
from .demo_bug import BUG


def with_answer(nb, grade_id, source):
    for cell in nb.cells:
        if notebooks.grade_id(cell) == grade_id:
            cell.source = source.strip("\n")
            return nb
    raise KeyError(f"no cell with grade_id {grade_id!r}")


def build_submissions(course, folder):
    """folder/<student>/<notebook>.ipynb for the three demo students."""
    bug = BUG
    for name in course.notebooks():
        source_nb = notebooks.read(course.source_dir / name)
        variants = {
            "reference": solved(source_nb, notebooks.read(course.release_dir / name)),
            "untouched": notebooks.read(course.release_dir / name),
        }
        buggy = solved(source_nb, notebooks.read(course.release_dir / name))
        if any(notebooks.grade_id(cell) == bug.function for cell in buggy.cells):
            buggy = with_answer(buggy, bug.function, bug.source)
        variants["buggy"] = buggy
        for student, nb in variants.items():
            (Path(folder) / student).mkdir(parents=True, exist_ok=True)
            notebooks.write(nb, Path(folder) / student / name)
    return bug


def expected_outcome(rows, buggy_graded=True):
    """True when reference has full marks, untouched none and buggy something in between (full
    marks when the notebook holding its bug is not among those graded)."""
    total = {}
    for row in rows:
        got, best = total.get(row.student, (0.0, 0.0))
        total[row.student] = (got + row.auto_score, best + row.auto_max)
    ref, untouched, buggy = (total.get(s, (0.0, 0.0)) for s in ("reference", "untouched", "buggy"))
    buggy_ok = 0 < buggy[0] < buggy[1] if buggy_graded else buggy[0] == buggy[1]
    return (ref[1] > 0 and ref[0] == ref[1] and untouched[0] == 0 and buggy_ok), total


def demo(course, workspace=None, sandbox="auto", selection=None):
    works, why = available()
    if sandbox == "auto" and not works and os.geteuid() == 0:   # the demo's own code, not students'
        print(f"demo: no sandbox here ({why}); the demo's own submissions are graded without one, but "
              f"grading students as root needs a sandbox that works, or --sandbox off", file=sys.stderr)
        sandbox = "off"
    scratch = None
    if workspace is None:
        scratch = tempfile.mkdtemp(prefix="maskdiff-demo-")
        workspace = scratch
    workspace = Path(workspace).resolve()
    try:
        submissions = workspace / "collected"
        shutil.rmtree(submissions, ignore_errors=True)
        bug = build_submissions(course, submissions)
        print(f"demo: grading 3 submissions in {workspace} (buggy one: {bug.function}, {bug.name})")
        # no canary: the demo's own reference student is one, and the demo says when it falls short
        report = grade(course, submissions, workspace, sandbox=sandbox, notebooks=selection, canary=False)
        print_table(report.rows, course.answers_optional)
        holds_bug = any(bug.function in notebooks.defined_functions(cell.source)
                        for name in course.select(selection)
                        for cell in notebooks.read(course.source_dir / name).cells)
        ok, total = expected_outcome(report.rows, holds_bug)
        for student, (got, best) in total.items():
            print(f"{student:<10} {got:g} / {best:g} autograded points")
        print("demo: every submission got the score it deserves" if ok
              else "demo: UNEXPECTED SCORES (see the table above)")
        return 0 if ok else 1
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
