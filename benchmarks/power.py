"""Autograder power: the reference under many grading seeds, every mutant under its checks.

    python benchmarks/power.py [--seeds 200] [--jobs 2] [--function RemaskLoop ...] [--no-generated]

Prints, per check, how many seeds the reference failed (expected: 0; each check's false-failure
probability is at most 1e-6, so 200 seeds x all checks should see none), how many mutants each check
catches, and the wall time. CI runs 5 seeds (tests/grading/test_checks.py); this runs as many as you ask.

The mutants are the hand-written catalog's and the generated ones (tests/mutants/generated.py: each
argument ignored, each comparison's boundary moved, the checks moved after the work, for every graded
function), each under every check of its function. A generated mutant escapes when it fails no check and
tests/mutants/verdicts.py does not list it as harmless; one whose failed checks differ from its verdict is
printed as changed (rewrite the table: python -m tests.mutants.generated --write). Exit 1 on a false
failure or an escape.
"""
import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import maskdiff_solutions as reference  # noqa: E402
from maskdiff_solutions import grading  # noqa: E402


def reference_failures(seed, functions=None):
    os.environ[grading.SEED_VARIABLE] = str(seed)
    return [name for name in checks(functions)
            if not grading.evaluate(name, getattr(reference, name.split(".")[0])).passed]


def checks(functions=None):
    """Every function check (the figures' and printouts' are benchmarks/plot_checks.py's), or only those of the
    named functions."""
    return [n for n in grading.CHECKS if hasattr(reference, n.split(".")[0])
            and (not functions or n.split(".")[0] in functions)]


def generated_verdicts(function):
    """[(notebook, key, the checks it fails)] of the generated mutants of one function."""
    from tests.mutants import generated
    cell = generated.cell_of(function)
    return [(cell.notebook, f"{function}: {mutant.name}", generated.verdict(mutant))
            for mutant in generated.mutants(function)]


def report_generated(functions, jobs):
    """Each generated mutant's verdict against the table; the escapes."""
    from tests.mutants import generated, verdicts
    started = time.perf_counter()
    names = [cell.function for cell in generated.cells() if not functions or cell.function in functions]
    with ProcessPoolExecutor(jobs) as pool:
        found = [row for rows in pool.map(generated_verdicts, names) for row in rows]
    per_notebook, escaped = {}, []
    for notebook, key, failed in found:
        counts = per_notebook.setdefault(notebook, Counter())
        kind = "boundary" if " -> " in key else "order" if key.endswith(generated.ORDER) else "argument"
        counts[kind] += 1
        if failed:
            counts["lose marks"] += 1
            if set(failed) != set(verdicts.VERDICTS.get(key, ())):
                print(f"changed: {key}: fails {sorted(failed)}, the table says {verdicts.VERDICTS.get(key)}")
        elif key in verdicts.HARMLESS:
            counts["harmless"] += 1
        else:
            escaped.append(key)
    print(f"{'generated mutants':18s} {'arguments':>9s} {'boundaries':>10s} {'checks first':>12s} "
          f"{'lose marks':>10s} {'harmless':>8s}")
    for notebook in sorted(per_notebook):
        c = per_notebook[notebook]
        print(f"notebook {notebook:9s} {c['argument']:>9d} {c['boundary']:>10d} {c['order']:>12d} "
              f"{c['lose marks']:>10d} {c['harmless']:>8d}")
    print(f"generated: {len(found)} mutants graded in {time.perf_counter() - started:.0f} s ({jobs} processes); "
          f"escaped every check: {escaped or 'none'}")
    return escaped


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--function", action="append", help="only the checks of these functions (default: all)")
    parser.add_argument("--no-generated", action="store_true", help="leave out the generated mutants")
    args = parser.parse_args()
    started = time.perf_counter()
    failures = Counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for failed in pool.map(reference_failures, range(args.seeds), [args.function] * args.seeds):
            failures.update(failed)
    reference_seconds = time.perf_counter() - started

    from tests.mutants import catalog
    caught, escaped = Counter(), []
    started = time.perf_counter()
    mutants = [m for m in catalog() if not args.function or m.function in args.function]
    for mutant in mutants:
        buggy = mutant.load()
        failed = {n for n in grading.CHECKS if n.split(".")[0] == mutant.function
                  and not grading.evaluate(n, buggy).passed}
        caught.update(failed)
        if not failed:
            escaped.append(f"{mutant.function}: {mutant.name}")
    mutant_seconds = time.perf_counter() - started

    print(f"{'check':34s} {'reference fails':>16s} {'mutants caught':>15s}")
    for name in sorted(checks(args.function)):
        print(f"{name:34s} {failures[name]:>10d}/{args.seeds:<5d} {caught[name]:>15d}")
    print(f"reference: {args.seeds} seeds x {len(checks(args.function))} checks in {reference_seconds:.0f} s "
          f"({args.jobs} processes); false failures: {sum(failures.values())}")
    print(f"mutants: {len(mutants)} graded in {mutant_seconds:.0f} s; escaped every check: "
          f"{escaped or 'none'}")
    if not args.no_generated:
        escaped += report_generated(args.function, args.jobs)
    return 1 if failures or escaped else 0


if __name__ == "__main__":
    raise SystemExit(main())
