"""Batched sampler (notebook 05) against a per-row loop like the lesson's, in one run.

    python benchmarks/sampler.py [--batch 64] [--length 128] [--steps 32] [--model fake|tiny]

Both samplers get the same prompts, lengths and denoiser; the script checks that their outputs are
identical, then prints seconds for each and the ratio. `fake` is a small random network (sampler
overhead dominates); `tiny` is the notebook-04 denoiser (untrained: the sampler does not care).
"""
import argparse
import time

import torch

from maskdiff_solutions import batched
from maskdiff_solutions.grading.batched import MASK, PAD, FakeDenoiser


def denoiser(kind, L):
    if kind == "fake":
        return FakeDenoiser(V=2002, L_max=L)
    from maskdiff_solutions.model import TinyDenoiser  # notebook 04's given network
    return TinyDenoiser(2002, max_length=L).eval()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--length", type=int, default=128)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--model", choices=("fake", "tiny"), default="fake")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = denoiser(args.model, args.length)
    lengths = torch.randint(args.length // 2, args.length + 1, (args.batch,)).tolist()
    lengths[0] = args.length
    prompts = [torch.randint(2, 2000, (int(torch.randint(0, 16, (1,))),)) for _ in lengths]
    timings = {}
    for name, sampler in (("batched", batched.sample), ("per-row loop", batched.sample_rowwise)):
        started = time.perf_counter()
        out = sampler(model, prompts, lengths, args.steps, MASK, PAD)
        timings[name] = (time.perf_counter() - started, out)
    same = torch.equal(timings["batched"][1], timings["per-row loop"][1])
    fast, slow = timings["batched"][0], timings["per-row loop"][0]
    print(f"B={args.batch} L={args.length} steps={args.steps} model={args.model} "
          f"threads={torch.get_num_threads()}")
    print(f"per-row loop (baseline): {slow:.2f} s")
    print(f"batched:                 {fast:.2f} s   ({slow / fast:.1f}x faster, identical results: {same})")
    if not same:
        raise SystemExit("the two samplers disagree")


if __name__ == "__main__":
    main()
