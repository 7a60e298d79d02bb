"""Reference batched sampler (notebook 05): a canvas of masks, candidate distributions from one
denoiser pass, confidence scores, per-row reveal budgets and the reverse update that commits them.

Shapes: B rows, L positions, V vocabulary entries. `model(x)` maps a [B, L] long tensor to logits
[B, L, V], both on the CPU wherever its network lives (the notebooks' `story_model`), so the samplers
work on the CPU throughout. Commits are irreversible; PAD marks positions beyond a row's length.
"""
import math

import torch

CONFIDENCE_KINDS = ("top", "margin", "neg_entropy")


def blank_canvas(batch_size, length, mask_id, device=None):
    """[batch_size, length] filled with mask_id: every slot is a position still to be predicted."""
    if batch_size < 1 or length < 1:
        raise ValueError(f"a canvas needs at least one row and one position, got {batch_size} x {length}")
    return torch.full((batch_size, length), mask_id, dtype=torch.long, device=device)


@torch.no_grad()
def candidate_distributions(model, x, control_ids):
    """One denoiser pass; control tokens (PAD, MASK, ...) can never be proposed: their logits become
    -inf before the softmax, so the other tokens' probabilities sum to one. x is left untouched."""
    logits = model(x)
    if logits.dim() != 3 or logits.shape[:2] != x.shape:
        raise ValueError(f"the model should return logits of shape [B, L, V] = [{x.shape[0]}, "
                         f"{x.shape[1]}, V], got {tuple(logits.shape)}")
    control = torch.as_tensor(list(control_ids), dtype=torch.long, device=logits.device)
    return torch.softmax(logits.float().index_fill(-1, control, -math.inf), dim=-1)  # out of place


def confidence_scores(probs, kind="top"):
    """How much to trust each position's top candidate: its probability ("top"), its lead over the
    runner-up ("margin"), or the negative entropy of the whole distribution ("neg_entropy")."""
    if kind == "top":
        return probs.max(dim=-1).values
    if kind == "margin":
        top2 = probs.topk(2, dim=-1).values
        return top2[..., 0] - top2[..., 1]
    if kind == "neg_entropy":
        return torch.where(probs > 0, probs * torch.log(probs), torch.zeros_like(probs)).sum(dim=-1)
    raise ValueError(f"confidence kind must be one of {CONFIDENCE_KINDS}, got {kind!r}")


def reveal_counts(remaining, steps_left):
    """Per-row budget ceil(remaining / steps_left): with steps_left counting down to 1, every row's
    masks are gone after the last step, each step revealing as evenly as possible."""
    if int(steps_left) < 1:
        raise ValueError(f"steps_left must be at least 1, got {steps_left}")
    remaining = torch.as_tensor(remaining, dtype=torch.long)
    if (remaining < 0).any():
        raise ValueError(f"remaining mask counts cannot be negative, got {remaining.tolist()}")
    return (remaining + int(steps_left) - 1) // int(steps_left)


def _validated_counts(reveal_counts, x):
    if len(reveal_counts) != x.shape[0]:
        raise ValueError(f"provide one reveal count per batch row: {x.shape[0]} rows, "
                         f"{len(reveal_counts)} counts")
    counts = torch.as_tensor(reveal_counts).to(device=x.device)
    if counts.is_floating_point() and not torch.equal(counts, counts.round()):
        raise ValueError(f"reveal counts must be whole numbers, got {counts.tolist()}")
    return counts.long().reshape(-1)


def _validated_update(x, candidate_ids, confidence, generation_slots, reveal_counts, mask_id):
    """The checks every reverse update makes; returns (eligible positions, per-row counts)."""
    if not (x.shape == candidate_ids.shape == confidence.shape == generation_slots.shape) or x.dim() != 2:
        raise ValueError("x, candidate_ids, confidence and generation_slots need one shape [batch, length]; "
                         f"got {tuple(x.shape)}, {tuple(candidate_ids.shape)}, {tuple(confidence.shape)}, "
                         f"{tuple(generation_slots.shape)}")
    if generation_slots.dtype != torch.bool:
        raise ValueError(f"generation_slots must be Boolean, got {generation_slots.dtype}")
    counts = _validated_counts(reveal_counts, x)
    eligible = generation_slots & (x == mask_id)
    available = eligible.sum(dim=1)
    bad = torch.nonzero((counts < 0) | (counts > available)).flatten()
    if len(bad):
        b = int(bad[0])
        raise ValueError(f"row {b}: reveal count {int(counts[b])} is not between 0 and its "
                         f"{int(available[b])} eligible masks")
    return eligible, counts


def _special_committed(commit, candidate_ids, mask_id, pad_id):
    special = commit & ((candidate_ids == mask_id) | (candidate_ids == pad_id))
    if special.any():
        b, i = (int(v) for v in torch.nonzero(special)[0])
        raise ValueError(f"row {b}, position {i}: a committed proposal cannot be MASK or PAD "
                         f"(got id {int(candidate_ids[b, i])})")


@torch.no_grad()
def reverse_update(x, candidate_ids, confidence, generation_slots, reveal_counts, mask_id, pad_id):
    """Commit, in each row, the reveal_counts[b] most confident proposals among its eligible positions
    (generation slots that are still MASK). Everything else keeps its id; x is not modified."""
    eligible, counts = _validated_update(x, candidate_ids, confidence, generation_slots, reveal_counts,
                                         mask_id)
    # Rank eligible positions by confidence within each row; ineligible ones rank last.
    scores = confidence.float().masked_fill(~eligible, -math.inf)
    order = scores.argsort(dim=1, descending=True)
    rank = torch.empty_like(order)
    rank.scatter_(1, order, torch.arange(x.shape[1], device=x.device).expand_as(order))
    commit = eligible & (rank < counts[:, None])
    _special_committed(commit, candidate_ids, mask_id, pad_id)
    return torch.where(commit, candidate_ids, x)


@torch.no_grad()
def reverse_update_rowwise(x, candidate_ids, confidence, generation_slots, reveal_counts, mask_id, pad_id):
    """The same update as a per-row Python loop, the lesson's way: the yardstick for reverse_update."""
    eligible, counts = _validated_update(x, candidate_ids, confidence, generation_slots, reveal_counts,
                                         mask_id)
    commit = torch.zeros_like(eligible)
    for b in range(x.shape[0]):
        if counts[b]:
            scores = confidence[b].float().masked_fill(~eligible[b], -math.inf)
            commit[b, scores.topk(int(counts[b])).indices] = True
    _special_committed(commit, candidate_ids, mask_id, pad_id)
    return torch.where(commit, candidate_ids, x)


def prompt_canvas(prompts, lengths, mask_id, pad_id):
    """Rows of different lengths: row b holds prompts[b], then masks up to lengths[b], then PAD.
    Returns the canvas and its generation slots (the masked part of each row)."""
    if len(prompts) != len(lengths):
        raise ValueError(f"{len(prompts)} prompts but {len(lengths)} lengths")
    L = max(int(n) for n in lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (prompt, n) in enumerate(zip(prompts, lengths)):
        prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
        if len(prompt) > n:
            raise ValueError(f"row {b}: prompt of {len(prompt)} tokens does not fit in length {n}")
        x[b, :len(prompt)] = prompt
        x[b, len(prompt):n] = mask_id
        slots[b, len(prompt):n] = True
    return x, slots


@torch.no_grad()
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    """Generate every row in `steps` denoiser passes: after each pass commit each row's budget of most
    confident candidates, then ask the model again with the new context."""
    x, slots = prompt_canvas(prompts, lengths, mask_id, pad_id)
    control = sorted({mask_id, pad_id, *control_ids})
    for steps_left in range(int(steps), 0, -1):
        probs = candidate_distributions(model, x, control)
        confidence, candidates = probs.max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x


@torch.no_grad()
def sample_rowwise(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    """The same sampler one row at a time, as a per-row Python loop would write it: the yardstick
    for the batched version's results and speed."""
    rows = []
    L = max(int(n) for n in lengths)
    control = sorted({mask_id, pad_id, *control_ids})
    for prompt, n in zip(prompts, lengths):
        x, slots = prompt_canvas([prompt], [n], mask_id, pad_id)
        x = torch.cat([x, torch.full((1, L - x.shape[1]), pad_id, dtype=torch.long)], 1)
        slots = torch.cat([slots, torch.zeros((1, L - slots.shape[1]), dtype=torch.bool)], 1)
        for steps_left in range(int(steps), 0, -1):
            confidence, candidates = candidate_distributions(model, x, control).max(dim=-1)
            k = math.ceil(int((slots & (x == mask_id)).sum()) / steps_left)
            x = reverse_update_rowwise(x, candidates, confidence, slots, [k], mask_id, pad_id)
        rows.append(x[0])
    return torch.stack(rows)

