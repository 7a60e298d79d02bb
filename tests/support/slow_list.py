"""tests/measured_slow.txt: the tests the inner loop leaves to CI because they were measured slow
(tests/conftest.py marks them; `python benchmarks/inner_loop.py --write-slow` adds to the list)."""
from pathlib import Path

SLOW_LIST = Path(__file__).resolve().parents[1] / "measured_slow.txt"


def entries(path=SLOW_LIST):
    """Its node ids, and modules' paths ending in "::" (every test in them), comments left out."""
    lines = path.read_text().splitlines() if path.is_file() else []
    kept = (line.split("  #")[0].strip() for line in lines if not line.lstrip().startswith("#"))
    return tuple(entry for entry in kept if entry)
