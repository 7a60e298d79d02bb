import os
import shutil
from pathlib import Path

import pytest

from maskdiff_solutions.course.layout import Course

ROOT = Path(__file__).resolve().parents[1]
# Kernels started by the tests (Validator, autograde) find this checkout's hidden package first,
# as they do when instructors grade.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))


@pytest.fixture(scope="session")
def course():
    return Course.load(ROOT)


@pytest.fixture(scope="session")
def fresh_release(course, tmp_path_factory):
    """release/ regenerated from source/ into a scratch folder (the committed one is not touched)."""
    from maskdiff_solutions.course.release import generate
    scratch = tmp_path_factory.mktemp("release")
    return generate(course, scratch / "out", scratch / "workspace")


@pytest.fixture(scope="session")
def graded_batch(course, tmp_path_factory):
    """One grading run over the demo's three students plus the awkward ones a real batch holds."""
    from maskdiff_solutions.course.demo import build_submissions
    from maskdiff_solutions.course.grade import grade
    workspace = tmp_path_factory.mktemp("grading")
    batch = workspace / "collected"
    build_submissions(course, batch)
    # A student who ships a fake hidden package that would pass every hidden test.
    shutil.copytree(batch / "untouched", batch / "shadow")
    (batch / "shadow" / "maskdiff_solutions").mkdir()
    (batch / "shadow" / "maskdiff_solutions" / "__init__.py").write_text("")
    (batch / "shadow" / "maskdiff_solutions" / "grading.py").write_text("def run(*a, **k): pass\n")
    # A notebook that is not JSON at all, and a student who handed in nothing.
    (batch / "broken").mkdir()
    for name in course.notebooks():
        (batch / "broken" / name).write_text("{ this is not a notebook")
    (batch / "nothing").mkdir()
    report = grade(course, batch, workspace)
    return workspace, {(row.student, row.notebook): row for row in report.rows}
