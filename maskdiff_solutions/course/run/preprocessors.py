"""Autograde preprocessors (nbgrader_config.py puts them in nbgrader's chain): a submission that
kills its kernel, ignores interrupts or floods its output is still graded, and says what happened in
its cells.

nbgrader's own Execute gives up on the whole student when the kernel dies (os._exit, a segfault,
memory) or ignores the interrupt at the time limit, and deletes their autograded folder; its
LimitOutput counts lines, so one 50 MB line passes.

A cell's time limit counts what the student's code computes, not the clock of a machine other work may
share (course/sandbox/time_limits.py): a cell is stopped once it has run its limit of clock time *and*
computed that long (the CPU time of its busiest thread, and of the checker's thread while a hidden test
waits on it), or once it has run `backstop` times its limit of clock time whatever it did (code that
sleeps or waits). On an idle machine a cell that computes is stopped at its limit, as nbgrader would; on
a busy one it gets the computing time it would have had there. A cell stopped at the backstop that
wanted its limit of CPU time and waited for it is the machine's doing, not the student's: it is
marked MachineBusy (a person looks, the canary does not count it against the setup). A whole notebook
has the same two clocks.

When `python -m maskdiff_solutions grade` runs it, `SurvivingExecute.sandbox` holds the sandbox
settings (course/sandbox/settings.py): each kernel then starts in a sandbox of its own and its hidden test
cells talk to the trusted checker. Plain `nbgrader autograde` leaves it empty: kernels run with the
grader's rights and hidden checks run in-process, trusting the student's code.
"""
import asyncio
import os
import time
from contextlib import contextmanager
from queue import Empty

from jupyter_core.utils import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.client import timestamp
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Dict, Enum, Float, Integer

from ..records import inert
from ..sandbox import time_limits
from ..sandbox.time_limits import STARVED, WAITED, Spent, spent, verdict
from ..sandbox.kernel import SandboxedKernelManager

KERNEL_DIED = "KernelDied"
NOT_RUN = "NotRun"
TIMED_OUT = "CellTimeoutError"  # nbgrader's name for a cell interrupted at the timeout
IGNORED_INTERRUPT = "IgnoredInterrupt"
MACHINE_BUSY = "MachineBusy"  # stopped at the backstop while it waited for a CPU: the machine's doing
TRUNCATED = inert.CUT


def _size(content):
    """Characters of text and data in one output message's content."""
    total = len(str(content.get("text", ""))) + len(str(content.get("evalue", "")))
    total += sum(len(line) for line in content.get("traceback", []) or [] if isinstance(line, str))
    for value in (content.get("data") or {}).values():
        total += len(value) if isinstance(value, str) else len(str(value))
    return total


CHART_TYPES = ("application/vnd.plotly", "application/vnd.vegalite", "application/vnd.vega")
CHART_PAGE = ("plotly", "vegaembed", "vega-embed")   # the scripts a chart's HTML form carries (lower case)


def chart_note(content):
    """A plotly or altair chart's output, as a short note: the figure is read in the kernel
    (maskdiff_client/charts.py), its HTML and script never reach formgrader (records/inert.py), and
    its megabytes must not count as a huge output. None for any other output."""
    data = content.get("data") if isinstance(content, dict) else None
    if not isinstance(data, dict):
        return None
    page = data.get("text/html").lower() if isinstance(data.get("text/html"), str) else ""
    if not any(kind.startswith(CHART_TYPES) for kind in data) and not (
            "<script" in page and any(word in page for word in CHART_PAGE)):
        return None
    library = "plotly" if any("plotly" in kind for kind in data) or "plotly" in page else "altair (Vega-Lite)"
    return {**content, "data": {"text/plain": f"[a {library} chart: the grader read it in the kernel; its page "
                                              f"form is not kept here]"}}


def error(ename, evalue):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class SurvivingExecute(Execute):
    """Execute, but a dead kernel fails the cell that killed it and every code cell after it (so
    their tests score 0, not the full marks an unexecuted cell would get) instead of the student.
    The same happens to the cells left when the notebook has run for notebook_timeout seconds: a
    kernel that ignores interrupts would otherwise cost the cell timeout once per remaining cell."""

    notebook_timeout = Integer(300, help="seconds a whole notebook may compute").tag(config=True)
    backstop = Float(4.0, help="a cell or notebook is stopped after this many times its limit of clock "
                               "time, whatever it computed (code that sleeps or waits)").tag(config=True)
    checker_thread = Integer(0, help="the native id of the grader's thread that runs this kernel's hidden "
                                     "checks: its CPU time counts as the cell's (0: none)").tag(config=True)
    sandbox = Dict(help="sandbox settings (course/sandbox/settings.py); empty: kernels run unsandboxed "
                        "and hidden checks in-process").tag(config=True)
    cell_output_bytes = Integer(4_000_000, help="output one cell may produce while it runs; the rest "
                                                "is dropped as it arrives").tag(config=True)
    # Every output has arrived by the time the kernel is stopped, and nothing a kernel does as it exits
    # is read: a graceful stop only waits (about 1.4 s a notebook) while it tears torch down.
    shutdown_kernel = Enum(["graceful", "immediate"], default_value="immediate").tag(config=True)

    def create_kernel_manager(self):
        if self.sandbox.get("mode") == "required":
            self.kernel_manager_class = SandboxedKernelManager
            km = super().create_kernel_manager()
            km.sandbox_settings = dict(self.sandbox)
            return km
        return super().create_kernel_manager()

    async def async_start_new_kernel(self, **kwargs):
        if self.sandbox.get("checker") and self.sandbox.get("mode") != "required":
            kwargs["env"] = {**os.environ, "MASKDIFF_CHECKER": self.sandbox["checker"]}
        await super().async_start_new_kernel(**kwargs)

    async def async_start_new_kernel_client(self):
        client = await super().async_start_new_kernel_client()
        sandbox = getattr(self.km, "sandbox", None)
        if sandbox is not None:
            sandbox.lock()
        return client

    # nbclient binds its synchronous entry points to its own coroutines: bind them to ours
    start_new_kernel = run_sync(async_start_new_kernel)
    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def output(self, outs, msg, display_id, cell_index):
        """Keep a cell's outputs while they fit its budget; drop the rest as it arrives (the grader's
        memory must not grow with what a student's cell prints)."""
        note = chart_note(msg.get("content"))
        if note is not None:
            msg = {**msg, "content": note}
        size = _size(msg.get("content", {}))
        self._cell_bytes = getattr(self, "_cell_bytes", 0) + size
        if self._cell_bytes > self.cell_output_bytes:
            if not getattr(self, "_cell_cut", False):
                self._cell_cut = True
                outs.append(new_output("stream", name="stderr", text=f"\n{TRUNCATED} more than "
                                       f"{self.cell_output_bytes:,} bytes of output; the rest was dropped\n"))
            return None
        return super().output(outs, msg, display_id, cell_index)

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = None
        self._started = None  # set at the first cell: starting the kernel does not count
        self._meter = self._last = self._stop = self._stop_spent = None
        self._used = Spent()   # what the cells run so far computed
        nb, resources = super().preprocess(nb, resources, km)
        # A cell may have deleted the folder it ran in; nbgrader writes the graded notebook there.
        folder = (resources or {}).get("metadata", {}).get("path")
        if folder:
            os.makedirs(folder, exist_ok=True)
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if self._started is None:
            self._started = time.monotonic()
        self._look_between_cells()
        if self._stopped is None:
            self._stopped = self._notebook_stop(time.monotonic() - self._started)
        if self._stopped is not None:
            cell.outputs = [error(NOT_RUN, self._stopped)]
            return cell, resources
        self._cell_bytes, self._cell_cut = 0, False
        try:
            with self.named(cell):
                cell, resources = super().preprocess_cell(cell, resources, index)
            return self.plain_timeout(cell), resources
        except DeadKernelError:
            self._stopped = f"not run: the kernel died in cell {index + 1}"
            cell.outputs.append(error(KERNEL_DIED, "the kernel died while running this cell "
                                                   "(os._exit, a crash, or out of memory)"))
            return cell, resources
        except CellTimeoutError:
            # interrupted at the time limit, the kernel went on (a loop that ignores SIGINT)
            self._stopped = f"not run: cell {index + 1} ignored the interrupt at the time limit"
            cell.outputs.append(error(IGNORED_INTERRUPT, "this cell ran past the time limit and ignored "
                                                         "the interrupt; the kernel was stopped"))
            try:
                run_sync(self.km.shutdown_kernel)(now=True)
            except Exception:  # noqa: BLE001 - it is being killed either way
                pass
            return cell, resources

    # --- the clocks: computing time, with a backstop of clock time ---------------------------------
    def _kernel_meter(self):
        """A reader of this kernel's processes (course/sandbox/time_limits.py), or None where they cannot
        be read (no local process: the limits are then nbgrader's clock time alone)."""
        if self._meter is None:
            provisioner = getattr(self.km, "provisioner", None)
            root = getattr(provisioner, "pid", None)
            if not isinstance(root, int) or not os.path.isdir(f"/proc/{root}"):
                return None
            sandbox = getattr(self.km, "sandbox", None)
            procs = sandbox.cgroup.procs if sandbox is not None else ()
            extra = [(os.getpid(), self.checker_thread)] if self.checker_thread else []
            self._meter = time_limits.KernelMeter(root, procs, extra)
        return self._meter

    def _look_between_cells(self):
        """A reading at each cell's start: the clock's zero for this cell, and the end of the last one,
        whose time joins the notebook's."""
        meter = self._kernel_meter()
        now = meter.read() if meter is not None else None
        if self._last is not None and now is not None:
            self._used = self._used + spent(self._last, now)
        self._last = now

    def _notebook_stop(self, wall):
        """None while the notebook may go on, else why the cells left are not run."""
        limit = self.notebook_timeout
        used = self._used if self._last is not None else Spent(wall, wall, wall)
        why = verdict(Spent(wall, used.busy, used.wanted), limit, self.backstop)
        if why == STARVED:
            return (f"not run: the grading machine was too busy to finish this notebook (it computed "
                    f"{used.busy:.0f} s of its {limit} s in {wall:.0f} s)")
        if why is not None:
            return f"not run: the notebook used up the grader's {limit} s"
        return None

    async def _async_poll_for_reply(self, msg_id, cell, timeout, task_poll_output_msg, task_poll_kernel_alive):
        """nbclient's wait for a cell's reply, with the cell's clocks in place of its deadline: looked at
        once a second from the moment the cell has run its limit of clock time (it cannot have computed
        that long before)."""
        meter = self._kernel_meter() if timeout else None
        self._stop = None
        if meter is None or self._last is None:
            return await super()._async_poll_for_reply(msg_id, cell, timeout, task_poll_output_msg,
                                                       task_poll_kernel_alive)
        start, reply = self._last, None

        def until():   # the next look: at the cell's limit of clock time, then once a second
            return max(0.0, timeout - (time.monotonic() - start.at)) or 1.0
        while True:
            try:
                if reply:
                    msg = reply
                    msg["parent_header"] = {"msg_id": msg_id}
                else:
                    msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=until()))
                if msg["parent_header"].get("msg_id") == msg_id:
                    if self.record_timing:
                        cell["metadata"]["execution"]["shell.execute_reply"] = timestamp(msg)
                    try:
                        await asyncio.wait_for(task_poll_output_msg, self.iopub_timeout)
                    except (asyncio.TimeoutError, Empty):
                        if self.raise_on_iopub_timeout:
                            task_poll_kernel_alive.cancel()
                            raise CellTimeoutError.error_from_timeout_and_cell(
                                "Timeout waiting for IOPub output", self.iopub_timeout, cell) from None
                        self.log.warning("Timeout waiting for IOPub output")
                    task_poll_kernel_alive.cancel()
                    return msg
            except Empty:
                if self._stop is None:
                    used = spent(start, meter.read())
                    self._stop, self._stop_spent = verdict(used, timeout, self.backstop), used
                    if self._stop is None:
                        continue
                task_poll_kernel_alive.cancel()
                await self._async_check_alive()
                reply = await self._async_handle_timeout(timeout, cell)

    @contextmanager
    def named(self, cell):
        """Send the cell's grade_id as its execute request's cellId, which IPython hands to the kernel's
        pre_run_cell: the kernel's recorder (maskdiff_client.drawn) keys what a drawing cell drew by it,
        so its test finds it wherever it stands (nbclient sends no cell id)."""
        grade_id = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id")
        client = self.kc
        if not isinstance(grade_id, str) or client is None:
            yield
            return

        def execute(code, silent=False, store_history=True, user_expressions=None, allow_stdin=None,
                    stop_on_error=True):
            content = {"code": code, "silent": silent, "store_history": store_history,
                       "user_expressions": user_expressions or {},
                       "allow_stdin": client.allow_stdin if allow_stdin is None else allow_stdin,
                       "stop_on_error": stop_on_error}
            msg = client.session.msg("execute_request", content, metadata={"cellId": grade_id[:100]})
            client.shell_channel.send(msg)
            return msg["header"]["msg_id"]

        client.execute = execute
        try:
            yield
        finally:
            del client.execute

    def plain_timeout(self, cell):
        """A cell interrupted at the time limit holds the KeyboardInterrupt the interrupt raised (a long
        traceback through the student's loop, tqdm and the kernel) and nbgrader's CellTimeoutError: keep
        one error, in one plain sentence that says which clock ran out."""
        if not any(o.get("ename") == TIMED_OUT for o in cell.get("outputs", [])):
            return cell
        cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
        limit, why = self.timeout, self._stop
        if why == STARVED:
            used = self._stop_spent
            cell.outputs.append(error(MACHINE_BUSY, busy_sentence(limit, used.busy, used.wall)))
        elif why == WAITED:
            cell.outputs.append(error(TIMED_OUT, waited_sentence(limit * self.backstop)))
        else:
            cell.outputs.append(error(TIMED_OUT, timeout_sentence(limit)))
        return cell


def timeout_sentence(seconds):
    return (f"this cell computed for longer than the grader's {seconds} s limit and was stopped: write "
            f"repetitions as repeats(n), which shrinks them under the grader, or look for an endless loop")


def waited_sentence(seconds):
    return (f"this cell ran for {seconds:g} s, the grader's limit for a cell that waits (sleep, input, a "
            f"lock or a process that never ends), and was stopped")


def busy_sentence(limit, busy, wall):
    return (f"the grading machine was too busy to run this cell: it computed {busy:.0f} of its {limit} s "
            f"in {wall:.0f} s and was stopped; this is not your code's doing, and a person grades it again")


class LimitOutputSize(NbGraderPreprocessor):
    """Cut every output to size and make it inert (course/records/inert.py): text (streams, `text/plain`,
    error messages and tracebacks) to max_chars, images of the allowed types over max_data_chars
    replaced by a note, any other kind of data (HTML, scripts, SVG, widgets) left out with a note,
    and at most max_outputs outputs per cell. Huge outputs bloat the gradebook's notebooks and the
    feedback pages (nbgrader's LimitOutputSize only counts lines), and a script a kernel printed
    would run in the browser of whoever opens formgrader or the feedback."""

    max_chars = Integer(20_000, help="characters kept of each text output").tag(config=True)
    max_data_chars = Integer(2_000_000, help="largest image kept").tag(config=True)
    max_outputs = Integer(100, help="outputs kept per cell").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        outputs = cell.get("outputs", [])
        if len(outputs) > self.max_outputs:
            dropped = len(outputs) - self.max_outputs
            outputs = outputs[:self.max_outputs] + [new_output(
                "stream", name="stderr", text=f"{TRUNCATED} {dropped} more outputs were dropped\n")]
        if cell.cell_type == "code":
            cell.outputs = [inert.inert_output(output, self.max_chars, self.max_data_chars) for output in outputs]
        return cell, resources
