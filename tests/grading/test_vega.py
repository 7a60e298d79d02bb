"""altair charts whose table the browser works out (maskdiff_client/vega.py): Vega-Lite's transforms,
bins and aggregates give the rows the reader then draws (maskdiff_client/charts.py). What cannot be
worked out exactly is named for review, and an expression is read as data, never run."""
import altair as alt
import numpy as np
import pandas as pd
import pytest

from maskdiff_client.charts import chart_data
from maskdiff_client.vega import VegaUnread, vega_bin_rows, vega_bins, vega_expression, vega_transform

ROWS = [{"step": s, "loss": float(l), "how": h} for s, l, h in zip(range(6), [6, 4, 3, 2, 2, 1], "aabbab")]


def axes_of(chart):
    return chart_data(chart)["axes"][0]


@pytest.mark.parametrize("low, high, params, expected", [
    (0, 13, {}, (0, 14, 2)),                      # span 13, at most 10 bins: steps of 2
    (0, 100, {}, (0, 100, 10)),
    (0.05, 0.93, {}, (0.0, 1.0, 0.1)),
    (3, 16, {"step": 1}, (3, 16, 1)),
    (0, 16, {"maxbins": 20}, (0, 16, 1)),
    (0, 13, {"extent": [0, 20]}, (0, 20, 2)),
])
def test_bins_are_chosen_as_vega_chooses_them(low, high, params, expected):
    start, stop, step = vega_bins(low, high, {"maxbins": 10, **params})
    assert (start, stop, step) == pytest.approx(expected)


def test_the_largest_value_falls_in_the_last_bin_as_in_vega():
    rows = vega_bin_rows([{"k": k} for k in (0, 1, 2, 3)], "k", {"step": 1}, "lo", "hi")
    assert [(r["k"], r["lo"], r["hi"]) for r in rows] == [(0, 0, 1), (1, 1, 2), (2, 2, 3), (3, 2, 3)]
    with pytest.raises(VegaUnread, match="anchor"):
        vega_bin_rows([{"k": k} for k in (0, 1, 2, 3)], "k", {"step": 1, "anchor": 0.5}, "lo", "hi")


def test_fold_calculate_filter_and_aggregates():
    wide = [{"t": 0, "a": 1.0, "b": 3.0}, {"t": 1, "a": 2.0, "b": 5.0}]
    long = vega_transform(wide, [{"fold": ["a", "b"], "as": ["curve", "value"]}])
    assert [(r["t"], r["curve"], r["value"]) for r in long] == [(0, "a", 1.0), (0, "b", 3.0), (1, "a", 2.0), (1, "b", 5.0)]
    out = vega_transform(long, [{"calculate": "datum.value * 10 + (datum.curve == 'a' ? 1 : 0)", "as": "v"},
                                {"filter": "datum.t > 0 && datum.v >= 21"},
                                {"aggregate": [{"op": "sum", "field": "v", "as": "total"}], "groupby": ["t"]}])
    assert out == [{"t": 1, "total": 71.0}]
    shares = vega_transform(ROWS, [{"joinaggregate": [{"op": "count", "as": "n"}], "groupby": ["how"]},
                                   {"calculate": "1 / datum.n", "as": "share"}])
    assert [round(r["share"], 3) for r in shares] == [0.333] * 6
    assert [r["step"] for r in shares] == list(range(6))      # joinaggregate keeps the rows' order
    kept = vega_transform(ROWS, [{"filter": {"field": "how", "oneOf": ["b"]}}, {"filter": {"field": "loss", "range": [2, 3]}}])
    assert [r["step"] for r in kept] == [2, 3]


def test_a_window_averages_its_frame_in_sort_order_within_each_group():
    out = vega_transform(ROWS[::-1], [{"window": [{"op": "mean", "field": "loss", "as": "avg"}], "frame": [-1, 0],
                                       "sort": [{"field": "step"}]}])
    assert [(r["step"], r["avg"]) for r in out] == [(0, 6.0), (1, 5.0), (2, 3.5), (3, 2.5), (4, 2.0), (5, 1.5)]
    grouped = vega_transform(ROWS, [{"window": [{"op": "count", "as": "seen"}], "groupby": ["how"],
                                     "sort": [{"field": "step"}]}])
    assert [(r["how"], r["seen"]) for r in grouped] == [("a", 1.0), ("a", 2.0), ("a", 3.0), ("b", 1.0), ("b", 2.0), ("b", 3.0)]


def test_a_sorted_window_takes_in_the_rows_that_tie_and_long_tables_cost_little():
    ties = [{"t": t, "v": 1.0} for t in (0, 1, 1, 2)]
    running = vega_transform(ties, [{"window": [{"op": "sum", "field": "v", "as": "so_far"}], "sort": [{"field": "t"}]}])
    assert [r["so_far"] for r in running] == [1.0, 3.0, 3.0, 4.0]     # both rows at t = 1 count each other
    unsorted = vega_transform(ties, [{"window": [{"op": "sum", "field": "v", "as": "so_far"}]}])
    assert [r["so_far"] for r in unsorted] == [1.0, 2.0, 3.0, 4.0]
    long = [{"step": i, "loss": float(i % 7)} for i in range(100_000)]   # a frame per row would take hours
    out = vega_transform(long, [{"window": [{"op": "mean", "field": "loss", "as": "avg"}], "sort": [{"field": "step"}]}])
    assert out[-1]["avg"] == pytest.approx(np.mean([i % 7 for i in range(100_000)]))


@pytest.mark.parametrize("transform, named", [
    ({"regression": "y", "on": "x"}, "transform_regression"),
    ({"loess": "y", "on": "x"}, "transform_loess"),
    ({"calculate": "datum.x.toFixed(2)", "as": "z"}, "datum.x.toFixed(2)"),
    ({"calculate": "__import__('os').system('true')", "as": "z"}, "__import__"),
    ({"calculate": "().__class__", "as": "z"}, "__class__"),
    ({"window": [{"op": "rank", "as": "r"}]}, "'rank'"),
])
def test_what_cannot_be_worked_out_is_named_and_never_run(transform, named):
    with pytest.raises(VegaUnread, match=named.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        vega_transform(ROWS, [transform])


def test_expressions_divide_by_zero_as_missing_and_know_math():
    assert vega_expression("1 / datum.n", {"n": 0}) is None
    assert vega_expression("Math.log(datum.x) + Math.PI", {"x": 1.0}) == pytest.approx(np.pi)
    assert vega_expression("!(datum.x === 1) || false", {"x": 1}) is False
    assert vega_expression("datum.x > 1 ? (datum.y ? 'both' : 'x') : 'none'", {"x": 2, "y": 0}) == "x"


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


def test_aggregates_in_the_encoding_group_by_the_other_channels():
    axes = axes_of(alt.Chart(pd.DataFrame(ROWS)).mark_line().encode(x="how:N", y="mean(loss):Q"))
    assert axes["lines"][0]["y"].tolist() == [4.0, 2.0] and axes["ylabel"] == "Mean of loss"
    across = axes_of(alt.Chart(pd.DataFrame(ROWS)).mark_bar().encode(y="how:N", x="count()"))
    assert across["bars"][0]["orientation"] == "horizontal" and across["bars"][0]["width"].tolist() == [3.0, 3.0]
    assert across["yticks"]["labels"] == ["a", "b"]


def test_bars_side_by_side_with_x_offset_do_not_stack():
    table = pd.DataFrame({"s": ["p", "q", "p", "q"], "who": ["net", "net", "truth", "truth"], "v": [0.7, 0.3, 0.8, 0.2]})
    net, truth = axes_of(alt.Chart(table).mark_bar().encode(x="s:N", y="v:Q", xOffset="who:N", color="who:N"))["bars"]
    assert net["x"].tolist() == [-0.4, 0.6] and truth["x"].tolist() == [0.0, 1.0]
    assert net["bottom"].tolist() == truth["bottom"].tolist() == [0.0, 0.0]


def test_a_transform_the_reader_cannot_do_sends_the_chart_to_review_by_name():
    chart = alt.Chart(pd.DataFrame(ROWS)).transform_regression("step", "loss").mark_line().encode(x="step", y="loss")
    assert axes_of(chart)["unread"] == ["an altair transform_regression"]


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
