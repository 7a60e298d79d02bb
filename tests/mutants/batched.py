"""Bugs students make in notebook 05 (first pass, confidence, budgets, reverse update, sampler)."""
from . import Mutant

CORRECT_UPDATE_HEAD = '''
def reverse_update(x, candidate_ids, confidence, generation_slots, reveal_counts, mask_id, pad_id):
    if not (x.shape == candidate_ids.shape == confidence.shape == generation_slots.shape):
        raise ValueError("All position-wise tensors need shape [batch, length]")
    if generation_slots.dtype != torch.bool:
        raise ValueError("generation_slots must be Boolean")
    if len(reveal_counts) != x.shape[0]:
        raise ValueError("Provide one reveal count per batch row")
'''


def update(body):
    """A reverse_update whose argument checks are right and whose per-row loop is `body`."""
    return CORRECT_UPDATE_HEAD + body


MUTANTS = [
    Mutant("blank_canvas", "an empty tensor, not a masked one", """
def blank_canvas(batch_size, length, mask_id):
    return torch.empty((batch_size, length), dtype=torch.long)
""", ("blank_canvas",)),
    Mutant("blank_canvas", "forgets the batch axis", """
def blank_canvas(batch_size, length, mask_id):
    return torch.full((length,), mask_id)
""", ("blank_canvas",)),
    Mutant("blank_canvas", "float ids", """
def blank_canvas(batch_size, length, mask_id):
    return torch.ones(batch_size, length) * mask_id
""", ("blank_canvas",)),
    Mutant("blank_canvas", "length and batch swapped", """
def blank_canvas(batch_size, length, mask_id):
    return torch.full((length, batch_size), mask_id, dtype=torch.long)
""", ("blank_canvas",)),

    Mutant("candidate_distributions", "softmax over positions, not the vocabulary", """
def candidate_distributions(model, x, control_ids):
    with torch.no_grad():
        logits = model(x).clone()
    logits[..., control_ids] = -torch.inf
    return torch.softmax(logits, dim=1)
""", ("candidate_distributions",)),
    Mutant("candidate_distributions", "zeroes control tokens after the softmax", """
def candidate_distributions(model, x, control_ids):
    with torch.no_grad():
        probs = torch.softmax(model(x), dim=-1)
    probs[..., control_ids] = 0
    return probs
""", ("candidate_distributions",)),
    Mutant("candidate_distributions", "only removes the first control token", """
def candidate_distributions(model, x, control_ids):
    with torch.no_grad():
        logits = model(x).clone()
    logits[..., control_ids[0]] = -torch.inf
    return torch.softmax(logits, dim=-1)
""", ("candidate_distributions",)),
    Mutant("candidate_distributions", "calls the model once per position", """
def candidate_distributions(model, x, control_ids):
    with torch.no_grad():
        logits = torch.stack([model(x)[:, i] for i in range(x.shape[1])], dim=1)
    logits[..., control_ids] = -torch.inf
    return torch.softmax(logits, dim=-1)
""", ("candidate_distributions",)),

    Mutant("confidence_scores", "entropy with 0 * log 0 = NaN", """
def confidence_scores(probs, kind="top"):
    if kind == "top":
        return probs.max(dim=-1).values
    if kind == "margin":
        top2 = probs.topk(2, dim=-1).values
        return top2[..., 0] - top2[..., 1]
    return (probs * probs.log()).sum(dim=-1)
""", ("confidence_scores",)),
    Mutant("confidence_scores", "margin as a ratio", """
def confidence_scores(probs, kind="top"):
    if kind == "top":
        return probs.max(dim=-1).values
    if kind == "margin":
        top2 = probs.topk(2, dim=-1).values
        return top2[..., 0] / top2[..., 1]
    return torch.nan_to_num(probs * probs.log()).sum(dim=-1)
""", ("confidence_scores",)),
    Mutant("confidence_scores", "returns the top token ids", """
def confidence_scores(probs, kind="top"):
    if kind == "top":
        return probs.argmax(dim=-1)
    if kind == "margin":
        top2 = probs.topk(2, dim=-1).values
        return top2[..., 0] - top2[..., 1]
    return torch.nan_to_num(probs * probs.log()).sum(dim=-1)
""", ("confidence_scores",)),
    Mutant("confidence_scores", "entropy instead of negative entropy", """
def confidence_scores(probs, kind="top"):
    if kind == "top":
        return probs.max(dim=-1).values
    if kind == "margin":
        top2 = probs.topk(2, dim=-1).values
        return top2[..., 0] - top2[..., 1]
    return -torch.nan_to_num(probs * probs.log()).sum(dim=-1)
""", ("confidence_scores",)),

    Mutant("reveal_counts", "rounds down", """
def reveal_counts(remaining, steps_left):
    return torch.as_tensor(remaining) // steps_left
""", ("reveal_counts",)),
    Mutant("reveal_counts", "one budget for all rows", """
def reveal_counts(remaining, steps_left):
    remaining = torch.as_tensor(remaining)
    k = math.ceil(int(remaining.max()) / steps_left)
    return torch.minimum(torch.full_like(remaining, k), remaining)
""", ("reveal_counts",)),
    Mutant("reveal_counts", "always one more than the floor", """
def reveal_counts(remaining, steps_left):
    remaining = torch.as_tensor(remaining)
    return torch.minimum(remaining // steps_left + 1, remaining)
""", ("reveal_counts",)),
    Mutant("reveal_counts", "counts the steps already taken", """
def reveal_counts(remaining, steps_left):
    return torch.ceil(torch.as_tensor(remaining) / (steps_left + 1)).long()
""", ("reveal_counts",)),

    Mutant("reverse_update", "the lesson's loop, correct but for ignoring the slots", update('''
    next_x = x.clone()
    eligible = (x == mask_id)
    for b in range(x.shape[0]):
        k = int(reveal_counts[b])
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen
    return next_x
'''), ("reverse_update.invariants",)),
    Mutant("reverse_update", "ineligible scores not excluded: the prefix eats a reveal slot", update('''
    next_x = x.clone()
    eligible = generation_slots & (x == mask_id)
    for b in range(x.shape[0]):
        k = int(reveal_counts[b])
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen
    return next_x
'''), ("reverse_update.example", "reverse_update.errors", "reverse_update.invariants")),
    Mutant("reverse_update", "the new canvas made like the scores: float ids", update('''
    next_x = torch.zeros_like(confidence)
    next_x[:] = x
    eligible = generation_slots & (x == mask_id)
    for b in range(x.shape[0]):
        k = int(reveal_counts[b])
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen.float()
    return next_x
'''), ("reverse_update.example", "reverse_update.errors", "reverse_update.invariants")),
    Mutant("reverse_update", "updates x in place", update('''
    next_x = x
    eligible = generation_slots & (x == mask_id)
    for b in range(x.shape[0]):
        k = int(reveal_counts[b])
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen
    return next_x
'''), ("reverse_update.example", "reverse_update.errors", "reverse_update.invariants")),
    Mutant("reverse_update", "one budget for all rows", update('''
    next_x = x.clone()
    eligible = generation_slots & (x == mask_id)
    k = int(reveal_counts[0])
    for b in range(x.shape[0]):
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen
    return next_x
'''), ("reverse_update.example", "reverse_update.errors", "reverse_update.invariants")),
    Mutant("reverse_update", "clips an over-large count silently", update('''
    next_x = x.clone()
    eligible = generation_slots & (x == mask_id)
    for b in range(x.shape[0]):
        k = max(0, min(int(reveal_counts[b]), int(eligible[b].sum())))
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        chosen = candidate_ids[b, positions]
        if ((chosen == mask_id) | (chosen == pad_id)).any():
            raise ValueError("A committed proposal cannot be MASK or PAD")
        next_x[b, positions] = chosen
    return next_x
'''), ("reverse_update.errors",)),
    Mutant("reverse_update", "commits MASK and PAD proposals without complaint", update('''
    next_x = x.clone()
    eligible = generation_slots & (x == mask_id)
    for b in range(x.shape[0]):
        k = int(reveal_counts[b])
        if not 0 <= k <= int(eligible[b].sum()):
            raise ValueError("Reveal count exceeds eligible masks")
        if k == 0:
            continue
        positions = confidence[b].masked_fill(~eligible[b], float("-inf")).topk(k).indices
        next_x[b, positions] = candidate_ids[b, positions]
    return next_x
'''), ("reverse_update.errors",)),

    Mutant("sample", "stale predictions: one denoiser pass reused for every step", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    L = max(lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        x[b, :len(p)] = p
        x[b, len(p):n] = mask_id
        slots[b, len(p):n] = True
    probs = candidate_distributions(model, x, [mask_id, pad_id, *control_ids])
    confidence, candidates = probs.max(dim=-1)
    for steps_left in range(steps, 0, -1):
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x
""", ("sample",)),
    Mutant("sample", "one step short: masks are left at the end", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    L = max(lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        x[b, :len(p)] = p
        x[b, len(p):n] = mask_id
        slots[b, len(p):n] = True
    for steps_left in range(steps, 1, -1):
        probs = candidate_distributions(model, x, [mask_id, pad_id, *control_ids])
        confidence, candidates = probs.max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x
""", ("sample",)),
    Mutant("sample", "ignores the row lengths: pads are generated too", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    L = max(lengths)
    x = blank_canvas(len(lengths), L, mask_id)
    for b, p in enumerate(prompts):
        x[b, :len(p)] = p
    slots = x == mask_id
    for steps_left in range(steps, 0, -1):
        probs = candidate_distributions(model, x, [mask_id, pad_id, *control_ids])
        confidence, candidates = probs.max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x
""", ("sample",)),
    Mutant("sample", "budget from the whole canvas, not the masks left", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    L = max(lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        x[b, :len(p)] = p
        x[b, len(p):n] = mask_id
        slots[b, len(p):n] = True
    total = slots.sum(dim=1)
    for steps_left in range(steps, 0, -1):
        probs = candidate_distributions(model, x, [mask_id, pad_id, *control_ids])
        confidence, candidates = probs.max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        k = torch.minimum(torch.ceil(total / steps).long(), remaining)
        if steps_left == 1:
            k = remaining
        x = reverse_update(x, candidates, confidence, slots, k, mask_id, pad_id)
    return x
""", ("sample",)),
    Mutant("sample", "canvas on the notebook's device: story_model's CPU logits meet it on a GPU", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    L = max(lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long, device=device)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        x[b, :len(p)] = p
        x[b, len(p):n] = mask_id
        slots[b, len(p):n] = True
    for steps_left in range(steps, 0, -1):
        probs = candidate_distributions(model, x, [mask_id, pad_id, *control_ids])
        confidence, candidates = probs.max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x
""", ("sample",)),
    Mutant("sample", "canvas moved to the model's parameters: story_model is a function, it has none", """
def sample(model, prompts, lengths, steps, mask_id, pad_id, control_ids=()):
    where = next(model.parameters()).device
    L = max(lengths)
    x = torch.full((len(lengths), L), pad_id, dtype=torch.long)
    slots = torch.zeros_like(x, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        x[b, :len(p)] = p
        x[b, len(p):n] = mask_id
        slots[b, len(p):n] = True
    x, slots = x.to(where), slots.to(where)
    for steps_left in range(steps, 0, -1):
        confidence, candidates = candidate_distributions(model, x, [mask_id, pad_id, *control_ids]).max(dim=-1)
        remaining = (slots & (x == mask_id)).sum(dim=1)
        x = reverse_update(x, candidates, confidence, slots, reveal_counts(remaining, steps_left),
                           mask_id, pad_id)
    return x
""", ("sample",)),
]
