"""`grade DIR`: autograde every student's notebooks, write feedback and one CSV row per notebook.

A broken submission never stops the batch and never disappears: every (student, notebook) pair gets a
row whose status says what happened (graded, flagged, missing, failed) and why.
"""
import csv
import os
import re
import shutil
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI

from . import notebooks
from .layout import PACKAGE_PARENT
from .release import generate

HIDDEN_PACKAGE = "maskdiff_solutions"


@dataclass
class Row:
    student: str
    notebook: str
    status: str            # graded | flagged | missing | failed
    auto_score: float = 0.0
    auto_max: float = 0.0
    manual_max: float = 0.0
    manual_pending: bool = False
    failed_tests: str = ""
    reason: str = ""


@dataclass
class Report:
    rows: list
    csv_path: Path
    feedback_dir: Path


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


def collect(course, submissions, workspace):
    """Copy DIR/<student>/ into workspace/submitted/<student>/<assignment>/; note what is odd."""
    expected = course.notebooks()
    found = {}
    for folder in sorted(p for p in Path(submissions).iterdir() if p.is_dir()):
        student = student_id(folder.name)
        target = workspace / "submitted" / student / course.assignment
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(folder, target)
        found[student] = {
            "present": [name for name in expected if (target / name).is_file()],
            "shadow": shadowing_files(target),
        }
    return found


def scores(gradebook, assignment, notebook, student):
    """Autograded points, the manual points still to award, and the failing tests of one notebook."""
    submitted = gradebook.find_submission_notebook(notebook, assignment, student)
    answers = {cell.name for cell in gradebook.find_notebook(notebook, assignment).solution_cells}
    row = {"auto_score": 0.0, "auto_max": 0.0, "manual_max": 0.0, "manual_pending": False,
           "failed": []}
    for grade in submitted.grades:
        if grade.name in answers:  # graded by a person, not by a test
            row["manual_max"] += grade.max_score
            row["manual_pending"] |= bool(grade.needs_manual_grade)
        else:
            row["auto_max"] += grade.max_score
            row["auto_score"] += grade.auto_score or 0.0
            if (grade.auto_score or 0.0) < grade.max_score:
                row["failed"].append(grade.name)
    return row


def grade(course, submissions, workspace=None):
    workspace = Path(workspace or course.root).resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    if not Path(submissions).is_dir():
        raise FileNotFoundError(f"no submissions folder at {submissions}")
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        generate(course, scratch, workspace)  # brings the gradebook up to date with source/
    found = collect(course, submissions, workspace)
    api = NbGraderAPI(config=course.nbgrader_config(workspace))
    outcomes = {}
    with hidden_package_first(), warnings.catch_warnings():
        # nbgrader 0.9 trips SQLAlchemy autoflush warnings on every autograde; they mean nothing.
        warnings.filterwarnings("ignore", message=".*not in session.*")
        for student, info in found.items():
            if not info["present"]:
                outcomes[student] = (False, "no notebook of this assignment was found")
                continue
            result = api.autograde(course.assignment, student, force=True, create=True)
            outcomes[student] = (result["success"], _last_line(result))
            if result["success"]:
                api.generate_feedback(course.assignment, student, force=True)
    rows = export(course, workspace, found, outcomes)
    csv_path = workspace / "grades.csv"
    write_csv(rows, csv_path)
    return Report(rows, csv_path, workspace / "feedback")


def _last_line(result):
    text = (result.get("error") or result.get("log") or "").strip().splitlines()
    return text[-1] if text else ""


def export(course, workspace, found, outcomes):
    rows = []
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        for student, info in found.items():
            graded, why = outcomes[student]
            for name in course.notebooks():
                notebook = Path(name).stem
                if name not in info["present"]:
                    rows.append(Row(student, notebook, "missing",
                                    reason=f"{name} was not in the submission"))
                    continue
                if not graded:
                    rows.append(Row(student, notebook, "failed", reason=f"autograde failed: {why}"))
                    continue
                got = scores(gradebook, course.assignment, notebook, student)
                row = Row(student, notebook, "graded", got["auto_score"], got["auto_max"],
                          got["manual_max"], got["manual_pending"], " ".join(got["failed"]))
                if info["shadow"]:
                    row.status = "flagged"
                    row.reason = (f"submission ships {', '.join(info['shadow'])}, named like the hidden "
                                  f"package; graded against the real one")
                rows.append(row)
    return rows


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
