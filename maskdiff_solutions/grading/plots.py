"""Reading what a student drew and printed, for the hidden checks of plots and printouts.

A plot test cell hands the checker `last_cell()` (maskdiff_client.drawn): the figures the cell above
drew and the text it printed, turned into plain data in the student's kernel. Nothing of it is
trusted: `Drawing` validates every field and turns each axes into `Series`, one per thing drawn
(a line, a set of bars, a histogram drawn as steps, scattered points), in data coordinates. The
checks (`grading/*_plots.py`) then look for the series they need with the helpers below and decide
with exact tests, as the function checks do.

Fairness: a plot of a student's function is compared with what *that function* does (sampled again
by the check), not with the right answer, so a bug in the function costs marks only in the
function's own tests. The theory drawn on top is compared with the right formula, or with the same
formula computed from the student's own schedule.
"""
import math
import re
from dataclasses import dataclass, field

import numpy as np

from .. import colab, stats
from . import complement  # noqa: F401 - every figure check reads a complement again (core.REREADS)
from .core import Failure, Review, expect

TOLERANCE = 1e-3   # how close a drawn value must be to an exact one (float32 plots, rounding)


@dataclass
class Series:
    kind: str                  # "line", "bars", "points"
    x: np.ndarray
    y: np.ndarray
    label: str = ""
    style: dict = field(default_factory=dict)

    def describe(self):
        name = f" {self.label!r}" if self.label and not self.label.startswith("_") else ""
        return f"the {self.kind}{name}"


def _array(value, what):
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "fiub":
        return value.astype(float)
    if isinstance(value, list) and all(isinstance(v, (int, float)) for v in value):
        return np.asarray(value, dtype=float)
    raise Failure(f"the grader could not read {what} of your figure")


def _str(value):
    return value if isinstance(value, str) else ""


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")   # colours and cursor moves (rich, termcolor)
BOX = re.compile(r"[\u2500-\u257f]")                                # a rich table's rules and borders


def as_read(text):
    """A printout as a person reads it: without terminal colour codes, a table's box lines as spaces."""
    return BOX.sub(" ", ANSI.sub("", text))


class Axes:
    """One axes of the student's figure, as series in data coordinates."""

    def __init__(self, data):
        if not isinstance(data, dict):
            raise Failure("the grader could not read an axes of your figure")
        self.xscale, self.yscale = _str(data.get("xscale")), _str(data.get("yscale"))
        self.xlabel, self.ylabel, self.title = (_str(data.get(k)).strip() for k in ("xlabel", "ylabel", "title"))
        self.legend = [_str(t) for t in data.get("legend") or [] if isinstance(t, str)]
        self.xlim, self.ylim = (_limits(data.get(k)) for k in ("xlim", "ylim"))
        self.xticks, self.yticks = _tick_labels(data.get("xticks")), _tick_labels(data.get("yticks"))
        self.series, self.hlines, self.vlines = [], [], []
        self.texts = [_str(t).strip() for t in data.get("texts") or [] if isinstance(t, str) and t.strip()]
        self.unread = [_str(name) for name in data.get("unread") or [] if isinstance(name, str)]
        for line in data.get("lines") or []:
            x, y = _array(line.get("x"), "a line"), _array(line.get("y"), "a line")
            if x.size != y.size or line.get("role") in ("errorbar", "baseline"):   # not data: caps, stem's base
                continue
            if line.get("axline") and y.size == 2 and y[0] == y[1]:   # a flat ax.axline: a level
                self.hlines.append(float(y[0]))
                continue
            if not line.get("in_data"):        # axhline and friends: y in data, x in axes units
                if y.size and np.allclose(y, y[0]):
                    self.hlines.append(float(y[0]))
                elif line.get("x_in_data") and x.size and np.allclose(x, x[0]):   # axvline: x in data
                    self.vlines.append((float(x[0]), *(self.ylim or (np.nan, np.nan))))
                elif np.isfinite(y).any():
                    self.unread.append("a line placed in the axes' own units")
                continue
            if not np.isfinite(y).any():       # nothing drawn (seaborn's error bars of a single value)
                continue
            if x.size == 2 and x[0] == x[1]:   # an upright segment: an error bar (seaborn's barplot)
                self.vlines.append((float(x[0]), float(np.nanmin(y)), float(np.nanmax(y))))
                continue
            style = {"linestyle": _str(line.get("linestyle")), "marker": _str(line.get("marker")),
                     "axline": bool(line.get("axline")), "scales": (self.xscale, self.yscale)}
            self.series.append(Series("line", x, y, _str(line.get("label")), style))
            steps = _steps_of_line(x, y, _str(line.get("drawstyle")))
            if steps is not None:   # an outline histogram drawn as a stepped line (seaborn's fill=False)
                self.series.append(Series("bars", steps[0], steps[2], _str(line.get("label")), {"width": steps[1]}))
        centres = []
        for segments in data.get("segments") or []:   # hlines, vlines, stem's stems, errorbar drawn alone
            if isinstance(segments, dict) and segments.get("role") != "errorbar":
                self._read_segments(segments, centres)
        for bars in data.get("bars") or []:
            x, w = _array(bars.get("x"), "a bar"), _array(bars.get("width"), "a bar")
            h = _array(bars.get("height"), "a bar")
            bottom = _array(bars.get("bottom", np.zeros(x.size)), "a bar")
            if x.size != w.size or x.size != h.size or x.size != bottom.size or not x.size:
                continue
            if _str(bars.get("orientation")) == "horizontal":
                # barh: the category runs along y (bottom, thickness = height), the value along x
                self.series.append(Series("bars", bottom, x + w, _str(bars.get("label")),
                                          {"width": h, "base": x, "horizontal": True}))
                continue
            # a bar's value is where it ends: its height above a baseline (bottom=) if it has one
            self.series.append(Series("bars", x, bottom + h, _str(bars.get("label")), {"width": w, "base": bottom}))
        for steps in data.get("steps") or []:
            values, edges = _array(steps.get("values"), "a histogram"), _array(steps.get("edges"), "a histogram")
            if edges.size == values.size + 1 and values.size:
                self.series.append(Series("bars", edges[:-1], values, _str(steps.get("label")),
                                          {"width": np.diff(edges)}))
        bands = []
        for polygon in data.get("polygons") or []:
            x, y = _array(polygon.get("x"), "a histogram"), _array(polygon.get("y"), "a histogram")
            if polygon.get("role") == "fill" and not _steps(x, y):
                bands.append((np.nanmin(x), np.nanmax(x)) if x.size else (0.0, 0.0))
                continue
            bars = _steps_of_fill(x, y) if polygon.get("role") == "fill" else _steps_of_polygon(x, y)
            if bars is not None:
                self.series.append(Series("bars", bars[0], bars[2], _str(polygon.get("label")), {"width": bars[1]}))
        for points in data.get("points") or []:
            x, y = _array(points.get("x"), "points"), _array(points.get("y"), "points")
            groups = points.get("groups")
            if isinstance(groups, list) and len(groups) == x.size and all(isinstance(g, str) for g in groups):
                # one scatter coloured by group (seaborn's hue=): a series per group, named by the legend
                for name in dict.fromkeys(groups):
                    keep = np.array([g == name for g in groups])
                    order = np.argsort(x[keep], kind="stable")
                    self.series.append(Series("points", x[keep][order], y[keep][order], name))
                continue
            if x.size == y.size and x.size:   # scattered points have no order: read them along x
                order = np.argsort(x, kind="stable")
                self.series.append(Series("points", x[order], y[order], _str(points.get("label"))))
        self.series = _one_set_of_bars(self.series)
        _turn_with_the_bars(self.series)

        # a filled band (fill_between: seaborn's confidence band) beside a curve over the same x is that
        # curve's uncertainty; a band alone is something the reader cannot read
        curves = [(s.x.min(), s.x.max()) for s in self.series if s.kind == "line" and s.x.size]
        if any(not any(lo <= a + 1e-9 and b <= hi + 1e-9 for lo, hi in curves) for a, b in bands):
            self.unread.append("a filled area")

    def labelled(self):
        return bool(self.xlabel) and bool(self.ylabel)

    def _read_segments(self, segments, centres):
        """Level segments are hlines, upright ones vlines; vlines(x, 0, y) from one base are the points
        (x, y) (stem's own markers are a line already). Error bars drawn without their data (fmt="none")
        are marks: their centres are the points (x, y), once for an errorbar with both xerr and yerr. A
        segment neither level nor upright is named as unread."""
        stems, middles, slanted = [], [], False
        for segment in segments.get("segments") or []:
            try:
                segment = np.asarray(segment, dtype=float)
            except (TypeError, ValueError):
                segment = None
            if segment is None or segment.shape != (2, 2):   # a path of several corners: a curve, not a mark
                slanted = slanted or segment is None or segment.size > 4
                continue
            if not np.isfinite(segment).all():   # nothing drawn
                continue
            (x0, y0), (x1, y1) = segment
            if y0 == y1 and x0 != x1:
                self.hlines.append(float(y0))
            elif x0 == x1 and y0 != y1:
                self.vlines.append((float(x0), min(y0, y1), max(y0, y1)))
                stems.append((float(x0), y0, y1))
            elif x0 != x1:
                slanted = True
            middles.append(((x0 + x1) / 2, (y0 + y1) / 2))
        if slanted:
            self.unread.append("line segments neither level nor upright")
        label = _str(segments.get("label"))
        if segments.get("role") == "errorbar_only":
            if middles and sorted(middles) not in centres:
                centres.append(sorted(middles))
                x, y = (np.array(v, dtype=float) for v in zip(*sorted(middles)))
                self.series.append(Series("points", x, y, label))
        elif len(stems) >= 2 and segments.get("role") != "stem" and len({b for _, b, _ in stems}) == 1:
            self.series.append(Series("points", np.array([x for x, _, _ in stems]),
                                      np.array([y for _, _, y in stems]), label))


def _turn_with_the_bars(series):
    """Bars laid along y (barh, hist(orientation="horizontal")) are read with their categories along x:
    a curve or points drawn beside them across the same axes (the law as plot(p, n)) turn with them."""
    bars = [s for s in series if s.kind == "bars"]
    if not bars or not all(s.style.get("horizontal") for s in bars):
        return
    for one in series:
        if one.kind in ("line", "points") and one.x.size:
            order = np.argsort(one.y, kind="stable")
            one.x, one.y = one.y[order], one.x[order]
            one.style = {**one.style, "turned": True}


def _one_set_of_bars(series):
    """Bars that one chart split by colour into several sets at different places (seaborn's `hue=` on the
    variable the bars are already split by: each colour a set of its own, none sharing a place) are
    one set of bars: merged, in the place of the first."""
    bars = [s for s in series if s.kind == "bars" and not s.style.get("horizontal") and "base" in s.style]
    if len(bars) < 2 or not all(np.allclose(s.style["width"], bars[0].style["width"][0]) for s in bars):
        return series
    places = [set(np.round(s.x + s.style["width"] / 2).astype(int)) for s in bars]   # the category each stands at
    if sum(len(p) for p in places) != len(set().union(*places)) or any(np.any(s.style["base"]) for s in bars):
        return series
    x = np.concatenate([s.x for s in bars])
    order = np.argsort(x, kind="stable")
    merged = Series("bars", x[order], np.concatenate([s.y for s in bars])[order], "",
                    {"width": np.concatenate([s.style["width"] for s in bars])[order], "base": np.zeros(x.size)})
    first = series.index(bars[0])
    return [merged if i == first else s for i, s in enumerate(series) if not any(s is b for b in bars[1:])]


def _tick_labels(ticks):
    """{position: label} of the ticks that carry a label."""
    ticks = ticks if isinstance(ticks, dict) else {}
    at = _array(ticks.get("at", np.zeros(0)), "the ticks")
    labels = [_str(t) for t in ticks.get("labels") or []]
    return {float(x): label.strip() for x, label in zip(at, labels) if label.strip()}


def _limits(value):
    """(low, high) of an axis, or None when the recorder did not say."""
    if isinstance(value, (np.ndarray, list)) and len(value) == 2:
        low, high = (float(v) for v in _array(value, "an axis's limits"))
        return (min(low, high), max(low, high)) if np.isfinite([low, high]).all() else None
    return None


def _steps_of_line(x, y, drawstyle):
    """A line drawn in steps between bin edges around whole numbers (k - 0.5 to k + 0.5): a histogram's
    outline, (left edges, widths, heights); None for any other line (a curve drawn in steps at whole
    numbers stays a curve alone)."""
    if drawstyle not in ("steps-post", "steps-pre") or x.size < 3 or not np.isfinite(x).all():
        return None
    if not np.allclose(x + 0.5, np.round(x + 0.5), atol=1e-9) or np.any(np.diff(x) <= 0):
        return None
    heights = y[:-1] if drawstyle == "steps-post" else y[1:]
    return x[:-1], np.diff(x), np.nan_to_num(heights)


def _steps(x, y):
    """Is a filled outline a histogram's steps: level and upright edges only, and an upright one inside
    its x range (a band of even width around a curve has none)?"""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < 3:
        return False
    dx, dy = np.diff(x), np.diff(y)
    upright = (np.abs(dx) < 1e-12) & (np.abs(dy) >= 1e-12)
    inside = (x[:-1] > x.min() + 1e-9) & (x[:-1] < x.max() - 1e-9)
    return bool(np.all((np.abs(dx) < 1e-12) | (np.abs(dy) < 1e-12)) and np.any(upright & inside))


def _steps_of_fill(x, y):
    """A filled histogram outline (fill_between with steps: seaborn's element="step"), walked in either
    direction: between each pair of neighbouring corners, the height from its lowest level edge to its
    highest. (left edges, widths, heights), or None."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    level = [(min(x[i], x[i + 1]), max(x[i], x[i + 1]), y[i]) for i in range(x.size - 1)
             if y[i] == y[i + 1] and x[i] != x[i + 1]]
    corners = np.unique([v for a, b, _ in level for v in (a, b)])
    out = []
    for lo, hi in zip(corners[:-1], corners[1:]):
        heights = [h for a, b, h in level if a <= lo + 1e-12 and hi <= b + 1e-12]
        if heights:
            out.append((lo, hi - lo, max(heights) - (min(heights) if len(heights) > 1 else 0.0)))
    if not out:
        return None
    left, width, height = (np.array(v, dtype=float) for v in zip(*out))
    return left, width, height


def _steps_of_polygon(x, y):
    """A histogram drawn with histtype="step"/"stepfilled" is one polygon whose bin tops are its
    horizontal edges drawn left to right: (left edges, widths, heights), or None."""
    top = [(x[i], x[i + 1] - x[i], y[i]) for i in range(x.size - 1) if y[i] == y[i + 1] and x[i + 1] > x[i]]
    if not top:
        return None
    left, width, height = (np.array(v, dtype=float) for v in zip(*top))
    return left, width, height


class Drawing:
    """What a cell drew and printed."""

    def __init__(self, data):
        if not isinstance(data, dict):
            raise Failure("the grader found no record of the cell above this test: run the notebook "
                          "from the top, with the plot's cell right before this one")
        figures = data.get("figures") if isinstance(data.get("figures"), list) else []
        self.axes = [Axes(a) for f in figures if isinstance(f, dict) for a in (f.get("axes") or [])
                     if isinstance(a, dict)]
        self.printed = as_read(_str(data.get("printed")))   # printed and shown (last expression, display), in order
        self.rich = [_str(kind) for kind in data.get("rich") or [] if isinstance(kind, str)][:16]
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        self.error, self.error_module = _str(error.get("type")), _str(error.get("module"))
        self.error_message = _str(error.get("message"))[:300]

    @classmethod
    def of(cls, cell):
        """Ask the kernel for what `cell` (a handed-over `last_cell()`) drew and printed. A cell that
        stopped at importing a module that Colab has and this grader lacks goes to a person."""
        drawing = cls(cell.drive("drawing"))
        if drawing.error in ("ModuleNotFoundError", "ImportError"):
            lacking = colab.lacking(drawing.error_module)
            if lacking:
                raise Review(colab.sentence(lacking))
        return drawing

    def need_axes(self, what):
        if not self.axes and self.rich:
            raise Review(f"the cell showed {self.shown_rich()}, which the grader cannot read, and no matplotlib "
                         f"figure; a person will look at it (it should draw {what})")
        if not self.axes and self.error:
            raise Failure(f"the cell above this test stopped with {self.stopped_on()} before it drew a figure; "
                          f"it should draw {what}")
        expect(self.axes, f"the cell above this test drew no figure; it should draw {what} "
                          f"(did it run without an error?)")
        return self.axes

    def stopped_on(self):
        """The exception the cell stopped on, as Python names it: `ValueError: ...`."""
        return f"{self.error}: {self.error_message}" if self.error_message else self.error

    def need_printed(self, advice):
        """The cell's printout (printed or shown); none fails with `advice`, unless the cell showed
        something the grader cannot read as text (a chart, an image), which goes to a person."""
        if self.printed.strip():
            return self.printed
        if self.rich:
            raise Review(f"the cell showed {self.shown_rich()}, which the grader cannot read as text; a person "
                         f"will look at it ({advice})")
        if self.error:
            raise Failure(f"the cell above stopped with {self.stopped_on()} before it printed anything; {advice}")
        raise Failure(f"the cell above printed nothing and showed no value; {advice}")

    def shown_rich(self):
        kinds = sorted(set(self.rich))
        return ", ".join(kinds[:3]) + (f" and {len(kinds) - 3} more" if len(kinds) > 3 else "")

    def series(self):
        return [(ax, s) for ax in self.axes for s in ax.series]

    def unread(self):
        """Kinds of artists the reader does not understand, over every axes."""
        return sorted({name for ax in self.axes for name in ax.unread})


def missing(drawing, message):
    """A required element is not among what the reader understood: a failure, unless the figure also
    holds artists the reader cannot read (it may hide there), and then a person decides."""
    unread = drawing.unread()
    if unread:
        raise Review(f"{message}; the figure also holds {', '.join(unread)}, which the grader cannot read, "
                     f"so a person will look at it")
    raise Failure(message)


# ---- matching drawn values with known ones -----------------------------------------------------

def endless(series):
    """y = f(x) of a line drawn with ax.axline (straight in the axes' own scales: on log-log axes a
    power law), or None for any other series."""
    if not series.style.get("axline") or series.x.size != 2:
        return None
    xscale, yscale = series.style.get("scales", ("linear", "linear"))
    fx = np.log10 if xscale == "log" else (lambda v: v)
    fy, gy = (np.log10, lambda v: 10.0 ** v) if yscale == "log" else ((lambda v: v), (lambda v: v))
    with np.errstate(all="ignore"):
        (x1, x2), (y1, y2) = fx(series.x), fy(series.y)
    if not np.isfinite([x1, x2, y1, y2]).all() or x1 == x2:
        return None
    slope = (y2 - y1) / (x2 - x1)

    def f(x):
        with np.errstate(all="ignore"):
            return gy(y1 + slope * (fx(np.asarray(x, dtype=float)) - x1))
    return f


def values_at(series, xs):
    """The drawn y at each of the integers xs (NaN where the series has no point there)."""
    if series.kind == "bars":
        return bar_heights(series, xs)
    line = endless(series)
    if line is not None:
        return np.asarray(line(np.asarray(xs, dtype=float)), dtype=float)
    out = np.full(len(xs), np.nan)
    for i, x in enumerate(xs):
        hit = np.flatnonzero(np.abs(series.x - x) < 1e-6)
        if hit.size == 1:
            out[i] = series.y[hit[0]]
    return out


def bar_of(lo, hi, ns):
    """The integer of ns a bar from lo to hi stands for: the one it covers ([lo, hi)), else, when it
    covers none, the nearest to its middle within half a unit (side-by-side and grouped bars, the
    last bin of a histogram whose edges are not half-integers); None when it covers several or none
    is near; "empty" when it covers none but is not a bar of one n either."""
    covered = [n for n in ns if lo - 1e-9 <= n < hi - 1e-9]
    if len(covered) > 1:
        return None
    if covered:
        return covered[0]
    middle = (lo + hi) / 2
    near = [n for n in ns if abs(n - middle) < 0.5 - 1e-9]
    return near[0] if near else "empty"


def bar_heights(series, ns):
    """The height of the bar standing for each integer n, mapped by position (bar_of); NaN where no
    bar does, None when the bars are no histogram over ns (a bar covers several integers, two bars
    with a height stand for one n, or a bar with a height stands for none)."""
    width = series.style.get("width", np.full(series.x.size, 0.8))
    out = np.full(len(ns), np.nan)
    for left, w, h in zip(series.x, width, series.y):
        lo, hi = (left, left + w) if w >= 0 else (left + w, left)
        n = bar_of(lo, hi, ns)
        if n is None or (n == "empty" and h != 0):
            return None
        if n == "empty":
            continue
        i = ns.index(n)
        if h != 0 and not np.isnan(out[i]) and out[i] != 0:
            return None
        if h != 0 or np.isnan(out[i]):
            out[i] = h
    return out


def bar_middles(ax, ns):
    """n + 0.5 for each n when every bar of the axes with a height spans [n, n+1) (a histogram binned at
    the integers, as bins=range(...) and altair's alt.Bin(step=1) make it), so that a curve drawn over
    the middles of those bars is read at n; None for bars laid any other way, or no bars."""
    spans = []
    for series in ax.series:
        if series.kind != "bars" or series.style.get("horizontal"):
            continue
        width = series.style.get("width", np.full(series.x.size, 0.8))
        spans += [(left, w) for left, w, h in zip(series.x, width, series.y) if h != 0]
    on_integers = spans and all(abs(w - 1) < 1e-9 and abs(left - round(left)) < 1e-9 for left, w in spans)
    return [n + 0.5 for n in ns] if on_integers else None


def matches(series, xs, ys, tolerance=TOLERANCE, coverage=1.0):
    """Does the series hold ys at xs (at least `coverage` of them, and nothing contradicting)?"""
    drawn = values_at(series, list(xs))
    if drawn is None:
        return False
    ys = np.asarray(ys, dtype=float)
    known = np.isfinite(ys)             # a value matplotlib cannot draw (inf, nan) is not compared
    seen = ~np.isnan(drawn) & known
    if seen.sum() < coverage * known.sum() or not seen.any():
        return False
    scale = max(1.0, np.abs(ys[known]).max())
    return bool(np.all(np.abs(drawn[seen] - ys[seen]) <= tolerance * scale))


def on_curve(series, function, lo, hi, tolerance=TOLERANCE):
    """Does every drawn point of the series lie on y = function(x), spanning most of [lo, hi]?"""
    line = endless(series)
    if line is not None:   # an endless line: on the curve if it goes through it along [lo, hi]
        xs = np.linspace(max(lo, 1e-9) if series.style.get("scales", ("",))[0] == "log" else lo, hi, 50)
        return bool(np.all(np.abs(line(xs) - function(xs)) <= tolerance * max(1.0, np.abs(function(xs)).max())))
    if series.kind == "bars" or series.x.size < 2:
        return False
    keep = ~(np.isnan(series.x) | np.isnan(series.y))
    x, y = series.x[keep], series.y[keep]
    if x.size < 2 or x.min() > lo + 0.1 * (hi - lo) or x.max() < hi - 0.1 * (hi - lo):
        return False
    return bool(np.all(np.abs(y - function(x)) <= tolerance * max(1.0, np.abs(function(x)).max())))


def first(candidates, test):
    for candidate in candidates:
        if test(candidate):
            return candidate
    return None


def counts_of(heights, max_runs=10 ** 6):
    """Whole counts behind a histogram's heights, and the number of runs (their sum): heights are
    whole counts times one scale, any scale (counts, fractions, densities of equal bins, percentages).
    The counts found are the smallest such, so the runs may be a divisor of the true number (which
    only widens a test's bounds). None when no scale with at most max_runs runs makes every height a
    whole count: then the bars are not counts of samples."""
    h = np.nan_to_num(np.asarray(heights, dtype=float))
    if np.any(h < -1e-12) or h.sum() <= 0:
        return None
    if np.allclose(h, np.round(h), atol=1e-6) and h.sum() > 1.5:
        counts = np.round(h).astype(np.int64)
        return counts, int(counts.sum())
    smallest = h[h > 1e-12].min()
    for c in range(1, 2000):   # the smallest bar holds c samples: every height times c / smallest is whole
        scaled = h * (c / smallest)
        runs = int(round(scaled.sum()))
        if runs > max_runs:
            break
        if np.allclose(scaled, np.round(scaled), atol=max(1e-3, 2e-6 * runs)):
            return np.round(scaled).astype(np.int64), runs
    return None


def enough_runs(series, heights, runs, asked, written):
    """Does a histogram hold at least `asked` runs? Drawn in whole counts, its runs are known: too few
    fail. Drawn in another scale, `runs` (counts_of) is only the fewest that fit, a divisor of the true
    number: too few with three bars or more goes to a person; fewer bars say nothing."""
    if runs >= asked:
        return
    h = np.nan_to_num(np.asarray(heights, dtype=float))
    message = (f"{series.describe()} count {runs} runs; the task asks for {written}, {asked} under the "
               f"autograder")
    if np.allclose(h, np.round(h), atol=1e-6) and h.sum() > 1.5:
        raise Failure(message)
    if (h > 0).sum() >= 3:
        raise Review(f"{message} (drawn as shares, the bars could stand for {runs} runs or a multiple of it)")


def two_sample_dkw(counts_a, counts_b, alpha, what):
    """Do two histograms of counts over the same bins come from the same law? Each empirical CDF is
    within dkw_epsilon of the common one with probability 1 - alpha/2."""
    na, nb = counts_a.sum(), counts_b.sum()
    fa, fb = np.cumsum(counts_a) / na, np.cumsum(counts_b) / nb
    gap = np.abs(fa - fb)
    worst = int(gap.argmax())
    bound = stats.dkw_epsilon(int(na), alpha / 2) + stats.dkw_epsilon(int(nb), alpha / 2)
    if gap[worst] > bound:
        mass_a, mass_b = counts_a / na, counts_b / nb
        n = int(np.abs(mass_a - mass_b).argmax())
        raise Failure(f"{what}: it has mass {mass_a[n]:.2f} at n = {n}, where {int(nb)} fresh runs of your "
                      f"function give {mass_b[n]:.2f}; the share of runs with at most {worst} is "
                      f"{fa[worst]:.3f} against {fb[worst]:.3f}, a gap of {gap[worst]:.3f} where chance "
                      f"allows {bound:.3f}")


def two_histograms(histograms, fresh, law, alpha):
    """Two drawn histograms [(series, counts)] against two functions' fresh runs [(counts, name)]: they
    pass when, in one of the two ways of pairing them, each histogram agrees with its function's runs
    (two-sample DKW), or with `law` itself where the function raised (counts None); counts "skip"
    leaves a histogram unjudged. Each of the four tests runs at alpha / 4."""
    problems = []
    for order in ((0, 1), (1, 0)):
        try:
            for index, (own, name) in zip(order, fresh):
                series, counts = histograms[index]
                what = (f"your histogram {series.label!r} as one of {name}" if series.label
                        and not series.label.startswith("_") else f"your histogram as one of {name}")
                if isinstance(own, str):
                    continue
                if own is None:
                    verdict = stats.dkw_test(np.repeat(np.arange(len(counts)), counts), law, alpha / 4, what=what)
                    expect(verdict.ok, verdict.summary)
                else:
                    two_sample_dkw(counts, own, alpha / 4, what)
            return
        except Failure as failure:
            problems.append(str(failure))
    raise Failure(problems[0] + (f" (and the other way round: {problems[1]})" if len(problems) > 1 else ""))


def mean_gap_bound(n, m, alpha):
    """Two means of n and m independent values in [0, 1] that estimate the same number differ by more
    than this with probability at most alpha (Hoeffding, each side at alpha / 2)."""
    return math.sqrt(math.log(4 / alpha) / (2 * n)) + math.sqrt(math.log(4 / alpha) / (2 * m))


def runs_behind_means(means, scale, max_runs=100_000):
    """The number of runs N behind averages of values k/scale (k whole): the smallest N with every
    mean * scale * N whole (a divisor of the true N at worst, which only widens a test's bounds)."""
    y = np.asarray(means, dtype=float)
    y = y[~np.isnan(y)]
    if not y.size:
        return None
    runs = np.arange(1, max_runs + 1, dtype=float)
    for start in range(0, max_runs, 5000):
        block = runs[start:start + 5000]
        scaled = np.outer(block, y * scale)
        ok = np.all(np.abs(scaled - np.round(scaled)) <= np.maximum(2e-3, 1e-6 * scaled), axis=1)
        if ok.any():
            return int(block[np.argmax(ok)])
    return None


def printed_lines(text):
    return [line for line in text.splitlines() if line.strip()]


def words(line):
    return re.findall(r"[A-Za-z_]+", line)


def _kl(f, p):
    """KL(Bernoulli(f) || Bernoulli(p))."""
    out = 0.0
    if f > 0:
        out += f * math.log(f / p) if p > 0 else math.inf
    if f < 1:
        out += (1 - f) * math.log((1 - f) / (1 - p)) if p < 1 else math.inf
    return out


def share_interval(k, n, alpha):
    """The probabilities p that k successes out of n leave plausible: n KL(k/n || p) <= log(2/alpha).
    Chernoff: a true p falls outside with probability at most alpha, and the interval only widens
    when k and n are divided by a common factor (so a divisor of the true n is conservative)."""
    f, bound = k / n, math.log(2 / alpha) / n

    def edge(lo, hi):   # bisect between a plausible end (lo) and an implausible one (hi)
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _kl(f, mid) <= bound else (lo, mid)
        return lo
    return (0.0 if _kl(f, 0.0) <= bound else edge(f, 0.0)), (1.0 if _kl(f, 1.0) <= bound else edge(f, 1.0))


def same_share(k_a, n_a, k_b, n_b, alpha):
    """Can k_a of n_a and k_b of n_b be draws of the same probability? False with probability at most
    alpha when they are: each side's share_interval holds the common p except with alpha / 2."""
    (lo_a, hi_a), (lo_b, hi_b) = share_interval(k_a, n_a, alpha / 2), share_interval(k_b, n_b, alpha / 2)
    return lo_a <= hi_b and lo_b <= hi_a


# --- helpers the readers of several notebooks share ----------------------------------------------

def runs_asked(n):
    """What `repeats(n)` gives under the autograder (quick mode): the fewest runs a task's n asks for."""
    return max(100, n // 5)


def reaches(ax, T, measured):
    """Is T on the axes besides the measured series: a curve spanning it, a point at it, or an endless
    line (axline) with T inside the x limits?"""
    for s in ax.series:
        if s is measured or not s.x.size:
            continue
        if s.style.get("axline"):
            if ax.xlim is not None and min(ax.xlim) <= T <= max(ax.xlim):
                return True
        elif np.nanmin(s.x) <= T * (1 + 1e-6) and np.nanmax(s.x) >= T * (1 - 1e-6):
            return True
    return False


NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w])")


def printout_missing(message, text):
    """Raise the failure `message` about a printout, or Review where the printout looks like a table pandas
    wrapped in blocks (lines ending in a backslash: a table wider than the page), whose rows the reader
    cannot follow."""
    if any(line.rstrip().endswith("\\") for line in text.splitlines()):
        raise Review(message + "; the printout looks like a table wrapped in blocks (pandas does that when a table "
                               "is wider than the page), so a person will look at it")
    raise Failure(message)


def numbers(line):
    """The numbers of a printed line, in order (not the digits of a name such as int64)."""
    return [float(v) for v in NUMBER.findall(line)]


def statements(text):
    """The printed lines, with a tensor or list that wraps over several lines joined into one."""
    out = []
    for line in printed_lines(text):
        if out and out[-1].count("[") + out[-1].count("(") > out[-1].count("]") + out[-1].count(")"):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out
