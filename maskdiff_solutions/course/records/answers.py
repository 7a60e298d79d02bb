"""`[tool.maskdiff] written_answers = "optional"`: for a course with nobody to grade by hand.

The manually graded cells (written answers, and any plot or printout still graded by a person) stay
in the notebooks, but count for nothing: in the gradebook each is worth 0 points and none of its
grades waits for a person, so formgrader, `nbgrader export` and our own table, csv and feedback all
give the autograded points as the whole grade. `grade` applies this after nbgrader has filled the
gradebook from source/ (which puts the notebooks' points back) and again to each student's gradebook
after autograde; `export` applies it before reading the gradebook, so a course may switch to
"optional" after grading. Switching back to "graded" needs `grade` again.
"""
from nbgrader.api import MissingEntry

from .gradebook import open_gradebook

OPTIONAL_NOTE = ("written answers are optional in this course ([tool.maskdiff] written_answers = "
                 "\"optional\"): nobody grades them and they count for nothing; the grade is the "
                 "autograded points")


def make_optional(db_path, assignment):
    """Every manually graded cell of the assignment worth 0 points in the gradebook at db_path, and
    none of their grades waiting for a person. Returns how many cells it set to 0 points."""
    changed = 0
    with open_gradebook(db_path) as gradebook:
        try:
            notebooks = gradebook.find_assignment(assignment).notebooks
        except MissingEntry:
            return 0
        for notebook in notebooks:
            answers = {cell.name for cell in notebook.solution_cells}
            for cell in notebook.grade_cells:
                if cell.name in answers and cell.max_score:
                    cell.max_score, changed = 0.0, changed + 1
            for submission in notebook.submissions:
                for grade in submission.grades:
                    if grade.name in answers:
                        grade.needs_manual_grade = False
        gradebook.db.commit()
    return changed
