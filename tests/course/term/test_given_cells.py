"""The notebooks' given cells that hold package code are copies of it: the package module is the
source of truth (tested there), and each given cell must define exactly the same functions and classes,
statement for statement, so the notebook behaves on Colab as the package does here."""
import ast
import math
import re
from pathlib import Path

import pytest
import torch

from maskdiff_solutions.course.intake import notebooks as nbtools

ROOT = Path(__file__).resolve().parents[3]
# (notebook, grade_id of the given cell, module whose `# --- notebook cell `grade_id`` segment it copies)
MIRRORS = [
    ("04_training.ipynb", "denoiser", "maskdiff_client/denoiser"),
    ("04_training.ipynb", "training", "maskdiff_solutions/training"),
    ("04_training.ipynb", "corpus", "maskdiff_solutions/corpus"),
    ("05_sampler_internals.ipynb", "denoiser", "maskdiff_client/denoiser"),
    ("05_sampler_internals.ipynb", "training", "maskdiff_solutions/training"),
    ("05_sampler_internals.ipynb", "corpus", "maskdiff_solutions/corpus"),
    ("06_revising_and_faster.ipynb", "denoiser", "maskdiff_client/denoiser"),
    ("06_revising_and_faster.ipynb", "training", "maskdiff_solutions/training"),
    ("06_revising_and_faster.ipynb", "corpus", "maskdiff_solutions/corpus"),
    ("05_sampler_internals.ipynb", "story_denoiser", "maskdiff_solutions/story_denoiser"),
    ("06_revising_and_faster.ipynb", "story_denoiser", "maskdiff_solutions/story_denoiser"),
    *[("07_caching.ipynb", cell, module) for cell, module in [
        ("denoiser", "maskdiff_client/denoiser"), ("training", "maskdiff_solutions/training"),
        ("corpus", "maskdiff_solutions/corpus"), ("story_denoiser", "maskdiff_solutions/story_denoiser"),
        ("caching_denoiser", "maskdiff_solutions/block_denoiser"), ("block_training", "maskdiff_solutions/block_denoiser"),
        ("counted", "maskdiff_solutions/caching"), ("block_causal_sampler", "maskdiff_solutions/caching"),
        ("cache_drift", "maskdiff_solutions/caching"), ("threshold_sampler", "maskdiff_solutions/caching")]],
    *[("08_noise_without_a_mask.ipynb", cell, module) for cell, module in [
        ("denoiser", "maskdiff_client/denoiser"), ("training", "maskdiff_solutions/training"),
        ("corpus", "maskdiff_solutions/corpus"), ("story_denoiser", "maskdiff_solutions/story_denoiser"),
        ("uniform_world", "maskdiff_solutions/uniform"), ("uniform_two", "maskdiff_solutions/uniform"),
        ("uniform_exact", "maskdiff_solutions/uniform"), ("uniform_training", "maskdiff_solutions/uniform_denoiser")]],
]


def given_cell(notebook, grade_id):
    for cell in nbtools.read(ROOT / "source" / "maskdiff" / notebook).cells:
        if nbtools.grade_id(cell) == grade_id:
            meta = nbtools.nbgrader(cell)
            assert meta["locked"] and not meta["solution"] and not meta["grade"], grade_id
            return cell.source
    raise AssertionError(f"{notebook} has no cell {grade_id!r}")


def segment(module, grade_id):
    text = (ROOT / f"{module}.py").read_text()
    found = re.search(rf"# --- notebook cell `{grade_id}`[^\n]*\n(.*?)(?=# --- notebook cell `|# --- end of notebook cell|\Z)",
                      text, re.S)
    assert found, f"{module}.py marks no segment for the cell {grade_id!r}"
    return found.group(1)


def definitions(source):
    """name -> ast dump of every top-level def, class and constant assignment."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = ast.dump(node)
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            found[",".join(t.id for t in node.targets)] = ast.dump(node)
    return found


@pytest.mark.parametrize("notebook,grade_id,module", MIRRORS)
def test_given_cell_is_the_package_code(notebook, grade_id, module):
    package = definitions(segment(module, grade_id))
    cell = definitions(given_cell(notebook, grade_id))
    assert package, "the package segment defines nothing"
    differ = sorted(name for name in package if cell.get(name) != package[name])
    assert not differ, (f"{notebook}:{grade_id} differs from {module}.py in {differ}; "
                        "edit the module and copy its segment into the cell")


@pytest.mark.nb04
def test_given_denoiser_behaves_as_the_package():
    from maskdiff_solutions import training
    namespace = {"torch": torch, "math": math}  # what the set-up cell imported
    exec(given_cell("04_training.ipynb", "denoiser"), namespace)
    torch.manual_seed(0)
    ours = namespace["TinyDenoiser"](50, dim=32, heads=2, layers=2)
    torch.manual_seed(0)
    theirs = training.TinyDenoiser(50, dim=32, heads=2, layers=2)
    x = torch.randint(50, (3, 9))
    # bit for bit: the cell is the module's segment (the test above), so the same operations on the same
    # weights and input, in this process on one thread count
    assert torch.equal(ours(x), theirs(x))
