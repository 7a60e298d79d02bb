"""The autograde preprocessors on tiny notebooks: a dead kernel or a spent time budget fails the
remaining cells (so their tests cannot score; the time limits themselves: test_time_limits.py), huge
outputs are cut."""
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from maskdiff_solutions.course.run import preprocessors

pytestmark = pytest.mark.course


def run(cells, **traits):
    nb = new_notebook(cells=[new_code_cell(source) for source in cells])
    executor = preprocessors.SurvivingExecute(**traits)
    nb, _ = executor.preprocess(nb, {"metadata": {"path": "."}})
    return [[(o.get("ename"), o.get("evalue")) for o in c.outputs if o.output_type == "error"]
            for c in nb.cells]


@pytest.mark.slow
def test_a_dead_kernel_fails_its_cell_and_every_later_one():
    errors = run(["x = 1", "import os\nos._exit(3)", "x + 1", "assert True"])
    assert errors[0] == []
    assert errors[1][0][0] == preprocessors.KERNEL_DIED
    assert errors[2] == errors[3] == [(preprocessors.NOT_RUN, "not run: the kernel died in cell 2")]


def test_huge_outputs_are_cut():
    cell = new_code_cell("", outputs=[new_output("stream", name="stdout", text="x" * 50_000),
                                      new_output("execute_result", data={"text/plain": "y" * 30_000}),
                                      new_output("stream", name="stdout", text="short")])
    cell, _ = preprocessors.LimitOutputSize(max_chars=1000).preprocess_cell(cell, {}, 0)
    first, second, third = cell.outputs
    assert len(first.text) < 1100 and preprocessors.TRUNCATED in first.text and "50,000" in first.text
    assert len(second.data["text/plain"]) < 1100
    assert third.text == "short"


@pytest.mark.slow
def test_a_timeout_is_one_plain_sentence():
    """Issue 12: a loop interrupted at the limit left a long KeyboardInterrupt traceback (through tqdm and
    the kernel) above nbgrader's CellTimeoutError; one error remains, saying what to do."""
    from maskdiff_solutions.course.records.feedback import HideHiddenTracebacks
    nb = new_notebook(cells=[new_code_cell("from tqdm.auto import tqdm\nfor _ in tqdm(range(10**10)):\n    pass"),
                             new_code_cell("x = 1")])
    nb, _ = preprocessors.SurvivingExecute(timeout=2).preprocess(nb, {"metadata": {"path": "."}})
    errors = [o for o in nb.cells[0].outputs if o.output_type == "error"]
    assert [(o.ename, o.evalue) for o in errors] == [(preprocessors.TIMED_OUT, preprocessors.timeout_sentence(2))]
    assert "repeats(n)" in errors[0].evalue and "2 s" in errors[0].evalue
    cell, _ = HideHiddenTracebacks().preprocess_cell(nb.cells[0], {}, 0)
    assert [o.traceback for o in cell.outputs if o.output_type == "error"] == [[f"CellTimeoutError: {errors[0].evalue}"]]
    assert not [o for o in nb.cells[1].outputs if o.output_type == "error"]


def test_a_charts_page_form_is_a_note_not_a_huge_output():
    """A plotly or altair chart's output (megabytes of HTML and script) becomes a short note before it
    is counted: the grader reads the figure in the kernel, and the row must not say a huge output was cut."""
    from maskdiff_solutions.course.run.preprocessors import chart_note
    plotly = {"data": {"text/html": "<div id='x'></div><script>" + "Plotly.newPlot" * 100_000 + "</script>",
                       "text/plain": "Figure({...})"}, "metadata": {}}
    altair = {"data": {"application/vnd.vegalite.v5+json": {"mark": "line"}, "text/plain": "alt.Chart(...)"}}
    for content, library in ((plotly, "plotly"), (altair, "altair")):
        note = chart_note(content)
        assert list(note["data"]) == ["text/plain"] and library in note["data"]["text/plain"]
        assert len(str(note)) < 300
    table = {"data": {"text/html": "<table><tr><td>1</td></tr></table>", "text/plain": "   a\n0  1"}}
    assert chart_note(table) is None and chart_note({"text": "printed\n", "name": "stdout"}) is None
