"""Points as the source notebooks' nbgrader metadata gives them (what a full score is)."""
from maskdiff_solutions.course.intake import notebooks


def points_of(course, name):
    """Autograded points of one source notebook: the points of its test cells."""
    nb = notebooks.read(course.source_dir / f"{name}.ipynb")
    return sum(notebooks.nbgrader(c)["points"] for c in nb.cells if notebooks.is_test(c))


def assignment_points(course):
    return sum(points_of(course, name[:-len(".ipynb")]) for name in course.notebooks())
