"""The hidden checks of notebook 04 on the reference: seconds per check, and the margins of the one
check no inequality bounds (DiffusionLoss.training) over many seeds.

    python benchmarks/loss_checks.py [--seeds 40]

Prints each check's time (budget: 15 s for all of them), then, over seeds 0..N-1 of
MASKDIFF_GRADING_SEED, the largest excess loss and the largest guess distance the reference reached
against the allowed LOSS_BAND and GUESS_TOLERANCE.
"""
import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

import maskdiff_solutions as reference  # noqa: E402
from maskdiff_solutions import grading  # noqa: E402
from maskdiff_solutions.grading import loss as checks  # noqa: E402
from maskdiff_solutions.grading.core import seeded  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=40)
    args = parser.parse_args()
    total = 0.0
    for name in [n for n in grading.CHECKS if grading.CHECKS[n].__module__.endswith(".loss")]:
        started = time.perf_counter()
        outcome = grading.evaluate(name, getattr(reference, name.split(".")[0]))
        seconds = time.perf_counter() - started
        total += seconds
        print(f"{name:28s} {'passed' if outcome.passed else 'FAILED'} in {seconds:5.2f} s")
    print(f"all checks of notebook 04: {total:.1f} s (budget 15 s)")
    worst_excess, worst_distance = 0.0, 0.0
    for seed in range(args.seeds):
        os.environ[grading.SEED_VARIABLE] = str(seed)
        with seeded("DiffusionLoss.training"):
            excess, distances = checks.one_thread(checks.train_two_sentences)(reference.DiffusionLoss)
        worst_excess = max(worst_excess, excess)
        worst_distance = max(worst_distance, max(distances.values()))
    print(f"training check over seeds 0..{args.seeds - 1}: worst excess loss {worst_excess:.4f} "
          f"(allowed {checks.LOSS_BAND}), worst guess distance {worst_distance:.4f} "
          f"(allowed {checks.GUESS_TOLERANCE})")


if __name__ == "__main__":
    main()
