"""Hidden function checks of notebook 07: the reference passes under any seed, so do the catalog's solution
cells and correct functions written in other styles (a lower triangle with the blocks filled in, numpy,
a double loop over Python lists, numbers compared into Booleans; a loop over the calls, a 0-d tensor,
a numpy integer, a float), and every mutant loses exactly the marks it names."""
import re
from pathlib import Path

import pytest

from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks
from tests.mutants import AHEAD_OF_THEIR_NOTEBOOK, Mutant
from tests.mutants import caching as catalog
from tests.support import function_checks

pytestmark = pytest.mark.nb07

CHECKS = ["BlockCausalMask.mask", "BlockCausalMask.errors", "TokensProcessed.counts", "TokensProcessed.errors"]
FUNCTIONS = function_checks.functions(CHECKS)
xdist_group = function_checks.xdist_group   # tests/conftest.py reads it: the tests share nothing
NOTEBOOK = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "07_caching.ipynb"


def checks_of(function):
    return function_checks.checks_of(CHECKS, function)


# every check registered is here; the reference passes under every seed, so do the catalog's cells
test_every_registered_check_is_covered, test_reference_passes, test_the_catalogs_solution_cells_pass = \
    function_checks.shared_tests(CHECKS, "caching", catalog.REFERENCE)


def test_the_catalog_waits_for_its_notebook():
    """Notebook 07 is still to be written: its catalog is kept out of what places mutants in notebooks
    (tests/mutants/__init__.py). Once the notebook is in, drop "caching" there and "07_caching" in
    tests/course/term/test_gradescope.py, and hold REFERENCE to its cells as test_checks_revising.py does."""
    assert "caching" in AHEAD_OF_THEIR_NOTEBOOK
    assert not NOTEBOOK.exists(), "notebook 07 is in: its mutants can go in its cells now"
    defined = {notebooks.grade_id(cell) for path in NOTEBOOK.parent.glob("*.ipynb") for cell in notebooks.read(path).cells}
    assert not defined & set(FUNCTIONS)


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
