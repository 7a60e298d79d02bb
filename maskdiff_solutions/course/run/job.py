"""One student's grading as a self-contained job whose inputs and outputs are data (bytes and plain
values), so that it runs on any machine that has the course's environment and shares no folder
with the main process (a Dask worker, course/run/cluster.py).

In:  the student's submission (every entry as `submitted_entries` sees it: bytes, links, modification
     times), and once per batch the course bundle (nbgrader_config.py, pyproject.toml, source/ and
     release/ of the assignment, the gradebook template).
Out: a JobOutput: the StudentResult (the grades-by-notebook rows, each test's score, withheld
     notebooks, the checker's time) and the files `merge` reads from a scratch workspace (the
     student's gradebook copy, autograded notebooks, handed-in copies, feedback pages).

The worker runs exactly `student.grade_student`; the main process writes the outputs into the scratch
folder a local worker would have filled and merges it exactly as it merges a local one. Hence the
results do not depend on where a student was graded.
"""
import hashlib
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..intake import repair
from ..intake.folder import MAX_EXTRA_BYTES, MAX_EXTRA_FILES, regular_files, submitted_entries
from ..layout import COURSE_PACKAGES, PACKAGE_PARENT, warm_caches
from ..records.rows import Task
from ..sandbox.environ import environment
from . import student as one_student
from .by_notebook import default_jobs
# What kernels inherit of the grader's environment that Dask changes: its nanny sets these to 1 in
# every worker. A job restores the main process's values (None: unset), so that kernels run with the
# same threads as under the local pool.
THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass
class Entry:
    """One entry of a submission folder, as grading sees it (never following a link)."""
    path: str                 # relative, '/'-separated
    kind: str                 # file | placeholder (a file grading never reads) | link | other
    data: bytes = b""
    size: int = 0
    mtime_ns: int = 0
    target: str = ""          # a link's target, kept as text (grading never follows it)


@dataclass
class Job:
    student: str
    submission: list          # [Entry]
    sandbox: str
    limits: dict
    selected: list
    timeout: float = 0.0      # seconds for the whole student; 0: none
    notebook_jobs: object = None  # the student's notebooks at once; None: the worker's cores per thread
    environ: dict = field(default_factory=lambda: {name: os.environ.get(name) for name in THREADS})


@dataclass
class JobOutput:
    result: object            # rows.StudentResult
    files: dict = field(default_factory=dict)  # path relative to the scratch workspace -> bytes
    seconds: float = 0.0


# --- the submission as data ---------------------------------------------------------------------

def _walk(folder):
    """(relative path, kind, path) for everything grading looks at in folder, kind as in Entry: files
    grading never reads (notebooks over repair's size limit, other files past copy_extras' budget,
    counted in the same order) are placeholders."""
    count = size = 0
    for path, regular in submitted_entries(folder):
        relative = path.relative_to(folder).as_posix()
        if path.is_symlink():
            yield relative, "link", path
        elif not regular:
            yield relative, "other", path
        elif path.suffix == ".ipynb":
            yield relative, "file" if path.stat().st_size <= repair.MAX_NOTEBOOK_BYTES else "placeholder", path
        else:
            size, count = size + path.stat().st_size, count + 1
            yield relative, "file" if count <= MAX_EXTRA_FILES and size <= MAX_EXTRA_BYTES else "placeholder", path


def pack_submission(folder):
    """[Entry] for everything grading looks at in folder; placeholders travel as their size alone, so
    the worker reports them exactly as a local grader would."""
    entries = []
    for relative, kind, path in _walk(Path(folder)):
        if kind == "link":
            entries.append(Entry(relative, kind, target=os.readlink(path)))
        elif kind == "other":
            entries.append(Entry(relative, kind))
        else:
            info = path.stat()
            entries.append(Entry(relative, kind, path.read_bytes() if kind == "file" else b"", info.st_size,
                                 info.st_mtime_ns))
    return entries


def unpack_submission(entries, folder):
    """Recreate a packed submission in folder (a new one)."""
    folder = Path(folder)
    folder.mkdir(parents=True)
    for entry in entries:
        path = folder / entry.path
        if ".." in Path(entry.path).parts or Path(entry.path).is_absolute():
            raise ValueError(f"a packed entry outside its folder: {entry.path!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry.kind == "link":
            os.symlink(entry.target, path)
        elif entry.kind == "other":
            os.mkfifo(path)  # neither a file nor a link, as the original was
        else:
            with open(path, "wb") as handle:
                if entry.kind == "file":
                    handle.write(entry.data)
                else:
                    handle.truncate(entry.size)  # sparse: same size, nothing stored
            os.utime(path, ns=(entry.mtime_ns, entry.mtime_ns))


def submission_hash(folder):
    """A hash of what grading reads of a submission: names, kinds, link targets, the contents of the
    files it reads (placeholders: their size and time), and the notebooks' modification times, which
    choose among renamed copies."""
    digest = hashlib.sha256()
    for relative, kind, path in _walk(Path(folder)):
        digest.update(f"{relative}\0{kind}\0".encode())
        if kind == "link":
            digest.update(os.readlink(path).encode() + b"\0")
        elif kind == "placeholder":
            info = path.stat()
            digest.update(b"%d\0%d\0" % (info.st_size, info.st_mtime_ns))
        elif kind == "file":
            digest.update(b"%d\0" % (path.stat().st_mtime_ns if path.suffix == ".ipynb" else 0))
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
            digest.update(b"\0")
    return digest.hexdigest()


# --- the course as data -------------------------------------------------------------------------

def course_bundle(course, template_db):
    """{relative path: bytes}: what grade_student reads of the course root, and the gradebook
    template (as 'template.db')."""
    files = {"template.db": Path(template_db).read_bytes()}
    for name in ("nbgrader_config.py", "pyproject.toml"):
        if (course.root / name).is_file():
            files[f"course/{name}"] = (course.root / name).read_bytes()
    for folder in (course.source_dir, course.release_dir):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and ".ipynb_checkpoints" not in path.parts:
                files[f"course/{path.relative_to(course.root).as_posix()}"] = path.read_bytes()
    return files


def bundle_hash(files):
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def package_fingerprint():
    """A hash of this installation's course packages (their Python files): the main process and every
    worker must grade with the same code."""
    digest = hashlib.sha256()
    for package in COURSE_PACKAGES:
        for path in sorted((PACKAGE_PARENT / package).rglob("*.py")):
            digest.update(path.relative_to(PACKAGE_PARENT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


# --- on the worker ------------------------------------------------------------------------------

_GRADING = threading.Lock()  # one student at a time per process: grading sets os.environ (PYTHONPATH)
_COURSES = {}                # bundle hash -> the course written out in this process
_CACHE = []                  # this machine's stand-in cache folder, built once


def _course_here(files):
    key = bundle_hash(files)
    if key not in _COURSES or not (Path(_COURSES[key]) / "course").is_dir():
        folder = Path(tempfile.mkdtemp(prefix="maskdiff-course-"))
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        _COURSES[key] = str(folder)
    return Path(_COURSES[key])


def _notebook_jobs_here():
    """Notebooks at once per student on this worker: its cores shared among its threads."""
    try:
        from distributed import get_worker  # optional: only a Dask worker has it
        threads = get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        threads = 1
    return default_jobs(threads)


def _cache_here():
    if not _CACHE:
        _CACHE.append(warm_caches())
    return _CACHE[0]


def collect(scratch, student):
    """The files merge reads from a scratch workspace, as {relative path: bytes}."""
    scratch = Path(scratch)
    wanted = [(scratch / "db", "gradebook.db"), (scratch / "handed-in" / student, "*"),
              (scratch / "work" / "autograded" / student, "*"), (scratch / "work" / "feedback" / student, "*.html")]
    return {path.relative_to(scratch).as_posix(): path.read_bytes()
            for top, pattern in wanted for path in regular_files(top, pattern)}


def write_outputs(files, scratch):
    """Write a JobOutput's files into a (new) scratch workspace, where merge reads them."""
    scratch = Path(scratch)
    for name, data in files.items():
        if ".." in Path(name).parts or Path(name).is_absolute():
            raise ValueError(f"an output outside the scratch workspace: {name!r}")
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        (scratch / name).write_bytes(data)


def run_job(job, bundle):
    """Grade one student here (a worker): write the submission and course out, run grade_student,
    return a JobOutput. A crash becomes the student's failed rows, as in a local batch; past
    job.timeout the student's rows say so (the abandoned attempt ends under the cell time limits)."""
    started = time.perf_counter()
    done, box = threading.Event(), {}
    _GRADING.acquire()
    try:
        course_root = _course_here(bundle)
        folder = Path(tempfile.mkdtemp(prefix="maskdiff-job-"))
        task = Task(str(course_root / "course"), str(course_root / "template.db"), job.student,
                    str(folder / "submission"), str(folder / "scratch"), job.sandbox, _cache_here(), job.limits,
                    job.selected, job.notebook_jobs or _notebook_jobs_here())
    except BaseException:
        _GRADING.release()
        raise

    def work():
        try:
            unpack_submission(job.submission, folder / "submission")
            with environment(job.environ):
                box["result"] = one_student.grade_student(task)
        except Exception as err:  # noqa: BLE001 - one student's crash must not end the batch
            box["result"] = one_student.crashed(task, err)
        try:
            box["files"] = collect(folder / "scratch", job.student)
        except Exception as err:  # noqa: BLE001
            box["result"], box["files"] = one_student.crashed(task, err), {}
        finally:
            done.set()
            shutil.rmtree(folder, ignore_errors=True)
            _GRADING.release()

    threading.Thread(target=work, name=f"grade-{job.student}", daemon=True).start()
    if not done.wait(job.timeout or None):
        result = one_student.crashed(task, TimeoutError(f"took longer than the per-student limit of "
                                                        f"{job.timeout:g} s"))
        return JobOutput(result, {}, time.perf_counter() - started)
    return JobOutput(box["result"], box["files"], time.perf_counter() - started)
