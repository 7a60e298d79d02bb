"""Hidden checks for notebook 02: the two toy worlds, Undiffuse and UndiffuseGreedy.

The steppers are always driven by our own guessers (fixed tables, or the exact guessers of the toy
worlds handed over as look-up tables), so a wrong GuessX0 costs marks only in GuessX0's checks. Every
statistical test below is exact (binomial or DKW) and each check splits ALPHA = 1e-6 between its
tests. Steps are asked for in batches (`Student.calls`, `.repeat`, `.chains`): each batch is one
request to the student's kernel, and every step in it is verified here.
"""
import itertools
import math

import torch

from .. import stats
from maskdiff_client.fakes import TableGuesser

from ..toy import ALIVE, EMPTY, MASK, TWO_WORLD, VOCAB, Decode, Encode
from ..toy import GuessX0_one as exact_guess_one
from ..toy import GuessX0_two as exact_guess_two
from .core import ALPHA, Failure, changed, check, expect, raised, token_ids, value_of
from .fakes import fixed_guesser

# A small world of our own for the stepper checks: 7 ordinary tokens, and a mask id that is not 13,
# so a stepper that reads the global MASK instead of its `mask` argument is caught.
V_SMALL, MASK_SMALL = 8, 7


def world_guesser(guess, sentences):
    """An exact guesser of a toy world as a table: its answer for every sentence the reverse process
    can reach (each position one of the world's words there, or the mask)."""
    options = [sorted({int(Encode(s)[i]) for s in sentences} | {MASK}) for i in range(len(Encode(sentences[0])))]
    states = [torch.tensor(ids) for ids in itertools.product(*options)]
    return TableGuesser([x.tolist() for x in states], torch.stack([guess(x) for x in states]), list(VOCAB))


def table(rows, V=V_SMALL):
    """(L, V) probabilities from rows given on the first few tokens (zeros elsewhere, never the mask)."""
    p = torch.zeros(len(rows), V)
    for i, row in enumerate(rows):
        p[i, :len(row)] = torch.tensor(row, dtype=torch.float32)
    return p / p.sum(dim=1, keepdim=True)


def describe(name, t, mask, extra):
    return f"{name}({', '.join(['x_t', str(t), 'GuessX0', str(mask)] + [repr(e) for e in extra])})"


def stepped(result, x_t, t, mask, extra=(), name="Undiffuse"):
    """What one call of the student's stepper returned, checked for the properties every call must
    have (a raw outcome from Student.calls/repeat)."""
    what = describe(name, t, mask, extra)
    out = value_of(result, what)
    expect(0 not in changed(result), f"{name} changed the x_t it was given: work on a copy")
    return same_masks_only(x_t, token_ids(out, f"what {name} returned", length=x_t.numel()),
                           mask, name)


def same_masks_only(x_t, out, mask, name):
    moved = torch.nonzero((x_t != mask) & (out != x_t)).flatten().tolist()
    expect(not moved, f"{name} changed a token that was not masked (position {moved[:1]}): only masks "
                      "may change")
    return out


def steps(stepper, x_t, t, guess, mask, runs, *extra, name="Undiffuse"):
    """`runs` calls of stepper(x_t, t, guess, mask, *extra): a (runs, L) tensor of checked results."""
    return torch.stack([stepped(r, x_t, t, mask, extra, name)
                        for r in stepper.repeat([x_t, t, guess, mask, *extra], runs)])


def chains(stepper, L, ts, guess, mask, runs, name="Undiffuse"):
    """`runs` reverse chains from all masks through the steps ts: a (runs, len(ts), L) tensor, every
    step checked (the student's kernel runs all the chains in one go)."""
    start, ts = all_masks(L, mask), list(ts)
    out = stepper.chains(start, ts, guess, mask, runs=runs)
    for run, (kind, message, t) in sorted(out["errors"].items())[:1]:
        verb = message if kind == "BadReturn" else raised(kind, message)
        raise Failure(f"{describe(name, t, mask, ())} {verb}")
    trace = torch.as_tensor(out["trace"], dtype=torch.long)
    expect(tuple(trace.shape) == (runs, len(ts), L), "the chains of reverse steps came back incomplete")
    expect(not bool(torch.as_tensor(out["mutated"]).any()), f"{name} changed the x_t it was given: work on a copy")
    before = torch.cat([start.expand(runs, 1, L), trace[:, :-1]], dim=1)
    moved = (before != mask) & (trace != before)
    if bool(moved.any()):
        position = int(torch.nonzero(moved)[0, 2])
        raise Failure(f"{name} changed a token that was not masked (position [{position}]): only masks "
                      "may change")
    return trace


# ---------------------------------------------------------------- the one-sentence world

@check("SamplePInit_one")
def sample_one(SamplePInit_one):
    for result in SamplePInit_one.repeat([], 5):
        x = token_ids(value_of(result, "SamplePInit_one()"), "SamplePInit_one()", length=4)
        expect(torch.equal(x, Encode(ALIVE)),
               f"SamplePInit_one() should always give '{ALIVE}', got '{Decode(x)}'")


def as_table(value, name):
    try:
        return torch.as_tensor(value.detach().cpu() if torch.is_tensor(value) else value).float()
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"{name} should return a tensor of probabilities, got {type(value).__name__}") from None


@check("GuessX0_one")
def guess_one(GuessX0_one):
    want = torch.nn.functional.one_hot(Encode(ALIVE), len(VOCAB)).float()
    texts = ("_ _ _ _", "the _ _ alive", "_ cat is _", ALIVE)
    for text, result in zip(texts, GuessX0_one.calls([[Encode(text)] for text in texts])):
        p = as_table(value_of(result, f"GuessX0_one(Encode('{text}'))"), "GuessX0_one")
        expect(p.shape == want.shape, f"GuessX0_one should return shape (L, {len(VOCAB)}) = "
                                      f"{tuple(want.shape)}, got {tuple(p.shape)} for '{text}'")
        expect(torch.allclose(p, want, atol=1e-6),
               f"GuessX0_one('{text}') should put probability one on '{ALIVE}'s word at every "
               f"position; at position {int((p - want).abs().sum(1).argmax())} it does not")


# ---------------------------------------------------------------- Undiffuse

@check("Undiffuse.keeps")
def undiffuse_keeps(Undiffuse):
    p = table([[1, 2, 3, 4, 5, 6, 7]] * 12)
    guess = fixed_guesser(p)
    cases = []
    for t in (1, 3, 7):
        for _ in range(30):
            x_t = torch.randint(0, V_SMALL - 1, (12,))
            x_t[torch.rand(12) < 0.6] = MASK_SMALL
            cases.append((x_t, t))
    for (x_t, t), result in zip(cases, Undiffuse.calls([[x_t, t, guess, MASK_SMALL] for x_t, t in cases])):
        out = stepped(result, x_t, t, MASK_SMALL)
        expect(bool((out < V_SMALL).all() and (out >= 0).all()),
               "Undiffuse wrote a token id outside the vocabulary")
        if t == 1:
            expect(not bool((out == MASK_SMALL).any()),
                   f"at t = 1 every mask must be revealed (probability 1/t = 1); the mask here is "
                   f"token {MASK_SMALL}: use the `mask` argument, not a global")


def all_masks(L, mask):
    return torch.full((L,), mask, dtype=torch.long)


def neighbour_pairs(L):
    """Disjoint pairs of neighbouring positions: (0, 1), (2, 3), ... Under independence each pair is
    an independent trial, so counting what pairs do together is an exact binomial test."""
    return [(i, i + 1) for i in range(0, L - 1, 2)]


@check("Undiffuse.rate")
def undiffuse_rate(Undiffuse):
    L, runs = 16, 400
    guess = fixed_guesser(table([[1, 1, 1, 1, 1, 1, 1]] * L))
    cases = (2, 3, 5, 10)
    pairs = neighbour_pairs(L)
    # per t: the total, every position, the neighbour pairs; then the histogram of the chains
    alpha = stats.split(ALPHA, len(cases) * (2 + L) + 1)
    for t in cases:
        revealed = steps(Undiffuse, all_masks(L, MASK_SMALL), t, guess, MASK_SMALL, runs) != MASK_SMALL
        verdict = stats.binomial_test(int(revealed.sum()), runs * L, 1 / t, alpha,
                                      what=f"masks revealed at t = {t}")
        expect(verdict.ok, f"each masked token should be revealed with probability 1/t. {verdict.summary}")
        for i in range(L):
            verdict = stats.binomial_test(int(revealed[:, i].sum()), runs, 1 / t, alpha,
                                          what=f"runs that revealed position {i} at t = {t}")
            expect(verdict.ok, f"every masked position should be revealed with the same probability 1/t, "
                               f"wherever it sits: a coin for each. {verdict.summary}")
        both = int(sum((revealed[:, i] & revealed[:, j]).sum() for i, j in pairs))
        verdict = stats.binomial_test(both, runs * len(pairs), 1 / t ** 2, alpha,
                                      what=f"neighbouring masks both revealed at t = {t}")
        expect(verdict.ok, f"each masked position should toss its own coin: two neighbours should both be "
                           f"revealed with probability (1/t)^2. {verdict.summary}")
    # from t = 10 (all masked) down to t = 5, as ForwardMaskFast would give
    final = chains(Undiffuse, L, range(10, 5, -1), guess, MASK_SMALL, 1200)[:, -1]
    counts = (final == MASK_SMALL).sum(dim=1)
    verdict = stats.dkw_test(counts, stats.binomial_pmf(L, 0.5), alpha, what="masked counts at t = 5")
    expect(verdict.ok, "undiffusing from t = 10 to t = 5 should leave Binomial(16, 1/2) masks, the "
                       f"same law as ForwardMaskFast to t = 5. {verdict.summary}")


SAMPLE_ROWS = [[0.5, 0.3, 0.2], [0.1, 0.1, 0.1, 0.1, 0.6], [0, 0, 0, 0.25, 0, 0, 0.75],
               [0.4, 0.6], [1.0]]


def token_draws(Undiffuse, p, runs):
    """What `runs` steps at t = 1 write at each position, everything revealed: a (runs, L) tensor."""
    outs = steps(Undiffuse, all_masks(len(p), MASK_SMALL), 1, fixed_guesser(p), MASK_SMALL, runs)
    expect(not bool((outs == MASK_SMALL).any()), "at t = 1 every mask must be revealed")
    expect(bool((outs < p.shape[1]).all() and (outs >= 0).all()), "Undiffuse wrote a token id outside "
                                                                    "the vocabulary")
    return outs


def frequencies_match(counts, p, runs, alpha, label):
    tests = p.numel()
    for (i, v) in itertools.product(range(p.shape[0]), range(p.shape[1])):
        verdict = stats.binomial_test(int(counts[i, v]), runs, float(p[i, v]), stats.split(alpha, tests),
                                      what=f"position {i} became token {v}")
        expect(verdict.ok, f"{label}: revealed tokens should be drawn from the guess at their own "
                           f"position. {verdict.summary}")


# Pairs of (position, token): the draws at different positions must be independent, so each pair
# comes out together with the product of its probabilities.
JOINT = [((0, 1), (3, 1)), ((2, 3), (3, 0)), ((1, 4), (2, 6)), ((0, 0), (1, 4))]


@check("Undiffuse.samples")
def undiffuse_samples(Undiffuse):
    p, runs = table(SAMPLE_ROWS), 1500
    outs = token_draws(Undiffuse, p, runs)
    counts = torch.zeros_like(p)
    for out in outs:
        counts[torch.arange(len(p)), out] += 1
    alpha = stats.split(ALPHA, 2)
    frequencies_match(counts, p, runs, alpha, "sampling")
    alpha = stats.split(alpha, len(JOINT))
    for (i, a), (j, b) in JOINT:
        together = int(((outs[:, i] == a) & (outs[:, j] == b)).sum())
        want = float(p[i, a] * p[j, b])
        verdict = stats.binomial_test(together, runs, want, alpha,
                                      what=f"position {i} became {a} and position {j} became {b}")
        expect(verdict.ok, f"each position's token should be drawn on its own (torch.multinomial draws "
                           f"every row independently): the pair should come out with probability "
                           f"{float(p[i, a]):.2f} x {float(p[j, b]):.2f} = {want:.2f}. {verdict.summary}")


@check("Undiffuse.one_sentence")
def undiffuse_one_sentence(Undiffuse):
    T, runs = 10, 800
    ts = torch.arange(T, 0, -1)
    trace = chains(Undiffuse, 4, ts.tolist(), fixed_guesser(exact_guess_one(all_masks(4, MASK))), MASK, runs)
    for x in trace[:, -1]:
        expect(Decode(x) == ALIVE, f"in the one-sentence world undiffusion must always end in "
                                   f"'{ALIVE}', got '{Decode(x)}'")
    # the step at which each position is revealed: the first t whose result shows it
    reveal_step = torch.where(trace != MASK, ts[None, :, None], 0).amax(dim=1)
    pairs = neighbour_pairs(4)
    alpha = stats.split(ALPHA, 4 + 1)
    uniform = [0.0] + [1 / T] * T
    for position in range(4):
        verdict = stats.dkw_test(reveal_step[:, position], uniform, alpha,
                                 what=f"the step at which position {position} is revealed")
        expect(verdict.ok, f"words should appear in a random order: each position is revealed at a "
                           f"step uniform on 1..{T}. {verdict.summary}")
    together = int(sum((reveal_step[:, i] == reveal_step[:, j]).sum() for i, j in pairs))
    verdict = stats.binomial_test(together, runs * len(pairs), 1 / T, alpha,
                                  what="neighbouring words revealed at the same step")
    expect(verdict.ok, f"each word should appear on its own: two neighbours should be revealed at the same "
                       f"step with probability 1/{T} (one coin per masked position at every step). "
                       f"{verdict.summary}")


# ---------------------------------------------------------------- the two-sentence world

@check("SamplePInit_two")
def sample_two(SamplePInit_two):
    runs = 2000
    alive = []
    for result in SamplePInit_two.repeat([], runs):
        x = token_ids(value_of(result, "SamplePInit_two()"), "SamplePInit_two()", length=4)
        expect(Decode(x) in (ALIVE, EMPTY), f"SamplePInit_two() gave '{Decode(x)}', which has "
                                            "probability zero")
        alive.append(Decode(x) == ALIVE)
    alive = torch.tensor(alive)
    alpha = stats.split(ALPHA, 2)
    verdict = stats.binomial_test(int(alive.sum()), runs, 0.8, alpha, what=f"'{ALIVE}'")
    expect(verdict.ok, f"'{ALIVE}' should come 80% of the time. {verdict.summary}")
    # Calls must be independent: in disjoint pairs of consecutive calls, two 'empty's in a row come
    # with probability 0.2 x 0.2 = 0.04 (a sampler that spreads them out evenly never gives two).
    first, second = alive[0::2], alive[1::2]
    verdict = stats.binomial_test(int((~first & ~second).sum()), runs // 2, 0.04, alpha,
                                  what=f"two '{EMPTY}' in a row (calls 1-2, 3-4, ...)")
    expect(verdict.ok, f"each call should draw afresh, whatever came before: '{EMPTY}' twice in a row "
                       f"should happen with probability 0.2 x 0.2 = 0.04. {verdict.summary}")


TWO_WORDS = sorted({int(i) for s in (ALIVE, EMPTY) for i in Encode(s)} | {MASK})


@check("GuessX0_two")
def guess_two(GuessX0_two):
    # Every x_t made of the two sentences' words and masks, impossible ones included.
    inputs = [torch.tensor(ids) for ids in itertools.product(TWO_WORDS, repeat=4)]
    for x_t, result in zip(inputs, GuessX0_two.calls([[x] for x in inputs])):
        p = as_table(value_of(result, f"GuessX0_two('{Decode(x_t)}')"), "GuessX0_two")
        want = exact_guess_two(x_t)
        expect(p.shape == want.shape, f"GuessX0_two should return shape {tuple(want.shape)}, "
                                      f"got {tuple(p.shape)}")
        if not torch.allclose(p, want, atol=1e-5):
            i = int((p - want).abs().sum(dim=1).argmax())
            raise_mismatch(x_t, i, p[i], want[i])


def raise_mismatch(x_t, i, got, want):
    def show(row):
        return ", ".join(f"{VOCAB[v]} {row[v]:.2f}" for v in torch.nonzero(row.abs() > 1e-6).flatten())
    expect(False, f"for x_t = '{Decode(x_t)}' the Bayes guess at position {i} is [{show(want)}], "
                  f"yours is [{show(got)}] (weights: prior if the sentence agrees with every visible "
                  "token, zero otherwise, normalised; the prior itself if neither agrees)")


def two_world_guesser():
    return world_guesser(exact_guess_two, [sentence for sentence, _ in TWO_WORLD])


def outcome_sentences(stepper, T, runs, name, guess=None):
    """The sentences `runs` reverse chains of T steps end in, with the exact two-sentence guesser."""
    final = chains(stepper, 4, range(T, 0, -1), guess or two_world_guesser(), MASK, runs, name)[:, -1]
    return [Decode(x) for x in final]


def outcome_counts(stepper, T, runs, name, guess=None):
    sentences = outcome_sentences(stepper, T, runs, name, guess)
    return sentences.count(ALIVE), sentences.count(EMPTY)


@check("Undiffuse.two_sentences")
def undiffuse_two_sentences(Undiffuse):
    # Positions 2 and 4 decide the sentence. They are revealed in the same step with probability
    # exactly 1/T, and then disagree with probability 2 * 0.8 * 0.2 = 0.32; otherwise the later one
    # follows the earlier. So P(impossible) = 0.32/T and P(alive) = 0.8 - 0.16/T exactly.
    cases = ((1, 1500), (2, 1500), (4, 1200), (10, 800), (50, 250))
    alpha = stats.split(ALPHA, 2 * len(cases))
    guess = two_world_guesser()
    for T, runs in cases:
        alive, empty = outcome_counts(Undiffuse, T, runs, "Undiffuse", guess)
        impossible = runs - alive - empty
        verdict = stats.binomial_test(impossible, runs, 0.32 / T, alpha,
                                      what=f"impossible sentences at T = {T}")
        expect(verdict.ok, f"with the exact guesser the fraction of impossible sentences should be "
                           f"0.32/T, too few being as wrong as too many. {verdict.summary}")
        verdict = stats.binomial_test(alive, alive + empty, (0.8 - 0.16 / T) / (1 - 0.32 / T), alpha,
                                      what=f"'{ALIVE}' among possible sentences at T = {T}")
        expect(verdict.ok, f"the two sentences should come out in the right proportions. "
                           f"{verdict.summary}")


# ---------------------------------------------------------------- UndiffuseGreedy

def distinct_table(L, generator):
    """A guess whose top probabilities are all different, so the greedy choice is unambiguous: over the
    greedy cases the masked positions' top probabilities lie 4.4e-5 apart or more, and each leads its
    runner-up by 0.24, where ranking them another way (in float64, by log-probability) rounds by 1e-7."""
    p = torch.rand(L, V_SMALL - 1, generator=generator) + 0.05
    top = torch.randperm(L, generator=generator).float() / L  # distinct boosts
    p[torch.arange(L), torch.randint(0, V_SMALL - 1, (L,), generator=generator)] += 2 + 3 * top
    p = torch.cat([p, torch.zeros(L, 1)], dim=1)
    return p / p.sum(dim=1, keepdim=True)


GREEDY_CASES = [(12, 0, 3), (12, 5, 2), (12, 5, 5), (12, 3, 10), (12, 12, 1), (12, 7, 3), (12, 12, 4)]


def greedy_cases():
    """(x_t, t, p) for several numbers of masks and steps left; visible tokens sit where the guess is
    most confident, so a stepper that forgets to skip them is caught."""
    generator = torch.Generator().manual_seed(7)
    for L, masked, t in GREEDY_CASES:
        p = distinct_table(L, generator)
        order = p.max(dim=1).values.argsort(descending=True)
        x_t = p.argmax(dim=1)
        x_t[order[L - masked:]] = MASK_SMALL  # the least confident positions are the masked ones
        if masked and masked < L:
            # swap one masked and one visible position so the most confident masked one is not last
            x_t[order[0]], x_t[order[-1]] = MASK_SMALL, p[order[-1]].argmax()
        yield x_t, t, p


def greedy_steps(UndiffuseGreedy):
    """(x_t, t, p, what greedy returned) for every greedy case, in one request."""
    cases = list(greedy_cases())
    results = UndiffuseGreedy.calls([[x_t, t, fixed_guesser(p), MASK_SMALL] for x_t, t, p in cases])
    return [(x_t, t, p, stepped(result, x_t, t, MASK_SMALL, name="UndiffuseGreedy"))
            for (x_t, t, p), result in zip(cases, results)]


@check("UndiffuseGreedy.count")
def greedy_count(UndiffuseGreedy):
    for x_t, t, p, out in greedy_steps(UndiffuseGreedy):
        masked = int((x_t == MASK_SMALL).sum())
        revealed = int(((x_t == MASK_SMALL) & (out != MASK_SMALL)).sum())
        expect(revealed == math.ceil(masked / t),
               f"with {masked} masks and t = {t} greedy should reveal ceil({masked}/{t}) = "
               f"{math.ceil(masked / t)} positions, it revealed {revealed} (the mask here is token "
               f"{MASK_SMALL}: use the `mask` argument)")


@check("UndiffuseGreedy.choice")
def greedy_choice(UndiffuseGreedy):
    from ..sampling import UndiffuseGreedy as reference
    for x_t, t, p, out in greedy_steps(UndiffuseGreedy):
        want = reference(x_t, t, fixed_guesser(p), MASK_SMALL)
        new = (x_t == MASK_SMALL) & (out != MASK_SMALL)
        expect(bool((out[new] == p.argmax(dim=1)[new]).all()),
               "greedy should write the most probable token at each revealed position")
        expect(torch.equal(out, want),
               f"greedy should reveal the masked positions where the top probability is highest: "
               f"expected positions {torch.nonzero(want != x_t).flatten().tolist()}, "
               f"got {torch.nonzero(out != x_t).flatten().tolist()}")


@check("UndiffuseGreedy.two_sentences")
def greedy_two_sentences(UndiffuseGreedy):
    guess = two_world_guesser()
    for T in (1, 2, 4):
        results = set(outcome_sentences(UndiffuseGreedy, T, 10, "UndiffuseGreedy", guess))
        expect(len(results) == 1, f"greedy undiffusion is deterministic, but at T = {T} it gave "
                                  f"{sorted(results)}")
        expect(results == {ALIVE}, f"greedy with the exact guesser should always write '{ALIVE}' "
                                   f"(the most probable sentence), got '{results.pop()}' at T = {T}")
