"""Reference for notebook 07, caching: exact for block-causal attention, approximate for full attention.

A row is a prompt, then gen_length generated positions in blocks of block_length. The prompt is a
block of its own, block 0 (BD3-LM's convention, arXiv 2503.09573), whatever its length; generation
block j >= 1 holds positions prompt_length + (j - 1) * block_length up to, not including,
prompt_length + j * block_length.
"""
import numbers

import torch

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
