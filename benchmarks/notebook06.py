"""Notebook 06 as a student runs it: the solved release notebook (no hidden package, no hidden tests)
top to bottom, in full mode (the sizes a student runs on Colab) or in quick mode (what the autograder
runs), with the seconds of every cell that takes more than a tenth of one. benchmarks/notebook07.py runs
notebook 07 the same way (`main(notebook)`).

    python benchmarks/notebook06.py [--quick] [--empty-cache] [--write-script FILE]

In quick mode the given cells load the denoisers this machine keeps (`MASKDIFF_CACHE`, else
~/.cache/maskdiff), as on a grading machine; --empty-cache hands them an empty cache instead, so that they
train them in the cell, as where nothing is kept (CI without warm caches, a grader whose keeping failed).

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
from datetime import datetime, timezone
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


STANDALONE = """# {notebook}'s solved cells, timed one by one (written by benchmarks/{script} --write-script).
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


def printed(cell):
    """The lines a code cell printed."""
    streams = (out for out in cell.get("outputs", []) if out.get("output_type") == "stream")
    return "".join(out.get("text", "") for out in streams).splitlines()


def load():
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


def utc():
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def main(notebook=NOTEBOOK):
    import nbclient

    from maskdiff_solutions.course.intake import notebooks
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="quick mode, as under the autograder (CI=1)")
    parser.add_argument("--empty-cache", action="store_true", help="no kept denoiser: the cells train theirs")
    parser.add_argument("--write-script", metavar="FILE", help="write the cells as a standalone timed script")
    args = parser.parse_args()
    nb = notebooks.solved(notebooks.read(ROOT / "source" / "maskdiff" / notebook),
                          notebooks.read(ROOT / "release" / "maskdiff" / notebook))
    if args.write_script:
        cells = [(notebooks.grade_id(c) or "cell", c.source) for c in nb.cells if c.cell_type == "code"]
        Path(args.write_script).write_text(STANDALONE.format(cells=cells, notebook=notebook,
                                                             script=Path(sys.argv[0]).name))
        return
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NBGRADER_EXECUTION")}
    if args.quick:
        env["CI"] = "1"
    env["PYTHONPATH"] = ""          # what a student has: no maskdiff_solutions
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as empty:
        if args.empty_cache:
            env["MASKDIFF_CACHE"] = empty
        print(f"{notebook}, {'quick' if args.quick else 'full'} mode"
              f"{', an empty cache' if args.empty_cache else ''}, {os.cpu_count()} CPUs, {utc()}, "
              f"load average before: {load()}", flush=True)
        started = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=3600, record_timing=True,
                                resources={"metadata": {"path": folder}}).execute(env=env)
        seconds = [cell_seconds(cell) if cell.cell_type == "code" else None for cell in nb.cells]
        total = time.perf_counter() - started
    for cell, spent in zip(nb.cells, seconds):
        if spent is not None and spent > 0.1:
            print(f"  {notebooks.grade_id(cell) or '?':28} {spent:7.1f} s")
            for line in printed(cell):
                if "stopped after" in line:   # Train's clock cut the training short (quick mode)
                    print(f"  {'':28} ({line})")
    print(f"whole notebook: {total:.0f} s (kernel start included); {utc()}, load average after: {load()}")


if __name__ == "__main__":
    main()
