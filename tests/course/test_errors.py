"""What the machine refuses, as an instructor meets it: a full disk, a read-only copy, a folder they may
not write, a mistyped folder. Every command says it in one sentence that names the path and the way on
(course/errors.py): no traceback, no bare `[Errno N]`, no Python list; and what it makes (release/, the
students' folder, the autograder zip) is whole or left as it was, never half-written without a word.

The full and read-only disks are real: a small tmpfs and a read-only mount in a mount namespace of their
own (root only: `unshare`); the permission is real too (a folder of mode 555, with root's power to
ignore it dropped by `setpriv`, or as an ordinary user: .ci/unprivileged runs this file again as one)."""
import errno
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli, errors
from maskdiff_solutions.course.layout import Course
from tests.support import classes, records

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[2]
NB01 = classes.NB01
ROOTED = os.geteuid() == 0


def one_sentence(stderr, *words):
    """The error line of stderr: one, `error: ` and a sentence with `words` in it, and nothing the
    machine says in its own terms."""
    lines = records.error_lines(stderr)
    assert len(lines) == 1, stderr
    line = lines[0]
    assert "Traceback" not in stderr and "[Errno" not in stderr, stderr
    assert not re.search(r"\[\(|\['|\('|\[\d+\]", line), line   # a Python list or tuple, an errno alone
    for word in words:
        assert word in line, (word, line)
    return line


# ------------------------------------------------------------------ every refusal of the machine


CLASS_OF_ERRORS = [   # (the error, words its sentence must hold: the problem, the path, the way on)
    (OSError(errno.ENOSPC, "No space left on device", "/srv/ws/gradebook.db"), ["no space left", "/srv/ws", "free"]),
    (OSError(errno.EDQUOT, "Disk quota exceeded", "/home/t/ws/x"), ["quota", "/home/t/ws/x", "free"]),
    (OSError(errno.EFBIG, "File too large", "/srv/a.zip"), ["no space left", "/srv/a.zip"]),
    (OSError(errno.EROFS, "Read-only file system", "/mnt/ro/ws"), ["read-only", "/mnt/ro/ws", "copy you can write"]),
    (PermissionError(errno.EACCES, "Permission denied", "/srv/x/ws"), ["may not", "/srv/x", "choose"]),
    (PermissionError(errno.EPERM, "Operation not permitted", "/srv/x/ws"), ["may not", "/srv/x"]),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/no-such-folder/x"), ["/no-such-folder does not exist",
                                                                                      "check the path"]),
    (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/etc/hostname/x"), ["not a folder", "/etc/hostname/x"]),
    (IsADirectoryError(errno.EISDIR, "Is a directory", "/tmp"), ["is a folder", "/tmp"]),
    (FileExistsError(errno.EEXIST, "File exists", "/tmp"), ["already exists", "/tmp"]),
    (OSError(errno.ENAMETOOLONG, "File name too long", "/tmp/" + "x" * 300), ["too long", "shorter"]),
    (OSError(errno.EMFILE, "Too many open files"), ["too many files", "ulimit"]),
    (OSError(errno.ENOMEM, "Cannot allocate memory"), ["out of memory", "--jobs"]),
    (OSError(errno.EIO, "Input/output error", "/srv/ws"), ["input/output", "/srv/ws"]),
    (OSError(errno.ESTALE, "Stale file handle", "/nfs/ws"), ["stale file handle", "/nfs/ws"]),
    (OSError(errno.ENOSPC, "No space left on device"), ["no space left", "a disk the command writes to"]),
    (shutil.Error([("/a/x", "/srv/ws/x", "[Errno 28] No space left on device: '/srv/ws/x'"), ("/a/y", "/b", "?")]),
     ["no space left", "/srv/ws/x", "1 more"]),
    (RuntimeError("nbgrader generate_assignment failed: [Errno 30] Read-only file system: '/mnt/ro/release'"),
     ["nbgrader generate_assignment failed: /mnt/ro/release is on a read-only"]),
    (sqlite3.OperationalError("database or disk is full"), ["no space left"]),
    (sqlite3.OperationalError("attempt to write a readonly database"), ["gradebook.db", "read-only"]),
]


@pytest.mark.parametrize("err, words", CLASS_OF_ERRORS, ids=lambda value: type(value).__name__
                         if isinstance(value, BaseException) else None)
@pytest.mark.parametrize("command", ["grade", "export", "publish"])
def test_every_refusal_of_the_machine_is_one_sentence_with_the_way_on(monkeypatch, capsys, err, words, command):
    """Whatever raises it, wherever: the command line says it so (here the command raises it at once)."""
    def refused(args):
        raise err
    monkeypatch.setattr(cli, "dispatch", refused)
    argv = {"grade": ["grade", "collected"], "export": ["export"], "publish": ["publish", "out"]}[command]
    assert cli.main(argv) == 2
    line = one_sentence(capsys.readouterr().err, *words)
    if getattr(err, "errno", None) not in errors.MISTYPED and errors.describe(err):
        assert line.endswith(errors.AFTER[command]), line   # what stands, and the way on


def test_an_error_wrapped_by_the_database_library_is_said_by_its_cause(monkeypatch, capsys):
    """nbgrader's gradebook goes through SQLAlchemy, which wraps sqlite's error in its own with the SQL."""
    from sqlalchemy.exc import OperationalError
    wrapped = OperationalError("INSERT INTO grade ...", {}, sqlite3.OperationalError("database or disk is full"))
    monkeypatch.setattr(cli, "dispatch", lambda args: (_ for _ in ()).throw(wrapped))
    assert cli.main(["export"]) == 2
    line = one_sentence(capsys.readouterr().err, "no space left", errors.AFTER["export"])
    assert "INSERT" not in line and "sqlalche.me" not in line


def test_the_sentence_is_said_where_looking_around_the_path_is_refused_too(monkeypatch, capsys):
    """A folder the grader may not even search: its owner, its disk and the names beside it cannot be read."""
    monkeypatch.setattr(cli, "dispatch", lambda args: (_ for _ in ()).throw(
        PermissionError(errno.EACCES, "Permission denied", "/srv/shared/ws/gradebook.db")))
    monkeypatch.setattr(Path, "stat", lambda self, **kw: (_ for _ in ()).throw(PermissionError(errno.EACCES, "no")))
    assert cli.main(["export"]) == 2
    one_sentence(capsys.readouterr().err, "permission denied: /srv/shared/ws/gradebook.db", "check that path")


# ------------------------------------------------------------------------- a mistyped folder


@pytest.fixture
def laid_out(course, monkeypatch, tmp_path):
    """A course's folders as the guide lays them out (collected/, grading/week1), the current folder above them:
    the commands stop on the folder's name, before anything is read or written."""
    (tmp_path / "collected" / "ann").mkdir(parents=True)
    shutil.copy(course.release_dir / NB01, tmp_path / "collected" / "ann")
    workspace = tmp_path / "grading" / "week1"
    workspace.mkdir(parents=True)
    (tmp_path / "course").mkdir()
    monkeypatch.chdir(tmp_path)
    return workspace


@pytest.mark.parametrize("argv, missing, meant", [
    (["grade", "colected", "--notebook", "01"], "colected", "collected"),
    (["undo", "--workspace", "grading/wek1"], "grading/wek1", "grading/week1"),
    (["export", "--workspace", "grading/week01"], "grading/week01", "grading/week1"),
    (["similarity", "--workspace", "grading/week"], "grading/week", "grading/week1"),
    (["formgrader", "--workspace", "gradng/week1", "--print"], "gradng", "grading"),
    (["--course-dir", "cours", "export"], "cours", "course"),
])
def test_a_mistyped_folder_is_named_with_the_nearest_names_and_nothing_is_written(course, laid_out, capsys, argv,
                                                                                 missing, meant):
    before = sorted(str(p) for p in laid_out.parent.parent.rglob("*"))
    assert cli.main(["--course-dir", str(course.root), *argv]) == 2
    line = one_sentence(capsys.readouterr().err, f"{Path(missing).absolute()} does not exist",
                        f"did you mean {Path(meant).absolute()}", "check the path")
    assert "grade again" not in line   # nothing was done, so nothing stands to be told of
    assert sorted(str(p) for p in laid_out.parent.parent.rglob("*")) == before


# ----------------------------------------------------------- a full disk, a read-only copy, a lock-out


def one_notebook_course(folder):
    """A course of notebook 01 alone (release and publish take seconds), with the files publish needs."""
    for part in ("source", "release"):
        (folder / part / "maskdiff").mkdir(parents=True)
        shutil.copy(ROOT / part / "maskdiff" / NB01, folder / part / "maskdiff")
    requirements = (ROOT / "requirements.txt").read_text()
    for name in ["nbgrader_config.py", "pyproject.toml", "requirements.txt",
                 *(line.split()[1] for line in requirements.splitlines() if line.startswith("-r "))]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, folder / name)
    return Course.load(folder)


# Runs commands in one interpreter (the CLI's imports once), each one's stderr and status kept.
DRIVER = textwrap.dedent("""
    import contextlib, io, json, sys
    from maskdiff_solutions.course import cli
    said = {}
    for name, argv in json.load(open(sys.argv[1])):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                status = cli.main(argv)
            except BaseException as raised:  # a traceback would be the failure
                status = f"raised {type(raised).__name__}: {raised}"
        said[name] = [status, err.getvalue()]
    json.dump(said, open(sys.argv[2], "w"))
""")


def run_commands(tmp_path, commands, shell="", prefix=()):
    """{name: (status, stderr)} of each CLI command, run after `shell` (mounts), under `prefix`."""
    (tmp_path / "driver.py").write_text(DRIVER)
    (tmp_path / "commands.json").write_text(json.dumps(commands))
    script = f"{shell}\n{shlex_join([sys.executable, str(tmp_path / 'driver.py'), str(tmp_path / 'commands.json'), str(tmp_path / 'said.json')])}"
    env = {k: v for k, v in os.environ.items() if k != "MASKDIFF_SANDBOX_LIMITS"}
    done = subprocess.run([*prefix, "bash", "-c", script], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return {name: tuple(value) for name, value in json.loads((tmp_path / "said.json").read_text()).items()}


def shlex_join(argv):
    import shlex
    return shlex.join(argv)


def digests(folder):
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def can_mount():
    if not ROOTED or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "mount", "-t", "tmpfs", "tmpfs", "/mnt"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not can_mount(), reason="needs root and mount namespaces (unshare) for a real full disk")
def test_a_full_disk_and_a_read_only_copy_are_one_sentence_and_leave_nothing_half_written(tmp_path):
    course = one_notebook_course(tmp_path / "course")
    (tmp_path / "collected" / "ann").mkdir(parents=True)
    shutil.copy(ROOT / "release" / "maskdiff" / NB01, tmp_path / "collected" / "ann")
    full, small, read_only = tmp_path / "full", tmp_path / "small", tmp_path / "ro"
    for folder in (full, small, read_only):
        folder.mkdir()
    (read_only / "ws").mkdir()
    release_before = digests(course.release_dir)
    base, on_small = ["--course-dir", str(course.root)], ["--course-dir", str(small / "course")]
    commands = [
        ["gradescope", [*base, "gradescope", str(full / "autograder.zip")]],
        ["publish", [*base, "publish", str(full / "students")]],
        ["release", [*on_small, "release"]],   # the course's own disk full: release/ stays as it was
        ["grade", [*base, "grade", str(tmp_path / "collected"), "--workspace", str(full / "ws"), "--no-canary"]],
        ["grade read-only", [*base, "grade", str(tmp_path / "collected"), "--workspace", str(read_only / "ws"),
                             "--no-canary"]],
        ["gradescope read-only", [*base, "gradescope", str(read_only / "autograder.zip")]],
        ["publish read-only", [*base, "publish", str(read_only / "students")]],
    ]
    shell = (f"set -e; mount -t tmpfs -o size=96k tmpfs {full}; mount -t tmpfs -o size=4m tmpfs {small}; "
             f"cp -a {course.root} {small}/course; dd if=/dev/zero of={small}/filler bs=4k 2>/dev/null || true; "
             f"mount --bind {read_only} {read_only}; mount -o remount,bind,ro {read_only}; "
             # what the commands leave, read inside the namespace (its mounts end with it)
             f"trap 'find {full} {small}/course/release > {tmp_path}/left.txt; "
             f"sha256sum {small}/course/release/maskdiff/* > {tmp_path}/release.txt' EXIT")
    said = run_commands(tmp_path, commands, shell, prefix=["unshare", "--mount", "--propagation", "private"])
    for name, (status, stderr) in said.items():
        assert status == 2, (name, status, stderr)
        if "read-only" in name:
            one_sentence(stderr, "is on a read-only file system", str(read_only), "copy you can write")
        else:
            one_sentence(stderr, "no space left on the disk that holds", "free some space")
        assert stderr.rstrip().endswith(errors.AFTER[name.split()[0]]), (name, stderr)
    # whole or as it was: no autograder, no students' folder, release/ as it was, nothing partial
    left = (tmp_path / "left.txt").read_text().split()
    assert not [path for path in left if "maskdiff-partial" in path or "autograder" in path
                or "/students" in path], left
    release_after = {Path(line.split()[1]).name: line.split()[0] for line in (tmp_path / "release.txt").read_text()
                     .splitlines()}
    assert release_after == {Path(name).name: digest for name, digest in release_before.items()}


def test_a_folder_the_grader_may_not_write_is_one_sentence_naming_whose_it_is(tmp_path):
    """A folder of mode 555: root ignores modes, so as root the commands run without that power
    (setpriv); as an ordinary user (.ci/unprivileged) they run as they are."""
    if ROOTED and shutil.which("setpriv") is None:
        pytest.skip("root ignores folder modes, and setpriv is not here to drop that power")
    course = one_notebook_course(tmp_path / "course")
    (tmp_path / "collected" / "ann").mkdir(parents=True)
    shutil.copy(ROOT / "release" / "maskdiff" / NB01, tmp_path / "collected" / "ann")
    locked = tmp_path / "locked"
    locked.mkdir()
    base = ["--course-dir", str(course.root)]
    commands = [["gradescope", [*base, "gradescope", str(locked / "autograder.zip")]],
                ["publish", [*base, "publish", str(locked / "students")]],
                ["grade", [*base, "grade", str(tmp_path / "collected"), "--workspace", str(locked / "ws"),
                           "--no-canary"]]]
    locked.chmod(0o555)
    try:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] if ROOTED else []
        said = run_commands(tmp_path, commands, prefix=prefix)
    finally:
        locked.chmod(0o755)
    for name, (status, stderr) in said.items():
        assert status == 2, (name, status, stderr)
        one_sentence(stderr, f"may not create {locked}/", f"in {locked}", "chmod u+w", errors.AFTER[name])
    assert not list(locked.iterdir())
