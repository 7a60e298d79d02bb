"""Notebook 06 as a student runs it: the solved release notebook (no hidden package, no hidden tests)
top to bottom, in full mode (the sizes a student runs on Colab) or in quick mode (what the autograder
runs), with the seconds of every cell that takes more than a tenth of one.

    python benchmarks/notebook06.py [--quick] [--write-script FILE]

--write-script FILE writes the solved cells as one standalone Python file that execs and times them in
one namespace (matplotlib's Agg backend), for a machine without Jupyter or this package, such as a GPU
box: `python3 FILE` there (full mode unless CI=1 is set).

Offline the stories and the scorer are the notebook's own stand-ins (the hub cannot be reached here),
so a full run on this machine times the stand-in scorer, not roneneldan/TinyStories-33M.
"""
import argparse
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
NOTEBOOK = "06_revising_and_faster.ipynb"


def cell_seconds(cell):
    times = cell.metadata.get("execution", {})
    if "iopub.status.busy" not in times or "shell.execute_reply" not in times:
        return None
    start, end = (datetime.fromisoformat(times[k].replace("Z", "+00:00"))
                  for k in ("iopub.status.busy", "shell.execute_reply"))
    return (end - start).total_seconds()


STANDALONE = """# Notebook 06's solved cells, timed one by one (written by benchmarks/notebook06.py --write-script).
import os, sys, time
import matplotlib
matplotlib.use("Agg")
CELLS = {cells!r}
namespace, total = {{"__name__": "__main__"}}, time.perf_counter()
for name, source in CELLS:
    started = time.perf_counter()
    exec(compile(source, name, "exec"), namespace)
    spent = time.perf_counter() - started
    if spent > 0.1:
        print(f"  {{name:28}} {{spent:7.1f}} s", flush=True)
print(f"whole notebook: {{time.perf_counter() - total:.0f}} s")
"""


def main():
    import nbclient

    from maskdiff_solutions.course.intake import notebooks
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="quick mode, as under the autograder (CI=1)")
    parser.add_argument("--write-script", metavar="FILE", help="write the cells as a standalone timed script")
    args = parser.parse_args()
    nb = notebooks.solved(notebooks.read(ROOT / "source" / "maskdiff" / NOTEBOOK),
                     notebooks.read(ROOT / "release" / "maskdiff" / NOTEBOOK))
    if args.write_script:
        cells = [(notebooks.grade_id(c) or "cell", c.source) for c in nb.cells if c.cell_type == "code"]
        Path(args.write_script).write_text(STANDALONE.format(cells=cells))
        return
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NBGRADER_EXECUTION")}
    if args.quick:
        env["CI"] = "1"
    env["PYTHONPATH"] = ""          # what a student has: no maskdiff_solutions
    print(f"{NOTEBOOK}, {'quick' if args.quick else 'full'} mode, {os.cpu_count()} CPUs, "
          f"load average before: {' / '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=3600, record_timing=True,
                                resources={"metadata": {"path": folder}}).execute(env=env)
        seconds = [cell_seconds(cell) if cell.cell_type == "code" else None for cell in nb.cells]
        total = time.perf_counter() - started
    for cell, spent in zip(nb.cells, seconds):
        if spent is not None and spent > 0.1:
            print(f"  {notebooks.grade_id(cell) or '?':28} {spent:7.1f} s")
    print(f"whole notebook: {total:.0f} s (kernel start included); load average after: "
          f"{' / '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
