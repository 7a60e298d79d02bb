"""`export`: after manual grading, bring grades-by-notebook.csv and the feedback pages up to date
with the gradebook.

`grade` writes one row per (student, notebook) with what happened while grading (status, reason,
repairs), which the gradebook does not hold. A person then awards the manual points in formgrader;
`export` reads the gradebook again and rewrites each row's scores (a person's override of an
autograded test, such as lifting withheld marks, counts), keeping everything else, and makes every
autograded student's feedback again (with the points and comments now awarded). nbgrader's own
`nbgrader export` writes grades.csv (one row per student and assignment) and never touches ours.
"""
from pathlib import Path

from ..intake.platforms import Intake
from . import totals, safekeeping
from .answers import make_optional
from .feedback import generate_feedback
from .gradebook import AUTOGRADED, out_of_full_points, rescore
from .nbgrader_apps import failure, nbgrader_errors, tools_on_path
from .rows import CSV_NAME, read_csv, write_csv


def export(course, workspace=None):
    """Rewrite the workspace's grades-by-notebook.csv from its gradebook and make the feedback again;
    returns (rows, path, {student: why their feedback could not be made})."""
    workspace = Path(workspace or course.root).resolve()
    path, db = workspace / CSV_NAME, workspace / "gradebook.db"
    for needed in (path, db):
        if not needed.is_file():
            raise FileNotFoundError(f"no {needed.name} in {workspace}: grade first "
                                    f"(python -m maskdiff_solutions grade DIR --workspace {workspace})")
    held = safekeeping.hold(workspace)  # noqa: F841 - not while a grading run writes there
    rows = read_csv(path)
    if course.answers_optional:  # also when the course made its answers optional after grading
        make_optional(db, course.assignment)
    rescore(db, course.assignment, rows, course.answers_optional)   # failed_tests stays: what the checker said
    out_of_full_points(db, course.assignment, rows, course.answers_optional)  # also a CSV of before
    write_csv(rows, path)
    failed = feedback(course, workspace, sorted({row.student for row in rows if row.status in AUTOGRADED}))
    intake = Intake.load(workspace)
    totals.not_graded_pages(rows, workspace / "feedback", course.assignment,
                            {Path(name).stem: name for name in course.notebooks()})
    totals.write_csv(rows, workspace / totals.STUDENT_CSV, intake)
    return rows, path, failed


def feedback(course, workspace, students):
    """Make the feedback pages of these students again; returns {student: why it failed}."""
    from nbgrader.apps import NbGraderAPI
    tools_on_path()
    api = NbGraderAPI(config=course.nbgrader_config(workspace))
    failed = {}
    for student in students:
        with nbgrader_errors() as errors:
            result = generate_feedback(api, course.assignment, student)
        if not result["success"]:
            failed[student] = failure(result, errors)
    return failed
