"""The demo's buggy student's one bug, the whole answer cell as a student would hand it in: a copy of
one mutant of the course's catalog (tests/mutants/forward.py), kept in the package because the
package never reads tests/. `test_the_demos_bug_is_a_mutant_of_the_catalog` holds it equal to the catalog's."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    function: str    # the grade_id of the solution cell it replaces
    name: str        # what the student got wrong (the mutant's name in the catalog)
    source: str      # the whole cell, as submitted


BUG = Bug("ForwardMaskFast", "uses alpha_bar[t-1]", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    x[torch.rand(len(x)) < 1 - alpha_bar[t - 1]] = MASK
    return x
""")
