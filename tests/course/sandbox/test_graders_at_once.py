"""Graders sharing a machine: uid leases and cgroup names that hold across processes, users and
TMPDIRs (course/sandbox/settings.py), one run per workspace (course/ledger/safekeeping.py), two graders at once
giving what one alone gives, a Python reached through a symbolic link, and the canary
(course/run/canary.py) stopping a broken setup before anyone is graded."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.ledger import safekeeping
from maskdiff_solutions.course.run import canary
from maskdiff_solutions.course.sandbox import leases, settings
from maskdiff_solutions.course.records.rows import CSV_NAME, Row, StudentResult
from tests.support.roots import with_nbgrader_lines
from tests.support.venvs import make_venv

ROOT = Path(__file__).resolve().parents[3]
TWO = ("reference", "buggy")   # of the small batch: a full and a partial score
root_only = pytest.mark.skipif(os.geteuid() != 0, reason="uid leases are taken by root graders only")
FAR = settings.UIDS.start + 200  # uids no other test's grader leases first


def needs_sandbox():
    works, why = settings.available()
    if not works:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to sandbox (.ci/setup installs bubblewrap): {why}")
        pytest.skip(why)


def run_as(uid, *argv):
    return subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv])


@root_only
def test_a_lease_holds_for_the_machine_whatever_the_tmpdir(monkeypatch, tmp_path):
    first = leases.Lease(FAR)
    try:
        monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # another job's TMPDIR
        second = leases.Lease(FAR)
        assert second.uid != first.uid and leases.Lease.folder == Path("/run/maskdiff/uids")
        second.release()
    finally:
        first.release()


@root_only
def test_a_uid_someone_else_runs_is_skipped_and_left_alone():
    stranger = run_as(FAR, "sleep", "60")
    try:
        time.sleep(0.3)
        lease = leases.Lease(FAR)
        lease.release()
        assert lease.uid != FAR and stranger.poll() is None  # not ours: never killed
    finally:
        stranger.kill()
        stranger.wait()


@root_only
def test_the_orphans_of_a_crashed_grader_are_cleaned_up():
    holder = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        "from maskdiff_solutions.course.sandbox import leases\n"
        f"lease = leases.Lease({FAR + 10})\n"
        "subprocess.Popen(['setpriv', f'--reuid={lease.uid}', f'--regid={lease.uid}', '--clear-groups', "
        "'sleep', '60'], start_new_session=True)\n"
        "print(lease.uid, flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    uid = int(holder.stdout.readline())
    holder.send_signal(signal.SIGKILL)  # the grader crashes; its kernel's process lives on
    holder.wait()
    assert leases._pids_of_user(uid)
    lease = leases.Lease(uid)
    try:
        assert lease.uid == uid and not leases._pids_of_user(uid)
    finally:
        lease.release()


def test_cgroup_names_are_unique_on_the_machine():
    assert leases.cgroup_name(61003) == "maskdiff-uid61003"   # the uid's lease makes it ours alone
    assert leases.cgroup_name() != leases.cgroup_name()


def test_a_second_run_on_the_same_workspace_refuses_and_writes_nothing(course, tmp_path, capsys):
    (tmp_path / "collected" / "a").mkdir(parents=True)
    (tmp_path / "ws").mkdir()
    with safekeeping.hold(tmp_path / "ws"):
        status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                           "--workspace", str(tmp_path / "ws")])
        err = capsys.readouterr().err
        assert status == 2 and f"another grading run (process {os.getpid()}) is writing into" in err, err
        assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == [safekeeping.NAME]
    with safekeeping.hold(tmp_path / "ws"):  # released: the next run may go
        pass


def test_export_does_not_rewrite_a_workspace_being_graded(course, tmp_path):
    from maskdiff_solutions.course.ledger.export import export
    (tmp_path / CSV_NAME).write_text("")
    (tmp_path / "gradebook.db").write_text("")
    with safekeeping.hold(tmp_path), pytest.raises(safekeeping.WorkspaceBusy, match="another grading run"):
        export(course, tmp_path)


def result(student, status="graded", score=3.0, best=3.0, reason=""):
    return student, StudentResult(student, [Row(student, "01_noise_for_words", status, score, best, reason=reason)])


def test_the_canary_holds_everyone_back_until_it_passes():
    passed = list(canary.gate(iter([result("a"), result(canary.STUDENT), result("b")])))
    assert [student for student, _ in passed] == ["a", "b"]
    with pytest.raises(canary.CanaryFailed, match=r"01_noise_for_words got 1 / 3 here \(the kernel died\), so this "
                                                  r"grading setup is broken and nobody was graded"):
        list(canary.gate(iter([result("a"), result(canary.STUDENT, score=1.0, reason="the kernel died")])))


def test_the_canary_proves_colabs_stack_imports_and_names_a_missing_module(course, tmp_path):
    """The canary's first drawing cell of a notebook imports every module the grader installs for
    students' cells; one the sandbox lacks sends that drawing to review, so the canary stops grading and
    names it."""
    from maskdiff_solutions import colab
    folder = canary.submission(course, tmp_path, ["01_noise_for_words.ipynb", "03_real_language_model.ipynb"])
    first = notebooks.read(folder / "01_noise_for_words.ipynb")
    drawings = [c for c in first.cells if str(notebooks.grade_id(c) or "").startswith("plot_")]
    assert all(repr(name) in drawings[0].source for name in colab.installed())
    assert not any("find_spec" in c.source for c in drawings[1:])
    # where one cannot be found, the cell stops as its import would
    proof = drawings[0].source[:drawings[0].source.index("\n", drawings[0].source.index("raise"))]
    with pytest.raises(ModuleNotFoundError) as stopped:
        exec(proof.replace(repr(colab.installed()), repr(["no_such_module_of_colab"])), {})
    assert stopped.value.name == "no_such_module_of_colab"
    lacking = "test_plot_schedule: " + colab.sentence("plotly")
    with pytest.raises(canary.CanaryFailed, match=r"the grader lacks plotly, which Colab has"):
        list(canary.gate(iter([result(canary.STUDENT, score=2.0, reason=lacking)])))


@pytest.mark.slow
@pytest.mark.course
def test_two_graders_at_once_with_their_own_tmpdirs_give_what_one_alone_gives(course, small_batch,
                                                                              small_serial, tmp_path):
    """Each grader loads the machine for the other (two cores); the one alone is the serial grading."""
    batch = tmp_path / "collected"
    for student in TWO:
        shutil.copytree(small_batch / student, batch / student)
    runs = []
    for name in ("one", "two"):
        (tmp_path / f"tmp-{name}").mkdir()
        runs.append(subprocess.Popen(
            [sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root), "grade", str(batch),
             "--workspace", str(tmp_path / name), "--notebook", "01", "--no-canary"],
            env={**os.environ, "TMPDIR": str(tmp_path / f"tmp-{name}")}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True))
    outs = [run.communicate(timeout=1200) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err[-2000:] for _, err in outs]
    alone = (small_serial[0] / CSV_NAME).read_bytes().splitlines(keepends=True)
    expected = b"".join(alone[:1] + [line for line in alone[1:] if line.split(b",")[0].decode() in TWO])
    for name in ("one", "two"):
        assert (tmp_path / name / CSV_NAME).read_bytes() == expected


def grade_command(python, course, tmp_path, *extra, env=None):
    return subprocess.run([str(python), "-m", "maskdiff_solutions", "--course-dir", str(course.root), "grade",
                           str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"), "--notebook", "01",
                           "--sandbox", "required", *extra], capture_output=True, text=True, timeout=900,
                          env={**os.environ, **(env or {})})


@pytest.mark.slow
@pytest.mark.course
def test_a_python_reached_through_a_symbolic_link_grades_right(course, small_batch, tmp_path):
    needs_sandbox()
    shutil.copytree(small_batch / "reference", tmp_path / "collected" / "reference")
    make_venv(tmp_path / "data" / "course")
    (tmp_path / "envs").symlink_to(tmp_path / "data")
    done = grade_command(tmp_path / "envs" / "course" / "bin" / "python", course, tmp_path, "--no-canary")
    assert done.returncode == 0, done.stderr[-3000:]
    row = (tmp_path / "ws" / CSV_NAME).read_text().splitlines()[1].split(",")
    assert row[:3] == ["reference", "01_noise_for_words", "graded"] and row[3] == row[4], row


@pytest.mark.slow
@pytest.mark.course
def test_a_broken_sandbox_stops_grading_before_any_student(course, small_batch, tmp_path):
    needs_sandbox()
    shutil.copytree(small_batch / "reference", tmp_path / "collected" / "reference")
    # a kernel that never starts is given up after 10 s here, not nbgrader's 60: the stop is what counts
    quick = with_nbgrader_lines(course, tmp_path / "course", ["c.Execute.startup_timeout = 10"],
                                "a kernel that cannot start is given up sooner (test_graders_at_once.py)")
    # 64 MiB of address space, with a cgroup or without: no Python kernel can start in it
    done = grade_command(sys.executable, quick, tmp_path, env={
        settings.LIMITS_VARIABLE: '{"address_space_mb": 64, "address_space_capped_mb": 64}'})
    assert done.returncode == 2, done.stderr[-3000:]
    assert "error: the reference solution of 01_noise_for_words got 0 /" in done.stderr, done.stderr[-3000:]
    assert "nobody was graded" in done.stderr
    assert not (tmp_path / "ws" / CSV_NAME).exists() and not (tmp_path / "ws" / "autograded").exists()
