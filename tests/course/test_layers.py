"""course/ reads as wings that follow a submission's path: at its top only the command line (with its door
into formgrader), the course's layout and the sentences for the machine's errors; below, one package per wing, each importing only from the wings beneath it (records
never imports run, intake never imports sandbox). No module imports one that (directly or not) imports
it back, wherever the import stands (a function-level import that dodges a loop is still a loop), and
no module is over MAX_LINES lines nor any wing over MAX_MODULES modules."""
import ast
import textwrap
from pathlib import Path

import maskdiff_solutions.course as course_package
from maskdiff_solutions.course.term import import_graph
from maskdiff_solutions.course.term.import_graph import cycle

COURSE = Path(course_package.__file__).resolve().parent
PACKAGE = "maskdiff_solutions.course"
# Bottom to top: a wing may import itself and the wings before it. layout.py is under them all (it
# imports nothing of course/), the command line over them all (no wing imports it).
WINGS = ("intake", "sandbox", "records", "ledger", "integrity", "run", "term")
TOP = {"cli", "cli_reference", "formgrader"}
BASE = {"layout", "errors"}
MAX_LINES = 350
MAX_MODULES = 12


def modules(root=COURSE):
    """{'intake.folder': path, 'cli': path, 'intake': its __init__.py, ...}: every module of the tree."""
    return {name[len(PACKAGE) + 1:]: path for name, path in import_graph.modules(root, PACKAGE).items()}


def course_imports(path, root=COURSE):
    """The course modules that the module at path imports, anywhere in it, as modules() names them."""
    known = import_graph.modules(root, PACKAGE)
    name = next(name for name, p in known.items() if p == path)
    return {other[len(PACKAGE) + 1:] for other in import_graph.imports(path, name, known) if other != PACKAGE}


def graph(root=COURSE):
    return {name: course_imports(path, root) for name, path in modules(root).items() if name}


def rank(name):
    """Where a module stands: layout 0, the wings 1 to 5 in order, the command line 6."""
    head = name.split(".")[0]
    if head in BASE:
        return 0
    if head in TOP:
        return len(WINGS) + 1
    return WINGS.index(head) + 1


def upward(edges):
    """Every import of a module that stands above its importer: [(importer, imported)]."""
    return sorted((a, b) for a, targets in edges.items() for b in targets if rank(b) > rank(a))


def test_the_cycle_finder_finds_a_loop_and_only_a_loop():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def plant(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_import_reader_sees_every_form(tmp_path):
    plant(tmp_path, {"__init__.py": "", "layout.py": "", "cli.py": "", "intake/__init__.py": "",
                     "intake/folder.py": "", "intake/repair.py": "", "records/__init__.py": "",
                     "records/rows.py": "", "run/__init__.py": "", "run/batch.py": "", "run/job.py": "",
                     "run/x.py": """
                         from . import job as jobs, batch
                         from .job import thing
                         from ..intake import folder
                         from ..records.rows import Row
                         from ..layout import Course
                         def f():
                             from .. import cli
                             import maskdiff_solutions.course.intake.repair
                         from maskdiff_solutions.course.records import rows
                         from ...grading import core
                         from ... import models
                         """})
    assert course_imports(tmp_path / "run" / "x.py", tmp_path) == {
        "run.job", "run.batch", "intake.folder", "records.rows", "layout", "cli", "intake.repair"}


def test_a_planted_upward_import_is_found(tmp_path):
    """records importing run, intake importing sandbox, a wing importing the command line: each found."""
    plant(tmp_path, {"__init__.py": "", "layout.py": "", "cli.py": "from .run import batch\n",
                     "intake/__init__.py": "", "intake/folder.py": "from ..sandbox import settings\n",
                     "sandbox/__init__.py": "", "sandbox/settings.py": "from ..layout import X\n",
                     "records/__init__.py": "", "records/export.py": "def f():\n    from ..run import batch\n",
                     "run/__init__.py": "", "run/batch.py": "from ..ledger import export\n",
                     "term/__init__.py": "", "term/demo.py": "from .. import cli\n"})
    assert upward(graph(tmp_path)) == [("intake.folder", "sandbox.settings"), ("records.export", "run.batch"),
                                       ("term.demo", "cli")]


def test_course_holds_the_command_line_the_layout_and_the_wings():
    top = {p.name for p in COURSE.iterdir() if p.name != "__pycache__"}
    assert top == {"__init__.py", *(f"{name}.py" for name in TOP | BASE), *WINGS}, top
    for wing in WINGS:
        doc = ast.get_docstring(ast.parse((COURSE / wing / "__init__.py").read_text()))
        assert doc and "\n" not in doc and "Imports" in doc, f"{wing}/__init__.py: one line saying what it owns and imports"
        count = len([p for p in (COURSE / wing).glob("*.py") if p.stem != "__init__"])
        assert count <= MAX_MODULES, f"{wing}/ holds {count} modules: split it by what it owns"


def test_no_wing_imports_a_wing_above_it():
    found = upward(graph())
    assert not found, f"imports of a wing above the importer ({' < '.join(WINGS)}): {found}"


def test_course_has_no_import_loop():
    found = cycle(graph())
    assert found is None, f"an import loop in course/: {' -> '.join(found)}"


def test_no_course_module_is_over_the_line_limit():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"course/ modules over {MAX_LINES} lines (split them by job): {long}"


def test_contributing_maps_every_course_module():
    text = (COURSE.parents[1] / "CONTRIBUTING.md").read_text()
    section = text[text.index("## The course tooling"):text.index("## 6. Tests and CI")]
    unmapped = [str(path.relative_to(COURSE)) for name, path in modules().items()
                if path.stem != "__init__" and f"`{path.relative_to(COURSE)}`" not in section]
    assert not unmapped, f"CONTRIBUTING's map of course/ lacks {unmapped}"
