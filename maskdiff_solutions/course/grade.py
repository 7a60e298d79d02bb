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
the real gradebook. Workers therefore never share an sqlite file (no locking), and `--jobs N` gives
the same results as a serial run because both run exactly the same per-student function. With
`--executor dask` that function runs on a Dask cluster as a job whose inputs and outputs are data
(course/job.py, course/cluster.py); its outputs are written into the same scratch folder and merged
the same way. `--only-changed` keeps the results of unchanged submissions (course/rerun.py).

Student code never runs in a process that decides anything. nbgrader runs here, but each notebook's
kernel starts in a sandbox of its own (course/sandbox.py) that sees the student's files and nothing
of the course, and its hidden test cells hand the student's functions to a trusted checker in this
process (grading/checker.py). Every autograded test cell is then scored from the checker's verdicts
alone, whatever the notebook's outputs claim.
"""
import csv
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from multiprocessing import get_context
from pathlib import Path

from nbgrader.api import Gradebook
from tqdm.auto import tqdm

from . import autograde, by_notebook, handed_in, notebooks, repair, rerun
from .answers import OPTIONAL_NOTE, automatic_only, make_optional
from .feedback import generate_feedback
from .layout import PACKAGE_PARENT, Course
from .release import failure, generate, nbgrader_errors
from .sandbox import Settings, configured_limits, resolve_mode
from . import workspace_lock
from .canary import STUDENT, gate, notebooks_to_prove, submission

CSV_NAME = "grades-by-notebook.csv"  # not nbgrader's grades.csv: `nbgrader export` writes that one
HIDDEN_PACKAGE = "maskdiff_solutions"
COURSE_PACKAGES = (HIDDEN_PACKAGE, "maskdiff_client")
SEVERITY = ["graded", "repaired", "flagged", "failed"]  # a row takes the worst that applies


@dataclass
class Row:
    student: str
    notebook: str
    status: str            # graded | repaired | flagged | failed | missing
    auto_score: float = 0.0
    auto_max: float = 0.0
    manual_score: float = 0.0    # points of manually graded cells awarded so far (a blank answer: 0)
    manual_max: float = 0.0
    manual_pending: float = 0.0  # points still to be graded by a person (formgrader)
    failed_tests: str = ""
    reason: str = ""
    repairs: str = ""
    review: str = ""       # drawings a person grades (the checker's reader was unsure): their test cells

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
    check_seconds: dict = field(default_factory=dict)  # notebook -> seconds its hidden checks took


@dataclass
class Report:
    rows: list
    csv_path: Path
    feedback_dir: Path
    tests: dict = field(default_factory=dict)  # (student, notebook) -> {test: (score, max)}
    merge_seconds: float = 0.0  # time spent merging scratch workspaces (what isolation costs)
    check_seconds: dict = field(default_factory=dict)  # (student, notebook) -> seconds of hidden checks
    answers_optional: bool = False  # [tool.maskdiff] written_answers = "optional"


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


def submitted_entries(folder):
    """(path, is a regular file) of everything in a submission folder, never following a link: a
    student can hand in links to anywhere on the grading machine (the course's solutions, the
    gradebook), and grading must not read through them."""
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
        for name in sorted(dirs + files):
            path = Path(top) / name
            if name in files or path.is_symlink():
                yield path, path.is_file() and not path.is_symlink()


def shadowing_files(folder):
    return sorted(str(p.relative_to(folder)) for p, _ in submitted_entries(folder)
                  if p.name.startswith(COURSE_PACKAGES) or any(part.startswith(COURSE_PACKAGES)
                                                               for part in p.relative_to(folder).parts))


# --- one student ------------------------------------------------------------------------------

@dataclass
class Prepared:
    """What became of one expected notebook before autograde."""
    file: str = ""            # the student's file it came from ("" when none)
    problem: str = ""         # why it cannot be graded
    changes: list = field(default_factory=list)
    hidden_uses: list = field(default_factory=list)
    left_out: list = field(default_factory=list)  # the student's other files not handed to the kernel


def _notebook_files(folder):
    return sorted(p for p, regular in submitted_entries(folder) if regular and p.suffix == ".ipynb")


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


MAX_EXTRA_FILES, MAX_EXTRA_BYTES = 200, 64 << 20


def copy_extras(folder, target):
    """Copy the student's other files (data they read) into target: regular files only, never
    notebooks, links, devices or anything outside the folder, within a count and size budget.
    Returns what was left out, in words."""
    left_out, count, size = [], 0, 0
    for path, regular in submitted_entries(folder):
        relative = path.relative_to(folder)
        if path.suffix == ".ipynb" and regular:
            continue
        if not regular:
            left_out.append(f"{relative} ({'a link' if path.is_symlink() else 'not a regular file'})")
            continue
        size += path.stat().st_size
        count += 1
        if count > MAX_EXTRA_FILES or size > MAX_EXTRA_BYTES:
            left_out.append(f"{relative} (over {MAX_EXTRA_FILES} files or {MAX_EXTRA_BYTES >> 20} MB)")
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative, follow_symlinks=False)
        os.chmod(target / relative, 0o644)
    return left_out


def prepare(course, folder, target, expected=None):
    """Write the student's expected notebooks (default: all), repaired, and their other files to
    target (nothing in folder is changed); returns {notebook name: Prepared}. One bad file never
    spoils another."""
    target.mkdir(parents=True)
    left_out = copy_extras(folder, target)
    expected = expected or course.notebooks()
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
            prepare_notebook(info, path, name, expected, releases, target)
        except Exception as err:  # noqa: BLE001 - a file that breaks repair fails alone
            info.problem = f"{info.file} could not be prepared for grading: {type(err).__name__}: {err}"[:500]
    for info in prepared.values():
        info.left_out = left_out
    return prepared


def prepare_notebook(info, path, name, expected, releases, target):
    try:
        nb = repair.load(path)
    except repair.Unreadable as err:
        info.problem = f"{info.file}: {err}"
        return
    fixed = repair.repair(nb, releases[name])
    if fixed.recognised < repair.MIN_RECOGNISED:
        others = [other for other in expected if other != name and
                  repair.recognised_share(nb, releases[other]) >= repair.MIN_RECOGNISED]
        info.problem = (f"{info.file} is some other notebook: it holds {fixed.recognised:.0%} of "
                        f"the release's cells" + (f" (it looks like {others[0]})" if others else ""))
        return
    info.changes += fixed.changes
    info.hidden_uses = repair.hidden_package_uses(fixed.nb)
    notebooks.write(fixed.nb, target / name)


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
            elif ename == autograde.IGNORED_INTERRUPT:
                notes.append(("flagged", f"{label} ran past the cell time limit and ignored the interrupt; "
                                         f"the kernel was stopped and the cells after it were not run"))
                return notes
            elif autograde.TRUNCATED in str(output.get("text", "")) + str(output.get("data", "")):
                notes.append(("graded", f"the huge output of {label} was cut"))
    return notes


def scores(gradebook, assignment, notebook, student):
    """Autograded points (a person's override counts: withheld marks, or marks lifted in formgrader),
    the manual points awarded and still to award, and each autograded test's score."""
    submitted = gradebook.find_submission_notebook(notebook, assignment, student)
    answers = {cell.name for cell in gradebook.find_notebook(notebook, assignment).solution_cells}
    row = {"auto_score": 0.0, "auto_max": 0.0, "manual_score": 0.0, "manual_max": 0.0,
           "manual_pending": 0.0, "failed": [], "tests": {}, "review": []}
    for grade in sorted(submitted.grades, key=lambda g: g.name):
        if grade.name in answers:  # graded by a person, not by a test
            row["manual_max"] += grade.max_score
            if grade.needs_manual_grade:
                row["manual_pending"] += grade.max_score
            else:
                row["manual_score"] += grade.score or 0.0
        else:
            row["auto_max"] += grade.max_score
            if grade.needs_manual_grade and grade.manual_score is None:
                row["review"].append(grade.name)  # a review: no points until a person gives them
                continue
            got = grade.score or 0.0
            row["auto_score"] += got
            row["tests"][grade.name] = (got, grade.max_score)
            if got < grade.max_score:
                row["failed"].append(grade.name)
    return row


def grade_student(course_root, template_db, student, folder, scratch, sandbox="off", cache="", limits=None,
                  selected=None, notebook_jobs=1):
    """Prepare, autograde and give feedback on one student inside scratch (a folder of its own);
    the gradebook copy lives in scratch/db, outside the folders the student's code runs in. Kernels
    run sandboxed when `sandbox` is "required"; hidden checks always run in trusted checkers here.
    Each notebook is autograded on its own, `notebook_jobs` at once (course/by_notebook.py; the
    results do not depend on it)."""
    course = Course.load(course_root)
    scratch = Path(scratch)
    work, db = scratch / "work", scratch / "db" / "gradebook.db"
    db.parent.mkdir(parents=True)
    shutil.copy(template_db, db)
    target = work / "submitted" / student / course.assignment
    selected = selected or course.notebooks()
    prepared = prepare(course, folder, target, selected)
    shutil.copytree(target, scratch / "handed-in" / student / course.assignment)  # out of the cells' reach
    shadow = shadowing_files(target)
    plan = notebooks.check_plan(course.source_dir)
    gradable = [name for name in selected if name in prepared and not prepared[name].problem]
    settings = Settings(mode=sandbox, handin=str(target), cache=cache, limits=limits or {}).to_dict()
    handed = scratch / "handed-in" / student / course.assignment

    def finish(unit):
        """In the unit's thread, on its own gradebook copy and folder: what the re-run shows went wrong
        (read before the handed-in outputs join it), the manual cells' outputs as handed in (for
        formgrader and feedback), every hidden test cell's score from the checker, the feedback."""
        graded_nb = unit.work / "autograded" / student / course.assignment / unit.name
        if course.answers_optional and unit.db.is_file():  # nbgrader has just marked the changed answers
            make_optional(unit.db, course.assignment)      # for a person: before the feedback is made
        if unit.db.is_file():
            with Gradebook(f"sqlite:///{unit.db}", course_id="maskdiff") as gradebook:
                unit.suspect = score_from_verdicts(gradebook, course.assignment, student, plan, unit.record,
                                                   {unit.name: prepared[unit.name]}).get(unit.name, [])
        if not unit.success or not graded_nb.is_file():
            return
        unit.notes = outcome_notes(notebooks.read(graded_nb))
        try:
            handed_in.carry(graded_nb, handed / unit.name, course.release_dir / unit.name,
                            reviews(plan, unit.record, unit.name))
        except Exception as err:  # noqa: BLE001 - the re-run alone is then shown
            unit.notes.append(("graded", f"the handed-in outputs could not be shown beside the "
                                         f"re-run: {type(err).__name__}: {err}"[:300]))
        with nbgrader_errors(this_thread=True) as errors:
            made = generate_feedback(unit.api, course.assignment, student)
        if not made["success"]:  # the grades stand; the instructor must know the page is missing
            unit.notes.append(("graded", f"no feedback page: {failure(made, errors)}"[:500]))

    units = []
    if gradable:
        with hidden_package_first(), warnings.catch_warnings():
            # nbgrader 0.9 trips SQLAlchemy autoflush warnings on every autograde; they mean nothing.
            warnings.filterwarnings("ignore", message=".*not in session.*")
            units = by_notebook.autograde_all(course, student, gradable, target, scratch, template_db, plan,
                                              settings, notebook_jobs, finish)
        by_notebook.combine(units, db, work, student, course.assignment)
    if course.answers_optional:
        make_optional(db, course.assignment)
    outcomes = {unit.name: (unit.success, unit.why) for unit in units}
    record = by_notebook.combined_record(units)
    result = StudentResult(student, [])
    with Gradebook(f"sqlite:///{db}", course_id="maskdiff") as gradebook:
        # the units scored their own copies; this scores any notebook whose rows came from another's
        score_from_verdicts(gradebook, course.assignment, student, plan, record, prepared)
        for name in selected:
            unit = next((unit for unit in units if unit.name == name), None)
            outcome = outcomes.get(name, (False, "no notebook of this assignment could be graded"))
            row = _row(course, gradebook, work, student, name, prepared.get(name), outcome, shadow,
                       result, unit.suspect if unit else [], unit.notes if unit else [])
            result.rows.append(row)
            result.check_seconds[Path(name).stem] = sum(record.verdicts[n].seconds for nb, _, names in plan
                                                        if nb == name for n in names if n in record.verdicts)
    return result


def cell_verdict(names, record):
    """"pass", "review" or "fail": a test cell's verdict from the checker's record of its checks (a
    review where every check passed or was sent to a person, and at least one was)."""
    outcomes = [record.verdicts.get(name) for name in names]
    if all(o is not None and o.passed for o in outcomes):
        return "pass"
    if all(o is not None and (o.passed or o.review) for o in outcomes):
        return "review"
    return "fail"


def reviews(plan, record, notebook):
    """{test cell: the reader's reasons} of the notebook's cells sent to a person."""
    return {cell: "; ".join(record.verdicts[n].message for n in names if not record.verdicts[n].passed)
            for nb, cell, names in plan if nb == notebook and cell_verdict(names, record) == "review"}


def score_from_verdicts(gradebook, assignment, student, plan, record, prepared):
    """Give every hidden test cell the checker's score: its points if all its checks passed there,
    no score and a manual grade to come (nbgrader's needs_manual_grade: formgrader lists it) where
    the checker's reader was unsure, else 0, whatever the cell's outputs say. Returns
    {notebook: [why it is suspect]} for cells that finished without an error although the checker
    passed nothing."""
    suspect = {}
    for notebook, cell, names in plan:
        if notebook not in prepared or prepared[notebook].problem:
            continue
        try:
            grade = gradebook.find_grade(cell, Path(notebook).stem, assignment, student)
        except Exception:  # noqa: BLE001 - not graded (nbgrader failed on this notebook)
            continue
        verdict = cell_verdict(names, record)
        passed = verdict == "pass"
        if verdict == "fail" and grade.auto_score and grade.auto_score >= grade.max_score:
            missing = [name for name in names if name not in record.verdicts]
            suspect.setdefault(notebook, []).append(
                f"{cell} ran without an error but the checker " +
                (f"never received its check {missing[0]!r}" if missing else "did not pass it"))
        grade.auto_score = grade.max_score if passed else None if verdict == "review" else 0.0
        if verdict == "review":
            grade.needs_manual_grade = True
    gradebook.db.commit()
    for incident in record.incidents:
        owners = [incident.notebook] if incident.notebook else \
            [nb for nb, _, names in plan if incident.check in names] or list(prepared)
        for notebook in owners:
            suspect.setdefault(notebook, []).append(f"checker: {incident.text}")
    return suspect


def _row(course, gradebook, work, student, name, info, outcome, shadow, result, suspect, notes):
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
    row.manual_score, row.manual_max, row.manual_pending = got["manual_score"], got["manual_max"], got["manual_pending"]
    if course.answers_optional:
        automatic_only(row)
    row.failed_tests = " ".join(got["failed"])
    row.review = " ".join(got["review"])
    result.tests[notebook] = got["tests"]
    if info.changes:
        row.mark("repaired", f"{len(info.changes)} repair(s), see repairs")
    for status, sentence in notes:
        row.mark(status, sentence)
    if shadow:
        row.mark("flagged", f"submission ships {', '.join(shadow)}, named like a course package; "
                            f"graded against the real one")
    for why in suspect:
        row.mark("flagged", f"integrity: {why}")
    if info.left_out:
        row.mark("graded", f"not given to the kernel: {', '.join(info.left_out[:3])}"
                           f"{', ...' if len(info.left_out) > 3 else ''}")
    if info.hidden_uses:
        row.mark("flagged", f"integrity: student code uses the hidden package "
                            f"({', '.join(info.hidden_uses)}); its {row.auto_score:g} autograded "
                            f"points are withheld")
        row.auto_score = 0.0
        result.withheld.append(notebook)
    return row


# --- the batch --------------------------------------------------------------------------------

def students(submissions):
    return {student_id(p.name): p for p in sorted(Path(submissions).iterdir()) if p.is_dir()}


EXECUTORS = ("local", "dask")


def check_settings(course, jobs=1, executor="local", retries=0, timeout=0.0, scheduler=None, notebook_jobs=None):
    """Every setting grading reads, checked before anyone is graded: a bad one stops the command with
    its name instead of failing every student (a non-integer seed fails every hidden check)."""
    from ..grading.core import grading_seed
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    if notebook_jobs is not None and notebook_jobs < 1:
        raise ValueError(f"--notebook-jobs must be at least 1, got {notebook_jobs}")
    if executor not in EXECUTORS:
        raise ValueError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "dask" and not scheduler:
        raise ValueError("--executor dask needs --scheduler ADDRESS (the Dask scheduler, e.g. tcp://host:8786)")
    if executor == "local" and (scheduler or timeout):
        raise ValueError("--scheduler and --timeout are for --executor dask")
    if retries < 0 or timeout < 0:
        raise ValueError(f"--retries and --timeout cannot be negative, got {retries} and {timeout}")
    grading_seed("settings")  # MASKDIFF_GRADING_SEED
    return configured_limits(course.root)  # [tool.maskdiff.sandbox], MASKDIFF_SANDBOX_LIMITS


def grade(course, submissions, workspace=None, jobs=1, progress=True, sandbox="auto", notebooks=None,
          executor="local", scheduler=None, retries=2, timeout=0.0, only_changed=False, notebook_jobs=None,
          canary=True):
    """Grade every student of submissions into workspace. executor "local": `jobs` processes on this
    machine; "dask": a Dask cluster at `scheduler` (course/cluster.py), each lost student tried
    `retries` more times, each given at most `timeout` seconds (0: no limit). only_changed: students
    whose submission and course inputs are unchanged since the last grading keep their results.
    notebook_jobs: each student's notebooks autograded at once (None: the cores per student; on a
    Dask worker, its cores per thread). The results depend on none of jobs and notebook_jobs.
    canary: grade the reference solution first, and nobody unless it gets full marks (course/canary.py)."""
    workspace = Path(workspace or course.root).resolve()
    if not Path(submissions).is_dir():
        raise FileNotFoundError(f"no submissions folder at {submissions}")
    limits = check_settings(course, jobs, executor, retries, timeout, scheduler, notebook_jobs)
    if notebook_jobs is None and executor == "local":
        notebook_jobs = by_notebook.default_jobs(jobs)
    selected = course.select(notebooks)
    sandbox = resolve_mode(sandbox)
    workspace.mkdir(parents=True, exist_ok=True)
    held = workspace_lock.hold(workspace)  # noqa: F841 - one run per workspace; dropped as grade() ends
    cache = warm_caches() if executor == "local" else ""  # each worker builds its own
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        generate(course, scratch, workspace)  # brings the gradebook up to date with source/
    if course.answers_optional:  # ... which gives the written answers their points again
        make_optional(workspace / "gradebook.db", course.assignment)
    batch = students(submissions)
    state = rerun.State(workspace, rerun.inputs_hash(course, selected, sandbox, limits),
                        course.assignment)
    results = state.reusable(batch) if only_changed else {}
    main_db = workspace / "gradebook.db"
    with tempfile.TemporaryDirectory(prefix="maskdiff-grading-") as scratch:
        template = Path(scratch) / "template.db"
        shutil.copy(main_db, template)
        tasks = {student: (str(course.root), str(template), student, str(folder),
                           str(Path(scratch) / student), sandbox, cache, limits, selected, notebook_jobs)
                 for student, folder in batch.items() if student not in results}
        bar = Progress({student: Path(args[4]) for student, args in tasks.items()}, len(selected),
                       course.assignment, progress)
        merging = 0.0
        if canary and tasks:  # first in line: it runs beside the first students
            proved = notebooks_to_prove(selected, [batch[student] for student in tasks])
            folder = submission(course, Path(scratch) / "canary", proved)
            first = next(iter(tasks.values()))
            tasks = {STUDENT: first[:2] + (STUDENT, str(folder), str(Path(scratch) / STUDENT)) + first[5:8]
                     + (proved,) + first[9:], **tasks}
        if executor == "dask":
            from . import cluster
            stream = cluster.run(tasks, course, template, scheduler, retries, timeout)
        else:
            stream = _run(tasks, jobs)
        stream = gate(stream) if canary and tasks else stream
        try:
            for student, result in stream:
                started = time.perf_counter()
                merge(main_db, Path(tasks[student][4]), workspace, result, course.assignment)
                merging += time.perf_counter() - started
                results[student] = result
                state.record(student, batch[student], result)
                bar.finished(student)
        finally:
            bar.close()
            state.save()
    rows = [row for student in sorted(results) for row in results[student].rows]
    tests = {(student, notebook): scores_ for student in sorted(results)
             for notebook, scores_ in results[student].tests.items()}
    csv_path = workspace / CSV_NAME
    write_csv(rows, csv_path)
    seconds = {(student, notebook): value for student in sorted(results)
               for notebook, value in results[student].check_seconds.items()}
    return Report(rows, csv_path, workspace / "feedback", tests, merging, seconds, course.answers_optional)


class Progress:
    """A progress bar that moves once per notebook, not once per student: it counts the graded
    notebooks nbgrader has written in each student's scratch workspace (every notebook of a student
    whose grading has finished, missing ones included), looking twice a second. Works the same for
    students graded here and in worker processes."""

    def __init__(self, scratch, per_student, assignment, enabled=True):
        self.scratch, self.per_student, self.assignment = scratch, per_student, assignment
        self.done, self.lock, self.stop, self.shown = set(), threading.Lock(), threading.Event(), 0
        self.bar = tqdm(total=len(scratch) * per_student, desc="grading", unit="notebook",
                        disable=not enabled, file=sys.stderr)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        if enabled:
            self.thread.start()

    def count(self):
        total = 0
        for student, folder in self.scratch.items():
            if student in self.done:
                total += self.per_student
            else:
                graded = folder.glob(f"notebooks/*/work/autograded/{student}/{self.assignment}/*.ipynb")
                total += min(self.per_student, len(list(graded)))
        return total

    def refresh(self):
        with self.lock:
            now = self.count()
            if now > self.shown:
                self.bar.update(now - self.shown)
                self.shown = now

    def _watch(self):
        while not self.stop.wait(0.5):
            try:
                self.refresh()
            except OSError:  # a scratch folder removed while we looked
                continue

    def finished(self, student):
        self.done.add(student)
        self.refresh()

    def close(self):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
        self.bar.close()


def warm_caches():
    """Build the networks notebook 03 loads offline (its stand-ins) before any kernel runs: kernels
    get the cache read-only, and each would otherwise build them again. Returns the cache folder."""
    folder = Path(os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    for kind in ("bert", "qwen"):
        try:
            from .. import models
            models.StandIn(kind, folder)
        except ImportError:
            pass  # Qwen3 on a transformers older than 4.51: notebook 03 says so itself
        except Exception as err:  # noqa: BLE001 - notebook 03 then says what is missing in its own cells
            print(f"warning: could not build notebook 03's {kind} stand-in: {err}", file=sys.stderr)
    if not folder.is_dir():
        return ""
    for path in [folder, *folder.rglob("*")]:  # the sandbox's user reads it (safetensors writes 0600)
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return str(folder)


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
        try:
            for future in as_completed(futures):
                student = futures[future]
                try:
                    yield student, future.result()
                except Exception as err:  # noqa: BLE001 - a crashed worker included
                    yield student, crashed(tasks[student], err)
        finally:  # a batch stopped early (a failed canary) grades nobody more
            pool.shutdown(cancel_futures=True)


def crashed(args, err):
    """The rows of a student whose grading itself broke: failed, saying how."""
    course, student, selected = Course.load(args[0]), args[2], args[8]
    return StudentResult(student, [Row(student, Path(name).stem, "failed",
                                       reason=f"grading crashed: {type(err).__name__}: {err}")
                                   for name in selected or course.notebooks()])


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
    for kind, there, pattern in (("submitted", scratch / "handed-in", "*"), ("autograded", work / "autograded", "*"),
                                 ("feedback", work / "feedback", "*.html")):
        shutil.rmtree(workspace / kind / student, ignore_errors=True)
        copy_regular_files(there / student, workspace / kind / student, pattern)
    if result.withheld:
        withhold(main_db, assignment, student, result.withheld)


def copy_regular_files(source, target, pattern="*"):
    """Copy the regular files under source that match pattern; links and anything else are left."""
    if not source.is_dir() or source.is_symlink():
        return
    for path in sorted(source.rglob(pattern)):
        if path.is_file() and not path.is_symlink() and not any(p.is_symlink() for p in path.parents):
            (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / path.relative_to(source), follow_symlinks=False)


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


def manual_cell(row, optional=False):
    """The manual column in words that cannot be misread: awarded/out of, and what is still to grade."""
    if optional:
        return "optional"
    if not row.manual_max:
        return "-"
    if row.manual_pending >= row.manual_max:
        return f"{row.manual_max:g} to grade"
    if row.manual_pending:
        return f"{row.manual_score:g}/{row.manual_max - row.manual_pending:g} +{row.manual_pending:g} to grade"
    return f"{row.manual_score:g}/{row.manual_max:g}"


def to_review(row):
    """'N drawings to review: test cells', or '' (course/grade `Row.review`)."""
    cells = row.review.split()
    return f"{len(cells)} drawing{'s' * (len(cells) != 1)} to review: {', '.join(cells)}" if cells else ""


def table(rows, optional=False):
    """The grading table as text, its columns as wide as their longest entry (optional: the course's
    written answers are optional, so the manual column says so)."""
    header = ("student", "notebook", "status", "auto", "manual", "notes")
    lines = [(row.student, row.notebook, row.status, f"{row.auto_score:g}/{row.auto_max:g}",
              manual_cell(row, optional),
              "; ".join(filter(None, [row.reason or (f"failed: {row.failed_tests}" if row.failed_tests else ""),
                                      to_review(row)]))) for row in rows]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(5)]
    align = ("<", "<", "<", ">", ">")
    out = ["  ".join(f"{value:{a}{w}}" for value, a, w in zip(line[:5], align, widths)) + "  " + line[5]
           for line in [header, *lines]]
    out = [line.rstrip() for line in out]
    if optional:
        out.append(f"auto: autograded points / out of, the whole grade. manual: {OPTIONAL_NOTE}.")
    else:
        out.append("auto: autograded points / out of. manual: points a person awarded / out of "
                   "(a blank answer gets 0 from nbgrader); 'N to grade': N points still to be graded by a "
                   "person in formgrader (then `python -m maskdiff_solutions export`).")
    if any(row.review for row in rows):
        out.append("'N drawings to review': the autograder's reader could not decide on these drawings; "
                   "their points count once a person gives them in formgrader (then `export`).")
    repaired = [row for row in rows if row.repairs]
    if repaired:
        out.append("\nrepairs (the students' own files are unchanged):")
        out += [f"  {row.student} / {row.notebook}: {row.repairs}" for row in repaired]
    return "\n".join(out)


def print_table(rows, optional=False):
    print(table(rows, optional))
