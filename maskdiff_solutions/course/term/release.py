"""`release`: regenerate release/ from source/ through nbgrader (nbgrader_apps.generate), byte for byte
reproducibly."""
import shutil
import tempfile

from ..intake import notebooks
from ..records.nbgrader_apps import CourseError, generate


def needs_public_repository(course):
    if not course.public_repository:
        raise CourseError(f"{course.root / 'pyproject.toml'} [tool.maskdiff] has no public_repository: "
                          f"name the students' public GitHub repository (owner/name) that the Colab "
                          f"badges open")


def point_readers(course):
    """The source notebooks' set-up cells fetch drawing_reader.py from where `publish` puts it: when
    the course names another public repository or branch, their READER_URL follows (said aloud)."""
    for path in sorted(course.source_dir.glob("*.ipynb")):
        nb = notebooks.read(path)
        if notebooks.point_reader(nb, course.reader_url()):
            notebooks.write(nb, path)
            print(f"{path.relative_to(course.root)}: the set-up cell now fetches the drawing reader from "
                  f"{course.reader_url()} (commit it)")


def release(course, workspace=None):
    """Rewrite release/<assignment>/ from source/; returns the notebooks written."""
    needs_public_repository(course)
    point_readers(course)
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        built = generate(course, scratch, workspace or scratch)
        shutil.rmtree(course.release_dir, ignore_errors=True)
        shutil.copytree(built, course.release_dir)
    return sorted(course.release_dir.glob("*.ipynb"))
