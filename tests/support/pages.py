"""The pages a person's browser shows for a graded submission, and what in them could act there."""
import html.parser
from pathlib import Path

from nbconvert.exporters import HTMLExporter
from nbgrader.server_extensions.formgrader import handlers
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader


def formgrader_view(course, workspace, student, notebook):
    """The page formgrader shows a grader for one submission: its HTMLExporter, configured as
    nbgrader's formgrader extension configures it (the course's nbgrader_config.py, then the
    `formgrade` template), rendering the autograded notebook with the resources its
    SubmissionHandler passes."""
    config = Config()
    config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config())
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    path = Path(workspace) / "autograded" / student / course.assignment / notebook
    resources = {"assignment_id": course.assignment, "notebook_id": path.stem, "submission_id": "x",
                 "index": 0, "total": 1, "base_url": "", "student": student, "last_name": None,
                 "first_name": None, "notebook_path": str(path)}
    page, _ = HTMLExporter(config=config).from_filename(str(path), resources=resources)
    return page


class _Active(html.parser.HTMLParser):
    def __init__(self, marker):
        super().__init__(convert_charrefs=True)
        self.marker, self.found, self.inside = marker, [], []

    def handle_starttag(self, tag, attrs):
        self.inside.append(tag)
        for name, value in attrs:
            if self.marker in (value or "") or self.marker in name:
                self.found.append(f"<{tag} {name}={value!r}>")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.inside.pop()

    def handle_endtag(self, tag):
        if tag in self.inside:
            del self.inside[len(self.inside) - 1 - self.inside[::-1].index(tag):]

    def handle_data(self, data):
        if self.marker in data and self.inside and self.inside[-1] in ("script", "style", "iframe", "svg"):
            self.found.append(f"<{self.inside[-1]}>{data[:80]}")


def active(page, marker):
    """Where `marker` appears in a page as something a browser acts on (a script's or style's text,
    any attribute: an event handler, a link, an image source); text shown as text does not count."""
    parser = _Active(marker)
    parser.feed(page)
    parser.close()
    return parser.found
