"""Grading on a Dask cluster (course/run/cluster.py, course/run/job.py) and regrading only what changed
(course/run/rerun.py): the same results as a serial run, byte for byte, even when a worker dies mid-batch.

One cluster run serves the Dask tests (CI time): a LocalCluster of two worker processes grades the
small batch (notebook 01, a broken file and a missing notebook among the students) while the test
kills the worker that is grading a student, and the scheduler is told to give up on a task at its
first lost worker, so that our own retry brings the student back."""
import contextlib
import io
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.run import job, rerun
from maskdiff_solutions.course.intake import folder as student_folder
from maskdiff_solutions.course.run import student as one_student
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.records.rows import CSV_NAME

from tests.support.gradings import assert_same_grading

pytestmark = [pytest.mark.course, pytest.mark.xdist_group("gradings")]  # dask_graded beside small_serial


def _executing(dask_worker):
    return os.getpid(), sorted(str(ts.key) for ts in dask_worker.state.executing)


def _kill_a_worker_mid_student(client, done):
    """SIGKILL the process of a worker that has been grading the same student for 1.5 s; the key of
    that student's task, or None if the batch ended first."""
    while not done.is_set():
        busy = {addr: value for addr, value in client.run(_executing).items() if value[1]}
        if busy:
            addr, (pid, keys) = sorted(busy.items())[0]
            time.sleep(1.5)  # a kernel student takes several seconds (its imports, its kernel)
            try:
                still = client.run(_executing, workers=[addr])[addr]
            except Exception:  # noqa: BLE001 - it went away by itself
                continue
            if still[0] == pid and set(keys) & set(still[1]):
                os.kill(pid, signal.SIGKILL)
                return sorted(set(keys) & set(still[1]))[0]
        time.sleep(0.2)
    return None


@pytest.fixture(scope="module")
def dask_graded(course, small_batch, tmp_path_factory):
    """(workspace, report, key of the task whose worker was killed, what grading said on stderr)."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    workspace = tmp_path_factory.mktemp("dask")
    # a LocalCluster's nanny sets OMP_NUM_THREADS and co. to 1 in this process too: undone afterwards
    with job.environment({name: os.environ.get(name) for name in job.THREADS}), \
            dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        done, out, said = threading.Event(), {}, io.StringIO()

        def run():
            try:
                with contextlib.redirect_stderr(said):
                    out["report"] = grade(course, small_batch, workspace, progress=False, notebooks=["01"],
                                          executor="dask", scheduler=cluster.scheduler_address, retries=2, canary=False)
            except BaseException as err:  # noqa: BLE001 - shown by the test
                out["error"] = err
            finally:
                done.set()

        thread = threading.Thread(target=run)
        thread.start()
        killed = _kill_a_worker_mid_student(client, done)
        thread.join()
    if "error" in out:
        raise out["error"]
    return workspace, out["report"], killed, said.getvalue()


def test_a_dask_cluster_grades_exactly_as_one_job(small_serial, dask_graded):
    assert_same_grading(*small_serial, *dask_graded[:2])


def test_a_worker_killed_mid_batch_loses_no_student(small_serial, dask_graded):
    workspace, report, killed, said = dask_graded
    assert killed, "the batch ended before a worker could be killed"
    student = killed.rsplit("-", 2)[0].removeprefix("grade-")
    assert f"{student}: no result from the cluster (KilledWorker" in said  # our retry, not Dask's
    assert [vars(r) for r in report.rows if r.student == student] == \
           [vars(r) for r in small_serial[1].rows if r.student == student]
    assert {r.student for r in report.rows} == {r.student for r in small_serial[1].rows}
    assert not [r for r in report.rows if "crashed" in r.reason]


def test_a_submission_travels_as_it_is_seen(tmp_path):
    """Files, links (never followed), other entries, modification times, and files grading never
    reads (kept as their size) come out on the other side as grading sees them."""
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "01.ipynb").write_text("{}")
    os.utime(folder / "01.ipynb", ns=(1_000_000_000, 1_000_000_000))
    (folder / "sub" / "data.txt").write_bytes(b"x" * 10)
    (folder / "secret").symlink_to("/etc/shadow")
    os.mkfifo(folder / "pipe")
    (folder / "zz").mkdir()  # walked last: past the budget, and so is all that follows it
    with open(folder / "zz" / "big.bin", "wb") as handle:
        handle.truncate(student_folder.MAX_EXTRA_BYTES + 1)
    job.unpack_submission(job.pack_submission(folder), tmp_path / "out")
    seen = lambda root: [(str(p.relative_to(root)), regular, regular and p.stat().st_size)  # noqa: E731
                         for p, regular in student_folder.submitted_entries(root)]
    assert seen(tmp_path / "out") == seen(folder)
    assert os.readlink(tmp_path / "out" / "secret") == "/etc/shadow"
    assert (tmp_path / "out" / "01.ipynb").stat().st_mtime_ns == 1_000_000_000
    assert (tmp_path / "out" / "sub" / "data.txt").read_bytes() == b"x" * 10
    big = [e for e in job.pack_submission(folder) if e.path == "zz/big.bin"][0]
    assert big.kind == "placeholder" and not big.data
    assert student_folder.copy_extras(tmp_path / "out", tmp_path / "copy") == \
        student_folder.copy_extras(folder, tmp_path / "copy2")
    assert job.submission_hash(tmp_path / "out") == job.submission_hash(folder)
    before = job.submission_hash(folder)
    (folder / "sub" / "data.txt").write_bytes(b"y" * 10)
    assert job.submission_hash(folder) != before


def test_a_student_past_the_timeout_fails_saying_so(course, tmp_path, monkeypatch):
    monkeypatch.setattr(one_student, "grade_student", lambda task: time.sleep(2))
    bundle = job.course_bundle(course, course.root / "nbgrader_config.py")  # any bytes as template
    outcome = job.run_job(job.Job("slow", [], "off", {}, course.notebooks()[:1], timeout=0.2), bundle)
    assert [(r.student, r.status) for r in outcome.result.rows] == [("slow", "failed")]
    assert "per-student limit of 0.2 s" in outcome.result.rows[0].reason
    assert not job._GRADING.acquire(blocking=False)  # no one else is graded here until it ends
    assert job._GRADING.acquire(timeout=30)
    job._GRADING.release()


def test_dask_needs_a_scheduler(course, tmp_path, capsys):
    (tmp_path / "collected").mkdir()
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path / "ws"), "--executor", "dask"])
    assert status == 2 and "--scheduler" in capsys.readouterr().err
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path / "ws"), "--timeout", "60"])
    assert status == 2 and "--timeout are for --executor dask" in capsys.readouterr().err


def test_only_changed_regrades_only_changed_students(course, small_batch, small_serial, tmp_path, monkeypatch):
    """A rerun into the same workspace grades the one student whose submission changed; the others
    keep their rows (CSV bytes included)."""
    workspace = tmp_path / "ws"
    shutil.copytree(small_serial[0], workspace)
    batch = tmp_path / "collected"
    shutil.copytree(small_batch, batch, symlinks=True)
    (batch / "nothing" / course.notebooks()[0]).write_text("{ not json")
    graded, real = [], one_student.grade_student
    monkeypatch.setattr(one_student, "grade_student", lambda task: graded.append(task.student) or real(task))
    report = grade(course, batch, workspace, progress=False, notebooks=["01"], only_changed=True, canary=False)
    assert graded == ["nothing"]
    before = (small_serial[0] / CSV_NAME).read_text().splitlines()
    after = (workspace / CSV_NAME).read_text().splitlines()
    assert [line for line in after if not line.startswith("nothing,")] == \
           [line for line in before if not line.startswith("nothing,")]
    assert [r.status for r in report.rows if r.student == "nothing"] == ["failed"]
    assert report.tests == small_serial[1].tests


def test_the_rerun_state_follows_every_input(course, monkeypatch):
    first = rerun.inputs_hash(course, ["01"], "auto", {})
    assert rerun.inputs_hash(course, ["01", "02"], "auto", {}) != first
    assert rerun.inputs_hash(course, ["01"], "off", {}) != first
    monkeypatch.setenv("MASKDIFF_GRADING_SEED", "7")
    assert rerun.inputs_hash(course, ["01"], "auto", {}) != first


def test_the_readme_states_the_cluster_defaults():
    root = Path(cli.__file__).resolve().parents[2]
    from tests.support.docs import page
    readme = page("grading-at-scale.md")
    defaults = cli.parser().parse_args(["grade", "x"])
    assert defaults.executor == "local" and defaults.retries == 2 and defaults.timeout == 0
    assert "`--retries N` (default 2)" in readme and "`--timeout SECONDS` (default none)" in readme
    assert 'pip install "dask[distributed]"' in readme
    assert any(line.startswith("dask[distributed]") for line in
               (root / "requirements.txt").read_text().splitlines())


def test_kernels_on_a_worker_get_the_graders_thread_settings(course, monkeypatch):
    """Dask's nanny sets OMP_NUM_THREADS=1 in its workers; a job brings the main process's values."""
    seen = {}
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # as on a Dask worker
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    monkeypatch.setattr(one_student, "grade_student", lambda task: seen.update(
        {name: os.environ.get(name) for name in job.THREADS}))
    bundle = job.course_bundle(course, course.root / "nbgrader_config.py")
    environ = {"OMP_NUM_THREADS": None, "MKL_NUM_THREADS": "3", "OPENBLAS_NUM_THREADS": None}
    job.run_job(job.Job("a", [], "off", {}, course.notebooks()[:1], environ=environ), bundle)
    assert seen == environ and os.environ["OMP_NUM_THREADS"] == "1" and "MKL_NUM_THREADS" not in os.environ
