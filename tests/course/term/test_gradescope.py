"""The Gradescope autograder, proven without Gradescope: its zip unpacked into a tree laid out like
Gradescope's /autograder (no container runtime runs here: MASKDIFF_AUTOGRADER_ROOT points the scripts
at the tree, and MASKDIFF_SETUP_INSTALL=0 keeps setup.sh from apt and pip, using this interpreter,
which has what setup.sh would install, with the zip's own copy of the packages first on its path, as
setup.sh's pip would install them). setup.sh must grade the reference at build time, and results.json
must be in Gradescope's format and agree with `grade` on the reference, the untouched release and a
buggy submission. The zip holds only what its notebooks' grading needs."""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from maskdiff_solutions.course.term import gradescope
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.term.demo import build_submissions
from tests.support import importers

NB = "01_noise_for_words.ipynb"
ROOT = Path(__file__).resolve().parents[3]


def unpack_like_gradescope(archive, root):
    """/autograder/source holds the zip's files (modes kept); run_autograder is copied to /autograder."""
    with zipfile.ZipFile(archive) as handle:
        for info in handle.infolist():
            path = root / "source" / info.filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(handle.read(info))
            os.chmod(path, (info.external_attr >> 16) & 0o777 or 0o644)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")


def environment(root):
    """The scripts' environment: this interpreter, the zip's packages before the installed ones."""
    return {**os.environ, gradescope.ROOT_VARIABLE: str(root), "MASKDIFF_SETUP_INSTALL": "0", "PYTHON": sys.executable,
            "PYTHONPATH": str(root / "source" / "course")}


def script(path, root):
    return subprocess.run([str(path)], env=environment(root), cwd=root, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def autograder(course, tmp_path_factory):
    here = tmp_path_factory.mktemp("gradescope")
    archive, chosen = gradescope.build(course, here / "autograder.zip", ["01"])
    root = here / "autograder"
    unpack_like_gradescope(archive, root)
    setup = script(root / "source" / "setup.sh", root)
    return root, setup


@pytest.fixture(scope="module")
def submissions(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    build_submissions(course, folder)
    for student in folder.iterdir():
        for other in student.iterdir():
            if other.name != NB:
                other.unlink()
    return folder


@pytest.fixture(scope="module")
def graded(course, submissions, tmp_path_factory):
    report = grade(course, submissions, tmp_path_factory.mktemp("ws"), notebooks=["01"], canary=False, progress=False)
    return report


@pytest.mark.slow
def test_the_zip_has_what_gradescope_wants_at_its_root(autograder):
    root, _ = autograder
    for name in ("setup.sh", "run_autograder"):
        assert os.access(root / "source" / name, os.X_OK)
    config = json.loads((root / "source" / "gradescope.json").read_text())
    assert config["notebooks"] == [NB] and config["sandbox"] == "required"
    assert (root / "source" / "course" / "source").is_dir()  # for the grader only: kernels never see it


@pytest.mark.slow
def test_setup_grades_the_reference_at_build_time(autograder):
    root, setup = autograder
    assert setup.returncode == 0, setup.stderr[-3000:]
    assert "autograder self-test passed" in setup.stdout
    # ... with the zip's packages, not this checkout's: what the zip lacks, the grading did not need
    where = subprocess.run([sys.executable, "-c", "import maskdiff_solutions.grading as g, maskdiff_client as c; "
                            "print(g.__file__); print(c.__file__); print(len(g.CHECKS))"],
                           env=environment(root), cwd=root, capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(path).is_relative_to(root / "source" / "course") for path in where[:2]), where
    assert int(where[2]) < len(__import__("maskdiff_solutions.grading").grading.CHECKS)   # 01's checks only


def test_the_zip_holds_only_what_its_notebooks_need(course, tmp_path):
    """Built for 01: no other notebook, none of their references or checks, not the instructors'
    README. Built for 06: notebook 05's reference, which 06's checks use, the story denoiser the grader
    keeps for it, and not 05's notebook. Built for 07: both denoisers the grader keeps for it, its three
    modules of checks, and no other notebook's. Built for 08: its two kept denoisers, not 07's, and its checks."""
    others = ["02_undiffusing", "03_real_language_model", "04_training", "05_sampler_internals", "06_revising_and_faster"]
    references = ["sampling", "chat", "corpus", "loss", "training", "batched", "revising", "experiments"]
    archive, _ = gradescope.build(course, tmp_path / "01.zip", ["01"])
    with zipfile.ZipFile(archive) as handle:
        names = handle.namelist()
        readme = handle.read("course/README.md").decode()
    notebooks = [name for name in names if name.endswith(".ipynb")]
    assert sorted(notebooks) == [f"course/release/maskdiff/{NB}", f"course/source/maskdiff/{NB}"]
    for module in references + ["story_denoiser"]:
        assert f"course/maskdiff_solutions/{module}.py" not in names, module
    checks = {Path(name).stem for name in names if name.startswith("course/maskdiff_solutions/grading/")}
    assert checks == {"__init__", "core", "checker", "complement", "plots", "forward", "forward_plots"}
    assert {"course/maskdiff_solutions/schedule.py", "course/maskdiff_client/__init__.py",
            "course/maskdiff_solutions/colab.txt", "course/pyproject.toml"} <= set(names)
    assert any(name.startswith("course/maskdiff_solutions/course/records/templates/") for name in names)
    assert "for 01_noise_for_words.ipynb" in readme and readme != (ROOT / "README.md").read_text()
    archive, _ = gradescope.build(course, tmp_path / "06.zip", ["06"])
    with zipfile.ZipFile(archive) as handle:
        names = handle.namelist()
    assert "course/maskdiff_solutions/batched.py" in names and "course/maskdiff_solutions/revising.py" in names
    assert "course/maskdiff_solutions/story_denoiser.py" in names   # what warm_caches keeps for 06 (KEPT_FOR)
    assert not [name for name in names if name.endswith(".ipynb") and others[-1] not in name]
    assert "course/maskdiff_solutions/schedule.py" not in names and "course/maskdiff_solutions/chat.py" not in names
    archive, _ = gradescope.build(course, tmp_path / "07.zip", ["07"])
    with zipfile.ZipFile(archive) as handle:
        names = handle.namelist()
    assert {f"course/maskdiff_solutions/{module}.py" for module in ("caching", "block_denoiser", "story_denoiser")} <= set(names)
    from maskdiff_solutions.grading import PARTS
    checks = {Path(name).stem for name in names if name.startswith("course/maskdiff_solutions/grading/")}
    assert set(PARTS["07_caching"]) <= checks and not {"forward", "revising_plots", "chat"} & checks
    assert sorted(name for name in names if name.endswith(".ipynb")) == [
        "course/release/maskdiff/07_caching.ipynb", "course/source/maskdiff/07_caching.ipynb"]
    archive, _ = gradescope.build(course, tmp_path / "08.zip", ["08"])
    with zipfile.ZipFile(archive) as handle:
        names = handle.namelist()
    assert {f"course/maskdiff_solutions/{module}.py" for module in ("uniform", "uniform_denoiser", "story_denoiser")} \
        <= set(names)
    checks = {Path(name).stem for name in names if name.startswith("course/maskdiff_solutions/grading/")}
    assert set(PARTS["08_noise_without_a_mask"]) <= checks and not {"caching", "revising_plots", "forward"} & checks
    assert "course/maskdiff_solutions/block_denoiser.py" not in names
    assert sorted(name for name in names if name.endswith(".ipynb")) == [
        "course/release/maskdiff/08_noise_without_a_mask.ipynb", "course/source/maskdiff/08_noise_without_a_mask.ipynb"]


def test_every_module_of_checks_belongs_to_a_notebook(course):
    """grading.PARTS names each notebook's checks: a module left out of it would never be imported,
    and would be missing from every Gradescope autograder."""
    from maskdiff_solutions.grading import PARTS
    ahead = set()   # checks that land before their notebook (as notebook 07's did): drop them once the notebook is in
    assert sorted(PARTS) == sorted({Path(name).stem for name in course.notebooks()} | ahead)
    assert not ahead & {Path(name).stem for name in course.notebooks()}, "the notebook is in: drop it from `ahead`"
    folder = ROOT / "maskdiff_solutions" / "grading"
    shared = {"__init__", "core", "checker", "complement", "plots", "fakes"}
    assert {path.stem for path in folder.glob("*.py")} - shared == {m for modules in PARTS.values() for m in modules}


@pytest.mark.slow
@pytest.mark.parametrize("student", ["reference", "untouched", "buggy"])
def test_results_json_agrees_with_grade(autograder, submissions, graded, student):
    root, setup = autograder
    assert setup.returncode == 0
    shutil.rmtree(root / "submission", ignore_errors=True)
    shutil.copytree(submissions / student, root / "submission")
    (root / "results").mkdir(exist_ok=True)
    (root / "results" / "results.json").unlink(missing_ok=True)
    done = script(root / "run_autograder", root)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads((root / "results" / "results.json").read_text())
    tests = importers.gradescope_results(data)
    expected = graded.tests[(student, "01_noise_for_words")]
    autograded = {name.split(" / ")[1]: got for name, got in tests.items() if got[1] > 0}
    assert autograded == expected
    answers = [t for t in data["tests"] if t["max_score"] == 0]
    assert answers and all("Graded by a person" in t["output"] for t in answers)
    row = next(r for r in graded.rows if r.student == student)
    assert data["score"] == row.auto_score
    hidden = [t for t in data["tests"] if t["visibility"] == "after_due_date"]
    assert hidden and all(t["visibility"] == "visible" for t in data["tests"] if t not in hidden)
    if student == "buggy":
        failed = [t for t in data["tests"] if t.get("status") == "failed"]
        assert failed and all(t["output"] for t in failed)


@pytest.mark.slow
def test_nothing_gradable_is_a_failure_gradescope_shows_not_a_zero(autograder):
    root, _ = autograder
    (root / "source" / "gradescope.json").write_text(json.dumps(
        {**json.loads((root / "source" / "gradescope.json").read_text()), "sandbox": "nonsense"}))
    try:
        (root / "results" / "results.json").unlink(missing_ok=True)
        done = script(root / "run_autograder", root)
        assert done.returncode == 1 and "could not grade this submission" in done.stderr
        assert not (root / "results" / "results.json").exists()
    finally:
        config = json.loads((root / "source" / "gradescope.json").read_text())
        (root / "source" / "gradescope.json").write_text(json.dumps({**config, "sandbox": "required"}))


def test_setup_installs_the_torch_that_ci_installs():
    assert f"TORCH={gradescope.TORCH}" in (ROOT / ".ci" / "setup").read_text()


def test_the_gradescope_settings_are_checked(course, tmp_path):
    from maskdiff_solutions.course.layout import Course
    shutil.copytree(course.root / "source", tmp_path / "source")
    shutil.copy(course.root / "nbgrader_config.py", tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.maskdiff.gradescope]\nhidden_visibility = "never"\n')
    with pytest.raises(ValueError, match="hidden_visibility = 'never' is not one of hidden, after_due_date"):
        gradescope.settings(Course.load(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.maskdiff.gradescope]\nsandbox = "off"\n')
    assert gradescope.settings(Course.load(tmp_path))["sandbox"] == "off"
    # Gradescope grades as root: where its container refuses bubblewrap, `auto` would run students' code as root
    (tmp_path / "pyproject.toml").write_text('[tool.maskdiff.gradescope]\nsandbox = "auto"\n')
    with pytest.raises(ValueError, match="sandbox = 'auto' would run students' code as root .* say \"off\""):
        gradescope.settings(Course.load(tmp_path))


def test_the_autograder_is_never_written_into_the_students_repository(course, tmp_path, capsys):
    """It holds the solutions and the checks: a destination inside a folder `publish` wrote, or inside a
    clone of the course's public repository, stops `gradescope` with nothing written; elsewhere it is built."""
    from maskdiff_solutions.course import cli
    from maskdiff_solutions.course.term.publish import MANIFEST
    published = tmp_path / "maskdiff-students"
    (published / "week1").mkdir(parents=True)
    (published / MANIFEST).write_text("# written by the course's publish command\n")
    clone = tmp_path / "students-clone"
    (clone / ".git").mkdir(parents=True)
    (clone / ".git" / "config").write_text(f'[remote "origin"]\n\turl = git@github.com:{course.public_repository}.git\n')
    for out, folder, what in ((published / "autograder.zip", published, "publish wrote it"),
                              (published / "week1" / "01.zip", published, "publish wrote it"),
                              (clone / "autograder.zip", clone, f"a clone of {course.public_repository}")):
        assert cli.main(["--course-dir", str(course.root), "gradescope", str(out), "--notebook", "01"]) == 2
        error = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
        assert error == [f"error: {out} is inside the students' repository {folder} "
                         f"({what}), where `git add -A` would publish the solutions and the checks the autograder "
                         f"holds: write it outside, e.g. in the course root, and upload it to Gradescope from there"], error
        assert not out.exists()
    assert cli.main(["--course-dir", str(course.root), "gradescope", str(tmp_path / "autograder.zip"), "--notebook", "01"]) == 0
    assert zipfile.is_zipfile(tmp_path / "autograder.zip")
