"""One sandbox per student kernel: bubblewrap around ipykernel. This module holds what grading chooses
and checks before any kernel starts: the mode (auto, required, off), the limits, the settings handed to
nbgrader's Execute, and whether bubblewrap works here.

Inside a sandbox, the kernel sees a read-only system (/usr, /etc) and Python environment, the
student's own handed-in files (copied into a private, size-capped home), a private /tmp, the socket of
the trusted checker, and nothing else of the course: no source/, no hidden package, no gradebook, no
other student. It has no network (Jupyter talks to it over Unix sockets: the `ipc` transport), runs as
an unprivileged user of its own (root graders lease one uid per sandbox: course/sandbox/leases.py), under caps
on memory, processes, file size, open files and CPU time, in a process namespace of its own: when the
kernel ends, everything it started ends with it.

`kernel_sandbox.KernelSandbox` builds the command; `kernel_sandbox.SandboxedKernelManager` is the
Jupyter kernel manager that uses it (nbgrader's Execute starts kernels through it when grading with
our CLI).
"""
import json
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..layout import SANDBOX_MODES

UIDS = range(61000, 61256)   # root graders run each sandbox as one of these (unused) uids


class SandboxError(RuntimeError):
    """The sandbox was asked for and cannot be had; the message says why and what to install."""


@dataclass
class Limits:
    """Per kernel. The memory cap needs a writable cgroup (v1 or v2); the others always hold. Each
    field's doc is shown in the docs' reference (course/cli_reference.py)."""
    memory_mb: int = field(default=6144, metadata={"doc": "memory of all the kernel's processes together (a cgroup)"})
    address_space_mb: int = field(default=24576, metadata={
        "doc": "address space per process where no cgroup caps memory (torch reserves far more than it touches)"})
    address_space_capped_mb: int = field(default=131072, metadata={
        "doc": "address space per process where the cgroup caps memory: vl-convert's JavaScript engine, which "
               "works out altair's transforms, reserves about 68 GiB that it never touches"})
    processes: int = field(default=512, metadata={"doc": "processes and threads"})
    file_size_mb: int = field(default=256, metadata={"doc": "the largest file a process may write"})
    open_files: int = field(default=1024, metadata={"doc": "open files per process"})
    cpu_seconds: int = field(default=1800, metadata={"doc": "CPU time per process"})
    home_mb: int = field(default=1024, metadata={
        "doc": "the private home (the handed-in files and what the notebook writes)"})
    tmp_mb: int = field(default=512, metadata={"doc": "the private /tmp"})


@dataclass
class Settings:
    """What grading tells Execute about the sandbox of each kernel (plain data: it goes through
    traitlets config)."""
    mode: str = "auto"
    checker: str = ""        # host path of the checker's socket ("" = checks run in-process)
    handin: str = ""         # host folder of the student's handed-in files
    cache: str = ""          # host folder of read-only caches (the stand-in networks)
    limits: dict = field(default_factory=lambda: asdict(Limits()))
    uid_base: int = UIDS.start

    def to_dict(self):
        return asdict(self)


LIMITS_VARIABLE = "MASKDIFF_SANDBOX_LIMITS"


def configured_limits(course_root):
    """Limits: the defaults, then `[tool.maskdiff.sandbox]` of the course's pyproject.toml, then the
    JSON object in MASKDIFF_SANDBOX_LIMITS (for one run). Unknown keys and bad values are errors."""
    values = asdict(Limits())
    pyproject = Path(course_root) / "pyproject.toml"
    layers = [("pyproject.toml [tool.maskdiff.sandbox]",
               tomllib.loads(pyproject.read_text()).get("tool", {}).get("maskdiff", {}).get("sandbox", {})
               if pyproject.is_file() else {})]
    if os.environ.get(LIMITS_VARIABLE, "").strip():
        try:
            layers.append((LIMITS_VARIABLE, json.loads(os.environ[LIMITS_VARIABLE])))
        except ValueError as err:
            raise ValueError(f"{LIMITS_VARIABLE} must be a JSON object of limits: {err}") from None
    for where, layer in layers:
        if not isinstance(layer, dict):
            raise ValueError(f"{where} must be a table of limits, got {layer!r}")
        for key, value in layer.items():
            if key not in values:
                raise ValueError(f"{where}: unknown sandbox limit {key!r}; known: {', '.join(values)}")
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{where}: {key} must be a positive whole number, got {value!r}")
            values[key] = value
    return values


_probed = {}


def available():
    """(True, "") if bubblewrap can make sandboxes here, else (False, why)."""
    if "answer" not in _probed:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            _probed["answer"] = (False, "bubblewrap is not installed (Debian/Ubuntu: "
                                        "apt-get install bubblewrap)")
        else:
            command = [bwrap, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--proc", "/proc",
                       "--dev", "/dev"] + ([] if os.geteuid() == 0 else ["--unshare-user"]) + ["true"]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=30)
                said = done.stderr.strip()[-300:]
                _probed["answer"] = (done.returncode == 0, said + missing_setting(said) if done.returncode else said)
            except (OSError, subprocess.TimeoutExpired) as err:
                _probed["answer"] = (False, str(err))
    return _probed["answer"]


# What bubblewrap says when a container's security settings forbid it, and the setting that allows it
# (docs/grading-at-scale.md, "In a container").
CONTAINER_SETTINGS = (
    (("No permissions to creat", "Creating new namespace failed", "setting up uid map", "unshare"),
     "new namespaces are forbidden: in Docker run with --security-opt seccomp=unconfined (Kubernetes: "
     "securityContext.seccompProfile.type: Unconfined); on the host, unprivileged user namespaces must be "
     "on (sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1, and on Ubuntu 23.10+ "
     "kernel.apparmor_restrict_unprivileged_userns=0)"),
    (("mount proc",),
     "the container's /proc is masked: in Docker run with --security-opt systempaths=unconfined "
     "(Kubernetes: securityContext.procMount: Unmasked)"),
    (("make / slave", "mount", "pivot_root", "remount"),
     "mounts are forbidden: in Docker run with --security-opt apparmor=unconfined (Kubernetes: "
     "securityContext.appArmorProfile.type: Unconfined)"),
)


def missing_setting(said):
    """The container setting that bubblewrap's complaint points to ("" if none is recognised)."""
    for marks, setting in CONTAINER_SETTINGS:
        if any(mark.lower() in said.lower() for mark in marks):
            return f" ({setting})"
    return ""


def resolve_mode(mode):
    """'auto' -> 'required' where bubblewrap works, else 'off' (with a loud warning), but never for
    root: students' code would run as root, so root grades without a sandbox only when told so
    (--sandbox off); 'required' raises when it does not work."""
    if mode not in SANDBOX_MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(SANDBOX_MODES)}, got {mode!r}")
    if mode == "off":
        return "off"
    works, why = available()
    if works:
        return "required"
    if mode == "required":
        raise SandboxError(f"--sandbox required, but bubblewrap cannot make a sandbox here: {why}")
    if os.geteuid() == 0:
        raise SandboxError(f"bubblewrap cannot make a sandbox here ({why}), and without one every student's code "
                           f"would run as root, able to change the course, the gradebook and this machine: make "
                           f"the sandbox work (`python -m maskdiff_solutions check-setup` says why it does not), "
                           f"grade as an ordinary user, or pass --sandbox off to run it as root knowingly")
    print("WARNING: grading WITHOUT a sandbox: student code runs with your rights and can read the "
          f"course, the gradebook and other students' work ({why}). Verdicts still come from the "
          "checker outside the student's kernel.", file=sys.stderr)
    return "off"


