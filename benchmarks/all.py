"""Every figure the README and BENCHMARKS.md quote, each next to its baseline, in one run.

    python benchmarks/all.py [--full-notebooks]

Runs, one after the other on this machine (the other scripts here hold the details):
  grading.py      hidden-check seconds per notebook; autograde seconds per whole submission (all
                  notebooks) against a plain nbclient run of the same solved notebooks; the demo
  training.py     training steps/s of the given denoiser against a page-style loop (batch 64, L 32)
  chat_calls.py   network calls per answer of notebook 03's faster sampler against the plain loop
  sampler.py      notebook 05's vectorised update and batched sampler against per-row loops
  power.py        the reference under 20 grading seeds and every mutant against its checks
  grading_scale.py  per-student overhead of grading on a Dask cluster against the local pool
With --full-notebooks it also times each solution notebook top to bottom in full mode (no
NBGRADER_EXECUTION, no CI: the sizes a student runs on Colab), which takes a long while on a CPU.
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEPS = [
    ("grading", ["grading.py"]),
    ("training", ["training.py", "--steps", "20", "--rounds", "3"]),
    ("chat calls", ["chat_calls.py", "--runs", "50"]),
    ("sampler", ["sampler.py"]),
    ("power", ["power.py", "--seeds", "20"]),
    ("grading scale", ["grading_scale.py"]),
]


def load():
    """The machine's load averages (1, 5, 15 min): every figure is quoted with the load it ran under."""
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def run(label, argv, env):
    print(f"\n=== {label}: python benchmarks/{' '.join(argv)}  [load before: {load()}]", flush=True)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / argv[0]), *argv[1:]], env=env,
                          cwd=ROOT, text=True, capture_output=True)
    print(done.stdout.rstrip())
    if done.returncode:
        print(done.stderr.rstrip()[-2000:])
    print(f"[{label}: {time.perf_counter() - started:.0f} s, exit {done.returncode}, load after: {load()}]",
          flush=True)
    return done.returncode == 0


def full_notebooks(env):
    import nbclient
    from maskdiff_solutions.course.intake import notebooks
    print("\n=== solution notebooks in full mode (what a student runs), top to bottom")
    env = {k: v for k, v in env.items() if k not in ("CI", "NBGRADER_EXECUTION")}
    for path in sorted((ROOT / "source" / "maskdiff").glob("*.ipynb")):
        nb = notebooks.read(path)
        started = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=3600, resources={"metadata": {"path": str(path.parent)}}
                                ).execute(env=env)
        print(f"{path.name}: {time.perf_counter() - started:.0f} s", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--full-notebooks", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("CI", None)
    print(f"{os.cpu_count()} CPUs, load average (1 / 5 / 15 min) at the start: {load()}", flush=True)
    started = time.perf_counter()
    ok = all([run(label, argv, env) for label, argv in STEPS])
    print(f"\nall: {time.perf_counter() - started:.0f} s, load average at the end: {load()}")
    if args.full_notebooks:
        full_notebooks(env)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
