"""One student's grading committed into the workspace as a transaction: before or after, never between.

1. Stage: the student's new files (handed in, autograded, feedback) of the notebooks graded now are
   copied into WORKSPACE/.grading-staging/<student>/, out of everyone's way.
2. Commit, in one sqlite transaction of the record (course/ledger/record.py): nbgrader's rows of those
   notebooks replaced by the scratch gradebook's, the hand grades and comments whose answer did not
   change carried over (read inside the transaction, so a grade entered in formgrader during the run
   counts), withheld marks, our rows, the answers' digests, and a journal of the files to move.
3. Move the staged files into place (and remove the old ones of those notebooks), make the feedback
   page again where a hand grade was kept, then clear the journal.

A kill before 2 leaves the record as it was and a staging folder that `recover` removes; after 2,
`recover` (which every command runs first) finishes the moves. Notebooks not graded now, and other
students, are never touched: a week never changes another week.
"""
import hashlib
import json
import os
import shutil
import time
from contextlib import closing
from pathlib import Path

from ..intake import notebooks as nbfiles
from ..intake.folder import regular_files
from ..records.gradebook import AUTOGRADED, NOTEBOOK, SUBMISSION
from . import decisions, identity
from .decisions import CODE
from .record import connect, file_digest, put_answers, put_result, answers as recorded_answers

STAGING = ".grading-staging"
KINDS = ("submitted", "autograded", "feedback")
WITHHELD = "maskdiff (autograded marks withheld: integrity)"   # who withheld marks decide
WHOLE = "*"   # the digest of every graded cell of a notebook (what an override was kept by before CODE)


def digests(path):
    """{grade_id: digest} of a handed-in notebook's graded cells (source, and a code cell's outputs, which
    a person may grade), WHOLE over them all, and CODE over every code cell but the written answers (what
    its tests read: a person's override of a test stays while it is the same); {} when it cannot be read."""
    try:
        nb = nbfiles.read(path)
    except Exception:  # noqa: BLE001 - not a notebook: nothing of it can keep a hand grade
        return {}
    out, code = {}, []
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and not nbfiles.is_manual(cell):
            code.append(cell.get("source", "").strip())
        name = nbfiles.grade_id(cell)
        if not name:
            continue
        outputs = [{k: v for k, v in o.items() if k != "execution_count"} for o in cell.get("outputs", [])]
        text = json.dumps([cell.get("cell_type"), cell.get("source", "").strip(), outputs], sort_keys=True)
        out[name] = hashlib.sha256(text.encode()).hexdigest()
    if out:
        out[WHOLE] = hashlib.sha256(json.dumps(sorted(out.items())).encode()).hexdigest()
        out[CODE] = hashlib.sha256(json.dumps(code).encode()).hexdigest()
    return out


def notebook_files(folder, stem):
    """The files of one notebook in a student's folder of one kind: `<stem>.ipynb`, `<stem>.html`."""
    folder = Path(folder)
    return sorted(p for p in folder.glob(f"{stem}.*") if p.is_file()) if folder.is_dir() else []


def stage(workspace, scratch, student, assignment, replaced, stems):
    """Copy the new files into the staging folder; returns the moves [[staged or None, final], ...]
    (paths relative to workspace; None: remove final). replaced: notebook stems graded now; stems:
    every notebook stem of the course (a file of another notebook is never touched)."""
    workspace, scratch = Path(workspace), Path(scratch)
    here = workspace / STAGING / student
    shutil.rmtree(here, ignore_errors=True)
    sources = {"submitted": scratch / "handed-in", "autograded": scratch / "work" / "autograded",
               "feedback": scratch / "work" / "feedback"}
    moves, finals = [], set()
    for kind in KINDS:
        source = sources[kind] / student / assignment
        final_dir = Path(kind) / student / assignment
        for path in regular_files(source):
            relative = path.relative_to(source)
            top = relative.parts[0].rsplit(".", 1)[0] if len(relative.parts) == 1 else None
            if top in stems and top not in replaced:
                continue   # another notebook's: it keeps its own
            if kind == "feedback" and top not in replaced:
                continue
            staged = here / kind / relative
            staged.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, staged)
            moves.append([str(staged.relative_to(workspace)), str(final_dir / relative)])
            finals.add(str(final_dir / relative))
        for stem in replaced:   # the old files of the notebooks graded now that nothing replaces
            for old in notebook_files(workspace / final_dir, stem):
                if str(old.relative_to(workspace)) not in finals:
                    moves.append([None, str(old.relative_to(workspace))])
    return moves


def apply(workspace, moves):
    """Put the staged files in place; safe to run again (a file already moved is left)."""
    workspace = Path(workspace)
    for staged, final in moves:
        target = workspace / final
        if staged is None:
            if target.is_file() or target.is_symlink():
                target.unlink()
            continue
        source = workspace / staged
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)


def recover(workspace, remake=None):
    """Finish every committed student's moves (and with remake(student), the feedback page a kept hand
    grade needs made again), and drop what an uncommitted one had staged. Returns the students whose
    commits were finished."""
    workspace = Path(workspace)
    db = workspace / "gradebook.db"
    finished = []
    if db.is_file():
        with closing(connect(db)) as con:
            for student, entry in con.execute("SELECT student, moves FROM maskdiff_journal").fetchall():
                entry = json.loads(entry)
                apply(workspace, entry["moves"])
                if entry["remake"]:
                    if remake is None:
                        continue   # left for a command that can make feedback
                    remake(student)
                con.execute("DELETE FROM maskdiff_journal WHERE student = ?", (student,))
                finished.append(student)
    shutil.rmtree(workspace / STAGING, ignore_errors=True)
    return finished


def _old_hand_grades(con, key):
    """{cell: (manual_score, extra_credit, needs_manual_grade, manual_comment)} a person set on the
    student's notebook (key: notebook, student, assignment), as the record holds them now."""
    mine = NOTEBOOK.format(db="main")
    grades = {name: (score, extra, needs) for name, score, extra, needs in con.execute(
        f"SELECT b.name, g.manual_score, g.extra_credit, g.needs_manual_grade FROM main.grade g "
        f"JOIN main.base_cell b ON g.cell_id = b.id WHERE g.notebook_id IN ({mine})", key)}
    comments = dict(con.execute(f"SELECT b.name, c.manual_comment FROM main.comment c JOIN main.base_cell b "
                                f"ON c.cell_id = b.id WHERE c.notebook_id IN ({mine})", key).fetchall())
    out = {}
    for name in set(grades) | set(comments):
        score, extra, needs = grades.get(name, (None, None, None))
        comment = comments.get(name)
        if score is not None or extra is not None or comment is not None:
            out[name] = (score, extra, needs, comment)
    return out


def _answer_cells(con, notebook, assignment):
    return {name for (name,) in con.execute(
        "SELECT b.name FROM main.solution_cells s JOIN main.base_cell b ON s.id = b.id JOIN main.notebook n "
        "ON b.notebook_id = n.id JOIN main.assignment a ON n.assignment_id = a.id WHERE n.name = ? AND a.name = ?",
        (notebook, assignment))}


def _take(con, key, student, assignment):
    """Replace main's rows of the notebook (key) with the scratch gradebook's (attached as w)."""
    mine, theirs = NOTEBOOK.format(db="main"), NOTEBOOK.format(db="w")
    for table in ("grade", "comment"):
        con.execute(f"DELETE FROM main.{table} WHERE notebook_id IN ({mine})", key)
    con.execute(f"DELETE FROM main.submitted_notebook WHERE id IN ({mine})", key)
    con.execute(f"INSERT INTO main.submitted_notebook (id, assignment_id, notebook_id, flagged, "
                f"late_submission_penalty) SELECT s.id, ({SUBMISSION.format(db='main')}), s.notebook_id, "
                f"s.flagged, s.late_submission_penalty FROM w.submitted_notebook s WHERE s.id IN ({theirs})",
                (student, assignment, *key))
    for table in ("grade", "comment"):
        con.execute(f"INSERT INTO main.{table} SELECT * FROM w.{table} WHERE notebook_id IN ({theirs})", key)


def _drop(con, key):
    """The notebook leaves nbgrader's tables (nothing of it in formgrader): not handed in, or not gradable."""
    mine = NOTEBOOK.format(db="main")
    for table in ("grade", "comment"):
        con.execute(f"DELETE FROM main.{table} WHERE notebook_id IN ({mine})", key)
    con.execute(f"DELETE FROM main.submitted_notebook WHERE id IN ({mine})", key)


def _new_submission(con, student, assignment):
    """A student new to the record gets the scratch gradebook's whole submission (a submitted notebook
    for every notebook, those not graded now as nbgrader leaves them: 0)."""
    con.execute("INSERT OR IGNORE INTO main.student SELECT * FROM w.student WHERE id = ?", (student,))
    if con.execute(SUBMISSION.format(db="main"), (student, assignment)).fetchone() is not None:
        return
    key = (student, assignment)
    con.execute(f"INSERT INTO main.submitted_assignment SELECT * FROM w.submitted_assignment "
                f"WHERE id IN ({SUBMISSION.format(db='w')})", key)
    theirs = "SELECT id FROM w.submitted_notebook WHERE assignment_id IN (" + SUBMISSION.format(db="w") + ")"
    con.execute(f"INSERT INTO main.submitted_notebook SELECT * FROM w.submitted_notebook WHERE id IN ({theirs})", key)
    for table in ("grade", "comment"):
        con.execute(f"INSERT INTO main.{table} SELECT * FROM w.{table} WHERE notebook_id IN ({theirs})", key)


def _carry(con, key, old, before, after, answer_cells):
    """Put back each hand grade, override, extra credit and comment whose answer is unchanged (an answer
    cell's own digest; a test's: the notebook's code, or where the record predates it every graded cell).
    Returns (cells carried, cells whose decisions were dropped, with why)."""
    mine = NOTEBOOK.format(db="main")
    carried, dropped = [], {}
    for name, (score, extra, needs, comment) in sorted(old.items()):
        digest = name if name in answer_cells else CODE if before.get(CODE) else WHOLE
        if not before.get(digest) or before.get(digest) != after.get(digest):
            dropped[name] = ("the answer it judged has changed since" if name in answer_cells else
                             "the code its test reads has changed since")
            continue
        cell = "(SELECT b.id FROM main.base_cell b JOIN main.notebook n ON b.notebook_id = n.id WHERE b.name = ? " \
               "AND n.name = ?)"
        if score is not None or extra is not None:
            con.execute(f"UPDATE main.grade SET manual_score = ?, extra_credit = ?, needs_manual_grade = ? "
                        f"WHERE notebook_id IN ({mine}) AND cell_id IN {cell}",
                        (score, extra, needs if needs is not None else 0, *key, name, key[0]))
        if comment is not None:
            con.execute(f"UPDATE main.comment SET manual_comment = ? WHERE notebook_id IN ({mine}) AND cell_id IN {cell}",
                        (comment, *key, name, key[0]))
        carried.append(name)
    return carried, dropped


def _withhold(con, key, answer_cells):
    """Integrity: the notebook's autograded tests score 0 (a manual score, which a person can lift)."""
    mine = NOTEBOOK.format(db="main")
    names = sorted(answer_cells) or [""]
    con.execute(f"UPDATE main.grade SET manual_score = 0 WHERE notebook_id IN ({mine}) AND cell_id NOT IN "
                f"(SELECT id FROM main.base_cell WHERE name IN ({', '.join('?' * len(names))}))", (*key, *names))


def _holds_submission(con, student, assignment):
    return con.execute(SUBMISSION.format(db="w"), (student, assignment)).fetchone() is not None


def identities(workspace, whom):
    """Record who each student of {student: (platform, keys, name, where the name came from)} is, in one
    transaction: the students a grading kept unchanged, whose results need no commit of their own."""
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    with closing(connect(workspace / "gradebook.db")) as con:
        con.execute("BEGIN IMMEDIATE")
        try:
            for student, who in sorted(whom.items()):
                identity.put(con, student, *who, when)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def commit(workspace, scratch, assignment, stems, student, rows, extra, withheld=(), kept=(), remake=None, who=None):
    """Commit one student's results (module docstring). rows: the Rows of the notebooks graded now
    whose result this grading decides (not those kept); extra: {notebook: dict of record columns (late,
    file, submission, inputs, graded_at)}; withheld: notebooks whose autograded marks are withheld;
    kept: Rows kept from before (their reason updated only); remake(student): make the student's
    feedback again from the record, where a hand grade was kept (the page the scratch made lacks it);
    who: (platform, keys, name, where the name came from) of the student, kept in the record
    (course/ledger/identity.py). Returns the number of hand grades and comments carried over."""
    workspace, scratch = Path(workspace), Path(scratch)
    replaced = [row.notebook for row in rows]
    moves = stage(workspace, scratch, student, assignment, replaced, stems)
    handed = scratch / "handed-in" / student / assignment
    new_digests = {row.notebook: digests(handed / f"{row.notebook}.ipynb") for row in rows
                   if row.status in AUTOGRADED}
    scratch_db = scratch / "db" / "gradebook.db"
    dropped, kept_grades = {}, 0
    with closing(connect(workspace / "gradebook.db")) as con:
        if scratch_db.is_file():
            con.execute("ATTACH DATABASE ? AS w", (str(scratch_db),))
        con.execute("BEGIN IMMEDIATE")
        try:
            if who is not None:
                identity.put(con, student, *who, time.strftime("%Y-%m-%d %H:%M:%S"))
            if scratch_db.is_file() and _holds_submission(con, student, assignment):
                _new_submission(con, student, assignment)
            for row in rows:
                key = (row.notebook, student, assignment)
                decisions.take_in(con, assignment, (student, row.notebook))   # formgrader's, until now
                if row.status in AUTOGRADED and scratch_db.is_file() and _holds_submission(con, student, assignment):
                    old = _old_hand_grades(con, key)
                    cells = _answer_cells(con, row.notebook, assignment)
                    _take(con, key, student, assignment)
                    before = recorded_answers(con, student, row.notebook) or \
                        digests(workspace / "submitted" / student / assignment / f"{row.notebook}.ipynb")
                    carried, dropped[row.notebook] = _carry(con, key, old, before, new_digests[row.notebook], cells)
                    kept_grades += len(carried)
                    put_answers(con, student, row.notebook, new_digests[row.notebook])
                    if row.notebook in withheld:   # the grader's own decision, a person's to lift
                        _withhold(con, key, cells)
                        decisions.take_in(con, assignment, (student, row.notebook), by=WITHHELD)
                else:   # no notebook of theirs graded now: what a person decided of the old one is set aside
                    dropped[row.notebook] = {name: f"this notebook was graded again as {row.status}"
                                             for name in _old_hand_grades(con, key)}
                    if scratch_db.is_file() and _holds_submission(con, student, assignment):
                        _take(con, key, student, assignment)   # nbgrader's own record of a notebook it had no file of: 0
                    else:   # nothing graded of this student now (--replace of an absent one): it leaves formgrader
                        _drop(con, key)
                    put_answers(con, student, row.notebook, {})
                for name, why in (dropped.get(row.notebook) or {}).items():   # named in the row and on the page
                    decisions.drop(con, student, row.notebook, [name], why)
                put_result(con, row, **extra.get(row.notebook, {}),
                           file_sha256=file_digest(handed / f"{row.notebook}.ipynb"))
            for row in kept:
                con.execute("UPDATE maskdiff_result SET reason = ? WHERE student = ? AND notebook = ?",
                            (row.reason, student, row.notebook))
            aside = {notebook for who, notebook in decisions.set_aside(con) if who == student}
            remade = bool(kept_grades or any(dropped.values()) or aside & set(replaced))   # the scratch's page lacks them
            con.execute("INSERT OR REPLACE INTO maskdiff_journal VALUES (?, ?)",
                        (student, json.dumps({"moves": moves, "remake": remade})))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        apply(workspace, moves)
        if remade and remake is not None:   # the page the scratch made lacks the decisions kept or set aside
            remake(student)
        con.execute("DELETE FROM maskdiff_journal WHERE student = ?", (student,))
    shutil.rmtree(workspace / STAGING / student, ignore_errors=True)
    try:
        (workspace / STAGING).rmdir()   # left only while another student's files are staged
    except OSError:
        pass
    return kept_grades


def restamp(workspace, keys, stamps):
    """Record that these (student, notebook) results stand under another version of the course ({notebook:
    {"version", "points"}}): a regrade's results that had no file to grade again, out of its points now."""
    with closing(connect(Path(workspace) / "gradebook.db")) as con:
        con.execute("BEGIN IMMEDIATE")
        con.executemany("UPDATE maskdiff_result SET version = ?, points = ? WHERE student = ? AND notebook = ?",
                        [(stamps[notebook]["version"], stamps[notebook]["points"], student, notebook)
                         for student, notebook in keys])
        con.execute("COMMIT")
