"""Honest alternatives: correct drawing and printout cells written as other students would, from the
task text above each cell alone. The mirror image of tests/mutants/plots.py: every one must pass its
check (or, where the reader cannot tell, go to review), never fail.

One module per notebook holds `HONEST`, a list of `Honest` records. A cell whose data takes time to
compute has a `PRELUDES[cell]` (the shared computation, e.g. a training run): each alternative's
source starts with it, and the tests run it once and vary only the drawing."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Honest:
    cell: str      # grade_id of the drawing or printout cell
    name: str
    source: str    # the whole cell as the student wrote it
