"""The fake grader (tests/support/fake_grading.py) the record's tests stand on: its rule, and what it leaves
for `merge` to read. tests/course/records/test_term_real.py shows that it records what real grading
records on the same batch (a slow test: it grades for real)."""
import shutil

import pytest

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records.rows import Task
from tests.support import classes, fake_grading, records
from tests.support.classes import NB01, NB02

pytestmark = pytest.mark.course


@pytest.mark.parametrize("name", [NB01, NB02])
def test_each_test_cell_checks_one_cell_it_is_named_after(course, name):
    checked = fake_grading.checked_cells(classes.release(course, name))
    assert checked and all(len(cells) == 1 for cells in checked.values()), checked


@pytest.mark.parametrize("name", [NB01, NB02])
def test_the_reference_gets_every_autograded_point_and_the_release_none(course, name):
    release, solved = classes.release(course, name), classes.solved(course, name)
    tests = {notebooks.grade_id(c): float(notebooks.nbgrader(c)["points"]) for c in release.cells if notebooks.is_test(c)}
    answers = classes.manual_cells(course, name)
    assert {cell: fake_grading.expected(solved)[cell] for cell in tests} == tests
    assert {cell: fake_grading.expected(release)[cell] for cell in tests} == dict.fromkeys(tests, 0.0)
    assert {cell: fake_grading.expected(release)[cell] for cell in answers} == dict.fromkeys(answers, 0)  # nbgrader: blank
    assert {cell: fake_grading.expected(solved)[cell] for cell in answers} == dict.fromkeys(answers)      # a person grades


def test_a_function_solved_passes_exactly_the_tests_named_after_it(course):
    nb = classes.handed_in(course, NB01, ["ForwardMask"])
    passed = {cell for cell, ok in fake_grading.verdicts(nb).items() if ok}
    assert passed == {"test_ForwardMask_history", "test_ForwardMask_rates"}


def test_it_leaves_what_merge_reads(course, tmp_path, monkeypatch):
    template = fake_grading.install(monkeypatch)
    folder = tmp_path / "in" / "ann"
    folder.mkdir(parents=True)
    notebooks.write(classes.solved(course, NB01), folder / NB01)
    (folder / "data.txt").write_text("the student's own file")
    shutil.copy(template, tmp_path / "template.db")
    task = Task(str(course.root), str(tmp_path / "template.db"), "ann", str(folder), str(tmp_path / "scratch"),
                selected=[NB01])
    result = fake_grading.grade_student(task)
    scratch = tmp_path / "scratch"
    for path in ("db/gradebook.db", f"handed-in/ann/maskdiff/{NB01}", "handed-in/ann/maskdiff/data.txt",
                 f"work/autograded/ann/maskdiff/{NB01}", "work/autograded/ann/maskdiff/data.txt",
                 f"work/feedback/ann/maskdiff/{NB01[:-6]}.html"):
        assert (scratch / path).is_file(), path
    [row] = result.rows
    assert (row.status, row.auto_score, row.manual_pending) == ("graded", 16.0, 2.0)
    page = fake_grading.read_page(scratch / f"work/feedback/ann/maskdiff/{NB01[:-6]}.html")
    assert page["telescoping_product"] == (None, 2.0, "") and page["test_MakeSchedule"] == (2.0, 2.0, "")


def test_a_grading_through_the_command_line(course, tmp_path, monkeypatch):
    fake_grading.install(monkeypatch)
    batch = {who: {NB01: classes.solved(course, NB01), NB02: classes.handed_in(course, NB02, ["Undiffuse"])}
             for who in classes.CLASS}
    folder = classes.write_collected(tmp_path / "collected", batch)
    status, out, err = records.grade(course, folder, tmp_path / "ws", notebooks=("01", "02"))
    assert status == 0, err
    rows = records.rows(tmp_path / "ws")
    assert len(rows) == 8 and {row.auto_score for (_, nb), row in rows.items() if nb.startswith("01")} == {16.0}
    assert "Zoë_Núñez" in {student for student, _ in rows}   # the folder "Zoë Núñez"
