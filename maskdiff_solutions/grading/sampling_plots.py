"""Hidden checks of notebook 02's plots and printouts: they read what the student drew or printed
(grading/plots.py) and compare it with the student's own functions, run again here.

Undiffusion chains are run by the student's stepper (Undiffuse or UndiffuseGreedy) with the
student's own guesser, from four masks, exactly as the plot cell ran them; a bug in a function thus
shows in its plot and costs marks only in that function's own tests. Shares of sentences are
compared with `plots.same_share` (a Chernoff bound on each side, exact for any law), every check
splitting ALPHA over its comparisons. When a function raises here, the plot cell could not have
drawn its figure either: then only what the page asks of the figure itself is checked.
"""
import itertools
import re

import numpy as np
import torch

from maskdiff_client.fakes import TableGuesser

from ..toy import ALIVE, EMPTY, MASK, VOCAB, Encode
from . import plots
from .core import ALPHA, Failure, check, expect, handle
from .forward_plots import require_labels, schedules
from .plots import reaches, runs_asked

L = 4
REAL = (ALIVE, EMPTY)
WORDS = set(VOCAB)


def reachable():
    """Every x_t undiffusion can reach in the two-sentence world: each position one of the two
    sentences' words there, or the mask (36 sentences)."""
    options = [sorted({int(Encode(s)[i]) for s in REAL} | {MASK}) for i in range(L)]
    return [torch.tensor(ids) for ids in itertools.product(*options)]


def tabulated(guesser):
    """The student's two-sentence guesser as a look-up table of its own answers on every reachable
    x_t (one request instead of one call per step); None if it raised or gave something else."""
    states = reachable()
    tables = []
    for result in guesser.calls([[x] for x in states]):
        try:
            p = torch.as_tensor(np.asarray(result[1]), dtype=torch.float32) if result[0] == "ok" else None
            tables.append(p.reshape(L, len(VOCAB)))
        except (TypeError, ValueError, RuntimeError, AttributeError):
            return None
    return TableGuesser([x.tolist() for x in states], torch.stack(tables), list(VOCAB))


def finals(stepper, guesser, ts, runs, table=None):
    """The (runs, len(ts), L) trace of `runs` chains of the student's stepper with the student's
    guesser (or `table`, its answers looked up) from four masks through the steps ts, or None if any
    step raised or returned something that is not a sentence (the plot cell would have stopped too)."""
    start = torch.full((L,), MASK, dtype=torch.long)
    for guess in ([table] if table is not None else []) + [handle(guesser)]:
        if guess is None:
            continue
        out = stepper.chains(start, list(ts), guess, MASK, runs=runs)
        if not out["errors"]:
            return torch.as_tensor(out["trace"], dtype=torch.long)
    return None  # (a stepper that leaves the table's sentences is run with the guesser itself)


def sentence_of(ids):
    return " ".join(VOCAB[i] if 0 <= i < len(VOCAB) else "?" for i in ids.tolist())


def outcomes(stepper, guesser, T, runs, table=None):
    """The sentences `runs` undiffusions of T steps end in (None: the functions raised)."""
    trace = finals(stepper, guesser, range(T, 0, -1), runs, table)
    return None if trace is None else [sentence_of(x) for x in trace[:, -1]]


def category(sentence):
    return sentence if sentence in REAL else "impossible"


def compare_shares(drawn_counts, own, alpha, where):
    """The shares of 'the cat is alive', 'the box is empty' and of everything else in a drawn tally
    {sentence: count} against the sentences the student's functions gave here."""
    n_drawn, n_own = sum(drawn_counts.values()), len(own)
    for name in (ALIVE, EMPTY, "impossible"):
        k_drawn = sum(c for s, c in drawn_counts.items() if category(s) == name)
        k_own = sum(category(s) == name for s in own)
        if not plots.same_share(k_drawn, n_drawn, k_own, n_own, alpha / 3):
            what = f"'{name}'" if name != "impossible" else "impossible sentences (neither real one)"
            raise Failure(f"{where}: {what} make {k_drawn / n_drawn:.1%} of the {n_drawn} runs your figure "
                          f"shows, but {k_own / n_own:.1%} of {n_own} runs of your functions drawn by the "
                          f"grader; more than chance allows (is it the right T, stepper and guesser?)")


# ---- printouts ------------------------------------------------------------------------------------

def printed_sentences(text):
    """Every printed sentence of four vocabulary words: on each line, the longest stretch of words
    that are all in the vocabulary, cut into sentences when it is several of them in a row (a run
    printed on one line), else its last four (a label such as 'if' or 'is' before the sentence)."""
    out = []
    for line in plots.printed_lines(text):
        stretches, current = [], []
        for w in plots.words(line):
            if w in WORDS:
                current.append(w)
            else:
                stretches.append(current)
                current = []
        stretches.append(current)
        tokens = max(stretches, key=len)
        if len(tokens) >= 2 * L and len(tokens) % L == 0:
            out += [tokens[i:i + L] for i in range(0, len(tokens), L)]
        elif len(tokens) >= L:
            out.append(tokens[-L:])
    return out


def printed_runs(sentences, T, least):
    """The printed sentences cut into runs of T steps (x_{T-1} ... x_0), each optionally preceded by
    the row of masks it started from."""
    masks = [VOCAB[MASK]] * L
    for size in (T + 1, T):
        if sentences and len(sentences) % size == 0:
            runs = [sentences[i:i + size] for i in range(0, len(sentences), size)]
            if size == T or all(r[0] == masks for r in runs):
                return [r[-T:] for r in runs]
    raise Failure(f"your printout shows {len(sentences)} sentences; print at least {least} runs of T = {T} "
                  f"steps, each with the sentence after every step (x_{T - 1} ... x_0), one per line")


def monotone(run):
    """Does no printed word change, and no mask come back, from one step to the next?"""
    mask = VOCAB[MASK]
    return all(b == a or a == mask for x, y in zip(run, run[1:]) for a, b in zip(x, y))


def runs_printed(drawn, T, least, what):
    """The runs of T steps in the printout of the cell above (printed_runs), once it printed sentences."""
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed(f"print the sentence after every step "
                         f"of {what} with Decode, one per line")
    sentences = printed_sentences(drawing.printed)
    expect(sentences, "no line of your printout is a sentence of four words: print each x with Decode(x)")
    return printed_runs(sentences, T, least)


@check("show_undiffusion_runs")
def show_undiffusion_runs(drawn, Undiffuse, GuessX0_one):
    T, least = 10, 5
    runs = runs_printed(drawn, T, least, "each run")
    expect(len(runs) >= least, f"your printout shows {len(runs)} run(s) of {T} steps; undiffuse {least} times")
    trace = finals(Undiffuse, GuessX0_one, range(T, 0, -1), 100)
    own_monotone = trace is not None and all(monotone([sentence_of(x).split() for x in run]) for run in trace)
    if own_monotone:  # your Undiffuse never changes a word once written: the printout must not either
        for i, run in enumerate(runs):
            expect(monotone(run), f"in printed run {i + 1} a word changes or a mask comes back from one step "
                                  f"to the next; print the history of one sentence, step after step")


SENTENCE = re.compile(r"((?:[a-z_]+ ){3}[a-z_]+)['\"]?[ \t]*[:=,]?[ \t]*(\d+)")   # (a count on the same line)
COUNT_FIRST = re.compile(r"^\W*(\d+)\s*[:=,x]?\s*['\"]?((?:[a-z_]+ ){3}[a-z_]+)['\"]?\s*$", re.MULTILINE)


def printed_tally(text):
    """{sentence: count} from a printed Counter (or lines 'sentence count', or 'count sentence')."""
    tally = {}
    for sentence, count in SENTENCE.findall(text):
        if all(w in WORDS for w in sentence.split()):
            tally[sentence] = tally.get(sentence, 0) + int(count)
    if not tally:
        for count, sentence in COUNT_FIRST.findall(text):
            if all(w in WORDS for w in sentence.split()):
                tally[sentence] = tally.get(sentence, 0) + int(count)
    return tally


@check("show_thousand_runs")
def show_thousand_runs(drawn, Undiffuse, GuessX0_one):
    T = 10
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed("print the Counter that Tally returns")
    tally = printed_tally(drawing.printed)
    expect(tally, "your printout holds no sentence with its count: print what Tally(make, 1000) returns")
    runs = sum(tally.values())
    expect(runs >= 100, f"your tally counts {runs} sentences; undiffuse 1000 times (Tally(make, 1000))")
    own = outcomes(Undiffuse, GuessX0_one, T, 200)
    if own is None:  # the functions raised here: the page's fact
        expect(set(tally) == {ALIVE}, f"every undiffusion in the one-sentence world ends in '{ALIVE}'; your "
                                      f"tally shows {sorted(set(tally) - {ALIVE})[:2]}")
        return
    kinds = {f"'{ALIVE}'": lambda s: s == ALIVE, "sentences with a mask left": lambda s: VOCAB[MASK] in s.split(),
             "other sentences": lambda s: s != ALIVE and VOCAB[MASK] not in s.split()}
    for name, kind in kinds.items():
        k_drawn, k_own = sum(c for s, c in tally.items() if kind(s)), sum(kind(s) for s in own)
        if not plots.same_share(k_drawn, runs, k_own, len(own), ALPHA / len(kinds)):
            raise Failure(f"{name} make {k_drawn / runs:.1%} of your tally of {runs} but {k_own / len(own):.1%} "
                          f"of {len(own)} undiffusions (T = {T}) of your Undiffuse and GuessX0_one run by the "
                          f"grader; more than chance allows")


# ---- the histograms of x_5 ------------------------------------------------------------------------

def masked_counts(values):
    counts = []
    for value in values:
        try:
            x = torch.as_tensor(np.asarray(value.detach().cpu() if torch.is_tensor(value) else value)).reshape(-1)
        except (TypeError, ValueError, RuntimeError):
            return None
        counts.append(int((x == MASK).sum()))
    return np.bincount(counts, minlength=L + 1)[:L + 1]


def forward_counts(ForwardMaskFast, SamplePInit_one, alpha_bar, t, runs):
    start = [r[1] for r in SamplePInit_one.repeat([], 1) if r[0] == "ok"]
    x_0 = start[0] if start else Encode(ALIVE)
    results = ForwardMaskFast.repeat([x_0, t, torch.as_tensor(alpha_bar)], runs)
    if any(r[0] != "ok" for r in results):
        return None
    return masked_counts([r[1] for r in results])


@check("plot_undiffusion_histograms")
def plot_undiffusion_histograms(drawn, Undiffuse, GuessX0_one, ForwardMaskFast, MakeSchedule, SamplePInit_one):
    T, t_stop, runs_here = 10, 5, 400
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("two histograms of the number of masked tokens at t = 5")
    ns = list(range(L + 1))
    found, unreadable = [], []
    for ax in axes:
        found = []
        for series in ax.series:
            heights = plots.bar_heights(series, ns) if series.kind == "bars" else None
            counted = plots.counts_of(heights) if heights is not None else None
            if counted is not None:
                found.append((series, counted[0], heights, counted[1]))
            elif series.kind == "bars":
                unreadable.append(series)
        if len(found) >= 2:
            break
    if len(found) < 2:
        what = (f"your figure has {len(found)} histogram(s) of whole counts 0 to 4 in one axes; draw two on one plot: "
                f"ForwardMaskFast to t = 5 and Undiffuse from t = 10 to t = 5")
        if unreadable:
            raise plots.Review(f"{what}; it also has bars the grader cannot read as counts 0 to 4 (one bar per "
                               f"count), so a person will look at it")
        plots.missing(drawing, what)
    for series, _, heights, runs in found:
        plots.enough_runs(series, heights, runs, runs_asked(1000), "repeats(1000)")
    found = [(series, counts) for series, counts, _, _ in found]
    _, alpha_bar = schedules(MakeSchedule, T)[0]
    forward = forward_counts(ForwardMaskFast, SamplePInit_one, alpha_bar, t_stop, runs_here)
    trace = finals(Undiffuse, GuessX0_one, range(T, t_stop, -1), runs_here)
    backward = None if trace is None else masked_counts(list(trace[:, -1]))
    law = np.asarray([1, 4, 6, 4, 1], dtype=float) / 16  # Binomial(4, 1/2): the right law of both
    plots.two_histograms(found, [(forward, "ForwardMaskFast to t = 5"), (backward, "Undiffuse from t = 10 to t = 5")],
                         law, ALPHA)
    require_labels(ax, "the histogram plot")


# ---- bar charts of sentences ----------------------------------------------------------------------

def named_bars(ax, series):
    """{sentence: height} of one set of bars, each named by the tick label at its place (under it, or
    beside it for horizontal bars; for grouped bars the nearest tick within half a unit), or None."""
    ticks = ax.yticks if series.style.get("horizontal") else ax.xticks
    width = series.style.get("width", np.full(series.x.size, 0.8))
    heights = {}
    for left, w, h in zip(series.x, width, series.y):
        lo, hi = sorted((left, left + w))
        names = [label for at, label in ticks.items() if lo - 1e-9 <= at <= hi + 1e-9]
        if not names:
            names = [label for at, label in ticks.items() if abs(at - (lo + hi) / 2) < 0.5 - 1e-9]
        words = names[0].split() if len(names) == 1 else []
        if len(words) != L or not all(w_ in WORDS for w_ in words):
            return None
        heights[" ".join(words)] = heights.get(" ".join(words), 0.0) + float(h)
    return heights or None


def sentence_bars(ax):
    """{sentence: height} of the first bar chart of sentences in one axes, or None."""
    for series in ax.series:
        if series.kind == "bars":
            heights = named_bars(ax, series)
            if heights:
                return heights
    return None


def tally_of(ax, where, heights=None):
    """{sentence: whole count} behind an axes' bar chart (heights in any scale: counts, fractions,
    percent), or behind the given {sentence: height}."""
    heights = sentence_bars(ax) if heights is None else heights
    expect(heights is not None, f"{where}: draw one bar per sentence, each named by its sentence under it "
                                f"(ax.set_xticks(positions, sentences))")
    names = list(heights)
    counted = plots.counts_of([heights[n] for n in names])
    expect(counted is not None, f"{where}: the bar heights {', '.join(f'{heights[n]:.4g}' for n in names[:4])} "
                                f"are no whole counts of runs times one scale; draw how often each sentence "
                                f"came out")
    return dict(zip(names, (int(c) for c in counted[0])))


def steps_of(ax, default):
    found = re.findall(r"T\s*=\s*(\d+)", ax.title)
    return int(found[0]) if found else default


@check("plot_two_sentence_bars")
def plot_two_sentence_bars(drawn, Undiffuse, GuessX0_two):
    T, runs_here = 50, 100
    drawing = plots.Drawing.of(drawn)
    axes = [ax for ax in drawing.need_axes("a bar chart of the sentences made at T = 50") if sentence_bars(ax)]
    if not axes:
        plots.missing(drawing, f"your figure has {sum(s.kind == 'bars' for _, s in drawing.series())} set(s) of "
                               f"bars, none of them one bar per sentence named by its sentence on its tick "
                               f"(ax.set_xticks(positions, sentences), or plt.barh(sentences, heights))")
    ax = axes[0]
    tally = tally_of(ax, "your bar chart")
    horizontal = any(s.style.get("horizontal") for s in ax.series if s.kind == "bars")
    expect(ax.xlabel if horizontal else ax.ylabel,
           f"label the {'x' if horizontal else 'y'} axis of the bar chart (how often each sentence came out)")
    table = tabulated(GuessX0_two)
    own = outcomes(Undiffuse, GuessX0_two, T, runs_here, table)
    if own is None:
        return
    compare_shares(tally, own, ALPHA, f"in your bar chart (T = {T})")


def charts_by_T(drawn, Ts, what, listed):
    """The sentence bar charts of the cell (in panels, figures, or grouped in one axes), by the T each
    shows: the legend label of its bars ('T = 4'), else its axes' title, else its place. Each chart is
    (axes, {sentence: height})."""
    drawing = plots.Drawing.of(drawn)
    found = []
    for ax in drawing.need_axes(what):
        sets = [(s, named_bars(ax, s)) for s in ax.series if s.kind == "bars"]
        sets = [(s, h) for s, h in sets if h]
        by_label = [(int(re.findall(r"T\s*=\s*(\d+)", s.label)[0]), h) for s, h in sets
                    if re.findall(r"T\s*=\s*(\d+)", s.label)]
        if len(sets) > 1 and len(by_label) == len(sets):
            found += [(T, ax, h) for T, h in by_label]
        elif sets:
            found.append((None, ax, sets[0][1]))
    charts = {}
    for i, (T, ax, heights) in enumerate(found):
        charts.setdefault(T if T is not None else steps_of(ax, Ts[i] if i < len(Ts) else 0), (ax, heights))
    if not set(Ts) <= set(charts):
        plots.missing(drawing, f"draw one bar chart for each of T = {listed} (title each 'T = ...'); your figure "
                               f"has bar charts of sentences for T = {sorted(charts)}")
    return charts


@check("plot_bars_few_steps")
def plot_bars_few_steps(drawn, Undiffuse, GuessX0_two):
    Ts, runs_here = (1, 2, 4, 10), 250
    charts = charts_by_T(drawn, Ts, "bar charts of the sentences made with T = 1, 2, 4, 10", "1, 2, 4 and 10")
    table = tabulated(GuessX0_two)
    labelled = [charts[T][0].ylabel or charts[T][0].xlabel for T in Ts]
    expect(any(labelled), "label the axis of the bar charts that says how often each sentence came out")
    for T in Ts:
        tally = tally_of(charts[T][0], f"your chart for T = {T}", charts[T][1])
        own = outcomes(Undiffuse, GuessX0_two, T, runs_here, table)
        if own is not None:
            compare_shares(tally, own, ALPHA / len(Ts), f"in your chart for T = {T}")


@check("plot_greedy_bars")
def plot_greedy_bars(drawn, UndiffuseGreedy, GuessX0_two):
    Ts = (1, 2, 4)
    charts = charts_by_T(drawn, Ts, "bar charts of greedy undiffusion with T = 1, 2, 4", "1, 2 and 4")
    table = tabulated(GuessX0_two)
    for T in Ts:
        tally = tally_of(charts[T][0], f"your chart for T = {T}", charts[T][1])
        own = outcomes(UndiffuseGreedy, GuessX0_two, T, 150, table)
        if own is not None:  # (a deterministic greedy step writes one sentence: the chart must show it alone)
            compare_shares(tally, own, ALPHA / len(Ts), f"in your chart for T = {T}")


# ---- the guess along the way and the impossible fraction -----------------------------------------

def guess_values(GuessX0_two):
    """Every value the student's GuessX0_two gives to 'cat' at position 2 over the sentences the
    reverse process can reach; and its value on four masks. None if it raised on any."""
    states = reachable()
    values = []
    for result in GuessX0_two.calls([[x] for x in states]):
        try:
            p = torch.as_tensor(np.asarray(result[1])) if result[0] == "ok" else None
            values.append(float(p.reshape(L, -1)[1, VOCAB.index("cat")]))
        except (TypeError, ValueError, RuntimeError, AttributeError, IndexError):
            return None, None
    start = [i for i, x in enumerate(states) if bool((x == MASK).all())][0]
    return np.array(values), values[start]


@check("plot_cat_probability")
def plot_cat_probability(drawn, GuessX0_two):
    T, least = 50, 10
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("ten curves of P(position 2 is cat) against t")
    # the runs' curves, on one axes or a panel each: lines or scattered points of T (or T + 1) values
    curves = [(ax, s) for ax, s in drawing.series() if s.kind in ("line", "points") and s.y.size >= 2
              and not s.style.get("axline")]
    runs = [(ax, s) for ax, s in curves if s.y.size in (T, T + 1)]
    if len(runs) < least:
        sizes = sorted({int(s.y.size) for _, s in curves})
        plots.missing(drawing, f"your figure has {len(runs)} curve(s) of {T} points (one guess per step) or {T + 1} "
                               f"(the guess on four masks and after every step); draw one for each of {least} runs"
                               + (f" (it has curves of {', '.join(map(str, sizes))} points)" if sizes else ""))
    lines = [s for _, s in runs]
    values, start = guess_values(GuessX0_two)
    for i, line in enumerate(lines):
        if values is None:
            continue
        odd = [y for y in line.y if not np.any(np.abs(values - y) <= plots.TOLERANCE)]
        if odd:
            raise Failure(f"curve {i + 1} shows {odd[0]:.3f}, which your GuessX0_two never gives to 'cat' at "
                          f"position 2 (index 1) for any sentence the undiffusion can reach")
        # the run's start is where the curve was begun, or an end of its x range (seaborn's lineplot and
        # a curve drawn against t both put the steps in x's order, not the run's)
        ends = [line.y[0], line.y[int(np.nanargmin(line.x))], line.y[int(np.nanargmax(line.x))]]
        expect(any(abs(y - start) <= plots.TOLERANCE for y in ends),
               f"curve {i + 1} starts at {line.y[0]:.3f} (its ends in t: {ends[1]:.3f} and {ends[2]:.3f}); the "
               f"first guess, on four masks, is {start:.3f} (record the guess before each step, starting from "
               f"four masks)")
    used = list({id(ax): ax for ax, _ in runs}.values())
    for ax in used:
        expect(ax.ylim is not None and ax.ylim[0] <= 0.02 and ax.ylim[1] >= 0.98 and ax.ylim[1] - ax.ylim[0] <= 1.5,
               (f"the y axis goes from {ax.ylim[0]:.2f} to {ax.ylim[1]:.2f}" if ax.ylim else "the y axis has no limits")
               + "; keep it from 0 to 1 (plt.ylim(0, 1)), so that a sure guess looks sure")
    expect(any(ax.xlabel for ax in used) and any(ax.ylabel for ax in used), "label both axes (plt.xlabel / plt.ylabel)")


# A fraction of 0 cannot be drawn on log axes: under the grader T = 50 makes 400 sentences and about
# 8 % of runs count no impossible one. The task allows three ways, all read as a measured 0: kept in
# the data (matplotlib leaves it out), left out of the series while the figure still reaches T = 50
# (its 0.32/T line or a marker there), or drawn apart at the bottom of the axes. A zero must then be
# as plausible as any other value: it goes through the same comparison with the student's own runs.
def measured_with_zeros(series, ax):
    """(whole Ts, fractions) of a measured series: NaN or non-positive values as 0, and T = 50 as 0
    when the series leaves it out but something else on its axes is drawn at T = 50."""
    Ts = [int(round(x)) for x in series.x]
    ys = [0.0 if not np.isfinite(y) or y <= 0 else float(y) for y in series.y]
    if 50 not in Ts and reaches(ax, 50, series):
        Ts, ys = Ts + [50], ys + [0.0]
    return Ts, ys


def runs_with_a_marked_zero(ys):
    """(runs, fractions): the runs behind the fractions, where the smallest value, if below one run's
    share of the others (so no count of those runs), is a zero drawn where a log axis can show it and
    counts as 0."""
    if len(ys) >= 3:
        low = int(np.argmin(ys))
        runs = plots.runs_behind_means(ys[:low] + ys[low + 1:], 1)
        if runs is not None and 0 < ys[low] < 1 / runs:
            return runs, ys[:low] + [0.0] + ys[low + 1:]
    return plots.runs_behind_means(ys, 1), ys


@check("plot_impossible_fraction")
def plot_impossible_fraction(drawn, Undiffuse, GuessX0_two):
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("the fraction of impossible sentences against T, with 0.32/T")
    for ax in axes:
        for scale in (1, 100):   # fractions, or percent
            theory = [s for s in ax.series if s.kind == "line" and (
                plots.on_curve(s, lambda x: scale * 0.32 / x, 1, 50) if s.style.get("axline")
                else s.x.size >= 2 and np.all(s.x > 0) and np.allclose(s.y, scale * 0.32 / s.x, rtol=plots.TOLERANCE, atol=1e-9))]
            data = [plots.Series(s.kind, s.x, s.y / scale, s.label, s.style) for s in ax.series
                    if all(s is not t for t in theory) and s.x.size >= 3 and np.all(s.x >= 1)]
            if theory and data:
                break
        if theory and data:
            break
    else:
        plots.missing(drawing, f"your figure has {len(drawing.series())} curve(s) or set(s) of points; it should show "
                               f"the measured fraction of impossible sentences at several T and the line 0.32/T "
                               f"(fractions or percent) on the same axes")
    expect(ax.xscale == "log" and ax.yscale == "log", "draw it on log-log axes (plt.loglog, or log scales on "
                                                      "both axes): 0.32/T is then a straight line")
    expect(ax.labelled(), "label both axes (plt.xlabel / plt.ylabel)")
    problems, table = [], tabulated(GuessX0_two)
    for series in data:
        Ts, ys = measured_with_zeros(series, ax)
        if 50 not in Ts or len(set(Ts)) != len(Ts) or not np.allclose(series.x, Ts[:series.x.size]):
            problems.append(f"{series.describe()} is not at whole, distinct T including T = 50 (T = {Ts})")
            continue
        if np.allclose(series.y, 0.32 / series.x, rtol=1e-9, atol=0):
            problems.append(f"{series.describe()} is exactly 0.32/T: plot the fraction your undiffusions made")
            continue
        runs, ys = runs_with_a_marked_zero(ys)
        if runs is None:
            problems.append(f"{series.describe()} is not a fraction of your runs (measure each T over "
                            f"Tally(make, 2000) sentences)")
            continue
        try:
            for T, y in zip(Ts, ys):
                own = outcomes(Undiffuse, GuessX0_two, T, max(30, 400 // T), table)  # about 400 steps each
                if own is None:
                    return
                k_own = sum(category(s) == "impossible" for s in own)
                if not plots.same_share(int(round(y * runs)), runs, k_own, len(own), ALPHA / len(Ts)):
                    raise Failure(f"at T = {T} your plot shows {y:.3f} impossible sentences (out of {runs} "
                                  f"runs), but {k_own / len(own):.3f} of {len(own)} undiffusions of your "
                                  f"functions drawn by the grader; more than chance allows")
            return
        except Failure as failure:
            problems.append(str(failure))
    raise Failure(problems[0])


# ---- greedy ---------------------------------------------------------------------------------------

@check("show_greedy_runs")
def show_greedy_runs(drawn, UndiffuseGreedy, GuessX0_two):
    T, least = 4, 2
    runs = runs_printed(drawn, T, least, "each greedy run")
    expect(len(runs) >= least, f"your printout shows {len(runs)} run(s) of {T} steps; run greedy undiffusion a "
                               f"few times")
    trace = finals(UndiffuseGreedy, GuessX0_two, range(T, 0, -1), 30, tabulated(GuessX0_two))
    if trace is None or not all(torch.equal(trace[0], other) for other in trace[1:]):
        return  # your greedy step raised, or is not deterministic: nothing to compare step by step
    history = [sentence_of(x).split() for x in trace[0]]
    for i, run in enumerate(runs):
        for t, (shown, own) in enumerate(zip(run, history)):
            expect(shown == own, f"printed run {i + 1} shows '{' '.join(shown)}' after step {t + 1}, but your "
                                 f"UndiffuseGreedy (deterministic) gives '{' '.join(own)}' there")
