"""Hidden checks of notebook 01: the reference passes under any seed, other correct styles pass,
and every mutant in the catalog loses marks on exactly the checks it names (all of its own function)."""
import random

import numpy as np
import pytest
import torch

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from maskdiff_solutions.toy import MASK
from tests.mutants import forward as catalog

pytestmark = pytest.mark.nb01

CHECKS = {
    "MakeSchedule": ["MakeSchedule"],
    "ForwardMask": ["ForwardMask.history", "ForwardMask.rates"],
    "ForwardMaskFast": ["ForwardMaskFast.basics", "ForwardMaskFast.law"],
}
# How many seeds the reference must pass under here; benchmarks/ runs many more.
SEEDS = [0, 1, 2, 31337, 20261130]


def all_checks():
    return [(function, name) for function, names in CHECKS.items() for name in names]


def test_every_registered_check_is_covered():
    registered = {name for name in grading.CHECKS if name.split(".")[0] in CHECKS}
    assert registered == {name for _, name in all_checks()}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("function,name", all_checks())
def test_reference_passes(function, name, seed, monkeypatch):
    monkeypatch.setenv(grading.SEED_VARIABLE, str(seed))
    outcome = grading.evaluate(name, getattr(reference, function))
    assert outcome.passed, outcome.message


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


@pytest.mark.parametrize("mutant", catalog.MUTANTS, ids=lambda m: f"{m.function}:{m.name}")
def test_mutant_loses_marks(mutant):
    buggy = mutant.load()
    failed = {name for name in CHECKS[mutant.function] if not grading.evaluate(name, buggy).passed}
    assert failed == set(mutant.fails), f"{mutant.name}: expected {mutant.fails} to fail, failed {failed}"


def test_catalog_covers_every_function_with_three_bugs():
    for function in CHECKS:
        assert sum(m.function == function for m in catalog.MUTANTS) >= 3, function
