"""Notebooks 07 and 08 graded through the command line (`python -m maskdiff_solutions grade`), as an
instructor runs it, in one run: a student who made one catalog bug in each graded function loses
exactly the points of the checks those bugs must fail; for notebook 08, the newest, the reference gets
full marks and the untouched release 0 too (every notebook's get theirs in the awkward batch's grading,
tests/course/run/test_grade.py). Notebook 06's buggy student, graded here until notebook 08 came (the
heaviest notebook, about 40 s of CI's CPU), is proven mutant by mutant through the checker's kernel
(tests/grading/test_checker.py) and in-process.

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
from tests.mutants import caching, uniform
from tests.support.points import points_of

pytestmark = [pytest.mark.course, pytest.mark.slow]
NOTEBOOKS = {  # one realistic bug per graded function, none of which raises in a drawing cell
    "07_caching": (caching, {
        "BlockCausalMask": "a block sees the next one too",
        "TokensProcessed": "exact: the prompt counted twice, stored and run with the first block",
        "SampleBlocksCached": "the last block run clean too, its keys stored for nothing",
        "SampleBlocksPrefixCache": "dual: only the prefix cached, the suffix dropped",
    }),
    "08_noise_without_a_mask": (uniform, {
        "ForwardUniform": "a replaced token never draws itself",
        "PosteriorUniform": "drops the prior",
        "UniformStep": "DUO's formula with the guess plugged in for x_0 (it weighs the guess by q(x_t | x_0))",
        "UniformLoss": "no 1 / (N alpha_t) in front",
    }),
}


NEWEST = "08_noise_without_a_mask"   # the notebook whose reference and release are graded here too


def bugs(nb):
    catalog, chosen_names = NOTEBOOKS[nb]
    chosen = [m for m in catalog.MUTANTS if chosen_names.get(m.function) == m.name]
    assert sorted(m.function for m in chosen) == sorted(chosen_names), "a chosen mutant left the catalog"
    return chosen


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_every_graded_function_has_its_bug_here(course, nb):
    catalog, chosen = NOTEBOOKS[nb]
    source = notebooks.read(course.source_dir / f"{nb}.ipynb")
    graded = {notebooks.grade_id(c) for c in source.cells if notebooks.is_solution(c)}
    assert set(chosen) == graded & {m.function for m in catalog.MUTANTS}
    assert set(chosen) == {m.function for m in catalog.MUTANTS}


def test_notebooks_07_and_08_through_the_cli(course, tmp_path):
    handed = {"reference": {}, "untouched": {}, "buggy": {}}
    for nb in NOTEBOOKS:
        release = course.release_dir / f"{nb}.ipynb"
        source = notebooks.read(course.source_dir / f"{nb}.ipynb")
        buggy = notebooks.solved(source, notebooks.read(release))
        for mutant in bugs(nb):
            buggy = with_answer(buggy, mutant.function, mutant.source)
        handed["buggy"][nb] = buggy
        if nb == NEWEST:
            handed["reference"][nb] = notebooks.solved(source, notebooks.read(release))
            handed["untouched"][nb] = notebooks.read(release)
    for student, books in handed.items():
        (tmp_path / "collected" / student).mkdir(parents=True)
        for nb, book in books.items():
            notebooks.write(book, tmp_path / "collected" / student / f"{nb}.ipynb")

    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root),
                           "grade", str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"),
                           "--notebook", "07", "--notebook", "08", "--jobs", "2", "--no-canary"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with open(tmp_path / "ws" / CSV_NAME) as handle:
        graded = list(csv.DictReader(handle))
    for nb in NOTEBOOKS:
        rows = {row["student"]: row for row in graded if row["notebook"] == nb}
        source = notebooks.read(course.source_dir / f"{nb}.ipynb")
        full = points_of(course, nb)
        assert set(rows) == set(handed)   # a row for every student, the notebook handed in or not
        assert all(row["status"] == ("graded" if nb in handed[student] else "missing")
                   for student, row in rows.items()), rows
        if nb == NEWEST:
            assert float(rows["reference"]["auto_score"]) == float(rows["reference"]["auto_max"]) == full
            assert float(rows["untouched"]["auto_score"]) == 0

        expected = {"test_" + check.replace(".", "_") for m in bugs(nb) for check in m.fails}
        failed = set(rows["buggy"]["failed_tests"].split())
        assert failed == expected, f"{nb}: missing {expected - failed}, extra {failed - expected}"
        tests = {notebooks.grade_id(c): notebooks.nbgrader(c)["points"] for c in source.cells if notebooks.is_test(c)}
        assert float(rows["buggy"]["auto_score"]) == full - sum(tests[t] for t in expected), nb
