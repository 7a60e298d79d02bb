"""Statistical tests whose false-failure probability is bounded exactly, not asymptotically.

A correct implementation fails a test at level `alpha` with probability at most `alpha`:
- `binomial_test` computes the exact two-sided p-value (twice the smaller tail, capped at 1);
- `dkw_distance` uses the Dvoretzky-Kiefer-Wolfowitz-Massart bound
  P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2), which holds for discrete laws too (conservatively).
Several tests inside one check share its budget by Bonferroni: `split(alpha, k)`.
"""
import math
from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Verdict:
    ok: bool
    p_value: float      # an upper bound on the probability of data this extreme from a correct sampler
    summary: str        # plain words for feedback

    def __bool__(self):
        return self.ok


def split(alpha, k):
    """Bonferroni: k tests at alpha/k each keep the family's false-failure probability <= alpha."""
    return alpha / max(int(k), 1)


def binomial_log_pmf(n, p):
    """log P(X = k) for k = 0..n, X ~ Binomial(n, p), with 0 < p < 1."""
    k = torch.arange(n + 1, dtype=torch.float64)
    log_comb = math.lgamma(n + 1) - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)
    return (log_comb + k * math.log(p) + (n - k) * math.log1p(-p)).numpy()


def binomial_pmf(n, p):
    """P(X = k) for k = 0..n, including the degenerate p = 0 and p = 1."""
    if p <= 0.0 or p >= 1.0:
        pmf = np.zeros(n + 1)
        pmf[0 if p <= 0.0 else n] = 1.0
        return pmf
    return np.exp(binomial_log_pmf(n, p))


def binomial_test(k, n, p, alpha, what="count"):
    """Exact two-sided test of k successes in n independent trials of probability p."""
    k, n, p = int(k), int(n), float(p)
    if n == 0:
        return Verdict(True, 1.0, f"{what}: no trials")
    pmf = binomial_pmf(n, p)
    lower, upper = pmf[: k + 1].sum(), pmf[k:].sum()
    p_value = float(min(1.0, 2.0 * min(lower, upper)))
    summary = (f"{what}: {k} of {n} ({k / n:.4f}); expected probability {p:.4f} "
               f"(exact two-sided p = {p_value:.2g})")
    return Verdict(bool(p_value >= alpha), p_value, summary)


def likelihood_ratio_test(counts, n, null, other, alpha, what="counts"):
    """Are counts[i] of n (independent binomials of probabilities null[i]) much likelier under the
    probabilities `other`? The whole curve at once, where each point alone says little: fails when
    log LR = sum_i log P_other(counts[i]) / P_null(counts[i]) exceeds c, with c from the Chernoff bound
    P_null(log LR >= c) <= E_null[LR^l] e^{-l c} (0 < l <= 1, chosen from the laws, not the counts), so
    a count from the null law fails with probability at most alpha."""
    n = int(n)
    logs = [(binomial_log_pmf(n, min(max(p, 1e-300), 1 - 1e-16)), binomial_log_pmf(n, min(max(q, 1e-300), 1 - 1e-16)))
            for p, q in zip(null, other)]

    def threshold(l):
        log_mgf = sum(float(np.logaddexp.reduce((1 - l) * a + l * b)) for a, b in logs)
        return (log_mgf - math.log(alpha)) / l

    c = min(threshold(l) for l in np.linspace(0.05, 1.0, 20))
    log_lr = sum(float(b[int(k)] - a[int(k)]) for k, (a, b) in zip(counts, logs))
    summary = f"{what}: log likelihood ratio {log_lr:.2f} against the bound {c:.2f}"
    return Verdict(bool(log_lr <= c), math.exp(min(0.0, c - log_lr)), summary)


def dkw_epsilon(n, alpha):
    """The distance sup |F_n - F| that n samples from F exceed with probability at most alpha."""
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


def dkw_test(samples, pmf, alpha, what="histogram"):
    """Compare integer samples on 0..len(pmf)-1 with the law `pmf` through their CDFs."""
    samples = np.asarray(samples, dtype=np.int64).ravel()
    pmf = np.asarray(pmf, dtype=np.float64)
    n = samples.size
    if samples.min(initial=0) < 0 or samples.max(initial=0) >= pmf.size:
        return Verdict(False, 0.0, f"{what}: values outside 0..{pmf.size - 1}")
    empirical = np.cumsum(np.bincount(samples, minlength=pmf.size)) / n
    distance = float(np.max(np.abs(empirical - np.cumsum(pmf))))
    p_value = min(1.0, 2.0 * math.exp(-2.0 * n * distance ** 2))
    eps = dkw_epsilon(n, alpha)
    summary = (f"{what}: the CDF of {n} samples is {distance:.3f} from the expected law at its "
               f"furthest (allowed {eps:.3f}; p <= {p_value:.2g})")
    return Verdict(bool(distance <= eps), p_value, summary)


def bernstein_epsilon(n, variance, bound, alpha):
    """Half-width eps such that the mean of n independent variables, each within `bound` of its own
    mean and with average variance `variance`, strays more than eps from the mean of their means with
    probability at most alpha (two-sided Bernstein: 2 exp(-n eps^2 / (2 variance + 2 bound eps / 3)))."""
    log_term = math.log(2.0 / alpha)
    linear = 2.0 * bound * log_term / 3.0
    return (linear + math.sqrt(linear ** 2 + 8.0 * n * variance * log_term)) / (2.0 * n)


def bernstein_test(mean, expected, n, variance, bound, alpha, what="mean"):
    """Is a sample mean of n independent bounded variables consistent with `expected`?"""
    eps = bernstein_epsilon(n, variance, bound, alpha)
    gap = abs(float(mean) - float(expected))
    p_value = min(1.0, 2.0 * math.exp(-n * gap ** 2 / (2.0 * variance + 2.0 * bound * gap / 3.0)))
    summary = (f"{what}: {float(mean):.4f} over {n} samples, expected {float(expected):.4f} "
               f"(allowed +-{eps:.4f} by Bernstein's inequality; p <= {p_value:.2g})")
    return Verdict(bool(gap <= eps), p_value, summary)
