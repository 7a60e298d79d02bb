"""Seconds to build notebook 03's offline stand-ins and notebook 06's stand-in scorer from nothing, against
the 30 s a notebook cell may take.

    python benchmarks/stand_in.py [--runs 2]

Each run builds each kind in a fresh cache folder (the cache is what makes every later load free), and
the load average is printed beside the times: on a shared machine an absolute time means little alone.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package
from maskdiff_solutions import corpus, models, scorer  # noqa: E402

CELL_LIMIT = 30.0  # seconds: nbgrader's cell timeout in nbgrader_config.py


def build_seconds(kind):
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        if kind == "scorer":   # notebook 06, as under the grader: on the stand-in stories
            scorer.LoadScorer(corpus.StandInStories(), offline=True, cache=cache)
        else:
            models.StandIn(kind, Path(cache))
        return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    runs = parser.parse_args().runs
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for kind in ("bert", "qwen", "scorer"):
        seconds = [build_seconds(kind) for _ in range(runs)]
        print(f"{kind}: {', '.join(f'{s:.1f}' for s in seconds)} s per build "
              f"(best {min(seconds) / CELL_LIMIT:.0%} of a {CELL_LIMIT:.0f} s cell)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
