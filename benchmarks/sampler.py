"""Notebook 05: the vectorised reverse update and batched sampler against per-row loops like the
lesson's, in one run, with identical results checked.

    python benchmarks/sampler.py [--batch 64] [--length 128] [--steps 32] [--model fake|tiny]

1. reverse_update alone (the part that is vectorised): one call on a [B, L] batch against
   reverse_update_rowwise, the lesson's loop over rows, both on the same inputs.
2. the whole sampler: `sample` (one denoiser pass per step for the whole batch) against
   `sample_rowwise` (each row on its own). `fake` is a small random network, so the sampler's own
   work shows; `tiny` is notebook 04's TinyDenoiser (untrained: the sampler does not care), where on a
   CPU the network's arithmetic dominates and batching cannot save much of it.

The batch and the rows call the network on other shapes, so their probabilities differ by rounding (1e-8);
both networks here are untrained and near-uniform, and some decision lies that close to a tie (measured at
B = 64, L = 128, 32 steps: the nearest 2.4e-7 from one with `fake`, 1.6e-9 with `tiny`). So rows that differ are
run once more, untimed, to tell "at a tie" (some decision within TIE of one, tests/support/margins.py: rounding
may break it either way) from an error (every decision far from a tie).
"""
import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package
from maskdiff_solutions import batched  # noqa: E402
from maskdiff_solutions.grading.batched import MASK, PAD, random_canvas  # noqa: E402
from tests.support import margins  # noqa: E402

TIE = 1e-5   # float32 probabilities differ by 5e-7 at most between shapes, thread counts and softmax forms
from maskdiff_solutions.grading.fakes import FakeDenoiser


def denoiser(kind, L):
    if kind == "fake":
        return FakeDenoiser(V=2002, L_max=L)
    from maskdiff_solutions.training import TinyDenoiser  # notebook 04's given network
    return TinyDenoiser(2002, max_length=L).eval()


def timed(function, repeats=1):
    started = time.perf_counter()
    for _ in range(repeats):
        out = function()
    return (time.perf_counter() - started) / repeats, out


def update_only(B, L, repeats=50):
    g = torch.Generator().manual_seed(0)
    x, slots = random_canvas(g, B, L, V=2002)
    candidates = torch.randint(2, 2002, (B, L), generator=g)
    confidence = torch.rand(B, L, generator=g)
    counts = batched.reveal_counts((slots & (x == MASK)).sum(1), 4)
    args = (x, candidates, confidence, slots, counts, MASK, PAD)
    fast, a = timed(lambda: batched.reverse_update(*args), repeats)
    slow, b = timed(lambda: batched.reverse_update_rowwise(*args), repeats)
    return fast, slow, torch.equal(a, b)   # exact: both rank the very same confidences


def whole_sampler(model, B, L, steps):
    torch.manual_seed(0)
    lengths = torch.randint(L // 2, L + 1, (B,)).tolist()
    lengths[0] = L
    prompts = [torch.randint(2, 2000, (int(torch.randint(0, 16, (1,))),)) for _ in lengths]
    fast, a = timed(lambda: batched.sample(model, prompts, lengths, steps, MASK, PAD))
    slow, b = timed(lambda: batched.sample_rowwise(model, prompts, lengths, steps, MASK, PAD))
    if torch.equal(a, b):
        return fast, slow, True
    with margins.recorded() as seen:   # once more, untimed: how near a tie the batch's decisions came
        batched.sample(model, prompts, lengths, steps, MASK, PAD)
    nearest = min(seen.lead, seen.gap)
    return fast, slow, "at a tie" if nearest < TIE else False, nearest


def report(label, fast, slow, same, nearest=None):
    tie = "" if nearest is None else f" (nearest decision {nearest:.2g} from a tie)"
    print(f"{label}: per-row loop {slow * 1e3:9.1f} ms | vectorised {fast * 1e3:9.1f} ms | "
          f"{slow / fast:5.1f}x | identical: {same}{tie}")
    return bool(same)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--model", choices=("fake", "tiny"), action="append")
    args = parser.parse_args()
    B, L = args.batch, args.length
    print(f"B = {B}, L = {L}, steps = {args.steps}, torch threads = {torch.get_num_threads()}")
    ok = report("reverse_update, one call        ", *update_only(B, L))
    for kind in args.model or ["fake", "tiny"]:
        ok &= report(f"sampler, {args.steps} steps, {kind:4s} network", *whole_sampler(denoiser(kind, L), B, L, args.steps))
    if not ok:
        raise SystemExit("vectorised and per-row results differ, and no decision lies near a tie")


if __name__ == "__main__":
    main()
