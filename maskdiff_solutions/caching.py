"""Reference for notebook 07, caching: exact for block-causal attention, approximate for full attention.

A row is a prompt, then gen_length generated positions in blocks of block_length. The prompt is a
block of its own, block 0 (BD3-LM's convention, arXiv 2503.09573), whatever its length; generation
block j >= 1 holds positions prompt_length + (j - 1) * block_length up to, not including,
prompt_length + j * block_length.

The samplers commit exactly as notebook 06's SampleBlocks: each block gets steps / blocks denoiser
calls, call k of a block reveals TransferCounts(block_length, steps / blocks, rule)[k] masks of that
block, the most confident ones (candidate_distributions, then reverse_update). They are greedy: no
randomness, so a seed changes nothing. Their network is a CachingDenoiser (block_denoiser.py):
net(x, attend, past, start) -> (logits, one (k, v) per layer).
"""
import numbers

import torch

from .batched import candidate_distributions, reverse_update
from .revising import SampleBlocks, TransferCounts

CACHES = ("none", "prefix", "dual", "exact")


def _whole(value, name, least):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or int(value) != value:
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value!r}")
    return int(value)


def _blocks(gen_length, block_length, name="gen_length"):
    """The number of generation blocks, once both lengths are checked."""
    if gen_length % block_length:
        raise ValueError(f"{name} = {gen_length} must be a multiple of block_length = {block_length}")
    return gen_length // block_length


def BlockIndex(length, block_length, prompt_length):
    """Long [length]: the block of each position. Positions 0 .. prompt_length - 1 are block 0, the
    prompt (empty when prompt_length = 0); position i >= prompt_length is in block
    1 + (i - prompt_length) // block_length. length >= 1, block_length >= 1,
    0 <= prompt_length <= length, and length - prompt_length a multiple of block_length; a ValueError
    says which fails."""
    length = _whole(length, "length", 1)
    block_length = _whole(block_length, "block_length", 1)
    prompt_length = _whole(prompt_length, "prompt_length", 0)
    if prompt_length > length:
        raise ValueError(f"prompt_length = {prompt_length} is longer than length = {length}")
    _blocks(length - prompt_length, block_length, "length - prompt_length")
    return torch.cat([torch.zeros(prompt_length, dtype=torch.long),
                      1 + torch.arange(length - prompt_length) // block_length])


def BlockCausalMask(length, block_length, prompt_length):
    """Boolean [length, length]: True where query i may attend key j, which is exactly when j's block
    (BlockIndex) is i's block or an earlier one: both ways inside a block, every earlier block, nothing
    later. So the prompt sees the whole prompt and nothing of the generation, and every generated
    position sees the whole prompt. The inputs are BlockIndex's, refused as it refuses them."""
    block = BlockIndex(length, block_length, prompt_length)
    return block[None, :] <= block[:, None]


def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    """How many positions pass through the network over one whole sample (one row): the sum, over the
    denoiser calls, of the positions each call runs. With P = prompt_length, L = P + gen_length,
    n = gen_length / block_length blocks, s = steps / n calls per block and b = block_length:
    - "none": every call runs the whole row: steps * L.
    - "prefix" (Fast-dLLM, arXiv 2505.22618): a block's first call runs the whole row and keeps the keys
      and values of everything before the block; its s - 1 later calls run from the block's start to
      the row's end: sum over blocks j = 0 .. n - 1 of L + (s - 1) * (n - j) * b.
    - "dual": a block's first call runs the whole row and keeps the keys and values of everything but
      the block (prefix and suffix); its later calls run the block only: n * L + (steps - n) * b.
    - "exact" (block-causal attention): the prompt runs once, before the first call, to store its keys
      and values; every call runs the current block only; each finished block except the last runs once
      more, clean, to store its keys and values (nothing comes after the last): P + steps * b + (n - 1) * b.
    Inputs as SampleBlocks takes them: gen_length a multiple of block_length, steps a multiple of n."""
    prompt_length = _whole(prompt_length, "prompt_length", 0)
    gen_length = _whole(gen_length, "gen_length", 1)
    block_length = _whole(block_length, "block_length", 1)
    steps = _whole(steps, "steps", 1)
    n = _blocks(gen_length, block_length)
    if steps % n:
        raise ValueError(f"steps = {steps} must be a multiple of the number of blocks, {n}")
    length, s, b = prompt_length + gen_length, steps // n, block_length
    if cache == "none":
        return steps * length
    if cache == "prefix":
        return n * length + (s - 1) * b * n * (n + 1) // 2
    if cache == "dual":
        return n * length + (steps - n) * b
    if cache == "exact":
        return prompt_length + steps * b + (n - 1) * b
    raise ValueError(f"cache must be one of {CACHES}, got {cache!r}")


# --- notebook cell `counted` -------------------------------------------------------------------------
class Counted:
    """A network wrapped to count what it sees: `positions` is the sum of x.shape[1] over its calls
    (positions per row), `calls` the number of calls; otherwise it is the network."""

    def __init__(self, net):
        self.net, self.positions, self.calls = net, 0, 0

    def __call__(self, x, *args, **kwargs):
        self.positions, self.calls = self.positions + x.shape[1], self.calls + 1
        return self.net(x, *args, **kwargs)


# --- end of notebook cell ---


def _canvas(prompt, gen_length, block_length, steps, mask_id):
    """(prompt 1-D, the row [1, P + gen_length] of prompt then masks, number of blocks), checked."""
    gen_length = _whole(gen_length, "gen_length", 1)
    n = _blocks(gen_length, _whole(block_length, "block_length", 1))
    if _whole(steps, "steps", 1) % n:
        raise ValueError(f"steps = {steps} must be a multiple of the number of blocks, {n}")
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    return prompt, torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None], n


def _reveal(x, logits, start, slots, k, control, mask_id, pad_id):
    """SampleBlocks' commit from logits [1, m, V] of positions start .. start + m - 1 only: the others
    get zero logits, which change nothing (only slots' masks are eligible), so reverse_update ranks
    exactly the numbers it ranks in SampleBlocks, ties included."""
    full = logits.new_zeros(x.shape + logits.shape[-1:])
    full[:, start:start + logits.shape[1]] = logits
    confidence, candidates = candidate_distributions(lambda _: full, x, control).max(dim=-1)
    return reverse_update(x, candidates, confidence, slots, [k], mask_id, pad_id)


def _span(x, start, end):
    slots = torch.zeros_like(x, dtype=torch.bool)
    slots[:, start:end] = True
    return slots


# --- notebook cell `block_causal_sampler` ------------------------------------------------------------
@torch.no_grad()
def SampleBlocksBlockCausal(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                            rule="even"):
    """SampleBlocks on a block-causal network, uncached: every call runs the whole row under
    BlockCausalMask(P + gen_length, block_length, P). Returns the finished row, 1-D."""
    p = len(torch.as_tensor(prompt).reshape(-1))
    attend = BlockCausalMask(p + gen_length, block_length, p)
    return SampleBlocks(lambda x: net(x, attend)[0], prompt, gen_length, block_length, steps, mask_id, pad_id,
                        control_ids, rule)


# --- end of notebook cell ---


def _appended(past, present):
    if past is None:
        return present
    return [(torch.cat([pk, k], 2), torch.cat([pv, v], 2)) for (pk, pv), (k, v) in zip(past, present)]


@torch.no_grad()
def SampleBlocksCached(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                       rule="even"):
    """SampleBlocksBlockCausal (net trained block-causally) with the exact cache: the prompt runs once
    and its keys and values are kept; each call runs the current block only, seeing the kept ones; a
    finished block runs once more, clean, and its keys and values join them (not the last block's:
    nothing would read them). Under block-causal attention a finished block's keys and values never
    change again, so this writes the same tokens as SampleBlocksBlockCausal; its logits agree to
    rounding, so compare in float64."""
    prompt, x, n = _canvas(prompt, gen_length, block_length, steps, mask_id)
    control = sorted({mask_id, pad_id, *control_ids})
    past = net(x[:, :len(prompt)])[1] if len(prompt) else None
    for j in range(n):
        start = len(prompt) + j * block_length
        end = start + block_length
        slots = _span(x, start, end)
        for k in TransferCounts(block_length, steps // n, rule):
            logits = net(x[:, start:end], past=past, start=start)[0]
            x = _reveal(x, logits, start, slots, k, control, mask_id, pad_id)
        if j < n - 1:
            past = _appended(past, net(x[:, start:end], past=past, start=start)[1])
    return x[0]


@torch.no_grad()
def SampleBlocksPrefixCache(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                            rule="even", dual=False, kept=None):
    """SampleBlocks on a bidirectional network (notebook 06's, as CachingDenoiser.Twin(net)) with
    Fast-dLLM's approximate cache, refreshed at each block's end: a block's first call runs the whole
    row (its logits commit, as every call's do) and keeps the keys and values of the positions before
    the block (prefix) or of every position outside it (dual=True); its later calls run from the
    block's start to the row's end (prefix) or the block only (dual), and see the kept keys and values
    in place of those positions' current ones. `kept`, a list, receives at each refresh the keys of the
    whole row, one [1, heads, P + gen_length, dim // heads] a layer. Returns the finished row, 1-D."""
    prompt, x, n = _canvas(prompt, gen_length, block_length, steps, mask_id)
    control = sorted({mask_id, pad_id, *control_ids})
    for j in range(n):
        start = len(prompt) + j * block_length
        end = start + block_length
        slots = _span(x, start, end)
        for call, k in enumerate(TransferCounts(block_length, steps // n, rule)):
            if call == 0:   # the refresh
                (logits, present), first = net(x), 0
                if kept is not None:
                    kept.append([key for key, _ in present])
                if dual:
                    past = [(torch.cat([key[:, :, :start], key[:, :, end:]], 2),
                             torch.cat([value[:, :, :start], value[:, :, end:]], 2)) for key, value in present]
                else:
                    past = [(key[:, :, :start], value[:, :, :start]) for key, value in present]
            else:
                logits, first = net(x[:, start:end] if dual else x[:, start:], past=past, start=start)[0], start
            x = _reveal(x, logits, first, slots, k, control, mask_id, pad_id)
    return x[0]


# --- notebook cell `cache_drift` -----------------------------------------------------------------------
def CacheDrift(cached_sampler, plain_sampler, net, prompts, gen_length, block_length, steps, mask_id, pad_id,
               control_ids=(), rule="even", dual=False):
    """How far the prefix (or dual) cache strays, over the rows that `prompts` start. `cached_sampler` is
    a SampleBlocksPrefixCache, `plain_sampler` a SampleBlocks (the uncached one, on net's logits):
    - "agreement": the share of generated positions (prompts left out) where cached_sampler
      writes the token that plain_sampler writes on the same network;
    - "key_change": the mean absolute change of a cached key between consecutive refreshes: over every
      refresh r >= 1, layer, head, feature and every position that the cache held during block r - 1
      (before it for prefix, outside it for dual), |key at refresh r - key at refresh r - 1|, all pooled
      (nan with one block, when nothing is ever held twice);
    - "key_size": the mean absolute value of those same keys at refresh r - 1, for scale."""
    same = total = 0
    change, size = [], []
    for prompt in prompts:
        kept = []
        cached = cached_sampler(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids, rule, dual,
                                kept)
        plain = plain_sampler(lambda x: net(x)[0], prompt, gen_length, block_length, steps, mask_id, pad_id,
                             control_ids, rule)
        same, total = same + int((cached == plain)[-gen_length:].sum()), total + gen_length
        for r in range(1, len(kept)):
            start = len(cached) - gen_length + (r - 1) * block_length
            held = torch.ones(len(cached), dtype=torch.bool)
            held[start:] = False
            if dual:
                held[start + block_length:] = True
            for before, after in zip(kept[r - 1], kept[r]):
                change.append((after - before)[:, :, held].abs().flatten())
                size.append(before[:, :, held].abs().flatten())
    change, size = torch.cat(change or [torch.zeros(0)]), torch.cat(size or [torch.zeros(0)])
    return {"agreement": same / total, "key_change": float(change.double().mean()),
            "key_size": float(size.double().mean())}


# --- notebook cell `threshold_sampler` -----------------------------------------------------------------
@torch.no_grad()
def SampleBlocksAbove(net, prompt, gen_length, block_length, tau, mask_id, pad_id, control_ids=()):
    """SampleBlocksBlockCausal (uncached) with notebook 06's commits above a threshold: each call commits
    every mask of the current block whose top probability is at least tau, and at least the most
    confident one; the next block starts when none of this one's masks is left. So the calls are as many
    as the network needs, not a number set in advance. Returns the finished row, 1-D."""
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    length = len(prompt) + gen_length
    attend = BlockCausalMask(length, block_length, len(prompt))
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    controls = sorted({mask_id, pad_id, *control_ids})
    for start in range(len(prompt), length, block_length):
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[0, start:start + block_length] = True
        while (x[slots] == mask_id).any():
            confidence, candidates = candidate_distributions(lambda row: net(row, attend)[0], x, controls).max(dim=-1)
            sure = int((slots & (x == mask_id) & (confidence >= tau)).sum())
            x = reverse_update(x, candidates, confidence, slots, [max(1, sure)], mask_id, pad_id)
    return x[0]
