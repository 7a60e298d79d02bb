"""Grading again into a workspace that holds grades (course/run/earlier.py, course/ledger/safekeeping.py),
through the command line, as docs/grading.md tells it: a Canvas zip graded with its roster, then a
second zip that lacks a student and in which another handed in only a PDF. Their earlier results stay
and are listed; --replace grades them missing; `export --to canvas` then refuses to zero them; `undo`
puts the workspace back as it was, and the export goes through. What is judged is the record, so each
student's grading is the fake's (tests/support/fake_grading.py, with --jobs 1: it records what real grading
records, tests/course/ledger/test_term_real.py), as in the other tests of the record."""
import hashlib
import sqlite3

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.ledger import safekeeping
from maskdiff_solutions.course.records.rows import CSV_NAME, read_csv
from maskdiff_solutions.course.run.earlier import KEPT_REASON
from tests.support import exports, fake_grading, importers

pytestmark = pytest.mark.course

NB01 = "01_noise_for_words"
COLUMN = "Masked diffusion (777)"
JANE, BOB, ZOE = "doejane_4242", "smithbob_5151", "nunezzoe_6161"


def run(course, *args):
    return cli.main(["--course-dir", str(course.root), *args])


def grade(course, export, roster, workspace, *extra):
    return run(course, "grade", str(export), "--roster", str(roster), "--workspace", str(workspace),
               "--no-canary", "--sandbox", "off", "--notebook", "01", "--jobs", "1", *extra)


def rows(workspace):
    return {row.student: row for row in read_csv(workspace / CSV_NAME)}


def in_gradebook(workspace, student):
    """The student's notebook 01 in the gradebook: 1, or 0 once replaced by missing."""
    with sqlite3.connect(workspace / "gradebook.db") as con:
        return con.execute("SELECT COUNT(*) FROM submitted_notebook s JOIN submitted_assignment a ON "
                           "s.assignment_id = a.id JOIN notebook n ON s.notebook_id = n.id "
                           "WHERE a.student_id = ? AND n.name = ?", (student, NB01)).fetchone()[0]


def page(workspace, course, student):
    return workspace / "feedback" / student / course.assignment / f"{NB01}.html"


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def week1(course, tmp_path_factory, fake_grader):
    """Canvas's zip and roster graded (Jane and Bob full marks, Zoë a PDF, Al nothing), and the
    second zip: Jane absent, Bob's PDF only, Zoë's notebook at last."""
    folder = tmp_path_factory.mktemp("regrade")
    export, roster = exports.canvas(course, folder)
    workspace = folder / "ws"
    assert grade(course, export, roster, workspace) == 0
    first = rows(workspace)
    pages = {student: digest(page(workspace, course, student)) for student in (JANE, BOB)}
    again = exports.write_zip(folder / "again.zip", {
        "smithbob_5151_1011_homework.pdf": b"%PDF-1.4 not a notebook",
        f"nunezzoe_6161_1012_{NB01}.ipynb": exports.notebook_bytes(exports.solved(course))})
    return workspace, roster, first, pages, again


def test_a_result_with_no_file_in_the_new_zip_stays_and_is_listed(week1, course, capsys):
    workspace, roster, first, pages, again = week1
    assert first[JANE].auto_score == first[BOB].auto_score == first[JANE].auto_max > 0
    assert first[ZOE].status == "missing"
    capsys.readouterr()
    assert grade(course, again, roster, workspace) == 0
    said = capsys.readouterr().err
    now = rows(workspace)
    assert (now[ZOE].status, now[ZOE].auto_score) == ("graded", first[JANE].auto_score)   # graded at last
    for student in (JANE, BOB):   # nothing of theirs in the zip: kept as they were
        assert (now[student].status, now[student].auto_score) == ("graded", first[student].auto_score)
        assert KEPT_REASON in now[student].reason
        assert digest(page(workspace, course, student)) == pages[student]
        assert (workspace / "autograded" / student / course.assignment / f"{NB01}.ipynb").is_file()
        assert in_gradebook(workspace, student) == 1
    points = f"{first[JANE].auto_score + first[JANE].manual_score:g}/{first[JANE].auto_max + first[JANE].manual_max:g}"
    assert (f"2 earlier results with no file in this batch kept: {JANE} 01 (graded {points}), "
            f"{BOB} 01 (graded {points})") in said
    assert "--replace" in said and "undo --workspace" in said
    assert [p.name[:4] for p in (workspace / safekeeping.EARLIER).iterdir()] == ["0001"]


def test_replace_zeros_the_batch_students_only_export_refuses_and_undo_puts_them_back(week1, course, capsys):
    """--replace with a zip in which Bob handed in only a PDF and Jane nothing at all: Bob's notebook 01 is
    graded missing (he is in the batch), Jane's stays (she is not), and the command says how many."""
    workspace, roster, first, pages, again = week1
    before = {name: digest(workspace / name) for name in (CSV_NAME, "grades-by-student.csv", "intake.json")}
    kept = rows(workspace)
    capsys.readouterr()
    assert grade(course, again, roster, workspace, "--replace") == 0
    said = capsys.readouterr().err
    assert f"1 earlier result with no file in this batch replaced by missing (--replace): {BOB} 01" in said
    now = rows(workspace)
    assert (now[BOB].status, now[BOB].auto_score, now[BOB].auto_max) == ("missing", 0.0, first[BOB].auto_max)
    # his page is no graded page any more (the fake writes graded pages from the gradebook; read_page: None otherwise)
    assert in_gradebook(workspace, BOB) == 0 and fake_grading.read_page(page(workspace, course, BOB)) is None
    assert (now[JANE].status, now[JANE].auto_score) == ("graded", first[JANE].auto_score) and KEPT_REASON in now[JANE].reason
    assert in_gradebook(workspace, JANE) == 1 and digest(page(workspace, course, JANE)) == pages[JANE]
    # a Canvas file now would zero Bob: export stops before it writes anything
    assert run(course, "export", "--workspace", str(workspace), "--to", "canvas", "--column", COLUMN) == 2
    said = capsys.readouterr().err
    assert "would give 0 to 1 student" in said and BOB in said and "--allow-zeros" in said
    assert not (workspace / "grades-canvas.csv").exists()
    # one command undoes the regrade; then the export goes through, with Bob's marks
    assert run(course, "undo", "--workspace", str(workspace)) == 0
    assert {name: digest(workspace / name) for name in before} == before
    assert rows(workspace)[BOB] == kept[BOB] and in_gradebook(workspace, BOB) == 1
    assert digest(page(workspace, course, BOB)) == pages[BOB]
    assert run(course, "export", "--workspace", str(workspace), "--to", "canvas", "--column", COLUMN) == 0
    grades, _ = importers.canvas_grades(workspace / "grades-canvas.csv")
    assert grades["5151"][COLUMN] is None or grades["5151"][COLUMN] > 0   # no grade yet (answers to grade), never 0
