"""The honest catalog: correct drawings and printouts written as different students would, the mirror
image of the wrong plots of tests/mutants/plots.py. Every one must earn its check's points (verdict
pass; "review" is allowed for at most 5 % of the catalog, "fail" never).

One module per notebook (`nb01.py`, `nb02.py`, ...), each holding
- `NOTEBOOK`: the source notebook's file name;
- `DATA`: {plot cell: source} the work a cell does before it draws (the runs, the tallies), run once
  per cell after the notebook's earlier cells: every alternative of the cell starts from the names it
  defines, so that the catalog varies only the drawing and stays cheap;
- `HONEST`: the alternatives, `Honest(cell, name, source, kind)`, each source the drawing (or printout)
  a student wrote from the task text above the cell alone; `kind` says how it shows (`KINDS`): at
  least three "pandas-seaborn" alternatives per plot cell and one "shown" per printout cell.
A printout that is itself the work (a few runs printed) leaves `DATA` empty for its cell.
tests/grading/test_honest.py proves them; benchmarks/honest_drawings.py counts the verdicts per notebook.
"""
import importlib
import pkgutil
from dataclasses import dataclass


@dataclass(frozen=True)
class Honest:
    cell: str               # grade_id of the drawing or printout cell (= its check)
    name: str               # how this student drew it
    source: str             # the cell as written, run after the notebook's earlier cells and DATA[cell]
    kind: str = "matplotlib"  # how it shows: KINDS


# How an alternative shows its result, counted apart by benchmarks/honest_drawings.py: matplotlib and
# print; pandas or seaborn (as Colab offers them); a value shown without print (a cell's last
# expression, or display(...)); plotly or altair (Colab's other plotting libraries).
KINDS = ("matplotlib", "pandas-seaborn", "shown", "plotly-altair")


def modules():
    """Every notebook module of the catalog (nbNN.py), in notebook order."""
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name) if info.name.startswith("nb")]


def catalog():
    """(notebook, data source, Honest) for every honest alternative of every notebook module."""
    return [(module.NOTEBOOK, module.DATA.get(h.cell, ""), h) for module in modules() for h in module.HONEST]
