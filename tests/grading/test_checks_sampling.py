"""Hidden checks of notebook 02 accept correct implementations written in other styles: other
containers, other random generators, other orders of drawing random numbers."""
import math
import random

import numpy as np
import pytest
import torch

from maskdiff_solutions import grading

pytestmark = pytest.mark.nb02

VOCAB = ["the", "cat", "box", "is", "alive", "empty", "nobody", "knows",
         "if", "or", "until", "somebody", "looks", "_"]
MASK = 13


def undiffuse_numpy(x_t, t, GuessX0, mask):
    p = np.asarray(GuessX0(x_t), dtype=np.float64)
    p /= p.sum(axis=1, keepdims=True)
    out = x_t.clone()
    for i in range(len(out)):  # one coin, then one draw, position by position
        if out[i] == mask and np.random.rand() < 1.0 / t:
            out[i] = int(np.random.choice(p.shape[1], p=p[i]))
    return out


def undiffuse_categorical(x_t, t, GuessX0, mask):
    logits = torch.log(GuessX0(x_t).double())
    masked = torch.nonzero(x_t == mask).flatten()
    reveal = masked[torch.rand(len(masked)) < 1 / t]  # coins first, draws only where needed
    out = x_t.clone()
    if len(reveal):
        out[reveal] = torch.distributions.Categorical(logits=logits[reveal]).sample()
    return out


def guess_one_loops(x_t):
    p = torch.zeros(len(x_t), len(VOCAB), dtype=torch.float64)
    for i, word in enumerate("the cat is alive".split()):
        p[i, VOCAB.index(word)] = 1.0
    return p


def sample_two_random():
    words = "the cat is alive" if random.random() < 0.8 else "the box is empty"
    return [VOCAB.index(w) for w in words.split()]


def guess_two_loops(x_t):
    sentences = {"the cat is alive": 0.8, "the box is empty": 0.2}
    seen = [VOCAB[i] for i in x_t.tolist()]
    weights = {s: w for s, w in sentences.items()
               if all(a == "_" or a == b for a, b in zip(seen, s.split()))}
    total = sum(weights.values())
    weights = {s: w / total for s, w in weights.items()} if total else sentences
    p = np.zeros((len(seen), len(VOCAB)))
    for s, w in weights.items():
        for i, word in enumerate(s.split()):
            p[i, VOCAB.index(word)] += w
    return p


def greedy_argsort(x_t, t, GuessX0, mask):
    p = GuessX0(x_t).double()
    masked = (x_t == mask).nonzero().flatten()
    best = p[masked].max(dim=1)
    k = math.ceil(len(masked) / t)
    chosen = masked[best.values.argsort(descending=True)[:k]]
    out = x_t.clone()
    out[chosen] = p[chosen].argmax(dim=1)
    return out


STYLES = [
    # (the position-by-position numpy style is slow, so it runs the cheaper checks only)
    (["Undiffuse.keeps", "Undiffuse.samples"], [undiffuse_numpy]),
    (["Undiffuse.keeps", "Undiffuse.rate", "Undiffuse.samples", "Undiffuse.one_sentence",
      "Undiffuse.two_sentences"], [undiffuse_categorical]),
    (["GuessX0_one"], [guess_one_loops]),
    (["SamplePInit_two"], [sample_two_random]),
    (["GuessX0_two"], [guess_two_loops]),
    (["UndiffuseGreedy.count", "UndiffuseGreedy.choice", "UndiffuseGreedy.two_sentences"],
     [greedy_argsort]),
]


@pytest.mark.parametrize("name,function", [(name, f) for names, fs in STYLES for name in names for f in fs],
                         ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_other_correct_styles_pass(name, function):
    outcome = grading.evaluate(name, function)
    assert outcome.passed, outcome.message
