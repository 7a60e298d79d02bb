"""The course root (course/layout.py): its settings are read or refused by name, it is found above the
current folder, git keeps out the student data and grading output written in it, and the cache holds
what the notebooks load under the grader before kernels start."""
import shutil
import subprocess
from pathlib import Path

import pytest

from maskdiff_solutions.course.records.rows import CSV_NAME
from maskdiff_solutions.course import layout
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


def test_the_cache_keeps_the_quick_denoisers_for_the_sandboxs_user(tmp_path, monkeypatch):
    """warm_caches trains notebooks 05 to 08's quick story denoiser, notebook 07's block-causal one and
    notebook 08's uniform one once each (three steps here: the recipes themselves are
    tests/reference/test_story_denoiser.py's, test_caching.py's and test_uniform_denoiser.py's) where the
    kernels' cache is, readable by all."""
    from maskdiff_solutions import block_denoiser, models, story_denoiser, uniform_denoiser
    trained, real, real_block = [], story_denoiser.TrainQuickDenoiser, block_denoiser.TrainBlockDenoiser
    real_uniform = uniform_denoiser.TrainUniformDenoiser
    monkeypatch.setattr(models, "StandIn", lambda kind, cache: None)   # notebook 03's: not this test's
    monkeypatch.setattr(story_denoiser, "TrainQuickDenoiser", lambda: trained.append("story") or real(3))
    monkeypatch.setattr(block_denoiser, "TrainBlockDenoiser", lambda: trained.append("block") or real_block(3))
    monkeypatch.setattr(uniform_denoiser, "TrainUniformDenoiser", lambda: trained.append("uniform") or real_uniform(3))
    monkeypatch.setenv(layout.CACHE_VARIABLE, str(tmp_path / "cache"))
    assert layout.warm_caches() == str(tmp_path / "cache") == layout.warm_caches()
    kept = sorted((tmp_path / "cache").iterdir())
    assert [k.name.split("-v")[0] for k in kept] == ["block-denoiser", "story-denoiser", "uniform-denoiser"]
    assert trained == ["story", "block", "uniform"]
    assert all(k.stat().st_mode & 0o777 == 0o644 for k in kept)
    assert layout.KEPT_FOR == {"05_sampler_internals": ("story_denoiser",), "06_revising_and_faster": ("story_denoiser",),
                               "07_caching": ("story_denoiser", "block_denoiser"),
                               "08_noise_without_a_mask": ("story_denoiser", "uniform_denoiser")}


def test_a_grading_builds_only_what_its_notebooks_load(tmp_path, monkeypatch):
    """grade hands warm_caches the notebooks it grades: notebook 01's week builds nothing, notebook 08's its two
    denoisers, notebook 03's its two stand-in networks, and no notebook named builds everything (the default)."""
    from maskdiff_solutions import block_denoiser, models, story_denoiser, uniform_denoiser
    built = []
    monkeypatch.setattr(models, "StandIn", lambda kind, cache: built.append(kind))
    for module, name in ((story_denoiser, "KeepQuickDenoiser"), (block_denoiser, "KeepBlockDenoiser"),
                         (uniform_denoiser, "KeepUniformDenoiser")):
        monkeypatch.setattr(module, name, lambda cache, kept=module.__name__.rsplit(".", 1)[-1]: built.append(kept))
    monkeypatch.setenv(layout.CACHE_VARIABLE, str(tmp_path / "cache"))
    for notebooks, wanted in ((["01_noise_for_words.ipynb"], []),
                              (["08_noise_without_a_mask.ipynb"], ["story_denoiser", "uniform_denoiser"]),
                              (["03_real_language_model"], ["bert", "qwen"]),
                              (None, ["bert", "qwen", "story_denoiser", "block_denoiser", "uniform_denoiser"])):
        built.clear()
        layout.warm_caches(notebooks)
        assert built == wanted, notebooks
