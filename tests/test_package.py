"""maskdiff_solutions/__init__.py: importing the package leaves jsonschema's slow optional parser out,
and notebooks are still validated as before; no import loop anywhere, nor between the two packages."""
import subprocess
import sys
from pathlib import Path

import pytest

from maskdiff_solutions.course.term import import_graph

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys
import maskdiff_solutions
import nbformat
from maskdiff_solutions.course.intake import notebooks
print("parser:", sys.modules.get("rfc3987_syntax", "never imported"))
good = notebooks.read("release/maskdiff/01_noise_for_words.ipynb")
nbformat.validate(good)
bad = nbformat.from_dict(nbformat.v4.new_notebook())
bad.cells.append(nbformat.from_dict({"cell_type": "code", "source": "x", "metadata": {}}))
try:
    nbformat.validate(bad)
except nbformat.ValidationError as err:
    print("invalid:", err.message)
"""


def test_the_package_leaves_the_iri_parser_out_and_notebooks_are_still_validated():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "parser: None" in done.stdout or "parser: never imported" in done.stdout, done.stdout
    assert "invalid:" in done.stdout and "outputs" in done.stdout, done.stdout


def test_no_import_loop_anywhere_in_the_repository():
    """Not between modules, and not between the public client and the hidden package: the client never
    imports maskdiff_solutions (its in-process fallback comes by entry point, maskdiff_client.IN_PROCESS)."""
    found = {}
    for package in ("maskdiff_solutions", "maskdiff_client"):
        found.update(import_graph.modules(ROOT / package, package))
    edges = import_graph.graph(found)
    loop = import_graph.cycle(edges)
    assert loop is None, f"an import loop: {' -> '.join(loop)}"
    client_reaches = {b for a, targets in edges.items() if a.startswith("maskdiff_client") for b in targets}
    assert not {b for b in client_reaches if b.startswith("maskdiff_solutions")}


def test_the_client_finds_the_in_process_grader_by_its_entry_point():
    import maskdiff_client
    from maskdiff_solutions import grading
    assert maskdiff_client._in_process() is grading.run


def test_git_ignores_no_file_of_the_packages_or_the_tests():
    """The course's .gitignore keeps student data out of git by name (intake/, feedback/ ...): none of
    its lines may hide a module of the packages or a test, which would then never reach CI or a clone."""
    import shutil
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = [str(p.relative_to(ROOT)) for folder in ("maskdiff_solutions", "maskdiff_client", "tests", "benchmarks")
             for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    done = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], cwd=ROOT, input="\n".join(files),
                          capture_output=True, text=True)
    assert done.stdout.split() == [], f"git ignores these, so they never reach a clone: {done.stdout.split()}"
