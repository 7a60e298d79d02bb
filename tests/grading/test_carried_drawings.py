"""A carried cell left as the release's stub costs only the drawing cells that call it, and those are
named beside it (issue 21, item 7; the README's carry-over rule).

Each notebook with carried cells runs in this process, in order and in quick mode, with one carried
cell stubbed (as the release hands it out: every function raises NotImplementedError). Test cells are
skipped: their hidden checks hand the graded function reference inputs, and their visible asserts are
proven stub-proof by tests/grading/test_one_bug_once.py. Every drawing or printout cell runs as the reference
wrote it and is judged by its check, as under the grader. The cells that lose must be among the ones
that call a function of the stubbed cell directly, and the markdown above the carried cells must name
exactly those (one bullet per earlier notebook: "without your notebook-N ...")."""
import ast
import os
import re

import pytest
import torch

from maskdiff_solutions.course.intake import notebooks as nbtools
from tests.support import cells, sweeps
from tests.support.drawings import PLOT_CHECKS, judge
from tests.support.cells import stubbed

# Notebooks 04 to 08 name the cells a stub costs in one bullet per earlier notebook; notebook 02 has
# one carried cell and names them in its text (the last test below).
NOTEBOOKS = ["04_training.ipynb", "05_sampler_internals.ipynb", "06_revising_and_faster.ipynb", "07_caching.ipynb",
             "08_noise_without_a_mask.ipynb"]


def carried_cells(notebook):
    return [c for c in cells.notebook_cells(notebook) if nbtools.is_carried(c)]


def variants():
    return [(nb, nbtools.grade_id(c)) for nb in NOTEBOOKS for c in carried_cells(nb)]


def names_used(source):
    return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


def direct_callers(notebook, carried):
    """The drawing cells whose reference source names a function of the carried cell, or a function of
    this notebook built on one (notebook 06's SampleBlocks runs on notebook 05's update): those calls
    are direct as far as the student can tell, and the cells are named beside the carried cell."""
    cell = next(c for c in carried_cells(notebook) if nbtools.grade_id(c) == carried)
    functions = set(nbtools.defined_functions(cell.source))
    built_on = {nbtools.grade_id(c) for c in cells.notebook_cells(notebook)
                if nbtools.is_function(c) and names_used(c.source) & functions}
    return {nbtools.grade_id(c) for c in cells.notebook_cells(notebook)
            if nbtools.grade_id(c) in PLOT_CHECKS and names_used(c.source) & (functions | built_on)}


def listed_beside(notebook, carried):
    """The drawing cells the markdown above the carried cells names for this one: backticked grade_ids
    in its bullet "without your notebook-N ...", N the carried cell's notebook."""
    notebook_cells = cells.notebook_cells(notebook)
    first = next(i for i, c in enumerate(notebook_cells) if nbtools.is_carried(c))
    text = notebook_cells[first - 1].source
    number = int(carried.rsplit("_", 1)[1])
    bullets = [b for b in re.split(r"\n\* ", text) if re.match(rf"without your notebook-{number}\b", b)]
    assert len(bullets) == 1, f"{notebook}: no bullet 'without your notebook-{number} ...' above the carried cells"
    return set(re.findall(r"`(\w+)`", bullets[0])) & set(PLOT_CHECKS)


@pytest.mark.parametrize("notebook,carried", variants())
def test_the_cells_a_stub_costs_are_named_beside_it(notebook, carried):
    assert listed_beside(notebook, carried) == direct_callers(notebook, carried)


# A sweep (tests/support/sweeps.py): each notebook's first carried cell stubbed in every run of CI, each of the
# others on a day of its own (notebook 06's second took 30 s of CI, notebook 04's second 21).
EVERY_RUN = sweeps.representatives(variants(), lambda variant: variant[0])
OTHERS = [variant for variant in variants() if variant not in EVERY_RUN]


def carried_day(variant):
    """The day of a variant that is no representative (None for a representative)."""
    return OTHERS.index(variant) if variant in OTHERS else None


@pytest.mark.slow
@pytest.mark.parametrize("notebook,carried", variants())
def test_a_stubbed_carried_cell_costs_only_its_direct_callers(notebook, carried, monkeypatch):
    variant = (notebook, carried)
    sweeps.take_turn(f"{notebook}-{carried}", variant in EVERY_RUN, day=carried_day(variant))
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    ns, lost = {"__name__": "__main__"}, {}
    book = cells.notebook_cells(notebook)
    last = max(i for i, c in enumerate(book) if nbtools.grade_id(c) in PLOT_CHECKS)
    for cell in book[:last + 1]:   # the cells after the last drawing can cost no drawing
        gid = nbtools.grade_id(cell)
        if cell.cell_type != "code" or nbtools.is_test(cell):
            continue
        if gid in PLOT_CHECKS:
            outcome = judge(gid, cell.source, ns)
            os.environ["NBGRADER_EXECUTION"] = "autograde"   # judge clears it after the cell
            if not outcome.passed and not outcome.review:
                lost[gid] = outcome.message
            continue
        cells.run_cell(stubbed(cell.source) if gid == carried else cell.source, ns)
    assert set(lost) <= direct_callers(notebook, carried), lost


def named_beside_the_carried_cell(notebook):
    """The drawing cells the markdown just above a carried cell names (`plot_...`, `show_...`)."""
    book = cells.notebook_cells(notebook)
    where = [i for i, c in enumerate(book) if nbtools.is_carried(c)]
    text = " ".join(book[i].source for i in range(max(0, where[0] - 3), where[0]) if book[i].cell_type == "markdown")
    return {check for check in PLOT_CHECKS if f"`{check}`" in text}


@pytest.mark.slow
def test_notebook_02_with_a_stub_carried_cell_loses_only_the_drawings_named_beside_it(monkeypatch):
    notebook = "02_undiffusing.ipynb"
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("MASKDIFF_GRADING_SEED", "1")
    torch.manual_seed(0)
    ns, lost = {"__name__": "__main__"}, set()
    for cell in cells.notebook_cells(notebook):
        if cell.cell_type != "code" or nbtools.is_test(cell):
            continue
        grade_id = nbtools.grade_id(cell)
        if grade_id in PLOT_CHECKS:
            outcome = judge(grade_id, cell.source, ns)
            os.environ["NBGRADER_EXECUTION"] = "autograde"
            if not outcome.passed:
                lost.add(grade_id)
        else:
            cells.run_cell(stubbed(cell.source) if nbtools.is_carried(cell) else cell.source, ns)
    named = named_beside_the_carried_cell(notebook)
    assert named == {"plot_undiffusion_histograms"}
    assert lost == named, f"lost {sorted(lost)}; the text beside the carried cell names {sorted(named)}"
