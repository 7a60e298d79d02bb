"""False failures of the plot and printout checks: the reference's plot cells drawn and judged under
many grading seeds (the notebook's own seed changes with it, so the plotted runs change too).

    python benchmarks/plot_checks.py --seeds 200 [--draws 20] [--check plot_masked_histograms ...]

Prints, per check, how many seeds failed (each check's bound is 1e-6, so any failure is a bug) and
the seconds per check (drawing excluded). `--draws K` redraws the plot K times only, each drawing
judged under seeds / K grading seeds (for cells that take seconds to draw: training, T = 50 chains)."""
import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from maskdiff_solutions import grading  # noqa: E402
from maskdiff_solutions.grading.checker import argument_names  # noqa: E402
from maskdiff_solutions.grading.core import SEED_VARIABLE  # noqa: E402
from tests.mutants.plots import reference_source  # noqa: E402
from tests.support import cells  # noqa: E402
from tests.support.drawings import PLOT_CHECKS, namespace  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--draws", type=int, default=0, help="drawings per check (default: one per seed)")
    parser.add_argument("--check", action="append", help="only these checks (default: all)")
    args = parser.parse_args()
    checks = args.check or sorted(PLOT_CHECKS, key=lambda c: (PLOT_CHECKS[c], c))
    every = max(1, args.seeds // args.draws) if args.draws else 1
    print(f"load {os.getloadavg()[0]:.2f}; {args.seeds} grading seeds, a new drawing every {every}", flush=True)
    os.environ["NBGRADER_EXECUTION"] = "autograde"
    for check in checks:
        notebook = PLOT_CHECKS[check]
        source = reference_source(notebook, check)
        failures, seconds = [], 0.0
        for seed in range(args.seeds):
            os.environ[SEED_VARIABLE] = str(seed)
            if seed % every == 0:
                ns = namespace(notebook, check)
                torch.manual_seed(seed)
                record = cells.run_cell(source, ns)
            started = time.perf_counter()
            outcome = grading.evaluate(check, record, *[ns[f] for f in argument_names(check)[1:]])
            seconds += time.perf_counter() - started
            if not outcome.passed:
                failures.append((seed, outcome.message))
        print(f"{notebook[:2]} {check:32s} failed {len(failures)}/{args.seeds}  "
              f"{seconds / args.seeds:.3f} s per check", flush=True)
        for seed, message in failures[:3]:
            print(f"    seed {seed}: {message[:300]}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
