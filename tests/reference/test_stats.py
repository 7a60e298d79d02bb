"""The exact tests behind every stochastic check: right p-values, and false failures within bound."""
import math

import numpy as np
import pytest

from maskdiff_solutions import stats


def brute_two_sided(k, n, p):
    pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
    return min(1.0, 2 * min(sum(pmf[: k + 1]), sum(pmf[k:])))


@pytest.mark.parametrize("k,n,p", [(0, 10, 0.3), (3, 10, 0.3), (10, 10, 0.3), (17, 40, 0.5), (1, 30, 0.01)])
def test_binomial_p_value_is_exact(k, n, p):
    assert stats.binomial_test(k, n, p, 1e-6).p_value == pytest.approx(brute_two_sided(k, n, p), rel=1e-9)


def test_binomial_degenerate_probabilities():
    assert stats.binomial_test(0, 50, 0.0, 1e-6).ok and not stats.binomial_test(1, 50, 0.0, 1e-6).ok
    assert stats.binomial_test(50, 50, 1.0, 1e-6).ok and not stats.binomial_test(49, 50, 1.0, 1e-6).ok
    assert stats.binomial_test(0, 0, 0.3, 1e-6).ok


def test_binomial_false_failure_rate_is_within_alpha():
    rng = np.random.default_rng(1)
    alpha, trials = 0.01, 4000
    failures = sum(not stats.binomial_test(k, 200, 0.3, alpha) for k in rng.binomial(200, 0.3, trials))
    # Under the null the rate is at most alpha; 3 standard deviations of slack for the simulation.
    assert failures / trials <= alpha + 3 * math.sqrt(alpha / trials)


def test_dkw_false_failure_rate_is_within_alpha():
    rng = np.random.default_rng(2)
    alpha, trials, pmf = 0.05, 600, stats.binomial_pmf(16, 0.4)
    failures = sum(not stats.dkw_test(rng.binomial(16, 0.4, 300), pmf, alpha) for _ in range(trials))
    assert failures / trials <= alpha


def test_dkw_rejects_a_shifted_law_and_out_of_range_values():
    rng = np.random.default_rng(3)
    pmf = stats.binomial_pmf(16, 0.4)
    assert not stats.dkw_test(rng.binomial(16, 0.45, 3000), pmf, 1e-6)
    assert not stats.dkw_test([0, 3, 17], pmf, 1e-6)


def test_bonferroni_split_and_epsilon():
    assert stats.split(1e-6, 4) == 2.5e-7 and stats.split(1e-6, 0) == 1e-6
    assert stats.dkw_epsilon(1000, 1e-6) == pytest.approx(math.sqrt(math.log(2e6) / 2000))


def test_binomial_pmf_sums_to_one():
    assert stats.binomial_pmf(16, 0.37).sum() == pytest.approx(1.0)
    assert stats.binomial_pmf(5, 1.0).tolist() == [0, 0, 0, 0, 0, 1]


def test_bernstein_epsilon_solves_the_bound():
    for n, variance, bound, alpha in ((100, 0.25, 0.5, 1e-6), (5000, 3.0, 40.0, 1e-3)):
        eps = stats.bernstein_epsilon(n, variance, bound, alpha)
        assert math.isclose(2 * math.exp(-n * eps ** 2 / (2 * variance + 2 * bound * eps / 3)), alpha,
                            rel_tol=1e-9)
    verdict = stats.bernstein_test(0.52, 0.5, 10000, 0.25, 0.5, 1e-6)
    assert verdict.ok and not stats.bernstein_test(0.6, 0.5, 10000, 0.25, 0.5, 1e-6).ok
