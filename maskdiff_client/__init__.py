"""maskdiff_client: what a hidden test cell runs inside the student's kernel.

    from maskdiff_client import drawn_cell, run_check
    run_check("ForwardMask.rates", ForwardMask)
    run_check("plot_masked_fraction", drawn_cell("plot_masked_fraction"), ForwardMask, MakeSchedule)

When the course's grader runs the notebook (`python -m maskdiff_solutions grade`), the variable
MASKDIFF_CHECKER names the Unix socket of a trusted checker process outside the student's sandbox.
`run_check` hands it the student's functions and serves its requests (call this function on these
inputs, many times) until it answers with a verdict, which it prints or raises. The checker decides
and records the verdict where the kernel cannot write; this module holds no reference solution and
no decision, so there is nothing here worth patching.

Without that variable (plain `nbgrader autograde`, `nbgrader validate`, the course's own tests) the
check runs in this process with the hidden package, which then trusts the student's code. This package
never names the hidden one: an installed hidden package hands over its `run` through the entry point
group IN_PROCESS (maskdiff_solutions' pyproject.toml), so the two never import each other.
"""
import functools
import os
import threading

from . import drawn, drivers, fakes, wire
from .drawn import drawn_cell, last_cell
from .seeding import kept_generators, seed_all

CHECKER_VARIABLE = "MASKDIFF_CHECKER"
IN_PROCESS = "maskdiff_client.in_process"   # the entry point group of an in-process grader's run
REVIEW_NOTE = ("the autograder could not read this drawing with certainty, so a person will look at it "
               "and award its points (nothing is lost for now)")
PROTOCOL = 1
__all__ = ["run_check", "drawn_cell", "last_cell", "GradingFailure", "CHECKER_VARIABLE"]

# Hidden tests of a plot or printout judge the cell before them: keep what cells draw and print from
# now on (the first hidden test cell of a notebook imports this package before any graded plot).
drawn.install()


class GradingFailure(AssertionError):
    """What a hidden test cell raises: the checker's sentence, never the checking code."""


class _Stale(Exception):
    """The connection was found closed before the checker had seen the request."""


def run_check(name, *functions):
    """Entry point for hidden test cells: silent but for one line on success, a plain sentence on
    failure."""
    __tracebackhide__ = True  # noqa: F841 - IPython leaves this frame out of tracebacks
    path = os.environ.get(CHECKER_VARIABLE)
    if not path:
        return _in_process()(name, *functions)
    try:
        passed, review, message = _session(path).check(name, functions)
    except _Stale:  # the connection had closed before the check began (a restarted checker): once more
        try:
            passed, review, message = _session(path).check(name, functions)
        except _Stale:
            raise GradingFailure(f"[{name}] the grader's checker hung up before the check began") from None
    show_verdict(name, passed, review, message)


@functools.lru_cache(maxsize=1)
def _in_process():
    """The installed grader's run(name, *functions), which checks in this process (it trusts the code)."""
    from importlib.metadata import entry_points
    found = sorted(entry_points(group=IN_PROCESS), key=lambda point: point.name)
    if not found:
        raise GradingFailure("this hidden test needs the course's grader: run it with `python -m "
                             "maskdiff_solutions grade`, or with the instructors' package installed "
                             "(bash .ci/setup) for plain nbgrader") from None
    return found[0].load()


def show_verdict(name, passed, review, message):
    """A pass in one line; a review ("unsure is not wrong") as a plain note, no error: the checker keeps
    the verdict and the cell's points wait for a person; a failure raised as one sentence."""
    __tracebackhide__ = True  # noqa: F841
    if review and not passed:
        print(f"[{name}] {REVIEW_NOTE}\n  what it saw: {message}")
        return
    if not passed:
        raise GradingFailure(f"[{name}] {message}")
    print(f"[{name}] passed")


_lock = threading.Lock()
_current = None


def _session(path):
    global _current
    with _lock:
        if _current is None or _current.path != path or _current.broken:
            _current = _Session(path)
        return _current


class _Session:
    """This kernel's connection to the checker."""

    def __init__(self, path):
        self.path, self.broken = path, False
        try:
            sock = wire.connect(path)
        except OSError as err:
            raise GradingFailure(f"the grader's checker cannot be reached at {path}: {err}") from None
        self.channel = wire.Channel(sock, "kernel", build=fakes.build)
        self.channel.serve_ops["drive"] = self._drive
        self.lock = threading.Lock()

    def _drive(self, message):
        driver = drivers.DRIVERS.get(message.get("driver"))
        if driver is None:
            raise wire.ProtocolError(f"no driver {message.get('driver')!r:.50}")
        function = self.channel.decode(message.get("function"))
        return driver(function, **self.channel.decode(message.get("kwargs")))

    def check(self, name, functions):
        with self.lock:
            channel, begun = self.channel, []
            try:
                channel.forget()
                channel.send({"op": "check", "protocol": PROTOCOL, "name": str(name),
                              "functions": [channel.encode(f) for f in functions]})
                with kept_generators():
                    while True:
                        message = channel.recv()
                        if message["op"] == "verdict":
                            return (bool(message.get("passed")), bool(message.get("review")),
                                    str(message.get("message", "")))
                        if message["op"] == "begin" and not begun:
                            begun.append(True)
                            seed_all(int(message.get("seed", 0)))
                            continue
                        channel.serve(message)
            except BaseException as err:
                self.broken = True
                channel.sock.close()
                if not begun and isinstance(err, (wire.PeerClosed, ConnectionError)):
                    raise _Stale() from None
                if isinstance(err, (wire.ProtocolError, OSError)):
                    raise GradingFailure(f"the connection to the grader's checker broke: {err}") from None
                raise
            finally:
                channel.forget()
