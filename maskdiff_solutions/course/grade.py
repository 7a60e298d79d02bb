"""`grade DIR [--jobs N]`: repair, autograde and give feedback on every student's notebooks; one CSV
row per (student, notebook).

A broken submission never stops the batch and never disappears: every (student, notebook) pair gets
a row whose status says what happened and why:

- graded:   autograded as handed in;
- repaired: autograded after `repair` fixed the file (its `repairs` column lists every change);
- flagged:  autograded, but a person should look (integrity, a dead kernel, a timeout, deleted files);
- failed:   could not be graded (not a notebook, some other notebook, nbgrader failed);
- missing:  not in the submission.

Each student is graded in a scratch workspace of their own, with a copy of the gradebook kept
outside the folders their code runs in; the main process then merges that student's rows into
the real gradebook. Workers therefore never share an sqlite file (no locking), a cell that
deletes files can only hit its own scratch copy, and `--jobs N` gives the same results as a
serial run because both run exactly the same per-student function.
"""
import csv
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from multiprocessing import get_context
from pathlib import Path

from nbgrader.api import Gradebook
from tqdm.auto import tqdm

from . import autograde, notebooks, repair
from .layout import PACKAGE_PARENT, Course
from .release import generate

HIDDEN_PACKAGE = "maskdiff_solutions"
SEVERITY = ["graded", "repaired", "flagged", "failed"]  # a row takes the worst that applies


@dataclass
class Row:
    student: str
    notebook: str
    status: str            # graded | repaired | flagged | failed | missing
    auto_score: float = 0.0
    auto_max: float = 0.0
    manual_max: float = 0.0
    manual_pending: bool = False
    failed_tests: str = ""
    reason: str = ""
    repairs: str = ""

    def mark(self, status, reason):
        if SEVERITY.index(status) > SEVERITY.index(self.status):
            self.status = status
        self.reason = "; ".join(filter(None, [self.reason, reason]))


@dataclass
class StudentResult:
    student: str
    rows: list
    tests: dict = field(default_factory=dict)   # notebook -> {test grade_id: (score, max)}
    withheld: list = field(default_factory=list)  # notebooks whose autograded marks are withheld


@dataclass
class Report:
    rows: list
    csv_path: Path
    feedback_dir: Path
    tests: dict = field(default_factory=dict)  # (student, notebook) -> {test: (score, max)}
    merge_seconds: float = 0.0  # time spent merging scratch workspaces (what isolation costs)


def student_id(folder_name):
    """nbgrader wants plain ids: keep letters, digits, '-', '_' and '.'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", folder_name).strip("_") or "student"


@contextmanager
def hidden_package_first():
    """Kernels inherit PYTHONPATH, which Python puts before the notebook's own folder: a student file
    named like the hidden package can then not shadow it."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), old]))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def shadowing_files(folder):
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob(f"{HIDDEN_PACKAGE}*"))


# --- one student ------------------------------------------------------------------------------

@dataclass
class Prepared:
    """What became of one expected notebook before autograde."""
    file: str = ""            # the student's file it came from ("" when none)
    problem: str = ""         # why it cannot be graded
    changes: list = field(default_factory=list)
    hidden_uses: list = field(default_factory=list)


def _notebook_files(folder):
    return sorted(p for p in Path(folder).rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def pick_files(expected, folder):
    """expected notebook name -> the student's file for it: the exact name, else a renamed copy
    ('Copy of X', 'X (1)'), the newest when there are several."""
    files = _notebook_files(folder)
    chosen = {}
    for name in expected:
        same = [p for p in files if repair.canonical_name(p.name) == repair.canonical_name(name)]
        exact = [p for p in same if p.name == name]
        if exact or same:
            chosen[name] = (exact or sorted(same, key=lambda p: (p.stat().st_mtime, p.name)))[-1]
    return chosen


def recognise_by_content(releases, folder, chosen):
    """Notebooks under names of their own ('homework.ipynb'): each missing notebook gets the unused
    file that holds most of its release's cells, if any holds at least MIN_RECOGNISED of them."""
    unused = [p for p in _notebook_files(folder) if p not in chosen.values()]
    found = {}
    for name, release_nb in releases.items():
        if name in chosen or not unused:
            continue
        shares = []
        for path in unused:
            try:
                shares.append((repair.recognised_share(repair.load(path), release_nb), path))
            except repair.Unreadable:
                continue
        share, path = max(shares, default=(0.0, None), key=lambda pair: pair[0])
        if share >= repair.MIN_RECOGNISED:
            found[name] = path
            unused.remove(path)
    return found


def prepare(course, folder, target):
    """Copy the student's folder to target with each expected notebook repaired (nothing in folder
    is changed); returns {notebook name: Prepared}."""
    shutil.copytree(folder, target, ignore=shutil.ignore_patterns("*.ipynb"))
    expected = course.notebooks()
    chosen = pick_files(expected, folder)
    releases = {name: notebooks.read(course.release_dir / name) for name in expected}
    chosen.update(recognise_by_content(releases, folder, chosen))
    prepared = {}
    for name in expected:
        path = chosen.get(name)
        if path is None:
            continue
        info = prepared[name] = Prepared(str(path.relative_to(folder)))
        if info.file != name:
            info.changes.append(f"graded {info.file!r} as {name}")
        try:
            nb = repair.load(path)
        except repair.Unreadable as err:
            info.problem = f"{info.file}: {err}"
            continue
        fixed = repair.repair(nb, releases[name])
        if fixed.recognised < repair.MIN_RECOGNISED:
            others = [other for other in expected if other != name and
                      repair.recognised_share(nb, releases[other]) >= repair.MIN_RECOGNISED]
            info.problem = (f"{info.file} is some other notebook: it holds {fixed.recognised:.0%} of "
                            f"the release's cells" + (f" (it looks like {others[0]})" if others else ""))
            continue
        info.changes += fixed.changes
        info.hidden_uses = repair.hidden_package_uses(fixed.nb)
        notebooks.write(fixed.nb, target / name)
    return prepared


def outcome_notes(nb):
    """(status, sentence) for what the autograded notebook shows went wrong while it ran."""
    notes = []
    for index, cell in enumerate(nb.cells):
        label = notebooks.grade_id(cell) or f"cell {index + 1}"
        for output in cell.get("outputs", []):
            ename = output.get("ename")
            if ename == autograde.KERNEL_DIED:
                notes.append(("flagged", f"the kernel died in {label} (os._exit, a crash or memory); "
                                         f"the cells after it were not run"))
            elif ename == autograde.NOT_RUN and "used up" in output.get("evalue", ""):
                notes.append(("flagged", f"the notebook ran out of time before {label}; "
                                         f"the cells from there on were not run"))
                return notes  # every later cell says the same
            elif ename == autograde.TIMED_OUT:
                notes.append(("flagged", f"{label} ran past the cell time limit and was interrupted"))
            elif autograde.TRUNCATED in str(output.get("text", "")) + str(output.get("data", "")):
                notes.append(("graded", f"the huge output of {label} was cut"))
    return notes


def scores(gradebook, assignment, notebook, student):
    """Autograded points, the manual points still to award, and each autograded test's score."""
    submitted = gradebook.find_submission_notebook(notebook, assignment, student)
    answers = {cell.name for cell in gradebook.find_notebook(notebook, assignment).solution_cells}
    row = {"auto_score": 0.0, "auto_max": 0.0, "manual_max": 0.0, "manual_pending": False,
           "failed": [], "tests": {}}
    for grade in sorted(submitted.grades, key=lambda g: g.name):
        if grade.name in answers:  # graded by a person, not by a test
            row["manual_max"] += grade.max_score
            row["manual_pending"] |= bool(grade.needs_manual_grade)
        else:
            got = grade.auto_score or 0.0
            row["auto_max"] += grade.max_score
            row["auto_score"] += got
            row["tests"][grade.name] = (got, grade.max_score)
            if got < grade.max_score:
                row["failed"].append(grade.name)
    return row


def grade_student(course_root, template_db, student, folder, scratch):
    """Prepare, autograde and give feedback on one student inside scratch (a folder of its own);
    the gradebook copy lives in scratch/db, outside the folders the student's code runs in."""
    from nbgrader.apps import NbGraderAPI  # here, so that spawned workers import it themselves
    course = Course.load(course_root)
    scratch = Path(scratch)
    work, db = scratch / "work", scratch / "db" / "gradebook.db"
    db.parent.mkdir(parents=True)
    shutil.copy(template_db, db)
    target = work / "submitted" / student / course.assignment
    prepared = prepare(course, folder, target)
    shutil.copytree(target, scratch / "handed-in" / student / course.assignment)  # out of the cells' reach
    shadow = shadowing_files(target)
    given = sorted(str(p.relative_to(work)) for p in (work / "submitted").rglob("*") if p.is_file())
    config = course.nbgrader_config(work)
    config.CourseDirectory.db_url = f"sqlite:///{db}"
    outcome = (False, "no notebook of this assignment could be graded")
    if any(not info.problem for info in prepared.values()):
        api = NbGraderAPI(config=config)
        with hidden_package_first(), warnings.catch_warnings():
            # nbgrader 0.9 trips SQLAlchemy autoflush warnings on every autograde; they mean nothing.
            warnings.filterwarnings("ignore", message=".*not in session.*")
            result = api.autograde(course.assignment, student, force=True, create=True)
            outcome = (result["success"], _last_line(result))
            if result["success"]:
                api.generate_feedback(course.assignment, student, force=True)
    deleted = [p for p in given if not (work / p).is_file()]
    result = StudentResult(student, [])
    with Gradebook(f"sqlite:///{db}", course_id="maskdiff") as gradebook:
        for name in course.notebooks():
            row = _row(course, gradebook, work, student, name, prepared.get(name), outcome,
                       shadow, deleted, result)
            result.rows.append(row)
    return result


def _row(course, gradebook, work, student, name, info, outcome, shadow, deleted, result):
    notebook = Path(name).stem
    if info is None:
        return Row(student, notebook, "missing", reason=f"{name} was not in the submission")
    row = Row(student, notebook, "graded", repairs="; ".join(info.changes))
    if info.problem:
        row.mark("failed", info.problem)
        return row
    graded_nb = work / "autograded" / student / course.assignment / name
    if not outcome[0] or not graded_nb.is_file():
        row.mark("failed", f"autograde failed: {outcome[1]}")
        return row
    got = scores(gradebook, course.assignment, notebook, student)
    row.auto_score, row.auto_max = got["auto_score"], got["auto_max"]
    row.manual_max, row.manual_pending = got["manual_max"], got["manual_pending"]
    row.failed_tests = " ".join(got["failed"])
    result.tests[notebook] = got["tests"]
    if info.changes:
        row.mark("repaired", f"{len(info.changes)} repair(s), see repairs")
    for status, sentence in outcome_notes(notebooks.read(graded_nb)):
        row.mark(status, sentence)
    if shadow:
        row.mark("flagged", f"submission ships {', '.join(shadow)}, named like the hidden package; "
                            f"graded against the real one")
    if deleted:
        row.mark("flagged", f"a cell deleted {len(deleted)} file(s) of the grading folder "
                            f"({', '.join(deleted[:3])}{', ...' if len(deleted) > 3 else ''})")
    if info.hidden_uses:
        row.mark("flagged", f"integrity: student code uses the hidden package "
                            f"({', '.join(info.hidden_uses)}); its {row.auto_score:g} autograded "
                            f"points are withheld")
        row.auto_score = 0.0
        result.withheld.append(notebook)
    return row


def _last_line(result):
    text = (result.get("error") or result.get("log") or "").strip().splitlines()
    return text[-1] if text else ""


# --- the batch --------------------------------------------------------------------------------

def students(submissions):
    return {student_id(p.name): p for p in sorted(Path(submissions).iterdir()) if p.is_dir()}


def grade(course, submissions, workspace=None, jobs=1, progress=True):
    workspace = Path(workspace or course.root).resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    if not Path(submissions).is_dir():
        raise FileNotFoundError(f"no submissions folder at {submissions}")
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        generate(course, scratch, workspace)  # brings the gradebook up to date with source/
    batch = students(submissions)
    main_db = workspace / "gradebook.db"
    results = {}
    with tempfile.TemporaryDirectory(prefix="maskdiff-grading-") as scratch:
        template = Path(scratch) / "template.db"
        shutil.copy(main_db, template)
        tasks = {student: (str(course.root), str(template), student, str(folder),
                           str(Path(scratch) / student)) for student, folder in batch.items()}
        bar = tqdm(total=len(tasks), desc="grading", unit="student", disable=not progress,
                   file=sys.stderr)
        merging = 0.0
        for student, result in _run(tasks, jobs):
            started = time.perf_counter()
            merge(main_db, Path(tasks[student][4]), workspace, result, course.assignment)
            merging += time.perf_counter() - started
            results[student] = result
            bar.update()
        bar.close()
    rows = [row for student in sorted(results) for row in results[student].rows]
    tests = {(student, notebook): scores_ for student in sorted(results)
             for notebook, scores_ in results[student].tests.items()}
    csv_path = workspace / "grades.csv"
    write_csv(rows, csv_path)
    return Report(rows, csv_path, workspace / "feedback", tests, merging)


def _run(tasks, jobs):
    """(student, result) as each finishes: in this process for one job, else in spawned workers
    (fresh interpreters: nothing of this process's state, threads or kernels is shared)."""
    if jobs == 1 or len(tasks) < 2:
        for student, args in tasks.items():
            try:
                yield student, grade_student(*args)
            except Exception as err:  # noqa: BLE001 - one student's crash must not end the batch
                yield student, crashed(args, err)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(grade_student, *args): student for student, args in tasks.items()}
        for future in as_completed(futures):
            student = futures[future]
            try:
                yield student, future.result()
            except Exception as err:  # noqa: BLE001 - a crashed worker included
                yield student, crashed(tasks[student], err)


def crashed(args, err):
    """The rows of a student whose grading itself broke: failed, saying how."""
    course, student = Course.load(args[0]), args[2]
    return StudentResult(student, [Row(student, Path(name).stem, "failed",
                                       reason=f"grading crashed: {type(err).__name__}: {err}")
                                   for name in course.notebooks()])


SUBMISSION_TABLES = ("comment", "grade", "submitted_notebook", "submitted_assignment")


def merge(main_db, scratch, workspace, result, assignment):
    """Move one student's results from their scratch workspace into the real one: gradebook rows
    (same ids: the scratch gradebook is a copy of the real one), autograded notebooks, feedback."""
    student = result.student
    if not (scratch / "db" / "gradebook.db").is_file():  # grading crashed before it began
        return
    con = sqlite3.connect(main_db)
    try:
        con.execute("ATTACH DATABASE ? AS w", (str(scratch / "db" / "gradebook.db"),))
        with con:
            subs = ("SELECT id FROM {db}.submitted_assignment WHERE student_id = ? AND assignment_id IN "
                    "(SELECT id FROM {db}.assignment WHERE name = ?)")
            nbs = "SELECT id FROM {db}.submitted_notebook WHERE assignment_id IN (" + subs + ")"
            where = {"comment": ("notebook_id", nbs), "grade": ("notebook_id", nbs),
                     "submitted_notebook": ("assignment_id", subs), "submitted_assignment": ("id", subs)}
            for table in SUBMISSION_TABLES:
                column, query = where[table]
                con.execute(f"DELETE FROM main.{table} WHERE {column} IN ({query.format(db='main')})",
                            (student, assignment))
            con.execute("INSERT OR REPLACE INTO main.student SELECT * FROM w.student WHERE id = ?",
                        (student,))
            for table in reversed(SUBMISSION_TABLES):
                column, query = where[table]
                con.execute(f"INSERT INTO main.{table} SELECT * FROM w.{table} "
                            f"WHERE {column} IN ({query.format(db='w')})", (student, assignment))
    finally:
        con.close()
    work = scratch / "work"
    for kind, there in (("submitted", scratch / "handed-in"), ("autograded", work / "autograded"),
                        ("feedback", work / "feedback")):
        shutil.rmtree(workspace / kind / student, ignore_errors=True)
        if (there / student).is_dir():
            shutil.copytree(there / student, workspace / kind / student)
    if result.withheld:
        withhold(main_db, assignment, student, result.withheld)


def withhold(main_db, assignment, student, notebook_names):
    """Integrity: score the notebook's autograded tests 0 in the gradebook too (a manual score
    overrides the autograded one; an instructor can lift it in formgrader)."""
    with Gradebook(f"sqlite:///{main_db}", course_id="maskdiff") as gradebook:
        for name in notebook_names:
            submitted = gradebook.find_submission_notebook(name, assignment, student)
            answers = {c.name for c in gradebook.find_notebook(name, assignment).solution_cells}
            for grade in submitted.grades:
                if grade.name not in answers:
                    grade.manual_score = 0.0
            gradebook.db.commit()


def write_csv(rows, path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[f.name for f in fields(Row)])
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))


def print_table(rows):
    print(f"{'student':<14} {'notebook':<22} {'status':<8} {'auto':>9} {'manual':>7}  notes")
    for row in rows:
        auto = f"{row.auto_score:g}/{row.auto_max:g}"
        manual = f"{row.manual_max:g}" + ("*" if row.manual_pending else "")
        notes = row.reason or (f"failed: {row.failed_tests}" if row.failed_tests else "")
        print(f"{row.student:<14} {row.notebook:<22} {row.status:<8} {auto:>9} {manual:>7}  {notes}")
    if any(row.manual_pending for row in rows):
        print("* manual points still to award (nbgrader formgrader)")
    repaired = [row for row in rows if row.repairs]
    if repaired:
        print("\nrepairs (the students' own files are unchanged):")
        for row in repaired:
            print(f"  {row.student} / {row.notebook}: {row.repairs}")
