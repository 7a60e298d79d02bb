"""`release`: regenerate release/ from source/ through nbgrader, byte for byte reproducibly."""
import shutil
import tempfile
from pathlib import Path

from nbgrader.apps import NbGraderAPI

from . import notebooks


class CourseError(RuntimeError):
    """A step of the course pipeline failed; the message says which and why."""


def generate(course, release_root, workspace):
    """nbgrader generate_assignment into release_root/<assignment>; also fills the gradebook."""
    Path(workspace).mkdir(parents=True, exist_ok=True)
    config = course.nbgrader_config(workspace, release_directory=release_root)
    result = NbGraderAPI(config=config).generate_assignment(course.assignment, force=True)
    if not result["success"]:
        raise CourseError(f"nbgrader generate_assignment failed:\n{result.get('error') or result.get('log')}")
    out = Path(release_root) / course.assignment
    for path in sorted(out.glob("*.ipynb")):
        nb = notebooks.insert_badge(notebooks.read(path), course.colab_url(path.name))
        notebooks.write(nb, path)
    return out


def release(course, workspace=None):
    """Rewrite release/<assignment>/ from source/; returns the notebooks written."""
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        built = generate(course, scratch, workspace or scratch)
        shutil.rmtree(course.release_dir, ignore_errors=True)
        shutil.copytree(built, course.release_dir)
    return sorted(course.release_dir.glob("*.ipynb"))
