"""The course root (course/layout.py): its settings are read or refused by name, it is found above the
current folder, and git keeps out the student data and grading output written in it."""
import shutil
import subprocess
from pathlib import Path

import pytest

from maskdiff_solutions.course.records.rows import CSV_NAME
from maskdiff_solutions.course.layout import Course
from tests.support.roots import fake_course

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("settings, words", [
    ('repository = "a/b"\n', "renamed to public_repository"),
    ('public_repo = "a/b"\n', "unknown setting"),
    ('public_repository = "not a repository"\n', "is not the students' public GitHub repository"),
    ('assignment = 3\n', "is not the nbgrader assignment"),
    ('public_repository = "a/b\n', "not valid TOML"),
    ('written_answers = "ungraded"\n', 'written_answers = \'ungraded\' is not "graded" .* or "optional"'),
    ('written_answers = false\n', 'written_answers = False is not "graded"'),
])
def test_bad_course_settings_are_named(tmp_path, settings, words):
    with pytest.raises(ValueError, match=words):
        Course.load(fake_course(tmp_path, settings))


def test_the_cli_finds_the_course_root_above_the_current_folder(course, monkeypatch):
    monkeypatch.chdir(course.root / "source")
    assert Course.find().root == course.root


@pytest.mark.parametrize("path", ["collected/a/01_noise_for_words.ipynb", "submitted/a/maskdiff/x.ipynb",
                                  "feedback/a/maskdiff/x.html", "autograded/a/maskdiff/x.ipynb",
                                  "gradebook.db", CSV_NAME, "grades.csv", "grading-summary.png",
                                  "similarity/report.html", "similarity/similarity.csv"])
def test_student_data_and_grading_output_are_ignored_by_git(path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    done = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True)
    if done.returncode not in (0, 1):
        pytest.skip("not a git checkout")
    assert done.returncode == 0, f"{path} is not in .gitignore"
