"""The grader reads what Colab shows: values left as a cell's last expression or passed to display(...)
count as the printout (maskdiff_client/drawn.py), drawings made with pandas and seaborn are read like
matplotlib's own (grading/plots.py), and a cell that stops at importing a module Colab has and the
grader lacks goes to a person, named in the summary (maskdiff_solutions/colab.py)."""
import json
import subprocess
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402

from maskdiff_client import drawn  # noqa: E402
from maskdiff_solutions import colab  # noqa: E402
from maskdiff_solutions.course.records import summary  # noqa: E402
from maskdiff_solutions.course.records.rows import Report, Row  # noqa: E402
from maskdiff_solutions.grading import plots  # noqa: E402
from maskdiff_solutions.grading.core import Failure, Review  # noqa: E402

# A real IPython shell, as the kernel has: the recorder watches its display formatter.
SHELL = textwrap.dedent("""
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    import matplotlib
    matplotlib.use("Agg")
    shell = InteractiveShell.instance()
    # a kernel sends what it shows to the page as messages; this terminal shell would print it ("Out[1]:")
    shell.displayhook.write_output_prompt = shell.displayhook.write_format_data = lambda *a, **k: None
    shell.display_pub.publish = lambda *a, **k: None
    from maskdiff_client import drawn
    assert drawn.install(shell)
    records = []
    for source in json.load(open(sys.argv[1])):
        shell.run_cell(source)
        cell = drawn.last_cell()
        records.append({"printed": "".join(cell.printed), "figures": len(cell.figures), "rich": cell.rich,
                        "error": cell.error, "charts": len(cell.charts)})
    print("RECORDS", json.dumps(records))
""")

CELLS = [
    "import collections\ncollections.Counter(['the cat sat', 'the cat sat', 'a box'])",
    "import pandas as pd\ndf = pd.DataFrame({'t': [1, 2], 'P(cat)': [0.8, 1.0]})\ndisplay(df)\nprint('after')",
    "'once upon a time\\nthere was a cat'",
    "['once upon a time', 'the end']",
    "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\nfig",
    "from matplotlib.figure import Figure\nf = Figure()\nf.subplots().plot([3, 4])\nf",
    "from IPython.display import display\nimport plotly.express as px\ndisplay(px.line(x=[1, 2], y=[3, 4]))",
    "import tensorflow_of_nobody",
    "import pandas as pd\npd.DataFrame({'a': [1, 2]}).style.format('{:.1f}')",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2])",
    "from IPython.display import HTML, display\ndisplay(HTML('<table><tr><th>n</th><th>steps</th></tr>'\n"
    "                     '<tr><td>10</td><td>4</td></tr></table>'))",
    "from IPython.display import Markdown\nMarkdown('| n | steps |\\n|---|---:|\\n| 10 | **4** |')",
]


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shell")
    (folder / "cells.json").write_text(json.dumps(CELLS))
    done = subprocess.run([sys.executable, "-c", SHELL, str(folder / "cells.json")], capture_output=True,
                          text=True, timeout=300, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    line = [x for x in done.stdout.splitlines() if x.startswith("RECORDS ")]
    assert line, (done.stdout[-2000:], done.stderr[-2000:])
    return json.loads(line[0][len("RECORDS "):])


def test_a_last_expression_and_display_count_as_the_printout(shown):
    assert "Counter({'the cat sat': 2, 'a box': 1})" in shown[0]["printed"]
    table = shown[1]["printed"]
    assert "P(cat)" in table and "0.8" in table and table.index("P(cat)") < table.index("after")
    assert shown[2]["printed"] == "once upon a time\nthere was a cat\n"   # a string as it reads
    assert shown[3]["printed"] == "once upon a time\nthe end\n"            # strings, one a line
    assert "a  1.0" in " ".join(shown[8]["printed"].split("\n")) or "1.0" in shown[8]["printed"]  # HTML only


def test_html_and_markdown_shown_are_read_as_their_text(shown):
    assert shown[10]["printed"] == "n steps\n10 4\n" and shown[11]["printed"] == "n  steps\n10  4\n"
    assert not shown[10]["rich"] and not shown[11]["rich"]


def test_a_printout_is_read_without_colour_codes_and_box_lines():
    """rich in Jupyter: a table drawn with box characters, words coloured with terminal codes."""
    printed = ("\u250f\u2501\u2501\u2533\u2501\u2513\n\u2503\x1b[1m n \x1b[0m\u2503 steps \u2503\n"
               "\u2502 10 \u2502 4 \u2502\n\x1b[1mdone\x1b[0m \x1b[1;36m7\x1b[0m steps\n")
    lines = plots.printed_lines(plots.Drawing({"figures": [], "printed": printed}).printed)
    assert [line.split() for line in lines] == [["n", "steps"], ["10", "4"], ["done", "7", "steps"]]


def test_a_figure_shown_as_the_last_expression_is_kept(shown):
    assert shown[4]["figures"] == 1 and shown[5]["figures"] == 1
    assert shown[9]["printed"] == ""   # the Line2D list plt.plot returns is not a printout


def test_a_plotly_chart_shown_is_read_as_a_figure(shown):
    assert shown[6]["charts"] == 1 and not shown[6]["rich"] and shown[6]["printed"] == ""


def test_the_error_a_cell_stopped_on_is_kept(shown):
    assert shown[7]["error"] == {"type": "ModuleNotFoundError", "module": "tensorflow_of_nobody",
                                 "message": "No module named 'tensorflow_of_nobody'"}


class Handed:   # a drawing cell's record as the checker receives it
    def __init__(self, data):
        self.data = data

    def drive(self, _):
        return self.data


def read(make):
    plt.close("all")
    make()
    fig = plt.gcf()
    data = {"figures": [drawn.figure_data(fig)], "printed": ""}
    plt.close("all")
    return plots.Drawing(data)


SAMPLES = pd.DataFrame({"n": np.r_[np.repeat(np.arange(5), [1, 4, 6, 4, 1]), np.repeat(np.arange(5), [2, 3, 6, 3, 2])],
                        "how": ["slow"] * 16 + ["fast"] * 16})


def test_seaborn_bars_are_named_by_their_legend_and_its_blank_patches_are_not_bars():
    drawing = read(lambda: sns.countplot(data=SAMPLES, x="n", hue="how"))
    bars = {s.label: plots.bar_heights(s, list(range(5))) for _, s in drawing.series()}
    assert set(bars) == {"slow", "fast"}
    assert list(bars["slow"]) == [1, 4, 6, 4, 1] and list(bars["fast"]) == [2, 3, 6, 3, 2]


def test_bars_a_hue_splits_by_colour_without_dodging_are_one_set():
    made = pd.DataFrame({"sentence": ["a", "b", "c", "d"], "count": [115, 31, 8, 5],
                         "kind": ["p_init", "p_init", "made up", "made up"]})
    drawing = read(lambda: sns.barplot(data=made, x="sentence", y="count", hue="kind"))
    (_, bars), = drawing.series()
    assert list(plots.bar_heights(bars, [0, 1, 2, 3])) == [115, 31, 8, 5]


@pytest.mark.parametrize("element", ["bars", "step"])
def test_seaborn_histograms_with_hue_are_read_as_counts(element):
    drawing = read(lambda: sns.histplot(data=SAMPLES, x="n", hue="how", discrete=True, element=element))
    bars = {s.label: list(plots.bar_heights(s, list(range(5)))) for _, s in drawing.series()}
    assert bars == {"slow": [1, 4, 6, 4, 1], "fast": [2, 3, 6, 3, 2]} and not drawing.unread()


def test_a_curve_is_read_as_pairs_and_its_confidence_band_is_no_unread_artist():
    long = pd.DataFrame({"t": np.tile([3, 1, 2], 4), "p": np.r_[np.full(3, 0.2), np.full(3, 0.4), [0.1] * 3, [0.5] * 3]})
    drawing = read(lambda: sns.lineplot(data=long, x="t", y="p"))
    (_, curve), = drawing.series()
    assert list(curve.x) == [1, 2, 3] and np.allclose(curve.y, 0.3) and not drawing.unread()
    alone = read(lambda: plt.fill_between([0, 1, 2], [0, 0.1, 0], [1, 0.9, 1]))
    assert alone.unread() == ["a filled area"]


def test_a_scatter_a_hue_colours_is_one_series_per_group_named_by_its_legend():
    """seaborn's hue= draws every group as one collection told apart by colour alone: the reader splits
    it by the colours the legend names (an axes' own legend, or the figure's: relplot), and leaves a
    scatter coloured by value (c=numbers) whole."""
    rates = pd.DataFrame({"T": [1, 2, 4] * 2, "share": [0.32, 0.16, 0.08, 0.32, 0.16, 0.12],
                          "sampler": ["plain"] * 3 + ["remasking"] * 3})
    for make in (lambda: sns.scatterplot(data=rates, x="T", y="share", hue="sampler"),
                 lambda: sns.relplot(data=rates, x="T", y="share", hue="sampler", style="sampler")):
        drawing = read(make)
        groups = {s.label: (list(s.x), list(s.y)) for _, s in drawing.series()}
        assert groups == {"plain": ([1, 2, 4], [0.32, 0.16, 0.08]), "remasking": ([1, 2, 4], [0.32, 0.16, 0.12])}
        assert drawing.axes[0].legend == ["plain", "remasking"]
    (_, whole), = read(lambda: plt.scatter([1, 2, 3], [3, 2, 1], c=[0.1, 0.5, 0.9])).series()
    assert list(whole.x) == [1, 2, 3]


def test_a_curve_in_a_hue_groups_colour_does_not_hide_the_group():
    """The exact law drawn beside each group's runs in the group's colour: the legend names that colour
    twice, once with markers (the group) and once as a line; the markers name the scatter's points."""
    rates = pd.DataFrame({"n": [0, 1, 2] * 2, "share": [0.08, 0.06, 0.05, 0.08, 0.07, 0.07], "eta": ["0.2"] * 3 + ["0.05"] * 3})

    def scatter_and_curves():
        ax = sns.scatterplot(data=rates, x="n", y="share", hue="eta")
        for i, eta in enumerate(("0.2", "0.05")):
            ax.plot([0, 1, 2], [0.08, 0.065, 0.055], color=f"C{i}", label=f"exact {eta}")
        ax.legend()
    groups = {s.label: list(s.y) for _, s in read(scatter_and_curves).series() if s.kind == "points"}
    assert groups == {"0.2": [0.08, 0.06, 0.05], "0.05": [0.08, 0.07, 0.07]}


def test_seaborn_barplots_error_bars_and_a_heatmap():
    drawing = read(lambda: sns.barplot(x=["a", "b", "a", "b"], y=[3, 4, 5, 6]))
    assert [s.kind for _, s in drawing.series()] == ["bars"] and drawing.axes[0].vlines
    assert "QuadMesh" in read(lambda: sns.heatmap(np.eye(2))).unread()   # not read: a person decides


def test_a_drawing_that_needs_a_module_colab_has_and_the_grader_lacks_goes_to_review():
    lacking = {"figures": [], "printed": "", "error": {"type": "ModuleNotFoundError", "module": "tensorflow.keras"}}
    with pytest.raises(Review, match="the grader lacks tensorflow, which Colab has"):
        plots.Drawing.of(Handed(lacking))
    for module in ("pandas", "nothing_colab_has"):  # installed here, or not Colab's: the student's own error
        drawing = plots.Drawing.of(Handed({**lacking, "error": {"type": "ModuleNotFoundError", "module": module}}))
        with pytest.raises(Failure) as failed:
            drawing.need_axes("a curve")
        assert not isinstance(failed.value, Review)


def test_a_chart_the_reader_cannot_read_goes_to_review_and_nothing_shown_fails():
    chart = plots.Drawing({"figures": [], "printed": "", "rich": ["plotly.graph_objs._figure.Figure"]})
    with pytest.raises(Review, match="plotly"):
        chart.need_axes("a curve")
    with pytest.raises(Review, match="plotly"):
        chart.need_printed("print the Counter")
    with pytest.raises(Failure, match="printed nothing and showed no value; print the Counter"):
        plots.Drawing({"figures": [], "printed": ""}).need_printed("print the Counter")


def test_plotly_figures_in_their_json_form_are_read_too():
    """plotly 6 writes a trace's numbers as typed arrays (base64 "bdata"); bars named on the y axis
    (orientation "h") keep their names as the y axis's tick labels, as matplotlib's barh does."""
    import base64

    import numpy as np

    from maskdiff_client.charts import plotly_data
    typed = {"dtype": "f8", "bdata": base64.b64encode(np.array([0.8, 0.2]).tobytes()).decode()}
    spec = {"data": [{"type": "bar", "orientation": "h", "y": ["the cat is alive", "the box is empty"], "x": typed}],
            "layout": {"xaxis": {"title": {"text": "share"}}}}
    axes = plotly_data(spec)["axes"][0]
    assert axes["bars"][0]["width"].tolist() == [0.8, 0.2] and axes["bars"][0]["orientation"] == "horizontal"
    assert axes["yticks"]["labels"] == ["the cat is alive", "the box is empty"] and not axes["xticks"]["labels"]


def test_a_cell_that_raised_is_named_by_its_exception():
    raised = plots.Drawing({"figures": [], "printed": "", "error": {
        "type": "FileNotFoundError", "module": "", "message": "[Errno 2] No such file or directory: 'x.png'"}})
    with pytest.raises(Failure, match=r"stopped with FileNotFoundError: \[Errno 2\] No such file or directory: "
                                      r"'x.png' before it drew a figure; it should draw a curve"):
        raised.need_axes("a curve")
    with pytest.raises(Failure, match="stopped with FileNotFoundError: .* before it printed anything; print it"):
        raised.need_printed("print it")
    old = plots.Drawing({"figures": [], "printed": "", "error": {"type": "KeyError", "module": ""}})  # an older client
    with pytest.raises(Failure, match="stopped with KeyError before it drew a figure"):
        old.need_axes("a curve")


STAND_IN = textwrap.dedent("""
    import os, sys
    from google.colab import drive, files, output, data_table, userdata
    import google.colab
    drive.mount(sys.argv[1])
    assert os.path.isdir(os.path.join(sys.argv[1], "MyDrive")) and google.colab.GRADER
    assert files.upload() == {}
    open("made.txt", "w").write("x")
    files.download("made.txt")
    try:
        files.download("never-made.txt")
    except FileNotFoundError as err:
        print("download:", err)
    output.clear()
    with output.use_tags("x"):
        pass
    print("table:", repr(data_table.DataTable([1, 2])))
    try:
        userdata.get("HF_TOKEN")
    except userdata.SecretNotFoundError:
        print("no secrets")
    import google.protobuf_of_nobody
""")


def test_googles_colab_module_has_a_harmless_stand_in_on_the_kernels_path(tmp_path):
    """What students call in ordinary cells runs under the grader (maskdiff_client/stand_ins), saying so
    on stderr, never on the printout; outside that path (the instructors' own Python) there is none."""
    from maskdiff_solutions.course.layout import PACKAGE_PARENT, STAND_INS
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PACKAGE_PARENT.joinpath(*STAND_INS))}
    done = subprocess.run([sys.executable, "-c", STAND_IN, str(tmp_path / "content" / "drive")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.stdout.splitlines() == ["download: Cannot find file: never-made.txt", "table: [1, 2]", "no secrets"]
    assert "drive.mount: " in done.stderr and "files.upload: nobody uploads" in done.stderr
    assert "No module named 'google.protobuf_of_nobody'" in done.stderr   # google stays a namespace
    alone = subprocess.run([sys.executable, "-c", "import google.colab"], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert "No module named 'google" in alone.stderr


def test_the_summary_names_each_module_the_grader_lacks_once(tmp_path):
    reason = "test_plot_schedule: " + colab.sentence("tensorflow")
    rows = [Row(s, "01_noise_for_words", "graded", 2.0, 3.0, reason=reason, review="test_plot_schedule")
            for s in ("ann", "bob")]
    text = summary.text(Report(rows, tmp_path / "grades.csv", tmp_path))
    assert text.count("the grader lacks tensorflow, which Colab has") == 1


def test_colabs_list_installs_what_students_reach_for():
    assert {"pandas", "seaborn", "scipy"} <= set(colab.installed())
    assert colab.modules()["tensorflow"] == "colab-only" and colab.lacking("pandas") is None
    requirements = (colab.LIST.parents[1] / "requirements.txt").read_text()
    assert f"-r {colab.LIST.relative_to(colab.LIST.parents[1])}" in requirements


def test_plotly_bars_of_several_traces_are_laid_out_by_barmode():
    """As the page shows them: side by side (a go.Figure's default "group"), piled up (plotly express's
    default "relative", and "stack"), or over each other ("overlay")."""
    import plotly.express as px
    import plotly.graph_objects as go

    from maskdiff_client.charts import chart_data
    table = pd.DataFrame({"s": ["a", "b", "a", "b"], "who": ["net", "net", "p", "p"], "v": [0.7, 0.3, 0.8, 0.2]})

    def bars(fig):
        return [(b["x"].round(2).tolist(), b["width"].round(2).tolist(), b["bottom"].round(2).tolist())
                for b in chart_data(fig)["axes"][0]["bars"]]
    assert bars(px.bar(table, x="s", y="v", color="who")) == [([-0.4, 0.6], [0.8, 0.8], [0.0, 0.0]),
                                                             ([-0.4, 0.6], [0.8, 0.8], [0.7, 0.3])]
    grouped = [([-0.4, 0.6], [0.4, 0.4], [0.0, 0.0]), ([0.0, 1.0], [0.4, 0.4], [0.0, 0.0])]
    assert bars(px.bar(table, x="s", y="v", color="who", barmode="group")) == grouped
    assert bars(go.Figure([go.Bar(x=["a", "b"], y=[0.7, 0.3]), go.Bar(x=["a", "b"], y=[0.8, 0.2])])) == grouped
    assert bars(px.bar(table, x="s", y="v", color="who", barmode="overlay"))[1][2] == [0.0, 0.0]


def test_plotly_histograms_of_names_and_of_summed_values():
    import plotly.express as px

    from maskdiff_client.charts import chart_data
    samples = ["the cat is alive"] * 8 + ["the box is empty"] * 2 + ["the cat is empty"]
    axes = chart_data(px.histogram(x=samples, histnorm="percent"))["axes"][0]
    assert axes["bars"][0]["height"].round(2).tolist() == [72.73, 18.18, 9.09]
    assert axes["xticks"]["labels"] == ["the cat is alive", "the box is empty", "the cat is empty"]
    summed = chart_data(px.histogram(pd.DataFrame({"k": [0, 1, 1, 2], "w": [1.0, 2, 3, 4]}), x="k", y="w"))
    assert summed["axes"][0]["bars"][0]["height"].tolist() == [1.0, 5.0, 4.0]


def test_marks_drawn_as_error_bars_lines_across_and_open_markers_are_read():
    """p_init's marks beside bars (notebook 04) in every honest form: error bars drawn without their data
    (fmt="none", their middles the points, once for xerr and yerr together), an axvline beside barh,
    plotly's open line markers and altair's ticks at names along y."""
    import altair as alt
    import plotly.graph_objects as go

    from maskdiff_client.charts import chart_data

    def marks(make):
        (ax,) = read(make).axes
        return ax
    ax = marks(lambda: (plt.bar([0, 1, 2], [0.7, 0.2, 0.1]),
                        plt.errorbar([0, 1], [0.8, 0.2], xerr=0.4, yerr=0.02, fmt="none")))
    points = [s for s in ax.series if s.kind == "points"]
    assert len(points) == 1 and points[0].x.tolist() == [0, 1] and np.allclose(points[0].y, [0.8, 0.2])
    assert 0.8 in ax.hlines and not ax.unread
    ax = marks(lambda: (plt.barh([0, 1], [0.7, 0.3]), plt.axvline(0.8), plt.axvline(0.2)))
    assert [x for x, _, _ in ax.vlines] == [0.8, 0.2] and not ax.unread
    named = ["the cat is alive", "the box is empty"]
    opened = chart_data(go.Figure([go.Bar(y=named, x=[0.7, 0.3], orientation="h"),
                                   go.Scatter(y=named[::-1], x=[0.2, 0.8], mode="markers", marker_symbol="line-ns-open")]))
    line = opened["axes"][0]["lines"][0]
    assert line["y"].tolist() == [1, 0] and not opened["axes"][0]["unread"]
    ticks = chart_data(alt.Chart(pd.DataFrame({"s": named, "p": [0.8, 0.2]})).mark_tick().encode(y="s:N", x="p:Q"))
    assert ticks["axes"][0]["lines"][0]["y"].tolist() == [0, 1] and not ticks["axes"][0]["unread"]


def test_what_the_reader_cannot_place_sends_missing_marks_to_review_by_name():
    """A span across the axes (axvspan) is no bar, a slanted segment or a line in the axes' own units no
    mark: each is named as unread, and the check that misses p_init's marks sends the drawing to a
    person, naming it, where without them it fails saying it read none."""
    from matplotlib.collections import LineCollection

    from maskdiff_solutions.grading.loss_plots import plot_net_sentence_bars
    shares = [0.7, 0.2, 0.1]
    spans = read(lambda: (plt.bar([0, 1, 2], shares), plt.axvspan(0.6, 1.4)))
    assert [s.kind for _, s in spans.series()] == ["bars"] and spans.unread() == ["a span across the axes (axvspan, axhspan)"]
    slanted = read(lambda: (plt.bar([0, 1, 2], shares), plt.gca().add_collection(LineCollection([[(0, 0.1), (1, 0.8)]]))))
    assert slanted.unread() == ["line segments neither level nor upright"]
    across = read(lambda: (plt.bar([0, 1, 2], shares), plt.plot([0, 1], [0.2, 0.8], transform=plt.gca().transAxes)))
    assert across.unread() == ["a line placed in the axes' own units"]

    def figure(*extra):
        plt.close("all")
        plt.bar([0, 1, 2], [700 / 1000, 200 / 1000, 100 / 1000])
        for draw in extra:
            draw()
        data = {"figures": [drawn.figure_data(plt.gcf())], "printed": ""}
        plt.close("all")
        return Handed(data)
    with pytest.raises(Review, match=r"axvspan"):
        plot_net_sentence_bars(figure(lambda: plt.axvspan(0.6, 1.4, alpha=0.2)))
    with pytest.raises(Failure, match="the grader read no marks beside them") as failed:
        plot_net_sentence_bars(figure())
    assert not isinstance(failed.value, Review)
