"""Notebook 08's story denoiser on uniform noise (maskdiff_solutions/uniform_denoiser.py), the twin of
test_block_denoiser.py: the copy a grading machine keeps is the very network the given cell
`uniform_training` would train with the notebook's solutions, the cell loads it and says so (or trains it,
and says that), Colab's path trains the full-size network and never reads a kept file; and the network is
told the time, and its guess turns the loss's minimum back into the posterior."""
import pytest
import torch

from maskdiff_solutions import uniform, uniform_denoiser
from maskdiff_solutions.corpus import MakeCorpus, StandInStories
from tests.support import cells, drawings
from tests.support.kept import run_training_cell, same_weights
from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture

pytestmark = pytest.mark.nb08

NB08 = "08_noise_without_a_mask.ipynb"
FEW = 3   # training steps where only the recipe matters, not what it learns


@pytest.fixture(scope="module")
def before():
    """Notebook 08's namespace before the cell uniform_training, in quick mode (the notebook's solutions of
    ForwardUniform and UniformLoss, the corpus, the story denoiser with masks)."""
    return cells.namespaces_before(NB08, ["uniform_training"])["uniform_training"]


@pytest.fixture(scope="module")
def trained():
    """The uniform denoiser as a grading machine trains it, for FEW steps."""
    return uniform_denoiser.TrainUniformDenoiser(FEW)[0].state_dict()


def kept_file(cache):
    stories = MakeCorpus(StandInStories())
    return uniform_denoiser.KeptUniformDenoiser(stories.tokens, len(stories.vocab) - 1, cache)


def run_uniform_cell(namespace, cache, monkeypatch, steps=uniform_denoiser.QUICK_UNIFORM_STEPS):
    return run_training_cell(namespace, NB08, "uniform_training", "QUICK_UNIFORM_STEPS", steps, cache, monkeypatch)


def test_the_kept_uniform_denoiser_is_what_the_cell_trains(before, trained, tmp_path, monkeypatch):
    namespace = drawings.fresh_copy(before)
    printed = run_uniform_cell(namespace, tmp_path, monkeypatch, steps=FEW)
    assert printed.startswith(f"training the uniform denoiser for {FEW} steps on cpu (quick mode: a smaller denoiser)")
    assert same_weights(namespace["uniform_net"], trained)
    assert not namespace["uniform_net"].training
    assert not list(tmp_path.iterdir()), "a kernel never writes into the cache"


def test_the_cell_loads_the_kept_uniform_denoiser_and_says_so(before, trained, tmp_path, monkeypatch):
    file = kept_file(tmp_path)
    torch.save(trained, file)
    namespace = drawings.fresh_copy(before)
    namespace["Train"] = lambda *args, **kwargs: pytest.fail("the cell trained beside a kept file")
    printed = run_uniform_cell(namespace, tmp_path, monkeypatch)
    assert printed == (f"quick mode: a smaller uniform denoiser, trained for {uniform_denoiser.QUICK_UNIFORM_STEPS} "
                       f"steps with the course's ForwardUniform and UniformLoss once on this grading machine and kept "
                       f"in {file}\n")
    assert same_weights(namespace["uniform_net"], trained)


def test_out_of_quick_mode_the_full_network_trains_and_no_kept_file_is_read(before, tmp_path, monkeypatch):
    torch.save(uniform_denoiser.TrainUniformDenoiser(0)[0].state_dict(), kept_file(tmp_path))
    namespace, calls = drawings.fresh_copy(before), []

    def train(net, loss, batch, mask, steps, lr, desc):
        calls.append((loss, tuple(batch().shape), steps, lr))
        return []

    namespace.update(QUICK=False, Train=train)
    printed = run_uniform_cell(namespace, tmp_path, monkeypatch)
    assert printed == "training the uniform denoiser for 1000 steps on cpu\n"
    assert calls == [(namespace["UniformDiffusionLoss"], (64, 32), 1000, 1e-3)]
    full = uniform_denoiser.UniformDenoiser(namespace["N_STORY"])
    assert {k: v.shape for k, v in namespace["uniform_net"].state_dict().items()} == {
        k: v.shape for k, v in full.state_dict().items()}


def test_a_stub_loss_leaves_the_network_untrained_and_the_notebook_going(before, tmp_path, monkeypatch):
    namespace = drawings.fresh_copy(before)
    cells.run_cell("def UniformLoss(probs, x_0, x_t, t):\n    raise NotImplementedError()\n", namespace)
    printed = run_uniform_cell(namespace, tmp_path, monkeypatch, steps=FEW)
    assert "training stopped: NotImplementedError" in printed
    guess = namespace["guess_uniform"](torch.randint(namespace["N_STORY"], (32,)), 0.5)
    assert guess.shape == (32, namespace["N_STORY"]) and torch.allclose(guess.sum(-1), torch.ones(32))


def test_the_file_names_the_recipe_the_seed_and_the_corpus(tmp_path):
    from maskdiff_solutions.block_denoiser import KeptBlockDenoiser
    from maskdiff_solutions.story_denoiser import KeptDenoiser
    tokens = torch.arange(10)
    name = uniform_denoiser.KeptUniformDenoiser(tokens, 12, tmp_path).name
    assert name.startswith(f"uniform-denoiser-v{uniform_denoiser.UNIFORM_KEPT_VERSION}-seed0-12-words-text-")
    assert uniform_denoiser.KeptUniformDenoiser(tokens + 1, 12, tmp_path).name != name
    assert name not in (KeptDenoiser(tokens, 12, tmp_path).name, KeptBlockDenoiser(tokens, 12, tmp_path).name)


def test_a_grading_machine_trains_it_once(tmp_path, monkeypatch):
    trained, real = [], uniform_denoiser.TrainUniformDenoiser

    def train(steps=uniform_denoiser.QUICK_UNIFORM_STEPS):
        trained.append(steps)
        return real(FEW)

    monkeypatch.setattr(uniform_denoiser, "TrainUniformDenoiser", train)
    first = uniform_denoiser.KeepUniformDenoiser(tmp_path)
    assert uniform_denoiser.KeepUniformDenoiser(tmp_path) == first and trained == [uniform_denoiser.QUICK_UNIFORM_STEPS]
    assert first == kept_file(tmp_path) and [p.name for p in tmp_path.iterdir()] == [first.name]


def test_the_network_is_told_the_time():
    torch.manual_seed(0)
    net = uniform_denoiser.UniformDenoiser(11, dim=32, heads=2, layers=1).eval()
    x = torch.randint(11, (2, 5))
    with torch.no_grad():
        early, late = net(x, torch.tensor([0.1, 0.1])), net(x, torch.tensor([0.9, 0.9]))
        assert not torch.allclose(early, late), "the time changes what the network says"
        assert torch.allclose(net(x, 0.1), early), "one time for the whole batch is accepted as a number"


def test_the_guess_is_the_network_output_times_q_x_t_given_x_0_normalised():
    torch.manual_seed(1)
    net = uniform_denoiser.UniformDenoiser(7, dim=32, heads=2, layers=1).eval()
    x_t, t = torch.randint(7, (6,)), 0.35
    guess = uniform_denoiser.MakeUniformGuesser(net)(x_t, t)
    with torch.no_grad():
        probs = net(x_t[None], torch.tensor([t]))[0].softmax(-1)
    assert torch.allclose(guess, uniform.GuessFromOutput(probs, x_t, t).float(), atol=1e-6)
    assert torch.allclose(guess.sum(-1), torch.ones(6))
