"""`release`: release/ is exactly what nbgrader makes of the source notebooks (up to date, every solution
removed, stubs that fail every test, its Colab badges), imports only what Colab has, and a failing
nbgrader says why in its own words. (That it runs solved without the hidden package: the graded batch's
sandboxed reference, tests/course/run/test_grade.py.)"""
import json
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records import nbgrader_apps
from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.course.layout import Course
from tests.support import as_student, sweeps

pytestmark = pytest.mark.course
NOTEBOOKS = sorted(p.name for p in (Path(__file__).resolve().parents[3] / "source" / "maskdiff")
                   .glob("*.ipynb"))


def release_day(name):
    """The day of the week the release's stubs of `name` run as a student's (test_notebooks.py runs its source on
    day NOTEBOOKS.index(name))."""
    return NOTEBOOKS.index(name) + 3


def source(course, name):
    return nbtools.read(course.source_dir / name)


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_release_stubs_fail_every_test(course, name, tmp_path):
    """The release run as a student runs it (tests/support/as_student.py): every visible check fails
    on the stubs, and the last cell's hand-in check lists everything still to do, row by row.

    A sweep (tests/support/sweeps.py): notebook 01 every run of CI, each other on a day of its own (about
    12 s each in CI), three days after test_notebooks.py runs its source, so that one day does not take both.
    Marks never hang on it: in every run the graded batch's untouched student hands in every notebook's release
    and gets nothing (tests/support/cases.py, tests/course/run/test_grade.py); this is the student's view."""
    sweeps.take_turn(name, name == NOTEBOOKS[0], day=release_day(name))
    ran = as_student.run(nbtools.read(course.release_dir / name), tmp_path / "release", name, allow_errors=True)
    # A plot's test cell has no visible assert (the figure is gone by then on Colab): its hidden check
    # fails on the stub instead (tests/grading/test_checks_plots.py).
    passing = [nbtools.grade_id(c) for c in ran.cells if nbtools.is_test(c) and "assert" in c.source
               and not any(o.get("output_type") == "error" for o in c.outputs)]
    assert not passing, f"tests passing on the stubs: {passing}"
    report = as_student.hand_in_report(ran)
    drawings = {nbtools.grade_id(c) for c in ran.cells if nbtools.is_drawing(c)}
    asked = [nbtools.grade_id(c) for c in ran.cells if nbtools.is_solution(c)
             or (nbtools.is_test(c) and nbtools.grade_id(c)[len("test_"):] not in drawings)]
    answers = {nbtools.grade_id(c) for c in ran.cells if nbtools.is_solution(c) and c.cell_type == "markdown"}
    left = as_student.to_do(report)
    assert list(left) == asked and not as_student.done(report), report
    for gid, state in left.items():
        expected = "fails: " if gid.startswith("test_") else "no answer yet" if gid in answers else "still the stub"
        assert expected in state, (gid, state)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_release_is_up_to_date(course, fresh_release, name):
    committed = (course.release_dir / name).read_bytes()
    assert committed == (fresh_release / name).read_bytes(), \
        "release/ is stale: run `python -m maskdiff_solutions release` and commit it"


def test_release_has_no_extra_notebooks(course, fresh_release):
    assert sorted(p.name for p in course.release_dir.glob("*.ipynb")) == \
        sorted(p.name for p in fresh_release.glob("*.ipynb"))


def solution_only_lines(nb):
    """Lines found in solutions or hidden tests and nowhere else in the source notebook."""
    return nbtools.secret_lines(nb)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_release_leaks_no_solution(course, name):
    secret = solution_only_lines(source(course, name))
    assert len(secret) > 10  # the scan itself must see the solutions
    released = {line.strip() for cell in nbtools.read(course.release_dir / name).cells
                for line in cell.source.splitlines()}
    leaked = secret & released
    assert not leaked, f"solution or hidden-test lines in release/{name}: {sorted(leaked)[:5]}"
    assert "maskdiff_solutions" not in (course.release_dir / name).read_text()


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_release_has_its_colab_badge(course, name):
    first = nbtools.read(course.release_dir / name).cells[0].source
    assert f"]({course.colab_url(name)})" in first and course.public_repository in first


def test_badge_insertion_is_idempotent(course):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# x\n{nbtools.BADGE_MARKER}\n")])
    once = nbtools.insert_badge(nb, "https://example.org/a.ipynb").cells[0].source
    twice = nbtools.insert_badge(nb, "https://example.org/a.ipynb").cells[0].source
    assert once == twice and once.count("Open In Colab") == 1


# What a Colab runtime has (and a laptop after `pip install -r requirements.txt`): the standard library
# and these packages. The notebooks may import nothing else, and never the hidden package.
COLAB_PACKAGES = {"torch", "transformers", "tokenizers", "numpy", "matplotlib", "requests", "tqdm"}


COLAB_MODULES = COLAB_PACKAGES | set(sys.stdlib_module_names)


def imported_modules(source):
    import ast
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.slow
def test_release_imports_only_what_colab_has(course):
    for name in course.notebooks():
        nb = notebooks.read(course.release_dir / name)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code" and not c.source.startswith("!"))
        # drawing_reader: the course's own, which the set-up cell fetches from the students' public
        # repository (publish writes it), importing it inside a try that goes on without it
        extra = imported_modules(code) - COLAB_MODULES - {"drawing_reader"}
        assert not extra, f"{name} imports {extra}, which a Colab runtime lacks"
        if "import drawing_reader" in code:
            assert "except Exception" in code and "drawing_reader = None" in code, f"{name}: unguarded reader"


# --- nbgrader's own errors when generating fails ----------------------------------------------------

def test_nbgraders_real_error_lines_are_shown():
    messages = ["There was an error processing assignment: /x/source/./maskdiff",
                "Traceback (most recent call last):\n  File \"api.py\", line 37\n"
                "FileNotFoundError: [Errno 2] No such file or directory: 'alembic'\n",
                "There was an error processing assignment 'maskdiff' for student '.'",
                "Please see the the above traceback for details on the specific errors on the above failures."]
    result = {"success": False, "error": "Traceback ...\nNbGraderException: Please see the above traceback"}
    text = nbgrader_apps.failure(result, messages)
    assert text.startswith("FileNotFoundError: [Errno 2] No such file or directory: 'alembic'")
    assert "install nbgrader into this Python's environment" in text and "Please see" not in text
    assert nbgrader_apps.failure(result, []) == "NbGraderException: Please see the above traceback"


def test_a_failing_nbgrader_says_why(course, tmp_path):
    """A real nbgrader failure (two cells with one grade_id) comes back with nbgrader's own words."""
    broken = tmp_path / "course"
    shutil.copytree(course.root / "source", broken / "source")
    shutil.copy(course.root / "nbgrader_config.py", broken)
    path = broken / "source" / "maskdiff" / course.notebooks()[0]
    nb = notebooks.read(path)
    copy = next(c for c in nb.cells if notebooks.is_test(c)).copy()
    copy.id = "a-copy"
    nb.cells.append(copy)
    notebooks.write(nb, path)
    with pytest.raises(nbgrader_apps.CourseError) as caught:
        nbgrader_apps.generate(Course.load(broken), tmp_path / "out", tmp_path / "ws")
    message = str(caught.value)
    assert message.startswith("nbgrader generate_assignment failed: jsonschema.exceptions.ValidationError: "
                              "Duplicate grade id: test_MakeSchedule"), message
    assert "Please see" not in message and "Unwritable" not in message
