"""What grading outside the student's reach costs: one whole reference submission (all five
notebooks) autograded, feedback and export included, in one run, three ways, alternating:

  baseline   the grader before the trusted checker and the sandbox (maskdiff_solutions/course of a
             git worktree at --baseline, given today's notebooks, client, checks and reference so that
             all three grade the same notebooks; it runs the hidden checks in the kernel's own process)
  checker    this grader with --sandbox off: hidden checks in the trusted checker, kernels unsandboxed
  sandbox    this grader as it grades by default: checker and one bubblewrap sandbox per kernel (and
             its notebooks autograded `--notebook-jobs` at once by default: the cores per student)
  serial     this grader with the sandbox, one notebook at a time (--notebook-jobs 1)

Also the seconds each notebook's hidden checks take in the checker (budget 15 s per notebook).

    python benchmarks/isolation.py [--rounds 3] [--baseline 4d349cb] [--baseline-sandbox off]
                                   [--ways baseline,checker,sandbox]

`--baseline-sandbox required` grades the baseline in the sandbox too (a baseline that has one: today's
main against this branch, `--baseline main --baseline-sandbox required --ways baseline,sandbox`).

Each measurement runs `grade()` in a fresh interpreter on the same submission; the figure is the
median over rounds, and the ratio to the baseline is what to quote (the machine is shared).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside a fresh interpreter whose PYTHONPATH starts at the grader to measure.
MEASURE = r"""
import json, sys, time, inspect
from pathlib import Path
from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.run.batch import grade
course, batch, workspace, sandbox = Course.load(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
kwargs = {"progress": False}
if "sandbox" in inspect.signature(grade).parameters:
    kwargs["sandbox"] = sandbox
if sys.argv[5] != "default":
    kwargs["notebook_jobs"] = int(sys.argv[5])
started = time.perf_counter()
report = grade(course, batch, workspace, **kwargs)
seconds = time.perf_counter() - started
rows = [(r.student, r.notebook, r.status, r.auto_score, r.auto_max) for r in report.rows]
checks = {f"{s}/{n}": v for (s, n), v in getattr(report, "check_seconds", {}).items()}
print(json.dumps({"seconds": seconds, "rows": rows, "checks": checks}))
"""


def measure(code_root, course_root, batch, sandbox, notebook_jobs="default"):
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    env.pop("CI", None)
    with tempfile.TemporaryDirectory(prefix="maskdiff-bench-") as workspace:
        done = subprocess.run([sys.executable, "-c", MEASURE, str(course_root), str(batch), workspace, sandbox,
                               notebook_jobs],
                              env=env, cwd=code_root, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    bad = [row for row in result["rows"] if row[2] not in ("graded",) or row[3] != row[4]]
    if bad:
        raise RuntimeError(f"the reference did not get full marks: {bad}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="4d349cb", help="commit of the grader to compare with")
    parser.add_argument("--baseline-sandbox", default="off", choices=("off", "required"),
                        help="grade the baseline with the sandbox too (a baseline that has one)")
    parser.add_argument("--whole-baseline", action="store_true",
                        help="grade with the baseline's own notebooks, client, checks and reference too "
                             "(the whole commit as it was, not only its grader)")
    parser.add_argument("--ways", default="baseline,checker,sandbox",
                        help="comma-separated ways to measure, among baseline, checker, sandbox, serial")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from maskdiff_solutions.course.term.demo import build_submissions
    from maskdiff_solutions.course.layout import Course
    from maskdiff_solutions.course.sandbox.settings import available

    works, why = available()
    if not works:
        raise SystemExit(f"bubblewrap cannot make sandboxes here: {why}")
    with tempfile.TemporaryDirectory(prefix="maskdiff-isolation-") as scratch:
        scratch = Path(scratch)
        baseline = scratch / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline],
                       check=True, capture_output=True)
        for shared in () if args.whole_baseline else ("source", "release", "maskdiff_client"):
            shutil.rmtree(baseline / shared, ignore_errors=True)
            shutil.copytree(ROOT / shared, baseline / shared, ignore=shutil.ignore_patterns("__pycache__"))
        # Today's checks and reference too (the notebooks name checks the baseline never had); only the
        # grader itself, maskdiff_solutions/course, stays the baseline's.
        if not args.whole_baseline:
            keep = baseline / "maskdiff_solutions" / "course"
            old_course = scratch / "baseline-course"
            shutil.move(keep, old_course)
            shutil.rmtree(baseline / "maskdiff_solutions")
            shutil.copytree(ROOT / "maskdiff_solutions", baseline / "maskdiff_solutions",
                            ignore=shutil.ignore_patterns("__pycache__", "course"))
            shutil.move(old_course, keep)
        try:
            batch = scratch / "collected"
            build_submissions(Course.load(ROOT), scratch / "all")  # locked cells: each grader puts its own back
            (batch / "reference").mkdir(parents=True)
            for path in (scratch / "all" / "reference").iterdir():
                (batch / "reference" / path.name).write_bytes(path.read_bytes())
            every = {"baseline": (baseline, baseline, args.baseline_sandbox, "default"),
                     "checker": (ROOT, ROOT, "off", "default"), "sandbox": (ROOT, ROOT, "required", "default"),
                     "serial": (ROOT, ROOT, "required", "1")}
            ways = {way: every[way] for way in args.ways.split(",")}
            if "baseline" not in ways:
                raise SystemExit("--ways must include baseline (the figures are ratios to it)")
            times = {way: [] for way in ways}
            checks = []
            measure(ROOT, ROOT, batch, "required")  # warm: stand-in networks, font caches
            for round_ in range(args.rounds):
                for way, (code, course, sandbox, notebook_jobs) in ways.items():
                    before = os.getloadavg()[0]
                    result = measure(code, course, batch, sandbox, notebook_jobs)
                    times[way].append(result["seconds"])
                    if way == "sandbox":
                        checks.append(result["checks"])
                    print(f"round {round_ + 1} {way:8}: {result['seconds']:.1f} s (load average {before:.2f} "
                          f"before, {os.getloadavg()[0]:.2f} after)", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)],
                           capture_output=True)
    load = os.getloadavg()
    print(f"\nload average during the run's end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    base = statistics.median(times["baseline"])
    for way, values in times.items():
        median = statistics.median(values)
        print(f"{way:8}: {median:.1f} s per whole submission (median of {len(values)}; "
              f"{', '.join(f'{v:.1f}' for v in values)}), {median / base:.3f} x baseline")
    if not checks:
        return
    print("\nhidden checks in the trusted checker, seconds per notebook (budget 15 s), worst of the rounds:")
    for key in sorted(checks[0]):
        print(f"  {key.split('/')[1]:24} {max(c[key] for c in checks):.2f} s")


if __name__ == "__main__":
    main()
