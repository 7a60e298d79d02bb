"""Hidden checks of notebook 06's printout and drawings: they read what the student printed or drew
(grading/plots.py) and compare it with the student's own functions, run again here, so a bug in a
function is charged in that function's tests only (a faithful drawing of it passes).

- show_budgets: the whole numbers of each printed line against the student's TransferCounts.
- plot_commit_order: the student's SampleBlocks runs here on denoisers that record every canvas (24
  tokens after a prompt of five, blocks of 8, 12 calls); what does not depend on the denoiser (how many
  positions each call commits, which calls each block's positions fall in) must be what is drawn.
- plot_threshold_trade: the two-sentence world is small enough to follow every branch of ParallelTwo
  under the student's CommitAbove (their calls batched level by level): the exact law of (impossible,
  calls) at each tau, against which the drawn shares (Chernoff) and mean calls (Bernstein) are tested.
  A CommitAbove that answers one input two ways is run instead (two-sample tests).
- plot_remasking: the exact law (a Markov chain over the 36 canvases) where the student's RemaskSigma
  gives the reference's values and their RemaskStep's one-step law passes a goodness-of-fit test
  (a gate: it routes, it fails nothing); otherwise, or when the drawing does not fit that law, chains of
  the student's own functions run here and the drawing is compared with them (two-sample tests).
- plot_entropy_perplexity: the samples come from the student's own network, so only properties that
  hold for any run are read, and each only where the student's SampleEntropy or Perplexity agrees with
  the definition on probes; the two SampleBlocks samplers are greedy, so their samples are run again in
  the kernel and a figure of their entropies with the prompt counted in (and not without) fails.

The runs behind a drawn share are the fewest that make every drawn value a whole count (a divisor of
the true number); tests then use the runs the task asks for (`repeats(n)` under the grader) or more,
and a figure whose values could only be counts of fewer runs by an improbable chance fails (or, where
unlikely but possible, goes to a person): `few_runs`.
"""
import itertools
import math
import re
from collections import Counter

import numpy as np
import torch

from maskdiff_client.fakes import TableGuesser

from .. import experiments as world
from .. import revising as ref
from .. import stats
from . import plots
from .core import ALPHA, Failure, Review, Student, check, expect, handle
from .fakes import FakeDenoiser
from .plots import numbers, printout_missing, reaches, runs_asked, statements

RUNS_ALPHA = ALPHA / 3       # a figure failed for too few runs: at most this often wrongly
DIVISORS = 128               # (spread over the divisors of the true number of runs)
RUNS_REVIEW = 1e-4           # below this chance a figure's runs go to a person


def _ok(result):
    return result[0] == "ok"


def _few(values, k=8):
    return "[" + ", ".join(f"{v:g}" for v in list(values)[:k]) + (", ..." if len(values) > k else "") + "]"


# ---- show_budgets -------------------------------------------------------------------------------

PAIRS = ((10, 4), (12, 5), (7, 7), (3, 6), (32, 8), (9, 2))


def _budget_list(result):
    if not _ok(result):
        return None
    value = result[1]
    try:
        out = np.asarray(value.detach().cpu() if torch.is_tensor(value) else value, dtype=float).reshape(-1)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    return out if out.size and np.isfinite(out).all() else None


def _past(seq, part, start):
    """The index just past the first occurrence of `part` in seq at or after `start`, or None."""
    for i in range(start, len(seq) - len(part) + 1):
        if np.allclose(seq[i:i + len(part)], part, atol=1e-6, rtol=0):
            return i + len(part)
    return None


def shows_pair(values, n, steps, even, schedule):
    """Does a line's numbers hold n and steps side by side, then the even list, then the schedule's?"""
    for i in range(len(values) - 1):
        if values[i] == n and values[i + 1] == steps:
            j = _past(values, even, i + 2)
            if j is not None and _past(values, schedule, j) is not None:
                return True
    return False


@check("show_budgets")
def show_budgets(drawn, TransferCounts):
    drawing = plots.Drawing.of(drawn)
    text = drawing.need_printed("print one line per pair (n, steps): n, steps, the \"even\" budgets, then the "
                                "\"schedule\" budgets")
    results = TransferCounts.calls([[n, steps, rule] for n, steps in PAIRS for rule in ("even", "schedule")])
    lines = statements(text)
    read = [numbers(line) for line in lines]
    for k, (n, steps) in enumerate(PAIRS):
        for rule, result in zip(("even", "schedule"), results[2 * k:2 * k + 2]):
            if not _ok(result):
                raise Failure(f"your TransferCounts({n}, {steps}, {rule!r}) raised {result[1]}: {result[2]}, so the "
                              f"cell cannot print the budgets of every pair")
        even, schedule = (_budget_list(r) for r in results[2 * k:2 * k + 2])
        if even is None or schedule is None:
            continue   # no list of numbers: nothing the printout could be compared with
        if any(shows_pair(values, n, steps, even, schedule) for values in read):
            continue
        seen = "; ".join(_few(values, 12) for values in read if values)[:300] or "none"
        message = (f"no line of your printout holds {n} and {steps}, then the \"even\" budgets {_few(even, 9)}, then "
                   f"the \"schedule\" budgets {_few(schedule, 9)}, as your TransferCounts gives them (the numbers of "
                   f"your lines: {seen})")
        printout_missing(message, text)


# ---- plot_commit_order --------------------------------------------------------------------------

PROMPT_LENGTH, GENERATED, BLOCK, CALLS = 5, 24, 8, 12
FAKE_PAD, FAKE_MASK, FAKE_UNK = 0, 1, 2


class RecordingDenoiser:
    """A story denoiser held by the checker: logits from a small random network, and a copy of every
    canvas it is called on (as the notebook's Recorder keeps them)."""

    def __init__(self, seed):
        self.model, self.canvases = FakeDenoiser(seed=seed), []

    def __call__(self, x):
        x = torch.as_tensor(x)
        self.canvases.append(x.detach().cpu().clone())
        with torch.no_grad():
            return self.model(x.long().cpu()).detach()


def _commit_calls(SampleBlocks, seed):
    """CommitCalls of the generated positions when the student's SampleBlocks fills 24 tokens after a
    prompt of five on a recording denoiser (None if it raised or recorded nothing readable)."""
    fake = RecordingDenoiser(seed)
    prompt = torch.arange(3, 3 + PROMPT_LENGTH)
    result = SampleBlocks.calls([[fake, prompt, GENERATED, BLOCK, CALLS, FAKE_MASK, FAKE_PAD,
                                  [FAKE_PAD, FAKE_MASK, FAKE_UNK]]])[0]
    if not _ok(result) or not fake.canvases:
        return None
    try:
        calls = world.CommitCalls(fake.canvases, FAKE_MASK)
    except (RuntimeError, ValueError, IndexError):
        return None
    return calls[PROMPT_LENGTH:].tolist() if calls.numel() == PROMPT_LENGTH + GENERATED else None


def commit_features(values):
    """What a commit order says that does not depend on the denoiser's proposals."""
    values = [int(v) for v in values]
    return {"calls": max(values),
            "per call": tuple(sorted(Counter(values).items())),
            "per block": tuple(tuple(sorted(values[b:b + BLOCK])) for b in range(0, GENERATED, BLOCK))}


def _by_position(series):
    """The 24 values of a series in position order: drawn against consecutive positions (bars by their
    centres, either way), or, points and lines only, with the positions on the y axis. None otherwise."""
    x = series.x + series.style["width"] / 2 if series.kind == "bars" else series.x
    for at, value in ((x, series.y), (series.y, series.x) if series.kind != "bars" else (None, None)):
        if at is None or at.size != GENERATED or not np.isfinite(at).all():
            continue
        order = np.argsort(at, kind="stable")
        if np.allclose(np.diff(at[order]), 1, atol=1e-6):
            return value[order]
    return None


def commit_series(drawing):
    """(axes, series, values by position) of every reading of 24 positions: a series alone, or the
    series of one kind on one axes taken together (a colour per block)."""
    found = [(ax, s, v) for ax, s in drawing.series() if s.kind in ("bars", "points", "line")
             for v in [_by_position(s)] if v is not None]
    for ax in drawing.axes:
        for kind in ("bars", "points", "line"):
            parts = [s for s in ax.series if s.kind == kind and s.x.size < GENERATED]
            if len(parts) < 2 or sum(s.x.size for s in parts) != GENERATED:
                continue
            joined = plots.Series(kind, np.concatenate([s.x for s in parts]), np.concatenate([s.y for s in parts]),
                                  "", {"width": np.concatenate([s.style.get("width", np.zeros(s.x.size))
                                                                for s in parts])})
            values = _by_position(joined)
            if values is not None:
                found.append((ax, plots.Series(kind, joined.x, joined.y, f"{kind} of the {len(parts)} blocks"), values))
    return found


def _calls_sentence(values):
    return ", ".join(str(int(v)) for v in values)


@check("plot_commit_order", shares=False)   # call numbers: no complement to read
def plot_commit_order(drawn, SampleBlocks):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the call that committed each of the 24 generated positions against the position")
    found = commit_series(drawing)
    if not found:
        longer = [s for _, s in drawing.series() if s.y.size == PROMPT_LENGTH + GENERATED]
        plots.missing(drawing, "your figure has no bars, points or line with one value at each of the 24 generated "
                               "positions (consecutive positions, from 0 or from the prompt's length)"
                      + (f"; it has one of {PROMPT_LENGTH + GENERATED} values: leave the prompt's "
                         f"{PROMPT_LENGTH} positions out" if longer else ""))
    runs = [_commit_calls(SampleBlocks, seed) for seed in (0, 1, 2)]
    features = [commit_features(r) for r in runs if r is not None]
    problems = []
    for ax, series, values in found:
        if not np.allclose(values, np.round(values), atol=1e-6):
            problems.append(f"in {series.describe()} the values {_few(values, 6)} are not whole call numbers")
            continue
        expect(ax.labelled(), "label both axes of the commit order (the position, and the call that committed it)")
        if not features or len(runs) != len(features):
            return   # your SampleBlocks raised here: nothing to compare the figure with
        fixed = {name: features[0][name] for name in features[0] if all(f[name] == features[0][name] for f in features)}
        if not fixed:
            raise Review("your SampleBlocks commits differently with every denoiser the grader tried (the number of "
                         "calls too), so the grader cannot say what it did with yours; a person will look at it")
        for shift in (0, 1):   # calls counted from 1 (CommitCalls) or from 0
            drawn_features = commit_features(np.round(values) + shift)
            if all(drawn_features[name] == want for name, want in fixed.items()):
                return
        drawn_features = commit_features(np.round(values))
        name = next(n for n in ("per block", "per call", "calls") if n in fixed and drawn_features[n] != fixed[n])
        if name == "per block":
            b = next(i for i, (d, w) in enumerate(zip(drawn_features[name], fixed[name])) if d != w)
            problems.append(f"in {series.describe()}, block {b + 1}'s positions are committed by the calls "
                            f"{_calls_sentence(drawn_features[name][b])}, but your SampleBlocks (run by the grader "
                            f"on a recording denoiser: 24 tokens after a prompt of 5, blocks of 8, 12 calls) commits "
                            f"them in the calls {_calls_sentence(fixed[name][b])}")
        elif name == "per call":
            problems.append(f"in {series.describe()} the (call, positions it committed) are "
                            f"{list(drawn_features[name])}, but your SampleBlocks (run by the grader: 24 tokens, "
                            f"blocks of 8, 12 calls) gives {list(fixed[name])}")
        else:
            problems.append(f"in {series.describe()} the last call is {drawn_features[name]}, but your SampleBlocks "
                            f"(run by the grader: 24 tokens, blocks of 8, 12 calls) makes {fixed[name]} calls")
    raise Failure(problems[0])


# ---- runs behind drawn shares -------------------------------------------------------------------

def _multiple_chance(pmf, runs, m):
    """P(the sum of `runs` independent draws of the law pmf (over 0, 1, 2, ...) is a multiple of m)."""
    pmf = np.asarray(pmf, dtype=float)
    phases = np.exp(2j * np.pi * np.outer(np.arange(m), np.arange(pmf.size)) / m)
    return float(np.clip(np.real(np.mean((phases @ pmf) ** runs)), 0.0, 1.0))


def few_runs(found, asked, groups, what, written):
    """The drawn values are whole counts of `found` runs, fewer than the `asked` the task's repeats give
    under the grader. They are counts of N = m * found runs with m >= asked / found only if every drawn
    count is a multiple of m; `groups` holds, for each independent set of runs, the laws of one run's
    value behind each of its drawn counts. "fail" when that is below RUNS_ALPHA / DIVISORS for every m,
    "review" when below RUNS_REVIEW, else None; and the message."""
    if found >= asked:
        return None, ""
    least = -(-asked // found)
    chance = max(math.prod(min(_multiple_chance(p, m * found, m) for p in group) for group in groups)
                 for m in range(least, least + 64))
    message = (f"{what} are whole counts of {found} runs; the task asks for {written}, {asked} under the autograder")
    if chance <= RUNS_ALPHA / DIVISORS:
        return "fail", message
    if chance <= RUNS_REVIEW:
        return "review", (message + f" (they could be counts of {asked} runs or more only by a chance of "
                                    f"{chance:.1g}, so a person will look at it)")
    return None, ""


def enough_runs(found, asked, groups, what, written):
    """few_runs' verdict carried out: a Failure or a Review, or nothing when the runs may be enough."""
    verdict, message = few_runs(found, asked, groups, what, written)
    if verdict == "fail":
        raise Failure(message)
    if verdict == "review":
        raise Review(message)


def share_fits(share, n, p, alpha):
    """Is `share` of n runs a plausible share of an event of probability p (Chernoff, exact bound)?"""
    lo, hi = plots.share_interval(share * n, n, alpha)
    return lo - 1e-12 <= p <= hi + 1e-12


# ---- plot_threshold_trade -----------------------------------------------------------------------

TAUS = (0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)
MAX_CALLS = 8          # ParallelTwo raises after 8 calls with masks left
LOST = 1e-6            # a law whose runs raise more often than this is not a law of drawn runs
RUNS_HERE = 400        # runs of ParallelTwo per tau where the law cannot be followed exactly
IMPOSSIBLE_WORDS = re.compile(r"impossib|mistake|wrong|error|incoheren|inconsisten|invalid|clash|bad|fail|"
                              r"never make|nonsense|incorrect", re.I)
CALL_WORDS = re.compile(r"call|pass|evaluat|\bnfe\b|forward", re.I)


def _draws(x):
    """Each way one guesser call of ParallelTwo can draw its candidates on canvas x (4 ids): its
    probability, and the candidates and confidences [1, 4] as ParallelTwo hands them on."""
    guess = world.GuessX0_two(torch.tensor(x))
    options = []
    for row in guess:
        words = torch.nonzero(row > 0).flatten().tolist()
        total = float(row.double().sum())
        options.append([(w, float(row[w]) / total) for w in words])
    out = []
    for combo in itertools.product(*options):
        ids = torch.tensor([[w for w, _ in combo]])
        out.append((math.prod(q for _, q in combo), ids, guess.gather(1, ids.T)[:, 0][None]))
    return out


def _returned_ids(result):
    """What a call returned as an integer tensor, or None where it raised or returned no integer ids."""
    if not _ok(result):
        return None
    try:
        value = torch.as_tensor(np.asarray(result[1].detach().cpu() if torch.is_tensor(result[1]) else result[1]))
    except (TypeError, ValueError, RuntimeError):
        return None
    bad = value.is_floating_point() or value.dtype == torch.bool or value.is_complex()
    return None if bad else value


def _committed(result):
    """The canvas a CommitAbove call returned, as a tuple of 4 ids, or None where ParallelTwo (or
    Impossible after it) would stop on it: raised, not [1, 4], not integer ids of the vocabulary."""
    value = _returned_ids(result)
    if value is None or tuple(value.shape) != (1, 4):
        return None
    ids = tuple(int(v) for v in value[0])
    return ids if all(0 <= v < len(world.vocab) for v in ids) else None


def threshold_laws(CommitAbove, taus=TAUS):
    """{tau: {(impossible, calls): probability}} of ParallelTwo(CommitAbove, tau), every branch of the
    drawn candidates followed (each input asked twice: a commit that answers one input two ways has no
    law here); None for a tau where that fails or runs raise more often than LOST."""
    slots = torch.ones(1, 4, dtype=torch.bool)
    laws, lost, broken = {tau: Counter() for tau in taus}, Counter(), set()
    frontier = {(tau, (world.MASK,) * 4): 1.0 for tau in taus}
    for call in range(1, MAX_CALLS + 1):
        keys, inputs = [], []
        for (tau, x), p in frontier.items():
            for q, ids, confidence in _draws(x):
                keys.append((tau, p * q))
                inputs.append([torch.tensor([x]), ids, confidence, slots, tau, world.MASK])
        if not inputs:
            break
        results = CommitAbove.calls(inputs + inputs)
        frontier = Counter()
        for k, (tau, p) in enumerate(keys):
            after, again = _committed(results[k]), _committed(results[k + len(keys)])
            if after is None or after != again:
                broken.add(tau)
            elif world.MASK not in after:
                laws[tau][(bool(world.Impossible(torch.tensor(after))), call)] += p
            elif call == MAX_CALLS:
                lost[tau] += p
            else:
                frontier[(tau, after)] += p
        frontier = {key: p for key, p in frontier.items() if key[0] not in broken}
    return {tau: None if tau in broken or lost[tau] > LOST else
            {key: p / (1 - lost[tau]) for key, p in laws[tau].items()} for tau in taus}


def threshold_runs(CommitAbove, taus, runs):
    """{tau: [(impossible, calls)] of `runs` ParallelTwo runs with the student's commit} (all runs
    advanced together, one request per call), None for a tau where a run stopped on an error."""
    slots = torch.ones(1, 4, dtype=torch.bool)
    state = {(tau, r): (world.MASK,) * 4 for tau in taus for r in range(runs)}
    out, broken = {tau: [] for tau in taus}, set()
    for call in range(1, MAX_CALLS + 1):
        active = [key for key, x in state.items() if key[0] not in broken]
        if not active:
            break
        inputs = []
        for key in active:
            guess = world.GuessX0_two(torch.tensor(state[key]))
            candidates = torch.multinomial(guess, 1)
            inputs.append([torch.tensor([state[key]]), candidates.T, guess.gather(1, candidates)[:, 0][None], slots,
                           key[0], world.MASK])
        for key, result in zip(active, CommitAbove.calls(inputs)):
            after = _committed(result)
            del state[key]
            if after is None or (world.MASK in after and call == MAX_CALLS):
                broken.add(key[0])
            elif world.MASK not in after:
                out[key[0]].append((bool(world.Impossible(torch.tensor(after))), call))
            else:
                state[key] = after
    return {tau: None if tau in broken else out[tau] for tau in taus}


def _series_kind(ax, series):
    """'impossible' or 'calls', from the series' legend label, else its axes' y label, else its title."""
    label = series.label if series.label and not series.label.startswith("_") else ""
    for text in (label, ax.ylabel, ax.title):
        kinds = {kind for kind, words in (("impossible", IMPOSSIBLE_WORDS), ("calls", CALL_WORDS))
                 if words.search(text)}
        if len(kinds) == 1:
            return kinds.pop()
    return None


def _tick_values(ax):
    out = {}
    for at, label in ax.xticks.items():
        try:
            out[at] = float(label.replace("−", "-"))
        except ValueError:
            pass
    return out


def at_taus(ax, series):
    """The series' values at the taus, in order: drawn against tau, or at places named by tick labels that
    read as the taus (bars or points of categories). None unless every tau has one value."""
    if series.kind == "bars" and series.style.get("horizontal"):
        return None
    x = series.x + series.style["width"] / 2 if series.kind == "bars" else series.x
    ticks = _tick_values(ax)
    for places in (x, np.array([ticks.get(float(v), np.nan) for v in np.round(x, 9)])):
        values = []
        for tau in TAUS:
            hit = np.flatnonzero(np.abs(places - tau) < 1e-6)
            if hit.size != 1:
                break
            values.append(float(series.y[hit[0]]))
        else:
            return np.array(values)
    return None


def _law_facts(law):
    p_impossible = sum(p for (impossible, _), p in law.items() if impossible)
    calls = Counter()
    for (_, c), p in law.items():
        calls[c] += p
    mean = sum(c * p for c, p in calls.items())
    variance = sum((c - mean) ** 2 * p for c, p in calls.items())
    bound = max(abs(c - mean) for c in calls)
    calls_pmf = np.zeros(MAX_CALLS + 1)
    for c, p in calls.items():
        calls_pmf[c] = p
    return p_impossible, mean, variance, max(bound, 1e-9), calls_pmf


def _judge_threshold(shares, calls, laws, fresh, scale_name):
    """Test one reading of the figure (shares of impossible sentences, mean calls, at each tau)."""
    values = np.concatenate([shares, calls])
    found = plots.runs_behind_means(values, 1)
    if found is None:
        raise Failure(f"the impossible {scale_name} and the mean calls drawn ({_few(shares, 7)}, {_few(calls, 7)}) "
                      f"are no shares and means of runs (no number of runs up to 100000 makes them whole counts): plot "
                      f"what your runs of ParallelTwo gave")
    asked = runs_asked(1000)
    n = max(found, asked)
    groups = [[np.array([1 - f[0], f[0]]), f[4]] for f in (_law_facts(laws[tau]) for tau in TAUS if laws[tau])]
    runs_verdict, runs_message = few_runs(found, asked, groups, "the drawn shares and means", "repeats(1000)")
    if runs_verdict == "fail":
        raise Failure(runs_message)
    alpha = ALPHA / 3 / (2 * len(TAUS))
    for i, tau in enumerate(TAUS):
        if laws[tau] is not None:
            p, mean, variance, bound, _ = _law_facts(laws[tau])
            expect(share_fits(shares[i], n, p, alpha),
                   f"at tau = {tau} your figure shows {shares[i]:.3f} impossible sentences, but ParallelTwo with your "
                   f"CommitAbove makes them with probability {p:.3f} exactly (every branch followed by the grader); "
                   f"over {n} runs more than chance allows")
            verdict = stats.bernstein_test(calls[i], mean, n, variance, bound, alpha, what="calls")
            expect(verdict.ok, f"at tau = {tau} your figure shows {calls[i]:.3f} calls per sentence on average, but "
                               f"ParallelTwo with your CommitAbove takes {mean:.3f} exactly (every branch followed by "
                               f"the grader); over {n} runs more than chance allows")
        elif fresh.get(tau):
            own = fresh[tau]
            k_own = sum(impossible for impossible, _ in own)
            expect(plots.same_share(shares[i] * n, n, k_own, len(own), alpha),
                   f"at tau = {tau} your figure shows {shares[i]:.3f} impossible sentences, but {k_own / len(own):.3f} "
                   f"of {len(own)} runs of ParallelTwo with your CommitAbove drawn by the grader; more than chance "
                   f"allows")
            own_mean = sum(c for _, c in own) / len(own)
            gap = (MAX_CALLS - 1) * plots.mean_gap_bound(n, len(own), alpha)
            expect(abs(calls[i] - own_mean) <= gap,
                   f"at tau = {tau} your figure shows {calls[i]:.3f} calls per sentence on average, but {own_mean:.3f} "
                   f"over {len(own)} runs of ParallelTwo with your CommitAbove drawn by the grader; more than chance "
                   f"allows")
    if runs_verdict == "review":
        raise Review(runs_message)


@check("plot_threshold_trade")
def plot_threshold_trade(drawn, CommitAbove):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the share of impossible sentences and the mean number of calls against tau")
    curves = {"impossible": [], "calls": [], None: []}
    for ax in drawing.axes:
        for series in ax.series:
            values = at_taus(ax, series)
            if values is not None:
                curves[_series_kind(ax, series)].append((ax, series, values))
    for kind, what in (("impossible", "the share of impossible sentences"), ("calls", "the mean number of calls")):
        if not curves[kind]:
            if curves[None]:
                raise Failure(f"your figure has {len(curves[None])} curve(s) with a value at each tau of {list(TAUS)} "
                              f"that do not say what they show; name each in its y label or legend (impossible "
                              f"sentences, calls), as the task asks")
            plots.missing(drawing, f"your figure has no curve of {what} with a value at each tau of {list(TAUS)} "
                                   f"(named in its y label or legend)")
    used = [ax for kind in ("impossible", "calls") for ax, _, _ in curves[kind]]
    expect(any(ax.xlabel for ax in used), "label the x axis (the threshold tau)")
    laws = threshold_laws(CommitAbove)
    unknown = [tau for tau, law in laws.items() if law is None]
    fresh = threshold_runs(CommitAbove, unknown, RUNS_HERE) if unknown else {}
    problems = []
    for (_, impossible, shares), (_, calls_series, calls) in itertools.product(curves["impossible"], curves["calls"]):
        for scale, scale_name in ((1, "share"), (100, "percentage")):
            if np.any(shares / scale > 1 + 1e-9) or np.any(shares < -1e-9) or not np.isfinite(shares).all():
                continue
            try:
                return _judge_threshold(shares / scale, calls, laws, fresh, scale_name)
            except Review:
                raise
            except Failure as failure:
                problems.append(str(failure))
    expect(problems, "your impossible sentences are not shares or percentages (values from 0 to 1, or 0 to 100)")
    raise Failure(problems[0])


# ---- plot_remasking -----------------------------------------------------------------------------

TS = (1, 2, 4, 8, 16, 32)
ROLES = (("no remasking", 0.0, "cap"), ("remasking", 1.0, "rescale"))
WORDS_AT = [sorted({int(world.Encode(s)[i]) for s in world.SENTENCES} | {world.MASK}) for i in range(4)]
CANVASES = [tuple(x) for x in itertools.product(*WORDS_AT)]            # every canvas undiffusion can reach
INDEX = {x: i for i, x in enumerate(CANVASES)}
CHAINS = {1: 200, 2: 200, 4: 200, 8: 100, 16: 50, 32: 40}             # runs per T of the student's functions
GATE = (("_ _ _ _", 1, 1, 0), ("_ _ _ _", 4, 4, 0), ("the cat _ _", 4, 2, 0), ("the _ is _", 4, 3, 1),
        ("the box _ _", 8, 3, 1), ("the cat is _", 32, 10, 1))             # (canvas, T, k, role) the gate asks
GATE_DRAWS, GATE_ALPHA = 200, 1e-3
NO_REMASKING = re.compile(r"\bno\b[^,;]*remask|without|\bplain|baseline|(eta|η|sigma|σ)\s*=\s*0(?![.\d]*[1-9])",
                          re.I)
REMASKING = re.compile(r"remask|remdm|sigma_?max|σ_?max|rescale|(eta|η)\s*=\s*1", re.I)


def _guess_exact(x):
    """GuessX0_two in float64: each sentence's words weighted by its prior where it agrees with x."""
    weights = np.array([p if all(v in (world.MASK, w) for v, w in zip(x, world.Encode(s).tolist())) else 0.0
                        for s, p in world.SENTENCES.items()])
    if weights.sum() == 0:
        weights = np.array(list(world.SENTENCES.values()), dtype=float)
    weights = weights / weights.sum()
    guess = np.zeros((4, len(world.vocab)))
    for w, s in zip(weights, world.SENTENCES):
        guess[np.arange(4), world.Encode(s).numpy()] += w
    return guess


GUESSES = np.stack([_guess_exact(x) for x in CANVASES])                        # (36, 4, V)
OPTIONS = np.array([[WORDS_AT[i].index(x[i]) for i in range(4)] for x in CANVASES])   # (36, 4)


def kernel(t, s, sigma):
    """The reference RemaskStep's transition matrix over the 36 canvases: each position on its own."""
    alpha_t, alpha_s = 1.0 - t, 1.0 - s
    reveal = min(1.0, max(0.0, (alpha_s - (1.0 - sigma) * alpha_t) / (1.0 - alpha_t)))
    moves = np.zeros((len(CANVASES), 4, 3))          # P(position i of the next canvas is option o | canvas)
    for a, x in enumerate(CANVASES):
        for i, v in enumerate(x):
            for o, w in enumerate(WORDS_AT[i]):
                if v == world.MASK:
                    moves[a, i, o] = (1 - reveal) if w == world.MASK else reveal * GUESSES[a, i, w]
                else:
                    moves[a, i, o] = sigma if w == world.MASK else (1 - sigma) if w == v else 0.0
    out = np.ones((len(CANVASES), len(CANVASES)))
    for i in range(4):
        out *= moves[:, i, OPTIONS[:, i]]
    return out


IMPOSSIBLE_AT = np.array([bool(world.Impossible(torch.tensor(x))) for x in CANVASES])


def exact_rate(T, sigmas):
    """P(RemaskTwo ends in an impossible sentence) with the reference step and the given sigma per k."""
    law = np.zeros(len(CANVASES))
    law[INDEX[(world.MASK,) * 4]] = 1.0
    for k in range(T, 0, -1):
        law = law @ kernel(k / T, (k - 1) / T, sigmas[k])
    return float(law[IMPOSSIBLE_AT].sum())


def _student_sigmas(RemaskSigma):
    """{role: {T: {k: sigma}}} from the student's RemaskSigma (None for a role where it raised or gave
    no number), and whether they are the reference's."""
    args = [(role, T, k, [k / T, (k - 1) / T, eta, schedule]) for role, (_, eta, schedule) in enumerate(ROLES)
            for T in TS for k in range(T, 0, -1)]
    results = RemaskSigma.calls([a[3] for a in args])
    sigmas, same = {0: {}, 1: {}}, True
    for (role, T, k, (t, s, eta, schedule)), result in zip(args, results):
        if sigmas[role] is None:
            continue
        try:
            sigma = float(result[1]) if _ok(result) else math.nan
        except (TypeError, ValueError):
            sigma = math.nan
        if not math.isfinite(sigma):
            sigmas[role] = None
            continue
        sigmas[role].setdefault(T, {})[k] = sigma
        same = same and abs(sigma - ref.RemaskSigma(t, s, eta, schedule)) <= 1e-12
    return sigmas, same and all(sigmas.values())


def _gate(RemaskStep, sigmas):
    """Does one step of the student's RemaskStep follow the reference's law on a few inputs of the plot's
    runs (exact binomial tests at GATE_ALPHA in all)? A routing decision only: it fails nothing."""
    asks = [(words, k / T, (k - 1) / T, sigmas[role][T][k]) for words, T, k, role in GATE]
    return follows_law(RemaskStep, asks, GATE_DRAWS, GATE_ALPHA)


def follows_law(RemaskStep, asks, draws, alpha):
    """Do `draws` steps of the student's RemaskStep from each (canvas words, t, s, sigma) of `asks` land
    on the 36 canvases as the reference's kernel says (exact binomial tests, alpha over them all)?"""
    table = TableGuesser(CANVASES, torch.tensor(GUESSES, dtype=torch.float32), list(world.vocab))
    tests = len(asks) * len(CANVASES)
    for words, t, s, sigma in asks:
        x = tuple(world.MASK if w == "_" else world.vocab.index(w) for w in words.split())
        counts = np.zeros(len(CANVASES))
        for result in RemaskStep.repeat([torch.tensor(x), t, s, table, world.MASK, sigma], draws):
            after = _sentence(result)
            if after not in INDEX:
                return False
            counts[INDEX[after]] += 1
        row = kernel(t, s, sigma)[INDEX[x]]
        for b in range(len(CANVASES)):
            if not stats.binomial_test(counts[b], draws, float(np.clip(row[b], 0, 1)), alpha / tests):
                return False
    return True


def _sentence(result):
    value = _returned_ids(result)
    if value is None or value.dim() != 1 or value.numel() != 4:
        return None
    return tuple(int(v) for v in value)


def remask_chains(RemaskStep, sigmas, runs=CHAINS):
    """{(role, T): (impossible sentences, runs)} of RemaskTwo with the student's step and sigmas, all
    chains advanced together (one request per step); None where a chain stopped on an error or on
    something Impossible cannot read."""
    chains = {(role, T, r): (world.MASK,) * 4 for role in (0, 1) if sigmas[role] for T in TS for r in range(runs[T])}
    broken = set()
    for j in range(max(TS)):
        active = [key for key in chains if key[1] > j and key[:2] not in broken]
        if not active:
            break
        inputs = []
        for role, T, r in active:
            k = T - j
            inputs.append([torch.tensor(chains[(role, T, r)]), k / T, (k - 1) / T, world.GuessX0_two, world.MASK,
                           sigmas[role][T][k]])
        for key, result in zip(active, RemaskStep.calls(inputs)):
            after = _sentence(result)
            if after is None or not all(0 <= v < len(world.vocab) for v in after):
                broken.add(key[:2])
            else:
                chains[key] = after
    out = {}
    for role, T, r in chains:
        if (role, T) not in broken:
            k, n = out.get((role, T), (0, 0))
            out[(role, T)] = (k + bool(world.Impossible(torch.tensor(chains[(role, T, r)]))), n + 1)
    return {key: out.get(key) for key in itertools.product((0, 1), TS)}


def _theory(series, scale):
    if series.kind != "line":
        return False
    if series.style.get("axline"):
        return plots.on_curve(series, lambda x: scale * 0.32 / x, 1, 32)
    return (series.x.size >= 2 and bool(np.all(series.x > 0)) and series.x.min() <= 1 + 1e-9
            and series.x.max() >= max(TS) - 1e-9   # the line spans every T (a measured curve may touch it)
            and np.allclose(series.y, scale * 0.32 / series.x, rtol=plots.TOLERANCE, atol=1e-12))


def measured(ax, series, scale):
    """{T: share} of a measured series: a value that a log axis cannot show (0, NaN) read as 0, and the
    largest Ts left out while the axes still reach them read as 0 (the task's zero rule)."""
    Ts = [int(round(x)) for x in series.x]
    if not np.allclose(series.x, Ts) or len(set(Ts)) != len(Ts) or not set(Ts) <= set(TS):
        return None
    shares = {T: (float(y) / scale if np.isfinite(y) and y > 0 else 0.0) for T, y in zip(Ts, series.y)}
    for T in TS:
        if T > max(Ts) and reaches(ax, T, series):
            shares[T] = 0.0
    return shares


def _marked_zero(shares, elsewhere):
    """The smallest share, if it is below one run's share of every other drawn share (the runs that make
    them whole counts, its own curve's and the other curve's `elsewhere`), is a 0 drawn where a log axis
    can show it (the task's 'marked apart')."""
    low = min(shares, key=shares.get)
    others = [v for T, v in shares.items() if T != low] + list(elsewhere)
    runs = plots.runs_behind_means(others, 1) if len(shares) >= 3 else None
    if runs and 0 < shares[low] < 1 / runs:
        return {**shares, low: 0.0}
    return shares


def _role_of(ax, series):
    label = series.label if series.label and not series.label.startswith("_") else ""
    for text in (label, ax.title):
        if NO_REMASKING.search(text):
            return 0
        if REMASKING.search(text):
            return 1
    return None


def _remask_data(drawing):
    """(axes used, [(axes, series, {T: share}, role or None)], scale) of the figure, or a failure."""
    for scale in (1, 100):
        used, data = [], []
        for ax in drawing.axes:
            theory = [s for s in ax.series if _theory(s, scale)]
            if not theory:
                continue
            used.append(ax)
            for series in ax.series:
                if any(series is t for t in theory) or series.x.size < 3:
                    continue
                shares = measured(ax, series, scale)
                if shares is not None and len(shares) >= 3:
                    data.append((ax, series, shares, _role_of(ax, series)))
        if len(data) >= 2:
            return used, data, scale
    plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points; it should show the "
                           f"measured share of impossible sentences at T = {', '.join(map(str, TS))} without and with "
                           f"remasking, and the line 0.32/T (as fractions or percent) on the same axes")


@check("plot_remasking")
def plot_remasking(drawn, RemaskStep, RemaskSigma):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the share of impossible sentences against T, with and without remasking, and 0.32/T")
    used, data, scale = _remask_data(drawing)
    for ax in used:
        expect(ax.xscale == "log" and ax.yscale == "log", "draw it on log-log axes (plt.loglog, or log scales on "
                                                          "both axes): 0.32/T is then a straight line")
    expect(any(ax.ylabel for ax in used) and any(ax.xlabel for ax in used), "label both axes (plt.xlabel / plt.ylabel)")
    expect(any(ax.legend for ax in used) or (len(used) > 1 and all(ax.title for ax in used)),
           "add a legend that says which curve is which (plt.legend())")
    data = [(ax, series, _marked_zero(shares, [v for other in data if other[2] is not shares
                                               for v in other[2].values()]), role)
            for ax, series, shares, role in data]
    found = plots.runs_behind_means([v for _, _, shares, _ in data for v in shares.values()], 1)
    if found is None:
        raise Failure("the shares drawn are no shares of runs (no number of runs up to 100000 makes them whole "
                      "counts): plot the share of impossible sentences your runs of RemaskTwo made")
    for _, series, shares, _ in data:
        expect(all(0 <= v <= 1 for v in shares.values()),
               f"in {series.describe()} the values {_few(list(shares.values()), 6)} are no shares (from 0 to 1, or "
               f"percentages beside 32/T): plot the share of impossible sentences")
        expect(set(shares) == set(TS), f"in {series.describe()} there is no share at T = "
                                       f"{', '.join(str(T) for T in TS if T not in shares)}: measure every T of "
                                       f"{list(TS)}")
        expect(not all(abs(shares[T] - 0.32 / T) < 1e-9 for T in TS),
               f"in {series.describe()} the shares are exactly 0.32/T: plot the share your runs of RemaskTwo made")
    sigmas, reference_sigmas = _student_sigmas(RemaskSigma)
    exact = None
    if reference_sigmas and _gate(RemaskStep, sigmas):
        exact = {(role, T): exact_rate(T, sigmas[role][T]) for role in (0, 1) for T in TS}
        for _, series, shares, _ in data:
            expect(not all(abs(shares[T] - exact[(1, T)]) < 1e-4 for T in TS),
                   f"in {series.describe()} the shares are the exact law of remasking, not shares of your runs: "
                   f"plot what your runs of RemaskTwo made")
    asked = runs_asked(5000)
    n = max(found, asked)
    pairings = [(a, b) for a, b in itertools.permutations(range(len(data)), 2)
                if data[a][3] in (0, None) and data[b][3] in (1, None)]
    expect(pairings, "say in the legend which curve is without remasking and which is with it")
    fresh, problems, wrong = None, [], []
    for stage in ("exact", "fresh"):
        if stage == "exact" and exact is None:
            continue
        if stage == "fresh" and wrong:
            raise Failure(wrong[0])
        if stage == "fresh":
            fresh = remask_chains(RemaskStep, sigmas) if any(sigmas.values()) else {}
            if not any(v for v in fresh.values()):
                if not problems:
                    return   # your functions raised here: the plot could not have been drawn from them
                break
        for pair in pairings:
            try:
                _judge_remasking([data[pair[0]], data[pair[1]]], n, exact if stage == "exact" else None, fresh)
            except WrongCurve as failure:   # a curve of the other kind: the student's own runs cannot explain it
                wrong.append(str(failure))
                continue
            except Failure as failure:
                problems.append(str(failure))
                continue
            enough_runs(found, asked, _remask_groups(exact, fresh), "the drawn shares", "repeats(5000)")
            return
    raise Failure(problems[0])


def _remask_groups(exact, fresh):
    """The law of one run's impossible count behind each drawn share (exact where known, else the share
    of the student's own runs)."""
    groups = []
    for role, T in itertools.product((0, 1), TS):
        if exact is not None:
            p = exact[(role, T)]
        elif fresh and fresh.get((role, T)):
            k, runs = fresh[(role, T)]
            p = k / runs
        else:
            continue
        groups.append([np.array([1 - p, p])])
    return groups


class WrongCurve(Failure):
    """A drawn curve far likelier to be runs of the other curve's kind than of its own."""


def _judge_remasking(pair, n, exact, fresh):
    """Each drawn share against the exact law (Chernoff), or against the student's own runs (Chernoff on
    each side, and a Hoeffding bound on the sum over T of the differences, which sees a curve off all
    along that no single T can show with few runs of the student's functions)."""
    alpha = ALPHA / 3 / (len(ROLES) * (len(TS) + 2))
    for role, (_, series, shares, _) in enumerate(pair):
        name = ROLES[role][0]
        counts = [shares[T] * n for T in TS]
        if exact is not None and all(abs(k - round(k)) < 1e-6 for k in counts):
            # the whole curve against the other curve's law: a second curve of the wrong kind sits a few
            # standard errors off at every T, which no single T shows
            other = ROLES[1 - role][0]
            verdict = stats.likelihood_ratio_test([round(k) for k in counts], n, [exact[(role, T)] for T in TS],
                                                  [exact[(1 - role, T)] for T in TS], alpha)
            if not verdict.ok:
                raise WrongCurve(f"{series.describe()} is drawn as {name}, but over T = {', '.join(map(str, TS))} its "
                                 f"shares are far likelier runs {other}: {verdict.summary}; draw each curve from its "
                                 f"own runs of RemaskTwo")
        if exact is None and all(fresh.get((role, T)) for T in TS):
            gap = sum(shares[T] - fresh[(role, T)][0] / fresh[(role, T)][1] for T in TS)
            bound = math.sqrt(math.log(2 / alpha) / 2 * sum(1 / n + 1 / fresh[(role, T)][1] for T in TS))
            expect(abs(gap) <= bound,
                   f"in {series.describe()} ({name}) the shares of impossible sentences add up over T = "
                   f"{', '.join(map(str, TS))} to {sum(shares.values()):.3f}, but runs of RemaskTwo with your "
                   f"RemaskStep and RemaskSigma drawn by the grader add up to {sum(shares.values()) - gap:.3f}; more "
                   f"than chance allows ({bound:.3f})")
        for T in TS:
            if exact is not None:
                p = exact[(role, T)]
                expect(share_fits(shares[T], n, p, alpha),
                       f"at T = {T} the share of impossible sentences ({name}) is {shares[T]:.4f} in "
                       f"{series.describe()}, but RemaskTwo with your RemaskStep and RemaskSigma makes them with "
                       f"probability {p:.4f} exactly (computed over every canvas); over {n} runs more than chance "
                       f"allows")
            elif fresh.get((role, T)):
                k, runs = fresh[(role, T)]
                expect(plots.same_share(shares[T] * n, n, k, runs, alpha),
                       f"at T = {T} the share of impossible sentences ({name}) is {shares[T]:.4f} in "
                       f"{series.describe()}, but {k} of {runs} runs of RemaskTwo with your RemaskStep and "
                       f"RemaskSigma drawn by the grader ({k / runs:.4f}); more than chance allows")


# ---- plot_entropy_perplexity --------------------------------------------------------------------

SAMPLES, SOURCES, LONGEST = 17, 5, math.log(32)     # 4 prompts x 3 samplers + 4 stretches + 1; ln 32 nats
DEGENERATE_WORDS = re.compile(r"the\W*the|degenerat|repeat|collaps|same word|one word", re.I)


class FakeScorer:
    """A causal scorer held by the checker: fixed random logits per (position, previous token)."""

    def __init__(self, seed, V=11):
        g = torch.Generator().manual_seed(seed)
        self.table = torch.randn(V, V, generator=g) * 2

    def __call__(self, ids):
        ids = torch.as_tensor(ids)
        return self.table[ids.long()].reshape(*ids.shape, -1)


def _entropy_probes():
    g = torch.Generator().manual_seed(61)
    probes = [torch.full((32,), 5), torch.full((32,), 17), torch.arange(32), torch.arange(100, 132)]
    probes += [torch.randint(0, k, (32,), generator=g) for k in (2, 5, 12, 40)]
    return probes


def _agrees(student, arg_lists, reference, tolerance):
    """The student's answers on the probes, and whether each is the reference's (None where it raised)."""
    got = []
    for args, result in zip(arg_lists, student.calls(arg_lists)):
        try:
            got.append(float(result[1]) if _ok(result) else None)
        except (TypeError, ValueError):
            got.append(None)
    want = [reference(*args) for args in arg_lists]
    right = all(v is not None and abs(v - w) <= tolerance * max(1.0, abs(w)) for v, w in zip(got, want))
    return got, right


PROMPTS = ["once upon a time ,", "the dog", "lily went to the", "one day ,"]
BLOCK_RUNS = ((8, 16), (32, 16))   # (block_length, steps) of the figure's two SampleBlocks samplers, 32 ids each
STORY_NAMES = ("SampleBlocks", "story_model", "StoryTokens", "MASK_ID", "PAD_ID", "CONTROL_IDS")


def prompt_counted(SampleEntropy, entropies):
    """The task: the entropy of each sample's 32 generated ids, the prompt left out. The two SampleBlocks
    samplers are greedy, so their 8 samples are run again here (the student's SampleBlocks on the notebook's
    story_model, in the kernel), and the student's SampleEntropy scores each with and without its prompt: a
    figure that shows the entropies with the prompt, and not those without, fails. Where anything of this
    cannot run, or the samples come out otherwise (a sampler that draws at random), nothing is judged."""
    values = SampleEntropy.notebook(STORY_NAMES)
    if not values or any(name not in values for name in STORY_NAMES) or not all(
            isinstance(values[name], Student) for name in STORY_NAMES[:3]):
        return
    prompts = []
    for result in values["StoryTokens"].calls([[text] for text in PROMPTS]):
        try:
            prompts.append(torch.as_tensor(result[1]).long().reshape(-1) if _ok(result) else None)
        except (TypeError, ValueError, RuntimeError):
            prompts.append(None)
    if any(p is None for p in prompts):
        return
    ids = [values[name] for name in STORY_NAMES[3:]]
    runs = [(p, b, steps) for p in prompts for b, steps in BLOCK_RUNS]
    rows = values["SampleBlocks"].calls([[handle(values["story_model"]), p, 32, b, steps, *ids] for p, b, steps in runs])
    pairs = []
    for (prompt, _, _), result in zip(runs, rows):
        try:
            row = torch.as_tensor(result[1]).long().reshape(-1) if _ok(result) else None
        except (TypeError, ValueError, RuntimeError):
            row = None
        if row is not None and len(row) == len(prompt) + 32:
            pairs += [[row[len(prompt):]], [row]]
    if not pairs:
        return
    scores = [float(r[1]) if _ok(r) and isinstance(r[1], (int, float)) else math.nan
              for r in SampleEntropy.calls(pairs)]
    drawn = entropies[np.isfinite(entropies)]

    def shown(value):
        return np.isfinite(value) and bool((np.abs(drawn - value) <= 1e-6 * max(1.0, abs(value))).any())
    telling = [(alone, whole) for alone, whole in zip(scores[::2], scores[1::2]) if abs(alone - whole) > 1e-6]
    with_prompt = sum(shown(whole) for _, whole in telling)
    without = sum(shown(alone) for alone, _ in telling)
    expect(not (telling and with_prompt >= len(telling) / 2 and with_prompt > without),
           f"your figure shows the entropies of the SampleBlocks samples with their prompts ({with_prompt} of "
           f"{len(telling)} found, run again here): take the SampleEntropy of the 32 generated ids only, the prompt "
           f"left out (row[len(prompt):]), and their Perplexity likewise")


@check("plot_entropy_perplexity", shares=False)   # entropies, perplexities: no complement
def plot_entropy_perplexity(drawn, SampleEntropy, Perplexity):
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("the perplexity of each sample against its entropy")
    ax = max(axes, key=lambda a: sum(s.x.size for s in a.series if s.kind in ("points", "line")))
    series = [s for s in ax.series if s.kind in ("points", "line") and not s.style.get("axline") and s.x.size]
    swapped = "entropy" in ax.ylabel.lower() and "perplexity" in ax.xlabel.lower()
    expect(swapped or ("entropy" in ax.xlabel.lower() and "perplexity" in ax.ylabel.lower()),
           f"label the axes with the words entropy and perplexity (x label read: {ax.xlabel!r}, y label: "
           f"{ax.ylabel!r})")
    points = [(s.y, s.x) if swapped else (s.x, s.y) for s in series]
    total = sum(x.size for x, _ in points)
    if total < SAMPLES:
        plots.missing(drawing, f"your figure shows {total} point(s); draw one per sample: {SAMPLES} (4 prompts x 3 "
                               f"samplers, 4 stretches of training text, the degenerate sample)")
    sources = max(len(series), len([t for t in ax.legend if t.strip()]))
    if sources < SOURCES:
        plots.missing(drawing, f"your figure tells {sources} source(s) apart; give each of the {SOURCES} sources (the "
                               f"three samplers, the training text, the degenerate sample) a colour of its own, as a "
                               f"series or a legend entry")
    entropies = np.concatenate([x for x, _ in points])
    perplexities = np.concatenate([y for _, y in points])
    probes = _entropy_probes()
    got, entropy_right = _agrees(SampleEntropy, [[p] for p in probes], ref.SampleEntropy, 1e-6)
    zero = got[0] if got[0] is not None and got[1] is not None and abs(got[0] - got[1]) < 1e-9 else None
    if entropy_right:
        shown = entropies[np.isfinite(entropies)]
        bad = shown[(shown < -1e-6) | (shown > LONGEST + 1e-6)]
        expect(not bad.size, f"your figure shows an entropy of {bad[0] if bad.size else 0:.3f}; the entropy of 32 ids, "
                             f"in nats, lies between 0 and ln 32 = {LONGEST:.3f} (your SampleEntropy gives nats: plot "
                             f"what it returns)")
    if zero is not None and np.isfinite(zero):
        at_zero = np.abs(entropies - zero) <= 1e-6 * max(1.0, abs(zero))
        expect(at_zero.any(), f"no point of your figure is at entropy {zero:g}, where your SampleEntropy puts the "
                              f"degenerate sample the the ... the (one token repeated)")
    prompt_counted(SampleEntropy, entropies)
    marked = (any(x.size == 1 for x, _ in points) or bool(ax.texts)
              or any(DEGENERATE_WORDS.search(t) for t in ax.legend + [s.label for s in series]))
    if not marked:
        plots.missing(drawing, "the degenerate sample the the ... the is not told apart: give it a series of its own, "
                               "a marker, a legend entry or an annotation")
    scorer = FakeScorer(7)
    g = torch.Generator().manual_seed(62)
    ids = [torch.randint(0, 11, (n,), generator=g) for n in (2, 5, 12, 33)]
    _, perplexity_right = _agrees(Perplexity, [[scorer, i] for i in ids], ref.Perplexity, 1e-4)
    if perplexity_right:
        shown = perplexities[np.isfinite(perplexities)]
        expect(not (shown < 1 - 1e-6).any(),
               f"your figure shows a perplexity of {shown.min() if shown.size else 0:.3f}; a perplexity, the exp of "
               f"a mean negative log-likelihood, is at least 1")
