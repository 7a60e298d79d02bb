"""The mutant catalog: realistic student bugs, written as the solution cell a student would submit.

Each mutant must fail exactly the checks listed in `fails` (checks of its own function),
while the reference passes everything: that is the proof that a check has teeth.
"""
import math
from dataclasses import dataclass

import numpy as np
import torch

from maskdiff_solutions import batched as reference_batched
from maskdiff_solutions import uniform as reference_uniform
from maskdiff_solutions.sampling import Undiffuse, UndiffuseGreedy
from maskdiff_solutions.toy import MASK, VOCAB, Decode, Encode

# Functions a notebook-05 `sample` calls by name; the check swaps in the reference ones anyway.
NOTEBOOK_05_HELPERS = ("blank_canvas", "candidate_distributions", "confidence_scores", "reveal_counts",
                       "reverse_update")
# What notebook 08's given cell `uniform_world` defines, which PosteriorUniform reads.
NOTEBOOK_08_WORLD = ("words", "SENTENCE_IDS", "PRIOR")


@dataclass(frozen=True)
class Mutant:
    function: str          # the grade_id of the solution cell it replaces
    name: str              # what the student got wrong
    source: str            # the whole cell, as submitted
    fails: tuple           # hidden checks that must catch it

    def load(self):
        """The mutant's function, defined in a namespace like its notebook's (earlier cells included)."""
        return Mutant.load_in(self.function, self.name, self.source)

    @staticmethod
    def load_in(function, name, source, extra=None):
        """`function` as `source` defines it, in a namespace like its notebook's, with `extra` besides."""
        namespace = {"torch": torch, "F": torch.nn.functional, "math": math, "np": np, "MASK": MASK,
                     "vocab": list(VOCAB), "Encode": Encode, "Decode": Decode,
                     "Undiffuse": Undiffuse, "UndiffuseGreedy": UndiffuseGreedy,
                     **{helper: getattr(reference_batched, helper) for helper in NOTEBOOK_05_HELPERS},
                     **{helper: getattr(reference_uniform, helper) for helper in NOTEBOOK_08_WORLD},
                     **(extra or {})}
        exec(compile(source, f"<mutant {function}:{name}>", "exec"), namespace)
        return namespace[function]


def indent(line):
    return len(line) - len(line.lstrip())


class Edits:
    """A catalog's mutants as edits of its correct solution cells (`reference`: the cell of each function),
    so that each reads as the bug and nothing else: `edit = Edits(REFERENCE)`, then `edit(...)`."""

    def __init__(self, reference):
        self.reference = reference

    def __call__(self, function, name, fails, *changes):
        """The cell of `function` with each (old, new) of `changes` made (old must occur once)."""
        source = self.reference[function]
        for old, new in changes:
            assert source.count(old) == 1, (function, name, old)
            source = source.replace(old, new)
        return Mutant(function, name, source, tuple(fails))

    def statement(self, function, first_line):
        """The statement of `function`'s cell that opens with `first_line` (stripped): that line and the
        lines below it indented deeper (its body, a call continued), up to a blank line."""
        lines = self.reference[function].splitlines(keepends=True)
        starts = [i for i, line in enumerate(lines) if line.strip() == first_line]
        assert len(starts) == 1, (function, first_line)
        start = starts[0]
        end = start + 1
        while end < len(lines) and lines[end].strip() and indent(lines[end]) > indent(lines[start]):
            end += 1
        return "".join(lines[start:end])

    def without(self, function, name, fails, first_line, *changes):
        """The cell with the statement that opens with `first_line` left out (a check a student skipped),
        and `changes` made besides."""
        return self(function, name, fails, (self.statement(function, first_line), ""), *changes)

    def blocks_unchecked(self, function, fails):
        """For a function that splits gen_length into blocks of block_length and the steps among the blocks
        (LLaDA's rule): the two mutants that each leave one of those checks out."""
        return [self.without(function, "steps % blocks not checked", fails, "if steps % blocks:"),
                self.without(function, "gen_length % block_length not checked", fails,
                             "if gen_length % block_length:")]


# Catalogs whose notebook is still to be written: their checks and mutants may land first (notebook 07's
# did). Whatever places a mutant in its notebook's cell takes catalog(in_notebooks=True); the checks judge
# them all. Drop a catalog from here once its notebook is in, and hold REFERENCE to the notebook's cells.
AHEAD_OF_THEIR_NOTEBOOK = ()


def catalog(in_notebooks=False):
    from . import batched, caching, chat, forward, loss, revising, sampling, uniform
    modules = (forward, sampling, chat, loss, batched, revising, caching, uniform)
    return [mutant for module in modules
            if not (in_notebooks and module.__name__.rsplit(".", 1)[-1] in AHEAD_OF_THEIR_NOTEBOOK)
            for mutant in module.MUTANTS]
