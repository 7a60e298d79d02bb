"""The hidden checks of plots and printouts (grading/*_plots.py): the reference's plot cells pass,
and every wrong plot of tests/mutants/plots.py fails exactly the checks it names.

Cells run in this process with the recorder of maskdiff_client.drawn (tests/support/cells.py), as
in a kernel under the grader (quick mode). `benchmarks/plot_checks.py` repeats the reference's side
over 200 grading seeds."""
import pytest
import torch

from maskdiff_solutions import grading
from maskdiff_solutions.grading.checker import argument_names
from maskdiff_solutions.grading.core import SEED_VARIABLE
from tests.mutants.plots import MUTANTS, reference_source
from tests.support import cells
from tests.support.drawings import PLOT_CHECKS, judge, namespace


def xdist_group(item):
    """Under pytest-xdist (tests/conftest.py) the tests of one notebook's plot cells run on one worker,
    which runs that notebook once (`drawings._snapshots`); different notebooks spread over the workers."""
    params = getattr(item, "callspec", None) and item.callspec.params
    if not params:
        return None
    return "plots of " + (params["mutant"].notebook if "check" not in params else PLOT_CHECKS[params["check"]])


def test_every_plot_check_is_listed_and_has_mutants():
    checks = {name for name in grading.CHECKS if name.split(".")[0] in PLOT_CHECKS}
    assert checks == set(PLOT_CHECKS)
    caught = {check for mutant in MUTANTS for check in mutant.fails}
    assert caught == set(PLOT_CHECKS), f"plot checks with no mutant: {set(PLOT_CHECKS) - caught}"


@pytest.mark.parametrize("seed", [1])  # many more in benchmarks/plot_checks.py
@pytest.mark.parametrize("check", sorted(PLOT_CHECKS))
def test_the_reference_plot_passes(check, seed, monkeypatch):
    monkeypatch.setenv(SEED_VARIABLE, str(seed))
    notebook = PLOT_CHECKS[check]
    ns = namespace(notebook, check)
    torch.manual_seed(seed)
    outcome = judge(check, reference_source(notebook, check), ns)
    assert outcome.passed, outcome.message


@pytest.mark.slow  # redraws the heavy cells once per mutant (tens of seconds each for notebook 02's)
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.cell}:{m.name}")
def test_a_wrong_plot_fails_its_check(mutant):
    ns = namespace(mutant.notebook, mutant.cell)
    if mutant.functions:
        cells.run_cell(mutant.functions, ns)
    source = mutant.source(reference_source(mutant.notebook, mutant.cell))
    torch.manual_seed(0)
    for check in [mutant.cell]:
        outcome = judge(check, source, ns)
        assert outcome.passed == (check not in mutant.fails), f"{check}: {outcome.message}"
        if not outcome.passed:
            assert outcome.message and "the checker could not" not in outcome.message


@pytest.mark.parametrize("check", sorted(PLOT_CHECKS))
def test_a_plot_cell_left_as_the_stub_fails(check):
    notebook = PLOT_CHECKS[check]
    ns = namespace(notebook, check)
    outcome = judge(check, "# YOUR CODE HERE\nraise NotImplementedError()", ns)
    assert not outcome.passed and ("drew no figure" in outcome.message or "printed nothing" in outcome.message)


def faithful_plots():
    """(plot check, catalog mutant) for every function mutant whose function the plot's check names:
    the reference's plot cell drawn with the buggy function must still pass (the plot shows what the
    function does; the bug is charged in the function's own tests only)."""
    from tests.mutants import catalog
    pairs = []
    for check in sorted(PLOT_CHECKS):
        names = set(argument_names(check)[1:])
        pairs += [(check, m) for m in catalog() if m.function in names]
    return pairs


@pytest.mark.slow  # a sweep of every function mutant: CI runs it, the inner loop does not
@pytest.mark.parametrize("check,mutant", faithful_plots(), ids=lambda v: v if isinstance(v, str) else f"{v.function}:{v.name}")
def test_a_buggy_function_plotted_faithfully_costs_nothing(check, mutant):
    notebook = PLOT_CHECKS[check]
    ns = namespace(notebook, check)
    exec(compile(mutant.source, f"<mutant {mutant.name}>", "exec"), ns)
    torch.manual_seed(0)
    outcome = judge(check, reference_source(notebook, check), ns)
    # A function that raises (or returns something unplottable) leaves nothing to draw: that plot is lost.
    assert outcome.passed or outcome.raised is not None, f"{mutant.name}: {outcome.message}"
