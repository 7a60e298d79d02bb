"""Hidden checks for notebook 06: reveal budgets, blocks, commits above a threshold, remasking (ReMDM)
and the two numbers that judge a sample.

Every check feeds the student's function our inputs: SampleBlocks runs with our notebook-05 helpers
and our TransferCounts bound in its globals and a denoiser of ours that records every canvas;
RemaskStep draws from a guesser of ours with known probabilities, which checks what it is handed.
So a bug elsewhere in the notebook costs no marks here. The deterministic functions are compared
with the reference exactly: SampleBlocks' decisions lie far from ties (each committed candidate leads
its runner-up by 1.3e-2, each call's last commit lies 5.9e-3 above the first confidence it leaves,
where rounding moves them by 5e-7: tests/grading/test_checks_revising.py), and CommitAbove's
confidences and thresholds are drawn apart (commit_cases). RemaskStep's law is tested with exact
binomial and DKW tests that share ALPHA = 1e-6 (stats.split), and every batch of calls is one request
to the student's kernel.
"""
import math

import numpy as np
import torch

from .. import batched as ref05
from .. import revising as ref
from .. import stats
from maskdiff_client.fakes import FixedGuesser
from .fakes import FakeDenoiser
from .core import (ALPHA, Failure, changed, check, expect, not_integers, raised, refused, stated, token_ids,
                   type_name, value_of, vector)


def scalar(value, what):
    """A number the student returned (a float, a 0-d or one-element tensor, a numpy scalar)."""
    try:
        if torch.is_tensor(value):
            value = value.detach().cpu().reshape(-1)
            if value.numel() != 1:
                raise ValueError
            value = value[0]
        return float(value)
    except (TypeError, ValueError, RuntimeError, IndexError):
        raise Failure(f"{what} should return one number, got {type_name(value)}") from None


# ---------------------------------------------------------------- TransferCounts

BUDGET_PAIRS = sorted({(n, steps) for n in range(0, 21) for steps in range(1, 9)}
                      | {(10, 4), (12, 5), (7, 7), (3, 6), (32, 8), (9, 2), (2, 5), (3, 5), (13, 5),
                         (22, 5), (23, 10), (33, 5), (100, 7), (31, 16), (45, 30), (257, 64), (1000, 64)})


def budgets(value, n, steps, rule):
    what = f"TransferCounts({n}, {steps}, {rule!r})"
    got = vector(value, f"what {what} returned", length=steps)
    expect(bool(torch.isfinite(got).all()) and torch.equal(got, got.round()),
           f"{what} should be whole numbers of masks, got {got.tolist()}")
    return [int(k) for k in got.tolist()]


def budget_advice(n, steps, rule, got, want):
    what = f"TransferCounts({n}, {steps}, {rule!r})"
    shown = f"{what} should be {want}, got {got}"
    if any(k < 0 for k in got):
        return f"{shown}: a step cannot reveal a negative number of masks"
    if sum(got) != n:
        return (f"{shown}: the budgets must add up to n_masked = {n}, so that every mask is revealed by "
                f"the last step (they add up to {sum(got)})")
    if rule == "even":
        if sorted(got) == sorted(want):
            return (f"{shown}: each step reveals n // steps = {n // steps}, and the remainder "
                    f"n % steps = {n % steps} goes one by one to the first steps (LLaDA's split)")
        return f"{shown}: each step reveals n // steps, plus one for the first n % steps steps"
    return (f"{shown}: each step but the last reveals remaining / steps_left rounded half to even "
            f"(Python's round; 2.5 -> 2, 3.5 -> 4, computed exactly, as a Fraction or an integer "
            f"division, not as remaining * (1 - s/t) in floats), and the last step takes what is left")


def budgets_match(TransferCounts, rule, default=False):
    args = [[n, steps] if default else [n, steps, rule] for n, steps in BUDGET_PAIRS]
    for (n, steps), result in zip(BUDGET_PAIRS, TransferCounts.calls(args)):
        shown = f"TransferCounts({n}, {steps})" if default else f"TransferCounts({n}, {steps}, {rule!r})"
        got = budgets(value_of(result, shown), n, steps, rule)
        want = ref.TransferCounts(n, steps, rule)
        if got != want:
            advice = budget_advice(n, steps, rule, got, want)
            raise Failure(f"by default the rule is 'even': {advice}" if default else advice)


@check("TransferCounts.even")
def transfer_even(TransferCounts):
    budgets_match(TransferCounts, "even")
    budgets_match(TransferCounts, "even", default=True)


@check("TransferCounts.schedule")
def transfer_schedule(TransferCounts):
    budgets_match(TransferCounts, "schedule")


TRANSFER_ERRORS = [("steps = 0: a step count must be at least 1", [10, 0, "even"]),
                   ("steps = 0: a step count must be at least 1", [10, 0, "schedule"]),
                   ("steps = -2: a step count must be at least 1", [4, -2, "even"]),
                   ("n_masked = -1: a count of masks cannot be negative", [-1, 4, "even"]),
                   ("n_masked = -3: a count of masks cannot be negative", [-3, 2, "schedule"]),
                   ("n_masked = 2.5: a count of masks is a whole number", [2.5, 4, "even"]),
                   ("n_masked = 7.5: a count of masks is a whole number", [7.5, 3, "schedule"]),
                   ("the rule 'linear' is neither 'even' nor 'schedule'", [10, 4, "linear"]),
                   ("the rule 'Even' is neither 'even' nor 'schedule'", [10, 4, "Even"])]


# Valid calls beside the refused ones: a function that refuses everything has not learnt what to refuse.
TRANSFER_ALLOWED = [[10, 4, "even"], [10, 4, "schedule"]]
stated("TransferCounts.errors", {why: ("`steps` below 1" if why.startswith("steps") else
                                       "a negative or non-integer `n_masked`" if why.startswith("n_masked") else
                                       'a rule other than `"even"` and `"schedule"`') for why, _ in TRANSFER_ERRORS})


@check("TransferCounts.errors")
def transfer_errors(TransferCounts):
    results = TransferCounts.calls([args for _, args in TRANSFER_ERRORS] + TRANSFER_ALLOWED)
    for (why, args), result in zip(TRANSFER_ERRORS, results):
        refused(result, why, f"TransferCounts({', '.join(map(repr, args))})")
    for args, result in zip(TRANSFER_ALLOWED, results[len(TRANSFER_ERRORS):]):
        value_of(result, f"TransferCounts({', '.join(map(repr, args))}) (a valid call: it should not raise)")


# ---------------------------------------------------------------- SampleBlocks

class RecordingDenoiser(FakeDenoiser):
    """Notebook 05's fake denoiser (logits depend on token, position and context), keeping a copy of
    every canvas it is called on; it refuses anything but the [1, L] canvas."""

    def __init__(self, length, seed):
        super().__init__(seed=seed)
        self.length, self.canvases = length, []

    def forward(self, x):
        if not (torch.is_tensor(x) and tuple(x.shape) == (1, self.length)):
            shape = tuple(x.shape) if torch.is_tensor(x) else type(x).__name__
            raise Failure(f"the denoiser was handed {shape}; it reads the whole canvas, prompt and "
                          f"generation, as a [1, L] = [1, {self.length}] tensor of ids")
        self.canvases.append(x.detach().clone().long())
        return super().forward(x.long())


def notebook_05_helpers():
    """The names a SampleBlocks reads, bound to our references for the call (notebook 05's functions
    and this notebook's TransferCounts: their checks come earlier)."""
    return dict(TransferCounts=ref.TransferCounts, blank_canvas=ref05.blank_canvas,
                candidate_distributions=ref05.candidate_distributions,
                confidence_scores=ref05.confidence_scores, reveal_counts=ref05.reveal_counts,
                reverse_update=ref05.reverse_update)


# (prompt length, gen_length, block_length, steps, mask_id, pad_id, control_ids, rule); None: defaults.
# No block gets more calls than masks, so every call commits at least one token.
BLOCK_CASES = [(5, 12, 4, 6, 1, 0, (5,), "even"),
               (5, 12, 4, 6, 1, 0, (5,), "schedule"),
               (3, 15, 5, 6, 22, 21, (), "even"),
               (3, 15, 5, 6, 22, 21, (), "schedule"),
               (4, 16, 8, 12, 1, 0, (5, 9), "schedule"),
               (2, 8, 2, 8, 1, 0, (5,), "even"),
               (6, 10, 10, 4, 1, 0, None, None)]


def blocks_what(case):
    _, G, B, steps, mask_id, pad_id, control, rule = case
    tail = "" if control is None else f", {control}, {rule!r}"
    return f"SampleBlocks(denoiser, prompt, {G}, {B}, {steps}, {mask_id}, {pad_id}{tail})"


def blocks_run(SampleBlocks, case, seed, g):
    P, G, B, steps, mask_id, pad_id, control, rule = case
    prompt = torch.randint(2, 21, (P,), generator=g)
    model = RecordingDenoiser(P + G, seed)
    tail = [] if control is None else [control, rule]
    result = SampleBlocks.with_globals(notebook_05_helpers(), model, prompt, G, B, steps, mask_id, pad_id,
                                       *tail)
    return prompt, model, result


@check("SampleBlocks.blocks")
def sample_blocks(SampleBlocks):
    g = torch.Generator().manual_seed(6)
    for seed, case in enumerate(BLOCK_CASES):
        P, G, B, steps, mask_id, pad_id, control, rule = case
        what = blocks_what(case)
        prompt, model, result = blocks_run(SampleBlocks, case, seed, g)
        canvases = [c[0] for c in model.canvases]
        if result[0] == "raised":   # what the canvases show before it raised says more than the error
            blocks_of_calls(canvases, prompt, case, what)
        out = token_ids(value_of(result, what), f"what {what} returned", length=P + G)
        blocks_order(canvases + [out], prompt, case, what)
        controls = sorted({mask_id, pad_id, *(control or ())})
        proposed = [(i, v) for i, v in enumerate(out.tolist()) if i >= P and v in controls]
        expect(not proposed, f"{what}: position {proposed[0][0] if proposed else 0} holds the control id "
                             f"{proposed[0][1] if proposed else 0}: control ids are never proposed "
                             f"(candidate_distributions gets control_ids plus the mask and the padding: "
                             f"{controls})")
        want_model = RecordingDenoiser(P + G, seed)
        want = ref.SampleBlocks(want_model, prompt, G, B, steps, mask_id, pad_id,
                                *([] if control is None else [control, rule]))
        for c, (got, expected) in enumerate(zip(canvases + [out], [c[0] for c in want_model.canvases])):
            expect(torch.equal(got, expected),
                   f"{what}: the canvas before denoiser call {c + 1} differs from the reference's: each "
                   f"call should commit the most confident masks of the current block only (notebook "
                   f"05's candidate_distributions and reverse_update, with the block as the slots and "
                   f"control ids {sorted({mask_id, pad_id, *(control or ())})} never proposed), as "
                   f"many as TransferCounts gives")
        expect(torch.equal(out, want), f"{what} returned {out.tolist()}, expected {want.tolist()}")


def blocks_of_calls(canvases, prompt, case, what):
    """The block each denoiser call worked on (the one holding the leftmost mask of the generation),
    checking on the way that the prompt never changes and nothing past that block is committed."""
    P, G, B = case[:3]
    mask_id = case[4]
    blocks = []
    for c, x in enumerate(canvases):
        expect(torch.equal(x[:P], prompt), f"{what}: the prompt changed (before denoiser call {c + 1}): "
                                           f"only the {G} positions after it are generated")
        masked = torch.nonzero(x[P:] == mask_id).flatten()
        if not len(masked):
            blocks.append(None)
            continue
        block = int(masked[0]) // B
        end = P + (block + 1) * B
        ahead = torch.nonzero(x[end:] != mask_id).flatten().tolist()
        expect(not ahead, f"{what}: before denoiser call {c + 1} block {block + 1} still has masks, yet "
                          f"position {end + ahead[0] if ahead else 0} after it is already committed: a block "
                          f"must be finished before anything after it is committed (the slots are the "
                          f"current block's positions only)")
        blocks.append(block)
    return blocks


def blocks_order(canvases, prompt, case, what):
    """The properties every canvas of a SampleBlocks run must have (the canvas before each denoiser
    call, then the returned row), checked call by call."""
    P, G, B, steps, mask_id, pad_id, control, rule = case
    blocks, per_block = G // B, steps // (G // B)
    budget = ref.TransferCounts(B, per_block, rule or "even")
    out = canvases[-1]
    expect(torch.equal(out[:P], prompt), f"{what}: the returned row should start with the prompt, "
                                         f"unchanged")
    per_call_block = blocks_of_calls(canvases[:-1], prompt, case, what)
    left = int((out[P:] == mask_id).sum())
    expect(left == 0, f"{what} left {left} masks in the generation: every block must be filled "
                      f"(its budgets add up to block_length)")
    calls = len(per_call_block)
    expect(calls == steps, f"{what} called the denoiser {calls} times; with steps = {steps} over {blocks} "
                           f"blocks it should call it {steps} times, steps / blocks = {per_block} per block")
    counts = [per_call_block.count(j) for j in range(blocks)]
    expect(counts == [per_block] * blocks,
           f"{what}: the blocks got {counts} denoiser calls; {steps} steps over {blocks} blocks should "
           f"give each block steps / blocks = {per_block} calls, one before each of its updates")
    for c in range(calls):
        committed = int(((canvases[c] == mask_id) & (canvases[c + 1] != mask_id)).sum())
        block, within = per_call_block[c], c % per_block
        expect(committed == budget[within],
               f"{what}: call {within + 1} of block {block + 1} committed {committed} masks; the block's "
               f"budgets are TransferCounts({B}, {per_block}, {(rule or 'even')!r}) = {budget}")


BLOCK_ERRORS = [("gen_length = 10 is not a multiple of block_length = 4", 3, 10, 4, 4),
                ("gen_length = 9 is not a multiple of block_length = 6", 3, 9, 6, 3),
                ("steps = 4 is not a multiple of the 3 blocks", 3, 12, 4, 4),
                ("steps = 5 is not a multiple of the 2 blocks", 3, 16, 8, 5),
                ("block_length = 0: blocks hold at least one position", 3, 8, 0, 4),
                ("steps = 0: every block needs at least one call", 3, 8, 4, 0),
                ("gen_length = 0: there is nothing to generate", 3, 0, 4, 4)]


# (prompt length, gen_length, block_length, steps) of valid calls
BLOCK_ALLOWED = [(3, 8, 4, 4), (3, 2, 1, 2), (2, 1, 1, 1)]


def block_rule(why):
    """The words of notebook 06's and 07's samplers' tasks that state a BLOCK_ERRORS-like refusal."""
    if "not a multiple of block_length" in why:
        return "`gen_length` a multiple of `block_length`"
    if "not a multiple of the" in why:
        return "`steps` a multiple of the number of blocks"
    return "`gen_length`, `block_length` and `steps` at least 1"


stated("SampleBlocks.errors", {why: block_rule(why) for why, *_ in BLOCK_ERRORS})


@check("SampleBlocks.errors")
def sample_blocks_errors(SampleBlocks):
    g = torch.Generator().manual_seed(7)
    for seed, (why, P, G, B, steps) in enumerate(BLOCK_ERRORS):
        prompt = torch.randint(2, 21, (P,), generator=g)
        model = RecordingDenoiser(P + G, seed)
        result = SampleBlocks.with_globals(notebook_05_helpers(), model, prompt, G, B, steps, 1, 0, (), "even")
        what = f"SampleBlocks(denoiser, prompt, {G}, {B}, {steps}, 1, 0)"
        refused(result, why, what)
        expect(not model.canvases, f"{what} called the denoiser {len(model.canvases)} times before it raised: "
                                   f"check the rules first, before any denoiser call")
    # ... and valid calls beside them, which must get past the rules to the denoiser: a function that
    # refuses everything has not learnt what to refuse (what the sampling then does is SampleBlocks.blocks').
    # Blocks of one position and one step each sit on the rules' boundary ("at least 1").
    for P, G, B, steps in BLOCK_ALLOWED:
        model = RecordingDenoiser(P + G, len(BLOCK_ERRORS))
        result = SampleBlocks.with_globals(notebook_05_helpers(), model, torch.randint(2, 21, (P,), generator=g),
                                           G, B, steps, 1, 0, (), "even")
        what = f"SampleBlocks(denoiser, prompt, {G}, {B}, {steps}, 1, 0)"
        said = f": it {raised(result[1], result[2])}" if result[0] == "raised" else ""
        expect(model.canvases, f"{what} is a valid call ({G // B} blocks of {B} positions, {steps} steps) and "
                               f"never called the denoiser{said}: only the rules' violations are refused")


# ---------------------------------------------------------------- CommitAbove

def commit_cases(g, count):
    """Random batches (x, candidate_ids, confidence, slots, tau, mask_id): distinct confidences
    (odd multiples of 1/2N) and thresholds that never equal one (multiples of 1/N, or >= 1); rows
    without any eligible slot; the mask id 1 or 22, so a global MASK is not read by accident. Then
    the cases where a confidence equals tau (`tie_cases`): "strictly above" is the rule."""
    cases = []
    for case in range(count):
        B, L = int(torch.randint(1, 6, (1,), generator=g)), int(torch.randint(2, 13, (1,), generator=g))
        mask = (1, 22)[case % 2]
        x = torch.randint(2, 21, (B, L), generator=g)
        x[torch.rand(B, L, generator=g) < 0.6] = mask
        slots = torch.rand(B, L, generator=g) < 0.75
        if B > 1 and case % 3 == 0:
            slots[int(torch.randint(0, B, (1,), generator=g))] = False   # a row with nothing eligible
        candidates = torch.randint(2, 21, (B, L), generator=g)
        N = B * L
        confidence = (2 * torch.randperm(N, generator=g) + 1).reshape(B, L).float() / (2 * N)
        eligible = slots & (x == mask)
        top = float(confidence[eligible].max()) if eligible.any() else 0.5
        kind = case % 6
        if kind == 0:
            tau = 0.0
        elif kind == 1:
            tau = 1.0
        elif kind == 2:
            tau = (1.5, 2.0)[case % 4 == 2]
        elif kind == 3:   # nothing passes in any row
            tau = min(N, round(top * N + 0.5)) / N
        else:
            tau = int(torch.randint(0, N + 1, (1,), generator=g)) / N
        cases.append((x, candidates, confidence, slots, tau, mask))
    return cases + tie_cases(g, count // 8)


def tie_cases(g, count):
    """Batches in which tau is exactly an eligible confidence (that one stays masked when a higher one
    passes), and the two-sentence world's first call at tau = 1: `the` and `is` certain (confidence
    1.0), two uncertain draws; only one position may be committed, as the text's four calls need."""
    cases = [(torch.full((1, 4), 13), torch.tensor([[0, 1, 3, 4]]), torch.tensor([[1.0, 0.8, 1.0, 0.8]]),
              torch.ones(1, 4, dtype=torch.bool), 1.0, 13)]
    for case in range(count):
        B, L = int(torch.randint(1, 4, (1,), generator=g)), int(torch.randint(3, 10, (1,), generator=g))
        mask = (1, 22)[case % 2]
        x = torch.full((B, L), mask)
        slots = torch.ones(B, L, dtype=torch.bool)
        candidates = torch.randint(2, 21, (B, L), generator=g)
        N = B * L
        confidence = (2 * torch.randperm(N, generator=g) + 1).reshape(B, L).float() / (2 * N)
        # the second most confident position of row 0: tau equals it, one position stays above it
        tau = float(confidence[0].sort(descending=True).values[1])
        cases.append((x, candidates, confidence, slots, tau, mask))
    return cases


COMMIT_INPUTS = ("x", "candidate_ids", "confidence", "slots")


def committed(result, x, what):
    """What one call of CommitAbove returned, checked: inputs untouched, integer ids of x's shape."""
    out = value_of(result, what)
    for index in sorted(changed(result) & set(range(len(COMMIT_INPUTS)))):
        raise Failure(f"CommitAbove modified its input {COMMIT_INPUTS[index]}: build the new canvas from "
                      f"a clone (torch.where or x.clone())")
    held = not_integers(out)
    expect(held is None, f"CommitAbove should return token ids as integers (like x), got {held}: the "
                         f"next guesser call and Decode need integer ids")
    try:
        out = torch.as_tensor(np.asarray(out.detach().cpu() if torch.is_tensor(out) else out))
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"CommitAbove should return a [B, L] tensor of ids, got {type_name(out)}") from None
    expect(tuple(out.shape) == tuple(x.shape), f"CommitAbove should return the canvas's shape "
                                               f"{list(x.shape)}, got {list(out.shape)}")
    return out.long()


@check("CommitAbove.rule")
def commit_rule(CommitAbove):
    g = torch.Generator().manual_seed(8)
    cases = commit_cases(g, 240)
    for case, ((x, candidates, confidence, slots, tau, mask), result) in enumerate(
            zip(cases, CommitAbove.calls([list(c) for c in cases]))):
        B, L = x.shape
        what = f"CommitAbove on random batch {case} (B = {B}, L = {L}, tau = {tau:g}, mask_id = {mask})"
        out = committed(result, x, what)
        eligible = slots & (x == mask)
        expect(torch.equal(out[~eligible], x[~eligible]),
               f"{what}: a position that is not an eligible slot changed; only slots that are still "
               f"masked may be committed (earlier commits, the prompt and masks outside the slots stay)")
        new = out != x
        expect(torch.equal(out[new], candidates[new]), f"{what}: a committed position must take its "
                                                       f"candidate id")
        score = confidence.masked_fill(~eligible, -math.inf)
        for b in range(B):
            if not eligible[b].any():
                continue
            passing = eligible[b] & (confidence[b] > tau)
            top = int(score[b].argmax())
            if not passing.any():
                picked = int(torch.nonzero(new[b])[0]) if bool(new[b].any()) else top
                tied = bool(score[b, picked] == score[b, top])   # ties may be broken either way
                expect(int(new[b].sum()) == 1 and tied,
                       f"{what}, row {b}: no eligible confidence is above tau, so exactly one slot must be "
                       f"committed, the most confident eligible one (position {top}), so that every call "
                       f"makes progress; committed positions {torch.nonzero(new[b]).flatten().tolist()}"
                       + (" (tau >= 1: confidences never pass it)" if tau >= 1 else ""))
            else:
                extra = torch.nonzero(new[b] & ~passing).flatten().tolist()
                missed = torch.nonzero(passing & ~new[b]).flatten().tolist()
                expect(not extra, f"{what}, row {b}: position {extra[:1]} was committed though its "
                                  f"confidence {float(confidence[b, extra[0]]) if extra else 0:.3f} is not "
                                  f"above tau (when some pass, only those are committed)")
                expect(not missed, f"{what}, row {b}: position {missed[:1]} is an eligible slot with "
                                   f"confidence above tau and was not committed: every one that passes is")
        want = ref.CommitAbove(x, candidates, confidence, slots, tau, mask)
        rows = eligible.any(dim=1)
        ties = bool(((score == score.max(dim=1, keepdim=True).values).sum(dim=1)[rows] > 1).any())
        expect(ties or torch.equal(out, want), f"{what}: expected {want.tolist()}, got {out.tolist()}")


COMMIT_EXAMPLE = dict(
    x=torch.tensor([[7, 8, 1, 1, 1, 0], [9, 1, 1, 1, 0, 0]]),
    candidate_ids=torch.tensor([[7, 8, 11, 12, 13, 4], [9, 21, 22, 23, 5, 5]]),
    confidence=torch.tensor([[0.99, 0.97, 0.55, 0.90, 0.72, 0.80], [0.88, 0.60, 0.30, 0.95, 0.10, 0.10]]),
    slots=torch.tensor([[False, False, True, True, True, False], [False, True, True, True, False, False]]),
)


def commit_errors():
    e = COMMIT_EXAMPLE
    mask_passing = e["candidate_ids"].clone()
    mask_passing[1, 1] = 1
    return [("confidence of another shape", dict(confidence=e["confidence"][:, :5]), 0.7),
             ("candidate_ids of another shape", dict(candidate_ids=e["candidate_ids"][:1]), 0.7),
             ("slots of another shape", dict(slots=e["slots"][:, :4]), 0.7),
             ("slots given as 0/1 integers", dict(slots=e["slots"].long()), 0.7),
             ("a negative threshold tau = -0.1", {}, -0.1),
             ("a threshold tau = NaN", {}, float("nan")),
             ("a candidate above tau is the mask", dict(candidate_ids=mask_passing), 0.5)]


stated("CommitAbove.errors", {why: ("tensors of different shapes" if "shape" in why else
                                    "slots that are not Boolean" if why.startswith("slots given") else
                                    "a `tau` that is negative or not a number" if "threshold" in why else
                                    "a committed candidate that is the mask") for why, _, _ in commit_errors()})


@check("CommitAbove.errors")
def commit_errors_check(CommitAbove):
    cases = commit_errors()
    arguments = [[{**COMMIT_EXAMPLE, **changes}[name] for name in COMMIT_INPUTS] + [tau, 1]
                 for _, changes, tau in cases]
    for (why, _, tau), result in zip(cases, CommitAbove.calls(arguments)):
        refused(result, why, f"CommitAbove(x, candidate_ids, confidence, slots, {tau}, 1)")
    # ...but a mask proposed where nothing is committed is no error:
    e = COMMIT_EXAMPLE
    candidates = e["candidate_ids"].clone()
    candidates[0, 2] = candidates[1, 2] = 1
    result = CommitAbove.calls([[e["x"], candidates, e["confidence"], e["slots"], 0.7, 1]])[0]
    what = "CommitAbove with tau = 0.7 and the mask proposed at two positions below it"
    out = value_of(result, what)
    try:   # its dtype and what it does to its inputs are CommitAbove.rule's business
        out = torch.as_tensor(np.asarray(out.detach().cpu() if torch.is_tensor(out) else out)).long()
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"{what} should return a [B, L] tensor of ids, got {type_name(out)}") from None
    want = ref.CommitAbove(e["x"], candidates, e["confidence"], e["slots"], 0.7, 1)
    expect(torch.equal(out, want), f"{what}: only a committed mask is an error; expected {want.tolist()}, "
                                   f"got {out.tolist()}")


# ---------------------------------------------------------------- RemaskSigma

# (1, 0) is left out: there sigma_max is (1 - alpha_s) / alpha_t = 0 / 0, a matter of convention.
SIGMA_TIMES = sorted({(k / T, (k - 1) / T) for T in range(2, 7) for k in range(1, T + 1)}
                     | {(0.3, 0.1), (0.9, 0.2), (0.55, 0.5), (0.7, 0.65), (1.0, 0.3)}
                | {(0.5, 0.5), (0.2, 0.2), (0.9, 0.9), (1.0, 1.0)}, reverse=True)   # s = t: the loop
SIGMA_ETAS = {"cap": (0.0, 0.2, 0.5, 1.0, 3.0), "rescale": (0.0, 0.2, 0.5, 1.0)}
SIGMA_ERRORS = [("eta < 0", [0.5, 0.25, -0.1, "cap"]), ("eta < 0", [0.5, 0.25, -0.1, "rescale"]),
                ("eta > 1 with the rescale schedule", [0.5, 0.25, 1.5, "rescale"]),
                ("t = s = 0: at t = 0 nothing is masked (alpha_t = 1), so t > 0", [0.0, 0.0, 0.5, "cap"]),
                ("s > t: a step never goes forward in time, 0 <= s <= t <= 1", [0.25, 0.5, 0.5, "rescale"]),
                ("t > 1: times lie in [0, 1]", [1.25, 0.5, 0.5, "cap"]),
                ("s < 0: times lie in [0, 1]", [0.5, -0.25, 0.5, "cap"]),
                ("the schedule 'linear' is neither 'cap' nor 'rescale'", [0.5, 0.25, 0.5, "linear"])]


TIMES_STATED = r"unless $0 \le s \le t \le 1$ with $t > 0$"
stated("RemaskSigma", {why: (r"for an $\eta$ outside its schedule's range" if why.startswith("eta") else
                             "for another schedule name" if "schedule" in why else TIMES_STATED)
                       for why, _ in SIGMA_ERRORS})


def sigma_advice(t, s, eta, schedule):
    sigma_max = ref.SigmaMax(t, s)
    why = (f"sigma_max = min(1, (1 - alpha_s) / alpha_t) = min(1, s / (1 - t)) = {sigma_max:.6g}"
           if t < 1 else "at t = 1, alpha_t = 0 and sigma_max = 1")
    rule = "'cap' gives min(eta, sigma_max)" if schedule == "cap" else "'rescale' gives eta * sigma_max"
    return f"{why}; {rule}"


@check("RemaskSigma")
def remask_sigma(RemaskSigma):
    cases = [[t, s, eta, schedule] for schedule, etas in SIGMA_ETAS.items() for t, s in SIGMA_TIMES
             for eta in etas]
    cases += [[t, s, eta] for t, s in SIGMA_TIMES[::3] for eta in (0.3, 2.0)]   # the default schedule
    results = RemaskSigma.calls(cases + [args for _, args in SIGMA_ERRORS])
    for args, result in zip(cases, results):
        t, s, eta = args[:3]
        schedule = args[3] if len(args) == 4 else "cap"
        what = f"RemaskSigma({', '.join(map(repr, args))})"
        got = scalar(value_of(result, what + (" (at t = 1, alpha_t = 0: sigma_max is 1 there, not a "
                                               "division by zero)" if t == 1 else "")), what)
        want = ref.RemaskSigma(t, s, eta, schedule)
        expect(abs(got - want) <= 1e-9 * (1 + abs(want)),
               f"{what} should be {want:.6g}, got {got:.6g}: {sigma_advice(t, s, eta, schedule)}"
               + (" (the schedule is 'cap' by default)" if len(args) == 3 else ""))
    for (why, args), result in zip(SIGMA_ERRORS, results[len(cases):]):
        refused(result, why, f"RemaskSigma({', '.join(map(repr, args))})")


# ---------------------------------------------------------------- RemaskStep

# A small world of our own: 7 ordinary tokens and the mask 7 (not the notebook's 13, so a RemaskStep
# that reads the global MASK instead of its `mask` argument is caught).
V_SMALL, MASK_SMALL = 8, 7
GUESS_ROWS = [[0.5, 0.3, 0.2], [0.1, 0.1, 0.1, 0.1, 0.6], [0, 0, 0, 0.25, 0, 0, 0.75], [0.4, 0.6], [1.0],
              [0.2, 0.2, 0.2, 0.2, 0.1, 0.1]]
L_STEP = 12
# x_t: six decoded tokens and six masks
X_STEP = torch.tensor([3, MASK_SMALL, MASK_SMALL, 0, 5, MASK_SMALL, 1, 6, MASK_SMALL, MASK_SMALL, 2,
                       MASK_SMALL])


def guess_table():
    p = torch.zeros(L_STEP, V_SMALL)
    for i in range(L_STEP):
        row = GUESS_ROWS[(i * 5) % len(GUESS_ROWS)]
        p[i, :len(row)] = torch.tensor(row)
    return p / p.sum(dim=1, keepdim=True)


class KnownGuesser:
    """GuessX0 for RemaskStep: the same table whatever the sentence; it stays with the checker and
    keeps what it is handed (the first `keep` inputs). Where what it is handed does not matter, the
    checks hand FixedGuesser (the same table, built in the kernel: no call comes back here)."""

    def __init__(self, p, keep=1000):
        self.p, self.keep, self.seen, self.calls = p, keep, [], 0

    def __call__(self, x_t):
        self.calls += 1
        if not (torch.is_tensor(x_t) and x_t.dim() == 1 and len(x_t) == len(self.p)):
            shape = tuple(x_t.shape) if torch.is_tensor(x_t) else type(x_t).__name__
            raise Failure(f"GuessX0 was handed {shape}; it takes the 1-D sentence x_t of {len(self.p)} "
                          f"tokens, as notebook 02's guessers do")
        if len(self.seen) < self.keep:
            self.seen.append(x_t.detach().clone().long())
        return self.p.clone()


def step_what(t, s, sigma, fixed=False):
    return f"RemaskStep(x_t, {t:g}, {s:g}, GuessX0, {MASK_SMALL}, {sigma:g}{', fixed' if fixed else ''})"


def stepped(result, x_t, what):
    """One step's result as a 1-D long tensor of x_t's length (ids of any dtype here: .fixed checks them)."""
    return vector(value_of(result, what), f"what {what} returned", length=len(x_t), dtype=torch.long)


def unmask_probability(t, s, sigma):
    alpha_t, alpha_s = 1 - t, 1 - s
    return min(1.0, max(0.0, (alpha_s - (1 - sigma) * alpha_t) / (1 - alpha_t)))


def convolution(D, sigma, M, stay):
    """The law of Bin(D, sigma) + Bin(M, stay), on 0..D+M."""
    return np.convolve(stats.binomial_pmf(D, sigma), stats.binomial_pmf(M, stay))


class Family:
    """The statistical tests of one check, judged together once the data is in: ALPHA is split over
    exactly as many tests as there are. Each fails with its advice and the test's own summary."""

    def __init__(self):
        self.tests = []

    def binomial(self, k, n, p, what, advice):
        self.tests.append((lambda alpha: stats.binomial_test(k, n, p, alpha, what=what), advice))

    def dkw(self, samples, pmf, what, advice):
        self.tests.append((lambda alpha: stats.dkw_test(samples, pmf, alpha, what=what), advice))

    def judge(self):
        alpha = stats.split(ALPHA, len(self.tests))
        for test, advice in self.tests:
            verdict = test(alpha)
            expect(verdict.ok, f"{advice}. {verdict.summary}")


# (t, s, sigma) of the one-step cases from X_STEP: sigma = sigma_max with q = 1, sigma = 0 (Undiffuse's
# 1/k), t = 1 (alpha_t = 0) and a step to s near 0.
LAW_CASES = [(0.5, 0.25, 0.5), (0.75, 0.5, 0.3), (4 / 5, 3 / 5, 0.0), (1.0, 0.875, 0.6), (0.4, 0.1, 0.15)]
LAW_RUNS = 500
MARGINAL = (0.75, 0.5, 0.8)   # x_t drawn from the forward marginal: every position masked w.p. t
MARGINAL_RUNS = 1000
UNDIFFUSE_KS, UNDIFFUSE_T, UNDIFFUSE_RUNS = (2, 3, 6), 6, 150


@check("RemaskStep.law")
def remask_law(RemaskStep):
    p = guess_table()
    support = p > 0
    family = Family()
    decoded, masked = torch.nonzero(X_STEP != MASK_SMALL).flatten(), torch.nonzero(X_STEP == MASK_SMALL).flatten()
    D, M = len(decoded), len(masked)
    revealed_tokens = [[] for _ in range(L_STEP)]
    for t, s, sigma in LAW_CASES:
        what = step_what(t, s, sigma)
        guess = KnownGuesser(p)
        outs = torch.stack([stepped(r, X_STEP, what) for r in RemaskStep.repeat([X_STEP, t, s, guess, MASK_SMALL,
                                                                                 sigma], LAW_RUNS)])
        expect(guess.calls <= LAW_RUNS, f"{what} was run {LAW_RUNS} times and called GuessX0 {guess.calls} "
                                        f"times: call it once per step, on x_t (it is the network's pass)")
        for x in guess.seen:
            expect(torch.equal(x, X_STEP), f"{what}: GuessX0 was handed {x.tolist()}, not x_t = "
                                           f"{X_STEP.tolist()}: the guesses come from the canvas at time t, "
                                           f"before this step changes anything")
        kept_or_mask = (outs[:, decoded] == X_STEP[decoded]) | (outs[:, decoded] == MASK_SMALL)
        expect(bool(kept_or_mask.all()), f"{what}: a decoded token either stays or goes back to the mask "
                                         f"({MASK_SMALL}); one became another token")
        expect(bool(((outs >= 0) & (outs < V_SMALL)).all()), f"{what} wrote a token id outside the "
                                                             f"vocabulary 0..{V_SMALL - 1}")
        new = outs[:, masked]
        opened = new != MASK_SMALL
        allowed = support[masked.expand_as(new)[opened], new[opened]] if opened.any() else torch.ones(0)
        expect(bool(allowed.all()), f"{what}: a revealed token must be drawn from GuessX0(x_t) at its own "
                                    f"position; one has probability 0 there")
        q = unmask_probability(t, s, sigma)
        for i in masked.tolist():
            revealed_tokens[i] += outs[outs[:, i] != MASK_SMALL, i].tolist()
        remasked = outs[:, decoded] == MASK_SMALL
        counts = (outs == MASK_SMALL).sum(dim=1)
        family.binomial(int(remasked.sum()), LAW_RUNS * D, sigma, f"decoded tokens remasked ({what})",
                        f"{what}: each decoded token should go back to the mask with probability sigma = "
                        f"{sigma:g}")
        family.binomial(int(opened.sum()), LAW_RUNS * M, q, f"masks revealed ({what})",
                        f"{what}: each mask should be revealed with probability (alpha_s - (1 - sigma) "
                        f"alpha_t) / (1 - alpha_t) = {q:.4g} (alpha(t) = 1 - t)"
                        + (f", which is Undiffuse's 1/k = {q:.4g} when sigma = 0" if sigma == 0 else ""))
        if 0 < sigma < 1:
            both = int(sum((remasked[:, j] & remasked[:, j + 1]).sum() for j in range(0, D - 1, 2)))
            family.binomial(both, LAW_RUNS * (D // 2), sigma ** 2, "pairs of decoded tokens both remasked",
                            f"{what}: each position should toss its own coin: two decoded positions should "
                            f"both be remasked with probability sigma^2 = {sigma ** 2:.4g}")
        if 0 < q < 1:
            both = int(sum((opened[:, j] & opened[:, j + 1]).sum() for j in range(0, M - 1, 2)))
            family.binomial(both, LAW_RUNS * (M // 2), q ** 2, "pairs of masks both revealed",
                            f"{what}: each position should toss its own coin: two masks should both be "
                            f"revealed with probability q^2 = {q ** 2:.4g}")
        family.dkw(counts, convolution(D, sigma, M, 1 - q), f"masks after one step ({what}, {D} decoded, "
                   f"{M} masked)", f"{what}: the number of masks after the step should follow "
                   f"Binomial({D}, sigma) + Binomial({M}, 1 - q), each position on its own coin, with "
                   f"q = (alpha_s - (1 - sigma) alpha_t) / (1 - alpha_t) = {q:.4g} and alpha(t) = 1 - t")
        for j, i in enumerate(decoded.tolist()):
            family.binomial(int(remasked[:, j].sum()), LAW_RUNS, sigma, f"runs that remasked position {i}",
                            f"{what}: every decoded position should be remasked with the same probability "
                            f"sigma = {sigma:g}, wherever it sits")
        for j, i in enumerate(masked.tolist()):
            family.binomial(int(opened[:, j].sum()), LAW_RUNS, q, f"runs that revealed position {i}",
                            f"{what}: every masked position should be revealed with the same probability "
                            f"q = {q:.4g}, wherever it sits")
    for i in masked.tolist():
        family.dkw(revealed_tokens[i], p[i].double().numpy(), f"tokens revealed at position {i}",
                   "a revealed token should be drawn from GuessX0(x_t) at its own position (one draw per "
                   "position, torch.multinomial on the guess's rows)")
    marginal(RemaskStep, p, family)
    undiffuse_rates(RemaskStep, p, family)
    sure_guess_other_mask(RemaskStep)
    family.judge()


# Another guesser and another mask: a guesser sure of one token at each position (none of them the mask
# or token 7) and the mask 0, x_t being X_STEP with 0 and 7 swapped. A step that reads a guesser or a mask
# of its own, not the ones handed in, reveals or remasks the wrong tokens. Exact: no statistics.
SURE_TOKENS = [1 + (3 * i) % 6 for i in range(L_STEP)]
OTHER_MASK_SMALL = 0
SURE_RUNS = 60


def sure_guess_other_mask(RemaskStep):
    x_t = torch.where(X_STEP == MASK_SMALL, OTHER_MASK_SMALL, torch.where(X_STEP == 0, MASK_SMALL, X_STEP))
    sure = torch.nn.functional.one_hot(torch.tensor(SURE_TOKENS), V_SMALL).float()
    t, s, sigma = 0.5, 0.25, 0.5
    what = f"RemaskStep({x_t.tolist()}, {t:g}, {s:g}, GuessX0, {OTHER_MASK_SMALL}, {sigma:g})"
    masked = x_t == OTHER_MASK_SMALL
    opened = remasked = 0
    for result in RemaskStep.repeat([x_t, t, s, FixedGuesser(sure), OTHER_MASK_SMALL, sigma], SURE_RUNS):
        out = stepped(result, x_t, what)
        for i in range(L_STEP):
            got = int(out[i])
            if masked[i]:
                expect(got in (OTHER_MASK_SMALL, SURE_TOKENS[i]),
                       f"{what}: position {i} is masked (mask = {OTHER_MASK_SMALL}, the `mask` handed in) and "
                       f"became {got}; it either stays masked or becomes a draw from GuessX0(x_t), which is "
                       f"sure of {SURE_TOKENS[i]} there (use the GuessX0 and the mask handed in)")
                opened += got != OTHER_MASK_SMALL
            else:
                expect(got in (int(x_t[i]), OTHER_MASK_SMALL),
                       f"{what}: position {i} holds the decoded token {int(x_t[i])} and became {got}; a decoded "
                       f"token either stays or goes back to the mask, {OTHER_MASK_SMALL} here (use the `mask` "
                       f"handed in)")
                remasked += got == OTHER_MASK_SMALL
    # q = 0.75 for 6 masks and sigma = 0.5 for 6 decoded tokens, over 60 runs: none moving has
    # probability below 1e-100 for a correct step
    expect(opened and remasked, f"{what} never revealed a mask or never remasked a decoded token in {SURE_RUNS} "
                                f"runs (mask = {OTHER_MASK_SMALL}): masks are the positions equal to `mask`")


def marginal(RemaskStep, p, family):
    """x_t drawn from the forward marginal at t (each position masked w.p. t): one step leaves each
    position masked w.p. s, independently, so the masks left follow Binomial(L, s)."""
    t, s, sigma = MARGINAL
    x_0 = torch.tensor([i % (V_SMALL - 1) for i in range(L_STEP)])
    starts = []
    for _ in range(MARGINAL_RUNS):
        x_t = x_0.clone()
        x_t[torch.rand(L_STEP) < t] = MASK_SMALL
        starts.append(x_t)
    what = step_what(t, s, sigma)
    guess = FixedGuesser(p)
    results = RemaskStep.calls([[x_t, t, s, guess, MASK_SMALL, sigma] for x_t in starts])
    counts = [int((stepped(r, x_t, what) == MASK_SMALL).sum()) for x_t, r in zip(starts, results)]
    family.dkw(counts, stats.binomial_pmf(L_STEP, s), "masks after one step from the forward marginal",
               f"{what} from x_t drawn from the forward process at t (each token masked with probability "
               f"t): the step should keep the forward process's law, each position masked with probability "
               f"s = {s:g}, so the masks left follow Binomial({L_STEP}, {s:g}) (mean L s = {L_STEP * s:g})")


def undiffuse_rates(RemaskStep, p, family):
    """sigma = 0 is notebook 02's Undiffuse: from t = k/T to s = (k-1)/T a mask is revealed w.p. 1/k."""
    start = torch.full((L_STEP,), MASK_SMALL)
    for k in UNDIFFUSE_KS:
        t, s = k / UNDIFFUSE_T, (k - 1) / UNDIFFUSE_T
        what = step_what(t, s, 0.0)
        results = RemaskStep.repeat([start, t, s, FixedGuesser(p), MASK_SMALL, 0.0], UNDIFFUSE_RUNS)
        revealed = sum(int((stepped(r, start, what) != MASK_SMALL).sum()) for r in results)
        family.binomial(revealed, UNDIFFUSE_RUNS * L_STEP, 1 / k, f"masks revealed ({what})",
                        f"{what}: with sigma = 0 the step is notebook 02's Undiffuse, each mask revealed "
                        f"with probability (t - s) / t = 1/{k}")


# x_t for the fixed check: a prompt of 3 (fixed), the generation (decoded tokens and masks, one mask
# fixed), two PADs (token 6, fixed).
X_FIXED = torch.tensor([0, 4, 2, MASK_SMALL, 3, MASK_SMALL, 5, MASK_SMALL, 1, MASK_SMALL, 6, 6])
FIXED = torch.tensor([True, True, True, False, False, False, False, True, False, False, True, True])
FIXED_CASES = [(0.75, 0.5, 1.0), (0.6, 0.5, 1.0), (0.5, 0.25, 0.5)]   # sigma_max = 1, 1, 0.5
FIXED_RUNS = 150


@check("RemaskStep.fixed")
def remask_fixed(RemaskStep):
    p = guess_table()
    free_moved = False
    for t, s, sigma in FIXED_CASES:
        what = step_what(t, s, sigma, fixed=True)
        results = RemaskStep.repeat([X_FIXED, t, s, FixedGuesser(p), MASK_SMALL, sigma, FIXED],
                                    FIXED_RUNS)
        for result in results:
            out = value_of(result, what)
            expect(0 not in changed(result), f"{what} changed the x_t it was given: build the new canvas "
                                             f"from a clone (or with torch.where)")
            expect(6 not in changed(result), f"{what} changed the `fixed` tensor it was given")
            out = token_ids(out, f"what {what} returned", length=L_STEP)
            moved = torch.nonzero(FIXED & (out != X_FIXED)).flatten().tolist()
            free_moved = free_moved or bool(((~FIXED) & (out != X_FIXED)).any())
            if moved:
                i = moved[0]
                kind = ("the prompt" if i < 3 else "the padding" if i >= 10 else
                        "a mask marked fixed (fixed masks stay masks)")
                raise Failure(f"{what}: position {i} is fixed ({kind}) and changed from {int(X_FIXED[i])} "
                              f"to {int(out[i])}: positions in `fixed` never change, neither remasked nor "
                              f"revealed")
    # Keeping the fixed positions is no achievement for a step that keeps everything: the free masks are
    # revealed with probability 2/3, 5/6 and 1 in these cases, so no change in 450 runs has probability
    # below 1e-100 for a correct step.
    expect(free_moved, f"{step_what(*FIXED_CASES[-1], fixed=True)} never changed a position outside `fixed` "
                       f"in {len(FIXED_CASES) * FIXED_RUNS} runs: the masks that are not fixed should be "
                       f"revealed (and the decoded tokens remasked) as in RemaskStep without `fixed`")


STEP_ERRORS = [("sigma = 0.6 is above sigma_max = min(1, s / (1 - t)) = 0.5", 0.5, 0.25, 0.6, None),
               ("sigma = 0.3 is above sigma_max = min(1, s / (1 - t)) = 0.2", 0.375, 0.125, 0.3, None),
               ("sigma = -0.1 is negative", 0.5, 0.25, -0.1, None),
               ("t = s = 0: at t = 0 nothing is masked (alpha_t = 1), so t > 0", 0.0, 0.0, 0.0, None),
               ("s > t: a step never goes forward in time, 0 <= s <= t <= 1", 0.25, 0.5, 0.0, None),
               ("t > 1: times lie in [0, 1]", 1.5, 0.5, 0.0, None),
               ("s < 0: times lie in [0, 1]", 0.5, -0.25, 0.0, None),
               ("fixed given as 0/1 integers, not a Boolean tensor", 0.5, 0.25, 0.2, "long"),
               ("fixed of another shape than x_t", 0.5, 0.25, 0.2, "short")]
STEP_ALLOWED = [("sigma = sigma_max = 0.5", 0.5, 0.25, 0.5), ("sigma = sigma_max = 0.5", 0.75, 0.125, 0.5),
                ("sigma = 0", 0.5, 0.25, 0.0), ("s = t, alpha held (ReMDM's loop)", 0.5, 0.5, 1.0),
                ("s = 0, the last step (sigma_max = 0)", 0.25, 0.0, 0.0)]
# sigma_max computed the other way, (1 - alpha_s) / alpha_t against s / (1 - t): one ulp apart, either side. The
# text allows a rounding error of 1e-9, so a step must take both (a RemaskSigma may compute either).
STEP_ALLOWED += [(f"sigma = sigma_max computed as {form}, {sigma!r}", t, s, sigma)
                 for t, s in ((2 / 9, 1 / 9), (2 / 5, 1 / 5), (4 / 7, 3 / 7))
                 for form, sigma in (("s / (1 - t)", s / (1 - t)), ("(1 - alpha_s) / alpha_t", (1 - (1 - s)) / (1 - t)))
                 if sigma <= 1]


stated("RemaskStep.errors", {why: (r"for a `sigma` outside $[0, \sigma_{\max}]$" if why.startswith("sigma") else
                                   "for a `fixed` that is not a Boolean tensor of `x_t`'s shape"
                                   if why.startswith("fixed") else TIMES_STATED) for why, *_ in STEP_ERRORS})


@check("RemaskStep.errors")
def remask_errors(RemaskStep):
    p = guess_table()
    fixed = {None: None, "long": FIXED.long(), "short": FIXED[:-1]}
    arguments = [[X_FIXED, t, s, FixedGuesser(p), MASK_SMALL, sigma]
                 + ([] if kind is None else [fixed[kind]]) for _, t, s, sigma, kind in STEP_ERRORS]
    arguments += [[X_FIXED, t, s, FixedGuesser(p), MASK_SMALL, sigma] for _, t, s, sigma in STEP_ALLOWED]
    results = RemaskStep.calls(arguments)
    for (why, t, s, sigma, kind), result in zip(STEP_ERRORS, results):
        refused(result, why, step_what(t, s, sigma, fixed=kind is not None))
    for (why, t, s, sigma), result in zip(STEP_ALLOWED, results[len(STEP_ERRORS):]):
        value_of(result, f"{step_what(t, s, sigma)} ({why} is allowed)")


# ---------------------------------------------------------------- RemaskLoop

class LoopStep:
    """Stands in for RemaskStep inside a RemaskLoop: asks the guesser it was handed once, keeps what
    it was called with, and returns a new canvas with the number of the call written at position
    `call % L`, so that the canvas each call was handed shows which call made it."""

    def __init__(self):
        self.calls = []

    def __call__(self, x_t, t, s, GuessX0, mask, sigma, fixed=None, *extra):
        x = torch.as_tensor(x_t).detach().cpu().clone().long()
        guess = GuessX0(x)
        self.calls.append(dict(x=x, t=t, s=s, guess=guess, mask=mask, sigma=sigma, fixed=fixed, extra=extra))
        out = x.clone()
        out[len(self.calls) % len(out)] = 100 + len(self.calls)
        return out


class LoopSigma:
    """Stands in for RemaskSigma: the reference's value, and every call kept."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return ref.RemaskSigma(*args, **kwargs)


def loop_guess(x):
    """A guesser whose answer names the canvas it was asked about (so a wrong one is seen)."""
    return torch.nn.functional.one_hot(torch.as_tensor(x).long() % 5, 5).float()


def other_loop_guess(x):
    """Another such guesser (some cases hand this one: the loop hands on the GuessX0 it was given)."""
    return torch.nn.functional.one_hot((torch.as_tensor(x).long() + 2) % 7, 7).float()


# (x, t, n, mask, eta, schedule or None for the default, fixed or None)
LOOP_CASES = [(torch.tensor([3, 7, 7, 1, 7]), 0.25, 3, 7, 0.2, None, None),
              (torch.tensor([3, 7, 7, 1, 7]), 0.25, 0, 7, 0.2, None, None),
              (torch.tensor([22, 4, 22, 22, 0, 0]), 0.5, 1, 22, 0.5, "rescale", None),
              (torch.tensor([2, 2, 9, 9, 9, 4, 4]), 0.4, 5, 9, 3.0, "cap",
               torch.tensor([True, True, False, False, False, True, True])),
              (torch.tensor([9, 1, 9, 1]), 0.9, 4, 9, 0.7, "rescale", torch.zeros(4, dtype=torch.bool))]
OTHER_GUESS_CASES = (3, 4)   # the cases handed other_loop_guess


def guess_of(case):
    return other_loop_guess if any(case is LOOP_CASES[i] for i in OTHER_GUESS_CASES) else loop_guess


def loop_what(case):
    x, t, n, mask, eta, schedule, fixed = case
    tail = ("" if schedule is None else f", {schedule!r}") + ("" if fixed is None else f", fixed={fixed.tolist()}")
    return f"RemaskLoop(step, sigma_of, {x.tolist()}, {t}, {n}, GuessX0, {mask}, {eta}{tail})"


def loop_calls(step, sigma_of, case, what):
    """Check the calls one RemaskLoop made of its step and sigma_of."""
    x, t, n, mask, eta, schedule, fixed = case
    schedule = schedule or "cap"
    sigma = ref.RemaskSigma(t, t, eta, schedule)
    expect(len(step.calls) == n, f"{what} called step {len(step.calls)} times: n = {n} loop steps are {n} calls")
    if n == 0:
        return
    expect(sigma_of.calls, f"{what} never called sigma_of: sigma is sigma_of(t, t, eta, schedule)")
    for args, kwargs in sigma_of.calls:
        asked = list(args) + [kwargs.get(k) for k in ("t", "s", "eta", "schedule")[len(args):] if k in kwargs]
        got = dict(zip(("t", "s", "eta", "schedule"), asked + ["cap"] * (4 - len(asked))))
        expect(got["t"] == t and got["s"] == t, f"{what} called sigma_of with times t = {got['t']}, s = {got['s']}: "
                                                f"the loop holds the time, so both are t = {t}")
        expect(got["eta"] == eta and got["schedule"] == schedule,
               f"{what} called sigma_of with eta = {got['eta']!r} and schedule {got['schedule']!r}: hand on "
               f"eta = {eta} and the schedule {schedule!r}")
    before = x
    for c, call in enumerate(step.calls, 1):
        expect(call["t"] == t and call["s"] == t, f"{what}: call {c} of step went from t = {call['t']} to "
                                                  f"s = {call['s']}; every loop step goes from t to t = {t} "
                                                  f"(alpha held)")
        expect(torch.equal(call["x"], before), f"{what}: call {c} of step was handed {call['x'].tolist()}, not "
                                               f"the canvas the call before returned, {before.tolist()}: each "
                                               f"loop step starts where the last one ended")
        # exact: the guessers answer one-hot rows of 0.0 and 1.0
        expect(torch.equal(torch.as_tensor(call["guess"]).float(), guess_of(case)(before)),
               f"{what}: call {c} of step was not handed the GuessX0 given to RemaskLoop")
        expect(call["mask"] == mask, f"{what}: call {c} of step was handed mask = {call['mask']!r}, not {mask}")
        try:
            given = float(call["sigma"])
        except (TypeError, ValueError):
            given = math.nan
        expect(abs(given - sigma) <= 1e-9, f"{what}: call {c} of step was handed sigma = {call['sigma']!r}; it "
                                           f"should be sigma_of(t, t, eta, schedule) = {sigma:.6g}")
        handed = call["fixed"]
        same = handed is None if fixed is None else (torch.is_tensor(handed) and torch.equal(handed, fixed))
        expect(same, f"{what}: call {c} of step was handed fixed = {handed!r}; hand on the fixed positions "
                     f"given ({None if fixed is None else fixed.tolist()})")
        before = before.clone()
        before[c % len(before)] = 100 + c


@check("RemaskLoop.steps")
def remask_loop(RemaskLoop):
    for case in LOOP_CASES:
        x, t, n, mask, eta, schedule, fixed = case
        what = loop_what(case)
        step, sigma_of = LoopStep(), LoopSigma()
        args = [step, sigma_of, x.clone(), t, n, guess_of(case), mask, eta]
        if schedule is not None or fixed is not None:
            args.append(schedule or "cap")
        if fixed is not None:
            args.append(fixed.clone())
        result = RemaskLoop.calls([args])[0]
        if result[0] == "raised" and not step.calls and n:
            raise Failure(f"{what} {raised(result[1], result[2])} before it called step: the loop calls "
                          f"the step handed in (your RemaskStep) n times")
        out = value_of(result, what)
        expect(not changed(result) & {2}, f"{what} modified x: each step returns a new canvas, keep x as it is")
        loop_calls(step, sigma_of, case, what)
        last = x.clone()
        for c in range(1, n + 1):
            last[c % len(last)] = 100 + c
        got = token_ids(out, f"what {what} returned", length=len(x))
        expect(torch.equal(got, last), f"{what} returned {got.tolist()}, not the canvas the last call of step "
                                       f"returned ({last.tolist()})" + (": with n = 0, x itself" if n == 0 else ""))


LOOP_ERRORS = [("n = -1 loop steps", -1), ("n = 2.5 loop steps is no whole number", 2.5), ("n = -3", -3)]
stated("RemaskLoop.errors", {why: "an `n` that is negative or not a whole number" for why, _ in LOOP_ERRORS})


@check("RemaskLoop.errors")
def remask_loop_errors(RemaskLoop):
    cases = LOOP_ERRORS
    def keep(x_t, t, s, GuessX0, mask, sigma, fixed=None):   # RemaskStep's names, for a call by keyword
        return x_t

    def sigma(t, s, eta, schedule="cap"):
        return 0.0

    results = RemaskLoop.calls([[keep, sigma, torch.tensor([1, 2]), 0.5, n, loop_guess, 9, 0.1] for _, n in cases])
    for (why, n), result in zip(cases, results):
        refused(result, why, f"RemaskLoop(step, sigma_of, x, 0.5, {n}, GuessX0, 9, 0.1)")
    fine = RemaskLoop.calls([[keep, sigma, torch.tensor([1, 2]), 0.5, n, loop_guess, 9, 0.1] for n in (0, 2)])
    for n, result in zip((0, 2), fine):
        value_of(result, f"RemaskLoop(step, sigma_of, x, 0.5, {n!r}, GuessX0, 9, 0.1) (n = {n!r} is a whole number "
                         f"of steps)")


# ---------------------------------------------------------------- SampleEntropy

def entropy_cases(g):
    """(ids, description): constant samples, all-distinct ones, random ones with repeats; as the task
    says, 1-D tensors (of several integer dtypes) or lists."""
    cases = [([4] * 32, "32 copies of one token (a list)"), (torch.full((7,), 3), "one token 7 times"),
             ([5], "a single token (a list)"), (torch.arange(32) + 100, "32 distinct tokens"),
             (torch.arange(10, dtype=torch.int32) * 3, "10 distinct tokens (a torch.int32 tensor)"),
             (list(range(20, 25)), "5 distinct tokens (a list)"),
             (torch.tensor([1, 1, 2, 2, 2, 2, 3, 9]), "a small sample with repeats")]
    containers = [("a list", lambda x: x.tolist()), ("a torch.long tensor", lambda x: x),
                  ("a torch.int32 tensor", lambda x: x.int()), ("a torch.uint8 tensor", lambda x: x.to(torch.uint8)),
                  ("a torch.int16 tensor", lambda x: x.to(torch.int16))]
    for case in range(40):
        n = int(torch.randint(2, 65, (1,), generator=g))
        V = int(torch.randint(2, 40, (1,), generator=g))
        ids = torch.randint(0, V, (n,), generator=g) ** int(torch.randint(1, 3, (1,), generator=g)) % 200
        name, convert = containers[case % len(containers)]
        cases.append((convert(ids), f"{n} tokens with repeats ({name})"))
    return cases


ENTROPY_ERRORS = [("an empty sample has no entropy", torch.tensor([], dtype=torch.long)),
                  ("token ids are integers", torch.tensor([1.0, 2.0, 2.0]))]
stated("SampleEntropy", {"an empty sample has no entropy": "for an empty sample", "token ids are integers": "float ids"})


@check("SampleEntropy")
def sample_entropy(SampleEntropy):
    for (why, ids), result in zip(ENTROPY_ERRORS, SampleEntropy.calls([[ids] for _, ids in ENTROPY_ERRORS])):
        refused(result, why, f"SampleEntropy({ids.tolist()}) ({str(ids.dtype).replace('torch.', '')})")
    cases = entropy_cases(torch.Generator().manual_seed(9))
    for (ids, described), result in zip(cases, SampleEntropy.calls([[ids] for ids in (c for c, _ in cases)])):
        what = f"SampleEntropy on {described}"
        got = scalar(value_of(result, what), what)
        want = ref.SampleEntropy(ids) + 0.0   # no -0.0 in a message
        n = len(ids)
        distinct = len(set(torch.as_tensor(ids).reshape(-1).tolist()))
        if abs(got - want) <= 1e-5 * (1 + want):
            continue
        hint = ""
        if want > 0 and abs(got - want / math.log(2)) <= 1e-5 * (1 + want):
            hint = ": that is the entropy in bits; use the natural log (nats)"
        elif distinct == 1:
            hint = ": a sample of one token repeated has entropy 0"
        elif distinct == n:
            hint = f": L = {n} distinct tokens have entropy ln L = {math.log(n):.4f}"
        raise Failure(f"{what}: expected -sum over the sample's distinct tokens of f ln f, f each token's "
                      f"share of the {n} tokens, = {want:.6f} nats; got {got:.6f}{hint}")


# ---------------------------------------------------------------- Perplexity

class FakeScorer:
    """A causal scorer of ours: the logits at position i depend on ids[: i + 1] only (the token, its
    position and the running mean of the prefix), so one call on the whole sentence and one call per
    prefix agree. It refuses anything but a [1, n] tensor of integer ids."""

    def __init__(self, V, seed, spread=1.0):
        g = torch.Generator().manual_seed(seed)
        self.V = V
        self.token = torch.randn(V, 8, generator=g)
        self.position = torch.randn(64, 8, generator=g)
        self.out = torch.randn(8, V, generator=g) * spread
        self.calls = 0

    def __call__(self, ids):
        self.calls += 1
        if not (torch.is_tensor(ids) and ids.dim() == 2 and ids.shape[0] == 1 and 1 <= ids.shape[1] <= 64
                and not ids.is_floating_point()):
            shape = (f"a {str(ids.dtype).replace('torch.', '')} tensor of shape {tuple(ids.shape)}"
                     if torch.is_tensor(ids) else type(ids).__name__)
            raise Failure(f"logits_of was handed {shape}; it scores a [1, n] tensor of integer ids "
                          f"(ids[None]) and returns logits of shape [1, n, V]")
        ids = ids.long()
        h = self.token[ids[0]]
        prefix = h.cumsum(dim=0) / torch.arange(1, len(h) + 1)[:, None]
        return (torch.tanh(h + self.position[: len(h)] + prefix) @ self.out)[None]


def perplexity_cases(g):
    cases = []
    for case in range(30):
        V = int(torch.randint(3, 30, (1,), generator=g))
        n = (2, 3, 5, 17, 32, 40)[case % 6]
        ids = torch.randint(0, V, (n,), generator=g)
        cases.append((FakeScorer(V, seed=case, spread=(0.5, 2.0, 5.0)[case % 3]), ids))
    return cases


PERPLEXITY_ERRORS = [("ids must be 1-D", torch.tensor([[1, 2, 3], [4, 5, 6]])),
                     ("one id leaves nothing to predict", torch.tensor([4])),
                     ("token ids are integers", torch.tensor([1.0, 2.0, 3.0]))]
stated("Perplexity", {why: "ids that are not 1-D, fewer than two, or floats" for why, _ in PERPLEXITY_ERRORS})


@check("Perplexity")
def perplexity(Perplexity):
    arguments = [[FakeScorer(7, seed=0), ids] for _, ids in PERPLEXITY_ERRORS]
    for (why, ids), result in zip(PERPLEXITY_ERRORS, Perplexity.calls(arguments)):
        refused(result, why, f"Perplexity(logits_of, {ids.tolist()}) ({str(ids.dtype).replace('torch.', '')})")
    cases = perplexity_cases(torch.Generator().manual_seed(10))
    for case, ((scorer, ids), result) in enumerate(zip(cases, Perplexity.calls([[s, ids] for s, ids in cases]))):
        what = f"Perplexity(logits_of, ids) on sentence {case} ({len(ids)} ids, vocabulary {scorer.V})"
        got = scalar(value_of(result, what), what)
        want = ref.Perplexity(scorer, ids)
        expect(abs(got - want) <= 1e-4 * want,
               f"{what}: expected {want:.6g}, got {got:.6g}: the perplexity is exp of the mean over "
               f"i = 1..n-1 of -ln p(ids[i] | ids[:i]), where p(. | ids[:i]) is the softmax of the logits "
               f"at position i - 1 (logits_of(ids[None])[0, :-1] scores ids[1:])")
