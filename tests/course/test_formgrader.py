"""`formgrader --workspace DIR`: nbgrader's formgrader shows what was graded into that workspace (not the
course root's gradebook, nor an empty one made where Jupyter started): JupyterLab started by the command,
asked through formgrader's own API which submissions it lists. `--print` says how, starting nothing."""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from maskdiff_solutions.course import formgrader
from tests.support import classes, fake_grading, records

pytestmark = pytest.mark.course
TOKEN = "maskdiff-test"


@pytest.fixture
def week1(course, monkeypatch, tmp_path):
    """grading/week1 with two students graded (the fake grader: no kernel)."""
    fake_grading.install(monkeypatch)
    for student in ("ann", "bo"):
        (tmp_path / "collected" / student).mkdir(parents=True)
        shutil.copy(course.release_dir / classes.NB01, tmp_path / "collected" / student)
    workspace = tmp_path / "grading" / "week1"
    status, _, err = records.grade(course, tmp_path / "collected", workspace)
    assert status == 0, err
    return workspace


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_formgrader_shows_the_workspaces_grading(course, week1, tmp_path):
    port = free_port()
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "JUPYTER_TOKEN": TOKEN, "BROWSER": "true"}
    server = subprocess.Popen([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root), "formgrader",
                               "--workspace", str(week1), "--port", str(port), "--no-browser"], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    api = f"http://127.0.0.1:{port}/formgrader/api"
    try:
        deadline, listed = time.monotonic() + 180, None
        while listed is None and time.monotonic() < deadline:
            assert server.poll() is None, server.stdout.read()[-3000:]
            try:
                with urllib.request.urlopen(f"{api}/submissions/maskdiff?token={TOKEN}", timeout=10) as answer:
                    listed = json.loads(answer.read())
            except OSError:
                time.sleep(1)
        assert listed is not None, f"formgrader did not answer at {api}"
        assert sorted(entry["student"] for entry in listed) == ["ann", "bo"]
        with urllib.request.urlopen(f"{api}/assignments?token={TOKEN}", timeout=10) as answer:
            assignments = json.loads(answer.read())
        assert [(a["name"], a["num_submissions"]) for a in assignments] == [("maskdiff", 2)]
    finally:
        server.terminate()
        said = server.communicate(timeout=60)[0]
    assert f"formgrader on the gradebook of {week1}:\n  cd {week1} && jupyter lab" in said, said[-3000:]
    assert not (tmp_path / "gradebook.db").exists()   # none made where it was started
    config = (week1 / formgrader.CONFIG).read_text()
    assert config.startswith(formgrader.WRITTEN) and f"sqlite:///{week1 / 'gradebook.db'}" in config


def test_formgrader_print_says_how_and_refuses_what_is_not_a_grading(course, week1, tmp_path, capsys):
    from maskdiff_solutions.course import cli
    assert cli.main(["--course-dir", str(course.root), "formgrader", "--workspace", str(week1), "--print"]) == 0
    out = capsys.readouterr().out
    assert f"cd {week1} && jupyter lab --ServerApp.root_dir={week1}" in out
    assert f"python -m maskdiff_solutions export --workspace {week1}" in out
    (tmp_path / "empty").mkdir()
    assert cli.main(["--course-dir", str(course.root), "formgrader", "--workspace", str(tmp_path / "empty")]) == 2
    assert f"error: no grading in {tmp_path / 'empty'} (it has no gradebook.db)" in capsys.readouterr().err
    (week1 / formgrader.CONFIG).write_text("c = get_config()  # the instructor's own\n")
    assert cli.main(["--course-dir", str(course.root), "formgrader", "--workspace", str(week1), "--print"]) == 2
    assert "was not written by this command" in capsys.readouterr().err
    assert (week1 / formgrader.CONFIG).read_text() == "c = get_config()  # the instructor's own\n"
