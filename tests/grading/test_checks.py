"""Every hidden check has teeth and no false alarms: the reference passes it under any seed, and
every mutant in the catalog fails exactly the checks it names (all of its own function). Notebook 03's,
04's, 06's, 07's and 08's functions are proven so in test_checks_chat.py, test_checks_loss.py,
test_checks_revising.py, test_checks_caching.py and test_checks_uniform.py."""
import pytest

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from tests.mutants import caching, catalog, chat, loss, revising, uniform
from tests.support import sweeps
from tests.support.function_checks import SEEDS   # the seeds the reference must pass under, as there

# Checks of the student's functions; the checks of plots and printouts (which read what a cell drew)
# are proven by tests/grading/test_checks_plots.py.
FUNCTION_CHECKS = sorted(name for name in grading.CHECKS if not name.startswith(("plot_", "show_")))
# Notebook 03's, 04's, 06's, 07's and 08's catalogs are proven in their own modules, tagged with their
# notebook (test_checks_chat.py, test_checks_loss.py, test_checks_revising.py, test_checks_caching.py,
# test_checks_uniform.py: the reference under the same seeds, every mutant), not again here.
ELSEWHERE = chat.MUTANTS + loss.MUTANTS + revising.MUTANTS + caching.MUTANTS + uniform.MUTANTS
OWN_MODULE = {m.function for m in ELSEWHERE} - {"AtTemperature"}
MUTANTS = [m for m in catalog() if m not in ELSEWHERE]


def xdist_group(item):
    """Under pytest-xdist any worker may take any test here (tests/conftest.py): they share nothing."""
    return None


def function_of(check_name):
    return check_name.split(".")[0]


def checks_of(function):
    return [name for name in FUNCTION_CHECKS if function_of(name) == function]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [name for name in FUNCTION_CHECKS if function_of(name) not in OWN_MODULE])
def test_reference_passes(name, seed, monkeypatch):
    sweeps.take_turn(f"{name} under seed {seed}", seed == SEEDS[0])
    monkeypatch.setenv(grading.SEED_VARIABLE, str(seed))
    outcome = grading.evaluate(name, getattr(reference, function_of(name)))
    assert outcome.passed, outcome.message


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.function}:{m.name}")
def test_mutant_loses_marks_exactly_where_it_says(mutant):
    buggy = mutant.load()
    failed = {name for name in checks_of(mutant.function) if not grading.evaluate(name, buggy).passed}
    assert failed == set(mutant.fails), f"{mutant.name}: expected {mutant.fails}, failed {failed}"


@pytest.mark.parametrize("function", sorted({function_of(name) for name in FUNCTION_CHECKS}))
def test_every_checked_function_has_three_mutants(function):
    assert sum(m.function == function for m in catalog()) >= 3, function


# A function that does nothing useful takes no check: one that refuses every call, one that hands back its
# first argument, one that returns None. A check of "what it must not do" (refuse bad input, leave the
# prompt alone) also asks for what it must do, or such a function takes its points unearned.
DO_NOTHING = {"refuses everything": "    raise ValueError('refused')\n",
              "returns its first argument": "    return args[0] if args else next(iter(kwargs.values()), None)\n",
              "returns None": "    return None\n"}


@pytest.mark.slow  # 78 cases, about 5 s: CI runs them, the inner loop (at its 4 minutes) does not
@pytest.mark.parametrize("way", sorted(DO_NOTHING))
@pytest.mark.parametrize("function", sorted({function_of(name) for name in FUNCTION_CHECKS}))
def test_a_function_that_does_nothing_takes_no_check(function, way):
    namespace = {}
    exec(f"def {function}(*args, **kwargs):\n{DO_NOTHING[way]}", namespace)
    taken = [name for name in checks_of(function) if grading.evaluate(name, namespace[function]).passed]
    assert not taken, f"{function} that {way} passes {taken}"
