"""maskdiff_solutions/__init__.py: importing the package leaves jsonschema's slow optional parser out,
and notebooks are still validated as before."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys
import maskdiff_solutions
import nbformat
from maskdiff_solutions.course import notebooks
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
