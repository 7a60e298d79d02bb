"""A virtual environment made inside a test that sees what this interpreter sees: made from inside a
venv, `--system-site-packages` alone would show the base Python's packages, not the outer venv's
(where .ci/setup installed torch), and the test would fail with "No module named 'torch'"."""
import site
import subprocess
import sys
from pathlib import Path


def make_venv(path):
    """A pip-less venv at `path` whose imports reach this interpreter's site-packages, then the base's."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(path)], check=True)
    if sys.prefix != sys.base_prefix:  # inside a venv: hand its site-packages (and their .pth files) on
        inner = next(Path(path).glob("lib/python*/site-packages"))
        outer = [p for p in site.getsitepackages() if p.startswith(sys.prefix)]
        (inner / "outer_venv.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in outer))
    return Path(path)
