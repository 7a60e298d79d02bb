"""The command line as a new instructor meets it: it finds (or refuses) its course root, takes
--course-dir anywhere, stops on bad settings before grading anyone, and works from an unactivated venv
beside plain nbgrader commands that raise no config warnings."""
import os
import shutil
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.ledger import record
from maskdiff_solutions.course.records.rows import CSV_NAME, Row
from tests.support.roots import fake_course
from tests.support.venvs import make_venv

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[2]


# --- the course root, and settings checked before any work ----------------------------------


def test_the_cli_refuses_to_run_outside_a_course_root(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["grade", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"no course root in {tmp_path.resolve()} or any folder above it" in err and "--course-dir" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("argv", [
    ["--course-dir", "X", "grade", "d"], ["grade", "d", "--course-dir", "X"], ["grade", "--course-dir", "X", "d"],
    ["publish", "d", "--course-dir", "X"], ["export", "--course-dir", "X"], ["release", "--course-dir", "X"],
])
def test_course_dir_is_accepted_anywhere_on_the_line(argv):
    assert cli.parser().parse_args(argv).course_dir == "X"


def test_a_bad_grading_seed_stops_the_command_before_anyone_is_graded(course, tmp_path, monkeypatch, capsys):
    (tmp_path / "collected" / "a").mkdir(parents=True)
    shutil.copy(course.release_dir / course.notebooks()[0], tmp_path / "collected" / "a")
    monkeypatch.setenv("MASKDIFF_GRADING_SEED", "twelve")
    status = cli.main(["grade", str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"),
                       "--course-dir", str(course.root)])
    assert status == 2 and "MASKDIFF_GRADING_SEED must be an integer, got 'twelve'" in capsys.readouterr().err
    assert not (tmp_path / "ws").exists()


def test_a_bad_written_answers_setting_stops_the_command_before_anyone_is_graded(course, tmp_path, capsys):
    root = fake_course(tmp_path / "course", 'written_answers = "sometimes"\n')
    (tmp_path / "collected" / "a").mkdir(parents=True)
    shutil.copy(course.release_dir / course.notebooks()[0], tmp_path / "collected" / "a")
    status = cli.main(["grade", str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"),
                       "--course-dir", str(root)])
    err = capsys.readouterr().err
    assert status == 2 and "[tool.maskdiff] written_answers = 'sometimes' is not \"graded\"" in err, err
    assert not (tmp_path / "ws").exists()


def test_bad_sandbox_limits_stop_the_command_before_anyone_is_graded(course, tmp_path, monkeypatch, capsys):
    (tmp_path / "collected").mkdir()
    monkeypatch.setenv("MASKDIFF_SANDBOX_LIMITS", '{"memory": 1}')
    status = cli.main(["grade", str(tmp_path / "collected"), "--workspace", str(tmp_path / "ws"),
                       "--course-dir", str(course.root)])
    assert status == 2 and "unknown sandbox limit 'memory'" in capsys.readouterr().err


# --- nbgrader: its environment and its errors ------------------------------------------------------


@pytest.mark.slow
def test_the_cli_works_from_an_unactivated_venv(course, tmp_path):
    """`venv/bin/python -m maskdiff_solutions grade ...` with nothing of the venv on PATH: nbgrader's
    `alembic` is found beside the interpreter. Without it, the error says what is missing."""
    venv = tmp_path / "venv"
    make_venv(venv)
    alembic = Path(sys.executable).parent / "alembic"
    alembic = alembic if alembic.is_file() else Path(shutil.which("alembic"))
    (venv / "bin" / "alembic").symlink_to(alembic.resolve())
    (tmp_path / "collected" / "a").mkdir(parents=True)
    env = {"HOME": os.environ.get("HOME", str(tmp_path)), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    argv = [str(venv / "bin" / "python"), "-m", "maskdiff_solutions", "grade", str(tmp_path / "collected"),
            "--workspace", str(tmp_path / "ws"), "--notebook", "01", "--course-dir", str(course.root), "--no-canary"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "ws" / CSV_NAME).read_text().count("\n") == 2  # header and a's missing row
    (venv / "bin" / "alembic").unlink()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 2 and "`alembic`" in done.stderr and str(venv / "bin") in done.stderr


@pytest.mark.slow
def test_plain_nbgrader_commands_warn_about_no_setting(course, tmp_path):
    done = subprocess.run(["nbgrader", "db", "assignment", "list",
                           f"--CourseDirectory.db_url=sqlite:///{tmp_path / 'gradebook.db'}"],
                          cwd=course.root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "not recognized" not in done.stderr + done.stdout, done.stderr


def test_grade_exits_0_when_every_student_got_a_row_and_1_when_grading_crashed(course, tmp_path, monkeypatch, capsys):
    """A broken file is the student's problem, not the grader's: exit 0. A crash of the grading itself
    (here: grade_student raising) is the grader's: exit 1, naming the students."""
    from maskdiff_solutions.course.run import student
    (tmp_path / "collected" / "kim").mkdir(parents=True)
    (tmp_path / "collected" / "kim" / "01_noise_for_words.ipynb").write_text('{"cells": [ broken')
    argv = ["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--notebook", "01",
            "--no-canary", "--sandbox", "off"]
    assert cli.main(argv + ["--workspace", str(tmp_path / "a")]) == 0
    said = capsys.readouterr()
    assert "kim" in said.out and "failed" in said.out and "grading 1 student from" in said.err and "sandbox: OFF" in said.err
    monkeypatch.setattr(student, "grade_student", lambda task: (_ for _ in ()).throw(OSError("disk gone")))
    assert cli.main(argv + ["--workspace", str(tmp_path / "b")]) == 1
    assert "grading itself crashed for 1 student(s) (kim)" in capsys.readouterr().err


# --- export: which workspace, and stopping before it writes ----------------------------------


def test_export_in_a_workspace_folder_names_the_workspace_to_export(tmp_path, monkeypatch, capsys):
    """An instructor in COURSE/grading/week1 types `export`: the course root holds no grading, this
    folder does; the error says how to export it (from the folder, and from the course root)."""
    root = fake_course(tmp_path / "course", "")
    week1 = root / "grading" / "week1"
    week1.mkdir(parents=True)
    with closing(record.connect(week1 / record.DB_NAME)) as con:   # the record of a grading
        record.put_result(con, Row("ann", "01_noise_for_words", "missing"))
    monkeypatch.chdir(week1)
    assert cli.main(["export"]) == 2
    err = capsys.readouterr().err
    assert f"no grading in {root.resolve()} (the course root" in err
    assert f"export with `python -m maskdiff_solutions export --workspace {week1.resolve()}`" in err
    monkeypatch.chdir(root)
    assert cli.main(["export"]) == 2
    assert "export with `python -m maskdiff_solutions export --workspace grading/week1`" in capsys.readouterr().err


def snapshot(folder):
    """Every file, its bytes and when it was last written, but the lock's note of who held it last."""
    import hashlib
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".grading.lock"}


@pytest.mark.slow   # a Canvas grading (no kernel: nobody handed in a notebook), then the export
def test_an_export_that_exits_2_has_written_nothing(course, tmp_path, capsys):
    """`export --to moodle` of a Canvas grading stops (status 2: "stopped before doing anything") with
    the grades file, gradebook and feedback pages as they were, to the byte and the time."""
    from tests.support import exports
    _, roster = exports.canvas(course, tmp_path)
    export = exports.write_zip(tmp_path / "week1.zip", {"nunezzoe_6161_1003_homework.pdf": b"%PDF-1.4",
                                                        "doejane_4242_1001_notes.txt": b"see attached"})
    workspace = tmp_path / "ws"
    base = ["--course-dir", str(course.root)]
    assert cli.main([*base, "grade", str(export), "--roster", str(roster), "--workspace", str(workspace),
                     "--notebook", "01", "--no-canary", "--sandbox", "off"]) == 0
    before = snapshot(workspace)
    assert {CSV_NAME, "gradebook.db", "grades-by-student.csv"} <= set(before) and any(
        name.startswith("feedback/") for name in before)
    capsys.readouterr()
    assert cli.main([*base, "export", "--workspace", str(workspace), "--to", "moodle"]) == 2
    assert "was taken in from canvas: `export --to moodle` needs the ids moodle wrote" in capsys.readouterr().err
    assert snapshot(workspace) == before
