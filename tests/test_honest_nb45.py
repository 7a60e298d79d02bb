"""Honest alternatives of notebooks 04 and 05 (tests/honest/nb04.py, nb05.py): every correct drawing or
printout passes its check, or goes to a person (review) where the reader cannot tell; none fails, and
at most 5 % go to review.

Each cell's data (a training run, a tally) is computed once by its prelude; the alternatives vary only
the drawing."""
import os
from functools import lru_cache

import pytest
import torch

from tests.honest import nb04, nb05
from tests.support import cells
from tests.test_checks_plots import fresh_copy, judge, namespace

MODULES = (nb04, nb05)
CASES = [(module.NOTEBOOK, honest) for module in MODULES for honest in module.HONEST]
REVIEW_SHARE = 0.05


@lru_cache(maxsize=None)
def _after_prelude(notebook, cell, prelude):
    ns = namespace(notebook, cell)
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    try:
        torch.manual_seed(0)
        record = cells.run_cell(prelude, ns)
    finally:
        os.environ.pop("NBGRADER_EXECUTION", None)
    assert record.raised is None, f"{cell}'s prelude raised {record.raised!r}"
    return ns


def verdict(notebook, honest, modules=MODULES):
    """Run the alternative (its prelude once per cell) and judge it: the check's outcome."""
    prelude = next(m.PRELUDES.get(honest.cell, "") for m in modules if m.NOTEBOOK == notebook)
    if prelude and honest.source.startswith(prelude):
        ns, body = fresh_copy(_after_prelude(notebook, honest.cell, prelude)), honest.source[len(prelude):]
    else:
        ns, body = namespace(notebook, honest.cell), honest.source
    torch.manual_seed(0)
    return judge(honest.cell, body, ns)


_outcomes = {}


def test_every_cell_has_eight_alternatives():
    for module in MODULES:
        cells_of = {}
        for honest in module.HONEST:
            cells_of.setdefault(honest.cell, set()).add(honest.name)
        assert all(len(names) >= 8 for names in cells_of.values()), {c: len(n) for c, n in cells_of.items()}
        assert len({(h.cell, h.name) for h in module.HONEST}) == len(module.HONEST), "two alternatives share a name"


@pytest.mark.parametrize("notebook,honest", CASES, ids=lambda v: v if isinstance(v, str) else f"{v.cell}:{v.name}")
def test_an_honest_drawing_never_fails(notebook, honest):
    outcome = verdict(notebook, honest)
    _outcomes[(honest.cell, honest.name)] = outcome
    assert outcome.raised is None, f"the alternative itself raised {outcome.raised!r}"
    assert outcome.passed or outcome.review, f"{honest.cell}:{honest.name}: {outcome.message}"


def test_at_most_five_percent_go_to_review():
    if len(_outcomes) < len(CASES):
        pytest.skip("needs every honest alternative judged in this session")
    reviewed = [key for key, outcome in _outcomes.items() if outcome.review]
    print(f"\nhonest alternatives of notebooks 04 and 05: {len(_outcomes)} judged, {len(reviewed)} to review: "
          + "; ".join(f"{c}:{n}: {_outcomes[(c, n)].message}" for c, n in reviewed))
    assert len(reviewed) <= REVIEW_SHARE * len(CASES), reviewed


@pytest.mark.parametrize("honest", nb04.PAGE_COUNTS, ids=lambda h: h.cell)
def test_the_page_step_count_written_out_stops_in_time_and_loses_nothing(honest):
    """The page's 1500 and 5000 steps written as numbers: under the grader Train stops after
    QUICK_SECONDS (and says so), inside the cell's 30 s, and the drawing keeps its marks."""
    ns = namespace(nb04.NOTEBOOK, honest.cell)
    torch.manual_seed(0)
    outcome = judge(honest.cell, honest.source, ns)
    assert outcome.raised is None and outcome.passed, outcome.message
    if "story_losses" in ns:   # 5000 steps of the story network cannot fit in 15 s on a CPU: it stopped
        assert len(ns["story_losses"]) < 5000


def test_the_page_promises_trains_stop_after_quick_seconds():
    from maskdiff_solutions.model import QUICK_SECONDS
    for cell in ("plot_two_sentence_loss", "plot_story_loss"):
        notebook_cells = cells.notebook_cells(nb04.NOTEBOOK)
        i = next(k for k, c in enumerate(notebook_cells) if cells.nbtools.grade_id(c) == cell)
        assert f"`Train` stops after {QUICK_SECONDS} seconds" in notebook_cells[i - 1].source
    readme = (cells.SOURCE.parents[1] / "README.md").read_text()
    assert f"`Train` stops after\n{QUICK_SECONDS} seconds (`QUICK_SECONDS`" in readme
