"""Torch's thread count in the tests (issue 61): a notebook run in this process (tests/support/cells.py) keeps
its kernel's count to itself, as a kernel does, so that no test passes or fails by the tests that ran before
it; its cells still compute on the count its set-up cell chose, as they do under the grader."""
import pytest
import torch

from tests.support import cells, threads


def test_a_notebooks_thread_count_stays_in_its_namespace():
    mine = torch.get_num_threads()
    other = 1 if mine > 1 else 2
    namespace = {"torch": torch}
    cells.run_cell(f"torch.set_num_threads({other})", namespace)   # a set-up cell
    assert torch.get_num_threads() == mine, "the process keeps its own count"
    cells.run_cell("seen = torch.get_num_threads()", namespace)     # a later cell of the same notebook
    assert namespace["seen"] == other and torch.get_num_threads() == mine
    copied = cells.snapshot(namespace)
    cells.run_cell("again = torch.get_num_threads()", copied)
    assert copied["again"] == other, "a snapshot of the namespace carries its count"


def test_a_fresh_namespace_starts_on_this_process_count():
    namespace = {"torch": torch}
    cells.run_cell("seen = torch.get_num_threads()", namespace)
    assert namespace["seen"] == torch.get_num_threads()


def test_a_cell_that_raises_gives_the_count_back_all_the_same():
    mine = torch.get_num_threads()
    namespace = {"torch": torch}
    record = cells.run_cell(f"torch.set_num_threads({1 if mine > 1 else 2})\nraise ValueError('a bug')", namespace)
    assert isinstance(record.raised, ValueError) and torch.get_num_threads() == mine


def test_a_test_that_leaves_the_count_changed_fails_and_the_count_is_given_back():
    """tests/conftest.py's guards: every later test on the worker would run on a leaked count."""
    mine = torch.get_num_threads()
    guard = threads._given_back("this test")
    next(guard)
    torch.set_num_threads(1 if mine > 1 else 2)
    with pytest.raises(pytest.fail.Exception, match=f"this test left torch's thread count at .* \\(it was {mine}\\)"):
        next(guard)
    assert torch.get_num_threads() == mine


def test_a_test_that_gives_the_count_back_passes_the_guard():
    mine = torch.get_num_threads()
    guard = threads._given_back("this test")
    next(guard)
    torch.set_num_threads(1 if mine > 1 else 2)
    torch.set_num_threads(mine)
    with pytest.raises(StopIteration):
        next(guard)
