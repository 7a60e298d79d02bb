"""Source notebooks: their structure and conventions, that they pass their own tests, and that the
clock they state is the grader's (release/ made from them: tests/course/term/test_release.py)."""
import copy
import json
from pathlib import Path

import nbformat
import pytest

import maskdiff_solutions
from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks as nbtools
from tests.support import as_student, sweeps

NOTEBOOKS = sorted(p.name for p in (Path(__file__).resolve().parents[3] / "source" / "maskdiff")
                   .glob("*.ipynb"))


def source(course, name):
    return nbtools.read(course.source_dir / name)


def test_there_are_notebooks():
    assert {"01_noise_for_words.ipynb", "03_real_language_model.ipynb"} <= set(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_given_cells_match_their_module(course, name):
    """A given cell copied from the hidden package (students cannot import it) is the very code
    tested there: see the `notebook cell` markers in maskdiff_solutions/*.py."""
    blocks = nbtools.module_blocks(Path(maskdiff_solutions.__file__).parent)
    for cell in source(course, name).cells:
        if nbtools.grade_id(cell) in blocks:
            assert cell.source == blocks[nbtools.grade_id(cell)], \
                f"cell {nbtools.grade_id(cell)!r} differs from its module: paste the module's block"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_source_is_stored_without_outputs(course, name):
    for cell in source(course, name).cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, cell.source[:60]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_cell_conventions(course, name):
    """grade_id = the function a solution cell defines (carry-over cells excepted); each test cell
    runs registered hidden checks and is named after them; every graded cell carries points."""
    cells = [c for c in source(course, name).cells if nbtools.nbgrader(c)]
    ids = [nbtools.grade_id(c) for c in cells]
    assert len(ids) == len(set(ids)), f"duplicate grade_ids in {name}"
    tested, carried = set(), set()
    for cell in cells:
        meta = nbtools.nbgrader(cell)
        if nbtools.is_carried(cell):
            carried |= set(check_carried_cell(name, cell))
        elif nbtools.is_experiment(cell):
            assert not meta.get("points") and nbtools.BEGIN_SOLUTION in cell.source, \
                f"try-it cell {meta['grade_id']!r}: ungraded, its code between solution markers"
        elif nbtools.is_function(cell):
            assert nbtools.defined_functions(cell.source) == [meta["grade_id"]], \
                f"solution cell {meta['grade_id']!r} must define exactly the function it is named after"
        elif nbtools.is_drawing(cell):
            assert meta["grade_id"].startswith(("plot_", "show_")), \
                f"{meta['grade_id']!r}: a plot or printout cell is named plot_... or show_..."
            following = cells[cells.index(cell) + 1]
            assert nbtools.grade_id(following) == "test_" + meta["grade_id"], \
                f"{meta['grade_id']!r} must be followed by its test cell test_{meta['grade_id']}"
        if nbtools.is_manual(cell) or nbtools.is_test(cell):
            assert meta.get("points", 0) > 0, f"{meta['grade_id']} carries no points"
        if nbtools.is_test(cell):
            assert meta["locked"], f"test cell {meta['grade_id']} must be locked"
            checks = nbtools.hidden_check_names(cell.source)
            assert checks, f"test cell {meta['grade_id']} runs no hidden check"
            assert all(check in grading.CHECKS for check in checks), checks
            assert nbtools.BEGIN_HIDDEN in cell.source
            assert meta["grade_id"] == "test_" + checks[0].replace(".", "_")
            tested |= {check.split(".")[0] for check in checks}
    functions = {nbtools.grade_id(c) for c in cells if nbtools.is_function(c) or nbtools.is_drawing(c)}
    assert functions <= tested, f"functions without a hidden check: {functions - tested}"
    assert not carried & tested, f"functions graded again after an earlier notebook: {carried & tested}"


def check_carried_cell(name, cell):
    """carried_from_NN: ungraded, from an earlier notebook, every function body a solution region (so
    the release hands out stubs and the source runs on the reference). Returns the functions."""
    meta = nbtools.nbgrader(cell)
    earlier = meta["grade_id"][len(nbtools.CARRIED_PREFIX):]
    assert earlier.isdigit() and len(earlier) == 2 and earlier < name[:2], \
        f"{meta['grade_id']!r} must name an earlier notebook as carried_from_NN"
    assert not meta.get("grade") and not meta.get("points"), f"{meta['grade_id']} must not be graded"
    functions = nbtools.defined_functions(cell.source)
    assert functions, f"{meta['grade_id']} defines no function"
    assert cell.source.count(nbtools.BEGIN_SOLUTION) == len(functions), \
        f"{meta['grade_id']}: each function's body must sit in its own solution region"
    assert all(hasattr(maskdiff_solutions, f) for f in functions), \
        f"{meta['grade_id']} carries functions without a reference in maskdiff_solutions: {functions}"
    return functions


@pytest.mark.slow  # a sweep over the notebooks: in CI notebook 01 every run, each other one on a day of its own
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_source_passes_its_own_tests(course, name, tmp_path):
    """Every cell runs and every test cell passes on the solutions, as a student runs the notebook
    (tests/support/as_student.py: quick mode, drawing_reader.py beside it, so the hidden checks'
    recorder works beside the students' copy of it); the set-up cell may be run again (students do);
    and the last cell's hand-in check finds nothing left to do. That the solved notebook also runs
    whole without the hidden package, the graded batch's reference proves: it is graded in the sandbox,
    whose kernels cannot see the package (test_grade asks its full marks; tests/course/sandbox/
    test_sandbox.py that the package is out of sight).

    Every run of CI grades each notebook's reference through the grader (the graded batch) and checks it
    in-process (tests/grading); this student's run of the source (145 s for all eight in CI) takes notebook
    01 every run and each other notebook on its day (tests/support/sweeps.py)."""
    sweeps.take_turn(name, name == NOTEBOOKS[0], day=NOTEBOOKS.index(name))   # the other seven: one a day
    nb = source(course, name)
    setup = next(i for i, c in enumerate(nb.cells) if nbtools.grade_id(c) == "setup")
    again = nbformat.from_dict(copy.deepcopy(dict(nb.cells[setup])))
    again.metadata, again.id = {}, "setup-again"   # the same code run again, not a second graded cell
    nb.cells.insert(setup + 1, again)
    folder = tmp_path / "source"   # a copy: nothing is written beside the course's own source/
    ran = as_student.run(nb, folder, name)    # a cell that raises fails the test, naming the cell
    report = as_student.hand_in_report(ran)
    assert "nothing left that this check can see" in report and not as_student.to_do(report), report
    # one row for everything the notebook asks (a drawing's test cell is its drawing's row), in order
    drawings = {nbtools.grade_id(c) for c in nb.cells if nbtools.is_drawing(c)}
    asked = [nbtools.grade_id(c) for c in nb.cells if nbtools.is_solution(c)
             or (nbtools.is_test(c) and nbtools.grade_id(c)[len("test_"):] not in drawings)]
    assert list(as_student.done(report)) == asked, report
    # what a notebook writes beside itself would be a file of the assignment: nbgrader copies it into
    # the release (notebook 06's stand-in scorer once did)
    left = sorted(p.name for p in folder.iterdir() if p.suffix != ".ipynb" and p.name not in as_student.WRITTEN_BY_THE_RUN)
    assert not left, f"running {name} left {left} beside it"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_clock_the_notebooks_state_is_the_graders(name):
    """Issue 12: the time limits and repeats() students are told about are the ones that apply."""
    import re

    from traitlets.config import Config

    from maskdiff_solutions.course.run.preprocessors import SurvivingExecute
    config = Config()
    config_file = Path(__file__).resolve().parents[3] / "nbgrader_config.py"
    exec(config_file.read_text(), {"get_config": lambda: config})
    cells = nbtools.read(Path(__file__).resolve().parents[3] / "source" / "maskdiff" / name).cells
    text = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")
    assert f"{config.Execute.timeout} seconds" in text, "say the grader's cell limit"
    assert f"{SurvivingExecute.notebook_timeout.default_value // 60} minutes" in text, "say the notebook limit"
    setup = next(c.source for c in cells if "def repeats" in c.source)
    floor = int(re.search(r"max\((\d+), n // 5\) if QUICK else n", setup).group(1))
    if "a fifth of it" in text:   # the floor, said beside the fifth, is the set-up cell's
        assert re.search(rf"a fifth of it[^.]*never (?:fewer than|below) {floor}\b", text), "say repeats()' floor"


def test_the_cpu_time_notebook_04_states_was_measured():
    """Issue 35: the story training's CPU time in notebook 04 is the steps/s measured in BENCHMARKS.md
    (benchmarks/training.py), and the minutes follow from it."""
    import re

    cells = nbtools.read(Path(__file__).resolve().parents[3] / "source" / "maskdiff" / "04_training.ipynb").cells
    text = " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")
    said = re.search(r"On a CPU, (\d+) steps take about (\d+) minutes \((\d+\.\d) steps per second", text)
    assert said, "notebook 04 says how long the story training takes on a CPU, with the rate measured"
    steps, minutes, rate = int(said.group(1)), int(said.group(2)), float(said.group(3))
    assert "training_steps(5000, %d, 20)" % steps in text, "the CPU count the text times is training_steps' own"
    assert round(steps / rate / 60) == minutes
    benchmarks = (Path(__file__).resolve().parents[3] / "BENCHMARKS.md").read_text()
    assert re.search(rf"{rate}\d? steps per second", benchmarks), "measured in BENCHMARKS.md"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_question_the_text_asks_has_a_place_for_its_answer(name):
    """Issue 35: a task that asks for an answer "in the cell after" its test has that cell, a markdown
    cell for the student's words, before the next task."""
    cells = nbtools.read(Path(__file__).resolve().parents[3] / "source" / "maskdiff" / name).cells
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and "in the cell after this part's test" in " ".join(cell.source.split()):
            rest = cells[i + 1:]
            upto = next((j for j, c in enumerate(rest) if c.cell_type == "markdown" and c.source.startswith("#")),
                        len(rest))
            places = [c for c in rest[:upto] if c.cell_type == "markdown" and "*Your answer here.*" in c.source]
            assert places, f"{name}: cell {i} asks for an answer and leaves no place for it"
