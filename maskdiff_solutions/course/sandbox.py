"""One sandbox per student kernel: bubblewrap around ipykernel.

Inside, the kernel sees a read-only system (/usr, /etc) and Python environment, the student's own
handed-in files (copied into a private, size-capped home), a private /tmp, the socket of the trusted
checker, and nothing else of the course: no source/, no hidden package, no gradebook, no other
student. It has no network (Jupyter talks to it over Unix sockets: the `ipc` transport), runs as an
unprivileged user of its own (root graders lease one uid per sandbox), under caps on memory,
processes, file size, open files and CPU time, in a process namespace of its own: when the kernel
ends, everything it started ends with it.

`KernelSandbox` builds the command; `SandboxedKernelManager` is the Jupyter kernel manager that
uses it (nbgrader's Execute starts kernels through it when grading with our CLI).
"""
import errno
import fcntl
import os
import pwd
import secrets
import shlex
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Dict

import maskdiff_client

MODES = ("auto", "required", "off")
CLIENT_DIR = Path(maskdiff_client.__file__).resolve().parent
HOME, WORK, HANDIN, CHECKER_DIR, OPT = "/home/student", "/home/student/work", "/handin", "/run/maskdiff", "/opt/maskdiff"
UIDS = range(61000, 61256)   # root graders run each sandbox as one of these (unused) uids
MiB = 1 << 20
SYSTEM = ("/usr", "/etc", "/bin", "/lib", "/lib64", "/sbin")   # bound whole, read-only


class SandboxError(RuntimeError):
    """The sandbox was asked for and cannot be had; the message says why and what to install."""


@dataclass
class Limits:
    """Per kernel. The memory cap needs a writable cgroup (v1 or v2); the others always hold."""
    memory_mb: int = 6144          # cgroup memory, all processes together
    address_space_mb: int = 24576  # per process (torch reserves far more than it touches)
    processes: int = 512           # threads count too
    file_size_mb: int = 256        # the largest file a process may write
    open_files: int = 1024
    cpu_seconds: int = 1800        # per process
    home_mb: int = 1024            # the private home (handed-in files, what the notebook writes)
    tmp_mb: int = 512


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
    import json
    import tomllib
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
# (README: "Grading in a container").
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
    """'auto' -> 'required' where bubblewrap works, else 'off' (with a loud warning); 'required'
    raises when it does not work."""
    if mode not in MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(MODES)}, got {mode!r}")
    if mode == "off":
        return "off"
    works, why = available()
    if works:
        return "required"
    if mode == "required":
        raise SandboxError(f"--sandbox required, but bubblewrap cannot make a sandbox here: {why}")
    print("WARNING: grading WITHOUT a sandbox: student code runs with your rights and can read the "
          f"course, the gradebook and other students' work ({why}). Verdicts still come from the "
          "checker outside the student's kernel.", file=sys.stderr)
    return "off"


# ------------------------------------------------------------------------ what the sandbox sees

def python_roots():
    """Folders the kernel's Python needs, read-only: its prefixes (stdlib, site-packages) and the
    user's site-packages. Never sys.path entries beyond these: they may hold the course itself."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    user_site = Path(site.getusersitepackages())
    if user_site.is_dir():
        roots.add(user_site.resolve())
    kept = sorted(r for r in roots if not _is_system(r))
    # a root inside another root is bound with it
    return [r for r in kept if not any(r != o and str(r).startswith(str(o) + "/") for o in kept)]


def python_aliases():
    """(real folder, path) for each Python folder the interpreter knows by a path through a symbolic
    link (a venv in ~/envs where envs links to /data/envs): the kernel is started by that path, so
    the sandbox shows the real folder there as well."""
    known = {Path(os.path.abspath(p)) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                  sys.base_exec_prefix, Path(sys.executable).parent.parent)}
    pairs = []
    for path in sorted(known):
        real = path.resolve()
        if path != real and real.is_dir() and not _is_system(path):
            pairs.append((real, path))
    return pairs


def _is_system(path):
    return any(str(path) == s or str(path).startswith(s + "/") for s in SYSTEM)


def hidden_package_dirs(roots):
    """Folders of installed copies of maskdiff_solutions inside the bound roots: they get an empty
    folder laid over them (an editable install points at the course, which is never bound)."""
    found = []
    for root in roots:
        for candidate in list(root.glob("lib/python*/site-packages/maskdiff_solutions")) + \
                list(root.glob("lib/python*/dist-packages/maskdiff_solutions")) + \
                list(root.glob("maskdiff_solutions")):
            if candidate.is_dir():
                found.append(candidate)
    return found


def _system_binds():
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    return args


def _dirs_for(path, made):
    """bwrap makes a bind's missing parents 0700; make them 0755 so the sandbox user can pass."""
    args = []
    for parent in reversed(Path(path).parents):
        if str(parent) in made or str(parent) == "/":
            continue
        made.add(str(parent))
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


# ------------------------------------------------------------------------ uids and cgroups

LEASES = Path("/run/maskdiff")   # machine-wide (not under TMPDIR, which differs per job and per user)


def private_folder(path):
    """`path`, made if missing: a real folder (not a link) of root's, that only root can enter."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        raise SandboxError(f"{path} must be a folder of root's that only root can enter (chmod 700 {path})")
    return path


class Lease:
    """An unused uid held for one sandbox (root graders only), for the whole machine: an flock on
    /run/maskdiff/uids/UID.lock, which the kernel drops when the holder ends, crash included. A uid
    is taken only if no account has it and no process runs as it, except the orphans of a holder
    that crashed (its pid is still in the file): this lease then kills them. Processes of a uid
    this grader does not hold are never touched."""

    folder = LEASES / "uids"

    def __init__(self, base=UIDS.start):
        self.uid, self._handle, self._legacy = None, None, None
        private_folder(self.folder)
        for uid in range(base, base + len(UIDS)):
            if _uid_exists(uid):
                continue
            handle = open(self.folder / f"{uid}.lock", "a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            handle.seek(0)
            crashed_holder = handle.read().strip()
            legacy = _legacy_lock(uid)
            if legacy is None or (_pids_of_user(uid) and not crashed_holder):
                handle.close()          # an older grader's, or someone else's process (another tool)
                legacy and legacy.close()
                continue
            kill_user(uid)              # the kernels a crashed grader may have left behind
            self._legacy = legacy
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            self.uid, self._handle = uid, handle
            return
        raise SandboxError(f"all {len(UIDS)} sandbox uids from {base} are in use or run processes")

    def release(self):
        if self._handle is not None:
            kill_user(self.uid)
            self._handle.truncate(0)    # a clean end: nothing of this uid is left to kill
            self._handle.flush()
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._legacy.close()
            self._handle = self._legacy = None


class _Handles(list):
    def close(self):
        for handle in self:
            handle.close()


def _legacy_lock(uid):
    """The locks graders before this version took under their TMPDIR (mostly /tmp), held too, so that
    one of them grading beside skips this uid instead of killing its processes; None if one holds it."""
    held = _Handles()
    for temp in sorted({tempfile.gettempdir(), "/tmp"}):
        folder = Path(temp) / "maskdiff-sandbox-uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        handle = open(folder / f"{uid}.lock", "a")
        held.append(handle)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            held.close()
            return None
    return held


def _uid_exists(uid):
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def _kill_until_gone(pids_of):
    """SIGKILL the processes pids_of() lists, again and again, until it lists none (a process may fork
    while its siblings die)."""
    for _ in range(50):
        pids = pids_of()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)


def _pids_of_user(uid):
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith("Z"):
            found.append(int(entry.name))  # a zombie runs nothing: its parent has yet to reap it
    return found


def _pids_in_group(group):
    try:
        return [int(p) for p in (group / "cgroup.procs").read_text().split()]
    except OSError:  # the group is gone
        return []


def kill_user(uid):
    """SIGKILL every process whose real uid is `uid` (the sandbox's user), until none is left."""
    _kill_until_gone(lambda: _pids_of_user(uid))


class Cgroup:
    """A memory and process cap for one sandbox, where this machine lets us write cgroups (v1 memory
    and pids hierarchies, or v2 with both controllers delegated). `procs` are the files a process
    joins by writing its pid; `close` kills what is left and removes the groups."""

    def __init__(self, name, memory_bytes, processes):
        self.dirs, self.procs = [], []
        base = Path("/sys/fs/cgroup")
        try:
            if (base / "cgroup.controllers").is_file():  # v2
                parent = base / _own_v2_group()
                if {"memory", "pids"} <= set((parent / "cgroup.subtree_control").read_text().split()):
                    group = parent / name
                    _remove_stale(group)
                    group.mkdir()
                    self.dirs.append(group)
                    (group / "memory.max").write_text(str(memory_bytes))
                    (group / "memory.swap.max").write_text("0") if (group / "memory.swap.max").exists() else None
                    (group / "pids.max").write_text(str(processes))
                    self.procs.append(group / "cgroup.procs")
            else:  # v1
                for controller, settings in (("memory", {"memory.limit_in_bytes": memory_bytes}),
                                             ("pids", {"pids.max": processes})):
                    if not (base / controller / "cgroup.procs").is_file():
                        continue
                    group = base / controller / name
                    _remove_stale(group)
                    group.mkdir()
                    self.dirs.append(group)
                    for key, value in settings.items():
                        (group / key).write_text(str(value))
                    self.procs.append(group / "cgroup.procs")
        except OSError:
            self.close()
            self.dirs, self.procs = [], []

    def close(self):
        for group in self.dirs:
            _kill_until_gone(lambda: _pids_in_group(group))
            try:
                group.rmdir()
            except OSError:
                pass
        self.dirs = []


def cgroup_name(lease_uid=None):
    """Unique on the machine: a root grader's group is named for the uid it holds (a lease of its
    own, so a group of that name can only be a crashed holder's); anyone else's, for its uid, pid
    and a random part."""
    if lease_uid is not None:
        return f"maskdiff-uid{lease_uid}"
    return f"maskdiff-{os.getuid()}-{os.getpid()}-{secrets.token_hex(6)}"


def _remove_stale(group):
    """A group of this name is left over from a grader that crashed (the name is ours alone): kill
    what still runs in it and remove it."""
    if group.is_dir():
        _kill_until_gone(lambda: _pids_in_group(group))
        group.rmdir()


def _own_v2_group():
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            return line[3:].lstrip("/")
    return ""


def nproc_per_user_namespace():
    """Linux 5.14 and later count RLIMIT_NPROC per user namespace: a non-root grader's sandbox (a user
    namespace of its own) then caps its own processes, not all of the instructor's."""
    release = os.uname().release.split("-")[0].split(".")
    try:
        return (int(release[0]), int(release[1])) >= (5, 14)
    except (IndexError, ValueError):
        return False


# ------------------------------------------------------------------------ the command

class KernelSandbox:
    """Everything one sandboxed kernel holds: its folder (connection file, ipc sockets), its uid
    lease and cgroup; `wrap(argv)` is the command that starts argv inside it."""

    def __init__(self, settings):
        self.settings = Settings(**settings) if isinstance(settings, dict) else settings
        self.limits = Limits(**{**asdict(Limits()), **self.settings.limits})
        self.root = os.geteuid() == 0
        self.folder = Path(tempfile.mkdtemp(prefix="mdk-"))  # short: Unix socket paths are short
        self.lease = Lease(self.settings.uid_base) if self.root else None
        self.uid = self.lease.uid if self.lease else os.getuid()
        self.cgroup = Cgroup(cgroup_name(self.lease.uid if self.lease else None), self.limits.memory_mb * MiB,
                             self.limits.processes)
        if self.root:
            os.chown(self.folder, self.uid, self.uid)
        os.chmod(self.folder, 0o700)
        self.locked = False

    @property
    def connection_file(self):
        return str(self.folder / "kernel.json")

    @property
    def ipc_prefix(self):
        return str(self.folder / "ipc")

    def give_connection_file(self):
        """The manager wrote the connection file as itself: the kernel's user must read it."""
        if self.root:
            os.chown(self.connection_file, self.uid, self.uid)

    def lock(self):
        """Once the grader is connected, the kernel may no longer add, remove or replace files in its
        folder (a socket swapped for a link would redirect the grader's next reconnection)."""
        if self.root:
            os.chown(self.folder, 0, 0)
            os.chmod(self.folder, 0o755)
        self.locked = True

    def environment(self):
        env = {"HOME": HOME, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": OPT,
               "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
               "NBGRADER_EXECUTION": os.environ.get("NBGRADER_EXECUTION", "autograde")}
        for name in ("CI", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                     "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ"):
            if name in os.environ:
                env[name] = os.environ[name]
        if self.settings.checker:
            env["MASKDIFF_CHECKER"] = f"{CHECKER_DIR}/{Path(self.settings.checker).name}"
        if self.settings.cache:
            env["MASKDIFF_CACHE"] = f"{OPT}/cache"
        return env

    def wrap(self, argv):
        limits, made = self.limits, {"/home", HOME, "/tmp", "/run", "/opt"}
        args = [shutil.which("bwrap"), "--die-with-parent", "--unshare-ipc", "--unshare-pid",
                "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
        if not self.root:
            args += ["--unshare-user"]
        args += _system_binds() + ["--proc", "/proc", "--dev", "/dev",
                                   "--perms", "1777", "--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp",
                                   "--perms", "0755", "--dir", "/home",
                                   "--perms", "1777", "--size", str(limits.home_mb * MiB), "--tmpfs", HOME]
        roots = python_roots()
        for root in roots:
            args += _dirs_for(root, made) + ["--ro-bind", str(root), str(root)]
        for hidden in hidden_package_dirs(roots):
            args += ["--tmpfs", str(hidden)]
        for real, alias in python_aliases():
            args += _dirs_for(alias, made) + ["--ro-bind", str(real), str(alias)]
            args += [arg for hidden in hidden_package_dirs([real])
                     for arg in ("--tmpfs", str(alias / hidden.relative_to(real)))]
        args += ["--perms", "0755", "--dir", OPT, "--ro-bind", str(CLIENT_DIR), f"{OPT}/maskdiff_client"]
        if self.settings.cache and Path(self.settings.cache).is_dir():
            args += ["--ro-bind", str(self.settings.cache), f"{OPT}/cache"]
        if self.settings.checker:
            args += ["--perms", "0755", "--dir", "/run", "--ro-bind", str(Path(self.settings.checker).parent),
                     CHECKER_DIR]
        if self.settings.handin and Path(self.settings.handin).is_dir():
            args += ["--ro-bind", str(self.settings.handin), HANDIN]
        args += _dirs_for(self.folder, made) + ["--bind", str(self.folder), str(self.folder)]
        args += ["--clearenv"]
        for name, value in self.environment().items():
            args += ["--setenv", name, value]
        args += ["--chdir", HOME, "--"]
        inner = ["prlimit", f"--as={limits.address_space_mb * MiB}", f"--fsize={limits.file_size_mb * MiB}",
                 f"--nofile={limits.open_files}", f"--cpu={limits.cpu_seconds}", "--core=0"]
        if self.root or nproc_per_user_namespace():  # else it would count the instructor's own processes
            inner += [f"--nproc={limits.processes}"]
        if self.root:
            inner += ["--", "setpriv", f"--reuid={self.uid}",
                      f"--regid={self.uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
                      "--no-new-privs"]
        # the kernel's own stdout and stderr (what C code or os.write print) reach nobody
        quiet = "" if os.environ.get("MASKDIFF_SANDBOX_DEBUG") else " >/dev/null 2>&1"
        start = (f"umask 077; mkdir -p {WORK} && cp -R {HANDIN}/. {WORK}/ 2>/dev/null; "
                 f'cd {WORK} && exec "$@"{quiet} </dev/null')
        inner += ["--", "sh", "-c", start, "sh"] + list(argv)
        join = "".join(f"echo $$ > {shlex.quote(str(p))} || exit 97; " for p in self.cgroup.procs)
        # bubblewrap's own process is the sandbox's pid 1, with the environment it was started with,
        # readable in /proc/1/environ to a kernel of the same uid (a non-root grader's): start it with none
        return ["env", "-i", "sh", "-c", join + 'exec "$@"', "sh"] + args + inner

    def close(self):
        self.cgroup.close()
        if self.lease is not None:
            self.lease.release()
        shutil.rmtree(self.folder, ignore_errors=True)


# ------------------------------------------------------------------------ Jupyter

MAX_MESSAGE = 32 * MiB   # larger messages from the kernel are dropped by ZeroMQ, unread


class CappedKernelClient(AsyncKernelClient):
    """A kernel client whose sockets refuse oversized messages (a student's kernel cannot make the
    grader read a gigabyte): its own ZeroMQ context, with a default cap for every socket."""

    def _context_default(self):
        context = super()._context_default()
        context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        return context


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager that starts each kernel in its own KernelSandbox, over Unix sockets."""

    sandbox_settings = Dict(help="Settings (see maskdiff_solutions.course.sandbox.Settings)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.client_class = "maskdiff_solutions.course.sandbox.CappedKernelClient"
        self.transport = "ipc"
        self.sandbox = None

    async def _async_pre_start_kernel(self, **kw):
        # A signal to the kernel's process group would also reach bubblewrap, which dies of it and
        # takes the kernel along: interrupt by message, and the kernel signals itself.
        self.kernel_spec.interrupt_mode = "message"
        self.sandbox = KernelSandbox(self.sandbox_settings)
        self.connection_file = self.sandbox.connection_file
        self.ip = self.sandbox.ipc_prefix
        try:
            return await super()._async_pre_start_kernel(**kw)
        except BaseException:
            self._close_sandbox()
            raise

    def format_kernel_cmd(self, extra_arguments=None):
        argv = super().format_kernel_cmd(extra_arguments)
        self.sandbox.give_connection_file()
        return self.sandbox.wrap(argv)

    async def _async_cleanup_resources(self, restart=False):
        try:
            await super()._async_cleanup_resources(restart=restart)
        finally:
            self._close_sandbox()

    def _close_sandbox(self):
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None
