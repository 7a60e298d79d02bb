"""Bugs students make in notebook 07 (the block-causal mask, the positions each cache runs). Each mutant
is an edit of the correct solution cell in REFERENCE, so the catalog reads as the bug and nothing else.
Notebook 07 is still to be written (issue 55): REFERENCE is the solution its cells should hold, and
tests/grading/test_checks_caching.py compares the two once the notebook is there."""
from . import Edits

REFERENCE = {
    "BlockCausalMask": """
def BlockCausalMask(length, block_length, prompt_length):
    for value in (length, block_length, prompt_length):
        if int(value) != value:
            raise ValueError(f"lengths are whole numbers, got {value!r}")
    if block_length < 1 or prompt_length < 0:
        raise ValueError(f"need block_length >= 1 and prompt_length >= 0, got {block_length} and {prompt_length}")
    if prompt_length > length:
        raise ValueError(f"the prompt ({prompt_length}) is longer than the row ({length})")
    if (length - prompt_length) % block_length:
        raise ValueError(f"length - prompt_length = {length - prompt_length} is not a multiple of "
                         f"block_length = {block_length}")
    length, block_length, prompt_length = int(length), int(block_length), int(prompt_length)
    position = torch.arange(length)
    block = torch.where(position < prompt_length, 0, 1 + (position - prompt_length) // block_length)
    return block[None, :] <= block[:, None]
""",
    "TokensProcessed": """
def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    for value in (prompt_length, gen_length, block_length, steps):
        if int(value) != value:
            raise ValueError(f"counts are whole numbers, got {value!r}")
    if prompt_length < 0 or min(gen_length, block_length, steps) < 1:
        raise ValueError("need prompt_length >= 0 and gen_length, block_length and steps >= 1")
    if gen_length % block_length:
        raise ValueError(f"gen_length = {gen_length} is not a multiple of block_length = {block_length}")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError(f"steps = {steps} is not a multiple of the number of blocks, {blocks}")
    P, b, steps = int(prompt_length), int(block_length), int(steps)
    length, per_block = P + int(gen_length), steps // int(blocks)
    if cache == "none":
        return steps * length
    if cache == "prefix":
        return sum(length + (per_block - 1) * (length - (P + j * b)) for j in range(int(blocks)))
    if cache == "dual":
        return blocks * length + (steps - blocks) * b
    if cache == "exact":
        return P + steps * b + (blocks - 1) * b
    raise ValueError(f"cache must be 'none', 'prefix', 'dual' or 'exact', got {cache!r}")
""",
}


edit = Edits(REFERENCE)


MASK, MASK_ERRORS = "BlockCausalMask.mask", "BlockCausalMask.errors"
COUNTS, COUNT_ERRORS = "TokensProcessed.counts", "TokensProcessed.errors"
ALLOWED = "return block[None, :] <= block[:, None]"
BLOCKS = "block = torch.where(position < prompt_length, 0, 1 + (position - prompt_length) // block_length)"
PREFIX = "return sum(length + (per_block - 1) * (length - (P + j * b)) for j in range(int(blocks)))"
DUAL = "return blocks * length + (steps - blocks) * b"
EXACT = "return P + steps * b + (blocks - 1) * b"

MUTANTS = [
    # ------------------------------------------------------------ BlockCausalMask
    edit("BlockCausalMask", "a block sees the next one too", [MASK],
         (ALLOWED, "return block[None, :] <= block[:, None] + 1")),
    edit("BlockCausalMask", "the prompt sees the generation", [MASK],
         (ALLOWED, "mask = block[None, :] <= block[:, None]\n    mask[:prompt_length] = True\n    return mask")),
    edit("BlockCausalMask", "off by one: each block boundary a position early", [MASK],
         (BLOCKS, "block = torch.where(position < prompt_length, 0, 1 + (position - prompt_length + 1) // block_length)")),
    edit("BlockCausalMask", "causal token by token, not block by block", [MASK],
         (ALLOWED, "return position[None, :] <= position[:, None]")),
    edit("BlockCausalMask", "the prompt merged into block 1", [MASK],
         (BLOCKS, "block = torch.where(position < prompt_length, 1, 1 + (position - prompt_length) // block_length)")),
    edit("BlockCausalMask", "transposed: keys in the rows, queries in the columns", [MASK],
         (ALLOWED, "return block[None, :] >= block[:, None]")),
    edit("BlockCausalMask", "only earlier blocks: a block does not see itself", [MASK],
         (ALLOWED, "return block[None, :] < block[:, None]")),
    edit("BlockCausalMask", "blocks counted from position 0, the prompt left out", [MASK],
         (BLOCKS, "block = position // block_length")),
    edit("BlockCausalMask", "the generation does not see the prompt", [MASK],
         (ALLOWED, "return (block[None, :] <= block[:, None]) & ((block[None, :] > 0) | (block[:, None] == 0))")),
    edit("BlockCausalMask", "a 0/1 float mask", [MASK], (ALLOWED, "return (block[None, :] <= block[:, None]).float()")),
    edit("BlockCausalMask", "a numpy array", [MASK], (ALLOWED, "return (block[None, :] <= block[:, None]).numpy()")),
    edit("BlockCausalMask", "block_length = 0 not refused (a ZeroDivisionError)", [MASK_ERRORS],
         ("if block_length < 1 or prompt_length < 0:", "if block_length < 0 or prompt_length < 0:")),
    edit("BlockCausalMask", "a negative prompt_length not refused", [MASK_ERRORS],
         ("if block_length < 1 or prompt_length < 0:", "if block_length < 1:")),
    edit.without("BlockCausalMask", "a prompt longer than the row not refused", [MASK_ERRORS],
                 "if prompt_length > length:"),
    edit.without("BlockCausalMask", "the generation's split into blocks not checked", [MASK_ERRORS],
                 "if (length - prompt_length) % block_length:"),
    edit("BlockCausalMask", "length, not length - prompt_length, checked against block_length", [MASK, MASK_ERRORS],
         ("if (length - prompt_length) % block_length:", "if length % block_length:")),
    edit.without("BlockCausalMask", "lengths rounded down, not refused", [MASK_ERRORS],
                 "for value in (length, block_length, prompt_length):"),

    # ------------------------------------------------------------ TokensProcessed
    edit("TokensProcessed", "exact: the prompt counted twice, stored and run with the first block", [COUNTS],
         (EXACT, "return 2 * P + steps * b + (blocks - 1) * b")),
    edit("TokensProcessed", "exact: the prompt not cached, run with every call", [COUNTS],
         (EXACT, "return steps * (P + b) + (blocks - 1) * b")),
    edit("TokensProcessed", "exact: the prompt's own run forgotten", [COUNTS],
         (EXACT, "return steps * b + (blocks - 1) * b")),
    edit("TokensProcessed", "exact: the last block re-run clean too", [COUNTS],
         (EXACT, "return P + steps * b + blocks * b")),
    edit("TokensProcessed", "exact: no clean run of a finished block", [COUNTS], (EXACT, "return P + steps * b")),
    edit("TokensProcessed", "prefix: later calls run the block only, not what follows it", [COUNTS],
         (PREFIX, "return blocks * length + (steps - blocks) * b")),
    edit("TokensProcessed", "prefix: later calls run from the row's start to the block's end", [COUNTS],
         (PREFIX, "return sum(length + (per_block - 1) * (P + (j + 1) * b) for j in range(int(blocks)))")),
    edit("TokensProcessed", "prefix: every call of a block after the refresh, s calls not s - 1", [COUNTS],
         (PREFIX, "return sum(length + per_block * (length - (P + j * b)) for j in range(int(blocks)))")),
    edit("TokensProcessed", "dual counted as prefix", [COUNTS],
         (DUAL, "return sum(length + (per_block - 1) * (length - (P + j * b)) for j in range(int(blocks)))")),
    edit("TokensProcessed", "dual: the refresh runs the block besides the whole row", [COUNTS],
         (DUAL, "return blocks * length + steps * b")),
    edit("TokensProcessed", "none: the generation only, the prompt left out", [COUNTS],
         ("return steps * length", "return steps * int(gen_length)")),
    edit("TokensProcessed", "none: one call a block", [COUNTS], ("return steps * length", "return blocks * length")),
    *edit.blocks_unchecked("TokensProcessed", [COUNT_ERRORS]),
    edit("TokensProcessed", "an unknown cache counted as exact", [COUNT_ERRORS],
         ('    if cache == "exact":\n', "    else:\n")),
    edit("TokensProcessed", "zero counts not refused", [COUNT_ERRORS],
         ("min(gen_length, block_length, steps) < 1", "min(gen_length, block_length, steps) < 0")),
    edit("TokensProcessed", "a negative prompt_length not refused", [COUNT_ERRORS],
         ("if prompt_length < 0 or min(gen_length, block_length, steps) < 1:",
          "if min(gen_length, block_length, steps) < 1:")),
    edit.without("TokensProcessed", "counts rounded down, not refused", [COUNT_ERRORS],
                 "for value in (prompt_length, gen_length, block_length, steps):"),
]
