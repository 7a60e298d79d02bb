"""The small bidirectional transformer of notebooks 04 and 05 (given code, not a solution).

It lives in the public client package because the hidden checks of DiffusionLoss train it inside the
student's kernel (maskdiff_client.drivers), and the trusted checker rebuilds the trained network from
its weights with this same class. Notebooks 04 and 05 hold the segment below verbatim in their given
cell `denoiser` (tests/course/term/test_given_cells.py).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# --- notebook cell `denoiser` -------------------------------------------------------------------
def RotaryTables(length, head_dim):
    """cos and sin of angle = position * frequency, one frequency per pair of features (computed once)."""
    frequency = 10000.0 ** (-torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
    angle = torch.arange(length, dtype=torch.float32)[:, None] * frequency
    return angle.cos(), angle.sin()


def Rotate(x, cos, sin):
    """Turn feature pair (i, i + d/2) by its angle: attention then sees how far apart two tokens are."""
    first, second = x.chunk(2, dim=-1)
    return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)


class Block(nn.Module):
    """Self-attention in which every position sees every other one, then a small MLP."""

    def __init__(self, dim, heads):
        super().__init__()
        if dim % (2 * heads):
            raise ValueError(f"dim = {dim} must split into {heads} heads of an even size")
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, h, cos, sin, keys=None):
        batch, length, dim = h.shape
        q, k, v = (self.qkv(self.norm1(h)).view(batch, length, 3, self.heads, dim // self.heads)
                   .permute(2, 0, 3, 1, 4))
        # no causal mask: a denoiser looks both left and right of a blank; `keys` (batch, 1, 1, L), when
        # given, says which positions may be looked at (not the padding)
        mixed = F.scaled_dot_product_attention(Rotate(q, cos, sin), Rotate(k, cos, sin), v, attn_mask=keys)
        h = h + self.proj(mixed.transpose(1, 2).reshape(batch, length, dim))
        return h + self.mlp(self.norm2(h))


class TinyDenoiser(nn.Module):
    """Tokens (batch, L) -> logits (batch, L, vocab_size). Positions enter twice: a learned embedding
    added to each token, and rotary angles inside attention. With a `pad_id`, no position attends to
    padding, so what a row says does not depend on how much padding follows it (batches of rows of
    different lengths)."""

    def __init__(self, vocab_size, dim=128, heads=4, layers=4, max_length=64, pad_id=None):
        super().__init__()
        self.max_length, self.pad_id = max_length, pad_id
        self.embed = nn.Embedding(vocab_size, dim)
        self.position = nn.Embedding(max_length, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, vocab_size)
        cos, sin = RotaryTables(max_length, dim // heads)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)

    def forward(self, x):
        if x.dim() != 2 or x.dtype != torch.long:
            raise ValueError(f"TinyDenoiser wants a (batch, L) tensor of token ids (long), "
                             f"got shape {tuple(x.shape)} and dtype {x.dtype}")
        length = x.shape[1]
        if length > self.max_length:
            raise ValueError(f"sentences of length {length} are longer than max_length = {self.max_length}")
        h = self.embed(x) + self.position.weight[:length]
        cos, sin = self.cos[:length], self.sin[:length]
        keys = None
        if self.pad_id is not None:
            keys = x != self.pad_id
            keys = (keys | ~keys.any(dim=1, keepdim=True))[:, None, None, :]   # a row of padding sees itself
        for block in self.blocks:
            h = block(h, cos, sin, keys)
        return self.out(self.norm(h))


def MakeGuesser(net, forbidden=()):
    """A guessing function for Undiffuse: x_t of shape (L,) -> probabilities (L, vocab_size) on the CPU.
    Tokens in `forbidden` (say the mask itself) get probability zero."""
    forbidden = list(forbidden)

    def Guess(x_t):
        device = next(net.parameters()).device
        with torch.no_grad():
            logits = net(x_t[None].to(device))[0].float().cpu()
        logits[:, forbidden] = -math.inf
        return logits.softmax(dim=-1)
    return Guess
