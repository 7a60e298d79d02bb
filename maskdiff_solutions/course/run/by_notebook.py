"""One student's notebooks autograded one notebook at a time, `notebook_jobs` of them at once.

Each notebook is a unit of its own, whatever the number of jobs: its own nbgrader run (only that
notebook, `CourseDirectory.notebook_id`) in a work folder of its own, against its own copy of the
gradebook, with its own trusted checker holding that notebook's part of the check plan (each check
still once, in the notebook's order; each socket has a folder of its own, and with the sandbox on it
is the only one bound into that kernel's sandbox, so a kernel cannot reach another notebook's checker;
with `--sandbox off` every kernel runs as the grader and could). The units are then put
together in the notebooks' order into the student's scratch workspace (gradebook rows, autograded
folder), exactly as one nbgrader run over all notebooks would have left it. The results therefore
do not depend on `notebook_jobs`, only on each notebook: an nbgrader failure in one notebook fails
that notebook alone.

Units run in threads of the grading process (the work is in the kernels, one process each, and in
the checks). nbgrader's converter changes process-wide state while it runs (the working folder,
NBGRADER_EXECUTION, which it deletes when a notebook is done): `NotebookAutograde` leaves both to
the caller, which sets NBGRADER_EXECUTION once for all the units.
"""
import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.apps import NbGraderAPI
from nbgrader.converters import Autograde
from nbgrader.converters.base import BaseConverter
from nbgrader.utils import capture_log, temp_attrs

from ...grading.checker import Checker, Record
from ..layout import beside_cache
from ..records.gradebook import has_submission, take_notebook
from ..records.nbgrader_apps import StayPut, failure, keep, nbgrader_errors
from ..sandbox.environ import environment
from ..sandbox.settings import Settings


def default_jobs(jobs=1, cpus=None):
    """Notebooks graded at once per student when not told: the cores left per student (kernels and
    checks in quick mode use about one core each), at least one."""
    if cpus is None:
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cpus // max(1, jobs))


class NotebookAutograde(StayPut, Autograde):
    """nbgrader's Autograde without its process-wide side effects (the caller sets
    NBGRADER_EXECUTION for all units)."""

    def convert_single_notebook(self, notebook_filename):
        self._sanitizing = True
        self._init_preprocessors()
        BaseConverter.convert_single_notebook(self, notebook_filename)
        notebook_filename = os.path.join(self.writer.build_directory, os.path.basename(notebook_filename))
        self._sanitizing = False
        self._init_preprocessors()
        try:
            BaseConverter.convert_single_notebook(self, notebook_filename)
        finally:
            self._sanitizing = True


@dataclass
class Unit:
    """One notebook's autograde: where it ran and what came of it."""
    name: str                 # the notebook's file name
    folder: Path              # scratch/notebooks/<stem>: work/ (nbgrader's course root) and db/
    success: bool = False
    why: str = ""             # nbgrader's error when it failed
    record: Record = field(default_factory=Record)
    api: object = None        # the NbGraderAPI of its work folder, gradebook copy and notebook
    notes: list = field(default_factory=list)      # (status, sentence) from `finish`
    suspect: list = field(default_factory=list)    # integrity notes from `finish`
    timed: list = field(default_factory=list)      # test cells from the first a time limit stopped
    busy: bool = False                              # the machine's load stopped a cell (student.time_stops)

    @property
    def db(self):
        return self.folder / "db" / "gradebook.db"

    @property
    def work(self):
        return self.folder / "work"


def grading_environment():
    """NBGRADER_EXECUTION=autograde for the whole student (nbgrader's converter would set and delete
    it around each notebook, under the other units' kernels and checks)."""
    return environment({"NBGRADER_EXECUTION": "autograde"})


def autograde_unit(unit, course, student, target, template_db, plan, settings, finish=None):
    """Run nbgrader's autograde over one notebook of the handed-in folder `target`, then finish(unit)
    (course/run/student.py: the scores from the verdicts, and where it succeeded the feedback)."""
    unit.db.parent.mkdir(parents=True)
    shutil.copy(template_db, unit.db)
    shutil.copytree(target, unit.work / "submitted" / student / course.assignment)
    config = course.nbgrader_config(unit.work)
    config.CourseDirectory.db_url = f"sqlite:///{unit.db}"
    config.CourseDirectory.notebook_id = Path(unit.name).stem
    names = [name for notebook, _, checks in plan if notebook == unit.name for name in checks]
    with tempfile.TemporaryDirectory(prefix="mdc-") as sockets:  # short: socket paths are short
        os.chmod(sockets, 0o755)  # the sandbox's user reaches the socket through it (read-only)
        checker = Checker(Path(sockets) / "c.sock", names, scope="notebook")
        config.SurvivingExecute.sandbox = Settings(**{**settings, "checker": checker.path}).to_dict()
        with checker, nbgrader_errors(this_thread=True) as errors:
            config.SurvivingExecute.checker_thread = checker.thread_id   # its work counts as the cell's
            api = NbGraderAPI(config=config)
            with temp_attrs(api.coursedir, assignment_id=course.assignment, student_id=student):
                app = NotebookAutograde(coursedir=api.coursedir, parent=api)
                app.force, app.create_student = True, True
                result = capture_log(app)
    unit.success = result["success"]
    unit.why = "" if unit.success else failure(result, errors)
    unit.record, unit.api = checker.record, api
    for incident in unit.record.incidents:
        incident.notebook = unit.name
    if finish is not None:
        finish(unit)
    return unit


def seconds_file():
    """How long each notebook's unit took when last graded on this machine."""
    return beside_cache("-seconds.json")


def expected_seconds():
    try:
        seen = json.loads(seconds_file().read_text())
        return {str(name): float(value) for name, value in seen.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def remember_seconds(taken):
    """Keep the units' times for the next grading's order; a lost or clashing write only costs order."""
    text = json.dumps({**expected_seconds(), **taken}, indent=1, sort_keys=True)
    try:
        keep(seconds_file(), lambda path: path.write_text(text))
    except OSError:
        pass


def longest_first(names):
    """The order to start the units in: the longest first, as last seen here (a notebook never seen
    counts as the longest), so that two lanes end together instead of one waiting on a long notebook
    started last. The order changes no result: units are independent and combined in notebook order."""
    seen = expected_seconds()
    return sorted(names, key=lambda name: -seen.get(name, float("inf")))


def autograde_all(course, student, names, target, scratch, template_db, plan, settings, jobs=1, finish=None):
    """Autograde each notebook in `names` as a unit, `jobs` at once, each then given to finish(unit)
    in a thread of its own, so that the next notebook's kernel starts while the last one's scores and
    feedback are made; returns the units in order."""
    units = {name: Unit(name, Path(scratch) / "notebooks" / Path(name).stem) for name in names}
    taken = {}
    lanes = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix=f"grade-{student}")
    finishing = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix=f"finish-{student}")

    def timed(unit):
        started = time.perf_counter()
        autograde_unit(unit, course, student, target, template_db, plan, settings)
        taken[unit.name] = round(time.perf_counter() - started, 2)
        return finishing.submit(finish, unit) if finish is not None else None

    with grading_environment(), lanes, finishing:
        futures = {name: lanes.submit(timed, units[name]) for name in longest_first(names)}
        for name, unit in units.items():
            try:
                finished = futures[name].result()
                if finished is not None:
                    finished.result()
            except Exception as err:  # noqa: BLE001 - one notebook's crash fails that notebook
                unit.success, unit.why = False, f"{type(err).__name__}: {err}"[:500]
    remember_seconds(taken)
    return list(units.values())


def combine(units, db, work, student, assignment):
    """Put the units together into the student's gradebook copy `db` and autograded folder under
    `work`, in the notebooks' order: the gradebook of the first unit that holds the submission, then
    each other unit's rows for its own notebook; each unit's autograded and feedback folders copied
    over the last's."""
    holding = [unit for unit in units if has_submission(unit.db, student, assignment)]
    if holding:
        shutil.copy(holding[0].db, db)
        for unit in holding[1:]:
            take_notebook(db, unit.db, student, assignment, Path(unit.name).stem)
    for kind in ("autograded", "feedback"):
        for unit in units:
            theirs = unit.work / kind / student / assignment
            if theirs.is_dir():
                shutil.copytree(theirs, work / kind / student / assignment, dirs_exist_ok=True, symlinks=True)


def combined_record(units):
    record = Record()
    for unit in units:
        record.verdicts.update(unit.record.verdicts)
        record.incidents += unit.record.incidents
    return record
