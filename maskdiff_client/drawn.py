"""What a notebook cell drew and printed, kept for the hidden checks of plots and printouts.

Jupyter's inline backend closes every figure at the end of the cell that drew it, and a printout is
gone once it has been sent to the page. So, inside IPython, `install()` keeps a record of the last
few cells: the figures each one drew (caught as matplotlib closes them) and the text it printed. A
hidden test cell hands `drawn_cell("plot_x")` (the record of the drawing cell itself, wherever it
stands) or `last_cell()` (the cell right before it) to the checker, and a driver turns the
record into plain data (`Cell.data`: the artists of each axes, its scales, limits, labels, tick
labels and legend, and the printed text). The checker alone decides what it means
(maskdiff_solutions/grading/plots.py).

`import maskdiff_client` installs the recorder (the first hidden test cell of a notebook imports it,
before any graded plot); it does nothing outside IPython.
"""
import re
import sys
from collections import OrderedDict, deque

import numpy as np

KEEP = 4                   # finished cells remembered
MAX_PRINTED = 200_000      # characters of one cell's printout kept
MAX_FIGURES = 8            # figures kept per cell
MAX_AXES = 16              # axes read per figure
MAX_SERIES = 64            # artists of one kind read per axes
MAX_POINTS = 200_000       # values kept per artist
KEYED = 32                 # drawing cells remembered by their grade_id
# The grader sends each cell's nbgrader grade_id as the execute request's cellId (course/preprocessors.py),
# which IPython hands to pre_run_cell; only a drawing's grade_id (plot_..., show_...) keys a record, so a
# front end's own cell ids (uuids) never pile figures up here.
DRAWING_ID = re.compile(r"(plot|show)_[A-Za-z0-9_]{1,60}")

_done = deque(maxlen=KEEP)
_by_id = OrderedDict()
_current = None
_installed = False


class Cell:
    """What one cell drew (matplotlib figures) and printed (its standard output)."""

    def __init__(self, cell_id=""):
        self.figures, self.printed, self.size = [], [], 0
        self.cell_id = cell_id

    def keep_figure(self, figure):
        if figure is not None and len(self.figures) < MAX_FIGURES and all(f is not figure for f in self.figures):
            self.figures.append(figure)

    def keep_text(self, text):
        if self.size < MAX_PRINTED:
            self.printed.append(text[:MAX_PRINTED - self.size])
            self.size += len(self.printed[-1])

    def __call__(self):  # handed to the checker like a function (only callables cross as handles)
        return self.data()

    def data(self):
        """Plain data: {"figures": [figure_data, ...], "printed": text}."""
        return {"figures": [figure_data(f) for f in self.figures], "printed": "".join(self.printed)}


class NoCell(Cell):
    """What `last_cell()` gives when nothing was recorded (the recorder was not installed yet)."""


def last_cell():
    """The record of the cell that ran before this one."""
    return _done[-1] if _done else NoCell()


def drawn_cell(grade_id):
    """The record of the drawing cell `grade_id` (its latest run), wherever it stands in the notebook:
    cells inserted or moved around it change nothing. Where the front end does not name cells by
    their grade_id (Colab, Jupyter: only the grader does), the latest of the last few cells that drew a
    figure (for a `plot_...`) or printed (`show_...`), else the cell that ran before this one."""
    if grade_id in _by_id:
        return _by_id[grade_id]
    kind = "figures" if str(grade_id).startswith("plot_") else "printed"
    return next((cell for cell in reversed(_done) if getattr(cell, kind)), None) or last_cell()


class _Tee:
    """Standard output that also keeps what passes through it."""

    def __init__(self, stream, cell):
        self._stream, self._cell = stream, cell

    def write(self, text):
        if isinstance(text, str):
            self._cell.keep_text(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _before_cell(info=None, *_):
    global _current
    cell_id = getattr(info, "cell_id", None)
    _current = Cell(cell_id if isinstance(cell_id, str) and DRAWING_ID.fullmatch(cell_id) else "")
    if not isinstance(sys.stdout, _Tee):
        sys.stdout = _Tee(sys.stdout, _current)
    else:
        sys.stdout._cell = _current
    _current.open_before = {id(f) for f in _open_figures()}


def _after_cell(*_):
    global _current
    cell, _current = _current, None
    if isinstance(sys.stdout, _Tee):
        sys.stdout = sys.stdout._stream
    if cell is None:
        return
    for figure in _open_figures():  # a backend that leaves figures open (not the inline one)
        if id(figure) not in cell.open_before:
            cell.keep_figure(figure)
    _done.append(cell)
    if cell.cell_id:
        _by_id.pop(cell.cell_id, None)
        _by_id[cell.cell_id] = cell
        while len(_by_id) > KEYED:
            _by_id.popitem(last=False)


def _open_figures():
    modules = sys.modules.get("matplotlib._pylab_helpers")
    if modules is None:
        return []
    return [m.canvas.figure for m in modules.Gcf.get_all_fig_managers()]


def _watch_closing():
    """Keep every figure pyplot closes while a cell runs (the inline backend closes them all)."""
    from matplotlib._pylab_helpers import Gcf

    if getattr(Gcf, "_maskdiff_watched", False):
        return
    destroy, destroy_all = Gcf.destroy.__func__, Gcf.destroy_all.__func__

    def keep(manager):
        if _current is not None and manager is not None:
            _current.keep_figure(getattr(getattr(manager, "canvas", None), "figure", None))

    def watched_destroy(cls, num):
        keep(num if hasattr(num, "canvas") else cls.figs.get(num))
        return destroy(cls, num)

    def watched_destroy_all(cls):
        for manager in list(cls.figs.values()):
            keep(manager)
        return destroy_all(cls)

    Gcf.destroy = classmethod(watched_destroy)
    Gcf.destroy_all = classmethod(watched_destroy_all)
    Gcf._maskdiff_watched = True


def install(shell=None):
    """Start recording in this IPython session (once); False outside IPython."""
    global _installed
    if _installed:
        return True
    if shell is None:
        get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
        shell = get_ipython() if get_ipython else None
    if shell is None or not hasattr(shell, "events"):
        return False
    _watch_closing()
    shell.events.register("pre_run_cell", _before_cell)
    shell.events.register("post_run_cell", _after_cell)
    _installed = True
    return True


# ---- a figure as plain data -------------------------------------------------------------------

def _floats(values):
    try:
        array = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan).ravel()
    except (TypeError, ValueError):
        return np.zeros(0)
    return array[:MAX_POINTS]


def _text(value, limit=500):
    return str(value or "")[:limit]


def _line(ax, line):
    # orig=False: the values after unit conversion (a categorical axis's names become 0, 1, 2, ...)
    out = {"x": _floats(line.get_xdata(orig=False)), "y": _floats(line.get_ydata(orig=False)),
           "label": _text(line.get_label()),
           "linestyle": _text(line.get_linestyle(), 20), "marker": _text(line.get_marker(), 20),
           "in_data": line.get_transform() is ax.transData}
    if hasattr(line, "get_xy1") and hasattr(line, "get_slope"):  # ax.axline: two points of an endless line
        (x1, y1), xy2, slope = line.get_xy1(), line.get_xy2(), line.get_slope()
        if xy2 is None:
            xy2 = (x1, y1 + 1.0) if slope is None or np.isinf(slope) else (x1 + 1.0, y1 + slope)
        out.update(x=_floats([x1, xy2[0]]), y=_floats([y1, xy2[1]]), in_data=True, axline=True)
    return out


def _bars(patches, label="", orientation="vertical"):
    patches = list(patches)[:MAX_POINTS]
    return {"x": _floats([p.get_x() for p in patches]), "width": _floats([p.get_width() for p in patches]),
            "bottom": _floats([p.get_y() for p in patches]), "height": _floats([p.get_height() for p in patches]),
            "label": _text(label), "orientation": _text(orientation or "vertical", 20)}


def _ticks(ax, axis="x"):
    """The ticks of one axis that carry a label (a bar chart of categories names its bars there)."""
    try:
        labels = (ax.get_xticklabels() if axis == "x" else ax.get_yticklabels())[:MAX_SERIES]
    except Exception:  # noqa: BLE001 - a formatter the student broke
        return {"at": _floats([]), "labels": []}
    at = [t.get_position()[0 if axis == "x" else 1] for t in labels]
    return {"at": _floats(at), "labels": [_text(t.get_text()) for t in labels]}


def axes_data(ax):
    from matplotlib.collections import LineCollection, PathCollection
    from matplotlib.container import BarContainer, ErrorbarContainer, StemContainer
    from matplotlib.patches import Polygon, Rectangle, StepPatch

    legend = ax.get_legend()
    out = {"xscale": ax.get_xscale(), "yscale": ax.get_yscale(), "xlabel": _text(ax.get_xlabel()),
           "ylabel": _text(ax.get_ylabel()), "title": _text(ax.get_title()),
           "legend": [_text(t.get_text()) for t in legend.get_texts()][:MAX_SERIES] if legend else [],
           "lines": [_line(ax, line) for line in ax.get_lines()[:MAX_SERIES]],
           "bars": [], "steps": [], "polygons": [], "points": [], "segments": [],
           "texts": [_text(t.get_text()) for t in ax.texts[:MAX_SERIES]],
           "xlim": _floats(ax.get_xlim()), "ylim": _floats(ax.get_ylim()), "xticks": _ticks(ax),
           "yticks": _ticks(ax, "y")}
    # The parts of errorbar() and stem() that are not the data: caps and error bars, the stems under
    # stem's markers (its markers are a line of their own). Kept, but marked with their role.
    roles = {}
    for container in ax.containers[:MAX_SERIES]:
        if isinstance(container, ErrorbarContainer):
            _, caps, barlines = container.lines
            roles.update({id(a): "errorbar" for a in list(caps or ()) + list(barlines or ())})
        elif isinstance(container, StemContainer):
            roles[id(container.stemlines)] = "stem"
            roles[id(container.baseline)] = "baseline"
    for line, artist in zip(out["lines"], ax.get_lines()[:MAX_SERIES]):
        if id(artist) in roles:
            line["role"] = roles[id(artist)]
    in_containers = set()
    for container in ax.containers[:MAX_SERIES]:
        if isinstance(container, BarContainer):
            label = container.get_label()
            if (not label or label.startswith("_")) and container.patches:  # ax.hist labels its first bar
                label = container.patches[0].get_label()
            out["bars"].append(_bars(container.patches, label, getattr(container, "orientation", None)))
            in_containers.update(id(p) for p in container.patches)
    loose = [p for p in ax.patches if isinstance(p, Rectangle) and id(p) not in in_containers]
    if loose:  # rectangles drawn one by one (or a container the student emptied)
        out["bars"].append(_bars(loose))
    for patch in ax.patches[:MAX_SERIES]:
        if isinstance(patch, StepPatch):
            values, edges, _ = patch.get_data()
            out["steps"].append({"values": _floats(values), "edges": _floats(edges),
                                 "label": _text(patch.get_label())})
        elif isinstance(patch, Polygon):
            xy = np.asarray(patch.get_xy(), dtype=float)[:MAX_POINTS]
            out["polygons"].append({"x": xy[:, 0], "y": xy[:, 1], "label": _text(patch.get_label())})
    for collection in ax.collections[:MAX_SERIES]:
        if isinstance(collection, PathCollection):
            xy = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)[:MAX_POINTS]
            out["points"].append({"x": xy[:, 0], "y": xy[:, 1], "label": _text(collection.get_label())})
        elif isinstance(collection, LineCollection):
            segments = [np.asarray(s, dtype=float) for s in collection.get_segments()[:MAX_POINTS]]
            out["segments"].append({"segments": [s for s in segments if s.ndim == 2 and s.shape[1] == 2],
                                    "label": _text(collection.get_label()),
                                    "role": roles.get(id(collection), "")})
    # What the reader does not understand (images, filled areas, pies, ...): a check that misses
    # something may then only say it could not tell.
    known = (PathCollection, LineCollection, Rectangle, StepPatch, Polygon)
    out["unread"] = sorted({type(a).__name__ for a in list(ax.collections) + list(ax.patches) + list(ax.images)
                            + list(ax.tables) if not isinstance(a, known)})[:MAX_SERIES]
    return out


def figure_data(figure):
    suptitle = getattr(figure, "_suptitle", None)
    return {"axes": [axes_data(ax) for ax in figure.axes[:MAX_AXES]],
            "suptitle": _text(suptitle.get_text() if suptitle is not None else "")}
