"""The toy world of the first notebooks: a 14-word vocabulary whose last entry is the mask."""
import os

import torch
from tqdm.auto import tqdm

VOCAB = ("the", "cat", "box", "is", "alive", "empty", "nobody", "knows",
         "if", "or", "until", "somebody", "looks", "_")
MASK = VOCAB.index("_")
TOKEN_ID = {word: i for i, word in enumerate(VOCAB)}

# The sentence the forward-process exercises dissolve (L = 16).
SCHRODINGER = "nobody knows if the cat is alive or if the box is empty until somebody looks"


def Encode(sentence):
    """Words separated by spaces -> 1-D tensor of token ids."""
    try:
        return torch.tensor([TOKEN_ID[word] for word in sentence.split()])
    except KeyError as err:
        raise ValueError(f"{err.args[0]!r} is not in the toy vocabulary {VOCAB}") from None


def Decode(x):
    """1-D tensor (or list) of token ids -> words separated by spaces."""
    ids = x.tolist() if hasattr(x, "tolist") else list(x)
    return " ".join(VOCAB[i] for i in ids)


# The worlds of notebook 02. The course page calls every world's sampler SamplePInit and every
# guesser GuessX0; the notebooks suffix them with the world (_one, _two) so both can coexist.
ALIVE, EMPTY = "the cat is alive", "the box is empty"
TWO_WORLD = ((ALIVE, 0.8), (EMPTY, 0.2))


def SamplePInit_one():
    """The one-sentence world: p(the cat is alive) = 1."""
    return Encode(ALIVE)


def GuessX0_one(x_t):
    """The exact guess in the one-sentence world: probability one on the right word everywhere."""
    return torch.nn.functional.one_hot(Encode(ALIVE), len(VOCAB)).float()


def SamplePInit_two():
    """The two-sentence world: the cat is alive (0.8) or the box is empty (0.2)."""
    return Encode(ALIVE if torch.rand(()) < TWO_WORLD[0][1] else EMPTY)


_TWO_SENTENCES = torch.stack([Encode(s) for s, _ in TWO_WORLD])             # (2, 4)
_TWO_PRIOR = torch.tensor([p for _, p in TWO_WORLD])
_TWO_ONE_HOT = torch.nn.functional.one_hot(_TWO_SENTENCES, len(VOCAB)).float()  # (2, 4, V)


def two_world_weights(x_t):
    """Posterior weight of each sentence given the visible tokens of x_t (prior if none agrees)."""
    x_t = torch.as_tensor(x_t).cpu()
    if x_t.shape != (_TWO_SENTENCES.shape[1],):
        raise ValueError(f"the two-sentence world has sentences of 4 tokens, got shape {tuple(x_t.shape)}")
    agrees = ((_TWO_SENTENCES == x_t) | (x_t == MASK)).all(dim=1)
    weights = _TWO_PRIOR * agrees
    return _TWO_PRIOR.clone() if weights.sum() == 0 else weights / weights.sum()


def GuessX0_two(x_t):
    """The exact Bayes guess in the two-sentence world: each sentence's words, with its weight."""
    return torch.einsum("s,slv->lv", two_world_weights(x_t), _TWO_ONE_HOT)


def repeats(n):
    """The set-up cell's: n repetitions; under the autograder or CI a fifth of them, never below 100."""
    quick = bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI"))
    return max(100, n // 5) if quick else n


# Notebooks 02 and 04 hand this to students as the given cell `tally`: it counts sentences, and shrinks
# the count under the autograder whatever number the student writes (tests/grading/test_one_bug_once.py).
# --- notebook cell: tally ---
from collections import Counter


def Tally(make, n, desc="sentences"):
    """How often each sentence comes out of n calls of make(), which returns a sentence of token ids:
    a Counter of Decode(make()). Under the autograder n shrinks to repeats(n) (a fifth, never below 100:
    Tally(make, 200) makes 100), whatever number you write, so a cell that tallies stays inside the
    autograder's 30 seconds."""
    return Counter(Decode(make()) for _ in tqdm(range(repeats(n)), desc=desc, leave=False))
# --- end of notebook cell ---
