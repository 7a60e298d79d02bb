"""The given cells of notebook 06 that run its experiments: the two-sentence world, a sampler that
commits above a threshold there, a sampler that remasks there, and a recorder that says when each
position of a canvas was committed. Each segment between `notebook cell:` markers is pasted verbatim
into the notebook's given cell of that grade_id (tests/course/term/test_given_cells.py); the functions a
student writes (CommitAbove, RemaskStep, RemaskSigma) are handed in as arguments, never looked up."""
import torch

# --- notebook cell: two_world ---
vocab = ["the", "cat", "box", "is", "alive", "empty", "nobody", "knows",
         "if", "or", "until", "somebody", "looks", "_"]
MASK = vocab.index("_")                      # the mask token, 13
word_id = {word: i for i, word in enumerate(vocab)}
SENTENCES = {"the cat is alive": 0.8, "the box is empty": 0.2}


def Encode(sentence):
    """'the cat is alive' -> tensor([0, 1, 3, 4])"""
    return torch.tensor([word_id[word] for word in sentence.split()])


def Decode(x):
    """tensor([0, 1, 3, 4]) -> 'the cat is alive'"""
    return " ".join(vocab[i] for i in x.tolist())


SENTENCE_IDS = torch.stack([Encode(s) for s in SENTENCES])                        # (2 sentences, 4)
PRIOR = torch.tensor(list(SENTENCES.values()))
WORDS = torch.nn.functional.one_hot(SENTENCE_IDS, len(vocab)).float()              # (2, 4, len(vocab))


GUESSES = {}   # canvas -> its guess, as GuessX0_two works each out


def GuessX0_two(x_t):
    """The exact Bayes guess of notebook 2: each sentence's words, weighted by its prior if it agrees
    with every visible token of x_t (the prior weights when neither agrees). Shape (4, len(vocab)).
    Worked out once per canvas and kept: the experiments below ask for the same few canvases many
    thousands of times."""
    canvas = tuple(x_t.tolist()) if x_t.shape == (4,) else None
    if canvas not in GUESSES:
        agrees = ((SENTENCE_IDS == x_t) | (x_t == MASK)).all(dim=1)
        weights = PRIOR * agrees if agrees.any() else PRIOR
        guess = torch.einsum("s,slv->lv", weights / weights.sum(), WORDS)
        if canvas is None or not set(canvas) <= set(range(len(vocab))):
            return guess                 # not a canvas of this world's words: not kept
        GUESSES[canvas] = guess
    return GUESSES[canvas].clone()       # a copy: changing it changes no other guess


def Impossible(sentence_ids):
    """True for a sentence the world never makes (the cat is empty, the box is alive)."""
    return Decode(sentence_ids) not in SENTENCES
# --- end of notebook cell ---


# --- notebook cell: threshold_two ---
def ParallelTwo(commit, tau):
    """One sentence of the two-sentence world, committed with commit(x, candidate_ids, confidence,
    slots, tau, MASK) after every call of the guesser. Each masked position proposes a word drawn from
    the guess, and its confidence is that word's probability. Returns (sentence ids, guesser calls)."""
    x = torch.full((1, 4), MASK)
    slots = torch.ones(1, 4, dtype=torch.bool)
    calls = 0
    while (x == MASK).any():
        if calls == 8:  # a commit that commits nothing would loop for ever
            raise RuntimeError("8 guesser calls and masks are left: the commit committed nothing")
        guess = GuessX0_two(x[0])
        candidates = torch.multinomial(guess, 1)                 # (4, 1): one drawn word per position
        confidence = guess.gather(1, candidates)[:, 0]
        x = torch.as_tensor(commit(x, candidates.T, confidence[None], slots, tau, MASK))
        calls += 1
    return x[0], calls
# --- end of notebook cell ---


# --- notebook cell: remask_two ---
def RemaskTwo(step, sigma_of, T, eta, schedule="cap"):
    """One sentence of the two-sentence world in T steps of step(x, t, s, GuessX0_two, MASK, sigma),
    from t = k/T to s = (k-1)/T, remasking with sigma_of(t, s, eta, schedule)."""
    x = torch.full((4,), MASK)
    for k in range(T, 0, -1):
        t, s = k / T, (k - 1) / T
        x = step(x, t, s, GuessX0_two, MASK, sigma_of(t, s, eta, schedule))
    return x
# --- end of notebook cell ---


# --- notebook cell: loop_two ---
LOOP_T = 4   # LoopTwo's sampler takes 4 steps; its loop holds t = 1/4, before the last step


def LoopTwo(step, sigma_of, loop, n, eta, T=LOOP_T):
    """One sentence of the two-sentence world: T - 1 steps of step(...) without remasking, from t = 1
    down to t = 1/T; there n loop steps, loop(step, sigma_of, x, 1/T, n, GuessX0_two, MASK, eta); then
    the last step, from 1/T to 0, without remasking."""
    x = torch.full((4,), MASK)
    for k in range(T, 1, -1):
        x = step(x, k / T, (k - 1) / T, GuessX0_two, MASK, 0.0)
    x = loop(step, sigma_of, x, 1 / T, n, GuessX0_two, MASK, eta)
    return step(x, 1 / T, 0.0, GuessX0_two, MASK, 0.0)


def LoopExact(n, eta, T=LOOP_T):
    """The probability that LoopTwo makes an impossible sentence, computed exactly, with the loop's
    sigma = min(eta, sigma_max) (the cap schedule). Only positions 1 and 3 matter (`the` and `is` are
    the same in both sentences): each is `_`, the first sentence's word (1) or the second's (2), so the
    sampler is a Markov chain on 9 states, and each step multiplies their probabilities by a 9 x 9 matrix."""
    states = [(a, b) for a in "_12" for b in "_12"]
    first = SENTENCES["the cat is alive"]

    def one(me, other, new, reveal, sigma):
        """P(a position goes from `me` to `new`) given the other position `other`, as RemaskStep moves it."""
        if me != "_":
            return sigma if new == "_" else (1 - sigma) * (new == me)
        if new == "_":
            return 1 - reveal
        guess = {"1": first, "2": 1 - first} if other == "_" else {other: 1.0}   # GuessX0_two's
        return reveal * guess.get(new, 0.0)

    def matrix(t, s, sigma):
        reveal = ((1 - s) - (1 - sigma) * (1 - t)) / t
        return torch.tensor([[one(a, b, a2, reveal, sigma) * one(b, a, b2, reveal, sigma) for a2, b2 in states]
                             for a, b in states], dtype=torch.float64)

    law = torch.zeros(9, dtype=torch.float64)
    law[0] = 1.0                                       # all masked
    for k in range(T, 1, -1):
        law = law @ matrix(k / T, (k - 1) / T, 0.0)
    sigma = min(eta, (1 / T) / (1 - 1 / T))            # sigma_max with alpha held at t = 1/T
    law = law @ torch.linalg.matrix_power(matrix(1 / T, 1 / T, sigma), n)
    law = law @ matrix(1 / T, 0.0, 0.0)
    return float(law[states.index(("1", "2"))] + law[states.index(("2", "1"))])
# --- end of notebook cell ---


# --- notebook cell: commit_recorder ---
class Recorder:
    """Wraps a model: passes every call on and keeps a copy of the canvas it was called on."""

    def __init__(self, model):
        self.model, self.canvases = model, []

    def __call__(self, x):
        self.canvases.append(torch.as_tensor(x).detach().cpu().clone())
        return self.model(x)


def CommitCalls(canvases, mask_id):
    """For each position of the recorded canvases' row 0: the call (1, 2, ...) whose update committed
    it, that is the number of calls that still saw it masked; 0 for a position never masked."""
    return torch.stack([c.reshape(-1, c.shape[-1])[0] == mask_id for c in canvases]).sum(dim=0)
# --- end of notebook cell ---
