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
from tests.support.drawings import PLOT_CHECKS, judge, namespace, worker_group


def xdist_group(item):
    """Under pytest-xdist (tests/conftest.py) the tests of one notebook's plot cells run on one worker,
    which runs that notebook once (`drawings._snapshots`); different notebooks spread over the workers."""
    params = getattr(item, "callspec", None) and item.callspec.params
    if not params:
        return None
    return worker_group(params["mutant"].notebook if "check" not in params else PLOT_CHECKS[params["check"]])


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


# A run of notebook 02's last plot under the grader: 400 sentences per T, the counts the reference's
# rates make likely, and no impossible sentence at T = 50 (about 8 % of runs under the grader).
ZERO_AT_50 = ("Ts = [1, 2, 4, 10, 20, 50]\n"
              "fractions = [128 / 400, 64 / 400, 32 / 400, 13 / 400, 6 / 400, 0 / 400]\n")
ZERO_WAYS = {  # way -> (the drawing, whether it earns the points)
    "kept_in_the_data": ('plt.loglog(Ts, fractions, "o", label="measured")\n'
                         'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n', True),
    "dropped_the_line_reaches_50": ('kept = [(T, f) for T, f in zip(Ts, fractions) if f > 0]\n'
                                    'plt.loglog(*zip(*kept), "o", label="measured (0 at T = 50 left out)")\n'
                                    'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n', True),
    "dropped_an_axline": ('kept = [(T, f) for T, f in zip(Ts, fractions) if f > 0]\n'
                          'plt.loglog(*zip(*kept), "o", label="measured")\n'
                          'plt.axline((1, 0.32), (10, 0.032), color="k", label="0.32 / T")\n'
                          'plt.xlim(0.8, 60)\n', True),
    "marked_apart": ('kept = [(T, f) for T, f in zip(Ts, fractions) if f > 0]\n'
                     'plt.loglog(*zip(*kept), "o", label="measured")\n'
                     'plt.loglog([50], [1e-3], "v", color="C0", label="0 impossible at T = 50")\n'
                     'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n', True),
    "marked_in_the_series": ('plt.loglog(Ts, [max(f, 1e-4) for f in fractions], "o", label="measured (0 drawn at 1e-4)")\n'
                             'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n', True),
    "nan_for_zero": ('plt.loglog(Ts, [f if f > 0 else float("nan") for f in fractions], "o", label="measured")\n'
                     'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n', True),
    # T = 50 nowhere on the figure: it was never measured, as far as anyone can tell
    "dropped_with_T_50": ('kept = [(T, f) for T, f in zip(Ts, fractions) if f > 0]\n'
                          'plt.loglog(*zip(*kept), "o", label="measured")\n'
                          'plt.loglog([T for T, _ in kept], [0.32 / T for T, _ in kept], "k--", label="0.32 / T")\n',
                          False),
}


@pytest.mark.parametrize("check", ["plot_impossible_fraction"])
@pytest.mark.parametrize("way", sorted(ZERO_WAYS))
def test_a_zero_at_T_50_drawn_as_the_task_allows(check, way):
    """The task's rule for a fraction of 0 on log axes: kept in the data, left out while the figure
    still reaches T = 50, or marked apart; each earns the points, and leaving T = 50 off the figure
    does not."""
    drawing, earns = ZERO_WAYS[way]
    source = (ZERO_AT_50 + drawing + 'plt.xlabel("number of steps T")\n'
              'plt.ylabel("fraction of impossible sentences")\nplt.legend()\nplt.show()\n')
    outcome = judge(check, source, namespace(PLOT_CHECKS[check], check))
    assert outcome.passed == earns, outcome.message


@pytest.mark.parametrize("check", ["plot_impossible_fraction"])  # (on the worker of notebook 02's plots)
def test_a_zero_where_the_rate_is_high_still_fails(check):
    """A dropped or zero point is read as a measured 0, which must be as plausible as any value: at
    T = 1 (about 32 % impossible) it is not."""
    source = (ZERO_AT_50.replace("128 / 400", "0 / 400") + ZERO_WAYS["kept_in_the_data"][0]
              + 'plt.xlabel("T")\nplt.ylabel("fraction")\nplt.show()\n')
    outcome = judge(check, source, namespace(PLOT_CHECKS[check], check))
    assert not outcome.passed and "at T = 1" in outcome.message, outcome.message
