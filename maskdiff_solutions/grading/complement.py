"""A complement is read (issue 63): a curve that is exactly one minus (or 100 minus) the share a task asks
for, the disagreement drawn for the agreement, goes to a person, named, instead of failing.

When a figure check (`plot_...`) fails, it runs again once for each curve of the figure whose values are
all shares (0 to 1) or percentages (0 to 100, some above 1), with that curve's values turned into their
complement (1 - y, or 100 - y), and for a figure of few such curves once for every two of them (both
measured curves of a figure drawn as the complement, its theory line left as it is). Every answer the
student's kernel gave is replayed from the first run (the same runs, the same numbers), but a call that
hands student code a callable of ours (a recording network, a stand-in step that keeps its calls) runs
again for real: the check reads what that callable keeps. If one of these passes, the verdict is
`Review`, naming the curve: the student drew the complement of what was asked, which a person may judge
(a figure that also states what it shows) where no check can. Every figure check gets this from
`core.evaluate`, through `core.REREADS`: no check needs code of its own for it, but one whose figure
holds no share (a loss, call numbers) says so, `@check(name, shares=False)`, where 1 - y of a curve
would mean nothing and a wrong figure could pass turned.
"""
import itertools

import numpy as np
import torch

from . import core

CURVES = ("lines", "points", "bars")
MOST = 12          # curves tried at most, the first ones of the figure: a re-run replays, but is not free
PAIRS = 6          # with at most this many, every two of them too (two measured curves, a theory left as is)
KINDS = {"lines": "line", "points": "points", "bars": "bars"}


class Replay(core.Student):
    """A student function as a check sees it, whose kernel answers are kept (`log` given empty: the first
    run) or replayed in order (`log` filled), the drawing's with one curve complemented (`turn`). A call
    that is not the next one kept (the re-run went another way) asks the kernel after all."""

    def __init__(self, student, log, turn=None):
        super().__init__(student.__name__)
        self.student, self.log, self.turn = student, log, turn

    def __getattr__(self, name):   # what core.handle reads to hand the function on: the student's own
        if name in ("ref", "function"):
            return getattr(self.student, name, None)
        raise AttributeError(name)

    def drive(self, driver, **kwargs):
        log = self.log
        if log.replaying:
            if log.at < len(log.kept) and log.kept[log.at][0] == driver:
                result = copied(log.kept[log.at][1])
                log.at += 1
                if ours(kwargs):   # what our stand-ins keep of the call must be kept again: run it for real
                    return self.student.drive(driver, **kwargs)
                return self.turn(result) if driver == "drawing" and self.turn else result
            log.at = len(log.kept)   # gone another way: the rest runs for real
            return self.student.drive(driver, **kwargs)
        result = self.student.drive(driver, **kwargs)
        log.kept.append((driver, copied(result)))
        return result

    def student_of(self, value, name):
        inner = self.student.student_of(value, name)
        return Replay(inner, self.log, self.turn) if isinstance(inner, core.Student) else inner


def ours(value, depth=0):
    """Whether a call hands student code a callable of ours (a recording network, a stand-in step that keeps
    its calls): the check reads what it keeps, which a replayed answer would leave empty."""
    if depth > 4:
        return False
    if isinstance(value, dict):
        return any(ours(item, depth + 1) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(ours(item, depth + 1) for item in value)
    if callable(value) and not isinstance(value, type):
        module = getattr(value, "__module__", None) or type(value).__module__ or ""
        return str(module).startswith("maskdiff_solutions")
    return False


def copied(value):
    """A copy of a kernel's answer as a check may change it: containers, tensors and arrays copied, any other
    object (a network the notebook holds, a function) kept as it is, the very object the kernel handed."""
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [copied(item) for item in value]
        return items if isinstance(value, list) else tuple(items) if type(value) is tuple else value
    if torch.is_tensor(value):
        return value.detach().clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


class Log:
    def __init__(self):
        self.kept, self.at, self.replaying = [], 0, False


def keep(name, students):
    """A figure check's students, each keeping its kernel answers in one shared log; (students, (the
    students as handed in, the log)), or the students as they are for any other check."""
    if not name.startswith("plot_") or name in core.NO_SHARES:
        return students, None
    log = Log()
    return [Replay(student, log) for student in students], (students, log)


def candidates(drawing):
    """(where, scale, name) of each curve of a drawing's data whose values are all shares (scale 1) or
    all percentages (scale 100, some value above 1): where = (figure, axes, kind, index)."""
    found = []
    figures = drawing.get("figures") if isinstance(drawing, dict) else None
    for f, figure in enumerate(figures if isinstance(figures, list) else []):
        axes = figure.get("axes") if isinstance(figure, dict) else None
        for a, ax in enumerate(axes if isinstance(axes, list) else []):
            for kind in CURVES:
                items = ax.get(kind) if isinstance(ax, dict) else None
                for i, item in enumerate(items if isinstance(items, list) else []):
                    values = values_of(item, kind)
                    if values is None or not values.size:
                        continue
                    top = float(values.max())
                    if values.min() >= 0 and top <= 100:
                        scale = 1 if top <= 1 else 100
                        label = item.get("label") if isinstance(item.get("label"), str) else ""
                        ylabel = ax.get("ylabel") if isinstance(ax.get("ylabel"), str) else ""
                        named = (f"the {KINDS[kind]} {label!r}" if label and not label.startswith("_") else
                                 f"the {KINDS[kind]} of the axes {ylabel!r}" if ylabel.strip() else
                                 f"{KINDS[kind]} {i + 1} of axes {a + 1}")
                        found.append(((f, a, kind, i), scale, named))
    return found[:MOST]


def values_of(item, kind):
    """The drawn values of one curve (finite ones), or None where it is no plain curve."""
    if not isinstance(item, dict):
        return None
    if kind == "bars":
        if item.get("orientation") == "horizontal" or np.any(np.asarray(item.get("bottom", 0.0)) != 0):
            return None
        values = item.get("height")
    else:
        if item.get("role"):   # error bars, stems' bases: not the data
            return None
        values = item.get("y")
    try:
        values = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    return values[np.isfinite(values)]


def turned(curves):
    """The function that complements some curves ((where, scale, name), ...) of the drawing's data."""
    def turn(drawing):
        for (f, a, kind, i), scale, _ in curves:
            item = drawing["figures"][f]["axes"][a][kind][i]
            key = "height" if kind == "bars" else "y"
            item[key] = scale - np.asarray(item[key], dtype=float)
        return drawing
    return turn


def tries(found):
    """Each curve alone, then (for a few) every two of the same scale."""
    yield from ([curve] for curve in found)
    if len(found) <= PAIRS:
        yield from (list(pair) for pair in itertools.combinations(found, 2) if pair[0][1] == pair[1][1])


def reread(name, kept, failure):
    """After `failure` of figure check `name`: a Review naming the curve whose complement passes, or None."""
    if kept is None:
        return None
    students, log = kept
    drawings = [result for driver, result in log.kept if driver == "drawing"]
    if len(drawings) != 1:
        return None
    for curves in tries(candidates(drawings[0])):
        log.at, log.replaying = 0, True
        turn = turned(curves)
        again = [Replay(student, log, turn) for student in students]
        try:
            with core.seeded(name):
                core.CHECKS[name](*again)
        except core.Failure:   # Review included: only a pass counts
            continue
        finally:
            log.replaying = False
        whole = "one" if curves[0][1] == 1 else "100"
        named = " and ".join(name for _, _, name in curves)
        reads = "reads" if len(curves) == 1 else "read"
        return core.Review(f"{named} {reads} as {whole} minus the share the task asks for ({whole} - y passes "
                           f"every test of this check): it seems to show the complement, the share that does "
                           f"not where the task asks for the share that does; a person will look at it. As drawn: "
                           f"{failure}")
    return None


core.REREADS.append((keep, reread))
