"""tests/measured_slow.txt names tests that exist: a renamed or deleted test would otherwise leave its entry
behind, and its new name would run in the inner loop unseen."""
import re

from tests.conftest import MEASURED_SLOW, ROOT


def test_every_entry_names_a_module_and_a_test_function_in_it():
    assert MEASURED_SLOW, "tests/measured_slow.txt is empty or gone"
    stale = []
    for entry in MEASURED_SLOW:
        path, _, test = entry.partition("::")
        module = ROOT / path
        name = re.split(r"[\[:]", test)[0]
        if not module.is_file() or (name and not re.search(rf"^\s*def {re.escape(name)}\(", module.read_text(), re.M)):
            stale.append(entry)
    assert not stale, f"entries of tests/measured_slow.txt that name no test: {stale}"


def test_a_module_entry_ends_with_two_colons_and_a_test_entry_names_its_test():
    assert all(entry.endswith("::") or re.match(r"[\w/]+\.py::\w+", entry) for entry in MEASURED_SLOW)


def test_contributing_states_the_thresholds_the_benchmark_uses():
    import importlib.util
    spec = importlib.util.spec_from_file_location("inner_loop", ROOT / "benchmarks" / "inner_loop.py")
    inner_loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(inner_loop)
    text = " ".join((ROOT / "CONTRIBUTING.md").read_text().split())
    assert f"every test of {inner_loop.SLOW_TEST:g} s or more" in text
    assert f"whose other tests add up to {inner_loop.SLOW_MODULE:g} s" in text
