"""The mutant catalog: realistic student bugs, written as the solution cell a student would submit.

Each mutant must fail exactly the checks listed in `fails` (checks of its own function),
while the reference passes everything: that is the proof that a check has teeth.
"""
import math
from dataclasses import dataclass

import numpy as np
import torch

from maskdiff_solutions import batched as reference_batched
from maskdiff_solutions.sampling import Undiffuse, UndiffuseGreedy
from maskdiff_solutions.toy import MASK, VOCAB

# Functions a notebook-05 `sample` calls by name; the check swaps in the reference ones anyway.
NOTEBOOK_05_HELPERS = ("blank_canvas", "candidate_distributions", "confidence_scores", "reveal_counts",
                       "reverse_update")


@dataclass(frozen=True)
class Mutant:
    function: str          # the grade_id of the solution cell it replaces
    name: str              # what the student got wrong
    source: str            # the whole cell, as submitted
    fails: tuple           # hidden checks that must catch it

    def load(self):
        """The mutant's function, defined in a namespace like its notebook's (earlier cells included)."""
        namespace = {"torch": torch, "math": math, "np": np, "MASK": MASK, "vocab": list(VOCAB),
                     "Undiffuse": Undiffuse, "UndiffuseGreedy": UndiffuseGreedy,
                     **{name: getattr(reference_batched, name) for name in NOTEBOOK_05_HELPERS}}
        exec(compile(self.source, f"<mutant {self.function}:{self.name}>", "exec"), namespace)
        return namespace[self.function]


def catalog():
    from . import batched, chat, forward, loss, revising, sampling
    return (list(forward.MUTANTS) + list(sampling.MUTANTS) + list(chat.MUTANTS) + list(loss.MUTANTS)
            + list(batched.MUTANTS) + list(revising.MUTANTS))
