"""`publish`: the students' public repository holds every notebook its badges open, and no solution,
hidden test or package file; its README keeps the course's own words; its badges and drawing-reader
address follow the settings without a `release` first; publishing again replaces only its own files,
and refuses a leak or a file edited since."""
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records import nbgrader_apps
from maskdiff_solutions.course.term import publish, reader
from maskdiff_solutions.course.layout import PLACEHOLDER_REPOSITORY, Course

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[3]
NOTES = "Hand in on Canvas by Friday, 17:00.\n\n- notebook 01: week 2\n- notebook 02: week 3\n"


def course_copy(folder, settings):
    """Our course (source/, its nbgrader configuration, release/, the requirements students get) in
    folder with these [tool.maskdiff] settings: publish releases it without touching ours."""
    shutil.copytree(ROOT / "source", folder / "source")
    shutil.copytree(ROOT / "release", folder / "release")
    requirements = (ROOT / "requirements.txt").read_text()
    for name in ["nbgrader_config.py", "requirements.txt",
                 *(line.split()[1] for line in requirements.splitlines() if line.startswith("-r "))]:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, folder / name)
    (folder / "pyproject.toml").write_text("[tool.maskdiff]\n" + "".join(f'{key} = "{value}"\n'
                                                                       for key, value in settings.items()))
    return Course.load(folder)


@pytest.fixture(scope="module")
def public(course, tmp_path_factory):
    """Our course with student notes, published once: (the course, the folder, the files written)."""
    copy = course_copy(tmp_path_factory.mktemp("course"), {"public_repository": course.public_repository,
                                                           "student_notes": "STUDENT_NOTES.md"})
    (copy.root / "STUDENT_NOTES.md").write_text(NOTES)
    folder = tmp_path_factory.mktemp("public") / "maskdiff-students"
    written = publish.publish(copy, folder)
    return copy, folder, written


def every_file(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts)


def test_every_badge_opens_a_notebook_of_the_public_repository(public):
    course, folder, _ = public
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


def test_the_public_repository_holds_no_solution_hidden_test_or_package_file(public):
    course, folder, written = public
    files = every_file(folder)
    assert sorted(str(p.relative_to(folder)) for p in files) == sorted(written)
    assert {p.suffix for p in files if p.name != publish.READER} <= {".ipynb", ".md", ".txt", ""}
    assert (folder / publish.READER).read_text() == reader.reader_text()  # the one Python file: the reader
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


# A student's own Python with no network: IPython runs the cells in the current folder; every try to
# fetch is counted in the file fetch-tries.
OFFLINE = textwrap.dedent("""
    import json, sys, urllib.request
    def offline(*args, **kwargs):
        open("fetch-tries", "a").write("1")
        raise OSError("no network")
    urllib.request.urlopen = offline
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    print("CELLS_OK", json.dumps([shell.run_cell(source).success for source in json.load(open(sys.argv[1]))]))
""")
DRAWING = "import matplotlib.pyplot as plt\nplt.plot([0, 50], [1, 0], label='alpha_bar')\nplt.legend()\nplt.show()"


def run_offline(folder, cells):
    (folder / "cells.json").write_text(json.dumps(cells))
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "CI", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", OFFLINE, "cells.json"], cwd=folder, capture_output=True, text=True,
                          timeout=300, env={**env, "MPLBACKEND": "Agg", "CUDA_VISIBLE_DEVICES": ""})
    assert f"CELLS_OK {json.dumps([True] * len(cells))}" in done.stdout, (done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def test_a_clone_uses_the_reader_beside_the_notebooks_and_a_notebook_alone_says_what_it_lacks(public, tmp_path):
    """drawing_reader.py lies beside the published notebooks, so a clone (or a folder uploaded whole) has
    it: the set-up cell imports that copy and never goes online. A notebook alone and offline says in
    its set-up cell what is missing and what still works, and its drawings' test cells and its last
    cell go on."""
    _, published, written = public
    name = "01_noise_for_words.ipynb"
    assert {publish.READER, name} <= set(written) and (published / publish.READER).is_file()
    nb = notebooks.read(published / name)
    setup, test = (next(c.source for c in nb.cells if notebooks.grade_id(c) == gid)
                   for gid in ("setup", "test_plot_schedule"))
    clone = tmp_path / "clone"
    shutil.copytree(published, clone)
    out = run_offline(clone, [setup, "print('READER', drawing_reader.__file__)", DRAWING, test])
    assert not (clone / "fetch-tries").exists() and f"READER {clone / publish.READER}" in out
    assert "What the autograder's reader finds in plot_schedule:" in out and "not in this folder" not in out
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(published / name, alone / name)
    out = run_offline(alone, [setup, DRAWING, test, nb.cells[-1].source])
    assert (alone / "fetch-tries").read_text() == "1" and not (alone / publish.READER).exists()
    assert ("drawing_reader.py is not in this folder and could not be fetched (no network).\nThe notebook runs, "
            "its visible tests check your functions and your drawings are graded all the same; show_reading and "
            "the hand-in check need the file: put it beside the notebook") in out
    assert "the autograder reads the drawing cell plot_schedule; without drawing_reader.py (see the set-up cell)" in out
    assert "the hand-in check is in drawing_reader.py" in out


def test_publishing_again_replaces_its_files_keeps_the_others_and_the_course_text(public, tmp_path):
    course, published, _ = public
    folder = tmp_path / "students"
    shutil.copytree(published, folder)
    (folder / "LICENSE").write_text("CC-BY")
    (folder / "old.ipynb").write_text("{}")
    with open(folder / publish.MANIFEST, "a") as handle:
        handle.write("old.ipynb\n")  # as a publish that kept no fingerprints listed it
    publish.publish(course, folder)
    assert (folder / "LICENSE").read_text() == "CC-BY" and not (folder / "old.ipynb").exists()
    for readme in ((published / "README.md").read_text(), (folder / "README.md").read_text()):
        assert readme.count(NOTES.strip()) == 1
        assert readme.index("| --- | --- |") < readme.index(f"## {publish.NOTES_HEADING}\n\n{NOTES.strip()}\n") \
            < readme.index("## Working on them")
        assert f"Download .ipynb*), where and when *{publish.NOTES_HEADING}* says." in readme


def test_a_course_without_notes_has_no_notes_heading_and_a_missing_notes_file_is_named(public, tmp_path):
    course, _, _ = public
    plain = publish.readme(["| a | b |"], publish.student_notes(dataclasses.replace(course, student_notes="")))
    assert publish.NOTES_HEADING not in plain and "Download .ipynb*).\n" in plain
    missing = dataclasses.replace(course, student_notes="notes/hand-in.md")
    with pytest.raises(nbgrader_apps.CourseError) as refused:
        publish.publish(missing, tmp_path / "out")
    assert str(refused.value).startswith(f"{course.root / 'pyproject.toml'} [tool.maskdiff] student_notes = "
                                         f"'notes/hand-in.md', and there is no file {course.root / 'notes/hand-in.md'}")
    assert not (tmp_path / "out").exists()
    bad = tmp_path / "bad"
    (bad / "source").mkdir(parents=True)
    (bad / "nbgrader_config.py").write_text("")
    (bad / "pyproject.toml").write_text('[tool.maskdiff]\nstudent_notes = "../notes.md"\n')
    with pytest.raises(ValueError, match=r"student_notes = '\.\./notes\.md' is not a Markdown file of the course"):
        Course.load(bad)


def test_publish_refuses_to_overwrite_a_file_edited_since_it_wrote_it(public, tmp_path):
    course, published, _ = public
    folder = tmp_path / "students"
    shutil.copytree(published, folder)
    readme = (folder / "README.md").read_text()
    (folder / "README.md").write_text(readme.replace("\n", "\r\n"))  # a clone's line ends are no edit
    assert publish.edited_since(folder) == []
    (folder / "README.md").write_text(readme + "Office hours: Tuesday.\n")
    with pytest.raises(nbgrader_apps.CourseError, match=r"README\.md in .* changed since publish wrote it, and "
                                                  r"publishing would overwrite it: put the course's own words in "
                                                  r"the Markdown file \[tool\.maskdiff\] student_notes names"):
        publish.publish(course, folder)
    assert (folder / "README.md").read_text().endswith("Office hours: Tuesday.\n")


def test_after_the_repository_changes_publish_alone_points_badges_and_reader_at_it(course, tmp_path, capsys):
    """The instructor's report: public_repository changed, publish run without release. Every badge and
    every READER_URL published names the new repository, release/ follows, and publish says so."""
    moved = course_copy(tmp_path / "course", {"public_repository": "a-school/dlm-2027", "public_branch": "fall"})
    stale = {name: (moved.release_dir / name).read_text() for name in moved.notebooks()}
    assert publish.disagreements(moved, stale)  # what publish published before, and now refuses
    assert cli.main(["publish", str(tmp_path / "students"), "--course-dir", str(moved.root)]) == 0
    said = capsys.readouterr().out
    fetching = [name for name in moved.notebooks() if "READER_URL" in stale[name]]
    pointed = f"the set-up cell now fetches the drawing reader from {moved.reader_url()}"
    # every notebook fetches the reader: its drawings' test cells and its last cell (the hand-in check) use it
    assert fetching == list(moved.notebooks()), fetching
    assert said.count(pointed) == len(fetching), said
    # the source/ notebooks publish rewrote, by their path in the course, to commit
    assert all(f"source/maskdiff/{name}: {pointed} (commit it)" in said for name in fetching), said
    assert said.count("regenerated from source/ (commit it)") == len(moved.notebooks())
    assert said.strip().endswith("commit and push it to https://github.com/a-school/dlm-2027"), said
    readers, badges = [], []
    for name in moved.notebooks():
        text = (tmp_path / "students" / name).read_text()
        assert text == (moved.release_dir / name).read_text()
        readers += notebooks.READER_LINE.findall("".join(c.source + "\n" for c in notebooks.read_text(text).cells))
        badges += publish.badge_targets(text)
    badges += publish.badge_targets((tmp_path / "students" / "README.md").read_text())
    assert readers == [f'READER_URL = "{moved.reader_url()}"'] * len(fetching)
    assert moved.reader_url() == "https://raw.githubusercontent.com/a-school/dlm-2027/fall/drawing_reader.py"
    assert sorted(badges) == sorted([("a-school/dlm-2027", "fall", name) for name in moved.notebooks()] * 2)


def test_publish_refuses_notebooks_that_point_elsewhere_than_the_settings(public, tmp_path, monkeypatch):
    """Were release/ left behind the settings (here: not regenerated), publish says why it stops."""
    course, _, _ = public
    monkeypatch.setattr(publish, "release_up_to_date", lambda course_: None)
    moved = dataclasses.replace(course, public_repository="a-school/dlm-2027")
    with pytest.raises(nbgrader_apps.CourseError, match=r"refusing to publish, the notebooks do not all point at "
                                                  r"a-school/dlm-2027 \(branch main\): 01_\w+\.ipynb: a Colab "
                                                  rf"badge opens {course.public_repository} \(branch main\); .*"
                                                  r"fetches the drawing reader from https://raw\."):
        publish.publish(moved, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_closing_line_names_the_placeholder_repository_as_unconfigured(course):
    assert course.public_repository == PLACEHOLDER_REPOSITORY  # the bundle's own pyproject.toml
    line = publish.closing(course, "../students", ["a", "b"])
    assert line == (f"wrote the students' repository (2 files) to ../students; commit and push it to "
                    f"https://github.com/{PLACEHOLDER_REPOSITORY} (the placeholder: set [tool.maskdiff] "
                    f"public_repository in pyproject.toml to your students' repository and publish again)")
    mine = publish.closing(dataclasses.replace(course, public_repository="a-school/dlm-2027"), "x", ["a"])
    assert "placeholder" not in mine and mine.endswith("https://github.com/a-school/dlm-2027")


def test_publish_refuses_folders_it_did_not_write_and_the_course_itself(public, tmp_path):
    course, _, _ = public
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(nbgrader_apps.CourseError, match="did not write"):
        publish.publish(course, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    with pytest.raises(nbgrader_apps.CourseError, match="inside the course repository"):
        publish.publish(course, course.root / "public")
    assert not (course.root / "public").exists()


def test_publish_refuses_to_write_a_leak(public, tmp_path, monkeypatch):
    course, _, _ = public
    real = publish.build

    def leaky(course_, notes):
        files = real(course_, notes)
        source = notebooks.read(course.source_dir / course.notebooks()[0])
        files["README.md"] += "\n".join(sorted(notebooks.secret_lines(source))[:1])
        return files
    monkeypatch.setattr(publish, "build", leaky)
    with pytest.raises(nbgrader_apps.CourseError, match="solution or hidden-test line"):
        publish.publish(course, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_release_badges_point_at_the_public_repository(course):
    for name in course.notebooks():
        first = notebooks.read(course.release_dir / name).cells[0].source
        assert publish.badge_targets(first) == [(course.public_repository, course.public_branch, name)]


# --- every file of the students' folder, whoever put it there ---------------------------------------


def plant_leaks(course, folder, autograder):
    """What an instructor's hands move from the course into the students' folder by mistake, and what
    `git add -A` would then publish: {relative path: what the refusal must say of it}."""
    source = course.source_dir / course.notebooks()[0]
    planted = {
        "solutions/week1.ipynb": "holds '### BEGIN SOLUTION'",                    # last year's solution notebook
        "01-solved.ipynb": f"a copy of the course's source/maskdiff/{course.notebooks()[0]}",   # a source one, renamed
        "notes.md": "holds '### BEGIN HIDDEN TESTS'",                             # a hidden test pasted in
        "maskdiff_solutions/": "named like the course's own 'maskdiff_solutions' (",            # the package
        "helpers.py": "a copy of the course's maskdiff_solutions/grading/forward.py",          # a check, renamed
        "autograder.zip": "an autograder zip",                                    # gradescope's output
        "material.dat": "an archive whose source/maskdiff/",                      # the course zipped, renamed
        "gradebook.db": "named like the course's own 'gradebook.db'",             # the students' marks
        "marks.sqlite": "a database",
        "week1/grades-by-notebook.csv": "named like the course's own 'grades-by-notebook.csv'",
        "__pycache__/forward.cpython-311.pyc": "compiled Python",
        "course": "a link out of the students' folder",
        "answers.txt": "holds the solution or hidden-test line",                  # solution lines alone
        "marks-week1.csv": "students' names or marks",                            # a grades file, renamed
        "class.csv": "students' names or marks",                                  # Canvas's class list
        course.notebooks()[0]: "a copy of the course's source/maskdiff/",         # copied over the published one
    }
    (folder / "solutions").mkdir()
    (folder / "solutions" / "week1.ipynb").write_text(source.read_text().replace("Noise", "Last year's noise"))
    shutil.copy(source, folder / "01-solved.ipynb")
    shutil.copy(source, folder / course.notebooks()[0])
    (folder / "notes.md").write_text(f"To do\n{notebooks.BEGIN_HIDDEN}\nassert x\n{notebooks.END_HIDDEN}\n")
    shutil.copytree(ROOT / "maskdiff_solutions", folder / "maskdiff_solutions",
                    ignore=shutil.ignore_patterns("__pycache__", "course"))
    shutil.copy(ROOT / "maskdiff_solutions" / "grading" / "forward.py", folder / "helpers.py")
    shutil.copy(autograder, folder / "autograder.zip")
    shutil.make_archive(str(folder / "material"), "zip", course.root, "source")
    (folder / "material.zip").rename(folder / "material.dat")
    (folder / "gradebook.db").write_bytes(b"SQLite format 3\0")
    (folder / "marks.sqlite").write_bytes(b"SQLite format 3\0 marks")
    (folder / "week1").mkdir()
    (folder / "week1" / "grades-by-notebook.csv").write_text("student,notebook\nann,01\n")
    (folder / "__pycache__").mkdir(exist_ok=True)
    (folder / "__pycache__" / "forward.cpython-311.pyc").write_bytes(b"\xa7\r\r\n compiled")
    (folder / "course").symlink_to(course.root)
    (folder / "marks-week1.csv").write_text("student,notebook,status,auto_score,auto_max\nann,01,graded,16,16\n")
    (folder / "class.csv").write_text("Student,ID,SIS User ID,SIS Login ID,Section\n\"Doe, Jane\",4242,,jd,A\n")
    secret = sorted(line for line in notebooks.secret_lines(notebooks.read(source)) if len(line) > 30)
    (folder / "answers.txt").write_text("\n".join(secret[:3]) + "\n")
    return planted


def test_publish_refuses_every_file_of_the_folder_that_students_must_not_see(public, tmp_path, capsys):
    """The documented flow publishes with `git add -A`: a solution notebook copied into the folder, a
    check under another name, the autograder, the class's marks... each stops publish, named, before
    anything is written; the honest files beside them (a licence, a CI workflow, the reader's cache) do not."""
    from maskdiff_solutions.course.term import gradescope
    course, published, _ = public
    folder = tmp_path / "students"
    shutil.copytree(published, folder)
    (folder / "LICENSE").write_text("CC-BY-4.0")
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / ".github" / "workflows" / "check.yml").write_text("on: push\njobs: {}\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "drawing_reader.cpython-311.pyc").write_bytes(b"\xa7\r\r\n the reader")
    honest = ["LICENSE", ".github/workflows/check.yml", "__pycache__/drawing_reader.cpython-311.pyc"]
    publish.refuse_leaks(course, folder)   # honest files: nothing to refuse
    autograder, _ = gradescope.build(course, tmp_path / "autograder.zip", ["01"])
    planted = plant_leaks(course, folder, autograder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}
    assert cli.main(["publish", str(folder), "--course-dir", str(course.root)]) == 2
    err = capsys.readouterr().err
    error = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and error[0].startswith(f"error: refusing to publish, {folder} holds what students "
                                                   f"must never see, and `git add -A` would publish it: "), err
    for relative, why in planted.items():
        assert f"{relative}: {why}" in error[0], (relative, why, error[0])
    assert not any(f"{relative}: " in error[0] for relative in honest), error[0]
    assert error[0].endswith(f"remove them from {folder} (and from its git history if committed), then publish again")
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink()} == before
