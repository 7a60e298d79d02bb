"""The trusted checker: hidden checks decided outside the student's process.

While the grader runs a student's notebooks, a `Checker` listens on a Unix socket that only the
student's kernel can reach. A hidden test cell (maskdiff_client.run_check) connects, names its check
and hands over the student's functions as handles. The checker runs the check here, with the
reference and the decision logic, calling the student's functions through the drivers of
maskdiff_client (each request crosses the socket; only plain data comes back), and keeps the verdict
in this process, out of the kernel's reach. Grading then scores every hidden test cell from these
verdicts alone.

The kernel may ask for each check of its plan once, in the order of the notebooks (`plan`: the
grader gives each notebook's kernel a checker of its own with that notebook's checks,
course/run/by_notebook.py); a check asked for twice, out of order, or not in the plan fails and is
noted as an incident, as is anything that breaks the protocol. Handles the checker gave out (our guessers, reference helpers)
stop working when their check ends, so nothing learned from one check can be replayed in an earlier
one.
"""
import os
import select
import socket
import threading
import time
from dataclasses import dataclass, field

from maskdiff_client import PROTOCOL, wire

from . import core

SECONDS_PER_REPLY = 120.0   # a kernel silent this long during a check has hung


class Aborted(core.Failure):
    """The check could not go on: the kernel hung up, stopped answering or broke the protocol."""


@dataclass
class Incident:
    check: str
    text: str
    notebook: str = ""   # the notebook whose kernel it happened with, where a checker serves one


@dataclass
class Record:
    """What the checker saw of one student: a verdict per check, and incidents."""
    verdicts: dict = field(default_factory=dict)     # check name -> core.Outcome
    incidents: list = field(default_factory=list)    # Incident


class CheckerChannel(wire.Channel):
    """The checker's end: remembers a failure that one of our stand-ins raised inside student code,
    so the check reports it rather than the error the student's code turned it into."""

    def __init__(self, sock):
        super().__init__(sock, "checker")
        self.failure = None
        self.dead = ""      # why this connection can no longer be used
        self.breach = ""    # a protocol violation to report

    def reply(self, message_id, work):
        def guarded():
            try:
                return work()
            except core.Failure as failure:
                self.failure = self.failure or failure
                raise
        super().reply(message_id, guarded)


class RemoteStudent(core.Student):
    """A student's function that lives in the kernel at the other end of `channel`."""

    def __init__(self, channel, ref, name):
        super().__init__(name)
        self.channel, self.ref = channel, ref

    def drive(self, driver, **kwargs):
        channel = self.channel
        if channel.dead:
            raise Aborted(channel.dead)
        channel.failure = None
        try:
            out = channel.request({"op": "drive", "driver": driver, "function": wire.encode(self.ref),
                                   "kwargs": channel.encode(kwargs)})
        except wire.PeerClosed:
            channel.dead = ("the notebook's kernel stopped answering during this check (it was "
                            "interrupted at the time limit, ran out of memory, or closed the connection)")
        except socket.timeout:
            channel.dead = f"the notebook's kernel did not answer for {SECONDS_PER_REPLY:.0f} s"
        except wire.ProtocolError as err:
            channel.dead = channel.breach = f"the kernel's answer broke the grading protocol: {err}"
        except wire.RemoteError as err:
            channel.dead = f"the kernel could not run the check's calls: {err}"
        except OSError as err:
            channel.dead = f"the connection to the kernel broke: {err}"
        if channel.dead:
            raise Aborted(channel.dead)
        if channel.failure is not None:
            raise channel.failure
        return out

    def student_of(self, value, name):
        if isinstance(value, wire.RemoteObject):   # a handle to an object of this kernel
            return RemoteStudent(self.channel, value._ref, name)
        return value


class NotAFunction(core.Student):
    """What a hidden test cell handed over instead of a function."""

    def __init__(self, name, value):
        super().__init__(name)
        self.value = value

    def drive(self, driver, **kwargs):
        raise core.Failure(f"{self.__name__} should be a function defined with `def {self.__name__}(...)`, "
                           f"not {core.type_name(self.value)}")


def argument_names(name):
    """The names of the functions a check takes (its registered function's parameters)."""
    code = core.CHECKS[name].__wrapped__.__code__ if hasattr(core.CHECKS[name], "__wrapped__") \
        else core.CHECKS[name].__code__
    return list(code.co_varnames[:code.co_argcount])


class Checker:
    """Serves one student's kernels, one connection at a time, on a Unix socket at `path`; `plan`
    holds the checks of the course (scope "course") or of the one notebook it serves ("notebook")."""

    def __init__(self, path, plan, scope="course"):
        self.path, self.plan, self.scope = str(path), list(plan), scope
        self.position = {name: i for i, name in enumerate(self.plan)}
        self.record = Record()
        self.last = -1
        self._stop = threading.Event()
        self._thread = None
        self._listener = None

    # lifecycle
    def start(self):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)
        os.chmod(self.path, 0o666)  # the sandbox's user must be able to connect
        listener.listen(4)
        self._listener = listener
        self._thread = threading.Thread(target=self._serve, name="maskdiff-checker", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=SECONDS_PER_REPLY + 10)
        if self._listener is not None:
            self._listener.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass
        return self.record

    @property
    def thread_id(self):
        """The native id of the thread that runs the checks (0 before it starts): the grader counts its
        CPU time as that of the cell waiting on it (course/run/preprocessors.py)."""
        return self._thread.native_id if self._thread is not None else 0

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # serving
    def _serve(self):
        connection = channel = None
        while not self._stop.is_set():
            watched = [self._listener] + ([connection] if connection else [])
            try:
                ready, _, _ = select.select(watched, [], [], 0.2)
            except (OSError, ValueError):
                break
            if self._listener in ready:
                new, _ = self._listener.accept()
                if connection is not None:  # a newer kernel (or another connection) replaces it
                    connection.close()
                connection, channel = new, CheckerChannel(new)
                connection.settimeout(SECONDS_PER_REPLY)
                continue
            if connection is not None and connection in ready:
                try:
                    self._handle(channel, channel.recv())
                except wire.PeerClosed:
                    connection.close()
                    connection = channel = None
                except (wire.ProtocolError, OSError) as err:
                    self._incident("", f"the kernel broke the grading protocol: {err}")
                    connection.close()
                    connection = channel = None
        if connection is not None:
            connection.close()

    def _incident(self, check, text):
        self.record.incidents.append(Incident(check, text))

    def _handle(self, channel, message):
        if message["op"] != "check":
            raise wire.ProtocolError(f"a {message['op']!r:.40} message outside a check")
        name = message.get("name")
        refusal = self._refusal(name, message)
        if refusal:
            self._incident(str(name)[:100], refusal)
            channel.send({"op": "verdict", "passed": False, "message": refusal})
            return
        outcome = self._run(channel, name, message.get("functions"))
        self.record.verdicts[name] = outcome
        self.last = self.position[name]
        channel.forget()
        if channel.breach:
            self._incident(name, channel.breach)
        if channel.dead:
            raise wire.PeerClosed(channel.dead)
        channel.send({"op": "verdict", "passed": outcome.passed, "review": outcome.review,
                      "message": outcome.message})

    def _refusal(self, name, message):
        if message.get("protocol") != PROTOCOL:
            return f"this kernel speaks protocol {message.get('protocol')!r:.20}, the checker {PROTOCOL}"
        if not isinstance(name, str) or name not in self.position or name not in core.CHECKS:
            return f"there is no hidden check {str(name)[:80]!r} in this {self.scope}"
        if name in self.record.verdicts:
            return f"the check {name!r} was already run once; only its first run counts"
        if self.position[name] < self.last:
            return (f"the check {name!r} was asked for after a later one "
                    f"({self.plan[self.last]!r}); checks run in the notebooks' order")
        return ""

    def _run(self, channel, name, functions):
        names = argument_names(name)
        if not isinstance(functions, list) or len(functions) != len(names):
            return core.Outcome(name, False, f"the hidden test should hand over {len(names)} function(s)")
        students = []
        try:
            for fname, encoded in zip(names, functions):
                value = channel.decode(encoded)
                if isinstance(value, wire.RemoteObject):
                    students.append(RemoteStudent(channel, value._ref, fname))
                else:
                    students.append(NotAFunction(fname, value))
            channel.send({"op": "begin", "seed": kernel_seed(name)})
            started = time.perf_counter()
            outcome = core.evaluate(name, *students)
        except wire.ProtocolError as err:
            channel.dead = channel.breach = f"the kernel broke the grading protocol: {err}"
            return core.Outcome(name, False, channel.breach)
        except Exception as err:  # noqa: BLE001 - a check must never take the checker down
            self._incident(name, f"the checker could not judge this check: {type(err).__name__}: {err}")
            return core.Outcome(name, False, "the checker could not judge this check (see your instructor)")
        outcome.seconds = time.perf_counter() - started
        return outcome


def kernel_seed(name):
    """The seed of the kernel's generators during a check: not the checker's, so the student's random
    numbers are independent of the ones the check draws to build its inputs."""
    return core.grading_seed(name + "/kernel") % 2 ** 63
