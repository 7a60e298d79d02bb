"""Hidden checks of notebook 05's printouts and figure: they read what the student printed or drew
(grading/plots.py).

The denoiser behind these cells is the student's own, trained in their kernel, so no check can
recompute its numbers. What a check can hold the cell to are facts that follow from the student's
own functions: it runs them here on a fake denoiser (grading/batched.py) and asks only for what
they do there. A function that leaves masks, ignores row lengths or does not normalise is not
charged again in the printout of its results (rule: one bug never costs marks twice).
"""
import re

import numpy as np
import torch

from .. import batched as ref
from . import plots
from .batched import EXAMPLE, MASK, PAD
from .core import Failure, Review, StudentError, check, expect
from .fakes import FakeDenoiser
from .plots import statements

CANVAS = 12                                         # the first pass's canvas: one row of 12 positions
KINDS = ("top", "margin", "neg_entropy")
LARGEST_VOCABULARY = 2003                            # candidates a story denoiser can propose, at most
SLACK = 1e-4                                        # printed or drawn float32 values, rounded


def _tuples(text):
    """Every (a, b, ...) or [a, b, ...] of whole numbers in the text, as tuples (torch.Size too)."""
    return [tuple(int(v) for v in re.findall(r"\d+", group))
            for group in re.findall(r"[\(\[]\s*\d+(?:\s*,\s*\d+)+\s*,?\s*[\)\]]", text)]


def _floats(line):
    """The decimal numbers of a line (numpy's `1.` too, and nan, which a broken distribution prints)."""
    return [float(v) for v in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?|(?<![\w.])-?\d+e-?\d+|"
                                         r"(?<![\w.])-?\d+\.(?=[\s,\])]|$)|\bnan\b", line)]


def _runs(result):
    """What a student function returned on the fake denoiser, or None if it raised."""
    try:
        return result()
    except (StudentError, Failure):
        return None
    except Exception:  # noqa: BLE001 - student code: a crash means "no evidence", not a verdict
        return None


def _normalises(candidate_distributions):
    """Does the student's candidate_distributions give distributions that sum to one and leave the
    control tokens at zero? (True, True) for the reference; None where it raised."""
    x = torch.tensor([[MASK, MASK, 7, MASK, 9]])
    control = [PAD, MASK, 2, 3, 4, 5]
    probs = _runs(lambda: candidate_distributions(FakeDenoiser(), x, control))
    if not torch.is_tensor(probs) or probs.dim() != 3:
        return None
    probs = probs.detach().float()
    return (bool(torch.allclose(probs.sum(-1), torch.ones(probs.shape[:2]), atol=1e-5)),
            bool((probs[..., control] == 0).all()))


def _probabilities(line):
    """The probabilities a line shows: its decimals, and percentages as fractions."""
    line = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)\s*%", lambda m: f" {float(m.group(1)) / 100:.6f} ", line)
    return _floats(line)


SUM_WORDS = r"sum|adds? up|total|normali[sz]"
STILL_WORDS = r"mask|unchanged|untouched|still|same|intact|blank"


def _sum_shown(lines, shapes_lines):
    """True when a line shows one distribution's sum as 1; None when the reader cannot tell."""
    labelled = [line for line in lines if re.search(SUM_WORDS, line, re.I)]
    if any(abs(v - 1) < 1e-3 for line in labelled for v in _floats(line) + [
            float(w) for w in re.findall(r"(?<![\w.])1(?![\w.])", line)]):
        return True
    # unlabelled: a line of sums alone (`print(probabilities[0, 0].sum())`: tensor(1.0000))
    bare = [_floats(line) for line in lines if line not in shapes_lines and _floats(line)
            and not re.search(r"[a-z]{3,}", re.sub(r"tensor|dtype|float\d*|device|cpu|cuda\S*", "", line))]
    if any(all(abs(v - 1) < 1e-3 for v in values) for values in bare):
        return True
    if labelled:
        raise Failure(f"your printout's sum line {labelled[0].strip()!r} does not show 1, though your "
                      f"candidate_distributions makes each position's distribution sum to 1: print "
                      f"probabilities[0, 0].sum()")
    return None if bare else False


def _top_probabilities(lines, excluded):
    """The 12 top probabilities: one per printed row (a table), or one line of 12 values."""
    rows = [line for line in lines if line not in excluded and _probabilities(line)]
    if len(rows) == CANVAS:
        return [_probabilities(line)[-1] for line in rows], rows
    named = [line for line in rows if re.search(r"position|pos\b|^\W*\d+\W", line, re.I)]
    if len(named) == CANVAS:
        return [_probabilities(line)[-1] for line in named], named
    lists = [_probabilities(line) for line in rows]
    whole = next((values for values in lists if len(values) == CANVAS), None)
    if whole is not None:
        return whole, []
    return [_probabilities(line)[-1] for line in named or rows], named or rows


def _still_masked(lines, vocabulary):
    """True, False (the printout says the canvas changed), or None (the reader cannot tell)."""
    said = [line for line in lines if re.search(r"\b(True|False)\b", line)]
    named = [line for line in said if re.search(STILL_WORDS, line, re.I)]
    if named:
        return re.findall(r"\b(True|False)\b", named[-1])[-1] == "True"
    # the canvas itself: a row of 12 masks (`_ _ ...` with Show, or 12 equal ids V - 2)
    for line in lines:
        if line.split().count("_") >= CANVAS:
            return True
        ids = [int(v) for v in re.findall(r"(?<![\w.])\d+(?![\w.])", line)]
        if vocabulary and ids.count(vocabulary - 2) >= CANVAS and len(set(ids)) == 1:
            return True
    counted = [line for line in lines if re.search(r"mask", line, re.I)
               and re.search(rf"\b{CANVAS}\b\D+\b{CANVAS}\b", line)]
    if counted:
        return True
    return None if said else False


@check("show_first_pass")
def show_first_pass(drawn, candidate_distributions):
    drawing = plots.Drawing.of(drawn)
    text = drawing.printed
    drawing.need_printed("print the canvas shape, the distributions' shape, "
                         "the sum of one distribution, the top candidates and whether the canvas is still masked")
    lines = statements(text)
    shapes = _tuples(text)
    expect((1, CANVAS) in shapes, f"your printout shows no canvas shape (1, {CANVAS}) (shapes read: "
                                  f"{shapes or 'none'}): print canvas.shape of a blank canvas of one row and "
                                  f"{CANVAS} positions")
    full = [s for s in shapes if len(s) == 3 and s[:2] == (1, CANVAS) and s[2] > 2]
    expect(full, f"your printout shows no distributions' shape (1, {CANVAS}, V) (shapes read: {shapes}): "
                 f"print probabilities.shape")
    vocabulary = full[0][2]
    shape_lines = [line for line in lines if _tuples(line)]
    behaves = _normalises(candidate_distributions)
    unsure = []
    if behaves is not None and behaves[0]:
        shown = _sum_shown(lines, shape_lines)
        expect(shown is not False, "your printout shows no sum of one distribution (no line with a sum, and no "
                                   "number 1 on a line of its own): print probabilities[0, 0].sum()")
        if shown is None:
            unsure.append("which number is the sum of one distribution")
    sums = [line for line in lines if re.search(SUM_WORDS, line, re.I)]
    masks = [line for line in lines if re.search(r"\b(True|False)\b", line)]
    probabilities, rows = _top_probabilities(lines, set(shape_lines) | set(sums) | set(masks))
    expect(len(probabilities) == CANVAS,
           f"your printout shows {len(probabilities)} line(s) with a probability where the top candidates of the "
           f"{CANVAS} positions should be, one per position or all {CANVAS} on one line: print each position's "
           f"top candidate and its probability (probabilities.max(dim=-1))")
    expect(behaves is None or not behaves[0] or all(0 < p <= 1 + SLACK for p in probabilities),
           f"the top candidates' probabilities you printed ({min(probabilities):.3g} to {max(probabilities):.3g}) "
           "are not probabilities: take max(dim=-1) of the distributions, not of the logits")
    if behaves is not None and behaves[1]:
        words = [w for line in rows for w in re.findall(r"'([^']*)'", line)]
        control = [w for w in words if w in ("_", "<pad>", "<unk>")]
        if control:
            raise Failure(f"a top candidate you printed is the control token {control[0]!r}: the candidates "
                          "come from candidate_distributions, which gives control tokens probability 0")
    still = _still_masked(lines, vocabulary)
    expect(still is not False, "your printout does not say whether the canvas is still all masks (no True or "
                               "False, no canvas of masks): print bool((canvas == MASK_ID).all()) after the pass")
    if still is None:
        unsure.append("which True or False says the canvas is still all masks")
    elif not still:
        raise Failure("your printout says the canvas is no longer all masks: the first pass only proposes "
                      "candidates; leave the canvas as it was")
    if unsure:
        raise Review(f"the reader cannot tell {' and '.join(unsure)} in your printout")


def _at_positions(series):
    """Does the series give one value at each of the CANVAS consecutive positions (bars by their
    centres, anywhere along the axis: 0 to 11 or 1 to 12)?"""
    if series.y.size != CANVAS or series.x.size != CANVAS or series.style.get("horizontal"):
        return False
    x = series.x + series.style["width"] / 2 if series.kind == "bars" else series.x
    return bool(np.allclose(np.diff(x), 1, atol=1e-6))


def _panel_kind(ax, index):
    words = f"{ax.title} {ax.ylabel}".lower().replace(" ", "_")
    for kind in KINDS:
        if kind in words:
            return kind
    return KINDS[index] if index < len(KINDS) else None


def _scores(confidence_scores):
    """Which kinds the student's confidence_scores computes as the page defines them (on a random
    table): the relations a panel must satisfy are asked only of those kinds."""
    g = torch.Generator().manual_seed(11)
    probs = torch.rand(2, 6, 9, generator=g) ** 3
    probs[..., :2] = 0
    probs = probs / probs.sum(-1, keepdim=True)
    right = set()
    for kind in KINDS:
        got = _runs(lambda: confidence_scores(probs.clone(), kind))
        if torch.is_tensor(got) and got.shape == (2, 6) and \
                torch.allclose(got.detach().float(), ref.confidence_scores(probs, kind), atol=1e-5):
            right.add(kind)
    return right


@check("plot_confidence")
def plot_confidence(drawn, confidence_scores):
    drawing = plots.Drawing.of(drawn)
    axes = drawing.need_axes("three panels, one per confidence score, against the position")
    panels = []
    for ax in axes:
        series = [s for s in ax.series if s.kind in ("line", "points", "bars") and _at_positions(s)]
        if series:
            panels.append((ax, series[0]))
    if len(panels) != 3:
        found = "; ".join(f"panel {i + 1}: " + (", ".join(f"{s.kind} of {s.y.size} values" for s in ax.series)
                                                 or "nothing the reader knows") for i, ax in enumerate(axes))
        raise Failure(f"your figure shows {len(panels)} panel(s) with a value at each of the {CANVAS} positions "
                      f"({found}); draw three panels, one per confidence score (top, margin, neg_entropy)")
    kinds = [_panel_kind(ax, i) for i, (ax, _) in enumerate(panels)]
    expect(sorted(kinds) == sorted(KINDS), f"title each panel with its score (top, margin, neg_entropy), so that "
                                           f"one can tell them apart (titles read: {[ax.title for ax, _ in panels]})")
    expect(all(ax.ylabel for ax, _ in panels), "label the y axis of every panel (the score)")
    expect(any(ax.xlabel for ax in axes), "label the x axis (the position)")
    values = {kind: s.y for kind, (_, s) in zip(kinds, panels)}
    right = _scores(confidence_scores)
    top, margin, negent = values["top"], values["margin"], values["neg_entropy"]
    if "top" in right:
        expect(bool(((top > 0) & (top <= 1 + SLACK)).all()),
               "the 'top' panel shows values outside (0, 1]: the top probability of each position")
    if {"top", "margin"} <= right:
        # p(2nd) is at least the average of the other candidates: (1 - p(1st)) / (V - 1), with V at most
        # the largest story vocabulary (TinyStories': 2000 words and <unk>, the mask, the padding)
        runner_up = (1 - top) / (LARGEST_VOCABULARY - 1)
        bad = np.flatnonzero(~((margin <= top - runner_up + 1e-6) & (margin >= 2 * top - 1 - SLACK)))
        expect(not bad.size, f"the 'margin' panel does not fit the 'top' panel: at position {bad[0] if bad.size else 0} "
                             f"they read {float(margin[bad[0]]) if bad.size else 0:.4g} and "
                             f"{float(top[bad[0]]) if bad.size else 0:.4g}, but p(1st) - p(2nd) lies between "
                             f"2 p(1st) - 1 and p(1st) at every position")
    if {"top", "neg_entropy"} <= right:
        bound = torch.log(torch.tensor(top).clamp(min=1e-12)).numpy()
        bad = np.flatnonzero(~(negent <= bound + SLACK * max(1.0, float(abs(bound).max()))))
        expect(not bad.size, f"the 'neg_entropy' panel does not fit the 'top' panel: at position "
                             f"{bad[0] if bad.size else 0} it reads {float(negent[bad[0]]) if bad.size else 0:.4g}, "
                             f"above log p(1st) = {float(bound[bad[0]]) if bad.size else 0:.4g}, but sum p log p is "
                             f"at most log p(1st) (an entropy is at least -log of the top probability)")


@check("show_worked_example")
def show_worked_example(drawn, reverse_update):
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed("print the worked example's result")
    args = [EXAMPLE[k].clone() for k in ("x", "candidate_ids", "confidence", "generation_slots")]
    theirs = _runs(lambda: reverse_update(*args, [2, 1], MASK, PAD))
    wanted = [ref.reverse_update(*[EXAMPLE[k] for k in ("x", "candidate_ids", "confidence", "generation_slots")],
                                 [2, 1], MASK, PAD).flatten().tolist()]
    if torch.is_tensor(theirs) and theirs.numel() == 12:
        wanted.insert(0, theirs.flatten().long().tolist())
    # MASK and PAD may be printed by name; a row may carry a label ("row 0: ...")
    text = re.sub(r"\bmask\b|(?<![\w])_(?![\w])", " 1 ", drawing.printed, flags=re.I)
    text = re.sub(r"\bpad\b", " 0 ", text, flags=re.I)
    numbers = [int(v) for v in re.findall(r"-?\d+", re.sub(r"\d+\.\d+", " ", text))]
    expect(any(_rows_in(numbers, w) for w in wanted),
           f"your printout does not show the next canvas {wanted[0][:6]}, {wanted[0][6:]} that reverse_update "
           f"gives for the worked example (reveal counts [2, 1], MASK = 1, PAD = 0); the whole numbers read: "
           f"{numbers[:40]}")


def _rows_in(numbers, wanted, width=6):
    """Are the rows of `wanted` (each `width` long) in `numbers`, in order, each in one piece?"""
    at = 0
    for start in range(0, len(wanted), width):
        row = wanted[start:start + width]
        at = next((i + width for i in range(at, len(numbers) - width + 1) if numbers[i:i + width] == row), None)
        if at is None:
            return False
    return True


BATCH = dict(prompts=("once upon a time ,", "the dog", "", ""), lengths=(32, 32, 20, 12), steps=16)


def _sampler_facts(sample):
    """What the student's sample does on a fake denoiser: does it keep prompts, respect lengths and
    leave no masks? Facts it gets wrong there are not asked of the printout."""
    prompts = [torch.tensor([5, 6, 7]), torch.tensor([8]), torch.tensor([], dtype=torch.long)]
    lengths = [9, 7, 5]
    out = _runs(lambda: sample(FakeDenoiser(), prompts, lengths, 4, MASK, PAD, [PAD, MASK]))
    if not torch.is_tensor(out) or out.shape != (3, 9):
        return set()
    facts = set()
    if all(out[b, :len(p)].tolist() == p.tolist() for b, p in enumerate(prompts)):
        facts.add("prompts")
    if all(bool((out[b, n:] == PAD).all()) and not bool((out[b, :n] == PAD).any()) for b, n in enumerate(lengths)):
        facts.add("lengths")
    if not bool((out == MASK).any()):
        facts.add("no masks")
    return facts


TOKEN = re.compile(r"[a-z']+|[.,!?\"]|_|<unk>")   # what Show prints: corpus words, punctuation, masks


def shown_row(line):
    """The row a printed line shows: its longest run of story tokens at the end (a label such as
    "row 0 (32 tokens):" or "1" before it is not part of the row)."""
    tokens = line.split()
    start = len(tokens)
    while start > 0 and TOKEN.fullmatch(tokens[start - 1]):
        start -= 1
    return tokens[start:], tokens[:start]


@check("show_batch_stories")
def show_batch_stories(drawn, sample):
    drawing = plots.Drawing.of(drawn)
    drawing.need_printed("print each of the four rows with Show")
    lines = [line for line in plots.printed_lines(drawing.printed) if len(line.split()) >= min(BATCH["lengths"])]
    if len(lines) != 4 and all(re.fullmatch(r"[\d\[\](),\s]+", line) for line in lines):
        raise Failure("print the rows as text with Show(row), not as token ids")
    expect(len(lines) == 4, f"your printout has {len(lines)} lines of {min(BATCH['lengths'])} tokens or more; "
                            f"print the batch's four rows, one per line (for row in rows: print(Show(row)))")
    expect(not all(re.fullmatch(r"[\d\[\](),]+", w) for line in lines for w in line.split()),
           "print the rows as text with Show(row), not as token ids")
    expect(not any("<pad>" in line.split() for line in lines),
           "your rows show the padding <pad>: print each row with Show(row), which drops it")
    rows, labels = zip(*(shown_row(line) for line in lines))
    facts = _sampler_facts(sample)
    if "lengths" in facts:
        got = [len(r) for r in rows]
        extra = [g - w for g, w in zip(sorted(got), sorted(BATCH["lengths"]))]
        if any(extra):
            message = (f"your rows read as {got} tokens (after any label before them); the batch asks for rows "
                       f"of {list(BATCH['lengths'])} tokens (Show drops the padding)")
            if min(extra) < 0 or (not any(labels) and len(set(extra)) > 1):
                raise Failure(message)
            raise Review(message + ": the reader may have taken words of a label for words of the row")
    if "prompts" in facts:
        long_rows = [r for r in rows if len(r) == max(BATCH["lengths"])] if "lengths" in facts else list(rows)
        for prompt in (p for p in BATCH["prompts"] if p):
            words = prompt.split()
            expect(any(r[:len(words)] == words for r in long_rows),
                   f"no row of {max(BATCH['lengths'])} tokens starts with its prompt {prompt!r} (rows read: "
                   + "; ".join(f"{' '.join(r[:6])} ..." for r in rows) + ")")
    if "no masks" in facts:
        expect(not any("_" in row for row in rows), "a row you printed still holds a mask _: generate all of "
                                                    "it (your sample leaves no mask after the last step)")
