"""tests/support/sweeps.py: a sweep's representatives run every time, every other case on its day of the
week, and all of them with MASKDIFF_FULL_SWEEPS=1."""
import pytest

from tests.support import sweeps


def outcome(name, representative):
    try:
        sweeps.take_turn(name, representative)
    except pytest.skip.Exception:
        return "skipped"
    return "ran"


def test_a_representative_always_runs_and_another_case_on_its_day_only(monkeypatch):
    monkeypatch.delenv(sweeps.FULL, raising=False)
    name = "plot_loop-RemaskStep:float ids"
    for day in range(sweeps.DAYS):
        monkeypatch.setenv(sweeps.DAY, str(day))
        assert outcome(name, True) == "ran"
        assert outcome(name, False) == ("ran" if day == sweeps.turn(name) else "skipped")


def test_a_case_given_its_own_day_runs_on_that_day(monkeypatch):
    monkeypatch.delenv(sweeps.FULL, raising=False)
    for day in range(sweeps.DAYS):
        monkeypatch.setenv(sweeps.DAY, str(day))
        assert [sweeps.in_turn("case", False, day=d) for d in range(sweeps.DAYS + 1)] == \
            [d % sweeps.DAYS == day for d in range(sweeps.DAYS + 1)]


def test_every_case_runs_when_the_full_sweep_is_asked_for(monkeypatch):
    monkeypatch.setenv(sweeps.FULL, "1")
    for day in range(sweeps.DAYS):
        monkeypatch.setenv(sweeps.DAY, str(day))
        assert outcome(f"case {day}", False) == "ran"


def test_representatives_take_the_first_of_each_kind_that_differ():
    cases = [("a", 1), ("a", 1), ("a", 2), ("a", 3), ("b", 1), ("b", 1)]
    assert sweeps.representatives(cases, kind=lambda c: c[0]) == [("a", 1), ("b", 1)]
    assert sweeps.representatives(cases, kind=lambda c: c[0], most=2, differ=lambda c: c[1]) == \
        [("a", 1), ("a", 2), ("b", 1)]


def test_the_real_sweeps_spread_their_cases_over_the_week():
    """No day takes more than twice its share of a sweep's cases, so no day's CI is much longer."""
    from tests.grading.test_checker import MUTANTS, ONE_EACH
    from tests.grading.test_checks_plots import FAITHFUL, FAITHFUL_EVERY_RUN, MUTANTS as WRONG, WRONG_EVERY_RUN, wrong_plot_name
    sweeps_names = {
        "wrong plots": [wrong_plot_name(m) for m in WRONG if wrong_plot_name(m) not in WRONG_EVERY_RUN],
        "faithful plots": [f"{c}-{m.function}:{m.name}" for c, m in FAITHFUL
                           if (c, m.function, m.name) not in FAITHFUL_EVERY_RUN],
        "mutants through the checker": [f"{m.function}:{m.name}" for m in MUTANTS if id(m) not in ONE_EACH],
    }
    from tests.grading.test_honest import FIRST_OF_EACH_KIND, _name
    from tests.grading.test_honest import CATALOG
    sweeps_names["honest drawings"] = [_name(i) for i in range(len(CATALOG)) if i not in FIRST_OF_EACH_KIND]
    for sweep, names in sweeps_names.items():
        days = [sum(sweeps.turn(name) == day for name in names) for day in range(sweeps.DAYS)]
        assert max(days) <= 2 * len(names) / sweeps.DAYS, (sweep, days)


def test_the_costly_cases_of_small_sweeps_take_a_day_each():
    """The carried cells stubbed beyond each notebook's first, and the release's stubs run as a student beyond
    notebook 01's: each on a day of its own, and no day takes both sweeps' case of one notebook."""
    from tests.grading.test_carried_drawings import EVERY_RUN, OTHERS, carried_day, variants
    from tests.course.term.test_release import NOTEBOOKS, release_day
    assert {notebook for notebook, _ in EVERY_RUN} == {notebook for notebook, _ in variants()}
    carried_days = [carried_day(variant) % sweeps.DAYS for variant in OTHERS]
    assert len(set(carried_days)) == len(carried_days), "more carried cells than days: two share a day"
    release_days = [release_day(name) % sweeps.DAYS for name in NOTEBOOKS[1:]]
    assert len(set(release_days)) == len(release_days)
    assert all(release_day(name) % sweeps.DAYS != i % sweeps.DAYS for i, name in enumerate(NOTEBOOKS) if i)
