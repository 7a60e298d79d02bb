"""The table an altair chart draws, worked out as the browser's Vega-Lite would: the transforms students
chain onto a chart (fold, calculate, filter, aggregate, joinaggregate, window, bin), and the bins and
aggregates of an encoding (`alt.X("k:Q", bin=True)`, `y="count()"`, `y="mean(loss)"`).

charts.py reads the chart from the rows this gives. Anything here that cannot be worked out exactly is
named: an unknown transform, an expression outside the small arithmetic that students write. charts.py
then sends the drawing to review with that name. It is never guessed.

Expressions are read as data, never run: `datum.x * 100`, `1 / datum.total`, `datum.t > 0 && datum.k
== 'a'`, Math.log(...). They are parsed with Python's ast and evaluated node by node from a short list
of allowed nodes.
"""
import ast
import math
import re

import numpy as np

VEGA_EPSILON = 1e-14     # vega's bin transform: a value a rounding error below an edge falls in the bin above
VEGA_AGGREGATES = ("count", "valid", "missing", "distinct", "sum", "mean", "average", "median", "min", "max",
                   "variance", "stdev", "q1", "q3")
VEGA_TRANSFORMS = ("aggregate", "bin", "calculate", "density", "extent", "filter", "flatten", "fold", "impute",
                   "joinaggregate", "loess", "lookup", "pivot", "quantile", "regression", "sample", "stack", "timeUnit",
                   "window")
VEGA_MATH = {"log": math.log, "exp": math.exp, "sqrt": math.sqrt, "abs": abs, "pow": pow, "floor": math.floor,
             "ceil": math.ceil, "round": round, "min": min, "max": max, "log10": math.log10, "log2": math.log2}


class VegaUnread(Exception):
    """A part of the spec that cannot be worked out here; its message names it for the reviewer."""


def vega_number(value):
    """A row's value as a number, or None (missing, text, NaN): Vega's aggregates skip these."""
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


# ---- transforms -----------------------------------------------------------------------------------

def vega_transform(rows, transforms):
    """The rows after the chart's transforms, in order; VegaUnread names a transform this cannot do."""
    rows = [dict(row) for row in rows]
    for step in transforms or []:
        if not isinstance(step, dict):
            raise VegaUnread("an altair transform")
        if "fold" in step:
            rows = _vega_fold(rows, step)
        elif "calculate" in step:
            rows = [{**row, step["as"]: vega_expression(step["calculate"], row)} for row in rows]
        elif "filter" in step:
            rows = [row for row in rows if _vega_keeps(step["filter"], row)]
        elif "aggregate" in step:
            rows = _vega_aggregate(rows, step["aggregate"], step.get("groupby") or [])
        elif "joinaggregate" in step:
            rows = _vega_joinaggregate(rows, step["joinaggregate"], step.get("groupby") or [])
        elif "window" in step:
            rows = _vega_window(rows, step)
        elif "bin" in step and "field" in step:
            names = step.get("as") or f"bin_{step['field']}"
            start, end = (names, f"{names}_end") if isinstance(names, str) else (names[0], names[1])
            rows = vega_bin_rows(rows, step["field"], step["bin"], start, end, channel="")
        else:
            named = next((key for key in step if key in VEGA_TRANSFORMS), "?")
            raise VegaUnread(f"an altair transform_{named}")
    return rows


def _vega_fold(rows, step):
    key, value = (step.get("as") or ["key", "value"]) + ["key", "value"][len(step.get("as") or []):]
    return [{**row, key: field, value: row.get(field)} for row in rows for field in step["fold"]]


def _vega_keeps(predicate, row):
    if isinstance(predicate, str):
        return bool(vega_expression(predicate, row))
    if not isinstance(predicate, dict):
        raise VegaUnread("an altair filter")
    if "and" in predicate:
        return all(_vega_keeps(p, row) for p in predicate["and"])
    if "or" in predicate:
        return any(_vega_keeps(p, row) for p in predicate["or"])
    if "not" in predicate:
        return not _vega_keeps(predicate["not"], row)
    if "field" not in predicate or "timeUnit" in predicate:
        raise VegaUnread("an altair filter")
    value = row.get(predicate["field"])
    number = vega_number(value)
    if "equal" in predicate:
        return value == predicate["equal"]
    if "oneOf" in predicate:
        return value in predicate["oneOf"]
    if "valid" in predicate:
        return (number is not None) == bool(predicate["valid"])
    if "range" in predicate:
        low, high = predicate["range"]
        return number is not None and (low is None or number >= low) and (high is None or number <= high)
    for key, holds in (("lt", lambda a, b: a < b), ("lte", lambda a, b: a <= b), ("gt", lambda a, b: a > b),
                       ("gte", lambda a, b: a >= b)):
        if key in predicate:
            return number is not None and holds(number, predicate[key])
    raise VegaUnread("an altair filter")


def _vega_op(op, values):
    """One Vega aggregate over a group's values (count counts rows; the others skip missing values)."""
    if op == "count":
        return float(len(values))
    numbers = [n for n in (vega_number(v) for v in values) if n is not None]
    if op == "valid":
        return float(len(numbers))
    if op == "missing":
        return float(len(values) - len(numbers))
    if op == "distinct":
        return float(len({_vega_key(v) for v in values}))
    if not numbers:
        return 0.0 if op == "sum" else None
    array = np.asarray(numbers)
    if op == "sum":
        return float(array.sum())
    if op in ("mean", "average"):
        return float(array.mean())
    if op == "median":
        return float(np.median(array))
    if op in ("min", "max"):
        return float(getattr(array, op)())
    if op in ("variance", "stdev"):
        if array.size < 2:
            return None
        variance = float(array.var(ddof=1))
        return variance if op == "variance" else math.sqrt(variance)
    if op in ("q1", "q3"):
        return float(np.quantile(array, 0.25 if op == "q1" else 0.75))
    raise VegaUnread(f"an altair aggregate {op!r}")


def _vega_key(value):
    """A value as vega groups it: 1 and 1.0 together, the text "1" apart."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", float(value))
    return ("other", repr(value))


def _vega_groups(rows, groupby):
    groups = {}
    for row in rows:
        groups.setdefault(tuple(_vega_key(row.get(field)) for field in groupby), []).append(row)
    return groups.values()


def _vega_measures(members, measures):
    """{name: value} of each measure over one group's rows, named as vega names them ("as", else op_field)."""
    return {measure.get("as") or f"{measure['op']}_{measure.get('field', '')}":
            _vega_op(measure["op"], [m.get(measure.get("field")) for m in members]) for measure in measures}


def _vega_aggregate(rows, measures, groupby):
    return [{**{field: members[0].get(field) for field in groupby}, **_vega_measures(members, measures)}
            for members in _vega_groups(rows, groupby)]


def _vega_joinaggregate(rows, measures, groupby):
    """Each row, in its own order, with its group's measures beside its fields."""
    extra = {}
    for members in _vega_groups(rows, groupby):
        measured = _vega_measures(members, measures)
        extra.update({id(member): measured for member in members})
    return [{**row, **extra[id(row)]} for row in rows]


def _vega_window(rows, step):
    """Aggregates over a sliding frame (frame [-9, 0]: this row and the nine before it; the default
    [null, 0]: every row so far), in sort order within each group. As vega does, a sorted frame widens
    to take in the rows that tie with its first and last. Rank-like ops are not read."""
    frame = step.get("frame", [None, 0])
    sort = [s if isinstance(s, dict) else {"field": s} for s in step.get("sort") or []]
    ops = [measure.get("op") for measure in step["window"]]
    unknown = [op for op in ops if op != "row_number" and op not in VEGA_AGGREGATES]
    if unknown:
        raise VegaUnread(f"an altair window {unknown[0]!r}")
    out = []
    for members in _vega_groups(rows, step.get("groupby") or []):
        for key in reversed(sort):
            members = sorted(members, key=lambda r, f=key["field"]: (vega_number(r.get(f)) is None,
                                                                      vega_number(r.get(f)) or 0.0, str(r.get(f))),
                             reverse=key.get("order") == "descending")
        n = len(members)
        index = np.arange(n)
        low = np.zeros(n, dtype=int) if frame[0] is None else np.clip(index + frame[0], 0, n)
        high = np.full(n, n) if frame[1] is None else np.clip(index + frame[1] + 1, 0, n)
        if sort and not step.get("ignorePeers"):
            low, high = _vega_peers(members, sort, low, high)
        columns = {}
        for measure in step["window"]:
            if measure["op"] == "row_number":
                columns[measure["as"]] = (index + 1).astype(float)
            else:
                columns[measure["as"]] = _vega_frames(measure["op"], [m.get(measure.get("field")) for m in members],
                                                      low, high)
        out += [{**member, **{name: values[i] for name, values in columns.items()}} for i, member in enumerate(members)]
    return out


def _vega_peers(members, sort, low, high):
    """Frames widened to whole runs of rows that tie on the sort fields."""
    keys = [tuple(_vega_key(m.get(s["field"])) for s in sort) for m in members]
    first, last = np.zeros(len(keys), dtype=int), np.zeros(len(keys), dtype=int)
    for i in range(len(keys)):
        first[i] = first[i - 1] if i and keys[i] == keys[i - 1] else i
    for i in reversed(range(len(keys))):
        last[i] = last[i + 1] if i + 1 < len(keys) and keys[i] == keys[i + 1] else i + 1
    low = np.where(low < len(keys), first[np.minimum(low, len(keys) - 1)], low)
    high = np.where(high > 0, last[np.maximum(high - 1, 0)], high)
    return low, high


def _vega_frames(op, values, low, high):
    """One aggregate per frame [low, high): running sums for count, sum and mean (any frame size at no
    cost), each frame on its own for the others."""
    numbers = np.array([n if n is not None else np.nan for n in (vega_number(v) for v in values)], dtype=float)
    if op in ("count", "valid", "missing", "sum", "mean", "average"):
        valid = ~np.isnan(numbers)
        ones = np.concatenate([[0], np.cumsum(np.ones(len(values)) if op == "count" else
                                              (valid if op != "missing" else ~valid))])
        sums = np.concatenate([[0.0], np.cumsum(np.where(valid, numbers, 0.0))])
        counted = ones[high] - ones[low]
        if op in ("count", "valid", "missing"):
            return [float(c) for c in counted]
        total = sums[high] - sums[low]
        if op == "sum":   # vega's sum starts at 0: a frame of nothing sums to 0
            return [float(t) for t in total]
        return [float(t / c) if c else None for t, c in zip(total, counted)]
    if int(np.sum(high - low)) > 5_000_000:
        raise VegaUnread(f"an altair window {op!r} over frames too large to work out here")
    return [_vega_op(op, values[a:b]) for a, b in zip(low, high)]


# ---- bins -----------------------------------------------------------------------------------------

def vega_bins(low, high, params):
    """(start, stop, step) as vega's bin() chooses them for data from low to high: a step of 1, 2 or 5
    times a power of ten giving at most maxbins bins, then nice edges (vega-statistics' bin.js)."""
    params = params if isinstance(params, dict) else {}
    if "anchor" in params or "binned" in params:   # where an anchor leaves the lowest values is not sure
        raise VegaUnread("an altair bin with an anchor")
    if isinstance(params.get("extent"), list) and len(params["extent"]) == 2:
        low, high = (float(v) for v in params["extent"])
    maxbins, base = params.get("maxbins", 10), params.get("base", 10)
    divide, minstep = params.get("divide", [5, 2]), params.get("minstep", 0)
    span = params.get("span") or (high - low) or abs(low) or 1
    if params.get("step"):
        step = params["step"]
    elif params.get("steps"):
        wanted = span / maxbins
        fitting = [s for s in params["steps"] if s < wanted]
        step = params["steps"][max(0, len(fitting) - 1)]
    else:
        level = math.ceil(math.log(maxbins) / math.log(base))
        step = max(minstep, base ** (round(math.log(span) / math.log(base)) - level))
        while math.ceil(span / step) > maxbins:
            step *= base
        for d in divide:
            if step / d >= minstep and span / (step / d) <= maxbins:
                step /= d
    logged = math.log(step)
    precision = 0 if logged >= 0 else int(-logged / math.log(base)) + 1
    eps = base ** (-precision - 1)
    if params.get("nice", True):
        nice = math.floor(low / step + eps) * step
        low = nice - step if low < nice else nice
        high = math.ceil(high / step) * step
    return low, (low + step if high == low else high), step


def vega_bin_rows(rows, field, params, start_as, end_as, channel="x"):
    """Each row with its bin's edges under start_as and end_as, as vega's Bin transform puts them: the
    largest value falls in the last bin below the top edge, and a value outside the bins in none."""
    numbers = [vega_number(row.get(field)) for row in rows]
    present = [n for n in numbers if n is not None]
    if not present:
        return rows
    maxbins = 10 if channel in ("x", "y", "") else 6
    given = dict(params) if isinstance(params, dict) else {}
    given.setdefault("maxbins", maxbins)
    start, stop, step = vega_bins(min(present), max(present), given)
    stop = start + math.ceil((stop - start) / step) * step   # whole steps
    out = []
    for row, value in zip(rows, numbers):
        if value is None or value < start or value > stop:
            continue
        value = max(start, min(value, stop - step))
        edge = start + step * math.floor(VEGA_EPSILON + (value - start) / step)
        out.append({**row, start_as: edge, end_as: edge + step})
    return out


# ---- encodings: the bins and aggregates of x and y ---------------------------------------------------

def vega_encoded(rows, encoding):
    """(rows, encoding) with the encoding's bins and aggregates worked out, and channels rewritten to
    name the worked-out fields. A binned channel gains `_bin_end`: the field that holds each bar's far edge."""
    encoding = {name: dict(channel) for name, channel in encoding.items() if isinstance(channel, dict)}
    for name in ("x", "y"):
        channel = encoding.get(name) or {}
        if channel.get("bin") and channel.get("bin") != "binned" and channel.get("field"):
            start, end = f"__bin_{name}", f"__bin_{name}_end"
            rows = vega_bin_rows(rows, channel["field"], channel["bin"], start, end, channel=name)
            channel.update(field=start, _bin_end=end, type="quantitative")
            channel.pop("bin")
        elif channel.get("bin") == "binned":
            other = encoding.get(name + "2") or {}
            if other.get("field"):
                channel["_bin_end"] = other["field"]
    measured = [name for name in ("x", "y", "text") if (encoding.get(name) or {}).get("aggregate")]
    if not measured:
        return rows, encoding
    keys = [channel["field"] for name, channel in encoding.items()
            if name not in measured and not name.endswith("2") and channel.get("field") and not channel.get("aggregate")]
    keys += [encoding[name]["_bin_end"] for name in ("x", "y") if encoding.get(name, {}).get("_bin_end")]
    keys = list(dict.fromkeys(keys))
    measures = []
    for name in measured:
        channel = encoding[name]
        op = channel["aggregate"]
        if not isinstance(op, str) or op not in VEGA_AGGREGATES:
            raise VegaUnread(f"an altair aggregate {op!r}")
        measures.append({"op": op, "field": channel.get("field"), "as": f"__{op}_{name}"})
        channel["field"] = f"__{op}_{name}"
        channel["_aggregate"] = channel.pop("aggregate")
    return _vega_aggregate(rows, measures, keys), encoding


# ---- expressions ----------------------------------------------------------------------------------

_JS_TO_PYTHON = ((r"===", "=="), (r"!==", "!="), (r"&&", " and "), (r"\|\|", " or "), (r"!(?!=)", " not "))


def vega_expression(text, row):
    """The value of a Vega expression for one row: arithmetic, comparisons, and/or/not, datum's fields,
    numbers and strings, Math's functions, and a ? b : c. Anything else: VegaUnread."""
    if not isinstance(text, str) or len(text) > 500:
        raise VegaUnread("an altair expression")
    python = _vega_ternary(text)
    for js, py in _JS_TO_PYTHON:
        python = re.sub(js, py, python)
    try:
        tree = ast.parse(python.strip(), mode="eval")
    except SyntaxError:
        raise VegaUnread(f"the altair expression {text!r}") from None
    try:
        return _vega_node(tree.body, row)
    except VegaUnread:
        raise VegaUnread(f"the altair expression {text!r}") from None
    except (ArithmeticError, TypeError, ValueError):
        return None


def _vega_ternary(text):
    """JavaScript's `a ? b : c` as Python's `(b) if (a) else (c)`, nested and inside parentheses too."""
    question = _vega_top_level(text, "?")
    if question is None:   # none at this level: rewrite each parenthesised part on its own
        out, i = [], 0
        while i < len(text):
            if text[i] in "([":
                end = _vega_closing(text, i)
                out.append(text[i] + _vega_ternary(text[i + 1:end]) + text[end])
                i = end + 1
            else:
                out.append(text[i])
                i += 1
        return "".join(out)
    condition, rest = text[:question], text[question + 1:]
    colon = _vega_top_level(rest, ":", nests="?")
    if colon is None:
        raise VegaUnread(f"the altair expression {text!r}")
    return (f"({_vega_ternary(rest[:colon])}) if ({_vega_ternary(condition)}) "
            f"else ({_vega_ternary(rest[colon + 1:])})")


def _vega_top_level(text, mark, nests=""):
    """Where `mark` first stands outside brackets (past as many of itself as `nests` opened), or None."""
    depth, open_ = 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in nests:
            open_ += 1
        elif depth == 0 and ch == mark:
            if not open_:
                return i
            open_ -= 1
    return None


def _vega_closing(text, start):
    depth = 0
    for i in range(start, len(text)):
        depth += text[i] in "(["
        depth -= text[i] in ")]"
        if depth == 0:
            return i
    raise VegaUnread(f"the altair expression {text!r}")


_JS_NAMES = {"true": True, "false": False, "null": None, "NaN": math.nan, "Infinity": math.inf}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Mod: lambda a, b: math.fmod(a, b), ast.Pow: lambda a, b: a ** b}
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def _vega_node(node, row):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if isinstance(node, ast.Name) and node.id in _JS_NAMES:
        return _JS_NAMES[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "datum":
            return row.get(node.attr)
        if node.value.id == "Math" and node.attr in ("PI", "E"):
            return getattr(math, node.attr.lower() if node.attr == "PI" else "e")
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "datum" \
            and isinstance(node.slice, ast.Constant):
        return row.get(node.slice.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _vega_node(node.left, row), _vega_node(node.right, row)
        if isinstance(node.op, ast.Add) and (isinstance(left, str) or isinstance(right, str)):
            return f"{left}{right}"
        if isinstance(node.op, ast.Div) and vega_number(right) == 0:
            return None
        return _BINARY[type(node.op)](float(left), float(right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        value = _vega_node(node.operand, row)
        return (not value) if isinstance(node.op, ast.Not) else (-float(value) if isinstance(node.op, ast.USub)
                                                                  else float(value))
    if isinstance(node, ast.BoolOp):
        values = [_vega_node(v, row) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return _COMPARE[type(node.ops[0])](_vega_node(node.left, row), _vega_node(node.comparators[0], row))
    if isinstance(node, ast.IfExp):
        return _vega_node(node.body if _vega_node(node.test, row) else node.orelse, row)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "Math" and node.func.attr in VEGA_MATH and not node.keywords:
        return float(VEGA_MATH[node.func.attr](*(float(_vega_node(a, row)) for a in node.args)))
    raise VegaUnread("an expression")
