"""Torch's thread count in the tests.

`one_thread`: a module fixture that runs a test module's small networks on one torch thread (they run fastest
so, the more so on a shared machine), and gives the thread count back after. Import it into the module:
`from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture`.

`threads_given_back`, `threads_given_back_by_module`: tests/conftest.py's guards (issue 61). A test, or a
module's fixtures, that leave the process's count changed make every later test on that worker run on it, so
that a test could pass only because another ran first; the guards put the count back and fail the one that
left it, naming it."""
import pytest
import torch


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _given_back(what):
    threads = torch.get_num_threads()
    yield
    left = torch.get_num_threads()
    if left != threads:
        torch.set_num_threads(threads)
        pytest.fail(f"{what} left torch's thread count at {left} (it was {threads}): give it back, as "
                    f"tests/support/threads.py's one_thread does", pytrace=False)


@pytest.fixture(autouse=True)
def threads_given_back():
    yield from _given_back("this test")


@pytest.fixture(scope="module", autouse=True)
def threads_given_back_by_module():
    yield from _given_back("this module's fixtures")
