"""Weeks are columns (issue 62, item 2; course/ledger/columns.py), through the command line with the fake
grader: a term graded a notebook a week into one workspace, and each week's marks exported into that
week's assignment column only; Canvas's Points Possible and Moodle's Maximum Grade checked against the
notebook's points before anything is written; an earlier week exported again gives what it gave."""
import hashlib

import pytest

from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, NB01, NB02

pytestmark = pytest.mark.course

WEEK1, WEEK2, TOTAL = "Week 1: noise for words (111)", "Week 2: undiffusing (222)", "Course total (999)"
POINTS = {WEEK1: classes.points(NB01), WEEK2: classes.points(NB02), TOTAL: classes.points(NB01) + classes.points(NB02)}


@pytest.fixture
def term(course, monkeypatch, tmp_path):
    """Two weeks graded into one workspace from Canvas's zips and roster: notebook 01 (some solved) and
    notebook 02 (half solved, its written answers as released)."""
    fake_grading.install(monkeypatch)
    ws = tmp_path / "ws"
    roster = classes.write_roster(tmp_path / "roster.csv", columns=POINTS)
    nb01 = {s: classes.handed_in(course, NB01, classes.function_cells(course, NB01)[:n + 1]) for n, s in enumerate(CLASS)}
    nb02 = classes.handed_in(course, NB02, classes.function_cells(course, NB02)[:2])
    for week, (nb, batch) in enumerate([(NB01, nb01), (NB02, {s: nb02 for s in CLASS})], 1):
        zipped = classes.write_canvas(tmp_path / f"week{week}.zip", {s: {nb: got} for s, got in batch.items()},
                                      attachment=1000 * week)
        status, _, err = records.grade(course, zipped, ws, roster=roster, notebooks=(nb[:2],))
        assert status == 0, err
    marks = {nb[:-6]: {s.canvas_id: sum(v or 0.0 for v in fake_grading.expected(batch[s]).values()) for s in CLASS}
             for nb, batch in ((NB01, nb01), (NB02, {s: nb02 for s in CLASS}))}
    return ws, roster, marks


def export(course, ws, *args):
    return records.run(course, "export", "--workspace", ws, "--to", "canvas", *args)


def canvas(ws):
    return importers.canvas_grades(ws / "grades-canvas.csv")


def snapshot(ws):
    return {str(p.relative_to(ws)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(ws.rglob("*")) if p.is_file() and p.name != ".grading.lock"}


def test_each_week_goes_into_its_own_column_and_an_earlier_week_again_gives_what_it_gave(course, term):
    ws, _, marks = term
    status, _, err = export(course, ws, "--notebook", "01", "--column", WEEK1)
    assert status == 0, err
    grades, points = canvas(ws)
    assert points == {WEEK1: POINTS[WEEK1]}
    assert {key: got[WEEK1] for key, got in grades.items()} == marks["01_noise_for_words"]
    first = (ws / "grades-canvas.csv").read_bytes()
    status, _, err = export(course, ws, "--notebook", "02")   # its column found by its title in the roster
    assert status == 0, err
    grades, points = canvas(ws)
    assert points == {WEEK2: POINTS[WEEK2]}, "week 2's column holds week 2's marks only"
    assert {key: got[WEEK2] for key, got in grades.items()} == marks["02_undiffusing"]
    assert export(course, ws, "--notebook", "01", "--column", WEEK1)[0] == 0
    assert (ws / "grades-canvas.csv").read_bytes() == first, "week 1 exported again gives what it gave"


def test_every_week_into_its_own_column_in_one_go(course, term):
    ws, _, marks = term
    status, _, err = export(course, ws, "--each-notebook", "--column", f"01={WEEK1}")
    assert status == 0, err
    grades, points = canvas(ws)
    assert points == {WEEK1: POINTS[WEEK1], WEEK2: POINTS[WEEK2]}
    for column, stem in ((WEEK1, "01_noise_for_words"), (WEEK2, "02_undiffusing")):
        assert {key: got[column] for key, got in grades.items()} == marks[stem]
    for label in ("01", "02"):
        assert {p.stem for p in (ws / "feedback-canvas" / label).glob("*.html")} == {s.canvas_id for s in CLASS}


def test_a_total_only_where_asked(course, term):
    ws, _, marks = term
    before = snapshot(ws)
    status, _, err = export(course, ws, "--column", TOTAL)
    assert status == 2 and "--each-notebook" in err and "--total" in err, err
    assert snapshot(ws) == before
    status, _, err = export(course, ws, "--total", "--column", TOTAL)
    assert status == 0, err
    grades, points = canvas(ws)
    assert points == {TOTAL: POINTS[TOTAL]}
    assert {key: got[TOTAL] for key, got in grades.items()} == \
        {key: marks["01_noise_for_words"][key] + marks["02_undiffusing"][key] for key in grades}


def test_a_column_whose_points_are_not_the_notebooks_stops_before_writing(course, term, tmp_path):
    ws, _, _ = term
    wrong = classes.write_roster(tmp_path / "wrong.csv", columns={WEEK1: POINTS[WEEK1], WEEK2: POINTS[WEEK1]})
    before = snapshot(ws)
    status, _, err = export(course, ws, "--notebook", "02", "--roster", wrong)
    assert status == 2, err
    (line,) = records.error_lines(err)
    assert f"worth {POINTS[WEEK1]:g} points in Canvas" in line and f"notebook 02 is worth {POINTS[WEEK2]:g}" in line, line
    assert snapshot(ws) == before, "nothing written"
    status, _, err = export(course, ws, "--notebook", "01", "--column", WEEK2)   # week 1 into week 2's column
    assert status == 2 and "worth" in err, err
    assert snapshot(ws) == before


def test_moodle_each_week_into_its_assignments_worksheet(course, monkeypatch, tmp_path):
    """Moodle numbers each assignment's participants anew: week 1's worksheet goes back with week 1's
    participant ids and marks, after week 2 was graded too; a Maximum Grade not the notebook's stops."""
    fake_grading.install(monkeypatch)
    ws = tmp_path / "ws"
    ids = {1: {s: 300 + n for n, s in enumerate(CLASS)}, 2: {s: 700 + n for n, s in enumerate(CLASS)}}
    nbs = {1: (NB01, classes.handed_in(course, NB01, True)), 2: (NB02, classes.handed_in(course, NB02, ["Undiffuse"]))}
    for week, (name, nb) in nbs.items():
        sheet = classes.write_worksheet(tmp_path / f"sheet{week}.csv", ids[week], classes.points(name), CLASS)
        zipped = classes.write_moodle(tmp_path / f"w{week}.zip", {s: {name: nb} for s in CLASS}, ids[week])
        assert records.grade(course, zipped, ws, roster=sheet, notebooks=(name[:2],))[0] == 0
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "moodle", "--notebook", "01")
    assert status == 0, err
    got = importers.moodle_grades(ws / "grades-moodle.csv", set(ids[1].values()))
    want = sum(v or 0.0 for v in fake_grading.expected(nbs[1][1]).values())
    assert {pid: grade for pid, (grade, _) in got.items()} == {pid: want for pid in ids[1].values()}
    wrong = classes.write_worksheet(tmp_path / "wrong.csv", ids[2], 100, CLASS)
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "moodle", "--notebook", "02",
                                 "--roster", wrong)
    assert status == 2 and "Maximum Grade of 100" in err, err
