"""`export`: after manual grading, every file made from the record made again: grades-by-notebook.csv,
grades-by-student.csv, the not-graded pages and every autograded student's feedback page (with the
points and comments a person has awarded since). The record (course/ledger/record.py: the gradebook
and, beside it, each row's status and reason) is the only thing read: a derived file deleted or edited
by hand is simply made again. nbgrader's own `nbgrader export` writes grades.csv (one row per student
and assignment) and never touches ours.
"""
import sys
from pathlib import Path

from ..intake.platforms import Intake
from . import commit, decisions, derived, record, safekeeping, versions
from ..records.answers import make_optional
from ..records.feedback import generate_feedback
from ..records.gradebook import AUTOGRADED
from ..records.nbgrader_apps import failure, nbgrader_errors, tools_on_path
from ..records.rows import CSV_NAME


def export(course, workspace=None):
    """Make the workspace's derived files and feedback again from its record; returns (rows, path,
    {student: why their feedback could not be made})."""
    workspace = Path(workspace or course.root).resolve()
    held = safekeeping.hold(workspace)  # noqa: F841 - not while a grading run writes there
    record.check(course, workspace)
    commit.recover(workspace, remaker(course, workspace))
    record.take_in_decisions(course, workspace)   # formgrader's, since the last command
    db = workspace / record.DB_NAME
    if not record.results(db):
        raise FileNotFoundError(f"no grading in {workspace}: grade first "
                                f"(python -m maskdiff_solutions grade DIR --workspace {workspace})")
    if course.answers_optional:  # also when the course made its answers optional after grading
        make_optional(db, course.assignment)
    rows = record.derived_rows(course, workspace)
    failed = feedback(course, workspace, sorted({row.student for row in rows if row.status in AUTOGRADED}))
    derived.write(course, workspace, rows, Intake.load(workspace))
    return rows, workspace / CSV_NAME, failed


def remaker(course, workspace):
    """remake(student), as commit.commit and commit.recover take it: the student's feedback made again
    from the record (a hand grade a regrade kept), a page that could not be made said on stderr."""
    def remake(student):
        for who, why in feedback(course, workspace, [student]).items():
            print(f"warning: the feedback of {who} could not be made again: {why}", file=sys.stderr)
    return remake


def feedback(course, workspace, students):
    """Make the feedback pages of these students again, each from the record as it was graded (a notebook
    graded under other points than the gradebook's cells hold now reads them as they were:
    course/ledger/versions.py); returns {student: why it failed}."""
    failed, apis = {}, {}
    aside = record.set_aside(Path(workspace) / record.DB_NAME)
    with versions.as_graded(workspace, course.assignment, set(students)) as copies:
        for student in students:
            why = make_page(course, workspace, student, copies.get(student), apis)
            if why:
                failed[student] = why
                continue
            for (who, notebook), dropped in aside.items():   # a person's decisions set aside, named on the page
                if who == student:
                    decisions.mark_page(Path(workspace) / "feedback" / student / course.assignment / f"{notebook}.html",
                                        dropped)
    return failed


def make_page(course, workspace, student, db=None, apis=None):
    """nbgrader's feedback pages of one student, from db (default: the record); '' or why they failed."""
    from nbgrader.apps import NbGraderAPI
    apis = {} if apis is None else apis
    if db not in apis:
        tools_on_path()
        overrides = {"CourseDirectory__db_url": f"sqlite:///{db}"} if db else {}
        apis[db] = NbGraderAPI(config=course.nbgrader_config(workspace, **overrides))
    with nbgrader_errors() as errors:
        result = generate_feedback(apis[db], course.assignment, student)
    return "" if result["success"] else failure(result, errors)
