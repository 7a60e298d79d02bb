"""The machinery shared by every hidden check: a registry, seeding, failures in plain words, and
`Student`, the student's function as a check sees it.

A check is a function that takes the student's functions and raises `Failure` with a sentence a
student can act on. It calls them only through `Student`: one call (`student(*args)`, or
`call(student, ...)` which turns the student's errors into failures), or a driver of
maskdiff_client.drivers (`student.repeat`, `.calls`, `.chains`, `.drive`) that makes many calls at
once. The same check then runs in-process (`LocalStudent`: plain nbgrader, the test suite) and
against a student's kernel from the trusted checker (`checker.RemoteStudent`), where every call
crosses a socket and only the results come back.

Hidden test cells call `maskdiff_client.run_check`, which lands in `run` here when grading in-process;
the test suite calls `evaluate`, which returns the outcome instead of raising.
"""
import os
import zlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from maskdiff_client import GradingFailure, drivers, show_verdict  # noqa: F401 (GradingFailure: what run raises)
from maskdiff_client.seeding import SEED_VARIABLE, kept_generators, seed_all
from maskdiff_client.wire import Opaque


# Each check (one hidden test cell) fails a correct implementation with probability at most ALPHA;
# checks with several statistical tests split it between them (stats.split).
ALPHA = 1e-6
DEFAULT_SEED = 20261130

CHECKS = {}


class Failure(drivers.Propagate):
    """A property of the student's code that does not hold, said in plain words. Raised from one of
    our stand-ins inside student code, it passes through the drivers to the check."""


class Review(Failure):
    """The reader cannot tell: a figure or printout holds something it does not understand, or a
    required element may be hiding in what it could not read. Not a fail: the cell goes to a person
    (formgrader shows it with the reason), and the message says what the reader saw and could not
    place. Raise it only where a correct answer could look like this; evidence the reader understood
    (nothing drawn, data that contradicts the student's own functions) is a `Failure`."""


def raised(kind, message):
    """How a failure says what the student's function raised: "raised Kind: message", and with no
    message no dangling colon; a bare NotImplementedError is the stub, said as such."""
    message = str(message).strip()
    if message:
        return f"raised {kind}: {message}"
    if kind == "NotImplementedError":
        return "raised NotImplementedError: it is still the stub (replace `raise NotImplementedError()` with your code)"
    return f"raised {kind} (with no message)"


class StudentError(Exception):
    """The student's function raised (its type name, message and the names of its type's bases,
    wherever it ran)."""

    def __init__(self, type_name, message, kinds=()):
        super().__init__(f"{type_name}: {message}" if str(message).strip() else type_name)
        self.type_name, self.message, self.kinds = type_name, message, tuple(kinds) or (type_name,)


class Student:
    """A student's function as the checks call it. Subclasses say how a driver reaches it."""

    def __init__(self, name):
        self.__name__ = name

    def drive(self, driver, **kwargs):
        raise NotImplementedError

    def __call__(self, *args):
        """One call, as if in-process: tensors and arrays it changes in place change here too."""
        return settle(self.drive("call_many", arg_lists=[list(args)])[0], args)

    def calls(self, arg_lists):
        """Raw outcomes (see drivers.outcome) of one call per argument list."""
        return self.drive("call_many", arg_lists=[list(a) for a in arg_lists])

    def repeat(self, args, times):
        """Raw outcomes of `times` calls on fresh copies of the same arguments."""
        return self.drive("repeat", args=list(args), times=int(times))

    def chains(self, start, ts, guess, mask, runs=1, extra=()):
        """Reverse-step chains run by the student's stepper (see drivers.chains)."""
        return self.drive("chains", start=start, ts=list(ts), guess=guess, mask=mask, runs=int(runs),
                          extra=list(extra))

    def with_globals(self, names, *args, filled=()):
        """One call with some of the globals the function reads bound to ours (drivers.call_with_globals);
        `filled`: the indices of arguments (lists it fills) sent back as the call left them."""
        extra = {"filled": [int(i) for i in filled]} if filled else {}
        return self.drive("call_with_globals", names=dict(names), args=list(args), **extra)

    def notebook(self, names):
        """What the notebook's globals `names` hold, as this function sees them (drivers.notebook_values):
        {name: value} for the names it has, each callable (a given function, a network) as a Student of
        its own, to call through drivers or hand on to student code with `handle`; None when this is no
        function of the notebook. Values are the kernel's: validate them as any student output."""
        values = self.drive("notebook_values", names=list(names))
        if not isinstance(values, dict):
            return None
        return {name: self.student_of(values[name], name) for name in names if name in values}

    def student_of(self, value, name):
        """A callable that came back from this function's kernel, as a Student (a plain value as it is)."""
        raise NotImplementedError


class LocalStudent(Student):
    """A function in this process (plain nbgrader, the test suite): drivers run right here."""

    def __init__(self, function):
        super().__init__(getattr(function, "__name__", type(function).__name__))
        self.function = function

    def drive(self, driver, **kwargs):
        return drivers.DRIVERS[driver](self.function, **kwargs)

    def student_of(self, value, name):
        if not callable(value):
            return value
        student = LocalStudent(value)
        student.__name__ = name
        return student


def as_student(function):
    return function if isinstance(function, Student) else LocalStudent(function)


def handle(student):
    """What to hand to another student function so that it calls this one in the student's kernel."""
    return getattr(student, "ref", None) or getattr(student, "function", None)


def settle(result, args=()):
    """A driver's raw outcome -> the value, raising StudentError for what the function raised;
    in-place changes to tensor or array arguments are copied onto the caller's objects."""
    if result[0] == "raised":
        raise StudentError(*result[1:4])
    for index, after in result[2].items():
        before = args[index] if isinstance(index, int) and 0 <= index < len(args) else None
        if torch.is_tensor(before) and torch.is_tensor(after):
            with torch.no_grad():
                before.resize_(after.shape).copy_(after.to(before.dtype))
        elif isinstance(before, np.ndarray) and isinstance(after, np.ndarray) and before.shape == after.shape:
            before[...] = after
    return result[1]


def value_of(result, what, name=None):
    """A raw outcome's value; what the function raised becomes a Failure that names the call."""
    if result[0] == "raised":
        if result[1] == "NotAFunction":
            name = name or what.split("(")[0]
            raise Failure(f"{name} should be a function defined with `def {name}(...)`, not {result[2]}")
        raise Failure(f"{what} {raised(result[1], result[2])}")
    return result[1]


# What each check refuses, held to its task text: {check name: {why: the task's words that state it}}
# (`stated`). tests/grading/test_stated.py finds each check's words in the markdown above its function's
# cell in source/, and every `why` the check hands `refused` in this table: a hidden case asks only what
# the task states. Words of another function's task, (function, words), count where the task names it
# ("as in `SampleBlocksCached`").
STATED = {}
_asked = []   # while a test records them (`asked`): the whys handed to `refused`


def stated(check_name, table):
    """Register the task's words for each refusal (`why`) of a check."""
    STATED.setdefault(check_name, {}).update(table)


@contextmanager
def asked():
    """The whys `refused` is handed inside the block (a list, filled as they come)."""
    whys = []
    _asked.append(whys)
    try:
        yield whys
    finally:
        _asked.remove(whys)


def refused(result, why, what):
    """A raw outcome that should be a ValueError (or a subclass): a Failure that says what came instead."""
    for whys in _asked:
        whys.append(why)
    if result[0] == "ok":
        raise Failure(f"{what} should raise a ValueError ({why}); it returned normally")
    if "ValueError" not in result[3]:
        raise Failure(f"{what} should raise a ValueError ({why}); it {raised(result[1], result[2])}")


def changed(result):
    """Which arguments (by position) a raw outcome says the call changed in place."""
    return set(result[2]) if result[0] == "ok" else set()


@dataclass
class Outcome:
    name: str
    passed: bool
    message: str = ""
    seconds: float = 0.0
    review: bool = False   # neither pass nor fail: a person decides (core.Review)


# Figure checks whose figure holds no share (a loss, call numbers, entropies): no complement is read for
# them (complement.py), since 1 - y of such a curve means nothing. Every other figure check reads one.
NO_SHARES = set()


def check(name, shares=True):
    """Register a check under the name hidden test cells use; shares=False for a figure check whose figure
    holds no share a complement could be drawn of."""
    def register(function):
        if name in CHECKS:
            raise ValueError(f"two checks are named {name!r}")
        CHECKS[name] = function
        if not shares:
            NO_SHARES.add(name)
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
    with kept_generators():
        yield seed_all(grading_seed(name))


def call(function, *args, what):
    """Call student code; whatever it raises becomes a Failure that names the call."""
    try:
        return function(*args)
    except Failure:
        raise
    except StudentError as err:
        raise Failure(f"{what} {raised(err.type_name, err.message)}") from None
    except Exception as err:  # noqa: BLE001 - any student error is a finding, not a crash
        raise Failure(f"{what} {raised(type(err).__name__, err)}") from None


# Second readings of a failed check, registered by the modules that make them (complement.py, for every
# figure check): each is (keep, reread), keep(name, students) -> (the students to run the check with,
# what it keeps of the run), reread(name, kept, failure) -> a Review to give instead, or None.
REREADS = []


def evaluate(name, *functions):
    """Run one check on the student's functions (plain functions, or `Student`s)."""
    if name not in CHECKS:
        raise KeyError(f"no hidden check is named {name!r}; known: {sorted(CHECKS)}")
    students, kept = [as_student(f) for f in functions], []
    for keep, reread in REREADS:
        students, state = keep(name, students)
        kept.append((reread, state))
    with seeded(name):
        try:
            CHECKS[name](*students)
        except Review as unsure:
            return Outcome(name, False, str(unsure), review=True)
        except Failure as failure:
            failed = failure
        else:
            return Outcome(name, True)
    for reread, state in kept:
        review = reread(name, state, str(failed))
        if review is not None:
            return Outcome(name, False, str(review), review=True)
    return Outcome(name, False, str(failed))


def run(name, *functions):
    """Entry point for hidden test cells: silent on success, one plain sentence on failure."""
    __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
    outcome = evaluate(name, *functions)
    show_verdict(name, outcome.passed, outcome.review, outcome.message)


def type_name(value):
    return value.type_name if isinstance(value, Opaque) else type(value).__name__


def vector(value, what, length=None, dtype=torch.float64):
    """Student output -> 1-D tensor, accepting tensors, numpy arrays and lists alike."""
    try:
        if isinstance(value, Opaque):
            raise TypeError
        out = torch.as_tensor(np.asarray(value.detach().cpu() if torch.is_tensor(value) else value),
                              dtype=dtype)
    except (TypeError, ValueError, RuntimeError):
        raise Failure(f"{what} should be a 1-D tensor, got {type_name(value)}") from None
    expect(out.dim() == 1, f"{what} should be 1-D, got shape {tuple(out.shape)}")
    if length is not None:
        expect(out.numel() == length, f"{what} should have {length} entries, got {out.numel()}")
    return out


def plain_tensor(value):
    """A dense CPU tensor of torch's own class (all the wire hands the checker): safe to read as it is, without
    the copy through numpy that subclasses, sparse and device tensors need."""
    return type(value) is torch.Tensor and value.layout == torch.strided and value.device.type == "cpu"


def not_integers(value):
    """What value holds when it is not integers (a float tensor, an array of bools, a list with a
    float), or None: tensors and arrays of any integer dtype and lists of ints all count as integers.
    Other kinds are left to `vector` to judge."""
    if torch.is_tensor(value):
        bad = value.is_floating_point() or value.is_complex() or value.dtype == torch.bool
        return f"a {str(value.dtype).replace('torch.', '')} tensor" if bad else None
    if isinstance(value, np.ndarray):
        return None if value.dtype.kind in "iu" else f"a numpy array of {value.dtype}"
    if isinstance(value, (list, tuple)):
        for item in value:
            if torch.is_tensor(item) or isinstance(item, np.ndarray):
                inner = not_integers(item)
            else:
                inner = None if isinstance(item, (int, np.integer)) and not isinstance(item, bool) else \
                    f"a {type(item).__name__}"
            if inner is not None:
                return f"a {type(value).__name__} holding {inner}"
    return None


def token_ids(value, what, length=None):
    """Student output that holds token ids -> 1-D long tensor. The ids must be integers (any integer
    dtype): a float tensor of the right values breaks indexing, Decode and embeddings."""
    if plain_tensor(value) and value.dim() == 1 and (length is None or value.numel() == length) \
            and not_integers(value) is None:
        # what `vector` makes of a plain 1-D integer tensor, without its trip through numpy: checks read
        # tens of thousands of sentences a notebook (notebook 01's laws, 15,500)
        return value.detach().to(torch.long)
    held = not_integers(value)
    expect(held is None, f"{what} should hold token ids as integers (torch.long or another integer "
                         f"dtype), got {held}: indexing, Decode and embeddings need integer ids")
    return vector(value, what, length=length, dtype=torch.long)
