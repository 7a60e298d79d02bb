"""Reference of notebook 08 (maskdiff_solutions/uniform.py): uniform noise, the posterior of the
two-sentence world, the reverse step, the exact chain on 36 lumped canvases against an independent
simulation, and the uniform-state loss against the ELBO it is the limit of."""
import itertools

import pytest
import torch

from maskdiff_solutions import stats, uniform
from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture

pytestmark = pytest.mark.nb08

ALPHA = 1e-6   # each statistical test here fails the reference with probability at most this
N = uniform.N_WORDS


def forward(alpha, n=N):
    """q(x_t = column | x_0 = row) at noise level alpha, as a matrix: the definition, nothing derived."""
    return alpha * torch.eye(n, dtype=torch.float64) + (1 - alpha) / n


# ---------------------------------------------------------------- the table

# The table (uniform noise, T = 1..64) and the share of 'the cat is alive' at T = 8.
TABLE = {1: 0.320, 2: 0.1507, 4: 0.0569, 8: 0.0205, 16: 0.0077, 32: 0.0031, 64: 0.0013}


@pytest.mark.parametrize("T", sorted(TABLE))
def test_the_exact_chain_gives_the_table(T):
    law = uniform.UniformExact(T)
    assert round(law["impossible"], 4 if T > 1 else 3) == TABLE[T]
    assert abs(sum(law.values()) - 1) < 1e-12 and min(law.values()) > 0


def test_uniform_noise_beats_one_over_t():
    shares = {T: uniform.UniformExact(T)["impossible"] for T in TABLE}
    assert round(uniform.UniformExact(8)["the cat is alive"], 4) == 0.8076
    assert round(64 * shares[64], 3) == 0.085 and round(shares[1], 2) == 0.32
    assert all(shares[T] < 0.32 / T for T in TABLE if T > 1)             # below the absorbing 0.32/T
    assert [T * shares[T] for T in sorted(TABLE)] == sorted((T * shares[T] for T in TABLE), reverse=True)


def test_one_step_is_the_absorbing_sampler_in_one_step():
    # from pure noise the guess is the prior, and one step draws each position from it: 2 x 0.8 x 0.2
    law = uniform.UniformExact(1)
    assert law == pytest.approx({"the cat is alive": 0.64, "the box is empty": 0.04, "impossible": 0.32}, abs=1e-12)


@pytest.mark.parametrize("T", [2, 8, 32])
def test_simulation_agrees_with_the_exact_chain(T):
    runs = 20_000
    x = uniform.SimulateUniform(T, runs, torch.Generator().manual_seed(T))
    alive = int((x == uniform.SENTENCE_IDS[0]).all(dim=1).sum())
    empty = int((x == uniform.SENTENCE_IDS[1]).all(dim=1).sum())
    law = uniform.UniformExact(T)
    for k, p, what in ((runs - alive - empty, law["impossible"], "impossible"),
                       (alive, law["the cat is alive"], "alive")):
        verdict = stats.binomial_test(k, runs, p, ALPHA / 6, what=what)
        assert verdict, verdict.summary


def test_the_notebooks_sampler_agrees_with_the_exact_chain():
    torch.manual_seed(5)
    runs, T = 600, 4
    impossible = sum(uniform.Impossible(uniform.UniformTwo(uniform.UniformStep, T)) for _ in range(runs))
    verdict = stats.binomial_test(impossible, runs, uniform.UniformExact(T)["impossible"], ALPHA)
    assert verdict, verdict.summary


# ---------------------------------------------------------------- the step

def bridge(w, u, t, s, n=N):
    """q(x_s | x_t = w, x_0 = u) by Bayes' rule from the forward matrices."""
    joint = forward(1 - s, n)[u] * forward((1 - t) / (1 - s), n)[:, w]
    return joint / joint.sum()


def test_the_step_law_is_the_bridge_averaged_over_the_guess():
    g = torch.Generator().manual_seed(3)
    for n, L, (t, s) in itertools.product((2, 5, 13), (1, 6), [(1.0, 0.75), (0.5, 0.25), (0.3, 0.0), (1.0, 0.0),
                                                               (0.9, 0.899)]):
        x_t = torch.randint(n, (L,), generator=g)
        p = torch.rand(L, n, generator=g, dtype=torch.float64) ** 3
        p = p / p.sum(dim=1, keepdim=True)
        law = uniform.StepLaw(x_t, t, s, p)
        want = torch.stack([sum(p[i, u] * bridge(int(x_t[i]), u, t, s, n) for u in range(n)) for i in range(L)])
        assert torch.allclose(law, want, atol=1e-12), (n, L, t, s)


def test_the_last_step_draws_from_the_guess_and_the_first_forgets_x_t():
    p = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5]], dtype=torch.float64)
    assert torch.allclose(uniform.StepLaw(torch.tensor([2, 0]), 0.4, 0.0, p), p)
    # at t = 1, alpha_t = 0: x_t says nothing, so the step is q(x_s | x_0) averaged over the guess
    a = uniform.StepLaw(torch.tensor([2, 0]), 1.0, 0.5, p)
    b = uniform.StepLaw(torch.tensor([1, 1]), 1.0, 0.5, p)
    assert torch.allclose(a, b) and torch.allclose(a, p @ forward(0.5, 3))


def test_the_step_calls_the_guess_once_with_t_and_errs_before():
    seen = []

    def guess(x, t):
        seen.append((x.tolist(), t))
        return torch.full((len(x), 4), 0.25)

    out = uniform.UniformStep(torch.tensor([3, 1]), 0.5, 0.25, guess)
    assert seen == [([3, 1], 0.5)] and out.dtype == torch.long and out.shape == (2,)
    for t, s in ((0.5, 0.5), (0.25, 0.5), (1.5, 0.5), (0.5, -0.1)):
        with pytest.raises(ValueError):
            uniform.UniformStep(torch.tensor([3, 1]), t, s, guess)
    assert len(seen) == 1


def test_the_network_guess_makes_the_step_duos_plug_in_step():
    # DUO and UDLM plug the network's x_theta into the one-hot posterior formula; that is our step with the
    # guess x_theta (N alpha_t [v = x_t] + 1 - alpha_t), normalised (what the loss's minimum makes a guess)
    g = torch.Generator().manual_seed(9)
    n, L, t, s = 7, 5, 0.6, 0.35
    x_t = torch.randint(n, (L,), generator=g)
    theta = torch.rand(L, n, generator=g, dtype=torch.float64)
    theta = theta / theta.sum(dim=1, keepdim=True)
    alpha_t, alpha_s = 1 - t, 1 - s
    here = torch.nn.functional.one_hot(x_t, n).double()
    plug_in = ((n * alpha_t * theta * here + (alpha_t / alpha_s - alpha_t) * here + (alpha_s - alpha_t) * theta
                + (alpha_s - alpha_t) * (1 - alpha_s) / (n * alpha_s))
               / (n * alpha_t * (theta * here).sum(-1, keepdim=True) + 1 - alpha_t))
    guess = uniform.GuessFromOutput(theta, x_t, t)
    assert torch.allclose(uniform.StepLaw(x_t, t, s, guess), plug_in, atol=1e-12)


# ---------------------------------------------------------------- the posterior

def test_the_posterior_is_bayes_rule_from_the_forward_matrices():
    for alpha in (0.0, 0.1, 0.5, 0.9, 0.999):
        for x in itertools.product(range(N), repeat=2):
            x_t = torch.tensor([x[0], 1, x[1], 4]) if x[0] % 2 else torch.tensor([0, x[0], 3, x[1]])
            like = torch.stack([forward(alpha)[uniform.SENTENCE_IDS[k], x_t].prod() for k in range(2)])
            want = uniform.PRIOR.double() * like
            assert torch.allclose(uniform.PosteriorUniform(x_t, alpha), want / want.sum(), atol=1e-14)
    assert torch.allclose(uniform.PosteriorUniform(torch.tensor([5, 6, 7, 8]), 0.0),
                          torch.tensor([0.8, 0.2], dtype=torch.float64))


def test_a_visible_word_is_only_evidence():
    # under masks a visible 'box' makes the box certain; under uniform noise it only weighs
    w = uniform.PosteriorUniform(uniform.Encode("the box is alive"), 0.5)
    assert 0 < w[1] < 1 and w[0] > 0
    assert uniform.PosteriorUniform(uniform.Encode("the box is empty"), 0.5)[1] < 1


@pytest.mark.parametrize("x_t,alpha", [([0, 1, 3], 0.5), ([0, 1, 3, 13], 0.5), ([0, 1, 3, 4], 1.0),
                                       ([0, 1, 3, 4], -0.1), ([0.0, 1.0, 3.0, 4.0], 0.5)])
def test_the_posterior_refuses_what_it_cannot_weigh(x_t, alpha):
    with pytest.raises(ValueError):
        uniform.PosteriorUniform(torch.tensor(x_t), alpha)


# ---------------------------------------------------------------- forward noise

def test_forward_noise_changes_a_token_with_probability_one_minus_alpha_times_one_minus_one_over_n():
    torch.manual_seed(1)
    for alpha, n in ((0.0, 13), (0.3, 13), (0.7, 10), (1.0, 10), (0.5, 2)):
        x0 = torch.arange(4000) % n
        before = x0.clone()
        x = uniform.ForwardUniform(x0, alpha, n)
        assert torch.equal(x0, before) and x.dtype == torch.long
        verdict = stats.binomial_test(int((x != x0).sum()), x0.numel(), (1 - alpha) * (1 - 1 / n), ALPHA / 10)
        assert verdict, verdict.summary
        if alpha < 1:   # what replaces a token is uniform over the n words: the changed ones, over the others
            verdict = stats.dkw_test(x[x != x0].numpy(), torch.full((n,), 1 / n).numpy(), ALPHA / 10)
            assert verdict, verdict.summary


def test_forward_noise_takes_one_alpha_per_row():
    torch.manual_seed(2)
    x0 = torch.zeros(2, 3000, dtype=torch.long)
    x = uniform.ForwardUniform(x0, torch.tensor([[1.0], [0.0]]), 13)
    assert (x[0] == 0).all() and stats.binomial_test(int((x[1] != 0).sum()), 3000, 12 / 13, ALPHA)


@pytest.mark.parametrize("alpha,n,x0", [(1.5, 13, [1, 2]), (-0.5, 13, [1, 2]), (0.5, 0, [0]), (0.5, 2.5, [0]),
                                        (0.5, 13, [1, 13]), (0.5, 13, [-1, 2]), (0.5, 13, [1.0, 2.0])])
def test_forward_noise_refuses_what_is_not_noise(alpha, n, x0):
    with pytest.raises(ValueError):
        uniform.ForwardUniform(torch.tensor(x0), alpha, n)


# ---------------------------------------------------------------- the loss

def kl_rate(theta, u, w, t, n, dt=1e-7):
    """KL(q(x_s | x_t = w, x_0 = u) || the step with the guess of theta) / dt for s = t - dt: the ELBO's
    step term, per unit of time, with nothing of the closed form in it."""
    guess = uniform.GuessFromOutput(theta[None], torch.tensor([w]), t)[0]
    q = bridge(w, u, t, t - dt, n)
    r = sum(guess[v] * bridge(w, v, t, t - dt, n) for v in range(n))
    return float((q * (q / r).log()).sum() / dt)


def test_the_loss_is_the_limit_of_the_elbos_step_term():
    g = torch.Generator().manual_seed(4)
    n = 6
    for t, u, w in itertools.product((0.1, 0.5, 0.93), range(n), (0, 3)):
        theta = torch.rand(n, generator=g, dtype=torch.float64) + 0.05
        theta = theta / theta.sum()
        loss = uniform.UniformLoss(theta[None, None], torch.tensor([[u]]), torch.tensor([[w]]),
                                   torch.tensor([t], dtype=torch.float64))
        assert loss.shape == (1, 1)
        assert float(loss) == pytest.approx(kl_rate(theta, u, w, t, n), rel=2e-4, abs=1e-6), (t, u, w)


def test_the_loss_is_least_where_the_guess_is_the_posterior():
    # E_{u ~ p} UniformLoss(softmax(z), u, w, t) is stationary at x_theta = p / (N alpha_t [u = w] + 1 - alpha_t),
    # normalised: the network that minimises it does not output the posterior p itself
    n, w, t = 5, 2, 0.4
    p = torch.tensor([0.45, 0.05, 0.3, 0.2, 0.0], dtype=torch.float64)
    theta = p / torch.where(torch.arange(n) == w, n * (1 - t) + t, t)
    z = (theta / theta.sum()).log().clamp(min=-40).requires_grad_()
    x_0 = torch.arange(n)[:, None]
    losses = uniform.UniformLoss(z.softmax(-1).expand(n, 1, n), x_0, torch.full((n, 1), w),
                                 torch.full((n,), t, dtype=torch.float64))
    (p @ losses[:, 0]).backward()
    assert z.grad.abs().max() < 1e-7
    at_p = p.clamp(min=1e-18).log().requires_grad_()       # the posterior itself is not the minimum
    (p @ uniform.UniformLoss(at_p.softmax(-1).expand(n, 1, n), x_0, torch.full((n, 1), w),
                             torch.full((n,), t, dtype=torch.float64))[:, 0]).backward()
    assert at_p.grad.abs().max() > 0.1
    posterior = uniform.GuessFromOutput(theta[None] / theta.sum(), torch.tensor([w]), t)[0]
    assert torch.allclose(posterior, p, atol=1e-12)


def test_the_loss_is_zero_for_a_perfect_network_and_positive_otherwise():
    n, t = 4, torch.tensor([0.3, 0.7], dtype=torch.float64)
    x_0 = torch.tensor([[1, 2], [0, 3]])
    x_t = torch.tensor([[1, 0], [2, 3]])
    exact = torch.nn.functional.one_hot(x_0, n).double()
    assert torch.allclose(uniform.UniformLoss(exact, x_0, x_t, t), torch.zeros(2, 2, dtype=torch.float64), atol=1e-12)
    flat = torch.full((2, 2, n), 1 / n, dtype=torch.float64)
    assert (uniform.UniformLoss(flat, x_0, x_t, t) > 0).all()


@pytest.mark.parametrize("shape_p,shape_x,shape_xt,t", [
    ((2, 3, 4), (2, 3), (2, 3), [0.0, 0.5]), ((2, 3, 4), (2, 3), (2, 3), [0.5, 1.0]),
    ((2, 3, 4), (2, 3), (2, 4), [0.5, 0.5]), ((2, 3, 4), (3, 3), (3, 3), [0.5, 0.5]),
    ((2, 3, 4), (2, 3), (2, 3), [0.5]), ((3, 4), (3,), (3,), [0.5])])
def test_the_loss_refuses_shapes_and_times_it_cannot_use(shape_p, shape_x, shape_xt, t):
    with pytest.raises(ValueError):
        uniform.UniformLoss(torch.full(shape_p, 0.25), torch.zeros(shape_x, dtype=torch.long),
                            torch.zeros(shape_xt, dtype=torch.long), torch.tensor(t))
