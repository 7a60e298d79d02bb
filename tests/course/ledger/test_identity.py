"""Who a student is (issue 62, item 1; course/ledger/identity.py, course/intake/identities.py), through the
command line as an instructor meets it, with the fake grader (tests/support/fake_grading.py): a student is
their platform's id, or their folder's name in NFC, fixed the first time the workspace sees them; a name
is an attribute that may change. A student renamed on Canvas, a roster written on a Mac (NFD) against
folders named in NFC, and a late one-student zip graded without the roster each stay one student."""
import csv
import unicodedata

import pytest

from tests.support import classes, records
from tests.support.classes import CLASS, NB01, NB02

pytestmark = pytest.mark.course

JANE = CLASS[0]
RENAMED = classes.Student("Smith, Jane", JANE.canvas_id, "smithjane", JANE.folder)


@pytest.fixture
def fake(monkeypatch):
    from tests.support import fake_grading
    fake_grading.install(monkeypatch)


def by_student(workspace):
    with open(workspace / "grades-by-student.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


def canvas_rows(workspace):
    """[(Student, ID)] of grades-canvas.csv, under its Points Possible row."""
    with open(workspace / "grades-canvas.csv", newline="", encoding="utf-8") as handle:
        return [(row[0], row[1]) for row in list(csv.reader(handle))[2:]]


def test_a_student_renamed_on_canvas_stays_one_student(course, fake, tmp_path):
    """Week 1 from Canvas with the roster; by week 2 Jane Doe is Jane Smith in Canvas (her user id the
    same): one line says so, and she keeps her one id, both weeks' rows, her pages, and one line of
    Canvas's file under her latest name."""
    ws = tmp_path / "ws"
    roster1 = classes.write_roster(tmp_path / "roster1.csv")
    week1 = classes.write_canvas(tmp_path / "week1.zip", {s: {NB01: classes.solved(course, NB01)} for s in CLASS})
    assert records.grade(course, week1, ws, roster=roster1, notebooks=("01",))[0] == 0
    (jane,) = [sid for sid, _ in records.rows(ws) if sid.endswith(JANE.canvas_id)]
    roster2 = classes.write_roster(tmp_path / "roster2.csv", (RENAMED, *CLASS[1:]))
    week2 = classes.write_canvas(tmp_path / "week2.zip", {s: {NB02: classes.solved(course, NB02)}
                                                          for s in (RENAMED, *CLASS[1:])}, attachment=2000)
    status, _, err = records.grade(course, week2, ws, roster=roster2, notebooks=("02",))
    assert status == 0, err
    said = [line for line in err.splitlines() if "Smith, Jane" in line]
    assert len(said) == 1 and "Doe, Jane" in said[0] and jane in said[0], err[-2000:]
    rows = records.rows(ws)
    assert len({sid for sid, _ in rows}) == len(CLASS), sorted(rows)
    assert {rows[(jane, nb[:-6])].status for nb in (NB01, NB02)} == {"graded"}
    assert by_student(ws)[jane]["name"] == "Smith, Jane"
    assert records.page(ws, jane, NB01[:-6]) not in (None, "absent")
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "canvas", "--each-notebook",
                                 "--column", f"01={classes.COLUMN}")
    assert status == 0, err
    lines = canvas_rows(ws)
    assert [key for _, key in lines].count(JANE.canvas_id) == 1 and ("Smith, Jane", JANE.canvas_id) in lines


def test_a_late_zip_of_one_student_without_the_roster_finds_the_student(course, fake, tmp_path):
    """A late file from Canvas, named with another form of her name, graded without --roster: the same
    student (Canvas's user id), her notebook 01 replaced, nobody else's touched, nobody new."""
    ws = tmp_path / "ws"
    roster = classes.write_roster(tmp_path / "roster.csv")
    half = classes.handed_in(course, NB01, classes.function_cells(course, NB01)[:1])
    week1 = classes.write_canvas(tmp_path / "week1.zip", {s: {NB01: half} for s in CLASS})
    assert records.grade(course, week1, ws, roster=roster, notebooks=("01",))[0] == 0
    before = records.rows(ws)
    (jane,) = [sid for sid, _ in before if sid.endswith(JANE.canvas_id)]
    late = classes.write_canvas(tmp_path / "late.zip", {classes.Student("Doe, Janie", JANE.canvas_id, "doejanie", "x"):
                                                        {NB01: classes.solved(course, NB01)}}, attachment=3000)
    status, _, err = records.grade(course, late, ws, notebooks=("01",))
    assert status == 0, err
    after = records.rows(ws)
    assert set(after) == set(before), sorted(set(after) ^ set(before))
    assert after[(jane, NB01[:-6])].auto_score > before[(jane, NB01[:-6])].auto_score
    marks = lambda rows: {k: (v.status, v.auto_score, v.manual_score) for k, v in rows.items() if k[0] != jane}  # noqa: E731
    assert marks(after) == marks(before)
    assert by_student(ws)[jane]["name"] == "Doe, Jane"   # a file's form of the name never replaces the roster's


def test_a_roster_written_on_a_mac_names_the_folders_it_lists(course, fake, tmp_path):
    """Plain folders named in NFC and a roster of ids whose names a Mac wrote in NFD: one student each."""
    names = ["Zoë Núñez", "Ann"]
    folders = classes.write_collected(tmp_path / "collected", {
        classes.Student(name, "", "", name): {NB01: classes.solved(course, NB01)} for name in names})
    roster = tmp_path / "ids.csv"
    roster.write_text("student,name\n" + "".join(f"{unicodedata.normalize('NFD', n)},{unicodedata.normalize('NFD', n)}\n"
                                                 for n in names), encoding="utf-8")
    ws = tmp_path / "ws"
    status, _, err = records.grade(course, folders, ws, roster=roster, notebooks=("01",))
    assert status == 0, err
    rows = records.rows(ws)
    assert len({sid for sid, _ in rows}) == 2, sorted(rows)
    assert {row.status for row in rows.values()} == {"graded"}
    assert all(unicodedata.is_normalized("NFC", sid) for sid, _ in rows)
    # a later batch of one folder, no roster: the same student
    again = classes.write_collected(tmp_path / "again", {classes.Student(names[0], "", "", names[0]):
                                                         {NB01: classes.solved(course, NB01)}})
    assert records.grade(course, again, ws, notebooks=("01",))[0] == 0
    assert set(records.rows(ws)) == set(rows)


def test_moodle_numbers_each_assignment_anew_and_the_worksheet_finds_the_students(course, fake, tmp_path):
    """Moodle's participant ids are the assignment's own: week 2's worksheet numbers everyone anew (and
    Jane is Jane Smith by then); each student is found by their email, one student for both weeks."""
    ws = tmp_path / "ws"
    week1 = {s: 300 + n for n, s in enumerate(CLASS)}
    week2 = {s: 900 + n for n, s in enumerate((RENAMED, *CLASS[1:]))}
    sheet1 = classes.write_worksheet(tmp_path / "sheet1.csv", week1, classes.points(NB01), CLASS)
    zip1 = classes.write_moodle(tmp_path / "w1.zip", {s: {NB01: classes.solved(course, NB01)} for s in CLASS}, week1)
    assert records.grade(course, zip1, ws, roster=sheet1, notebooks=("01",))[0] == 0
    first = {sid for sid, _ in records.rows(ws)}
    renamed = classes.Student(RENAMED.name, "", JANE.sortable, "")   # her email stays
    week2 = {renamed if s is RENAMED else s: pid for s, pid in week2.items()}
    sheet2 = classes.write_worksheet(tmp_path / "sheet2.csv", week2, classes.points(NB02), week2)
    zip2 = classes.write_moodle(tmp_path / "w2.zip", {s: {NB02: classes.solved(course, NB02)} for s in week2}, week2)
    status, _, err = records.grade(course, zip2, ws, roster=sheet2, notebooks=("02",))
    assert status == 0, err
    assert {sid for sid, _ in records.rows(ws)} == first
    assert [line for line in err.splitlines() if "renamed on moodle: Jane Doe is now Jane Smith" in line]
    assert {row.status for row in records.rows(ws).values()} == {"graded"}
