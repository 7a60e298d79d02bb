"""A written answer is graded beside the student's own outputs of the cells it discusses
(course/records/handed_in.py `discussed` and `carry`): the figures, printouts and try-it runs above it
in its section keep their handed-in outputs, labelled, before the grader's quick re-run, in formgrader
and on the feedback page.

What each answer of the notebooks discusses is read from our notebooks, without a grading. Then
one notebook 05, handed in with the student's own figure (and hostile outputs after it) in the cell
`confidence_agreement` discusses and the printout `update_by_hand` discusses never run, is graded once
for the tests that read its pages.
"""
import copy

import pytest
from nbformat.v4 import new_markdown_cell, new_output
from nbgrader.api import Gradebook
from nbgrader.utils import compute_checksum

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records import handed_in
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.term.demo import solved
from tests.support.pages import PWNED, active, figure_png, formgrader_view, hostile_outputs

pytestmark = pytest.mark.course

# Every written answer and the cells a student writes that it discusses (its figures, printouts, try-it
# runs; given cells that print join them): the question above each names them. The others discuss no
# output: a proof, a rule in words, an argument from code, a conversation copied into the answer, and
# notebook 04's comparison of the stories in the code cell graded by hand just above it.
DISCUSSES = {
    "telescoping_product": ["plot_schedule"],
    "reverse_step_sums_to_one": [],
    "greedy_price": ["show_greedy_runs", "plot_greedy_bars"],
    "guesses_and_capitals": ["token_split", "one_mask_guesses", "two_mask_guesses", "capitals_by_undiffusing"],
    "how_it_writes": ["chat_show", "more_questions"],
    "greedy_and_fewer_steps": ["greedy_answers", "fewer_steps"],
    "temperature_choice": ["temperatures"],
    "conversation": [],
    "how_close": ["plot_two_sentence_loss"],
    "learned_bayes": ["show_bayes_comparison"],
    "story_settings_comparison": [],
    "confidence_agreement": ["plot_confidence"],
    "budget_rule": [],
    "update_by_hand": ["show_worked_example"],
    "when_blocks_help": ["plot_commit_order"],
    "approximate_cache": ["plot_cache_drift"],
    "exact_cache_price": ["show_costs"],
    "naming_trap": [],
    "remasking_fixes": ["plot_remasking"],
    "loop_fixes": ["plot_loop"],
    "one_number": ["plot_entropy_perplexity"],
    "what_the_loop_changed": ["loop_stories"],
    "visible_word_evidence": [],
    "revises_by_itself": ["plot_few_steps"],
    "uniform_stories": ["story_samples"],
}


def test_each_written_answer_discusses_the_cells_its_question_names(course):
    found, given = {}, {}
    for name in course.notebooks():
        release = notebooks.read(course.release_dir / name)
        by_answer = handed_in.discussed(release)
        assert by_answer == handed_in.discussed(notebooks.read(course.source_dir / name))
        written = {notebooks.grade_id(c) for c in release.cells if notebooks.is_solution(c)}
        for answer in (notebooks.grade_id(c) for c in release.cells
                       if notebooks.is_manual(c) and c.cell_type == "markdown"):
            found[answer] = [cell for cell, by in by_answer.items() if by == answer and cell in written]
        given.update(((name, cell), by) for cell, by in by_answer.items() if cell not in written)
    assert found == DISCUSSES
    # given cells that print join the answer after them: the real network's guesses, the scorer it loaded,
    # the exact law of notebook 08's table
    assert (given[("03_real_language_model.ipynb", "show_guesses")], given[("06_revising_and_faster.ipynb", "load_scorer")],
            given[("08_noise_without_a_mask.ipynb", "uniform_exact")], given[("08_noise_without_a_mask.ipynb", "load_scorer")]) \
        == ("guesses_and_capitals", "one_number", "revises_by_itself", "uniform_stories")


NB04 = "04_training.ipynb"


def carried(course, tmp_path, handed_outputs, heading=None, reviews=None):
    """`carry` on notebook 04 as graded (every cell the re-run's one line; a markdown cell the student
    added above `how_close` holding `heading`) and as handed in (`handed_outputs`: {grade_id: outputs});
    the graded cells by grade_id."""
    graded = notebooks.read(course.release_dir / NB04)
    for cell in graded.cells:
        if cell.cell_type == "code":
            cell.outputs = [new_output("stream", name="stdout", text="the re-run\n")]
    if heading:
        at = next(i for i, c in enumerate(graded.cells) if notebooks.grade_id(c) == "how_close")
        graded.cells.insert(at, new_markdown_cell(heading))
    handed = notebooks.read(course.release_dir / NB04)
    for cell in handed.cells:
        cell.outputs = handed_outputs.get(notebooks.grade_id(cell), []) if cell.cell_type == "code" else None
        if cell.outputs is None:
            del cell["outputs"]
    notebooks.write(graded, tmp_path / "graded.ipynb")
    notebooks.write(handed, tmp_path / "handed.ipynb")
    names = handed_in.carry(tmp_path / "graded.ipynb", tmp_path / "handed.ipynb", course.release_dir / NB04, reviews)
    return names, {notebooks.grade_id(c): c for c in notebooks.read(tmp_path / "graded.ipynb").cells}


def labels(cell):
    return [o["data"]["text/markdown"] for o in cell.outputs if "text/markdown" in o.get("data", {})]


def test_the_budget_goes_first_to_the_cell_graded_on_its_outputs(course, tmp_path, monkeypatch):
    """The loss curve how_close discusses comes first in the notebook, the stories graded by hand
    after it: the notebook's budget is theirs before the curve's."""
    monkeypatch.setattr(handed_in, "MAX_NOTEBOOK_CHARS", 3000)
    story = new_output("stream", name="stdout", text="a story of mine\n" * 100)      # 1,600 characters
    curve = [new_output("stream", name="stdout", text="x" * 1000) for _ in range(3)]
    names, cells = carried(course, tmp_path, {"stories_four_settings": [story], "plot_two_sentence_loss": curve})
    assert {"stories_four_settings", "plot_two_sentence_loss"} <= set(names)
    assert cells["stories_four_settings"].outputs[1].text == story.text
    own = cells["plot_two_sentence_loss"].outputs
    assert labels(cells["plot_two_sentence_loss"]) == [handed_in.DISCUSSED_LABEL, handed_in.DISCUSSED_RERUN_LABEL]
    assert [o.text for o in own[1:3]] == ["x" * 1000, "[left out by the grader: 2 more handed-in outputs, over "
                                                      "its budget]\n"]


def test_a_drawing_to_review_that_an_answer_discusses_is_carried_once(course, tmp_path):
    png = figure_png()
    drawing = [new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})]
    names, cells = carried(course, tmp_path, {"plot_two_sentence_loss": drawing},
                           reviews={"test_plot_two_sentence_loss": "a curve it could not place"})
    cell = cells["plot_two_sentence_loss"]
    assert names.count("plot_two_sentence_loss") == 1
    assert labels(cell) == [handed_in.REVIEW_DRAWING_LABEL, handed_in.STUDENT_LABEL, handed_in.RERUN_LABEL]
    assert sum(o.get("data", {}).get("image/png") == png for o in cell.outputs) == 1


def test_what_an_answer_discusses_is_read_from_our_notebook_not_the_students(course, tmp_path):
    """A heading the student adds starts no section: their markdown cannot move the cells carried. A
    given cell that printed nothing either way gets no labels."""
    _, plain = carried(course, tmp_path, {})
    names, cells = carried(course, tmp_path, {}, heading="## My own section\n\nMy notes.")
    assert "plot_two_sentence_loss" in names and labels(cells["plot_two_sentence_loss"]) == labels(
        plain["plot_two_sentence_loss"]) == [handed_in.NO_OUTPUT_LABEL, handed_in.DISCUSSED_RERUN_LABEL]
    assert labels(cells["training"]) == [handed_in.NO_OUTPUT_LABEL, handed_in.DISCUSSED_RERUN_LABEL]  # the re-run printed
    bare = tmp_path / "bare.ipynb"
    notebooks.write(notebooks.read(course.release_dir / NB04), bare)   # no outputs anywhere: nothing to show
    assert handed_in.carry(bare, bare, course.release_dir / NB04) == ["stories_four_settings"]  # graded on them


# ------------------------------------------------------------------ one notebook 05 graded

NB = "05_sampler_internals.ipynb"
STUDENT = "own_figures"
FIGURE_CELL, ANSWER = "plot_confidence", "confidence_agreement"
NOT_RUN, NOT_RUN_ANSWER = "show_worked_example", "update_by_hand"
OWN_TEXT = "my three scores, from my full run on Colab"
ANSWER_TEXT = "The three scores agree on the surest positions. <img src=x onerror=alert('pwned-md')>"


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp("discussed")
    nb = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))
    png = figure_png("my three confidence scores")
    for cell in nb.cells:
        name = notebooks.grade_id(cell)
        if name == FIGURE_CELL:
            cell.outputs = [new_output("stream", name="stdout", text=OWN_TEXT + "\n"),
                            new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
                            *hostile_outputs(png)]
        if name == NOT_RUN:
            cell.outputs = []
        if name == ANSWER:
            cell.source = ANSWER_TEXT
    (folder / "collected" / STUDENT).mkdir(parents=True)
    notebooks.write(nb, folder / "collected" / STUDENT / NB)
    report = grade(course, folder / "collected", folder / "ws", progress=False, notebooks=["05"], canary=False)
    return folder / "ws", report, png


def pages(course, workspace):
    return {"formgrader": formgrader_view(course, workspace, STUDENT, NB),
            "feedback": (workspace / "feedback" / STUDENT / "maskdiff" / NB.replace(".ipynb", ".html")).read_text()}


def graded_cells(workspace):
    nb = notebooks.read(workspace / "autograded" / STUDENT / "maskdiff" / NB)
    return nb, {notebooks.grade_id(c): c for c in nb.cells}


@pytest.mark.slow
@pytest.mark.nb05
def test_the_answer_is_graded_beside_the_students_own_figure(course, graded):
    workspace, report, png = graded
    row = report.rows[0]
    assert (row.status, row.reason, row.auto_score) == ("graded", "", row.auto_max), row   # nbgrader took it
    nb, cells = graded_cells(workspace)
    order = [notebooks.grade_id(c) for c in nb.cells]
    assert order.index(FIGURE_CELL) < order.index(ANSWER)
    figure = cells[FIGURE_CELL].outputs
    assert figure[0].data["text/markdown"] == handed_in.DISCUSSED_LABEL
    assert figure[1].text == OWN_TEXT + "\n" and figure[2].data["image/png"] == png
    assert labels(cells[FIGURE_CELL]) == [handed_in.DISCUSSED_LABEL, handed_in.DISCUSSED_RERUN_LABEL]
    rerun_pngs = [o.data["image/png"] for o in figure[figure.index(next(o for o in figure if o.get("data", {}).get(
        "text/markdown") == handed_in.DISCUSSED_RERUN_LABEL)):] if "image/png" in o.get("data", {})]
    assert rerun_pngs and png not in rerun_pngs
    shown = pages(course, workspace)
    words = {"formgrader": "which the written answer below discusses", "feedback": "which your written answer below "
                                                                                  "discusses"}
    for page, html in shown.items():   # the label, the student's text and figure, the re-run, then the answer
        assert html.index(words[page]) < html.index(OWN_TEXT) < html.index(png) < html.index("Re-run by the grader") \
            < html.index(rerun_pngs[0]) < html.index("The three scores agree"), page
    assert "grade that answer with them in view" not in shown["feedback"]   # words for the grader stay in formgrader


@pytest.mark.slow
@pytest.mark.nb05
def test_a_discussed_cell_handed_in_without_running_says_so(course, graded):
    workspace = graded[0]
    _, cells = graded_cells(workspace)
    assert labels(cells[NOT_RUN]) == [handed_in.NO_OUTPUT_LABEL, handed_in.DISCUSSED_RERUN_LABEL]
    assert cells[NOT_RUN].outputs[0].data["text/markdown"] == handed_in.NO_OUTPUT_LABEL
    assert len(cells[NOT_RUN].outputs) > 2   # the re-run's printout after its label
    shown = pages(course, workspace)
    words = {"formgrader": "As handed in: no outputs", "feedback": "As you handed it in: no outputs"}
    assert "so a person sees only the grader" in shown["feedback"]
    for page, html in shown.items():   # once, above the answer that discusses it
        assert html.count(words[page]) == 1 and html.index(words[page]) < html.index("Why did the prefix scores")


@pytest.mark.slow
@pytest.mark.nb05
@pytest.mark.parametrize("page", ["formgrader", "feedback"])
def test_hostile_outputs_of_a_discussed_cell_stay_within_budget_and_inert(course, graded, page):
    workspace = graded[0]
    html = pages(course, workspace)[page]
    for word in PWNED[:-1]:
        assert word not in html, word
    assert active(html, "pwned") == [] and "<img src=x" not in html and "pwned-md" in html
    assert "/etc/passwd" not in html and "the html's plain twin" in html
    assert "z" * 20_001 not in html and "z" * 1000 in html
    _, cells = graded_cells(workspace)
    outputs = cells[FIGURE_CELL].outputs
    own = outputs[1:outputs.index(next(o for o in outputs[1:] if o.get("data", {}).get("text/markdown")
                                       == handed_in.DISCUSSED_RERUN_LABEL))]
    assert len(own) == handed_in.MAX_OUTPUTS + 1 and "more handed-in outputs, over its budget" in own[-1].text
    for output in own:
        assert set(output.get("data", {})) <= {"text/plain", "image/png", "image/jpeg", "image/gif"}
        assert set(output.get("metadata", {})) <= {"image/png", "maskdiff"}


@pytest.mark.slow
@pytest.mark.nb05
def test_the_carried_outputs_leave_nbgraders_checksums_alone(graded):
    """nbgrader checks a graded cell by its checksum: source, kind, points and id, never outputs. Each
    graded cell of the notebook, carried outputs and all, still has the checksum of the gradebook's."""
    workspace = graded[0]
    nb, _ = graded_cells(workspace)
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        book = gradebook.find_notebook(NB.replace(".ipynb", ""), "maskdiff")
        stored = {cell.name: cell.checksum for cell in book.source_cells}
    locked = [c for c in nb.cells if notebooks.nbgrader(c).get("locked") and notebooks.grade_id(c) in stored]
    assert len(locked) > 10
    for cell in locked:
        assert compute_checksum(cell) == stored[notebooks.grade_id(cell)], notebooks.grade_id(cell)
    for cell in (c for c in nb.cells if notebooks.grade_id(c) in (FIGURE_CELL, NOT_RUN)):
        bare = copy.deepcopy(cell)
        bare.outputs = []
        assert compute_checksum(bare) == compute_checksum(cell) and cell.outputs
