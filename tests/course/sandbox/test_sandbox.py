"""The sandbox a student's kernel runs in (maskdiff_solutions/course/sandbox/settings.py), probed directly with
a small program instead of a kernel: what it can see, write and reach."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maskdiff_solutions import colab
from maskdiff_solutions.course.sandbox import kernel, settings
from maskdiff_solutions.course.layout import Course

ROOT = Path(__file__).resolve().parents[3]

PROBE = r"""
import json, os, socket, sys
facts = {"uid": os.getuid(), "cwd": os.getcwd(), "env": sorted(os.environ)}
def can(action):
    try:
        action(); return True
    except Exception:
        return False
facts["course_listing"] = os.listdir(sys.argv[1]) if can(lambda: os.listdir(sys.argv[1])) else None
facts["reads_course"] = can(lambda: open(os.path.join(sys.argv[1], "pyproject.toml")).read())
facts["imports_solutions"] = can(lambda: __import__("maskdiff_solutions"))
facts["imports_client"] = can(lambda: __import__("maskdiff_client"))
facts["writes_home"] = can(lambda: open("here.txt", "w").write("x"))
facts["writes_client"] = can(lambda: open("/opt/maskdiff/maskdiff_client/x.py", "w").write("x"))
facts["writes_usr"] = can(lambda: open("/usr/x", "w").write("x"))
facts["handed_in"] = sorted(os.listdir("."))
facts["network"] = can(lambda: socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2))
facts["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
facts["colab"] = {name: can(lambda name=name: __import__(name)) for name in sys.argv[3].split(",")}
print(json.dumps(facts))
"""


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    works, why = settings.available()
    if not works:
        if os.environ.get("CI"):
            pytest.fail(f"CI must be able to sandbox (.ci/setup installs bubblewrap): {why}")
        pytest.skip(why)
    handin = tmp_path_factory.mktemp("handin")
    (handin / "data.csv").write_text("1,2\n")
    os.chmod(handin, 0o755)
    os.chmod(handin / "data.csv", 0o644)
    server = __import__("socket").create_server(("127.0.0.1", 0))
    box = kernel.KernelSandbox(settings.Settings(mode="required", handin=str(handin)).to_dict())
    os.environ["MASKDIFF_SANDBOX_DEBUG"] = "1"  # the probe's printout must come out
    try:
        command = box.wrap([sys.executable, "-c", PROBE, str(ROOT), str(server.getsockname()[1]),
                            ",".join(colab.installed())])
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    finally:
        del os.environ["MASKDIFF_SANDBOX_DEBUG"]
        box.close()
        server.close()
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_course_and_the_hidden_package_are_out_of_sight(probed):
    # A venv made inside the course (CI's .venv) is bound read-only, so the course folder exists in
    # the sandbox as the path to it, holding that folder and nothing else.
    inside = {root.relative_to(ROOT).parts[0] for root in kernel.python_roots()
              if ROOT in root.parents}
    assert probed["course_listing"] is None or set(probed["course_listing"]) <= inside, probed["course_listing"]
    assert not probed["reads_course"] and not probed["imports_solutions"]
    assert probed["imports_client"]


def test_only_its_own_home_is_writable(probed):
    assert probed["writes_home"] and not probed["writes_client"] and not probed["writes_usr"]
    assert probed["handed_in"] == ["data.csv", "here.txt"] and probed["cwd"] == kernel.WORK


def test_it_runs_unprivileged_alone_and_offline(probed):
    assert probed["uid"] != 0
    assert not probed["network"]
    assert probed["pids"][0] == 1 and len(probed["pids"]) <= 3  # its own process namespace
    assert "MASKDIFF_REDTEAM_SECRET" not in probed["env"] and "PYTHONPATH" in probed["env"]


def test_limits_come_from_pyproject_and_the_environment(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[tool.maskdiff.sandbox]\nmemory_mb = 1000\n")
    monkeypatch.setenv(settings.LIMITS_VARIABLE, '{"processes": 64}')
    limits = settings.configured_limits(tmp_path)
    assert limits["memory_mb"] == 1000 and limits["processes"] == 64 and limits["tmp_mb"] == settings.Limits().tmp_mb
    monkeypatch.setenv(settings.LIMITS_VARIABLE, '{"memroy_mb": 64}')
    with pytest.raises(ValueError, match="unknown sandbox limit 'memroy_mb'"):
        settings.configured_limits(tmp_path)
    monkeypatch.setenv(settings.LIMITS_VARIABLE, '{"memory_mb": -1}')
    with pytest.raises(ValueError, match="positive whole number"):
        settings.configured_limits(tmp_path)


def test_an_installed_copy_of_the_hidden_package_is_covered(tmp_path):
    site = tmp_path / "lib" / "python3.11" / "site-packages" / "maskdiff_solutions"
    site.mkdir(parents=True)
    assert kernel.hidden_package_dirs([tmp_path]) == [site]


def test_required_refuses_and_auto_warns_without_bubblewrap(monkeypatch, capsys):
    monkeypatch.setattr(settings, "_probed", {"answer": (False, "no bwrap here")})
    with pytest.raises(settings.SandboxError, match="no bwrap here"):
        settings.resolve_mode("required")
    monkeypatch.setattr(settings.os, "geteuid", lambda: 1000)   # an ordinary user: warned
    assert settings.resolve_mode("auto") == "off" and "WITHOUT a sandbox" in capsys.readouterr().err
    monkeypatch.setattr(settings.os, "geteuid", lambda: 0)      # root: students' code as root only when told
    with pytest.raises(settings.SandboxError, match=r"no bwrap here\), and without one every student's code would "
                                                    r"run as root.* or pass --sandbox off"):
        settings.resolve_mode("auto")
    assert settings.resolve_mode("off") == "off"
    with pytest.raises(ValueError, match="--sandbox must be one of"):
        settings.resolve_mode("maybe")


def test_root_grades_without_a_working_sandbox_only_when_told(course, tmp_path, monkeypatch, capsys):
    """Root where bubblewrap cannot run (a container): `grade` with the default --sandbox auto stops before
    anyone is graded, in one sentence that says why and how to go on; --sandbox off grades."""
    from maskdiff_solutions.course import cli
    monkeypatch.setattr(settings, "_probed", {"answer": (False, "bwrap: No permissions to create new namespace")})
    monkeypatch.setattr(settings.os, "geteuid", lambda: 0)
    (tmp_path / "collected" / "ann").mkdir(parents=True)
    (tmp_path / "collected" / "ann" / "notes.txt").write_text("no notebook: nothing to run")
    argv = ["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--notebook", "01",
            "--no-canary", "--workspace", str(tmp_path / "ws")]
    assert cli.main(argv) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No permissions to create new namespace" in errors[0] and "as root" in errors[0] \
        and "pass --sandbox off" in errors[0], errors
    assert not (tmp_path / "ws").exists()
    assert cli.main([*argv, "--sandbox", "off"]) == 0
    assert "sandbox: OFF" in capsys.readouterr().err and (tmp_path / "ws" / "grades-by-notebook.csv").is_file()


def test_notebooks_are_chosen_by_number_or_name():
    course = Course.load(ROOT)
    assert course.select(["03", "01_noise_for_words"]) == [course.notebooks()[0], course.notebooks()[2]]
    assert course.select(None) == course.notebooks()
    with pytest.raises(ValueError, match="no notebook '9'"):
        course.select(["9"])


def test_every_module_of_colabs_stack_imports_in_the_sandbox(probed):
    """What maskdiff_solutions/colab.txt installs for students' cells (pandas, seaborn, ...) imports inside
    the sandbox, as on Colab (the canary proves it again before every grading)."""
    assert len(probed["colab"]) >= 3 and {"pandas", "seaborn", "scipy"} <= set(probed["colab"])
    assert all(probed["colab"].values()), [name for name, ok in probed["colab"].items() if not ok]



def test_the_start_line_names_the_sandbox_in_force_and_where_memory_is_capped(course):
    """What `grade` prints before its bar: bubblewrap on, how it isolates for this user (root: a uid
    per sandbox; anyone else: user namespaces), and whether the memory cap is per kernel or per process."""
    from maskdiff_solutions.course.sandbox.leases import describe
    from maskdiff_solutions.course.sandbox.settings import configured_limits
    limits = configured_limits(course.root)
    line = describe("required", limits)
    assert line.startswith("sandbox: on (bubblewrap, ")
    assert ("a uid of its own" in line) == (os.geteuid() == 0)
    assert f"{limits['memory_mb']} MB per kernel" in line or f"{limits['address_space_mb']} MB of address" in line
    assert describe("off", limits).startswith("sandbox: OFF")


def test_the_start_line_shown_in_the_docs_is_the_one_grade_prints(course, monkeypatch):
    """docs/grading.md shows the line `grade` prints before its bar, for a grader who is not root on a
    machine with writable cgroups: here the same line is made for 120 students and every notebook."""
    import re
    import types
    from pathlib import Path
    from maskdiff_solutions.course.run import batch
    from maskdiff_solutions.course.sandbox import leases
    from maskdiff_solutions.course.sandbox.settings import configured_limits
    from tests.support.docs import page
    shown = re.search(r"^grading 120 students from collected; .*$", page("grading.md"), re.M).group(0)
    monkeypatch.setattr(leases.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(leases.pwd, "getpwuid", lambda uid: types.SimpleNamespace(pw_name="you"))
    monkeypatch.setattr(leases, "Cgroup", lambda *args: types.SimpleNamespace(procs="cgroup.procs", caps_memory=True,
                                                                                 close=lambda: None))
    students = {f"s{i:03d}": None for i in range(120)}
    line = batch.start_line(Path("collected"), students, {**students, batch.STUDENT: None}, {}, "required",
                            configured_limits(course.root), [f"{n:02d}_x.ipynb" for n in range(1, 6)], "")
    assert line == shown
