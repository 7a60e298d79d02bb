"""Every number and claim of notebook 07's text that the code decides, held to the reference
(maskdiff_solutions/caching.py, block_denoiser.py): the counts of the four caches, the first prompt's 5
tokens, the block lengths training draws, the positions of the visible tests, the prefix cache that is
SampleBlocks with one call a block, notebook 5's sampler as one block, the computed threshold row of
`show_costs` against a cached run, the first layer's keys as the only exact ones. Fast-dLLM's figures
come from its paper, not from this code, and are left alone."""
import contextlib
import io
import math
import re

import pytest
import torch

from maskdiff_client.denoiser import TinyDenoiser
from maskdiff_solutions import block_denoiser, caching
from maskdiff_solutions.batched import candidate_distributions, reverse_update, sample
from maskdiff_solutions.block_denoiser import CachingDenoiser, TrainBlockDenoiser
from maskdiff_solutions.corpus import MakeCorpus, StandInStories
from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.course.layout import KEPT_FOR
from maskdiff_solutions.revising import SampleBlocks
from maskdiff_solutions.story_denoiser import QUICK_SIZE
from tests.support import cells
from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture

pytestmark = pytest.mark.nb07

NB07 = "07_caching.ipynb"
FIRST_PROMPT = "once upon a time ,"
G, B, STEPS = 24, 8, 24   # the costs of the text and of show_costs: 24 generated, blocks of 8, 24 steps


def text():
    """The markdown a student reads (and the model answers), whitespace collapsed."""
    return " ".join(" ".join(c.source.split()) for c in cells.notebook_cells(NB07) if c.cell_type == "markdown")


@pytest.fixture(scope="module")
def stories():
    return MakeCorpus(StandInStories())


@pytest.fixture(scope="module")
def story_net(stories):
    """A bidirectional story denoiser of the grader's size (untrained: which tokens it writes does not matter
    here) as its CachingDenoiser twin, and its pad id."""
    torch.manual_seed(0)
    pad = len(stories.vocab)
    return CachingDenoiser.Twin(TinyDenoiser(pad + 1, pad_id=pad, **QUICK_SIZE).eval()).requires_grad_(False), pad


@pytest.fixture(scope="module")
def block_net():
    """A barely trained block-causal denoiser (what it writes does not matter here), in float64 so that no
    threshold is crossed by rounding."""
    net, stories = TrainBlockDenoiser(steps=10, size=dict(dim=32, heads=4, layers=2))
    return net.double().requires_grad_(False), stories


def test_the_counts_the_text_and_the_visible_test_state():
    said = text()
    counts = {"none": 696, "prefix": 423, "dual": 255, "exact": 213}
    assert ("For a prompt of 5 tokens and 24 generated ones in blocks of 8 with 24 steps: 696 positions without a "
            "cache, 423 with the prefix cache, 255 with the dual cache and 213 with the exact cache.") in said
    assert {cache: caching.TokensProcessed(5, G, B, STEPS, cache) for cache in caching.CACHES} == counts
    visible = cells.cell_source(NB07, "test_TokensProcessed_counts")
    assert str(list(counts.items())).replace("'", '"') in visible
    assert "== 6 + 2 * 6" in visible and ": 18\"" in visible and caching.TokensProcessed(0, 6, 6, 3, "prefix") == 18


def test_the_first_prompt_has_five_tokens_in_any_vocabulary(stories):
    """StoryTokens cuts words and punctuation before it looks at the vocabulary: 5 tokens in the stand-in
    stories' (each word known) and in TinyStories' (whose words the grader never downloads) alike."""
    said = text()
    assert "(5 is the length of the first prompt)" in said and f'`StoryTokens("{FIRST_PROMPT}")` (5 tokens)' in said
    ids = stories.StoryTokens(FIRST_PROMPT)
    assert len(ids) == 5 and stories.unk not in ids.tolist()
    unrelated = MakeCorpus("zebras quietly eat blue cheese . " * 40)
    assert len(unrelated.StoryTokens(FIRST_PROMPT)) == 5
    plot = cells.cell_source(NB07, "plot_cache_drift")
    assert f'["{FIRST_PROMPT}", "the dog", "lily went to the", "one day ,"]' in plot
    assert 'TokensProcessed(5, 24, block_length, 24, "prefix")' in plot
    assert f'prompt = StoryTokens("{FIRST_PROMPT}")' in cells.cell_source(NB07, "show_costs")


def test_the_plot_task_s_block_lengths_and_its_lines():
    """BLOCKS = [2, 4, 8, 12, 24] each split 24 tokens and 24 steps; the line without a cache is 696 at every
    block length; only block 24 is one block (no key change to draw); and the model answer's positions of
    the prefix cache fall, then rise again."""
    said = text()
    blocks = [2, 4, 8, 12, 24]
    assert f"`BLOCKS = {blocks}`" in said and f"BLOCKS = {blocks}" in cells.cell_source(NB07, "plot_cache_drift")
    assert "a line for the 696 positions without a cache" in said
    assert {caching.TokensProcessed(5, G, b, STEPS, "none") for b in blocks} == {696}
    assert [b for b in blocks if G // b == 1] == [24] and "at block length 24 there is none" in said
    prefix = [caching.TokensProcessed(5, G, b, STEPS, "prefix") for b in blocks]
    lowest = prefix.index(min(prefix))
    assert "positions processed fall and then rise again" in said and 0 < lowest < len(blocks) - 1
    assert prefix[:lowest + 1] == sorted(prefix[:lowest + 1], reverse=True) and prefix[lowest:] == sorted(prefix[lowest:])


def test_the_block_lengths_training_draws(monkeypatch):
    said = text()
    assert "Training draws a block length of 2, 4 or 8 and a prompt length for each batch" in said
    assert block_denoiser.BLOCK_LENGTHS == (2, 4, 8)
    drawn = []
    monkeypatch.setattr(block_denoiser, "BlockDiffusionLoss",
                        lambda net, x_0, mask, block, prompt: drawn.append((block, prompt, x_0.shape[1])))
    torch.manual_seed(0)
    for _ in range(300):
        block_denoiser.RandomBlockLoss(None, torch.zeros(2, block_denoiser.BLOCK_ROW, dtype=torch.long), 0)
    assert {block for block, _, _ in drawn} == {2, 4, 8}
    for block, prompt, length in drawn:
        assert 0 <= prompt <= block_denoiser.BLOCK_ROW - block and (length - prompt) % block == 0
        assert block_denoiser.BLOCK_ROW - length < block, "as many whole blocks as fit"


def test_the_blocks_of_the_definition():
    """Generated position i >= P is in block 1 + floor((i - P) / block_length); the prompt sees the whole
    prompt and none of the generation; every generated position sees the whole prompt."""
    said = text()
    assert r"block $1 + \lfloor (i - P) / \texttt{block\_length} \rfloor$" in said
    P, b, length = 5, 4, 17
    assert caching.BlockIndex(length, b, P).tolist() == [0] * P + [1 + (i - P) // b for i in range(P, length)]
    mask = caching.BlockCausalMask(length, b, P)
    assert mask[:P, :P].all() and not mask[:P, P:].any() and mask[P:, :P].all()


VISIBLE = ["test_BlockCausalMask_mask", "test_BlockCausalMask_errors", "test_TokensProcessed_counts",
           "test_TokensProcessed_errors", "test_SampleBlocksCached_exact", "test_SampleBlocksCached_errors",
           "test_SampleBlocksPrefixCache_prefix", "test_SampleBlocksPrefixCache_dual",
           "test_SampleBlocksPrefixCache_errors"]


@pytest.mark.parametrize("grade_id", VISIBLE)
def test_the_visible_checks_pass_on_the_reference(grade_id):
    """Each function test cell's visible part (what Colab runs) with the reference's function: its
    matrices, counts and rows are the reference's."""
    source = cells.cell_source(NB07, grade_id)
    visible = source[source.index(nbtools.END_HIDDEN) + len(nbtools.END_HIDDEN):]
    function = grade_id.split("_")[1]
    namespace = {"torch": torch, "Counted": caching.Counted, function: getattr(caching, function)}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(visible, grade_id, "exec"), namespace)
    assert printed.getvalue().startswith("visible checks for ") and "stub" not in printed.getvalue()


def toy_net():
    """The stand-in network the samplers' visible tests define (one source, three cells)."""
    sources = {grade_id: cells.cell_source(NB07, grade_id) for grade_id in VISIBLE[4:] if "errors" not in grade_id}
    defined = {re.search(r"def toy_net.*?return logits, \[\(kv, kv\)\]\n", s, re.S).group(0) for s in sources.values()}
    assert len(defined) == 1, "the three cells share one toy_net"
    namespace = {"torch": torch}
    exec(defined.pop(), namespace)
    return namespace["toy_net"]


@pytest.mark.parametrize("sampler,options,cache,said", [
    (caching.SampleBlocksCached, {}, "exact", "1 + 4 * 2 + 2"),
    (caching.SampleBlocksPrefixCache, {}, "prefix", "5 + 4 + 5 + 2"),
    (caching.SampleBlocksPrefixCache, {"dual": True}, "dual", "5 + 2 + 5 + 2"),
])
def test_the_positions_of_the_visible_tests_are_the_counts(sampler, options, cache, said):
    """11, 16 and 14: the reference samplers on the cells' toy network, one prompt token, two blocks of 2,
    four steps, see what TokensProcessed says."""
    counted = caching.Counted(toy_net())
    row = sampler(counted, torch.tensor([7]), 4, 2, 4, 1, 0, **options)
    assert row.tolist() == [7, 3, 4, 5, 6]
    assert counted.positions == caching.TokensProcessed(1, 4, 2, 4, cache) == eval(said)
    sources = " ".join(cells.cell_source(NB07, g) for g in VISIBLE[4:])
    assert f"counted.positions == {said}" in sources
    assert re.search(rf"\b{eval(said)}( positions)?, got {{counted.positions}}", sources), "the message says it too"


def test_with_one_call_a_block_the_prefix_sampler_is_sample_blocks(story_net, stories):
    """"With one block per sample the kept keys are refreshed only once; with one call per block they are
    never used: then the sampler is exactly SampleBlocks" (and CacheDrift says nan with one block)."""
    said = text()
    assert ("With one block per sample the kept keys are refreshed only once; with one call per block they are "
            "never used: then the sampler is exactly `SampleBlocks`.") in said
    assert "(`nan` with a single block: nothing is held twice)" in said
    net, pad = story_net
    prompt, control = stories.StoryTokens(FIRST_PROMPT), [stories.unk]
    for b in (2, 8, 24):
        for dual in (False, True):
            counted, kept = caching.Counted(net), []
            row = caching.SampleBlocksPrefixCache(counted, prompt, G, b, G // b, stories.mask, pad, control, dual=dual,
                                                  kept=kept)
            # bit for bit though the net is untrained (near ties) and float32: with one call a block every call
            # is a refresh, net(x) on the whole row, as SampleBlocks' call, in this process on this thread count
            assert torch.equal(row, SampleBlocks(lambda x: net(x)[0], prompt, G, b, G // b, stories.mask, pad, control))
            assert counted.calls == len(kept) == G // b and counted.positions == G // b * (5 + G)
    kept = []
    caching.SampleBlocksPrefixCache(net, prompt, G, G, STEPS, stories.mask, pad, control, kept=kept)
    assert len(kept) == 1
    drift = caching.CacheDrift(caching.SampleBlocksPrefixCache, SampleBlocks, net, [prompt], G, G, STEPS, stories.mask,
                               pad, control)
    assert math.isnan(drift["key_change"])


def test_one_block_of_24_is_notebook_5s_sampler(story_net, stories):
    """show_costs' first row: SampleBlocks with one block of 24 and 24 steps is notebook 5's `sample`."""
    assert "notebook 5's sampler: `SampleBlocks` on `story_model` with one block of 24 and 24 steps" in text()
    net, pad = story_net
    model = lambda x: net(x)[0]   # noqa: E731 - story_model's logits
    for words, steps in ((FIRST_PROMPT, 24), ("the dog", 24), ("lily went to the", 7)):
        prompt = stories.StoryTokens(words)
        blocks = SampleBlocks(model, prompt, G, G, steps, stories.mask, pad, [stories.unk])
        whole = sample(model, [prompt], [len(prompt) + G], steps, stories.mask, pad, [stories.unk])[0]
        # bit for bit: one row of the prompt's length plus G, no padding, so both call the model on the same
        # [1, len(prompt) + G] row and commit through the same candidate_distributions and reverse_update
        assert torch.equal(blocks, whole), words


@torch.no_grad()
def cached_above(net, prompt, gen_length, block_length, tau, mask_id, pad_id, control_ids=()):
    """SampleBlocksAbove with the exact cache: the prompt once, each call on its block alone, each finished
    block but the last once more, clean (SampleBlocksCached's calls with SampleBlocksAbove's commits)."""
    prompt = torch.as_tensor(prompt, dtype=torch.long).reshape(-1)
    P, controls = len(prompt), sorted({mask_id, pad_id, *control_ids})
    x = torch.cat([prompt, torch.full((gen_length,), mask_id, dtype=torch.long)])[None]
    past = net(x[:, :P])[1] if P else None
    for start in range(P, P + gen_length, block_length):
        end = start + block_length
        slots = torch.zeros_like(x, dtype=torch.bool)
        slots[0, start:end] = True
        while (x[slots] == mask_id).any():
            logits = net(x[:, start:end], past=past, start=start)[0]
            row = logits.new_zeros(x.shape + logits.shape[-1:])
            row[:, start:end] = logits
            confidence, candidates = candidate_distributions(lambda _: row, x, controls).max(dim=-1)
            sure = int((slots & (x == mask_id) & (confidence >= tau)).sum())
            x = reverse_update(x, candidates, confidence, slots, [max(1, sure)], mask_id, pad_id)
        if end < P + gen_length:
            past = caching._appended(past, net(x[:, start:end], past=past, start=start)[1])
    return x[0]


def test_the_computed_threshold_row_is_a_cached_run(block_net):
    """show_costs' row 7: with c the calls of SampleBlocksAbove, the exact cache makes 1 + c + (n - 1) calls
    and processes 5 + c * 8 + (n - 1) * 8 positions, n = 3 blocks, and writes the same tokens."""
    said = text()
    assert (r"the exact cache would make $1 + c + (n - 1)$ calls and process $5 + c \times 8 + (n - 1) \times 8$ "
            r"positions, $n = 3$ blocks") in said and G // B == 3
    assert "Its calls could be cached exactly, like `SampleBlocksCached`'s" in said
    net, stories = block_net
    pad, prompt = len(stories.vocab), stories.StoryTokens(FIRST_PROMPT)
    first = candidate_distributions(lambda x: net(x, caching.BlockCausalMask(5 + G, B, 5))[0],
                                            torch.cat([prompt, torch.full((G,), stories.mask)])[None],
                                            [stories.mask, pad, stories.unk])[0, 5:5 + B].max(-1).values.sort().values
    middle = float(first[3] + first[4]) / 2   # the first call commits 4 of the first block's 8
    calls = {}
    for tau in (0.9, middle, 0.0):
        plain, cached = caching.Counted(net), caching.Counted(net)
        want = caching.SampleBlocksAbove(plain, prompt, G, B, tau, stories.mask, pad, [stories.unk])
        assert torch.equal(cached_above(cached, prompt, G, B, tau, stories.mask, pad, [stories.unk]), want)
        c, n = plain.calls, G // B
        assert (cached.calls, cached.positions) == (1 + c + (n - 1), 5 + c * B + (n - 1) * B), tau
        calls[tau] = c
    assert calls[0.0] == 3 and 3 < calls[middle] < G, calls


def test_only_the_first_layer_keeps_exact_keys(story_net, stories):
    """"Only the first layer's keys and values are exact for an unchanged token": commit one masked position,
    and the first layer's keys and values of every other position stay; from the second layer on every
    position's change."""
    said = text()
    assert "every key and value of the second layer on has changed, even at positions whose token did not" in said
    assert "Only the first layer's keys and values are exact for an unchanged token" in said
    net, _ = story_net
    x = torch.cat([stories.StoryTokens(FIRST_PROMPT), torch.full((8,), stories.mask)])[None]
    after = x.clone()
    after[0, 7] = stories.StoryTokens("dog")[0]
    before_kv, after_kv = net(x)[1], net(after)[1]
    others = torch.arange(x.shape[1]) != 7
    for layer, ((k0, v0), (k1, v1)) in enumerate(zip(before_kv, after_kv)):
        for old, new in ((k0, k1), (v0, v1)):
            moved = (new - old).abs().amax(dim=(0, 1, 3))   # per position
            if layer == 0:
                assert not moved[others].any() and moved[7] > 0
            else:
                assert (moved > 0).all(), layer


def test_the_grader_s_denoisers_and_repeats_the_text_states():
    """"under it both denoisers are small ones, trained once per grading machine, and repeats(n) gives a fifth
    of n, never below 100"."""
    said = text()
    assert ("under it both denoisers are small ones, trained once per grading machine, and `repeats(n)` gives a "
            "fifth of `n`, never below 100") in said
    assert KEPT_FOR["07_caching"] == ("story_denoiser", "block_denoiser")
    assert "**(QUICK_SIZE if QUICK else {})" in cells.cell_source(NB07, "block_training")
    namespace = {}
    setup = cells.cell_source(NB07, "setup")
    exec(setup[setup.index("def repeats"):setup.index("def training_steps")], namespace)
    for n, quick in ((100, 100), (400, 100), (1000, 200), (5000, 1000)):
        namespace["QUICK"] = True
        assert namespace["repeats"](n) == quick == max(100, n // 5)
        namespace["QUICK"] = False
        assert namespace["repeats"](n) == n
