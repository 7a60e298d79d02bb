"""The term's record: one sqlite file, the workspace's gradebook.db. nbgrader's tables hold the scores,
hand grades and comments; beside them, in the same file, our tables hold what nbgrader lacks, per
student and notebook (never per batch): the status and its reason, repairs, the tests that failed, the
late flag, a digest of the file graded, what `--only-changed` compares, and a digest of each answer a person grades
(so a regrade keeps a hand grade whose answer did not change: course/ledger/commit.py).

Everything else a workspace holds is made from this record (`derived_rows`, then
course/ledger/derived.py): grades-by-notebook.csv, grades-by-student.csv, the not-graded pages, the
platform files. No command reads those back as truth. A record that is missing, or that disagrees
with nbgrader's part of it, stops every command with one sentence and the command that recovers
(`check`).
"""
import hashlib
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

from ..records.gradebook import AUTOGRADED, out_of_full_points, rescore
from . import decisions
from ..records.rows import CSV_NAME, Row, read_csv

DB_NAME = "gradebook.db"
SCHEMA = """
CREATE TABLE IF NOT EXISTS maskdiff_result (
    student TEXT NOT NULL, notebook TEXT NOT NULL, status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '', repairs TEXT NOT NULL DEFAULT '', failed_tests TEXT NOT NULL DEFAULT '',
    late INTEGER NOT NULL DEFAULT 0, file_sha256 TEXT NOT NULL DEFAULT '', submission TEXT NOT NULL DEFAULT '',
    inputs TEXT NOT NULL DEFAULT '', graded_at TEXT NOT NULL DEFAULT '',
    version TEXT NOT NULL DEFAULT '', points TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (student, notebook));
CREATE TABLE IF NOT EXISTS maskdiff_answer (
    student TEXT NOT NULL, notebook TEXT NOT NULL, cell TEXT NOT NULL, digest TEXT NOT NULL,
    PRIMARY KEY (student, notebook, cell));
CREATE TABLE IF NOT EXISTS maskdiff_journal (student TEXT PRIMARY KEY, moves TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS maskdiff_student (
    student TEXT PRIMARY KEY, platform TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',
    name_from TEXT NOT NULL DEFAULT '', earlier_names TEXT NOT NULL DEFAULT '[]', first_seen TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS maskdiff_decision (
    id INTEGER PRIMARY KEY AUTOINCREMENT, student TEXT NOT NULL, notebook TEXT NOT NULL, cell TEXT NOT NULL,
    kind TEXT NOT NULL, value TEXT NOT NULL, judged TEXT NOT NULL DEFAULT '', who TEXT NOT NULL DEFAULT '',
    at TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'held', why TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS maskdiff_derived (
    path TEXT PRIMARY KEY, digest TEXT NOT NULL, earlier TEXT NOT NULL DEFAULT '', made TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS maskdiff_alias (
    platform TEXT NOT NULL, key TEXT NOT NULL, student TEXT NOT NULL, PRIMARY KEY (platform, key));
"""
RESULT_COLUMNS = ("student", "notebook", "status", "reason", "repairs", "failed_tests", "late", "file_sha256",
                  "submission", "inputs", "graded_at", "version", "points")
ADDED = {"maskdiff_result": ("version", "points")}   # columns a record made before them lacks
NEVER_GRADED = "no grading in this workspace found this notebook of theirs"
LOCK_WAIT = 10.0   # seconds a command waits for another program's write to the record before it says who holds it


class RecordError(ValueError):
    """The workspace's record is missing or disagrees with the workspace: nothing is done."""


def connect(db):
    """A connection that commits only where told (BEGIN IMMEDIATE ... COMMIT), waiting for formgrader's
    writes rather than failing on them."""
    con = sqlite3.connect(str(db), timeout=60, isolation_level=None)
    con.executescript(SCHEMA)
    for table, columns in ADDED.items():
        have = {row[1] for row in con.execute(f"PRAGMA table_info({table})")}
        for column in columns:
            if column not in have:
                con.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    return con


def has_record(db):
    if not Path(db).is_file():
        return False
    try:
        with closing(sqlite3.connect(str(db), timeout=LOCK_WAIT)) as con:
            return con.execute("SELECT 1 FROM sqlite_master WHERE name = 'maskdiff_result'").fetchone() is not None
    except sqlite3.OperationalError as err:
        if "locked" in str(err) or "busy" in str(err):   # another program is writing: never "damaged"
            raise RecordError(f"{db} is locked: {held_by(db)} is writing to it, and it stayed locked for "
                              f"{LOCK_WAIT:g} s; wait for it to finish (or stop it), then run the command again; "
                              f"nothing was done") from None
        raise RecordError(_damaged(db)) from None
    except sqlite3.DatabaseError:
        raise RecordError(_damaged(db)) from None


def _damaged(db):
    return (f"{db} is not a database (damaged, or another file put in its place): `python -m maskdiff_solutions "
            f"undo --workspace {Path(db).parent}` puts back the latest earlier grading; nothing was done")


def holders(path):
    """[(process id, its command line)] of the other processes that have the file open (formgrader keeps
    the gradebook open while it runs); those this user may look into (/proc)."""
    path, found = Path(path).resolve(), []
    for process in Path("/proc").glob("[0-9]*"):
        if int(process.name) == os.getpid():
            continue
        try:
            if any(Path(os.readlink(fd)) == path for fd in (process / "fd").iterdir()):
                command = (process / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                found.append((int(process.name), command[:120]))
        except OSError:   # gone, or not ours to look into
            continue
    return found


def held_by(path):
    """Who has the file open, in words."""
    found = holders(path)
    if not found:
        return "another program (none of this user's processes has it open: another user's, or a program on another machine)"
    return ", ".join(f"process {pid} (`{command}`)" for pid, command in found[:3])


def refuse_while_open(db, command):
    """Stop `command`, which replaces the record's file, while another program has it open (formgrader: what it
    writes next would go to the file replaced, and be lost) or holds it locked."""
    if Path(db).is_file() and holders(db):
        raise RecordError(f"{db} is open in {held_by(db)}: `{command}` would replace the file under it, and what it "
                          f"writes next would be lost; stop it (formgrader: Ctrl-C in its terminal), then run "
                          f"`{command}` again; nothing was done")
    has_record(db)   # locked: said the same way


def results(db):
    """{(student, notebook): {column: value}} of every result recorded."""
    if not has_record(db):
        return {}
    with closing(connect(db)) as con:
        con.row_factory = sqlite3.Row
        return {(r["student"], r["notebook"]): dict(r)
                for r in con.execute(f"SELECT {', '.join(RESULT_COLUMNS)} FROM maskdiff_result")}


def put_result(con, row, **extra):
    """Record (replace) one row's result inside the caller's transaction."""
    values = {"student": row.student, "notebook": row.notebook, "status": row.status, "reason": row.reason,
              "repairs": row.repairs, "failed_tests": row.failed_tests, "late": 0, "file_sha256": "",
              "submission": "", "inputs": "", "graded_at": "", "version": "", "points": "", **extra}
    con.execute(f"INSERT OR REPLACE INTO maskdiff_result ({', '.join(RESULT_COLUMNS)}) VALUES "
                f"({', '.join('?' * len(RESULT_COLUMNS))})", [values[c] for c in RESULT_COLUMNS])


def answers(con, student, notebook):
    return dict(con.execute("SELECT cell, digest FROM maskdiff_answer WHERE student = ? AND notebook = ?",
                            (student, notebook)).fetchall())


def put_answers(con, student, notebook, digests):
    con.execute("DELETE FROM maskdiff_answer WHERE student = ? AND notebook = ?", (student, notebook))
    con.executemany("INSERT INTO maskdiff_answer VALUES (?, ?, ?, ?)",
                    [(student, notebook, cell, digest) for cell, digest in sorted(digests.items())])


def row_of(stored):
    return Row(stored["student"], stored["notebook"], stored["status"], reason=stored["reason"],
               repairs=stored["repairs"], failed_tests=stored["failed_tests"])


def derived_rows(course, workspace):
    """Every row the workspace's files are made of: one per student and notebook graded in this
    workspace (a student with no result for a notebook graded for others: missing, saying so), each
    scored from the gradebook as it is now (a person's grades included), missing and failed ones out
    of their notebook's full points."""
    db = Path(workspace) / DB_NAME
    stored = results(db)
    students = sorted({student for student, _ in stored})
    notebooks = sorted({notebook for _, notebook in stored})
    rows, late = [], {}
    for student in students:
        for notebook in notebooks:
            found = stored.get((student, notebook))
            row = row_of(found) if found else Row(student, notebook, "missing", reason=NEVER_GRADED)
            late[(student, notebook)] = bool(found and found["late"])
            rows.append(row)
    if rows:   # each out of the points it was graded under (course/ledger/versions.py)
        under = {key: json.loads(found["points"]) for key, found in stored.items() if found.get("points")}
        rescore(db, course.assignment, rows, course.answers_optional,
                {key: points["cells"] for key, points in under.items()})
        out_of_full_points(db, course.assignment, rows, course.answers_optional, {key: (
            sum(most for cell, most in points["cells"].items() if cell not in points["answers"]),
            sum(most for cell, most in points["cells"].items() if cell in points["answers"])) for key, points in under.items()})
    aside = set_aside(db) if rows else {}
    for row in rows:
        row.late = "yes" if late[(row.student, row.notebook)] else ""
        if (row.student, row.notebook) in aside:   # a person's decision set aside is named in its row
            row.reason = "; ".join(filter(None, [row.reason, decisions.note(aside[(row.student, row.notebook)])]))
    return rows


def set_aside(db):
    """{(student, notebook): [decisions set aside, still to decide again]} (course/ledger/decisions.py)."""
    with closing(connect(db)) as con:
        return decisions.set_aside(con)


def take_in_decisions(course, workspace):
    """Record every decision a person made in formgrader since the last command (decisions.take_in);
    every command that reads the record runs it first. Returns how many."""
    db = Path(workspace) / DB_NAME
    if not has_record(db):
        return 0
    with closing(connect(db)) as con:
        con.execute("BEGIN IMMEDIATE")
        try:
            made = decisions.take_in(con, course.assignment)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return made


def check(course, workspace):
    """Stop (RecordError) where the record is missing though the workspace holds graded work, or where
    it says a notebook was autograded and nbgrader's part of it holds no such submission. A workspace
    graded before the record existed is taken in once from its grades-by-notebook.csv (`adopt`)."""
    workspace = Path(workspace)
    db = workspace / DB_NAME
    undo = f"`python -m maskdiff_solutions undo --workspace {workspace}` puts back the latest earlier grading"
    if not db.is_file():
        held = [name for name in (CSV_NAME, "submitted", "autograded") if _holds(workspace / name)]
        if held:
            raise RecordError(f"the workspace's record, {DB_NAME}, is missing from {workspace}, though it holds "
                              f"graded work ({', '.join(held)}): {undo} (or copy {DB_NAME} back from a folder of "
                              f"{workspace / 'earlier-gradings'}); nothing was done")
        return
    if not has_record(db) and (workspace / CSV_NAME).is_file():
        adopt(course, workspace)
    missing = _unbacked(db, course.assignment)
    if missing:
        raise RecordError(f"{DB_NAME} in {workspace} disagrees with itself: it records {_some(missing)} as graded but "
                          f"holds no submission for {'it' if len(missing) == 1 else 'them'} (was the file replaced "
                          f"or edited?): {undo}; nothing was done")
    other = _other_files(workspace, course.assignment)
    if other:
        raise RecordError(f"{DB_NAME} in {workspace} is not the record of the notebooks graded there: the handed-in "
                          f"file of {_some(other)} is not the one it graded, or its autograded copy is gone (a gradebook.db "
                          f"copied back by hand, or submitted/ or autograded/ changed?): {undo} (it puts both back together); nothing was done")


def _some(pairs):
    return ", ".join(f"{s} {n}" for s, n in pairs[:5]) + (f" and {len(pairs) - 5} more" if len(pairs) > 5 else "")


def file_digest(path):
    """sha256 of a file, '' where there is none."""
    path = Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def _other_files(workspace, assignment):
    """(student, notebook) whose handed-in file in submitted/ is not the one the record says it graded,
    or whose autograded notebook (what its feedback is made from) is gone."""
    def at(kind, student, notebook):
        return workspace / kind / student / assignment / f"{notebook}.ipynb"
    return sorted((s, n) for (s, n), stored in results(workspace / DB_NAME).items() if stored["file_sha256"] and (
        file_digest(at("submitted", s, n)) != stored["file_sha256"]
        or (stored["status"] in AUTOGRADED and not at("autograded", s, n).is_file())))


def lost_pages(course, workspace):
    """Students with a notebook the record says was autograded whose feedback page is gone (deleted by
    hand, a sync tool): made again from the record by the command that finds them."""
    workspace = Path(workspace)
    return sorted({s for (s, n), stored in results(workspace / DB_NAME).items() if stored["status"] in AUTOGRADED
                   and not (workspace / "feedback" / s / course.assignment / f"{n}.html").is_file()})


def _holds(path):
    """Graded work at path: the file itself, or a file in a student's folder below it (nbgrader's
    <folder>/<student>/...). A file at the folder's top (the course's tracked autograded/README.md, a
    .gitkeep, a .DS_Store) or in a hidden folder (.ipynb_checkpoints) is nobody's work."""
    return path.is_file() or (path.is_dir() and any(
        p.is_file() for student in path.iterdir() if student.is_dir() and not student.name.startswith(".")
        for p in student.rglob("*")))


def _unbacked(db, assignment):
    """(student, notebook) the record says were autograded that nbgrader's tables have no submission of."""
    with closing(connect(db)) as con:
        graded = con.execute(f"SELECT student, notebook FROM maskdiff_result WHERE status IN "
                             f"({', '.join('?' * len(AUTOGRADED))})", AUTOGRADED).fetchall()
        try:
            held = set(con.execute(
                "SELECT sa.student_id, n.name FROM submitted_notebook s JOIN notebook n ON s.notebook_id = n.id "
                "JOIN submitted_assignment sa ON s.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id "
                "WHERE a.name = ?", (assignment,)).fetchall())
        except sqlite3.OperationalError:   # not a gradebook at all
            held = set()
    return sorted(key for key in graded if tuple(key) not in held)


def adopt(course, workspace):
    """A workspace graded before the record existed: its grades-by-notebook.csv, the only place its
    statuses and reasons were kept, is read once into the record; from then on it is made from it."""
    workspace = Path(workspace)
    try:
        rows = read_csv(workspace / CSV_NAME)
    except (ValueError, TypeError, KeyError) as err:
        raise RecordError(f"{err}; the workspace has no record to rebuild it from: move {CSV_NAME} out of "
                          f"{workspace}, or grade into another --workspace") from None
    with closing(connect(workspace / DB_NAME)) as con:
        con.execute("BEGIN IMMEDIATE")
        for row in rows:
            put_result(con, row)
        con.execute("COMMIT")
