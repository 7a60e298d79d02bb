"""Two weeks of a term as docs/teaching.md tells it, through the command line with REAL grading (kernels,
the trusted checker, nbgrader's feedback): Canvas's zip of notebook 01 graded with `--notebook 01`, the
written answers graded by hand (formgrader, through nbgrader's API), notebook 02 graded the next week
with `--notebook 02`, its answers graded by hand, then notebook 01 graded again after one student handed
in a fixed copy (their written answer unchanged); `export --to canvas` must give exactly the marks
awarded (issue 52). The first week is also graded with the fake grader (tests/support/fake_grading.py),
which must record what real grading records: the fake is the stand-in of every fast test of the record.
"""
import shutil
import sqlite3

import pytest

from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.support import classes, fake_grading, gradings, importers, records
from tests.support.classes import COLUMN, COLUMN02, NB01, NB02

pytestmark = [pytest.mark.course, pytest.mark.slow]   # four real gradings of two students

JANE, BOB = classes.CLASS[0], classes.CLASS[1]
N01, N02 = NB01[:-6], NB02[:-6]
DERIVATION = "alpha_bar_t telescopes: the product of (1 - 1/(T - s + 1)) is 1 - t/T."


def step(course, log, name, *args, grade=None):
    """Run a command, keep its status and output under `name` in log (later tests judge them)."""
    if grade is not None:
        submissions, roster, notebooks, *extra = grade
        status, out, err = records.grade(course, submissions, args[0], *extra, roster=roster, notebooks=notebooks)
    else:
        status, out, err = records.run(course, *args)
    log[name] = (status, out, err)
    return status


@pytest.fixture(scope="module")
def weeks(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp("two-weeks")
    roster = classes.write_roster(folder / "roster.csv", (JANE, BOB))
    bob01 = classes.handed_in(course, NB01, (), {"telescoping_product": DERIVATION})
    week1 = classes.write_canvas(folder / "week1.zip", {JANE: {NB01: classes.solved(course, NB01)}, BOB: {NB01: bob01}})
    ws, log, seen = folder / "ws", {}, {}
    step(course, log, "week 1", ws, grade=(week1, roster, ("01",)))
    shutil.copy(ws / "gradebook.db", folder / "week1-real.db")
    graded1 = {"csv": (ws / CSV_NAME).read_text(), "files": sorted(records.files(ws))}
    ids = {who: next(s for s, _ in records.rows(ws) if s.endswith(who.canvas_id)) for who in (JANE, BOB)}
    hand = {(ids[JANE], N01, "telescoping_product"): (1.5, "Clear."),
            (ids[BOB], N01, "telescoping_product"): (1.0, "Half of it.")}
    for (student, notebook, cell), (points, comment) in hand.items():
        records.hand_grade(ws, student, notebook, cell, points, comment)
    step(course, log, "export 1", "export", "--workspace", ws)
    seen["week 1"] = records.record(ws)
    week2 = classes.write_canvas(folder / "week2.zip", {JANE: {NB02: classes.solved(course, NB02)},
                                                        BOB: {NB02: classes.release(course, NB02)}}, attachment=2000)
    step(course, log, "week 2", ws, grade=(week2, roster, ("02",)))
    seen["week 2"] = records.record(ws)
    for cell, points in (("reverse_step_sums_to_one", 1.0), ("greedy_price", 1.5)):
        hand[(ids[JANE], N02, cell)] = (points, f"{cell}: fine.")
        records.hand_grade(ws, ids[JANE], N02, cell, points, f"{cell}: fine.")
    fixed = classes.handed_in(course, NB01, True, {"telescoping_product": DERIVATION})
    again = classes.write_canvas(folder / "again.zip", {JANE: {NB01: classes.solved(course, NB01)}, BOB: {NB01: fixed}},
                                 attachment=3000)
    step(course, log, "regrade", ws, grade=(again, roster, ("01",), "--only-changed"))
    step(course, log, "canvas", "export", "--workspace", ws, "--to", "canvas", "--each-notebook", "--column",
         f"01={COLUMN}")
    # the first week again, with the fake
    fake_ws = folder / "fake"
    with pytest.MonkeyPatch.context() as patch:
        fake_grading.install(patch)
        step(course, log, "fake week 1", fake_ws, grade=(week1, roster, ("01",)))
    return {"ws": ws, "fake": fake_ws, "log": log, "seen": seen, "ids": ids, "hand": hand, "graded1": graded1,
            "nbs": {(JANE, N01): classes.solved(course, NB01), (BOB, N01): fixed,
                    (JANE, N02): classes.solved(course, NB02), (BOB, N02): classes.release(course, NB02)},
            "folder": folder}


def test_every_command_succeeded(weeks):
    failed = {name: (status, err[-400:]) for name, (status, _, err) in weeks["log"].items() if status != 0}
    assert not failed


def test_the_fake_records_what_real_grading_records(weeks):
    """Week 1 (a solved notebook, and one with a written answer only) graded for real and by the fake:
    the same gradebook entries (scores, what is to grade by hand, comments), the same CSV, the same files
    (their contents aside: the fake neither runs the notebook nor writes nbgrader's page)."""
    real, fake = weeks["folder"] / "week1-real.db", weeks["fake"] / "gradebook.db"
    assert gradings.gradebook_rows(fake) == gradings.gradebook_rows(real)
    assert comments(fake) == comments(real)
    assert (weeks["fake"] / CSV_NAME).read_text() == weeks["graded1"]["csv"]
    assert sorted(records.files(weeks["fake"])) == weeks["graded1"]["files"]


def comments(db):
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(
            "SELECT sa.student_id, n.name, c.name, x.auto_comment, x.manual_comment FROM comment x "
            "JOIN base_cell c ON x.cell_id = c.id JOIN submitted_notebook sn ON x.notebook_id = sn.id "
            "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id"))
    finally:
        con.close()


def test_week_2_leaves_week_1_as_it_was(weeks):
    one, two = weeks["seen"]["week 1"], weeks["seen"]["week 2"]
    for part in ("gradebook", "rows", "files"):
        before = {k: v for k, v in one[part].items() if (k[1] == N01 if isinstance(k, tuple) else f"/{N01}." in k)}
        after = {k: v for k, v in two[part].items() if (k[1] == N01 if isinstance(k, tuple) else f"/{N01}." in k)}
        if after != before:
            raise AssertionError(f"grading notebook 02 changed notebook 01's {part}: "
                                 f"{records.differences({part: after}, {part: before}, 3)}")


def test_the_regrade_keeps_every_hand_grade(weeks):
    marks = records.gradebook(weeks["ws"])
    for key, (points, comment) in weeks["hand"].items():
        assert marks[key][1:] == (points, False, comment), \
            f"{key}: (manual, to grade, comment) {marks[key][1:]} after the regrade, {(points, False, comment)} awarded"


def test_canvas_gets_exactly_the_marks_awarded(weeks):
    """Each week into its own column (notebook 02's found by its title in the roster), exactly its marks."""
    got, _ = importers.canvas_grades(weeks["ws"] / "grades-canvas.csv")
    for who in (JANE, BOB):
        sid = weeks["ids"][who]
        for column, stem in ((COLUMN, N01), (COLUMN02, N02)):
            auto = sum(score or 0.0 for (person, notebook), nb in weeks["nbs"].items() if person is who
                       and notebook == stem for cell, score in fake_grading.expected(nb).items()
                       if not any(cell == c for (s, n, c) in weeks["hand"] if s == sid and n == notebook))
            by_hand = sum(points for (s, n, _), (points, _) in weeks["hand"].items() if s == sid and n == stem)
            assert got[who.canvas_id][column] == auto + by_hand, \
                f"{who.name} in {column}: Canvas gets {got[who.canvas_id][column]}, awarded {auto + by_hand}"
