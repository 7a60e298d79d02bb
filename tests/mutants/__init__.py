"""The mutant catalog: realistic student bugs, written as the solution cell a student would submit.

Each mutant must fail exactly the checks listed in `fails` (checks of its own function),
while the reference passes everything: that is the proof that a check has teeth.
"""
import math
from dataclasses import dataclass

import numpy as np
import torch

from maskdiff_solutions.toy import MASK, VOCAB


@dataclass(frozen=True)
class Mutant:
    function: str          # the grade_id of the solution cell it replaces
    name: str              # what the student got wrong
    source: str            # the whole cell, as submitted
    fails: tuple           # hidden checks that must catch it

    def load(self):
        namespace = {"torch": torch, "math": math, "np": np, "MASK": MASK, "vocab": list(VOCAB)}
        exec(compile(self.source, f"<mutant {self.function}:{self.name}>", "exec"), namespace)
        return namespace[self.function]


def catalog():
    from . import forward, loss
    return list(forward.MUTANTS) + list(loss.MUTANTS)
