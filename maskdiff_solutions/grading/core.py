"""The machinery shared by every hidden check: a registry, seeding, and failures in plain words.

A check is a function that takes the student's functions and raises `Failure` with a sentence a
student can act on. Hidden test cells call `run(name, *functions)`; the test suite calls
`evaluate`, which returns the outcome instead of raising.
"""
import os
import random
import zlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

# Each check (one hidden test cell) fails a correct implementation with probability at most ALPHA;
# checks with several statistical tests split it between them (stats.split).
ALPHA = 1e-6
DEFAULT_SEED = 20261130
SEED_VARIABLE = "MASKDIFF_GRADING_SEED"

CHECKS = {}


class Failure(Exception):
    """A property of the student's code that does not hold, said in plain words."""


class GradingFailure(AssertionError):
    """What a hidden test cell raises: only the message, never the checking code."""


@dataclass
class Outcome:
    name: str
    passed: bool
    message: str = ""


def check(name):
    """Register a check under the name hidden test cells use."""
    def register(function):
        if name in CHECKS:
            raise ValueError(f"two checks are named {name!r}")
        CHECKS[name] = function
        return function
    return register


def expect(condition, message):
    if not condition:
        raise Failure(message)


def grading_seed(name):
    """The base seed (MASKDIFF_GRADING_SEED, else a fixed default) mixed with the check's name."""
    raw = os.environ.get(SEED_VARIABLE, "").strip()
    try:
        base = int(raw) if raw else DEFAULT_SEED
    except ValueError:
        raise ValueError(f"{SEED_VARIABLE} must be an integer, got {raw!r}") from None
    return (base * 1_000_003 + zlib.crc32(name.encode())) % 2 ** 63


@contextmanager
def seeded(name):
    """Seed torch, numpy and random for one check and give the notebook its generators (and torch's
    thread count) back after."""
    seed = grading_seed(name)
    py_state, np_state = random.getstate(), np.random.get_state()
    threads = torch.get_num_threads()
    # Checks make thousands of calls on tiny tensors, where torch's thread pool costs far more than it
    # saves (softmax of a 5x8 table: 12 us on one thread, 220 us on two busy cores).
    torch.set_num_threads(1)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed % 2 ** 32)
        try:
            yield seed
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)
            torch.set_num_threads(threads)


def call(function, *args, what):
    """Call student code; whatever it raises becomes a Failure that names the call."""
    try:
        return function(*args)
    except Failure:
        raise
    except Exception as err:  # noqa: BLE001 - any student error is a finding, not a crash
        raise Failure(f"{what} raised {type(err).__name__}: {err}") from None


def evaluate(name, *functions):
    if name not in CHECKS:
        raise KeyError(f"no hidden check is named {name!r}; known: {sorted(CHECKS)}")
    with seeded(name):
        try:
            CHECKS[name](*functions)
        except Failure as failure:
            return Outcome(name, False, str(failure))
    return Outcome(name, True)


def run(name, *functions):
    """Entry point for hidden test cells: silent on success, one plain sentence on failure."""
    __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
    outcome = evaluate(name, *functions)
    if not outcome.passed:
        raise GradingFailure(f"[{name}] {outcome.message}")
    print(f"[{name}] passed")


def vector(value, what, length=None, dtype=torch.float64):
    """Student output -> 1-D tensor, accepting tensors, numpy arrays and lists alike."""
    try:
        out = torch.as_tensor(np.asarray(value.detach().cpu() if torch.is_tensor(value) else value),
                              dtype=dtype)
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"{what} should be a 1-D tensor, got {type(value).__name__}") from None
    expect(out.dim() == 1, f"{what} should be 1-D, got shape {tuple(out.shape)}")
    if length is not None:
        expect(out.numel() == length, f"{what} should have {length} entries, got {out.numel()}")
    return out


@contextmanager
def references_in(function, **references):
    """Run a student function with some of the helpers it calls by global name (its notebook's
    earlier functions) replaced by ours, so a bug in those helpers is not charged twice."""
    namespace = getattr(function, "__globals__", {})
    saved = {name: namespace[name] for name in references if name in namespace}
    namespace.update({name: ref for name, ref in references.items() if name in namespace})
    try:
        yield
    finally:
        namespace.update(saved)
