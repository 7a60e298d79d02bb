"""Hidden checks of notebook 01 accept correct implementations written in other styles.
(Reference-under-many-seeds and the mutant catalog are in test_checks.py.)"""
import random

import numpy as np
import pytest
import torch

from maskdiff_solutions import grading
from maskdiff_solutions.toy import MASK

pytestmark = pytest.mark.nb01


# Correct implementations written differently from the reference: other containers, other RNGs,
# other orders of drawing random numbers. The checks must accept all of them.
def schedule_numpy(T):
    t = np.arange(T + 1)
    beta = np.zeros(T + 1)
    beta[1:] = 1 / (T - t[1:] + 1)
    return beta, 1 - t / T


def schedule_lists(T):
    beta = [0.0] + [1 / (T - t + 1) for t in range(1, T + 1)]
    alpha_bar = [1.0]
    for b in beta[1:]:
        alpha_bar.append(alpha_bar[-1] * (1 - b))
    return beta, alpha_bar


def schedule_float32(T):
    beta = torch.zeros(T + 1)
    beta[1:] = 1 / torch.arange(T, 0, -1, dtype=torch.float32)
    return beta, torch.cumprod(1 - beta, 0)


def forward_python_random(x_0, t, beta):
    xs = [x_0.clone()]
    for s in range(1, t + 1):
        x = xs[-1].clone()
        for i in range(len(x)):
            if x[i] != MASK and random.random() < beta[s]:
                x[i] = MASK
        xs.append(x)
    return xs


def forward_numpy(x_0, t, beta):
    xs = [x_0.clone()]
    for s in range(1, t + 1):
        hit = torch.from_numpy(np.random.rand(len(x_0)) < float(beta[s]))
        xs.append(torch.where(hit, MASK, xs[-1]))
    return xs


def fast_bernoulli(x_0, t, alpha_bar):
    hit = torch.bernoulli(torch.full(x_0.shape, 1 - float(alpha_bar[t]))).bool()
    return x_0.masked_fill(hit, MASK)


def fast_reversed_draws(x_0, t, alpha_bar):
    x = x_0.tolist()
    for i in reversed(range(len(x))):
        if random.random() >= alpha_bar[t]:
            x[i] = MASK
    return x


@pytest.mark.parametrize("name,function", [
    ("MakeSchedule", schedule_numpy), ("MakeSchedule", schedule_lists),
    ("MakeSchedule", schedule_float32),
    ("ForwardMask.history", forward_python_random), ("ForwardMask.rates", forward_python_random),
    ("ForwardMask.history", forward_numpy), ("ForwardMask.rates", forward_numpy),
    ("ForwardMaskFast.basics", fast_bernoulli), ("ForwardMaskFast.law", fast_bernoulli),
    ("ForwardMaskFast.basics", fast_reversed_draws), ("ForwardMaskFast.law", fast_reversed_draws),
])
def test_other_correct_styles_pass(name, function):
    outcome = grading.evaluate(name, function)
    assert outcome.passed, outcome.message
