"""`grade DIR [--jobs N]`: repair, autograde and give feedback on every student's notebooks; one CSV
row per (student, notebook) (course/records/rows.py).

A broken submission never stops the batch and never disappears: every (student, notebook) pair gets
a row whose status says what happened and why:

- graded:   autograded as handed in;
- repaired: autograded after `repair` fixed the file (its `repairs` column lists every change);
- flagged:  autograded, but a person should look (integrity, a dead kernel, a timeout, deleted files);
- failed:   could not be graded (not a notebook, some other notebook, nbgrader failed);
- missing:  not in the submission.

Each student is graded (course/run/student.py) in a scratch workspace of their own, with a copy of the
gradebook kept outside the folders their code runs in; the main process then merges that student's
rows into the real gradebook. Workers therefore never share an sqlite file (no locking), and
`--jobs N` gives the same results as a serial run because both run exactly the same per-student
function. With `--executor dask` that function runs on a Dask cluster as a job whose inputs and
outputs are data (course/run/job.py, course/run/cluster.py); its outputs are written into the same scratch
folder and merged the same way. `--only-changed` keeps the results of unchanged submissions
(course/run/rerun.py).

No verdict is decided in a process that runs student code: hidden test cells hand the student's
functions to a trusted checker in the grading process (grading/checker.py), and every autograded
test cell is scored from its verdicts alone. With the sandbox on (`--sandbox auto` where it works,
`required`), each kernel also runs in a sandbox of its own that sees the student's files and nothing
of the course (course/sandbox/settings.py); with `--sandbox off` kernels run as the grader.
"""
import contextlib
import dataclasses
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

from tqdm.auto import tqdm

from ...grading.core import grading_seed
from ..intake import platforms, untracked
from ..intake.folder import students
from ..layout import warm_caches
from ..ledger import commit, derived, identity, manifest, record, returns, safekeeping, versions
from ..records import totals
from ..records.answers import make_optional
from ..records.gradebook import strip_submissions
from ..records.nbgrader_apps import up_to_date_gradebook
from ..records.rows import CSV_NAME, Report, Task
from ..sandbox.leases import describe
from ..sandbox.settings import configured_limits, resolve_mode
from . import by_notebook, cluster, rerun, student as one_student
from ..ledger.export import remaker
from .committer import Committer, Interrupted, remember_intake
from .earlier import Earlier
from .canary import (NOTHING_HANDED_IN, STUDENT, Proof, gate, notebooks_to_prove, setup_parts, out_of_time_sentence,
                     submission)

EXECUTORS = ("local", "dask")


def check_settings(course, jobs=1, executor="local", retries=0, timeout=0.0, scheduler=None, notebook_jobs=None):
    """Every setting grading reads, checked before anyone is graded: a bad one stops the command with
    its name instead of failing every student (a non-integer seed fails every hidden check)."""
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    if notebook_jobs is not None and notebook_jobs < 1:
        raise ValueError(f"--notebook-jobs must be at least 1, got {notebook_jobs}")
    if executor not in EXECUTORS:
        raise ValueError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "dask" and not scheduler:
        raise ValueError("--executor dask needs --scheduler ADDRESS (the Dask scheduler, e.g. tcp://host:8786)")
    if executor == "local" and (scheduler or timeout):
        raise ValueError("--scheduler and --timeout are for --executor dask")
    if retries < 0 or timeout < 0:
        raise ValueError(f"--retries and --timeout cannot be negative, got {retries} and {timeout}")
    grading_seed("settings")  # MASKDIFF_GRADING_SEED
    return configured_limits(course.root)  # [tool.maskdiff.sandbox], MASKDIFF_SANDBOX_LIMITS


def grade(course, submissions, workspace=None, jobs=1, progress=True, sandbox="auto", notebooks=None,
          executor="local", scheduler=None, retries=2, timeout=0.0, only_changed=False, notebook_jobs=None,
          canary=True, prove_again=False, roster=None, any_roster=False, any_notebooks=False, in_git=False,
          replace=False, regrade=False):
    """Grade every student of submissions into workspace. executor "local": `jobs` processes on this
    machine; "dask": a Dask cluster at `scheduler` (course/run/cluster.py), each lost student tried
    `retries` more times, each given at most `timeout` seconds (0: no limit). only_changed: students
    whose submission and course inputs are unchanged since the last grading keep their results.
    notebook_jobs: each student's notebooks autograded at once (None: the cores per student; on a
    Dask worker, its cores per thread). The results depend on none of jobs and notebook_jobs.
    canary: grade the reference solution first, and nobody unless it gets full marks, once per grading
    setup (course/run/canary.py); prove_again: even where the workspace's canary-proof.json says it passed.
    submissions: collected/ or a platform's export (course/intake/platforms.py); roster: its class list.
    A roster that is not the export's class list, or a batch of other notebooks than those graded, stops
    grading before the workspace changes (course/intake/mistakes.py), unless any_roster / any_notebooks;
    so does a workspace inside a git work tree that git would not ignore (course/intake/untracked.py),
    unless in_git. A workspace's earlier results are copied aside first (course/ledger/safekeeping.py:
    `undo`), and a result with no file in this batch stays unless replace (course/run/earlier.py).
    regrade: submissions are the workspace's own files (course/run/regrade.py): who each student is and
    their late flags stay as the record holds them, and the results of others stay without a word."""
    workspace = Path(workspace or course.root).resolve()
    if not Path(submissions).exists():
        raise FileNotFoundError(f"no submissions folder or export at {submissions}")
    limits = check_settings(course, jobs, executor, retries, timeout, scheduler, notebook_jobs)
    if not in_git:
        untracked.check(workspace)   # students' files never go where `git add -A` takes them
    if notebook_jobs is None and executor == "local":
        notebook_jobs = by_notebook.default_jobs(jobs)
    selected = course.select(notebooks)
    sandbox = resolve_mode(sandbox)
    workspace.mkdir(parents=True, exist_ok=True)
    held = safekeeping.hold(workspace)  # noqa: F841 - one run per workspace; dropped as grade() ends
    # what was handed in, checked (a wrong roster or week stops here) before the workspace changes
    numbers = ', '.join(Path(name).stem[:2] for name in selected)
    aside, why = {}, (f"regrading {numbers} under the course as it is now" if regrade else
                      f"grading {numbers} from {Path(submissions).name}")

    def set_aside():  # the input passed its checks: the earlier results are read, then copied aside
        record.check(course, workspace)   # a record lost or at odds with the workspace stops everything
        commit.recover(workspace, remaker(course, workspace))   # a grading killed mid-commit: finished
        manifest.refuse_edited(workspace, "grade")   # a grade typed into a derived file is never lost unsaid
        record.take_in_decisions(course, workspace)   # formgrader's since the last command, before the copy kept
        aside["earlier"] = Earlier.of(course, workspace, selected, replace)
        aside["intake"] = platforms.Intake.load(workspace)
        safekeeping.begin(workspace, why)   # until it finishes, `export --to` refuses to mix old and new
        aside["kept"] = safekeeping.keep(workspace, why)
    known = identity.known(workspace / record.DB_NAME)   # who the record knows: found again by their keys
    submissions, intake = platforms.take_in(course, submissions, workspace, roster, selected, any_roster,
                                            any_notebooks, before_writing=set_aside, known=known)
    earlier = aside["earlier"]
    remember_intake(workspace, aside["intake"], intake)
    cache = warm_caches(selected) if executor == "local" else ""  # each worker builds its own
    up_to_date_gradebook(course, workspace)
    if course.answers_optional:  # ... which gives the written answers their points again
        make_optional(workspace / "gradebook.db", course.assignment)
    if intake and progress:
        print(intake.summary(), file=sys.stderr)
    batch = students(submissions)
    if not batch:
        raise ValueError(f"no student was found in {submissions}")
    inputs = rerun.inputs_hash(course, selected, sandbox, limits)
    results = rerun.reusable(course, workspace, batch, selected, inputs) if only_changed else {}
    main_db = workspace / "gradebook.db"
    committed = Committer(course, workspace, earlier, intake, inputs, regrade)
    for student in record.lost_pages(course, workspace):   # a page deleted by hand: made again
        committed.remake(student)
    with tempfile.TemporaryDirectory(prefix="maskdiff-grading-") as scratch:
        template = Path(scratch) / "template.db"
        shutil.copy(main_db, template)
        strip_submissions(template)
        tasks = {student: Task(str(course.root), str(template), student, str(folder), str(Path(scratch) / student),
                               sandbox, cache, limits, selected, notebook_jobs)
                 for student, folder in batch.items() if student not in results}
        merging, todo, canary_note = 0.0, [], ""
        if canary and tasks:  # first in line: it runs beside the first students
            proof = Proof(workspace, setup_parts(course, sandbox, limits))
            todo, canary_note = proof.plan(notebooks_to_prove(selected, [batch[student] for student in tasks]),
                                           prove_again)
        if todo:
            folder = submission(course, Path(scratch) / "canary", todo)
            canary_task = dataclasses.replace(next(iter(tasks.values())), student=STUDENT, folder=str(folder),
                                              scratch=str(Path(scratch) / STUDENT), selected=todo)
            tasks = {STUDENT: canary_task, **tasks}
        if progress:
            print(start_line(submissions, batch, tasks, results, sandbox, limits, todo, canary_note), file=sys.stderr)
        bar = Progress({student: (Path(task.scratch), len(task.selected or selected)) for student, task in tasks.items()},
                       course.assignment, progress, first=STUDENT if todo else None)
        if executor == "dask":
            stream = cluster.run(tasks, course, template, scheduler, retries, timeout)
        else:
            stream = _run(tasks, jobs)
        late = {}

        def proved(out_of_time):   # the canary passed: what it proved is kept, what ran out of time said
            proof.record([name for name in todo if Path(name).stem not in out_of_time])
            late.update(out_of_time)
        stream = gate(stream, on_pass=proved) if todo else stream
        try:
            for student, result in stream:
                started = time.perf_counter()
                committed.student(Path(tasks[student].scratch), result, batch[student])
                merging += time.perf_counter() - started
                results[student] = result
                bar.finished(student)
            committed.unchanged([student for student in results if student not in tasks], batch)
            if not regrade:   # a regrade's batch is every file the workspace holds of those notebooks
                committed.absent(set(batch))
            else:   # and its rows without a file stand under the course as it is now
                committed.restamp({Path(name).stem for name in selected}, set(batch))
            rows = everyone(course, workspace, intake)
        except Exception:
            if not committed.done:   # nobody's result changed (a failed canary): the grading before stands whole
                safekeeping.completed(aside["kept"])
                safekeeping.finish(workspace)
            raise
        except KeyboardInterrupt:
            bar.close()
            with ignoring_interrupts():   # what stands is made whole first: a second Ctrl-C waits for it
                commit.recover(workspace, committed.remake)
                everyone(course, workspace, intake)
            raise Interrupted(committed.interrupted(len(tasks) - (STUDENT in tasks), workspace)) from None
        finally:
            bar.close()
    safekeeping.completed(aside["kept"])
    safekeeping.finish(workspace)
    tests = {(student, notebook): scores_ for student in sorted(results)
             for notebook, scores_ in results[student].tests.items()}
    seconds = {(student, notebook): value for student in sorted(results)
               for notebook, value in results[student].check_seconds.items()}
    lines = earlier.lines()
    if lines and aside["kept"]:
        lines.append(f"the workspace as it was before is kept in {aside['kept']}: "
                     f"`python -m maskdiff_solutions undo --workspace {workspace}` puts it back")
    if late:
        canary_note = "\n".join(filter(None, [canary_note, out_of_time_sentence(late)]))
    lines += returns.refresh(course, workspace)   # the platform files an export wrote, as the record is now
    lines += versions.lines(course, workspace)   # notebooks of others graded under an earlier course
    return Report(rows, workspace / CSV_NAME, workspace / "feedback", tests, merging, seconds,
                  course.answers_optional, canary_note, lines)


@contextlib.contextmanager
def ignoring_interrupts():
    """Ctrl-C ignored for a moment (where signals can be set: the main thread)."""
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        old = None
    try:
        yield
    finally:
        if old is not None:
            signal.signal(signal.SIGINT, old)


def start_line(submissions, batch, tasks, kept, sandbox, limits, todo, canary_note):
    """What this grading is about to do, in one line: the students, the sandbox and its memory cap,
    the canary."""
    graded = len([student for student in tasks if student != STUDENT])
    who = f"{graded} student{'' if graded == 1 else 's'} from {submissions}" + (f" ({len(kept)} unchanged, kept)" if kept else "")
    if todo:
        canary = f"canary: the reference graded first on {', '.join(Path(n).stem[:2] for n in todo)} (on the bar)"
    else:
        canary = ("canary: nothing handed in to prove it on" if canary_note == NOTHING_HANDED_IN else
                  f"canary: {'proved before, left out' if canary_note else 'off'}")
    return f"grading {who}; {describe(sandbox, limits)}; {canary}"


def everyone(course, workspace, intake):
    """The files made from the record (course/ledger/derived.py): every student out of the same
    maximum, a gradebook entry, a total and a page for each notebook not graded. Returns the rows."""
    rows = record.derived_rows(course, workspace)
    totals.enrol(workspace / "gradebook.db", sorted({row.student for row in rows}), intake)
    derived.write(course, workspace, rows, platforms.Intake.load(workspace))
    return rows


class Progress:
    """A progress bar that moves once per notebook, not once per student: it counts the graded
    notebooks nbgrader has written in each student's scratch workspace (every notebook of a student
    whose grading has finished, missing ones included), looking twice a second. Works the same for
    students graded here and in worker processes. counts: {student: (scratch folder, notebooks)};
    first: the canary, named on the bar until it has passed."""

    def __init__(self, counts, assignment, enabled=True, first=None):
        self.counts, self.assignment, self.first = counts, assignment, first
        self.done, self.lock, self.stop, self.shown = set(), threading.Lock(), threading.Event(), 0
        self.bar = tqdm(total=sum(n for _, n in counts.values()), unit="notebook", disable=not enabled,
                        desc="canary, then grading" if first else "grading", file=sys.stderr)
        self.thread = threading.Thread(target=self._watch, daemon=True)
        if enabled:
            self.thread.start()

    def count(self):
        total = 0
        for student, (folder, most) in self.counts.items():
            if student in self.done:
                total += most
            else:
                graded = folder.glob(f"notebooks/*/work/autograded/{student}/{self.assignment}/*.ipynb")
                total += min(most, len(list(graded)))
        return total

    def refresh(self):
        with self.lock:
            now = self.count()
            if now > self.shown:
                self.bar.update(now - self.shown)
                self.shown = now

    def _watch(self):
        while not self.stop.wait(0.5):
            try:
                self.refresh()
            except OSError:  # a scratch folder removed while we looked
                continue

    def finished(self, student):
        self.done.add(student)
        if student == self.first:
            self.bar.set_description("grading (canary passed)")
        self.refresh()

    def close(self):
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()
        self.bar.close()


def _run(tasks, jobs):
    """(student, result) as each finishes: in this process for one job, else in spawned workers
    (fresh interpreters: nothing of this process's state, threads or kernels is shared)."""
    if jobs == 1 or len(tasks) < 2:
        for student, task in tasks.items():
            try:
                yield student, one_student.grade_student(task)
            except Exception as err:  # noqa: BLE001 - one student's crash must not end the batch
                yield student, one_student.crashed(task, err)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(one_student.grade_student, task): student for student, task in tasks.items()}
        try:
            for future in as_completed(futures):
                student = futures[future]
                try:
                    yield student, future.result()
                except Exception as err:  # noqa: BLE001 - a crashed worker included
                    yield student, one_student.crashed(tasks[student], err)
        finally:  # a batch stopped early (a failed canary) grades nobody more
            pool.shutdown(cancel_futures=True)
