"""xdist's `--dist loadgroup`, with each test's group handed to the controller beside its node id.

pytest-xdist (3.8) tells the controller a test's group by appending "@group" to the test's node id on
the worker. From pytest 9.2 a node id is read from a structured field that this change does not
reach, so the groups fell apart without a word (pytest-xdist issue 1386): every test went to any
worker, and the costly session fixtures (the gradings, the red team) were built once per worker,
about 500 s of CI's 1520. Here each worker writes {node id: group} to a file in a folder the
controller made, and the controller's scheduler reads it; on an older pytest, where the suffix still
takes, xdist's own reading of it remains the fallback.

A plugin: tests/conftest.py loads it (pytest_plugins); tests/test_xdist_groups.py proves the groups hold.
"""
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

FOLDER = "MASKDIFF_PYTEST_GROUPS"   # the folder the workers write their groups to (set by the controller)


def pytest_configure(config):
    """On the controller, before the workers start: a fresh folder for them (a nested pytest gets its own)."""
    if not hasattr(config, "workerinput") and config.getoption("dist", "no") == "loadgroup":
        os.environ[FOLDER] = tempfile.mkdtemp(prefix="maskdiff-xdist-groups-")


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and os.environ.get(FOLDER):
        shutil.rmtree(os.environ.pop(FOLDER), ignore_errors=True)


def group_of(item):
    """The group xdist would give the test: its xdist_group names, sorted and joined, or None."""
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) or None


@pytest.hookimpl(trylast=True)   # once every group is marked (tests/conftest.py marks them tryfirst)
def pytest_collection_modifyitems(items):
    """On a worker, once its tests are collected and marked: write their groups for the controller."""
    folder, worker = os.environ.get(FOLDER), os.environ.get("PYTEST_XDIST_WORKER")
    if not (folder and worker and Path(folder).is_dir()):
        return
    groups = {item.nodeid: group for item in items if (group := group_of(item))}
    partial = Path(folder, f".{worker}.json")
    partial.write_text(json.dumps(groups))
    partial.replace(Path(folder, f"{worker}.json"))   # whole or absent, never half written


def read(folder):
    files = sorted(Path(folder).glob("gw*.json"))
    if not files:
        raise RuntimeError(f"--dist loadgroup: no worker wrote its tests' groups to {folder} "
                           f"(tests/support/xdist_groups.py)")
    groups = {}
    for file in files:
        groups.update(json.loads(file.read_text()))
    return groups


@pytest.hookimpl(tryfirst=True, optionalhook=True)   # before xdist's own
def pytest_xdist_make_scheduler(config, log):
    """The controller's scheduler for --dist loadgroup: xdist's, reading the groups the workers wrote."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    folder = os.environ.get(FOLDER)

    class FromFiles(LoadGroupScheduling):
        groups = None

        def _split_scope(self, nodeid):
            if self.groups is None:   # first asked once every worker has sent its collection
                self.groups = read(folder)
            return self.groups.get(nodeid) or super()._split_scope(nodeid)

    return FromFiles(config, log)
