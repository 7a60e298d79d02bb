"""Hidden checks for notebook 08's functions: uniform noise, the posterior of the two-sentence world, the
reverse step and the uniform-state loss.

Each check feeds the student's function inputs of its own: ForwardUniform and UniformStep run on made-up
vocabularies (7, 13 and 20 words; 6 for the step), so that a function that reads 13 or the notebook's
globals instead of its arguments is caught, and UniformStep draws from a guess of ours whose law is
known (`TimedGuesser`, built in the kernel, answers only at the step's own t). PosteriorUniform and
UniformLoss are deterministic and compared with the reference; the laws are tested with exact binomial
and DKW tests that share ALPHA = 1e-6 per check (stats.split), and each batch of calls is one request to
the student's kernel. Every case a check asks is one the task text states: the arguments, their forms
(alpha a number or one per row) and the boundaries (alpha = 0 and 1; 0 <= s < t <= 1; 0 < t < 1).
"""
import itertools

import numpy as np
import torch

from maskdiff_client.fakes import TimedGuesser

from .. import stats
from .. import uniform as ref
from .core import ALPHA, Failure, changed, check, expect, refused, stated, token_ids, type_name, value_of, vector


class Tests:
    """The statistical tests of one check, judged together once the data is in: ALPHA is split over exactly
    as many tests as there are, and each fails with its advice and the test's own summary."""

    def __init__(self):
        self.tests = []

    def binomial(self, k, n, p, what, advice):
        self.tests.append((lambda alpha: stats.binomial_test(k, n, p, alpha, what=what), advice))

    def dkw(self, samples, pmf, what, advice):
        self.tests.append((lambda alpha: stats.dkw_test(samples, pmf, alpha, what=what), advice))

    def judge(self):
        alpha = stats.split(ALPHA, len(self.tests))
        for test, advice in self.tests:
            verdict = test(alpha)
            expect(verdict.ok, f"{advice}. {verdict.summary}")


def shown(name, args):
    """A call as the failure names it: tensors shown by their values when short."""
    def one(a):
        if torch.is_tensor(a):
            return f"tensor({a.tolist()})" if a.numel() <= 8 else f"a tensor of shape {tuple(a.shape)}"
        return repr(a)
    return f"{name}({', '.join(one(a) for a in args)})"


def not_refused(result, what):
    """A valid call at a stated boundary must not be refused as if it were wrong (a ValueError); whatever
    else it does is for the other checks of the function to judge."""
    if result[0] == "raised" and "ValueError" in result[3]:
        raise Failure(f"{what} raised ValueError: {result[2]}; it is a valid call (the task allows it), so it "
                      f"should not be refused")


def refuses_what_is_wrong(student, name, errors, allowed):
    """Each (why, args) of `errors` raises a ValueError and no args of `allowed` does, in one batch."""
    results = student.calls([list(args) for _, args in errors] + [list(args) for args in allowed])
    for (why, args), result in zip(errors, results):
        refused(result, why, shown(name, args))
    for args, result in zip(allowed, results[len(errors):]):
        not_refused(result, shown(name, args))


# ---------------------------------------------------------------- ForwardUniform

def noisy(result, x0, vocab_size, what):
    """One call's x_t as integer ids of x0's shape in 0..vocab_size-1, x0 left as it was."""
    expect(0 not in changed(result), f"{what} changed the x0 it was given: build x_t as a new tensor (torch.where)")
    value = value_of(result, what)
    shape = tuple(x0.shape)
    if torch.is_tensor(value) and tuple(value.shape) != shape:
        raise Failure(f"{what} returned shape {tuple(value.shape)}; x_t has x0's shape {shape}")
    try:
        flat = torch.as_tensor(np.asarray(value.detach().cpu() if torch.is_tensor(value) else value)).reshape(-1)
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"{what} should return a tensor of token ids of x0's shape {shape}, got "
                      f"{type_name(value)}") from None
    x = token_ids(flat, f"what {what} returned", length=x0.numel()).reshape(shape)
    bad = x[(x < 0) | (x >= vocab_size)]
    expect(bad.numel() == 0, f"{what} wrote the id {int(bad[0]) if bad.numel() else 0}, outside the vocabulary "
                             f"0..{vocab_size - 1}: a replacement is drawn from the vocab_size = {vocab_size} words "
                             f"of the argument")
    return x


# (x0, alpha, vocab_size, runs): a 7-word vocabulary; the 13 words from pure noise; nothing changes at
# alpha = 1; one alpha per row (B, 1) over 20 words, rows from untouched to pure noise.
FORWARD_CASES = [
    (torch.arange(48) % 7, 0.6, 7, 250),
    (ref.Encode(ref.SCHRODINGER), 0.0, 13, 200),
    (torch.arange(20) % 5, 1.0, 5, 10),
    (torch.arange(90).reshape(3, 30) % 20, torch.tensor([[1.0], [0.25], [0.0]]), 20, 150),
]


@check("ForwardUniform.law")
def forward_uniform_law(ForwardUniform):
    tests = Tests()
    for x0, alpha, V, runs in FORWARD_CASES:
        what = shown("ForwardUniform", [x0, alpha, V])
        base = x0.reshape(-1, x0.shape[-1])                                     # (rows, L)
        alphas = torch.as_tensor(alpha, dtype=torch.float64).reshape(-1).expand(len(base)).tolist()
        xs = torch.stack([noisy(r, x0, V, what) for r in ForwardUniform.repeat([x0, alpha, V], runs)])
        xs = xs.reshape(runs, *base.shape)
        for row, a in enumerate(alphas):
            p = (1 - a) * (1 - 1 / V)
            moved = xs[:, row] != base[row]
            where = f"{what}{f', row {row} (alpha = {a:g})' if len(base) > 1 else ''}"
            if a == 1:
                expect(not moved.any(), f"{where}: with alpha = 1 every token is kept, but one changed")
                continue
            L = base.shape[1]
            tests.binomial(int(moved.sum()), runs * L, p, f"tokens changed ({where})",
                           f"{where}: each token should change with probability (1 - alpha)(1 - 1/vocab_size) = "
                           f"{p:.4g}: replaced with probability 1 - alpha by a word drawn uniformly from all "
                           f"{V}, itself included")
            tests.dkw(moved.sum(dim=1).numpy(), stats.binomial_pmf(L, p), f"changed tokens per call ({where})",
                      f"{where}: the number of changed tokens should follow Binomial({L}, {p:.4g}), each token on "
                      f"a coin of its own")
            for i in range(0, L, max(1, L // 8)):
                tests.binomial(int(moved[:, i].sum()), runs, p, f"calls that changed position {i} ({where})",
                               f"{where}: every position should change with the same probability {p:.4g}")
            both = sum(int((moved[:, j] & moved[:, j + 1]).sum()) for j in range(0, L - 1, 2))
            tests.binomial(both, runs * (L // 2), p * p, f"pairs of neighbours both changed ({where})",
                           f"{where}: each token should toss its own coin: two tokens should both change with "
                           f"probability {p * p:.4g}")
            offsets = ((xs[:, row] - base[row]) % V)[moved]
            tests.dkw(offsets.numpy(), np.r_[0.0, np.full(V - 1, 1 / (V - 1))], f"changed tokens' new words ({where})",
                      f"{where}: a changed token's new word should be any of the other {V - 1} words with equal "
                      f"probability (a word drawn uniformly from all {V}, which changes the token unless it draws "
                      f"the token itself)")
            if a == 0:
                tests.dkw(xs[:, row].reshape(-1).numpy(), np.full(V, 1 / V), f"words of x_t ({where})",
                          f"{where}: with alpha = 0 every word of x_t is drawn uniformly from the {V} words, "
                          f"whatever x0 says")
    tests.judge()


FORWARD_ERRORS = [
    ("alpha = 1.5 is not a probability", [torch.tensor([1, 2]), 1.5, 7]),
    ("alpha = -0.1 is not a probability", [torch.tensor([1, 2]), -0.1, 7]),
    ("one alpha per row, 1.2 in the second, is not a probability", [torch.tensor([[1, 2], [3, 4]]),
                                                                   torch.tensor([[0.5], [1.2]]), 7]),
    ("vocab_size = 0: there is no word to draw", [torch.tensor([0, 0]), 0.5, 0]),
    ("vocab_size = 2.5 is not a whole number of words", [torch.tensor([0, 1]), 0.5, 2.5]),
    ("x0 holds the id 7, outside the vocabulary 0..6", [torch.tensor([1, 7]), 0.5, 7]),
    ("x0 holds the id -1", [torch.tensor([-1, 2]), 0.5, 7]),
    ("x0 holds float ids", [torch.tensor([1.0, 2.0]), 0.5, 7]),
]
FORWARD_ALLOWED = [[torch.tensor([1, 6]), 0.0, 7], [torch.tensor([1, 6]), 1.0, 7], [torch.tensor([0, 0, 0]), 0.5, 1],
                   [torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0.0], [1.0]]), 5]]


@check("ForwardUniform.errors")
def forward_uniform_errors(ForwardUniform):
    refuses_what_is_wrong(ForwardUniform, "ForwardUniform", FORWARD_ERRORS, FORWARD_ALLOWED)


stated("ForwardUniform.errors", {why: ("for an `alpha` (any of them) outside $[0, 1]$" if "alpha" in why else
                                       "a `vocab_size` that is not a whole number of at least 1" if "vocab" in why else
                                       "an `x0` with float ids" if "float" in why else
                                       "ids outside `0 .. vocab_size - 1`") for why, _ in FORWARD_ERRORS})


# ---------------------------------------------------------------- PosteriorUniform

ALPHAS = (0.0, 0.2, 0.5, 0.8, 0.97, 0.999)


def posterior_cases():
    """Noisy sentences: the two sentences, their clashes, single words changed, every canvas of the 36
    classes (the first other word standing for its class) and a few drawn at random."""
    g = torch.Generator().manual_seed(8)
    named = [ref.Encode(s) for s in ("the cat is alive", "the box is empty", "the cat is empty", "the box is alive",
                                     "nobody knows if looks", "the nobody is knows", "if cat or alive",
                                     "the box the empty", "alive cat is the")]
    classes = {0: [0, 1, 3, 4], 1: [0, 2, 3, 5]}
    lumped = [torch.tensor([classes[c][i] if c < 2 else 6 + i for i, c in enumerate(canvas)])
              for canvas in itertools.product((0, 2), (0, 1, 2), (0, 2), (0, 1, 2))]
    drawn = [torch.randint(ref.N_WORDS, (4,), generator=g) for _ in range(12)]
    return named + lumped + drawn


@check("PosteriorUniform.exact")
def posterior_exact(PosteriorUniform):
    cases = [(x, a) for x in posterior_cases() for a in ALPHAS]
    results = PosteriorUniform.calls([[x, a] for x, a in cases])
    for (x, a), result in zip(cases, results):
        what = f"PosteriorUniform(Encode({ref.Decode(x)!r}), {a:g})"
        expect(0 not in changed(result), f"{what} changed the x_t it was given")
        got = vector(value_of(result, what), f"what {what} returned", length=2)
        want = ref.PosteriorUniform(x, a)
        if not torch.allclose(got, want, atol=1e-6, rtol=1e-5):
            advice = ("with alpha = 0 the noise has erased everything: the weights are the prior, 0.8 and 0.2"
                      if a == 0 else "each sentence's weight is its prior times, at each of the 4 positions, "
                      "alpha [x_t's word is the sentence's] + (1 - alpha) / 13, then the two are normalised to sum "
                      "to one")
            raise Failure(f"{what} should be [{float(want[0]):.6g}, {float(want[1]):.6g}] (the cat is alive, the box "
                          f"is empty), got [{float(got[0]):.6g}, {float(got[1]):.6g}]: {advice}")


POSTERIOR_ERRORS = [
    ("alpha = 1: without noise a sentence the world never makes has probability 0 under both",
     [ref.Encode("the cat is empty"), 1.0]),
    ("alpha = 1.5 is not a noise level", [ref.Encode("the cat is alive"), 1.5]),
    ("alpha = -0.2 is not a noise level", [ref.Encode("the cat is alive"), -0.2]),
    ("x_t of 3 words: the world's sentences have 4", [ref.Encode("the cat is"), 0.5]),
    ("x_t of 5 words", [ref.Encode("the cat is alive if"), 0.5]),
    ("x_t holds 13, notebook 2's mask, which is no word here", [torch.tensor([0, 13, 3, 4]), 0.5]),
    ("x_t holds -1", [torch.tensor([0, -1, 3, 4]), 0.5]),
    ("x_t holds float ids", [torch.tensor([0.0, 1.0, 3.0, 4.0]), 0.5]),
]
POSTERIOR_ALLOWED = [[ref.Encode("the cat is alive"), 0.0], [ref.Encode("looks cat is alive"), 0.999]]


@check("PosteriorUniform.errors")
def posterior_errors(PosteriorUniform):
    refuses_what_is_wrong(PosteriorUniform, "PosteriorUniform", POSTERIOR_ERRORS, POSTERIOR_ALLOWED)


stated("PosteriorUniform.errors", {why: (r"unless $0 \le \alpha < 1$" if why.startswith("alpha") else
                                         "(13, notebook 2's mask, is no word here)" if "13" in why else
                                         "an `x_t` that is not 4 integer ids from 0 to 12") for why, _ in POSTERIOR_ERRORS})


# ---------------------------------------------------------------- UniformStep

# A made-up vocabulary of 6 words and 12 positions in three groups of four alike: x_t's word likely under
# the guess (A), impossible under it (B), one of four it spreads over (C).
V_STEP = 6
GROUPS = [(2, [0.05, 0.1, 0.5, 0.15, 0.1, 0.1]), (5, [0.6, 0.3, 0.1, 0.0, 0.0, 0.0]), (0, [0.25, 0.25, 0.25, 0.25, 0, 0])]
X_STEP = torch.tensor([word for word, _ in GROUPS for _ in range(4)])
GUESS = torch.tensor([row for _, row in GROUPS for _ in range(4)], dtype=torch.float64)
STEP_CASES = [(1.0, 0.75), (0.75, 0.5), (0.5, 0.25), (0.4, 0.0), (0.9, 0.8), (1.0, 0.0)]   # (t, s)
# Every other case shows the groups in another order, a second x_t with its guess: a step that reads an x_t
# of its own (the first one's, a global) draws the wrong law there.
ORDERS = [(0, 1, 2), (2, 0, 1)]
STEP_RUNS = 250


def laid_out(order):
    """x_t and the guess of x_0 with the three groups in this order."""
    groups = [GROUPS[g] for g in order]
    return (torch.tensor([word for word, _ in groups for _ in range(4)]),
            torch.tensor([row for _, row in groups for _ in range(4)], dtype=torch.float64))


def step_what(t, s):
    return f"UniformStep(x_t, {t:g}, {s:g}, GuessX0)"


class Recorder:
    """GuessX0 kept by the checker for a few calls: the guess table whatever it is asked, and every call kept."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append([a.detach().clone() if torch.is_tensor(a) else a for a in args])
        return GUESS.float().clone()


def asked_right(UniformStep):
    """A few steps with a guesser of the checker's: asked once per step, with x_t and the step's t."""
    t, s = 0.75, 0.5
    guess = Recorder()
    for result in UniformStep.repeat([X_STEP, t, s, guess], 3):
        value_of(result, step_what(t, s))
    what = step_what(t, s)
    expect(len(guess.calls) == 3, f"3 calls of {what} asked GuessX0 {len(guess.calls)} times: ask it once per step "
                                  f"(it is the network's pass)")
    for args in guess.calls:
        expect(len(args) >= 2, f"{what} called GuessX0 with {len(args)} argument(s): call GuessX0(x_t, t)")
        x, when = args[0], args[1]
        expect(torch.is_tensor(x) and x.reshape(-1).tolist() == X_STEP.tolist(),
               f"{what} handed GuessX0 {x.tolist() if torch.is_tensor(x) else x!r}, not x_t = {X_STEP.tolist()}")
        expect(abs(float(when) - t) <= 1e-9, f"{what} asked GuessX0 at time {when!r}: the guess of x_0 is asked of "
                                             f"x_t at its own time t = {t:g}")


@check("UniformStep.law")
def uniform_step_law(UniformStep):
    asked_right(UniformStep)
    tests = Tests()
    for case, (t, s) in enumerate(STEP_CASES):
        what, order = step_what(t, s), ORDERS[case % len(ORDERS)]
        x_t, guess = laid_out(order)
        results = UniformStep.repeat([x_t, t, s, TimedGuesser([t], guess[None])], STEP_RUNS)
        outs = []
        for result in results:
            expect(0 not in changed(result), f"{what} changed the x_t it was given: return a new tensor")
            out = token_ids(value_of(result, what), f"what {what} returned", length=len(X_STEP))
            bad = out[(out < 0) | (out >= V_STEP)]
            expect(bad.numel() == 0, f"{what} wrote the id {int(bad[0]) if bad.numel() else 0}, outside the guess's "
                                     f"{V_STEP} words: x_s's words are the guess's (its rows have N entries)")
            outs.append(out)
        outs = torch.stack(outs)
        law = ref.StepLaw(x_t, t, s, guess)
        for slot, g in enumerate(order):
            word, block = GROUPS[g][0], outs[:, 4 * slot:4 * slot + 4]
            for v in range(V_STEP):
                p = float(law[4 * slot, v])
                tests.binomial(int((block == v).sum()), block.numel(), p,
                               f"word {v} written where x_t is {word} ({what})",
                               f"{what}: where x_t is {word} and the guess is {GROUPS[g][1]}, x_s should be {v} with "
                               f"probability {p:.4f}: q(x_s | x_t, x_0) averaged over the guess of x_0, with alpha_t "
                               f"= 1 - t = {1 - t:g} and alpha_s = 1 - s = {1 - s:g}")
            mode = int(law[4 * slot].argmax())
            both = int(((block[:, 0] == mode) & (block[:, 1] == mode)).sum() + ((block[:, 2] == mode) &
                                                                                  (block[:, 3] == mode)).sum())
            p = float(law[4 * slot, mode]) ** 2
            if 0 < p < 1:
                tests.binomial(both, 2 * STEP_RUNS, p, f"pairs both writing {mode} ({what})",
                               f"{what}: each position is drawn on its own: two positions alike should both write "
                               f"{mode} with probability {p:.4f}")
    tests.judge()


STEP_ERRORS = [("s = t: a step goes back in time, s < t", [0.5, 0.5]), ("s > t", [0.25, 0.5]),
               ("t = 1.5: times lie in [0, 1]", [1.5, 0.5]), ("s = -0.25: times lie in [0, 1]", [0.5, -0.25])]
STEP_ALLOWED = [(1.0, 0.0), (1.0, 0.5), (0.5, 0.0)]   # the boundaries t = 1 and s = 0 are allowed


@check("UniformStep.errors")
def uniform_step_errors(UniformStep):
    # the guess of a wrong call must not be asked: the times are checked before any work
    results = UniformStep.calls([[X_STEP, t, s, TimedGuesser([], torch.zeros(0, 1, 1))] for _, (t, s) in STEP_ERRORS]
                                + [[X_STEP, t, s, TimedGuesser([t, s], torch.stack([GUESS, GUESS]))]
                                   for t, s in STEP_ALLOWED])
    for (why, (t, s)), result in zip(STEP_ERRORS, results):
        refused(result, f"{why}; and before GuessX0 is called", step_what(t, s))
    for (t, s), result in zip(STEP_ALLOWED, results[len(STEP_ERRORS):]):
        not_refused(result, f"{step_what(t, s)} (0 <= s < t <= 1 holds)")


stated("UniformStep.errors", {f"{why}; and before GuessX0 is called": ("$s = t$ is not a step" if why.startswith("s = t")
                                                                        else r"unless $0 \le s < t \le 1$")
                              for why, _ in STEP_ERRORS})


# ---------------------------------------------------------------- UniformLoss

def loss_cases():
    """(probs, x_0, x_t, t): batches of several shapes and vocabularies, float32 and float64, times near both
    ends, x_t equal to x_0 at some positions and not at others, probabilities sure and spread."""
    g = torch.Generator().manual_seed(64)
    cases = []
    for (B, L, N), dtype in itertools.product([(1, 1, 2), (3, 5, 7), (2, 8, 13), (4, 3, 20)],
                                              (torch.float64, torch.float32)):
        probs = torch.rand(B, L, N, generator=g, dtype=torch.float64) ** 2
        probs[0, 0] = torch.nn.functional.one_hot(torch.tensor(N - 1), N) * 0.98 + 0.02 / N   # nearly sure
        probs = (probs / probs.sum(-1, keepdim=True)).to(dtype)
        x_0 = torch.randint(N, (B, L), generator=g)
        x_t = torch.where(torch.rand(B, L, generator=g) < 0.5, x_0, torch.randint(N, (B, L), generator=g))
        t = torch.tensor([0.001, 0.5, 0.999, 0.3][:B], dtype=dtype)
        cases.append((probs, x_0, x_t, t))
    return cases


def loss_advice():
    return ("per token, with w = x_t, xbar = N alpha_t onehot(x_0) + 1 - alpha_t, xbar_theta = N alpha_t probs + 1 - "
            "alpha_t and alpha_t = 1 - t: (1 / (N alpha_t)) [N / xbar_theta_w - N / xbar_w + sum over v != w of "
            "xbar_v / xbar_w log(xbar_v xbar_theta_w / (xbar_w xbar_theta_v))]")


@check("UniformLoss.exact")
def uniform_loss_exact(UniformLoss):
    cases = loss_cases()
    results = UniformLoss.calls([list(case) for case in cases])
    for (probs, x_0, x_t, t), result in zip(cases, results):
        B, L, N = probs.shape
        what = f"UniformLoss(probs {B}x{L}x{N} in {str(probs.dtype)[6:]}, x_0, x_t, t = {[round(v, 3) for v in t.tolist()]})"
        expect(not changed(result), f"{what} changed its arguments in place")
        value = value_of(result, what)
        expect(torch.is_tensor(value), f"{what} should return a tensor (B, L) of every token's loss, got "
                                       f"{type(value).__name__}: the network learns through it")
        expect(tuple(value.shape) == (B, L), f"{what} returned shape {tuple(value.shape)}; the loss of every token "
                                             f"is (B, L) = ({B}, {L}): training takes the mean, not this function")
        got = value.detach().double()
        want = ref.UniformLoss(probs.double(), x_0, x_t, t.double())
        tolerance = 1e-7 if probs.dtype == torch.float64 else 2e-3
        wrong = (got - want).abs() > tolerance * (1 + want.abs())
        if wrong.any():
            b, i = (int(v) for v in wrong.nonzero()[0])
            same = "x_t = x_0 there" if int(x_t[b, i]) == int(x_0[b, i]) else "x_t differs from x_0 there"
            raise Failure(f"{what}: the loss of row {b}, position {i} (t = {float(t[b]):.3g}, {same}) should be "
                          f"{float(want[b, i]):.6g}, got {float(got[b, i]):.6g}: {loss_advice()}")


LOSS_ERRORS = [
    ("t = 0: every t lies strictly between 0 and 1", [0.0, 0.5]),
    ("t = 1: alpha_t = 0 there, and the loss divides by it", [0.5, 1.0]),
]
LOSS_SHAPE_ERRORS = [   # (why, loss_inputs' arguments, the task's words)
    ("x_t of another shape than x_0", {"shape_xt": (2, 4)}, "`x_0` or `x_t` not of shape `(B, L)`"),
    ("x_0 (3, 3) does not match probs (2, 3, N)", {"shape_x": (3, 3)}, "`x_0` or `x_t` not of shape `(B, L)`"),
    ("one t for two rows", {"t": (0.5,)}, "a `t` that is not one time per row"),
    ("probs without its batch axis, (L, N)", {"shape_p": (3, 4), "shape_x": (3,), "t": (0.5,)},
     "for `probs` that is not 3-D"),
]


def loss_inputs(shape_p=(2, 3, 4), shape_x=(2, 3), shape_xt=None, t=(0.5, 0.5)):
    probs = torch.full(shape_p, 1.0 / shape_p[-1])
    return [probs, torch.zeros(shape_x, dtype=torch.long), torch.zeros(shape_xt or shape_x, dtype=torch.long),
            torch.tensor(t)]


@check("UniformLoss.errors")
def uniform_loss_errors(UniformLoss):
    errors = [(why, loss_inputs(t=t)) for why, t in LOSS_ERRORS] + [(why, loss_inputs(**shapes))
                                                                     for why, shapes, _ in LOSS_SHAPE_ERRORS]
    allowed = [loss_inputs(t=(0.001, 0.999)), loss_inputs(shape_p=(1, 1, 2), shape_x=(1, 1), t=(0.5,))]
    refuses_what_is_wrong(UniformLoss, "UniformLoss", errors, allowed)


stated("UniformLoss.errors", {**{why: "unless every $t$ lies strictly between 0 and 1" for why, _ in LOSS_ERRORS},
                              **{why: words for why, _, words in LOSS_SHAPE_ERRORS}})
