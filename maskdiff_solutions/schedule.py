"""Reference forward process of masked (absorbing) diffusion: the schedule and the two ways to mask.

Arrays have length T+1 so that index t is step t; step 0 does nothing (beta[0] = 0, alpha_bar[0] = 1).
"""
import torch

from .toy import MASK


def MakeSchedule(T):
    """beta_t = 1/(T-t+1) for t = 1..T, so that alpha_bar_t = prod(1 - beta) telescopes to 1 - t/T."""
    if int(T) != T or T < 1:
        raise ValueError(f"T must be a positive integer, got {T!r}")
    t = torch.arange(T + 1, dtype=torch.float64)
    beta = 1.0 / (T - t + 1)
    beta[0] = 0.0
    alpha_bar = torch.cumprod(1.0 - beta, dim=0)
    return beta, alpha_bar


def ForwardMask(x_0, t, beta, mask=MASK):
    """Run t forward steps one at a time; returns the history [x_0, x_1, ..., x_t] (t+1 tensors)."""
    x = x_0.clone()
    history = [x]
    for s in range(1, t + 1):
        x = x.clone()  # the stored sentences must not change under us
        x[torch.rand(x.shape) < float(beta[s])] = mask  # masked tokens stay masked either way
        history.append(x)
    return history


def ForwardMaskFast(x_0, t, alpha_bar, mask=MASK):
    """Jump straight to step t: each token is masked independently with probability 1 - alpha_bar_t."""
    hit = torch.rand(x_0.shape) < 1.0 - float(alpha_bar[t])
    return torch.where(hit, torch.full_like(x_0, mask), x_0)
