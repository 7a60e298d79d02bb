"""Hidden checks of notebook 04's plots and printouts: they read what the student drew or printed
(grading/plots.py).

The networks behind these cells are the student's own, trained in their kernel with their
DiffusionLoss, so no check can recompute their numbers. The checks hold each cell to what does not
depend on the training's luck: the levels the page asks for drawn as horizontal lines, a loss curve
that is a history of training steps on the scale the page asks for, the exact Bayes numbers beside the
network's, whole counts behind a bar chart, stories of the right length that keep their prompts.
Where a fact depends on a student function (their loss's scale, their Undiffuse keeping visible
tokens, their GuessX0_two), the check first asks that function here and holds the plot only to what
the function does (one bug never costs marks twice).

The loss curve against its floor. Every loss the reference formula gives is >= 0, and for any
network its expectation over the batch is at least the entropy of the sentences (0.50): the loss
bounds -log p(x_0) from above. So the late steps of the curve, k losses X_j >= 0 whose conditional
means are all >= 0.50, cannot average much below 0.50: for non-negative variables
P(mean <= mu - eps) <= exp(-k eps^2 / (2 m2)), m2 a bound on their second moments (Maurer 2003; the
same bound holds for a martingale, step by step). No bound on m2 holds for every network (a
cross-entropy is unbounded), so the check uses the mean square of the plotted late losses
themselves: the one estimated quantity of these checks. It is asked only when the student's loss is
the reference formula (for the t and mask it draws, checked exactly with grading/loss.observe): a
loss with another scale or other positions has another floor, which the plot may show faithfully.
"""
import math
import re

import numpy as np
import torch

from maskdiff_client.denoiser import TinyDenoiser

from .. import stats
from ..corpus import MakeCorpus, StandInStories
from ..toy import VOCAB as TOY_VOCAB, Encode, GuessX0_two as exact_guess
from . import plots
from .core import ALPHA, Failure, Review, StudentError, check, expect
from .loss import observe, sentences
from .fakes import fixed_guesser

ENTROPY = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2))    # 0.5004, the page's 0.50
PAGE_LEVELS = (7.6, 5.4)                                   # the page's levels on TinyStories
PAGE_ROUNDING = 0.05
LATE = 100                                                 # the window the page averages over
STORY = 32                                                 # tokens in a story
MIN_STEPS = 10                                             # a curve of fewer points is no history


def _standin_levels():
    """(log vocabulary size, entropy of the word frequencies) of the stand-in corpus the notebook
    trains on under the grader, as the given cell `loss_levels` computes them."""
    corpus = MakeCorpus(StandInStories())
    counts = torch.bincount(corpus.tokens, minlength=len(corpus.vocab)).double()
    frequency = counts[counts > 0] / counts.sum()
    return math.log(len(corpus.vocab)), float(-(frequency * frequency.log()).sum()), len(corpus.vocab)


_LEVELS = []


def standin_levels():
    if not _LEVELS:
        _LEVELS.append(_standin_levels())
    return _LEVELS[0]


def levels_of(ax):
    """Horizontal lines of an axes: axhline/hlines values, and lines drawn flat across the plot."""
    flat = [float(s.y[0]) for s in ax.series if s.kind == "line" and s.y.size >= 2
            and np.all(s.y == s.y[0]) and np.ptp(s.x) > 0]
    return list(ax.hlines) + flat


def histories(ax):
    """Series drawn against consecutive steps (the training step), longest first."""
    found = [s for s in ax.series if s.kind in ("line", "points") and s.x.size >= MIN_STEPS
             and np.all(np.diff(s.x) == 1) and np.all(np.isfinite(s.y)) and np.ptp(s.y) > 0]
    return sorted(found, key=lambda s: -s.x.size)


def is_running_mean(smooth, raw):
    """Is `smooth` a running mean of `raw` (trailing, with or without a shorter start, or valid)?"""
    y = smooth.y[np.isfinite(smooth.y)]
    n = raw.y.size
    if y.size < 2 or y.size > n:
        return False
    sums = np.concatenate([[0.0], np.cumsum(raw.y)])
    for window in range(2, min(n, 1000) + 1):
        means = (sums[window:] - sums[:-window]) / window          # the n - window + 1 full windows
        tail = min(means.size, y.size)
        if np.allclose(y[-tail:], means[-tail:], rtol=1e-4, atol=1e-6):
            return True
    return False


def raw_history(ax):
    """The curve of the losses themselves: of the step series, the one another is a running mean of;
    else the longest one."""
    series = histories(ax)
    if not series:
        return None
    for raw in series:
        if any(s is not raw and is_running_mean(s, raw) for s in series):
            return raw
    return series[0]


def reference_formula(DiffusionLoss):
    """Does the student's loss give the reference formula's value for the t and mask it draws?"""
    try:
        for _ in range(3):
            observe(DiffusionLoss, sentences(16, 4), 100)
    except (Failure, StudentError):
        return False
    return True


def two_sentence_data(SamplePInit_two, draws=200):
    """Do the student's SamplePInit_two draws look like p_init (only the two sentences, 0.8 and 0.2)?
    Then the data the curve was trained on has entropy 0.50. Any other sampler's data has another
    floor, and the curve is not held to 0.50 (a wrong verdict of this test only skips the floor)."""
    alive, empty = Encode("the cat is alive"), Encode("the box is empty")
    cats = 0
    for result in SamplePInit_two.repeat([], draws):
        if result[0] != "ok":
            return False
        try:
            x = torch.as_tensor(result[1]).reshape(-1)
        except (TypeError, ValueError, RuntimeError):
            return False
        if x.shape != alive.shape or not (torch.equal(x, alive) or torch.equal(x, empty)):
            return False
        cats += int(torch.equal(x, alive))
    return stats.binomial_test(cats, draws, 0.8, ALPHA).ok


def floor_test(values, floor, alpha):
    """(mean, lowest mean chance allows) for non-negative losses whose means are all >= floor."""
    k = values.size
    m2 = float(np.mean(values ** 2))
    return float(values.mean()), floor - math.sqrt(2 * m2 * math.log(1 / alpha) / k)


def labelled(drawing, ax):
    """Both axes of the loss plot named: on its own axes, or on a panel beside it (a shared axis)."""
    return bool(ax.xlabel or any(a.xlabel for a in drawing.axes)) and \
        bool(ax.ylabel or any(a.ylabel for a in drawing.axes))


def loss_axes(drawing, levels, what):
    """The axes that holds a loss curve against the step, and which `levels` are drawn on it."""
    axes = drawing.need_axes(what)
    best = None
    for ax in axes:
        history = raw_history(ax)
        if history is None:
            continue
        drawn = [any(abs(v - level) <= tol for v in levels_of(ax)) for level, tol in levels]
        if best is None or sum(drawn) > sum(best[2]):
            best = ax, history, drawn
    expect(best is not None, f"your figure has no loss curve against the training step (one value per "
                             f"step, at least {MIN_STEPS}): plot the losses Train returned")
    return best


@check("plot_two_sentence_loss", shares=False)   # losses: no complement to read
def plot_two_sentence_loss(drawn, DiffusionLoss, SamplePInit_two):
    drawing = plots.Drawing.of(drawn)
    ax, history, (floor,) = loss_axes(drawing, [(ENTROPY, 0.005)],
                                      "the training loss against the step with the entropy 0.50")
    if not floor:
        others = levels_of(ax)
        raise Failure(f"your horizontal line{'s are' if len(others) > 1 else ' is'} at "
                      f"{', '.join(f'{v:.3g}' for v in others)}; draw the entropy -0.8 log 0.8 - 0.2 log 0.2 "
                      f"= 0.50 (natural log) as a horizontal line" if others else
                      "draw the entropy 0.50 as a horizontal line (ax.axhline) on the loss plot")
    expect(labelled(drawing, ax), "label both axes of the loss plot (the training step, the loss)")
    if not reference_formula(DiffusionLoss) or not two_sentence_data(SamplePInit_two):
        return  # another loss, or other data, has another floor: the curve may show it faithfully
    late = history.y[-min(LATE, history.y.size // 2):]
    expect(bool(np.all(late >= 0)), "your loss curve goes below 0: a cross-entropy loss never does")
    mean, lowest = floor_test(late, ENTROPY, ALPHA)
    expect(mean >= lowest,
           f"the last {late.size} steps of your loss curve average {mean:.3f}, below the entropy 0.50 by more "
           f"than chance allows (at least {lowest:.3f}): no network's loss goes below it; plot the value of "
           f"DiffusionLoss itself (the loss of a whole sentence, not divided by its length)")


@check("plot_story_loss", shares=False)   # losses: no complement to read
def plot_story_loss(drawn, DiffusionLoss):
    no_idea, frequencies, size = standin_levels()
    drawing = plots.Drawing.of(drawn)
    ours = [(no_idea, 0.01), (frequencies, 0.01)]
    page = [(PAGE_LEVELS[0], PAGE_ROUNDING), (PAGE_LEVELS[1], PAGE_ROUNDING)]
    ax, history, drawn_ours = loss_axes(drawing, ours, "the loss per token against the step with two levels")
    drawn_page = [any(abs(v - level) <= tol for v in levels_of(ax)) for level, tol in page]
    levels = no_idea if all(drawn_ours) else PAGE_LEVELS[0] if all(drawn_page) else None
    if levels is None:
        drawn = levels_of(ax)
        raise Failure(f"draw both levels of the cell before as horizontal lines: the uniform guess log(V) = "
                      f"{no_idea:.2f} and the word frequencies' entropy {frequencies:.2f} for the text the "
                      f"notebook trained on ({size} tokens in the vocabulary; 7.6 and 5.4 on TinyStories); "
                      + (f"yours are at {', '.join(f'{v:.3g}' for v in drawn)}" if drawn else "yours has none"))
    expect(labelled(drawing, ax), "label both axes of the loss plot (the training step, the loss per token)")
    if not reference_formula(DiffusionLoss):
        return  # another loss has another scale: the curve may show it faithfully
    # An untrained network guesses about uniformly: its loss per token starts near log(V), and a curve
    # per sentence starts STORY times higher. The scale is the nearer of the two (in ratio).
    start = float(np.median(history.y[:5]))
    ratio = start / levels
    expect(ratio < math.sqrt(STORY),
           f"your curve starts at {start:.1f}, about {ratio:.0f} times the uniform guess {levels:.2f}: it shows "
           f"the loss of a whole sentence; divide by L = {STORY} to plot the loss per token")
    expect(ratio > 1 / math.sqrt(STORY),
           f"your curve starts at {start:.3g}, far below the uniform guess {levels:.2f} that an untrained "
           f"network pays per token: divide the loss by L = {STORY} once")


PATTERNS = ("_ _ _ _", "_ _ is alive", "the _ _ empty")
CAT, BOX = TOY_VOCAB.index("cat"), TOY_VOCAB.index("box")


DECIMAL = re.compile(r"(?<![\w.])(-?\d*\.\d+|-?\d+\.(?!\d))(?:e(-?\d+))?(\s*%)?")


def printed_numbers(text):
    """The decimal numbers of a text as (value, half of its last printed digit): 0.801 -> (0.801, 0.0005),
    80.1% -> (0.801, 0.0005), and torch's "1." (a whole value printed without digits) -> exact."""
    out = []
    for match in DECIMAL.finditer(text):
        digits, exponent, percent = match.groups()
        value = float(digits) * 10.0 ** int(exponent or 0)
        decimals = len(digits.split(".")[1]) - int(exponent or 0)
        half = 0.5 * 10.0 ** -decimals if digits.split(".")[1] else 1e-6
        if percent:
            value, half = value / 100, half / 100
        out.append((value, half + 1e-6))
    return out


def pattern_blocks(lines):
    """For each sentence of PATTERNS, the printed text about it: its line and the lines after it, up to the
    next line that names a sentence (a table row, or a sentence with its numbers on the lines below)."""
    found = {}
    named = [(i, [p for p in PATTERNS if re.search(rf"(^|[^\w_]){re.escape(p)}($|[^\w_])", line)])
             for i, line in enumerate(lines)]
    starts = [(i, ps) for i, ps in named if ps]
    for k, (i, ps) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        block = " \n ".join(lines[i:stop])
        for p in ps:   # one line per word ("_ _ _ _ cat: ...", "_ _ _ _ box: ...") joins the same sentence
            found[p] = found.get(p, "") + " \n " + block.replace(p, " ")
    return found


def _take(numbers, value):
    """Remove from numbers the first one that, as printed, could be `value`; False if none."""
    for i, (v, half) in enumerate(numbers):
        if abs(v - value) <= half:
            del numbers[i]
            return True
    return False


@check("show_bayes_comparison")
def show_bayes_comparison(drawn, GuessX0_two):
    drawing = plots.Drawing.of(drawn)
    lines = plots.printed_lines(drawing.printed)
    drawing.need_printed("print a table of the probabilities of cat and box at "
                         "position 2, from GuessNet and from GuessX0_two, for the three sentences")
    blocks = pattern_blocks(lines)
    theirs = GuessX0_two.calls([[Encode(p)] for p in PATTERNS])
    for pattern, result in zip(PATTERNS, theirs):
        expect(pattern in blocks, f"your printout has no line for {pattern!r} (sentences read: "
                                  f"{sorted(blocks) or 'none'})")
        numbers = printed_numbers(blocks[pattern])
        expect(len(numbers) >= 4, f"the lines for {pattern!r} should show four probabilities (net: cat, box; "
                                  f"Bayes: cat, box), they show {len(numbers)} decimal numbers")
        bayes = [exact_guess(Encode(pattern))[1][[CAT, BOX]].tolist()]
        try:
            p = torch.as_tensor(result[1]).float()
            bayes.insert(0, p[1][[CAT, BOX]].tolist()) if result[0] == "ok" and p.shape == (4, len(TOY_VOCAB)) \
                else None
        except (TypeError, ValueError, RuntimeError, IndexError):
            pass
        rest = None
        for cat, box in bayes:
            left = list(numbers)
            if _take(left, cat) and _take(left, box):
                rest = left
                break
        expect(rest is not None, f"the lines for {pattern!r} (numbers read: "
                                 f"{', '.join(f'{v:.4g}' for v, _ in numbers)}) do not show the Bayes guess of cat "
                                 f"and box at position 2 ({bayes[0][0]:.3f}, {bayes[0][1]:.3f} from your "
                                 f"GuessX0_two): print GuessX0_two(x_t)[1] at cat and box")
        outside = [v for v, half in rest if not -half <= v <= 1 + half]
        expect(not outside and len(rest) >= 2,
               f"the network's numbers for {pattern!r} ({', '.join(f'{v:.3g}' for v, _ in rest) or 'none'}) are "
               f"not two probabilities between 0 and 1: print GuessNet(x_t)[1] at cat and box")


def _has(values, wanted, tolerance):
    return all(np.any(np.abs(values - w) <= tolerance) for w in wanted)


def _marks(ax, bars):
    """Every value an axes shows beside a bar set: lines and points (both coordinates), horizontal and
    vertical lines, stems, and the values of its other bar sets."""
    marks = [v for s in ax.series if s is not bars and s.kind in ("line", "points") for v in (*s.x, *s.y)]
    marks += [v for s in ax.series if s is not bars and s.kind == "bars" for v in s.y]
    marks += list(ax.hlines) + [v for x, low, high in ax.vlines for v in (x, low, high)]
    return np.asarray(marks, dtype=float)


NET_TALLY = 1000          # the sentences the page asks for
QUICK_TALLY = 200         # Tally's count of them under the grader: repeats(1000)


def _bar_scale(values):
    """(how the bars count, what one whole is on their scale): shares add up to 1, percentages to 100,
    counts are whole numbers; None when they are none of these."""
    total = float(values.sum())
    if abs(total - 1) < 1e-3:
        return "shares", 1.0
    if abs(total - 100) < 0.1:
        return "percentages", 100.0
    if np.allclose(values, np.round(values)) and total >= 1:
        return "counts", total
    return None


@check("plot_net_sentence_bars")
def plot_net_sentence_bars(drawn):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("a bar chart of the sentences the trained network wrote")
    problems = []
    for ax, bars in [(ax, s) for ax in drawing.axes for s in ax.series if s.kind == "bars"]:
        values = np.nan_to_num(bars.y)
        scale = _bar_scale(values)
        counted = plots.counts_of(values / scale[1]) if scale else None
        if scale is None or counted is None:
            problems.append(f"your bars ({', '.join(f'{v:.3g}' for v in values[:8])}) do not add up to 1 (shares), "
                            f"100 (percentages) or a whole number of sentences (counts): draw every sentence's "
                            f"share, the rarer ones lumped together as 'other'")
            continue
        kind, whole = scale
        counts, runs = counted
        if runs < 10 or (values.size <= 2 and _has(values / whole, (0.8, 0.2), 1e-9)):
            problems.append("your bars are p_init's 0.8 and 0.2 themselves: draw the shares of the "
                            "sentences your network wrote")
            continue
        law = [0.8 * whole, 0.2 * whole]
        marks = _marks(ax, bars)
        if not _has(marks, law, 1e-6 * whole):
            shown = ", ".join(f"{v:.3g}" for v in sorted(set(np.round(marks[np.isfinite(marks)], 4)))[:8])
            problems.append(f"your bars are {kind} (adding up to {whole:g}), but p_init's 0.8 and 0.2 are not "
                            f"marked on that scale ({law[0]:g} and {law[1]:g}) beside them; "
                            + (f"the marks read: {shown}" if shown else "the grader read no marks beside them"))
            continue
        if kind == "counts" and runs < QUICK_TALLY:
            raise Failure(f"your bars count {runs} sentences; generate {NET_TALLY} with Tally (it makes "
                          f"{QUICK_TALLY} under the grader)")
        if kind != "counts" and runs < QUICK_TALLY // 10:
            raise Review(f"your shares are whole counts out of as few as {runs} sentences: the reader cannot "
                         f"tell whether {NET_TALLY} sentences (Tally) are behind them")
        return
    # what the reader could not place (a span, an unknown artist or trace) may hold the bars or the marks
    plots.missing(drawing, problems[0] if problems else "your figure has no bar chart of the sentences the trained "
                                                        "network wrote")


def stories(text):
    """The last STORY tokens of every printed line that holds at least STORY tokens and is not a
    prompt shown with its blanks."""
    out = []
    for line in plots.printed_lines(text):
        tokens = [t.strip('"') if len(t) > 1 else t for t in line.split()]   # a story printed in quotes
        if len(tokens) >= STORY and tokens[-STORY:].count("_") < 8:
            out.append(tokens[-STORY:])
    return out


SIZE_LINE = re.compile(r"param|size|weights|million|mio|\d\s*[mk]\b|\([mk]\)", re.I)
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:[,_ ]\d{3})+|\d+)(?:\.(\d+))?(?:e([+-]?\d+))?")


def sizes_said(text):
    """The parameter counts a printout may be giving, each with half its last printed digit: on a line
    about the size, every number read as a count, in thousands and in millions (1318210, 1,318,210,
    1.32M, 1.3 million, 1318 thousand, 1.318e+06)."""
    out = []
    for line in plots.printed_lines(text):
        if not SIZE_LINE.search(line):
            continue
        for match in NUMBER.finditer(line):
            whole, decimals, exponent = match.groups()
            value = float(re.sub(r"[,_ ]", "", whole) + (f".{decimals}" if decimals else ""))
            half = 0.5 * 10.0 ** -len(decimals or "")
            if exponent:
                value, half = value * 10.0 ** int(exponent), half * 10.0 ** int(exponent)
                out.append((value, half + 1))
                continue
            out += [(value * unit, half * unit + 1) for unit in (1, 1e3, 1e6)]
    return out


def parameters_in_millions(vocab_size):
    return sum(p.numel() for p in TinyDenoiser(vocab_size).parameters()) / 1e6


@check("show_untrained_story")
def show_untrained_story(drawn, Undiffuse):
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed("print the network's size and one story")
    sizes = [parameters_in_millions(standin_levels()[2]), parameters_in_millions(2002)]
    said = sizes_said(drawing.printed)
    expect(any(abs(v - s * 1e6) <= half for v, half in said for s in sizes),
           f"your printout does not give the network's size ({sizes[0]:.2f} million parameters for the stand-in "
           f"vocabulary; {sizes[1]:.2f} million for TinyStories'); the sizes read: "
           f"{', '.join(f'{v:,.0f}' for v, _ in said) or 'none'}: print "
           f"sum(p.numel() for p in net.parameters()) / 1e6")
    finishes = undiffuse_keeps(Undiffuse)[1]
    found = stories(drawing.printed) if finishes else \
        [line.split()[-STORY:] for line in plots.printed_lines(drawing.printed) if len(line.split()) >= STORY]
    expect(found, f"your printout has no story of {STORY} tokens: undiffuse a row of {STORY} masks with T = 32 "
                  f"and print it with StoryText")
    story = found[-1]
    expect(not all(re.fullmatch(r"[\d\[\](),]+", w) for w in story),
           "your story is printed as token ids: print it as words with StoryText")
    if not finishes:  # your Undiffuse leaves masks: the story may show them
        return
    for token, why in (("_", "a mask is left"), ("<unk>", "<unk> was written")):
        expect(token not in story, f"in your story {why}: let Undiffuse run every step from T = 32 down to 1 with "
                                   f"GuessStory = MakeGuesser(story_net, forbidden=[STORY_MASK, STORY_UNK])")


PROMPTS = (("once upon a time , there was a little dog named".split(), []),
           ("one day , lily went to the park .".split(), "and they were all happy .".split()),
           (None, ["dragon", "cake"]))


def undiffuse_keeps(Undiffuse):
    """Does the student's Undiffuse keep visible tokens, and reveal every mask at t = 1? Asked on toy
    rows with two mask ids of our own (not the notebook's MASK: the story mask is another id)."""
    keeps = finishes = True
    for mask in (17, 18):
        x = torch.tensor([3, mask, 5, mask, 9])
        p = torch.full((5, 20), 1.0 / 17)
        p[:, 17:] = 0
        for t, runs in ((2, 8), (1, 4)):
            for result in Undiffuse.repeat([x, t, fixed_guesser(p), mask], runs):
                if result[0] != "ok" or not torch.is_tensor(result[1]) or result[1].shape != x.shape:
                    return False, False
                keeps &= bool((result[1][[0, 2, 4]] == x[[0, 2, 4]]).all())
                finishes &= t != 1 or not bool((result[1] == mask).any())
    return keeps, finishes


@check("show_prompt_stories")
def show_prompt_stories(drawn, Undiffuse):
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed("print three stories for each prompt")
    keeps, finishes = undiffuse_keeps(Undiffuse)
    if not finishes:  # your Undiffuse leaves masks: stories and prompts shown with blanks look alike
        long_lines = [line for line in plots.printed_lines(drawing.printed) if len(line.split()) >= STORY]
        expect(len(long_lines) >= 9, f"your printout shows {len(long_lines)} lines of {STORY} tokens or more; "
                                     f"write three stories for each of the three prompts")
        return
    found = stories(drawing.printed)
    expect(len(found) == 9, f"your printout shows {len(found)} stories of {STORY} tokens; write three for each "
                            f"of the three prompts, nine in all, in the order of the page")
    for n, story in enumerate(found):
        start, end = PROMPTS[n // 3]
        if keeps and start is not None and story[:len(start)] != start:
            raise Failure(f"story {n + 1} starts {' '.join(story[:len(start)])!r}, not with its prompt "
                          f"{' '.join(start)!r}: the prompt is the part that starts out visible, and Undiffuse "
                          f"never changes a visible token")
        if keeps and start is not None and end and story[-len(end):] != end:
            raise Failure(f"story {n + 1} ends {' '.join(story[-len(end):])!r}, not with {' '.join(end)!r}")
        if keeps and start is None:
            expect(all(w in story for w in end), f"story {n + 1} does not hold both 'dragon' and 'cake'")
        expect("_" not in story, f"story {n + 1} still holds a mask: undiffuse from T = 32 down to t = 1")
