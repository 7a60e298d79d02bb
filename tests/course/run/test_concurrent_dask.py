"""Two `grade --executor dask` runs at once on one machine (issue 22): each on its own LocalCluster of
two worker processes, with its own TMPDIR (the workers inherit it) and workspace, grading the same
students; both grades-by-notebook.csv must be byte for byte the serial run's. A third run into a
workspace being graded refuses at once, in one sentence, and writes nothing there.

Two clusters on two cores are slow, so the batch is the smallest that shows it: notebook 01, two
students of the small batch (a full and a partial score)."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from maskdiff_solutions.course.ledger import safekeeping
from maskdiff_solutions.course.records.rows import CSV_NAME

pytestmark = [pytest.mark.course, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[3]
TWO = ("reference", "buggy")
# A grader with its own two-worker LocalCluster: prints the scheduler's address and the workers'
# temporary folder, then runs the command line with --executor dask on it.
GRADER = '''
import os, sys, tempfile
from distributed import Client, LocalCluster
from maskdiff_solutions.course import cli

if __name__ == "__main__":
    threads = {name: os.environ.get(name) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \\
            Client(cluster) as client:
        for name, value in threads.items():  # the nanny set them to 1 here: kernels get the grader's own
            os.environ.pop(name, None) if value is None else os.environ.__setitem__(name, value)
        print(cluster.scheduler_address, flush=True)
        print(sorted(set(client.run(tempfile.gettempdir).values())), flush=True)
        status = cli.main(sys.argv[1:] + ["--executor", "dask", "--scheduler", cluster.scheduler_address])
    sys.exit(status)
'''


def start(script, course, batch, tmp_path, name):
    (tmp_path / f"tmp-{name}").mkdir()
    return subprocess.Popen([sys.executable, str(script), "--course-dir", str(course.root), "grade", str(batch),
                             "--workspace", str(tmp_path / name), "--notebook", "01", "--no-canary"],
                            env={**os.environ, "TMPDIR": str(tmp_path / f"tmp-{name}")}, stdout=subprocess.PIPE,
                            stderr=open(tmp_path / f"{name}.log", "w"), text=True)


def wait_for_lock(workspace, process, seconds=300):
    lock = workspace / safekeeping.NAME
    deadline = time.monotonic() + seconds
    while not (lock.is_file() and lock.read_text().strip()):
        assert process.poll() is None and time.monotonic() < deadline, "the first grader never took its workspace"
        time.sleep(0.2)


def test_two_dask_graders_at_once_give_what_one_alone_gives(course, small_batch, small_serial, tmp_path):
    pytest.importorskip("distributed")
    batch = tmp_path / "collected"
    for student in TWO:
        shutil.copytree(small_batch / student, batch / student, symlinks=True)
    script = tmp_path / "grader.py"
    script.write_text(GRADER)
    runs = {name: start(script, course, batch, tmp_path, name) for name in ("one", "two")}
    addresses = {name: run.stdout.readline().strip() for name, run in runs.items()}
    for name, run in runs.items():
        assert run.stdout.readline().strip() == repr([str(tmp_path / f"tmp-{name}")]), (tmp_path / f"{name}.log").read_text()[-2000:]

    wait_for_lock(tmp_path / "one", runs["one"])
    third = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root), "grade",
                            str(batch), "--workspace", str(tmp_path / "one"), "--notebook", "01", "--no-canary",
                            "--executor", "dask", "--scheduler", addresses["one"]],
                           capture_output=True, text=True, timeout=300)
    assert third.returncode == 2, third.stderr[-2000:]
    assert f"another grading run (process {runs['one'].pid}) is writing into {tmp_path / 'one'}" in third.stderr

    for name, run in runs.items():
        run.stdout.read()
        assert run.wait(timeout=1200) == 0, (tmp_path / f"{name}.log").read_text()[-3000:]
    alone = (small_serial[0] / CSV_NAME).read_bytes().splitlines(keepends=True)
    expected = b"".join(alone[:1] + [line for line in alone[1:] if line.split(b",")[0].decode() in TWO])
    listing = {name: sorted(str(p.relative_to(tmp_path / name)) for p in (tmp_path / name).rglob("*"))
               for name in runs}
    assert listing["one"] == listing["two"]   # the refused run left nothing behind
    for name in runs:
        assert (tmp_path / name / CSV_NAME).read_bytes() == expected, name
