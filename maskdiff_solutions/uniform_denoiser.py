"""Notebook 08's story denoiser on uniform noise, and the copy a grading machine keeps.

`UniformDenoiser` is notebook 04's TinyDenoiser told the time: under uniform noise a canvas does not show
how noisy it is (there are no masks to count), and the exact posterior depends on alpha_t, so t enters
as a learned vector added at every position. It is trained with the uniform-state loss (uniform.UniformLoss,
UDLM's and DUO's continuous-time ELBO on alpha_t = 1 - t), which it minimises by outputting the posterior
of x_0 divided by q(x_t | x_0) (up to a constant): `MakeUniformGuesser` turns that back into the guess
UniformStep wants.

Under the grader the cell `uniform_training` builds the smaller QUICK_SIZE network, trained for
QUICK_UNIFORM_STEPS steps; a grading machine trains it once before any kernel starts
(`KeepUniformDenoiser`, from course.layout.warm_caches) exactly as the cell would with the reference
ForwardUniform and UniformLoss, and the cell loads it when it is there, as notebooks 05 to 07 load theirs.
The segment between the `notebook cell` markers is pasted verbatim into the notebook's given cell
`uniform_training` (tests/course/term/test_given_cells.py), which goes on to build, load or train it.
"""
import hashlib
import os
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from maskdiff_client.denoiser import TinyDenoiser

from .corpus import MakeCorpus, StandInStories
from .story_denoiser import QUICK_LR, QUICK_SIZE, Kept
from .uniform import ForwardUniform, UniformLoss


# --- notebook cell `uniform_training` (which also imports hashlib, Path, nn and F) ---
QUICK_UNIFORM_STEPS = 300   # under the grader: its training steps, about 15 s on one CPU thread
UNIFORM_KEPT_VERSION = 1    # bump when the quick recipe changes: grading machines then train theirs again
TIMES = (1e-3, 1 - 1e-3)    # training draws t uniformly between these: the loss divides by alpha_t = 1 - t


class UniformDenoiser(TinyDenoiser):
    """TinyDenoiser told the time: (x_t [B, L] ids, t [B]) -> logits [B, L, N] over the N words. Under
    uniform noise a canvas does not show how noisy it is, so t enters as a learned vector added at every
    position. There is no mask and no padding."""

    def __init__(self, vocab_size, dim=128, heads=4, layers=4, max_length=64):
        super().__init__(vocab_size, dim, heads, layers, max_length)
        self.time = nn.Sequential(nn.Linear(1, dim), nn.GELU(), nn.Linear(dim, dim))
        for module in self.time:
            if isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x, t):
        if x.dim() != 2 or x.dtype != torch.long:
            raise ValueError(f"UniformDenoiser wants a (batch, L) tensor of token ids (long), "
                             f"got shape {tuple(x.shape)} and dtype {x.dtype}")
        length = x.shape[1]
        t = torch.as_tensor(t, dtype=torch.float32, device=x.device).reshape(-1, 1).expand(x.shape[0], 1)
        h = self.embed(x) + self.position.weight[:length] + self.time(t)[:, None, :]
        cos, sin = self.cos[:length], self.sin[:length]
        for block in self.blocks:
            h = block(h, cos, sin)
        return self.out(self.norm(h))


def UniformDiffusionLoss(net, x_0, mask=None):
    """One sample of the uniform-state loss for the batch x_0 [B, L] (a tensor that backpropagates): a
    time t per row, uniform in TIMES; x_t = ForwardUniform(x_0, 1 - t, N) (drawn on the CPU); the
    network's probabilities at (x_t, t); the mean of UniformLoss over every token. `mask` is not used:
    Train hands one to every loss."""
    words = net.out.out_features
    t = TIMES[0] + (TIMES[1] - TIMES[0]) * torch.rand(x_0.shape[0])
    x_t = torch.as_tensor(ForwardUniform(x_0.cpu(), (1 - t)[:, None], words)).long()
    x_t, t = x_t.to(x_0.device), t.to(x_0.device)
    probs = net(x_t, t).float().softmax(dim=-1)
    return UniformLoss(probs, x_0, x_t, t).mean()


def MakeUniformGuesser(net):
    """GuessX0(x_t, t) for UniformStep from a network trained with UniformLoss: x_t [L] ids -> the guess
    of x_0 [L, N] on the CPU. The loss is least where the network outputs the posterior divided by
    q(x_t | x_0) = alpha_t [x_0 = x_t] + (1 - alpha_t) / N (up to a constant), so the guess multiplies its
    probabilities back by N alpha_t [v = x_t] + 1 - alpha_t and normalises."""
    def Guess(x_t, t):
        device = next(net.parameters()).device
        with torch.no_grad():
            probs = net(x_t[None].to(device), torch.tensor([float(t)], device=device))[0].float().softmax(-1).cpu()
        alpha = 1.0 - float(t)
        here = F.one_hot(x_t.long().cpu(), probs.shape[-1]).float()
        guess = probs * (probs.shape[-1] * alpha * here + 1 - alpha)
        return guess / guess.sum(dim=-1, keepdim=True)
    return Guess


def KeptUniformDenoiser(tokens, vocab_size, cache=None):
    """The file in which a grading machine keeps the quick uniform denoiser, trained once for this corpus and
    vocabulary as this cell would train it, from seed 0. Where there is none, the cell trains it."""
    cache = Path(cache or os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    digest = hashlib.sha256(tokens.numpy().tobytes()).hexdigest()[:12]
    return cache / f"uniform-denoiser-v{UNIFORM_KEPT_VERSION}-seed0-{vocab_size}-words-text-{digest}.pt"
# --- end of notebook cell ---


# The grader's, not the notebook's.
def TrainUniformDenoiser(steps=QUICK_UNIFORM_STEPS, seed=0, size=QUICK_SIZE, lr=QUICK_LR):
    """(the trained UniformDenoiser in eval mode, the corpus): as the cell `uniform_training` trains it under
    the grader (Train's Adam and batches, UniformDiffusionLoss with the reference ForwardUniform and
    UniformLoss), from `seed`, on one CPU thread."""
    stories = MakeCorpus(StandInStories())
    words = len(stories.vocab) - 1   # every story id but the mask, which is the last
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # as the set-up cell under the grader: the same numbers on every machine
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = UniformDenoiser(words, **size)
            optimizer = torch.optim.Adam(net.parameters(), lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                UniformDiffusionLoss(net, stories.GetBatch(64, 32), stories.mask).backward()
                optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return net.eval(), stories


def KeepUniformDenoiser(cache):
    """The file of the quick uniform denoiser in `cache`, trained and written whole the first time, as
    story_denoiser.KeepQuickDenoiser keeps notebooks 05 and 06's."""
    stories = MakeCorpus(StandInStories())
    return Kept(KeptUniformDenoiser(stories.tokens, len(stories.vocab) - 1, cache), TrainUniformDenoiser)
