"""The honest catalog (tests/honest/): every correct drawing and printout of a graded cell, written as
different students would, earns its points; every wrong plot of tests/mutants/plots.py still fails.

Each cell's work (`DATA`) runs once, after the notebook's earlier cells; every alternative then draws
from a fresh copy of that namespace, so the catalog varies only the drawing (the cost is the drawing:
tests/support/honest_verdicts.py).
"""
import pytest

from tests.support import cells, sweeps
from tests.support.drawings import worker_group
from tests.support.honest_verdicts import CATALOG, outcome_of, verdict

REVIEW_SHARE = 0.05     # at most this share of each notebook's catalog may be sent to a person
NOTEBOOKS = sorted({notebook for notebook, _, _ in CATALOG})


def xdist_group(item):
    """Under pytest-xdist (tests/conftest.py) a notebook's alternatives, and their tally, run on the worker
    of its plot checks (test_checks_plots.py): the notebook runs once there for both."""
    params = getattr(item, "callspec", None) and item.callspec.params
    if not params:
        return None
    return worker_group(CATALOG[params["index"]][0] if "index" in params else params["notebook"])


def _first_of_each_kind():
    """The index of each cell's first alternative of each kind (matplotlib, pandas-seaborn, shown, ...)."""
    seen, first = set(), set()
    for index, (_, _, honest) in enumerate(CATALOG):
        if (honest.cell, honest.kind) not in seen:
            seen.add((honest.cell, honest.kind))
            first.add(index)
    return first


# Each cell's first alternative of each kind runs in the inner loop (`-m "not slow"`) and in every run of CI; the
# others are marked slow and take turns by day in CI (tests/support/sweeps.py): 98 of the 531, 94 s of the 248 s
# CI measured for all, and a seventh of the rest a day.
FIRST_OF_EACH_KIND = _first_of_each_kind()


def _name(index):
    return f"{CATALOG[index][2].cell}:{CATALOG[index][2].name}"


@pytest.mark.parametrize("index", [pytest.param(index, id=_name(index), marks=() if index in FIRST_OF_EACH_KIND
                                                else pytest.mark.slow) for index in range(len(CATALOG))])
def test_an_honest_drawing_earns_its_points(index):
    sweeps.take_turn(_name(index), index in FIRST_OF_EACH_KIND)
    outcome = outcome_of(index)
    assert outcome.raised is None, f"the alternative itself raised: {outcome.raised!r}"
    assert verdict(outcome) != "fail", outcome.message
    if verdict(outcome) == "review":
        pytest.xfail(f"sent to review: {outcome.message}")  # counted against REVIEW_SHARE below


def test_the_catalog_covers_every_cell_eight_times():
    from collections import Counter

    from tests.honest import KINDS
    from tests.support.drawings import PLOT_CHECKS
    per_cell = Counter(h.cell for _, _, h in CATALOG)
    assert min(per_cell.values()) >= 8, {c: n for c, n in per_cell.items() if n < 8}
    assert set(per_cell) == set(PLOT_CHECKS) and {h.kind for _, _, h in CATALOG} <= set(KINDS)
    # Colab's ways: three pandas or seaborn drawings per plot, a value shown without print per printout,
    # two plotly charts and an altair chart per plot
    libraries = Counter(h.cell for _, _, h in CATALOG if h.kind == "pandas-seaborn")
    shown = Counter(h.cell for _, _, h in CATALOG if h.kind == "shown")
    assert all(libraries[c] >= 3 for c in PLOT_CHECKS if c.startswith("plot_")), libraries
    assert all(shown[c] >= 1 for c in PLOT_CHECKS if c.startswith("show_")), shown
    for library, least in (("plotly", 2), ("altair", 1)):   # Colab's other libraries per plot (named for them)
        charts = Counter(h.cell for _, _, h in CATALOG if h.kind == "plotly-altair" and h.name.startswith(library))
        assert all(charts[c] >= least for c in PLOT_CHECKS if c.startswith("plot_")), (library, charts)
    names = [(h.cell, h.name) for _, _, h in CATALOG]
    assert len(names) == len(set(names)), "two alternatives of one cell share a name"


@pytest.mark.slow   # it judges every alternative of the notebook: in CI, each notebook on its day of the week
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_few_of_a_notebooks_alternatives_go_to_review(notebook):
    sweeps.take_turn(f"review share of {notebook}", False, day=NOTEBOOKS.index(notebook))   # one notebook a day
    mine = [i for i, (nb, _, _) in enumerate(CATALOG) if nb == notebook]
    reviews = [CATALOG[i][2] for i in mine if verdict(outcome_of(i)) == "review"]
    assert len(reviews) <= REVIEW_SHARE * len(mine), [f"{h.cell}:{h.name}" for h in reviews]


def test_the_runs_a_task_promises_are_the_runs_its_check_asks():
    """Every count a text promises under the autograder ("`repeats(1000)`: 200 runs under the
    autograder", "`repeats(200)` gives 100", "`Tally(make, 2000)` makes 400") is what the notebook's
    own repeats() gives in quick mode and what the checks count (plots.runs_asked); and no text
    says "at least" of a count that is exact."""
    import re

    from maskdiff_solutions.course.intake import notebooks as nbtools
    from maskdiff_solutions.grading.plots import runs_asked
    claims = [r"repeats\((\d+)\)`: (\d+) (?:runs |sentences |samples )?under the autograder",
              r"`?repeats\((\d+)\)`? gives (\d+)", r"Tally\(make, (\d+)\)`? makes (\d+)",
              r"repeats\((\d+)\)`.{0,80}?\(\1, or (\d+) under the autograder\)"]
    promised = 0
    for notebook in ("01_noise_for_words.ipynb", "02_undiffusing.ipynb", "04_training.ipynb",
                     "05_sampler_internals.ipynb", "06_revising_and_faster.ipynb", "07_caching.ipynb",
                     "08_noise_without_a_mask.ipynb"):
        book = cells.notebook_cells(notebook)
        setup = [c.source for c in book if c.cell_type == "code" and nbtools.grade_id(c) == "setup"][0]
        scope = {"QUICK": True}   # the notebook's own repeats(), as under the autograder
        exec(setup[setup.index("def repeats"):].split("\n\n")[0], scope)
        for cell in book:
            text = " ".join(cell.source.split())
            assert not re.search(r"repeats\(\d+\)`: at least", text), (notebook, "an exact count said as 'at least'")
            for claim in claims:
                for n, said in re.findall(claim, text):
                    assert runs_asked(int(n)) == scope["repeats"](int(n)) == int(said), (notebook, n, said)
                    promised += 1
    assert promised >= 6