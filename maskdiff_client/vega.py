"""The table an altair chart draws where the browser works it out (a transform chained onto the chart,
a bin or an aggregate in its encoding: `alt.X("k:Q", bin=True)`, `y="count()"`), worked out by altair's
own `transformed_data()`: vl-convert compiles the view's Vega-Lite to Vega, and VegaFusion evaluates
Vega's transforms as the browser would. A view with nothing to work out draws its rows as they are.

charts.py reads the chart from the rows this gives. What cannot be worked out is named (VegaUnread),
and charts.py sends the drawing to review with that name; it is never guessed: vegafusion or
vl-convert-python missing (Colab has neither), a transform VegaFusion does not do yet (regression,
loess, density, quantile, ...), an address-space limit too small for vl-convert's JavaScript engine.
"""
VEGA_PACKAGES = "vegafusion and vl-convert-python"
VEGA_TRANSFORMS = ("aggregate", "bin", "calculate", "density", "extent", "filter", "flatten", "fold", "impute",
                   "joinaggregate", "loess", "lookup", "pivot", "quantile", "regression", "sample", "stack", "timeUnit",
                   "window")
# vl-convert's V8 reserves about 68 GiB of address space when it starts (measured: VmPeak 68.5 GB); under
# an RLIMIT_AS that leaves less it aborts the whole process, the student's kernel with it
V8_RESERVES = 72 << 30
_engine = {"started": False}


class VegaUnread(Exception):
    """A part of the spec that cannot be worked out here; its message names it for the reviewer."""


def vega_needed(transforms, encoding):
    """Whether the browser works anything out before drawing: a transform, or a channel binned,
    aggregated or cut into time units."""
    channels = [c for c in (encoding or {}).values() if isinstance(c, dict)]
    return bool(transforms) or any(c.get("aggregate") or c.get("timeUnit") or (c.get("bin") and c["bin"] != "binned")
                                   for c in channels)


def vega_drawn(rows, transforms, mark, encoding, limit):
    """(rows, encoding): the rows a view's mark draws, and its encoding with each binned or aggregated
    channel naming the field that holds it (a binned one gains `_bin_end`, the field of each bar's far
    edge). `rows` are the view's data as the chart holds it; `transforms` those of the view and of the
    views above it that share its data, in order."""
    encoding = {name: dict(channel) if isinstance(channel, dict) else channel for name, channel in encoding.items()}
    for name in ("x", "y"):   # bin="binned": the data holds the bins already, their far edges in x2 or y2
        channel = encoding.get(name) or {}
        if isinstance(channel, dict) and channel.get("bin") == "binned" and (encoding.get(name + "2") or {}).get("field"):
            channel["_bin_end"] = encoding[name + "2"]["field"]
    if not vega_needed(transforms, encoding):
        return rows, encoding
    for name, channel in encoding.items():
        if isinstance(channel, dict) and channel.get("timeUnit"):
            raise VegaUnread(f"an altair timeUnit on {name}")
    table = vega_table(rows, transforms, mark, encoding, limit)
    columns = set(table.columns)
    for name, channel in encoding.items():
        if isinstance(channel, dict):
            _vega_rename(name, channel, columns)
    return table.to_dict("records"), encoding


def vega_rows(rows, transforms, limit):
    """The rows after the transforms alone (a facet splits these into its panels)."""
    return vega_table(rows, transforms, "point", {}, limit).to_dict("records") if transforms else rows


def _vega_rename(name, channel, columns):
    """The channel pointed at the column Vega-Lite made of it: `__count` for count(), `mean_loss` for
    mean(loss), `bin_..._k` and `bin_..._k_end` for k binned (the bin's settings stand between)."""
    field = channel.get("field")
    if channel.get("aggregate"):
        op = channel["aggregate"]
        if not isinstance(op, str):
            raise VegaUnread(f"an altair aggregate {op!r}")
        column = "__count" if op == "count" else f"{op}_{field}"
        if column not in columns:
            raise VegaUnread(f"the altair {op}({field or ''}) on {name}, which altair's table lacks")
        channel.update(field=column, _aggregate=channel.pop("aggregate"))
    elif channel.get("bin") and channel["bin"] != "binned" and field:
        made = [c for c in columns if c.startswith("bin_") and c.endswith(f"_{field}") and f"{c}_end" in columns]
        if len(made) != 1:
            raise VegaUnread(f"the altair bins of {field} on {name}, which altair's table "
                             f"{'lacks' if not made else 'holds more than once'}")
        channel.update(field=made[0], _bin_end=f"{made[0]}_end", type="quantitative")
        channel.pop("bin")


def vega_table(rows, transforms, mark, encoding, limit):
    """The view's drawn table (a pandas DataFrame) from altair's transformed_data()."""
    alt, pd = _vega_tools()
    if not all(isinstance(row, dict) for row in rows):
        raise VegaUnread("an altair chart whose rows are not records")
    try:
        table = _vega_chart(alt, pd, rows, transforms, mark, encoding).transformed_data(row_limit=limit)
    except Exception as error:  # noqa: BLE001 - altair, vl-convert and VegaFusion raise many kinds: named
        raise _vega_failure(error, rows, transforms, mark) from None
    if table is None:
        raise VegaUnread(f"an altair {_vega_mark(mark)} mark whose table altair does not give")
    return table


def _vega_chart(alt, pd, rows, transforms, mark, encoding):
    """One view as altair holds it: its mark, transforms and encoding, over the rows."""
    chart = alt.Chart.from_dict({"mark": mark, "transform": list(transforms), "encoding": _vega_plain(encoding)},
                                validate=False)
    chart.data = pd.DataFrame(rows)
    return chart


def _vega_plain(encoding):
    """The encoding as Vega-Lite gets it, less what only the reader keeps (`_bin_end`) and the
    conditions (they name selections this view alone does not hold)."""
    out = {}
    for name, channel in encoding.items():
        if isinstance(channel, dict):
            channel = {k: v for k, v in channel.items() if not k.startswith("_") and k != "condition"}
        out[name] = channel
    return out


def _vega_tools():
    """altair and pandas, once vegafusion and vl-convert can run here; else VegaUnread says what is missing."""
    missing = []
    for name, module in (("vegafusion", "vegafusion"), ("vl-convert-python", "vl_convert")):
        try:
            __import__(module)
        except ImportError:
            missing.append(name)
    if missing:
        raise VegaUnread(f"an altair chart whose table the browser works out (its transforms, bins or aggregates): "
                         f"reading it needs {VEGA_PACKAGES}, and this Python lacks {' and '.join(missing)} "
                         f"(pip install vegafusion vl-convert-python)")
    if not _engine["started"] and not _vega_room():
        raise VegaUnread("an altair chart whose table the browser works out: vl-convert's JavaScript engine "
                         "needs more address space than this process may have (RLIMIT_AS)")
    _engine["started"] = True   # from here on V8 holds its reservation: VmSize counts it
    import altair as alt
    import pandas as pd
    return alt, pd


def _vega_room():
    """Whether V8 can reserve its address space under this process's RLIMIT_AS (none on Windows)."""
    try:
        import resource
    except ImportError:
        return True
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return True
    used = 0
    try:
        with open("/proc/self/status") as status:
            used = next((int(line.split()[1]) << 10 for line in status if line.startswith("VmSize:")), 0)
    except OSError:
        pass
    return soft - used >= V8_RESERVES


def _vega_mark(mark):
    return mark.get("type", "?") if isinstance(mark, dict) else str(mark)


def _vega_failure(error, rows, transforms, mark):
    """VegaUnread naming what failed: the first transform VegaFusion cannot do (each prefix of the
    chain tried on its own), else the view's encoding, with VegaFusion's or vl-convert's first line."""
    said = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
    if "not yet supported" in str(error) or "not implemented" in str(error):
        alt, pd = _vega_tools()
        for i, step in enumerate(transforms):
            try:
                _vega_chart(alt, pd, rows[:100], transforms[:i + 1], "point", {}).transformed_data()
            except Exception:  # noqa: BLE001 - this step is the one
                kind = next((key for key in step if key in VEGA_TRANSFORMS), "?") if isinstance(step, dict) else "?"
                return VegaUnread(f"an altair transform_{kind}, which VegaFusion cannot work out yet")
        return VegaUnread(f"an altair {_vega_mark(mark)} mark's encoding, which VegaFusion cannot work out yet")
    return VegaUnread(f"an altair {_vega_mark(mark)} mark whose table altair could not work out ({said})")
