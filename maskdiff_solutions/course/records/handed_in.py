"""Manually graded cells are graded on what the student ran, not on the grader's re-run.

nbgrader clears every output and re-runs the notebook, and the re-run is shrunk (quick mode, stand-in
networks and stories): a loss curve of 200 steps, stories of 20. The plots and printouts a person
grades are the student's own, saved in the notebook they handed in. After autograde, `carry` puts
them back into the graded notebook, which both formgrader and the feedback pages show: each manually
graded code cell gets the outputs as handed in, under a label saying so, and after them the grader's
re-run, under a label of its own. So does each cell a written answer discusses (`discussed`: the
figures, printouts and try-it runs above it in its section), and a drawing the checker's reader could
not decide on (a review, grading/core.Review): its drawing cell shows the student's figure and the
re-run's, and its test cell, which a person then scores, the reader's reason. A cell is carried once:
a drawing to review or a code cell graded by hand keeps its own labels when an answer discusses it too.

The handed-in outputs are the student's JSON, not a kernel's: each goes through `inert.inert_output`
(text and checked images only, cut to size) and the cell and the notebook have budgets of their own.
Student markdown cells are made inert the same way (`inert.inert_markdown`).
"""
import re
import stat
from pathlib import Path

from nbformat.v4 import new_output

from ..intake import notebooks
from . import inert

MAX_OUTPUTS = 30             # handed-in outputs kept per cell
MAX_CELL_CHARS = 4_000_000   # ... and characters per cell
MAX_NOTEBOOK_CHARS = 12_000_000  # ... and per notebook, all cells together
MARK = {"maskdiff": "handed-in"}  # metadata of the outputs and labels carry adds

STUDENT_LABEL = ("**As handed in: the student's own run.** These are the outputs saved in the notebook "
                 "the student handed in (their full-size run, e.g. on Colab). Grade this cell on them. "
                 "Only text and images are shown.")
NO_OUTPUT_LABEL = ("**As handed in: no outputs.** The student handed in this cell without outputs (not "
                   "run, or cleared before handing in).")
RERUN_LABEL = ("**Re-run by the grader** in quick mode (shrunk experiments, stand-in networks and "
               "stories): it shows that the code runs, not the results to grade.")
DISCUSSED_LABEL = ("**As handed in: the student's own run, which the written answer below discusses.** These "
                   "are the outputs saved in the notebook the student handed in (their full-size run, e.g. on "
                   "Colab): grade that answer with them in view. Any points of this cell itself come from the "
                   "autograder, which read the re-run. Only text and images are shown.")
DISCUSSED_RERUN_LABEL = ("**Re-run by the grader** in quick mode (shrunk experiments, stand-in networks and "
                         "stories): what an autograded check of this cell read, if it has one, not the run the "
                         "written answer below discusses.")
REVIEW_DRAWING_LABEL = ("**To review: the autograder's reader could not decide on this drawing** (its reason "
                        "is in the test cell below, which you score). The student's own run comes first, "
                        "then the grader's re-run, which is the figure the reader read.")
REVIEW_LABEL = ("**To review: give this test cell its points by hand.** The autograder's reader could not "
                "decide on the drawing above; what it saw and could not place:")

# The same labels in the feedback page, addressed to the student (course/records/feedback.py StudentWords).
FOR_STUDENT = {
    STUDENT_LABEL: ("**As you handed it in: your own run.** These are the outputs saved in the notebook you "
                    "handed in; a person grades this cell on them. Only text and images are shown."),
    NO_OUTPUT_LABEL: ("**As you handed it in: no outputs.** This cell was handed in without outputs (not run, "
                      "or cleared before handing in), so a person sees only the grader's re-run below."),
    DISCUSSED_LABEL: ("**As you handed it in: your own run, which your written answer below discusses.** These "
                      "are the outputs saved in the notebook you handed in; a person grades that answer with "
                      "them in view. Any points of this cell itself come from the autograder, which read the "
                      "re-run. Only text and images are shown."),
    RERUN_LABEL: ("**Re-run by the grader** in quick mode (shrunk experiments, stand-in networks and stories): "
                  "it shows that your code runs, not the results that are graded."),
    DISCUSSED_RERUN_LABEL: ("**Re-run by the grader** in quick mode (shrunk experiments, stand-in networks and "
                            "stories): what an autograded check of this cell read, if it has one; your written "
                            "answer is graded beside what you handed in, above."),
    REVIEW_DRAWING_LABEL: ("**A person looks at this drawing:** the autograder's reader could not decide on it "
                           "(its reason is in the test cell below). Your own run comes first, then the "
                           "grader's re-run, which is the figure the reader read."),
    REVIEW_LABEL: ("**A person gives this test cell its points:** the autograder's reader could not decide on "
                   "the drawing above. What it saw and could not place:"),
}


def label(text):
    return new_output("display_data", data={"text/markdown": text, "text/plain": text.replace("**", "")},
                      metadata=dict(MARK))


def for_student(output):
    """A label of carry's, reworded for the student's feedback page (other outputs as they are)."""
    text = output.get("data", {}).get("text/markdown") if output.get("metadata", {}).get("maskdiff") else None
    if text in FOR_STUDENT:
        words = FOR_STUDENT[text]
        output["data"] = {"text/markdown": words, "text/plain": words.replace("**", "")}
    return output


def handed_in_outputs(cell, budget):
    """(the cell's outputs made inert within the budgets, characters used)."""
    kept, used, dropped = [], 0, 0
    outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
    for output in outputs:
        if len(kept) >= MAX_OUTPUTS:
            dropped += 1
            continue
        clean = inert.inert_output(output)
        cost = inert.data_size(clean)
        if used + cost > min(MAX_CELL_CHARS, budget):
            dropped += 1
            continue
        if clean.output_type in ("display_data", "execute_result"):
            clean.metadata.update(MARK)
        kept.append(clean)
        used += cost
    if dropped:
        kept.append(new_output("stream", name="stderr", text=f"[left out by the grader: {dropped} more handed-in "
                                                             f"outputs, over its budget]\n"))
    return kept, used


def drawing_of(test_id):
    """The drawing cell a test cell grades (`test_plot_x` -> `plot_x`, CONTRIBUTING.md)."""
    return test_id[len("test_"):] if test_id.startswith("test_") else ""


def reason(text):
    """The reader's reason as plain text only (it may quote the student's labels)."""
    return new_output("display_data", data={"text/plain": str(text)[:4000]}, metadata=dict(MARK))


def starts_section(cell):
    """A markdown cell of ours with a `#` or `##` heading (not a line of a fenced code block)."""
    fenced = False
    for line in cell.source.splitlines() if cell.cell_type == "markdown" else []:
        fenced ^= line.lstrip().startswith("```")
        if not fenced and re.match(r"#{1,2}\s", line):
            return True
    return False


def looked_at(cell):
    """A code cell whose outputs a student looks at: a drawing, a try-it cell, a given cell (not a
    function's, a test's or the carried functions', whose outputs no answer discusses)."""
    return (cell.cell_type == "code" and bool(notebooks.grade_id(cell)) and not notebooks.is_test(cell)
            and not notebooks.is_function(cell) and not notebooks.is_carried(cell) and not notebooks.is_manual(cell))


def discussed(nb):
    """{grade_id: the written answer that discusses it} in our notebook `nb`: a manually graded
    markdown answer discusses the cells looked at above it, back to its section's heading or the
    manually graded cell before it (whose outputs are carried as its own)."""
    found, pending = {}, []
    for cell in nb.cells:
        if starts_section(cell) or notebooks.is_manual(cell):
            if notebooks.is_manual(cell) and cell.cell_type == "markdown":
                found.update((name, notebooks.grade_id(cell)) for name in pending)
            pending = []
        elif looked_at(cell):
            pending.append(notebooks.grade_id(cell))
    return found


def first_label(name, cell, drawings, answers):
    """The label a carried cell's handed-in outputs go under (None: not carried): a drawing to review,
    a manually graded code cell, then a cell an answer discusses."""
    if cell.cell_type != "code":
        return None
    if name in drawings or notebooks.is_manual(cell):
        return STUDENT_LABEL
    return DISCUSSED_LABEL if name in answers else None


def carry(graded_path, handed_in_path, release_path, reviews=None):
    """Put the handed-in outputs of every manually graded code cell, of every cell a written answer
    discusses (`discussed`) and of every drawing sent to review (`reviews`: {test cell: the reader's
    reason}) into the graded notebook, labelled, before the re-run's; put each reason into its test
    cell; make the student's markdown inert. A discussed cell that shows nothing either way is left
    alone. Returns the grade_ids carried."""
    reviews = reviews or {}
    drawings = {drawing_of(test): test for test in reviews}
    graded = notebooks.read(graded_path)
    try:
        handed = {notebooks.grade_id(cell): cell for cell in notebooks.read(handed_in_path).cells
                  if notebooks.grade_id(cell)}
    except Exception:  # noqa: BLE001 - prepare wrote it; if it cannot be read, show the re-run alone
        handed = {}
    release = notebooks.read(release_path)
    ours, answers = {cell.source for cell in release.cells if cell.cell_type == "markdown"}, discussed(release)
    chosen = {}
    for cell in graded.cells:
        if cell.cell_type == "markdown" and cell.source not in ours:
            inert.inert_markdown(cell)
        name = notebooks.grade_id(cell)
        if cell.cell_type == "code" and name in reviews:
            cell.outputs = [label(REVIEW_LABEL), reason(reviews[name]), *cell.get("outputs", [])]
        kind = first_label(name, cell, drawings, answers)
        if kind and name not in chosen and (kind != DISCUSSED_LABEL or cell.get("outputs")
                                            or handed.get(name, {}).get("outputs")):
            chosen[name] = (cell, kind)
    # the budget goes first to the cells graded on their handed-in outputs, then to those answers discuss
    budget = MAX_NOTEBOOK_CHARS
    for name, (cell, kind) in sorted(chosen.items(), key=lambda item: item[1][1] == DISCUSSED_LABEL):
        own, used = handed_in_outputs(handed.get(name, {}), budget)
        budget -= used
        first = [label(REVIEW_DRAWING_LABEL)] if name in drawings else []
        rerun = RERUN_LABEL if kind == STUDENT_LABEL else DISCUSSED_RERUN_LABEL
        cell.outputs = [*first, label(kind if own else NO_OUTPUT_LABEL), *own, label(rerun), *cell.get("outputs", [])]
    # nbgrader leaves graded notebooks read-only (0444), which only root may ignore
    Path(graded_path).chmod(Path(graded_path).stat().st_mode | stat.S_IWUSR)
    notebooks.write(graded, graded_path)
    return list(chosen)
