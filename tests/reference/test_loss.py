"""Reference losses of notebook 04 (maskdiff_solutions.loss)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from maskdiff_solutions.loss import DiffusionLoss, DiffusionLossPrompt, WeightedMaskedLoss

pytestmark = pytest.mark.nb04


class Fixed(nn.Module):
    def __init__(self, batch, length, vocab):
        super().__init__()
        self.logits = nn.Parameter(torch.randn(batch, length, vocab))
        self.seen = []

    def forward(self, x):
        self.seen.append(x)
        return self.logits + 0.0


def test_T_one_masks_everything_and_sums_the_surprise():
    net, x_0 = Fixed(3, 5, 6), torch.randint(5, (3, 5))
    loss = DiffusionLoss(net, x_0, 5, T=1)
    want = F.cross_entropy(net.logits.transpose(1, 2), x_0, reduction="none").sum(1).mean()
    assert torch.allclose(loss, want) and (net.seen[0] == 5).all()


def test_weighted_loss_counts_masked_positions_with_weight_T_over_t():
    net, x_0 = Fixed(2, 4, 6), torch.randint(5, (2, 4))
    masked = torch.tensor([[True, False, False, True], [False, False, False, False]])
    t = torch.tensor([[2], [7]])
    loss = WeightedMaskedLoss(net, x_0, masked, t, 5, T=10)
    ce = F.cross_entropy(net.logits.transpose(1, 2), x_0, reduction="none")
    assert torch.allclose(loss, (10 / 2) * (ce[0, 0] + ce[0, 3]) / 2)


def test_loss_backpropagates_and_is_unbiased_for_a_blind_net():
    torch.manual_seed(0)
    net, x_0 = Fixed(1, 6, 6), torch.randint(5, (400, 6))
    net.logits = nn.Parameter(torch.randn(1, 6, 6).expand(400, -1, -1).clone())
    loss = DiffusionLoss(net, x_0, 5, T=10)
    loss.backward()
    assert loss.requires_grad and net.logits.grad.abs().sum() > 0
    full = F.cross_entropy(net.logits.detach().transpose(1, 2), x_0, reduction="none").sum(1).mean()
    with torch.no_grad():
        mean = torch.stack([DiffusionLoss(net, x_0, 5, T=10) for _ in range(50)]).mean()
    assert abs(mean - full) < 0.05 * full  # 20000 rows: the standard error is about 1%


def test_prompt_is_never_masked():
    net, x_0 = Fixed(4, 6, 6), torch.randint(5, (4, 6))
    prompt = torch.arange(6)[None] < torch.tensor([[0], [2], [5], [6]])
    DiffusionLossPrompt(net, x_0, prompt, 5, T=1)
    assert not (net.seen[0][prompt] == 5).any() and (net.seen[0][~prompt] == 5).all()


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"\(batch, L\)"):
        DiffusionLoss(Fixed(1, 3, 4), torch.tensor([1, 2, 3]), 3)
    with pytest.raises(ValueError, match="prompt must have the shape"):
        DiffusionLossPrompt(Fixed(1, 3, 4), torch.zeros(2, 3, dtype=torch.long), torch.zeros(3, dtype=torch.bool), 3)
