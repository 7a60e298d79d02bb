"""`demo`: the demo's three students (reference, untouched release, one catalog bug) get the scores it
says they deserve, and the command runs end to end."""
import dataclasses
import subprocess
import sys

import pytest

from maskdiff_solutions.course.term import demo
from tests.mutants import forward as catalog
from tests.support.cases import bug_notebooks
from tests.support.points import assignment_points

pytestmark = [pytest.mark.course, pytest.mark.slow]


def test_demo_scores_are_judged_right(course, graded_batch, tmp_path):
    """The demo's three students over the whole course. The awkward batch grades the buggy student's
    notebook with the bug only: the demo's other buggy notebooks are the reference's byte for byte
    (shown here), so each scores what the reference's does, graded in the same batch."""
    demo.build_submissions(course, tmp_path)
    holding = bug_notebooks(course, demo.BUG)
    assert holding
    for name in course.notebooks():
        same = (tmp_path / "buggy" / name).read_bytes() == (tmp_path / "reference" / name).read_bytes()
        assert same == (name not in holding), name
    graded = {key: row for key, row in graded_batch[1].items() if key[0] in ("reference", "untouched", "buggy")}
    rows = [row if row.student != "buggy" or f"{row.notebook}.ipynb" in holding
            else dataclasses.replace(graded[("reference", row.notebook)], student="buggy")
            for row in graded.values()]
    ok, total = demo.expected_outcome(rows)
    full = assignment_points(course)
    assert ok and total["reference"] == (full, full) and total["untouched"] == (0, full)
    assert total["buggy"] == (full - 3, full)


def test_demo_command_end_to_end(course):
    # one notebook: the whole course is graded by the graded_batch fixture already
    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root),
                           "demo", "--notebook", "01"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every submission got the score it deserves" in done.stdout


def test_the_demos_bug_is_a_mutant_of_the_catalog():
    """The demo carries its bug as package data (it never reads tests/): the catalog still holds it,
    word for word."""
    assert any((m.function, m.name, m.source) == (demo.BUG.function, demo.BUG.name, demo.BUG.source)
               for m in catalog.MUTANTS)


def test_the_demo_output_in_the_docs_is_what_the_demo_prints(course, graded_batch):
    """The demo's printout shown in Getting started was printed by the demo: each row's autograded
    points and each student's total are what grading these submissions gives (the buggy student's
    other notebooks score as the reference's, as shown above)."""
    from tests.support.docs import demo_output
    shown = demo_output()
    graded = graded_batch[1]
    holding = bug_notebooks(course, demo.BUG)
    totals = {}
    for student in ("reference", "untouched", "buggy"):
        for name in course.notebooks():
            stem = name.removesuffix(".ipynb")
            row = graded[(student if student != "buggy" or name in holding else "reference", stem)]
            line = next(l for l in shown.splitlines() if l.split()[:2] == [student, stem])
            assert line.split()[3] == f"{row.auto_score:g}/{row.auto_max:g}", line
            got, best = totals.get(student, (0.0, 0.0))
            totals[student] = (got + row.auto_score, best + row.auto_max)
        got, best = totals[student]
        assert f"{student:<10} {got:g} / {best:g} autograded points" in shown, student
    assert f"(buggy one: {demo.BUG.function}, {demo.BUG.name})" in shown


def test_the_demo_goes_on_without_a_sandbox_as_root_and_says_so(course, monkeypatch, capsys, tmp_path):
    """Its submissions are its own, not students': as root where bubblewrap cannot run, the demo (whose
    default is --sandbox auto) grades them without one, saying so and what grading students would need."""
    from maskdiff_solutions.course.sandbox import settings
    monkeypatch.setattr(settings, "_probed", {"answer": (False, "no bwrap here")})
    monkeypatch.setattr(demo.os, "geteuid", lambda: 0)
    asked = []

    def graded(*args, sandbox, **kwargs):
        asked.append(sandbox)
        raise RuntimeError("graded no further")
    monkeypatch.setattr(demo, "grade", graded)
    with pytest.raises(RuntimeError, match="graded no further"):
        demo.demo(course, tmp_path / "ws", selection=["01"])
    assert asked == ["off"]
    assert "demo: no sandbox here (no bwrap here); the demo's own submissions are graded without one, but grading " \
           "students as root needs a sandbox that works, or --sandbox off" in capsys.readouterr().err
