"""Hidden check of notebook 06's drawing `plot_loop`: ReMDM's loop in the two-sentence world.

The figure holds, for eta = 0.2 and 0.05, the measured share of impossible sentences of LoopTwo at each
number n of loop steps, the exact curves LoopExact(n, eta) and the level 0.32/T = 0.08 (T = 4). As for
plot_remasking (revising_plots.py), the measured shares are judged against what the student's own
functions make: exactly, over the 36 canvases, where their RemaskLoop calls the step as the task says
(a stand-in step records the calls: no randomness), their RemaskStep passes the one-step gate and their
RemaskSigma gives a number; otherwise against chains of their RemaskStep run here. A RemaskLoop that
does not call the step as the task says has lost its own points; its figure is read for what does not
depend on it (the exact curves, the level, the labels).
"""
import functools
import math
import re

import numpy as np
import torch

from .. import experiments as world
from .. import stats
from . import plots
from .core import ALPHA, Failure, check, expect
from .plots import runs_asked
from .revising import LOOP_CASES, LoopSigma, LoopStep, loop_calls, loop_guess
from .revising_plots import CANVASES, IMPOSSIBLE_AT, INDEX, _sentence, enough_runs, follows_law, kernel, share_fits

ETAS = (0.2, 0.05)
NS = (0, 1, 2, 4, 8, 16, 32)
T = world.LOOP_T
LEVEL = 0.32 / T
MAX_EXACT_N = 128      # an exact curve drawn densely is compared at each whole n up to this
FRESH_RUNS = 120          # chains of the student's RemaskStep per (eta, n) where the exact law does not apply
GATE_DRAWS, GATE_ALPHA = 300, 1e-3
ETA_WORDS = {0.2: re.compile(r"(?<![\d.])0?\.2(?![\d])|(?<![\d.])0?\.20(?![\d])"),
             0.05: re.compile(r"(?<![\d.])0?\.05(?![\d])")}
EXACT_WORDS = re.compile(r"exact|theor|markov|chain|predict|loopexact", re.I)


def exact_law(sigma, n):
    """P(LoopTwo ends impossible) with a step that follows the reference's law and this loop sigma."""
    law = np.zeros(len(CANVASES))
    law[INDEX[(world.MASK,) * 4]] = 1.0
    for k in range(T, 1, -1):
        law = law @ kernel(k / T, (k - 1) / T, 0.0)
    law = law @ np.linalg.matrix_power(kernel(1 / T, 1 / T, sigma), n)
    law = law @ kernel(1 / T, 0.0, 0.0)
    return float(law[IMPOSSIBLE_AT].sum())


def _loop_as_asked(RemaskLoop):
    """Does the student's RemaskLoop call the step as the task says (the check's stand-ins, no verdict)?"""
    case = LOOP_CASES[0]
    step, sigma_of = LoopStep(), LoopSigma()
    x, t, n, mask, eta = case[:5]
    result = RemaskLoop.calls([[step, sigma_of, x.clone(), t, n, loop_guess, mask, eta]])[0]
    if result[0] != "ok":
        return False
    try:
        loop_calls(step, sigma_of, case, "")
    except Failure:
        return False
    return True


def _sigmas(RemaskSigma):
    """{eta: the student's sigma at the loop's time}, or None where it raised or gave no number."""
    out = {}
    for eta, result in zip(ETAS, RemaskSigma.calls([[1 / T, 1 / T, eta, "cap"] for eta in ETAS])):
        try:
            value = float(result[1]) if result[0] == "ok" else math.nan
        except (TypeError, ValueError):
            value = math.nan
        out[eta] = value if math.isfinite(value) and 0 <= value <= 1 else None
    return out


def _gate(RemaskStep, sigmas):
    """Does one step of the student's RemaskStep follow the reference's law at the steps LoopTwo takes?"""
    asks = [("_ _ _ _", 1.0, 0.0, 0.0), ("_ _ _ _", 1.0, 0.75, 0.0), ("the cat _ _", 1 / T, 0.0, 0.0)]
    asks += [(words, 1 / T, 1 / T, sigma) for sigma in sigmas.values() for words in ("the cat is empty", "the _ is _")]
    return follows_law(RemaskStep, asks, GATE_DRAWS, GATE_ALPHA)


def fresh_chains(RemaskStep, sigmas, runs=FRESH_RUNS):
    """{(eta, n): (impossible, runs)} of LoopTwo run with the student's RemaskStep (all chains of one
    stage in one request), the loop as n steps from 1/T to 1/T with their sigma; None where a chain broke."""
    chains = {(eta, n, r): (world.MASK,) * 4 for eta in ETAS if sigmas[eta] is not None for n in NS
              for r in range(runs)}
    left = {key: key[1] for key in chains}
    broken = set()
    stages = [(k / T, (k - 1) / T, None) for k in range(T, 1, -1)] + [("loop",)] * max(NS) + [(1 / T, 0.0, None)]
    for stage in stages:
        if stage == ("loop",):
            active = [key for key in chains if left[key] > 0 and key[:2] not in broken]
            for key in active:
                left[key] -= 1
            times = lambda key: (1 / T, 1 / T, sigmas[key[0]])   # noqa: E731
        else:
            active = [key for key in chains if key[:2] not in broken]
            times = lambda key, stage=stage: (stage[0], stage[1], 0.0)   # noqa: E731
        if not active:
            continue
        inputs = [[torch.tensor(chains[key]), *times(key)[:2], world.GuessX0_two, world.MASK, times(key)[2]]
                  for key in active]
        for key, result in zip(active, RemaskStep.calls(inputs)):
            after = _sentence(result)
            if after is None or not all(0 <= v < len(world.vocab) for v in after):
                broken.add(key[:2])
            else:
                chains[key] = after
    out = {}
    for (eta, n, r), x in chains.items():
        if (eta, n) not in broken:
            k, m = out.get((eta, n), (0, 0))
            out[(eta, n)] = (k + bool(world.Impossible(torch.tensor(x))), m + 1)
    return out


# ---- reading the figure --------------------------------------------------------------------------

def _at_ns(series):
    """{n: value} of a series drawn at loop steps of NS, or None."""
    ns = [int(round(x)) for x in series.x]
    if not np.allclose(series.x, ns) or len(set(ns)) != len(ns) or not set(ns) <= set(NS):
        return None
    return {n: float(y) for n, y in zip(ns, series.y)}


@functools.lru_cache(maxsize=None)
def _loop_exact(n, eta):
    return world.LoopExact(n, eta)


def _exact_eta(series, scale):
    """The eta whose exact curve this series is, or None: LoopExact(n, eta) at every n it is drawn at,
    whole numbers from 0 to MAX_EXACT_N (only at NS, or densely, at every n, as a curve or in steps),
    at least 4 of NS among them."""
    ns = np.round(series.x)
    if series.kind == "bars" or ns.size < 4 or not np.allclose(series.x, ns) or len(set(ns)) != ns.size \
            or not 0 <= ns.min() <= ns.max() <= MAX_EXACT_N or len(set(ns) & set(NS)) < 4:
        return None
    for eta in ETAS:
        if all(abs(y - scale * _loop_exact(int(n), eta)) <= plots.TOLERANCE * scale for n, y in zip(ns, series.y)):
            return eta
    return None


def _level(ax, scale):
    if any(abs(y - scale * LEVEL) <= plots.TOLERANCE * scale for y in ax.hlines):
        return True
    return any(s.y.size >= 2 and np.allclose(s.y, scale * LEVEL, atol=plots.TOLERANCE * scale) for s in ax.series)


def _eta_named(ax, series):
    label = series.label if series.label and not series.label.startswith("_") else ""
    for text in (label, ax.title):
        named = [eta for eta in ETAS if ETA_WORDS[eta].search(text)]
        if len(named) == 1 and not EXACT_WORDS.search(text):
            return named[0]
    return None


def read_loop(drawing):
    """(scale, measured [(series, {n: share}, eta named or None)], {eta: the series drawn as its exact curve},
    level drawn, axes used). A series that is the exact law, drawn as a curve or as points, is an exact curve."""
    for scale in (1, 100):
        measured, exact, level, used = [], {}, False, []
        for ax in drawing.axes:
            mine = False
            for series in ax.series:
                eta = _exact_eta(series, scale)
                if eta is not None:
                    exact.setdefault(eta, []).append(series)
                    mine = True
                    continue
                values = _at_ns(series)
                if values is None:
                    continue
                if len(values) >= len(NS) - 1 and all(0 <= v <= scale for v in values.values()):
                    measured.append((ax, series, {n: v / scale for n, v in values.items()}, _eta_named(ax, series)))
                    mine = True
            if _level(ax, scale):
                level, mine = True, True
            if mine:
                used.append(ax)
        if len(measured) >= 2 or exact:
            return scale, measured, exact, level, used
    plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points; it should show the "
                           f"measured share of impossible sentences at n = {', '.join(map(str, NS))} for eta = 0.2 and "
                           f"0.05, the exact curves LoopExact(n, eta) and the line 0.08")


@check("plot_loop")
def plot_loop(drawn, RemaskStep, RemaskSigma, RemaskLoop):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the share of impossible sentences against the loop steps n, for eta = 0.2 and 0.05")
    scale, measured, exact, level, used = read_loop(drawing)
    if len(measured) < 2:
        _exact_twice(drawing, exact)
        plots.missing(drawing, f"your figure shows {len(measured)} measured curve(s) at n = {', '.join(map(str, NS))}: "
                               f"draw the share of impossible sentences of LoopTwo for each eta of {list(ETAS)}")
    for eta in ETAS:
        if eta not in exact:
            plots.missing(drawing, f"the exact curve LoopExact(n, {eta}) is not in your figure (as a curve through "
                                   f"n = {', '.join(map(str, NS))})")
    if not level:
        plots.missing(drawing, f"the rate without a loop, 0.32/T = {LEVEL:g} at T = {T}, is not drawn as a horizontal line")
    expect(any(ax.xlabel for ax in used) and any(ax.ylabel for ax in used), "label both axes (plt.xlabel / plt.ylabel)")
    expect(any(ax.legend for ax in used), "add a legend that says which curve is which (plt.legend())")
    found = plots.runs_behind_means([v for _, _, shares, _ in measured for v in shares.values()], 1)
    if found is None:
        raise Failure("the measured shares are no shares of runs (no number of runs up to 100000 makes them whole "
                      "counts): plot the share of impossible sentences your runs of LoopTwo made")
    if not _loop_as_asked(RemaskLoop):
        return   # RemaskLoop lost its own points; what it drew cannot be told from the task's law here
    sigmas = _sigmas(RemaskSigma)
    if not any(v is not None for v in sigmas.values()):
        return   # RemaskSigma raised: the figure could not have been drawn from it
    laws = None
    if all(v is not None for v in sigmas.values()) and _gate(RemaskStep, sigmas):
        laws = {(eta, n): exact_law(sigmas[eta], n) for eta in ETAS for n in NS}
    fresh = None if laws is not None else fresh_chains(RemaskStep, sigmas)
    asked = runs_asked(2500)
    runs = max(found, asked)
    pairings = _pairings(measured)
    expect(pairings, "say in the legend which measured curve has eta = 0.2 and which eta = 0.05")
    problems = []
    for pairing in pairings:
        try:
            _judge(pairing, runs, laws, fresh)
        except Failure as failure:
            problems.append(str(failure))
            continue
        groups = [[np.array([1 - p, p])] for p in (laws or {}).values()] or \
                 [[np.array([1 - k / m, k / m])] for k, m in fresh.values() if m]
        enough_runs(found, asked, groups, "the measured shares", "repeats(2500)")
        return
    raise Failure(problems[0])


def _exact_twice(drawing, exact):
    """Too few measured curves, and one eta's exact law drawn twice: the one not named exact stands where
    the runs should be."""
    for eta, drawn_as in exact.items():
        if len(drawn_as) > 1:
            posing = next((s for s in drawn_as if not EXACT_WORDS.search(s.label)), drawn_as[1])
            plots.missing(drawing, f"{posing.describe()} is the exact law LoopExact(n, {eta}), not shares of your "
                                   f"runs: plot the share of impossible sentences your runs of LoopTwo made")


def _pairings(measured):
    """Ways to give the measured curves their etas: by their labels where they say, else every way."""
    out = []
    for a in range(len(measured)):
        for b in range(len(measured)):
            if a != b and measured[a][3] in (ETAS[0], None) and measured[b][3] in (ETAS[1], None):
                out.append({ETAS[0]: measured[a], ETAS[1]: measured[b]})
    return out


def _judge(pairing, runs, laws, fresh):
    """Each drawn share against the exact law of the student's functions (Chernoff), and the whole curve
    against the law of a sampler whose loop never ran (a likelihood-ratio test: no single n can tell);
    or against their fresh chains (two-sample), and the sum over n against them (Hoeffding)."""
    alpha = ALPHA / 3 / (len(ETAS) * (len(NS) + 2))
    for eta, (_, series, shares, _) in pairing.items():
        counts = [shares[n] * runs for n in NS if n in shares]
        if laws is not None and all(abs(k - round(k)) < 1e-6 for k in counts):
            kept = [n for n in NS if n in shares]
            verdict = stats.likelihood_ratio_test([round(k) for k in counts], runs, [laws[(eta, n)] for n in kept],
                                                  [laws[(eta, 0)]] * len(kept), alpha)
            expect(verdict.ok, f"{series.describe()} (eta = {eta}) stays where the sampler without a loop is "
                               f"(0.08) at every n: {verdict.summary}; run LoopTwo with n loop steps for each n of "
                               f"NS")
        if laws is None and all(fresh.get((eta, n)) for n in shares):
            gap = sum(shares[n] - fresh[(eta, n)][0] / fresh[(eta, n)][1] for n in shares)
            bound = math.sqrt(math.log(2 / alpha) / 2 * sum(1 / runs + 1 / fresh[(eta, n)][1] for n in shares))
            expect(abs(gap) <= bound, f"in {series.describe()} (eta = {eta}) the shares add up to "
                                      f"{sum(shares.values()):.3f} over n, but runs of LoopTwo with your RemaskStep "
                                      f"drawn by the grader add up to {sum(shares.values()) - gap:.3f}; more than "
                                      f"chance allows ({bound:.3f})")
        for n, share in shares.items():
            if laws is not None:
                p = laws[(eta, n)]
                expect(share_fits(share, runs, p, alpha),
                       f"at n = {n} the share of impossible sentences (eta = {eta}) is {share:.4f} in "
                       f"{series.describe()}, but LoopTwo with your RemaskStep, RemaskSigma and RemaskLoop makes "
                       f"them with probability {p:.4f} exactly (computed over every canvas); over {runs} runs more "
                       f"than chance allows")
            elif fresh.get((eta, n)):
                k, m = fresh[(eta, n)]
                expect(plots.same_share(share * runs, runs, k, m, alpha),
                       f"at n = {n} the share of impossible sentences (eta = {eta}) is {share:.4f} in "
                       f"{series.describe()}, but {k} of {m} runs of LoopTwo with your RemaskStep drawn by the "
                       f"grader ({k / m:.4f}); more than chance allows")
