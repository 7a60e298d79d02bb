"""Feedback preprocessing: students see what failed, in words, but none of the hidden tests' code;
points a person has still to grade read as such, not as 0."""
import html
import re
from pathlib import Path
from xml.etree.ElementTree import tostring

import nbgrader
from latex2mathml.converter import convert_to_element
from mistune.util import striptags
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from jinja2 import pass_context
from nbgrader.api import Gradebook
from traitlets.config import Config
from nbgrader.preprocessors import NbGraderPreprocessor

from ..intake.notebooks import BEGIN_HIDDEN, END_HIDDEN, regions
from ..layout import COURSE_PACKAGES

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


UNCHANGED = "No response."  # nbgrader's automatic comment on an answer cell left as it was handed out


class StudentWords(NbGraderPreprocessor):
    """The labels `handed_in.carry` puts in a graded notebook speak to the grader in formgrader; in
    the feedback page they speak to the student. nbgrader's automatic comment on an answer left as
    handed out ("No response.") becomes a plain "Not answered" line, and an empty comment nothing, so
    the page shows a comment box only where a person wrote a comment."""

    def preprocess_cell(self, cell, resources, index):
        from .handed_in import for_student
        for output in cell.get("outputs", []):
            for_student(output)
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("comment") is not None and str(meta["comment"]).strip() in ("", UNCHANGED):
            meta["unanswered"] = str(meta.pop("comment")).strip() == UNCHANGED
        return cell, resources



# ------------------------------------------------------------------ maths a browser typesets offline

NUMERIC_REFERENCE = re.compile(r"&amp;(#x[0-9A-Fa-f]+|#[0-9]+);")


def mathml(tex, display):
    """LaTeX as a MathML element, which browsers typeset themselves (no MathJax to fetch from a CDN,
    so the page shows its formulas offline). The tree is serialised here, every text escaped: a
    student's `\\text{<script>}` stays text. TeX it cannot read is shown as code, never dropped."""
    try:
        element = convert_to_element(tex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - a student's TeX may be anything
        return f"<code>{html.escape(tex)}</code>"
    return NUMERIC_REFERENCE.sub(r"&\1;", tostring(element, encoding="unicode"))


class MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer, its maths as MathML instead of TeX left for MathJax."""

    def inline_math(self, body):
        return mathml(body, display=False)

    def block_math(self, body):
        return mathml(body, display=True)

    def latex_environment(self, name, body):
        return mathml(f"\\begin{{{name}}}{body}\\end{{{name}}}", display=True)

    def image(self, text, url, title=None):
        """An image on the web (the "Open in Colab" badge) is shown as its words: the page fetches
        nothing, and reads the same offline. Students' own markdown never gets here with one
        (inert.py shows it as text); pictures carried in the notebook stay pictures."""
        if url.strip().lower().startswith(("http:", "https:", "//")):
            return f'<span class="remote-image" title="{html.escape(url)}">{striptags(text)}</span>'
        return super().image(text, url, title)


class FeedbackExporter(HTMLExporter):
    """The feedback page's exporter: markdown (cells and displayed outputs) with MathML maths."""

    @pass_context
    def markdown2html(self, context, source):
        cell = context.get("cell", {})
        renderer = MathMLRenderer(escape=False, attachments=cell.get("attachments", {}),
                                  embed_images=self.embed_images,
                                  path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                                  anchor_link_text=self.anchor_link_text,
                                  exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)


# Our feedback page (templates/maskdiff_feedback) extends nbgrader's, which lives with formgrader.
TEMPLATES = Path(__file__).resolve().parent / "templates"
NBGRADER_TEMPLATES = Path(nbgrader.__file__).resolve().parent / "server_extensions" / "formgrader" / "templates"
TEMPLATE = "maskdiff_feedback"
BOOTSTRAP_CSS = NBGRADER_TEMPLATES.parent / "static" / "node_modules" / "bootstrap" / "dist" / "css"


class PendingManualGrades(NbGraderPreprocessor):
    """Mark each cell a person has still to grade (`pending` in its nbgrader metadata) and put the
    points still to grade in resources; our feedback template then says "to be graded by a person"
    where nbgrader's shows a score of 0. A manually graded cell worth 0 points in the gradebook is an
    optional answer (course/records/answers.py): marked `optional`, and the page's score is the autograded
    points alone. Runs after GetGrades."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            submitted = gradebook.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            answers = {cell.name for cell in submitted.notebook.solution_cells}
            optional = {grade.name for grade in submitted.grades if grade.name in answers and not grade.max_score}
            pending = {grade.name: grade.max_score for grade in submitted.grades
                       if grade.needs_manual_grade and grade.name not in optional}
            automatic = sum(grade.score or 0.0 for grade in submitted.grades if grade.name not in answers)
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("grade") and meta.get("grade_id") in optional:
                meta["optional"] = True
            elif meta.get("grade") and meta.get("grade_id") in pending:
                meta["pending"] = True
        info["pending"] = float(sum(pending.values()))
        if optional:
            info["optional"] = True
            info["score"] = float(automatic)
        return nb, resources


def generate_feedback(api, assignment, student):
    """nbgrader's `NbGraderAPI.generate_feedback` for one student, on our page template (the API
    forces nbgrader's own). Returns nbgrader's result dict (success, error, log)."""
    from nbgrader.converters import GenerateFeedback
    from nbgrader.utils import capture_log, temp_attrs
    config = Config()
    config.HTMLExporter.template_name = TEMPLATE
    config.HTMLExporter.extra_template_basedirs = [str(TEMPLATES), str(NBGRADER_TEMPLATES)]
    # where `extends 'feedback/index.html.j2'` and the page's bootstrap.min.css are found
    config.HTMLExporter.extra_template_paths = [str(NBGRADER_TEMPLATES), str(BOOTSTRAP_CSS)]
    from .nbgrader_apps import StayPut

    class Feedback(StayPut, GenerateFeedback):  # several notebooks' feedback is made at once, in threads
        def _exporter_class_default(self):
            return FeedbackExporter
    with temp_attrs(api.coursedir, assignment_id=assignment, student_id=student):
        app = Feedback(coursedir=api.coursedir, parent=api)
        app.update_config(config)
        app.force = True
        return capture_log(app)
