"""The honest catalog (tests/honest/): every correct drawing and printout of a graded cell, written as
different students would, earns its points; every wrong plot of tests/mutants/plots.py still fails.

Each cell's work (`DATA`) runs once, after the notebook's earlier cells; every alternative then draws
from a fresh copy of that namespace, so the catalog varies only the drawing (the cost is the drawing).
"""
import copy
import os
from functools import lru_cache

import pytest
import torch

from maskdiff_solutions.grading.core import SEED_VARIABLE
from tests.honest import catalog
from tests.support import cells
from tests.test_checks_plots import judge, namespace

REVIEW_SHARE = 0.05     # at most this share of the catalog may be sent to a person


@lru_cache(maxsize=None)
def _with_data(notebook, cell, data):
    """The namespace before `cell` with the cell's work done once (quick mode, as under the grader)."""
    ns = namespace(notebook, cell)
    if data:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
        torch.manual_seed(0)
        try:
            record = cells.run_cell(data, ns)
        finally:
            os.environ.pop("NBGRADER_EXECUTION", None)
        if record.raised is not None:
            raise RuntimeError(f"{cell}: its data raised {record.raised!r}")
    return ns


def fresh(notebook, cell, data):
    """A copy of the cell's namespace (an alternative must not change what the next one draws from)."""
    cached = _with_data(notebook, cell, data)
    return {k: v.clone() if torch.is_tensor(v) else copy.deepcopy(v) if isinstance(v, (list, dict)) and k != "__builtins__"
            else v for k, v in cached.items()}


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
        return judge(honest.cell, honest.source, fresh(notebook, honest.cell, data))
    finally:
        os.environ.pop(SEED_VARIABLE, None)


@pytest.mark.parametrize("index", range(len(CATALOG)), ids=[f"{h.cell}:{h.name}" for _, _, h in CATALOG])
def test_an_honest_drawing_earns_its_points(index):
    outcome = outcome_of(index)
    assert outcome.raised is None, f"the alternative itself raised: {outcome.raised!r}"
    assert verdict(outcome) != "fail", outcome.message
    if verdict(outcome) == "review":
        pytest.xfail(f"sent to review: {outcome.message}")  # counted against REVIEW_SHARE below


def test_the_catalog_covers_every_cell_eight_times_and_few_go_to_review():
    from collections import Counter
    per_cell = Counter(h.cell for _, _, h in CATALOG)
    assert min(per_cell.values()) >= 8, {c: n for c, n in per_cell.items() if n < 8}
    names = [(h.cell, h.name) for _, _, h in CATALOG]
    assert len(names) == len(set(names)), "two alternatives of one cell share a name"
    reviews = [h for i, (_, _, h) in enumerate(CATALOG) if verdict(outcome_of(i)) == "review"]
    assert len(reviews) <= REVIEW_SHARE * len(CATALOG), [f"{h.cell}:{h.name}" for h in reviews]
