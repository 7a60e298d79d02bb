"""Each test module alone, in a process of its own, at the torch thread counts asked (issue 61).

    python -m tests.support.alone [--threads 1,2,4] [--jobs 2] [--slow] [MODULE ...]

CI runs the suite on two workers that run torch on one thread (tests/conftest.py), each module after
others: a test that passes only because an earlier one set the thread count, or only on one thread, passes
there and fails alone. Here every module (by default every tests/**/test_*.py) runs by itself with
`-n 0` and OMP_NUM_THREADS set, which is torch's count in a fresh process, for each count asked;
`-m "not slow"` unless --slow. `--jobs` processes at once (each torch thread count is the module's own:
two jobs of two threads on two cores change which kernels are slow, not what they compute).

Prints a line per module and count (passed, failed, errors, seconds), then the failures; exits 1 if any.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COUNTS = re.compile(r"(\d+) (passed|failed|skipped|deselected|errors?|xfailed|xpassed)")


def modules(named):
    return named or sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py"))


def run(module, threads, slow):
    """(module, threads, {kind: n}, seconds, the output's tail when something failed)."""
    argv = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", module]
    if not slow:
        argv += ["-m", "not slow"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    env.pop("PYTEST_XDIST_WORKER", None)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    lines = done.stdout.strip().splitlines()
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n)
              for n, kind in COUNTS.findall(lines[-1] if lines else "")}
    bad = done.returncode not in (0, 5)   # 5: nothing collected (every test slow, with -m "not slow")
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-40:]) if bad else ""
    return module, threads, counts, seconds, tail


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="test files (default: every tests/**/test_*.py)")
    parser.add_argument("--threads", type=lambda text: [int(n) for n in text.split(",")], default=[1, 2, 4],
                        help="torch thread counts, comma-separated (default 1,2,4)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--slow", action="store_true", help="run the slow tests too")
    args = parser.parse_args(argv)
    work = [(m, n) for n in args.threads for m in modules(args.modules)]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for module, threads, counts, seconds, tail in pool.map(lambda w: run(*w, args.slow), work):
            said = ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "nothing collected"
            print(f"OMP_NUM_THREADS={threads} {module}: {said} in {seconds:.0f} s", flush=True)
            if tail:
                failed.append((module, threads, tail))
    for module, threads, tail in failed:
        print(f"\n--- {module} at {threads} thread(s) ---\n{tail}")
    print(f"\n{len(work) - len(failed)} of {len(work)} runs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
