"""Setting process-wide environment variables for a while: the one way grading does it (kernels
inherit PYTHONPATH, nbgrader reads NBGRADER_EXECUTION, a Dask job restores the thread settings)."""
import os
from contextlib import contextmanager


@contextmanager
def environment(values):
    """os.environ with these variables set (None: unset), each put back as it was afterwards."""
    old = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            _set(name, value)
        yield
    finally:
        for name, value in old.items():
            _set(name, value)


def _set(name, value):
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
