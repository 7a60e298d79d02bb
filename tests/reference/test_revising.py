"""Reference of notebook 06 (maskdiff_solutions/revising.py): the budgets' worked examples, blocks that
never commit past themselves, commits above a threshold in the two-sentence world, ReMDM's step (sigma
= 0 is Undiffuse's 1/k, the forward marginal is kept, and the exact rates of the two-sentence world
computed as a Markov chain over its 36 canvases), and the two numbers that judge a sample."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from maskdiff_solutions import batched, experiments, revising, stats
from maskdiff_solutions.grading.fakes import FakeDenoiser

pytestmark = pytest.mark.nb06

ALPHA = 1e-6   # each statistical test here fails the reference with probability at most this


# ---------------------------------------------------------------- TransferCounts

@pytest.mark.parametrize("n,steps,rule,want", [
    (10, 4, "even", [3, 3, 2, 2]), (10, 4, "schedule", [2, 3, 2, 3]),
    (3, 6, "even", [1, 1, 1, 0, 0, 0]), (3, 6, "schedule", [0, 1, 0, 1, 0, 1]),
    (12, 5, "even", [3, 3, 2, 2, 2]), (12, 5, "schedule", [2, 2, 3, 2, 3]),
    (7, 7, "even", [1] * 7), (7, 7, "schedule", [1] * 7),
    (32, 8, "schedule", [4] * 8), (9, 2, "even", [5, 4]), (9, 2, "schedule", [4, 5]),
    (0, 3, "schedule", [0, 0, 0]), (5, 1, "schedule", [5]),
    # a product of floats, remaining * (1 - s/t), gives 2 * 0.5000000000000001 here and rounds up
    (2, 5, "schedule", [0, 0, 1, 0, 1]),
])
def test_budgets_of_the_worked_examples(n, steps, rule, want):
    assert revising.TransferCounts(n, steps, rule) == want


def test_the_rule_is_even_by_default():
    assert revising.TransferCounts(3, 5) == [1, 1, 1, 0, 0]


def test_budgets_add_up_and_follow_their_rules():
    for n, steps in itertools.product(range(61), range(1, 17)):
        even = revising.TransferCounts(n, steps, "even")
        scheduled = revising.TransferCounts(n, steps, "schedule")
        for counts in (even, scheduled):
            assert len(counts) == steps and sum(counts) == n and min(counts) >= 0
        # "even" is notebook 5's ceil(remaining / steps_left), step after step
        remaining, ceil = n, []
        for steps_left in range(steps, 0, -1):
            ceil.append(int(batched.reveal_counts([remaining], steps_left)[0]))
            remaining -= ceil[-1]
        assert even == ceil
        # "schedule": within a half of remaining / steps_left, an exact half going to the even side
        remaining = n
        for steps_left, k in zip(range(steps, 1, -1), scheduled):
            share = Fraction(remaining, steps_left)
            assert abs(k - share) <= Fraction(1, 2) and (abs(k - share) < Fraction(1, 2) or k % 2 == 0)
            remaining -= k


@pytest.mark.parametrize("args,message", [
    ((10, 0), "steps must be an integer of at least 1, got 0"), ((4, -2, "schedule"), "steps must be"),
    ((-1, 4), "n_masked must be an integer of at least 0, got -1"), ((2.5, 4), "n_masked must be an integer"),
    ((10, 4, "linear"), r"rule must be one of \('even', 'schedule'\), got 'linear'"),
])
def test_budget_errors_say_what_is_wrong(args, message):
    with pytest.raises(ValueError, match=message):
        revising.TransferCounts(*args)


# ---------------------------------------------------------------- SampleBlocks

class Recording(FakeDenoiser):
    def __init__(self, seed=0):
        super().__init__(seed=seed)
        self.canvases = []

    def forward(self, x):
        self.canvases.append(x.clone())
        return super().forward(x)


@pytest.mark.parametrize("G,B,steps,rule", [(12, 4, 6, "even"), (12, 4, 6, "schedule"), (16, 8, 12, "schedule"),
                                            (24, 8, 12, "even"), (10, 10, 5, "even"), (8, 2, 8, "schedule")])
def test_blocks_never_commit_past_themselves(G, B, steps, rule):
    prompt = torch.tensor([5, 6, 7])
    model = Recording()
    row = revising.SampleBlocks(model, prompt, G, B, steps, 1, 0, (9,), rule)
    assert row.dim() == 1 and row.dtype == torch.long and len(row) == len(prompt) + G
    assert row[:3].tolist() == [5, 6, 7] and not (row[3:] == 1).any() and not (row[3:] == 9).any()
    per_block = steps // (G // B)
    assert len(model.canvases) == steps
    canvases = [c[0] for c in model.canvases] + [row]
    for c, x in enumerate(canvases[:-1]):
        block = c // per_block
        end = 3 + (block + 1) * B
        assert (x[end:] == 1).all(), f"call {c + 1} saw a commit past block {block + 1}"
        assert (x[3:3 + block * B] != 1).all(), f"call {c + 1}: the earlier blocks should be full"
        assert torch.equal(x[:3], prompt)
        committed = int(((x == 1) & (canvases[c + 1] != 1)).sum())
        assert committed == revising.TransferCounts(B, per_block, rule)[c % per_block]


def test_one_block_is_notebook_5s_sampler():
    prompt = torch.tensor([4, 8, 15])
    row = revising.SampleBlocks(FakeDenoiser(seed=3), prompt, 16, 16, 6, 1, 0)
    want = batched.sample(FakeDenoiser(seed=3), [prompt], [19], 6, 1, 0)[0]
    assert torch.equal(row, want)


@pytest.mark.parametrize("G,B,steps,message", [
    (10, 4, 4, "gen_length = 10 must be a multiple of block_length = 4"),
    (12, 4, 4, "steps = 4 must be a multiple of the number of blocks, 3"),
    (8, 0, 4, "block_length must be an integer of at least 1"), (8, 4, 0, "steps must be an integer of at least 1"),
    (0, 4, 4, "gen_length must be an integer of at least 1"),
])
def test_block_errors_come_before_any_denoiser_call(G, B, steps, message):
    model = Recording()
    with pytest.raises(ValueError, match=message):
        revising.SampleBlocks(model, torch.tensor([5]), G, B, steps, 1, 0)
    assert model.canvases == []


# ---------------------------------------------------------------- CommitAbove

X = torch.tensor([[1, 1, 1, 1, 9], [1, 7, 1, 1, 1], [8, 8, 1, 1, 1]])
CANDIDATES = torch.tensor([[2, 3, 4, 5, 6], [2, 3, 4, 5, 6], [2, 3, 4, 5, 6]])
CONFIDENCE = torch.tensor([[0.9, 0.4, 0.95, 0.2, 0.99], [0.3, 0.99, 0.6, 0.1, 0.7], [0.9, 0.9, 0.5, 0.5, 0.5]])
SLOTS = torch.tensor([[True, True, True, True, False], [True, True, True, True, False],
                      [True, True, False, False, False]])


def test_commits_above_the_threshold_and_at_least_the_top_one():
    before = X.clone()
    got = revising.CommitAbove(X, CANDIDATES, CONFIDENCE, SLOTS, 0.5, 1)
    assert got.tolist() == [[2, 1, 4, 1, 9], [1, 7, 4, 1, 1], [8, 8, 1, 1, 1]]   # row 2: nothing eligible
    got = revising.CommitAbove(X, CANDIDATES, CONFIDENCE, SLOTS, 0.96, 1)
    assert got.tolist() == [[1, 1, 4, 1, 9], [1, 7, 4, 1, 1], [8, 8, 1, 1, 1]]
    assert torch.equal(X, before) and got.dtype == torch.long


@pytest.mark.parametrize("tau", [1.0, 1.5, 40.0])
def test_a_threshold_of_one_or_more_commits_exactly_one_per_row(tau):
    g = torch.Generator().manual_seed(0)
    for _ in range(50):
        x = torch.where(torch.rand(4, 9, generator=g) < 0.7, torch.tensor(1), torch.tensor(5))
        slots = torch.rand(4, 9, generator=g) < 0.8
        confidence = torch.rand(4, 9, generator=g)
        confidence[0, 0] = 1.0
        got = revising.CommitAbove(x, torch.full((4, 9), 3), confidence, slots, tau, 1)
        eligible = (slots & (x == 1)).any(dim=1)
        assert ((got != x).sum(dim=1) == eligible.long()).all()


@pytest.mark.parametrize("change,tau,message", [
    (dict(confidence=CONFIDENCE[:, :4]), 0.5, "must share one shape"),
    (dict(slots=SLOTS.long()), 0.5, "slots must be Boolean, got torch.int64"),
    ({}, -0.1, "tau must be a threshold of at least 0, got -0.1"), ({}, float("nan"), "got nan"),
    (dict(candidate_ids=torch.tensor([[2, 3, 1, 5, 6]] * 3)), 0.5, "a committed proposal cannot be the mask"),
])
def test_commit_errors_say_what_is_wrong(change, tau, message):
    args = {**dict(x=X, candidate_ids=CANDIDATES, confidence=CONFIDENCE, slots=SLOTS), **change}
    with pytest.raises(ValueError, match=message):
        revising.CommitAbove(args["x"], args["candidate_ids"], args["confidence"], args["slots"], tau, 1)


def test_a_mask_proposed_but_not_committed_is_no_error():
    candidates = CANDIDATES.clone()
    candidates[0, 3] = 1   # confidence 0.2: below tau, not the top one
    assert revising.CommitAbove(X, candidates, CONFIDENCE, SLOTS, 0.5, 1)[0].tolist() == [2, 1, 4, 1, 9]


def parallel_two(tau, runs):
    return [experiments.ParallelTwo(revising.CommitAbove, tau) for _ in range(runs)]


@pytest.mark.parametrize("tau,calls", [(0.9, 3), (1.0, 4), (2.0, 4)])
def test_a_high_threshold_makes_no_mistake_in_a_fixed_number_of_calls(tau, calls):
    torch.manual_seed(1)
    results = parallel_two(tau, 200)
    assert all(c == calls and not experiments.Impossible(x) for x, c in results)


def test_a_low_threshold_commits_everything_at_once_and_errs_32_percent_of_the_time():
    torch.manual_seed(2)
    results = parallel_two(0.1, 1000)
    assert all(c == 1 for _, c in results)
    verdict = stats.binomial_test(sum(experiments.Impossible(x) for x, _ in results), 1000, 0.32, ALPHA)
    assert verdict.ok, verdict.summary


def test_a_middle_threshold_makes_no_mistake_in_1_375_calls_on_average():
    """The two uncertain words each pass 0.5 with probability 0.8: one call when both pass (0.64),
    two when one does (0.32), and a fresh start when neither does: mean 1.32 / 0.96 = 1.375."""
    torch.manual_seed(3)
    runs = 1000
    results = parallel_two(0.5, runs)
    assert not any(experiments.Impossible(x) for x, _ in results)
    calls = [c for _, c in results]
    for k, p in ((1, 0.64), (2, 0.32)):
        verdict = stats.binomial_test(calls.count(k), runs, p, stats.split(ALPHA, 2))
        assert verdict.ok, verdict.summary


# ---------------------------------------------------------------- RemaskSigma, RemaskStep

@pytest.mark.parametrize("t,s,eta,schedule,want", [
    (0.5, 0.25, 1.0, "cap", 0.5), (0.5, 0.25, 0.1, "cap", 0.1), (0.5, 0.25, 0.5, "rescale", 0.25),
    (1.0, 0.9, 2.0, "cap", 1.0), (0.75, 0.5, 3.0, "cap", 1.0), (0.75, 0.5, 0.5, "rescale", 0.5),
    (0.3, 0.1, 1.0, "rescale", 0.1 / 0.7), (0.5, 0.0, 1.0, "rescale", 0.0),
])
def test_sigma_schedules(t, s, eta, schedule, want):
    assert revising.RemaskSigma(t, s, eta, schedule) == pytest.approx(want, abs=1e-12)
    assert revising.SigmaMax(t, s) >= revising.RemaskSigma(t, s, eta, schedule)


@pytest.mark.parametrize("args,message", [
    ((0.5, 0.25, -0.1), "eta must be at least 0"), ((0.5, 0.25, 1.5, "rescale"), r"eta must lie in \[0, 1\]"),
    ((0.25, 0.5, 0.1), "0 <= s <= t <= 1"), ((1.25, 0.5, 0.1), "0 <= s <= t <= 1"),
    ((0.0, 0.0, 0.1), "t > 0"),
    ((0.5, 0.25, 0.1, "linear"), "schedule must be one of"),
])
def test_sigma_errors_say_what_is_wrong(args, message):
    with pytest.raises(ValueError, match=message):
        revising.RemaskSigma(*args)


def uniform_guess(x_t):
    p = torch.zeros(len(x_t), 5)
    p[:, :4] = 0.25
    return p


def test_sigma_zero_is_undiffuse():
    """From t = k/T to s = (k-1)/T with sigma = 0 a mask is revealed with probability 1/k, and nothing
    decoded changes."""
    T, L, runs = 5, 20, 300
    alpha = stats.split(ALPHA, T)
    torch.manual_seed(4)
    x_t = torch.tensor([4] * 10 + [0, 1, 2, 3] * 2 + [1, 2])
    for k in range(1, T + 1):
        outs = torch.stack([revising.RemaskStep(x_t, k / T, (k - 1) / T, uniform_guess, 4, 0.0) for _ in range(runs)])
        assert (outs[:, 10:] == x_t[10:]).all()
        verdict = stats.binomial_test(int((outs[:, :10] != 4).sum()), runs * 10, 1 / k, alpha)
        assert verdict.ok, verdict.summary


def test_the_step_keeps_the_forward_marginal():
    """x_t from the forward process at t (each token masked with probability t): after one step each
    position is masked with probability s, independently, whatever the valid sigma."""
    torch.manual_seed(5)
    L, runs = 10, 2000
    cases = [(0.75, 0.5, 1.0), (0.5, 0.25, 0.3), (1.0, 0.6, 0.9)]
    alpha = stats.split(ALPHA, len(cases))
    for t, s, sigma in cases:
        counts = []
        for _ in range(runs):
            x_t = torch.where(torch.rand(L) < t, torch.tensor(4), torch.tensor(2))
            counts.append(int((revising.RemaskStep(x_t, t, s, uniform_guess, 4, sigma) == 4).sum()))
        verdict = stats.dkw_test(counts, stats.binomial_pmf(L, s), alpha)
        assert verdict.ok, verdict.summary


def test_fixed_positions_and_x_t_never_change():
    torch.manual_seed(6)
    x_t = torch.tensor([3, 3, 3, 4, 4, 2, 4, 0, 0])
    fixed = torch.tensor([True, True, True, False, False, False, True, True, True])
    before = x_t.clone()
    for _ in range(200):
        out = revising.RemaskStep(x_t, 0.75, 0.5, uniform_guess, 4, 1.0, fixed)
        assert torch.equal(out[fixed], x_t[fixed]) and out[5] == 4 and out.dtype == torch.long
    assert torch.equal(x_t, before)
    assert (revising.RemaskStep(torch.full((50,), 4), 0.25, 0.0, uniform_guess, 4, 0.0) != 4).all()


@pytest.mark.parametrize("t,s,sigma,fixed,message", [
    (0.5, 0.25, 0.6, None, r"sigma must lie in \[0, sigma_max\] = \[0, 0.5\]"),
    (0.5, 0.25, -0.1, None, "sigma must lie in"), (0.25, 0.5, 0.0, None, "0 <= s <= t <= 1"),
    (1.5, 0.5, 0.0, None, "0 <= s <= t <= 1"), (0.0, 0.0, 0.0, None, "t > 0"), (0.5, 0.25, 0.1, torch.ones(3, dtype=torch.long), "Boolean tensor"),
    (0.5, 0.25, 0.1, torch.ones(2, dtype=torch.bool), "Boolean tensor of x_t's shape"),
])
def test_step_errors_say_what_is_wrong(t, s, sigma, fixed, message):
    with pytest.raises(ValueError, match=message):
        revising.RemaskStep(torch.tensor([2, 4, 1]), t, s, uniform_guess, 4, sigma, fixed)


def test_sigma_max_itself_is_allowed():
    revising.RemaskStep(torch.tensor([2, 4, 1]), 0.5, 0.25, uniform_guess, 4, 0.5)
    revising.RemaskStep(torch.tensor([2, 4, 1]), 1.0, 0.5, uniform_guess, 4, 1.0)


# ---------------------------------------------------------------- the two-sentence world, exactly

MASK = experiments.MASK
OPTIONS = [sorted({int(experiments.Encode(s)[i]) for s in experiments.SENTENCES} | {MASK}) for i in range(4)]
STATES = list(itertools.product(*OPTIONS))   # every canvas the reverse process can reach: 36
# GuessX0_two's rows in float64, summing to 1 (its float32 weights 0.8 and 0.2 add up to 1 + 1.5e-8)
GUESSES = {x: (lambda g: g / g.sum(dim=1, keepdim=True))(experiments.GuessX0_two(torch.tensor(x)).double())
           for x in STATES}


def step_matrix(t, s, sigma):
    """The exact transition of one ReMDM step between the 36 canvases: every position on its own, a
    decoded word remasked w.p. sigma, a mask revealed w.p. q as a draw from GuessX0_two of the canvas."""
    q = ((1 - s) - (1 - sigma) * (1 - t)) / t
    index = {x: i for i, x in enumerate(STATES)}
    P = np.zeros((len(STATES), len(STATES)))
    for x in STATES:
        moves = []
        for i, v in enumerate(x):
            if v == MASK:
                moves.append([(MASK, 1 - q)] + [(u, q * float(GUESSES[x][i, u])) for u in OPTIONS[i] if u != MASK])
            else:
                moves.append([(v, 1 - sigma), (MASK, sigma)])
        for combo in itertools.product(*moves):
            P[index[x], index[tuple(u for u, _ in combo)]] += math.prod(p for _, p in combo)
    return P


def exact_impossible_rate(T, eta, schedule):
    dist = np.zeros(len(STATES))
    dist[STATES.index((MASK,) * 4)] = 1.0
    for k in range(T, 0, -1):
        t, s = k / T, (k - 1) / T
        dist = dist @ step_matrix(t, s, revising.RemaskSigma(t, s, eta, schedule))
    assert abs(dist.sum() - 1) < 1e-9 and all(p < 1e-12 for x, p in zip(STATES, dist) if MASK in x)
    return sum(p for x, p in zip(STATES, dist) if experiments.Impossible(torch.tensor(x)))


@pytest.fixture(scope="module")
def exact_rates():
    return {(T, eta): exact_impossible_rate(T, eta, "cap" if eta == 0 else "rescale")
            for T in (1, 2, 4, 8, 16, 32) for eta in (0.0, 1.0)}


@pytest.mark.parametrize("T", [1, 2, 4, 8, 16, 32])
def test_without_remasking_the_rate_is_exactly_0_32_over_T(exact_rates, T):
    assert exact_rates[T, 0.0] == pytest.approx(0.32 / T, abs=1e-7)   # GuessX0_two's weights are float32


@pytest.mark.parametrize("T,rate", [(1, 0.32), (2, 0.16), (4, 0.12), (8, 0.0775), (16, 0.04795), (32, 0.03089)])
def test_remasking_at_sigma_max_has_the_rates_the_notebook_states(exact_rates, T, rate):
    assert exact_rates[T, 1.0] == pytest.approx(rate, abs=5e-6)


@pytest.mark.parametrize("T", [4, pytest.param(8, marks=pytest.mark.slow)])
def test_remask_two_with_the_reference_step_has_the_exact_rate(exact_rates, T):
    torch.manual_seed(7)
    runs = 2000
    bad = sum(experiments.Impossible(experiments.RemaskTwo(revising.RemaskStep, revising.RemaskSigma, T, 1.0,
                                                           "rescale")) for _ in range(runs))
    verdict = stats.binomial_test(bad, runs, exact_rates[T, 1.0], ALPHA)
    assert verdict.ok, verdict.summary


# ---------------------------------------------------------------- SampleEntropy, Perplexity

@pytest.mark.parametrize("ids,want", [
    ([5] * 32, 0.0), (torch.arange(32), math.log(32)), (torch.tensor([7, 7, 9, 9]), math.log(2)),
    (np.array([1, 1, 2, 3], dtype=np.int16), -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))),
    (torch.tensor([3, 3, 3], dtype=torch.uint8), 0.0), ([4], 0.0),
])
def test_sample_entropy_in_nats_over_the_samples_own_tokens(ids, want):
    assert revising.SampleEntropy(ids) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("ids,message", [([], "an empty sample"), (torch.tensor([1.0, 2.0]), "token ids are integers")])
def test_sample_entropy_errors(ids, message):
    with pytest.raises(ValueError, match=message):
        revising.SampleEntropy(ids)


def flat(ids):
    return torch.zeros(1, ids.shape[1], 7)


def sure(ids):
    logits = torch.full((1, ids.shape[1], 7), -50.0)
    logits[0, torch.arange(ids.shape[1]), (ids[0] + 1) % 7] = 50.0
    return logits


class Output:
    def __init__(self, logits):
        self.logits = logits


def test_perplexity_of_a_flat_and_a_sure_scorer():
    ids = torch.tensor([1, 2, 3, 4, 5])
    assert revising.Perplexity(flat, ids) == pytest.approx(7, rel=1e-6)
    assert revising.Perplexity(sure, ids) == pytest.approx(1, rel=1e-6)
    assert revising.Perplexity(lambda x: Output(flat(x)), ids) == pytest.approx(7, rel=1e-6)


def test_perplexity_is_the_exp_of_the_mean_surprise_of_ids_1_on():
    g = torch.Generator().manual_seed(8)
    table = torch.randn(1, 12, 9, generator=g)
    ids = torch.randint(0, 9, (12,), generator=g)
    logp = torch.log_softmax(table[0].double(), dim=-1)
    want = math.exp(-sum(float(logp[i - 1, ids[i]]) for i in range(1, 12)) / 11)
    assert revising.Perplexity(lambda x: table[:, : x.shape[1]], ids) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("ids", [torch.tensor([[1, 2, 3]]), torch.tensor([4]), torch.tensor([1.0, 2.0])])
def test_perplexity_errors(ids):
    with pytest.raises(ValueError, match="a perplexity needs a 1-D tensor of at least 2 integer ids"):
        revising.Perplexity(flat, ids)
