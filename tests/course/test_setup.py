"""`.ci/setup`, the set-up script of CI and of an instructor's machine: a pinned CPU torch from
PyTorch's index first, never an unpinned or CUDA one."""
import stat
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[2]


SHIM = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in
  *"import torch"*) exit {torch} ;;
  *"import sys"*) echo "shim 3.11" ;;
  *"--index-url"*) exit {index} ;;
esac
exit 0
"""


@pytest.mark.parametrize("torch, index, expected", [
    (1, 1, ["--index-url https://download.pytorch.org/whl/cpu torch==2.13.0", "install --quiet torch==2.13.0"]),
    (1, 0, ["--index-url https://download.pytorch.org/whl/cpu torch==2.13.0"]),
    (0, 0, []),
])
def test_setup_installs_a_pinned_cpu_torch_from_pytorchs_index_first(tmp_path, torch, index, expected):
    """Run .ci/setup against a stand-in `python` that records what it is asked: torch comes from
    PyTorch's CPU index, else the same pinned version from the default index, never unpinned."""
    log, bin_ = tmp_path / "calls.log", tmp_path / "bin"
    bin_.mkdir()
    for name, text in (("python", SHIM.format(log=log, torch=torch, index=index)), ("bwrap", "#!/bin/sh\n")):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(stat.S_IRWXU)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(ROOT / ".ci" / "setup")], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    torch_installs = [line for line in log.read_text().splitlines() if "torch" in line and "install" in line]
    assert [next(e for e in expected if e in line) for line in torch_installs] == expected
    assert all("torch==2.13.0" in line for line in torch_installs)
    assert "-m pip install --quiet -r requirements.txt" in log.read_text()
