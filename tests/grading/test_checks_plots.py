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
from tests.mutants import caching as caching_mutants
from tests.mutants.plots import COMPLEMENTS, MUTANTS, reference_source
from tests.support import cells, sweeps
from tests.support.drawings import HEAVY_DRAWINGS, PLOT_CHECKS, judge, namespace, worker_group


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


# The reference drawings that took 8 s or more to judge here (126 of the 149 s of all 33 in CI) take turns by day,
# one a day where they can (tests/support/sweeps.py): every run of CI still judges every notebook's reference
# drawings at the default seed through the grader (the graded batch's reference earns full marks,
# tests/course/run/test_grade.py), and every wrong plot's representatives of these cells in this process.
REFERENCE_IN_TURN = ["plot_commit_order", "plot_bars_few_steps", "plot_remasking", "plot_net_sentence_bars", "plot_loop",
                     "plot_impossible_fraction", "plot_two_sentence_bars"]


@pytest.mark.parametrize("seed", [1])  # many more in benchmarks/plot_checks.py
@pytest.mark.parametrize("check", sorted(PLOT_CHECKS))
def test_the_reference_plot_passes(check, seed, monkeypatch):
    sweeps.take_turn(check, check not in REFERENCE_IN_TURN,
                     day=REFERENCE_IN_TURN.index(check) if check in REFERENCE_IN_TURN else None)
    monkeypatch.setenv(SEED_VARIABLE, str(seed))
    notebook = PLOT_CHECKS[check]
    ns = namespace(notebook, check)
    torch.manual_seed(seed)
    outcome = judge(check, reference_source(notebook, check), ns)
    assert outcome.passed, outcome.message


def wrong_plot_name(mutant):
    return f"{mutant.cell}:{mutant.name}"


# Every wrong plot of every cell runs in every run of CI, but those of the cells whose drawing takes seconds
# (HEAVY_DRAWINGS, 45 wrong plots, 293 s of the 356 s CI measured for all 167): there, each run takes two of each
# cell, one the check fails and one it sends to a person as a complement where the cell has one, and the others
# take turns by day (tests/support/sweeps.py).
WRONG_EVERY_RUN = {wrong_plot_name(m) for m in MUTANTS if m.cell not in HEAVY_DRAWINGS} | {
    wrong_plot_name(m) for m in sweeps.representatives(
        [m for m in MUTANTS if m.cell in HEAVY_DRAWINGS], lambda m: m.cell, most=2,
        differ=lambda m: wrong_plot_name(m) in COMPLEMENTS)}


@pytest.mark.slow  # redraws the heavy cells once per mutant (tens of seconds each for notebook 02's)
@pytest.mark.parametrize("mutant", MUTANTS, ids=wrong_plot_name)
def test_a_wrong_plot_fails_its_check(mutant):
    sweeps.take_turn(wrong_plot_name(mutant), wrong_plot_name(mutant) in WRONG_EVERY_RUN)
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
        # a curve drawn as the complement of the share asked for goes to a person, named (grading/complement.py);
        # no other wrong figure does so
        complement = outcome.review and " minus the share the task asks for" in outcome.message
        assert complement == (f"{mutant.cell}:{mutant.name}" in COMPLEMENTS), outcome.message


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if f"{m.cell}:{m.name}" in (
    "plot_cache_drift:disagreement_drawn_as_the_agreement", "plot_masked_fraction:visible_share_not_masked")],
    ids=lambda m: f"{m.cell}:{m.name}")
def test_a_complement_of_the_share_goes_to_a_person_named(mutant):
    """The inner loop's sample of the slow test above: the disagreement drawn where the agreement is asked, the
    visible share where the masked one is, each named by its curve."""
    ns = namespace(mutant.notebook, mutant.cell)
    torch.manual_seed(0)
    outcome = judge(mutant.cell, mutant.source(reference_source(mutant.notebook, mutant.cell)), ns)
    assert outcome.review and not outcome.passed, outcome.message
    assert outcome.message.startswith(("the line of the axes 'share of tokens as uncached' reads as one minus",
                                       "the line 'average of 200 runs' reads as one minus")), outcome.message


@pytest.mark.parametrize("check", sorted(PLOT_CHECKS))
def test_a_plot_cell_left_as_the_stub_fails(check):
    notebook = PLOT_CHECKS[check]
    ns = namespace(notebook, check)
    outcome = judge(check, "# YOUR CODE HERE\nraise NotImplementedError()", ns)
    # the stub raised: the message names the exception (a student reads what stopped the cell)
    assert not outcome.passed and "stopped with NotImplementedError before it" in outcome.message, outcome.message


def refuses_wrongly_only(mutant):
    """A bug in what the function refuses, and nothing else: it fails only `.errors` checks (each
    proven exactly in the function's own tests), so on the valid input a drawing gives it, it does
    what the reference does, and its drawing is the reference's, which test_the_reference_plot_passes
    judges already."""
    return bool(mutant.fails) and all(check.endswith(".errors") for check in mutant.fails)


def faithful_plots():
    """(plot check, catalog mutant) for every function mutant whose function the plot's check names:
    the reference's plot cell drawn with the buggy function must still pass (the plot shows what the
    function does; the bug is charged in the function's own tests only). Mutants that only refuse
    wrongly draw the reference's picture and are left out (about 25 s of CI, notebook 06 mostly)."""
    from tests.mutants import catalog
    pairs = []
    for check in sorted(PLOT_CHECKS):
        names = set(argument_names(check)[1:])
        pairs += [(check, m) for m in catalog() if m.function in names and not refuses_wrongly_only(m)]
    return pairs


def faithful_representatives(pairs):
    """What every run of CI draws of the sweep (tests/support/sweeps.py; the others take turns by day): for
    each plot and function, one mutant, a SAMPLED one where the pair has them. Measured in CI's run of the
    whole sweep (747 s): 57 pairs, 126 s every run (two a pair whose checks fail differently took 182 s),
    and a seventh of the rest a day."""
    ordered = sorted(pairs, key=lambda pair: pair[1].name not in SAMPLED.get((pair[0], pair[1].function), ()))
    return {(check, m.function, m.name) for check, m in sweeps.representatives(
        ordered, lambda pair: (pair[0], pair[1].function)) if (check, m.function) not in STOOD_FOR}


# Pairs whose every mutant goes down a road another plot's representatives take every run, so that all of theirs
# take turns: plot_loop judges RemaskStep and RemaskSigma with plot_remasking's law gate and chains
# (grading/revising_plots.follows_law), whose representatives of the same two functions stand for them (their
# two took 36 s of CI's 126 s for every pair's).
STOOD_FOR = {("plot_loop", "RemaskStep"), ("plot_loop", "RemaskSigma")}


# The mutants chosen to stand for their plot and function (faithful_representatives takes the first of them in the
# catalog's order every run; the rest take turns by day). plot_loop judges a student's RemaskStep as plot_remasking does (grading/revising_plots.follows_law, then
# chains of their own step), and plot_remasking draws every RemaskStep mutant; and every RemaskLoop mutant
# misses the loop_plots probe, after which the figure is read for presentation alone. A few of each stand
# for the rest here: two the gate refuses and one it passes (it changes its input), and two loops
# (about 100 s of CI).
# plot_remasking's RemaskStep and RemaskSigma mutants go down the same two roads (the law's gate refuses
# them, then chains of the student's own step; or they raise): a few of each road stand for the rest,
# those that raise, change their input, draw one coin for all or none, and swap or misread sigma (about
# 100 s of CI). plot_cache_drift reads TokensProcessed's prefix count only, and the prefix cache only:
# the mutants of the other counts and of the dual cache draw the reference's figure, one of each stays.
SAMPLED = {
    ("plot_loop", "RemaskStep"): {"greedy: the guess's most likely token", "one coin for every position",
                                  "changes x_t in place"},
    ("plot_loop", "RemaskLoop"): {"every step from the x handed in", "eta taken as sigma"},
    ("plot_remasking", "RemaskStep"): {"remasks first, then the new masks may be revealed too",
                                       "changes x_t in place", "one coin for every position",
                                       "greedy: the guess's most likely token", "float ids",
                                       "divides by alpha_t = 0 at t = 1"},
    ("plot_remasking", "RemaskSigma"): {"the two schedules swapped", "sigma_max = s / t",
                                        "sigma_max without min(1, ...)", "divides by alpha_t = 0 at t = 1"},
    ("plot_cache_drift", "TokensProcessed"): {
        "prefix: later calls run the block only, not what follows it",
        "prefix: every call of a block after the refresh, s calls not s - 1",
        "prefix: later calls run from the row's start to the block's end",
        "exact: the prompt counted twice, stored and run with the first block"},
}
# notebook 08's few-steps figure redraws both samplers (seconds each): the step with another law (DUO's plug-in
# formula), a posterior without its prior and one Undiffuse stand for the rest; its changed-share figure keeps a
# sample of ForwardUniform's too (about 80 s of CI's CPU saved).
SAMPLED.update({
    ("plot_few_steps", "UniformStep"): {"DUO's formula with the guess plugged in for x_0 (it weighs the guess by "
                                        "q(x_t | x_0))"},
    ("plot_few_steps", "PosteriorUniform"): {"drops the prior"},
    ("plot_few_steps", "Undiffuse"): {"one coin for all the masks"},
    ("plot_changed_share", "ForwardUniform"): {"a replaced token never draws itself", "one coin for the whole sentence",
                                               "replaces in place", "ignores vocab_size: draws from the 13 words of the "
                                               "toy world"},
})
SAMPLED[("plot_cache_drift", "SampleBlocksPrefixCache")] = {   # all but two of the dual cache's three
    m.name for m in caching_mutants.MUTANTS if m.function == "SampleBlocksPrefixCache" and m.name not in (
        "dual: the block's own stale keys kept in the cache", "dual: later calls numbered from position 0 (start not passed)")}


FAITHFUL = faithful_plots()
FAITHFUL_EVERY_RUN = faithful_representatives(FAITHFUL)


@pytest.mark.slow  # a sweep of every function mutant: CI runs its representatives and today's turn of the rest
@pytest.mark.parametrize("check,mutant", FAITHFUL, ids=lambda v: v if isinstance(v, str) else f"{v.function}:{v.name}")
def test_a_buggy_function_plotted_faithfully_costs_nothing(check, mutant):
    sweeps.take_turn(f"{check}-{mutant.function}:{mutant.name}", (check, mutant.function, mutant.name) in FAITHFUL_EVERY_RUN)
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


# ---- notebook 06 ----------------------------------------------------------------------------------

NB06 = "06_revising_and_faster.ipynb"


@pytest.mark.parametrize("check", ["plot_threshold_trade"])  # (on the worker of notebook 06's plots)
def test_the_exact_laws_the_checks_follow_are_the_pages_numbers(check):
    """Every branch of ParallelTwo followed with the reference's CommitAbove, and the Markov chain of
    RemaskTwo over the 36 canvases, give the numbers the notebook states."""
    from maskdiff_solutions import revising
    from maskdiff_solutions.grading import revising_plots as nb06
    from maskdiff_solutions.grading.core import as_student
    laws = nb06.threshold_laws(as_student(revising.CommitAbove))
    facts = {tau: nb06._law_facts(law)[:2] for tau, law in laws.items()}
    assert all(abs(facts[tau][0] - 0.32) < 1e-6 and abs(facts[tau][1] - 1) < 1e-9 for tau in (0.05, 0.1))
    assert all(facts[tau][0] == 0 and abs(facts[tau][1] - 1.3744) < 1e-9 for tau in (0.3, 0.5, 0.7))
    assert facts[0.9] == (0, pytest.approx(3)) and facts[1.0] == (0, pytest.approx(4))
    for (name, eta, schedule), wanted in zip(nb06.ROLES, ([0.32 / T for T in nb06.TS],
                                                           [0.32, 0.16, 0.12, 0.0775, 0.04795, 0.03089])):
        rates = [nb06.exact_rate(T, {k: revising.RemaskSigma(k / T, (k - 1) / T, eta, schedule)
                                     for k in range(1, T + 1)}) for T in nb06.TS]
        assert rates == pytest.approx(wanted, abs=6e-6), name


# A run of the remasking plot under the grader: 400 sentences per T, no impossible one at T = 32 without
# remasking (about 2 % of runs under the grader).
REMASK_ZERO = ("Ts = [1, 2, 4, 8, 16, 32]\n"
               "plain = [322 / 1000, 158 / 1000, 83 / 1000, 38 / 1000, 21 / 1000, 0 / 1000]\n"
               "remasked = [318 / 1000, 163 / 1000, 118 / 1000, 80 / 1000, 46 / 1000, 31 / 1000]\n"
               'plt.loglog(Ts, remasked, "s-", label="remasking")\n')
REMASK_ZERO_WAYS = {
    "kept_in_the_data": ('plt.loglog(Ts, plain, "o-", label="no remasking")\n', True),
    "left_out_the_line_reaches_32": ('kept = [(T, f) for T, f in zip(Ts, plain) if f > 0]\n'
                                     'plt.loglog(*zip(*kept), "o-", label="no remasking")\n', True),
    "marked_apart": ('kept = [(T, f) for T, f in zip(Ts, plain) if f > 0]\n'
                     'plt.loglog(*zip(*kept), "o-", label="no remasking")\n'
                     'plt.loglog([32], [1e-3], "v", label="no remasking: none at T = 32")\n', True),
    "marked_in_the_series": ('plt.loglog(Ts, [max(f, 1e-4) for f in plain], "o-", label="no remasking")\n', True),
    "nan_for_zero": ('plt.loglog(Ts, [f if f > 0 else float("nan") for f in plain], "o-", label="no remasking")\n',
                     True),
}


@pytest.mark.parametrize("check", ["plot_remasking"])
@pytest.mark.parametrize("way", sorted(REMASK_ZERO_WAYS) + ["T_32_nowhere"])
def test_a_zero_on_the_remasking_plot_drawn_as_the_task_allows(check, way):
    """The task's zero rule: a share of 0 kept in the data, left out while the figure still reaches
    T = 32, or marked apart earns the points; T = 32 nowhere on the figure does not."""
    if way == "T_32_nowhere":   # every curve stops at T = 16: T = 32 was never measured, as far as anyone can tell
        source = (REMASK_ZERO.replace('plt.loglog(Ts, remasked', 'plt.loglog(Ts[:-1], remasked[:-1]')
                  + 'plt.loglog(Ts[:-1], plain[:-1], "o-", label="no remasking")\n'
                  + 'plt.loglog(Ts[:-1], [0.32 / T for T in Ts[:-1]], "k--", label="0.32 / T")\n')
        earns = False
    else:
        drawing, earns = REMASK_ZERO_WAYS[way]
        source = REMASK_ZERO + drawing + 'plt.loglog(Ts, [0.32 / T for T in Ts], "k--", label="0.32 / T")\n'
    source += 'plt.xlabel("T")\nplt.ylabel("impossible sentences")\nplt.legend()\nplt.show()\n'
    outcome = judge(check, source, namespace(NB06, check))
    assert outcome.passed == earns, outcome.message


@pytest.mark.parametrize("check", ["plot_threshold_trade"])
def test_shares_of_runs_whose_counts_are_all_even_are_read_as_enough_runs(check):
    """200 runs whose counts all happen to be even read as shares of 100 runs: they could be counts of
    200 runs (about 1 run in 30), so the figure earns its points; 10 runs cannot and go to a person."""
    even = ("TAUS = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]\n"
            "impossible = [64 / 200, 62 / 200, 0, 0, 0, 0, 0]\n"
            "calls = [1, 1, 276 / 200, 274 / 200, 278 / 200, 3, 4]\n")
    few = ("TAUS = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]\n"
           "impossible = [3 / 10, 4 / 10, 0, 0, 0, 0, 0]\n"
           "calls = [1, 1, 14 / 10, 13 / 10, 14 / 10, 3, 4]\n")
    draw = ('fig, (a, b) = plt.subplots(1, 2)\na.plot(TAUS, impossible, "o-")\n'
            'a.set(xlabel="tau", ylabel="impossible sentences")\nb.plot(TAUS, calls, "o-")\n'
            'b.set(xlabel="tau", ylabel="calls")\nplt.show()\n')
    ns = namespace(NB06, check)
    outcome = judge(check, even + draw, ns)
    assert outcome.passed, outcome.message
    outcome = judge(check, few + draw, namespace(NB06, check))
    assert not outcome.passed and outcome.review and "10 runs" in outcome.message, outcome.message


# ---- notebook 07 ----------------------------------------------------------------------------------

NB07 = "07_caching.ipynb"


def _cell_with(notebook, cell, old, new):
    """A function of the notebook's solution cell `cell` with one edit, as a student would have written it."""
    source = next(c.source for c in cells.notebook_cells(notebook) if cells.nbtools.grade_id(c) == cell)
    assert old in source, old
    return source.replace(old, new)


GREEDY = "confidence, candidates = candidate_distributions(denoiser, x, controls).max(dim=-1)"
DRAWS = ("probabilities = candidate_distributions(denoiser, x, controls)\n"
         "            candidates = torch.multinomial(probabilities[0], 1).T\n"
         "            confidence = probabilities.gather(-1, candidates[..., None])[..., 0]")


@pytest.mark.parametrize("check", ["plot_cache_drift"])
def test_samplers_that_draw_at_random_send_the_drift_to_a_person(check):
    """The drift figure is compared with the student's samplers run again; a SampleBlocks that draws its
    candidates gives other numbers each run, so its faithful figure cannot be judged: review, not a fail."""
    ns = namespace(NB07, check)
    cells.run_cell(_cell_with(NB07, "carried_from_06", GREEDY, DRAWS), ns)
    outcome = judge(check, reference_source(NB07, check), ns)
    assert outcome.review and "different numbers" in outcome.message, outcome.message


@pytest.mark.parametrize("check,cell,old,new", [
    ("show_costs", "SampleBlocksCached", "        if j < blocks - 1:\n", "        if False:\n"),   # no clean pass
    ("plot_cache_drift", "SampleBlocksPrefixCache", "            if call == 0:\n", "            if call == 0 and j == 0:\n"),
], ids=["exact cache without its clean passes", "prefix cache refreshed once"])
def test_a_buggy_cache_shown_faithfully_keeps_the_drawings_points(check, cell, old, new):
    """Buggy caches (their counts and drift differ from the formulas: a key change nowhere, with one
    refresh) drawn or printed as the reference cell does: the check compares with what they do."""
    ns = namespace(NB07, check)
    cells.run_cell(_cell_with(NB07, cell, old, new), ns)
    outcome = judge(check, reference_source(NB07, check), ns)
    assert outcome.raised is None and outcome.passed, outcome.message


@pytest.mark.parametrize("check,notebook", [("show_budgets", NB06), ("show_costs", NB07)])
def test_a_table_pandas_wrapped_goes_to_a_person(check, notebook):
    """Rows the reader cannot follow because pandas wrapped a wide table in blocks (lines ending in a
    backslash) are sent to a person, never failed (grading/plots.printout_missing)."""
    ns = namespace(notebook, check)
    outcome = judge(check, 'print("   n  steps  \\\\\\n0  10      4  \\\\\\n\\n   even\\n0  [3, 3]")', ns)
    assert outcome.review and not outcome.passed, outcome.message
    assert "wrapped in blocks" in outcome.message
