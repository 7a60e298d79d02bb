"""The honest catalog (tests/honest/, every module) judged by the plot checks: per notebook and per way of
showing (matplotlib and print / pandas and seaborn / shown without print), how many correct
alternatives pass, go to review and fail, and the seconds it took.

    python benchmarks/honest_drawings.py [--seed 1] [--cell plot_schedule ...] [-v]

Each cell's work runs once (tests/grading/test_honest.py), so the time is mostly the drawings and the checks."""
import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.honest import KINDS  # noqa: E402
from tests.support.honest_verdicts import CATALOG, outcome_of, verdict  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="grading seed")
    parser.add_argument("--cell", action="append", help="only these cells (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every review and fail message")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    started = time.perf_counter()
    table = defaultdict(lambda: {"pass": 0, "review": 0, "fail": 0})
    kinds = defaultdict(lambda: {"pass": 0, "review": 0, "fail": 0})
    for index, (notebook, _, honest) in enumerate(CATALOG):
        if args.cell and honest.cell not in args.cell:
            continue
        outcome = outcome_of(index, args.seed)
        kind = "fail" if outcome.raised is not None else verdict(outcome)
        table[notebook[:2]][kind] += 1
        kinds[honest.kind][kind] += 1
        if kind != "pass" and (args.verbose or kind == "fail"):
            why = f"raised {outcome.raised!r}" if outcome.raised is not None else outcome.message
            print(f"  {kind:6s} {honest.cell}:{honest.name}: {why[:400]}", flush=True)
    print("| notebook | honest alternatives | pass | review | fail |\n| --- | --- | --- | --- | --- |")
    for notebook, counts in sorted(table.items()):
        print(f"| {notebook} | {sum(counts.values())} | {counts['pass']} | {counts['review']} | {counts['fail']} |")
    print("\n| how it shows | honest alternatives | pass | review | fail |\n| --- | --- | --- | --- | --- |")
    for name in KINDS:
        counts = kinds[name]
        print(f"| {name} | {sum(counts.values())} | {counts['pass']} | {counts['review']} | {counts['fail']} |")
    total = {k: sum(c[k] for c in table.values()) for k in ("pass", "review", "fail")}
    n = sum(total.values())
    print(f"all: {n} alternatives, {total['review'] / max(n, 1):.1%} to review, {total['fail']} failed; "
          f"{time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
