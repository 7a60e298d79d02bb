"""A notebook run in a Jupyter kernel as a student runs it on their machine, not under the grader:
quick mode (CI set, NBGRADER_EXECUTION not), `drawing_reader.py` beside it as the set-up cell would
have fetched it, and the notebook saved in that folder (the hand-in check reads it there, as in
Jupyter). Cells may be skipped or run again, to make the states the hand-in check must see."""
import os
import re
import sys

import nbformat
from nbclient import NotebookClient

from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.course.term.reader import reader_text

HAND_IN_CELL = "hand_in_check"
WRITTEN_BY_THE_RUN = {"drawing_reader.py", "__pycache__"}   # what the set-up cell's import leaves beside it


def run(nb, folder, name, *, allow_errors=False, skip=(), again=(), timeout=300):
    """Save `nb` as folder/name beside drawing_reader.py and run its cells in order, but the cells whose
    grade_id is in `skip`; then the cells named in `again` once more, just before the hand-in cell.
    Returns the notebook with its outputs."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "drawing_reader.py").write_text(reader_text(), encoding="utf-8")
    nbtools.write(nb, folder / name)
    env = {k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"}
    env.update(CI="true", PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    client = NotebookClient(nb, timeout=timeout, allow_errors=allow_errors, kernel_name="python3",
                            shutdown_kernel="immediate",   # as the grader: a graceful stop only waits
                            resources={"metadata": {"path": str(folder)}})
    ids = [nbtools.grade_id(cell) for cell in nb.cells]
    with client.setup_kernel(env=env):
        for index, cell in enumerate(nb.cells):
            if ids[index] == HAND_IN_CELL:
                for other in again:
                    client.execute_cell(nb.cells[ids.index(other)], ids.index(other))
            if ids[index] not in skip:
                client.execute_cell(cell, index)
    return nb


def printed(cell):
    """A cell's text outputs, as one string."""
    return "".join(o.get("text", "") if o.get("output_type") == "stream" else
                   o.get("data", {}).get("text/plain", "") for o in cell.get("outputs", []))


def hand_in_report(nb):
    cell = next(c for c in nb.cells if nbtools.grade_id(c) == HAND_IN_CELL)
    return printed(cell)


def to_do(report):
    """{cell name: its state} for each row of the hand-in table marked TO DO."""
    rows = re.findall(r"^  TO DO (\S+)\s+\S+\s+(.*)$", report, re.M)
    return dict(rows)


def done(report):
    return dict(re.findall(r"^  ok\s+(\S+)\s+\S+\s+(.*)$", report, re.M))
