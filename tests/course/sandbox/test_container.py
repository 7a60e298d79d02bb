"""The grader in a container (Dockerfile, docs/grading-at-scale.md "In a container"): the recipe's pins and
settings match the code, `--sandbox required` names the container setting that is missing, and where
a container runtime can build the image, the demo grades inside it with its sandbox."""
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from maskdiff_solutions.course.sandbox import settings

ROOT = Path(__file__).resolve().parents[3]
BASE = "python:3.11-slim"
# Where Docker Hub or PyTorch's index is out of reach: an image made locally to build FROM (docs/grading-at-scale.md,
# "Grading in a container") and the build's extra arguments (where pip finds torch, mounts).
LOCAL_BASE = os.environ.get("MASKDIFF_CONTAINER_BASE", "")
BUILD_ARGS = shlex.split(os.environ.get("MASKDIFF_CONTAINER_BUILD_ARGS", ""))
DOCKER_FLAGS = ("--security-opt seccomp=unconfined", "--security-opt apparmor=unconfined",
                "--security-opt systempaths=unconfined")
KUBERNETES = ("seccompProfile", "appArmorProfile", "procMount: Unmasked")


def container_section():
    from tests.support.docs import page
    text = page("grading-at-scale.md")
    return text[text.index("## In a container"):][:6000]


def test_the_recipe_pins_what_ci_installs_and_the_readme_names_every_setting():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"ARG BASE={BASE}\nFROM ${{BASE}}" in dockerfile and "bubblewrap" in dockerfile and "USER grader" in dockerfile
    pin = re.search(r"TORCH=(torch==[\d.]+)", (ROOT / ".ci" / "setup").read_text()).group(1)
    assert f'$TORCH_SOURCE "{pin}"' in dockerfile
    section = container_section()
    for setting in DOCKER_FLAGS + KUBERNETES:
        assert setting in section, setting
    for setting in DOCKER_FLAGS:
        assert setting.split()[1] in " ".join(hint for _, hint in settings.CONTAINER_SETTINGS), setting


@pytest.mark.parametrize("said, setting", [
    ("bwrap: Creating new namespace failed: Operation not permitted", "seccomp=unconfined"),
    ("bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "systempaths=unconfined"),
    ("bwrap: Failed to make / slave: Permission denied", "apparmor=unconfined"),
])
def test_required_refuses_naming_the_missing_container_setting(tmp_path, monkeypatch, said, setting):
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\necho \"{said}\" >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.setattr(settings, "_probed", {})
    with pytest.raises(settings.SandboxError, match=re.escape(setting)) as refused:
        settings.resolve_mode("required")
    assert said in str(refused.value)


def runtime():
    """(runtime, "") where a container runtime has the base image or can fetch it, else (None, why not)."""
    why = []
    for name in ("docker", "podman"):
        if shutil.which(name) is None:
            continue
        if LOCAL_BASE:
            found = subprocess.run([name, "image", "inspect", LOCAL_BASE], capture_output=True, text=True, timeout=60)
            if found.returncode == 0:
                return name, ""
            why.append(f"{name} has no image {LOCAL_BASE} (MASKDIFF_CONTAINER_BASE)")
            continue
        try:
            pulled = subprocess.run([name, "pull", BASE], capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            why.append(f"{name} pull {BASE} took over 5 minutes")
            continue
        if pulled.returncode == 0:
            return name, ""
        why.append(f"{name} cannot fetch {BASE}: {(pulled.stderr.strip().splitlines() or ['?'])[-1][:200]}")
    return None, "; ".join(why) or "no container runtime (docker or podman) is installed"


@pytest.mark.slow
@pytest.mark.course
def test_the_demo_grades_inside_the_container_with_its_sandbox():
    name, why = runtime()
    if name is None:
        pytest.skip(f"the container recipe cannot be run here: {why}")
    subprocess.run([name, "build", "--build-arg", f"BASE={LOCAL_BASE or BASE}", *BUILD_ARGS, "-t",
                    "maskdiff-grader-test", str(ROOT)], check=True, timeout=3600)
    flags = [part for flag in DOCKER_FLAGS for part in flag.split()]
    done = subprocess.run([name, "run", "--rm", *flags, "maskdiff-grader-test", "python", "-m", "maskdiff_solutions",
                           "demo", "--notebook", "01", "--sandbox", "required"],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0 and "every submission got the score it deserves" in done.stdout, \
        done.stdout[-2000:] + done.stderr[-2000:]
