"""`publish`: the students' public repository holds every notebook its badges open, and no solution,
hidden test or package file; publishing again replaces only its own files and refuses a leak."""
import shutil
from pathlib import Path

import pytest

from maskdiff_solutions.course import notebooks, publish, release

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[2]


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
