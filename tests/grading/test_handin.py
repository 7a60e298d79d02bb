"""maskdiff_client/handin.py, the check students run before they hand in (the notebooks' last cell):
what it lists for a finished notebook and for one with work left, that it leaves the student's
variables and random state alone, how it finds the notebook on Colab and in Jupyter, and that under
the grader it does nothing. The notebooks themselves are run with it in
tests/course/term/test_notebooks.py (the reference: nothing left) and test_release.py (the release:
everything listed); a notebook with a cell skipped and one run again, below."""
import json
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
import torch

from maskdiff_client import handin
from maskdiff_solutions.course.intake import notebooks as nbtools
from tests.support import as_student

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(p.name for p in (ROOT / "source" / "maskdiff").glob("*.ipynb"))


def code(gid, source, *, solution=False, grade=False, locked=False, points=None, outputs=(), count=None):
    meta = {"grade_id": gid, "solution": solution, "grade": grade, "locked": locked, "schema_version": 3}
    if points is not None:
        meta["points"] = points
    return {"cell_type": "code", "metadata": {"nbgrader": meta} if gid else {}, "source": source,
            "outputs": list(outputs), "execution_count": count}


def answer(gid, text, points=2):
    return {"cell_type": "markdown", "source": text,
            "metadata": {"nbgrader": {"grade_id": gid, "solution": True, "grade": True, "points": points}}}


def notebook(*cells):
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


FIGURE = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
TEXT = {"output_type": "stream", "name": "stdout", "text": "t=0 the cat\n"}
STUB = "def Double(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
DOUBLE = "def Double(x):\n    return 2 * x"
TEST = ("### BEGIN HIDDEN TESTS\nfrom maskdiff_client import run_check\nrun_check('Double', Double)\n"
        "### END HIDDEN TESTS\nassert Double(3) == 6, f'Double(3) gave {Double(3)}, expected 6'\nprint('passed')")


@pytest.fixture(autouse=True)
def from_outputs(monkeypatch):
    """The notebooks' own execution counts and outputs decide what ran (no recorder in this process)."""
    monkeypatch.setattr(handin, "cell_runs", lambda: {})
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


def rows(nb, namespace):
    return {row["name"]: row for row in handin.hand_in_rows(nb, namespace)}


def finished():
    return notebook(code("setup", "import torch", locked=True, count=1),
                    code("Double", DOUBLE, solution=True, count=2),
                    code("test_Double", TEST, grade=True, locked=True, points=2, count=3, outputs=[TEXT]),
                    code("plot_doubles", "plt.plot([1, 2])", solution=True, count=4, outputs=[FIGURE]),
                    code("test_plot_doubles", "show_reading('plot_doubles')", grade=True, locked=True, points=2,
                         count=5),
                    answer("why_double", "Because two halves make a whole."),
                    code("hand_in_check", "drawing_reader.check_before_handing_in('x.ipynb')", locked=True))


def test_a_finished_notebook_has_nothing_left(capsys):
    nb = finished()
    listed = handin.check_before_handing_in("01_x.ipynb", namespace={"Double": lambda x: 2 * x}, notebook=nb)
    report = capsys.readouterr().out
    assert "nothing left that this check can see" in report, report
    assert [r["name"] for r in listed] == ["Double", "test_Double", "plot_doubles", "why_double"]
    assert not any(r["left"] for r in listed)
    by_name = {r["name"]: r for r in listed}
    assert by_name["plot_doubles"]["points"] == 2, "a drawing's row carries its test cell's points"
    assert "1 visible check run again" in report
    for platform in ("Canvas", "Moodle", "Gradescope", "File > Download > Download .ipynb"):
        assert platform in report


def test_what_is_left_is_listed_with_what_to_do():
    nb = notebook(code("setup", "import torch", locked=True, count=1),
                  code("carried_from_01", "def MakeSchedule(T):\n    raise NotImplementedError()\n\n"
                       "def ForwardMask(x, t, b):\n    return x", solution=True, count=2),
                  code("Double", STUB, solution=True, count=3),
                  code("test_Double", TEST, grade=True, locked=True, points=2),
                  code("Halve", "def Halve(x):\n    return x / 3", solution=True, count=4),
                  code("test_Halve", "assert Halve(4) == 2, f'Halve(4) gave {Halve(4)}, expected 2'",
                       grade=True, locked=True, points=1),
                  code("Triple", "def Triple(x):\n    return 3 * x", solution=True),
                  code("test_Triple", "assert Triple(1) == 3, 'Triple(1)'", grade=True, locked=True, points=1),
                  code("plot_doubles", "print(Double(2))", solution=True, count=5, outputs=[TEXT]),
                  code("test_plot_doubles", "show_reading('plot_doubles')", grade=True, locked=True, points=2),
                  code("show_halves", "print(halves)", solution=True, count=6, outputs=[
                      {"output_type": "error", "ename": "NameError", "evalue": "name 'halves' is not defined"}]),
                  code("test_show_halves", "show_reading('show_halves')", grade=True, locked=True, points=1),
                  code("plot_never", "plt.plot([1])", solution=True),
                  code("test_plot_never", "show_reading('plot_never')", grade=True, locked=True, points=1),
                  answer("why_double", "YOUR ANSWER HERE"))
    found = rows(nb, {"Halve": lambda x: x / 3})
    assert [name for name, row in found.items() if not row["left"]] == ["Halve"], found
    assert "still the stub of MakeSchedule: paste yours from notebook 01" in found["carried_from_01"]["state"]
    assert "still the stub" in found["Double"]["state"]
    assert found["test_Double"]["state"].startswith("fails: NameError"), "Double never ran: not in the namespace"
    assert "run the cells above first" in found["test_Double"]["state"]
    assert found["test_Halve"]["state"] == "fails: AssertionError: Halve(4) gave 1.3333333333333333, expected 2"
    assert "not run" in found["Triple"]["state"]
    assert "drew no figure" in found["plot_doubles"]["state"]
    assert found["show_halves"]["state"].startswith("stopped with NameError")
    assert "not run" in found["plot_never"]["state"]
    assert "YOUR ANSWER HERE" in found["why_double"]["state"]
    assert found["why_double"]["kind"] == "written answer" and found["show_halves"]["points"] == 1


def test_a_cell_that_ran_before_a_cell_above_it_is_named():
    """Re-running a function after the cells below it ran leaves them showing (and holding) what the
    old function did: the autograder runs top to bottom."""
    nb = finished()
    nb["cells"][1]["execution_count"] = 9          # Double re-run last
    found = rows(nb, {"Double": lambda x: 2 * x})
    assert "ran before a cell above it" in found["plot_doubles"]["state"] and found["plot_doubles"]["left"]
    assert not found["Double"]["left"] and not found["test_Double"]["left"], \
        "a test cell re-run late is no change to the state below it"


def test_given_cells_that_never_ran_are_named():
    nb = finished()
    nb["cells"][0]["execution_count"] = None
    found = rows(nb, {"Double": lambda x: 2 * x})
    assert found["given cells"]["left"] and "setup" in found["given cells"]["state"]


def test_the_students_variables_and_random_state_are_left_alone(tmp_path):
    import matplotlib.pyplot as plt
    namespace = {"x_0": [1, 2, 3], "t": torch.zeros(3), "torch": torch, "plt": plt, "os": os,
                 "Double": lambda v: 2 * v}
    check = textwrap.dedent(f"""
        x_0.append(4)
        t += 1
        torch.manual_seed(1)
        y = Double(2)
        plt.figure()
        os.chdir({str(tmp_path)!r})
        print("noise")
        assert y == 4, "Double(2)"
    """)
    torch.manual_seed(123)
    state = torch.get_rng_state()
    figures, folder = plt.get_fignums(), os.getcwd()
    assert handin.run_visible_check(check, namespace) is None
    assert namespace["x_0"] == [1, 2, 3] and namespace["t"].tolist() == [0, 0, 0]
    assert "y" not in namespace
    assert torch.equal(torch.get_rng_state(), state)
    assert plt.get_fignums() == figures and os.getcwd() == folder


def test_a_check_that_never_ends_is_stopped(monkeypatch):
    monkeypatch.setattr(handin, "CHECK_SECONDS", 1)
    assert "did not finish in 1 s" in handin.run_visible_check("while True:\n    pass", {})


def test_colab_hands_over_the_page(monkeypatch):
    """On Colab the notebook comes from the page itself (unsaved edits included), in Colab's format."""
    nb = finished()
    for cell in nb["cells"]:
        cell["source"] = cell["source"].splitlines(keepends=True)   # lists of lines, as Colab sends them
    asked = []

    def blocking_request(kind, request="", timeout_sec=None):
        asked.append(kind)
        return {"ipynb": nb}

    message = types.ModuleType("google.colab._message")
    message.blocking_request = blocking_request
    colab = types.ModuleType("google.colab")
    colab._message = message
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab._message", message)
    read, where = handin.read_own_notebook("01_x.ipynb")
    assert asked == ["get_ipynb"] and read is nb and where == "Colab's page"
    assert not any(r["left"] for r in handin.hand_in_rows(read, {"Double": lambda x: 2 * x}))


def test_jupyter_reads_the_saved_file_or_a_renamed_copy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    handin.check_before_handing_in("01_x.ipynb", namespace={})
    assert "could not read the notebook: no file 01_x.ipynb here" in capsys.readouterr().out
    (tmp_path / "Copy of 01_x (1).ipynb").write_text(json.dumps(finished()))
    read, where = handin.read_own_notebook("01_x.ipynb")
    assert where.startswith(str(tmp_path / "Copy of 01_x (1).ipynb")) and "save before" in where
    elsewhere = tmp_path / "lab" / "work.ipynb"
    elsewhere.parent.mkdir()
    elsewhere.write_text(json.dumps(notebook()))
    monkeypatch.setenv("JPY_SESSION_NAME", str(elsewhere))   # JupyterLab names the kernel's notebook
    assert handin.read_own_notebook("01_x.ipynb")[0] == notebook()


def test_cells_without_their_marks_are_said_not_passed(capsys):
    nb = finished()
    for cell in nb["cells"]:
        cell["metadata"] = {}
    found = rows(nb, {})
    assert list(found) == ["notebook"] and found["notebook"]["left"] and "lost the marks" in found["notebook"]["state"]


def test_colab_that_does_not_answer_is_said(monkeypatch, tmp_path, capsys):
    message = types.ModuleType("google.colab._message")
    message.blocking_request = lambda *args, **kwargs: None   # Colab's reply when the page does not answer
    colab = types.ModuleType("google.colab")
    colab._message = message
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab._message", message)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    handin.check_before_handing_in("01_x.ipynb", namespace={})
    said = capsys.readouterr().out
    assert "Colab did not hand over the notebook: it answered None" in said and "could not read the notebook" in said


def test_a_check_that_breaks_still_says_how_to_hand_in(monkeypatch, capsys):
    monkeypatch.setattr(handin, "hand_in_rows", lambda *args: 1 / 0)
    assert handin.check_before_handing_in("01_x.ipynb", namespace={}, notebook=finished()) is None
    said = capsys.readouterr().out
    assert "stopped on ZeroDivisionError" in said and "Nothing of your notebook changed" in said and "Gradescope" in said


@pytest.mark.parametrize("reader", ["none", "older"])
def test_the_last_cell_without_the_check_says_what_to_do(reader, capsys):
    """No drawing_reader.py beside the notebook (and none fetched), or a copy from before it held the
    check (the set-up cell fetches only when there is none): the cell says what to do in each case."""
    cell = nbtools.read(ROOT / "release" / "maskdiff" / NOTEBOOKS[0]).cells[-1]
    exec(cell.source, {"GRADING": False, "drawing_reader": None if reader == "none" else types.ModuleType("dr")})
    said = capsys.readouterr().out
    assert "put the course's drawing_reader.py beside the notebook" in said
    assert "delete an old copy and run the set-up cell again while online" in said


def test_under_the_grader_it_does_nothing(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert handin.check_before_handing_in("01_x.ipynb") is None
    assert "the autograder skips it" in capsys.readouterr().out


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_ends_with_the_check_and_it_names_every_task(name):
    """The last cell runs the check on its own notebook; its table has one row for each thing asked
    (functions, drawings and printouts with their tests' points, visible checks, answers, carried and
    try-it cells), classified as the course's tooling classifies them."""
    nb = nbtools.read(ROOT / "source" / "maskdiff" / name)
    last = nb.cells[-1]
    assert nbtools.grade_id(last) == handin.HAND_IN_CELL and nbtools.nbgrader(last)["locked"]
    assert f'drawing_reader.check_before_handing_in("{name}")' in last.source
    assert not nbtools.nbgrader(last).get("points")
    found = handin.hand_in_rows(json.loads(json.dumps(nb)), {})
    drawings = {nbtools.grade_id(c) for c in nb.cells if nbtools.is_drawing(c)}
    kinds = {}
    for cell in nb.cells:
        gid = nbtools.grade_id(cell)
        if nbtools.is_function(cell):
            kinds[gid] = "function"
        elif nbtools.is_drawing(cell):
            kinds[gid] = "drawing" if gid.startswith("plot_") else "printout"
        elif nbtools.is_carried(cell):
            kinds[gid] = "your earlier functions"
        elif nbtools.is_experiment(cell):
            kinds[gid] = "try it (not graded)"
        elif nbtools.is_manual(cell):
            kinds[gid] = "written answer" if cell.cell_type == "markdown" else "graded by a person"
        elif nbtools.is_test(cell) and gid[len("test_"):] not in drawings:
            kinds[gid] = "visible check"
    assert {r["name"]: r["kind"] for r in found if r["name"] != "given cells"} == kinds
    points = {r["name"]: r["points"] or 0 for r in found}
    total = sum(nbtools.nbgrader(c).get("points", 0) for c in nb.cells if nbtools.nbgrader(c).get("grade"))
    assert sum(points.values()) == total, "every point of the notebook is on a row"


# A real IPython shell, as a kernel has: the recorder remembers each cell's latest run by its text.
SHELL = textwrap.dedent("""
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    import matplotlib
    matplotlib.use("Agg")
    shell = InteractiveShell.instance()
    shell.displayhook.write_output_prompt = shell.displayhook.write_format_data = lambda *a, **k: None
    shell.display_pub.publish = lambda *a, **k: None
    nb = json.load(open(sys.argv[1]))
    ran = json.load(open(sys.argv[2]))
    shell.run_cell(ran[0], store_history=True)    # the set-up cell, before the recorder starts
    from maskdiff_client import drawn, handin
    assert drawn.install(shell)
    for source in ran[1:]:
        shell.run_cell(source, store_history=True)  # as a kernel runs cells
    rows = handin.hand_in_rows(nb, shell.user_ns)
    print("ROWS", json.dumps({r["name"]: [r["left"], r["state"]] for r in rows}))
""")


def test_what_the_session_ran_decides_not_the_saved_file(tmp_path):
    """In a kernel the recorder knows what ran: a cell edited since it last ran is not run as it reads
    now, a drawing is read from its run (a figure, or the error it stopped on), and the set-up cell,
    run before the recorder started, is found in IPython's history."""
    nb = notebook(code("setup", "import matplotlib.pyplot as plt", locked=True),
                  code("Double", "def Double(x):\n    return 2 * x  # edited after it ran", solution=True),
                  code("Halve", "def Halve(x):\n    return x / 2", solution=True),
                  code("test_Halve", "assert Halve(4) == 2, 'Halve(4)'", grade=True, locked=True, points=1),
                  code("plot_doubles", "plt.plot([Double(1), Double(2)])", solution=True),
                  code("test_plot_doubles", "show_reading('plot_doubles')", grade=True, locked=True, points=2),
                  code("plot_broken", "plt.plot(undefined)", solution=True),
                  code("test_plot_broken", "show_reading('plot_broken')", grade=True, locked=True, points=2))
    ran = ["import matplotlib.pyplot as plt", "def Double(x):\n    return 2 * x",
           "def Halve(x):\n    return x / 2", "plt.plot([Double(1), Double(2)])", "plt.plot(undefined)"]
    (tmp_path / "nb.json").write_text(json.dumps(nb))
    (tmp_path / "ran.json").write_text(json.dumps(ran))
    out = subprocess.run([sys.executable, "-c", SHELL, str(tmp_path / "nb.json"), str(tmp_path / "ran.json")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert "ROWS" in out.stdout, out.stderr[-3000:]
    found = json.loads(out.stdout.split("ROWS", 1)[1])
    assert "given cells" not in found, found
    assert found["Double"] == [True, "not run as it reads now: run it"]
    assert found["Halve"] == [False, "written and run"] and found["test_Halve"] == [False, "passes"]
    assert found["plot_doubles"] == [False, "drew 1 figure"]
    assert found["plot_broken"][0] and found["plot_broken"][1].startswith("stopped with NameError")


@pytest.mark.slow
def test_a_notebook_with_a_cell_skipped_and_one_run_again(course, tmp_path):
    """Notebook 01's reference run as a student would, but its plot_masked_fraction cell never run and
    ForwardMask run again at the end: the check names the skipped drawing, and each cell below
    ForwardMask that now predates it; everything else stays done."""
    name = "01_noise_for_words.ipynb"
    ran = as_student.run(nbtools.read(course.source_dir / name), tmp_path / "student", name,
                         skip={"plot_masked_fraction", "test_plot_masked_fraction"},
                         again=["ForwardMask"])
    report = as_student.hand_in_report(ran)
    left = as_student.to_do(report)
    assert left.pop("plot_masked_fraction") == "drawing: not run as it reads now: run it", report
    assert set(left) == {"show_dissolution", "ForwardMaskFast", "plot_masked_histograms"}, report
    assert all("ran before a cell above it last ran" in state for state in left.values()), report
    assert "4 things left to do" in report
    assert {"MakeSchedule", "plot_schedule", "ForwardMask", "test_ForwardMask_rates"} <= set(as_student.done(report))
