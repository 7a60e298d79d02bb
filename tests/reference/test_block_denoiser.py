"""Notebook 07's block-causal denoiser under the grader (maskdiff_solutions/block_denoiser.py), the twin of
test_story_denoiser.py: the copy a grading machine keeps is the very network the given cell
`block_training` would train, the cell loads it and says so (or trains it, and says that), Colab's path
trains the full-size network and never reads a kept file, and the networks the samplers run on hold no
gradients."""
import pytest
import torch

from maskdiff_solutions import block_denoiser
from maskdiff_solutions.corpus import MakeCorpus, StandInStories
from tests.support import cells, drawings
from tests.support.kept import run_training_cell, same_weights

pytestmark = pytest.mark.nb07

NB07 = "07_caching.ipynb"
FEW = 3   # training steps where only the recipe matters, not what it learns


@pytest.fixture(scope="module")
def before():
    """Notebook 07's namespace before the cell block_training, in quick mode (set-up, corpus, the
    bidirectional story denoiser and its CachingDenoiser twin, story_net)."""
    return cells.namespaces_before(NB07, ["block_training"])["block_training"]


@pytest.fixture(scope="module")
def trained():
    """The block-causal denoiser as a grading machine trains it, for FEW steps."""
    return block_denoiser.TrainBlockDenoiser(FEW)[0].state_dict()


def kept_file(cache):
    """Where the cell looks for the kept block-causal denoiser when the cache is `cache`."""
    stories = MakeCorpus(StandInStories())
    return block_denoiser.KeptBlockDenoiser(stories.tokens, len(stories.vocab) + 1, cache)


def run_block_cell(namespace, cache, monkeypatch, steps=block_denoiser.QUICK_BLOCK_STEPS):
    """The given cell (quick mode, unless the test says otherwise) with the cache `cache`, training
    `steps` steps where it trains. Returns what it printed."""
    return run_training_cell(namespace, NB07, "block_training", "QUICK_BLOCK_STEPS", steps, cache, monkeypatch)


def ready_for_sampling(net):
    """On the CPU, in eval mode, and not one parameter asking for a gradient."""
    return not net.training and all(p.device.type == "cpu" and not p.requires_grad for p in net.parameters())


def test_the_kept_block_denoiser_is_what_the_cell_trains(before, trained, tmp_path, monkeypatch):
    namespace = drawings.fresh_copy(before)
    printed = run_block_cell(namespace, tmp_path, monkeypatch, steps=FEW)
    assert printed.startswith(f"training the block-causal denoiser for {FEW} steps on cpu (quick mode: a smaller "
                              "denoiser, which learns in seconds)")
    assert same_weights(namespace["block_net"], trained)
    assert ready_for_sampling(namespace["block_net"])
    assert not list(tmp_path.iterdir()), "a kernel never writes into the cache"


def test_the_cell_loads_the_kept_block_denoiser_and_says_so(before, trained, tmp_path, monkeypatch):
    file = kept_file(tmp_path)
    torch.save(trained, file)
    namespace = drawings.fresh_copy(before)
    namespace["Train"] = lambda *args, **kwargs: pytest.fail("the cell trained beside a kept file")
    printed = run_block_cell(namespace, tmp_path, monkeypatch)
    assert printed == (f"quick mode: a smaller block-causal denoiser, trained for {block_denoiser.QUICK_BLOCK_STEPS} "
                       f"steps once on this grading machine and kept in {file}\n")
    assert same_weights(namespace["block_net"], trained)
    assert ready_for_sampling(namespace["block_net"])


def test_out_of_quick_mode_the_full_network_trains_and_no_kept_file_is_read(before, tmp_path, monkeypatch):
    """Colab's path: the full-size network, training_steps(3000, 1000, ...) steps of RandomBlockLoss on rows
    of BLOCK_ROW at Train's 1e-3, and a kept file, were there one, never read."""
    torch.save(block_denoiser.TrainBlockDenoiser(0)[0].state_dict(), kept_file(tmp_path))
    namespace, calls = drawings.fresh_copy(before), []

    def train(net, loss, batch, mask, steps, lr, desc):
        calls.append((loss, tuple(batch().shape), mask, steps, lr))
        return []

    namespace.update(QUICK=False, Train=train)
    printed = run_block_cell(namespace, tmp_path, monkeypatch)
    assert printed == "training the block-causal denoiser for 1000 steps on cpu\n"
    assert calls == [(namespace["RandomBlockLoss"], (64, block_denoiser.BLOCK_ROW), namespace["MASK_ID"], 1000, 1e-3)]
    full = block_denoiser.CachingDenoiser(len(namespace["story_words"]), pad_id=namespace["PAD_ID"])
    assert {k: v.shape for k, v in namespace["block_net"].state_dict().items()} == {
        k: v.shape for k, v in full.state_dict().items()}
    assert ready_for_sampling(namespace["block_net"])
    namespace["device"] = "cuda"   # what the cell's training_steps(3000, 1000, ...) gives on a GPU
    assert namespace["training_steps"](3000, 1000, block_denoiser.QUICK_BLOCK_STEPS) == 3000


def test_a_damaged_kept_file_is_said_and_the_cell_trains_instead(before, trained, tmp_path, monkeypatch):
    file = kept_file(tmp_path)
    file.write_bytes(b"not a state dict")
    namespace = drawings.fresh_copy(before)
    printed = run_block_cell(namespace, tmp_path, monkeypatch, steps=FEW)
    assert f"could not load {file}" in printed and f"training the block-causal denoiser for {FEW} steps" in printed
    assert same_weights(namespace["block_net"], trained)


def test_the_file_names_the_recipe_the_seed_and_the_corpus(tmp_path):
    from maskdiff_solutions.story_denoiser import KeptDenoiser
    tokens = torch.arange(10)
    name = block_denoiser.KeptBlockDenoiser(tokens, 12, tmp_path).name
    assert name.startswith(f"block-denoiser-v{block_denoiser.BLOCK_KEPT_VERSION}-seed0-12-words-text-")
    assert block_denoiser.KeptBlockDenoiser(tokens + 1, 12, tmp_path).name != name
    assert block_denoiser.KeptBlockDenoiser(tokens, 13, tmp_path).name != name
    assert KeptDenoiser(tokens, 12, tmp_path).name != name, "the two denoisers of one corpus are kept apart"


def test_a_grading_machine_trains_it_once(tmp_path, monkeypatch):
    trained, real = [], block_denoiser.TrainBlockDenoiser

    def train(steps=block_denoiser.QUICK_BLOCK_STEPS):
        trained.append(steps)
        return real(FEW)

    monkeypatch.setattr(block_denoiser, "TrainBlockDenoiser", train)
    first = block_denoiser.KeepBlockDenoiser(tmp_path)
    assert block_denoiser.KeepBlockDenoiser(tmp_path) == first and trained == [block_denoiser.QUICK_BLOCK_STEPS]
    assert first == kept_file(tmp_path), "kept where the cell looks"
    assert [p.name for p in tmp_path.iterdir()] == [first.name], "no partial file is left behind"


def test_the_samplers_networks_hold_no_gradients(before):
    """story_net (cell caching_denoiser) only samples, as block_net does (the tests above): requires_grad_(False),
    so no sampler's call builds a graph, whatever the student's code does around it."""
    story_net = before["story_net"]
    assert ready_for_sampling(story_net)
    assert not story_net(before["StoryTokens"]("once upon a time ,")[None])[0].requires_grad
