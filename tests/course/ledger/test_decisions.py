"""A person's decision is a record of its own (issue 62, item 4; course/ledger/decisions.py), through the
command line with the fake grader, as formgrader enters them (nbgrader's tables): an override of an
autograded test survives a resubmission that changed only a written answer; `undo` of week 2 keeps an
appeal granted on week 1 after week 2 was graded; a hand grade set aside is named in the row and on the
feedback page; a grade typed into grades-by-notebook.csv stops export, which says where it belongs."""
from contextlib import closing

import pytest

from maskdiff_solutions.course.ledger import record
from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, COLUMN, NB01, NB02

pytestmark = pytest.mark.course

JANE, BOB = CLASS[0], CLASS[1]
N01, N02 = NB01[:-6], NB02[:-6]
ANSWER = "telescoping_product"
TEST = "test_plot_schedule"   # checks plot_schedule: an override of its verdict, as a person reviewing a drawing


@pytest.fixture
def week1(course, monkeypatch, tmp_path):
    """Notebook 01 from Canvas with the roster: Jane left plot_schedule a stub (its test fails) and wrote
    her answer; everyone else solved it."""
    fake_grading.install(monkeypatch)
    ws = tmp_path / "ws"
    roster = classes.write_roster(tmp_path / "roster.csv")
    jane = classes.handed_in(course, NB01, [c for c in classes.function_cells(course, NB01) if c != "plot_schedule"],
                             {ANSWER: "It telescopes."})
    batch = {s: {NB01: jane if s is JANE else classes.solved(course, NB01)} for s in CLASS}
    assert records.grade(course, classes.write_canvas(tmp_path / "week1.zip", batch), ws, roster=roster,
                         notebooks=("01",))[0] == 0
    ids = {who: next(sid for sid, _ in records.rows(ws) if sid.endswith(who.canvas_id)) for who in CLASS}
    return ws, roster, ids, jane


def override(ws, student, notebook, cell, points):
    """formgrader: a person gives an autograded test cell a score of their own."""
    from maskdiff_solutions.course.records.gradebook import open_gradebook
    with open_gradebook(ws / "gradebook.db") as gradebook:
        grade = gradebook.find_grade(cell, notebook, "maskdiff", student)
        grade.manual_score = float(points)
        gradebook.db.commit()


def test_an_override_stays_when_only_a_written_answer_changed(course, week1, tmp_path):
    ws, roster, ids, jane = week1
    jane_id = ids[JANE]
    assert records.rows(ws)[(jane_id, N01)].auto_score == 14.0
    override(ws, jane_id, N01, TEST, 2)   # her drawing, reviewed by a person: full marks
    records.hand_grade(ws, jane_id, N01, ANSWER, 1.5, "Good.")
    assert records.run(course, "export", "--workspace", ws)[0] == 0
    assert records.rows(ws)[(jane_id, N01)].auto_score == 16.0
    again = classes.handed_in(course, NB01, [c for c in classes.function_cells(course, NB01) if c != "plot_schedule"],
                              {ANSWER: "It telescopes, because each factor cancels the next."})
    late = classes.write_canvas(tmp_path / "late.zip", {JANE: {NB01: again}}, attachment=5000)
    status, _, err = records.grade(course, late, ws, notebooks=("01",))
    assert status == 0, err
    row = records.rows(ws)[(jane_id, N01)]
    assert row.auto_score == 16.0, "the override of a test whose code is unchanged was lost"
    assert (row.manual_score, row.manual_pending) == (0.0, 2.0), "her new answer is to grade"
    assert f"set aside, to grade again: {ANSWER} (grade 1.5, comment 'Good.'; by " in row.reason, row.reason
    page = (ws / "feedback" / jane_id / "maskdiff" / f"{N01}.html").read_text()
    assert "Set aside, to be graded again by a person" in page and ANSWER in page
    # graded again by hand: nothing set aside any more
    records.hand_grade(ws, jane_id, N01, ANSWER, 2, "Better.")
    assert records.run(course, "export", "--workspace", ws)[0] == 0
    row = records.rows(ws)[(jane_id, N01)]
    assert "set aside" not in row.reason and (row.auto_score, row.manual_score) == (16.0, 2.0)
    assert "Set aside" not in (ws / "feedback" / jane_id / "maskdiff" / f"{N01}.html").read_text()
    with closing(record.connect(ws / "gradebook.db")) as con:
        kept = con.execute("SELECT cell, kind, value, state, who, at, judged FROM maskdiff_decision WHERE student = ? "
                           "ORDER BY id", (jane_id,)).fetchall()
    assert [(cell, kind, state) for cell, kind, _, state, *_ in kept] == [
        (ANSWER, "comment", "dropped"), (ANSWER, "score", "dropped"), (TEST, "score", "held"),
        (ANSWER, "comment", "held"), (ANSWER, "score", "held")]
    assert all(who and at and judged for *_, who, at, judged in kept), "who, when, on what"


def test_undo_of_week_2_keeps_an_appeal_on_week_1_granted_since(course, week1, tmp_path):
    ws, roster, ids, _ = week1
    week2 = classes.write_canvas(tmp_path / "week2.zip", {s: {NB02: classes.handed_in(course, NB02, True, {
        "greedy_price": "It costs more."})} for s in CLASS}, attachment=2000)
    assert records.grade(course, week2, ws, roster=roster, notebooks=("02",))[0] == 0
    # after week 2 was graded: Jane's appeal on week 1 granted, Bob's week 2 answer graded
    override(ws, ids[JANE], N01, TEST, 2)
    records.hand_grade(ws, ids[JANE], N01, ANSWER, 2, "On appeal: full marks.")
    records.hand_grade(ws, ids[BOB], N02, "greedy_price", 1.0, "Half.")
    status, out, err = records.run(course, "undo", "--workspace", ws)
    assert status == 0, err
    assert "3 decisions a person made since" in out, out
    assert f"{ids[BOB]} 02: greedy_price set aside" in err, err
    marks = records.gradebook(ws)
    assert marks[(ids[JANE], N01, TEST)][1] == 2.0 and marks[(ids[JANE], N01, ANSWER)][1:] == \
        (2.0, False, "On appeal: full marks.")
    row = records.rows(ws)[(ids[JANE], N01)]
    assert (row.auto_score, row.manual_score) == (16.0, 2.0)
    assert {notebook for _, notebook in records.rows(ws)} == {N01}, "week 2 undone"
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "canvas", "--column", COLUMN)
    assert status == 0, err
    grades, _ = importers.canvas_grades(ws / "grades-canvas.csv")
    assert grades[JANE.canvas_id][COLUMN] == 18.0


def test_a_grade_typed_into_a_derived_file_stops_export_and_says_where_it_belongs(course, week1):
    ws, _, ids, _ = week1
    assert records.run(course, "export", "--workspace", ws)[0] == 0
    path = ws / "grades-by-notebook.csv"
    edited = path.read_text().replace(",16.0,16.0,", ",17.0,16.0,", 1)
    assert edited != path.read_text()
    path.write_text(edited)
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "canvas", "--column", COLUMN)
    assert status == 2
    (line,) = records.error_lines(err)
    assert "grades-by-notebook.csv" in line and "edited" in line and "formgrader" in line, line
    assert path.read_text() == edited and not (ws / "grades-canvas.csv").exists()
    path.unlink()   # deleted, it is made again
    assert records.run(course, "export", "--workspace", ws)[0] == 0
    assert path.is_file() and ",17.0,16.0," not in path.read_text()
