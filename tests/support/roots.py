"""Course roots made up for a test: a folder that `Course.load` reads as a course with the settings given,
and a copy of the real course with one more line of nbgrader configuration."""
import shutil
from pathlib import Path

from maskdiff_solutions.course.layout import Course


def fake_course(folder, settings):
    (folder / "source" / "maskdiff").mkdir(parents=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()\n")
    (folder / "pyproject.toml").write_text("[tool.maskdiff]\n" + settings)
    return folder


def with_nbgrader_lines(course, folder, lines, why):
    """A copy of the course in `folder` (its settings, source and release) whose nbgrader_config.py
    has `lines` more (nbgrader settings, e.g. `c.Execute.timeout = 15`), said to be there for `why`."""
    folder = Path(folder)
    for part in ("source", "release"):
        shutil.copytree(course.root / part, folder / part)
    shutil.copy(course.root / "pyproject.toml", folder)
    config = (course.root / "nbgrader_config.py").read_text()
    (folder / "nbgrader_config.py").write_text(config + f"\n# {why}\n" + "\n".join(lines) + "\n")
    return Course.load(folder)
