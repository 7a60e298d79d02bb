"""Run a source notebook's cells in this process, as a kernel would, with what each cell draws and
prints recorded by maskdiff_client.drawn (pyplot's figures are closed at the end of every cell, as
Jupyter's inline backend does). The plot checks' tests use it to run the reference's plot cells and
the plot mutants without starting a kernel."""
import ast
import contextlib
import copy
import io
import os
import types
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import torch  # noqa: E402

from maskdiff_client import drawn  # noqa: E402
from maskdiff_solutions.course.intake import notebooks as nbtools  # noqa: E402
from maskdiff_solutions.course.sandbox.environ import environment  # noqa: E402
from maskdiff_solutions.course.sandbox.kernel import GRADING_ENV  # noqa: E402

# rich's width as in the graded kernel: there it reads JUPYTER_COLUMNS (it knows Jupyter), here COLUMNS
WIDE = {"COLUMNS": GRADING_ENV["JUPYTER_COLUMNS"]}

SOURCE = Path(__file__).resolve().parents[2] / "source" / "maskdiff"
# A kernel's torch thread count is its own: under the grader the set-up cell puts torch on one thread, and
# what the notebook's cells compute (a network a given cell trains, the numbers a plot cell draws) is
# computed on it. A namespace keeps the count its cells left under this name, each of its cells runs on
# that count, and this process gets its own back after the cell: a notebook run here never sets the
# thread count of the tests that come after it (they would pass or fail by the order they run in).
THREADS = "__torch_threads__"


def run_cell(source, namespace):
    """Execute one cell's source like a kernel: returns the record of what it drew, printed and showed
    (its last expression, unless the line ends with ';', and display(...), the builtin of Jupyter or
    IPython.display's)."""
    drawn._watch_closing()
    drawn.watch_plotly()   # as install() does in a kernel
    drawn._before_cell()
    raised = None
    try:
        body, last = _split_last_expression(source)
        with contextlib.redirect_stderr(io.StringIO()), _displaying(namespace), environment(WIDE), \
                _kernel_threads(namespace):  # stderr: tqdm's bars
            exec(compile(body, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(last, "<cell>", "eval"), namespace)
                if value is not None:
                    drawn.shown(value)
    except Exception as err:  # noqa: BLE001 - a kernel shows the error and goes on
        raised = err
    finally:
        plt.show()            # the inline backend shows (and closes) every figure left open
        plt.close("all")
        drawn._after_cell(types.SimpleNamespace(error_in_exec=raised))
    record = drawn.last_cell()
    record.raised = raised
    return record


def _split_last_expression(source):
    """(the cell without its last statement, that statement as an expression) when IPython would show
    it (an expression statement not ended by ';'), else (the whole cell, None)."""
    tree = ast.parse(source)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr) or source.rstrip().endswith(";"):
        return tree, None
    last = ast.Expression(tree.body.pop().value)
    return tree, last


@contextlib.contextmanager
def _kernel_threads(namespace):
    """Run a cell on its namespace's torch thread count (a fresh one starts on this process's), keep the
    count the cell leaves, and give this process its own back."""
    mine = torch.get_num_threads()
    torch.set_num_threads(namespace.setdefault(THREADS, mine))
    try:
        yield
    finally:
        namespace[THREADS] = torch.get_num_threads()
        torch.set_num_threads(mine)


@contextlib.contextmanager
def _displaying(namespace):
    """display(...) as in a kernel: the builtin name, and IPython.display's function, record what they show."""
    import builtins

    from IPython.core import display_functions
    from IPython import display as ipython_display

    def display(*values, **_):
        for value in values:
            drawn.shown(value)

    saved = (getattr(builtins, "display", None), display_functions.display, ipython_display.display)
    builtins.display = display_functions.display = ipython_display.display = display
    try:
        yield
    finally:
        if saved[0] is None:
            del builtins.display
        else:
            builtins.display = saved[0]
        display_functions.display, ipython_display.display = saved[1:]


def notebook_cells(name):
    return nbtools.read(SOURCE / name).cells


def cell_source(name, grade_id):
    """The source of the source notebook's cell `grade_id`."""
    return next(cell.source for cell in notebook_cells(name) if nbtools.grade_id(cell) == grade_id)


def namespaces_before(name, grade_ids, quick=True):
    """{grade_id: a namespace holding everything the notebook's code cells define before that cell}
    for several cells of one notebook, from one run of its code cells (test cells skipped) in quick
    mode, as under the grader: the notebook runs once, not once per cell. Each namespace is a
    `snapshot`, so the cells run after it leave it as it was."""
    wanted, found = set(grade_ids), {}
    previous = os.environ.get("NBGRADER_EXECUTION")
    if quick:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
    namespace = {"__name__": "__main__"}
    try:
        for cell in notebook_cells(name):
            if cell.cell_type != "code" or nbtools.is_test(cell):
                continue
            if nbtools.grade_id(cell) in wanted:
                found[nbtools.grade_id(cell)] = snapshot(namespace)
                if len(found) == len(wanted):
                    return found
            if run_cell(cell.source, namespace).raised is not None:
                raise RuntimeError(f"{name}: cell {nbtools.grade_id(cell)} raised")
    finally:
        if previous is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = previous
    raise KeyError(f"{name} has no code cell {sorted(wanted - set(found))}")


def snapshot(namespace):
    """A copy of a namespace that later cells cannot change: its values deep-copied together (one memo,
    so what two names share stays shared: an optimizer keeps its network's parameters), except modules,
    classes and functions; a value that cannot be copied is shared. Functions the notebook's cells
    defined are rebound to the copy."""
    memo, copied = {}, {}
    for key, value in namespace.items():
        if key == "__builtins__" or isinstance(value, (types.ModuleType, type, types.FunctionType,
                                                       types.BuiltinFunctionType)):
            copied[key] = value
            continue
        try:
            copied[key] = copy.deepcopy(value, memo)
        except Exception:  # noqa: BLE001 - e.g. a handle to something outside Python: shared, as it was
            copied[key] = value
    return rebound(copied, namespace)


def rebound(copied, original):
    """`copied` with the functions defined in `original` (their globals) rebound to `copied`, so that a
    helper of an earlier cell (notebook 02's `sentences`) calls the functions a test swapped in, as in
    a kernel."""
    for key, value in copied.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is original:
            copied[key] = types.FunctionType(value.__code__, copied, value.__name__, value.__defaults__,
                                             value.__closure__)
            copied[key].__kwdefaults__, copied[key].__doc__ = value.__kwdefaults__, value.__doc__
    return copied


def stubbed(source):
    """A solution cell as the release hands it out: every solution region a stub."""
    out, skipping = [], False
    for line in source.splitlines():
        if nbtools.BEGIN_SOLUTION in line:
            indent = line[:len(line) - len(line.lstrip())]
            out += [f"{indent}# YOUR CODE HERE", f"{indent}raise NotImplementedError()"]
            skipping = True
        elif nbtools.END_SOLUTION in line:
            skipping = False
        elif not skipping:
            out.append(line)
    return "\n".join(out)
