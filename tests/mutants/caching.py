"""Bugs students make in notebook 07 (the block-causal mask, the positions each cache runs, the exact cache
of a block-causal network and the prefix and dual caches of a bidirectional one). Each mutant
is an edit of the correct solution cell in REFERENCE, so the catalog reads as the bug and nothing else.
REFERENCE is the notebook's own solution (tests/grading/test_checks_caching.py holds the two equal)."""
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
    "SampleBlocksCached": """
@torch.no_grad()
def SampleBlocksCached(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    if gen_length < 1 or block_length < 1 or steps < 1:
        raise ValueError("gen_length, block_length and steps must be at least 1")
    if gen_length % block_length:
        raise ValueError(f"gen_length = {gen_length} is not a multiple of block_length = {block_length}")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError(f"steps = {steps} is not a multiple of the number of blocks, {blocks}")
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    P = len(prompt)
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    control = sorted({mask_id, pad_id, *control_ids})
    past = net(x[:, :P])[1] if P > 0 else None
    for j in range(blocks):
        start, end = P + j * block_length, P + (j + 1) * block_length
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[:, start:end] = True
        for k in TransferCounts(block_length, steps // blocks, rule):
            logits = net(x[:, start:end], past=past, start=start)[0]
            full = torch.zeros(x.shape + logits.shape[-1:], dtype=logits.dtype)
            full[:, start:end] = logits
            confidence, candidates = candidate_distributions(lambda _: full, x, control).max(dim=-1)
            x = reverse_update(x, candidates, confidence, slots, [k], mask_id, pad_id)
        if j < blocks - 1:
            present = net(x[:, start:end], past=past, start=start)[1]
            if past is None:
                past = present
            else:
                past = [(torch.cat([pk, key], 2), torch.cat([pv, value], 2))
                        for (pk, pv), (key, value) in zip(past, present)]
    return x[0]
""",
    "SampleBlocksPrefixCache": """
@torch.no_grad()
def SampleBlocksPrefixCache(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                            rule="even", dual=False, kept=None):
    if gen_length < 1 or block_length < 1 or steps < 1:
        raise ValueError("gen_length, block_length and steps must be at least 1")
    if gen_length % block_length:
        raise ValueError(f"gen_length = {gen_length} is not a multiple of block_length = {block_length}")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError(f"steps = {steps} is not a multiple of the number of blocks, {blocks}")
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    P = len(prompt)
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    control = sorted({mask_id, pad_id, *control_ids})
    for j in range(blocks):
        start, end = P + j * block_length, P + (j + 1) * block_length
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[:, start:end] = True
        for call, k in enumerate(TransferCounts(block_length, steps // blocks, rule)):
            if call == 0:
                logits, present = net(x)
                first = 0
                if kept is not None:
                    kept.append([key for key, _ in present])
                if dual:
                    past = [(torch.cat([key[:, :, :start], key[:, :, end:]], 2),
                             torch.cat([value[:, :, :start], value[:, :, end:]], 2)) for key, value in present]
                else:
                    past = [(key[:, :, :start], value[:, :, :start]) for key, value in present]
            elif dual:
                logits, first = net(x[:, start:end], past=past, start=start)[0], start
            else:
                logits, first = net(x[:, start:], past=past, start=start)[0], start
            full = torch.zeros(x.shape + logits.shape[-1:], dtype=logits.dtype)
            full[:, first:first + logits.shape[1]] = logits
            confidence, candidates = candidate_distributions(lambda _: full, x, control).max(dim=-1)
            x = reverse_update(x, candidates, confidence, slots, [k], mask_id, pad_id)
    return x[0]
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
CACHED, CACHED_ERRORS = "SampleBlocksCached.exact", "SampleBlocksCached.errors"
PREFIX_CACHE, DUAL_CACHE = "SampleBlocksPrefixCache.prefix", "SampleBlocksPrefixCache.dual"
PREFIX_ERRORS = "SampleBlocksPrefixCache.errors"
CANVAS = """    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    P = len(prompt)
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    control = sorted({mask_id, pad_id, *control_ids})
"""
WORK = CANVAS + "    past = net(x[:, :P])[1] if P > 0 else None\n"
BLOCK_CALL = "logits = net(x[:, start:end], past=past, start=start)[0]"
CLEAN_RUN = "present = net(x[:, start:end], past=past, start=start)[1]"
APPENDED = """            if past is None:
                past = present
            else:
                past = [(torch.cat([pk, key], 2), torch.cat([pv, value], 2))
                        for (pk, pv), (key, value) in zip(past, present)]
"""
PREFIX_CALL = "logits, first = net(x[:, start:], past=past, start=start)[0], start"
DUAL_CALL = "logits, first = net(x[:, start:end], past=past, start=start)[0], start"
PREFIX_PAST = "past = [(key[:, :, :start], value[:, :, :start]) for key, value in present]"
DUAL_KEYS = "past = [(torch.cat([key[:, :, :start], key[:, :, end:]], 2),"
DUAL_VALUES = "torch.cat([value[:, :, :start], value[:, :, end:]], 2)) for key, value in present]"

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
    edit("BlockCausalMask", "a row that is all prompt refused (>= for >)", [MASK_ERRORS],
         ("if prompt_length > length:", "if prompt_length >= length:")),
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

    # ------------------------------------------------------------ SampleBlocksCached
    edit("SampleBlocksCached", "cached calls causal token by token inside the block", [CACHED],
         (BLOCK_CALL, "attend = torch.ones(block_length, start + block_length, dtype=torch.bool).tril(start)\n"
                      "            logits = net(x[:, start:end], attend, past, start)[0]")),
    edit.without("SampleBlocksCached", "the prompt not cached: every call runs the row up to its block", [CACHED],
                 "if j < blocks - 1:", ("past = net(x[:, :P])[1] if P > 0 else None", "past = None"),
                 (BLOCK_CALL, "logits = net(x[:, :end], BlockCausalMask(end, block_length, P))[0][:, start:]")),
    edit("SampleBlocksCached", "a block's keys kept from its last call, before its last commit (no clean run)",
         [CACHED], (BLOCK_CALL, "logits, present = net(x[:, start:end], past=past, start=start)"),
         ("            " + CLEAN_RUN + "\n", "")),
    edit("SampleBlocksCached", "the clean run's keys dropped, the last call's (still masked) appended", [CACHED],
         (BLOCK_CALL, "logits, present = net(x[:, start:end], past=past, start=start)"),
         (CLEAN_RUN, "clean = net(x[:, start:end], past=past, start=start)[1]")),
    edit.without("SampleBlocksCached", "the cache never refreshed: no clean run, the prompt's keys only", [CACHED],
                 "if j < blocks - 1:"),
    edit("SampleBlocksCached", "the clean run's keys replace the cache, the prompt's and earlier blocks' dropped",
         [CACHED], (APPENDED, "            past = present\n")),
    edit("SampleBlocksCached", "the last block run clean too, its keys stored for nothing", [CACHED],
         ("if j < blocks - 1:", "if j < blocks:")),
    edit("SampleBlocksCached", "blocks placed from position 0, the prompt's length left out", [CACHED],
         ("start, end = P + j * block_length, P + (j + 1) * block_length",
          "start, end = j * block_length, (j + 1) * block_length")),
    edit("SampleBlocksCached", "start not passed: every call numbered from position 0", [CACHED],
         (BLOCK_CALL, "logits = net(x[:, start:end], past=past)[0]"),
         (CLEAN_RUN, "present = net(x[:, start:end], past=past)[1]")),
    edit("SampleBlocksCached", "each clean run re-runs the row from the prompt to store every key again", [CACHED],
         (CLEAN_RUN, "past = net(x[:, :end], BlockCausalMask(end, block_length, P))[1]"),
         (APPENDED, "")),
    edit("SampleBlocksCached", "the block's logits placed at the row's start", [CACHED],
         ("full[:, start:end] = logits", "full[:, :block_length] = logits")),
    *edit.blocks_unchecked("SampleBlocksCached", [CACHED_ERRORS]),
    edit("SampleBlocksCached", "zero lengths not refused (a ZeroDivisionError)", [CACHED_ERRORS],
         ("if gen_length < 1 or block_length < 1 or steps < 1:", "if gen_length < 0 or block_length < 0 or steps < 0:")),
    edit("SampleBlocksCached", "a negative block_length not refused", [CACHED_ERRORS],
         ("if gen_length < 1 or block_length < 1 or steps < 1:", "if gen_length < 1 or block_length == 0 or steps < 1:")),
    edit("SampleBlocksCached", "an assert, not a ValueError", [CACHED_ERRORS],
         ('if gen_length % block_length:\n        raise ValueError(f"gen_length = {gen_length} is not a multiple of '
          'block_length = {block_length}")', 'assert gen_length % block_length == 0, "gen_length must split into blocks"')),
    edit("SampleBlocksCached", "steps checked against block_length, not the number of blocks",
         [CACHED, CACHED_ERRORS], ("if steps % blocks:", "if steps % block_length:")),
    # issue 63's escapes, measured from outside: the rule never handed on, the work done before the checks
    edit("SampleBlocksCached", "rule never handed on: always the even split", [CACHED],
         ("for k in TransferCounts(block_length, steps // blocks, rule):",
          "for k in TransferCounts(block_length, steps // blocks):")),
    edit("SampleBlocksCached", "the canvas built and the prompt run before the rules are checked", [CACHED_ERRORS],
         (WORK, ""), ('    if gen_length < 1 or block_length < 1 or steps < 1:\n',
                      WORK + '    if gen_length < 1 or block_length < 1 or steps < 1:\n')),
    edit("SampleBlocksCached", "the pad_id left out of the controls", [CACHED],
         ("control = sorted({mask_id, pad_id, *control_ids})", "control = sorted({mask_id, *control_ids})")),

    # ------------------------------------------------------------ SampleBlocksPrefixCache
    edit("SampleBlocksPrefixCache", "the cache never refreshed: block 1's kept", [PREFIX_CACHE, DUAL_CACHE],
         ("                if dual:\n", "                if j > 0:\n                    pass\n                elif dual:\n")),
    edit("SampleBlocksPrefixCache", "prefix: later calls run the block only, not what follows", [PREFIX_CACHE],
         (PREFIX_CALL, DUAL_CALL)),
    edit("SampleBlocksPrefixCache", "prefix: the cache keeps the block's own keys too", [PREFIX_CACHE],
         (PREFIX_PAST, "past = [(key[:, :, :end], value[:, :, :end]) for key, value in present]")),
    edit("SampleBlocksPrefixCache", "dual: the block's own stale keys kept in the cache", [DUAL_CACHE],
         (DUAL_KEYS + "\n                             " + DUAL_VALUES, "past = present")),
    edit("SampleBlocksPrefixCache", "dual: only the prefix cached, the suffix dropped", [DUAL_CACHE],
         (DUAL_KEYS + "\n                             " + DUAL_VALUES,
          "past = [(key[:, :, :start], value[:, :, :start]) for key, value in present]")),
    edit("SampleBlocksPrefixCache", "the refresh commits nothing, it only fills the cache", [PREFIX_CACHE, DUAL_CACHE],
         (PREFIX_PAST, PREFIX_PAST + "\n                continue")),
    edit("SampleBlocksPrefixCache", "prefix: later calls numbered from position 0 (start not passed)", [PREFIX_CACHE],
         (PREFIX_CALL, "logits, first = net(x[:, start:], past=past)[0], start")),
    edit("SampleBlocksPrefixCache", "dual: later calls numbered from position 0 (start not passed)", [DUAL_CACHE],
         (DUAL_CALL, "logits, first = net(x[:, start:end], past=past)[0], start")),
    edit("SampleBlocksPrefixCache", "kept gets the values, not the keys", [PREFIX_CACHE, DUAL_CACHE],
         ("kept.append([key for key, _ in present])", "kept.append([value for _, value in present])")),
    edit("SampleBlocksPrefixCache", "kept gets the (key, value) pairs", [PREFIX_CACHE, DUAL_CACHE],
         ("kept.append([key for key, _ in present])", "kept.append(present)")),
    edit("SampleBlocksPrefixCache", "no cache: every call runs the whole row", [PREFIX_CACHE, DUAL_CACHE],
         (PREFIX_CALL, "logits, first = net(x)[0], 0"), (DUAL_CALL, "logits, first = net(x)[0], 0")),
    edit("SampleBlocksPrefixCache", "later calls' logits placed at the row's start", [PREFIX_CACHE, DUAL_CACHE],
         ("full[:, first:first + logits.shape[1]] = logits", "full[:, :logits.shape[1]] = logits")),
    # issue 63's escapes, measured from outside
    edit("SampleBlocksPrefixCache", "rule never handed on: always the even split", [PREFIX_CACHE, DUAL_CACHE],
         ("for call, k in enumerate(TransferCounts(block_length, steps // blocks, rule)):",
          "for call, k in enumerate(TransferCounts(block_length, steps // blocks)):")),
    edit.without("SampleBlocksPrefixCache", "no rule checks at all", [PREFIX_ERRORS],
                 "if gen_length < 1 or block_length < 1 or steps < 1:",
                 ('    if gen_length % block_length:\n        raise ValueError(f"gen_length = {gen_length} is not a '
                  'multiple of block_length = {block_length}")\n', ""),
                 ('    if steps % blocks:\n        raise ValueError(f"steps = {steps} is not a multiple of the number '
                  'of blocks, {blocks}")\n', "")),
    *edit.blocks_unchecked("SampleBlocksPrefixCache", [PREFIX_ERRORS]),
    edit("SampleBlocksPrefixCache", "zero lengths not refused (a ZeroDivisionError)", [PREFIX_ERRORS],
         ("if gen_length < 1 or block_length < 1 or steps < 1:", "if gen_length < 0 or block_length < 0 or steps < 0:")),
    edit("SampleBlocksPrefixCache", "a negative gen_length not refused", [PREFIX_ERRORS],
         ("if gen_length < 1 or block_length < 1 or steps < 1:", "if gen_length == 0 or block_length < 1 or steps < 1:")),
    edit("SampleBlocksPrefixCache", "an assert, not a ValueError", [PREFIX_ERRORS],
         ('if steps % blocks:\n        raise ValueError(f"steps = {steps} is not a multiple of the number of blocks, '
          '{blocks}")', 'assert steps % blocks == 0, "steps must split among the blocks"')),
    edit("SampleBlocksPrefixCache", "the canvas built before the rules are checked", [PREFIX_ERRORS],
         (CANVAS, ""), ('    if gen_length < 1 or block_length < 1 or steps < 1:\n',
                        CANVAS + '    if gen_length < 1 or block_length < 1 or steps < 1:\n')),
    edit("SampleBlocksPrefixCache", "control_ids left out of the controls", [PREFIX_CACHE, DUAL_CACHE],
         ("control = sorted({mask_id, pad_id, *control_ids})", "control = sorted({mask_id, pad_id})")),
]
