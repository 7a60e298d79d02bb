"""Notebook 04's page step counts written out as numbers (tests/honest/nb04.py PAGE_COUNTS): they fit
the grader's limits and lose nothing. The honest alternatives of every notebook, these two's included,
are judged in tests/grading/test_honest.py."""
import pytest
import torch

from tests.honest import nb04
from tests.support import cells
from tests.support.drawings import judge, namespace, worker_group


def xdist_group(item):
    """Under pytest-xdist (tests/conftest.py): on the worker that runs notebook 04 for its plot checks."""
    return worker_group(nb04.NOTEBOOK) if "honest" in getattr(item, "fixturenames", ()) else None


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
    from maskdiff_solutions.training import QUICK_SECONDS
    for cell in ("plot_two_sentence_loss", "plot_story_loss"):
        notebook_cells = cells.notebook_cells(nb04.NOTEBOOK)
        i = next(k for k, c in enumerate(notebook_cells) if cells.nbtools.grade_id(c) == cell)
        assert f"`Train` stops after {QUICK_SECONDS} seconds" in notebook_cells[i - 1].source
    from tests.support.docs import one_line, page
    assert f"`Train` also stops after {QUICK_SECONDS} seconds (`QUICK_SECONDS`)" in one_line(page("teaching.md"))
