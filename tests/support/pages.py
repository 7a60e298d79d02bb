"""The pages a person's browser shows for a graded submission, what in them could act there, and the
hostile outputs a student can hand in to try."""
import base64
import html.parser
import io
from pathlib import Path

from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_output
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


# What each hostile output would show if it acted in a browser (the markdown answer's comes last)
PWNED = ("pwned-html", "pwned-js", "pwned-svg", "pwned-attr", "pwned-md")


def figure_png(title="my loss: 0.4987"):
    """A student's own figure: a falling curve, drawn here, as the base64 PNG a notebook holds."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([2.0, 1.1, 0.7, 0.52, 0.4987])
    ax.set_title(title)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=40)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def hostile_outputs(png):
    """Outputs a student can write into the notebook they hand in: HTML, script, SVG, an image that is
    not one or carries an attribute, a flood of text and more outputs than a cell keeps."""
    return [
        new_output("display_data", data={"text/html": '<script>alert("pwned-html")</script>',
                                         "text/plain": "the html's plain twin"}),
        new_output("display_data", data={"application/javascript": 'alert("pwned-js")'}),
        new_output("display_data", data={"image/svg+xml": "<svg onload=\"alert('pwned-svg')\"/>"}),
        new_output("display_data", data={"image/png": "x\" onerror=\"alert('pwned-attr')"}),
        new_output("display_data", data={"image/png": base64.b64encode(b"GIF89a not a png").decode()}),
        new_output("display_data", data={"image/png": png},
                   metadata={"image/png": {"width": "1 onerror=alert('pwned-attr')", "height": 50},
                             "filenames": {"image/png": "/etc/passwd"}}),
        new_output("stream", name="stdout", text="z" * 100_000),
        *[new_output("stream", name="stdout", text=f"line {i}\n") for i in range(40)],
    ]
