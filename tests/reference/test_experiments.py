"""Notebook 06's given experiments (maskdiff_solutions/experiments.py) and every number its text states,
held to the code: budgets, the 32 % clash, blocks and calls, the remasking rates computed exactly over
every canvas, and the counts repeats() makes."""
import itertools
import math
import re
from pathlib import Path

import pytest
import torch

from maskdiff_solutions import experiments as world
from maskdiff_solutions import toy
from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.grading.revising_plots import exact_rate
from maskdiff_solutions.revising import CommitAbove, RemaskSigma, RemaskStep, SampleBlocks, TransferCounts

pytestmark = pytest.mark.nb06

NOTEBOOK = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "06_revising_and_faster.ipynb"


def text():
    cells = nbtools.read(NOTEBOOK).cells
    return " ".join(" ".join(c.source.split()) for c in cells if c.cell_type == "markdown")


def cell(grade_id):
    return next(c.source for c in nbtools.read(NOTEBOOK).cells if nbtools.grade_id(c) == grade_id)


def test_the_given_guesser_is_notebook_02s_on_every_canvas():
    words = [sorted({int(world.Encode(s)[i]) for s in world.SENTENCES} | {world.MASK, 5}) for i in range(4)]
    for canvas in itertools.product(*words):
        x = torch.tensor(canvas)
        assert torch.allclose(world.GuessX0_two(x), toy.GuessX0_two(x)), world.Decode(x)


def test_the_given_guesser_keeps_each_canvas_once_and_hands_out_copies():
    """GuessX0_two keeps each canvas's guess (the experiments' steps ask for few canvases, again and
    again): a guess changed by its caller changes no later one, and a canvas of other tokens or shape
    (a student's function may hand the checker's guesser anything) is answered and not kept."""
    canvas = world.Encode("the cat is alive")
    canvas[2] = world.MASK
    first = world.GuessX0_two(canvas)
    first[0, 0] = 99.0
    assert torch.equal(world.GuessX0_two(canvas), toy.GuessX0_two(canvas))   # a kept copy of the same function's answer
    kept = len(world.GUESSES)
    for odd in (torch.tensor([100, 1, 3, 4]), torch.tensor([0.5, 1.0, 3.0, 4.0]), torch.zeros(2, 4, dtype=torch.long)):
        try:
            world.GuessX0_two(odd)
        except RuntimeError:   # a shape the world's words cannot be compared with
            pass
    assert len(world.GUESSES) == kept


def test_impossible_is_every_sentence_but_the_two():
    assert not world.Impossible(world.Encode("the cat is alive"))
    assert not world.Impossible(world.Encode("the box is empty"))
    assert world.Impossible(world.Encode("the cat is empty")) and world.Impossible(world.Encode("the box is alive"))


def test_parallel_two_at_the_extremes():
    """tau >= 1: one commit per call, so 4 calls and never a clash; tau below every confidence: one call."""
    torch.manual_seed(0)
    for _ in range(50):
        x, calls = world.ParallelTwo(CommitAbove, 1.0)
        assert calls == 4 and not world.Impossible(x)
        x, calls = world.ParallelTwo(CommitAbove, 0.05)
        assert calls == 1


def test_parallel_two_stops_a_commit_that_commits_nothing():
    with pytest.raises(RuntimeError, match="committed nothing"):
        world.ParallelTwo(lambda x, *rest: x, 0.5)


def test_commit_calls_counts_the_calls_that_saw_a_mask():
    M = 9
    canvases = [torch.tensor([[1, M, M, M]]), torch.tensor([[1, M, 4, M]]), torch.tensor([[1, 3, 4, M]])]
    assert world.CommitCalls(canvases, M).tolist() == [0, 2, 1, 3]


def test_the_recorder_keeps_copies_and_passes_calls_on():
    recorder = world.Recorder(lambda x: x * 2)
    x = torch.tensor([[1, 2]])
    assert torch.equal(recorder(x), x * 2)
    x[0, 0] = 7
    assert recorder.canvases[0].tolist() == [[1, 2]]


def test_budget_numbers_the_text_states():
    said = text()
    assert "Ten masks over four steps: `[3, 3, 2, 2]`" in said and TransferCounts(10, 4, "even") == [3, 3, 2, 2]
    assert "and the last step takes 3: `[2, 3, 2, 3]`" in said and TransferCounts(10, 4, "schedule") == [2, 3, 2, 3]
    steps = re.search(r"\$10/4 = 2\.5 \\to (\d)\$, then \$8/3 \\to (\d)\$, then \$5/2 = 2\.5 \\to (\d)\$", said)
    assert steps and [int(k) for k in steps.groups()] == TransferCounts(10, 4, "schedule")[:3]
    assert round(2.5) == 2 and round(3.5) == 4 and "`round(2.5) == 2`, `round(3.5) == 4`" in said


def test_the_clash_and_the_blocks_the_text_states():
    said = text()
    p = world.SENTENCES["the cat is alive"]
    assert "disagree 32 % of the time" in said and round(100 * 2 * p * (1 - p)) == 32
    assert "draws `cat` (confidence 0.8) or `box` (0.2)" in said and (p, 1 - p) == (0.8, pytest.approx(0.2))
    assert "in 3 blocks of 8 with 12 denoiser calls (4 per block)" in said
    calls = []
    SampleBlocks(lambda x: calls.append(1) or torch.zeros(*x.shape, 8), torch.tensor([5, 6]), 24, 8, 12, 1, 0)
    assert len(calls) == 12


def test_sigma_zero_is_undiffuse():
    """The text: sigma = 0 reveals a mask with probability (t - s) / t = 1/k, notebook 2's Undiffuse."""
    for T in (1, 4, 9):
        for k in range(1, T + 1):
            t, s = k / T, (k - 1) / T
            alpha_t, alpha_s = 1 - t, 1 - s
            assert (alpha_s - alpha_t) / (1 - alpha_t) == pytest.approx(1 / k)
    always_the = lambda x: torch.nn.functional.one_hot(torch.zeros(len(x), dtype=torch.long), 14).float()
    out = RemaskStep(torch.full((5,), world.MASK), 1.0, 0.0, always_the, world.MASK, 0.0)
    assert out.tolist() == [0] * 5, "from t = 1 to s = 0 with sigma 0 every mask is revealed"


def rates(T):
    """Exact impossible rates without remasking and with sigma = sigma_max, as the task draws them."""
    out = []
    for eta, schedule in ((0.0, "cap"), (1.0, "rescale")):
        sigmas = {k: RemaskSigma(k / T, (k - 1) / T, eta, schedule) for k in range(T, 0, -1)}
        out.append(exact_rate(T, sigmas))
    return out


def test_the_remasking_rates_the_text_states():
    said = text()
    assert ("equals the one without at $T = 1$ and $T = 2$, and is higher from $T = 4$ on (at $T = 32$ about "
            "three times $0.32/T$)") in said
    for T in (1, 2, 4, 8, 16, 32):
        without, remasking = rates(T)
        assert without == pytest.approx(0.32 / T), "without remasking the rate is exactly 0.32 / T"
        if T <= 2:
            assert remasking == pytest.approx(without)
        else:
            assert remasking > without * 1.1
    assert round(rates(32)[1] / (0.32 / 32)) == 3


def test_the_counts_the_tasks_promise():
    """repeats(1000), repeats(2500) and repeats(5000) are what the tasks say, in full and in quick mode."""
    namespace = {}
    setup = cell("setup")
    exec(setup[setup.index("def repeats"):setup.index("def training_steps")], namespace)
    said = text()
    for n, quick in ((1000, 200), (2500, 500), (5000, 1000)):
        assert f"`repeats({n})`" in said and f"({n}, or {quick} under the autograder" in said
        namespace["QUICK"] = True
        assert namespace["repeats"](n) == quick
        namespace["QUICK"] = False
        assert namespace["repeats"](n) == n
    assert "repeats(1000)" in cell("plot_threshold_trade") and "repeats(5000)" in cell("plot_remasking")
    assert "repeats(2500)" in cell("plot_loop")


def test_the_rounding_warning_is_real():
    """The text warns that alpha values computed in floating point can land a hair off a half: on the
    linear schedule some do, and rounding them disagrees with remaining / steps_left."""
    def from_alphas(remaining, steps, left):
        alpha_t, alpha_s = 1 - left / steps, 1 - (left - 1) / steps
        return round(remaining * (1 - (1 - alpha_s) / (1 - alpha_t)))

    off = [(remaining, steps, left) for steps in range(2, 40) for left in range(2, steps + 1)
           for remaining in range(1, 40) if math.isclose((remaining / left) % 1, 0.5)
           and from_alphas(remaining, steps, left) != round(remaining / left)]
    assert off, "no float product lands off a half: the warning would be empty"


def test_the_loop_numbers_the_text_states():
    """LoopTwo at T = 4: 0.32/T = 0.08 without the loop, sigma_max = 1/3 at t = 1/4; the answer's
    settling points (0.04 for eta = 0.2 within about 8 steps, 0.027 at n = 32 and a floor of about 0.025 for
    eta = 0.05) and the plain sampler's 0.32/36, three times fewer."""
    said = text() + " ".join(cell("loop_fixes").split())
    assert world.LOOP_T == 4 and "$0.32/T = 0.08$ at $T = 4$" in said and "$\\sigma_{\\max} = 1/3$" in said
    assert RemaskSigma(1 / 4, 1 / 4, 1.0, "cap") == pytest.approx(1 / 3)
    for eta in (0.2, 0.05):
        assert world.LoopExact(0, eta) == pytest.approx(0.08)
    assert world.LoopExact(8, 0.2) == pytest.approx(0.04, abs=0.0015) and world.LoopExact(200, 0.2) == pytest.approx(0.04)
    assert round(world.LoopExact(32, 0.05), 3) == 0.027 and round(world.LoopExact(10**4, 0.05), 3) == 0.025
    assert world.LoopExact(100, 0.05) == pytest.approx(0.025, abs=0.0006)
    assert "$0.32/36 \\approx 0.009$, three times fewer" in said
    assert round(0.32 / 36, 3) == 0.009 and round(world.LoopExact(32, 0.05) / (0.32 / 36)) == 3


def test_loop_exact_is_the_law_of_loop_two():
    """The exact 9-state chain agrees with the 36-canvas chain of the checker, and with runs."""
    from maskdiff_solutions.grading.loop_plots import exact_law
    for eta in (0.2, 0.05, 0.3):
        for n in (0, 1, 5, 17):
            assert world.LoopExact(n, eta) == pytest.approx(exact_law(min(eta, 1 / 3), n), abs=1e-12)
    from maskdiff_solutions.revising import RemaskLoop
    torch.manual_seed(3)
    runs = 4000
    k = sum(world.Impossible(world.LoopTwo(RemaskStep, RemaskSigma, RemaskLoop, 4, 0.2)) for _ in range(runs))
    p = world.LoopExact(4, 0.2)
    assert abs(k / runs - p) < 6 * (p * (1 - p) / runs) ** 0.5


def test_the_threshold_band_the_text_states():
    """No impossible sentence from tau = 0.2 up to 0.8 (1 to 3 calls), the 32 % clash below 0.2, and
    Theorem 1's (n + 1) epsilon <= 1 for n = 2 holding only from tau = 2/3 on."""
    from maskdiff_solutions.grading.core import LocalStudent
    from maskdiff_solutions.grading.revising_plots import threshold_laws
    said = text()
    assert "From $\\tau = 0.2$ up to $\\tau = 0.8$ no sentence is impossible and a sentence takes 1 to 3 calls" in said
    assert "hold only from $\\tau = 2/3$ on" in said
    laws = threshold_laws(LocalStudent(CommitAbove), taus=(0.19, 0.2, 0.5, 0.79, 0.8))
    assert sum(p for (bad, _), p in laws[0.19].items() if bad) == pytest.approx(0.32)
    for tau in (0.2, 0.5, 0.79):
        assert not any(bad for bad, _ in laws[tau]) and {calls for _, calls in laws[tau]} == {1, 2, 3}
    assert set(laws[0.8]) == {(False, 3)}
    for tau in (2 / 3, 0.7, 0.8):
        assert (2 + 1) * (1 - tau) <= 1 + 1e-12
    assert (2 + 1) * (1 - 0.6) > 1
