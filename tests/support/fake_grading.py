"""A fast stand-in for one student's grading (no kernel, no checker, no nbgrader converter), so that
what grading *records* (gradebook.db, the CSVs, feedback pages, earlier-gradings/)
can be tested through the command line in milliseconds.

`install(monkeypatch)` replaces, for the rest of the test (or process):

- `maskdiff_solutions.course.run.student.grade_student(task) -> StudentResult` (batch.py calls it as
  `one_student.grade_student`, in this process when --jobs 1) by `grade_student` below;
- `maskdiff_solutions.course.run.batch.up_to_date_gradebook(course, workspace)` (nbgrader's
  generate_assignment, ~2 s, or a copy kept per machine) by a copy of a gradebook that the real
  `generate` filled once per process (`template_gradebook`), written only where the workspace has no
  gradebook.db (the course's source/ never changes under these tests, so the real one would change
  nothing either);
- `maskdiff_solutions.course.run.batch.warm_caches()` (notebook 03's stand-in networks) by "";
- `maskdiff_solutions.course.records.summary.plot(report, path)` (the PNG: matplotlib) by nothing;
- `maskdiff_solutions.course.ledger.export.make_page(course, workspace, student, db)` (which `export`
  and `export.remaker` call, for a student whose hand grades a regrade kept; db: the record, or a copy
  whose cells are worth what they were when the student was graded) (nbgrader's generate_feedback, ~0.3 s
  a notebook) by `fake_page`: `write_page` for every autograded notebook of the student, so that `export`
  remakes pages from the gradebook the same way grading made them, after removing the student's feedback
  folder as nbgrader's --force does (and failing, with the folder gone, where the gradebook lacks the
  submission: nbgrader's MissingEntry);
- where the environment names a stop (`STOP`, below), every commit point is wrapped so that the process
  signals itself at the k-th step: `safekeeping.keep`, and for each student `commit.stage` (files
  staged), `commit.put_result` (inside the record's transaction), `commit.apply` (files moved), then
  `batch.everyone` and `derived.write_csv` (the files made from the record).

What `grade_student` leaves in task.scratch is what the real one leaves there for `merge` to read:
scratch/db/gradebook.db (a copy of task.template_db with this student's submission graded),
scratch/handed-in/<student>/<assignment>/ (what intake prepared), scratch/work/submitted/...,
scratch/work/autograded/<student>/<assignment>/<notebook>.ipynb (with the student's other files,
0444 as nbgrader leaves them) and scratch/work/feedback/<student>/<assignment>/<notebook>.html. Intake
is the real one (`course.intake.folder.prepare`: files chosen by name or content, repairs), and so are
the rows (`student.notebook_row`, which reads the gradebook). The gradebook is written as nbgrader's
autograde writes it (`nbgrader.converters.autograde.Autograde.init_assignment` and
`nbgrader.preprocessors.SaveAutoGrades`), then as `gradebook.score_from_verdicts` overrides the test
cells:

- the student and the submission are created or updated (`update_or_create_submission`: a new one gets
  a Grade for every grade cell and a Comment for every solution cell of every notebook);
- every notebook of the assignment that has no file in the prepared folder: each grade auto_score 0,
  needs_manual_grade False;
- each graded notebook: each grade cell gets its auto_score, and needs_manual_grade = (a person's
  manual_score is set, or auto_score is None); each solution cell's auto_comment is "No response." when
  the cell is as released (nbgrader's checksum), else None.

THE SCORING RULE (a deterministic function of the notebook's content, `verdicts`): an autograded test
cell `test_<rest>` checks the function, plot or printout cell whose grade_id `g` is the longest with
`<rest> == g` or `<rest>` starting with `g + "_"` (test_ForwardMaskFast_law checks ForwardMaskFast,
test_plot_schedule checks plot_schedule); with none, every such cell of the notebook. It passes (full
points) iff none of the cells it checks still holds the release's `raise NotImplementedError`, else 0.
A written answer (a manual cell) is nbgrader's: 0 points and nothing to grade when it is as released
(`nbgrader.utils.determine_grade`: same checksum), else no score and needs_manual_grade.

The feedback page (`write_page`) is a small HTML file made from the gradebook alone: the notebook's
score, and one line per grade cell with its score (or "to grade"), its maximum and its comment (a
person's, else nbgrader's automatic one); `read_page` reads it back.

STOP (environment, read only here): MASKDIFF_FAKE_STOP="INT@k" or "KILL@k" makes the process send
itself SIGINT or SIGKILL at the k-th step it counts (1-based): each start of a student's grading
(the canary's excluded) and each wrapped step of batch named above. MASKDIFF_FAKE_STEPS=FILE appends
one line per step counted to FILE (an uninterrupted run tells a test how many there are).
MASKDIFF_FAKE_TEMPLATE=FILE: the filled gradebook to copy (a subprocess then need not make one).
"""
import atexit
import functools
import html
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from nbgrader.utils import compute_checksum, determine_grade

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.intake.folder import prepare
from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.records.answers import make_optional
from maskdiff_solutions.course.records.gradebook import all_scores, has_submission
from maskdiff_solutions.course.records.rows import StudentResult
from maskdiff_solutions.course.run.by_notebook import Unit

STUB = "raise NotImplementedError"
STOP, STEPS, TEMPLATE = "MASKDIFF_FAKE_STOP", "MASKDIFF_FAKE_STEPS", "MASKDIFF_FAKE_TEMPLATE"
PAGE_MARK = "<!-- maskdiff fake feedback -->"


# --------------------------------------------------------------------------- the scoring rule

def checked_cells(nb):
    """{test grade_id: [grade_ids of the cells it checks]} of a notebook (the rule above)."""
    written = [notebooks.grade_id(cell) for cell in nb.cells
               if notebooks.is_function(cell) or notebooks.is_drawing(cell)]
    out = {}
    for cell in nb.cells:
        if not notebooks.is_test(cell):
            continue
        rest = str(notebooks.grade_id(cell))[len("test_"):]
        matches = [g for g in written if rest == g or rest.startswith(g + "_")]
        out[notebooks.grade_id(cell)] = [max(matches, key=len)] if matches else written
    return out


def verdicts(nb):
    """{test grade_id: passed} of a (prepared) notebook, by the rule."""
    sources = {notebooks.grade_id(cell): cell.source for cell in nb.cells}
    return {test: not any(STUB in sources.get(name, "") for name in names)
            for test, names in checked_cells(nb).items()}


def expected(nb):
    """What the fake gives a (prepared) notebook: {grade_id: auto_score or None}, its tests by the rule,
    its written answers as nbgrader scores them (None: a person grades it)."""
    passed = verdicts(nb)
    out = {}
    for cell in nb.cells:
        meta = notebooks.nbgrader(cell)
        if not meta.get("grade"):
            continue
        name = meta["grade_id"]
        if name in passed:
            out[name] = float(meta["points"]) if passed[name] else 0.0
        else:
            out[name] = determine_grade(cell)[0]
    return out


# --------------------------------------------------------------------------- one student

def grade_student(task):
    """The fake `student.grade_student` (module docstring)."""
    from maskdiff_solutions.course.run import student as one_student
    from maskdiff_solutions.course.run.canary import STUDENT as CANARY
    if task.student != CANARY:
        step(f"grade {task.student}")
    course, student = Course.load(task.course_root), task.student
    scratch = Path(task.scratch)
    work, db = scratch / "work", scratch / "db" / "gradebook.db"
    db.parent.mkdir(parents=True)
    shutil.copy(task.template_db, db)
    target = work / "submitted" / student / course.assignment
    selected = task.selected or course.notebooks()
    taken = prepare(course, task.folder, target, selected)
    prepared, shadow = taken.notebooks, taken.shadowing
    handed = scratch / "handed-in" / student / course.assignment
    shutil.copytree(target, handed)
    gradable = [name for name in selected if name in prepared and not prepared[name].problem]
    if gradable:
        autograde(db, course, student, target, gradable)
        graded = work / "autograded" / student / course.assignment
        shutil.copytree(target, graded, ignore=shutil.ignore_patterns("*.ipynb"))
        for name in gradable:
            shutil.copyfile(target / name, graded / name)
        for path in graded.rglob("*"):
            if path.is_file():
                path.chmod(0o444)
    if course.answers_optional:
        make_optional(db, course.assignment)
    for name in gradable:
        write_page(db, course.assignment, student, Path(name).stem,
                   work / "feedback" / student / course.assignment / f"{Path(name).stem}.html")
    result = StudentResult(student, [])
    unit = Unit(name="", folder=work, success=True)   # the real Unit: a field it gains reaches the fake too
    held = all_scores(db, course.assignment)
    for name in selected:
        result.rows.append(one_student.notebook_row(course, held, work, student, name, prepared.get(name),
                                                    unit if name in gradable else None, shadow, result))
        result.check_seconds[Path(name).stem] = 0.0
    return result


# a student's grades (and comments) of one notebook: (grade or comment id, cell name, ...)
CELLS = ("FROM {table} x JOIN base_cell c ON x.cell_id = c.id JOIN submitted_notebook sn ON x.notebook_id = sn.id "
         "JOIN notebook n ON sn.notebook_id = n.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
         "JOIN assignment a ON sa.assignment_id = a.id {join}WHERE sa.student_id = ? AND a.name = ? AND n.name = ?")


def autograde(db, course, student, target, gradable):
    """The gradebook as nbgrader's autograde, then the checker's verdicts, leave it (module docstring).
    nbgrader's own API creates the submission; the cells are written in SQL (the ORM took 0.2 s a
    student)."""
    con = sqlite3.connect(db)
    try:
        with con:
            if not has_submission(db, student, course.assignment):
                create_submission(con, student, course.assignment)
            names = [row[0] for row in con.execute("SELECT n.name FROM notebook n JOIN assignment a ON "
                                                   "n.assignment_id = a.id WHERE a.name = ?", (course.assignment,))]
            for notebook in names:
                if not (target / f"{notebook}.ipynb").exists():
                    con.execute(f"UPDATE grade SET auto_score = 0, needs_manual_grade = 0 WHERE id IN "
                                f"(SELECT x.id {CELLS.format(table='grade', join='')})", (student, course.assignment, notebook))
            for name in gradable:
                nb = notebooks.read(target / name)
                key = (student, course.assignment, Path(name).stem)
                grades = {cell: (grade_id, manual) for grade_id, cell, manual in
                          con.execute(f"SELECT x.id, c.name, x.manual_score {CELLS.format(table='grade', join='')}", key)}
                comments = dict((cell, comment_id) for comment_id, cell in
                                con.execute(f"SELECT x.id, c.name {CELLS.format(table='comment', join='')}", key))
                worth = dict(con.execute("SELECT b.name, g.max_score FROM grade_cells g JOIN base_cell b ON g.id = b.id "
                                         "JOIN notebook n ON b.notebook_id = n.id WHERE n.name = ?", (Path(name).stem,)))
                for cell in nb.cells:   # nbgrader's OverwriteCells: a test is worth what the gradebook says
                    meta = notebooks.nbgrader(cell)
                    if meta.get("grade") and meta.get("grade_id") in worth:
                        meta["points"] = worth[meta["grade_id"]]
                scores = expected(nb)
                for cell in nb.cells:
                    meta = notebooks.nbgrader(cell)
                    cell_id = meta.get("grade_id")
                    if meta.get("grade") and cell_id in scores and cell_id in grades:
                        grade_id, manual = grades[cell_id]
                        score = scores[cell_id]
                        con.execute("UPDATE grade SET auto_score = ?, needs_manual_grade = ? WHERE id = ?",
                                    (score, manual is not None or score is None, grade_id))
                    if meta.get("solution") and cell_id in comments:
                        con.execute("UPDATE comment SET auto_comment = ? WHERE id = ?",
                                    ("No response." if unchanged(cell) else None, comments[cell_id]))
    finally:
        con.close()


def create_submission(con, student, assignment):
    """What nbgrader's update_or_create_submission makes of a new submission (the ORM took 0.15 s): the
    student, the submitted assignment, and for every notebook a submitted notebook with a Grade for
    every grade or task cell (to grade) and a Comment for every solution or task cell."""
    con.execute("INSERT OR IGNORE INTO student (id) VALUES (?)", (student,))
    (assignment_id,) = con.execute("SELECT id FROM assignment WHERE name = ?", (assignment,)).fetchone()
    submitted = uuid.uuid4().hex
    con.execute("INSERT INTO submitted_assignment (id, assignment_id, student_id) VALUES (?, ?, ?)",
                (submitted, assignment_id, student))
    for (notebook_id,) in con.execute("SELECT id FROM notebook WHERE assignment_id = ?", (assignment_id,)).fetchall():
        mine = uuid.uuid4().hex
        con.execute("INSERT INTO submitted_notebook (id, assignment_id, notebook_id, flagged) VALUES (?, ?, ?, 0)",
                    (mine, submitted, notebook_id))
        for table, kinds in (("grade", ("grade_cells", "task_cells")), ("comment", ("solution_cells", "task_cells"))):
            cells = " UNION ".join(f"SELECT k.id FROM {kind} k JOIN base_cell b ON k.id = b.id WHERE b.notebook_id = ?"
                                   for kind in kinds)
            for (cell_id,) in con.execute(cells, (notebook_id,) * len(kinds)).fetchall():
                extra = ", needs_manual_grade" if table == "grade" else ""
                con.execute(f"INSERT INTO {table} (id, notebook_id, cell_id{extra}) VALUES (?, ?, ?{', 1' if extra else ''})",
                            (uuid.uuid4().hex, mine, cell_id))


def unchanged(cell):
    """nbgrader's test of an answer left as handed out: its checksum."""
    meta = notebooks.nbgrader(cell)
    return "checksum" in meta and meta["checksum"] == compute_checksum(cell)


# --------------------------------------------------------------------------- feedback pages

def page_cells(db, assignment, student, notebook):
    """[(cell, score or None while a person has to grade it, max, comment)] of a graded notebook."""
    con = sqlite3.connect(db)
    try:
        key = (student, assignment, notebook)
        comments = {cell: manual if manual is not None else auto or "" for cell, auto, manual in
                    con.execute(f"SELECT c.name, x.auto_comment, x.manual_comment {CELLS.format(table='comment', join='')}", key)}
        rows = con.execute(f"SELECT c.name, x.auto_score, x.manual_score, x.extra_credit, x.needs_manual_grade, "
                           f"g.max_score {CELLS.format(table='grade', join='JOIN grade_cells g ON g.id = c.id ')}"
                           f" ORDER BY c.name", key).fetchall()
    finally:
        con.close()
    out = []
    for cell, auto, manual, extra, pending, most in rows:
        score = manual if manual is not None else auto    # nbgrader's Grade.score
        score = None if pending else (score or 0.0) + (extra or 0.0) * (score is not None)
        out.append((cell, score, most, comments.get(cell, "")))
    return out


def write_page(db, assignment, student, notebook, path):
    """The fake feedback page of one graded notebook, from the gradebook alone."""
    cells = page_cells(db, assignment, student, notebook)
    lines = [f'<tr data-cell="{html.escape(cell)}"><td class="score">{"to grade" if score is None else f"{score:g}"}'
             f'</td><td class="max">{most:g}</td><td class="comment">{html.escape(comment)}</td></tr>'
             for cell, score, most, comment in cells]
    total, most = sum(c[1] or 0.0 for c in cells), sum(c[2] for c in cells)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<!DOCTYPE html>\n{PAGE_MARK}\n<html><body><h1>{html.escape(notebook)}: "
                    f'<span class="total">{total:g}</span> / {most:g}</h1>\n<table>\n' + "\n".join(lines)
                    + "\n</table></body></html>\n", encoding="utf-8")
    return path


ROW = re.compile(r'<tr data-cell="([^"]*)"><td class="score">([^<]*)</td><td class="max">([^<]*)</td>'
                 r'<td class="comment">([^<]*)</td></tr>')


def read_page(path):
    """{cell: (score, or None while a person has to grade it; max; comment)} of a fake page; None for a
    page the fake did not write (nbgrader's, or a not-graded page)."""
    text = Path(path).read_text(encoding="utf-8")
    if PAGE_MARK not in text:
        return None
    return {html.unescape(name): (None if score == "to grade" else float(score), float(most), html.unescape(comment))
            for name, score, most, comment in ROW.findall(text)}


def fake_page(course, workspace, student, db=None, apis=None):
    """`export.make_page`: the student's pages made again from the gradebook db (default the workspace's),
    as nbgrader's GenerateFeedback (--force) does it: their feedback folder removed, then a page for each
    autograded notebook; a notebook the gradebook has no submission of fails the student (nbgrader's
    MissingEntry), whose folder is then removed again. Returns '' or why it failed."""
    workspace = Path(workspace)
    db = Path(db or workspace / "gradebook.db")
    folder = workspace / "feedback" / student / course.assignment
    shutil.rmtree(folder, ignore_errors=True)
    for graded in sorted((workspace / "autograded" / student / course.assignment).glob("*.ipynb")):
        if not has_notebook(db, student, course.assignment, graded.stem):
            shutil.rmtree(folder, ignore_errors=True)
            return (f"MissingEntry: no submission of {graded.stem} by {student} in the gradebook "
                    f"(nbgrader's GetGrades)")
        write_page(db, course.assignment, student, graded.stem, folder / f"{graded.stem}.html")
    return ""


def has_notebook(db, student, assignment, notebook):
    if not Path(db).is_file():
        return False
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM submitted_notebook sn JOIN notebook n ON sn.notebook_id = n.id "
                           "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON "
                           "sa.assignment_id = a.id WHERE sa.student_id = ? AND a.name = ? AND n.name = ?",
                           (student, assignment, notebook)).fetchone()[0] > 0
    finally:
        con.close()


# --------------------------------------------------------------------------- the gradebook's template

_templates = {}
_SYSTEM_TMP = tempfile.gettempdir()   # read at import: a test may point tempfile elsewhere for a while


def template_gradebook(course_root):
    """A gradebook the real `generate` filled from the course's source/, made once per process (again
    if it was removed)."""
    from maskdiff_solutions.course.records.nbgrader_apps import generate
    given = os.environ.get(TEMPLATE)
    if given:
        return Path(given)
    made = _templates.get(course_root)
    if made is None or not made.is_file():
        folder = Path(tempfile.mkdtemp(prefix="maskdiff-fake-template-", dir=_SYSTEM_TMP))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        generate(Course.load(course_root), folder / "release", folder / "ws")
        made = _templates[course_root] = folder / "ws" / "gradebook.db"
    return made


@functools.lru_cache(maxsize=None)
def _worth(release, stamp):
    """[(points, cell, notebook stem)] of every graded cell of the release (stamp: its files' names and times)."""
    return [(float(meta["points"]), meta["grade_id"], Path(name).stem) for name, _ in stamp
            for meta in map(notebooks.nbgrader, notebooks.read(Path(release) / name).cells) if meta.get("grade")]


def fake_up_to_date(course, workspace):
    """A fresh workspace gets the course's generated gradebook; an existing one its cells' points as the
    course's release states them now (what nbgrader's generate_assignment changes when points change)."""
    db = Path(workspace) / "gradebook.db"
    Path(workspace).mkdir(parents=True, exist_ok=True)
    if not db.exists():
        shutil.copyfile(template_gradebook(str(course.root)), db)
        return
    release = course.release_dir
    worth = _worth(str(release), tuple((p.name, p.stat().st_mtime_ns) for p in sorted(release.glob("*.ipynb"))))
    con = sqlite3.connect(db)
    try:
        with con:
            con.executemany("UPDATE grade_cells SET max_score = ? WHERE id IN (SELECT b.id FROM base_cell b JOIN "
                            "notebook n ON b.notebook_id = n.id WHERE b.name = ? AND n.name = ?)", worth)
    finally:
        con.close()


# --------------------------------------------------------------------------- stopping at step k

ROOT = Path(__file__).resolve().parents[2]
# Ctrl-C reaches the command as it does from a terminal, even where the test runner was started in the
# background of a script (bash then starts it, and so every child, with SIGINT ignored).
CHILD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from tests.support import fake_grading; fake_grading.install(); "
         "from maskdiff_solutions.course import cli; sys.exit(cli.main(sys.argv[1:]))")


def run_stopped(course_root, args, template, stop=None, steps=None, tmpdir=None):
    """`python -m maskdiff_solutions ARGS` with the fake in a process of its own, stopped where `stop`
    ("KILL@k", "INT@k") says, its steps logged to `steps` (a file); the CompletedProcess."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
           TEMPLATE: str(template)}
    env.update({name: str(value) for name, value in ((STOP, stop), (STEPS, steps), ("TMPDIR", tmpdir)) if value})
    return subprocess.run([sys.executable, "-c", CHILD, "--course-dir", str(course_root), *map(str, args)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)


def steps_of(course_root, args, template, log):
    """[(k, what)] of the steps the same command counts when nothing stops it (run once, logged to log)."""
    run_stopped(course_root, args, template, steps=log)
    return [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1].strip()) for line in Path(log).read_text().splitlines()]


_counted = [0]


def step(what):
    """Count one step; signal this process at the step MASKDIFF_FAKE_STOP names."""
    _counted[0] += 1
    log = os.environ.get(STEPS)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{_counted[0]} {what}\n")
    stop = os.environ.get(STOP)
    if stop:
        kind, at = stop.split("@")
        if _counted[0] == int(at):
            os.kill(os.getpid(), {"INT": signal.SIGINT, "KILL": signal.SIGKILL}[kind])


def _stepping(name, function):
    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        step(name)
        return function(*args, **kwargs)
    return wrapped


class Patcher:
    """monkeypatch.setattr for a process without pytest (a subprocess a test signals)."""

    def setattr(self, target, name, value):
        setattr(target, name, value)


def install(monkeypatch=None, course_root=None):
    """Put the fake in place (module docstring); returns the template gradebook's path (of the course at
    course_root, default this checkout)."""
    from maskdiff_solutions.course.ledger import commit, derived, export, safekeeping
    from maskdiff_solutions.course.records import summary
    from maskdiff_solutions.course.run import batch, student
    monkeypatch = monkeypatch or Patcher()
    monkeypatch.setattr(student, "grade_student", grade_student)
    monkeypatch.setattr(batch, "up_to_date_gradebook", fake_up_to_date)
    monkeypatch.setattr(batch, "warm_caches", lambda *selection: "")
    monkeypatch.setattr(summary, "plot", lambda report, path: path)
    monkeypatch.setattr(export, "make_page", fake_page)
    if os.environ.get(STOP) or os.environ.get(STEPS):
        # every commit point of a student's grading (staged, inside the transaction, files half moved)
        # and of the grading as a whole (the copy kept for undo, the derived files)
        for module, name in ((commit, "stage"), (commit, "put_result"), (commit, "apply"), (batch, "everyone"),
                             (derived, "write_csv")):
            monkeypatch.setattr(module, name, _stepping(name, getattr(module, name)))
        monkeypatch.setattr(safekeeping, "keep", _stepping("keep", safekeeping.keep))
    return template_gradebook(str(Course.load(course_root or Path(__file__).resolve().parents[2]).root))
