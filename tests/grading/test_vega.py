"""altair charts whose table the browser works out (maskdiff_client/vega.py): their transforms, bins and
aggregates are worked out by altair's own transformed_data() (VegaFusion, on the Vega that vl-convert
compiles), and the reader draws from those rows (maskdiff_client/charts.py). What cannot be worked out
is named for review: a transform VegaFusion lacks, vegafusion itself missing, too little address space."""
import subprocess
import sys
import types

import altair as alt
import numpy as np
import pandas as pd
import pytest

from maskdiff_client.charts import chart_data

ROWS = [{"step": s, "loss": float(l), "how": h} for s, l, h in zip(range(6), [6, 4, 3, 2, 2, 1], "aabbab")]
NO_VEGAFUSION = "this Python lacks vegafusion (pip install vegafusion vl-convert-python)"


def axes_of(chart):
    return chart_data(chart)["axes"][0]


@pytest.fixture
def without_vegafusion(monkeypatch):
    """This Python as Colab's: no vegafusion to import."""
    monkeypatch.setitem(sys.modules, "vegafusion", None)


def test_a_histogram_binned_in_the_chart_is_bars_over_its_bins():
    counts = pd.DataFrame({"k": [0, 1, 1, 2, 2, 2, 5] * 2, "how": ["slow"] * 7 + ["fast"] * 7})
    axes = axes_of(alt.Chart(counts).mark_bar().encode(alt.X("k:Q", bin=alt.Bin(step=1)), alt.Y("count()", stack=None),
                                                       color="how"))
    slow = axes["bars"][0]
    assert axes["ylabel"] == "Count of Records" and axes["legend"] == ["slow", "fast"]
    assert sorted(zip(slow["x"], slow["width"], slow["height"])) == [(0, 1, 1), (1, 1, 2), (2, 1, 3), (4, 1, 1)]
    stacked = axes_of(alt.Chart(counts).mark_bar().encode(alt.X("k:Q", bin=alt.Bin(step=1)), y="count()", color="how"))
    assert stacked["bars"][1]["bottom"].tolist() == stacked["bars"][0]["height"].tolist()   # Vega-Lite stacks colours
    default = axes_of(alt.Chart(counts).mark_bar().encode(alt.X("k:Q", bin=True), y="count()"))
    assert set(default["bars"][0]["width"]) == {0.5}     # bin=True: at most ten bins over 0..5
    # the largest value falls in the last bin, as in the browser: 0..3 in steps of 1 is three bins
    edges = axes_of(alt.Chart(pd.DataFrame({"k": [0, 1, 2, 3]})).mark_bar().encode(
        alt.X("k:Q", bin=alt.Bin(step=1)), y="count()"))["bars"][0]
    assert sorted(zip(edges["x"], edges["height"])) == [(0, 1), (1, 1), (2, 2)]


def test_a_window_averages_its_frame_in_sort_order_within_each_group():
    table = pd.DataFrame(ROWS[::-1])
    mean = axes_of(alt.Chart(table).transform_window(avg="mean(loss)", frame=[-1, 0], sort=[{"field": "step"}])
                   .mark_line().encode(x="step:Q", y="avg:Q"))["lines"][0]
    assert mean["x"].tolist() == list(range(6)) and mean["y"].tolist() == [6.0, 5.0, 3.5, 2.5, 2.0, 1.5]
    seen = axes_of(alt.Chart(table).transform_window(seen="count()", groupby=["how"], sort=[{"field": "step"}])
                   .mark_point().encode(x="step:Q", y="seen:Q", color="how:N"))["lines"]
    assert {line["label"]: line["y"].tolist() for line in seen} == {"a": [3, 2, 1], "b": [3, 2, 1]}
    long = pd.DataFrame({"step": range(100_000), "loss": [float(i % 7) for i in range(100_000)]})
    with alt.data_transformers.disable_max_rows():
        running = axes_of(alt.Chart(long).transform_window(avg="mean(loss)", sort=[{"field": "step"}])
                          .mark_line().encode(x="step:Q", y="avg:Q"))["lines"][0]
    assert running["y"][-1] == pytest.approx(np.mean([i % 7 for i in range(100_000)]))


def test_fold_calculate_filter_and_aggregates_are_worked_out_exactly():
    wide = pd.DataFrame({"t": [0, 1], "a": [1.0, 2.0], "b": [3.0, 5.0]})
    curves = axes_of(alt.Chart(wide).transform_fold(["a", "b"], as_=["curve", "value"]).transform_calculate(
        v="datum.value * 10 + (datum.curve == 'a' ? 1 : 0)").mark_line().encode(x="t:Q", y="v:Q", color="curve:N"))
    assert {line["label"]: line["y"].tolist() for line in curves["lines"]} == {"a": [11, 21], "b": [30, 50]}
    shares = axes_of(alt.Chart(pd.DataFrame(ROWS)).transform_joinaggregate(n="count()", groupby=["how"])
                     .transform_calculate(share="1 / datum.n").transform_filter("datum.step > 0")
                     .mark_bar().encode(x="how:N", y=alt.Y("sum(share):Q", stack=None)))["bars"][0]
    assert shares["height"].tolist() == pytest.approx([2 / 3, 1.0])   # a: steps 1 and 4 of 0, 1, 4; b: 2, 3, 5


def test_aggregates_in_the_encoding_group_by_the_other_channels():
    axes = axes_of(alt.Chart(pd.DataFrame(ROWS)).mark_line().encode(x="how:N", y="mean(loss):Q"))
    assert axes["lines"][0]["y"].tolist() == [4.0, 2.0] and axes["ylabel"] == "Mean of loss"
    across = axes_of(alt.Chart(pd.DataFrame(ROWS)).mark_bar().encode(y="how:N", x="count()"))
    assert across["bars"][0]["orientation"] == "horizontal" and across["bars"][0]["width"].tolist() == [3.0, 3.0]
    assert across["yticks"]["labels"] == ["a", "b"]


def test_a_facet_splits_the_rows_after_the_transforms_above_it():
    wide = alt.Chart(pd.DataFrame({"t": [0, 1], "a": [1.0, 2.0], "b": [3.0, 5.0]}))
    folded = wide.transform_fold(["a", "b"]).mark_line().encode(x="t:Q", y="value:Q", column="key:N")
    faceted = wide.mark_line().encode(x="t:Q", y="value:Q").facet(column="key:N").transform_fold(["a", "b"])
    for chart in (folded, faceted):
        panels = chart_data(chart)["axes"]
        assert [(axes["title"], axes["lines"][0]["y"].tolist()) for axes in panels] == [("key = a", [1, 2]),
                                                                                        ("key = b", [3, 5])]


@pytest.mark.parametrize("chain, named", [
    (lambda c: c.transform_regression("step", "loss"), "transform_regression"),
    (lambda c: c.transform_loess("step", "loss"), "transform_loess"),
    (lambda c: c.transform_calculate(z="format(datum.loss, '.2f')"), "transform_calculate"),
    (lambda c: c.transform_calculate(loss="datum.loss").transform_density("loss"), "transform_density"),
])
def test_what_vegafusion_cannot_work_out_goes_to_review_by_name(chain, named):
    chart = chain(alt.Chart(pd.DataFrame(ROWS))).mark_line().encode(x="step:Q", y="loss:Q")
    assert axes_of(chart)["unread"] == [f"an altair {named}, which VegaFusion cannot work out yet"]
    layered = chain(alt.Chart(pd.DataFrame(ROWS))).encode(x="step:Q", y="loss:Q")
    axes = axes_of(alt.layer(layered.mark_line(), layered.mark_point()))   # the two layers share the transform
    assert axes["unread"] == [f"an altair {named}, which VegaFusion cannot work out yet"]


def test_without_vegafusion_a_chart_worked_out_in_the_browser_goes_to_review_by_name(without_vegafusion):
    binned = alt.Chart(pd.DataFrame(ROWS)).mark_bar().encode(alt.X("loss:Q", bin=True), y="count()")
    (unread,) = axes_of(binned)["unread"]
    assert unread.startswith("an altair chart whose table the browser works out") and unread.endswith(NO_VEGAFUSION)
    plain = axes_of(alt.Chart(pd.DataFrame(ROWS)).mark_line().encode(x="step:Q", y="loss:Q"))  # nothing to work out
    assert plain["lines"][0]["y"].tolist() == [6, 4, 3, 2, 2, 1] and not plain["unread"]


def test_the_drawing_reader_says_so_when_vegafusion_is_missing(without_vegafusion):
    """drawing_reader.py (vega.py, charts.py, drawn.py, seen.py in one module) on Colab, which has
    no vegafusion: the student's preview names what to install, and still reads a plain chart."""
    from maskdiff_solutions.course.term.reader import reader_text
    reader = types.ModuleType("drawing_reader")
    exec(compile(reader_text(), "drawing_reader.py", "exec"), reader.__dict__)
    binned = alt.Chart(pd.DataFrame(ROWS)).mark_bar().encode(alt.X("loss:Q", bin=True), y="count()")
    said = reader.describe({"figures": [reader.chart_data(binned)], "printed": ""}, "plot_x")
    assert NO_VEGAFUSION in said, said
    plain = reader.chart_data(alt.Chart(pd.DataFrame(ROWS)).mark_line().encode(x="step:Q", y="loss:Q"))
    assert plain["axes"][0]["lines"][0]["y"].tolist() == [6, 4, 3, 2, 2, 1]


def test_too_little_address_space_for_vl_converts_engine_goes_to_review_not_a_crash():
    """V8 reserves about 68 GiB when it starts, and aborts the whole process where RLIMIT_AS leaves
    less (the sandbox without a memory cgroup: 24 GiB); the reader names it instead."""
    script = ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (24 << 30, 24 << 30))\n"
              "import altair as alt, pandas as pd\nfrom maskdiff_client.charts import chart_data\n"
              "chart = alt.Chart(pd.DataFrame({'k': [1, 2, 2]})).mark_bar().encode(alt.X('k:Q', bin=True), y='count()')\n"
              "print(chart_data(chart)['axes'][0]['unread'])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "needs more address space than this process may have (RLIMIT_AS)" in done.stdout, done.stdout


def test_bars_side_by_side_with_x_offset_do_not_stack():
    table = pd.DataFrame({"s": ["p", "q", "p", "q"], "who": ["net", "net", "truth", "truth"], "v": [0.7, 0.3, 0.8, 0.2]})
    net, truth = axes_of(alt.Chart(table).mark_bar().encode(x="s:N", y="v:Q", xOffset="who:N", color="who:N"))["bars"]
    assert net["x"].tolist() == [-0.4, 0.6] and truth["x"].tolist() == [0.0, 1.0]
    assert net["bottom"].tolist() == truth["bottom"].tolist() == [0.0, 0.0]


def test_labels_written_on_bars_are_texts_and_upright_rules_are_lines_across():
    table = pd.DataFrame({"s": list("aab"), "v": [1.0, 2.0, 3.14159]})
    bars = alt.Chart(table).mark_bar().encode(x="s:N", y="count()")
    axes = axes_of(bars + bars.mark_text(dy=-5).encode(text="count()"))
    assert axes["texts"] == ["2", "1"] and not axes["unread"]
    written = alt.Chart(table).mark_text().encode(x="s:N", y="v:Q", text=alt.Text("v:Q", format=".2f"))
    assert axes_of(written)["texts"] == ["1.00", "2.00", "3.14"]
    edges = axes_of(alt.Chart(pd.DataFrame({"edge": [7.5, 15.5]})).mark_rule().encode(x="edge:Q"))["segments"]
    assert [(s["role"], s["segments"][0][:, 0].tolist()) for s in edges] == [("vline", [7.5, 7.5]), ("vline", [15.5, 15.5])]
    # a rule at a datum needs no table: alt.datum(0.08) is a level across, alt.datum(3) an upright line
    points = alt.Chart(table).mark_point().encode(x="v:Q", y="v:Q")
    datums = axes_of(points + alt.Chart().mark_rule().encode(y=alt.datum(0.08)) + alt.Chart().mark_rule().encode(x=alt.datum(3)))
    assert [l["y"].tolist() for l in datums["lines"] if not l["in_data"]] == [[0.08, 0.08]] and not datums["unread"]
    assert [s["segments"][0][:, 0].tolist() for s in datums["segments"]] == [[3.0, 3.0]]


def test_a_repeated_chart_is_one_panel_per_field_or_one_layer_each():
    wide = pd.DataFrame({"tau": [0.1, 0.5], "impossible": [0.3, 0.1], "calls": [2, 3]})
    line = alt.Chart(wide).mark_line()
    columns = chart_data(line.encode(x="tau:Q", y=alt.Y(alt.repeat("column"), type="quantitative"))
                         .repeat(column=["impossible", "calls"]))["axes"]
    assert [(a["ylabel"], a["lines"][0]["y"].tolist()) for a in columns] == [("impossible", [0.3, 0.1]), ("calls", [2, 3])]
    layered = axes_of(line.encode(x="tau:Q", y=alt.Y(alt.repeat("layer"), type="quantitative"),
                                  color=alt.ColorDatum(alt.repeat("layer"))).repeat(layer=["impossible", "calls"]))
    assert [l["label"] for l in layered["lines"]] == layered["legend"] == ["impossible", "calls"]


def test_an_area_is_its_top_edge_or_a_band_between_two_fields():
    table = pd.DataFrame({"t": [0, 1, 2], "m": [0.5, 0.6, 0.7], "lo": [0.4, 0.5, 0.6], "hi": [0.6, 0.7, 0.8]})
    band = axes_of(alt.Chart(table).mark_area(opacity=0.3).encode(x="t:Q", y="lo:Q", y2="hi:Q"))
    assert band["polygons"][0]["role"] == "fill" and band["polygons"][0]["y"].tolist() == [0.4, 0.5, 0.6, 0.8, 0.7, 0.6]
    stepped = axes_of(alt.Chart(table).mark_area(interpolate="step-after").encode(x="t:Q", y="m:Q"))["lines"][0]
    assert stepped["y"].tolist() == [0.5, 0.6, 0.7] and stepped["drawstyle"] == "steps-post"
