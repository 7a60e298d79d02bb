"""The given denoiser, guesser and training loop of notebook 04 (maskdiff_solutions.training)."""
import math

import matplotlib
import pytest
import torch

from maskdiff_solutions.training import MakeGuesser, PlotLoss, TinyDenoiser, Train, WindowAverage

matplotlib.use("Agg")
pytestmark = pytest.mark.nb04


def test_default_size_is_about_a_million_parameters():
    net = TinyDenoiser(2002)
    count = sum(p.numel() for p in net.parameters())
    assert 1.0e6 < count < 1.5e6
    assert len(net.blocks) == 4 and net.blocks[0].heads == 4 and net.embed.embedding_dim == 128


def test_shapes_and_bidirectional_attention():
    torch.manual_seed(0)
    net = TinyDenoiser(20, dim=32, heads=2, layers=2)
    x = torch.randint(20, (3, 10))
    out = net(x)
    assert out.shape == (3, 10, 20)
    changed = x.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 20
    # the first position sees the last one: a left-to-right model would not change
    assert not torch.allclose(net(changed)[:, 0], out[:, 0])


def test_positions_matter():
    torch.manual_seed(0)
    net = TinyDenoiser(20, dim=32, heads=2, layers=1)
    x = torch.tensor([[3, 3, 3, 3]])
    out = net(x)[0]
    assert not torch.allclose(out[0], out[1])  # same token, different place, different guess


def test_bad_input_is_named():
    net = TinyDenoiser(20, dim=32, heads=2, layers=1, max_length=8)
    with pytest.raises(ValueError, match=r"\(batch, L\)"):
        net(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="longer than max_length"):
        net(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="heads"):
        TinyDenoiser(20, dim=30, heads=4)


def test_guesser_gives_probabilities_and_forbids():
    net = TinyDenoiser(12, dim=16, heads=2, layers=1)
    p = MakeGuesser(net, forbidden=[10, 11])(torch.tensor([1, 2, 11, 11]))
    assert p.shape == (4, 12) and torch.allclose(p.sum(-1), torch.ones(4))
    assert (p[:, 10:] == 0).all()


def test_window_average():
    avg = WindowAverage([1, 2, 3, 4, 5, 6], window=2)
    assert torch.allclose(avg, torch.tensor([1, 1.5, 2.5, 3.5, 4.5, 5.5], dtype=torch.float64))


def test_training_lowers_the_loss_and_plots():
    from maskdiff_solutions.loss import DiffusionLoss
    torch.manual_seed(0)
    net = TinyDenoiser(6, dim=16, heads=2, layers=1)
    data = torch.tensor([[0, 1, 2, 3]] * 32)
    losses = Train(net, DiffusionLoss, lambda: data, 5, steps=120, lr=3e-3)
    assert len(losses) == 120 and all(math.isfinite(v) for v in losses)
    assert sum(losses[-30:]) < 0.5 * sum(losses[:30])
    PlotLoss(losses, window=20, lines=[(0.0, "zero")])
