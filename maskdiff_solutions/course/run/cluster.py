"""`grade --executor dask --scheduler ADDRESS`: the students' jobs (course/run/job.py) on a Dask
distributed cluster the instructor already runs (a laptop's LocalCluster, Kubernetes, Slurm/PBS
through dask-jobqueue, a cloud service): nothing of ours runs there but the job itself.

Each student is one task; its submission travels with it and the course bundle is sent to every
worker once. A task whose worker is lost (Dask reports it as failed after its own reschedules) is
submitted again, up to `retries` more times; a student still without a result then gets failed
rows that say so. At most a few tasks per worker thread are in flight, so the main process never
holds the whole batch's submissions at once.
"""
import sys
import uuid
from pathlib import Path

from . import job as jobs
from .student import crashed


def connect(scheduler):
    """A distributed Client for an address, and whether it is ours to close (from Python, a connected
    Client may be passed instead)."""
    try:
        from distributed import Client  # optional: only --executor dask needs Dask
    except ImportError:
        raise RuntimeError("--executor dask needs Dask distributed: pip install \"dask[distributed]\"") from None
    if not isinstance(scheduler, str):
        return scheduler, False
    if not scheduler:
        raise ValueError("--executor dask needs --scheduler ADDRESS (e.g. tcp://scheduler:8786)")
    try:
        return Client(scheduler, timeout="30s"), True
    except OSError as err:
        raise RuntimeError(f"could not reach the Dask scheduler at {scheduler}: {err}") from None


def check_workers(client):
    """Every worker (those connected now) must grade with this installation's code."""
    client.wait_for_workers(1, timeout=120)
    here = jobs.package_fingerprint()
    try:
        theirs = client.run(jobs.package_fingerprint)
    except Exception as err:  # noqa: BLE001 - typically: the package is not installed there
        raise RuntimeError(f"a Dask worker cannot run the course's grading code ({type(err).__name__}: "
                           f"{err}): install this checkout on every worker (docs/grading-at-scale.md)") from None
    stale = sorted(worker for worker, value in theirs.items() if value != here)
    if stale:
        raise RuntimeError(f"the Dask workers {', '.join(stale)} have other maskdiff_solutions code than "
                           f"this machine: give every worker the same checkout (docs/grading-at-scale.md)")
    return sum(client.nthreads().values())


def run(tasks, course, template, scheduler, retries=2, timeout=0.0):
    """(student, StudentResult) as each finishes; each finished student's outputs are first written
    into the task's scratch folder, where `merge` reads them."""
    from distributed import as_completed  # optional: only --executor dask needs Dask
    client, owned = connect(scheduler)
    try:
        threads = check_workers(client)
        bundle = client.scatter([jobs.course_bundle(course, template)], broadcast=True, hash=False)[0]  # one piece
        waiting = list(tasks)
        attempts = {}

        def submit(student):
            task = tasks[student]
            attempts[student] = attempts.get(student, 0) + 1
            job = jobs.Job(student, jobs.pack_submission(task.folder), task.sandbox, task.limits, task.selected,
                           timeout, task.notebook_jobs)
            return client.submit(jobs.run_job, job, bundle, pure=False,
                                 key=f"grade-{student}-{attempts[student]}-{uuid.uuid4().hex[:8]}")

        flight, owner, failed = as_completed(), {}, []

        def fill():  # keep a few tasks per worker thread in flight
            while waiting and len(owner) < max(2 * threads, 2):
                student = waiting.pop(0)
                try:
                    future = submit(student)
                except Exception as err:  # noqa: BLE001 - an unreadable submission fails alone
                    failed.append((student, crashed(tasks[student], err)))
                    continue
                owner[future.key] = student
                flight.add(future)

        fill()
        yield from _drain(failed)
        for future in flight:
            student = owner.pop(future.key)
            try:
                outcome = future.result()
            except Exception as err:  # noqa: BLE001 - the job catches its own errors: this is the cluster's
                outcome = None
                if attempts[student] <= retries:
                    print(f"{student}: no result from the cluster ({type(err).__name__}: {err}); grading "
                          f"again, attempt {attempts[student] + 1} of {retries + 1}", file=sys.stderr)
                    waiting.insert(0, student)
                else:
                    outcome = jobs.JobOutput(crashed(tasks[student], RuntimeError(
                        f"no result after {attempts[student]} attempts on the cluster: "
                        f"{type(err).__name__}: {err}")))
            finally:
                future.release()
            if outcome is not None:
                jobs.write_outputs(outcome.files, Path(tasks[student].scratch))
                yield student, outcome.result
            fill()
            yield from _drain(failed)
    finally:
        if owned:
            client.close()


def _drain(items):
    while items:
        yield items.pop(0)
