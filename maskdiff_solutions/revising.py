"""Reference for notebook 06, revising and going faster: two reveal budgets, blocks, commits above a
threshold, remasking that revises (ReMDM) and two numbers that judge a sample.

Time runs from t = 1 (all masked) to t = 0 (clean) on the linear schedule alpha(t) = 1 - t, so one
step of a T-step sampler goes from t = k/T to s = (k-1)/T, and remasking with sigma = 0 is notebook
02's Undiffuse in law (it unmasks with probability (t - s) / t = 1/k).
"""
import math
import numbers
from fractions import Fraction

import torch

from .batched import candidate_distributions, reverse_update

BUDGET_RULES = ("even", "schedule")
SIGMA_SCHEDULES = ("cap", "rescale")


def _count(value, name, least):
    if isinstance(value, bool) or int(value) != value or value < least:
        raise ValueError(f"{name} must be an integer of at least {least}, got {value!r}")
    return int(value)


def TransferCounts(n_masked, steps, rule="even"):
    """How many masks each of `steps` steps reveals, as a list that sums to n_masked.
    "even": LLaDA's split, n // steps each and the remainder one by one from the first step on.
    "schedule": the dllm library's rounding on the linear schedule: remaining * (1 - s/t), which is
    remaining / steps_left exactly, rounded half to even, and the last step takes what is left."""
    n, steps = _count(n_masked, "n_masked", 0), _count(steps, "steps", 1)
    if rule == "even":
        base, extra = divmod(n, steps)
        return [base + 1 if k < extra else base for k in range(steps)]
    if rule == "schedule":
        counts, remaining = [], n
        for steps_left in range(steps, 1, -1):
            k = round(Fraction(remaining, steps_left))   # Fraction rounds half to even, exactly
            counts.append(k)
            remaining -= k
        return counts + [remaining]
    raise ValueError(f"rule must be one of {BUDGET_RULES}, got {rule!r}")


def SampleBlocks(denoiser, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                 rule="even"):
    """Fill gen_length masks after the prompt block by block, left to right: each block gets
    steps / blocks denoiser calls and reveals its masks by TransferCounts; nothing past the current
    block is ever committed. Returns the finished row (prompt then generation), 1-D."""
    gen_length = _count(gen_length, "gen_length", 1)
    block_length = _count(block_length, "block_length", 1)
    steps = _count(steps, "steps", 1)
    if gen_length % block_length:
        raise ValueError(f"gen_length = {gen_length} must be a multiple of block_length = {block_length}")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError(f"steps = {steps} must be a multiple of the number of blocks, {blocks}")
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    control = sorted({mask_id, pad_id, *control_ids})
    for j in range(blocks):
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[0, len(prompt) + j * block_length: len(prompt) + (j + 1) * block_length] = True
        for k in TransferCounts(block_length, steps // blocks, rule):
            confidence, candidates = candidate_distributions(denoiser, x, control).max(dim=-1)
            x = reverse_update(x, candidates.to(x.device), confidence.to(x.device), slots, [k], mask_id, pad_id)
    return x[0]


def CommitAbove(x, candidate_ids, confidence, slots, tau, mask_id):
    """Fast-dLLM's parallel commit, row by row: every eligible slot (a slot still masked) whose
    confidence exceeds tau, and the most confident eligible one when none does. x is not modified."""
    if not (x.shape == candidate_ids.shape == confidence.shape == slots.shape):
        raise ValueError(f"x, candidate_ids, confidence and slots must share one shape, got {tuple(x.shape)}, "
                         f"{tuple(candidate_ids.shape)}, {tuple(confidence.shape)}, {tuple(slots.shape)}")
    if slots.dtype != torch.bool:
        raise ValueError(f"slots must be Boolean, got {slots.dtype}")
    if not tau >= 0:
        raise ValueError(f"tau must be a threshold of at least 0, got {tau!r}")
    eligible = slots & (x == mask_id)
    score = confidence.masked_fill(~eligible, -math.inf)
    chosen = eligible & (score > tau)
    best = score.argmax(dim=-1, keepdim=True)
    none_passed = ~chosen.any(dim=-1, keepdim=True) & eligible.any(dim=-1, keepdim=True)
    chosen = chosen | (none_passed & torch.zeros_like(chosen).scatter(-1, best, True))
    if (candidate_ids[chosen] == mask_id).any():
        raise ValueError("a committed proposal cannot be the mask")
    return torch.where(chosen, candidate_ids, x)


def SigmaMax(t, s):
    """ReMDM's bound on the remasking probability: min(1, (1 - alpha_s) / alpha_t) = min(1, s / (1 - t))."""
    return 1.0 if t >= 1 else min(1.0, s / (1.0 - t))


def _times(t, s):
    t, s = float(t), float(s)
    if not (0 <= s <= t <= 1 and t > 0):   # s = t holds alpha fixed: ReMDM's loop (RemaskLoop)
        raise ValueError(f"times must satisfy 0 <= s <= t <= 1 and t > 0, got t = {t}, s = {s}")
    return t, s


def RemaskSigma(t, s, eta, schedule="cap"):
    """The remasking probability of one step: "cap" min(eta, sigma_max), "rescale" eta * sigma_max."""
    t, s = _times(t, s)
    if schedule == "cap":
        if not eta >= 0:
            raise ValueError(f"eta must be at least 0 for the cap schedule, got {eta!r}")
        return min(float(eta), SigmaMax(t, s))
    if schedule == "rescale":
        if not 0 <= eta <= 1:
            raise ValueError(f"eta must lie in [0, 1] for the rescale schedule, got {eta!r}")
        return float(eta) * SigmaMax(t, s)
    raise ValueError(f"schedule must be one of {SIGMA_SCHEDULES}, got {schedule!r}")


def RemaskStep(x_t, t, s, GuessX0, mask, sigma, fixed=None):
    """One ReMDM step from time t to s <= t: a decoded token goes back to the mask with probability
    sigma; a mask becomes a draw from GuessX0(x_t) with probability (alpha_s - (1 - sigma) alpha_t) /
    (1 - alpha_t). Positions in `fixed` (the prompt, the padding) never change; x_t is not modified."""
    t, s = _times(t, s)
    limit = SigmaMax(t, s)
    if not 0 <= sigma <= limit + 1e-9:   # a rounding error of sigma_max is allowed
        raise ValueError(f"sigma must lie in [0, sigma_max] = [0, {limit:.4g}] from t = {t} to s = {s}, "
                         f"got {sigma!r}")
    fixed = torch.zeros_like(x_t, dtype=torch.bool) if fixed is None else torch.as_tensor(fixed)
    if fixed.dtype != torch.bool or fixed.shape != x_t.shape:
        raise ValueError(f"fixed must be a Boolean tensor of x_t's shape {tuple(x_t.shape)}, "
                         f"got {fixed.dtype} of shape {tuple(fixed.shape)}")
    alpha_t, alpha_s = 1.0 - t, 1.0 - s
    unmask = min(1.0, max(0.0, (alpha_s - (1.0 - sigma) * alpha_t) / (1.0 - alpha_t)))
    guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1).to(x_t.device)
    draw = torch.rand(x_t.shape, device=x_t.device)
    masked = (x_t == mask) & ~fixed
    decoded = (x_t != mask) & ~fixed
    out = torch.where(masked & (draw < unmask), guess, x_t)
    return torch.where(decoded & (draw < sigma), torch.full_like(x_t, mask), out)


def RemaskLoop(step, sigma_of, x, t, n, GuessX0, mask, eta, schedule="cap", fixed=None):
    """ReMDM's loop: n steps of step(x, t, t, GuessX0, mask, sigma, fixed) with alpha held at t and
    sigma = sigma_of(t, t, eta, schedule). Decoded tokens go back and are drawn again while as many
    masks stay as alpha_t says. `step` and `sigma_of` are RemaskStep and RemaskSigma, handed in."""
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or int(n) != n or n < 0:
        raise ValueError(f"n must be a whole number of loop steps, at least 0, got {n!r}")
    sigma = sigma_of(t, t, eta, schedule)
    for _ in range(int(n)):
        x = step(x, t, t, GuessX0, mask, sigma, fixed)
    return x


def GenerateRemask(L, T, GuessX0, mask, eta=0.0, schedule="cap", step=RemaskStep):
    """Undiffuse L masks in T steps of `step`, remasking with RemaskSigma(t, s, eta, schedule)."""
    x = torch.full((L,), mask, dtype=torch.long)
    for k in range(T, 0, -1):
        t, s = k / T, (k - 1) / T
        x = step(x, t, s, GuessX0, mask, RemaskSigma(t, s, eta, schedule))
    return x


def SampleEntropy(ids):
    """The unigram entropy of one sample, in nats: -sum over its distinct tokens of f ln f, f the
    token's share of the sample (0 for one token repeated, ln L for L distinct tokens)."""
    ids = torch.as_tensor(ids).reshape(-1) if not torch.is_tensor(ids) else ids.reshape(-1)
    if ids.numel() == 0:
        raise ValueError("an empty sample has no entropy")
    if ids.is_floating_point():
        raise ValueError(f"token ids are integers, got {ids.dtype}")
    share = torch.unique(ids.cpu(), return_counts=True)[1].double() / ids.numel()
    return float(-(share * share.log()).sum())


def Perplexity(logits_of, ids):
    """exp of the mean negative log-likelihood of ids[1:] given what precedes each, under a causal
    scorer: logits_of maps [1, n] ids to [1, n, V] logits (position i predicts token i + 1)."""
    ids = torch.as_tensor(ids)
    if ids.dim() != 1 or ids.numel() < 2 or ids.is_floating_point():
        raise ValueError(f"a perplexity needs a 1-D tensor of at least 2 integer ids, got "
                         f"{ids.dtype} of shape {tuple(ids.shape)}")
    with torch.no_grad():
        logits = logits_of(ids[None])
    logits = getattr(logits, "logits", logits)
    if logits.shape[:2] != (1, ids.numel()):
        raise ValueError(f"the scorer should give logits [1, {ids.numel()}, V], got {tuple(logits.shape)}")
    nll = torch.nn.functional.cross_entropy(logits[0, :-1].float(), ids[1:].long().to(logits.device))
    return float(nll.exp())
