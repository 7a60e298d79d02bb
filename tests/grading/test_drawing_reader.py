"""Students see what the reader sees: a drawing's test cell prints what the autograder's reader finds
in the drawing cell (maskdiff_client/seen.py), also on Colab, where the hidden package is absent and
the set-up cell fetches `drawing_reader.py` (course/term/reader.py `reader_text`) from the students'
repository. The description decides nothing."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

from maskdiff_client import seen
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term import publish, reader

BLOCK = textwrap.dedent("""
    import sys
    class Hidden:  # a student's Colab: neither course package can be imported
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("maskdiff_solutions", "maskdiff_client"):
                raise ImportError(f"No module named {name!r}")
    sys.meta_path.insert(0, Hidden())
""")

RUN = textwrap.dedent("""
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    outputs = []
    for source in json.load(open("cells.json")):
        result = shell.run_cell(source)
        outputs.append(result.success)
    print("CELLS_OK", json.dumps(outputs))
""")


def cell(nb, grade_id):
    return next(c.source for c in nb.cells if notebooks.grade_id(c) == grade_id)


def test_a_drawings_test_cell_prints_the_description_without_the_course_packages(course, tmp_path):
    release = notebooks.read(course.release_dir / "01_noise_for_words.ipynb")
    assert course.reader_url() in cell(release, "setup")
    (tmp_path / publish.READER).write_text(reader.reader_text())  # what the set-up cell fetches
    drawing = ("import matplotlib.pyplot as plt\n"
               "plt.plot(range(51), [1 - t / 50 for t in range(51)], label='alpha_bar')\n"
               "plt.axhline(0.5, color='k')\nplt.xlabel('step t')\nplt.legend()\nplt.show()")
    cells = [cell(release, "setup"), drawing, "print('scratch')",  # a scratch cell in between
             cell(release, "test_plot_schedule"), "print('t =  0  the cat sat')\nprint('t =  1  the [M] sat')",
             cell(release, "test_show_dissolution")]
    (tmp_path / "cells.json").write_text(json.dumps(cells))
    (tmp_path / "run.py").write_text(BLOCK + RUN)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MASKDIFF_CHECKER")}
    done = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, env={**env, "MPLBACKEND": "Agg"},
                          capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert "CELLS_OK [true, true, true, true, true, true]" in out, (out[-3000:], done.stderr[-3000:])
    assert "What the autograder's reader finds in plot_schedule:" in out
    assert "a curve of 51 points labelled 'alpha_bar'" in out and "a horizontal line at y = 0.5" in out
    assert "x label 'step t'" in out and "legend: 'alpha_bar'" in out
    assert "What the autograder's reader finds in show_dissolution:" in out and "2 lines" in out
    assert "passed" not in out and "fail" not in out.lower()  # no verdict


def test_histogram_heights_tell_the_runs_behind_them():
    counts = np.array([3, 5, 2, 0])
    assert seen.runs_behind(counts) == 10
    assert seen.runs_behind(counts / 10) == 10 and seen.runs_behind(counts * 10.0) == 100  # % of 10 runs
    assert seen.runs_behind(np.array([0.5, 0.25, 0.25])) == 4
    assert seen.runs_behind(np.array([np.pi / 10, 1 - np.pi / 10])) is None  # not whole counts of any number
    assert seen.runs_behind(np.array([-1.0, 2.0])) is None


def test_every_kind_of_artist_is_described():
    ax = {"xscale": "log", "yscale": "log", "xlabel": "", "ylabel": "p", "title": "", "legend": [],
          "lines": [], "texts": ["note"], "steps": [{"values": [1, 2], "edges": [0, 1, 2], "label": "runs"}],
          "bars": [{"x": [0.6, 1.6], "width": [0.8, 0.8], "bottom": [0, 0], "height": [0.25, 0.75],
                    "label": "fast", "orientation": "vertical"}],
          "polygons": [], "points": [{"x": [1, 2], "y": [3, 4], "label": "_child0"}],
          "segments": [{"segments": [[[0, 0], [0, 1]]], "label": ""}], "axlines": [{"slope": -1}]}
    text = seen.describe({"figures": [{"axes": [ax], "suptitle": ""}], "printed": ""}, "plot_x")
    for words in ("log x, log y", "2 bars labelled 'fast' at 1 to 2", "fractions of 4 runs",
                  "a stepped histogram of 2 bins labelled 'runs'", "2 scattered points (no label)",
                  "1 line segments", "1 artist(s) of kind 'axlines'", "text: 'note'"):
        assert words in text, (words, text)
    assert "nothing: no figure, no printout and no value shown" in seen.describe({"figures": [], "printed": ""})
    mean = {**ax, "lines": [{"x": [0, 1, 2], "y": [0.1, 0.35, 0.5], "label": "mean", "in_data": True}]}
    assert "every y a whole multiple of 1/20" in seen.describe({"figures": [{"axes": [mean]}]})


def test_the_newest_fields_of_the_reader_are_described():
    """An endless axline, error bars and stems (read but never taken for a curve), and artists the
    reader cannot read at all: the student is told each, from a real matplotlib figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from maskdiff_client import drawn
    figure, ax = plt.subplots()
    ax.axline((0, 1), (1, 0.5), label="floor")
    ax.errorbar([1, 2], [0.3, 0.4], yerr=[0.1, 0.1], label="runs")
    ax.stem([1, 2], [0.2, 0.1])
    ax.imshow(np.zeros((2, 2)))
    text = seen.describe({"figures": [drawn.figure_data(figure)], "printed": ""}, "plot_x")
    plt.close(figure)
    for words in ("an endless straight line through (0, 1) and (1, 0.5) labelled 'floor'",
                  "an error bar's caps and bars (2 segments", "a stem plot's stems (2 segments",
                  "a stem plot's baseline", "drawn but not read: AxesImage"):
        assert words in text, (words, text)


def test_the_set_up_cells_follow_the_course_to_another_public_repository(course, tmp_path, capsys):
    """An instructor who publishes elsewhere changes pyproject.toml only: `release` points every
    source set-up cell's READER_URL at the new repository, and says so; run again, it changes nothing."""
    import dataclasses
    import shutil
    from maskdiff_solutions.course.intake import notebooks
    from maskdiff_solutions.course.term import release
    moved = dataclasses.replace(course, root=tmp_path, public_repository="a-school/dlm-2027", public_branch="fall")
    shutil.copytree(course.source_dir, moved.source_dir)
    release.point_readers(moved)
    said = capsys.readouterr().out
    url = "https://raw.githubusercontent.com/a-school/dlm-2027/fall/drawing_reader.py"
    assert moved.reader_url() == url
    fetching = sorted(p.name for p in course.source_dir.glob("*.ipynb") if "READER_URL" in p.read_text())
    assert fetching == sorted(p.name for p in course.source_dir.glob("*.ipynb")), fetching   # the hand-in
    # check is in every notebook's last cell
    assert said.count(url) == len(fetching), said
    for name in fetching:
        assert f'READER_URL = "{url}"' in cell(notebooks.read(moved.source_dir / name), "setup")
    before = {p.name: p.read_bytes() for p in moved.source_dir.glob("*.ipynb")}
    release.point_readers(moved)
    assert capsys.readouterr().out == "" and before == {p.name: p.read_bytes() for p in moved.source_dir.glob("*.ipynb")}


def test_error_bars_drawn_without_their_data_are_described_as_marks():
    """errorbar(..., fmt="none") draws no data line: its bars are the marks (p_init beside bars), and the
    student is told they are read so, where the bars of an errorbar with its data are not."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from maskdiff_client import drawn
    figure, ax = plt.subplots()
    ax.bar([0, 1], [0.7, 0.3])
    ax.errorbar([0, 1], [0.8, 0.2], xerr=0.4, fmt="none", label="p_init")
    ax.axvline(0.5)
    text = seen.describe({"figures": [drawn.figure_data(figure)], "printed": ""}, "plot_x")
    plt.close(figure)
    assert "2 error bars drawn without their data labelled 'p_init' (read as marks at their middles and ends)" in text
    assert "a vertical line at x = 0.5" in text
