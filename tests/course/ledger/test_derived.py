"""Derived files always match the record (issue 62, item 5; course/ledger/derived.py, manifest.py,
returns.py `refresh`), through the command line with the fake grader: a Canvas file exported, then a
regrade and its `undo` (each makes it again from the record, and says so); a grading killed half-way
(`export --to` refuses to mix old and new marks until it is finished); `--replace` with a late zip of
one student (it replaces that student's missing notebooks only, and says how many)."""
import shutil

import pytest

from tests.support import classes, exports, fake_grading, importers, records
from tests.support.classes import CLASS, COLUMN, NB01, NB02

pytestmark = pytest.mark.course

JANE, BOB = CLASS[0], CLASS[1]
N01, N02 = NB01[:-6], NB02[:-6]


@pytest.fixture
def term(course, monkeypatch, tmp_path):
    """Notebook 01 from Canvas with the roster, everyone half done (answers as released: no hand grading)."""
    template = fake_grading.install(monkeypatch)
    ws = tmp_path / "ws"
    roster = classes.write_roster(tmp_path / "roster.csv")
    half = classes.handed_in(course, NB01, classes.function_cells(course, NB01)[:2])
    assert records.grade(course, classes.write_canvas(tmp_path / "week1.zip", {s: {NB01: half} for s in CLASS}), ws,
                         roster=roster, notebooks=("01",))[0] == 0
    return ws, roster, template, fake_grading.expected(half)


def canvas(ws):
    grades, _ = importers.canvas_grades(ws / "grades-canvas.csv")
    return {key: got[COLUMN] for key, got in grades.items()}


def test_a_regrade_and_its_undo_make_the_platform_file_again(course, term, tmp_path):
    ws, roster, _, half = term
    assert records.run(course, "export", "--workspace", ws, "--to", "canvas", "--column", COLUMN)[0] == 0
    first, pages = canvas(ws), {p.name: p.read_bytes() for p in (ws / "feedback-canvas").glob("*.html")}
    assert set(first.values()) == {sum(v or 0.0 for v in half.values())}
    solved = classes.handed_in(course, NB01, True)
    again = classes.write_canvas(tmp_path / "again.zip", {s: {NB01: solved} for s in CLASS}, attachment=3000)
    status, _, err = records.grade(course, again, ws, roster=roster, notebooks=("01",))
    assert status == 0, err
    assert "grades-canvas.csv made again from the record" in err, err[-1500:]
    assert set(canvas(ws).values()) == {16.0}
    status, _, err = records.run(course, "undo", "--workspace", ws)
    assert status == 0, err
    assert "grades-canvas.csv made again from the record" in err
    assert canvas(ws) == first
    assert {p.name: p.read_bytes() for p in (ws / "feedback-canvas").glob("*.html")} == pages


def test_export_after_a_killed_grading_refuses_until_it_is_finished(course, term, tmp_path):
    """The regrade is killed (kill -9) as its second student starts: the first has the new marks, the
    others the old ones. `export --to canvas` would mix them: it refuses, one sentence, nothing written;
    the same grade again finishes, and the export gives everyone the new marks."""
    ws, roster, template, _ = term
    solved = classes.handed_in(course, NB01, True)
    again = classes.write_canvas(tmp_path / "again.zip", {s: {NB01: solved} for s in CLASS}, attachment=3000)
    args = ["grade", again, "--workspace", ws, "--roster", roster, "--notebook", "01", "--no-canary", "--sandbox", "off"]
    dry = tmp_path / "dry"
    shutil.copytree(ws, dry)
    counted = fake_grading.steps_of(course.root, [a if a != ws else dry for a in args], template, tmp_path / "steps")
    second = [k for k, what in counted if what.startswith("grade ")][1]
    done = fake_grading.run_stopped(course.root, args, template, stop=f"KILL@{second}", tmpdir=tmp_path)
    assert done.returncode == -9, done.stderr[-800:]
    marks = {row.auto_score for row in records.rows(ws).values()}
    status, _, err = records.run(course, "export", "--workspace", ws, "--to", "canvas", "--column", COLUMN)
    assert status == 2, err
    (line,) = records.error_lines(err)
    assert "stopped before it finished" in line and "grade" in line and "undo" in line, line
    assert not (ws / "grades-canvas.csv").exists()
    status, _, err = records.grade(course, again, ws, roster=roster, notebooks=("01",))
    assert status == 0, err
    assert records.run(course, "export", "--workspace", ws, "--to", "canvas", "--column", COLUMN)[0] == 0
    assert set(canvas(ws).values()) == {16.0} and marks != {16.0}


def test_replace_with_a_late_zip_of_one_student_replaces_nobody_else(course, term, tmp_path):
    ws, roster, _, half = term
    week2 = classes.write_canvas(tmp_path / "week2.zip", {s: {NB02: classes.handed_in(course, NB02, True)} for s in CLASS},
                                 attachment=2000)
    assert records.grade(course, week2, ws, roster=roster, notebooks=("02",))[0] == 0
    before = records.rows(ws)
    late = exports.write_zip(tmp_path / "late.zip", {f"{BOB.sortable}_{BOB.canvas_id}_9001_week2.pdf": b"%PDF-1.4"})
    status, _, err = records.grade(course, late, ws, "--replace", "--any-notebooks", notebooks=("02",))
    assert status == 0, err
    assert "1 earlier result with no file in this batch replaced by missing (--replace)" in err, err[-1500:]
    now = records.rows(ws)
    bob = next(sid for sid, _ in now if sid.endswith(BOB.canvas_id))
    assert now[(bob, N02)].status == "missing"
    assert (now[(bob, N02)].auto_max, now[(bob, N02)].manual_max) == (before[(bob, N02)].auto_max,
                                                                       before[(bob, N02)].manual_max), "out of its points"
    for key, row in now.items():
        if key != (bob, N02):
            assert (row.status, row.auto_score) == (before[key].status, before[key].auto_score), key
