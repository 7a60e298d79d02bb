"""Hidden checks for notebook 04: DiffusionLoss (and its optional prompt-aware variant).

The student's loss draws t and the mask itself, in whatever order it likes, so no check replays its
random numbers. Instead the checks hand it a *recording net* (maskdiff_client.drivers.RecordingNet,
run where the student's code runs, because the loss must backpropagate into it): its logits are a
fixed random tensor (a parameter) chosen here, and it keeps the x_t it was called with. From x_t we
read the mask the loss used; from the gradient of the loss with respect to those logits we read the
weight of every position, because d loss / d logits[b, i] = w[b, i] * (softmax - one_hot(x_0[b, i]))
for the reference, with w[b, i] = (T / t_b) / batch at masked positions and 0 elsewhere. So each call
reveals its t and mask exactly, and the loss can be compared with the reference for that very t and
mask. Training with the student's loss also runs beside the student's code; the trained weights come
back and are judged here, with our own copy of the network.
"""
import functools
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from maskdiff_client.denoiser import TinyDenoiser

from .. import stats
from ..toy import MASK as TOY_MASK, VOCAB as TOY_VOCAB, Encode, GuessX0_two, TWO_WORLD
from .core import ALPHA, Failure, check, expect, raised

def one_thread(check_function):
    """Run a check on one CPU thread: its tensors are tiny, and two threads mostly wait for each other
    (several times slower on a loaded 2-core machine). The notebook's own setting is restored."""
    @functools.wraps(check_function)
    def run(*functions):
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return check_function(*functions)
        finally:
            torch.set_num_threads(threads)
    return run


V = 7              # recording-net vocabulary: tokens 0..5 and the mask 6
MASK = V - 1
OTHER_MASK = 0     # a few calls mask with token 0 (the sentences then hold 1..6): the `mask` argument counts


def sentences(batch, length, mask=MASK):
    """Token ids of the recording net's vocabulary, the mask left out."""
    drawn = torch.randint(0, V - 1, (batch, length))
    return drawn + (drawn >= mask).long()


@dataclass
class Observation:
    value: float
    masked: torch.Tensor    # (batch, L) what the net saw masked
    t: torch.Tensor         # (batch,) the t each row was weighted with; 0 where nothing was masked


def raise_for(facts, what):
    """The failure a driver's facts about one loss call show, if any: it raised, or it returned
    something that cannot be a training loss."""
    if facts.get("problem"):
        raise Failure(facts["problem"])
    if "raised" in facts:
        kind, message = facts["raised"][:2]
        raise Failure(f"{what} {raised(kind, message)}")
    expect(facts.get("is_tensor"), f"{what} should return a torch tensor (so that loss.backward() works), "
                                   f"got {facts.get('type')}: did you call .item() or float()?")
    shape = facts.get("shape", [])
    expect(math.prod(shape) == 1, f"{what} should return one number (the batch mean), got shape {tuple(shape)}")
    expect(facts.get("requires_grad"), f"{what} returned a tensor without a gradient: the loss must be "
                                       "computed from the net's logits with torch operations (no .item(), "
                                       ".detach() or numpy)")
    expect(math.isfinite(facts.get("value", math.nan)), f"{what} returned {facts.get('value')}")
    if "backward_raised" in facts:
        kind, message = facts["backward_raised"][:2]
        raise Failure(f"loss.backward() on the result of {what} {raised(kind, message)}")


def observe(loss_function, x_0, T, prompt=None, mask=MASK):
    """Call the student's loss once with a recording net and read back its mask, weights and t."""
    batch, length = x_0.shape
    logits = torch.randn(batch, length, V)
    name = "DiffusionLoss" if prompt is None else "DiffusionLossPrompt"
    what = f"{name}(net, x_0, {'prompt, ' if prompt is not None else ''}mask={mask}, T={T})"
    facts = loss_function.drive("loss_observe", logits=logits, x_0=x_0, mask=mask, T=T, prompt=prompt)
    raise_for(facts, what)
    expect(facts["calls"] == 1, f"{what} should call net once, on the whole batch x_t; "
                                f"it called it {facts['calls']} times")
    x_t = facts["inputs"][0]
    expect(torch.is_tensor(x_t) and x_t.dtype == torch.long,
           f"the net should get token ids (long), got {getattr(x_t, 'dtype', type(x_t).__name__)}")
    expect(tuple(x_t.shape) == tuple(x_0.shape), f"the net should get x_t of the batch's shape "
                                                 f"{tuple(x_0.shape)}, got {tuple(x_t.shape)}")
    masked = x_t == mask
    expect(bool(((x_t == x_0) | masked).all()),
           f"x_t holds a token that is neither the original one nor the mask (mask = {mask}: use the "
           f"`mask` argument)")
    grad = facts.get("grad")
    expect(grad is not None and bool(grad.abs().sum() > 0) or not masked.any(),
           f"no gradient reaches the net's logits from {what}")
    grad = (torch.zeros_like(logits) if grad is None else grad).double()
    p = logits.double().softmax(-1)
    target = F.one_hot(x_0, V).double()
    p_true = (p * target).sum(-1)
    weight = (grad * target).sum(-1) / (p_true - 1.0)                # (batch, L)
    scale = float(weight.abs().max()) or 1.0
    residual = (grad - weight[..., None] * (p - target)).abs().max() / scale
    expect(float(residual) < 1e-3, "the gradient of your loss is not that of a cross-entropy of the net's "
                                   "logits: use -log softmax of the logits at the true token "
                                   "(F.cross_entropy) at each position")
    expect(bool((weight.abs() <= 1e-5 * scale)[~masked].all()),
           "positions the net can see (not masked in x_t) count in your loss: only masked positions "
           "should contribute (multiply the cross-entropy by the mask, or select masked positions)")
    if prompt is not None:
        expect(not bool(masked[prompt].any()), "a prompt position was masked: the prompt must stay "
                                               "visible (mask only where prompt is False)")
    counts = masked.sum(1)
    mean = (weight * masked).sum(1) / counts.clamp(min=1)         # the weight of each row
    spread = ((weight - mean[:, None]).abs() * masked).amax(1)
    for b in torch.nonzero(spread > 1e-4 * mean.abs()).flatten().tolist()[:1]:
        raise Failure(f"row {b}: the masked positions of one sentence carry different weights "
                      f"{[round(float(w) * batch, 4) for w in weight[b][masked[b]]]} (x 1/batch): each "
                      "sentence has one t, and every masked position counts with the same weight T/t")
    t_hat = T / (batch * mean.masked_fill(counts == 0, 1.0))
    fits = (t_hat > 0.5) & (t_hat < T + 0.5) & ((t_hat - t_hat.round()).abs() < 1e-3 * t_hat.clamp(min=1))
    for b in torch.nonzero(~fits & (counts > 0)).flatten().tolist()[:1]:
        raise Failure(f"row {b}: its masked positions have weight {float(mean[b]) * batch:.4g} x (1/batch), "
                      f"which is not T/t for any t in 1..{T}; the loss is (T/t) * (sum of -log p over the "
                      "masked positions of a sentence), averaged over the batch")
    t = torch.where(counts > 0, t_hat.round().long(), 0)
    surprise = F.cross_entropy(logits.double().transpose(1, 2), x_0, reduction="none")
    wanted = float(((T / t.clamp(min=1).double())[:, None] * surprise * masked).sum(1).mean())
    value = facts["value"]
    expect(abs(value - wanted) <= 1e-4 * max(1.0, abs(wanted)),
           f"for the t and mask your loss used, the reference loss is {wanted:.6f}, yours is {value:.6f}")
    return Observation(value, masked, t)


def loss_values(loss_function, logits, x_0, T, calls, what, prompt=None):
    """The student's loss over `calls` calls with one recording net whose logits ignore x_t."""
    facts = loss_function.drive("loss_values", logits=logits, x_0=x_0, mask=MASK, T=T, calls=calls,
                                prompt=prompt)
    if facts.get("problem"):
        raise Failure(facts["problem"])
    if "raised" in facts:
        raise Failure(f"{what} {raised(*facts['raised'][:2])}")
    if "bad" in facts:
        raise Failure(f"{what} returned {facts['bad']}, not one number")
    return facts["values"]


@check("DiffusionLoss.backprop")
@one_thread
def loss_backprop(DiffusionLoss):
    what = "DiffusionLoss(net, x_0, mask)"
    facts = DiffusionLoss.drive("loss_backprop", vocab_size=V, x_0=sentences(8, 10), mask=MASK,
                                size=dict(dim=16, heads=2, layers=1, max_length=16))
    raise_for(facts, what)
    norms = [n for n in facts["norms"] if n is not None]
    expect(norms and sum(norms) > 0, "after loss.backward() the net's parameters have no gradient: "
                                     "the loss must be computed from net(x_t)")
    expect(all(math.isfinite(n) for n in norms), "the gradients of your loss are not finite")


@check("DiffusionLoss.exact")
@one_thread
def loss_exact(DiffusionLoss):
    """Deterministic: every call must be the reference loss for the t and mask it drew."""
    for T, batch, length, calls, mask in ((5, 4, 12, 60, MASK), (100, 8, 16, 20, MASK), (1, 3, 5, 3, MASK),
                                          (5, 4, 12, 10, OTHER_MASK)):
        for _ in range(calls):
            obs = observe(DiffusionLoss, sentences(batch, length, mask), T, mask=mask)
            if T == 1:
                expect(bool(obs.masked.all()), "with T = 1, t is always 1 = T: every position is masked")


def conditional_t_law(T, length):
    """P(t | at least one position masked), t = 1..T: uniform t, thinned by P(no mask) = (1 - t/T)^L."""
    weights = [1.0 - (1.0 - t / T) ** length for t in range(1, T + 1)]
    return [w / sum(weights) for w in weights]


def expect_binomial(k, n, p, alpha, what, why):
    """Fail with `why` and the test's summary unless k of n is a plausible Binomial(n, p) draw."""
    verdict = stats.binomial_test(k, n, p, alpha, what=what)
    expect(verdict.ok, f"{why} {verdict.summary}")


def position_tests(obs, T, positions, pair, alpha, name="DiffusionLoss"):
    """Per t, each position of `positions` masked with probability t/T and the two positions of `pair`
    masked independently, among the rows of the observations that have that t. A row's t is read off
    its weight, so only rows with a mask are seen: given t = s and at least one mask among the row's
    n maskable positions, a position is masked with probability q = p / (1 - (1-p)^n), p = s/T, and
    both of a pair with p^2 / (1 - (1-p)^n). Rows are independent, so every count is binomial.
    len(positions) + 1 tests per t; returns nothing, raises the first failure."""
    t = torch.cat([o.t for o in obs])
    masked = torch.cat([o.masked for o in obs])
    for s in range(1, T + 1):
        rows = masked[t == s]
        p = s / T
        seen = 1 - (1 - p) ** len(positions) if p < 1 else 1.0
        for i in positions:
            expect_binomial(int(rows[:, i].sum()), len(rows), p / seen, alpha,
                            f"sentences with t = {s} that masked position {i}",
                            f"every position should be masked with the same probability t/T = {p:.2f} "
                            f"(given t = {s}), wherever it sits in the sentence; position {i} is not.")
        i, j = pair
        expect_binomial(int((rows[:, i] & rows[:, j]).sum()), len(rows), p * p / seen, alpha,
                        f"sentences with t = {s} that masked both positions {i} and {j}",
                        f"{name} should toss one coin per position: positions {i} and {j} should both be "
                        f"masked with probability (t/T)^2 = {p * p:.3f} given t = {s}.")


@check("DiffusionLoss.law")
@one_thread
def loss_law(DiffusionLoss):
    """t uniform on 1..T, drawn per sentence; each position masked with probability t/T, on its own."""
    T, batch, length, calls = 4, 8, 16, 250
    alpha = stats.split(ALPHA, 2 + T + T * (length + 1))
    obs = [observe(DiffusionLoss, sentences(batch, length), T) for _ in range(calls)]
    t = torch.cat([o.t for o in obs])
    counts = torch.cat([o.masked.sum(1) for o in obs])
    seen = t > 0
    q = conditional_t_law(T, length)
    verdict = stats.dkw_test(t[seen] - 1, q, alpha, what="the t of each sentence")
    expect(verdict.ok, f"t should be uniform on 1..{T} (each sentence's t is read off its weight T/t). "
                       f"{verdict.summary}")
    pairs = torch.stack([o.t[:2] for o in obs])
    both = (pairs > 0).all(1)
    same = int((pairs[both, 0] == pairs[both, 1]).sum())
    expect_binomial(same, int(both.sum()), sum(p * p for p in q), alpha,
                    "pairs of sentences in one batch with the same t",
                    "each sentence of the batch should draw its own t (shape (batch, 1)), "
                    "not one t for the whole batch.")
    position_tests(obs, T, range(length), (0, 1), alpha)
    for s in range(1, T + 1):
        pmf = stats.binomial_pmf(length, s / T)
        pmf[0] = 0.0
        verdict = stats.dkw_test(counts[t == s], pmf / pmf.sum(), alpha,
                                 what=f"masked positions per sentence with t = {s}")
        expect(verdict.ok, f"a sentence with t = {s} should have each position masked with probability "
                           f"t/T = {s / T:.2f}. {verdict.summary}")


@check("DiffusionLoss.expectation")
@one_thread
def loss_expectation(DiffusionLoss):
    """With logits that ignore x_t, E[loss] = the mean over rows of the sum of per-position
    cross-entropies, for every T: the weight T/t cancels the masking probability t/T."""
    T, batch, length, calls = 10, 16, 8, 200
    logits = torch.randn(1, length, V)
    x_0 = sentences(batch, length)
    surprise = F.cross_entropy(logits.expand(batch, -1, -1).transpose(1, 2).double(), x_0,
                               reduction="none")  # (batch, L)
    total = surprise.sum(1)
    expected = float(total.mean())
    # Per row, loss = (T/t) sum_i m_i c_i with m_i ~ Bernoulli(t/T): mean sum_i c_i for every t,
    # variance (T/t - 1) sum_i c_i^2 given t, so (H_T - 1) sum_i c_i^2 overall; it lies within
    # (T - 1) sum_i c_i of its mean. Rows are independent, so Bernstein bounds their average.
    harmonic = sum(1.0 / t for t in range(1, T + 1))
    variance = float((harmonic - 1.0) * (surprise ** 2).sum(1).mean())
    bound = float((T - 1) * total.max())
    values = loss_values(DiffusionLoss, logits, x_0, T, calls, f"DiffusionLoss(net, x_0, mask, T={T})")
    verdict = stats.bernstein_test(sum(values) / calls, expected, calls * batch, variance, bound, ALPHA,
                                   what="average loss")
    expect(verdict.ok, "with a net whose guesses ignore x_t, the average loss should equal the sum over "
                       "positions of -log p(x_0^i), whatever T is: the weight T/t makes up for masking "
                       f"only a fraction t/T. {verdict.summary}")


# --- the two-sentence world, trained with the student's loss ---------------------------------------
# Training is deterministic given the seed, but no inequality bounds how it ends: this is the one
# check of the notebook whose false-failure rate is measured, not proven. The band and the tolerance
# are set from the reference (`python benchmarks/loss_checks.py --seeds N`): over seeds 0..19 its
# excess loss stayed below 0.039 and its guesses within 0.055 of Bayes, about a third of what is
# allowed here. The failures this check exists for (training the visible positions, masking with
# 1 - t/T, a loss that does not backpropagate) leave the guesses at masked positions untrained.
TRAIN_STEPS, TRAIN_BATCH, TRAIN_LR, TRAIN_T = 400, 64, 3e-3, 100
LOSS_BAND = 0.10          # the trained net's exact expected loss may exceed Bayes' by at most this
GUESS_TOLERANCE = 0.15    # total-variation distance from the Bayes guess at each masked position
PATTERNS = ("_ _ _ _", "_ _ is alive", "the _ _ empty")


def mask_weights(length, T):
    """For k masked positions out of L: E_t[(T/t) (t/T)^k (1-t/T)^(L-k)] with t uniform on 1..T."""
    return [sum((T / t) * (t / T) ** k * (1 - t / T) ** (length - k) for t in range(1, T + 1)) / T
            for k in range(length + 1)]


def exact_expected_loss(guess, T=TRAIN_T):
    """E[(T/t) sum_masked -log guess(x_t)[i, x_0^i]] in the two-sentence world, by enumerating both
    sentences and all 2^L masks; `guess` maps x_t (L,) to probabilities (L, V)."""
    length = len(TWO_WORLD[0][0].split())
    weight = mask_weights(length, T)
    total = 0.0
    for sentence, prior in TWO_WORLD:
        x_0 = Encode(sentence)
        for code in range(2 ** length):
            masked = torch.tensor([(code >> i) & 1 for i in range(length)], dtype=torch.bool)
            if not masked.any():
                continue
            p = guess(torch.where(masked, TOY_MASK, x_0)).double()
            surprise = -torch.log(p[torch.arange(length), x_0].clamp(min=1e-12))
            total += prior * weight[int(masked.sum())] * float(surprise[masked].sum())
    return total


def net_guesser(net):
    def guess(x_t):
        with torch.no_grad():
            return net(x_t[None])[0].softmax(-1)
    return guess


TRAIN_SIZE = dict(dim=32, heads=2, layers=2)


def two_sentence_batches(steps, batch):
    """(steps, batch, 4) sentences of the two-sentence world, drawn with their probabilities."""
    sentences = torch.stack([Encode(s) for s, _ in TWO_WORLD])
    alive = torch.rand(steps, batch) < TWO_WORLD[0][1]
    return sentences[torch.where(alive, 0, 1)]


def train_two_sentences(DiffusionLoss):
    """Train the notebook's small net on the two-sentence world with the given loss (beside the
    student's code, where the loss can backpropagate), rebuild it here from its weights, and return
    how far its exact expected loss lies above the Bayes guesser's, and the largest total-variation
    distance between its guesses and Bayes' at a masked position of PATTERNS."""
    what = "DiffusionLoss(net, x_0, MASK)"
    # the lr falls linearly to zero, which averages out the noise of the T/t-weighted loss
    facts = DiffusionLoss.drive("loss_training", batches=two_sentence_batches(TRAIN_STEPS, TRAIN_BATCH),
                                mask=TOY_MASK, vocab_size=len(TOY_VOCAB), size=TRAIN_SIZE, lr=TRAIN_LR)
    if "weights" not in facts:
        try:
            raise_for(facts, what)
        except Failure as failure:
            raise Failure(f"at training step {facts.get('step', 0) + 1}: {failure}") from None
        raise Failure(f"training with {what} stopped at step {facts.get('step', 0) + 1}")
    net = TinyDenoiser(len(TOY_VOCAB), **TRAIN_SIZE)
    try:
        net.load_state_dict(facts["weights"])
    except (RuntimeError, TypeError, KeyError, AttributeError) as err:
        raise Failure(f"the trained network's weights could not be read back: {err}") from None
    net.eval()
    guess = net_guesser(net)
    excess = exact_expected_loss(guess) - exact_expected_loss(GuessX0_two)
    distances = {}
    for pattern in PATTERNS:
        x_t = Encode(pattern)
        gap = 0.5 * (guess(x_t) - GuessX0_two(x_t)).abs().sum(-1)
        distances[pattern] = float(gap[x_t == TOY_MASK].max())
    return excess, distances


@check("DiffusionLoss.training")
@one_thread
def loss_training(DiffusionLoss):
    """Trained with the student's loss, the small net must get close to the exact Bayes guesser in
    loss and in its guesses at masked positions."""
    excess, distances = train_two_sentences(DiffusionLoss)
    expect(excess <= LOSS_BAND,
           f"after {TRAIN_STEPS} steps with your loss, the net's expected loss (computed exactly) is "
           f"{excess:.3f} above the exact Bayes guesser's {exact_expected_loss(GuessX0_two):.3f} "
           f"(entropy 0.50); training with the reference loss gets within {LOSS_BAND}")
    for pattern, distance in distances.items():
        expect(distance <= GUESS_TOLERANCE,
               f"trained with your loss, the net's guesses for '{pattern}' are {distance:.2f} (total "
               f"variation) from the Bayes guesses at a masked position; the reference loss gets "
               f"within {GUESS_TOLERANCE}")


# --- the optional question/answer variant ---------------------------------------------------------
@check("DiffusionLossPrompt")
@one_thread
def prompt_loss(DiffusionLossPrompt):
    """Exact for every call (prompt never masked, nothing visible counts, weight T/t), every answer
    position masked with probability t/T on its own, and the right expectation over the answer positions
    (Bernstein, as for DiffusionLoss)."""
    T, batch, length = 5, 6, 10
    for _ in range(40):
        x_0 = sentences(batch, length)
        prompt = torch.arange(length)[None] < torch.randint(0, length, (batch, 1))
        prompt[0] = torch.rand(length) < 0.5  # a prompt need not be a prefix
        observe(DiffusionLossPrompt, x_0, T, prompt)
    for _ in range(10):   # another mask token
        prompt = torch.arange(length)[None] < torch.randint(0, length, (batch, 1))
        observe(DiffusionLossPrompt, sentences(batch, length, OTHER_MASK), T, prompt, mask=OTHER_MASK)
    # The same prompt in every row, not a prefix: its answer positions, t by t.
    fixed = torch.tensor([True, False, False, True, False, False, False, True, False, False])
    answer = torch.nonzero(~fixed).flatten().tolist()
    alpha = stats.split(ALPHA, 1 + 2 * (len(answer) + 1))
    obs = [observe(DiffusionLossPrompt, sentences(batch, length), 2, fixed.expand(batch, -1))
           for _ in range(120)]
    position_tests(obs, 2, answer, tuple(answer[:2]), alpha, "DiffusionLossPrompt")
    calls = 200
    logits = torch.randn(1, length, V)
    x_0 = sentences(batch, length)
    prompt = torch.arange(length)[None] < torch.tensor([[0], [2], [4], [5], [7], [9]])
    surprise = F.cross_entropy(logits.expand(batch, -1, -1).transpose(1, 2).double(), x_0,
                               reduction="none") * ~prompt
    harmonic = sum(1.0 / t for t in range(1, T + 1))
    values = loss_values(DiffusionLossPrompt, logits, x_0, T, calls,
                         "DiffusionLossPrompt(net, x_0, prompt, mask, T)", prompt=prompt)
    verdict = stats.bernstein_test(sum(values) / calls, float(surprise.sum(1).mean()), calls * batch,
                                   float((harmonic - 1) * (surprise ** 2).sum(1).mean()),
                                   float((T - 1) * surprise.sum(1).max()), alpha, what="average loss")
    expect(verdict.ok, "with a net whose guesses ignore x_t, the average loss should equal the sum of "
                       f"-log p(x_0^i) over the answer (non-prompt) positions. {verdict.summary}")
