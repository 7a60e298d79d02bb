"""Reference for notebook 08, noise without a mask: uniform-state diffusion.

The forward process keeps each token with probability alpha_t and otherwise writes a word drawn
uniformly from all N words (possibly itself): q(x_t | x_0) = alpha_t [x_t = x_0] + (1 - alpha_t) / N.
There is no mask. On the linear schedule alpha_t = 1 - t, a step from t to s < t of the reverse process
draws each position from q(x_s | x_t, x_0) averaged over a guess of x_0 (UDLM, arXiv 2412.10193; DUO,
arXiv 2506.10892), where by Bayes' rule, with alpha_{t|s} = alpha_t / alpha_s,

    q(x_s = v | x_t = w, x_0 = u) = (alpha_{t|s} [v = w] + (1 - alpha_{t|s}) / N)
                                    (alpha_s [v = u] + (1 - alpha_s) / N) / (alpha_t [w = u] + (1 - alpha_t) / N).

In notebook 02's two-sentence world (the cat is alive 0.8, the box is empty 0.2; its 13 words) the
exact Bayes guess is a mixture of the two sentences weighted by PosteriorUniform, and the whole
sampler is a Markov chain on 36 lumped canvases (each position holds the first sentence's word, the
second's, or another word, which the posterior cannot tell apart): `UniformExact` follows it.

The segments between `notebook cell` markers are pasted verbatim into notebook 08's given cells
(tests/course/term/test_given_cells.py); the rest are the solutions of its tasks.
"""
import math

import numpy as np
import torch

# --- notebook cell `uniform_world` ---
words = ["the", "cat", "box", "is", "alive", "empty", "nobody", "knows",
         "if", "or", "until", "somebody", "looks"]      # notebook 2's vocabulary without the mask
N_WORDS = len(words)                                  # 13
word_id = {word: i for i, word in enumerate(words)}
SENTENCES = {"the cat is alive": 0.8, "the box is empty": 0.2}
SCHRODINGER = "nobody knows if the cat is alive or if the box is empty until somebody looks"


def Encode(sentence):
    """'the cat is alive' -> tensor([0, 1, 3, 4])"""
    return torch.tensor([word_id[word] for word in sentence.split()])


def Decode(x):
    """tensor([0, 1, 3, 4]) -> 'the cat is alive'"""
    return " ".join(words[i] for i in x.tolist())


SENTENCE_IDS = torch.stack([Encode(s) for s in SENTENCES])     # (2 sentences, 4)
PRIOR = torch.tensor(list(SENTENCES.values()))


def Impossible(sentence_ids):
    """True for a sentence the world never makes (the cat is empty, the box is alive, any other word)."""
    return Decode(sentence_ids) not in SENTENCES
# --- end of notebook cell ---


# ---------------------------------------------------------------- the students' functions

def _check_alpha(alpha, upper_open=False):
    values = torch.as_tensor(alpha, dtype=torch.float64)
    if values.isnan().any() or (values < 0).any() or (values >= 1 if upper_open else values > 1).any():
        shown = alpha if values.numel() == 1 else f"values from {float(values.min()):g} to {float(values.max()):g}"
        interval = "0 <= alpha < 1" if upper_open else "0 <= alpha <= 1"
        raise ValueError(f"alpha is a probability: {interval}, got {shown}")
    return values


def ForwardUniform(x0, alpha, vocab_size):
    """x_t from x_0: each token kept with probability alpha, else replaced by a word drawn uniformly from
    0..vocab_size-1 (which may be the word itself). alpha is a number or a tensor that broadcasts against
    x0 (one per row: shape (B, 1)). A new tensor of integer ids; x0 is not modified."""
    if isinstance(vocab_size, bool) or int(vocab_size) != vocab_size or vocab_size < 1:
        raise ValueError(f"vocab_size must be a whole number of at least 1, got {vocab_size!r}")
    alpha = _check_alpha(alpha)
    x0 = torch.as_tensor(x0)
    if x0.is_floating_point() or (x0 < 0).any() or (x0 >= vocab_size).any():
        raise ValueError(f"x0 must hold integer ids from 0 to {int(vocab_size) - 1}")
    keep = torch.rand(x0.shape, dtype=torch.float64) < alpha    # the notebook's solution draws the same numbers
    words = torch.randint(int(vocab_size), x0.shape)
    return torch.where(keep, x0, words)


def PosteriorUniform(x_t, alpha):
    """The weights of the two sentences (the cat is alive, the box is empty) given the noisy sentence
    x_t at noise level alpha: prior times, at every position, alpha [x_t = the sentence's word] + (1 -
    alpha) / 13, normalised. A tensor of 2 weights that sum to one."""
    alpha = float(_check_alpha(alpha, upper_open=True))
    x_t = torch.as_tensor(x_t)
    if x_t.shape != (4,) or x_t.is_floating_point() or (x_t < 0).any() or (x_t >= N_WORDS).any():
        raise ValueError(f"x_t must be a sentence of 4 integer ids from 0 to {N_WORDS - 1} (there is no "
                         f"mask here), got {x_t.tolist() if x_t.numel() < 10 else tuple(x_t.shape)}")
    likelihood = alpha * (SENTENCE_IDS == x_t).double() + (1 - alpha) / N_WORDS    # (2, 4)
    weights = PRIOR.double() * likelihood.prod(dim=1)
    return weights / weights.sum()


def UniformStep(x_t, t, s, GuessX0):
    """One reverse step from time t to s < t: p = GuessX0(x_t, t), a (L, N) guess of x_0, and each
    position drawn from q(x_s | x_t, x_0) averaged over its row of p. A new tensor of integer ids."""
    if not 0 <= s < t <= 1:
        raise ValueError(f"times must satisfy 0 <= s < t <= 1, got t = {t}, s = {s}")
    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)
    law = StepLaw(x_t, t, s, p)
    return torch.multinomial(law.float(), 1).squeeze(1)


def StepLaw(x_t, t, s, p):
    """The law of UniformStep's x_s, position by position, (L, N): the average over u ~ p of
    q(x_s = v | x_t, x_0 = u). Dividing p by q(x_t | x_0 = u) first makes it one sum over u."""
    N = p.shape[-1]
    alpha_t, alpha_s = 1.0 - t, 1.0 - s
    keep = alpha_t / alpha_s                                         # alpha_{t|s}
    here = torch.nn.functional.one_hot(torch.as_tensor(x_t).long(), N).double()
    weighted = p / (alpha_t * here + (1 - alpha_t) / N)             # p(u) / q(x_t | u)
    towards = alpha_s * weighted + (1 - alpha_s) / N * weighted.sum(-1, keepdim=True)
    return (keep * here + (1 - keep) / N) * towards


def UniformLoss(probs, x_0, x_t, t):
    """The uniform-state loss of every token, (B, L): the continuous-time limit of the ELBO's step term
    on the schedule alpha_t = 1 - t (so alpha'_t = -1), for the network's probabilities probs (B, L, N)
    of x_t (B, L) at times t (B,), 0 < t < 1. With w = x_t, xbar = N alpha_t onehot(x_0) + 1 - alpha_t
    and xbar_theta = N alpha_t probs + 1 - alpha_t:
        1/(N alpha_t) [N / xbar_theta_w - N / xbar_w + sum_{v != w} xbar_v / xbar_w log(xbar_v xbar_theta_w
                                                                                  / (xbar_w xbar_theta_v))]."""
    probs, x_0, x_t, t = (torch.as_tensor(v) for v in (probs, x_0, x_t, t))
    if probs.dim() != 3 or x_0.shape != probs.shape[:2] or x_t.shape != x_0.shape:
        raise ValueError(f"probs must be (B, L, N) and x_0, x_t (B, L), got {tuple(probs.shape)}, "
                         f"{tuple(x_0.shape)}, {tuple(x_t.shape)}")
    if t.shape != x_0.shape[:1]:
        raise ValueError(f"t must hold one time per row, shape ({x_0.shape[0]},), got {tuple(t.shape)}")
    if ((t <= 0) | (t >= 1)).any():
        raise ValueError("every t must lie strictly between 0 and 1")
    N = probs.shape[-1]
    alpha = (1 - t.to(probs.dtype))[:, None, None]
    xbar = N * alpha * torch.nn.functional.one_hot(x_0.long(), N).to(probs.dtype) + 1 - alpha
    xbar_theta = N * alpha * probs + 1 - alpha
    w = x_t.long()[..., None]
    xbar_w, theta_w = xbar.gather(-1, w), xbar_theta.gather(-1, w)
    # operation for operation the notebook's solution: the kept denoiser is what the cell trains, bit for bit
    terms = xbar / xbar_w * torch.log(xbar * theta_w / (xbar_w * xbar_theta))
    others = terms.sum(dim=-1) - terms.gather(-1, w)[..., 0]                 # the v = w term is 0 anyway
    inside = N / theta_w[..., 0] - N / xbar_w[..., 0] + others
    return inside / (N * alpha[..., 0])



def GuessFromOutput(probs, x_t, t):
    """The guess of x_0 (L, N) from what a network trained with UniformLoss outputs (probs, (L, N)): the
    loss is least where probs is the posterior divided by q(x_t | x_0) up to a constant, so multiplying by
    N alpha_t [v = x_t] + 1 - alpha_t and normalising gives the posterior back."""
    probs = torch.as_tensor(probs)
    N, alpha = probs.shape[-1], 1.0 - float(t)
    here = torch.nn.functional.one_hot(torch.as_tensor(x_t).long(), N).to(probs.dtype)
    guess = probs * (N * alpha * here + 1 - alpha)
    return guess / guess.sum(dim=-1, keepdim=True)

# ---------------------------------------------------------------- given cells: the two worlds' samplers

# --- notebook cell `uniform_two` ---
def GuessUniform_two(x_t, t):
    """The exact Bayes guess of x_0 in the two-sentence world at time t (noise level alpha = 1 - t):
    each sentence's words weighted by your PosteriorUniform(x_t, 1 - t). Shape (4, 13)."""
    weights = torch.as_tensor(PosteriorUniform(x_t, 1 - t), dtype=torch.float64)
    return torch.einsum("s,slv->lv", weights,
                        torch.nn.functional.one_hot(SENTENCE_IDS, N_WORDS).double()).float()


def UniformTwo(step, T):
    """One sentence in T steps of step(x, t, s, GuessUniform_two), from t = k/T to s = (k-1)/T, starting
    from 4 words drawn uniformly at t = 1 (pure noise)."""
    x = torch.randint(N_WORDS, (4,))
    for k in range(T, 0, -1):
        x = step(x, k / T, (k - 1) / T, GuessUniform_two)
    return x


MASK = N_WORDS   # notebook 2's mask, 13: the absorbing sampler below writes it, uniform noise never does


def GuessX0_two(x_t):
    """Notebook 2's exact guess under masks: each sentence weighted by its prior if it agrees with every
    visible token of x_t (the prior weights when neither agrees). Shape (4, 14): the mask is id 13."""
    agrees = ((SENTENCE_IDS == x_t) | (x_t == MASK)).all(dim=1)
    weights = PRIOR * agrees if agrees.any() else PRIOR
    return torch.einsum("s,slv->lv", weights / weights.sum(),
                        torch.nn.functional.one_hot(SENTENCE_IDS, N_WORDS + 1).float())


def AbsorbingTwo(step, T):
    """One sentence in T steps of notebook 2's step(x, t, GuessX0_two, MASK), from four masks."""
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        x = step(x, t, GuessX0_two, MASK)
    return x
# --- end of notebook cell ---


# --- notebook cell `uniform_exact` ---
def UniformExact(T):
    """The law of UniformTwo's sentence after T steps, computed exactly, with the exact guess: a dict
    with the probability of 'the cat is alive', of 'the box is empty' and of an impossible sentence.
    At every position a word is the first sentence's (class 0), the second's (class 1) or another one
    (class 2); the posterior cannot tell the other words apart, so the sampler is a Markov chain on the
    2 x 3 x 2 x 3 = 36 canvases of classes (`the` and `is` are both sentences' words: no class 1 there),
    and each step multiplies their probabilities by a 36 x 36 matrix."""
    first, second = SENTENCE_IDS.tolist()
    same = [a == b for a, b in zip(first, second)]
    sizes = [[1, 0, N_WORDS - 1] if both else [1, 1, N_WORDS - 2] for both in same]   # words in each class
    canvases = [(a, b, c, d) for a in (0, 2) for b in (0, 1, 2) for c in (0, 2) for d in (0, 1, 2)]

    def moves(canvas, t, s):
        """(4, 3): P(class after the step | the canvas) at each position, for any word of its class."""
        alpha_t, alpha_s, N = 1 - t, 1 - s, N_WORDS
        keep = alpha_t / alpha_s
        x0_class = [[0, 0 if both else 1] for both in same]     # [position][sentence]: x_0's word's class
        weights = [prior * np.prod([alpha_t * (c == x0_class[i][k]) + (1 - alpha_t) / N
                                    for i, c in enumerate(canvas)]) for k, prior in enumerate(PRIOR.tolist())]
        out = np.zeros((4, 3))
        for i, c in enumerate(canvas):
            for k, weight in enumerate(weights):
                u = x0_class[i][k]
                at_home = c == u and c != 2           # x_t's word is x_0's word
                for new in range(3):
                    # the words of class `new`: x_t's own (if c == new), x_0's (if u == new), and the rest
                    own, home = c == new, u == new
                    rest = sizes[i][new] - own - home + (own and home and at_home)
                    if own and home and at_home:
                        terms = [(1, 1, 1)]
                    else:
                        terms = [(1, 1, 0)] * own + [(1, 0, 1)] * home
                    terms.append((rest, 0, 0))
                    mass = sum(n * (keep * v_is_w + (1 - keep) / N) * (alpha_s * v_is_u + (1 - alpha_s) / N)
                               for n, v_is_w, v_is_u in terms)
                    out[i, new] += weight / sum(weights) * mass / (alpha_t * at_home + (1 - alpha_t) / N)
        return out

    def matrix(t, s):
        """P(next canvas | canvas), (36, 36): the positions move independently, given the canvas."""
        steps, classes = np.stack([moves(canvas, t, s) for canvas in canvases]), np.array(canvases)
        return np.prod([steps[:, i, classes[:, i]] for i in range(4)], axis=0)

    law = np.array([np.prod([sizes[i][c] / N_WORDS for i, c in enumerate(canvas)]) for canvas in canvases])
    for k in range(T, 0, -1):
        law = law @ matrix(k / T, (k - 1) / T)
    alive, empty = law[canvases.index((0, 0, 0, 0))], law[canvases.index((0, 1, 0, 1))]
    return {"the cat is alive": float(alive), "the box is empty": float(empty),
            "impossible": float(1 - alive - empty)}
# --- end of notebook cell ---


# ---------------------------------------------------------------- the course's second way: simulation

def SimulateUniform(T, runs, generator=None):
    """`runs` sentences of UniformTwo's sampler with the exact guess, all at once, by another route than
    UniformExact and UniformStep: the posterior from the forward process's transition matrices, then at
    each position an x_0 drawn from the guess and x_s drawn from the bridge q(x_s | x_t, x_0), itself
    worked out from the matrices by Bayes' rule. Returns the (runs, 4) sentences."""
    g = generator if generator is not None else torch.Generator().manual_seed(0)
    N = N_WORDS

    def forward(alpha):
        """q(x_t = column | x_0 = row) after noise level alpha: (N, N)."""
        return alpha * torch.eye(N, dtype=torch.float64) + (1 - alpha) / N

    def draw(probabilities):
        """One index per row of `probabilities`, by the inverse of its cumulative sum."""
        cumulative = probabilities.cumsum(dim=-1)
        u = torch.rand(probabilities.shape[:-1] + (1,), generator=g, dtype=torch.float64) * cumulative[..., -1:]
        return (u >= cumulative).sum(dim=-1).clamp(max=probabilities.shape[-1] - 1)

    x = torch.randint(N, (runs, 4), generator=g)
    positions = torch.arange(4)
    for k in range(T, 0, -1):
        t, s = k / T, (k - 1) / T
        likelihood = forward(1 - t)[SENTENCE_IDS[:, None, :], x[None, :, :]].prod(dim=-1)   # (2, runs)
        posterior = PRIOR.double()[:, None] * likelihood                                     # unnormalised
        which = draw(posterior.T[:, None, :].expand(runs, 4, 2))                               # (runs, 4)
        x0 = SENTENCE_IDS[which, positions]
        bridge = forward(1 - s)[x0] * forward((1 - t) / (1 - s))[x]      # q(x_s | x_0) q(x_t | x_s)
        x = draw(bridge)
    return x
