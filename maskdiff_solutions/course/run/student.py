"""One student's grading, from their folder to their rows: take the submission in (course/intake/folder.py),
autograde each notebook on its own (course/run/by_notebook.py), `finish` each notebook in its own thread
(scores from the checker's verdicts, the handed-in outputs beside the re-run, feedback), then one row
per notebook saying what happened.

Each notebook's hidden test cells are scored from the trusted checker's verdicts alone (the checker
runs in this process; grading/checker.py), whatever the notebook's outputs claim. Where the sandbox
is on (course/sandbox/settings.py; `--sandbox off` turns it off), each kernel also runs in a sandbox of its
own that sees the student's files and nothing of the course.
"""
import functools
import os
import shutil
import warnings
from collections import Counter
from pathlib import Path

from ... import colab
from ..intake import notebooks
from ..intake.folder import prepare
from ..layout import PACKAGE_PARENT, STAND_INS, Course
from ..records import handed_in
from ..records.answers import make_optional
from ..records.feedback import generate_feedback
from ..records.gradebook import all_scores, open_gradebook, reviews, score_from_verdicts, score_row
from ..records.nbgrader_apps import failure, nbgrader_errors
from ..records.rows import Row, StudentResult
from ..sandbox.environ import environment
from ..sandbox.kernel import GRADING_ENV
from ..sandbox.settings import Settings
from . import by_notebook
from .preprocessors import IGNORED_INTERRUPT, KERNEL_DIED, MACHINE_BUSY, NOT_RUN, TIMED_OUT, TRUNCATED


def hidden_package_first():
    """Kernels inherit PYTHONPATH, which Python puts before the notebook's own folder: a student file
    named like the hidden package can then not shadow it."""
    old = os.environ.get("PYTHONPATH")
    return environment({"PYTHONPATH": os.pathsep.join(filter(None, [str(PACKAGE_PARENT),
                                                                     str(PACKAGE_PARENT.joinpath(*STAND_INS)), old])),
                        **GRADING_ENV})   # without the sandbox too: a cell never installs into the grader's Python


def grade_student(task):
    """Prepare, autograde and give feedback on one student (a rows.Task) inside task.scratch (a folder
    of its own); the gradebook copy lives in scratch/db, outside the folders the student's code runs
    in. Kernels run sandboxed when `task.sandbox` is "required"; hidden checks always run in trusted
    checkers here. Each notebook is autograded on its own, `task.notebook_jobs` at once
    (course/run/by_notebook.py; the results do not depend on it)."""
    course, student = Course.load(task.course_root), task.student
    scratch = Path(task.scratch)
    work, db = scratch / "work", scratch / "db" / "gradebook.db"
    db.parent.mkdir(parents=True)
    shutil.copy(task.template_db, db)
    target = work / "submitted" / student / course.assignment
    selected = task.selected or course.notebooks()
    taken = prepare(course, task.folder, target, selected)   # intake, and repair below it, once
    prepared, shadow = taken.notebooks, taken.shadowing
    handed = scratch / "handed-in" / student / course.assignment
    shutil.copytree(target, handed)  # out of the cells' reach
    plan = notebooks.check_plan(course.source_dir)
    gradable = [name for name in selected if name in prepared and not prepared[name].problem]
    settings = Settings(mode=task.sandbox, handin=str(target), cache=task.cache, limits=task.limits or {}).to_dict()
    units = []
    if gradable:
        with hidden_package_first(), warnings.catch_warnings():
            # nbgrader 0.9 trips SQLAlchemy autoflush warnings on every autograde; they mean nothing.
            warnings.filterwarnings("ignore", message=".*not in session.*")
            units = by_notebook.autograde_all(
                course, student, gradable, target, scratch, task.template_db, plan, settings, task.notebook_jobs,
                functools.partial(finish, course=course, student=student, plan=plan, prepared=prepared,
                                  handed=handed))
        by_notebook.combine(units, db, work, student, course.assignment)
    if course.answers_optional:
        make_optional(db, course.assignment)
    record = by_notebook.combined_record(units)
    result = StudentResult(student, [])
    held = all_scores(db, course.assignment)   # every notebook's rows were scored by its unit (`finish`)
    for name in selected:
        unit = next((unit for unit in units if unit.name == name), None)
        row = notebook_row(course, held, work, student, name, prepared.get(name), unit, shadow, result)
        result.rows.append(row)
        result.check_seconds[Path(name).stem] = sum(record.verdicts[n].seconds for nb, _, names in plan
                                                    if nb == name for n in names if n in record.verdicts)
    return result


def finish(unit, course, student, plan, prepared, handed):
    """In the unit's thread, on its own gradebook copy and folder: every hidden test cell's score from
    the checker, what the re-run shows went wrong (read before the handed-in outputs join it), the
    manual cells' outputs as handed in (for formgrader and feedback), the feedback."""
    graded_nb = unit.work / "autograded" / student / course.assignment / unit.name
    if course.answers_optional and unit.db.is_file():  # nbgrader has just marked the changed answers
        make_optional(unit.db, course.assignment)      # for a person: before the feedback is made
    if unit.db.is_file():
        with open_gradebook(unit.db) as gradebook:
            unit.suspect = score_from_verdicts(gradebook, course.assignment, student, plan, unit.record,
                                               {unit.name: prepared[unit.name]}).get(unit.name, [])
    if not unit.success or not graded_nb.is_file():
        return
    graded = notebooks.read(graded_nb)
    unit.notes, (unit.timed, unit.busy) = outcome_notes(graded), time_stops(graded)
    to_review = reviews(plan, unit.record, unit.name)
    for cell, why in sorted(to_review.items()):   # the grader's own gap: the instructor must hear of it
        for module in colab.lacked([why]):
            unit.notes.append(("graded", f"{cell}: {colab.sentence(module)}"))
    try:
        handed_in.carry(graded_nb, handed / unit.name, course.release_dir / unit.name, to_review)
    except Exception as err:  # noqa: BLE001 - the re-run alone is then shown
        unit.notes.append(("graded", f"the handed-in outputs could not be shown beside the "
                                     f"re-run: {type(err).__name__}: {err}"[:300]))
    with nbgrader_errors(this_thread=True) as errors:
        made = generate_feedback(unit.api, course.assignment, student)
    if not made["success"]:  # the grades stand; the instructor must know the page is missing
        unit.notes.append(("graded", f"no feedback page: {failure(made, errors)}"[:500]))


def outcome_notes(nb):
    """(status, sentence) for what the autograded notebook shows went wrong while it ran."""
    notes = []
    for index, cell in enumerate(nb.cells):
        label = notebooks.grade_id(cell) or f"cell {index + 1}"
        for output in cell.get("outputs", []):
            ename = output.get("ename")
            if ename == KERNEL_DIED:
                notes.append(("flagged", f"the kernel died in {label} (os._exit, a crash or memory); "
                                         f"the cells after it were not run"))
            elif ename == NOT_RUN and "used up" in output.get("evalue", ""):
                notes.append(("flagged", f"the notebook ran out of time before {label}; "
                                         f"the cells from there on were not run"))
                return notes  # every later cell says the same
            elif ename == NOT_RUN and "too busy" in output.get("evalue", ""):
                notes.append(("flagged", f"{BUSY}: the notebook was stopped before {label}; {AGAIN}"))
                return notes
            elif ename == TIMED_OUT:
                notes.append(("flagged", f"{label} ran past the cell time limit and was interrupted"))
            elif ename == MACHINE_BUSY:
                notes.append(("flagged", f"{BUSY}: {label} was stopped; {AGAIN}"))
            elif ename == IGNORED_INTERRUPT:
                notes.append(("flagged", f"{label} ran past the cell time limit and ignored the interrupt; "
                                         f"the kernel was stopped and the cells after it were not run"))
                return notes
            elif TRUNCATED in str(output.get("text", "")) + str(output.get("data", "")):
                notes.append(("graded", f"the huge output of {label} was cut"))
    return notes


BUSY = "the grading machine was too busy (not the student's doing)"
AGAIN = "grade again when it is quieter (grade --only-changed grades such students again)"


def stop_kind(output):
    """"load" for an output saying the machine's load stopped a cell or the notebook (course/run/
    preprocessors.py), "time" for any other time limit's stop, else None."""
    ename, evalue = output.get("ename"), str(output.get("evalue", ""))
    if ename == MACHINE_BUSY or (ename == NOT_RUN and "too busy" in evalue):
        return "load"
    if ename in (TIMED_OUT, IGNORED_INTERRUPT) or (ename == NOT_RUN and "used up" in evalue):
        return "time"
    return None


def time_stops(nb):
    """(the test cells at or after the first cell a time limit stopped, whether the machine's load
    stopped any): what time may have cost, which alone never fails the canary (course/run/canary.py)."""
    stops = [(index, stop_kind(output)) for index, cell in enumerate(nb.cells)
             for output in cell.get("outputs", []) if stop_kind(output)]
    if not stops:
        return [], False
    tests = [notebooks.grade_id(cell) for cell in nb.cells[stops[0][0]:] if notebooks.is_test(cell)]
    return tests, any(kind == "load" for _, kind in stops)


def notebook_row(course, held, work, student, name, info, unit, shadow, result):
    """The row of one expected notebook (info: what intake made of it, None when not handed in; unit:
    its autograde, None when it had none; held: the gradebook's scores, records/gradebook.all_scores) and,
    where autograded, its tests' scores in result."""
    notebook = Path(name).stem
    if info is None:
        return Row(student, notebook, "missing", reason=f"{name} was not in the submission")
    row = Row(student, notebook, "graded", repairs="; ".join(info.changes))
    if info.chosen_over:   # several files for one notebook: the newest graded, the others named
        row.mark("graded", info.chosen_over)
    if info.problem:
        row.mark("failed", info.problem)
        return row
    graded_nb = work / "autograded" / student / course.assignment / name
    if unit is None or not unit.success or not graded_nb.is_file():
        why = unit.why if unit else "no notebook of this assignment could be graded"
        row.mark("failed", f"autograde failed: {why}")
        return row
    got = held[(student, notebook)]   # records/gradebook.all_scores
    score_row(row, got, course.answers_optional)
    row.failed_tests = " ".join(got["failed"])
    result.tests[notebook] = got["tests"]
    if info.changes:
        row.mark("repaired", f"{len(info.changes)} repair(s), see repairs")
    for status, sentence in unit.notes:
        row.mark(status, sentence)
    if unit.timed:
        result.timed[notebook] = list(unit.timed)
    if unit.busy:
        result.busy.append(notebook)
    if shadow:
        row.mark("flagged", f"submission ships {', '.join(shadow)}, named like a course package; "
                            f"graded against the real one")
    for why, times in Counter(unit.suspect).items():   # one line for the same finding in several checks
        row.mark("flagged", f"integrity: {why}" + (f" ({times} checks)" if times > 1 else ""))
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


def crashed(task, err):
    """The rows of a student whose grading itself broke: failed, saying how."""
    course = Course.load(task.course_root)
    return StudentResult(task.student, [Row(task.student, Path(name).stem, "failed",
                                            reason=f"grading crashed: {type(err).__name__}: {err}")
                                        for name in task.selected or course.notebooks()])
