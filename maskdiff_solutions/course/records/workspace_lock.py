"""One grading run per workspace at a time: `hold(workspace)` takes an flock on
WORKSPACE/.grading.lock before anything is written there, or refuses at once, in one sentence, if
another run holds it. The kernel drops the lock when its holder ends, crash included, so a lock file
left behind never blocks anyone."""
import fcntl
import os
from pathlib import Path

NAME = ".grading.lock"


class WorkspaceBusy(RuntimeError):
    """Another grading run is writing into this workspace."""


class Held:
    def __init__(self, handle):
        self._handle = handle

    def release(self):
        if self._handle is not None:
            self._handle.close()  # closing drops the flock
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()


def hold(workspace):
    """The workspace's lock, held until released (or until the holder's process ends)."""
    path = Path(workspace) / NAME
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise WorkspaceBusy(f"another grading run (process {holder}) is writing into {workspace}; wait for "
                            f"it to finish, or grade into another --workspace") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return Held(handle)
