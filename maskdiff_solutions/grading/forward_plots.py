"""Hidden checks of notebook 01's plots and printout: they read what the student drew (grading/plots.py).

Each check compares the drawing with the student's own functions, sampled again here (with our
schedule and sentence), so a bug in MakeSchedule, ForwardMask or ForwardMaskFast is charged in that
function's tests only; if the function raises, the drawing is compared with the right law instead.
"""
import numpy as np
import torch

from .. import stats
from ..schedule import MakeSchedule as reference_schedule
from ..toy import MASK, SCHRODINGER, Encode, VOCAB
from . import plots
from .core import ALPHA, Failure, check, expect, plain_tensor
from .plots import runs_asked

X_0 = Encode(SCHRODINGER)
L = X_0.numel()


def schedules(MakeSchedule, T):
    """(beta, alpha_bar) to accept: the student's first when their MakeSchedule returns two vectors
    (the plot cell uses it, so the plot shows its numbers, right or wrong), then ours."""
    ours = tuple(v.numpy() for v in reference_schedule(T))
    try:
        beta, alpha_bar = MakeSchedule(T)
        theirs = tuple(np.asarray(torch.as_tensor(np.asarray(v), dtype=torch.float64)).reshape(-1)
                       for v in (beta, alpha_bar))
    except Exception:  # noqa: BLE001 - a broken MakeSchedule: the plot cell could only use the right one
        return [ours]
    if all(np.array_equal(a, b) for a, b in zip(theirs, ours)):
        return [ours]
    return [theirs, ours]


def padded(values, length):
    """values as floats of the given length (NaN where missing: such points are not compared)."""
    out = np.full(length, np.nan)
    out[:min(length, values.size)] = values[:length]
    return out


def require_labels(axes, what):
    expect(axes.labelled(), f"{what}: label both axes (set_xlabel / set_ylabel)")
    expect(axes.legend, f"{what}: add a legend that says which curve is which (ax.legend())")


IN_PLACE = "in place"


def _few(values, k=4):
    values = [v for v in np.asarray(values, dtype=float) if np.isfinite(v) and v != 0][:k]
    return ", ".join(f"{v:.4g}" for v in values) + ", ..." if values else "(none the reader could place)"


def masked_counts(outcomes, last):
    """Masked tokens in each run's sentence (the last of a history when `last`); None if the function
    raised or returned something that is not a sentence; IN_PLACE if it changed the x_0 it was given
    (then the notebook's x_0 changed under the plot too, and fresh runs cannot say what it drew)."""
    counts = []
    for result in outcomes:
        if result[0] == "ok" and 0 in result[2]:
            return IN_PLACE
        if result[0] != "ok":
            return None
        value = result[1][-1] if last and isinstance(result[1], (list, tuple)) and result[1] else result[1]
        try:
            x = torch.as_tensor(np.asarray(value.detach().cpu() if torch.is_tensor(value) else value)).reshape(-1)
        except (TypeError, ValueError, RuntimeError):
            return None
        counts.append(int((x == MASK).sum()))
    return np.bincount(counts, minlength=L + 1)[:L + 1] if counts else None


@check("plot_schedule")
def plot_schedule(drawn, MakeSchedule):
    T = 50
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("beta_t and alpha_bar_t against t for T = 50")
    steps = list(range(T + 1))
    straight = [1 - t / T for t in steps]
    seen = set()
    # beta may have a panel (or a twin axis) of its own; the line 1 - t/T goes with alpha_bar_t
    for beta, alpha_bar in schedules(MakeSchedule, T):
        beta, alpha_bar = padded(beta, T + 1), padded(alpha_bar, T + 1)
        bs = [(ax, s) for ax, s in drawing.series() if plots.matches(s, steps[1:], beta[1:], coverage=0.9)]
        alphas = [(ax, s) for ax, s in drawing.series() if plots.matches(s, steps, alpha_bar, coverage=0.9)]
        seen |= {"beta"} if bs else set()
        seen |= {"alpha_bar"} if alphas else set()
        for b_ax, b in bs:
            for a_ax, a in alphas:
                lines = [s for s in a_ax.series if s is not a and s is not b
                         and (plots.on_curve(s, lambda x: 1 - x / T, 0, T) or plots.matches(s, steps, straight, coverage=0.9))]
                if a is not b and lines:
                    seen.add("line")
                    used = [b_ax] if b_ax is a_ax else [b_ax, a_ax]
                    expect(all(ax.ylabel for ax in used) and any(ax.xlabel for ax in used),
                           "the schedule plot: label both axes (set_xlabel / set_ylabel)"
                           + (" of each panel" if len(used) > 1 else ""))
                    expect(any(ax.legend for ax in used), "the schedule plot: add a legend that says which "
                                                          "curve is which (ax.legend())")
                    return
    found = (f"your figure has {len(drawing.series())} curve(s) or set(s) of points over {len(axes)} axes, "
             + ", ".join(f"with {name}" for name in ("beta_t", "alpha_bar_t") if name.split("_t")[0] in seen)
             + ("" if seen else "none of them"))
    if "beta" not in seen:
        plots.missing(drawing, f"{found}; it has no curve of beta_t at the steps t = 1..{T} (T = {T}, the values "
                               f"your MakeSchedule gives)")
    if "alpha_bar" not in seen:
        plots.missing(drawing, f"{found}; it has no curve of alpha_bar_t at every step t = 0..{T} (T = {T}, the "
                               f"values your MakeSchedule gives)")
    plots.missing(drawing, f"{found}, but no straight line 1 - t/T from (0, 1) to ({T}, 0) on the axes of "
                           f"alpha_bar_t as a curve of its own")


@check("show_dissolution")
def show_dissolution(drawn, ForwardMask):
    T = 16
    drawing = plots.Drawing.of(drawn)
    sentences = []
    for line in plots.printed_lines(drawing.printed):
        tokens = [w for w in plots.words(line) if w in VOCAB]
        if len(tokens) >= L:
            sentences.append(tokens[-L:])
    drawing.need_printed("print every sentence of the history "
                         "with Decode, one per line")
    expect(sentences, "no line of your printout is a sentence of 16 words: print each x_t with Decode(x_t)")
    beta, _ = reference_schedule(T)
    outcome = ForwardMask.repeat([X_0, T, beta], 1)[0]
    expected = len(outcome[1]) if outcome[0] == "ok" and isinstance(outcome[1], (list, tuple)) else T + 1
    expect(len(sentences) == expected,
           f"your printout shows {len(sentences)} sentence(s); the history of T = {T} steps holds {expected} "
           f"(x_0 ... x_{T}): print every one")
    original = SCHRODINGER.split()
    for t, tokens in enumerate(sentences):
        odd = [w for w, o in zip(tokens, original) if w not in (o, VOCAB[MASK])]
        if odd:
            raise Failure(f"printed sentence {t} holds {odd[0]!r} where x_0 has another word: print the "
                          f"history of x_0 itself")


@check("plot_masked_fraction")
def plot_masked_fraction(drawn, ForwardMask, MakeSchedule):
    T = 50
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("the average fraction masked against t, with 1 - alpha_bar_t on top")
    steps = list(range(T + 1))
    candidates = schedules(MakeSchedule, T)
    theories = [1 - padded(alpha_bar, T + 1) for _, alpha_bar in candidates]
    found = None
    for ax in axes:
        for scale in (1, 100):   # fractions, or percentages
            theory = plots.first(ax.series, lambda s: any(plots.matches(s, steps, scale * f, coverage=0.9)
                                                          for f in theories)
                                 or plots.on_curve(s, lambda x: scale * x / T, 0, T))
            if theory is not None:
                found = ax, theory, scale
                break
        if found is not None:
            break
    if found is None:
        wrong = any(plots.matches(s, steps, c * (1 - f), coverage=0.9) for _, s in drawing.series() for f in theories
                    for c in (1, 100))
        if wrong:
            raise Failure("your theory curve is alpha_bar_t, the share still visible; the fraction masked is "
                          "1 - alpha_bar_t")
        plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points, none of them "
                               f"the theory 1 - alpha_bar_t at every t = 0..{T} (T = {T}; as fractions or percent)")
    ax, theory, scale = found
    data = [(s, plots.values_at(s, steps) / scale) for s in ax.series if s is not theory]
    data = [(s, v) for s, v in data if v is not None and (~np.isnan(v)).sum() >= 0.9 * len(steps)]
    expect(data, f"beside the theory curve your figure should show the average fraction masked at every "
                 f"step t = 0..{T}")
    beta = candidates[0][0]
    own = _fractions(ForwardMask.repeat([X_0, T, torch.as_tensor(beta)], 250), T)
    problems, unsure = [], []
    for series, values in data:
        seen = ~np.isnan(values)
        inner = seen & np.all([(f > 1e-9) & (f < 1 - 1e-9) for f in theories], axis=0)
        if any(np.allclose(values[inner], f[inner], atol=1e-9) for f in theories if inner.any()):
            problems.append(f"{series.describe()} is exactly the theory 1 - alpha_bar_t: plot the average your "
                            f"runs of ForwardMask measured")
            continue
        runs = plots.runs_behind_means(values, L)
        if runs is None:
            problems.append(f"{series.describe()} is not an average over runs of ForwardMask (no number of "
                            f"runs up to 100000 makes its values whole counts of masked tokens out of {L}): "
                            f"plot what your runs measured")
            continue
        spread = values[seen][(values[seen] > 1e-9) & (values[seen] < 1 - 1e-9)]
        if runs < runs_asked(1000) and spread.size:   # (every value 0 or 1 says nothing of the runs)
            # (runs is the fewest that fits, a divisor of the true number: when the student's ForwardMask
            # masks tokens g at a time, count in steps of g before calling it too few)
            g = own[2] if own is not None else 1
            coarse = plots.runs_behind_means(values, L / g) if g > 1 else None
            few = (f"{series.describe()} is an average over {runs} runs (the fewest that make its values whole "
                   f"counts of masked tokens); the task asks for repeats(1000), {runs_asked(1000)} under the "
                   f"autograder")
            if coarse is not None and coarse >= runs_asked(1000):
                runs = coarse
            elif g == 1:
                problems.append(few)
                continue
            else:
                unsure.append(few + f" (your ForwardMask masks {g} tokens at a time, so the grader cannot count)")
                continue
        if own is not None:
            gap = np.abs(values[seen] - own[0][seen])
            bound = plots.mean_gap_bound(runs, own[1], ALPHA / len(steps))
            label = f"your ForwardMask ({own[1]} runs drawn by the grader)"
            expected = own[0]
        else:  # the function raised or changed its input: the right law
            expected = np.array(steps, dtype=float) / T
            gap = np.abs(values[seen] - expected[seen])
            bound = plots.mean_gap_bound(runs, 10 ** 12, ALPHA / len(steps))
            label = "1 - alpha_bar_t"
        if gap.max() <= bound:
            return
        worst = int(np.flatnonzero(seen)[gap.argmax()])
        problems.append(f"at t = {worst} your plot shows {values[worst]:.3f} masked on average over {runs} runs, "
                        f"but {label} gives {expected[worst]:.3f}; more than chance allows ({bound:.3f})")
    if unsure and not problems:
        raise plots.Review(unsure[0])
    raise Failure(problems[0])


def _fractions(outcomes, T):
    """Mean fraction masked per step over the student's histories, how many, and the greatest common
    divisor of every masked count seen (tokens masked g at a time); None if they raised."""
    rows, counts = [], []
    for result in outcomes:
        if result[0] != "ok" or not isinstance(result[1], (list, tuple)) or len(result[1]) != T + 1 \
                or 0 in result[2]:
            return None
        xs = result[1]
        if all(plain_tensor(x) for x in xs) and len({x.shape for x in xs}) == 1:   # one shape: all at once
            masked = (torch.stack(list(xs)).reshape(len(xs), -1) == MASK).sum(dim=1).tolist()
        else:
            try:
                masked = [int((torch.as_tensor(np.asarray(x)) == MASK).sum()) for x in xs]
            except (TypeError, ValueError, RuntimeError):
                return None
        rows.append([m / L for m in masked])
        counts += masked
    return np.array(rows).mean(axis=0), len(rows), int(np.gcd.reduce(np.array(counts, dtype=np.int64)) or 1)


def _law_in(ax, ns, laws):
    """(the series of `ax` that draws the binomial law, its scale: 1 for probabilities, else the
    number it was multiplied by), or (None, 1.0). The law's value for n is read at n, or at the middle
    of n's bar when the histograms' bars span [n, n+1)."""
    places = [ns] + [middles for middles in [plots.bar_middles(ax, ns)] if middles]
    for series in ax.series:
        for xs in places if series.kind != "bars" else [ns]:
            drawn_law = plots.values_at(series, xs)
            if drawn_law is None or (~np.isnan(drawn_law)).sum() < L:
                continue
            for pmf in laws:
                top = np.nanmax(drawn_law) / pmf.max()
                if plots.matches(series, xs, pmf * top, coverage=0.9) and (abs(top - 1) < 1e-3 or top > 1.5):
                    return series, top
    return None, 1.0


@check("plot_masked_histograms")
def plot_masked_histograms(drawn, ForwardMask, ForwardMaskFast, MakeSchedule):
    T, t, runs_here = 50, 20, 600
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("two histograms of the masked count and the binomial law")
    ns = list(range(L + 1))
    candidates = schedules(MakeSchedule, T)
    laws = [np.asarray(stats.binomial_pmf(L, float(np.clip(1 - alpha_bar[t], 0, 1))), dtype=float)
            for _, alpha_bar in candidates if alpha_bar.size > t and np.isfinite(alpha_bar[t])]
    panels = []   # (axes, its law, the law's scale): the histograms may share one panel or have one each
    for ax in axes:
        law, scale = _law_in(ax, ns, laws)
        if law is not None:
            panels.append((ax, law, scale))
    if not panels:
        plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s), sets of points or bars, none of "
                               f"them the binomial law P(n) = C(16, n) p^n (1-p)^(16-n) with p = 1 - alpha_bar_{t} "
                               f"= 0.40 at every n = 0..16 (as probabilities, or all multiplied by one number)")
    histograms = []
    for ax, law, scale in panels:
        for series in ax.series:
            if series is law or series.kind != "bars":
                continue
            heights = plots.bar_heights(series, ns)
            if heights is None:
                raise plots.Review(f"{series.describe()} are not one bar per count n = 0..{L} (a bar spans several "
                                   f"counts, or stands for none): the grader cannot read them as a histogram, so a "
                                   f"person will look at it")
            if not np.nansum(np.abs(heights)):   # bars of no height anywhere: nothing to read (a legend's)
                continue
            counted = plots.counts_of(heights)
            if counted is None:
                raise Failure(f"{series.describe()} have heights {_few(heights)}: no number of runs up to a million "
                              f"makes them whole counts, times one scale, so they are not a histogram of runs")
            counts, runs = counted
            total = float(np.nansum(heights))
            mass = float(np.sum(series.y * np.abs(series.style.get("width", np.ones(series.y.size)))))
            expect(any(abs(v - scale) <= 2e-3 * scale for v in (total, mass)),
                   f"{series.describe()} add up to {total:.4g} but the binomial law beside them to {scale:.4g}: draw "
                   f"both on one scale (both as probabilities with density=True, or both in counts)")
            plots.enough_runs(series, heights, runs, runs_asked(5000), "repeats(5000)")
            histograms.append((series, counts))
    expect(len(histograms) >= 2, f"draw two histograms (ForwardMask and ForwardMaskFast) beside the law; "
                                 f"your figure has {len(histograms)} beside it")
    beta, alpha_bar = (torch.as_tensor(v) for v in candidates[0])  # what the plot cell used
    slow = masked_counts(ForwardMask.repeat([X_0, t, beta], runs_here), last=True)
    fast = masked_counts(ForwardMaskFast.repeat([X_0, t, alpha_bar], runs_here), last=False)
    plots.two_histograms(histograms, [(slow, "ForwardMask"), (fast, "ForwardMaskFast")], laws[0], ALPHA)
    require_labels(ax, "the histogram plot")
