"""Hidden checks of notebook 04: the reference passes under several seeds, other correct styles pass,
and every mutant in the catalog loses marks on exactly the checks it names."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from tests.mutants import loss as catalog

pytestmark = pytest.mark.nb04

CHECKS = {
    "DiffusionLoss": ["DiffusionLoss.backprop", "DiffusionLoss.exact", "DiffusionLoss.law",
                      "DiffusionLoss.expectation", "DiffusionLoss.training"],
    "DiffusionLossPrompt": ["DiffusionLossPrompt"],
}
# the inner loop (`-m "not slow"`) the first, as in test_checks.py
SEEDS = [0, *(pytest.param(seed, marks=pytest.mark.slow) for seed in (1, 20261130))]  # benchmarks/loss_checks.py runs many more


def all_checks():
    return [(function, name) for function, names in CHECKS.items() for name in names]



def xdist_group(item):
    """Under pytest-xdist any worker may take any test here (tests/conftest.py): they share nothing."""
    return None


def test_every_registered_check_is_covered():
    registered = {name for name in grading.CHECKS if name.split(".")[0] in CHECKS}
    assert registered == {name for _, name in all_checks()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("function,name", all_checks())
def test_reference_passes(function, name, seed, monkeypatch):
    monkeypatch.setenv(grading.SEED_VARIABLE, str(seed))
    outcome = grading.evaluate(name, getattr(reference, function))
    assert outcome.passed, outcome.message


# Correct losses written differently: other RNG orders, numpy draws, boolean selection, log_softmax.
def loss_mask_drawn_first(net, x_0, mask, T=100):
    u = torch.rand(x_0.shape)
    t = torch.randint(1, T + 1, (x_0.shape[0], 1))
    masked = u < t / T
    x_t = x_0.masked_fill(masked, mask)
    log_p = torch.log_softmax(net(x_t), dim=-1).gather(-1, x_0[..., None]).squeeze(-1)
    return -(log_p * masked * (T / t)).sum() / x_0.shape[0]


def loss_numpy_draws(net, x_0, mask, T=100):
    batch, length = x_0.shape
    t = torch.from_numpy(np.random.randint(1, T + 1, size=(batch, 1)))
    masked = torch.from_numpy(np.random.rand(batch, length)) < t / T
    x_t = x_0.clone()
    x_t[masked] = mask
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    weight = (T / t).expand(batch, length)
    return (ce[masked] * weight[masked]).sum() / batch


def loss_bernoulli(net, x_0, mask, T=100):
    t = torch.randint(1, T + 1, (len(x_0),)).double()
    masked = torch.bernoulli((t / T)[:, None].expand(x_0.shape)).bool()
    logits = net(torch.where(masked, torch.tensor(mask), x_0))
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x_0.reshape(-1), reduction="none")
    per_row = (ce.view(x_0.shape) * masked).sum(1) * T / t
    return per_row.float().mean()


@pytest.mark.parametrize("style", [loss_mask_drawn_first, loss_numpy_draws, loss_bernoulli])
@pytest.mark.parametrize("name", ["DiffusionLoss.backprop", "DiffusionLoss.exact", "DiffusionLoss.law",
                                  "DiffusionLoss.expectation"])
def test_other_correct_styles_pass(name, style):
    outcome = grading.evaluate(name, style)
    assert outcome.passed, outcome.message


def test_another_style_trains_too():
    outcome = grading.evaluate("DiffusionLoss.training", loss_numpy_draws)
    assert outcome.passed, outcome.message


@pytest.mark.parametrize("mutant", catalog.MUTANTS, ids=lambda m: f"{m.function}:{m.name}")
def test_mutant_loses_marks(mutant):
    buggy = mutant.load()
    failed = {name for name in CHECKS[mutant.function] if not grading.evaluate(name, buggy).passed}
    assert failed == set(mutant.fails), f"{mutant.name}: expected {mutant.fails} to fail, failed {failed}"


def test_catalog_covers_every_function_with_three_bugs():
    for function in CHECKS:
        assert sum(m.function == function for m in catalog.MUTANTS) >= 3, function
    names = {m.name for m in catalog.MUTANTS if m.function == "DiffusionLoss"}
    for bug in ("no T/t weight", "weight t/T instead of T/t", "counts every position, masked or not",
                "mean over positions instead of sum", "one t for the whole batch",
                "inverted mask: scores the visible positions", "returns loss.item()"):
        assert bug in names, bug


def test_the_training_drivers_adam_is_torchs():
    """The training check's driver writes Adam out (torch.optim's first use imports torch._dynamo,
    seconds of the cell's limit); the weights it trains are torch.optim.Adam's, bit for bit, so the
    margins measured by benchmarks/loss_checks.py still hold."""
    from maskdiff_client import drivers
    from maskdiff_solutions.grading import loss as checks
    from tests.support.training import torch_optim_training
    batches = checks.two_sentence_batches(40, 16)
    torch.manual_seed(3)
    ours = drivers.loss_training(reference.DiffusionLoss, batches, checks.TOY_MASK,
                                 len(checks.TOY_VOCAB), checks.TRAIN_SIZE, checks.TRAIN_LR)["weights"]
    torch.manual_seed(3)
    net = torch_optim_training(batches)
    assert ours.keys() == net.state_dict().keys()
    # both trained here, on this process's thread count, through the same network and loss: only the two
    # optimizers' arithmetic could differ, element by element (it does not, at 1, 2 or 4 threads)
    for name, value in net.state_dict().items():
        assert torch.equal(ours[name], value), name
