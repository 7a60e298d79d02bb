import os
from pathlib import Path

import pytest

from maskdiff_solutions.course.layout import Course
from tests.support import slow_list
from tests.support.threads import threads_given_back, threads_given_back_by_module  # noqa: F401 - autouse guards

ROOT = Path(__file__).resolve().parents[1]
# --dist loadgroup that holds on every pytest (9.2 drops xdist's own groups): tests/support/xdist_groups.py
pytest_plugins = ["tests.support.xdist_groups"]
# Kernels started by the tests (Validator, autograde) find this checkout's hidden package first,
# as they do when instructors grade.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

# Under pytest-xdist (`.ci/run` and any run of the whole suite: -n 2 --dist loadgroup) each worker builds its own session and module
# fixtures. So every test runs on the worker of its group: by default its module (module fixtures and
# caches are built once), but every test that uses one of the costly session fixtures, whatever its
# module, in that fixture's group (each is graded once). Both gradings are one group, "gradings":
# the serial grading of the small batch is compared with the awkward batch's --jobs 2 grading
# (test_grade.py), which spares a third grading. That group is the run's longest single chain (BENCHMARKS.md,
# "CI with the xdist groups restored"); it is collected among the first, so it starts at once on one worker
# while the other takes every other group. The batches themselves (awkward_batch, small_batch) take
# under a second, so each worker makes its own. A module whose module fixture needs one of them marks all its tests with that group
# (pytestmark); a module whose tests share nothing costly can spread them: `def xdist_group(item)`
# in it returns a test's group, or None for any worker.
if os.environ.get("PYTEST_XDIST_WORKER"):  # two workers on two cores: one torch thread each, not two
    import torch
    torch.set_num_threads(1)
GRADINGS = "gradings"
SHARED_FIXTURES = {"graded_batch": GRADINGS, "small_serial": GRADINGS}
# These grade through kernels: whatever uses them is slow (the inner loop, -m "not slow", skips it).
GRADING_FIXTURES = {"graded_batch", "small_serial"}


# Tests not otherwise marked slow that were measured slow (tests/measured_slow.txt): CI runs them, the inner
# loop (-m "not slow") leaves them.
MEASURED_SLOW = slow_list.entries()


# The whole suite (`python -m pytest`, `-m "not slow"`: no test paths given) runs on two workers, as
# CI does, unless -n says otherwise (`-n 0`: this process); a run of named files stays in this process,
# where starting workers costs more than it saves. Workers parse the command line again, so the
# controller tells them through the environment to tag tests with their groups as --dist loadgroup does.
DEFAULT_WORKERS, LOADGROUP = 2, "MASKDIFF_PYTEST_LOADGROUP"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook turns -n into workers
def pytest_cmdline_main(config):
    if not config.pluginmanager.hasplugin("xdist"):  # -p no:xdist
        return
    if hasattr(config, "workerinput"):
        config.option.loadgroup = config.option.loadgroup or os.environ.get(LOADGROUP) == "1"
        return
    # Groups go out in the order they are collected, tests/course first, so the long gradings start at
    # once, on both workers. xdist's default (--loadscope-reorder) hands out the groups with the most
    # tests first: both gradings (few tests, most of the minutes) went late to one worker.
    config.option.loadscopereorder = False
    if (config.option.numprocesses is None and not config.option.usepdb
            and config.args_source == pytest.Config.ArgsSource.TESTPATHS):
        config.option.numprocesses, config.option.dist = DEFAULT_WORKERS, "loadgroup"
        os.environ[LOADGROUP] = "1"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if GRADING_FIXTURES & set(item.fixturenames) or item.nodeid.startswith(MEASURED_SLOW):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group"):
            continue
        group = next((SHARED_FIXTURES[name] for name in item.fixturenames if name in SHARED_FIXTURES), None)
        if group is None:
            chooser = getattr(item.module, "xdist_group", None)
            group = chooser(item) if chooser else item.module.__name__
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


# .ci/run starts its old-transformers leg once the first worker has run its last test: from then on a
# core would wait for the other worker's last group. The run's controller touches the file named here
# (a nested pytest, started inside a worker, has PYTEST_XDIST_WORKER and leaves it alone).
FIRST_WORKER_DONE = "MASKDIFF_FIRST_WORKER_DONE"


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    marker = os.environ.get(FIRST_WORKER_DONE)
    if marker and not os.environ.get("PYTEST_XDIST_WORKER"):
        Path(marker).touch()


@pytest.fixture(scope="session")
def course():
    return Course.load(ROOT)


@pytest.fixture(scope="module")
def fake_grader():
    """The fake grader (tests/support/fake_grading.py) in place for a whole module whose module fixtures grade
    (with --jobs 1: the fake replaces the grading in this process)."""
    from tests.support import fake_grading
    with pytest.MonkeyPatch.context() as patch:
        fake_grading.install(patch)
        yield


@pytest.fixture(scope="session")
def fresh_release(course, tmp_path_factory):
    """release/ regenerated from source/ into a scratch folder (the committed one is not touched)."""
    from maskdiff_solutions.course.records.nbgrader_apps import generate
    scratch = tmp_path_factory.mktemp("release")
    return generate(course, scratch / "out", scratch / "workspace")


@pytest.fixture(scope="session")
def awkward_batch(course, tmp_path_factory):
    """The batch of tests.support.cases — the demo's three students plus one per awkward
    case a real batch holds — built from the release, with what each must get, and a fingerprint
    of every file handed in (grading must leave them alone)."""
    from tests.support import cases
    folder = tmp_path_factory.mktemp("collected")
    expected = cases.build(course, folder)
    fingerprint = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    return folder, expected, fingerprint


@pytest.fixture(scope="session")
def graded_batch(course, awkward_batch, tmp_path_factory):
    """One grading run (--jobs 2, each student's notebooks one at a time) over the awkward batch:
    (workspace, {(student, notebook): row}, report). tests/course/run/test_grade.py shows that neither
    number changes anything."""
    from maskdiff_solutions.course.run.batch import grade
    workspace = tmp_path_factory.mktemp("grading")
    report = grade(course, awkward_batch[0], workspace, jobs=2, notebook_jobs=1, progress=False, canary=False)
    return workspace, {(row.student, row.notebook): row for row in report.rows}, report


@pytest.fixture(scope="session")
def small_batch(awkward_batch, tmp_path_factory):
    """The students of tests.support.cases.SMALL_BATCH, copied from the awkward batch."""
    import shutil
    from tests.support.cases import SMALL_BATCH
    folder = tmp_path_factory.mktemp("small") / "collected"
    for student in SMALL_BATCH:
        shutil.copytree(awkward_batch[0] / student, folder / student, symlinks=True)
    return folder


@pytest.fixture(scope="session")
def small_serial(course, small_batch, tmp_path_factory):
    """The small batch graded serially (--jobs 1, notebook 01): (workspace, report), the reference
    every other way of grading must match."""
    from maskdiff_solutions.course.run.batch import grade
    workspace = tmp_path_factory.mktemp("serial")
    return workspace, grade(course, small_batch, workspace, jobs=1, progress=False, notebooks=["01"], canary=False)
