"""Reference undiffusion steps: one step x_t -> x_{t-1}, stochastic (Undiffuse) or greedy.

Both take a guesser GuessX0(x_t) -> (L, V) probabilities of x_0 at every position, never touch a
visible token and never modify their input.
"""
import math

import torch


def Undiffuse(x_t, t, GuessX0, mask):
    """Each masked position is unmasked with probability 1/t into a token sampled from the guess.
    (A temperature is not an argument: notebook 03 tempers the guess instead, see chat.AtTemperature.)"""
    p = GuessX0(x_t).float()
    guess = torch.multinomial(p, 1).squeeze(1).to(x_t.device)
    reveal = (x_t == mask) & (torch.rand(x_t.shape, device=x_t.device) < 1.0 / t)
    return torch.where(reveal, guess, x_t)


def UndiffuseGreedy(x_t, t, GuessX0, mask):
    """Unmask the ceil(masked / t) masked positions whose most probable token is most probable."""
    confidence, guess = GuessX0(x_t).float().max(dim=-1)
    masked = (x_t == mask).to(confidence.device)  # the guesses may live on a GPU
    k = math.ceil(int(masked.sum()) / t)
    x = x_t.clone()
    if k:
        chosen = confidence.masked_fill(~masked, -1.0).topk(k).indices
        x[chosen.to(x.device)] = guess[chosen].to(x.device)
    return x


def Generate(L, T, GuessX0, mask, step=Undiffuse):
    """Undiffuse a row of L masks from t = T down to t = 1."""
    x = torch.full((L,), mask, dtype=torch.long)
    for t in range(T, 0, -1):
        x = step(x, t, GuessX0, mask)
    return x
