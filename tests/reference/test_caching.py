"""Reference of notebook 07 (maskdiff_solutions/caching.py): the block-causal mask against a
brute-force definition, the closed forms of TokensProcessed against a call-by-call count."""
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from maskdiff_solutions import caching

pytestmark = pytest.mark.nb07

# ---------------------------------------------------------------- BlockCausalMask

def brute_mask(length, block_length, prompt_length):
    """Every position sees the prompt; a prompt position sees nothing else; a generated position sees
    the generated ones whose block index is not larger than its own."""
    def block(i):
        return (i - prompt_length) // block_length
    return torch.tensor([[j < prompt_length or (i >= prompt_length and block(j) <= block(i))
                          for j in range(length)] for i in range(length)])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 9), st.integers(1, 6), st.integers(0, 5))
def test_the_mask_is_the_brute_force_definition(prompt_length, block_length, blocks):
    length = prompt_length + blocks * block_length
    if length == 0:
        return
    mask = caching.BlockCausalMask(length, block_length, prompt_length)
    assert mask.dtype == torch.bool and mask.shape == (length, length)
    assert torch.equal(mask, brute_mask(length, block_length, prompt_length))
    block = caching.BlockIndex(length, block_length, prompt_length)
    assert block.tolist() == [0] * prompt_length + [1 + i // block_length for i in range(length - prompt_length)]


def test_a_worked_mask():
    rows = ["1110000", "1110000", "1110000", "1111100", "1111100", "1111111", "1111111"]
    assert caching.BlockCausalMask(7, 2, 3).int().tolist() == [[int(c) for c in row] for row in rows]


@pytest.mark.parametrize("args,words", [
    ((0, 2, 0), "length must be at least 1"), ((-4, 2, 0), "length must be at least 1"),
    ((6, 0, 0), "block_length must be at least 1"), ((6, 2, -1), "prompt_length must be at least 0"),
    ((6.5, 2, 0), "length must be a whole number"), ((6, True, 0), "block_length must be a whole number"),
    ((6, 2, "1"), "prompt_length must be a whole number"), ((6, 2, 7), "longer than length"),
    ((7, 2, 2), "length - prompt_length = 5 must be a multiple of block_length = 2"),
])
def test_impossible_masks_are_refused_by_name(args, words):
    with pytest.raises(ValueError, match=words):
        caching.BlockCausalMask(*args)


def test_whole_floats_count_as_whole():
    assert torch.equal(caching.BlockCausalMask(6.0, 2.0, 2.0), caching.BlockCausalMask(6, 2, 2))


# ---------------------------------------------------------------- TokensProcessed

def counted_call_by_call(prompt_length, gen_length, block_length, steps, cache):
    """The definitions of TokensProcessed's docstring, one call at a time."""
    length, n = prompt_length + gen_length, gen_length // block_length
    total = prompt_length if cache == "exact" else 0
    for j in range(n):
        start = prompt_length + j * block_length
        for call in range(steps // n):
            total += {"none": length, "exact": block_length,
                      "prefix": length if call == 0 else length - start,
                      "dual": length if call == 0 else block_length}[cache]
        total += block_length if cache == "exact" and j < n - 1 else 0
    return total


@pytest.mark.parametrize("cache", caching.CACHES)
def test_the_closed_forms_are_the_call_by_call_counts(cache):
    for prompt_length in (0, 1, 5):
        for block_length in (1, 2, 3, 8):
            for n in (1, 2, 3, 5):
                for per_block in (1, 2, 7):
                    shape = (prompt_length, n * block_length, block_length, n * per_block)
                    assert caching.TokensProcessed(*shape, cache) == counted_call_by_call(*shape, cache), shape


def test_worked_counts():
    # prompt 4, two blocks of 4, two calls a block, rows of 12
    assert [caching.TokensProcessed(4, 8, 4, 4, c) for c in caching.CACHES] == [48, 36, 32, 24]


@pytest.mark.parametrize("args,words", [
    ((4, 8, 4, 3, "exact"), "multiple of the number of blocks, 2"), ((4, 9, 4, 4, "none"), "multiple of block_length"),
    ((4, 8, 4, 4, "full"), "cache must be one of"), ((-1, 8, 4, 4, "none"), "prompt_length must be at least 0"),
    ((4, 0, 4, 4, "none"), "gen_length must be at least 1"), ((4, 8, 4, 0, "dual"), "steps must be at least 1"),
    ((4, 8, 4.5, 4, "none"), "block_length must be a whole number"), ((False, 8, 4, 4, "none"), "whole number"),
])
def test_impossible_counts_are_refused_by_name(args, words):
    with pytest.raises(ValueError, match=words):
        caching.TokensProcessed(*args)
