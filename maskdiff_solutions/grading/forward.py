"""Hidden checks for notebook 01: MakeSchedule, ForwardMask and ForwardMaskFast.

Every check feeds the student's function reference inputs (our schedule, our sentence), so a bug in
one function is charged once, in that function's own checks.
"""
import torch

from .. import stats
from ..schedule import MakeSchedule as reference_schedule
from ..toy import MASK, SCHRODINGER, Encode
from .core import ALPHA, Failure, call, changed, check, expect, token_ids, type_name, value_of, vector

X_0 = Encode(SCHRODINGER)
L = X_0.numel()
# A second sentence, shorter and of other words: a function that ignores the x_0 it is handed (its own
# sentence written in) cannot pass both.
SHORT = Encode("the box is empty")


@check("MakeSchedule")
def schedule_values(MakeSchedule):
    for T in (1, 2, 7, 50, 200):
        out = call(MakeSchedule, T, what=f"MakeSchedule({T})")
        expect(isinstance(out, (tuple, list)) and len(out) == 2,
               f"MakeSchedule({T}) should return the pair (beta, alpha_bar)")
        beta = vector(out[0], f"beta from MakeSchedule({T})", length=T + 1)
        alpha_bar = vector(out[1], f"alpha_bar from MakeSchedule({T})", length=T + 1)
        want_beta, want_alpha_bar = reference_schedule(T)
        # exactly 0: each right way gives 0 itself (written, 1 - 1/1, 1 - exp(0)); 1/(T - t + 1) at t = 0 is 1/(T+1)
        expect(beta[0] == 0, f"MakeSchedule({T}): beta[0] should be 0 (nothing happens at step 0), "
                             f"got {beta[0].item():.4g}")
        worst = int((beta - want_beta).abs().argmax())
        expect(torch.allclose(beta, want_beta, rtol=1e-5, atol=1e-6),
               f"MakeSchedule({T}): beta[{worst}] should be 1/(T-t+1) = {want_beta[worst].item():.6g}, "
               f"got {beta[worst].item():.6g}")
        worst = int((alpha_bar - want_alpha_bar).abs().argmax())
        expect(torch.allclose(alpha_bar, want_alpha_bar, atol=1e-4),
               f"MakeSchedule({T}): alpha_bar[{worst}] should be the product of (1 - beta) up to step "
               f"{worst}, i.e. 1 - t/T = {want_alpha_bar[worst].item():.6g}; "
               f"got {alpha_bar[worst].item():.6g}")


def histories(ForwardMask, x_0, t, beta, runs):
    """`runs` calls of ForwardMask on x_0 (one request), each history checked for its shape and
    returned as long tensors."""
    what = f"ForwardMask(x_0, {t}, beta)"
    out = []
    for result in ForwardMask.repeat([x_0, t, beta], runs):
        xs = value_of(result, what)
        expect(0 not in changed(result), "ForwardMask changed the x_0 it was given: clone before masking")
        expect(isinstance(xs, (list, tuple)),
               f"ForwardMask should return a list of sentences, got {type_name(xs)}")
        expect(len(xs) == t + 1, f"{what} should return the t+1 = {t + 1} sentences x_0..x_t, "
                                 f"got {len(xs)}")
        out.append([token_ids(x, f"sentence {s} of the history", length=x_0.numel())
                    for s, x in enumerate(xs)])
    return out


@check("ForwardMask.history")
def forward_history(ForwardMask):
    T = 12
    beta, _ = reference_schedule(T)
    for x_0, t in ((X_0, 0), (X_0, 1), (X_0, 5), (X_0, T), (SHORT, 5), (SHORT, T)):
        for xs in histories(ForwardMask, x_0, t, beta, 25):
            expect(torch.equal(xs[0], x_0), f"the first sentence of the history should be x_0 itself, "
                                            f"unmasked, {x_0.tolist()} here (did later steps change it in "
                                            f"place, or was another sentence masked?)")
            for s in range(1, t + 1):
                expect(bool(((xs[s] == x_0) | (xs[s] == MASK)).all()),
                       f"step {s} holds a token that is neither the original nor the mask")
                expect(bool((xs[s][xs[s - 1] == MASK] == MASK).all()),
                       f"a token masked at step {s - 1} is unmasked again at step {s}: masks must absorb")
            if t == T:
                expect(bool((xs[T] == MASK).all()),
                       f"after all T = {T} steps every token should be masked (beta_T = 1)")
    for T in (1, 2, 3):  # the shortest schedules: nothing may be off by one at either end
        beta, _ = reference_schedule(T)
        for xs in histories(ForwardMask, X_0, T, beta, 5):
            expect(torch.equal(xs[0], X_0) and bool((xs[T] == MASK).all()),
                   f"with T = {T}, the history should run from x_0 unmasked to x_{T} all masks")


def pair_sets(length):
    """Two ways of cutting the positions into disjoint pairs: neighbours (0, 1), (2, 3), ... and
    partners half a sentence apart (0, L/2), (1, L/2 + 1), ... Disjoint pairs of independent
    positions are independent trials, so counting how often a pair does something together is an
    exact binomial test of independence."""
    half = length // 2
    return {"neighbouring positions": [(i, i + 1) for i in range(0, length - 1, 2)],
            f"positions {half} apart": [(i, i + half) for i in range(half)]}


@check("ForwardMask.rates")
def forward_rates(ForwardMask):
    T, runs, middle = 12, 500, 6
    beta, alpha_bar = reference_schedule(T)
    masked = torch.stack([torch.stack(xs) == MASK
                          for xs in histories(ForwardMask, X_0, T, beta, runs)])  # (runs, T+1, L)
    pairs = pair_sets(L)
    # T-1 random steps (step T masks everything), the histogram, one law per position, the pair sets
    alpha = stats.split(ALPHA, (T - 1) + 1 + L + len(pairs))
    for s in range(1, T + 1):
        at_risk = int((~masked[:, s - 1]).sum())
        newly = int((masked[:, s] & ~masked[:, s - 1]).sum())
        verdict = stats.binomial_test(newly, at_risk, float(beta[s]), alpha,
                                      what=f"tokens masked at step {s} among those still visible")
        if not verdict:
            raise Failure(f"each visible token should be masked at step {s} with probability "
                          f"beta_{s} = {float(beta[s]):.4f}. {verdict.summary}")
    # The step at which each token decays: P(step s) = alpha_bar_{s-1} - alpha_bar_s = 1/T for every
    # position, and the steps of different positions are independent.
    decay = masked.long().argmax(dim=1)   # (runs, L): the first step that shows the token masked
    law = [0.0] + [float(alpha_bar[s - 1] - alpha_bar[s]) for s in range(1, T + 1)]
    for i in range(L):
        verdict = stats.dkw_test(decay[:, i], law, alpha, what=f"the step at which position {i} is masked")
        expect(verdict.ok, f"every position should be masked at a step uniform on 1..{T} (probability "
                           f"alpha_bar_(s-1) - alpha_bar_s = 1/{T} each), whatever its place in the "
                           f"sentence; position {i} is not. {verdict.summary}")
    same = sum(q * q for q in law)
    for name, pairing in pairs.items():
        together = int(sum((decay[:, i] == decay[:, j]).sum() for i, j in pairing))
        verdict = stats.binomial_test(together, runs * len(pairing), same, alpha,
                                      what=f"pairs of {name} masked at the same step")
        expect(verdict.ok, f"tokens should decay independently of each other: two {name} should be "
                           f"masked at the same step with probability 1/{T}. {verdict.summary}")
    counts = masked[:, middle].sum(dim=1)
    p = 1 - float(alpha_bar[middle])
    verdict = stats.dkw_test(counts, stats.binomial_pmf(L, p), alpha,
                             what=f"masked counts at step {middle}")
    expect(verdict.ok, f"the number of masked tokens at step {middle} should follow "
                       f"Binomial({L}, {p:.2f}): tokens decay independently. {verdict.summary}")


def fast_samples(ForwardMaskFast, t, alpha_bar, runs, x_0=X_0):
    """`runs` samples of ForwardMaskFast(x_0, t, alpha_bar) (one request), checked for their shape
    and tokens: a (runs, len(x_0)) long tensor."""
    what = f"ForwardMaskFast(x_0, {t}, alpha_bar)"
    out = []
    for result in ForwardMaskFast.repeat([x_0, t, alpha_bar], runs):
        out.append(token_ids(value_of(result, what), what, length=x_0.numel()))
        expect(0 not in changed(result), "ForwardMaskFast changed the x_0 it was given: clone first")
    x = torch.stack(out)
    expect(bool(((x == x_0) | (x == MASK)).all()),   # every sample at once: thousands of them
           f"ForwardMaskFast returned a token that is neither the original nor the mask (x_0 = {x_0.tolist()})")
    return x


@check("ForwardMaskFast.basics")
def fast_basics(ForwardMaskFast):
    T = 10
    _, alpha_bar = reference_schedule(T)
    expect(bool((fast_samples(ForwardMaskFast, 0, alpha_bar, 20) == X_0).all()),
           "at t = 0 nothing should be masked (alpha_bar_0 = 1)")
    expect(bool((fast_samples(ForwardMaskFast, T, alpha_bar, 20) == MASK).all()),
           "at t = T everything should be masked (alpha_bar_T = 0)")
    fast_samples(ForwardMaskFast, 4, alpha_bar, 20)
    expect(bool((fast_samples(ForwardMaskFast, 0, alpha_bar, 5, SHORT) == SHORT).all()),
           f"at t = 0 nothing should be masked: x_0 = {SHORT.tolist()} should come back as it is")
    fast_samples(ForwardMaskFast, 4, alpha_bar, 20, SHORT)
    _, alpha_bar = reference_schedule(1)  # the shortest schedule, T = 1
    expect(bool((fast_samples(ForwardMaskFast, 0, alpha_bar, 5) == X_0).all())
           and bool((fast_samples(ForwardMaskFast, 1, alpha_bar, 5) == MASK).all()),
           "with T = 1, x_0 should be unmasked and x_1 all masks")


@check("ForwardMaskFast.law")
def fast_law(ForwardMaskFast):
    cases, runs = ((50, 20), (10, 3), (4, 1)), 3000
    pairs = pair_sets(L)
    alpha = stats.split(ALPHA, len(cases) * (2 + L + len(pairs)))
    for T, t in cases:
        _, alpha_bar = reference_schedule(T)
        p = 1 - float(alpha_bar[t])
        masked = fast_samples(ForwardMaskFast, t, alpha_bar, runs) == MASK  # (runs, L)
        where = f"(T = {T}, t = {t})"
        verdict = stats.binomial_test(int(masked.sum()), masked.numel(), p, alpha,
                                      what="masked tokens in all")
        expect(verdict.ok, f"{where} each token should be masked with probability "
                           f"1 - alpha_bar_t = {p:.3f}. {verdict.summary}")
        for i in range(L):
            verdict = stats.binomial_test(int(masked[:, i].sum()), runs, p, alpha,
                                          what=f"runs that masked position {i}")
            expect(verdict.ok, f"{where} every position should be masked with the same "
                               f"probability {p:.3f}. {verdict.summary}")
        for name, pairing in pairs.items():
            both = int(sum((masked[:, i] & masked[:, j]).sum() for i, j in pairing))
            verdict = stats.binomial_test(both, runs * len(pairing), p * p, alpha,
                                          what=f"pairs of {name} both masked")
            expect(verdict.ok, f"{where} positions should be masked independently: two {name} should "
                               f"both be masked with probability {p:.3f}^2 = {p * p:.3f}. {verdict.summary}")
        verdict = stats.dkw_test(masked.sum(dim=1), stats.binomial_pmf(L, p), alpha,
                                 what="masked counts per sentence")
        expect(verdict.ok, f"{where} the masked counts should follow Binomial({L}, {p:.3f}), "
                           f"the histogram ForwardMask gives. {verdict.summary}")
