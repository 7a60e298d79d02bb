"""What a notebook cell drew and printed, kept for the hidden checks of plots and printouts.

Jupyter's inline backend closes every figure at the end of the cell that drew it, and a printout is
gone once it has been sent to the page. So, inside IPython, `install()` keeps a record of the last
few cells: the figures each one drew (caught as matplotlib closes them) and the text it printed. A
hidden test cell hands `drawn_cell("plot_x")` (the record of the drawing cell itself, wherever it
stands) or `last_cell()` (the cell right before it) to the checker, and a driver turns the
record into plain data (`Cell.data`: the artists of each axes, its scales, limits, labels, tick
labels and legend, and the printed text). The checker alone decides what it means
(maskdiff_solutions/grading/plots.py).

What a cell *shows* counts like what it prints: a value left as the cell's last expression or passed to
`display(...)` is on the student's page as much as a printout, so the recorder keeps its text (its
text/plain form, a string as it reads, a table's text where only HTML exists) in the printout, in page
order, and a figure shown that way among the figures. A plotly figure or an altair chart (shown, or
plotly's `fig.show()`) is read into the same plain data as a matplotlib figure (maskdiff_client/charts.py).
Things it cannot turn into text or figures (an image, a chart it cannot take apart) are named in
`Cell.rich`, so a check can send them to a person. The error a cell stopped on is kept as its type,
its message and, for an import, the module's name.

`import maskdiff_client` installs the recorder (the first hidden test cell of a notebook imports it,
before any graded plot); it does nothing outside IPython.
"""
import html
import re
import sys
from collections import OrderedDict, deque

import numpy as np

try:
    from .charts import chart_data
except ImportError:   # drawing_reader.py, one module: charts.py's part stands above this one
    pass

KEEP = 4                   # finished cells remembered
MAX_PRINTED = 200_000      # characters of one cell's printout kept
MAX_FIGURES = 8            # figures kept per cell
MAX_AXES = 16              # axes read per figure
MAX_SERIES = 64            # artists of one kind read per axes
MAX_POINTS = 200_000       # values kept per artist
KEYED = 32                 # drawing cells remembered by their grade_id
MAX_RICH = 16              # things shown that are neither text nor a matplotlib figure, named per cell
RUNS_KEPT = 2000           # cells whose latest run is remembered by their text (the hand-in check reads it)
# The grader sends each cell's nbgrader grade_id as the execute request's cellId (course/run/preprocessors.py),
# which IPython hands to pre_run_cell; only a drawing's grade_id (plot_..., show_...) keys a record, so a
# front end's own cell ids (uuids) never pile figures up here.
DRAWING_ID = re.compile(r"(plot|show)_[A-Za-z0-9_]{1,60}")

_done = deque(maxlen=KEEP)
_by_id = OrderedDict()
_runs = OrderedDict()   # a cell's text -> what its latest run did, in the order the runs finished
_current = None
_installed = False


class Cell:
    """What one cell drew (matplotlib figures) and printed (its standard output)."""

    def __init__(self, cell_id=""):
        self.figures, self.printed, self.size = [], [], 0
        self.rich, self.error, self.charts = [], None, []   # charts: plotly and altair, read when shown
        self.cell_id, self.source = cell_id, ""

    def keep_figure(self, figure):
        if figure is not None and len(self.figures) < MAX_FIGURES and all(f is not figure for f in self.figures):
            self.figures.append(figure)

    def keep_text(self, text):
        if self.size < MAX_PRINTED:
            self.printed.append(text[:MAX_PRINTED - self.size])
            self.size += len(self.printed[-1])

    def keep_shown(self, value, formats=None):
        """A value the cell showed (its last expression, or display(...)); formats: IPython's format
        dict for it, where the front end made one."""
        figures = _figures_in(value)
        if figures:
            for figure in figures:
                self.keep_figure(figure)
            return
        if _is_quiet(value):
            return
        chart = chart_data(value) if (type(value).__module__ or "").startswith(("plotly", "altair")) else None
        if chart is not None:
            if len(self.figures) + len(self.charts) < MAX_FIGURES:
                self.charts.append(chart)
            return
        if (type(value).__module__ or "").startswith(CHARTS):   # formatting one outside IPython prints it
            formats = {}
        elif not (isinstance(formats, dict) and formats):
            formats = _formats_of(value)
        text = _text_shown(value, formats)
        if text is not None:
            self.keep_text(text if text.endswith("\n") else text + "\n")
        elif len(self.rich) < MAX_RICH:
            self.rich.append(_kind_of(value, formats))

    def keep_error(self, error):
        """The exception the cell stopped on (its type, its message; the module an import could not find)."""
        if error is None or self.error is not None:
            return
        module = getattr(error, "name", None) if isinstance(error, ImportError) else None
        if isinstance(error, ImportError) and not module:   # "cannot import name ..." or a bare message
            found = re.search(r"No module named '([\w.]+)'", str(error))
            module = found.group(1) if found else None
        self.error = {"type": type(error).__name__, "module": _text(module, 200) if module else "",
                      "message": _text(str(error), 300)}

    def __call__(self):  # handed to the checker like a function (only callables cross as handles)
        return self.data()

    def data(self):
        """Plain data: {"figures": [figure_data, ...], "printed": text (printed and shown, in page order),
        "rich": [kinds of things shown but not read], "error": {"type", "module"} or None}."""
        return {"figures": [figure_data(f) for f in self.figures] + list(self.charts), "printed": "".join(self.printed),
                "rich": list(self.rich), "error": dict(self.error) if self.error else None}


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
    raw = getattr(info, "raw_cell", None)
    _current.source = raw if isinstance(raw, str) else ""
    if "plotly.basedatatypes" in sys.modules:   # imported where another recorder's finder saw it first
        _watch_plotly_show()
    if not isinstance(sys.stdout, _Tee):
        sys.stdout = _Tee(sys.stdout, _current)
    else:
        sys.stdout._cell = _current
    _current.open_before = {id(f) for f in _open_figures()}


def _after_cell(result=None, *_):
    global _current
    cell, _current = _current, None
    if isinstance(sys.stdout, _Tee):
        sys.stdout = sys.stdout._stream
    if cell is None:
        return
    cell.keep_error(getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None))
    for figure in _open_figures():  # a backend that leaves figures open (not the inline one)
        if id(figure) not in cell.open_before:
            cell.keep_figure(figure)
    _done.append(cell)
    _remember_run(cell)
    if cell.cell_id:
        _by_id.pop(cell.cell_id, None)
        _by_id[cell.cell_id] = cell
        while len(_by_id) > KEYED:
            _by_id.popitem(last=False)


def cell_text_key(text):
    """A cell's text as the kernel and the saved notebook both hold it (line ends and trailing blanks
    aside)."""
    return "\n".join(line.rstrip() for line in str(text).strip().splitlines())


def _remember_run(cell):
    key = cell_text_key(cell.source)
    if not key:
        return
    _runs.pop(key, None)
    _runs[key] = {"figures": len(cell.figures) + len(cell.charts), "printed": bool("".join(cell.printed).strip()),
                  "shown": len(cell.rich), "error": dict(cell.error) if cell.error else None}
    while len(_runs) > RUNS_KEPT:
        _runs.popitem(last=False)


def cell_runs():
    """What the latest run of each cell of this session did, keyed by its text (`cell_text_key`), in the
    order the runs finished: {"figures": n, "printed": bool, "shown": n, "error": {...} or None}."""
    return OrderedDict((key, dict(run)) for key, run in _runs.items())


class _PlotlyImported:
    """A finder that only watches: when plotly's figures are first imported (in a student's cell, maybe
    the one that shows one), their show() is watched at once."""

    def find_spec(self, name, path=None, target=None):
        if name != "plotly.basedatatypes":
            return None
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            _watch_plotly_show(module)
        loader.exec_module = exec_module
        return spec


def watch_plotly():
    """plotly's fig.show() watched: now if plotly is imported, else as soon as it is."""
    _watch_plotly_show()
    if not any(isinstance(finder, _PlotlyImported) for finder in sys.meta_path):
        sys.meta_path.insert(0, _PlotlyImported())


def _watch_plotly_show(module=None):
    """plotly's fig.show() hands the page a ready bundle, past IPython's formatter: keep the figure as
    it goes."""
    module = module or sys.modules.get("plotly.basedatatypes")
    base = getattr(module, "BaseFigure", None)
    if base is None or __name__ in getattr(base.show, "_maskdiff_watchers", ()):
        return
    show = base.show

    def watched_show(self, *args, **kwargs):
        shown(self)
        return show(self, *args, **kwargs)

    watched_show._maskdiff_watchers = frozenset(getattr(show, "_maskdiff_watchers", ())) | {__name__}
    base.show = watched_show


def _first_watch(holder):
    """True (and marked) the first time this recorder watches `holder`. Each recorder watches on its own:
    the students' drawing_reader.py, imported beside the grader's own recorder (a copy handed in with the
    notebook), must not leave the grader's recorder blind."""
    watchers = frozenset(getattr(holder, "_maskdiff_watchers", ()))
    if __name__ in watchers:
        return False
    holder._maskdiff_watchers = watchers | {__name__}
    return True


def _open_figures():
    modules = sys.modules.get("matplotlib._pylab_helpers")
    if modules is None:
        return []
    return [m.canvas.figure for m in modules.Gcf.get_all_fig_managers()]


def _watch_closing():
    """Keep every figure pyplot closes while a cell runs (the inline backend closes them all)."""
    from matplotlib._pylab_helpers import Gcf

    if not _first_watch(Gcf):
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


def shown(value, formats=None):
    """Record a value shown on the page by the cell running now (called by the front end's formatter)."""
    if _current is not None:
        try:
            _current.keep_shown(value, formats)
        except Exception:  # noqa: BLE001 - recording must never break the student's cell
            pass


def _watch_showing(shell):
    """Everything IPython shows goes through its display formatter: a cell's last expression (the display
    hook) and display(...) alike, the inline backend's figures too. Keep each value as it passes."""
    formatter = getattr(shell, "display_formatter", None)
    if formatter is None or not _first_watch(formatter):
        return
    format_ = formatter.format

    def watched_format(obj, *args, **kwargs):
        out = format_(obj, *args, **kwargs)
        formats = out[0] if isinstance(out, tuple) and out and isinstance(out[0], dict) else {}
        shown(obj, formats)
        return out

    formatter.format = watched_format


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
    _watch_showing(shell)
    watch_plotly()
    shell.events.register("pre_run_cell", _before_cell)
    shell.events.register("post_run_cell", _after_cell)
    _installed = True
    return True


# ---- what a cell showed ------------------------------------------------------------------------

def _figures_in(value, depth=0):
    """The matplotlib figures a shown value is or holds: a Figure, an Axes (pandas' .plot), a grid of
    them (seaborn's FacetGrid, an array of Axes from subplots=True), a list of those."""
    module = type(value).__module__ or ""
    if module.startswith("matplotlib.figure") or (hasattr(value, "savefig") and hasattr(value, "axes")
                                                  and module.startswith("matplotlib")):
        return [value]
    if module.startswith("matplotlib.axes") and hasattr(value, "figure"):
        return [value.figure]
    if module.startswith("seaborn"):   # FacetGrid, PairGrid, JointGrid hold their figure
        figure = getattr(value, "figure", None) or getattr(value, "fig", None)
        return [figure] if figure is not None else []
    if depth >= 2:
        return []
    if isinstance(value, (list, tuple)):
        items = list(value)
    elif module == "numpy" and getattr(value, "dtype", None) == object:   # df.plot(subplots=True)
        items = list(np.ravel(value))
    else:
        return []
    found = []
    for item in items[:MAX_AXES]:
        found += [f for f in _figures_in(item, depth + 1) if all(f is not g for g in found)]
    return found


def _is_quiet(value, depth=0):
    """Shown values that say nothing about the work: matplotlib's own return values (the lines plt.plot
    returns, plt.hist's (counts, edges, bars), a Text, a Legend), progress bars and widgets."""
    module = type(value).__module__ or ""
    if module.startswith(("matplotlib", "ipywidgets", "tqdm")):
        return True
    return depth < 2 and isinstance(value, (list, tuple)) and any(_is_quiet(v, depth + 1) for v in value[:MAX_SERIES])


def _formats_of(value):
    """IPython's format dict for a value, as a front end would make it ({} without IPython)."""
    try:
        from IPython.core.formatters import DisplayFormatter
        formats = DisplayFormatter().format(value)[0]
        return formats if isinstance(formats, dict) else {}
    except Exception:  # noqa: BLE001 - no IPython, or a repr that raises
        return {}


def _text_shown(value, formats):
    """The text a shown value puts on the page: a string as it reads, else its text/plain form (unless
    that only says what the object is and an HTML form exists: a styled table), else the text of its
    HTML; None for things with no text (charts, images)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return "\n".join(value)   # strings, one a line, as they read (stories, sentences)
    page = _page_text(value)
    if page is not None:
        return page
    if _is_chart(value, formats):
        return None
    plain, rich_html = formats.get("text/plain"), formats.get("text/html")
    if isinstance(plain, str) and not (isinstance(rich_html, str) and _bare_repr(plain)):
        if not _bare_repr(plain) or len(formats) == 1:
            return plain
    if isinstance(rich_html, str) and rich_html.strip():
        return _html_text(rich_html)
    return None


CHARTS = ("plotly", "altair", "bokeh", "PIL", "pygal", "vega", "holoviews", "hvplot", "folium", "IPython.core.display")


def _is_chart(value, formats):
    """A picture rather than text: a chart of another plotting library, an image, a page of script."""
    if (type(value).__module__ or "").startswith(CHARTS):
        return True
    if any(k.startswith(("image/", "application/vnd", "application/javascript")) for k in formats):
        return True
    page = formats.get("text/html")
    return isinstance(page, str) and re.search(r"(?i)<(script|iframe|canvas|svg|img)\b", page) is not None \
        and "<table" not in page.lower()


def _page_text(value):
    """The text of IPython's HTML and Markdown objects (display(HTML(df.to_html())), display(Markdown(...))):
    a table cell by cell, a row a line; None for anything else, or HTML that draws (a script, a picture)."""
    if (type(value).__module__ or "") != "IPython.core.display" or not isinstance(getattr(value, "data", None), str):
        return None
    if type(value).__name__ == "HTML":
        if re.search(r"(?i)<(script|iframe|canvas|svg|img)\b", value.data) and "<table" not in value.data.lower():
            return None
        return _html_text(value.data)
    if type(value).__name__ == "Markdown":
        rows = []
        for line in value.data[:MAX_PRINTED].splitlines():
            if re.fullmatch(r"\s*\|?[\s:|-]*-[\s:|-]*\|?\s*", line):   # a table's |---|:--| rule
                continue
            line = line.strip()
            if line.startswith("|") and line.endswith("|") and len(line) > 1:
                line = "  ".join(cell.strip() for cell in line[1:-1].split("|"))
            rows.append(re.sub(r"(\*\*|__|`)", "", line))
        return "\n".join(rows)
    if type(value).__name__ in ("Pretty", "Latex", "Code"):
        return value.data
    return None


def _bare_repr(text):
    """object.__repr__'s "<module.Class object at 0x...>": says what the object is, nothing it holds."""
    return bool(re.fullmatch(r"<[\w.]+( object)? at 0x[0-9a-fA-F]+>", text.strip()))


def _html_text(text):
    """A table's text from its HTML: one line per row, cells apart."""
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", "", text[:MAX_PRINTED])
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"(?i)</t[dh]>", "  ", text)
    text = re.sub(r"(?i)<br\s*/?>|</tr>|</p>|</div>|</li>|</h\d>", "\n", text)
    text = html.unescape(re.sub(r"<[^>]*>", "", text))
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def _kind_of(value, formats):
    kinds = sorted(k for k in formats if k != "text/plain")
    return _text(f"{type(value).__module__}.{type(value).__name__}" + (f" ({', '.join(kinds)})" if kinds else ""), 200)


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
           "drawstyle": _text(line.get_drawstyle(), 20),
           "in_data": line.get_transform() is ax.transData,
           "x_in_data": line.get_transform() is ax.get_xaxis_transform()}   # axvline: x in data, y across
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


def _colour(artist):
    """An artist's colour as a hashable tuple (a patch's face, a line's colour), or None."""
    from matplotlib.colors import to_rgba
    try:
        colour = artist.get_facecolor() if hasattr(artist, "get_facecolor") else artist.get_color()
        colour = np.asarray(colour, dtype=float)
        return tuple(np.round(colour.reshape(-1, 4)[0] if colour.ndim else to_rgba(colour), 3))
    except (TypeError, ValueError, IndexError):
        return None


def _legend_colours(legend):
    """{colour: text} of a legend whose entries have one colour each (seaborn's hue legend names its bars
    and lines only there)."""
    if legend is None:
        return {}
    handles = getattr(legend, "legend_handles", None) or getattr(legend, "legendHandles", None) or []
    pairs = [(_colour(h), _text(t.get_text())) for h, t in zip(handles, legend.get_texts())]
    colours = [c for c, _ in pairs]
    return {c: text for c, text in pairs if c is not None and colours.count(c) == 1}


def _rgba(colour):
    """Any matplotlib colour (a name, an RGB or RGBA tuple) as a hashable RGBA tuple, or None."""
    from matplotlib.colors import to_rgba
    try:
        return tuple(round(float(v), 3) for v in to_rgba(colour))
    except (TypeError, ValueError):
        return None


def _marker_rank(handle):
    """How like a scatter's points a legend entry looks: 0 markers alone (a scatter's own entry, seaborn's
    hue entries), 1 markers on a line, 2 anything else (a line, a patch of colour)."""
    if not hasattr(handle, "get_marker"):
        return 0 if hasattr(handle, "get_offsets") else 2   # a PathCollection: plt.scatter's entry
    if str(handle.get_marker()) in ("None", "none", "", " "):
        return 2
    return 0 if str(handle.get_linestyle()) in ("None", "none", "", " ") else 1


def _point_groups(collection, legend, count):
    """The legend's text for each point of a scatter, where every point's colour is one the legend names
    and there are two or more of them (seaborn's hue= draws all groups as one collection, told apart by
    colour only); else None. A colour is named by the entries that look most like points (_marker_rank):
    a curve drawn in a group's colour (the exact law beside its runs) does not hide the group."""
    if legend is None or count < 2:
        return None
    handles = getattr(legend, "legend_handles", None) or getattr(legend, "legendHandles", None) or []
    named, ranks = {}, {}
    for handle, text in zip(handles, legend.get_texts()):
        rank = _marker_rank(handle)
        getter = getattr(handle, "get_markerfacecolor", None) or getattr(handle, "get_facecolor", None)
        try:
            colour = getter() if getter is not None else None
            colour = colour[0] if isinstance(colour, np.ndarray) and colour.ndim == 2 and len(colour) else colour
        except (TypeError, ValueError, IndexError):
            colour = None
        rgba = _rgba(colour)
        if rgba is None or ranks.get(rgba, rank) < rank:
            continue
        # a colour named twice at the same rank names nothing
        named[rgba] = None if ranks.get(rgba) == rank else _text(text.get_text(), 200)
        ranks[rgba] = rank
    try:
        colours = np.asarray(collection.get_facecolors(), dtype=float).reshape(-1, 4)
    except (TypeError, ValueError):
        return None
    if len(colours) != count:
        return None
    names = [named.get(_rgba(c)) for c in colours]
    return names if all(names) and len(set(names)) >= 2 else None


def axes_data(ax):
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.container import BarContainer, ErrorbarContainer, StemContainer
    from matplotlib.patches import Polygon, Rectangle, StepPatch

    legend = ax.get_legend()
    if legend is None:   # a legend of the whole figure (seaborn's relplot, fig.legend()) speaks for its axes
        legend = next(iter(getattr(ax.figure, "legends", None) or []), None)
    legend_names = _legend_colours(legend)
    out = {"xscale": ax.get_xscale(), "yscale": ax.get_yscale(), "xlabel": _text(ax.get_xlabel()),
           "ylabel": _text(ax.get_ylabel()), "title": _text(ax.get_title()),
           "legend": [_text(t.get_text()) for t in legend.get_texts()][:MAX_SERIES] if legend else [],
           "lines": [_line(ax, line) for line in ax.get_lines()[:MAX_SERIES]],
           "bars": [], "steps": [], "polygons": [], "points": [], "segments": [],
           "texts": [_text(t.get_text()) for t in ax.texts[:MAX_SERIES]],
           "xlim": _floats(ax.get_xlim()), "ylim": _floats(ax.get_ylim()), "xticks": _ticks(ax),
           "yticks": _ticks(ax, "y")}
    # The parts of errorbar() and stem() that are not the data: caps and error bars, the stems under
    # stem's markers (its markers are a line of their own). Kept, but marked with their role. Error bars
    # drawn without their data (fmt="none") are the marks themselves: "errorbar_only".
    roles, named = {}, {}
    for container in ax.containers[:MAX_SERIES]:
        if isinstance(container, ErrorbarContainer):
            data_line, caps, barlines = container.lines
            roles.update({id(a): "errorbar" for a in caps or ()})
            roles.update({id(a): "errorbar" if data_line is not None else "errorbar_only" for a in barlines or ()})
            if data_line is None:   # its bars are all it drew: they carry its label
                named.update({id(a): container.get_label() for a in barlines or ()})
        elif isinstance(container, StemContainer):
            roles[id(container.stemlines)] = "stem"
            roles[id(container.baseline)] = "baseline"
    for line, artist in zip(out["lines"], ax.get_lines()[:MAX_SERIES]):
        if id(artist) in roles:
            line["role"] = roles[id(artist)]
        if line["label"].startswith("_"):   # seaborn names its lines only in the legend, by colour
            line["label"] = legend_names.get(_colour(artist), line["label"])
    in_containers = set()
    for container in ax.containers[:MAX_SERIES]:
        if isinstance(container, BarContainer):
            label = container.get_label()
            if (not label or label.startswith("_")) and container.patches:  # ax.hist labels its first bar
                label = container.patches[0].get_label()
            if (not label or label.startswith("_")) and container.patches:  # seaborn: the legend's colour
                label = legend_names.get(_colour(container.patches[0]), label)
            out["bars"].append(_bars(container.patches, label, getattr(container, "orientation", None)))
            in_containers.update(id(p) for p in container.patches)
    # rectangles drawn one by one (or a container the student emptied); not the empty, invisible ones
    # a library adds for its legend (seaborn's countplot); a span across the axes (axvspan, axhspan: one
    # side in the axes' own units) is no bar
    loose = [p for p in ax.patches if isinstance(p, Rectangle) and id(p) not in in_containers
             and p.get_visible() and (p.get_width() or p.get_height())]
    spans = [p for p in loose if p.get_data_transform() is not ax.transData]
    loose = [p for p in loose if p.get_data_transform() is ax.transData]
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
            points = {"x": xy[:, 0], "y": xy[:, 1], "label": _text(collection.get_label())}
            groups = _point_groups(collection, legend, len(xy))
            if groups:
                points["groups"] = groups
            out["points"].append(points)
        elif isinstance(collection, PolyCollection):   # fill_between: a band, or a histogram's steps
            for path in collection.get_paths()[:MAX_SERIES]:
                xy = np.asarray(path.vertices, dtype=float)[:MAX_POINTS]
                if xy.ndim == 2 and xy.shape[1] == 2 and len(xy):
                    label = _text(collection.get_label())
                    if label.startswith("_") or not label:
                        label = legend_names.get(_colour(collection), label)
                    out["polygons"].append({"x": xy[:, 0], "y": xy[:, 1], "role": "fill", "label": label})
        elif isinstance(collection, LineCollection):
            segments = [np.asarray(s, dtype=float) for s in collection.get_segments()[:MAX_POINTS]]
            out["segments"].append({"segments": [s for s in segments if s.ndim == 2 and s.shape[1] == 2],
                                    "label": _text(named.get(id(collection), collection.get_label())),
                                    "role": roles.get(id(collection), "")})
    # What the reader does not understand (images, filled areas, pies, ...): a check that misses
    # something may then only say it could not tell.
    known = (PathCollection, LineCollection, Rectangle, StepPatch, Polygon, PolyCollection)
    out["unread"] = sorted({type(a).__name__ for a in list(ax.collections) + list(ax.patches) + list(ax.images)
                            + list(ax.tables) if not isinstance(a, known)}
                           | ({"a span across the axes (axvspan, axhspan)"} if spans else set()))[:MAX_SERIES]
    return out


def figure_data(figure):
    suptitle = getattr(figure, "_suptitle", None)
    return {"axes": [axes_data(ax) for ax in figure.axes[:MAX_AXES]],
            "suptitle": _text(suptitle.get_text() if suptitle is not None else "")}
