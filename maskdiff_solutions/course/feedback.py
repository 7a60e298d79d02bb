"""Feedback preprocessing: students see what failed, in words, but none of the hidden tests' code."""
from nbgrader.preprocessors import NbGraderPreprocessor

from .notebooks import BEGIN_HIDDEN


class HideHiddenTracebacks(NbGraderPreprocessor):
    """A traceback quotes the lines around the failure, hidden tests included: keep only its last
    line (the exception and its plain-words message) in cells that hold hidden tests. Must run
    before nbgrader's ClearHiddenTests, which removes the markers this looks for."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and BEGIN_HIDDEN in cell.source:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources
