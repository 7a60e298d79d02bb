"""The files a workspace holds that are made from its record (course/ledger/record.py), all at once:
grades-by-notebook.csv, grades-by-student.csv and a page for each notebook not graded. `grade`,
`export`, `undo` and a grading stopped by Ctrl-C end here; none of them is ever read back as the truth."""
from pathlib import Path

from ..intake.platforms import Intake
from ..records import totals
from ..records.rows import CSV_NAME, write_csv
from . import manifest
from .record import DB_NAME, derived_rows, results


def write(course, workspace, rows, intake=None):
    """Write every derived file of the workspace from rows (record.derived_rows)."""
    workspace = Path(workspace)
    manifest.put(workspace, workspace / CSV_NAME, lambda path: write_csv(rows, path))
    totals.not_graded_pages(rows, workspace / "feedback", course.assignment,
                            {Path(name).stem: name for name in course.notebooks()})
    manifest.put(workspace, workspace / totals.STUDENT_CSV, lambda path: totals.write_csv(rows, path, intake))
    return rows


def rebuild(course, workspace):
    """Every derived file of the workspace made again from its record (nothing where it holds none)."""
    if results(Path(workspace) / DB_NAME):
        write(course, workspace, derived_rows(course, workspace), Intake.load(workspace))
