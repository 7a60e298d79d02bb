"""Seeding for one check, and the notebook's random generators given back after it. One copy, here,
for both sides: the kernel seeds before it serves a checker's check (maskdiff_client), and the
hidden package seeds its checks when they run in-process (maskdiff_solutions.grading.core); this
package must import without the hidden one (Colab)."""
import random

import numpy as np
import torch

# The base seed of every hidden check, read by the checks (maskdiff_solutions/grading/core.py) and the
# grader (the canary's key, --only-changed): named here, below both, so neither imports the other for it.
SEED_VARIABLE = "MASKDIFF_GRADING_SEED"


class kept_generators:
    """Give the notebook its random generators (python, numpy, torch's CPU one) and torch's thread
    count back when the block ends."""

    def __enter__(self):
        self.py, self.np = random.getstate(), np.random.get_state()
        self.torch, self.threads = torch.random.get_rng_state(), torch.get_num_threads()
        return self

    def __exit__(self, *exc):
        random.setstate(self.py)
        np.random.set_state(self.np)
        torch.random.set_rng_state(self.torch)
        torch.set_num_threads(self.threads)
        return False


def seed_all(seed):
    """Seed torch, numpy and random from one integer, on one torch thread."""
    # Checks make thousands of calls on tiny tensors, where torch's thread pool costs far more than it
    # saves (softmax of a 5x8 table: 12 us on one thread, 220 us on two busy cores).
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed % 2 ** 32)
    return seed
