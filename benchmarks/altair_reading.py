"""The honest catalog's altair alternatives (tests/honest/, every one whose cell draws with altair): the
seconds the reader spends taking each shown chart apart (maskdiff_client.charts.chart_data, which runs in
the student's kernel), the seconds of the whole cell and its check, and each verdict.

    python benchmarks/altair_reading.py [--seed 1] [--save FILE] [--compare FILE]

`--save` keeps the verdicts (and reading seconds) as JSON; `--compare` says which verdicts changed
since a saved run, so one command measures before and after a change to the reader."""
import argparse
import contextlib
import io
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import maskdiff_client.drawn as drawn  # noqa: E402
from tests.support.drawings import judge  # noqa: E402
from tests.support.honest_verdicts import CATALOG, fresh, verdict  # noqa: E402


def altair_alternatives():
    return [(i, nb, h) for i, (nb, _, h) in enumerate(CATALOG) if "import altair" in h.source]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="grading seed")
    parser.add_argument("--save", help="write the verdicts and seconds to this JSON file")
    parser.add_argument("--compare", help="a JSON file of an earlier --save: name every verdict that changed")
    args = parser.parse_args()
    reading = []
    original = drawn.chart_data

    def timed(value):   # what the recorder calls on each chart a cell shows
        started = time.perf_counter()
        try:
            return original(value)
        finally:
            reading.append(time.perf_counter() - started)

    drawn.chart_data = timed
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    results, started = {}, time.perf_counter()
    for index, notebook, honest in altair_alternatives():
        with contextlib.redirect_stdout(io.StringIO()):   # what the notebooks and cells print
            namespace = fresh(notebook, honest.cell)   # the notebook's run and the cell's DATA: not timed
            os.environ["MASKDIFF_GRADING_SEED"] = str(args.seed)
            reading.clear()
            cell_started = time.perf_counter()
            outcome = judge(honest.cell, honest.source, namespace)
            seconds = time.perf_counter() - cell_started
        kind = "fail" if outcome.raised is not None else verdict(outcome)
        key = f"{honest.cell}:{honest.name}"
        results[key] = {"verdict": kind, "read_s": sum(reading), "charts": len(reading), "cell_s": seconds,
                        "message": "" if kind == "pass" else str(outcome.message)[:300]}
        print(f"{key:60s} {kind:6s} read {sum(reading):6.3f} s ({len(reading)} chart{'s' * (len(reading) != 1)}), "
              f"cell and check {seconds:6.2f} s", flush=True)
    total_read = sum(r["read_s"] for r in results.values())
    counts = {k: sum(r["verdict"] == k for r in results.values()) for k in ("pass", "review", "fail")}
    print(f"{len(results)} altair alternatives: {counts}; reading {total_read:.2f} s in all, "
          f"cells and checks {sum(r['cell_s'] for r in results.values()):.1f} s; "
          f"{time.perf_counter() - started:.0f} s with the notebooks' runs, load {os.getloadavg()[0]:.2f}")
    if args.save:
        Path(args.save).write_text(json.dumps(results, indent=1), encoding="utf-8")
    if args.compare:
        before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        changed = [f"{key}: {before[key]['verdict']} -> {now['verdict']} ({now['message']})"
                   for key, now in results.items() if key in before and before[key]["verdict"] != now["verdict"]]
        print("verdicts changed:" if changed else "no verdict changed", *changed, sep="\n  ")
        print(f"reading before {sum(r['read_s'] for r in before.values()):.2f} s, now {total_read:.2f} s")


if __name__ == "__main__":
    main()
