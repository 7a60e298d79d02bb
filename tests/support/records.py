"""A graded workspace's record read back as plain values, the command line run in this process with
its output captured, and hand grading done as formgrader does it (nbgrader's Gradebook API), for the
tests of what grading records (tests/course/records/test_record.py, test_term_model.py)."""
import contextlib
import hashlib
import io
import json
import sqlite3
from dataclasses import asdict
from pathlib import Path

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.records.gradebook import open_gradebook
from maskdiff_solutions.course.records.rows import CSV_NAME, read_csv
from tests.support import fake_grading, importers

ASSIGNMENT = "maskdiff"
DERIVED = (CSV_NAME, "grades-by-student.csv", "intake.json")
KINDS = ("submitted", "autograded", "feedback")


@contextlib.contextmanager
def _captured():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def run(course, *args):
    """`python -m maskdiff_solutions ARGS` in this process: (exit status, stdout, stderr)."""
    with _captured() as (out, err):
        status = cli.main(["--course-dir", str(course.root), *[str(a) for a in args]])
    return status, out.getvalue(), err.getvalue()


def grade(course, submissions, workspace, *extra, roster=None, notebooks=("01",)):
    args = ["grade", submissions, "--workspace", workspace, "--no-canary", "--sandbox", "off"]
    args += [part for nb in notebooks for part in ("--notebook", nb)]
    args += ["--roster", roster] if roster else []
    return run(course, *args, *extra)


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# --------------------------------------------------------------------------- reading the record

def gradebook(workspace, student=None):
    """{(student, notebook, cell): (auto_score, manual_score, needs_manual_grade, comment)}; comment:
    the manual comment, else the automatic one (what formgrader and the feedback show)."""
    db = Path(workspace) / "gradebook.db"
    if not db.is_file():
        return {}
    con = sqlite3.connect(db)
    try:
        joins = ("JOIN base_cell c ON x.cell_id = c.id JOIN submitted_notebook sn ON x.notebook_id = sn.id "
                 "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id")
        grades = con.execute(f"SELECT sa.student_id, n.name, c.name, x.auto_score, x.manual_score, "
                             f"x.needs_manual_grade FROM grade x {joins}").fetchall()
        comments = {(s, n, c): manual if manual is not None else auto for s, n, c, auto, manual in con.execute(
            f"SELECT sa.student_id, n.name, c.name, x.auto_comment, x.manual_comment FROM comment x {joins}")}
    finally:
        con.close()
    return {(s, n, c): (auto, manual, bool(needs), comments.get((s, n, c))) for s, n, c, auto, manual, needs in grades
            if student is None or s == student}


def rows(workspace):
    """{(student, notebook): Row} of grades-by-notebook.csv ({} without one)."""
    path = Path(workspace) / CSV_NAME
    return {(row.student, row.notebook): row for row in read_csv(path)} if path.is_file() else {}


def files(workspace, student=None):
    """{path under submitted/, autograded/, feedback/: sha256} (of one student, or all)."""
    out = {}
    for kind in KINDS:
        top = Path(workspace) / kind
        for path in sorted(top.rglob("*")) if top.is_dir() else []:
            relative = path.relative_to(workspace)
            if path.is_file() and (student is None or relative.parts[1] == student):
                out[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def page(workspace, student, notebook):
    """The fake feedback page read back (fake_grading.read_page), None when it is not the fake's,
    "absent" when there is none."""
    path = Path(workspace) / "feedback" / student / ASSIGNMENT / f"{notebook}.html"
    return fake_grading.read_page(path) if path.is_file() else "absent"


def ours(workspace):
    """The course's rows of the record beside nbgrader's (course/ledger/record.py): what a person reads of
    them (status, reason, repairs, failed tests, late, the file graded), not when nor what --only-changed
    compares; None without a record."""
    from maskdiff_solutions.course.ledger import record as ledger
    shown = ("status", "reason", "repairs", "failed_tests", "late", "file_sha256")
    stored = ledger.results(Path(workspace) / ledger.DB_NAME)
    return {key: {k: value[k] for k in shown} for key, value in stored.items()} or None


def record(workspace):
    """Everything a grading leaves, as plain values: the gradebook, the CSV rows, the files, the
    per-student totals and the course's rows of the record (earlier-gradings/ and the lock left out)."""
    by_student = Path(workspace) / "grades-by-student.csv"
    return {"gradebook": gradebook(workspace), "rows": {k: asdict(v) for k, v in rows(workspace).items()},
            "files": files(workspace), "totals": by_student.read_text() if by_student.is_file() else None,
            "ours": ours(workspace)}


def student_record(workspace, student):
    """One student's part of the record: gradebook, files, CSV rows."""
    return {"gradebook": gradebook(workspace, student), "files": files(workspace, student),
            "rows": {k: asdict(v) for k, v in rows(workspace).items() if k[0] == student}}


def canvas(workspace):
    """{Canvas user id: grade or None} of the workspace's grades-canvas.csv (as Canvas imports it)."""
    grades, _ = importers.canvas_grades(Path(workspace) / "grades-canvas.csv")
    return {sid: next(iter(by_column.values())) for sid, by_column in grades.items()}


# --------------------------------------------------------------------------- hand grading

def hand_grade(workspace, student, notebook, cell, points, comment=None):
    """What formgrader does when a person grades a cell: the grade's manual_score, needs_manual_grade
    off, and the cell's comment."""
    with open_gradebook(Path(workspace) / "gradebook.db") as gb:
        grade = gb.find_grade(cell, notebook, ASSIGNMENT, student)
        grade.manual_score = float(points)
        grade.needs_manual_grade = False
        if comment is not None:
            gb.find_comment(cell, notebook, ASSIGNMENT, student).manual_comment = comment
        gb.db.commit()


def override(workspace, student, notebook, cell, points):
    """What formgrader does when a person gives an autograded test cell a score of their own."""
    with open_gradebook(Path(workspace) / "gradebook.db") as gb:
        gb.find_grade(cell, notebook, ASSIGNMENT, student).manual_score = float(points)
        gb.db.commit()


def decisions(workspace):
    """{(student, notebook, cell, kind): (value, state)} of the latest decision of each cell and kind the
    record keeps (course/ledger/decisions.py)."""
    db = Path(workspace) / "gradebook.db"
    con = sqlite3.connect(db)
    try:
        found = con.execute("SELECT student, notebook, cell, kind, value, state FROM maskdiff_decision "
                            "ORDER BY id").fetchall()
    except sqlite3.OperationalError:   # a record from before decisions
        found = []
    finally:
        con.close()
    return {(s, n, c, k): (json.loads(value), state) for s, n, c, k, value, state in found}


def differences(now, then, most=6):
    """Where two records (nested dicts) differ, in a few words: 'part: key' for each key (at most `most`)."""
    out = []
    for part in sorted(set(now) | set(then)):
        a, b = now.get(part), then.get(part)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            keys = sorted((k for k in set(a) | set(b) if a.get(k) != b.get(k)), key=str)
            out += [f"{part}: {k}: {a.get(k, '(none)')!r} against {b.get(k, '(none)')!r}"[:300] for k in keys[:most]]
            if len(keys) > most:
                out.append(f"{part}: and {len(keys) - most} more")
        else:
            out.append(f"{part}: differs")
    return out
