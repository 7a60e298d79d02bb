"""Hidden checks of notebook 05's printouts and figure: they read what the student printed or drew
(grading/plots.py).

The denoiser behind these cells is the student's own, trained in their kernel, so no check can
recompute its numbers. What a check can hold the cell to are facts that follow from the student's
own functions: it runs them here on a fake denoiser (grading/batched.py) and asks only for what
they do there. A function that leaves masks, ignores row lengths or does not normalise is not
charged again in the printout of its results (rule: one bug never costs marks twice).
"""
import math
import re

import torch

from .. import batched as ref
from . import plots
from .batched import EXAMPLE, MASK, PAD, FakeDenoiser
from .core import Failure, StudentError, check, expect

CANVAS = 12                                         # the first pass's canvas: one row of 12 positions
KINDS = ("top", "margin", "neg_entropy")
LARGEST_VOCABULARY = 2003                            # candidates a story denoiser can propose, at most
SLACK = 1e-4                                        # printed or drawn float32 values, rounded


def _tuples(text):
    """Every (a, b, ...) or [a, b, ...] of whole numbers in the text, as tuples (torch.Size too)."""
    return [tuple(int(v) for v in re.findall(r"\d+", group))
            for group in re.findall(r"[\(\[]\s*\d+(?:\s*,\s*\d+)+\s*,?\s*[\)\]]", text)]


def _floats(line):
    """The decimal numbers of a line (and nan, which a broken distribution prints)."""
    return [float(v) for v in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?|(?<![\w.])-?\d+e-?\d+|\bnan\b", line)]


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


@check("show_first_pass")
def show_first_pass(drawn, candidate_distributions):
    drawing = plots.Drawing.of(drawn)
    text = drawing.printed
    expect(text.strip(), "the cell above printed nothing; print the canvas shape, the distributions' shape, "
                         "the sum of one distribution, the top candidates and whether the canvas is still masked")
    shapes = _tuples(text)
    expect((1, CANVAS) in shapes, f"your printout shows no canvas shape (1, {CANVAS}): print canvas.shape of a "
                                  f"blank canvas of one row and {CANVAS} positions")
    expect(any(len(s) == 3 and s[:2] == (1, CANVAS) and s[2] > 2 for s in shapes),
           f"your printout shows no distributions' shape (1, {CANVAS}, V): print probabilities.shape")
    lines = plots.printed_lines(text)
    behaves = _normalises(candidate_distributions)
    if behaves is not None and behaves[0]:
        sums = [line for line in lines if "sum" in line.lower()]
        expect(sums and any(abs(v - 1) < 1e-3 for line in sums for v in _floats(line) + [
            float(w) for w in re.findall(r"(?<![\w.])1(?![\w.])", line)]),
               "your printout does not show the sum of one distribution as 1 (your candidate_distributions "
               "makes each position's distribution sum to 1: print probabilities[0, 0].sum())")
    per_line = [line for line in lines if re.search(r"position|pos\b|^\s*\d+\s*[:|]", line, re.I)
                and _floats(line)]
    probabilities = [_floats(line)[-1] for line in per_line]
    if len(probabilities) < CANVAS:  # or one list of the 12 top probabilities
        lists = [_floats(line) for line in lines]
        probabilities = next((v for v in lists if len(v) == CANVAS), probabilities)
    expect(len(probabilities) == CANVAS,
           f"your printout shows the top probability at {len(probabilities)} positions; print the top candidate "
           f"and its probability at each of the {CANVAS} positions (probabilities.max(dim=-1))")
    expect(behaves is None or not behaves[0] or all(0 < p <= 1 + SLACK for p in probabilities),
           f"the top candidates' probabilities you printed ({min(probabilities):.3g} to {max(probabilities):.3g}) "
           "are not probabilities: take max(dim=-1) of the distributions, not of the logits")
    if behaves is not None and behaves[1]:
        words = [w for line in per_line for w in re.findall(r"'([^']*)'", line)]
        control = [w for w in words if w in ("_", "<pad>", "<unk>")]
        if control:
            raise Failure(f"a top candidate you printed is the control token {control[0]!r}: the candidates "
                          "come from candidate_distributions, which gives control tokens probability 0")
    still = [line for line in lines if "mask" in line.lower() and re.search(r"\b(True|False)\b", line)]
    expect(still, "your printout does not say whether the canvas is still all masks: print "
                  "bool((canvas == MASK_ID).all()) after the pass")
    expect("True" in still[-1], "your printout says the canvas is no longer all masks: the first pass only "
                                "proposes candidates; leave the canvas as it was")


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
        series = [s for s in ax.series if s.kind in ("line", "points", "bars") and s.y.size == CANVAS
                  and s.x.size == CANVAS and bool((torch.tensor(s.x).diff() == 1).all())]
        if series:
            panels.append((ax, series[0]))
    expect(len(panels) == 3, f"your figure shows {len(panels)} panel(s) with a value at each of the {CANVAS} "
                             f"positions; draw three panels, one per confidence score (top, margin, neg_entropy)")
    kinds = [_panel_kind(ax, i) for i, (ax, _) in enumerate(panels)]
    expect(sorted(kinds) == sorted(KINDS), "title each panel with its score (top, margin, neg_entropy), so that "
                                           "one can tell them apart")
    for ax, _ in panels:
        expect(ax.xlabel and ax.ylabel, "label both axes of every panel (the position, and the score)")
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
        expect(bool(((margin <= top - runner_up + 1e-6) & (margin >= 2 * top - 1 - SLACK)).all()),
               "the 'margin' panel does not fit the 'top' panel: p(1st) - p(2nd) lies between 2 p(1st) - 1 "
               "and p(1st) at every position (is one panel another score, or another pass?)")
    if {"top", "neg_entropy"} <= right:
        bound = torch.log(torch.tensor(top).clamp(min=1e-12)).numpy()
        expect(bool((negent <= bound + SLACK * max(1.0, float(abs(bound).max()))).all()),
               "the 'neg_entropy' panel does not fit the 'top' panel: sum p log p is at most log p(1st) (an "
               "entropy is at least -log of the top probability); is it the entropy, not minus it?")


@check("show_worked_example")
def show_worked_example(drawn, reverse_update):
    drawing = plots.Drawing.of(drawn)
    expect(drawing.printed.strip(), "the cell above printed nothing; print the worked example's result")
    args = [EXAMPLE[k].clone() for k in ("x", "candidate_ids", "confidence", "generation_slots")]
    theirs = _runs(lambda: reverse_update(*args, [2, 1], MASK, PAD))
    wanted = [ref.reverse_update(*[EXAMPLE[k] for k in ("x", "candidate_ids", "confidence", "generation_slots")],
                                 [2, 1], MASK, PAD).flatten().tolist()]
    if torch.is_tensor(theirs) and theirs.numel() == 12:
        wanted.insert(0, theirs.flatten().long().tolist())
    numbers = [int(v) for v in re.findall(r"-?\d+", re.sub(r"\d+\.\d+", " ", drawing.printed))]
    found = any(numbers[i:i + 12] == w for w in wanted for i in range(len(numbers) - 11))
    expect(found, f"your printout does not show the next canvas {wanted[0][:6]}, {wanted[0][6:]} that "
                  f"reverse_update gives for the worked example (reveal counts [2, 1], MASK = 1, PAD = 0)")


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


@check("show_batch_stories")
def show_batch_stories(drawn, sample):
    drawing = plots.Drawing.of(drawn)
    expect(drawing.printed.strip(), "the cell above printed nothing; print each of the four rows with Show")
    lines = [line for line in plots.printed_lines(drawing.printed) if len(line.split()) >= min(BATCH["lengths"])]
    expect(len(lines) == 4, f"your printout has {len(lines)} lines of {min(BATCH['lengths'])} tokens or more; "
                            f"print the batch's four rows, one per line (for row in rows: print(Show(row)))")
    rows = [line.split() for line in lines]
    facts = _sampler_facts(sample)
    if "lengths" in facts:
        got = [len(r) for r in rows]
        expect(got == list(BATCH["lengths"]),
               f"your rows have {got} tokens; the batch asks for {list(BATCH['lengths'])} (Show drops the padding)")
    if "prompts" in facts:
        for row, prompt in zip(rows, BATCH["prompts"]):
            words = prompt.split()
            expect(row[:len(words)] == words, f"the row {' '.join(row[:6])} ... does not start with its prompt "
                                              f"{prompt!r}")
    if "no masks" in facts:
        expect(not any("_" in row for row in rows), "a row you printed still holds a mask _: generate all of "
                                                    "it (your sample leaves no mask after the last step)")
    expect(not all(re.fullmatch(r"[\d\[\](),]+", w) for row in rows for w in row),
           "print the rows as text with Show(row), not as token ids")
