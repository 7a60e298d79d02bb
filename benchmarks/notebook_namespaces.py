"""What the plot tests pay to reach their cells: every notebook's namespace just before each of its
plot cells, built once per cell (the notebook run up to that cell, as before issue 24) against one run
of each notebook with a snapshot before each plot cell (`cells.namespaces_before`, what
tests/support/drawings.py does now).

    python benchmarks/notebook_namespaces.py

Prints the seconds of each way, per notebook, on one torch thread (as a test worker runs)."""
import contextlib
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from tests.support import cells  # noqa: E402
from tests.support.drawings import PLOT_CHECKS  # noqa: E402


def per_cell(notebook, plot_cells):
    """The old way: the notebook run from its top once for every plot cell."""
    for cell in plot_cells:
        cells.namespaces_before(notebook, [cell])


def one_pass(notebook, plot_cells):
    cells.namespaces_before(notebook, plot_cells)


def main():
    torch.set_num_threads(1)
    totals = {"per cell": 0.0, "one pass": 0.0}
    for notebook in sorted(set(PLOT_CHECKS.values())):
        plot_cells = [cell for cell, nb in PLOT_CHECKS.items() if nb == notebook]
        row = []
        for name, way in (("per cell", per_cell), ("one pass", one_pass)):
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):   # the cells' own printing
                way(notebook, plot_cells)
            seconds = time.perf_counter() - started
            totals[name] += seconds
            row.append(f"{name} {seconds:6.1f} s")
        print(f"{notebook:28s} {len(plot_cells):2d} plot cells: " + ", ".join(row), flush=True)
    print(f"{'all':28s} {len(PLOT_CHECKS):2d} plot cells: per cell {totals['per cell']:.1f} s, "
          f"one pass {totals['one pass']:.1f} s ({totals['per cell'] / totals['one pass']:.1f}x)")


if __name__ == "__main__":
    main()
