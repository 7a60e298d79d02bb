"""Uids and cgroups of sandboxed kernels (course/sandbox/kernel.py): a root grader leases one unused uid
per sandbox for the whole machine, and each kernel gets a cgroup of its own for its memory and process
caps; what a crashed grader left behind (orphan processes, stale cgroups) is cleaned up by the next
lease of the same uid."""
import fcntl
import os
import pwd
import secrets
import signal
import stat
import tempfile
import time
from pathlib import Path



from .settings import UIDS, SandboxError


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
    joins by writing its pid; `caps_memory`, whether one of them caps memory; `close` kills what is
    left and removes the groups."""

    def __init__(self, name, memory_bytes, processes):
        self.dirs, self.procs, self.caps_memory = [], [], False
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
                    self.caps_memory = True
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
                    self.caps_memory = self.caps_memory or controller == "memory"
        except OSError:
            self.close()
            self.dirs, self.procs, self.caps_memory = [], [], False

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




def describe(mode, limits):
    """One line for the instructor: the sandbox in force for this user, and where the memory cap
    applies (a cgroup per kernel where this machine lets us write one; else per process only)."""
    user = pwd.getpwuid(os.geteuid()).pw_name
    if mode != "required":
        return (f"sandbox: OFF: student code runs as {user} and can read and change what {user} can "
                f"(verdicts still come from the checker, outside the student's kernel)")
    how = ("as root: each kernel runs as a uid of its own, leased per sandbox" if os.geteuid() == 0 else
           f"as {user}, in user namespaces: each kernel sees its student's files only")
    probe = Cgroup(cgroup_name(), limits["memory_mb"] << 20, limits["processes"])
    capped = probe.caps_memory
    probe.close()
    memory = (f"memory: {limits['memory_mb']} MB per kernel, all its processes together (cgroup)" if capped else
              f"memory: no cgroup can be written here, so {limits['address_space_mb']} MB of address space "
              f"per process instead (altair charts whose tables VegaFusion works out then go to a person)")
    return f"sandbox: on (bubblewrap, {how}); {memory}"
