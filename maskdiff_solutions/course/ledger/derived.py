"""The files a workspace holds that are made from its record (course/ledger/record.py), all at once:
grades-by-notebook.csv, grades-by-student.csv and a page for each notebook not graded. `grade`,
`export` and a grading stopped by Ctrl-C end here; none of them is ever read back as the truth."""
from pathlib import Path

from ..records import totals
from ..records.rows import CSV_NAME, write_csv


def write(course, workspace, rows, intake=None):
    """Write every derived file of the workspace from rows (record.derived_rows)."""
    workspace = Path(workspace)
    write_csv(rows, workspace / CSV_NAME)
    totals.not_graded_pages(rows, workspace / "feedback", course.assignment,
                            {Path(name).stem: name for name in course.notebooks()})
    totals.write_csv(rows, workspace / totals.STUDENT_CSV, intake)
    return rows
