"""ReMDM's loop in the two-sentence world, measured against its exact chain: the impossible share of
LoopTwo (notebook 06's given sampler, T = 4, the loop held at t = 1/4) with the reference RemaskStep,
RemaskSigma and RemaskLoop, beside LoopExact, for the notebook's etas and loop steps; and the
stationary share of clashes among decoded sentences at a fixed alpha (about 0.16 sigma).

    python benchmarks/remask_loop.py [--runs 2500] [--seed 0]
"""
import argparse
import itertools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from maskdiff_solutions import experiments as world  # noqa: E402
from maskdiff_solutions.revising import RemaskLoop, RemaskSigma, RemaskStep  # noqa: E402

ETAS, NS = (0.2, 0.05), (0, 1, 2, 4, 8, 16, 32)


def stationary_clash_share(sigma, alpha):
    """Among stationary states of the loop's chain at this alpha with both uncertain positions decoded,
    the share that clash (positions 1 and 3: `_`, the first sentence's word or the second's)."""
    states = list(itertools.product("_12", repeat=2))
    reveal = sigma * alpha / (1 - alpha)
    first = world.SENTENCES["the cat is alive"]

    def one(me, other, new):
        if me != "_":
            return sigma if new == "_" else (1 - sigma) * (new == me)
        if new == "_":
            return 1 - reveal
        return reveal * ({"1": first, "2": 1 - first} if other == "_" else {other: 1.0}).get(new, 0.0)

    P = np.array([[one(a, b, a2) * one(b, a, b2) for a2, b2 in states] for a, b in states])
    values, vectors = np.linalg.eig(P.T)
    law = np.real(vectors[:, np.argmin(abs(values - 1))])
    law /= law.sum()
    decoded = sum(law[i] for i, s in enumerate(states) if "_" not in s)
    return (law[states.index(("1", "2"))] + law[states.index(("2", "1"))]) / decoded


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    print(f"load {os.getloadavg()[0]:.2f}; {args.runs} sentences per (eta, n)")
    print(f"{'eta':>5} {'n':>3} {'exact':>8} {'measured':>9} {'std err':>8}")
    started = time.perf_counter()
    for eta in ETAS:
        for n in NS:
            k = sum(world.Impossible(world.LoopTwo(RemaskStep, RemaskSigma, RemaskLoop, n, eta)) for _ in range(args.runs))
            p = world.LoopExact(n, eta)
            print(f"{eta:>5} {n:>3} {p:>8.4f} {k / args.runs:>9.4f} {(p * (1 - p) / args.runs) ** 0.5:>8.4f}")
    print(f"({time.perf_counter() - started:.0f} s); floors: " + ", ".join(
        f"eta {eta}: {world.LoopExact(10 ** 4, eta):.4f}" for eta in ETAS))
    for sigma in (0.01, 0.1):
        shares = [stationary_clash_share(sigma, alpha) for alpha in (0.5, 0.9)]
        print(f"stationary clash share among decoded, sigma = {sigma}: {shares[0]:.5f} (alpha 0.5), "
              f"{shares[1]:.5f} (alpha 0.9) = {shares[0] / sigma:.3f} sigma")


if __name__ == "__main__":
    main()
