"""Bugs students make in notebook 06 (budgets, blocks, commits above a threshold, remasking, entropy and
perplexity). Each mutant is an edit of the correct solution cell in REFERENCE, so the catalog reads as
the bug and nothing else. REFERENCE holds the notebook's own solution cells (their code without the
docstring and markers; `F` spelled out, the mutant namespace has `torch` alone):
tests/grading/test_checks_revising.py fails when the notebook's cell and its copy here part."""
from . import Edits

REFERENCE = {
    "TransferCounts": """
def TransferCounts(n_masked, steps, rule="even"):
    if isinstance(steps, bool) or int(steps) != steps or steps < 1:
        raise ValueError(f"steps must be an integer of at least 1, got {steps!r}")
    if isinstance(n_masked, bool) or int(n_masked) != n_masked or n_masked < 0:
        raise ValueError(f"n_masked must be a whole number of masks, at least 0, got {n_masked!r}")
    n, steps = int(n_masked), int(steps)
    if rule == "even":
        return [n // steps + (1 if k < n % steps else 0) for k in range(steps)]
    if rule == "schedule":
        counts, remaining = [], n
        for steps_left in range(steps, 1, -1):
            k = round(remaining / steps_left)
            counts.append(k)
            remaining -= k
        return counts + [remaining]
    raise ValueError(f"rule must be 'even' or 'schedule', got {rule!r}")
""",
    "SampleBlocks": """
def SampleBlocks(denoiser, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    if min(gen_length, block_length, steps) < 1:
        raise ValueError(f"gen_length, block_length and steps must be at least 1, got {gen_length}, "
                         f"{block_length}, {steps}")
    if gen_length % block_length:
        raise ValueError(f"gen_length = {gen_length} is not a multiple of block_length = {block_length}")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError(f"steps = {steps} is not a multiple of the number of blocks, {blocks}")
    prompt = torch.as_tensor(prompt, dtype=torch.long)
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    controls = sorted({mask_id, pad_id, *control_ids})
    for b in range(blocks):
        start = len(prompt) + b * block_length
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[0, start:start + block_length] = True
        for k in TransferCounts(block_length, steps // blocks, rule):
            confidence, candidates = candidate_distributions(denoiser, x, controls).max(dim=-1)
            x = reverse_update(x, candidates, confidence, slots, [int(k)], mask_id, pad_id)
    return x[0]
""",
    "CommitAbove": """
def CommitAbove(x, candidate_ids, confidence, slots, tau, mask_id):
    if not (x.shape == candidate_ids.shape == confidence.shape == slots.shape):
        raise ValueError(f"x, candidate_ids, confidence and slots must share one shape, got {tuple(x.shape)}, "
                         f"{tuple(candidate_ids.shape)}, {tuple(confidence.shape)}, {tuple(slots.shape)}")
    if slots.dtype != torch.bool:
        raise ValueError(f"slots must be Boolean, got {slots.dtype}")
    if not tau >= 0:
        raise ValueError(f"tau must be at least 0, got {tau}")
    eligible = slots & (x == mask_id)
    chosen = eligible & (confidence > tau)
    for b in range(x.shape[0]):
        if eligible[b].any() and not chosen[b].any():
            chosen[b, confidence[b].masked_fill(~eligible[b], -torch.inf).argmax()] = True
    if (candidate_ids[chosen] == mask_id).any():
        raise ValueError("a committed candidate is the mask")
    return torch.where(chosen, candidate_ids, x)
""",
    "RemaskSigma": """
def RemaskSigma(t, s, eta, schedule="cap"):
    if not (0 <= s <= t <= 1 and t > 0):
        raise ValueError(f"times must satisfy 0 <= s <= t <= 1 and t > 0, got t = {t}, s = {s}")
    sigma_max = 1.0 if t == 1 else min(1.0, s / (1 - t))
    if schedule == "cap":
        if eta < 0:
            raise ValueError(f"the cap schedule needs eta >= 0, got {eta}")
        return min(eta, sigma_max)
    if schedule == "rescale":
        if not 0 <= eta <= 1:
            raise ValueError(f"the rescale schedule needs 0 <= eta <= 1, got {eta}")
        return eta * sigma_max
    raise ValueError(f"schedule must be 'cap' or 'rescale', got {schedule!r}")
""",
    "RemaskStep": """
def RemaskStep(x_t, t, s, GuessX0, mask, sigma, fixed=None):
    if not (0 <= s <= t <= 1 and t > 0):
        raise ValueError(f"times must satisfy 0 <= s <= t <= 1 and t > 0, got t = {t}, s = {s}")
    sigma_max = 1.0 if t == 1 else min(1.0, s / (1 - t))
    if not 0 <= sigma <= sigma_max + 1e-9:
        raise ValueError(f"sigma must lie in [0, sigma_max] = [0, {sigma_max:.4f}], got {sigma}")
    if fixed is None:
        fixed = torch.zeros_like(x_t, dtype=torch.bool)
    if not (torch.is_tensor(fixed) and fixed.dtype == torch.bool and fixed.shape == x_t.shape):
        raise ValueError(f"fixed must be a Boolean tensor of shape {tuple(x_t.shape)}")
    alpha_t, alpha_s = 1 - t, 1 - s
    reveal = (alpha_s - (1 - sigma) * alpha_t) / (1 - alpha_t)
    guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1)
    u = torch.rand(x_t.shape)
    masked = (x_t == mask) & ~fixed
    decoded = (x_t != mask) & ~fixed
    x = torch.where(masked & (u < reveal), guess, x_t)
    return torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x)
""",
    "RemaskLoop": """
def RemaskLoop(step, sigma_of, x, t, n, GuessX0, mask, eta, schedule="cap", fixed=None):
    if isinstance(n, bool) or int(n) != n or n < 0:
        raise ValueError(f"n must be a whole number of loop steps, at least 0, got {n!r}")
    sigma = sigma_of(t, t, eta, schedule)
    for _ in range(int(n)):
        x = step(x, t, t, GuessX0, mask, sigma, fixed)
    return x
""",
    "SampleEntropy": """
def SampleEntropy(ids):
    ids = torch.as_tensor(ids)
    if ids.numel() == 0:
        raise ValueError("an empty sample has no entropy")
    if ids.is_floating_point():
        raise ValueError(f"token ids are integers, got {ids.dtype}")
    share = ids.reshape(-1).unique(return_counts=True)[1].double() / ids.numel()
    return float(-(share * share.log()).sum())
""",
    "Perplexity": """
def Perplexity(logits_of, ids):
    ids = torch.as_tensor(ids)
    if ids.dim() != 1 or len(ids) < 2 or ids.is_floating_point():
        raise ValueError(f"a perplexity needs a 1-D tensor of at least 2 integer ids, got shape "
                         f"{tuple(ids.shape)} and dtype {ids.dtype}")
    with torch.no_grad():
        logits = logits_of(ids[None])[0].float()
    surprise = F.cross_entropy(logits[:-1], ids[1:].long())
    return float(surprise.exp())
""",
}
REFERENCE["Perplexity"] = REFERENCE["Perplexity"].replace("F.cross_entropy", "torch.nn.functional.cross_entropy")


edit = Edits(REFERENCE)


EVEN, SCHEDULE, TRANSFER_ERRORS = "TransferCounts.even", "TransferCounts.schedule", "TransferCounts.errors"
BLOCKS, BLOCK_ERRORS = "SampleBlocks.blocks", "SampleBlocks.errors"
RULE, COMMIT_ERRORS = "CommitAbove.rule", "CommitAbove.errors"
LAW, FIXED, STEP_ERRORS = "RemaskStep.law", "RemaskStep.fixed", "RemaskStep.errors"
LOOP, LOOP_ERRORS = "RemaskLoop.steps", "RemaskLoop.errors"
SCHEDULE_LOOP = '''        for steps_left in range(steps, 1, -1):
            k = round(remaining / steps_left)
            counts.append(k)
            remaining -= k
        return counts + [remaining]
'''
UNMASK = "reveal = (alpha_s - (1 - sigma) * alpha_t) / (1 - alpha_t)"
GUESS = "guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1)"
STEP_TAIL = '''    x = torch.where(masked & (u < reveal), guess, x_t)
    return torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x)
'''

MUTANTS = [
    # ------------------------------------------------------------ TransferCounts
    edit("TransferCounts", "even: the remainder goes to the last steps", [EVEN],
         ("(1 if k < n % steps else 0)", "(1 if k >= steps - n % steps else 0)")),
    edit("TransferCounts", "even: n // steps each, the remainder forgotten", [EVEN],
         ("return [n // steps + (1 if k < n % steps else 0) for k in range(steps)]", "return [n // steps] * steps")),
    edit("TransferCounts", "even: ceil(n / steps) each, the last step what is left", [EVEN],
         ("return [n // steps + (1 if k < n % steps else 0) for k in range(steps)]",
          "k = math.ceil(n / steps)\n        out = [min(k, max(0, n - i * k)) for i in range(steps - 1)]\n"
          "        return out + [n - sum(out)]")),
    edit("TransferCounts", "schedule: floor rounding", [SCHEDULE],
         ("k = round(remaining / steps_left)", "k = remaining // steps_left")),
    edit("TransferCounts", "schedule: rounds half up", [SCHEDULE],
         ("k = round(remaining / steps_left)", "k = math.floor(remaining / steps_left + 0.5)")),
    edit("TransferCounts", "schedule: ceil rounding", [SCHEDULE],
         ("k = round(remaining / steps_left)", "k = math.ceil(remaining / steps_left)")),
    edit("TransferCounts", "schedule: every step rounds n / steps, the last does not take the rest", [SCHEDULE],
         (SCHEDULE_LOOP, "        return [round(n / steps)] * steps\n")),
    edit("TransferCounts", "schedule: rounds n / steps of the start, the last takes the rest", [SCHEDULE],
         ("k = round(remaining / steps_left)", "k = min(remaining, round(n / steps))")),
    edit("TransferCounts", "schedule: the library's float formula remaining * (1 - s / t)", [SCHEDULE],
         ("k = round(remaining / steps_left)",
          "t, s = steps_left / steps, (steps_left - 1) / steps\n            k = round(remaining * (1 - s / t))")),
    edit.without("TransferCounts", "steps = 0 not refused: ZeroDivisionError, or one budget", [TRANSFER_ERRORS],
                 "if isinstance(steps, bool) or int(steps) != steps or steps < 1:"),
    edit("TransferCounts", "a negative n_masked not refused", [TRANSFER_ERRORS],
         ("int(n_masked) != n_masked or n_masked < 0", "int(n_masked) != n_masked")),
    edit("TransferCounts", "a non-integer n_masked not refused", [TRANSFER_ERRORS],
         ("isinstance(n_masked, bool) or int(n_masked) != n_masked or n_masked < 0", "n_masked < 0"),
         ("n, steps = int(n_masked), int(steps)", "n, steps = n_masked, int(steps)")),
    edit("TransferCounts", "any rule but 'even' taken for 'schedule'", [TRANSFER_ERRORS],
         ('    if rule == "schedule":\n', "    else:\n")),

    # ------------------------------------------------------------ SampleBlocks
    edit("SampleBlocks", "commits past the block: the slots run to the end of the generation", [BLOCKS],
         ("slots[0, start:start + block_length] = True", "slots[0, start:] = True")),
    edit("SampleBlocks", "every block gets all the steps", [BLOCKS],
         ("TransferCounts(block_length, steps // blocks, rule)", "TransferCounts(block_length, steps, rule)")),
    edit("SampleBlocks", "the rule is not passed on: always 'even'", [BLOCKS],
         ("TransferCounts(block_length, steps // blocks, rule)", "TransferCounts(block_length, steps // blocks)")),
    edit("SampleBlocks", "notebook 5's ceil budgets instead of TransferCounts", [BLOCKS],
         ("        for k in TransferCounts(block_length, steps // blocks, rule):\n",
          "        for steps_left in range(steps // blocks, 0, -1):\n"
          "            k = reveal_counts([int((slots & (x == mask_id)).sum())], steps_left)[0]\n")),
    edit("SampleBlocks", "forgets the control ids", [BLOCKS],
         ("controls = sorted({mask_id, pad_id, *control_ids})", "controls = [mask_id, pad_id]")),
    edit("SampleBlocks", "the blocks start at 0, not after the prompt", [BLOCKS],
         ("start = len(prompt) + b * block_length", "start = b * block_length")),
    edit("SampleBlocks", "stale predictions: one denoiser call per block", [BLOCKS],
         ("        for k in TransferCounts(block_length, steps // blocks, rule):\n"
          "            confidence, candidates = candidate_distributions(denoiser, x, controls).max(dim=-1)\n",
          "        confidence, candidates = candidate_distributions(denoiser, x, controls).max(dim=-1)\n"
          "        for k in TransferCounts(block_length, steps // blocks, rule):\n")),
    edit("SampleBlocks", "returns the [1, L] canvas", [BLOCKS], ("return x[0]", "return x")),
    edit("SampleBlocks", "returns the generation without the prompt", [BLOCKS],
         ("return x[0]", "return x[0, len(prompt):]")),
    *edit.blocks_unchecked("SampleBlocks", [BLOCK_ERRORS]),
    edit("SampleBlocks", "counts of 0 not refused", [BLOCK_ERRORS],
         ("    if min(gen_length, block_length, steps) < 1:\n", "    if min(gen_length, block_length, steps) < 0:\n")),
    edit.without("SampleBlocks", "the leftover masks noticed only after sampling", [BLOCK_ERRORS],
                 "if gen_length % block_length:",
                 ("    return x[0]\n", "    if (x == mask_id).any():\n"
                  '        raise ValueError("gen_length must be a multiple of block_length: masks are left")\n'
                  "    return x[0]\n")),

    # ------------------------------------------------------------ CommitAbove
    edit.without("CommitAbove", "no commit when nothing passes tau", [RULE], "for b in range(x.shape[0]):"),
    edit("CommitAbove", "the fallback is the most confident position, eligible or not", [RULE],
         ("chosen[b, confidence[b].masked_fill(~eligible[b], -torch.inf).argmax()] = True",
          "chosen[b, confidence[b].argmax()] = True")),
    edit("CommitAbove", "the fallback only when no row of the batch passes", [RULE],
         ("if eligible[b].any() and not chosen[b].any():", "if eligible[b].any() and not chosen.any():")),
    edit("CommitAbove", "the slots alone: decoded slots are committed again", [RULE],
         ("eligible = slots & (x == mask_id)", "eligible = slots")),
    edit("CommitAbove", "the masks alone: masks outside the slots are committed", [RULE],
         ("eligible = slots & (x == mask_id)", "eligible = x == mask_id")),
    edit("CommitAbove", "commits into x in place", [RULE],
         ("return torch.where(chosen, candidate_ids, x)", "x[chosen] = candidate_ids[chosen]\n    return x")),
    edit("CommitAbove", "float ids: the canvas built from the confidences", [RULE],
         ("return torch.where(chosen, candidate_ids, x)",
          "out = torch.zeros_like(confidence)\n    out[:] = torch.where(chosen, candidate_ids, x)\n    return out")),
    edit("CommitAbove", "a confidence equal to tau passes (>= for >)", [RULE],
         ("chosen = eligible & (confidence > tau)", "chosen = eligible & (confidence >= tau)")),
    edit("CommitAbove", "tau = NaN not refused", [COMMIT_ERRORS], ("if not tau >= 0:", "if tau < 0:")),
    edit.without("CommitAbove", "a committed mask not refused", [COMMIT_ERRORS],
                 "if (candidate_ids[chosen] == mask_id).any():"),
    edit("CommitAbove", "shapes not checked", [COMMIT_ERRORS],
         ("    if not (x.shape == candidate_ids.shape == confidence.shape == slots.shape):\n",
          "    if x.shape != confidence.shape:\n")),

    # ------------------------------------------------------------ RemaskSigma
    edit("RemaskSigma", "the two schedules swapped", ["RemaskSigma"],
         ("return min(eta, sigma_max)", "return CAP"), ("return eta * sigma_max", "return min(eta, sigma_max)"),
         ("return CAP", "return eta * sigma_max")),
    edit("RemaskSigma", "sigma_max without min(1, ...)", ["RemaskSigma"],
         ("min(1.0, s / (1 - t))", "s / (1 - t)")),
    edit("RemaskSigma", "divides by alpha_t = 0 at t = 1", ["RemaskSigma"],
         ("1.0 if t == 1 else min(1.0, s / (1 - t))", "min(1.0, s / (1 - t))")),
    edit("RemaskSigma", "sigma_max = s / t", ["RemaskSigma"], ("min(1.0, s / (1 - t))", "min(1.0, s / t)")),
    edit("RemaskSigma", "eta above 1 accepted by the rescale schedule", ["RemaskSigma"],
         ("if not 0 <= eta <= 1:", "if eta < 0:")),
    edit.without("RemaskSigma", "times not checked", ["RemaskSigma"], "if not (0 <= s <= t <= 1 and t > 0):",
                 ("1.0 if t == 1 else min(1.0, s / (1 - t))", "1.0 if t >= 1 else min(1.0, s / (1 - t))")),
    edit("RemaskSigma", "s = t refused: the loop cannot hold alpha", ["RemaskSigma"],
         ("if not (0 <= s <= t <= 1 and t > 0):", "if not 0 <= s < t <= 1:")),
    edit("RemaskSigma", "an unknown schedule taken for 'rescale'", ["RemaskSigma"],
         ('    if schedule == "rescale":\n', "    else:\n")),

    # ------------------------------------------------------------ RemaskStep
    edit("RemaskStep", "remasks the prompt: fixed ignored when remasking", [FIXED],
         ("decoded = (x_t != mask) & ~fixed", "decoded = x_t != mask")),
    edit("RemaskStep", "reveals masks marked fixed", [FIXED],
         ("masked = (x_t == mask) & ~fixed", "masked = x_t == mask")),
    edit("RemaskStep", "changes x_t in place", [FIXED],
         (STEP_TAIL, "    x_t[masked & (u < reveal)] = guess[masked & (u < reveal)]\n"
                     "    x_t[decoded & (u < sigma)] = mask\n    return x_t\n")),
    edit("RemaskStep", "float ids", [FIXED],
         ("return torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x)",
          "return torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x).float()")),
    edit("RemaskStep", "sigma above sigma_max not refused", [STEP_ERRORS],
         ("if not 0 <= sigma <= sigma_max + 1e-9:", "if sigma < 0:")),
    edit("RemaskStep", "sigma_max compared without the text's rounding allowance", [STEP_ERRORS],
         ("if not 0 <= sigma <= sigma_max + 1e-9:", "if not 0 <= sigma <= sigma_max:")),
    edit("RemaskStep", "s = t refused: the loop cannot hold alpha", [STEP_ERRORS],
         ("if not (0 <= s <= t <= 1 and t > 0):", "if not 0 <= s < t <= 1:")),
    edit.without("RemaskStep", "times not checked", [STEP_ERRORS], "if not (0 <= s <= t <= 1 and t > 0):",
                 ("sigma_max = 1.0 if t == 1 else min(1.0, s / (1 - t))",
                  "sigma_max = 1.0 if t >= 1 else min(1.0, max(0.0, s / (1 - t)))")),
    edit("RemaskStep", "fixed not checked", [STEP_ERRORS],
         ("    if not (torch.is_tensor(fixed) and fixed.dtype == torch.bool and fixed.shape == x_t.shape):\n"
          '        raise ValueError(f"fixed must be a Boolean tensor of shape {tuple(x_t.shape)}")\n',
          "    fixed = torch.as_tensor(fixed).bool()\n")),
    edit("RemaskStep", "divides by alpha_t = 0 at t = 1", [LAW],
         ("sigma_max = 1.0 if t == 1 else min(1.0, s / (1 - t))", "sigma_max = min(1.0, s / (1 - t))")),
    edit("RemaskStep", "alpha(t) = t: the schedule read backwards", [LAW],
         ("alpha_t, alpha_s = 1 - t, 1 - s", "alpha_t, alpha_s = t, s")),
    edit("RemaskStep", "a mask revealed with the probability of staying masked", [LAW],
         (UNMASK, "reveal = (1 - alpha_s - sigma * alpha_t) / (1 - alpha_t)")),
    edit("RemaskStep", "Undiffuse's (t - s) / t whatever sigma", [LAW], (UNMASK, "reveal = (t - s) / t")),
    edit("RemaskStep", "remasks first, then the new masks may be revealed too", [LAW],
         (STEP_TAIL, "    x = torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x_t)\n"
                     "    again = (x == mask) & ~fixed & (torch.rand(x_t.shape) < reveal)\n"
                     "    return torch.where(again, guess, x)\n")),
    edit("RemaskStep", "one coin for every position", [LAW],
         ("u = torch.rand(x_t.shape)", "u = torch.rand(1).expand(x_t.shape)")),
    edit("RemaskStep", "greedy: the guess's most likely token", [LAW],
         (GUESS, "guess = GuessX0(x_t).argmax(dim=-1)")),
    edit("RemaskStep", "guesses from the canvas after remasking", [LAW],
         (f"    {GUESS}\n", ""),
         (STEP_TAIL, "    x = torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x_t)\n"
                     f"    {GUESS.replace('GuessX0(x_t)', 'GuessX0(x)')}\n"
                     "    return torch.where(masked & (u < reveal), guess, x)\n")),
    edit("RemaskStep", "one guesser call per masked position", [LAW],
         (f"    {GUESS}\n", ""),
         (STEP_TAIL, "    x = x_t.clone()\n    for i in torch.nonzero(masked & (u < reveal)).flatten().tolist():\n"
                     "        x[i] = torch.multinomial(GuessX0(x_t)[i].float(), 1)[0]\n"
                     "    return torch.where(decoded & (u < sigma), torch.full_like(x_t, mask), x)\n")),
    edit("RemaskStep", "reads the global MASK to find the masks", [LAW],
         ("masked = (x_t == mask) & ~fixed\n    decoded = (x_t != mask) & ~fixed",
          "masked = (x_t == MASK) & ~fixed\n    decoded = (x_t != MASK) & ~fixed")),

    # ------------------------------------------------------------ RemaskLoop
    edit("RemaskLoop", "the clock keeps running: each step from t to t - 1/n", [LOOP],
         ("    for _ in range(int(n)):\n        x = step(x, t, t, GuessX0, mask, sigma, fixed)\n",
          "    for i in range(int(n)):\n        x = step(x, t * (n - i) / n, t * (n - i - 1) / n, GuessX0, mask, "
          "sigma_of(t * (n - i) / n, t * (n - i - 1) / n, eta, schedule), fixed)\n")),
    edit("RemaskLoop", "steps to s = 0 with sigma_max from t to 0", [LOOP],
         ("sigma = sigma_of(t, t, eta, schedule)", "sigma = sigma_of(t, 0.0, eta, schedule)"),
         ("x = step(x, t, t, GuessX0, mask, sigma, fixed)", "x = step(x, t, 0.0, GuessX0, mask, sigma, fixed)")),
    edit("RemaskLoop", "n - 1 steps", [LOOP], ("for _ in range(int(n)):", "for _ in range(1, int(n)):")),
    edit("RemaskLoop", "every step from the x handed in", [LOOP],
         ("    for _ in range(int(n)):\n        x = step(x, t, t, GuessX0, mask, sigma, fixed)\n    return x\n",
          "    out = x\n    for _ in range(int(n)):\n        out = step(x, t, t, GuessX0, mask, sigma, fixed)\n"
          "    return out\n")),
    edit("RemaskLoop", "eta taken as sigma", [LOOP], ("sigma = sigma_of(t, t, eta, schedule)", "sigma = eta")),
    edit("RemaskLoop", "the schedule not handed on", [LOOP],
         ("sigma = sigma_of(t, t, eta, schedule)", "sigma = sigma_of(t, t, eta)")),
    edit("RemaskLoop", "fixed not handed on", [LOOP],
         ("x = step(x, t, t, GuessX0, mask, sigma, fixed)", "x = step(x, t, t, GuessX0, mask, sigma)")),
    edit("RemaskLoop", "the global MASK for the mask", [LOOP],
         ("x = step(x, t, t, GuessX0, mask, sigma, fixed)", "x = step(x, t, t, GuessX0, 13, sigma, fixed)")),
    edit("RemaskLoop", "a negative n loops zero times", [LOOP_ERRORS],
         ("int(n) != n or n < 0:", "int(n) != n:")),
    edit("RemaskLoop", "n rounded down: 2.5 steps are 2", [LOOP_ERRORS],
         ("isinstance(n, bool) or int(n) != n or n < 0:", "isinstance(n, bool) or n < 0:")),

    # ------------------------------------------------------------ SampleEntropy
    edit("SampleEntropy", "in bits", ["SampleEntropy"], ("share.log()", "share.log2()")),
    edit.without("SampleEntropy", "an empty sample gives 0 instead of an error", ["SampleEntropy"],
                 "if ids.numel() == 0:"),
    edit.without("SampleEntropy", "float ids accepted", ["SampleEntropy"], "if ids.is_floating_point():"),
    edit("SampleEntropy", "sums over positions, not distinct tokens", ["SampleEntropy"],
         ("share = ids.reshape(-1).unique(return_counts=True)[1].double() / ids.numel()",
          "_, where, counts = ids.reshape(-1).unique(return_inverse=True, return_counts=True)\n"
          "    share = counts[where].double() / ids.numel()")),
    edit("SampleEntropy", "counts over the vocabulary: 0 ln 0 gives NaN", ["SampleEntropy"],
         ("share = ids.reshape(-1).unique(return_counts=True)[1].double() / ids.numel()",
          "share = torch.bincount(ids.reshape(-1).long()).double() / ids.numel()")),
    edit("SampleEntropy", "normalised by ln L", ["SampleEntropy"],
         ("return float(-(share * share.log()).sum())",
          "return float(-(share * share.log()).sum() / math.log(max(ids.numel(), 2)))")),
    edit("SampleEntropy", "ln of the number of distinct tokens", ["SampleEntropy"],
         ("return float(-(share * share.log()).sum())", "return math.log(len(share))")),
    edit("SampleEntropy", "tensors only", ["SampleEntropy"],
         ("    ids = torch.as_tensor(ids)\n", "")),
    edit("SampleEntropy", "a Counter of tensor elements: each one counted apart", ["SampleEntropy"],
         ("    share = ids.reshape(-1).unique(return_counts=True)[1].double() / ids.numel()\n",
          "    from collections import Counter\n"
          "    counts = Counter(ids.reshape(-1))\n"
          "    share = torch.tensor(list(counts.values()), dtype=torch.float64) / ids.numel()\n")),

    # ------------------------------------------------------------ Perplexity
    edit("Perplexity", "no shift: each position scores its own token", ["Perplexity"],
         ("cross_entropy(logits[:-1], ids[1:].long())", "cross_entropy(logits, ids.long())")),
    edit("Perplexity", "shifted the wrong way", ["Perplexity"],
         ("cross_entropy(logits[:-1], ids[1:].long())", "cross_entropy(logits[1:], ids[:-1].long())")),
    edit("Perplexity", "the summed NLL over n, not n - 1", ["Perplexity"],
         ("surprise = torch.nn.functional.cross_entropy(logits[:-1], ids[1:].long())",
          "surprise = torch.nn.functional.cross_entropy(logits[:-1], ids[1:].long(), reduction='sum') / len(ids)")),
    edit("Perplexity", "one id is not refused (a NaN comes back)", ["Perplexity"],
         ("if ids.dim() != 1 or len(ids) < 2 or ids.is_floating_point():", "if ids.dim() != 1 or ids.is_floating_point():")),
    edit("Perplexity", "2-D ids are not refused", ["Perplexity"],
         ("if ids.dim() != 1 or len(ids) < 2 or ids.is_floating_point():", "if len(ids) < 2 or ids.is_floating_point():")),
    edit("Perplexity", "forgot the exp: the mean NLL", ["Perplexity"],
         ("return float(surprise.exp())", "return float(surprise)")),
    edit("Perplexity", "exp of the total NLL", ["Perplexity"],
         ("cross_entropy(logits[:-1], ids[1:].long())", "cross_entropy(logits[:-1], ids[1:].long(), reduction='sum')")),
    edit("Perplexity", "reads .logits of what the scorer returns", ["Perplexity"],
         ("logits = logits_of(ids[None])[0].float()", "logits = logits_of(ids[None]).logits[0].float()")),
    edit("Perplexity", "hands the scorer 1-D ids", ["Perplexity"],
         ("logits = logits_of(ids[None])[0].float()", "logits = logits_of(ids).float()")),
    edit("Perplexity", "softmax over positions", ["Perplexity"],
         ("surprise = torch.nn.functional.cross_entropy(logits[:-1], ids[1:].long())",
          "logp = logits[:-1].log_softmax(dim=0)\n    surprise = -logp[torch.arange(len(ids) - 1), ids[1:]].mean()")),
]
