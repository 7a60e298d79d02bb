"""The instructor's path, as a new instructor walks it: the students' public repository, a command
line that finds (or refuses) its course root, works from an unactivated venv, stops on bad settings
before grading anyone and shows nbgrader's own errors, a table that cannot be misread, plain nbgrader
commands without config warnings, and a set-up script that never pulls a CUDA torch."""
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli, notebooks, publish, release
from maskdiff_solutions.course.batch import Progress
from maskdiff_solutions.course.rows import CSV_NAME, Row, table
from maskdiff_solutions.course.layout import Course

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[1]


# --- the students' public repository --------------------------------------------------------------

@pytest.fixture(scope="module")
def public(course, tmp_path_factory):
    folder = tmp_path_factory.mktemp("public") / "maskdiff-students"
    written = publish.publish(course, folder)
    return folder, written


def every_file(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts)


def test_every_badge_opens_a_notebook_of_the_public_repository(course, public):
    folder, _ = public
    targets = []
    for path in every_file(folder):
        targets += [(path.name, *t) for t in publish.badge_targets(path.read_text())]
    names = {name for name in course.notebooks()}
    assert {t[3] for t in targets} == names  # every notebook has a badge, in README and in itself
    assert sum(t[0] == "README.md" for t in targets) == len(names)
    for where, repository, branch, target in targets:
        assert (repository, branch) == (course.public_repository, course.public_branch), where
        opened = folder / target
        assert opened.is_file(), f"{where}: its badge opens {target}, which the repository lacks"
        nb = notebooks.read(opened)  # a notebook, and the one whose badge it carries
        if where.endswith(".ipynb"):
            assert where == target
        assert f"blob/{branch}/{target})" in nb.cells[0].source


def test_the_public_repository_holds_no_solution_hidden_test_or_package_file(course, public):
    folder, written = public
    files = every_file(folder)
    assert sorted(str(p.relative_to(folder)) for p in files) == sorted(written)
    assert {p.suffix for p in files if p.name != publish.READER} <= {".ipynb", ".md", ".txt", ""}
    assert (folder / publish.READER).read_text() == publish.reader_text()  # the one Python file: the reader
    secret = notebooks.secret_lines(*(notebooks.read(course.source_dir / n) for n in course.notebooks()))
    hidden = {line.strip() for n in course.notebooks() for c in notebooks.read(course.source_dir / n).cells
              for block in notebooks.regions(c.source, notebooks.BEGIN_HIDDEN, notebooks.END_HIDDEN)
              for line in block.splitlines() if line.strip()}
    assert len(secret) > 100 and hidden  # the scan itself sees the solutions and the hidden tests
    package = {p.name for d in ("maskdiff_solutions", "maskdiff_client") for p in (ROOT / d).rglob("*.py")}
    for path in files:
        text = path.read_text()
        lines = {line.strip() for line in text.splitlines()}
        if path.suffix == ".ipynb":
            lines = {line.strip() for c in notebooks.read(path).cells for line in c.source.splitlines()}
            assert (ROOT / "release" / "maskdiff" / path.name).read_bytes() == path.read_bytes()
        assert not lines & secret, f"{path.name}: {sorted(lines & secret)[:3]}"
        assert not lines & hidden, f"{path.name}: {sorted(lines & hidden)[:3]}"
        for word in ("maskdiff_solutions", "maskdiff_client", "run_check", "BEGIN SOLUTION", "HIDDEN TESTS"):
            assert word not in text, (path.name, word)
        assert path.name not in package and not path.name.startswith(("maskdiff_", "gradebook", "source"))


def test_publishing_again_replaces_its_files_and_keeps_the_others(course, public, tmp_path):
    folder = tmp_path / "students"
    shutil.copytree(public[0], folder)
    (folder / "LICENSE").write_text("CC-BY")
    (folder / "old.ipynb").write_text("{}")
    with open(folder / publish.MANIFEST, "a") as handle:
        handle.write("old.ipynb\n")
    publish.publish(course, folder)
    assert (folder / "LICENSE").read_text() == "CC-BY" and not (folder / "old.ipynb").exists()
    assert (folder / "README.md").is_file()


def test_publish_refuses_folders_it_did_not_write_and_the_course_itself(course, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(release.CourseError, match="did not write"):
        publish.publish(course, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    with pytest.raises(release.CourseError, match="inside the course repository"):
        publish.publish(course, course.root / "public")
    assert not (course.root / "public").exists()


def test_publish_refuses_to_write_a_leak(course, tmp_path, monkeypatch):
    real = publish.build

    def leaky(course_, scratch):
        files = real(course_, scratch)
        source = notebooks.read(course.source_dir / course.notebooks()[0])
        files["README.md"] += "\n".join(sorted(notebooks.secret_lines(source))[:1])
        return files
    monkeypatch.setattr(publish, "build", leaky)
    with pytest.raises(release.CourseError, match="solution or hidden-test line"):
        publish.publish(course, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_release_badges_point_at_the_public_repository(course):
    for name in course.notebooks():
        first = notebooks.read(course.release_dir / name).cells[0].source
        assert publish.badge_targets(first) == [(course.public_repository, course.public_branch, name)]


# --- settings and the course root ----------------------------------------------------------------

def fake_course(folder, settings):
    (folder / "source" / "maskdiff").mkdir(parents=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()\n")
    (folder / "pyproject.toml").write_text("[tool.maskdiff]\n" + settings)
    return folder


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


def test_the_cli_refuses_to_run_outside_a_course_root(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["grade", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"no course root in {tmp_path.resolve()} or any folder above it" in err and "--course-dir" in err
    assert not list(tmp_path.iterdir())


def test_the_cli_finds_the_course_root_above_the_current_folder(course, monkeypatch):
    monkeypatch.chdir(course.root / "source")
    assert Course.find().root == course.root


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

def test_nbgraders_real_error_lines_are_shown():
    messages = ["There was an error processing assignment: /x/source/./maskdiff",
                "Traceback (most recent call last):\n  File \"api.py\", line 37\n"
                "FileNotFoundError: [Errno 2] No such file or directory: 'alembic'\n",
                "There was an error processing assignment 'maskdiff' for student '.'",
                "Please see the the above traceback for details on the specific errors on the above failures."]
    result = {"success": False, "error": "Traceback ...\nNbGraderException: Please see the above traceback"}
    text = release.failure(result, messages)
    assert text.startswith("FileNotFoundError: [Errno 2] No such file or directory: 'alembic'")
    assert "install nbgrader into this Python's environment" in text and "Please see" not in text
    assert release.failure(result, []) == "NbGraderException: Please see the above traceback"


def test_a_failing_nbgrader_says_why(course, tmp_path):
    """A real nbgrader failure (two cells with one grade_id) comes back with nbgrader's own words."""
    broken = tmp_path / "course"
    shutil.copytree(course.root / "source", broken / "source")
    shutil.copy(course.root / "nbgrader_config.py", broken)
    path = broken / "source" / "maskdiff" / course.notebooks()[0]
    nb = notebooks.read(path)
    copy = next(c for c in nb.cells if notebooks.is_test(c)).copy()
    copy.id = "a-copy"
    nb.cells.append(copy)
    notebooks.write(nb, path)
    with pytest.raises(release.CourseError) as caught:
        release.generate(Course.load(broken), tmp_path / "out", tmp_path / "ws")
    message = str(caught.value)
    assert message.startswith("nbgrader generate_assignment failed: jsonschema.exceptions.ValidationError: "
                              "Duplicate grade id: test_MakeSchedule"), message
    assert "Please see" not in message and "Unwritable" not in message


@pytest.mark.slow
def test_the_cli_works_from_an_unactivated_venv(course, tmp_path):
    """`venv/bin/python -m maskdiff_solutions grade ...` with nothing of the venv on PATH: nbgrader's
    `alembic` is found beside the interpreter. Without it, the error says what is missing."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True)
    alembic = Path(sys.executable).parent / "alembic"
    alembic = alembic if alembic.is_file() else Path(shutil.which("alembic"))
    (venv / "bin" / "alembic").symlink_to(alembic.resolve())
    (tmp_path / "collected" / "a").mkdir(parents=True)
    env = {"HOME": os.environ.get("HOME", str(tmp_path)), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    argv = [str(venv / "bin" / "python"), "-m", "maskdiff_solutions", "grade", str(tmp_path / "collected"),
            "--workspace", str(tmp_path / "ws"), "--notebook", "01", "--course-dir", str(course.root)]
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


# --- the table and the progress bar ---------------------------------------------------------------

def test_the_table_fits_long_ids_and_its_manual_column_cannot_be_misread():
    rows = [Row("a-very-long-student-id-from-a-learning-system", "01_noise_for_words", "graded", 9, 9,
                manual_max=9, manual_pending=9),
            Row("b", "01_noise_for_words", "graded", 0, 9, manual_score=0, manual_max=9),
            Row("c", "01_noise_for_words", "graded", 9, 9, manual_score=4, manual_max=9, manual_pending=3),
            Row("d", "02_undiffusing", "missing", reason="02_undiffusing.ipynb was not in the submission")]
    lines = table(rows).splitlines()
    starts = {line.index(word) for line, word in zip(lines, ["status", "graded", "graded", "graded", "missing"])}
    assert len(starts) == 1  # the status column starts at the same place on every line
    assert "9 to grade" in lines[1] and " 0/9" in lines[2] and "4/6 +3 to grade" in lines[3]
    assert not re.search(r"\b9\*", table(rows))
    assert "still to be graded by a person" in table(rows)


def test_the_progress_bar_moves_once_per_notebook(tmp_path):
    scratch = {s: tmp_path / s for s in ("a", "b")}
    bar = Progress(scratch, 5, "maskdiff", enabled=False)
    assert bar.count() == 0
    for done, name in enumerate(["01.ipynb", "02.ipynb"], start=1):
        graded = tmp_path / "a" / "notebooks" / name[:2] / "work" / "autograded" / "a" / "maskdiff"
        graded.mkdir(parents=True)  # each notebook is graded in a folder of its own (course/by_notebook.py)
        (graded / name).write_text("{}")
        bar.refresh()
        assert bar.count() == bar.shown == done
    bar.finished("b")  # b's notebooks were missing: they count when b is done
    assert bar.shown == 7
    bar.close()


# --- .ci/setup -----------------------------------------------------------------------------------

SHIM = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in
  *"import torch"*) exit {torch} ;;
  *"import sys"*) echo "shim 3.11" ;;
  *"--index-url"*) exit {index} ;;
esac
exit 0
"""


@pytest.mark.parametrize("torch, index, expected", [
    (1, 1, ["--index-url https://download.pytorch.org/whl/cpu torch==2.13.0", "install --quiet torch==2.13.0"]),
    (1, 0, ["--index-url https://download.pytorch.org/whl/cpu torch==2.13.0"]),
    (0, 0, []),
])
def test_setup_installs_a_pinned_cpu_torch_from_pytorchs_index_first(tmp_path, torch, index, expected):
    """Run .ci/setup against a stand-in `python` that records what it is asked: torch comes from
    PyTorch's CPU index, else the same pinned version from the default index, never unpinned."""
    log, bin_ = tmp_path / "calls.log", tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("python", SHIM.format(log=log, torch=torch, index=index)), ("bwrap", "#!/bin/sh\n")):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(stat.S_IRWXU)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(ROOT / ".ci" / "setup")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    torch_installs = [line for line in log.read_text().splitlines() if "torch" in line and "install" in line]
    assert [next(e for e in expected if e in line) for line in torch_installs] == expected
    assert all("torch==2.13.0" in line for line in torch_installs)
    assert "-m pip install --quiet -r requirements.txt" in log.read_text()


def test_the_readme_quotes_the_torch_that_setup_installs():
    pin = re.search(r"^TORCH=torch==([\d.]+)$", (ROOT / ".ci" / "setup").read_text(), re.M).group(1)
    assert f"torch {pin} if no torch is installed" in README


# --- git keeps out student data -------------------------------------------------------------------

@pytest.mark.parametrize("path", ["collected/a/01_noise_for_words.ipynb", "submitted/a/maskdiff/x.ipynb",
                                  "feedback/a/maskdiff/x.html", "autograded/a/maskdiff/x.ipynb",
                                  "gradebook.db", CSV_NAME, "grades.csv", "grading-summary.png"])
def test_student_data_and_grading_output_are_ignored_by_git(path):
    if shutil.which("git") is None:
        pytest.skip("no git")
    done = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True)
    if done.returncode not in (0, 1):
        pytest.skip("not a git checkout")
    assert done.returncode == 0, f"{path} is not in .gitignore"


# --- the README holds to the code ----------------------------------------------------------------

README = (ROOT / "README.md").read_text()


def test_the_readme_documents_every_command_and_the_console_script():
    commands = cli.parser()._subparsers._group_actions[0].choices
    for command in commands:
        assert f"python -m maskdiff_solutions {command}" in README, command
    assert "`maskdiff`" in README and 'maskdiff = "maskdiff_solutions.course.cli:main"' in \
        (ROOT / "pyproject.toml").read_text()


def test_the_readme_names_every_column_of_our_grades_file():
    from dataclasses import fields
    assert CSV_NAME in README
    for field in fields(Row):
        assert f"`{field.name}`" in README, field.name


def test_the_readme_quotes_the_handed_in_budgets_and_settings():
    from maskdiff_solutions.course import handed_in
    from maskdiff_solutions.course.layout import SETTINGS
    assert (f"{handed_in.MAX_OUTPUTS} outputs and\n   {handed_in.MAX_CELL_CHARS:,} characters per cell, "
            f"{handed_in.MAX_NOTEBOOK_CHARS:,} per notebook") in README
    for setting in SETTINGS:
        assert f"`{setting}`" in README, setting
    assert handed_in.STUDENT_LABEL.split(".")[0].strip("*") in README
    assert "Re-run by the grader" in handed_in.RERUN_LABEL and "Re-run by the grader" in README


def figures(text):
    return set(re.findall(r"\d+(?:\.\d+)?", text))


def test_the_readmes_figures_are_those_of_benchmarks_md():
    """Every number in the README's timing sentences and its summary of the figures is one that
    BENCHMARKS.md (one run of benchmarks/all.py, with its load) gives."""
    benchmarks = figures((ROOT / "BENCHMARKS.md").read_text())
    start = README.index("On the 2-core machine the demo")
    quoted = README[start:README.index("\n\n", start)]
    start = README.index("`BENCHMARKS.md` lists every figure")
    quoted += README[start:README.index("\n\n", start)]
    assert "load average" in quoted and "454.3 s" in quoted
    assert figures(quoted) - benchmarks == set()


# --- a course whose written answers are optional ---------------------------------------------------

def optional_course(course, folder):
    """A course root with notebook 01 alone and `written_answers = "optional"`."""
    for part in ("source", "release"):
        (folder / part / course.assignment).mkdir(parents=True)
        shutil.copy(getattr(course, f"{part}_dir") / NB01, folder / part / course.assignment)
    shutil.copy(course.root / "nbgrader_config.py", folder)
    (folder / "pyproject.toml").write_text(f'[tool.maskdiff]\nassignment = "{course.assignment}"\n'
                                           f'written_answers = "optional"\n')
    return Course.load(folder)


NB01 = "01_noise_for_words.ipynb"


@pytest.mark.slow
def test_optional_written_answers_make_the_grade_fully_automatic(course, tmp_path, capsys):
    """One student, notebook 01, every answer written: nothing waits for a person, anywhere."""
    from nbgrader.api import Gradebook

    from maskdiff_solutions.course import demo, summary
    from maskdiff_solutions.course.export import export
    from maskdiff_solutions.course.batch import grade
    optional = optional_course(course, tmp_path / "course")
    assert optional.answers_optional and not course.answers_optional
    collected = tmp_path / "collected" / "reference"
    collected.mkdir(parents=True)
    manual = [c for c in notebooks.read(course.source_dir / NB01).cells if notebooks.is_manual(c)]
    assert manual  # the answers are there, and the student wrote every one
    notebooks.write(demo.solved(notebooks.read(course.source_dir / NB01),
                                notebooks.read(course.release_dir / NB01)), collected / NB01)
    workspace = tmp_path / "ws"
    report = grade(optional, tmp_path / "collected", workspace, progress=False, sandbox="off", canary=False)
    [row] = report.rows
    assert row.status == "graded" and row.auto_score == row.auto_max > 0, row
    assert (row.manual_score, row.manual_max, row.manual_pending) == (0, 0, 0), row
    text = table(report.rows, optional=True)
    assert "optional" in text.splitlines()[1] and "to grade" not in text
    assert "written answers are optional in this course" in text
    assert "written answers: optional" in summary.text(report)
    page = (workspace / "feedback" / "reference" / course.assignment / NB01.replace(".ipynb", ".html")).read_text()
    best = f"{row.auto_max:g}"
    assert (f"Score: {best} / {best}, all of it autograded; written answers are optional in this course "
            f"and not graded") in page
    assert page.count("optional, not graded") >= len(manual) and "to be graded by a person" not in page
    assert " ".join("all of it autograded; written answers are optional in this course and not graded".split()) \
        in " ".join(README.split())
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook(NB01[:-len(".ipynb")], course.assignment, "reference")
        assert not any(grade.needs_manual_grade for grade in submitted.grades)  # formgrader: nothing to do
        assert (submitted.score, submitted.max_score) == (row.auto_max, row.auto_max)  # `nbgrader export` too
    rows, _, failed = export(optional, workspace)
    assert not failed and [(r.auto_score, r.manual_max, r.manual_pending) for r in rows] == [(row.auto_max, 0, 0)]
