"""What the hidden checks of notebook 01 spend reading what the student's functions return: each check run
in-process on the reference (drivers called here, no kernel, so the student's own work is the same on both
sides), with this checkout's package against a git worktree at --baseline, alternating in fresh
interpreters, one torch thread each.

    python benchmarks/check_reading.py [--baseline HEAD~1] [--rounds 5]

Prints each check's median seconds both ways and their ratio; the medians' sum is what one grading of
notebook 01 spends in these checks (under the grader add the wire, which both sides share).
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ["MakeSchedule", "ForwardMask.history", "ForwardMask.rates", "ForwardMaskFast.basics", "ForwardMaskFast.law"]

MEASURE = r"""
import json, sys, time, torch
torch.set_num_threads(1)
from maskdiff_solutions import grading
from maskdiff_solutions.grading.core import LocalStudent
from maskdiff_solutions.schedule import ForwardMask, ForwardMaskFast, MakeSchedule
functions = {"MakeSchedule": MakeSchedule, "ForwardMask": ForwardMask, "ForwardMaskFast": ForwardMaskFast}
out = {}
for name in json.loads(sys.argv[1]):
    check = grading.CHECKS[name]
    torch.manual_seed(0)
    started = time.perf_counter()
    check(LocalStudent(functions[name.split(".")[0]]))
    out[name] = time.perf_counter() - started
print(json.dumps(out))
"""


def measure(code_root):
    done = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(CHECKS)], capture_output=True, text=True,
                          cwd=code_root, env={"PYTHONPATH": str(code_root), "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", default="HEAD~1", help="the commit to compare with (default HEAD~1)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="maskdiff-reading-") as scratch:
        baseline = Path(scratch) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline],
                       check=True, capture_output=True)
        try:
            runs = {"baseline": [], "this": []}
            for _ in range(args.rounds):
                runs["baseline"].append(measure(baseline))
                runs["this"].append(measure(ROOT))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=True)
    print(f"{'check':26} {'baseline s':>10} {'this s':>8} {'ratio':>6}   (medians of {args.rounds} rounds, alternating)")
    totals = {"baseline": 0.0, "this": 0.0}
    for name in CHECKS:
        medians = {way: statistics.median(r[name] for r in runs[way]) for way in runs}
        totals = {way: totals[way] + medians[way] for way in runs}
        print(f"{name:26} {medians['baseline']:10.3f} {medians['this']:8.3f} {medians['this'] / medians['baseline']:6.2f}")
    print(f"{'all five':26} {totals['baseline']:10.3f} {totals['this']:8.3f} {totals['this'] / totals['baseline']:6.2f}")


if __name__ == "__main__":
    sys.exit(main())
