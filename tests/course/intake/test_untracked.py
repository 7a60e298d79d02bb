"""Students' files never reach git by accident (course/intake/untracked.py): the workspaces the guide
grades into are ignored by the course's .gitignore, `grade` stops before it writes into a workspace
where git would track them, and following docs/platforms/canvas.md inside a clone leaves `git status`
clean."""
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import untracked
from tests.support import exports

ROOT = Path(__file__).resolve().parents[3]


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def repository(folder, ignore=""):
    folder.mkdir(parents=True, exist_ok=True)
    git("init", "-q", cwd=folder)
    (folder / ".gitignore").write_text(ignore)
    return folder


def test_a_workspace_git_would_track_is_found_and_one_it_ignores_is_not(tmp_path):
    repo = repository(tmp_path / "course", "grading/\n")
    assert untracked.tracked_files(repo / "grading" / "week1") == ([], repo.resolve())
    tracked, top = untracked.tracked_files(repo / "marks" / "week1")
    assert top == repo.resolve() and set(tracked) == set(untracked.STUDENT_FILES)
    assert untracked.tracked_files(tmp_path / "elsewhere") == ([], None)   # no work tree: nothing to say
    with pytest.raises(untracked.TrackedWorkspace, match=r"add `marks/` to .*\.gitignore.*--workspace-in-git"):
        untracked.check(repo / "marks" / "week1")
    added = r"add `.grading-staging/` and `.intake-export/` and `autograded/` and `earlier-gradings/` and `feedback-canvas/`"
    with pytest.raises(untracked.TrackedWorkspace, match=added):
        untracked.check(repository(tmp_path / "bare", "submitted/\nfeedback/\n*.db\ngrades-*.csv\nintake/\n"
                                                      "intake.json\nintake-unmatched/\nfeedback-moodle.zip\n"))


def test_the_folders_grading_keeps_students_files_in_are_ignored_wherever_they_are(tmp_path):
    """The earlier gradings `undo` puts back and a grading's staging folder hold students' files: git
    ignores them at the course root and in any workspace, and a repository that would track them stops
    `grade`, naming them."""
    from maskdiff_solutions.course.ledger import safekeeping
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    kept = f"{safekeeping.EARLIER}/0001-2025-12-01-100000"
    for where in ("", "grading/week1/"):   # the course root is the default workspace
        for path in (f"{kept}/intake.json", f"{kept}/submitted/ann/maskdiff/01.ipynb", ".grading-staging/ann/x.ipynb"):
            done = subprocess.run(["git", "check-ignore", "--no-index", "-q", where + path], cwd=ROOT)
            assert done.returncode == 0, f"git would track {where + path}"
    assert untracked.tracked_files(ROOT) == ([], ROOT.resolve())
    old_rules = "submitted/\nautograded/\nfeedback/\n*.db\ngrades-*.csv\nfeedback-canvas/\nfeedback-moodle.zip\nsimilarity/\n" \
                "/intake/\n/intake.json\n/intake-unmatched/\n/.intake-export/\n"
    repo = repository(tmp_path / "course", old_rules)
    tracked = untracked.tracked_files(repo)[0]
    assert {name.split("/")[0] for name in tracked} == {safekeeping.EARLIER, ".grading-staging"}
    assert f"{safekeeping.EARLIER}/0001-when/intake.json" in tracked    # kept out by `/intake.json` at the top only
    with pytest.raises(untracked.TrackedWorkspace, match=r"add `.grading-staging/` and `earlier-gradings/`"):
        untracked.check(repo)


def test_every_workspace_the_docs_suggest_is_ignored_by_the_course():
    suggested = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        suggested |= set(re.findall(r"--workspace ([\w./-]+)", page.read_text()))
    in_course = {w for w in suggested if not w.startswith(("/", "~", "DIR"))}
    assert in_course, "the docs suggest no workspace inside the course any more: update this test"
    for workspace in sorted(in_course):
        assert untracked.tracked_files(ROOT / workspace)[0] == [], f"git would track students' files in {workspace}"


@pytest.mark.slow  # the command line up to its first check: about 4 s
def test_grade_stops_before_it_writes_into_a_tracked_workspace(course, tmp_path, capsys):
    repo = repository(tmp_path / "mine")
    (tmp_path / "collected" / "ann").mkdir(parents=True)
    argv = ["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--workspace",
            str(repo / "week1"), "--no-canary", "--sandbox", "off"]
    assert cli.main(argv) == 2
    assert "git would track the students' files" in capsys.readouterr().err
    assert not (repo / "week1").exists() and git("status", "--porcelain", cwd=repo) == "?? .gitignore\n"


@pytest.mark.slow  # a clone, nbgrader's generate_assignment, an export
def test_following_the_canvas_guide_in_a_clone_leaves_git_status_clean(course, tmp_path, monkeypatch):
    """The guide's own commands, word for word but for the downloads' paths, run in a fresh clone of the
    course (its committed files; the command line in this process, as `python -m maskdiff_solutions`
    runs it there): Canvas's students hand in a PDF and a stranger's file (what grading writes for them
    is what it writes for any student, without a kernel), then export."""
    clone = tmp_path / "course"
    git("clone", "-q", str(ROOT), str(clone), cwd=tmp_path)
    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    exports.write_zip(downloads / "submissions.zip", {"nunezzoe_6161_1003_homework.pdf": b"%PDF-1.4",
                                                      "doejane_4242_1001_notes.txt": b"see attached"})
    guide = (ROOT / "docs" / "platforms" / "canvas.md").read_text()
    commands = re.findall(r"^\s*(python -m maskdiff_solutions (?:grade|export) .*)$", guide, re.MULTILINE)[:2]
    assert [c.split()[3] for c in commands] == ["grade", "export"], commands   # take in, put back
    _, roster = exports.canvas(course, tmp_path)   # its assignment column: the one the guide exports to
    column = shlex.split(commands[1])[shlex.split(commands[1]).index("--column") + 1]
    (downloads / "gradebook.csv").write_text(roster.read_text().replace("Masked diffusion (777)", column))
    monkeypatch.chdir(clone)   # the course is found from the folder the instructor is in
    for command in commands:
        argv = shlex.split(command.replace("~/Downloads", str(downloads)))
        assert argv[:3] == ["python", "-m", "maskdiff_solutions"]
        assert cli.main(argv[3:]) == 0, command
    ws = clone / shlex.split(commands[0])[shlex.split(commands[0]).index("--workspace") + 1]
    written = {p.relative_to(ws).parts[0] for p in ws.rglob("*")}
    assert {"feedback", "grades-by-notebook.csv", "grades-canvas.csv", "intake"} <= written, written
    assert git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""
