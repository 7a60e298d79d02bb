"""Graded under a version (issue 62, item 3; course/ledger/versions.py, course/run/regrade.py), through the
command line with the fake grader: notebook 01 graded, a person's hand grade given, then one of its tests
made worth a point more and the course released, then notebook 02 graded. No stored score of notebook 01
changes (its rows, its feedback pages, Canvas's column), every command says notebook 01 was graded under
an earlier version and how to regrade it; `regrade` applies the change and keeps the hand grade."""
import pytest

from maskdiff_solutions.course.layout import Course
from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, COLUMN, NB01, NB02

pytestmark = pytest.mark.course

N01 = NB01[:-6]
CHANGED = "test_MakeSchedule"   # worth 2 points, then 3


@pytest.fixture
def changed(course, monkeypatch, tmp_path):
    """Week 1 graded and a hand grade given under the course; the course with CHANGED worth 3 points."""
    fake_grading.install(monkeypatch)
    ws = tmp_path / "ws"
    roster = classes.write_roster(tmp_path / "roster.csv")
    week1 = classes.write_canvas(tmp_path / "week1.zip", {s: {NB01: classes.solved(course, NB01)} for s in CLASS})
    assert records.grade(course, week1, ws, roster=roster, notebooks=("01",))[0] == 0
    jane = next(sid for sid, _ in records.rows(ws) if sid.endswith(CLASS[0].canvas_id))
    records.hand_grade(ws, jane, N01, "telescoping_product", 1.5, "Nearly.")
    assert records.run(course, "export", "--workspace", ws)[0] == 0
    fixed = Course.load(classes.changed_course(tmp_path / "fixed", course.root, NB01, CHANGED, 3))
    return ws, roster, jane, fixed


def marks(ws):
    return {key: (row.auto_score, row.auto_max, row.manual_score, row.manual_max)
            for key, row in records.rows(ws).items() if key[1] == N01}


def test_a_course_change_never_changes_a_stored_score(course, changed, tmp_path):
    ws, roster, jane, fixed = changed
    before, page = marks(ws), records.page(ws, jane, N01)
    assert before[(jane, N01)] == (16.0, 16.0, 1.5, 2.0)
    week2 = classes.write_canvas(tmp_path / "week2.zip", {s: {NB02: classes.solved(course, NB02)} for s in CLASS},
                                 attachment=2000)
    status, _, err = records.grade(fixed, week2, ws, roster=roster, notebooks=("02",))
    assert status == 0, err
    said = [line for line in err.splitlines() if "earlier version" in line]
    assert len(said) == 1 and "notebook 01 of 4 students" in said[0] and "its points changed" in said[0] \
        and f"regrade --notebook 01 --workspace {ws}" in said[0], err[-1500:]
    assert marks(ws) == before, "grading notebook 02 under the fixed course re-scored notebook 01"
    records.hand_grade(ws, jane, N02 := NB02[:-6], "greedy_price", 1.0, "ok")   # her page is made again now
    status, _, err = records.run(fixed, "export", "--workspace", ws)
    assert status == 0 and "earlier version" in err, err
    assert marks(ws) == before
    assert records.page(ws, jane, N01) == page, "notebook 01's feedback page changed with the course"
    assert records.page(ws, jane, N02)["greedy_price"][0] == 1.0
    status, _, err = records.run(fixed, "export", "--workspace", ws, "--to", "canvas", "--notebook", "01",
                                 "--column", COLUMN)
    assert status == 0, err
    grades, points = importers.canvas_grades(ws / "grades-canvas.csv")
    assert points == {COLUMN: 18.0} and grades[CLASS[0].canvas_id][COLUMN] == 17.5


def test_regrade_applies_the_change_and_keeps_the_hand_grades(course, changed):
    ws, roster, jane, fixed = changed
    status, out, err = records.run(fixed, "regrade", "--workspace", ws, "--no-canary", "--sandbox", "off")
    assert status == 0, err
    after = marks(ws)
    assert after[(jane, N01)] == (17.0, 17.0, 1.5, 2.0), "the change applied, the hand grade kept"
    assert all(value[:2] == (17.0, 17.0) for value in after.values())
    assert records.page(ws, jane, N01)[CHANGED] == (3.0, 3.0, "")
    assert "earlier version" not in records.run(fixed, "export", "--workspace", ws)[2]
    status, out, _ = records.run(fixed, "regrade", "--workspace", ws, "--no-canary", "--sandbox", "off")
    assert status == 0 and "nothing to regrade" in out
