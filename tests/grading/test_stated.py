"""A hidden case asks only what the task states (issue 63): every case a check refuses (with `core.refused`)
has the words of its task that state it in `core.STATED`, and those words are in the markdown above the
function's solution cell in source/ (or in the task it names: "as in `SampleBlocksCached`")."""
from functools import lru_cache
from pathlib import Path

import pytest

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from maskdiff_solutions.grading import core
from maskdiff_solutions.course.intake import notebooks

SOURCE = Path(__file__).resolve().parents[2] / "source" / "maskdiff"


def xdist_group(item):
    """Under pytest-xdist any worker may take any test of this file (tests/conftest.py): they share nothing."""
    return None


def flat(text):
    return " ".join(text.split())


@lru_cache(maxsize=None)
def tasks():
    """{function: the markdown above its solution cell, up to the code cell before, whitespace flattened}."""
    out = {}
    for path in sorted(SOURCE.glob("[0-9][0-9]_*.ipynb")):
        cells = notebooks.read(path).cells
        for i, cell in enumerate(cells):
            if notebooks.is_function(cell):
                j, text = i - 1, []
                while j >= 0 and cells[j].cell_type == "markdown":
                    text.insert(0, cells[j].source)
                    j -= 1
                out[notebooks.grade_id(cell)] = flat("\n".join(text))
    return out


def refusing_checks():
    """The function checks of the modules that refuse (they import `refused`)."""
    return sorted(name for name, check in grading.CHECKS.items()
                  if "refused" in vars(__import__(check.__module__, fromlist=["_"]))
                  and not name.startswith(("plot_", "show_")))


@pytest.mark.parametrize("name", refusing_checks())
def test_every_refusal_a_check_asks_for_is_stated(name):
    with core.asked() as whys:
        outcome = grading.evaluate(name, getattr(reference, name.split(".")[0]))
    assert outcome.passed, outcome.message
    table = core.STATED.get(name, {})
    unstated = [why for why in dict.fromkeys(whys) if why not in table]
    assert not unstated, f"{name} refuses cases no task words are given for (core.stated): {unstated}"
    unused = sorted(set(table) - set(whys))
    assert not unused, f"{name}: words stated for refusals it no longer asks for: {unused}"


@pytest.mark.parametrize("name", sorted(core.STATED))
def test_the_words_are_in_the_task(name):
    function = name.split(".")[0]
    for why, words in core.STATED[name].items():
        where = function
        if isinstance(words, tuple):
            where, words = words
            assert f"as in `{where}`" in tasks()[function], f"{function}'s task does not say its {why!r} is as in {where}'s"
        assert flat(words) in tasks()[where], f"{name}: {why!r} is stated as {words!r}, not in {where}'s task"


def test_a_case_the_task_does_not_state_is_caught(monkeypatch):
    """The test has teeth: words that are not in the task fail it."""
    monkeypatch.setitem(core.STATED, "CommitAbove.errors",
                        {**core.STATED["CommitAbove.errors"], "a threshold tau = NaN": "a tau that is NaN"})
    with pytest.raises(AssertionError, match="not in CommitAbove's task"):
        test_the_words_are_in_the_task("CommitAbove.errors")
