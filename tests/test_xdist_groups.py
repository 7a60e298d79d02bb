"""The suite's --dist loadgroup keeps each group on one worker (tests/support/xdist_groups.py): a small
project of its own, run on two workers, with a group written on the tests, one given from a
conftest as tests/conftest.py gives its groups, and tests of no group."""
import os
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = '''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        if "given" in item.name:
            item.add_marker(pytest.mark.xdist_group("given"))
'''
MODULE = '''
import os
import pytest

def ran(name):
    with open(os.environ["RAN"], "a") as log:
        log.write(f"{{name}} {{os.environ['PYTEST_XDIST_WORKER']}}\\n")

@pytest.mark.xdist_group("written")
@pytest.mark.parametrize("i", range(4))
def test_written(i):
    ran("written")

@pytest.mark.parametrize("i", range(4))
def test_given(i):
    ran("given")

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    ran("free {module}")
'''


def test_a_group_spread_over_two_modules_runs_on_one_worker(tmp_path):
    for module in ("a", "b"):
        (tmp_path / f"test_{module}.py").write_text(textwrap.dedent(MODULE.format(module=module)))
    (tmp_path / "conftest.py").write_text(CONFTEST)
    ran = tmp_path / "ran.txt"
    env = {**os.environ, "RAN": str(ran), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.support.xdist_groups", "-p", "no:cacheprovider",
                           "-n", "2", "--dist", "loadgroup", "-q", str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers = defaultdict(set)
    for line in ran.read_text().splitlines():
        name, worker = line.rsplit(" ", 1)
        workers[name.split()[0]].add(worker)
    assert len(ran.read_text().splitlines()) == 24
    assert len(workers["written"]) == 1 and len(workers["given"]) == 1, dict(workers)
    assert workers["written"] | workers["given"] | workers["free"] == {"gw0", "gw1"}, dict(workers)
