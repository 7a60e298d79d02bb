"""Run a source notebook's cells in this process, as a kernel would, with what each cell draws and
prints recorded by maskdiff_client.drawn (pyplot's figures are closed at the end of every cell, as
Jupyter's inline backend does). The plot checks' tests use it to run the reference's plot cells and
the plot mutants without starting a kernel."""
import contextlib
import io
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from maskdiff_client import drawn  # noqa: E402
from maskdiff_solutions.course import notebooks as nbtools  # noqa: E402

SOURCE = Path(__file__).resolve().parents[2] / "source" / "maskdiff"


def run_cell(source, namespace):
    """Execute one cell's source like a kernel: returns the record of what it drew and printed."""
    drawn._watch_closing()
    drawn._before_cell()
    raised = None
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # tqdm's bars
            exec(compile(source, "<cell>", "exec"), namespace)
    except Exception as err:  # noqa: BLE001 - a kernel shows the error and goes on
        raised = err
    finally:
        plt.show()            # the inline backend shows (and closes) every figure left open
        plt.close("all")
        drawn._after_cell()
    record = drawn.last_cell()
    record.raised = raised
    return record


def notebook_cells(name):
    return nbtools.read(SOURCE / name).cells


def namespace_before(name, grade_id, quick=True):
    """A namespace holding everything a notebook's code cells define before the cell `grade_id`
    (test cells skipped), run in quick mode as under the grader; and that cell's source."""
    previous = os.environ.get("NBGRADER_EXECUTION")
    if quick:
        os.environ["NBGRADER_EXECUTION"] = "autograde"
    namespace = {"__name__": "__main__"}
    try:
        for cell in notebook_cells(name):
            if cell.cell_type != "code" or nbtools.is_test(cell):
                continue
            if nbtools.grade_id(cell) == grade_id:
                return namespace, cell.source
            if run_cell(cell.source, namespace).raised is not None:
                raise RuntimeError(f"{name}: cell {nbtools.grade_id(cell)} raised")
    finally:
        if previous is None:
            os.environ.pop("NBGRADER_EXECUTION", None)
        else:
            os.environ["NBGRADER_EXECUTION"] = previous
    raise KeyError(f"{name} has no code cell {grade_id!r}")


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
