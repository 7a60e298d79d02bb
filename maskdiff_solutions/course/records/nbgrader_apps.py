"""nbgrader's apps as the course calls them: generate_assignment into a folder (and the gradebook it
fills), converters that run in threads without moving the process's working folder, and the error
lines nbgrader logs, gathered so that a failure says what went wrong."""
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from nbconvert.writers import FilesWriter
from nbgrader.apps import NbGraderAPI

from ..intake import notebooks
from ..layout import COURSE_ID, beside_cache


class CourseError(RuntimeError):
    """A step of the course pipeline failed; the message says which and why."""


def tools_on_path():
    """nbgrader shells out to commands installed beside it (`alembic`, when it opens a gradebook).
    Run as `venv/bin/python -m maskdiff_solutions` without activating the venv, they are not on PATH:
    put this interpreter's own bin folder first (not resolved: a venv's python is a link)."""
    here = os.path.dirname(os.path.abspath(sys.executable))
    path = os.environ.get("PATH", "").split(os.pathsep)
    if here not in path:
        os.environ["PATH"] = os.pathsep.join([here, *filter(None, path)])
    if shutil.which("alembic") is None:
        raise CourseError(f"nbgrader needs the `alembic` command (installed with nbgrader), and it is "
                          f"neither beside this Python ({here}) nor on PATH: install nbgrader into the "
                          f"environment of {sys.executable} (bash .ci/setup)")


class _Collect(logging.Handler):
    def __init__(self, thread=None):
        super().__init__(logging.ERROR)
        self.messages, self.thread = [], thread

    def emit(self, record):
        if self.thread is not None and record.thread != self.thread:
            return  # another notebook's nbgrader run, in another thread
        try:
            self.messages.append(record.getMessage())
        except Exception:  # noqa: BLE001 - a badly formatted record must not hide the others
            self.messages.append(str(record.msg))


# nbgrader's lines that say nothing about the failure (the exchange is never used here)
GENERIC = ("Please see the", "There was an error processing assignment", "Unwritable directory")


@contextmanager
def nbgrader_errors(this_thread=False):
    """Collect the error lines nbgrader logs while it runs: its API hands back only a traceback that
    ends in 'Please see the above traceback', while the real error went to its log. this_thread: only
    the lines logged in this thread (other threads run nbgrader for other notebooks)."""
    handler = _Collect(threading.get_ident() if this_thread else None)
    logger = logging.getLogger("traitlets")  # nbgrader's apps log there
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


def failure(result, messages, most=8):
    """nbgrader's real error lines: each logged error, a traceback by its last line (the exception),
    without nbgrader's 'see the above traceback'; else the last line of its own traceback."""
    lines = []
    for message in messages:
        text = [line.rstrip() for line in str(message).splitlines() if line.strip()]
        if not text or any(text[0].startswith(generic) for generic in GENERIC):
            continue
        line = text[-1].strip() if text[0].startswith("Traceback") else " ".join(text)
        if line not in lines:
            lines.append(line[:500])
    if not lines:
        text = [line for line in (result.get("error") or result.get("log") or "").splitlines() if line.strip()]
        lines = text[-1:] or ["no error message"]
    hint = (" (nbgrader runs the `alembic` command; install nbgrader into this Python's environment)"
            if any("'alembic'" in line for line in lines) else "")
    return "; ".join(lines[-most:]) + hint


def blank_gradebook(db, course_id=COURSE_ID):
    """Start a new gradebook at db as a copy of a blank one, made once per nbgrader version and course
    (making one runs nbgrader's `alembic` command: about 3 s of every fresh workspace). The blank one
    is kept beside the stand-in cache, not in it: kernels see that folder."""
    import nbgrader
    from nbgrader.api import Gradebook

    def make(path):
        with Gradebook(f"sqlite:///{path}", course_id=course_id):
            pass
    blank = kept_gradebooks() / f"blank-{nbgrader.__version__}-{course_id}.db"
    if not blank.is_file():
        keep(blank, make)
    shutil.copyfile(blank, db)


def kept_gradebooks():
    """Where blank and generated gradebooks are kept."""
    return beside_cache("-gradebooks")


def keep(kept, make):
    """Write `kept` whole or not at all (make(path) writes it beside), whoever keeps one at the same moment."""
    kept.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=kept.parent) as scratch:
        made = Path(scratch) / kept.name
        make(made)
        os.replace(made, kept)


def generated_digest(course):
    """What generate_assignment's gradebook rows follow from: every file of source/, the course's
    nbgrader_config.py, and the nbgrader and nbformat that read them."""
    import nbformat
    import nbgrader
    digest = hashlib.sha256(f"{nbgrader.__version__} {nbformat.__version__}\n".encode())
    files = [course.root / "nbgrader_config.py"] + sorted(p for p in course.source_dir.rglob("*") if p.is_file())
    for path in files:
        if path.is_file():
            digest.update(f"{path.relative_to(course.root)}\n".encode() + path.read_bytes() + b"\n")
    return digest.hexdigest()[:32]


def up_to_date_gradebook(course, workspace):
    """workspace/gradebook.db brought up to date with source/ (generate_assignment, into a scratch
    release). A fresh workspace gets a copy of the gradebook it made for the same inputs, kept once
    per machine: generating takes 1.5 s and more of every grading into a new workspace."""
    db = Path(workspace) / "gradebook.db"
    kept = kept_gradebooks() / f"generated-{generated_digest(course)}.db"
    if not db.exists() and kept.is_file():
        Path(workspace).mkdir(parents=True, exist_ok=True)
        partial = db.with_name(f".{db.name}.{os.getpid()}.partial")   # a full disk leaves no cut-short gradebook.db
        try:
            shutil.copyfile(kept, partial)
            os.replace(partial, db)
        finally:
            partial.unlink(missing_ok=True)
        return
    fresh = not db.exists()
    with tempfile.TemporaryDirectory(prefix="maskdiff-release-") as scratch:
        generate(course, scratch, workspace)
    if fresh:
        keep(kept, lambda path: shutil.copyfile(db, path))


def generate(course, release_root, workspace):
    """nbgrader generate_assignment into release_root/<assignment>; also fills the gradebook. Each
    notebook gets its Colab badge when the course names its public repository."""
    tools_on_path()
    Path(workspace).mkdir(parents=True, exist_ok=True)
    config = course.nbgrader_config(workspace, release_directory=release_root)
    if not (Path(workspace) / "gradebook.db").exists():
        blank_gradebook(Path(workspace) / "gradebook.db", config.CourseDirectory.course_id or COURSE_ID)
    with nbgrader_errors() as messages:
        result = NbGraderAPI(config=config).generate_assignment(course.assignment, force=True)
    if not result["success"]:
        raise CourseError(f"nbgrader generate_assignment failed: {failure(result, messages)}")
    out = Path(release_root) / course.assignment
    for path in sorted(out.glob("*.ipynb")):
        if course.public_repository:
            notebooks.write(notebooks.insert_badge(notebooks.read(path), course.colab_url(path.name)), path)
    return out


class StayPut:
    """A converter whose start() does not change the process's working folder (nbgrader's does, to
    its course root, while it runs: threads would move each other's); every path here is absolute."""

    def start(self):
        self.init_notebooks()
        self.writer = FilesWriter(parent=self, config=self.config)
        self.exporter = self.exporter_class(parent=self, config=self.config)
        for pp in self.preprocessors:
            self.exporter.register_preprocessor(pp)
        self.convert_notebooks()
