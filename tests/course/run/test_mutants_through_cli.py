"""Notebook 06 graded through the command line (`python -m maskdiff_solutions grade`), as an
instructor runs it: the reference gets full marks, the untouched release 0, and a student who made one
catalog bug in each graded function loses exactly the points of the checks those bugs must fail.

One bug per function in one notebook: the checks grade each function apart (one bug never costs
twice: tests/grading/test_one_bug_once.py), so the lost tests are the union of the bugs' checks, and a
missing or extra test names the mutant at fault. The awkward batch (tests/conftest.py) does the same
for notebook 01's demo bug through `batch.grade`."""
import csv
import subprocess
import sys

import pytest

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term.demo import with_answer
from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.mutants import revising
from tests.support.points import points_of

pytestmark = [pytest.mark.course, pytest.mark.slow]
NB = "06_revising_and_faster"
BUGS = {  # one realistic bug per graded function of notebook 06, none of which raises in a drawing cell
    "TransferCounts": "even: the remainder goes to the last steps",
    "SampleBlocks": "every block gets all the steps",
    "CommitAbove": "the masks alone: masks outside the slots are committed",
    "RemaskSigma": "the two schedules swapped",
    "RemaskStep": "remasks the prompt: fixed ignored when remasking",
    "RemaskLoop": "n - 1 steps",
    "SampleEntropy": "in bits",
    "Perplexity": "no shift: each position scores its own token",
}


def bugs():
    chosen = [m for m in revising.MUTANTS if BUGS.get(m.function) == m.name]
    assert sorted(m.function for m in chosen) == sorted(BUGS), "a chosen mutant left the catalog"
    return chosen


def test_every_graded_function_of_notebook_06_has_its_bug_here(course):
    source = notebooks.read(course.source_dir / f"{NB}.ipynb")
    graded = {notebooks.grade_id(c) for c in source.cells if notebooks.is_solution(c)}
    assert set(BUGS) == graded & {m.function for m in revising.MUTANTS}
    assert set(BUGS) == {m.function for m in revising.MUTANTS}


def test_notebook_06_through_the_cli(course, tmp_path):
    release = course.release_dir / f"{NB}.ipynb"
    source = notebooks.read(course.source_dir / f"{NB}.ipynb")
    buggy = notebooks.solved(source, notebooks.read(release))
    for mutant in bugs():
        buggy = with_answer(buggy, mutant.function, mutant.source)
    handed = {"reference": notebooks.solved(source, notebooks.read(release)),
              "untouched": notebooks.read(release), "buggy": buggy}
    for student, nb in handed.items():
        (tmp_path / "collected" / student).mkdir(parents=True)
        notebooks.write(nb, tmp_path / "collected" / student / f"{NB}.ipynb")

    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root),
                           "grade", str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"),
                           "--notebook", "06", "--jobs", "2", "--no-canary"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with open(tmp_path / "ws" / CSV_NAME) as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle) if row["notebook"] == NB}
    full = points_of(course, NB)
    assert set(rows) == set(handed)
    assert all(row["status"] == "graded" for row in rows.values()), rows
    assert float(rows["reference"]["auto_score"]) == float(rows["reference"]["auto_max"]) == full
    assert float(rows["untouched"]["auto_score"]) == 0

    expected = {"test_" + check.replace(".", "_") for m in bugs() for check in m.fails}
    failed = set(rows["buggy"]["failed_tests"].split())
    assert failed == expected, f"missing {expected - failed}, extra {failed - expected}"
    tests = {notebooks.grade_id(c): notebooks.nbgrader(c)["points"] for c in source.cells if notebooks.is_test(c)}
    assert float(rows["buggy"]["auto_score"]) == full - sum(tests[t] for t in expected)
