"""The machinery every hidden check shares: seeds, failures in words, RNG hygiene, conversions."""
import random

import numpy as np
import pytest
import torch

from maskdiff_solutions import grading
from maskdiff_solutions.grading import core


def test_seed_defaults_and_can_be_overridden(monkeypatch):
    monkeypatch.delenv(core.SEED_VARIABLE, raising=False)
    default = core.grading_seed("MakeSchedule")
    assert default == core.grading_seed("MakeSchedule")
    assert default != core.grading_seed("ForwardMask.rates")  # each check its own stream
    monkeypatch.setenv(core.SEED_VARIABLE, "7")
    assert core.grading_seed("MakeSchedule") != default


def test_bad_seed_is_named(monkeypatch):
    monkeypatch.setenv(core.SEED_VARIABLE, "seven")
    with pytest.raises(ValueError, match="MASKDIFF_GRADING_SEED must be an integer, got 'seven'"):
        core.grading_seed("MakeSchedule")


def test_checks_leave_the_notebooks_generators_alone():
    torch.manual_seed(123), random.seed(5), np.random.seed(9)
    expected = torch.rand(3), random.random(), np.random.rand()
    torch.manual_seed(123), random.seed(5), np.random.seed(9)
    grading.evaluate("ForwardMaskFast.basics", grading_reference("ForwardMaskFast"))
    assert torch.equal(torch.rand(3), expected[0])
    assert random.random() == expected[1] and np.random.rand() == expected[2]


def grading_reference(name):
    import maskdiff_solutions
    return getattr(maskdiff_solutions, name)


def test_student_exceptions_become_plain_failures():
    def MakeSchedule(T):
        raise NotImplementedError()
    outcome = grading.evaluate("MakeSchedule", MakeSchedule)
    assert not outcome.passed and outcome.message == ("MakeSchedule(1) raised NotImplementedError: it is still "
                                                      "the stub (replace `raise NotImplementedError()` with your code)")

    def MakeSchedule(T):
        raise ValueError
    assert grading.evaluate("MakeSchedule", MakeSchedule).message == "MakeSchedule(1) raised ValueError (with no message)"

    def MakeSchedule(T):
        raise ValueError("T must be positive")
    assert grading.evaluate("MakeSchedule", MakeSchedule).message == "MakeSchedule(1) raised ValueError: T must be positive"


def test_with_globals_reaches_a_decorated_function_and_sends_back_what_it_filled():
    """A function under @torch.no_grad() reads the globals of the one it wraps: those are bound (notebook
    07's samplers), and put back after; `filled` arguments come back as the call left them."""
    namespace = {"torch": torch}
    exec("@torch.no_grad()\ndef fill(out):\n    out.append(helper())\n    return helper()\n", namespace)
    student = core.as_student(namespace["fill"])
    assert student.with_globals({"helper": lambda: 7}, [1], filled=[0]) == ["ok", 7, "", {0: [1, 7]}]
    assert student.with_globals({"helper": lambda: 8}, []) == ["ok", 8, ""]
    assert "helper" not in namespace


def test_a_call_that_raised_sends_back_what_it_had_done_to_its_arguments():
    """What a refused call did first (caching_samplers.refuses_before_work): `filled` arguments come back
    after the printout, as the call left them before it raised."""
    namespace = {}
    exec("def late(out, n):\n    out.append(n)\n    raise ValueError('n is wrong')\n", namespace)
    result = core.as_student(namespace["late"]).with_globals({}, [], 3, filled=[0])
    assert result[:3] == ["raised", "ValueError", "n is wrong"] and result[4:] == ["", {0: [3]}]
    assert core.as_student(namespace["late"]).with_globals({}, [], 3)[4:] == [""]


def test_run_raises_only_the_message():
    with pytest.raises(core.GradingFailure, match=r"^\[MakeSchedule\] MakeSchedule\(1\) should return"):
        grading.run("MakeSchedule", lambda T: None)


def test_unknown_check_is_named():
    with pytest.raises(KeyError, match="no hidden check is named 'Nope'"):
        grading.evaluate("Nope", print)


@pytest.mark.parametrize("value", [torch.tensor([1.0, 2.0]), np.array([1.0, 2.0]), [1.0, 2.0],
                                   [torch.tensor(1.0), torch.tensor(2.0)]])
def test_vector_accepts_array_likes(value):
    assert core.vector(value, "beta", length=2).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("value,message", [("abc", "should be a 1-D tensor"),
                                           (torch.zeros(2, 2), "should be 1-D, got shape"),
                                           (torch.zeros(3), "should have 2 entries, got 3")])
def test_vector_names_the_problem(value, message):
    with pytest.raises(core.Failure, match=message):
        core.vector(value, "beta", length=2)
