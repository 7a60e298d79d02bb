"""Training throughput of the given denoiser (maskdiff_solutions.training) against a plain loop like the
course page's, in one run, at batch 64 and L = 32 on the default-size network (dim 128, 4 heads,
4 layers, 2002 tokens).

The baseline is written here in the page's style: rotary angles recomputed inside every attention
call and pairs rotated by stacking and flattening; a loop that calls zero_grad / loss / backward /
step. Ours precomputes the rotary tables once and rotates halves. Both train with the reference
DiffusionLoss on random tokens, in alternating rounds so machine load hits both alike; every step is
timed on its own and the median step gives the steps/s (robust to bursts of load on a shared machine).

    python benchmarks/training.py [--steps 60] [--rounds 3] [--device cpu] [--threads 1]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package, not an installed one

import torch
import torch.nn as nn
import torch.nn.functional as F

from maskdiff_solutions.loss import DiffusionLoss  # noqa: E402
from maskdiff_solutions.training import TinyDenoiser  # noqa: E402

VOCAB, BATCH, L = 2002, 64, 32


class PlainBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    @staticmethod
    def turn(x):
        length, d = x.shape[-2], x.shape[-1]
        rate = 1.0 / 10000 ** (torch.arange(0, d, 2, device=x.device) / d)
        angle = torch.arange(length, device=x.device)[:, None] * rate
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack([even * angle.cos() - odd * angle.sin(),
                            even * angle.sin() + odd * angle.cos()], dim=-1).flatten(-2)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(self.turn(q), self.turn(k), v)
        x = x + self.proj(out.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.norm2(x))


class PlainDenoiser(nn.Module):
    def __init__(self, vocab, dim=128, heads=4, layers=4, max_length=64):
        super().__init__()
        self.embed, self.position = nn.Embedding(vocab, dim), nn.Embedding(max_length, dim)
        self.blocks = nn.ModuleList([PlainBlock(dim, heads) for _ in range(layers)])
        self.norm, self.out = nn.LayerNorm(dim), nn.Linear(dim, vocab)

    def forward(self, x):
        h = self.embed(x) + self.position(torch.arange(x.shape[1], device=x.device))
        for block in self.blocks:
            h = block(h)
        return self.out(self.norm(h))


class Clock:
    """Wraps the loss: the time between two calls is one whole training step (batch, loss, backward,
    optimizer, bookkeeping), whichever loop makes the calls."""

    def __init__(self):
        self.last, self.steps = None, []

    def __call__(self, net, x_0, mask):
        now = time.perf_counter()
        if self.last is not None:
            self.steps.append(now - self.last)
        self.last = now
        return DiffusionLoss(net, x_0, mask)


def plain_loop(net, steps, device, loss):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for _ in range(steps):
        opt.zero_grad()
        x_0 = torch.randint(VOCAB - 2, (BATCH, L)).to(device)
        value = loss(net, x_0, VOCAB - 1)
        value.backward()
        opt.step()
        value.item()


def given_loop(net, steps, device, loss):
    from maskdiff_solutions.training import Train
    Train(net, loss, lambda: torch.randint(VOCAB - 2, (BATCH, L)), VOCAB - 1, steps, desc="given Train")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    ours, plain = TinyDenoiser(VOCAB).to(args.device), PlainDenoiser(VOCAB).to(args.device)
    print(f"device {args.device}, {torch.get_num_threads()} threads, batch {BATCH}, L {L}; "
          f"parameters: given {sum(p.numel() for p in ours.parameters()) / 1e6:.2f} M, "
          f"plain {sum(p.numel() for p in plain.parameters()) / 1e6:.2f} M")
    loops = {"plain page-style loop": (plain_loop, plain), "given TinyDenoiser + Train": (given_loop, ours)}
    clocks = {name: [] for name in loops}
    for _ in range(args.rounds):  # alternate, so that load from other processes hits both alike
        for name, (run, net) in loops.items():
            clock = Clock()
            run(net, args.steps + 3, args.device, clock)
            clocks[name] += clock.steps[2:]  # the first steps warm up Adam's state
    for name, steps in clocks.items():
        steps = sorted(steps)
        print(f"{name:28s} {1 / steps[len(steps) // 2]:6.2f} steps/s (median step {1e3 * steps[len(steps) // 2]:.0f} ms, "
              f"fastest {1e3 * steps[0]:.0f} ms, {len(steps)} steps)")

if __name__ == "__main__":
    main()
