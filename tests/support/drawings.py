"""The plot checks judged in this process: the plot cells each check reads (`PLOT_CHECKS`), the
notebook's namespace just before each of them (the notebook runs once per process; each test gets a
fresh copy) and `judge`, which runs a cell's source as the plot cell and its check on what it drew.
Shared by the tests of the plot checks, of the honest catalog and of carried cells, by the stand-in
kernel of tests/support/student_kernel.py and by benchmarks/plot_checks.py."""
import copy
import os
from functools import lru_cache

import torch

from maskdiff_solutions import grading
from maskdiff_solutions.grading.checker import argument_names
from tests.support import cells


PLOT_CHECKS = {  # check (= the plot cell's grade_id) -> its notebook
    "plot_schedule": "01_noise_for_words.ipynb",
    "show_dissolution": "01_noise_for_words.ipynb",
    "plot_masked_fraction": "01_noise_for_words.ipynb",
    "plot_masked_histograms": "01_noise_for_words.ipynb",
    **{check: "02_undiffusing.ipynb" for check in (
        "show_undiffusion_runs", "show_thousand_runs", "plot_undiffusion_histograms", "plot_two_sentence_bars",
        "plot_cat_probability", "plot_bars_few_steps", "plot_impossible_fraction", "show_greedy_runs",
        "plot_greedy_bars")},
    "plot_two_sentence_loss": "04_training.ipynb",
    "show_bayes_comparison": "04_training.ipynb",
    "plot_net_sentence_bars": "04_training.ipynb",
    "show_untrained_story": "04_training.ipynb",
    "plot_story_loss": "04_training.ipynb",
    "show_prompt_stories": "04_training.ipynb",
    "show_first_pass": "05_sampler_internals.ipynb",
    "plot_confidence": "05_sampler_internals.ipynb",
    "show_worked_example": "05_sampler_internals.ipynb",
    "show_batch_stories": "05_sampler_internals.ipynb",
    **{check: "06_revising_and_faster.ipynb" for check in (
        "show_budgets", "plot_commit_order", "plot_threshold_trade", "plot_remasking", "plot_loop",
        "plot_entropy_perplexity")},
    **{check: "07_caching.ipynb" for check in ("plot_cache_drift", "show_costs")},
    **{check: "08_noise_without_a_mask.ipynb" for check in ("plot_changed_share", "plot_few_steps")},
}
# The plot cells whose drawing runs for seconds under the grader (quick mode): CI's profile of 2026-12-07
# measured 3 to 14 s for each wrong plot of these, 0.5 to 2 s for the next (plot_few_steps, plot_masked_histograms)
# and less for the rest. Sweeps that redraw a cell many times let these take turns (tests/support/sweeps.py).
HEAVY_DRAWINGS = {"plot_remasking", "plot_impossible_fraction", "plot_loop", "plot_cache_drift", "plot_story_loss",
                  "plot_net_sentence_bars", "plot_two_sentence_bars"}


@lru_cache(maxsize=None)
def _snapshots(notebook):
    """{plot cell: the namespace just before it} for every plot cell of the notebook, from one run of
    the notebook (once per process, not once per cell)."""
    return cells.namespaces_before(notebook, [cell for cell, nb in PLOT_CHECKS.items() if nb == notebook])


def worker_group(notebook):
    """The pytest-xdist group (tests/conftest.py) of every test that draws from this notebook's namespaces
    (the plot checks, the honest catalog): one worker runs the notebook once for all of them."""
    return f"plots of {notebook}"


def namespace(notebook, cell):
    """A fresh copy of the namespace before the plot cell (see fresh_copy)."""
    return fresh_copy(_snapshots(notebook)[cell])


def fresh_copy(cached):
    """A fresh copy (tensors too, and the dicts and lists that hold them: a mutant that writes into its
    input must not reach the next test). Functions the notebook's cells defined are rebound to the
    copy (cells.rebound)."""
    ns = {k: v.clone() if torch.is_tensor(v) else copy.deepcopy(v) if isinstance(v, (dict, list)) and k != "__builtins__"
          else v for k, v in cached.items()}
    return cells.rebound(ns, cached)


def judge(check, source, ns, seed=None):
    """Run `source` as the plot cell, then the check on what it drew with the namespace's functions."""
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    try:
        record = cells.run_cell(source, ns)
    finally:
        os.environ.pop("NBGRADER_EXECUTION", None)
    functions = [ns[name] for name in argument_names(check)[1:]]
    outcome = grading.evaluate(check, record, *functions)
    outcome.raised = record.raised  # what the plot cell itself raised, if anything
    return outcome
