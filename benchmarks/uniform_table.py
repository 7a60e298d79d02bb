"""Notebook 08's table, the share of impossible sentences after T steps of uniform-state undiffusion in the
two-sentence world, computed two independent ways: the exact chain on 36 lumped canvases
(uniform.UniformExact) and a simulation that draws x_0 and then x_s from the forward matrices
(uniform.SimulateUniform). Prints both beside the absorbing sampler's 0.32/T, with the load.

    python benchmarks/uniform_table.py [--runs 400000] [--simulate 2 8 32]
"""
import argparse
import math
import os
import time

import torch

from maskdiff_solutions import uniform


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400_000)
    parser.add_argument("--simulate", type=int, nargs="*", default=[2, 8, 32])
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f} at the start")
    print(f"{'T':>3} {'exact':>8} {'0.32/T':>7} {'T x exact':>9} {'alive':>7}   simulated (runs, 99.9999% interval)")
    for T in (1, 2, 4, 8, 16, 32, 64):
        law = uniform.UniformExact(T)
        line = (f"{T:>3} {law['impossible']:>8.4f} {0.32 / T:>7.3f} {T * law['impossible']:>9.3f} "
                f"{law['the cat is alive']:>7.4f}")
        if T in args.simulate:
            started = time.perf_counter()
            x = uniform.SimulateUniform(T, args.runs, torch.Generator().manual_seed(T))
            share = 1 - float(((x == uniform.SENTENCE_IDS[0]).all(1) | (x == uniform.SENTENCE_IDS[1]).all(1))
                              .double().mean())
            half = 4.9 * math.sqrt(share * (1 - share) / args.runs)
            line += (f"   {share:.4f} +- {half:.4f} ({args.runs} sentences, "
                     f"{time.perf_counter() - started:.1f} s)")
        print(line, flush=True)
    print(f"load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
