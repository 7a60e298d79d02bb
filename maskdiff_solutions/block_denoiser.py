"""Notebook 07's networks: notebook 04's TinyDenoiser with its attention written out, so that it takes an
attention mask and cached keys and values, and returns its own; and its block-causal training (BD3-LM's
objective, arXiv 2503.09573: clean earlier blocks, a noised current block), with the copy a grading machine
keeps, as story_denoiser.py keeps notebooks 05 and 06's.

`CachingDenoiser` subclasses TinyDenoiser and adds no parameter: state dicts load both ways, and with no
mask and nothing cached it computes TinyDenoiser's logits with the very same operations (bit for bit).
TinyDenoiser's `Block.forward` computes its keys and values inside and hands back only the new hidden
state, hence `LayerWithCache`, the same layer using the same submodules.

The notebook cannot import this package: the segments between the `notebook cell` markers are pasted
verbatim into its given cells `caching_denoiser` and `block_training` (tests/course/term/test_given_cells.py).
"""
import hashlib
import os
from pathlib import Path

import torch
import torch.nn.functional as F

from maskdiff_client.denoiser import Rotate, TinyDenoiser

from .corpus import MakeCorpus, StandInStories
from .story_denoiser import QUICK_LR, QUICK_SIZE, Kept


# --- notebook cell `caching_denoiser` ----------------------------------------------------------------
def LayerWithCache(block, h, cos, sin, past, allowed):
    """One `Block` of TinyDenoiser on h [B, n, dim], its queries also seeing the cached (k, v) of `past`.
    Returns (new h, (k, v) of the n new positions, keys rotated)."""
    batch, n, dim = h.shape
    q, k, v = (block.qkv(block.norm1(h)).view(batch, n, 3, block.heads, dim // block.heads)
               .permute(2, 0, 3, 1, 4))
    q, k = Rotate(q, cos, sin), Rotate(k, cos, sin)
    keys, values = (k, v) if past is None else (torch.cat([past[0], k], 2), torch.cat([past[1], v], 2))
    mixed = F.scaled_dot_product_attention(q, keys, values, attn_mask=allowed)
    h = h + block.proj(mixed.transpose(1, 2).reshape(batch, n, dim))
    return h + block.mlp(block.norm2(h)), (k, v)


class CachingDenoiser(TinyDenoiser):
    """TinyDenoiser that takes an attention mask and cached keys and values, and returns its own.

    forward(x, attend=None, past=None, start=0) -> (logits, present):
    - x [B, n]: token ids at the consecutive positions start, ..., start + n - 1 of the row (what sets
      their learned position embedding and rotary angle);
    - past: None, or one (k, v) per layer, each [B, heads, P, dim // heads]: keys and values of P other
      positions of the row, in any order, as an earlier call returned them (keys already rotated);
    - attend: None (every query sees every key), or Boolean [n, P + n], True where query i may attend
      key j, the keys ordered as past's P, then x's n;
    - logits [B, n, vocab_size]; present: one (k, v) per layer for x's n positions, [B, heads, n, dim // heads].
    With a pad_id, no query attends to a padding token of x, and a row of x that is all padding sees
    itself (TinyDenoiser's rule); cached keys are never padding (the samplers cache none).
    """

    @classmethod
    def Twin(cls, net):
        """The CachingDenoiser with net's (a TinyDenoiser's) sizes and weights, in net's mode."""
        twin = cls(net.embed.num_embeddings, dim=net.embed.embedding_dim, heads=net.blocks[0].heads,
                   layers=len(net.blocks), max_length=net.max_length, pad_id=net.pad_id)
        twin.load_state_dict(net.state_dict())
        return twin.to(next(net.parameters())).train(net.training)

    def forward(self, x, attend=None, past=None, start=0):
        if x.dim() != 2 or x.dtype != torch.long:
            raise ValueError(f"CachingDenoiser wants a (batch, n) tensor of token ids (long), "
                             f"got shape {tuple(x.shape)} and dtype {x.dtype}")
        batch, n = x.shape
        if start < 0 or start + n > self.max_length:
            raise ValueError(f"positions {start} to {start + n - 1} do not fit in max_length = {self.max_length}")
        cached = 0 if past is None else past[0][0].shape[2]
        if attend is not None and tuple(attend.shape) != (n, cached + n):
            raise ValueError(f"attend must be [n, P + n] = [{n}, {cached + n}], got {tuple(attend.shape)}")
        h = self.embed(x) + self.position.weight[start:start + n]
        cos, sin = self.cos[start:start + n], self.sin[start:start + n]
        allowed = None if attend is None else attend.to(x.device)
        if self.pad_id is not None:
            keys = x != self.pad_id
            keys = (keys | ~keys.any(dim=1, keepdim=True))[:, None, None, :]
            keys = torch.cat([keys.new_ones(batch, 1, 1, cached), keys], -1)
            allowed = keys if allowed is None else keys & allowed
        present = []
        for i, block in enumerate(self.blocks):
            h, kv = LayerWithCache(block, h, cos, sin, None if past is None else past[i], allowed)
            present.append(kv)
        return self.out(self.norm(h)), present


# --- notebook cell `block_training` (which also imports hashlib and Path) ----------------------------
BLOCK_LENGTHS = (2, 4, 8)   # the block lengths the training draws from
BLOCK_ROW = 32              # the longest row it trains on (prompt block and generation blocks)
QUICK_BLOCK_STEPS = 240     # under the grader: its training steps, about 17 s on one CPU thread
BLOCK_KEPT_VERSION = 1      # bump when the quick recipe changes: grading machines then train theirs again


def BlockDiffusionLoss(net, x_0, mask, block_length, prompt_length=0, T=100):
    """One sample of BD3-LM's loss for x_0 [B, L] and a CachingDenoiser (a tensor that backpropagates).

    The row is a prompt block of prompt_length positions, then generation blocks of block_length. Every
    generation block of every row draws its own t uniformly on 1..T, and each of its positions is masked
    with probability t / T; the prompt is never masked. The clean row runs once, block-causally, and its
    keys and values are kept; the noisy row then runs seeing those of the clean blocks strictly before
    each query's block and the noisy keys of its own block, nothing else: each block is denoised as the
    cached sampler sees it. The loss is DiffusionLoss's, block by block: (T / t of the position's block)
    * -log p(x_0^i) summed over the masked positions, averaged over the rows."""
    batch, length = x_0.shape
    if not 0 <= prompt_length <= length or (length - prompt_length) % block_length:
        raise ValueError(f"a row of {length} is not a prompt of {prompt_length} and blocks of {block_length}")
    position = torch.arange(length, device=x_0.device)
    block = torch.where(position < prompt_length, 0, 1 + (position - prompt_length) // block_length)
    t = torch.randint(1, T + 1, (batch, 1 + (length - prompt_length) // block_length), device=x_0.device)
    t[:, 0] = T   # the prompt's: never masked, so never weighed
    t = t[:, block]
    masked = (block > 0) & (torch.rand(batch, length, device=x_0.device) < t / T)
    _, clean = net(x_0, block[None, :] <= block[:, None])   # the block-causal mask
    noisy = torch.cat([block[None, :] < block[:, None], block[None, :] == block[:, None]], dim=1)   # [L, 2L]
    logits, _ = net(torch.where(masked, torch.full_like(x_0, mask), x_0), noisy, clean)
    surprise = F.cross_entropy(logits.transpose(1, 2), x_0, reduction="none")
    return ((T / t) * (surprise * masked)).sum(dim=1).mean()


def RandomBlockLoss(net, x_0, mask):
    """BlockDiffusionLoss on the shapes the samplers meet: a block length drawn from BLOCK_LENGTHS, a prompt
    of 0 to BLOCK_ROW - block length positions, and as many whole blocks as fit after it in x_0's row."""
    block = BLOCK_LENGTHS[int(torch.randint(len(BLOCK_LENGTHS), ()))]
    prompt = int(torch.randint(x_0.shape[1] - block + 1, ()))
    length = prompt + block * ((x_0.shape[1] - prompt) // block)
    return BlockDiffusionLoss(net, x_0[:, :length], mask, block, prompt)


def KeptBlockDenoiser(tokens, vocab_size, cache=None):
    """The file in which a grading machine keeps the quick block-causal denoiser, trained once for this
    corpus and vocabulary as this cell would train it, from seed 0. Where there is none, the cell trains it."""
    cache = Path(cache or os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    digest = hashlib.sha256(tokens.numpy().tobytes()).hexdigest()[:12]
    return cache / f"block-denoiser-v{BLOCK_KEPT_VERSION}-seed0-{vocab_size}-words-text-{digest}.pt"


# --- end of notebook cell ---


# The grader's, not the notebook's.
def TrainBlockDenoiser(steps=QUICK_BLOCK_STEPS, seed=0, size=QUICK_SIZE, lr=QUICK_LR):
    """(the trained CachingDenoiser in eval mode, the corpus): as the cell `block_training` trains it under
    the grader (Train's Adam and batches of BLOCK_ROW, RandomBlockLoss), from `seed`, on one CPU thread."""
    stories = MakeCorpus(StandInStories())
    vocab_size = len(stories.vocab) + 1   # and <pad>, as the story denoiser
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # as the set-up cell under the grader: the same numbers on every machine
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            net = CachingDenoiser(vocab_size, pad_id=vocab_size - 1, **size)
            optimizer = torch.optim.Adam(net.parameters(), lr=lr)
            for _ in range(steps):
                optimizer.zero_grad()
                RandomBlockLoss(net, stories.GetBatch(64, BLOCK_ROW), stories.mask).backward()
                optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return net.eval(), stories


def KeepBlockDenoiser(cache):
    """The file of the quick block-causal denoiser in `cache`, trained (about 17 s) and written whole the
    first time, as story_denoiser.KeepQuickDenoiser keeps notebooks 05 and 06's."""
    stories = MakeCorpus(StandInStories())
    return Kept(KeptBlockDenoiser(stories.tokens, len(stories.vocab) + 1, cache), TrainBlockDenoiser)
