"""The honest catalog (tests/honest/) judged by the plot checks, each alternative once per process:
each cell's work (`DATA`) runs once after the notebook's earlier cells, and every alternative draws from
a fresh copy of that namespace. Shared by tests/grading/test_honest.py and benchmarks/honest_drawings.py."""
import os
from functools import lru_cache

import torch

from maskdiff_solutions.course import notebooks as nbtools
from maskdiff_solutions.grading.core import SEED_VARIABLE
from tests.honest import catalog
from tests.support import cells
from tests.support.drawings import fresh_copy, judge


@lru_cache(maxsize=None)
def _notebook(notebook):
    """{drawing cell: namespace just before it, its DATA done}, from one run of the notebook's code cells
    (test cells skipped) in quick mode, as under the grader: each cell's work runs once."""
    data = {h.cell: d for nb, d, h in CATALOG if nb == notebook}
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    torch.manual_seed(0)
    ns, before = {"__name__": "__main__"}, {}
    try:
        for cell in cells.notebook_cells(notebook):
            if cell.cell_type != "code" or nbtools.is_test(cell):
                continue
            grade_id = nbtools.grade_id(cell)
            if grade_id in data:
                before[grade_id] = fresh_copy(ns)
                if data[grade_id] and cells.run_cell(data[grade_id], before[grade_id]).raised is not None:
                    raise RuntimeError(f"{grade_id}: its data raised")
            if cells.run_cell(cell.source, ns).raised is not None:
                raise RuntimeError(f"{notebook}: cell {grade_id} raised")
    finally:
        os.environ.pop("NBGRADER_EXECUTION", None)
    return before


def fresh(notebook, cell):
    """A copy of the cell's namespace (an alternative must not change what the next one draws from)."""
    return fresh_copy(_notebook(notebook)[cell])


def verdict(outcome):
    return "pass" if outcome.passed else "review" if getattr(outcome, "review", False) else "fail"


CATALOG = catalog()


@lru_cache(maxsize=None)
def outcome_of(index, seed=1):
    """The check's outcome on the catalog's alternative `index` (graded once per test session)."""
    notebook, data, honest = CATALOG[index]
    os.environ[SEED_VARIABLE] = str(seed)
    try:
        torch.manual_seed(seed)
        return judge(honest.cell, honest.source, fresh(notebook, honest.cell))
    finally:
        os.environ.pop(SEED_VARIABLE, None)
