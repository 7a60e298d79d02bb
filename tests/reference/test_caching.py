"""Reference of notebook 07 (maskdiff_solutions/caching.py, block_denoiser.py): the block-causal mask
against a brute-force definition, the closed forms of TokensProcessed against a call-by-call count and
the samplers' counting wrapper, CachingDenoiser as TinyDenoiser's twin, BD3-LM's loss against its
block-by-block definition, the exact cache writing the uncached sampler's tokens (ties too), and the
prefix and dual caches."""
import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from maskdiff_client.denoiser import TinyDenoiser
from maskdiff_solutions import caching
from maskdiff_solutions.block_denoiser import BlockDiffusionLoss, CachingDenoiser, TrainBlockDenoiser
from maskdiff_solutions.revising import SampleBlocks
from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture

pytestmark = pytest.mark.nb07

# (prompt_length, gen_length, block_length, steps, rule): one block, several, a block of one position,
# more calls per block than positions (calls that reveal nothing), no prompt, the dllm rounding
SHAPES = [(0, 8, 4, 4, "even"), (3, 8, 2, 8, "even"), (5, 12, 4, 6, "schedule"), (7, 16, 8, 4, "even"),
          (1, 6, 6, 3, "schedule"), (2, 4, 2, 6, "even"), (4, 12, 3, 8, "even"), (6, 5, 1, 5, "even")]


@pytest.fixture(scope="module")
def block_net():
    """A briefly trained block-causal denoiser, in float64 so that rounding cannot tip a near tie."""
    net, stories = TrainBlockDenoiser(steps=60, size=dict(dim=32, heads=4, layers=2))
    return net.double(), stories


def prompt_of(stories, length):
    return stories.tokens[100:100 + length]


SAMPLERS = (caching.SampleBlocksPrefixCache, caching.SampleBlocks)   # CacheDrift's two samplers


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


# ---------------------------------------------------------------- CachingDenoiser

def test_the_twin_is_tiny_denoiser_bit_for_bit_and_their_weights_load_both_ways():
    torch.manual_seed(0)
    tiny = TinyDenoiser(20, dim=32, heads=4, layers=2, max_length=16, pad_id=19).eval()
    twin = CachingDenoiser.Twin(tiny)
    x = torch.randint(0, 19, (3, 12))
    x[1, 8:] = 19
    x[2] = 19   # a row of padding sees itself
    # bit for bit on any thread count: the twin does the very same operations on the same shapes (it holds at 1,
    # 2 and 4 threads without this module's one-thread fixture, which is for speed)
    assert torch.equal(tiny(x), twin(x)[0])
    other = TinyDenoiser(20, dim=32, heads=4, layers=2, max_length=16, pad_id=19)
    other.load_state_dict(twin.state_dict())
    assert torch.equal(other.eval()(x), tiny(x))
    assert {name for name, _ in twin.named_parameters()} == {name for name, _ in tiny.named_parameters()}


def test_a_row_in_pieces_with_its_cache_gives_the_block_causal_logits(block_net):
    net, stories = block_net
    x = stories.tokens[:15][None].repeat(2, 1)
    x[1, 9] = stories.mask
    whole = net(x, caching.BlockCausalMask(15, 4, 3))[0]
    past, pieces = None, []
    for start, end in ((0, 3), (3, 7), (7, 11), (11, 15)):
        logits, present = net(x[:, start:end], past=past, start=start)
        pieces.append(logits)
        past = caching._appended(past, present)
    torch.testing.assert_close(torch.cat(pieces, 1), whole, rtol=0, atol=1e-12)


def test_a_mask_of_the_wrong_shape_is_refused(block_net):
    net, stories = block_net
    with pytest.raises(ValueError, match=r"attend must be \[n, P \+ n\] = \[6, 6\]"):
        net(stories.tokens[:6][None], torch.ones(6, 7, dtype=torch.bool))


# ---------------------------------------------------------------- BD3-LM's loss

def test_the_loss_is_each_block_denoised_after_its_clean_context(block_net):
    """Replays the loss's draws, then denoises each block of each row on a row cut after it: clean
    before the block, the block noised, under BlockCausalMask."""
    net, stories = block_net
    x_0, prompt_length, block_length, T = stories.GetBatch(3, 11), 3, 4, 100
    torch.manual_seed(5)
    loss = BlockDiffusionLoss(net, x_0, stories.mask, block_length, prompt_length, T)
    torch.manual_seed(5)
    t = torch.randint(1, T + 1, (3, 3))
    draw = torch.rand(3, 11)
    want = 0.0
    for b in range(3):
        for j in (1, 2):
            start, end = prompt_length + (j - 1) * block_length, prompt_length + j * block_length
            masked = draw[b, start:end] < t[b, j] / T
            row = x_0[b, :end].clone()
            row[start:end][masked] = stories.mask
            logits = net(row[None], caching.BlockCausalMask(end, block_length, prompt_length))[0][0, start:end]
            surprise = F.cross_entropy(logits, x_0[b, start:end], reduction="none")
            want += float((T / t[b, j]) * surprise[masked].sum().detach()) / 3
    assert math.isclose(float(loss.detach()), want, rel_tol=1e-6)   # T / t is a float32


def test_training_lowers_the_loss(block_net):
    net, stories = block_net
    untrained, _ = TrainBlockDenoiser(steps=0, size=dict(dim=32, heads=4, layers=2))

    def mean_loss(net):
        torch.manual_seed(1)
        with torch.no_grad():
            return sum(float(BlockDiffusionLoss(net, stories.GetBatch(32, 20), stories.mask, 4, 4))
                       for _ in range(5))
    assert mean_loss(net) < 0.9 * mean_loss(untrained.double())


# ---------------------------------------------------------------- the exact cache

@pytest.mark.parametrize("prompt_length,gen_length,block_length,steps,rule", SHAPES)
def test_the_cached_sampler_writes_the_uncached_ones_tokens(block_net, prompt_length, gen_length, block_length,
                                                            steps, rule):
    net, stories = block_net
    prompt, args = prompt_of(stories, prompt_length), (gen_length, block_length, steps, stories.mask, 1 + stories.mask)
    plain, cached = caching.Counted(net), caching.Counted(net)
    want = caching.SampleBlocksBlockCausal(plain, prompt, *args, rule=rule)
    got = caching.SampleBlocksCached(cached, prompt, *args, rule=rule)
    assert torch.equal(got, want)
    assert torch.equal(got[:prompt_length], prompt) and not (got == stories.mask).any()
    shape = (prompt_length, gen_length, block_length, steps)
    assert plain.positions == caching.TokensProcessed(*shape, "none") and plain.calls == steps
    assert cached.positions == caching.TokensProcessed(*shape, "exact")


def test_the_uncached_sampler_is_sample_blocks_under_the_mask(block_net):
    net, stories = block_net
    prompt, args = prompt_of(stories, 5), (12, 4, 6, stories.mask, 1 + stories.mask)
    attend = caching.BlockCausalMask(17, 4, 5)
    assert torch.equal(caching.SampleBlocksBlockCausal(net, prompt, *args),
                       SampleBlocks(lambda x: net(x, attend)[0], prompt, *args))


class TiedNet:
    """A stand-in with the network's interface and the same confidence at every position: position i's
    one candidate is 1 + (i + the number of unmasked tokens it sees) % 5, so which tied position is
    committed first changes what the others write. Its "keys" are the unmasked flags, cached as keys are."""

    def __init__(self, mask_id):
        self.mask_id = mask_id

    def __call__(self, x, attend=None, past=None, start=0):
        flags = (x != self.mask_id).double()[:, None, :, None]
        keys = flags if past is None else torch.cat([past[0][0], flags], 2)
        seen = (keys[:, 0, :, 0][:, None, :] * (1.0 if attend is None else attend.double())).sum(-1)
        candidate = 1 + (torch.arange(start, start + x.shape[1]) + seen.long()) % 5
        return 4.0 * F.one_hot(candidate, 8).double(), [(flags, flags)]


@pytest.mark.parametrize("prompt_length,gen_length,block_length,steps,rule", SHAPES)
def test_ties_are_broken_alike_with_and_without_the_cache(prompt_length, gen_length, block_length, steps, rule):
    net, prompt = TiedNet(mask_id=7), torch.arange(prompt_length) % 5 + 1
    args = (prompt, gen_length, block_length, steps, 7, 6)
    want = caching.SampleBlocksBlockCausal(net, *args, rule=rule)
    assert torch.equal(caching.SampleBlocksCached(net, *args, rule=rule), want)


# ---------------------------------------------------------------- the prefix and dual caches

@pytest.fixture(scope="module")
def full_net():
    """A bidirectional denoiser (untrained) as its CachingDenoiser twin, in float64."""
    torch.manual_seed(3)
    return CachingDenoiser.Twin(TinyDenoiser(30, dim=32, heads=4, layers=2, max_length=32, pad_id=29).double().eval())


@pytest.mark.parametrize("dual", [False, True])
@pytest.mark.parametrize("prompt_length,gen_length,block_length,steps,rule", SHAPES)
def test_the_prefix_caches_see_what_tokens_processed_says(full_net, dual, prompt_length, gen_length, block_length,
                                                          steps, rule):
    counted, kept = caching.Counted(full_net), []
    row = caching.SampleBlocksPrefixCache(counted, torch.arange(prompt_length), gen_length, block_length, steps,
                                          28, 29, rule=rule, dual=dual, kept=kept)
    n = gen_length // block_length
    assert len(kept) == n and all(k.shape == (1, 4, prompt_length + gen_length, 8) for k in kept[0])
    assert not (row == 28).any()
    want = caching.TokensProcessed(prompt_length, gen_length, block_length, steps, "dual" if dual else "prefix")
    assert counted.positions == want


@pytest.mark.parametrize("dual", [False, True])
@pytest.mark.parametrize("prompt_length,gen_length,block_length,steps,rule", SHAPES)
def test_the_prefix_caches_are_exact_where_held_keys_cannot_go_stale(dual, prompt_length, gen_length, block_length,
                                                                     steps, rule):
    """TiedNet's keys are unmasked flags: the prefix's never change once its block is done, and a dual
    cache's suffix stays masked while a block is filled, so both caches must write SampleBlocks' tokens
    (a cache held past its refresh, or refreshed at the wrong place, would not)."""
    net, prompt = TiedNet(mask_id=7), torch.arange(prompt_length) % 5 + 1
    args = (prompt, gen_length, block_length, steps, 7, 6)
    want = SampleBlocks(lambda x: net(x)[0], *args, rule=rule)
    assert torch.equal(caching.SampleBlocksPrefixCache(net, *args, rule=rule, dual=dual), want)


@pytest.mark.parametrize("dual", [False, True])
def test_with_one_call_a_block_every_call_refreshes_and_nothing_is_stale(full_net, dual):
    for prompt_length, gen_length, block_length in ((3, 12, 4), (0, 6, 2), (5, 8, 8)):
        args = (torch.arange(prompt_length), gen_length, block_length, gen_length // block_length, 28, 29)
        assert torch.equal(caching.SampleBlocksPrefixCache(full_net, *args, dual=dual),
                           SampleBlocks(lambda x: full_net(x)[0], *args))
        drift = caching.CacheDrift(*SAMPLERS, full_net, [args[0]], *args[1:], dual=dual)
        assert drift["agreement"] == 1.0


def test_the_drift_of_keys_that_cannot_change_is_zero(full_net):
    still = CachingDenoiser.Twin(full_net)
    for block in still.blocks:   # keys from the bias alone, whatever the tokens
        block.qkv.weight.data.zero_()
    drift = caching.CacheDrift(*SAMPLERS, still, [torch.arange(4)], 12, 4, 6, 28, 29, dual=True)
    assert drift["key_change"] == 0.0 and drift["key_size"] > 0


def test_the_drift_with_one_block_has_no_change_to_measure(full_net):
    drift = caching.CacheDrift(*SAMPLERS, full_net, [torch.arange(4), torch.arange(2)], 8, 8, 4, 28, 29)
    assert 0 <= drift["agreement"] <= 1 and math.isnan(drift["key_change"])


def test_the_drift_pools_the_held_positions_of_each_refresh(full_net):
    """Prefix, two prompts of 2, three blocks of 2: refresh 1 holds positions 0-1, refresh 2 positions 0-3."""
    prompts, args = [torch.tensor([1, 2]), torch.tensor([3, 4])], (6, 2, 6, 28, 29)
    change, size = [], []
    for prompt in prompts:
        kept = []
        caching.SampleBlocksPrefixCache(full_net, prompt, *args, kept=kept)
        for r, held in ((1, 2), (2, 4)):
            for before, after in zip(kept[r - 1], kept[r]):
                change.append((after - before)[:, :, :held].abs().flatten())
                size.append(before[:, :, :held].abs().flatten())
    drift = caching.CacheDrift(*SAMPLERS, full_net, prompts, *args)
    assert math.isclose(drift["key_change"], float(torch.cat(change).mean()), rel_tol=1e-12)
    assert math.isclose(drift["key_size"], float(torch.cat(size).mean()), rel_tol=1e-12)
