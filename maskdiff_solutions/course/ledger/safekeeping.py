"""A workspace's results kept safe: one run at a time, and the grading before kept so one command undoes.

- `hold(workspace)` takes an flock on WORKSPACE/.grading.lock before anything is written there, or
  refuses at once, in one sentence, if another run holds it. The kernel drops the lock when its holder
  ends, crash included, so a lock file left behind never blocks anyone.
- `keep(workspace)`: before a grading changes a workspace that holds results, they are copied into
  WORKSPACE/earlier-gradings/NNNN-<when>/ (the CSVs, gradebook, intake, submitted/, autograded/, feedback/:
  RESULTS);
  the last KEPT are kept. `undo(workspace)` puts the latest back, and keeps what it replaces as
  `<when>-undone` (which a later undo passes over: each undo goes one grading further back).
- `earlier_points(workspace)`: each student's points in the latest earlier grading that found work of
  theirs, which `export` reads before it writes a platform file that would give such a student 0.
"""
import fcntl
import json
import os
import shutil
import time
from contextlib import closing
from pathlib import Path

from ..intake.platforms import INTAKE_NAME, UNMATCHED
from . import decisions, record
from ..records.rows import CSV_NAME, read_csv
from ..records.totals import STUDENT_CSV

NAME = ".grading.lock"
EARLIER = "earlier-gradings"
KEPT = 5
# what a grading writes that an undo puts back (the lock, the canary's proof and the kept gradings stay)
RESULTS = (CSV_NAME, STUDENT_CSV, "gradebook.db", INTAKE_NAME, UNMATCHED, "grading-state.json",
           "grading-summary.png", "grading-summary.txt", "submitted", "autograded", "feedback")
ABOUT = "about.json"
UNFINISHED = ".grading-unfinished"   # a grading has started changing the workspace and not finished


class WorkspaceBusy(RuntimeError):
    """Another grading run is writing into this workspace."""


class Held:
    def __init__(self, handle):
        self._handle = handle

    def release(self):
        if self._handle is not None:
            self._handle.close()  # closing drops the flock
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def hold(workspace):
    """The workspace's lock, held until released (or until the holder's process ends)."""
    path = Path(workspace) / NAME
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise WorkspaceBusy(f"another grading run (process {holder}) is writing into {workspace}; wait for "
                            f"it to finish, or grade into another --workspace") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return Held(handle)


def has_results(workspace):
    return (Path(workspace) / CSV_NAME).is_file() or bool(record.results(Path(workspace) / record.DB_NAME))


def keep(workspace, why):
    """Copy the workspace's results into earlier-gradings/NNNN-<when>/ (nothing if it holds none); returns
    that folder or None. Only the last KEPT are kept (an undone one among them). A grading that was
    stopped before it finished (Ctrl-C, a kill) and the one that finishes it count as one: the copy
    made before the first is the one kept, so an interrupted grading never uses up a kept one."""
    workspace = Path(workspace)
    if not has_results(workspace):
        return None
    unfinished = [folder for folder in _kept(workspace) if not _about(folder).get("completed", True)]
    if unfinished and unfinished[-1] == _kept(workspace)[-1]:
        return unfinished[-1]
    folder = _new_folder(workspace)
    try:
        _copy_results(workspace, folder)
        (folder / ABOUT).write_text(json.dumps({"kept": time.strftime("%Y-%m-%d %H:%M:%S"), "before": why,
                                                "completed": False}))
    except BaseException:   # a full disk, Ctrl-C: no half copy left to pass for a kept grading
        shutil.rmtree(folder, ignore_errors=True)
        raise
    for old in _kept(workspace)[:-KEPT]:
        shutil.rmtree(old)
    return folder


def completed(folder):
    """The grading the kept folder was made before has finished (keep)."""
    if folder is not None:
        about = _about(folder)
        about["completed"] = True
        (Path(folder) / ABOUT).write_text(json.dumps(about))


def begin(workspace, why):
    """A grading starts changing the workspace: until `finish`, the workspace says so (`unfinished`)."""
    (Path(workspace) / UNFINISHED).write_text(json.dumps({"before": why, "kept": time.strftime("%Y-%m-%d %H:%M:%S")}))


def finish(workspace):
    """The grading `begin` announced has finished (or changed nothing): the workspace is whole again."""
    (Path(workspace) / UNFINISHED).unlink(missing_ok=True)


def unfinished(workspace):
    """{"before": what the grading was, "kept": when it started} of a grading of the workspace stopped before
    it finished (Ctrl-C, a kill, a crash) that nothing finished or undid since; else None."""
    try:
        return json.loads((Path(workspace) / UNFINISHED).read_text())
    except (OSError, ValueError):
        return None


def _about(folder):
    try:
        return json.loads((Path(folder) / ABOUT).read_text())
    except (OSError, ValueError):
        return {}


def undo(workspace):
    """Put the latest kept grading back (what it replaces is kept as `<when>-undone`); returns
    (the folder put back, what it was kept before, the folder now holding what was replaced)."""
    workspace = Path(workspace)
    latest = latest_kept(workspace)
    about = json.loads((latest / ABOUT).read_text())
    replaced = _new_folder(workspace, "-undone")
    _copy_results(workspace, replaced)
    (replaced / ABOUT).write_text(json.dumps({"kept": time.strftime("%Y-%m-%d %H:%M:%S"),
                                              "before": f"undo, which put back the grading kept {about['kept']}"}))
    finish(workspace)   # what was there before that grading started: whole
    for name in RESULTS:  # exactly what was there: a file the earlier grading had not written goes
        _remove(workspace / name)
        if (latest / name).exists():
            _copy(latest / name, workspace / name)
    shutil.rmtree(latest)
    return latest, about, replaced


def latest_kept(workspace):
    """The latest earlier grading kept that `undo` puts back (FileNotFoundError where there is none)."""
    candidates = [folder for folder in _kept(workspace) if not folder.name.endswith("-undone")]
    if not candidates:
        raise FileNotFoundError(f"{workspace} holds no earlier grading to put back (none in {Path(workspace) / EARLIER})")
    return candidates[-1]


def take_back(course, workspace, remake):
    """`undo`: the latest grading taken back, and every decision a person made since (formgrader's hand
    grades, overrides, comments) applied again to what that grading did not touch, or where the answer it
    judged is the one put back; the others set aside and named (course/ledger/decisions.py). Returns
    (undo's three values, the decisions applied, those set aside)."""
    db = Path(workspace) / record.DB_NAME
    record.take_in_decisions(course, workspace)
    before = record.results(db)
    with closing(record.connect(db)) as con:
        made = decisions.since(con, 0)
    put, about, replaced = undo(workspace)
    after = record.results(db)
    applied, aside = [], []
    with closing(record.connect(db)) as con:
        last = decisions.last_id(con)
        con.execute("BEGIN IMMEDIATE")
        try:
            for decision in made:
                if decision["id"] <= last or decision["state"] != "held":
                    continue
                key = (decision["student"], decision["notebook"])
                untouched = key in before and key in after and all(
                    before[key][part] == after[key][part] for part in ("status", "file_sha256", "graded_at"))
                done = decisions.apply(con, course.assignment, decision, f"the grading it was made on was undone "
                                       f"({about['kept']}): the answer it judged is no longer the one graded", untouched)
                (applied if done else aside).append(decision)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    for student in sorted({d["student"] for d in applied + aside}):
        remake(student)
    return (put, about, replaced), applied, aside


def earlier_points(workspace, notebooks=None):
    """{student: (points, out of, when)} from the latest kept grading, not an undone one, in which
    each student had a notebook that was found (any status but missing); of the notebooks named (stems),
    or all."""
    found = {}
    for folder in reversed(_kept(workspace)):
        if folder.name.endswith("-undone") or not (folder / CSV_NAME).is_file():
            continue
        when = json.loads((folder / ABOUT).read_text())["kept"]
        rows = [row for row in read_csv(folder / CSV_NAME) if notebooks is None or row.notebook in notebooks]
        for student in {row.student for row in rows if row.status != "missing"} - set(found):
            mine = [row for row in rows if row.student == student]
            found[student] = (sum(r.auto_score + r.manual_score for r in mine),
                              sum(r.auto_max + r.manual_max for r in mine), when)
    return found


def _kept(workspace):
    folder = Path(workspace) / EARLIER
    return sorted(p for p in folder.iterdir() if p.is_dir() and (p / ABOUT).is_file()) if folder.is_dir() else []


def _new_folder(workspace, suffix=""):
    """earlier-gradings/NNNN-<date-time><suffix>: NNNN counts up, so the names sort in the order kept."""
    folder = Path(workspace) / EARLIER
    numbers = [int(p.name[:4]) for p in folder.glob("[0-9][0-9][0-9][0-9]-*")] if folder.is_dir() else []
    made = folder / f"{max(numbers, default=0) + 1:04d}-{time.strftime('%Y-%m-%d-%H%M%S')}{suffix}"
    made.mkdir(parents=True)
    return made


def _copy_results(workspace, folder):
    for name in RESULTS:
        if (workspace / name).exists():
            _copy(workspace / name, folder / name)


def _copy(source, target):
    if source.is_dir() and not source.is_symlink():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copy2(source, target, follow_symlinks=False)


def _remove(path):
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
