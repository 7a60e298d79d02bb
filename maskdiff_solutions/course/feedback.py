"""Feedback preprocessing: students see what failed, in words, but none of the hidden tests' code."""
from nbgrader.preprocessors import NbGraderPreprocessor

from .notebooks import BEGIN_HIDDEN, END_HIDDEN, regions

COURSE_PACKAGES = ("maskdiff_solutions", "maskdiff_client")
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
            if not evalue:
                evalue = PLAIN.get(ename, evalue)
                output["evalue"] = evalue
            hidden = BEGIN_HIDDEN in cell.source or any(package in line for line in output.get("traceback", [])
                                                        for package in COURSE_PACKAGES)
            if hidden or ename == "CellTimeoutError":   # a timeout: one plain sentence, nothing more
                output["traceback"] = [f"{ename}: {evalue}"]
            elif ename in PLAIN:
                output["traceback"] = list(output.get("traceback", [])) + [f"{ename}: {evalue}"]
        return cell, resources


class ScrubHiddenCode(NbGraderPreprocessor):
    """A student's cell can print the hidden tests' code (IPython keeps every executed cell in `In`):
    remove every line of the notebook's hidden tests from every output before the feedback is made.
    Must run before ClearHiddenTests, which removes the hidden code this looks for."""

    def preprocess(self, nb, resources):
        lines = {line.strip() for cell in nb.cells if cell.cell_type == "code"
                 for block in regions(cell.source, BEGIN_HIDDEN, END_HIDDEN) for line in block.splitlines()}
        self.secrets = sorted((line for line in lines if len(line) >= 8), key=len, reverse=True)
        self.secrets += [BEGIN_HIDDEN, END_HIDDEN]
        return super().preprocess(nb, resources)

    def _scrub(self, text):
        if isinstance(text, list):
            return [self._scrub(t) for t in text]
        if not isinstance(text, str):
            return text
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, "[hidden test code]")
        return text

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            for key in ("text", "evalue", "traceback"):
                if key in output:
                    output[key] = self._scrub(output[key])
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/") or mime.endswith("json"):
                    output["data"][mime] = self._scrub(value)
        return cell, resources
