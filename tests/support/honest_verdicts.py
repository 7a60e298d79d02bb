"""The honest catalog (tests/honest/) judged by the plot checks, each alternative once per process:
each cell's work (`DATA`) runs once after the notebook's earlier cells, and every alternative draws from
a fresh copy of that namespace. Shared by tests/grading/test_honest.py and benchmarks/honest_drawings.py."""
import os
from functools import lru_cache

import torch

from maskdiff_solutions.grading.core import SEED_VARIABLE
from tests.honest import catalog
from tests.support import cells, drawings
from tests.support.drawings import fresh_copy, judge


@lru_cache(maxsize=None)
def _notebook(notebook):
    """{drawing cell: namespace just before it, its DATA done}: the notebook's namespaces come from its
    one run of tests/support/drawings.py (shared with the plot checks' tests), each cell's DATA runs
    once on a copy."""
    before = {}
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    try:
        for (nb, data, honest) in CATALOG:
            if nb != notebook or honest.cell in before:
                continue
            before[honest.cell] = drawings.namespace(notebook, honest.cell)
            torch.manual_seed(0)
            if data and cells.run_cell(data, before[honest.cell]).raised is not None:
                raise RuntimeError(f"{honest.cell}: its data raised")
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
