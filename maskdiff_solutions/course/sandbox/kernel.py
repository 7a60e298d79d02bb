"""The command that starts one student kernel inside its sandbox (bubblewrap around ipykernel), and
the Jupyter kernel manager and client that nbgrader's Execute uses to start and talk to it (course/
settings.py says what the sandbox holds and holds out)."""
import os
import shlex
import shutil
import site
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Dict

import maskdiff_client

from ..layout import CACHE_VARIABLE, HIDDEN_PACKAGE, STAND_INS
from .leases import Cgroup, Lease, cgroup_name, nproc_per_user_namespace
from .settings import Limits, Settings

CLIENT_DIR = Path(maskdiff_client.__file__).resolve().parent
HOME, WORK, HANDIN, CHECKER_DIR, OPT = "/home/student", "/home/student/work", "/handin", "/run/maskdiff", "/opt/maskdiff"
MiB = 1 << 20
# Set for every graded kernel, sandbox or not: a cell's `!pip install` fails at once (no network to retry
# against), installing nothing; and rich, which in Jupyter wraps its text at 115 columns (a 32-token
# story on two lines), writes each line whole for the reader (what the student sees, unwrapped).
GRADING_ENV = {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "JUPYTER_COLUMNS": "10000"}
SYSTEM = ("/usr", "/etc", "/bin", "/lib", "/lib64", "/sbin")   # bound whole, read-only


# ------------------------------------------------------------------------ what the sandbox sees

def python_roots():
    """Folders the kernel's Python needs, read-only: its prefixes (stdlib, site-packages), the
    user's site-packages, and site-packages folders a .pth file of theirs adds (a venv made inside
    another one hands the outer venv's packages on so). Never other sys.path entries: they may hold
    the course itself."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    roots |= {Path(p).resolve() for p in sys.path if Path(p).name in ("site-packages", "dist-packages")
              and Path(p).is_dir()}
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
        for candidate in list(root.glob(f"lib/python*/site-packages/{HIDDEN_PACKAGE}")) + \
                list(root.glob(f"lib/python*/dist-packages/{HIDDEN_PACKAGE}")) + \
                list(root.glob(HIDDEN_PACKAGE)):
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

    def environment(self):
        env = {"HOME": HOME, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "PYTHONPATH": os.pathsep.join([OPT, "/".join([OPT, *STAND_INS])]),
               "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "MPLBACKEND": "module://matplotlib_inline.backend_inline",
               **GRADING_ENV,
               "NBGRADER_EXECUTION": os.environ.get("NBGRADER_EXECUTION", "autograde")}
        for name in ("CI", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                     "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "TZ"):
            if name in os.environ:
                env[name] = os.environ[name]
        if self.settings.checker:
            env["MASKDIFF_CHECKER"] = f"{CHECKER_DIR}/{Path(self.settings.checker).name}"
        if self.settings.cache:
            env[CACHE_VARIABLE] = f"{OPT}/cache"
        return env

    def wrap(self, argv):
        limits, made = self.limits, {"/home", HOME, "/tmp", "/run", "/opt", "/content"}
        args = [shutil.which("bwrap"), "--die-with-parent", "--unshare-ipc", "--unshare-pid",
                "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "sandbox"]
        if not self.root:
            args += ["--unshare-user"]
        args += _system_binds() + ["--proc", "/proc", "--dev", "/dev",
                                   "--perms", "1777", "--size", str(limits.tmp_mb * MiB), "--tmpfs", "/tmp",
                                   "--perms", "0755", "--dir", "/home",
                                   "--perms", "1777", "--size", str(limits.home_mb * MiB), "--tmpfs", HOME,
                                   # Colab's working folder, where its Drive is mounted: a scratch one here
                                   "--perms", "1777", "--size", str(limits.home_mb * MiB), "--tmpfs", "/content"]
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
        # where the cgroup caps the memory touched, V8 (altair's transforms) may reserve far more (settings.py)
        space = limits.address_space_capped_mb if self.cgroup.caps_memory else limits.address_space_mb
        inner = ["prlimit", f"--as={space * MiB}", f"--fsize={limits.file_size_mb * MiB}",
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

    def stop_channels(self):
        # jupyter_client lingers 100 ms a socket over messages to a kernel that is gone by now; nothing
        # the grader still had to send matters once the notebook has run
        created, self._created_context = self._created_context, False
        super().stop_channels()
        if created and not self.context.closed:
            self.context.destroy(linger=0)


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager that starts each kernel in its own KernelSandbox, over Unix sockets."""

    sandbox_settings = Dict(help="Settings (see maskdiff_solutions.course.sandbox.settings.Settings)").tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.client_class = "maskdiff_solutions.course.sandbox.kernel.CappedKernelClient"
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
