"""The hidden checks of notebook 04 on the reference: seconds per check, and the margins of the one
check no inequality bounds (DiffusionLoss.training) over many seeds.

    python benchmarks/loss_checks.py [--seeds 40]

Prints the training check's driver (Adam written out) against torch.optim.Adam, each in a fresh
process as in a grading kernel (torch.optim's first optimizer imports torch._dynamo), then each check's
time (budget: 15 s for all of them), then, over seeds 0..N-1 of
MASKDIFF_GRADING_SEED, the largest excess loss and the largest guess distance the reference reached
against the allowed LOSS_BAND and GUESS_TOLERANCE.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

import maskdiff_solutions as reference  # noqa: E402
from maskdiff_solutions import grading  # noqa: E402
from maskdiff_solutions.grading import loss as checks  # noqa: E402
from maskdiff_solutions.grading.core import as_student, seeded  # noqa: E402


COLD = """
import sys, time, torch
sys.path.insert(0, {root!r})
torch.set_num_threads(1)
import maskdiff_solutions as reference
from maskdiff_client import drivers
from maskdiff_solutions.grading import loss as checks
from tests.support.training import torch_optim_training
batches = checks.two_sentence_batches(checks.TRAIN_STEPS, checks.TRAIN_BATCH)
args = (checks.TOY_MASK, len(checks.TOY_VOCAB), checks.TRAIN_SIZE, checks.TRAIN_LR)
started = time.perf_counter()
if {torch_optim}:
    torch_optim_training(batches)
else:
    drivers.loss_training(reference.DiffusionLoss, batches, *args)
print(time.perf_counter() - started)
"""


def cold_training(torch_optim):
    """Seconds to train the check's 400 steps in a fresh process, one thread."""
    root = str(Path(__file__).resolve().parents[1])
    code = COLD.format(root=root, torch_optim=torch_optim)
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=40)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    for _ in range(2):  # alternated, so a change of load falls on both
        ours, theirs = cold_training(False), cold_training(True)
        print(f"training check, fresh process: the driver's Adam {ours:.2f} s, "
              f"torch.optim.Adam {theirs:.2f} s")
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
            excess, distances = checks.one_thread(checks.train_two_sentences)(as_student(reference.DiffusionLoss))
        worst_excess = max(worst_excess, excess)
        worst_distance = max(worst_distance, max(distances.values()))
    print(f"training check over seeds 0..{args.seeds - 1}: worst excess loss {worst_excess:.4f} "
          f"(allowed {checks.LOSS_BAND}), worst guess distance {worst_distance:.4f} "
          f"(allowed {checks.GUESS_TOLERANCE})")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
