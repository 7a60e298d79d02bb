"""A module fixture that runs a test module's small networks on one torch thread (they run fastest so, the
more so on a shared machine), and gives the thread count back after. Import it into the module:
`from tests.support.threads import one_thread  # noqa: F401 - an autouse fixture`."""
import pytest
import torch


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
