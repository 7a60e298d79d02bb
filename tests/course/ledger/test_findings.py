"""The term's record (gradebook.db, and what is made from it: grades-by-notebook.csv, grades-by-student.csv,
the feedback pages, Canvas's file) stays true through the weeks of a term (issue 52), through the
command line with the fake grader (tests/support/fake_grading.py: milliseconds a student, scores by a
rule of the notebook's content):

1. grading notebook 02 into the workspace of notebook 01 leaves notebook 01 as it was: its files,
   gradebook entries, rows, and the marks `export` and `export --to canvas` give;
2. grading again keeps what a person graded by hand (formgrader: a manual score, needs_manual_grade
   off, a comment), in the gradebook, the CSV, the feedback page and Canvas's file, unless the answer
   changed since (then the row says so), also when the hand grade is entered while a grading runs;
5. a record missing or disagreeing with the workspace (gradebook.db deleted, or an older one put back)
   stops every command with exit 2, one sentence and the command that recovers, and changes nothing.
"""
import shutil

import pytest

from maskdiff_solutions.course.run import student as one_student
from tests.support import classes, fake_grading, records
from tests.support.classes import CLASS, COLUMN, NB01, NB02

pytestmark = pytest.mark.course

N01, N02 = NB01[:-6], NB02[:-6]
ANSWER01 = "telescoping_product"


@pytest.fixture
def fake(monkeypatch):
    fake_grading.install(monkeypatch)


@pytest.fixture
def term(course, fake, tmp_path):
    """Week 1 graded: every student of the class hands in notebook 01 solved, with a written answer."""
    roster = classes.write_roster(tmp_path / "roster.csv")
    week1 = classes.write_canvas(tmp_path / "week1.zip", {s: {NB01: classes.solved(course, NB01)} for s in CLASS})
    workspace = tmp_path / "ws"
    status, _, err = records.grade(course, week1, workspace, roster=roster, notebooks=("01",))
    assert status == 0, err
    students = sorted({student for student, _ in records.rows(workspace)})
    assert len(students) == len(CLASS)
    return workspace, roster, week1, students


def only(mapping, notebook):
    """The entries of one notebook of a records.* mapping keyed by (student, notebook, ...) or path."""
    return {key: value for key, value in mapping.items()
            if (key[1] == notebook if isinstance(key, tuple) else f"/{notebook}." in key)}


# ------------------------------------------------------------------------------------- finding 1

def test_grading_notebook_02_leaves_notebook_01_as_it_was(course, term, tmp_path):
    workspace, roster, _, students = term
    for n, student in enumerate(students):
        records.hand_grade(workspace, student, N01, ANSWER01, 0.5 + n / 2, f"comment {n}")
    assert records.run(course, "export", "--workspace", workspace)[0] == 0
    before = {"gradebook": only(records.gradebook(workspace), N01), "rows": only(records.rows(workspace), N01),
              "files": only(records.files(workspace), N01)}
    assert len(before["files"]) == 3 * len(students)   # submitted, autograded, feedback
    week2_nb = classes.handed_in(course, NB02, ["Undiffuse"])
    week2 = classes.write_canvas(tmp_path / "week2.zip", {s: {NB02: week2_nb} for s in CLASS})
    status, _, err = records.grade(course, week2, workspace, roster=roster, notebooks=("02",))
    assert status == 0, err
    after = {"gradebook": only(records.gradebook(workspace), N01), "rows": only(records.rows(workspace), N01),
             "files": only(records.files(workspace), N01)}
    assert after["files"] == before["files"], "notebook 01's submitted/, autograded/ or feedback/ changed"
    assert after["gradebook"] == before["gradebook"], "notebook 01's gradebook entries changed"
    assert after["rows"] == before["rows"]
    # the next export and Canvas's file still give notebook 01's marks
    assert records.run(course, "export", "--workspace", workspace)[0] == 0
    for n, student in enumerate(students):
        row = records.rows(workspace)[(student, N01)]
        assert (row.auto_score, row.manual_score, row.manual_pending) == (16.0, 0.5 + n / 2, 0.0), row
    status, _, err = records.run(course, "export", "--workspace", workspace, "--to", "canvas", "--notebook", "01",
                                 "--column", COLUMN)
    assert status == 0, err
    got = records.canvas(workspace)
    assert got == {s.canvas_id: 16.0 + 0.5 + n / 2 for n, s in enumerate(sorted(CLASS, key=lambda s: _sid(s, students)))}
    # and week 2's column (found by its title in the roster) holds week 2's marks only
    status, _, err = records.run(course, "export", "--workspace", workspace, "--to", "canvas", "--notebook", "02")
    assert status == 0, err
    week2_points = sum(v or 0.0 for v in fake_grading.expected(week2_nb).values())
    assert records.canvas(workspace) == {s.canvas_id: week2_points for s in CLASS}


def _sid(person, students):
    """The nbgrader id grading gave a person of the class (their Canvas id ends it)."""
    return next(s for s in students if s.endswith(f"_{person.canvas_id}"))


# ------------------------------------------------------------------------------------- finding 2

def _graded_by_hand(workspace, students):
    given = {}
    for n, student in enumerate(students):
        given[student] = (0.5 * (n + 1), f"Well argued, {n}.")
        records.hand_grade(workspace, student, N01, ANSWER01, *given[student])
    return given


def _assert_hand_grades_kept(course, workspace, given, students):
    marks = records.gradebook(workspace)
    for student, (score, comment) in given.items():
        auto, manual, pending, said = marks[(student, N01, ANSWER01)]
        assert (manual, pending, said) == (score, False, comment), f"{student}'s hand grade in gradebook.db"
        row = records.rows(workspace)[(student, N01)]
        assert (row.manual_score, row.manual_pending) == (score, 0.0), f"{student}'s row: {row}"
        assert records.page(workspace, student, N01)[ANSWER01] == (score, 2.0, comment), f"{student}'s page"
    status, _, err = records.run(course, "export", "--workspace", workspace, "--to", "canvas", "--column", COLUMN)
    assert status == 0, err
    got = records.canvas(workspace)
    for person in CLASS:
        assert got[person.canvas_id] == 16.0 + given[_sid(person, students)][0], f"{person.name} in grades-canvas.csv"


@pytest.mark.parametrize("how", ["grade", "only-changed"])
def test_grading_again_keeps_the_hand_grades(course, term, tmp_path, how):
    """`grade` again with the same files, or `--only-changed` after one student changed a function (their
    written answer as it was): every hand grade stays, in every part of the record."""
    workspace, roster, week1, students = term
    given = _graded_by_hand(workspace, students)
    assert records.run(course, "export", "--workspace", workspace)[0] == 0
    _assert_hand_grades_kept(course, workspace, given, students)
    batch = week1
    if how == "only-changed":
        changed = classes.solved(course, NB01)
        for cell in changed.cells:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "MakeSchedule":
                cell.source += "\n# tidied up"
        batch = classes.write_canvas(tmp_path / "again.zip", {s: {NB01: changed if s is CLASS[0] else
                                                                   classes.solved(course, NB01)} for s in CLASS})
    extra = ("--only-changed",) if how == "only-changed" else ()
    status, _, err = records.grade(course, batch, workspace, *extra, roster=roster, notebooks=("01",))
    assert status == 0, err
    _assert_hand_grades_kept(course, workspace, given, students)
    assert records.run(course, "export", "--workspace", workspace)[0] == 0
    _assert_hand_grades_kept(course, workspace, given, students)


def test_an_answer_changed_since_it_was_graded_by_hand_is_to_grade_again_and_the_row_says_so(course, term, tmp_path):
    workspace, roster, _, students = term
    given = _graded_by_hand(workspace, students)
    rewritten = classes.solved(course, NB01, answer="A different answer, written after the grading.")
    batch = classes.write_canvas(tmp_path / "again.zip", {s: {NB01: rewritten if s is CLASS[0] else
                                                               classes.solved(course, NB01)} for s in CLASS})
    status, _, err = records.grade(course, batch, workspace, roster=roster, notebooks=("01",))
    assert status == 0, err
    changed = _sid(CLASS[0], students)
    row = records.rows(workspace)[(changed, N01)]
    assert row.manual_pending == 2.0 and ANSWER01 in row.reason, \
        f"{changed}: {row.manual_pending:g} to grade, reason {row.reason!r}: the row should say {ANSWER01} changed since it was graded by hand"
    for student in set(students) - {changed}:   # the others keep theirs
        assert records.gradebook(workspace)[(student, N01, ANSWER01)][1:3] == (given[student][0], False)


def test_a_hand_grade_entered_while_a_grading_runs_is_kept(course, term, monkeypatch):
    """formgrader stays open while `grade` runs: a person grades one student already merged and one not
    yet graded; both grades are in the record after the run."""
    workspace, roster, week1, students = term
    first, second, later = students[0], students[1], students[2]
    grade_student = one_student.grade_student

    def meanwhile(task):
        if task.student == second:
            records.hand_grade(workspace, first, N01, ANSWER01, 1.5, "graded meanwhile (merged before)")
            records.hand_grade(workspace, later, N01, ANSWER01, 0.5, "graded meanwhile (merged after)")
        return grade_student(task)
    monkeypatch.setattr(one_student, "grade_student", meanwhile)
    status, _, err = records.grade(course, week1, workspace, roster=roster, notebooks=("01",))
    assert status == 0, err
    marks = records.gradebook(workspace)
    assert marks[(first, N01, ANSWER01)][1:] == (1.5, False, "graded meanwhile (merged before)")
    assert marks[(later, N01, ANSWER01)][1:] == (0.5, False, "graded meanwhile (merged after)")
    assert records.rows(workspace)[(later, N01)].manual_score == 0.5


# ------------------------------------------------------------------------------------- finding 5

COMMANDS = {"grade --only-changed": ("grade", "--only-changed"), "grade": ("grade",), "export": ("export",),
            "export --to canvas": ("export", "--to", "canvas", "--column", COLUMN)}


def _command(course, name, workspace, week1, roster):
    args = COMMANDS[name]
    if args[0] == "grade":
        return records.grade(course, week1, workspace, *args[1:], roster=roster, notebooks=("01",))
    return records.run(course, *args, "--workspace", workspace)


def _assert_stops_and_changes_nothing(course, name, workspace, week1, roster):
    before = _contents(workspace)
    status, out, err = _command(course, name, workspace, week1, roster)
    said = records.error_lines(err)
    assert status == 2, f"`{name}` went on (exit {status}) with the record broken: {err[-600:]}"
    assert len(said) == 1 and "gradebook.db" in said[0] and "python -m maskdiff_solutions" in said[0], said
    after = _contents(workspace)
    changed = sorted(str(p) for p in set(after) | set(before) if after.get(p) != before.get(p))
    assert not changed, f"`{name}` changed {changed}"


def _contents(workspace):
    """Every file of the workspace but its lock, the intake's staging and the kept gradings."""
    return {path.relative_to(workspace): path.read_bytes() for path in workspace.rglob("*") if path.is_file()
            and not {"earlier-gradings", "intake"} & set(path.relative_to(workspace).parts[:1])
            and path.name != ".grading.lock"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_deleted_gradebook_stops_every_command(course, term, command):
    workspace, roster, week1, students = term
    assert records.run(course, "export", "--workspace", workspace)[0] == 0
    (workspace / "gradebook.db").unlink()
    _assert_stops_and_changes_nothing(course, command, workspace, week1, roster)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_older_gradebook_put_back_by_hand_stops_every_command(course, term, tmp_path, command):
    """gradebook.db copied back from earlier-gradings/ (or a backup) while the CSVs, pages and
    grading-state.json are the latest grading's: they disagree, and nothing may go on as if they did not."""
    workspace, roster, week1, students = term
    shutil.copy(workspace / "gradebook.db", tmp_path / "older.db")
    given = _graded_by_hand(workspace, students)   # then a grading of changed files
    assert given
    again = classes.write_canvas(tmp_path / "again.zip",
                                 {s: {NB01: classes.handed_in(course, NB01, ["MakeSchedule"])} for s in CLASS})
    assert records.grade(course, again, workspace, roster=roster, notebooks=("01",))[0] == 0
    shutil.copy(tmp_path / "older.db", workspace / "gradebook.db")
    _assert_stops_and_changes_nothing(course, command, workspace, week1, roster)


def test_only_changed_after_the_gradebook_was_deleted_never_leaves_export_to_fail(course, term):
    """The sequence of the issue: whatever `grade --only-changed` does, the `export` after it neither
    crashes (nbgrader's MissingEntry, exit 1) nor deletes a feedback page."""
    workspace, roster, week1, students = term
    pages = sorted((workspace / "feedback").rglob("*.html"))
    (workspace / "gradebook.db").unlink()
    records.grade(course, week1, workspace, "--only-changed", roster=roster, notebooks=("01",))
    status, _, err = records.run(course, "export", "--workspace", workspace)
    assert status in (0, 2) and "MissingEntry" not in err, err[-600:]
    assert [page for page in pages if not page.is_file()] == []


# ------------------------------------------------------------------------------------- late flags

def test_a_late_flag_belongs_to_its_notebook_and_a_later_week_keeps_it(course, fake, tmp_path):
    """Canvas marks Jane's notebook 01 late (`_late_` in its name); week 2, on time, never clears it:
    the flag is kept per student and notebook in the record, not per batch in intake.json."""
    import dataclasses
    roster = classes.write_roster(tmp_path / "roster.csv")
    jane = CLASS[0]
    late = {dataclasses.replace(s, sortable=f"{s.sortable}_late") if s == jane else s: {NB01: classes.solved(course, NB01)}
            for s in CLASS}
    workspace = tmp_path / "ws"
    assert records.grade(course, classes.write_canvas(tmp_path / "w1.zip", late), workspace, roster=roster,
                         notebooks=("01",))[0] == 0
    week2 = classes.write_canvas(tmp_path / "w2.zip", {s: {NB02: classes.handed_in(course, NB02, [])} for s in CLASS})
    assert records.grade(course, week2, workspace, roster=roster, notebooks=("02",))[0] == 0
    rows = records.rows(workspace)
    flagged = sorted((student, notebook) for (student, notebook), row in rows.items() if row.late)
    assert len(flagged) == 1 and flagged[0][1] == N01 and flagged[0][0].startswith(jane.sortable)
    import csv
    with open(workspace / "grades-by-student.csv", encoding="utf-8") as handle:
        late_ones = [r["student"] for r in csv.DictReader(handle) if r["late"] == "yes"]
    assert late_ones == [flagged[0][0]]


def test_a_grading_that_crashes_never_replaces_an_earlier_result_and_says_so(course, term, monkeypatch):
    """Grading itself crashes for every student (exit 1): week 1's results stay, and each row says the
    grading crashed and the earlier result is kept."""
    workspace, roster, week1, students = term
    before = records.gradebook(workspace)

    def crash(task):
        raise RuntimeError("the disk is full")
    monkeypatch.setattr(one_student, "grade_student", crash)
    status, _, err = records.grade(course, week1, workspace, roster=roster, notebooks=("01",))
    assert status == 1 and "grading itself crashed" in err
    assert records.gradebook(workspace) == before
    for student in students:
        row = records.rows(workspace)[(student, N01)]
        assert row.status == "graded" and row.auto_score == 16.0
        assert "grading crashed: RuntimeError: the disk is full; the earlier result is kept" in row.reason


def test_a_regrade_never_doubles_a_reason(course, fake, tmp_path):
    """Bob, on the roster, hands in nothing twice: his row says so once, whatever the number of gradings."""
    roster = classes.write_roster(tmp_path / "roster.csv")
    bob = CLASS[1]
    batch = classes.write_canvas(tmp_path / "w1.zip", {s: {NB01: classes.solved(course, NB01)} for s in CLASS if s != bob})
    workspace = tmp_path / "ws"
    for _ in range(3):
        assert records.grade(course, batch, workspace, roster=roster, notebooks=("01",))[0] == 0
    (row,) = [row for (student, _), row in records.rows(workspace).items() if student.startswith(bob.sortable)]
    assert row.status == "missing" and row.reason.count("nothing was handed in") == 1, row.reason


# ------------------------------------------------------------------------------------- issue 62, item 6 (the record's part)

HOLD = {"locked": "con.execute('BEGIN EXCLUSIVE')",
        "open": "con.execute('SELECT COUNT(*) FROM grade').fetchall()"}   # another program's lock; formgrader's open file


@pytest.fixture
def other_program(term):
    """Another program that has gradebook.db locked, or open as formgrader keeps it, until the test ends."""
    import subprocess
    import sys
    running = []

    def start(how):
        code = (f"import sqlite3, sys, time; con = sqlite3.connect({str(term[0] / 'gradebook.db')!r}, "
                f"isolation_level=None); {HOLD[how]}; print('ready', flush=True); time.sleep(120)")
        process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        assert process.stdout.readline().strip() == "ready"
        running.append(process)
        return process
    yield start
    for process in running:
        process.kill()
        process.wait()


def test_a_gradebook_locked_by_another_program_is_called_locked_and_undo_refuses(course, term, other_program,
                                                                                 monkeypatch):
    from maskdiff_solutions.course.ledger import record
    workspace = term[0]
    monkeypatch.setattr(record, "LOCK_WAIT", 0.5)
    before = records.record(workspace)
    holder = other_program("locked")
    for command in ("export", "undo"):
        status, _, err = records.run(course, command, "--workspace", workspace)
        assert status == 2, err
        (line,) = records.error_lines(err)
        assert "locked" in line and f"process {holder.pid}" in line and "damaged" not in line, line
    holder.kill()
    holder.wait()
    assert records.record(workspace) == before, "nothing was done"
    assert records.run(course, "export", "--workspace", workspace)[0] == 0


def test_undo_refuses_while_formgrader_has_the_gradebook_open(course, term, other_program, tmp_path):
    workspace, roster, week1, _ = term
    assert records.grade(course, week1, workspace, roster=roster, notebooks=("01",))[0] == 0   # something to undo
    before = records.record(workspace)
    formgrader = other_program("open")
    assert records.run(course, "export", "--workspace", workspace)[0] == 0   # reading it is no harm
    status, _, err = records.run(course, "undo", "--workspace", workspace)
    assert status == 2, err
    (line,) = records.error_lines(err)
    assert f"open in process {formgrader.pid}" in line and "formgrader" in line, line
    assert records.record(workspace)["gradebook"] == before["gradebook"]
    formgrader.kill()
    formgrader.wait()
    assert records.run(course, "undo", "--workspace", workspace)[0] == 0
