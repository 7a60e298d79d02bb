"""What the test files of one notebook's function checks share (test_checks_revising.py,
test_checks_caching.py): the seeds, the spreading of their tests over workers, and the tests every such
file holds, made for its checks."""
import pytest

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from tests.mutants import Mutant
from tests.support import sweeps

# The seeds the reference must pass under (here and in test_checks.py): the first in the inner loop (`-m "not slow"`)
# and every run of CI, each other (check, seed) on its day of the week (tests/support/sweeps.py); benchmarks/ runs many more.
SEEDS = [0, *(pytest.param(seed, marks=pytest.mark.slow) for seed in (1, 2, 31337, 20261130))]


def xdist_group(item):
    """Under pytest-xdist any worker may take any test of a file that imports this (tests/conftest.py):
    they share nothing."""
    return None


def function_of(check):
    """The function a check ("Function.aspect", or plain "Function") grades."""
    return check.split(".")[0]


def functions(checks):
    return sorted({function_of(name) for name in checks})


def checks_of(checks, function):
    return [name for name in checks if function_of(name) == function]


def shared_tests(checks, modules, cells):
    """The tests of `checks`, the checks grading/<module>.py registers (for each of `modules`, a name or a
    tuple of them), that every such file holds: they are all its modules register, the reference passes
    each under every seed, and so do `cells`, the solution cells (by function) the file's mutants are
    edits of. Bind them to the test names the file gives them: pytest collects them under those."""
    modules = (modules,) if isinstance(modules, str) else tuple(modules)

    def test_every_registered_check_is_covered():
        mine = {name for name, check in grading.CHECKS.items()
                if check.__module__.rsplit(".", 1)[-1] in modules and ".grading." in check.__module__}
        assert mine == set(checks)

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("name", checks)
    def test_reference_passes(name, seed, monkeypatch):
        sweeps.take_turn(f"{name} under seed {seed}", seed == SEEDS[0])
        monkeypatch.setenv(grading.SEED_VARIABLE, str(seed))
        outcome = grading.evaluate(name, getattr(reference, function_of(name)))
        assert outcome.passed, outcome.message

    @pytest.mark.parametrize("name", checks)
    def test_solution_cells_pass(name):
        """The cells the mutants are edits of, as a student writes them."""
        function = function_of(name)
        outcome = grading.evaluate(name, Mutant(function, "solution", cells[function], ()).load())
        assert outcome.passed, outcome.message

    return test_every_registered_check_is_covered, test_reference_passes, test_solution_cells_pass


def styles_test(checks, styles):
    """The test that correct functions written other ways, `styles` ({function: {style: its cell}}), pass
    every check of their function."""
    cases = [(function, style, name) for function, cells in styles.items() for style in cells
             for name in checks_of(checks, function)]

    @pytest.mark.parametrize("function,style,name", cases, ids=lambda v: v if isinstance(v, str) else None)
    def test_other_correct_styles_pass(function, style, name):
        outcome = grading.evaluate(name, Mutant(function, style, styles[function][style], ()).load())
        assert outcome.passed, outcome.message

    return test_other_correct_styles_pass


def mutants_test(checks, mutants):
    """The test that each of `mutants` fails exactly the checks it names, of those of its function."""

    @pytest.mark.parametrize("mutant", mutants, ids=lambda m: f"{m.function}:{m.name}")
    def test_mutant_loses_marks_exactly_where_it_says(mutant):
        buggy = mutant.load()
        failed = {name for name in checks_of(checks, mutant.function) if not grading.evaluate(name, buggy).passed}
        assert failed == set(mutant.fails), f"{mutant.name}: expected {mutant.fails}, failed {failed}"

    return test_mutant_loses_marks_exactly_where_it_says
