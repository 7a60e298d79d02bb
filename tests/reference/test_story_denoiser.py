"""Notebooks 05 and 06's story denoiser under the grader (maskdiff_solutions/story_denoiser.py): the copy a
grading machine keeps is the very denoiser the given cell would train, the cell loads it and says so (or
trains it, and says that), and its stories are stories: the samplers of notebook 06's entropy figure write
varied text, far from the degenerate `the the … the`, and the reference figure keeps its point."""
import pytest
import torch

from maskdiff_solutions import story_denoiser
from maskdiff_solutions.corpus import MakeCorpus, StandInStories
from maskdiff_solutions.revising import SampleEntropy
from tests.support import cells, drawings
from tests.support.kept import run_training_cell, same_weights

pytestmark = [pytest.mark.nb05, pytest.mark.nb06]

NB05, NB06 = "05_sampler_internals.ipynb", "06_revising_and_faster.ipynb"
SAMPLERS = ("blocks of 8", "one block of 32", "remasking")
FEW = 3   # training steps where only the recipe matters, not what it learns


def xdist_group(item):
    """The figure's tests run on the worker that runs notebook 06 for its plot checks (tests/conftest.py)."""
    return drawings.worker_group(NB06) if "figure" in item.name else None


def kept_file(cache):
    """Where the cell looks for the kept denoiser when the cache is `cache`."""
    stories = MakeCorpus(StandInStories())
    return story_denoiser.KeptDenoiser(stories.tokens, len(stories.vocab) + 1, cache)


@pytest.fixture(scope="module")
def before():
    """{notebook: its namespace before the cell story_denoiser}, in quick mode (set-up, corpus, ...)."""
    return {name: cells.namespaces_before(name, ["story_denoiser"])["story_denoiser"] for name in (NB05, NB06)}


def run_story_cell(namespace, notebook, cache, monkeypatch, steps=story_denoiser.QUICK_STEPS):
    """The given cell (quick mode: the namespace's set-up cell ran under the grader) with the cache
    `cache`, training `steps` steps where it trains. Returns what it printed."""
    return run_training_cell(namespace, notebook, "story_denoiser", "QUICK_STEPS", steps, cache, monkeypatch)


@pytest.mark.parametrize("notebook", [NB05, NB06])
def test_the_kept_denoiser_is_what_the_cell_trains(before, notebook, tmp_path, monkeypatch):
    namespace = drawings.fresh_copy(before[notebook])
    printed = run_story_cell(namespace, notebook, tmp_path, monkeypatch, steps=FEW)
    assert f"training the denoiser for {FEW} steps" in printed and "a smaller denoiser" in printed
    kept, _ = story_denoiser.TrainQuickDenoiser(FEW)
    assert same_weights(namespace["denoiser"], kept.state_dict())
    assert not list(tmp_path.iterdir()), "a kernel never writes into the cache"


@pytest.mark.parametrize("notebook", [NB05, NB06])
def test_the_cell_loads_the_kept_denoiser_and_says_so(before, notebook, tmp_path, monkeypatch):
    kept, _ = story_denoiser.TrainQuickDenoiser(FEW)
    file = kept_file(tmp_path)
    torch.save(kept.state_dict(), file)
    namespace = drawings.fresh_copy(before[notebook])
    printed = run_story_cell(namespace, notebook, tmp_path, monkeypatch)
    assert printed.startswith(f"quick mode: a smaller denoiser, trained for {story_denoiser.QUICK_STEPS} steps with "
                              f"the course's DiffusionLoss once on this grading machine and kept in {file}")
    assert same_weights(namespace["denoiser"], kept.state_dict())
    assert not namespace["denoiser"].training


@pytest.mark.parametrize("notebook", [NB05, NB06])
def test_out_of_quick_mode_the_full_denoiser_trains_as_before(before, notebook, tmp_path, monkeypatch):
    """Colab's path: the full-size denoiser, training_steps(3000, 1000, ...) steps at Train's 1e-3, and
    a kept file, were there one, never read."""
    torch.save(story_denoiser.TrainQuickDenoiser(0)[0].state_dict(), kept_file(tmp_path))
    namespace, calls = drawings.fresh_copy(before[notebook]), []
    namespace.update(QUICK=False, Train=lambda net, loss, batch, mask, steps, lr, desc: calls.append((steps, lr)) or [])
    printed = run_story_cell(namespace, notebook, tmp_path, monkeypatch)
    assert calls == [(1000, 1e-3)] and printed.startswith("training the denoiser for 1000 steps on cpu\n")
    assert sum(p.numel() for p in namespace["denoiser"].parameters()) == sum(
        p.numel() for p in namespace["TinyDenoiser"](len(namespace["story_vocab"]) + 1).parameters())


def test_a_damaged_kept_file_is_said_and_the_cell_trains_instead(before, tmp_path, monkeypatch):
    file = kept_file(tmp_path)
    file.write_bytes(b"not a state dict")
    namespace = drawings.fresh_copy(before[NB06])
    printed = run_story_cell(namespace, NB06, tmp_path, monkeypatch, steps=FEW)
    assert f"could not load {file}" in printed and f"training the denoiser for {FEW} steps" in printed
    assert same_weights(namespace["denoiser"], story_denoiser.TrainQuickDenoiser(FEW)[0].state_dict())


def test_the_file_names_the_recipe_the_seed_and_the_corpus(tmp_path):
    tokens = torch.arange(10)
    name = story_denoiser.KeptDenoiser(tokens, 12, tmp_path).name
    assert name.startswith(f"story-denoiser-v{story_denoiser.KEPT_VERSION}-seed0-12-words-text-")
    assert story_denoiser.KeptDenoiser(tokens + 1, 12, tmp_path).name != name
    assert story_denoiser.KeptDenoiser(tokens, 13, tmp_path).name != name


def test_a_grading_machine_trains_it_once(tmp_path, monkeypatch):
    trained, real = [], story_denoiser.TrainQuickDenoiser

    def train(steps=story_denoiser.QUICK_STEPS):
        trained.append(steps)
        return real(FEW)

    monkeypatch.setattr(story_denoiser, "TrainQuickDenoiser", train)
    first = story_denoiser.KeepQuickDenoiser(tmp_path)
    assert story_denoiser.KeepQuickDenoiser(tmp_path) == first and len(trained) == 1
    assert [p.name for p in tmp_path.iterdir()] == [first.name], "no partial file is left behind"


@pytest.fixture(scope="module")
def figure():
    """Notebook 06's namespace before the entropy figure, as its plot checks run it (quick mode, the
    denoiser kept by this machine or trained in the notebook: the same weights), and the reference
    figure drawn there and judged."""
    namespace = drawings.namespace(NB06, "plot_entropy_perplexity")
    source = cells.cell_source(NB06, "plot_entropy_perplexity")
    return namespace, drawings.judge("plot_entropy_perplexity", source, namespace)


def test_the_samplers_write_stories_under_the_grader_figure(figure):
    namespace, _ = figure
    entropies = {name: [float(SampleEntropy(row)) for row in rows] for name, rows in namespace["samples"].items()}
    text = sum(entropies["training text"]) / 4
    for name in SAMPLERS:
        assert min(entropies[name]) > 2.0, (name, entropies[name])   # 32 full stops were 0
        assert sum(entropies[name]) / 4 > 0.8 * text, (name, entropies[name], text)
    assert entropies["the the the ..."] == [0.0]


def test_the_reference_figure_keeps_its_point_figure(figure):
    _, outcome = figure
    assert outcome.passed and outcome.raised is None, outcome


def test_the_guide_states_the_quick_recipe():
    from tests.support.docs import one_line, page
    size, words = story_denoiser.QUICK_SIZE, {2: "two", 3: "three", 4: "four"}
    assert (f"a smaller denoiser (width {size['dim']}, {words[size['layers']]} layers), which learns the stand-in "
            f"stories in {story_denoiser.QUICK_STEPS} steps") in one_line(page("teaching.md"))
