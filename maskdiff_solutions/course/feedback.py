"""Feedback preprocessing: students see what failed, in words, but none of the hidden tests' code."""
from nbgrader.preprocessors import NbGraderPreprocessor

from .notebooks import BEGIN_HIDDEN

HIDDEN_PACKAGE = "maskdiff_solutions"
# Errors whose message is empty or cryptic, said in plain words.
PLAIN = {
    "NotImplementedError": "a function this cell uses still raises NotImplementedError: "
                           "replace its `raise NotImplementedError()` stub with your code",
    "CellTimeoutError": "this cell ran longer than the grader's time limit and was stopped "
                        "(an endless loop, or far too much work)",
}


class HideHiddenTracebacks(NbGraderPreprocessor):
    """A traceback quotes the lines around the failure, hidden tests and the hidden package's
    source included: keep only its last line (the exception and its plain-words message) in cells
    that hold hidden tests or whose traceback passes through the package. Must run before
    nbgrader's ClearHiddenTests, which removes the markers this looks for."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error":
                continue
            ename, evalue = output.get("ename", "Error"), str(output.get("evalue", "")).strip()
            if not evalue or ename == "CellTimeoutError":
                evalue = PLAIN.get(ename, evalue)
                output["evalue"] = evalue
            if BEGIN_HIDDEN in cell.source or any(HIDDEN_PACKAGE in line
                                                  for line in output.get("traceback", [])):
                output["traceback"] = [f"{ename}: {evalue}"]
            elif ename in PLAIN:
                output["traceback"] = list(output.get("traceback", [])) + [f"{ename}: {evalue}"]
        return cell, resources
