"""The README's commands, as written, in a fresh `git clone` of this repository: its default workspace (the
course root, which holds the tracked autograded/README.md) included, formgrader on what was graded, and
nothing of the students' left for git to take. Then which copy of the package runs: from a folder below
the clone `python -m maskdiff_solutions` imports the environment's copy, and it says so, and refuses to
grade the clone's course when the checks differ.

The clone is this repository's HEAD with the working tree's changes on top (what a commit of them would
hold), so that a developer's run tests what they are about to commit; CI's checkout has none."""
import csv
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from maskdiff_solutions.course.intake import notebooks

pytestmark = [pytest.mark.course, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
NB01 = "01_noise_for_words.ipynb"
TOKEN = "maskdiff-test"


def readme_commands():
    """The lines of the README's block of a term's commands, as written (their comments cut)."""
    text = (ROOT / "README.md").read_text()
    block = text[text.index("The commands, in the order a term uses them:"):]
    block = block[block.index("```bash") + len("```bash"):]
    block = block[:block.index("```")]
    return [re.split(r"\s+#\s", line.strip())[0] for line in block.strip().splitlines() if line.strip()]


def git(*args, cwd=ROOT, **kwargs):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, **kwargs)


def fresh_clone(folder):
    """`git clone` of this checkout, with what the working tree changes and adds (not what git ignores)."""
    git("clone", "--quiet", str(ROOT), str(folder))
    diff = git("diff", "HEAD", "--binary").stdout
    if diff.strip():
        git("apply", "--whitespace=nowarn", "-", cwd=folder, input=diff)
    added = [name for name in git("ls-files", "--others", "--exclude-standard", "-z").stdout.decode().split("\0") if name]
    for name in added:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, folder / name)
    if diff.strip() or added:   # committed, as they are about to be
        git("add", "-A", cwd=folder)
        git("-c", "user.name=test", "-c", "user.email=test@example.org", "commit", "--quiet", "-m", "the working tree",
            cwd=folder)
    return folder


def environment():
    """A shell's environment: no PYTHONPATH (the tests' own points at this checkout), no browser."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MASKDIFF_SANDBOX_LIMITS")}
    return {**env, "BROWSER": "true", "JUPYTER_TOKEN": TOKEN}


def run(line, cwd):
    argv = shlex.split(line)
    argv[0] = sys.executable if argv[0] == "python" else argv[0]
    return subprocess.run(argv, cwd=cwd, env=environment(), capture_output=True, text=True, timeout=900)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def formgrader_shows(line, cwd, students):
    """Start the README's formgrader line, wait until its API answers, and return the students whose
    submission of the assignment it lists; then stop it."""
    port = free_port()
    argv = shlex.split(line)
    argv[0] = sys.executable
    server = subprocess.Popen(argv, cwd=cwd, env={**environment(), "JUPYTER_PORT": str(port)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/formgrader/api/submissions/maskdiff?token={TOKEN}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert server.poll() is None, server.stdout.read()[-3000:]
            try:
                with urllib.request.urlopen(url, timeout=10) as answer:
                    return {entry["student"] for entry in json.loads(answer.read())}
            except OSError:
                time.sleep(1)
        raise AssertionError(f"formgrader did not answer at {url}")
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    clone = fresh_clone(tmp_path_factory.mktemp("term") / "maskdiff")
    # collected/: one student, who hands in notebook 01 solved (the README's grade line grades every notebook)
    (clone / "collected" / "ann").mkdir(parents=True)
    source, release = (notebooks.read(clone / part / "maskdiff" / NB01) for part in ("source", "release"))
    notebooks.write(notebooks.solved(source, release), clone / "collected" / "ann" / NB01)
    return clone


def test_the_readmes_commands_work_as_written_in_a_fresh_clone(clone):
    lines = readme_commands()
    assert [shlex.split(line)[3] for line in lines] == ["release", "publish", "grade", "formgrader", "export",
                                                       "similarity", "gradescope", "check-setup"]
    for line in lines:
        if shlex.split(line)[3] == "formgrader":   # a server: what it shows, then stopped
            assert formgrader_shows(line, clone, {"ann"}) == {"ann"}
            continue
        done = run(line, clone)
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-3000:])
        assert f"course {clone} (its own maskdiff_solutions)" in done.stderr or "check-setup" in line, done.stderr
        assert "Traceback" not in done.stderr, (line, done.stderr[-3000:])
    with open(clone / "grades-by-notebook.csv", newline="") as handle:
        rows = {row["notebook"]: row for row in csv.DictReader(handle) if row["student"] == "ann"}
    assert rows["01_noise_for_words"]["status"] == "graded", rows
    assert float(rows["01_noise_for_words"]["auto_score"]) == float(rows["01_noise_for_words"]["auto_max"]) > 0
    assert (clone.parent / "maskdiff-students" / NB01).is_file() and (clone / "autograder.zip").is_file()
    # the students' work and grades, the autograder: nothing of it for `git add -A` to take
    assert git("status", "--porcelain", "--untracked-files=all", cwd=clone, text=True).stdout == ""


def test_below_the_course_root_the_cli_names_the_copy_it_runs_and_refuses_other_checks(clone):
    """From grading/week1, `python -m` imports the environment's copy of the package, not the clone's:
    it says which, and grades only where the checks are the clone's own."""
    below = clone / "grading" / "week1"
    below.mkdir(parents=True, exist_ok=True)
    (clone / "handed" / "bo").mkdir(parents=True, exist_ok=True)
    (clone / "handed" / "bo" / "notes.txt").write_text("nothing to grade")   # a batch that grades in seconds
    line = "python -m maskdiff_solutions grade ../../handed --workspace . --no-canary"
    same = run(line, below)
    assert same.returncode == 0, same.stderr[-3000:]
    assert f"course {clone}; maskdiff_solutions from {ROOT / 'maskdiff_solutions'} (the same files as the " \
           f"course's own)" in same.stderr
    check = clone / "maskdiff_solutions" / "grading" / "forward.py"
    check.write_text(check.read_text() + "\n# an instructor's fix, not yet installed\n")
    other = run(line, below)
    assert other.returncode == 2, other.stderr[-3000:]
    assert "(NOT the course's own)" in other.stderr
    error = [x for x in other.stderr.splitlines() if x.startswith("error:")]
    assert len(error) == 1 and "maskdiff_solutions/grading/forward.py" in error[0] and \
        f"`cd {clone}` first" in error[0] and f"pip install -e {clone}" in error[0], other.stderr
