"""What the autograder's reader finds in a drawing cell, in words, for the student.

A drawing's test cell prints this description on Colab too, so a student can see what the reader
makes of their figure or printout (which curves, bars, histograms, lines and labels, and how many
runs a histogram's heights stand for) and fix an unreadable one before handing it in. It describes;
it decides nothing (the verdicts stay in the hidden checks).

It reads the plain data of `drawn.Cell.data()` only, needs nothing but numpy, and does not import the
rest of this package: `publish` ships the recorder (drawn.py) and this module to students as one file,
`drawing_reader.py` (course/term/publish.py `reader_text`), which lies beside the notebooks in
the students' public repository (the set-up cell imports it there, or fetches it where there is none).
"""
from fractions import Fraction
from math import gcd

import numpy as np

try:  # in the package; in the students' single file the recorder's code stands above this
    from .drawn import drawn_cell
except ImportError:
    pass

MAX_RUNS = 100_000   # the most runs a histogram's heights are read as
SHOWN_LINES = 6      # printed lines quoted
KNOWN = ("lines", "bars", "steps", "polygons", "points", "segments")


def show(grade_id):
    """Print what the reader finds in the drawing cell `grade_id` (its latest run)."""
    print(describe(drawn_cell(grade_id).data(), grade_id))


def describe(data, name="the cell"):
    """A drawing cell's record (figures and printout) in words, one item a line."""
    figures = data.get("figures") or []
    printed = str(data.get("printed") or "")
    out = [f"What the autograder's reader finds in {name}:"]
    rich, error = data.get("rich") or [], data.get("error") or {}
    if error:
        module = f" (module {error['module']!r})" if error.get("module") else ""
        out.append(f"  the cell stopped at {error.get('type') or 'an error'}{module}")
    if not figures and not printed.strip() and not rich:
        out.append("  nothing: no figure, no printout and no value shown (run the cell above, then this one)")
    for f, figure in enumerate(figures, 1):
        axes = figure.get("axes") or []
        title = f", titled {figure['suptitle']!r}" if figure.get("suptitle") else ""
        out.append(f"  figure {f}{title}: {len(axes)} panel{'s' * (len(axes) != 1)}")
        for a, ax in enumerate(axes, 1):
            out += [f"    {line}" for line in axes_lines(a, ax)]
    if rich:  # shown, but neither text nor a matplotlib figure: a drawing made so goes to a person
        out.append(f"  shown but not read: {', '.join(map(str, rich[:5]))} (draw with matplotlib, pandas or "
                   "seaborn, or print the values, for the autograder to read it)")
    if printed.strip():
        lines = printed.rstrip("\n").split("\n")
        out.append(f"  printout (printed, and values shown as a cell's last line or with display): "
                   f"{len(lines)} line{'s' * (len(lines) != 1)}")
        out += [f"    | {line[:100]}" for line in lines[:SHOWN_LINES]]
        if len(lines) > SHOWN_LINES:
            out.append(f"    | ... ({len(lines) - SHOWN_LINES} more)")
    return "\n".join(out)


def axes_lines(index, ax):
    scales = "" if (ax.get("xscale"), ax.get("yscale")) == ("linear", "linear") else \
        f", {ax.get('xscale')} x, {ax.get('yscale')} y"
    head = [f"panel {index}: x label {ax.get('xlabel') or '(none)'!r}, y label {ax.get('ylabel') or '(none)'!r}"
            + (f", title {ax['title']!r}" if ax.get("title") else "") + scales]
    if ax.get("legend"):
        head.append(f"  legend: {', '.join(repr(t) for t in ax['legend'])}")
    items = [*(_about_line(s) for s in ax.get("lines") or []), *(_about_bars(s) for s in ax.get("bars") or []),
             *(_about_steps(s) for s in ax.get("steps") or []), *(_about_polygon(s) for s in ax.get("polygons") or []),
             *(_about_points(s) for s in ax.get("points") or []), *(_about_segments(s) for s in ax.get("segments") or [])]
    for key, value in ax.items():  # kinds of artist this description does not know by name
        if key not in KNOWN and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            items.append(f"{len(value)} artist(s) of kind {key!r}")
    if ax.get("texts"):
        items.append(f"text: {', '.join(repr(t) for t in ax['texts'][:5])}")
    if ax.get("unread"):  # drawn, but the reader cannot read them: a required element there goes to a person
        items.append(f"drawn but not read: {', '.join(map(str, ax['unread']))} (if the task's curve or bars are "
                     "among these, a person grades the cell; draw them with plot, bar, hist or step instead)")
    return head + [f"  - {item}" for item in items or ["nothing drawn in this panel"]]


def _about_label(series):
    label = str(series.get("label") or "")
    return f" labelled {label!r}" if label and not label.startswith("_") else " (no label)"


def _numbers(series, key):
    return np.asarray(series.get(key, []), dtype=float).ravel()


def _span(values):
    finite = values[np.isfinite(values)]
    return f"{finite.min():.4g} to {finite.max():.4g}" if finite.size else "no finite values"


ROLES = {"errorbar": "an error bar's caps and bars", "stem": "a stem plot's stems", "baseline": "a stem plot's baseline"}


def _about_line(series):
    x, y = _numbers(series, "x"), _numbers(series, "y")
    if series.get("role") in ROLES:  # read, but never taken for the task's curve
        return f"{ROLES[series['role']]}{_about_label(series)} (not read as a curve)"
    if series.get("axline"):
        return (f"an endless straight line through ({x[0]:.4g}, {y[0]:.4g}) and ({x[-1]:.4g}, {y[-1]:.4g})"
                f"{_about_label(series)}")
    # axhline / axvline: one coordinate in data, the other across the axes
    if x.size == 2 and np.isfinite(y).all() and np.ptp(y) == 0:
        return f"a horizontal line at y = {y[0]:.4g}{_about_label(series)}"
    if x.size == 2 and np.isfinite(x).all() and np.ptp(x) == 0:
        return f"a vertical line at x = {x[0]:.4g}{_about_label(series)}"
    if series.get("in_data") is False:
        return f"a line{_about_label(series)} placed in axes coordinates (not data)"
    text = f"a curve of {x.size} points{_about_label(series)}: x from {_span(x)}, y from {_span(y)}"
    finite = y[np.isfinite(y)]
    runs = runs_behind(finite) if finite.size and not np.allclose(finite, np.round(finite)) else None
    return f"{text} (every y a whole multiple of 1/{runs}, as a mean of {runs} runs would be)" if runs else text


def _about_bars(series):
    heights = _numbers(series, "height")
    horizontal = series.get("orientation") == "horizontal"
    if horizontal:  # barh keeps the length in width and the position in y
        heights, at = _numbers(series, "width"), _numbers(series, "bottom") + _numbers(series, "height") / 2
    else:
        at = _numbers(series, "x") + _numbers(series, "width") / 2
    kind = "horizontal bars" if horizontal else "bars"
    return f"{heights.size} {kind}{_about_label(series)} at {_span(at)}: {_about_heights(heights)}"


def _about_steps(series):
    values = _numbers(series, "values")
    return f"a stepped histogram of {values.size} bins{_about_label(series)}: {_about_heights(values)}"


def _about_polygon(series):
    return f"a filled shape of {_numbers(series, 'x').size} corners{_about_label(series)} (a histogram's outline?)"


def _about_points(series):
    x, y = _numbers(series, "x"), _numbers(series, "y")
    return f"{x.size} scattered points{_about_label(series)}: x from {_span(x)}, y from {_span(y)}"


def _about_segments(series):
    if series.get("role") == "errorbar_only":   # errorbar(..., fmt="none"): the bars are the marks
        return (f"{len(series.get('segments') or [])} error bars drawn without their data{_about_label(series)} "
                f"(read as marks at their middles and ends)")
    if series.get("role") in ROLES:
        return f"{ROLES[series['role']]} ({len(series.get('segments') or [])} segments, not read as a curve)"
    return f"{len(series.get('segments') or [])} line segments{_about_label(series)} (hlines, vlines, stem, errorbar)"


def _about_heights(heights):
    finite = heights[np.isfinite(heights)]
    if not finite.size:
        return "no finite heights"
    text = f"heights {_span(finite)}, summing to {finite.sum():.4g}"
    runs = runs_behind(finite)
    if runs is None:
        return text
    if np.allclose(finite, np.round(finite)):
        return f"{text} (whole counts: {runs:g} runs, if each run adds one)"
    return f"{text} (fractions of {runs} runs, read from the heights)"


def runs_behind(heights):
    """The fewest runs whose whole counts these heights are (as counts, fractions or percentages),
    or None: the lcm of the heights' denominators, at most MAX_RUNS."""
    heights = np.asarray(heights, dtype=float)
    if heights.size == 0 or (heights < 0).any():
        return None
    if np.allclose(heights, np.round(heights)):
        return float(heights.sum())
    total = heights.sum()
    if abs(total - 100) < 1e-6 * 100 and not abs(total - 1) < 1e-6:
        heights = heights / 100  # percentages
    runs = 1
    for h in heights:
        fraction = Fraction(float(h)).limit_denominator(MAX_RUNS)
        if abs(float(fraction) - h) > 1e-9 * max(1.0, abs(h)):
            return None
        runs = runs * fraction.denominator // gcd(runs, fraction.denominator)
        if runs > MAX_RUNS:
            return None
    return runs
