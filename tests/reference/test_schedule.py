"""Reference implementations of notebook 01: the toy vocabulary and the forward process."""
import pytest
import torch

from maskdiff_solutions import schedule, toy

pytestmark = pytest.mark.nb01


def test_encode_decode_round_trip():
    x = toy.Encode(toy.SCHRODINGER)
    assert x.tolist()[:4] == [6, 7, 8, 0] and len(x) == 16
    assert toy.Decode(x) == toy.SCHRODINGER
    assert toy.MASK == 13 and toy.VOCAB[toy.MASK] == "_"


def test_encode_names_the_unknown_word():
    with pytest.raises(ValueError, match="'dog' is not in the toy vocabulary"):
        toy.Encode("the dog is alive")


@pytest.mark.parametrize("T", [1, 2, 5, 50, 1000])
def test_schedule_telescopes(T):
    beta, alpha_bar = schedule.MakeSchedule(T)
    t = torch.arange(T + 1, dtype=torch.float64)
    assert beta.shape == alpha_bar.shape == (T + 1,)
    assert beta[0] == 0 and beta[T] == 1 and torch.allclose(beta[1:], 1 / (T - t[1:] + 1))
    assert torch.allclose(alpha_bar, 1 - t / T, atol=1e-12)


@pytest.mark.parametrize("T", [0, -3, 2.5])
def test_schedule_rejects_bad_T(T):
    with pytest.raises(ValueError, match="positive integer"):
        schedule.MakeSchedule(T)


def test_forward_mask_keeps_history_and_input():
    x_0 = toy.Encode(toy.SCHRODINGER)
    keep = x_0.clone()
    beta, _ = schedule.MakeSchedule(16)
    xs = schedule.ForwardMask(x_0, 16, beta)
    assert len(xs) == 17 and torch.equal(x_0, keep) and torch.equal(xs[0], keep)
    assert xs[0] is not x_0
    masked = torch.stack(xs) == toy.MASK
    assert not masked[0].any() and masked[-1].all()
    assert (masked[1:] >= masked[:-1]).all()  # absorbing


def test_forward_mask_fast_ends():
    x_0 = toy.Encode(toy.SCHRODINGER)
    _, alpha_bar = schedule.MakeSchedule(10)
    assert torch.equal(schedule.ForwardMaskFast(x_0, 0, alpha_bar), x_0)
    assert (schedule.ForwardMaskFast(x_0, 10, alpha_bar) == toy.MASK).all()
