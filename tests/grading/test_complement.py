"""A complement is read (issue 63, grading/complement.py): a figure whose curve is exactly one minus (or 100
minus) the share its check asks for goes to a person, named, instead of failing; any other wrong figure
still fails, a right one passes, and the student's kernel is asked nothing again."""
import numpy as np
import pytest

from maskdiff_solutions import grading
from maskdiff_solutions.grading import core, plots

SHARES = np.array([0.9, 0.8, 0.75, 0.6])
XS = [2.0, 4.0, 8.0, 16.0]


def xdist_group(item):
    """Under pytest-xdist any worker may take any test of this file (tests/conftest.py): they share nothing."""
    return None


class Cell(core.Student):
    """A drawn cell as a check sees it: its drawing is the data given."""

    def __init__(self, lines, ylabel="agreement"):
        super().__init__("drawn")
        self.data = {"figures": [{"axes": [{"xscale": "linear", "yscale": "linear", "xlabel": "block length",
                                            "ylabel": ylabel, "lines": lines}]}]}
        self.asked = 0

    def drive(self, driver, **kwargs):
        self.asked += 1
        return {key: value for key, value in self.data.items()}


class Shares(core.Student):
    """The student's function the check runs again: the shares, counted."""

    def __init__(self):
        super().__init__("Shares")
        self.asked = 0

    def drive(self, driver, **kwargs):
        self.asked += 1
        return [["ok", SHARES.tolist(), {}]]


def line(y, label="measured"):
    return {"x": np.array(XS), "y": np.asarray(y, dtype=float), "label": label, "in_data": True}


@pytest.fixture
def plot_check(monkeypatch):
    """A figure check of our own: some curve must show the shares Shares gives, as shares or percentages."""
    def check(drawn, function):
        drawing = plots.Drawing.of(drawn)
        want = np.asarray(core.value_of(function.calls([[]])[0], "Shares()"))
        found = any(plots.matches(s, XS, scale * want) for _, s in drawing.series() for scale in (1, 100))
        core.expect(found, f"no curve shows the shares {want.tolist()}")
    monkeypatch.setitem(core.CHECKS, "plot_fake", check)
    monkeypatch.setitem(core.CHECKS, "fake_figure", check)   # not a figure check by name


@pytest.mark.parametrize("drawn,scale", [(1 - SHARES, "one"), (100 - 100 * SHARES, "100")])
def test_a_complement_goes_to_a_person_named(plot_check, drawn, scale):
    cell, shares = Cell([line([0.0, 1.0, 2.0, 3.0], "theory"), line(drawn, "disagreement")]), Shares()
    outcome = grading.evaluate("plot_fake", cell, shares)
    assert outcome.review and not outcome.passed, outcome.message
    assert outcome.message.startswith(f"the line 'disagreement' reads as {scale} minus the share"), outcome.message
    assert "no curve shows the shares" in outcome.message   # what the check said of the figure as drawn
    assert cell.asked == 1 and shares.asked == 1, "the kernel was asked again"


def test_an_unnamed_curve_is_named_by_its_axes(plot_check):
    outcome = grading.evaluate("plot_fake", Cell([line(1 - SHARES, "_child0")], "share of tokens"), Shares())
    assert outcome.review and "the line of the axes 'share of tokens'" in outcome.message, outcome.message


@pytest.mark.parametrize("drawn", [0.5 * SHARES, SHARES ** 2, 1.02 - SHARES, SHARES[::-1]])
def test_any_other_wrong_curve_still_fails(plot_check, drawn):
    outcome = grading.evaluate("plot_fake", Cell([line(drawn)]), Shares())
    assert not outcome.passed and not outcome.review, outcome.message


@pytest.mark.parametrize("drawn", [SHARES, 100 * SHARES])
def test_the_share_asked_for_passes(plot_check, drawn):
    assert grading.evaluate("plot_fake", Cell([line(drawn)]), Shares()).passed


def test_only_figure_checks_read_a_complement(plot_check):
    outcome = grading.evaluate("fake_figure", Cell([line(1 - SHARES)]), Shares())
    assert not outcome.passed and not outcome.review, outcome.message


def test_two_curves_drawn_as_complements_go_to_a_person_named(plot_check, monkeypatch):
    """Both measured curves of a figure turned, its theory line as it is: every two curves are tried too."""
    def check(drawn, function):
        drawing = plots.Drawing.of(drawn)
        want = np.asarray(core.value_of(function.calls([[]])[0], "Shares()"))
        for name, values in (("first", want), ("second", want / 2), ("theory", want / 3)):
            core.expect(any(s.label == name and plots.matches(s, XS, values) for _, s in drawing.series()),
                        f"no curve {name}")
    monkeypatch.setitem(core.CHECKS, "plot_fake", check)
    cell = Cell([line(1 - SHARES, "first"), line(1 - SHARES / 2, "second"), line(SHARES / 3, "theory")])
    outcome = grading.evaluate("plot_fake", cell, Shares())
    assert outcome.review and outcome.message.startswith("the line 'first' and the line 'second' read as one minus")


def test_a_figure_of_no_share_reads_no_complement(plot_check, monkeypatch):
    """A check that says its figure holds no share (a loss, call numbers: @check(name, shares=False)) fails a
    complement as any wrong figure."""
    monkeypatch.setattr(core, "NO_SHARES", {"plot_fake"})
    outcome = grading.evaluate("plot_fake", Cell([line(1 - SHARES)]), Shares())
    assert not outcome.passed and not outcome.review, outcome.message


def test_the_figure_checks_without_shares_are_named():
    assert core.NO_SHARES == {"plot_two_sentence_loss", "plot_story_loss", "plot_commit_order",
                              "plot_entropy_perplexity"}


def test_a_call_that_hands_over_our_stand_in_runs_again(plot_check, monkeypatch):
    """What a stand-in of ours keeps of a call (a step that records what it was handed) is what the check reads:
    such a call runs again for real when the figure is read again; every other answer is replayed."""
    class Keeper:   # a check's stand-in: its module is the package's
        __module__ = "maskdiff_solutions.grading.fake"

        def __init__(self):
            self.seen = 0

        def __call__(self):
            self.seen += 1

    def check(drawn, function):
        drawing = plots.Drawing.of(drawn)
        keeper = Keeper()
        function.drive("call_many", arg_lists=[[keeper]])
        core.expect(keeper.seen, "the stand-in was never called")
        want = SHARES
        core.expect(any(plots.matches(s, XS, want) for _, s in drawing.series()), "no curve shows the shares")

    class Calls(Shares):
        def drive(self, driver, **kwargs):
            self.asked += 1
            for args in kwargs.get("arg_lists", []):
                args[0]()
            return [["ok", None, {}]]

    monkeypatch.setitem(core.CHECKS, "plot_fake", check)
    calls = Calls()
    outcome = grading.evaluate("plot_fake", Cell([line(1 - SHARES, "disagreement")]), calls)
    assert outcome.review and "'disagreement' reads as one minus" in outcome.message, outcome.message
    assert calls.asked == 2   # the first reading, and the reading of the complement
