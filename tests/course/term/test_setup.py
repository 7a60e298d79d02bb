"""`.ci/setup`, the set-up script of CI and of an instructor's machine: a pinned CPU torch from
PyTorch's index first, never an unpinned or CUDA one; a refusal, with the way out, on a Python the
system manages; steps shown, pip's noise kept out of sight, a closing summary."""
import stat
import sys
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.course
ROOT = Path(__file__).resolve().parents[3]


SHIM = """#!/bin/sh
echo "$*" >> "{log}"
case "$*" in
  *"import torch"*) exit {torch} ;;
  *"import sys"*) echo "shim 3.11" ;;
  *"--index-url"*) [ {index} = 0 ] || echo "ERROR: Could not find a version that satisfies the requirement filelock" >&2; exit {index} ;;
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
    said = done.stdout + done.stderr
    assert "[4/4] bubblewrap" in said and "set up in" in said and "check-setup" in log.read_text()
    assert "ERROR" not in said  # pip's own lines stay in the log; an expected fallback is one line of ours
    assert ("CPU index is out of reach" in said) == (expected[1:] != [])


def externally_managed_python():
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        done = subprocess.run([candidate, "-c", "import os, sys, sysconfig; print(sys.prefix == sys.base_prefix and "
                               "os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))"],
                              capture_output=True, text=True) if Path(candidate).is_file() else None
        if done and done.stdout.strip() == "True":
            return candidate
    return None


def test_setup_refuses_a_python_the_system_manages_and_says_how_to_make_a_venv(tmp_path):
    """Debian 12's /usr/bin/python3 (PEP 668): one sentence, the command that makes a venv, exit 2,
    and nothing installed (no step begun)."""
    python = externally_managed_python()
    if python is None:
        pytest.skip("no externally managed system Python on this machine")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHON": python}
    done = subprocess.run(["bash", str(ROOT / ".ci" / "setup")], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "needs a virtual environment: python3 -m venv .venv" in done.stderr
    assert "[1/4]" not in done.stdout


def test_check_setup_says_which_python_torch_nbgrader_and_sandbox():
    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "check-setup"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()}
    assert set(lines) == {"python", "torch", "transformers", "nbgrader", "copydetect", "vegafusion",
                          "vl-convert-python", "checks", "sandbox"}, done.stdout
    assert lines["checks"].split()[1] == str(ROOT / "maskdiff_solutions")
    assert sys.executable in lines["python"] and ("CPU only" in lines["torch"] or "GPU:" in lines["torch"])
    assert ("works for" in lines["sandbox"]) or ("NOT WORKING" in lines["sandbox"])
    assert (sys.prefix != sys.base_prefix) == ("virtual environment" in lines["python"])


def test_the_summary_shown_in_getting_started_is_the_one_setup_prints():
    """docs/getting-started.md shows set-up's closing summary: the same lines, in the same order, the
    torch that set-up pins, a transformers and an nbgrader that requirements.txt admits."""
    import re
    from maskdiff_solutions.course.term.installed import summary
    from tests.support.docs import page
    text = page("getting-started.md")
    block = text[text.index("set up in"):].split("```")[0].splitlines()[1:]
    shown = {line.split()[0]: line.split(None, 1)[1] for line in block if line.strip()}
    assert list(shown) == [what for what, _ in summary()]
    pin = re.search(r"^TORCH=torch==([\d.]+)$", (ROOT / ".ci" / "setup").read_text(), re.M).group(1)
    assert shown["torch"].startswith(f"{pin}+cpu, CPU only (a CPU build)")
    assert tuple(map(int, shown["transformers"].split(".")[:2])) >= (4, 48) and shown["nbgrader"].startswith("0.9.")
    assert shown["sandbox"].startswith("bubblewrap ") and "works for" in shown["sandbox"]
    assert "(a virtual environment)" in shown["python"]
