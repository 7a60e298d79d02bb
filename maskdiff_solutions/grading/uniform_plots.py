"""Hidden checks of notebook 08's figures: they read what the student drew (grading/plots.py) and compare it
with fresh runs of the student's own functions, so a bug in ForwardUniform, PosteriorUniform, UniformStep or
Undiffuse is charged in that function's tests only (a figure drawn faithfully from a buggy function keeps its
points); where a function raises, the figure is compared with the right law instead.

- plot_changed_share: the average share of the 16 tokens of SCHRODINGER that ForwardUniform(x0, 1 - t, 13)
  changed at each t = k/20, against fresh runs of the student's ForwardUniform (Hoeffding on each mean, the
  runs behind the drawn means read from their values), beside the theory t (1 - 1/13) and notebook 1's masked
  share t; labelled axes and a legend.
- plot_few_steps: the measured shares of impossible sentences of UniformTwo(UniformStep, T) and
  AbsorbingTwo(Undiffuse, T) at T = 1, 2, 4, 8, against runs of the same samplers with the student's own
  functions (the notebook's GuessUniform_two, which calls their PosteriorUniform, and GuessX0_two), either
  curve either way round; the exact curve UniformExact(T) and the line 0.32/T; log-log axes, labelled axes and
  a legend. A 0 that a log axis cannot show may be kept, left out or marked apart, as the task says.

What the task texts must state, since the checks hold students to it: every element above, the runs
(repeats(1000) in both), the times, the sentence, the Ts.
"""
import math
import re

import numpy as np
import torch

from .. import stats
from .. import uniform as world
from . import plots
from .core import ALPHA, Failure, check, expect, handle
from .plots import reaches, runs_asked

# ---- plot_changed_share -------------------------------------------------------------------------

X0 = world.Encode(world.SCHRODINGER)
L = X0.numel()
TIMES = [k / 20 for k in range(21)]
OWN_RUNS = 150          # fresh calls of the student's ForwardUniform at each t


def changed_theory(t):
    return t * (1 - 1 / world.N_WORDS)


def _own_shares(ForwardUniform):
    """The student's ForwardUniform at every t: (mean share changed per t, runs), or None where it raised,
    returned something that is no sentence of 16 ids, or changed x0 in place (then the figure's x0 changed
    under it too, and fresh runs cannot say what it drew)."""
    args = [[X0, 1 - t, world.N_WORDS] for t in TIMES for _ in range(OWN_RUNS)]
    shares = []
    for result in ForwardUniform.calls(args):
        if result[0] != "ok" or 0 in result[2]:
            return None
        try:
            x = torch.as_tensor(np.asarray(result[1].detach().cpu() if torch.is_tensor(result[1]) else result[1]))
            x = x.reshape(-1)
        except (TypeError, ValueError, RuntimeError, AttributeError):
            return None
        if x.numel() != L:
            return None
        shares.append(float((x != X0).double().mean()))
    return np.array(shares).reshape(len(TIMES), OWN_RUNS).mean(axis=1), OWN_RUNS


def _on(series, values, scale):
    """Does the series hold scale * values at every t of TIMES (within the plots' tolerance)?"""
    return plots.matches(series, TIMES, scale * np.asarray(values), coverage=0.9)


@check("plot_changed_share")
def plot_changed_share(drawn, ForwardUniform):
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("the average share of changed tokens against t, with t (1 - 1/13) and t")
    theory, masked = [changed_theory(t) for t in TIMES], list(TIMES)
    found = None
    for ax in axes:
        for scale in (1, 100):
            lines = [s for s in ax.series if _on(s, theory, scale)
                     or plots.on_curve(s, lambda x: scale * changed_theory(np.asarray(x)), 0, 1)]
            marks = [s for s in ax.series if all(s is not line for line in lines) and (_on(s, masked, scale)
                                                                 or plots.on_curve(s, lambda x: scale * x, 0, 1))]
            if lines and marks:
                found = ax, lines[0], marks[0], scale
                break
        if found:
            break
    if found is None:
        wanted = [name for name, values in (("the theory t (1 - 1/13)", theory), ("notebook 1's masked share t", masked))
                  if not any(_on(s, values, c) for _, s in drawing.series() for c in (1, 100))]
        plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points; on one axes "
                               f"it should show the theory t (1 - 1/13) and notebook 1's masked share t at every t "
                               f"from 0 to 1 (as fractions or percent)"
                      + (f"; the reader found no {' and no '.join(wanted)}" if wanted else ""))
    ax, theory_series, masked_series, scale = found
    data = [(s, plots.values_at(s, TIMES) / scale) for s in ax.series if s is not theory_series and s is not masked_series]
    data = [(s, v) for s, v in data if v is not None and (~np.isnan(v)).sum() >= 0.9 * len(TIMES)]
    expect(data, "beside the two lines your figure should show the measured average share of changed tokens at "
                 "every t = 0, 0.05, ..., 1")
    expect(ax.labelled(), "label both axes (plt.xlabel / plt.ylabel)")
    expect(ax.legend, "add a legend that says which curve is which (plt.legend())")
    own = _own_shares(ForwardUniform)
    problems = []
    for series, values in data:
        seen = ~np.isnan(values)
        inner = seen & (np.array(theory) > 1e-9)
        if inner.any() and np.allclose(values[inner], np.array(theory)[inner], atol=1e-9):
            problems.append(f"{series.describe()} is exactly the theory t (1 - 1/13): plot the average your runs of "
                            f"ForwardUniform measured")
            continue
        runs = plots.runs_behind_means(values, L)
        if runs is None:
            problems.append(f"{series.describe()} is not an average over runs of ForwardUniform (no number of runs up "
                            f"to 100000 makes its values whole counts of changed tokens out of {L}): plot what your "
                            f"runs measured")
            continue
        spread = values[seen][(values[seen] > 1e-9) & (values[seen] < 1 - 1e-9)]
        if runs < runs_asked(1000) and spread.size >= 5:
            problems.append(f"{series.describe()} is an average over {runs} runs (the fewest that make its values "
                            f"whole counts of changed tokens); the task asks for repeats(1000), {runs_asked(1000)} "
                            f"under the autograder")
            continue
        if own is not None:
            expected, label = own[0], f"your ForwardUniform ({own[1]} runs drawn by the grader)"
            bound = plots.mean_gap_bound(runs, own[1], ALPHA / len(TIMES))
        else:   # the function raised or changed its input: the right law
            expected, label = np.array(theory), "the law t (1 - 1/13)"
            bound = plots.mean_gap_bound(runs, 10 ** 12, ALPHA / len(TIMES))
        gap = np.abs(values[seen] - expected[seen])
        if gap.max() <= bound:
            return
        worst = int(np.flatnonzero(seen)[gap.argmax()])
        problems.append(f"at t = {TIMES[worst]:g} your plot shows {values[worst]:.3f} changed on average over {runs} "
                        f"runs, but {label} gives {expected[worst]:.3f}; more than chance allows ({bound:.3f})")
    raise Failure(problems[0])


# ---- plot_few_steps -----------------------------------------------------------------------------

TS = (1, 2, 4, 8)
CHAINS = 100            # fresh runs of each sampler at each T, with the student's functions
SAMPLERS = ("uniform noise", "masks")


def exact(sampler, T):
    return world.UniformExact(T)["impossible"] if sampler == 0 else 0.32 / T


EXACT = {}


def _exact(sampler, T):
    if (sampler, T) not in EXACT:
        EXACT[(sampler, T)] = exact(sampler, T)
    return EXACT[(sampler, T)]


def _holds(series, function, scale):
    """Does the series draw scale * function(T) at every T of TS (an endless line through them counts)?"""
    want = np.array([scale * function(T) for T in TS])
    line = plots.endless(series)
    drawn = np.asarray(line(np.array(TS, dtype=float)), dtype=float) if line is not None else plots.values_at(series, TS)
    return drawn is not None and bool(np.all(np.isfinite(drawn))) and np.allclose(drawn, want, rtol=2e-3, atol=1e-12)


def _shares(ax, series, scale):
    """{T: share} of a measured series: a value a log axis cannot show (0, NaN) read as 0, and the largest Ts
    left out while the axes still reach them read as 0 (the task's zero rule); None if it is not at the Ts."""
    if series.style.get("axline") or not series.x.size:
        return None
    Ts = [int(round(x)) for x in series.x if np.isfinite(x)]
    if len(Ts) != series.x.size or not np.allclose(series.x, Ts) or len(set(Ts)) != len(Ts) or not set(Ts) <= set(TS):
        return None
    shares = {T: (float(y) / scale if np.isfinite(y) and y > 0 else 0.0) for T, y in zip(Ts, series.y)}
    for T in TS:
        if T > max(Ts) and reaches(ax, T, series):
            shares[T] = 0.0
    return shares if set(shares) == set(TS) else None


def _figure(drawing):
    """(axes used, [(axes, series, {T: share})], scale) of the figure, or the failure that says what is missing."""
    for scale in (1, 100):
        used, data, theory = [], [], {0: False, 1: False}
        for ax in drawing.axes:
            lines = {}
            for series in ax.series:
                for sampler in (0, 1):
                    if _holds(series, lambda T, k=sampler: _exact(k, T), scale):
                        lines[id(series)] = sampler
                        theory[sampler] = True
            measured = [(ax, s, _shares(ax, s, scale)) for s in ax.series if id(s) not in lines]
            measured = [(ax, s, shares) for ax, s, shares in measured if shares is not None]
            if lines or measured:
                used.append(ax)
            data += measured
        if all(theory.values()) and len(data) >= 2:
            return used, data, scale
    found = [name for sampler, name in ((0, "the exact curve UniformExact(T)['impossible']"), (1, "the line 0.32 / T"))
             if not any(_holds(s, lambda T, k=sampler: _exact(k, T), c) for _, s in drawing.series() for c in (1, 100))]
    plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points; it should show the "
                           f"measured share of impossible sentences at T = {', '.join(map(str, TS))} for uniform noise "
                           f"and for masks, the exact curve UniformExact(T)['impossible'] and the line 0.32 / T (as "
                           f"fractions or percent)" + (f"; the reader found no {' and no '.join(found)}" if found else ""))


def _sentence(result, length=4):
    if result[0] != "ok" or 0 in result[2]:
        return None
    try:
        value = result[1].detach().cpu() if torch.is_tensor(result[1]) else result[1]
        x = torch.as_tensor(np.asarray(value)).reshape(-1)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    if x.numel() != length or x.is_floating_point():
        return None
    return x.long()


def _chains(step, guess, start, times, mask=None):
    """{T: (impossible, runs)} of CHAINS runs of each sampler at each T, all advanced together (one request
    per step); None where a chain stopped on an error or on something Impossible cannot read."""
    chains = {(T, r): start() for T in TS for r in range(CHAINS)}
    broken = set()
    for j in range(max(TS)):
        active = [key for key in chains if key[0] > j and key[0] not in broken]
        if not active:
            break
        args = [[chains[key], *times(key[0], j), handle(guess)] + ([mask] if mask is not None else [])
                for key in active]
        for key, result in zip(active, step.calls(args)):
            after = _sentence(result)
            if after is None or not bool(((after >= 0) & (after < world.N_WORDS + (mask is not None))).all()):
                broken.add(key[0])
            else:
                chains[key] = after
    out = {}
    for T in TS:
        if T not in broken:
            out[T] = (sum(bool(world.Impossible(chains[(T, r)])) if bool((chains[(T, r)] < world.N_WORDS).all())
                          else 1 for r in range(CHAINS)), CHAINS)
    return out


def _fresh(UniformStep, Undiffuse):
    """The shares of impossible sentences that the student's samplers make, with the notebook's own guesses."""
    given = UniformStep.notebook(["GuessUniform_two"]) or {}
    masks_given = Undiffuse.notebook(["GuessX0_two"]) or {}
    fresh = {}
    if "GuessUniform_two" in given:
        fresh[0] = _chains(UniformStep, given["GuessUniform_two"], lambda: torch.randint(world.N_WORDS, (4,)),
                           lambda T, j: ((T - j) / T, (T - j - 1) / T))
    if "GuessX0_two" in masks_given:
        fresh[1] = _chains(Undiffuse, masks_given["GuessX0_two"], lambda: torch.full((4,), world.MASK),
                           lambda T, j: (T - j,), mask=world.MASK)
    return fresh


def _judge(shares, sampler, n, fresh, alpha, series):
    """One measured curve as `sampler`'s: each share against the student's own runs (Chernoff on each side),
    and the sum over T against them (Hoeffding), or against the exact law where their functions raised."""
    name = SAMPLERS[sampler]
    own = fresh.get(sampler) or {}
    if not all(T in own for T in TS):   # their functions raised here: the right law
        for T in TS:
            p = _exact(sampler, T)
            lo, hi = plots.share_interval(round(shares[T] * n), n, alpha)
            expect(lo <= p <= hi, f"at T = {T} {series.describe()} ({name}) shows {shares[T]:.4f}, but the sampler "
                                  f"makes impossible sentences with probability {p:.4f} (your functions raised when "
                                  f"the grader ran them); over {n} runs more than chance allows")
        return
    gap = sum(shares[T] - own[T][0] / own[T][1] for T in TS)
    bound = math.sqrt(math.log(2 / alpha) / 2 * sum(1 / n + 1 / own[T][1] for T in TS))
    expect(abs(gap) <= bound, f"{series.describe()} ({name}) adds up over T = {', '.join(map(str, TS))} to "
                              f"{sum(shares.values()):.3f}, but runs of the sampler with your functions drawn by the "
                              f"grader add up to {sum(shares.values()) - gap:.3f}; more than chance allows ({bound:.3f})")
    for T in TS:
        k, runs = own[T]
        expect(plots.same_share(round(shares[T] * n), n, k, runs, alpha),
               f"at T = {T} {series.describe()} ({name}) shows {shares[T]:.4f}, but {k} of {runs} runs of the "
               f"sampler with your functions drawn by the grader were impossible ({k / runs:.4f}); more than chance "
               f"allows")


RUNS_ALPHA = ALPHA / 3   # a figure failed for too few runs: at most this often wrongly
UNIFORM = re.compile(r"uniform|no mask|without (a )?mask|random word|renois", re.I)
MASKS = re.compile(r"mask|absorb|undiffuse|notebook 2", re.I)


def _role(ax, series):
    """The sampler a measured curve's legend entry (or its panel's title) names: 0 (uniform noise), 1 (masks),
    or None when it names neither (then it may be either)."""
    label = series.label if series.label and not series.label.startswith("_") else ""
    for text in (label, ax.title):
        if UNIFORM.search(text):
            return 0
        if MASKS.search(text):
            return 1
    return None


def _law(sampler, T, fresh):
    """The probability of an impossible sentence at T: the student's own runs' share where they ran (kept off 0
    and 1 by half a run), else the exact law."""
    own = (fresh.get(sampler) or {}).get(T)
    if own is None:
        return _exact(sampler, T)
    k, runs = own
    return min(max(k / runs, 0.5 / runs), 1 - 0.5 / runs)


def _runs(found, asked, data, fresh):
    """The runs to test the drawn shares with: those asked. Fewer found (the fewest that make every share a
    whole count) are a divisor of the true number; a figure of the runs asked shows so few only by chance,
    the chance that every count is a multiple of asked / found (each count of the law of its sampler, the
    likelier where the legend does not say which), and below RUNS_ALPHA it fails for too few runs."""
    if found >= asked or asked % found:
        return max(found, asked)
    d = asked // found
    chance = 1.0
    for role, shares in data:
        for T in TS:
            chance *= max(float(stats.binomial_pmf(asked, _law(sampler, T, fresh))[::d].sum())
                          for sampler in ((0, 1) if role is None else (role,)))
    expect(chance >= RUNS_ALPHA, f"your shares are whole counts of {found} runs; the task asks for repeats(1000), "
                                 f"{asked} under the autograder, which would show counts all multiples of {d} only "
                                 f"with probability {chance:.1g}")
    return asked


@check("plot_few_steps")
def plot_few_steps(drawn, UniformStep, PosteriorUniform, Undiffuse):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the share of impossible sentences against T for both samplers, with their exact curves")
    used, data, scale = _figure(drawing)
    expect(all(ax.xscale == "log" and ax.yscale == "log" for ax in used),
           "draw it on log-log axes (plt.loglog, or log scales on both axes): 0.32/T is then a straight line")
    expect(any(ax.ylabel for ax in used) and any(ax.xlabel for ax in used), "label both axes (plt.xlabel / plt.ylabel)")
    expect(any(ax.legend for ax in used), "add a legend that says which curve is which (plt.legend())")
    for _, series, shares in data:
        expect(all(0 <= v <= 1 for v in shares.values()),
               f"in {series.describe()} the values are no shares (from 0 to 1, or percentages beside 32 / T): plot "
               f"the share of impossible sentences")
        for sampler in (0, 1):
            expect(not all(abs(shares[T] - _exact(sampler, T)) < 1e-4 for T in TS),
                   f"{series.describe()} is the exact law of {SAMPLERS[sampler]}, not shares of your runs: plot what "
                   f"your runs of the sampler made")
    found = plots.runs_behind_means([v for _, _, shares in data for v in shares.values()], 1)
    expect(found is not None, "the shares drawn are no shares of runs (no number of runs up to 100000 makes them "
                              "whole counts): plot the share of impossible sentences your runs made")
    fresh = _fresh(UniformStep, Undiffuse)
    roles = [_role(ax, series) for ax, series, _ in data]
    n = _runs(found, runs_asked(1000), [(role, shares) for role, (_, _, shares) in zip(roles, data)], fresh)
    alpha = ALPHA / (2 * (len(TS) + 1))
    pairings = [(a, b) for a in range(len(data)) for b in range(len(data))
                if a != b and roles[a] in (0, None) and roles[b] in (1, None)]
    expect(pairings, "say in the legend which measured curve is uniform noise and which is masks")
    problems = []
    for a, b in pairings:
        try:
            _judge(data[a][2], 0, n, fresh, alpha, data[a][1])
            _judge(data[b][2], 1, n, fresh, alpha, data[b][1])
            return
        except Failure as failure:
            problems.append(str(failure))
    raise Failure(problems[0])
