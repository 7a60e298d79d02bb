"""Hidden checks for notebook 07: the block-causal mask and the count of positions each cache runs.

Both functions are closed forms of small whole numbers, so each is compared with the reference
exactly, over every shape of a grid (no prompt, blocks of one position, one block, many blocks) in
one batch of calls to the student's kernel. Nothing is drawn at random: a correct function never
fails, and no false-failure bound (ALPHA) is needed.

What the task text must state, since the checks hold students to it:
- BlockCausalMask(length, block_length, prompt_length) returns a Boolean torch tensor [length, length],
  row i the query, column j the key; the prompt is block 0, generated position i >= prompt_length is
  in block 1 + (i - prompt_length) // block_length; True where j's block is i's or an earlier one.
  A ValueError when a length is not a whole number, block_length < 1, prompt_length < 0,
  prompt_length > length, or length - prompt_length is not a multiple of block_length.
- TokensProcessed(prompt_length, gen_length, block_length, steps, cache) returns one number (any
  integer or whole float type, or a one-element tensor, keeps its points); a ValueError when a count
  is not a whole number, prompt_length < 0, gen_length, block_length or steps < 1, gen_length is not
  a multiple of block_length, steps not a multiple of the number of blocks, or cache is not one of
  'none', 'prefix', 'dual', 'exact'.
A row that is all prompt (prompt_length = length) is no prompt "longer than length": it is allowed,
a boundary the errors check holds. Edges a text may leave open are neither asked for nor refused:
bools (True for 1), whole floats (6.0) and length = 0.
"""
import math
import numbers

import numpy as np
import torch

from .. import caching as ref
from .core import Failure, check, expect, refused, stated, type_name, value_of


def shown(name, args):
    return f"{name}({', '.join(map(repr, args))})"


def refuses_only_errors(student, name, errors, allowed):
    """Each (why, args) of `errors` raises a ValueError and each args of `allowed` returns, in one batch
    of calls: a function that refuses everything has not learnt what to refuse."""
    results = student.calls([list(args) for _, args in errors] + [list(args) for args in allowed])
    for (why, args), result in zip(errors, results):
        refused(result, why, shown(name, args))
    for args, result in zip(allowed, results[len(errors):]):
        value_of(result, f"{shown(name, args)} (a valid call: it should not raise)")


# ---------------------------------------------------------------- BlockCausalMask

# (length, block_length, prompt_length), shortest rows first so that a failure names a small one:
# no prompt, blocks of one position, one block, many blocks, a prompt longer than a block.
MASK_SHAPES = sorted({(P + n * b, b, P) for P in (0, 1, 2, 3, 5) for b in (1, 2, 3, 4) for n in (1, 2, 3)}
                     | {(1, 1, 0), (9, 9, 0), (12, 1, 6), (10, 3, 7), (31, 8, 7), (40, 5, 0)})


def block_named(position, block_length, prompt_length):
    """Where a position lies, in the task's words."""
    if position < prompt_length:
        return f"the prompt (block 0, positions 0 to {prompt_length - 1})"
    j = 1 + (position - prompt_length) // block_length
    start = prompt_length + (j - 1) * block_length
    return f"block {j} (positions {start} to {start + block_length - 1})"


def mask_of(value, what):
    """The student's mask as a Boolean tensor, or a Failure that says why the network cannot use it."""
    if isinstance(value, np.ndarray):
        raise Failure(f"{what} should return a torch tensor, got a numpy array: the network takes the mask "
                      f"as a tensor (torch.from_numpy turns the array into one)")
    expect(torch.is_tensor(value), f"{what} should return a Boolean torch tensor, got {type_name(value)}")
    expect(value.dtype == torch.bool,
           f"{what} should return a Boolean tensor (torch.bool), got {str(value.dtype).replace('torch.', '')}: "
           f"scaled_dot_product_attention reads a Boolean mask as 'may attend' but adds a number mask to the "
           f"scores, so a 0/1 mask of numbers hides nothing")
    return value.detach().cpu()


@check("BlockCausalMask.mask")
def block_causal_mask(BlockCausalMask):
    for shape, result in zip(MASK_SHAPES, BlockCausalMask.calls([list(s) for s in MASK_SHAPES])):
        L, b, P = shape
        what = shown("BlockCausalMask", shape)
        got = mask_of(value_of(result, what), what)
        expect(tuple(got.shape) == (L, L), f"{what} should be [length, length] = [{L}, {L}] (a row for each "
                                           f"query, a column for each key), got {list(got.shape)}")
        want = ref.BlockCausalMask(*shape)
        if torch.equal(got, want):
            continue
        q, k = (int(i) for i in torch.nonzero(got != want)[0])
        block = ref.BlockIndex(L, b, P)
        where = (f"query {q} and key {k} are both in {block_named(q, b, P)}" if block[q] == block[k] else
                 f"query {q} is in {block_named(q, b, P)} and key {k} in {block_named(k, b, P)}")
        rule = ("a position sees every position of its own block, both ways, and of every earlier block, "
                "nothing of a later one")
        turned = (" The mask is transposed: row i says what query i may attend, so mask[i, j] is True when "
                  "j's block is i's or an earlier one." if torch.equal(got, want.T) else "")
        raise Failure(f"{what}[{q}, {k}] is {bool(got[q, k])}, it should be {bool(want[q, k])}: {where}; "
                      f"{rule}.{turned}")


MASK_ERRORS = [("block_length = 0: a block holds at least one position", (6, 0, 0)),
               ("block_length = -2: a block holds at least one position", (6, -2, 2)),
               ("prompt_length = -2: a prompt holds 0 positions or more", (6, 2, -2)),
               ("prompt_length = 8 is longer than the row, length = 6", (6, 2, 8)),
               ("length = -4: the prompt, 0 positions, is longer than the row", (-4, 2, 0)),
               ("length - prompt_length = 5 is not a multiple of block_length = 2", (7, 2, 2)),
               ("length - prompt_length = 9 is not a multiple of block_length = 4", (12, 4, 3)),
               ("length = 6.5: lengths are whole numbers", (6.5, 2, 0.5)),
               ("block_length = 2.5: lengths are whole numbers", (8, 2.5, 3))]


# Valid calls beside the refused ones: a function that refuses everything has not learnt what to refuse.
# A row that is all prompt sits on the boundary the text states ("longer than `length`" is refused).
MASK_ALLOWED = [(7, 2, 3), (4, 4, 0), (6, 1, 5), (5, 2, 5)]


stated("BlockCausalMask.errors", {why: ("a length is not a whole number" if "whole" in why else
                                       "`block_length` is below 1" if why.startswith("block_length") else
                                       "`length - prompt_length` is not a multiple of `block_length`"
                                       if "multiple" in why else "`prompt_length` is negative or longer than `length`")
                                  for why, _ in MASK_ERRORS})


@check("BlockCausalMask.errors")
def block_causal_mask_errors(BlockCausalMask):
    refuses_only_errors(BlockCausalMask, "BlockCausalMask", MASK_ERRORS, MASK_ALLOWED)


# ---------------------------------------------------------------- TokensProcessed

# (prompt_length, gen_length, block_length, steps): no prompt, blocks of one position, one block, many
# blocks, one call a block (every call refreshes) and many; smallest first, so a failure names a small one.
COUNT_SHAPES = sorted(((P, n * b, b, n * s) for P in (0, 1, 3, 7) for b in (1, 2, 3, 8) for n in (1, 2, 3, 5)
                       for s in (1, 2, 3, 7)), key=lambda c: ((c[0] + c[1]) * c[3], c))

COUNT_RULES = {
    "none": "without a cache every call runs the whole row, prompt included",
    "prefix": "with the prefix cache a block's first call runs the whole row and keeps what lies before the "
              "block; its later calls run from the block's start to the row's end (the block and all after it)",
    "dual": "with the dual cache a block's first call runs the whole row and keeps all but the block; its "
            "later calls run the block only",
    "exact": "with the exact cache the prompt runs once, before the first call; every call runs the current "
             "block only, and each finished block but the last runs once more, clean, to store its keys and "
             "values",
}


def plural(k, word):
    return f"{k} {word}{'s' * (k != 1)}"


def runs(P, G, b, steps, cache):
    """What passes through the network, call by call, in words: the prompt's own run (exact), then each
    block's calls and its clean run (exact). The same sum as the reference's closed forms, spelt out."""
    L, n = P + G, G // b
    s = steps // n
    parts = [f"the prompt {P} once"] if cache == "exact" and P else []
    for j in range(n):
        start = P + j * b
        calls = {"none": [L] * s, "prefix": [L] + [L - start] * (s - 1), "dual": [L] + [b] * (s - 1),
                 "exact": [b] * s}[cache]
        clean = f", then {b} clean" if cache == "exact" and j < n - 1 else ""
        parts.append(f"block {j + 1}: {', '.join(map(str, calls))}{clean}")
    return (f"here a row of {plural(L, 'position')}, {plural(n, 'block')} of {b}, {plural(s, 'call')} a block: "
            f"{'; '.join(parts)}")


def count_of(value, what):
    """A count the student returned: an int or a whole float of any kind, or a one-element tensor."""
    try:
        if torch.is_tensor(value) or isinstance(value, np.ndarray):
            flat = value.reshape(-1)
            if len(flat) != 1:
                raise TypeError
            value = flat[0].item()   # a Python bool, int or float
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        raise Failure(f"{what} should return one number, the count of positions, got {type_name(value)}") from None
    expect(math.isfinite(number) and number == int(number),
           f"{what} should be a whole number of positions, got {number!r}")
    return int(number)


@check("TokensProcessed.counts")
def tokens_processed(TokensProcessed):
    cases = [[*shape, cache] for shape in COUNT_SHAPES for cache in ref.CACHES]
    for args, result in zip(cases, TokensProcessed.calls(cases)):
        what = shown("TokensProcessed", args)
        got = count_of(value_of(result, what), what)
        want = ref.TokensProcessed(*args)
        if got != want:   # the message spells out every call: built only for the one that fails
            raise Failure(f"{what} should be {want}, got {got}: {COUNT_RULES[args[-1]]}; {runs(*args)} "
                          f"(in all {want})")


COUNT_ERRORS = [("steps = 3 is not a multiple of the 2 blocks", (4, 8, 4, 3, "exact")),
                ("steps = 5 is not a multiple of the 3 blocks", (0, 6, 2, 5, "prefix")),
                ("gen_length = 9 is not a multiple of block_length = 4", (4, 9, 4, 4, "none")),
                ("gen_length = 10 is not a multiple of block_length = 4", (2, 10, 4, 4, "dual")),
                ("the cache 'full' is none of 'none', 'prefix', 'dual', 'exact'", (4, 8, 4, 4, "full")),
                ("the cache 'Exact' is none of 'none', 'prefix', 'dual', 'exact'", (4, 8, 4, 4, "Exact")),
                ("prompt_length = -1: a prompt holds 0 positions or more", (-1, 8, 4, 4, "none")),
                ("gen_length = 0: there is nothing to generate", (4, 0, 4, 4, "none")),
                ("block_length = 0: a block holds at least one position", (4, 8, 0, 4, "dual")),
                ("steps = 0: every block needs at least one call", (4, 8, 4, 0, "dual")),
                ("steps = -2: every block needs at least one call", (4, 8, 4, -2, "none")),
                ("block_length = 4.5: counts are whole numbers", (4, 9, 4.5, 2, "none")),
                ("prompt_length = 1.5: counts are whole numbers", (1.5, 8, 4, 4, "exact"))]


# Valid calls beside the refused ones: a function that refuses everything has not learnt what to refuse.
COUNT_ALLOWED = [(4, 8, 4, 4, cache) for cache in ref.CACHES] + [(0, 3, 1, 6, "exact")]


stated("TokensProcessed.errors", {why: ("a count is not a whole number" if "whole" in why else
                                       "`cache` is none of the four" if "cache" in why else
                                       "`gen_length` is not a multiple of `block_length`" if why.startswith("gen_length = 9")
                                       or why.startswith("gen_length = 10") else
                                       "`steps` is not a multiple of the number of blocks" if "multiple" in why else
                                       "`prompt_length` is negative" if why.startswith("prompt_length") else
                                       "`gen_length`, `block_length` or `steps` is below 1") for why, _ in COUNT_ERRORS})


@check("TokensProcessed.errors")
def tokens_processed_errors(TokensProcessed):
    refuses_only_errors(TokensProcessed, "TokensProcessed", COUNT_ERRORS, COUNT_ALLOWED)
