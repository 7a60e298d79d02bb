"""Figures of Colab's other plotting libraries, plotly and altair, as the same plain data that
drawn.figure_data makes of a matplotlib figure, so that the same checks read them (maskdiff_solutions/
grading/plots.py).

A plotly figure holds every trace's data (x, y, names, its axes) and its layout (titles, axis types and
ranges, shapes); an altair chart holds a Vega-Lite spec with its data inline. What a chart draws that
is not read here (a pie, a heatmap, a transform VegaFusion cannot work out: vega.py) is named in the
axes' `unread`, so a check that misses something sends the drawing to a person instead of failing it.
`chart_data(value)` gives None for anything that is not such a chart, or that it cannot read at all.
"""
import numpy as np

try:
    from .vega import VegaUnread, vega_drawn, vega_rows
except ImportError:   # drawing_reader.py, one module: vega.py's part stands above this one
    pass

CHART_AXES, CHART_SERIES, CHART_POINTS = 16, 64, 200_000
DASHES = {"dash": "--", "dot": ":", "dashdot": "-.", "longdash": "--", "longdashdot": "-."}


def chart_data(value):
    """figure_data-shaped plain data of a plotly figure or an altair chart, else None."""
    module = type(value).__module__ or ""
    try:
        if module.startswith("plotly") and hasattr(value, "to_plotly_json"):
            return plotly_data(value.to_plotly_json())
        if module.startswith("altair") and hasattr(value, "to_dict"):
            return altair_data(value.to_dict())
    except Exception:  # noqa: BLE001 - a chart the reader cannot take apart: a person looks at it
        return None
    return None


def _chart_floats(values):
    if isinstance(values, dict) and isinstance(values.get("bdata"), str):   # plotly 6's typed arrays in JSON
        try:
            import base64
            values = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(str(values.get("dtype", "f8"))))
        except (TypeError, ValueError):
            return None
    try:
        array = np.asarray(values if values is not None else [], dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return array[:CHART_POINTS]


def _chart_text(value, limit=500):
    if isinstance(value, dict):
        value = value.get("text", "")
    return str(value if value is not None else "")[:limit]


def _chart_axes(title="", xlabel="", ylabel="", xscale="linear", yscale="linear"):
    return {"xscale": xscale, "yscale": yscale, "xlabel": xlabel, "ylabel": ylabel, "title": title,
            "legend": [], "lines": [], "bars": [], "steps": [], "polygons": [], "points": [], "segments": [],
            "texts": [], "xlim": np.zeros(0), "ylim": np.zeros(0), "xticks": {"at": np.zeros(0), "labels": []},
            "yticks": {"at": np.zeros(0), "labels": []}, "unread": []}


def _category_ticks(axes):
    """Names placed along an axis become its tick labels, as matplotlib shows bars named by category."""
    for key, ticks in (("_categories", "xticks"), ("_ycategories", "yticks")):
        categories = axes.pop(key)
        if categories.names:
            axes[ticks] = categories.ticks()


class _Categories:
    """Category names along an axis, placed at 0, 1, 2, ... in the order met (as matplotlib does)."""

    def __init__(self):
        self.names = []

    def place(self, values):
        numbers = _chart_floats(values)
        if numbers is not None:
            return numbers
        out = []
        for value in list(values)[:CHART_POINTS]:
            name = str(value)
            if name not in self.names:
                self.names.append(name)
            out.append(self.names.index(name))
        return np.asarray(out, dtype=float)

    def ticks(self):
        return {"at": np.arange(len(self.names), dtype=float), "labels": list(self.names)}


# ---- plotly ---------------------------------------------------------------------------------------

def plotly_data(spec):
    layout, traces = spec.get("layout") or {}, [t for t in spec.get("data") or [] if isinstance(t, dict)]
    panels = {}   # (xaxis, yaxis) -> axes, in the order the axes are numbered
    for trace in traces[:CHART_SERIES]:
        key = (trace.get("xaxis") or "x", trace.get("yaxis") or "y")
        if key not in panels:
            panels[key] = _plotly_axes(layout, key)
        _plotly_trace(panels[key], trace)
    for shape in layout.get("shapes") or []:
        key = ((shape.get("xref") or "x").split()[0], (shape.get("yref") or "y").split()[0])
        target = panels.get(key) or next(iter(panels.values()), None)
        if target is not None:
            _plotly_shape(target, shape)
    for axes in panels.values():
        _plotly_barmode(axes, layout.get("barmode") or "group")
    _plotly_titles(panels, layout.get("annotations") or [])
    named = [t for t in traces if t.get("name") and t.get("showlegend", True) is not False]
    shows_legend = layout.get("showlegend", len(named) > 1)
    for axes in panels.values():
        axes["legend"] = [name for name in axes.pop("_names") if shows_legend][:CHART_SERIES]
        axes.pop("_domain")
        _category_ticks(axes)
    if not panels:
        return None
    title = _chart_text(layout.get("title"))
    axes = list(panels.values())[:CHART_AXES]
    if len(axes) == 1 and not axes[0]["title"]:
        axes[0]["title"] = title
    return {"axes": axes, "suptitle": title if len(axes) > 1 else ""}


def _plotly_axes(layout, key):
    xaxis, yaxis = (layout.get(name[0] + "axis" + name[1:]) or {} for name in key)
    axes = _chart_axes(xlabel=_chart_text(xaxis.get("title")), ylabel=_chart_text(yaxis.get("title")),
                 xscale="log" if xaxis.get("type") == "log" else "linear",
                 yscale="log" if yaxis.get("type") == "log" else "linear")
    for name, axis in (("xlim", xaxis), ("ylim", yaxis)):
        limits = _chart_floats(axis.get("range")) if axis.get("range") is not None else None
        if limits is not None and limits.size == 2:
            axes[name] = 10 ** limits if axis.get("type") == "log" else limits   # plotly's log ranges are exponents
    axes["_names"], axes["_categories"], axes["_ycategories"] = [], _Categories(), _Categories()
    axes["_domain"] = (_chart_floats(xaxis.get("domain", [0, 1])), _chart_floats(yaxis.get("domain", [0, 1])))
    return axes


def _plotly_barmode(axes, mode):
    """Bars of several traces in one panel as plotly lays them out: side by side ("group", a
    go.Figure's default), one on another ("stack"; "relative", plotly express's default, stacks
    negative values downwards), or over each other ("overlay")."""
    traces = [bars for bars in axes["bars"] if bars.get("_plotly")]
    for bars in traces:
        bars.pop("_plotly")
    if len(traces) < 2 or mode == "overlay":
        return
    horizontal = [bars["orientation"] == "horizontal" for bars in traces]
    if any(horizontal) != all(horizontal):
        return
    along, size, value, base = ("bottom", "height", "width", "x") if horizontal[0] else ("x", "width", "height", "bottom")
    if mode == "group":
        for i, bars in enumerate(traces):
            bars[size] = bars[size] / len(traces)
            bars[along] = bars[along] + i * bars[size]
        return
    if mode in ("stack", "relative"):
        up, down = {}, {}
        for bars in traces:
            starts = []
            for key, height in zip(np.round(bars[along] + bars[size] / 2, 9), bars[value]):
                pile = down if (mode == "relative" and height < 0) else up
                starts.append(pile.get(key, 0.0))
                pile[key] = starts[-1] + height
            bars[base] = bars[base] + np.array(starts)


def _plotly_titles(panels, annotations):
    """make_subplots writes each panel's title as a note on the page just above it: the panel whose
    column holds the note and whose top is nearest below it takes it as its title; other notes are
    the texts of the first panel."""
    for note in annotations[:CHART_SERIES]:
        text = _chart_text(note.get("text"))
        if not text:
            continue
        on_page = note.get("xref") == "paper" and note.get("yref") == "paper"
        x, y = _chart_floats([note.get("x", 0.5)]), _chart_floats([note.get("y", 1.0)])
        best = None
        for axes in panels.values():
            (x0, x1), (_, top) = axes["_domain"][0][:2], axes["_domain"][1][:2]
            if on_page and x is not None and y is not None and x0 - 1e-6 <= x[0] <= x1 + 1e-6 and y[0] >= top - 0.02:
                if best is None or y[0] - top < best[0]:
                    best = (y[0] - top, axes)
        if best is not None and not best[1]["title"]:
            best[1]["title"] = text
        elif panels:
            next(iter(panels.values()))["texts"].append(text)


def _plotly_trace(axes, trace):
    kind, name = trace.get("type") or "scatter", _chart_text(trace.get("name"))
    if trace.get("name") and trace.get("showlegend", True) is not False:
        axes["_names"].append(name)
    if kind in ("scatter", "scattergl"):
        y = _chart_floats(trace.get("y"))
        if y is None and isinstance(trace.get("y"), (list, tuple, np.ndarray)):   # names along y (beside barh)
            y = axes["_ycategories"].place(trace["y"])
        if y is None:
            axes["unread"].append("a plotly scatter of text values")
            return
        x = axes["_categories"].place(trace["x"]) if trace.get("x") is not None else np.arange(y.size, dtype=float)
        mode = trace.get("mode") or ("lines" if y.size > 20 else "lines+markers")
        dash = ((trace.get("line") or {}).get("dash")) or "solid"
        axes["lines"].append({"x": x, "y": y, "label": name, "in_data": True, "drawstyle": "default",
                              "linestyle": DASHES.get(dash, "-") if "lines" in mode else "None",
                              "marker": "o" if "markers" in mode else "None"})
    elif kind == "bar":
        _plotly_bars(axes, trace, name)
    elif kind == "histogram":
        _plotly_histogram(axes, trace, name)
    else:
        axes["unread"].append(f"a plotly {kind}")


def _plotly_bars(axes, trace, name):
    horizontal = trace.get("orientation") == "h"
    along, values = ("y", "x") if horizontal else ("x", "y")
    heights = _chart_floats(trace.get(values))
    if heights is None:
        axes["unread"].append("plotly bars of text values")
        return
    categories = axes["_ycategories" if horizontal else "_categories"]   # barh's names stand on the y axis
    at = categories.place(trace[along]) if trace.get(along) is not None else np.arange(heights.size, dtype=float)
    width = _chart_floats(trace.get("width")) if trace.get("width") is not None else None
    if width is None or width.size not in (1, heights.size):
        gaps = np.diff(np.unique(at))
        width = np.array([0.8 * (gaps.min() if gaps.size else 1.0)])
    width = np.broadcast_to(width, heights.shape).astype(float)
    base = _chart_floats(trace.get("base")) if trace.get("base") is not None else np.zeros(1)
    base = np.broadcast_to(base if base is not None and base.size in (1, heights.size) else np.zeros(1),
                           heights.shape).astype(float)
    if horizontal:   # as matplotlib's barh keeps them: x the base, width the value, y the bottom
        axes["bars"].append({"x": base, "width": heights, "bottom": at - width / 2, "height": width,
                             "label": name, "orientation": "horizontal", "_plotly": True})
    else:
        axes["bars"].append({"x": at - width / 2, "width": width, "bottom": base, "height": heights,
                             "label": name, "orientation": "vertical", "_plotly": True})


def _plotly_histogram(axes, trace, name):
    """plotly bins a histogram in the browser: here, as it does for its own settings (xbins start,
    end and size; nbinsx), and for integer data one bin per integer; else numpy's automatic bins. Text
    values are counted per name, one bar each. With values on the other axis, histfunc (sum, avg,
    min, max) gathers them per bin; histnorm then scales the bins as plotly does."""
    horizontal = trace.get("orientation") == "h" or (trace.get("y") is not None and trace.get("x") is None)
    along, other = ("y", "x") if horizontal else ("x", "y")
    if trace.get(along) is None:
        axes["unread"].append("a plotly histogram with no data")
        return
    raw = list(trace[along])[:CHART_POINTS] if not isinstance(trace[along], dict) else trace[along]
    data = _chart_floats(raw)
    weights = _chart_floats(trace.get(other)) if trace.get(other) is not None else None
    func = trace.get("histfunc") or ("sum" if weights is not None else "count")
    if weights is not None and weights.size != (data.size if data is not None else len(raw)):
        axes["unread"].append("a plotly histogram whose two axes differ in length")
        return
    if data is None:   # text values: a bar per name, in the order met
        at = axes["_ycategories" if horizontal else "_categories"].place([str(v) for v in raw])
        edges_of = None
    else:
        keep = np.isfinite(data)
        data, weights = data[keep], (weights[keep] if weights is not None else None)
        if not data.size:
            axes["unread"].append("a plotly histogram with no data")
            return
        edges_of = _plotly_bin_edges(trace, data, horizontal)
        at = data
    if edges_of is None:
        places = np.unique(at)
        index = np.searchsorted(places, at)
        lefts, widths = places - 0.4, np.full(places.size, 0.8)
    else:
        index = np.clip(np.searchsorted(edges_of, at, side="right") - 1, 0, edges_of.size - 2)
        inside = (at >= edges_of[0]) & (at <= edges_of[-1])
        index, weights = index[inside], (weights[inside] if weights is not None else None)
        lefts, widths = edges_of[:-1], np.diff(edges_of)
    heights = _plotly_histfunc(func, index, weights, lefts.size)
    if heights is None:
        axes["unread"].append(f"a plotly histogram with histfunc {func!r}")
        return
    norm = trace.get("histnorm") or ""
    total = float(np.nansum(heights))
    if norm in ("percent", "probability", "probability density") and total:
        heights = heights / total * (100.0 if norm == "percent" else 1.0)
    if "density" in norm:
        heights = heights / widths
    if horizontal:
        axes["bars"].append({"x": np.zeros(lefts.size), "width": heights, "bottom": lefts, "height": widths,
                             "label": name, "orientation": "horizontal", "_plotly": True})
    else:
        axes["bars"].append({"x": lefts, "width": widths, "bottom": np.zeros(lefts.size), "height": heights,
                             "label": name, "orientation": "vertical", "_plotly": True})


def _plotly_bin_edges(trace, data, horizontal):
    bins = trace.get("ybins" if horizontal else "xbins") or {}
    size = bins.get("size")
    if isinstance(size, (int, float)) and size > 0:
        start = bins.get("start", np.floor(data.min() / size) * size)
        end = bins.get("end", data.max() + size)
        return np.arange(float(start), float(end) + size / 2, size)
    count = trace.get("nbinsy" if horizontal else "nbinsx")
    if count:
        return np.histogram_bin_edges(data, bins=int(count))
    if np.allclose(data, np.round(data)) and data.max() - data.min() <= 200:
        return np.arange(data.min() - 0.5, data.max() + 1.0, 1.0)
    return np.histogram_bin_edges(data, bins="auto")


def _plotly_histfunc(func, index, weights, bins):
    """Each bin's count, or its values' sum, mean, least or greatest (NaN where a bin holds none)."""
    if func == "count" or weights is None:
        return np.bincount(index, minlength=bins).astype(float)
    if func == "sum":
        return np.bincount(index, weights=weights, minlength=bins).astype(float)
    if func in ("avg", "min", "max"):
        out = np.full(bins, np.nan)
        for i in range(bins):
            members = weights[index == i]
            if members.size:
                out[i] = {"avg": np.mean, "min": np.min, "max": np.max}[func](members)
        return out
    return None


def _plotly_shape(axes, shape):
    """fig.add_hline / add_vline / add_shape(type="line"): a level across the axes, or a segment."""
    if shape.get("type") != "line":
        axes["unread"].append(f"a plotly {shape.get('type') or 'shape'}")
        return
    x0, x1, y0, y1 = (shape.get(k) for k in ("x0", "x1", "y0", "y1"))
    across_x = "domain" in str(shape.get("xref") or "") or shape.get("xref") == "paper"
    across_y = "domain" in str(shape.get("yref") or "") or shape.get("yref") == "paper"
    style = DASHES.get((shape.get("line") or {}).get("dash") or "solid", "-")
    if across_x and y0 == y1:   # add_hline: y in data, x across the axes
        axes["lines"].append({"x": np.array([0.0, 1.0]), "y": _chart_floats([y0, y1]), "label": "", "in_data": False,
                              "linestyle": style, "marker": "None", "drawstyle": "default"})
    elif across_y and x0 == x1:
        axes["segments"].append({"segments": [np.array([[x0, 0.0], [x1, 1.0]], dtype=float)], "label": "",
                                 "role": "vline"})
    else:
        xy = _chart_floats([x0, y0, x1, y1])
        if xy is not None and xy.size == 4:
            axes["segments"].append({"segments": [xy.reshape(2, 2)], "label": "", "role": ""})


# ---- altair ---------------------------------------------------------------------------------------

def altair_data(spec):
    datasets = spec.get("datasets") or {}
    panels = []
    _altair_walk(spec, datasets, spec.get("data"), {}, panels)
    if not panels:
        return None
    for axes in panels:
        _category_ticks(axes)
    return {"axes": panels[:CHART_AXES], "suptitle": _chart_text(spec.get("title")) if len(panels) > 1 else ""}


def _chart_rows(data, datasets):
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("values"), list):
        return data["values"]
    if data.get("name") in datasets:
        return datasets[data["name"]]
    return None


def _altair_walk(spec, datasets, data, encoding, panels, into=None, transforms=()):
    """Each view of the spec (layers share one axes; concatenations and facets make several).
    `transforms`: those of the views above that share this one's data, worked out with its own at
    each mark (vega.py); a view with data of its own starts afresh, as in Vega-Lite."""
    if "data" in spec:
        data, transforms = spec["data"], ()
    encoding = {**encoding, **(spec.get("encoding") or {})}
    transforms = (*transforms, *(spec.get("transform") or []))
    for key in ("hconcat", "vconcat", "concat"):
        for view in spec.get(key) or []:
            _altair_walk(view, datasets, data, encoding, panels, transforms=transforms)
    if "layer" in spec:
        axes = into if into is not None else _new_panel(panels, spec)
        for view in spec["layer"]:
            _altair_walk(view, datasets, data, encoding, panels, into=axes, transforms=transforms)
        return
    facet = spec.get("facet")
    if isinstance(facet, dict) and isinstance(spec.get("spec"), dict):   # chart.facet(column=...)
        channels = [facet[k] for k in ("row", "column") if isinstance(facet.get(k), dict)] or [facet]
        _altair_facets(spec["spec"], channels, datasets, data, encoding, panels, transforms)
        return
    by = {k: encoding[k] for k in ("row", "column", "facet") if isinstance(encoding.get(k), dict)}
    if by and "mark" in spec:                                           # encode(column=...)
        inner = {key: value for key, value in spec.items() if key not in ("data", "encoding", "transform")}
        _altair_facets(inner, list(by.values()), datasets, data,
                       {k: v for k, v in encoding.items() if k not in by}, panels, transforms)
        return
    if "repeat" in spec and isinstance(spec.get("spec"), dict):   # chart.repeat(column=[...]), repeat(layer=[...])
        _altair_repeat(spec, datasets, data, encoding, panels, into, transforms)
        return
    if "facet" in spec or "repeat" in spec:
        axes = _new_panel(panels, spec)
        axes["unread"].append("an altair facet or repeat")
        return
    if "mark" not in spec:
        return
    axes = into if into is not None else _new_panel(panels, spec)
    _altair_mark(axes, spec, _chart_rows(data, datasets), encoding, transforms)


def _altair_repeat(spec, datasets, data, encoding, panels, into, transforms):
    """One view per repeated field (a panel each for row and column, all on one panel for layer), the
    field written where the spec says {"repeat": ...}."""
    repeat = spec["repeat"] if isinstance(spec["repeat"], dict) else {"repeat": spec["repeat"]}
    keys = [key for key in ("repeat", "row", "column") if isinstance(repeat.get(key), list)]
    combos = [{}]
    for key in keys:
        combos = [{**combo, key: value} for combo in combos for value in repeat[key]]
    layers = repeat.get("layer") if isinstance(repeat.get("layer"), list) else None
    for combo in combos[:CHART_AXES]:
        axes = into if into is not None else (_new_panel(panels, spec["spec"]) if layers else None)
        for layer in layers or [None]:
            chosen = {**combo, "layer": layer} if layer is not None else combo
            _altair_walk(_repeated(spec["spec"], chosen), datasets, data, encoding, panels, into=axes,
                         transforms=transforms)


def _repeated(node, chosen):
    if isinstance(node, dict):
        if set(node) == {"repeat"} and node["repeat"] in chosen:
            return chosen[node["repeat"]]
        return {key: _repeated(value, chosen) for key, value in node.items()}
    if isinstance(node, list):
        return [_repeated(value, chosen) for value in node]
    return node


def _altair_facets(inner, channels, datasets, data, encoding, panels, transforms):
    """One panel per value of the facet fields, titled as the page's headers read ("T = 4"), split
    from the rows after the transforms above the facet."""
    rows = _chart_rows(data, datasets)
    fields = [channel.get("field") for channel in channels]
    if rows is None or not all(fields):
        axes = _new_panel(panels, inner)
        axes["unread"].append("an altair facet")
        return
    try:
        rows = vega_rows(rows[:CHART_POINTS], transforms, CHART_POINTS)
    except VegaUnread as unread:
        _new_panel(panels, inner)["unread"].append(str(unread))
        return
    groups = {}
    for row in rows[:CHART_POINTS]:
        groups.setdefault(tuple(row.get(field) for field in fields), []).append(row)
    for values, members in list(groups.items())[:CHART_AXES]:
        first = len(panels)
        _altair_walk(inner, datasets, {"values": members}, encoding, panels)
        title = ", ".join(str(value) if "title" in channel and channel["title"] is None   # headers of values only
                          else f"{_channel_title(channel)} = {value}" for channel, value in zip(channels, values))
        for axes in panels[first:]:
            axes["title"] = axes["title"] or title


def _new_panel(panels, spec):
    axes = _chart_axes(title=_chart_text(spec.get("title")))
    axes["_categories"], axes["_ycategories"] = _Categories(), _Categories()
    panels.append(axes)
    return axes


def _channel_title(channel):
    if channel.get("title") is not None:
        return _chart_text(channel.get("title"))
    if channel.get("aggregate") == "count" and not channel.get("field"):
        return "Count of Records"
    field = _chart_text(channel.get("field"))
    if channel.get("aggregate"):
        return f"{channel['aggregate'].capitalize()} of {field}"
    return field


def _altair_mark(axes, spec, rows, encoding, transforms=()):
    mark = spec["mark"]["type"] if isinstance(spec["mark"], dict) else spec["mark"]
    x, y = encoding.get("x") or {}, encoding.get("y") or {}
    if not axes["xlabel"]:
        axes["xlabel"] = _channel_title(x)
    if not axes["ylabel"]:
        axes["ylabel"] = _channel_title(y)
    for name, channel in (("x", x), ("y", y)):
        scale = channel.get("scale") or {}
        if scale.get("type") == "log":
            axes[name + "scale"] = "log"
        domain = _chart_floats(scale.get("domain")) if isinstance(scale.get("domain"), list) else None
        if domain is not None and domain.size == 2 and np.isfinite(domain).all():
            axes[name + "lim"] = domain   # scale=alt.Scale(domain=[0, 1]): the axis's limits
    if mark == "rule" and _altair_datum(y) is not None and not x.get("field"):   # y=alt.datum(0.08): a level, no data
        axes["lines"].append(_altair_level(_altair_datum(y)))
        return
    if mark == "rule" and _altair_datum(x) is not None and not y.get("field"):   # x=alt.datum(3): an upright line
        axes["segments"].append(_altair_upright(_altair_datum(x)))
        return
    if rows is None:
        axes["unread"].append(f"an altair {mark} mark whose data is not in the chart")
        return
    try:   # transforms, bins and aggregates (x=alt.X("k:Q", bin=True), y="count()"), worked out by VegaFusion
        rows, encoding = vega_drawn(rows[:CHART_POINTS], transforms, spec["mark"], encoding, CHART_POINTS)
    except VegaUnread as unread:
        if str(unread) not in axes["unread"]:   # layers sharing a transform fail alike: named once
            axes["unread"].append(str(unread))
        return
    x, y = encoding.get("x") or {}, encoding.get("y") or {}
    if mark == "rule" and y.get("field") and not x.get("field"):   # a level across the axes
        for row in rows[:CHART_SERIES]:
            value = _chart_floats([row.get(y["field"])])
            if value is not None and value.size == 1:
                axes["lines"].append(_altair_level(value[0]))
        return
    if mark == "rule" and x.get("field") and not y.get("field"):   # an upright line at each x
        for row in rows[:CHART_SERIES]:
            value = _chart_floats([row.get(x["field"])])
            if value is not None and value.size == 1 and np.isfinite(value[0]):
                axes["segments"].append(_altair_upright(value[0]))
        return
    if mark == "text":   # labels written on the chart (a count over each bar): their text, as ax.text's
        text = encoding.get("text") or {}
        axes["texts"] += [_altair_text(row.get(text["field"]), text.get("format")) for row in rows[:CHART_SERIES]] \
            if text.get("field") else ([_chart_text(text["value"])] if "value" in text else [])
        return
    colour = (encoding.get("color") or encoding.get("strokeDash") or {}).get("field")
    named = (encoding.get("color") or encoding.get("strokeDash") or {}).get("datum")   # a layer's own name
    groups = {}
    for row in rows:
        groups.setdefault(str(row.get(colour)) if colour else _chart_text(named), []).append(row)
    if colour or named is not None:
        axes["legend"] += [g for g in groups if g not in axes["legend"]]
    # Vega-Lite stacks bars of several colours unless told `stack=None`: each group sits on the ones before
    stacked = mark == "bar" and colour and y.get("stack", "zero") not in (None, False)
    below = {}
    offset = (encoding.get("xOffset") or {}).get("field")
    offsets = list(dict.fromkeys(str(row.get(offset)) for row in rows)) if offset else []
    for group, members in list(groups.items())[:CHART_SERIES]:
        if mark == "bar" and (y.get("_bin_end") or (y.get("type") in ("nominal", "ordinal") and x.get("field")
                                                     and y.get("field"))):
            _altair_bars_across(axes, members, x, y, group)   # names or bins on the y axis: horizontal bars
            continue
        xs = axes["_categories"].place([r.get(x.get("field")) for r in members]) if x.get("field") else None
        ys = _chart_floats([r.get(y.get("field")) for r in members]) if y.get("field") else None
        if ys is None and y.get("field") and mark != "bar":   # points or ticks at names along y (beside barh)
            ys = axes["_ycategories"].place([r.get(y["field"]) for r in members])
        ends = _chart_floats([r.get(x["_bin_end"]) for r in members]) if x.get("_bin_end") else None
        if xs is None or ys is None or xs.size != ys.size or (ends is not None and ends.size != xs.size):
            axes["unread"].append(f"an altair {mark} mark")
            continue
        if ends is not None and mark != "bar":
            xs = (xs + ends) / 2   # a point or line over a bin sits at its middle
        if mark == "bar":
            slots = np.zeros(xs.size)
            if ends is not None:   # a histogram's bars span their bins
                left, width = xs, ends - xs
            else:
                gaps = np.diff(np.unique(xs))
                width = np.full(xs.size, 0.8 * (gaps.min() if gaps.size else 1.0))
                left = xs - width / 2
                if offsets:   # xOffset: side by side within each x, each value of the field its own slot
                    slots = np.array([offsets.index(str(r.get(offset))) for r in members], dtype=float)
                    width = width / len(offsets)
                    left = left + slots * width
            keys = list(zip(xs, slots))
            bottom = np.array([below.get(key, 0.0) for key in keys]) if stacked else np.zeros(xs.size)
            if stacked:
                for key, top in zip(keys, bottom + ys):
                    below[key] = top
            axes["bars"].append({"x": left, "width": width, "bottom": bottom,
                                 "height": ys, "label": group, "orientation": "vertical"})
        elif mark in ("line", "trail"):
            order = np.argsort(xs, kind="stable") if x.get("type") != "nominal" else np.arange(xs.size)
            dash = (spec["mark"].get("strokeDash") if isinstance(spec["mark"], dict) else None)
            axes["lines"].append({"x": xs[order], "y": ys[order], "label": group, "in_data": True, "drawstyle": "default",
                                  "linestyle": "--" if dash else "-",
                                  "marker": "o" if isinstance(spec["mark"], dict) and spec["mark"].get("point") else "None"})
        elif mark in ("point", "circle", "square", "tick"):
            axes["lines"].append({"x": xs, "y": ys, "label": group, "in_data": True, "drawstyle": "default",
                                  "linestyle": "None", "marker": "o"})
        elif mark == "area":
            _altair_area(axes, spec, members, xs, ys, encoding, group)
        else:
            axes["unread"].append(f"an altair {mark} mark")


def _altair_datum(channel):
    """The number an encoding channel holds as a datum (alt.datum(0.08)), or None."""
    value = channel.get("datum")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        return None
    return float(value)


def _altair_level(y):
    """A rule across the axes at y (in data), as axhline's line."""
    return {"x": np.array([0.0, 1.0]), "y": np.array([y, y], dtype=float), "label": "", "in_data": False,
            "linestyle": "-", "marker": "None", "drawstyle": "default"}


def _altair_upright(x):
    """A rule up the axes at x (in data), as axvline's."""
    return {"segments": [np.array([[x, 0.0], [x, 1.0]])], "label": "", "role": "vline"}


STEPS = {"step": "steps-mid", "step-after": "steps-post", "step-before": "steps-pre"}


def _altair_area(axes, spec, members, xs, ys, encoding, group):
    """An area filled down to zero is its top edge, a curve (stepped as its interpolate says); an area
    between y and y2 is a band, kept as matplotlib's fill_between keeps one."""
    order = np.argsort(xs, kind="stable")
    interpolate = spec["mark"].get("interpolate") if isinstance(spec["mark"], dict) else None
    low = (encoding.get("y2") or {}).get("field")
    if low is None:
        if interpolate not in (None, "linear", "monotone", "basis", "cardinal", "natural") and interpolate not in STEPS:
            axes["unread"].append(f"an altair area drawn {interpolate}")
            return
        axes["lines"].append({"x": xs[order], "y": ys[order], "label": group, "in_data": True, "linestyle": "-",
                              "drawstyle": STEPS.get(interpolate, "default"), "marker": "None"})
        return
    bottom = _chart_floats([r.get(low) for r in members])
    if bottom is None or bottom.size != ys.size:
        axes["unread"].append("an altair area between two fields")
        return
    axes["polygons"].append({"x": np.concatenate([xs[order], xs[order][::-1]]),
                             "y": np.concatenate([ys[order], bottom[order][::-1]]), "role": "fill", "label": group})


def _altair_text(value, form):
    """A text mark's value as the chart writes it: d3's fixed, percent and integer formats ('.2f',
    '.0%', 'd', ',') as Python's own; anything else as the value itself."""
    if isinstance(form, str) and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return format(value, form.replace("~", "") if form.rstrip("~")[-1:] in "f%de," else "")
        except (ValueError, IndexError):
            pass
    if isinstance(value, float) and value.is_integer():   # JavaScript writes 2.0 as 2
        return str(int(value))
    return _chart_text(value)


def _altair_bars_across(axes, members, x, y, group):
    """Bars named (or binned) on the y axis, x their lengths, kept as matplotlib's barh keeps them."""
    at = axes["_ycategories"].place([r.get(y.get("field")) for r in members])
    lengths = _chart_floats([r.get(x.get("field")) for r in members])
    if y.get("_bin_end"):
        ends = _chart_floats([r.get(y["_bin_end"]) for r in members])
        bottom, height = at, (ends - at if ends is not None and ends.size == at.size else None)
    else:
        bottom, height = at - 0.4, np.full(at.size, 0.8)
    if lengths is None or lengths.size != at.size or height is None:
        axes["unread"].append("an altair bar mark")
        return
    axes["bars"].append({"x": np.zeros(at.size), "width": lengths, "bottom": bottom, "height": height,
                         "label": group, "orientation": "horizontal"})
