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
def swapped_globals(function, **values):
    """Run a student function with some names it reads as globals (its notebook's earlier functions,
    the notebook's tokenizer, ...) bound to ours; put the notebook's own back afterwards. This keeps a
    bug in an earlier helper from being charged twice, and lets a check feed fakes."""
    namespace = getattr(function, "__globals__", None)
    if namespace is None:
        name = getattr(function, "__name__", type(function).__name__)
        raise Failure(f"the graded {name} should be a function defined with `def {name}(...)`, "
                      f"not a {type(function).__name__}")
    missing = object()
    saved = {name: namespace.get(name, missing) for name in values}
    namespace.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value
