"""course/ reads as layers: no module imports one that (directly or not) imports it back, wherever the
import stands (a function-level import that dodges a loop is still a loop), and no module is over
MAX_LINES lines."""
import ast
from pathlib import Path

import maskdiff_solutions.course as course_package

COURSE = Path(course_package.__file__).resolve().parent
PACKAGE = "maskdiff_solutions.course"
MAX_LINES = 350


def course_imports(path):
    """The course modules that the module at path imports, anywhere in it."""
    names = {p.stem for p in COURSE.glob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or (node.level == 0 and node.module and node.module.startswith(PACKAGE)):
                base = (node.module or "") if node.level else node.module[len(PACKAGE):].lstrip(".")
                first = base.split(".")[0] if base else ""
                candidates = [first] if first else [alias.name for alias in node.names]
                found.update(name for name in candidates if name in names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name[len(PACKAGE) + 1:].split(".")[0])
    found.discard(path.stem)
    return found


def graph():
    return {path.stem: course_imports(path) for path in sorted(COURSE.glob("*.py"))}


def cycle(edges):
    """One import loop as [a, b, ..., a], or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_loop_and_only_a_loop():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_reader_sees_every_form(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("from . import rows, job as jobs\nfrom .intake import prepare\n"
                      "def f():\n    from .batch import grade\n    import maskdiff_solutions.course.cli\n"
                      "from maskdiff_solutions.course.layout import Course\n"
                      "from ..grading import core\nfrom .. import models\n")
    assert course_imports(module) == {"rows", "job", "intake", "batch", "cli", "layout"}


def test_course_has_no_import_loop():
    found = cycle(graph())
    assert found is None, f"an import loop in course/: {' -> '.join(found)}"


def test_no_course_module_is_over_the_line_limit():
    long = {path.name: n for path in COURSE.glob("*.py") if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"course/ modules over {MAX_LINES} lines (split them by job): {long}"


def test_contributing_maps_every_course_module():
    text = (COURSE.parents[1] / "CONTRIBUTING.md").read_text()
    section = text[text.index("## The course tooling"):text.index("## 6. Tests and CI")]
    unmapped = [p.name for p in sorted(COURSE.glob("*.py")) if p.stem != "__init__" and f"`{p.name}`" not in section]
    assert not unmapped, f"CONTRIBUTING's map of course/ lacks {unmapped}"
