"""Carried cells never charge twice in drawings: notebook 02 run from the top with its `carried_from_01`
cell left as the release's stub (a student who skipped notebook 01) loses, among its drawing and
printout checks, only the cells its text names beside the carried cell as calling those functions.
(The function checks never call a carried function: tests/test_one_bug_once.py.)"""
import os

import pytest
import torch

from maskdiff_solutions.course import notebooks as nbtools
from tests.support import cells
from tests.test_checks_plots import PLOT_CHECKS, judge
from tests.test_one_bug_once import stubbed

pytestmark = pytest.mark.slow

NOTEBOOK = "02_undiffusing.ipynb"


def named_beside_the_carried_cell(notebook):
    """The drawing cells the markdown above a carried cell names (`plot_...`, `show_...`)."""
    book = cells.notebook_cells(notebook)
    where = [i for i, c in enumerate(book) if nbtools.is_carried(c)]
    text = " ".join(book[i].source for i in range(max(0, where[0] - 3), where[0]) if book[i].cell_type == "markdown")
    return {check for check in PLOT_CHECKS if f"`{check}`" in text}


def test_a_stub_carried_cell_costs_only_the_drawings_named_beside_it(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("MASKDIFF_GRADING_SEED", "1")
    torch.manual_seed(0)
    ns, lost = {"__name__": "__main__"}, set()
    for cell in cells.notebook_cells(NOTEBOOK):
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
    named = named_beside_the_carried_cell(NOTEBOOK)
    assert named == {"plot_undiffusion_histograms"}
    assert lost == named, f"lost {sorted(lost)}; the text beside the carried cell names {sorted(named)}"
