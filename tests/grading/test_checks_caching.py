"""Hidden function checks of notebook 07: the reference passes under any seed, so do the catalog's solution
cells and correct functions written in other styles (a lower triangle with the blocks filled in, numpy,
a double loop over Python lists, numbers compared into Booleans; a loop over the calls, a 0-d tensor,
a numpy integer, a float; samplers that rank the block alone, keep their cache in other shapes and
orders, rank in float64 without the helpers), and every mutant loses exactly the marks it names. The
samplers' checks leave rounding no tie to break, and their reference is the uncached sampler's."""
import math
import re
from pathlib import Path

import pytest
import torch

from maskdiff_solutions import caching as reference
from maskdiff_solutions import grading
from maskdiff_solutions import revising
from maskdiff_solutions.grading import caching_samplers as samplers
from maskdiff_solutions.grading.core import Failure, as_student
from maskdiff_solutions.course.intake import notebooks
from tests.mutants import Mutant
from tests.mutants import caching as catalog
from tests.support import function_checks

pytestmark = pytest.mark.nb07

CHECKS = ["BlockCausalMask.mask", "BlockCausalMask.errors", "TokensProcessed.counts", "TokensProcessed.errors",
          "SampleBlocksCached.exact", "SampleBlocksCached.errors", "SampleBlocksPrefixCache.prefix",
          "SampleBlocksPrefixCache.dual", "SampleBlocksPrefixCache.errors"]
FUNCTIONS = function_checks.functions(CHECKS)
xdist_group = function_checks.xdist_group   # tests/conftest.py reads it: the tests share nothing
NOTEBOOK = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "07_caching.ipynb"


def checks_of(function):
    return function_checks.checks_of(CHECKS, function)


# every check registered is here; the reference passes under every seed, so do the catalog's cells
test_every_registered_check_is_covered, test_reference_passes, test_the_catalogs_solution_cells_pass = \
    function_checks.shared_tests(CHECKS, ("caching", "caching_samplers"), catalog.REFERENCE)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_catalogs_solution_cells_are_the_notebooks(function):
    """The mutants are edits of the notebook's own solution: when the notebook's cell changes, copy it
    into tests/mutants/caching.py's REFERENCE and check that every mutant still reads as its bug."""
    cells = {notebooks.grade_id(cell): cell.source for cell in notebooks.read(NOTEBOOK).cells}
    assert solution_code(cells[function]) == catalog.REFERENCE[function].strip()


def solution_code(source):
    """A solution cell's code without its markers and docstring."""
    code = "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
    return re.sub(r'\n    """.*?"""', "", code, count=1, flags=re.S).strip()


# Correct functions written other ways, from the task text alone. Each runs in a namespace like its
# notebook's (the mutant catalog's: torch, np, math).
STYLES = {
    "BlockCausalMask": {
        "a lower triangle, then each block filled in": '''
def BlockCausalMask(length, block_length, prompt_length):
    if length != int(length) or block_length != int(block_length) or prompt_length != int(prompt_length):
        raise ValueError("whole numbers only")
    if block_length <= 0 or prompt_length < 0 or prompt_length > length:
        raise ValueError("need block_length > 0 and 0 <= prompt_length <= length")
    if (length - prompt_length) % block_length != 0:
        raise ValueError("the generation must split into whole blocks")
    L, B, P = int(length), int(block_length), int(prompt_length)
    mask = torch.ones(L, L, dtype=torch.bool).tril()
    mask[:P, :P] = True
    for start in range(P, L, B):
        mask[start:start + B, start:start + B] = True
    return mask
''',
        "numpy block ids, then torch.from_numpy": '''
def BlockCausalMask(length, block_length, prompt_length):
    if not all(float(v).is_integer() for v in (length, block_length, prompt_length)):
        raise ValueError("length, block_length and prompt_length are whole numbers")
    if block_length < 1:
        raise ValueError("block_length must be positive")
    if not 0 <= prompt_length <= length:
        raise ValueError("prompt_length must lie between 0 and length")
    generated = length - prompt_length
    if generated % block_length:
        raise ValueError(f"{generated} generated positions do not make whole blocks of {block_length}")
    ids = np.concatenate([np.zeros(int(prompt_length), dtype=np.int64),
                          np.repeat(np.arange(1, int(generated // block_length) + 1), int(block_length))])
    return torch.from_numpy(ids[:, None] >= ids[None, :])
''',
        "a double loop over Python lists": '''
def BlockCausalMask(length, block_length, prompt_length):
    for v in (length, block_length, prompt_length):
        if v % 1 != 0:
            raise ValueError(f"{v} is not a whole number")
    if block_length < 1 or prompt_length < 0 or prompt_length > length or (length - prompt_length) % block_length:
        raise ValueError("impossible lengths")

    def which_block(i):
        if i < prompt_length:
            return 0
        return (i - prompt_length) // block_length + 1

    rows = []
    for query in range(int(length)):
        rows.append([which_block(key) <= which_block(query) for key in range(int(length))])
    return torch.tensor(rows)
''',
        "integer arithmetic compared into Booleans, clamped block ids": '''
def BlockCausalMask(length, block_length, prompt_length):
    try:
        L, B, P = (int(v) for v in (length, block_length, prompt_length))
    except (TypeError, ValueError):
        raise ValueError("lengths must be numbers") from None
    if (L, B, P) != (length, block_length, prompt_length):
        raise ValueError("lengths must be whole numbers")
    if B < 1:
        raise ValueError("block_length must be at least 1")
    if P < 0 or P > L:
        raise ValueError("prompt_length must be between 0 and length")
    if (L - P) % B:
        raise ValueError("length - prompt_length must be a multiple of block_length")
    ids = torch.clamp(torch.div(torch.arange(L) - P, B, rounding_mode="floor") + 1, min=0)
    difference = ids.view(-1, 1) - ids.view(1, -1)   # query's block minus key's block
    return difference >= 0
''',
    },
    "TokensProcessed": {
        "a loop that plays the calls through": '''
def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    if cache not in ("none", "prefix", "dual", "exact"):
        raise ValueError(f"unknown cache {cache!r}")
    for v in (prompt_length, gen_length, block_length, steps):
        if v != int(v):
            raise ValueError("counts are whole numbers")
    if prompt_length < 0 or gen_length < 1 or block_length < 1 or steps < 1:
        raise ValueError("prompt_length >= 0, the others >= 1")
    if gen_length % block_length:
        raise ValueError("gen_length must be a multiple of block_length")
    n_blocks = int(gen_length // block_length)
    if steps % n_blocks:
        raise ValueError("steps must be a multiple of the number of blocks")
    P, b = int(prompt_length), int(block_length)
    L = P + int(gen_length)
    total = P if cache == "exact" else 0
    for j in range(n_blocks):
        start = P + j * b
        for call in range(int(steps) // n_blocks):
            if cache == "none" or (call == 0 and cache in ("prefix", "dual")):
                total += L
            elif cache == "prefix":
                total += L - start
            else:
                total += b
        if cache == "exact" and j < n_blocks - 1:
            total += b
    return total
''',
        "closed forms as a 0-d tensor": '''
def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    x = torch.tensor([prompt_length, gen_length, block_length, steps], dtype=torch.float64)
    if (x != x.round()).any():
        raise ValueError("whole numbers please")
    P, G, b, T = x.long()
    if P < 0 or min(G, b, T) < 1 or G % b or T % (G // b):
        raise ValueError("impossible blocks or steps")
    n = G // b
    s = T // n
    forms = {"none": T * (P + G),
             "prefix": n * (P + G) + (s - 1) * b * n * (n + 1) // 2,
             "dual": n * (P + G) + (T - n) * b,
             "exact": P + T * b + (n - 1) * b}
    if cache not in forms:
        raise ValueError(f"cache {cache!r} is not one of {list(forms)}")
    return forms[cache]
''',
        "numpy per-call counts summed to an np.int64": '''
def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    if not all(float(v).is_integer() for v in (prompt_length, gen_length, block_length, steps)):
        raise ValueError("whole numbers only")
    if prompt_length < 0 or gen_length <= 0 or block_length <= 0 or steps <= 0:
        raise ValueError("bad sizes")
    n, extra = divmod(int(gen_length), int(block_length))
    if extra or steps % n:
        raise ValueError("gen_length must split into blocks and steps among them")
    s, b, L = int(steps) // n, int(block_length), int(prompt_length + gen_length)
    starts = int(prompt_length) + b * np.arange(n)
    if cache == "none":
        per_call = np.full((n, s), L)
    elif cache == "prefix":
        per_call = np.column_stack([np.full(n, L)] + [L - starts] * (s - 1))
    elif cache == "dual":
        per_call = np.column_stack([np.full(n, L)] + [np.full(n, b)] * (s - 1))
    elif cache == "exact":
        per_call = np.column_stack([np.full(n, b)] * s)
        return np.int64(prompt_length) + per_call.sum() + (n - 1) * b
    else:
        raise ValueError("cache: none, prefix, dual or exact")
    return per_call.sum()
''',
        "a float from a true division": '''
def TokensProcessed(prompt_length, gen_length, block_length, steps, cache):
    if math.floor(prompt_length) != prompt_length or math.floor(gen_length) != gen_length \\
            or math.floor(block_length) != block_length or math.floor(steps) != steps:
        raise ValueError("counts must be integers")
    if prompt_length < 0:
        raise ValueError("prompt_length must be >= 0")
    if gen_length < 1 or block_length < 1 or steps < 1:
        raise ValueError("gen_length, block_length and steps must be >= 1")
    if gen_length % block_length != 0:
        raise ValueError("gen_length % block_length != 0")
    n = gen_length / block_length
    if steps % n != 0:
        raise ValueError("steps % blocks != 0")
    L = prompt_length + gen_length
    calls_after_refresh = steps / n - 1
    if cache == "none":
        return steps * L
    elif cache == "prefix":
        return n * L + calls_after_refresh * block_length * n * (n + 1) / 2
    elif cache == "dual":
        return n * L + calls_after_refresh * n * block_length
    elif cache == "exact":
        return prompt_length + (steps + n - 1) * block_length
    raise ValueError(f"cache must be none, prefix, dual or exact, not {cache}")
''',
    },
}
STYLES["SampleBlocksCached"] = {
    "the block ranked alone, past rebuilt from a list of caches, attend all True, arguments by position": '''
def SampleBlocksCached(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    if min(gen_length, block_length, steps) < 1:
        raise ValueError("gen_length, block_length and steps must be positive")
    n_blocks, rest = divmod(gen_length, block_length)
    if rest or steps % n_blocks:
        raise ValueError("blocks must fill gen_length and share the steps evenly")
    prompt = torch.as_tensor(prompt).long().flatten()
    P = prompt.numel()
    row = torch.full((1, P + gen_length), mask_id, dtype=torch.long)
    row[0, :P] = prompt
    stored = [net(row[:, :P])[1]] if P else []

    def joined():
        if not stored:
            return None
        return tuple((torch.cat([s[layer][0] for s in stored], dim=2), torch.cat([s[layer][1] for s in stored], dim=2))
                     for layer in range(len(stored[0])))

    controls = list({mask_id, pad_id, *control_ids})
    for b in range(n_blocks):
        lo, hi = P + b * block_length, P + (b + 1) * block_length
        for count in TransferCounts(block_length, steps // n_blocks, rule):
            past = joined()
            cached = 0 if past is None else past[0][0].shape[2]
            attend = torch.ones(block_length, cached + block_length, dtype=torch.bool)
            logits, _ = net(row[:, lo:hi], attend, past, lo)
            block = row[:, lo:hi].clone()
            confidence, candidates = candidate_distributions(lambda _: logits, block, controls).max(-1)
            slots = torch.ones_like(block, dtype=torch.bool)
            row[:, lo:hi] = reverse_update(block, candidates, confidence, slots, [count], mask_id, pad_id)
        if b + 1 < n_blocks:
            stored.append(net(row[:, lo:hi], None, joined(), lo)[1])
    return row[0]
''',
    "no helpers: a float64 softmax ranked by hand, keys and values in two lists, newest block first": '''
def SampleBlocksCached(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    if gen_length <= 0 or block_length <= 0 or steps <= 0:
        raise ValueError("lengths and steps must be at least 1")
    if gen_length % block_length != 0:
        raise ValueError("gen_length % block_length != 0")
    n = gen_length // block_length
    if steps % n != 0:
        raise ValueError("steps % blocks != 0")
    x = torch.tensor([int(t) for t in prompt] + [mask_id] * gen_length)[None]
    P = x.shape[1] - gen_length
    keys = values = None
    if P:
        present = net(x[:, :P])[1]
        keys, values = [k for k, _ in present], [v for _, v in present]
    banned = sorted({mask_id, pad_id, *control_ids})
    for j in range(n):
        a, b = P + j * block_length, P + (j + 1) * block_length
        for reveal in TransferCounts(block_length, steps // n, rule):
            past = None if keys is None else list(zip(keys, values))
            logits = net(x[:, a:b], past=past, start=a)[0][0].double()
            logits[:, banned] = -math.inf
            best, choice = logits.softmax(-1).max(-1)
            best[x[0, a:b] != mask_id] = -1.0
            for i in best.argsort(descending=True)[:int(reveal)].tolist():
                x[0, a + i] = choice[i]
        if j < n - 1:
            present = net(x[:, a:b], past=None if keys is None else list(zip(keys, values)), start=a)[1]
            if keys is None:
                keys, values = [k for k, _ in present], [v for _, v in present]
            else:
                keys = [torch.cat([new, old], 2) for (new, _), old in zip(present, keys)]
                values = [torch.cat([new, old], 2) for (_, new), old in zip(present, values)]
    return x[0]
''',
}
STYLES["SampleBlocksPrefixCache"] = {
    "index_select of the cached positions, kept as tuples, the block ranked alone": '''
def SampleBlocksPrefixCache(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                            rule="even", dual=False, kept=None):
    if min(gen_length, block_length, steps) < 1 or gen_length % block_length:
        raise ValueError("gen_length must be a positive multiple of block_length, steps positive")
    n = gen_length // block_length
    if steps % n:
        raise ValueError("steps must be a multiple of the number of blocks")
    prompt = torch.as_tensor(prompt, dtype=torch.long).view(-1)
    P = len(prompt)
    L = P + gen_length
    x = torch.cat([prompt, prompt.new_full((gen_length,), mask_id)]).unsqueeze(0)
    controls = sorted(set(control_ids) | {mask_id, pad_id})
    for j in range(n):
        a, b = P + j * block_length, P + (j + 1) * block_length
        for i, count in enumerate(TransferCounts(block_length, steps // n, rule)):
            if i == 0:
                logits, present = net(x)
                if kept is not None:
                    kept.append(tuple(k.clone() for k, _ in present))
                outside = torch.cat([torch.arange(a), torch.arange(b, L)]) if dual else torch.arange(a)
                past = [(k.index_select(2, outside), v.index_select(2, outside)) for k, v in present]
                block_logits = logits[:, a:b]
            else:
                block_logits = net(x[:, a:b] if dual else x[:, a:], past=past, start=a)[0][:, :block_length]
            block = x[:, a:b]
            confidence, candidates = candidate_distributions(lambda _: block_logits, block, controls).max(-1)
            slots = torch.ones_like(block, dtype=torch.bool)
            x = torch.cat([x[:, :a], reverse_update(block, candidates, confidence, slots, [count], mask_id, pad_id),
                           x[:, b:]], 1)
    return x.squeeze(0)
''',
    "the dual cache's suffix first, a float64 softmax ranked with numpy, a [1, L] row returned": '''
def SampleBlocksPrefixCache(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
                            rule="even", dual=False, kept=None):
    for name, value in (("gen_length", gen_length), ("block_length", block_length), ("steps", steps)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1")
    if gen_length % block_length:
        raise ValueError("gen_length must be a multiple of block_length")
    blocks = gen_length // block_length
    if steps % blocks:
        raise ValueError("steps must be a multiple of the number of blocks")
    P = len(prompt)
    x = torch.full((1, P + gen_length), mask_id, dtype=torch.long)
    x[0, :P] = torch.as_tensor(prompt)
    banned = list({mask_id, pad_id, *control_ids})
    for j in range(blocks):
        a, b = P + j * block_length, P + (j + 1) * block_length
        budgets = TransferCounts(block_length, steps // blocks, rule)
        for call in range(len(budgets)):
            if call == 0:
                logits, present = net(x)
                logits = logits[0, a:b]
                if kept is not None:
                    kept.append([k for k, v in present])
                if dual:
                    past = [(torch.cat([k[:, :, b:], k[:, :, :a]], 2), torch.cat([v[:, :, b:], v[:, :, :a]], 2))
                            for k, v in present]
                else:
                    past = [(k[:, :, :a], v[:, :, :a]) for k, v in present]
            else:
                logits = net(x[:, a:b] if dual else x[:, a:], None, past, a)[0][0, :block_length]
            logits = logits.double()
            logits[:, banned] = -math.inf
            probs = torch.softmax(logits, dim=-1).numpy()
            confidence = np.where(x[0, a:b].numpy() == mask_id, probs.max(axis=1), -np.inf)
            for i in np.argsort(-confidence, kind="stable")[:int(budgets[call])]:
                x[0, a + int(i)] = int(probs[i].argmax())
    return x
''',
}
test_other_correct_styles_pass = function_checks.styles_test(CHECKS, STYLES)


test_mutant_loses_marks_exactly_where_it_says = function_checks.mutants_test(CHECKS, catalog.MUTANTS)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_has_five_realistic_bugs_for_each_check(function):
    mutants = [m for m in catalog.MUTANTS if m.function == function]
    assert len({m.name for m in mutants}) == len(mutants)
    assert all(set(m.fails) <= set(checks_of(function)) for m in mutants)
    for name in checks_of(function):
        assert sum(name in m.fails for m in mutants) >= 5, name


def message(name, source, function):
    return grading.evaluate(name, Mutant(function, "shown", source, ()).load()).message


def test_a_wrong_mask_names_the_pair_its_blocks_and_the_rule():
    seeing = next(m for m in catalog.MUTANTS if m.name == "the prompt sees the generation")
    said = message("BlockCausalMask.mask", seeing.source, "BlockCausalMask")
    assert said == ("BlockCausalMask(2, 1, 1)[0, 1] is True, it should be False: query 0 is in the prompt (block 0, "
                    "positions 0 to 0) and key 1 in block 1 (positions 1 to 1); a position sees every position of "
                    "its own block, both ways, and of every earlier block, nothing of a later one."), said
    transposed = next(m for m in catalog.MUTANTS if m.name.startswith("transposed"))
    said = message("BlockCausalMask.mask", transposed.source, "BlockCausalMask")
    assert said.startswith("BlockCausalMask(2, 1, 0)[0, 1] is True, it should be False: query 0 is in block 1 "
                           "(positions 0 to 0) and key 1 in block 2 (positions 1 to 1)"), said
    assert said.endswith("The mask is transposed: row i says what query i may attend, so mask[i, j] is True when "
                         "j's block is i's or an earlier one."), said
    floats = next(m for m in catalog.MUTANTS if m.name == "a 0/1 float mask")
    assert "got float32" in message("BlockCausalMask.mask", floats.source, "BlockCausalMask")


def test_a_wrong_count_spells_out_the_calls():
    dual = next(m for m in catalog.MUTANTS if m.name.startswith("prefix: later calls run the block only"))
    said = message("TokensProcessed.counts", dual.source, "TokensProcessed")
    assert said == ("TokensProcessed(0, 2, 1, 4, 'prefix') should be 7, got 6: with the prefix cache a block's first "
                    "call runs the whole row and keeps what lies before the block; its later calls run from the "
                    "block's start to the row's end (the block and all after it); here a row of 2 positions, "
                    "2 blocks of 1, 2 calls a block: block 1: 2, 2; block 2: 2, 1 (in all 7)"), said


@pytest.mark.parametrize("value", [None, [3, 4], "36", True, float("nan"), 36.5])
def test_a_count_is_one_whole_number(value):
    source = f"def TokensProcessed(*args):\n    return {value!r}\n".replace("nan", "float('nan')")
    assert not grading.evaluate("TokensProcessed.counts", Mutant("TokensProcessed", "odd", source, ()).load()).passed


# ---------------------------------------------------------------- the samplers' checks

def sampler_cases(kind):
    """(case, seed, plan) of each run a sampler check makes, by the kind of cache."""
    if kind == "exact":
        return [(case, seed, samplers.exact_plan(*case[:4])) for seed, case in enumerate(samplers.EXACT_CASES)]
    return [(case, seed, samplers.prefix_plan(*case[:4], kind == "dual"))
            for seed, (case, _) in enumerate(samplers.PREFIX_CASES)]


def reference_run(kind, case, seed):
    """The reference sampler's run on the check's network: (its calls, (start, ids, logits) of each, the row)."""
    P, G, B, steps, mask_id, pad_id, control, rule = case
    prompt = torch.randint(2, 21, (P,), generator=torch.Generator().manual_seed(1000 + seed))
    net = samplers.RecordingNet(samplers.random_network(seed, pad_id, samplers.tempting(case)))
    seen = []

    def model(x, attend=None, past=None, start=0):
        logits, present = net(x, attend, past, start)
        seen.append((start, x[0].clone(), logits[0]))
        return logits, present

    args = [prompt, G, B, steps, mask_id, pad_id, control or (), rule or "even"]
    if kind == "exact":
        row = reference.SampleBlocksCached(model, *args)
    else:
        row = reference.SampleBlocksPrefixCache(model, *args, kind == "dual")
    return net.calls, seen, row


@pytest.mark.parametrize("kind", ["exact", "prefix", "dual"])
def test_the_samplers_checks_follow_the_reference_and_count_its_positions(kind):
    """The plan each check holds students to is the reference's own sequence of calls, and runs
    TokensProcessed's positions; the exact cache writes the uncached block-causal sampler's row."""
    for case, seed, plan in sampler_cases(kind):
        P, G, B, steps, mask_id, pad_id, control, rule = case
        calls, _, row = reference_run(kind, case, seed)
        assert [(c.start, c.n, c.cached) for c in calls] == [(e.start, e.n, len(e.held)) for e in plan]
        assert sum(e.n for e in plan) == reference.TokensProcessed(P, G, B, steps, kind)
        if kind == "exact":
            prompt = torch.randint(2, 21, (P,), generator=torch.Generator().manual_seed(1000 + seed))
            net = samplers.random_network(seed, pad_id, samplers.tempting(case))
            uncached = reference.SampleBlocksBlockCausal(net, prompt, G, B, steps, mask_id, pad_id, control or (),
                                                         rule or "even")
            assert torch.equal(row, uncached), case


@pytest.mark.parametrize("kind", ["exact", "prefix", "dual"])
def test_the_samplers_checks_leave_rounding_no_tie_to_break(kind):
    """The module docstring's promise: along the reference's run, every masked position of the block has a
    best candidate ahead of its runner-up by 1e-3 or more (in probability, as candidate_distributions
    computes it), and the last confidence a call commits is 4e-3 or more above the first it leaves;
    a correct sampler's rounding (1e-15 in float64, 1e-7 once candidate_distributions goes to float32)
    changes no decision."""
    lead = margin = math.inf
    for case, seed, plan in sampler_cases(kind):
        P, G, B, steps, mask_id, pad_id, control, rule = case
        budget = revising.TransferCounts(B, steps // (G // B), rule or "even")
        banned = torch.tensor(sorted({mask_id, pad_id, *(control or ())}))
        _, seen, _ = reference_run(kind, case, seed)
        for (start, ids, logits), want in zip(seen, plan):
            if not want.k:   # the prompt's run, a clean run: nothing committed
                continue
            block = slice(P + (want.block - 1) * B - start, P + want.block * B - start)
            probs = torch.softmax(logits.float().index_fill(-1, banned, -math.inf), -1)[block]
            top = probs[ids[block] == mask_id].topk(2, dim=-1).values
            lead = min(lead, float((top[:, 0] - top[:, 1]).min()))
            k = budget[want.k - 1]
            confidence = top[:, 0].sort(descending=True).values
            if 0 < k < len(confidence):
                margin = min(margin, float(confidence[k - 1] - confidence[k]))
    assert lead >= 1e-3 and margin >= 4e-3, (lead, margin)


def mutant_message(name, check):
    mutant = next(m for m in catalog.MUTANTS if m.name == name)
    return grading.evaluate(check, mutant.load()).message


def test_a_sampler_that_stores_a_block_before_it_is_final_is_told_so():
    said = mutant_message("the clean run's keys dropped, the last call's (still masked) appended",
                          "SampleBlocksCached.exact")
    assert said == ("SampleBlocksCached(net, prompt, 4, 1, 4, 1, 0, (5,), 'even') with a prompt of 0 ids: the past "
                    "of call 3 of net (block 2's call 1): the keys and values of position 0 were made by call 1, "
                    "while its block still had masks: a block's keys and values are stored from one more, clean, "
                    "run after its last call, once its ids are final"), said


def test_a_sampler_that_runs_the_last_block_again_is_told_nothing_reads_it():
    said = mutant_message("the last block run clean too, its keys stored for nothing", "SampleBlocksCached.exact")
    assert said == ("SampleBlocksCached(net, prompt, 4, 1, 4, 1, 0, (5,), 'even') with a prompt of 0 ids: call 8 of "
                    "net ran position 3 (start=3) seeing 3 cached after the last one it should make (block 4's call "
                    "1): nothing reads the last block's keys and values, so the last block is not run again (each "
                    "finished block but the last gets one clean run); in all 8 calls ran 8 positions, not 7 running "
                    "7"), said


def test_a_hidden_key_and_a_stale_block_are_named():
    said = mutant_message("cached calls causal token by token inside the block", "SampleBlocksCached.exact")
    assert "was handed a mask that hid the key of x's position 1 from the query of x's position 0" in said, said
    said = mutant_message("dual: the block's own stale keys kept in the cache", "SampleBlocksPrefixCache.dual")
    assert said.endswith("the past of call 2 of net (block 1's call 2) holds positions 0 to 1; the dual cache holds "
                         "every position but the block's (positions 0 to 1), whose ids change as it fills"), said


def test_the_prompt_run_again_is_named():
    """A sampler that keeps the prompt's keys yet runs the prompt again with every block (the first case with a
    prompt, the check's fourth)."""
    source = catalog.REFERENCE["SampleBlocksCached"].replace(
        "logits = net(x[:, start:end], past=past, start=start)[0]",
        "logits = net(x[:, :end], BlockCausalMask(end, block_length, P))[0][:, start:]")
    case, seed = samplers.EXACT_CASES[3], 3
    student = as_student(Mutant("SampleBlocksCached", "again", source, ()).load())
    with pytest.raises(Failure) as failed:
        samplers.judged(student, reference.SampleBlocksCached, case, seed, samplers.exact_plan(*case[:4]), "it",
                        samplers.ExactRules(case))
    assert str(failed.value) == (
        "it: call 2 of net ran positions 0 to 8 (start=0) seeing 0 cached; it should be block 1's call 1, positions "
        "5 to 8 (start=5) seeing 5 cached: the prompt ran again. It runs once, first, as net(x[:, :P]); its keys and "
        "values are kept in past, and every later call runs the current block only")
