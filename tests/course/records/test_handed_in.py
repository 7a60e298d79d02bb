"""Manually graded cells are graded on the student's own outputs: a notebook 04 handed in with the
outputs of a full run (a figure, printed text) is graded, and formgrader's view of the graded
notebook and the student's feedback show that figure, labelled, beside the grader's re-run. The
handed-in outputs are hostile input: scripts, HTML, SVG, fake images and floods never reach a page.
Feedback says how many points are still to be graded by a person; `export` picks up the points a
person awarded later. One drawing is sent to review (its check raises core.Review, as a reader that
cannot decide does): formgrader shows its cell with the student's figure, the re-run's and the
reason, the test cell waits for a person's score, and `export` counts it once given.

One student, one notebook (04): a single grading run shared by the tests of this module.
"""
import csv
import functools
import json
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from nbformat.v4 import new_output
from nbgrader.api import Gradebook

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records import handed_in, inert, summary
from maskdiff_solutions.course.records.rows import table
from maskdiff_solutions.grading import core
from maskdiff_solutions.course.term.demo import solved
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.support.pages import PWNED, active, figure_png, formgrader_view, hostile_outputs

pytestmark = [pytest.mark.course, pytest.mark.slow, pytest.mark.nb04]
NB = "04_training.ipynb"
SOURCE = Path(__file__).resolve().parents[3] / "source" / "maskdiff"


def manual_points(name):
    """What a person grades in the source notebook: the points of its manually graded cells."""
    return sum(notebooks.nbgrader(c).get("points", 0) for c in notebooks.read(SOURCE / name).cells
               if notebooks.is_manual(c))


def auto_points(name):
    """What the autograder grades in the source notebook: the points of its test cells."""
    return sum(notebooks.nbgrader(c).get("points", 0) for c in notebooks.read(SOURCE / name).cells
               if notebooks.is_test(c))
STUDENT = "full_run"
# notebook 04's one code cell a person grades (its plots and printouts are autograded) holds both the
# student's own figure and the hostile outputs after it
FIGURE_CELL = HOSTILE_CELL = "stories_four_settings"
ANSWER_CELL = "story_settings_comparison"
OWN_TEXT = "final loss 0.4987 after 5000 steps (my own run on a T4)"
# the drawing the reader is made unsure of (after its real check has passed), and what it says
REVIEWED, REASON = "plot_story_loss", "the reader saw a curve drawn as <i>dots</i> it could not place"
OWN_DRAWING = "my story loss after 5000 steps"


@contextmanager
def unsure_of(name):
    """The check `name`, run for real, then unsure: as a reader that cannot decide raises Review."""
    check = core.CHECKS[name]

    @functools.wraps(check)
    def unsure(*students):
        check(*students)
        raise core.Review(REASON)

    core.CHECKS[name] = unsure
    try:
        yield
    finally:
        core.CHECKS[name] = check


def full_run(course):
    """The reference notebook 04 as a student hands it in after running it in full on Colab."""
    nb = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))
    png = figure_png()
    for cell in nb.cells:
        name = notebooks.grade_id(cell)
        if cell.cell_type == "code" and notebooks.is_manual(cell):
            cell.outputs = [new_output("stream", name="stdout", text=OWN_TEXT + "\n"),
                            new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})]
            if name == HOSTILE_CELL:
                cell.outputs = cell.outputs + hostile_outputs(png)
        if name == REVIEWED:
            cell.outputs = [new_output("stream", name="stdout", text=OWN_DRAWING + "\n"),
                            new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})]
        if name == ANSWER_CELL:
            cell.source = "Longer training helps. <img src=x onerror=alert('pwned-md')>"
    return nb, png


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp("handed-in")
    nb, png = full_run(course)
    (folder / "collected" / STUDENT).mkdir(parents=True)
    notebooks.write(nb, folder / "collected" / STUDENT / NB)
    with unsure_of(REVIEWED):  # grading runs its checker in this process (one job)
        report = grade(course, folder / "collected", folder / "ws", progress=False, notebooks=["04"],
                       canary=False)
    return folder / "ws", report, png


def points(name, grade_id):
    return next(notebooks.nbgrader(c)["points"] for c in notebooks.read(SOURCE / name).cells
                if notebooks.grade_id(c) == grade_id)


def test_the_grader_sees_the_students_own_figure_in_formgrader(course, graded):
    workspace, report, png = graded
    row = report.rows[0]
    auto, unsure = auto_points(NB), points(NB, "test_" + REVIEWED)
    assert (row.status, row.auto_score, row.auto_max, row.reason) == ("graded", auto - unsure, auto, ""), row
    assert (row.review, row.failed_tests) == ("test_" + REVIEWED, "")
    html = formgrader_view(course, workspace, STUDENT, NB)
    assert png in html and OWN_TEXT in html
    assert "As handed in: the student" in html and "Re-run by the grader" in html
    nb = notebooks.read(workspace / "autograded" / STUDENT / "maskdiff" / NB)
    cell = next(c for c in nb.cells if notebooks.grade_id(c) == FIGURE_CELL)
    # label, own text, own figure (and the rest of what was handed in), then the re-run's label
    rerun = next(i for i, o in enumerate(cell.outputs) if i >= 3 and o.get("metadata", {}).get("maskdiff")
                 and "text/markdown" in o.get("data", {}))
    assert cell.outputs[0].data["text/markdown"] == handed_in.STUDENT_LABEL
    assert cell.outputs[2].data["image/png"] == png
    assert cell.outputs[rerun].data["text/markdown"] == handed_in.RERUN_LABEL


def test_a_drawing_to_review_shows_both_figures_and_the_reason_in_formgrader(course, graded):
    workspace, report, png = graded
    nb = notebooks.read(workspace / "autograded" / STUDENT / "maskdiff" / NB)
    cells = {notebooks.grade_id(c): c for c in nb.cells}
    drawing, test = cells[REVIEWED].outputs, cells["test_" + REVIEWED].outputs
    labels = [o.data["text/markdown"] for o in drawing if "text/markdown" in o.get("data", {})]
    assert labels == [handed_in.REVIEW_DRAWING_LABEL, handed_in.STUDENT_LABEL, handed_in.RERUN_LABEL]
    rerun = [o.data["image/png"] for o in drawing[drawing.index(next(o for o in drawing if o.get("data", {})
                                                                   .get("text/markdown") == handed_in.RERUN_LABEL)):]
             if "image/png" in o.get("data", {})]
    assert drawing[3].data["image/png"] == png and rerun and rerun[0] != png  # own figure, then the re-run's
    assert test[0].data["text/markdown"] == handed_in.REVIEW_LABEL and test[1].data["text/plain"] == REASON
    html = formgrader_view(course, workspace, STUDENT, NB)
    assert png in html and rerun[0] in html and OWN_DRAWING in html
    assert "the reader saw a curve drawn as &lt;i&gt;dots&lt;/i&gt;" in html  # the reason, as text
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        grade_ = gradebook.find_grade("test_" + REVIEWED, "04_training", "maskdiff", STUDENT)
        assert grade_.needs_manual_grade and grade_.auto_score is None  # formgrader lists it to grade
    assert "1 drawing to review: test_" + REVIEWED in table(report.rows)
    assert "1 drawing to review" in summary.text(report)
    with open(workspace / CSV_NAME) as handle:
        assert next(csv.DictReader(handle))["review"] == "test_" + REVIEWED


def test_the_feedback_shows_the_students_own_figure_and_what_awaits_a_person(graded):
    workspace, report, png = graded
    html = (workspace / "feedback" / STUDENT / "maskdiff" / "04_training.html").read_text()
    assert png in html and OWN_TEXT in html and "As you handed it in: your own run" in html
    pending = report.rows[0].manual_pending
    assert pending == report.rows[0].manual_max == manual_points(NB)
    auto, unsure = auto_points(NB), points(NB, "test_" + REVIEWED)
    assert (f"Score so far: {auto - unsure:g} of {auto + pending:g} points; {pending + unsure:g} points still to "
            f"be graded by a person") in html
    assert "to be graded by a person (2 points)" in html
    assert "Score: 0 / 2" not in html and "Score: 0.0 / 2.0" not in html


# Words meant for the grader (formgrader's labels, nbgrader's own page) that a student's page never says
FOR_THE_GRADER = ("Grade this cell", "which you score", "its points by hand", "Student's answer", "Test cell",
                  "No response.", "Comments:")
# A message longer than any box, one unbroken token and many words, put into every output of the page
LONG_MESSAGES = """(() => { const pres = [...document.querySelectorAll('.output_subarea pre')];
  pres.forEach(p => p.textContent += ' /a/path/' + 'without_any_break_'.repeat(40) + ' ' + 'many words '.repeat(100));
  return pres.length; })()"""


@pytest.fixture(scope="module")
def browser():
    from tests.support.browser import Browser, find
    if not find():
        if os.environ.get("CI"):
            pytest.fail("CI must have Chromium for the feedback page's screenshot test (.ci/run installs it as root)")
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium)")
    with Browser(width=1000, height=760) as opened:
        yield opened


def test_the_feedback_page_reads_in_one_pass_in_a_browser(graded, browser, tmp_path):
    """The student's page in headless Chromium with the network refused: the maths typeset by the
    browser itself, nothing fetched (no script, style, font or picture), nothing wider than its box even with long
    messages, an index of named entries, and no word addressed to the grader."""
    from tests.support.browser import MATHS, OVERFLOW
    page = graded[0] / "feedback" / STUDENT / "maskdiff" / "04_training.html"
    browser.open(page)
    shot = browser.screenshot(tmp_path / "feedback.png")
    assert shot.stat().st_size > 20_000  # a page, not a blank screen
    maths = browser.evaluate(MATHS)
    assert maths["math"] > 10 and maths["mathml"], maths
    assert maths["subscripts"] > 0 and maths["lowered"] == maths["subscripts"], maths  # typeset, not in a line
    assert maths["raw_tex"] == [], maths
    fetched = [(kind, url) for kind, url in browser.requests if not url.startswith(("file:", "data:"))]
    assert fetched == []   # no script, style, font or picture (the Colab badge is its words)
    assert browser.evaluate(LONG_MESSAGES) > 0
    overflow = browser.evaluate(OVERFLOW)
    assert overflow["boxes"] > 50 and not overflow["page_wider"] and overflow["over"] == [], overflow
    text = browser.evaluate("document.body.innerText")
    assert [word for word in FOR_THE_GRADER if word in text] == []
    index = browser.evaluate("[...document.querySelectorAll('#toc li')].map(li => li.innerText)")
    ids = {notebooks.grade_id(c) for c in notebooks.read(SOURCE / NB).cells if notebooks.nbgrader(c).get("grade")}
    assert len(index) == len(ids) and all(any(name in entry for name in ids) for entry in index), index
    assert "As you handed it in: your own run" in text and "A person looks at this drawing" in text


@pytest.mark.parametrize("page", ["formgrader", "feedback"])
def test_hostile_handed_in_outputs_stay_inert(course, graded, page):
    workspace = graded[0]
    html = formgrader_view(course, workspace, STUDENT, NB) if page == "formgrader" else \
        (workspace / "feedback" / STUDENT / "maskdiff" / "04_training.html").read_text()
    for word in PWNED[:-1]:
        assert word not in html, word
    assert active(html, "pwned") == [] and "<img src=x" not in html
    assert "pwned-md" in html  # the answer is shown, as text
    assert "/etc/passwd" not in html
    assert "the html's plain twin" in html
    assert "z" * 20_001 not in html and "z" * 1000 in html
    nb = notebooks.read(workspace / "autograded" / STUDENT / "maskdiff" / NB)
    cell = next(c for c in nb.cells if notebooks.grade_id(c) == HOSTILE_CELL)
    own = cell.outputs[1:cell.outputs.index(next(o for o in cell.outputs[1:] if o.get("metadata", {})
                                                  .get("maskdiff") and "text/markdown" in o.get("data", {})))]
    assert len(own) == handed_in.MAX_OUTPUTS + 1 and "more handed-in outputs, over its budget" in own[-1].text
    for output in own:
        assert set(output.get("data", {})) <= {"text/plain", "image/png", "image/jpeg", "image/gif"}
        assert set(output.get("metadata", {})) <= {"image/png", "maskdiff"}


def test_export_picks_up_manual_points_and_keeps_our_file(course, graded, capsys):
    workspace = graded[0]
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook("04_training", "maskdiff", STUDENT)
        answers = {c.name for c in gradebook.find_notebook("04_training", "maskdiff").solution_cells}
        for g in submitted.grades:
            if g.name in answers or g.name == "test_" + REVIEWED:  # a person enters a score in formgrader
                g.manual_score = g.max_score - 1 if g.name == FIGURE_CELL else g.max_score
                g.needs_manual_grade = False
        gradebook.db.commit()
    status = cli.main(["export", "--workspace", str(workspace), "--course-dir", str(course.root)])
    out = capsys.readouterr().out
    most = manual_points(NB)
    assert status == 0 and f"{most - 1:g}/{most:g}" in out
    with open(workspace / CSV_NAME) as handle:
        row = next(csv.DictReader(handle))
    assert (float(row["manual_score"]), float(row["manual_pending"]), row["status"]) == (most - 1, 0, "graded")
    assert (float(row["auto_score"]), row["review"]) == (auto_points(NB), "")  # the reviewed drawing's points
    assert not (workspace / "grades.csv").exists()  # nbgrader export's file, never ours
    html = (workspace / "feedback" / STUDENT / "maskdiff" / "04_training.html").read_text()
    # notebook 04's autograded points, all passed (checked above), and the manual ones
    auto = auto_points(NB)
    assert f"Score: {auto + most - 1:g} / {auto + most:g}" in html and "still to be graded" not in html


def test_inert_output_rebuilds_from_allowed_fields_only():
    png = figure_png()
    evil = {"output_type": "display_data", "data": {"image/png": png, "text/html": "<b>x</b>"},
            "metadata": {"image/png": {"width": 100, "unconfined": True}, "filenames": {"image/png": "x"}},
            "transient": {"display_id": "x"}}
    clean = inert.inert_output(evil)
    assert clean.data["image/png"] == png and "text/html" not in clean.data
    assert clean.metadata == {"image/png": {"width": 100}} and "transient" not in clean
    assert inert.inert_output({"output_type": "nonsense"}).output_type == "stream"
    assert inert.inert_output("not a dict").output_type == "stream"
    assert "not base64" in inert.inert_output({"output_type": "display_data",
                                               "data": {"image/jpeg": "%%%"}}).data["text/plain"]
    json.dumps(clean)  # plain data


@pytest.mark.parametrize("source", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
    "[x](jav&#97;script:alert(1))", "<javascript:alert(3)>", "[r][1]\n\n[1]: javascript:alert(1)",
    "<div style='position:fixed'>x</div>", "<script\nalert(1)</script>", "![t](https://example.org/t.png)",
    "<iframe src='/api/terminals'></iframe>", "<a href='data:text/html,x'>d</a>",
])
def test_hostile_markdown_is_shown_as_text(source):
    from nbformat.v4 import new_markdown_cell
    cell = new_markdown_cell(source)
    assert inert.inert_markdown(cell)
    assert inert.markdown_problems(cell.source) == [] and source in cell.source


@pytest.mark.parametrize("source", [
    "Plain **bold**, `code <b>`, $a<b$, $$x^2$$ and [a link](https://example.org).",
    "# Heading\n\n- one\n- two\n\n> a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |", "a < b and c > d",
])
def test_plain_markdown_is_left_alone(source):
    from nbformat.v4 import new_markdown_cell
    cell = new_markdown_cell(source)
    assert inert.inert_markdown(cell) == [] and cell.source == source
