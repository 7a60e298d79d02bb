"""A batch of awkward submissions, one student per case a real batch holds, built from the release
(and the source's solutions) for every notebook of the course, with the status and autograded
score each must get. Tests grade it; benchmarks/grading_batch.py times it.
"""
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term.demo import build_submissions, solved
from tests.mutants import catalog

HUGE_OUTPUT = 30_000_000  # characters one cell prints
# Its own files first, then everything above them; in a sandbox '../../..' is the whole file system,
# whose walk (every entry refused) takes seconds alone and tens on a loaded machine: it gives up after
# 10 s, so that the cell ends inside the 30 s limit however loaded the grader is.
VANDAL = """import os, shutil, time
mine, above = os.path.abspath('..'), os.path.abspath('../../..')
deadline = time.time() + 10
def give_up(*_):
    if time.time() > deadline:
        raise TimeoutError("walked long enough")
try:
    for top in (mine, above):
        shutil.rmtree(top, onerror=give_up)
except TimeoutError:
    pass
os.chdir('/')"""
# A small batch for the tests that compare ways of grading (jobs, executors, graders at once): notebook
# 01 only, which every awkward case damages; a student of each status (graded with full and with partial
# marks, repaired, flagged, failed: a broken file, missing). The untouched and shadow students, two more
# kernels in each of its gradings, are graded in the awkward batch alone.
SMALL_BATCH = ("reference", "buggy", "stripped", "kernel_death", "broken", "nothing")


@dataclass(frozen=True)
class Expected:
    status: str
    score: float


def _tests(nb):
    return [c for c in nb.cells if notebooks.is_test(c)]


def _points(cells):
    return float(sum(notebooks.nbgrader(c).get("points", 0) for c in cells))


def _functions(nb):
    return [c for c in nb.cells if notebooks.is_function(c)]


def _after(nb, grade_id, cell):
    index = next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == grade_id)
    nb.cells.insert(index + 1, cell)
    return nb


def _before(nb, grade_id, cell):
    index = next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == grade_id)
    nb.cells.insert(index, cell)
    return nb


def _strip_metadata(nb):
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return nb


def _colab_file(nb):
    """What Colab's File -> Download .ipynb writes: nbformat 4.0, no cell ids, a bare kernelspec."""
    data = json.loads(nbformat.writes(nb))
    data["nbformat_minor"] = 0
    data["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    for cell in data["cells"]:
        cell.pop("id", None)
    return json.dumps(data, indent=2)


def _duplicate_stub(nb, release_nb):
    """The student copied the first function's cell, solved one copy and left the stub after it."""
    name = notebooks.grade_id(_functions(release_nb)[0])
    stub = next(c for c in release_nb.cells if notebooks.grade_id(c) == name)
    copy = nbformat.from_dict(json.loads(json.dumps(stub)))
    copy.id = f"{stub.id}-copy"  # Jupyter gives a copied cell an id of its own, not its metadata
    return _after(nb, name, copy)


def _delete_first_test(nb):
    first = notebooks.grade_id(_tests(nb)[0])
    nb.cells = [c for c in nb.cells if notebooks.grade_id(c) != first]
    return nb


def _import_hidden(nb):
    name = notebooks.grade_id(_functions(nb)[0])
    for cell in nb.cells:
        if notebooks.grade_id(cell) == name:
            cell.source = f"from maskdiff_solutions import {name}"
    return nb


SCRATCH = "print('scratch')\nplt.plot([0, 1], [1, 0])\nplt.show()"


def scratch_cells(nb):
    """A student who tried things out: a scratch cell that prints and draws, inserted before every
    drawing's test cell, and the last drawing's test cell moved down, just before the next test cell
    or to the end (checks still run in the notebook's order). Each check reads its drawing cell
    itself (maskdiff_client.drawn_cell), so nothing is lost."""
    drawings = [c for c in _tests(nb) if notebooks.grade_id(c)[len("test_"):] in
                {notebooks.grade_id(d) for d in nb.cells if notebooks.is_drawing(d)}]
    for test in drawings:
        _before(nb, notebooks.grade_id(test), new_code_cell(SCRATCH))
    if drawings:
        last = nb.cells.index(drawings[-1])
        later = [i for i, c in enumerate(nb.cells) if i > last and notebooks.is_test(c)]
        nb.cells.insert(later[0] if later else len(nb.cells), nb.cells[last])
        del nb.cells[last]
    return nb


def colab_style(nb, notebook):
    """A student who draws with pandas and seaborn and shows results without print, as Colab invites:
    each drawing cell is its work (the honest catalog's DATA) and the catalog's first pandas-seaborn
    alternative (a plot) or first value shown without print (a printout)."""
    from tests.honest import modules
    module = next((m for m in modules() if m.NOTEBOOK == notebook), None)
    for cell in nb.cells if module else []:
        cell_id = notebooks.grade_id(cell)
        if cell.cell_type != "code" or not notebooks.is_drawing(cell):
            continue
        kind = "shown" if cell_id.startswith("show_") else "pandas-seaborn"
        honest = next(h for h in module.HONEST if h.cell == cell_id and h.kind == kind)
        cell.source = module.DATA.get(cell_id, "") + honest.source
    return nb


def absent_colab_module():
    """A module Colab has that this grader lacks (maskdiff_solutions/colab.txt's colab-only lines)."""
    from maskdiff_solutions import colab
    return next(name for name, kind in colab.modules().items() if kind == "colab-only" and colab.lacking(name))


def lacking_module(nb):
    """The reference, its first drawing cell importing a module Colab has and the grader lacks."""
    for cell in nb.cells:
        if cell.cell_type == "code" and notebooks.is_drawing(cell):
            cell.source = f"import {absent_colab_module()}\n" + cell.source
            break
    return nb


def first_drawing_test(nb):
    """[the test cell of the notebook's first drawing], or [] where it has none."""
    drawings = {notebooks.grade_id(d) for d in nb.cells if notebooks.is_drawing(d)}
    return [c for c in _tests(nb) if notebooks.grade_id(c)[len("test_"):] in drawings][:1]


def bug_notebooks(course, bug):
    """The notebooks whose solution cells define the demo bug's function."""
    return [name for name in course.notebooks()
            if any(notebooks.grade_id(cell) == bug.function for cell in notebooks.read(course.source_dir / name).cells)]


def build(course, folder, notebook=None):
    """folder/<student>/<notebook>.ipynb for every case; returns {(student, notebook): Expected}.

    The demo's reference and untouched students hand in every notebook; its buggy student hands in
    the notebook that holds its bug (the demo's other buggy notebooks are the reference's, byte for
    byte: tests/course/term/test_demo.py). Each awkward case is one notebook (`notebook`, default the
    first) and the case's other notebooks are missing, so the batch's grading time does not grow with
    the course (missing notebooks are not run). The repairs themselves are tested on every notebook in
    tests/course/intake/test_repair.py, without a kernel."""
    folder = Path(folder)
    notebook = notebook or course.notebooks()[0]
    bug = build_submissions(course, folder)  # reference, untouched, buggy
    handed = {"reference": course.notebooks(), "untouched": course.notebooks(), "buggy": bug_notebooks(course, bug)}
    for name in set(course.notebooks()) - set(handed["buggy"]):
        (folder / "buggy" / name).unlink()
    expected = {}

    def put(student, filename, content):
        (folder / student).mkdir(parents=True, exist_ok=True)
        path = folder / student / filename
        if isinstance(content, str):
            path.write_text(content)
        else:
            notebooks.write(content, path)

    for name in course.notebooks():
        stem = Path(name).stem
        source_nb = notebooks.read(course.source_dir / name)
        release_nb = notebooks.read(course.release_dir / name)

        def reference():
            return solved(source_nb, notebooks.read(course.release_dir / name))

        full = _points(_tests(release_nb))
        last_test = _tests(release_nb)[-1]
        fails = next(m.fails for m in catalog() if (m.function, m.name) == (bug.function, bug.name))
        buggy_fails = {"test_" + check.replace(".", "_") for check in fails}
        buggy_loss = _points(c for c in _tests(release_nb) if notebooks.grade_id(c) in buggy_fails)
        cases = {
            "reference": ("graded", full, None),
            "untouched": ("graded", 0.0, None),
            "buggy": ("graded", full - buggy_loss, None),
            # a fake hidden package next to the untouched release: its no-op checks must not count
            "shadow": ("flagged", 0.0, notebooks.read(course.release_dir / name)),
            "broken": ("failed", 0.0, "{ this is not a notebook"),
            "empty": ("failed", 0.0, ""),
            "wrong_notebook": ("failed", 0.0, new_notebook(cells=[
                new_markdown_cell("# My essay for another course"), new_code_cell("print('hello')")])),
            "stripped": ("repaired", full, _strip_metadata(reference())),
            "duplicated": ("repaired", full, _duplicate_stub(reference(), release_nb)),
            "deleted_test": ("repaired", full, _delete_first_test(reference())),
            "kernel_death": ("flagged", full - _points([last_test]), _before(
                reference(), notebooks.grade_id(last_test), new_code_cell("import os\nos._exit(1)"))),
            "endless_loop": ("flagged", full, _after(
                reference(), "setup", new_code_cell("while True:\n    pass"))),
            "huge_output": ("graded", full, _after(
                reference(), "setup", new_code_cell(f"print('x' * {HUGE_OUTPUT})"))),
            # deletes everything it can reach from its folder, then wanders off: in its sandbox
            # that is its own copy of its files, so nothing is lost and nothing needs a look
            "vandal": ("graded", full, _after(reference(), "setup", new_code_cell(VANDAL))),
            "imports_hidden": ("flagged", 0.0, _import_hidden(reference())),
            "scratch_cells": ("graded", full, scratch_cells(reference())),
            "colab_style": ("graded", full, colab_style(reference(), name)),
            # its drawing goes to a person, with no score until then; nothing else changes
            "lacks_module": ("graded", full - _points(first_drawing_test(release_nb)), lacking_module(reference())),
        }
        # Colab's own file format under the name a second download gets
        cases["colab"] = ("repaired", full, None)
        for student, (status, score, content) in cases.items():
            if name not in handed.get(student, [notebook]):  # the other cases hand in `notebook`
                expected[(student, stem)] = Expected("missing", 0.0)
                continue
            expected[(student, stem)] = Expected(status, score)
            if student == "colab":
                put(student, f"Copy of {stem} (1).ipynb", _colab_file(reference()))
            elif content is not None:
                put(student, name, content)
    fake = folder / "shadow" / "maskdiff_solutions"
    fake.mkdir(parents=True, exist_ok=True)
    (fake / "__init__.py").write_text("")
    (fake / "grading.py").write_text("def run(*a, **k): pass\n")
    (folder / "nothing").mkdir(exist_ok=True)
    for name in course.notebooks():
        expected[("nothing", Path(name).stem)] = Expected("missing", 0.0)
    return expected
