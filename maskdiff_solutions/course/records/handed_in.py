"""Manually graded cells are graded on what the student ran, not on the grader's re-run.

nbgrader clears every output and re-runs the notebook, and the re-run is shrunk (quick mode, stand-in
networks and stories): a loss curve of 200 steps, stories of 20. The plots and printouts a person
grades are the student's own, saved in the notebook they handed in. After autograde, `carry` puts
them back into the graded notebook, which both formgrader and the feedback pages show: each manually
graded code cell gets the outputs as handed in, under a label saying so, and after them the grader's
re-run, under a label of its own. So does a drawing the checker's reader could not decide on (a
review, grading/core.Review): its drawing cell shows the student's figure and the re-run's, and its
test cell, which a person then scores, the reader's reason.

The handed-in outputs are the student's JSON, not a kernel's: each goes through `inert.inert_output`
(text and checked images only, cut to size) and the cell and the notebook have budgets of their own.
Student markdown cells are made inert the same way (`inert.inert_markdown`).
"""
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
                      "or cleared before handing in), so a person grades it on the re-run below."),
    RERUN_LABEL: ("**Re-run by the grader** in quick mode (shrunk experiments, stand-in networks and stories): "
                  "it shows that your code runs, not the results that are graded."),
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


def carry(graded_path, handed_in_path, release_path, reviews=None):
    """Put the handed-in outputs of every manually graded code cell, and of every drawing sent to review
    (`reviews`: {test cell: the reader's reason}), into the graded notebook, labelled, before the
    re-run's; put each reason into its test cell; make the student's markdown inert. Returns the
    grade_ids carried."""
    reviews = reviews or {}
    drawings = {drawing_of(test): test for test in reviews}
    graded = notebooks.read(graded_path)
    try:
        handed = {notebooks.grade_id(cell): cell for cell in notebooks.read(handed_in_path).cells
                  if notebooks.grade_id(cell)}
    except Exception:  # noqa: BLE001 - prepare wrote it; if it cannot be read, show the re-run alone
        handed = {}
    ours = {cell.source for cell in notebooks.read(release_path).cells if cell.cell_type == "markdown"}
    carried, budget = [], MAX_NOTEBOOK_CHARS
    for cell in graded.cells:
        if cell.cell_type == "markdown" and cell.source not in ours:
            inert.inert_markdown(cell)
        name = notebooks.grade_id(cell)
        if cell.cell_type == "code" and name in reviews:
            cell.outputs = [label(REVIEW_LABEL), reason(reviews[name]), *cell.get("outputs", [])]
        if cell.cell_type != "code" or not (notebooks.is_manual(cell) or name in drawings):
            continue
        own, used = handed_in_outputs(handed.get(name, {}), budget)
        budget -= used
        rerun = list(cell.get("outputs", []))
        first = [label(REVIEW_DRAWING_LABEL)] if name in drawings else []
        cell.outputs = [*first, label(STUDENT_LABEL if own else NO_OUTPUT_LABEL), *own, label(RERUN_LABEL), *rerun]
        carried.append(name)
    # nbgrader leaves graded notebooks read-only (0444), which only root may ignore
    Path(graded_path).chmod(Path(graded_path).stat().st_mode | stat.S_IWUSR)
    notebooks.write(graded, graded_path)
    return carried
