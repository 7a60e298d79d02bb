"""Autograde preprocessors (nbgrader_config.py puts them in nbgrader's chain): a submission that
kills its kernel or floods its output is still graded, and says what happened in its cells.

nbgrader's own Execute gives up on the whole student when the kernel dies (os._exit, a segfault,
memory) and deletes their autograded folder; its LimitOutput counts lines, so one 50 MB line passes.
"""
import os
import time

from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Integer

KERNEL_DIED = "KernelDied"
NOT_RUN = "NotRun"
TIMED_OUT = "CellTimeoutError"  # nbgrader's name for a cell interrupted at the timeout
TRUNCATED = "... output truncated by the grader:"


def error(ename, evalue):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class SurvivingExecute(Execute):
    """Execute, but a dead kernel fails the cell that killed it and every code cell after it (so
    their tests score 0, not the full marks an unexecuted cell would get) instead of the student.
    The same happens to the cells left when the notebook has run for notebook_timeout seconds: a
    kernel that ignores interrupts would otherwise cost the cell timeout once per remaining cell."""

    notebook_timeout = Integer(300, help="seconds a whole notebook may run").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = None
        self._deadline = None  # set at the first cell: starting the kernel does not count
        nb, resources = super().preprocess(nb, resources, km)
        # A cell may have deleted the folder it ran in; nbgrader writes the graded notebook there.
        folder = (resources or {}).get("metadata", {}).get("path")
        if folder:
            os.makedirs(folder, exist_ok=True)
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if self._deadline is None:
            self._deadline = time.monotonic() + self.notebook_timeout
        if self._stopped is None and time.monotonic() > self._deadline:
            self._stopped = f"not run: the notebook used up the grader's {self.notebook_timeout} s"
        if self._stopped is not None:
            cell.outputs = [error(NOT_RUN, self._stopped)]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._stopped = f"not run: the kernel died in cell {index + 1}"
            cell.outputs.append(error(KERNEL_DIED, "the kernel died while running this cell "
                                                   "(os._exit, a crash, or out of memory)"))
            return cell, resources


class LimitOutputSize(NbGraderPreprocessor):
    """Cut any text output longer than max_chars: huge outputs bloat the gradebook's notebooks and
    the feedback pages, and nbgrader's LimitOutput only counts lines."""

    max_chars = Integer(20_000, help="characters kept of each text output").tag(config=True)

    def _cut(self, text):
        text = "".join(text) if isinstance(text, list) else text
        if len(text) <= self.max_chars:
            return text
        return f"{text[:self.max_chars]}\n{TRUNCATED} {len(text):,} characters in all ...\n"

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = self._cut(output["text"])
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    output["data"][mime] = self._cut(value)
        return cell, resources
