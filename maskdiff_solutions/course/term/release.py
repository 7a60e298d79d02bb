"""`release`: regenerate release/ from source/ through nbgrader (nbgrader_apps.generate), byte for byte
reproducibly, and put it in place whole (course/term/whole.py): a full disk leaves release/ as it was."""
import shutil
import tempfile

from ..intake import notebooks
from ..records.nbgrader_apps import CourseError, generate
from .whole import new_file, new_folder


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
            with new_file(path) as partial:   # a source notebook is never left half-written
                notebooks.write(nb, partial)
            print(f"{path.relative_to(course.root)}: the set-up cell now fetches the drawing reader from "
                  f"{course.reader_url()} (commit it)")


def release(course, workspace=None):
    """Rewrite release/<assignment>/ from source/; returns the notebooks written."""
    needs_public_repository(course)
    point_readers(course)
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        built = generate(course, scratch, workspace or scratch)
        with new_folder(course.release_dir) as partial:   # release/ whole, or as it was
            shutil.copytree(built, partial, dirs_exist_ok=True)
    return sorted(course.release_dir.glob("*.ipynb"))
