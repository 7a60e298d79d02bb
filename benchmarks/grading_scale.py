"""Per-student overhead of grading on a Dask cluster against the local process pool, on the same batch
in one run (issue 16; goal: at most 5 % per student).

The batch: --students copies of the reference submission plus the awkward cases' broken and empty
students, graded on --notebook (default 01) by `--jobs W` local processes and by a Dask LocalCluster
of W single-thread worker processes (started before the clock starts, as an instructor's cluster
is; not warmed: each worker imports the course on its first student, as each local process does).
The two ways alternate --rounds times, so that a change in the machine's load hits both. Each
round also grades a batch of two students who handed in nothing (no kernel runs): the fixed cost of
a grading (release check, process start and imports, connecting), so that the per-student cost is
shown both as wall / students and as (wall - fixed) / (students - 2). Also shows the data one
student's job carries each way. A LocalCluster's nanny sets OMP_NUM_THREADS (and MKL, OpenBLAS) to 1
in this process as well, so both ways grade with one thread per kernel here.

    python benchmarks/grading_scale.py [--students 8] [--workers 2] [--rounds 2] [--notebook 01]
"""
import argparse
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, installed or not
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # workers too
from maskdiff_solutions.course.run import job  # noqa: E402
from tests.support import cases  # noqa: E402
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.records.rows import CSV_NAME  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402


def batch(course, folder, students):
    awkward = folder / "awkward"
    cases.build(course, awkward)
    for index in range(students):
        shutil.copytree(awkward / "reference", folder / "batch" / f"student{index:03d}")
    for name in ("broken", "nothing"):
        shutil.copytree(awkward / name, folder / "batch" / name, symlinks=True)
    for name in ("empty1", "empty2"):
        (folder / "fixed" / name).mkdir(parents=True)
    return folder / "batch", folder / "fixed"


def timed(**kwargs):
    started = time.perf_counter()
    grade(progress=False, **kwargs)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=8, help="reference submissions (default 8)")
    parser.add_argument("--workers", type=int, default=2, help="local jobs = Dask workers (default 2)")
    parser.add_argument("--rounds", type=int, default=2, help="times each way grades the batch (default 2)")
    parser.add_argument("--notebook", default="01", help="notebook graded (default 01)")
    args = parser.parse_args()
    from distributed import LocalCluster
    course = Course.load(ROOT)
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        submissions, empty = batch(course, scratch, args.students)
        n = len(list(submissions.iterdir()))
        print(f"{n} students ({args.students} reference, one broken file, one with nothing), notebook "
              f"{args.notebook}, {args.workers} local jobs / {args.workers} Dask workers, {args.rounds} rounds")
        common = dict(course=course, notebooks=[args.notebook])
        figures = {"local": [], "dask": []}
        fixed = {"local": [], "dask": []}
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            ways = {"local": dict(jobs=args.workers),
                    "dask": dict(executor="dask", scheduler=cluster.scheduler_address)}
            for round_ in range(args.rounds):
                for way, settings in ways.items():
                    figures[way].append(timed(workspace=scratch / f"{way}{round_}", submissions=submissions,
                                              **settings, **common))
                    fixed[way].append(timed(workspace=scratch / f"{way}-fixed{round_}", submissions=empty,
                                            **settings, **common))
                local, dask = scratch / f"local{round_}", scratch / f"dask{round_}"
                same = (local / CSV_NAME).read_bytes() == (dask / CSV_NAME).read_bytes()
                print(f"round {round_ + 1}: local {figures['local'][-1]:.1f} s (fixed {fixed['local'][-1]:.1f} s), "
                      f"dask {figures['dask'][-1]:.1f} s (fixed {fixed['dask'][-1]:.1f} s), grades identical: {same}")
        local, dask = statistics.mean(figures["local"]), statistics.mean(figures["dask"])
        print(f"per student, wall / students: local pool {local / n:.2f} s, Dask {dask / n:.2f} s "
              f"(mean of {args.rounds}); overhead {100 * (dask - local) / local:+.1f} % (goal <= 5 %)")
        local_m = (local - statistics.mean(fixed["local"])) / (n - 2)
        dask_m = (dask - statistics.mean(fixed["dask"])) / (n - 2)
        print(f"per student, (wall - fixed) / (students - 2): local pool {local_m:.2f} s, Dask {dask_m:.2f} s; "
              f"overhead {100 * (dask_m - local_m) / local_m:+.1f} % (goal <= 5 %)")
        sent = len(pickle.dumps(job.Job("x", job.pack_submission(submissions / "student000"), "auto", {},
                                        [args.notebook])))
        bundle = len(pickle.dumps(job.course_bundle(course, scratch / "dask0" / "gradebook.db")))
        back = sum(p.stat().st_size for top in ("autograded", "feedback", "submitted")
                   for p in (scratch / "dask0" / top / "student000").rglob("*") if p.is_file())
        print(f"data per student: {sent / 1024:.0f} KiB in, about {back / 1024:.0f} KiB of files out plus its "
              f"gradebook copy; the course bundle, sent once per worker: {bundle / 1024:.0f} KiB")
    print("load after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
