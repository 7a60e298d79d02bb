"""One sentence for what the machine refuses (a full disk, a read-only copy, a permission, a path that
is not there), wherever in the course it is raised: what went wrong, on which path, and the way on,
never a bare `[Errno N]`, a traceback or a Python list. The command line says every error so
(`message`); an error that carries another inside its words (nbgrader's log, a failed copy, the
gradebook's sqlite) has that part put into words too (`in_words`).
"""
import difflib
import errno
import os
import re
import shutil
import sqlite3
import stat
from pathlib import Path

# `[Errno 28] No space left on device: '/a' -> '/b'` inside any message (shutil and nbgrader quote them so)
QUOTED = r"'((?:[^'\\]|\\.)*)'"
ERRNO = re.compile(r"\[Errno (\d+)\] [^:;,'\]\n]+(?:: " + QUOTED + r"(?: -> " + QUOTED + r")?)?")
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
DENIED = (errno.EACCES, errno.EPERM)
# sqlite's own words for the same refusals (the gradebook, the record): (what it says, the errno it means)
SQLITE = (("disk is full", errno.ENOSPC), ("readonly database", errno.EROFS),
          ("unable to open database file", errno.EACCES), ("disk i/o error", errno.EIO))

# What stands after each command stopped on such an error, and so the way on once it is fixed.
AFTER = {
    "grade": "each student's results are as before or as after their own grading, never between: grade again "
             "once that is fixed",
    "export": "every file export writes is made from the record again: export again once that is fixed",
    "undo": "undo again once that is fixed (the earlier grading it puts back is kept until it is back whole)",
    "similarity": "its report may be incomplete: run similarity again once that is fixed",
    "publish": "the students' folder is as it was: publish again once that is fixed",
    "gradescope": "no autograder was written: run gradescope again once that is fixed",
    "release": "release/ is as it was: release again once that is fixed",
    "demo": "run the demo again once that is fixed",
    "formgrader": "start it again once that is fixed",
}


# A path mistyped or in the wrong place: said before any work, so nothing stands to be told of
MISTYPED = (errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG)


def message(err, command=None):
    """The one line the command line prints for err (after `error: `): a machine's refusal in words,
    with what stands after `command` and the way on; any other error's own words."""
    said = describe(err)
    if said is None:
        return in_words(str(err))
    after = AFTER.get(command) if getattr(err, "errno", None) not in MISTYPED else None
    return f"{said}; {after}" if after else said


def describe(err):
    """The problem and the way on for an error of the machine (an OSError with an errno, sqlite's
    refusals, a copy's list of failures, a database library's wrapper of them); None for any other."""
    err = getattr(err, "orig", None) or err   # SQLAlchemy's wrapper (nbgrader's gradebook): its cause
    if isinstance(err, sqlite3.Error) and not isinstance(err, sqlite3.IntegrityError):
        found = next((code for words, code in SQLITE if words in str(err).lower()), None)
        return about(found, what="the workspace's gradebook.db") if found else None
    if isinstance(err, shutil.Error) and err.args and isinstance(err.args[0], list) and err.args[0]:
        # copytree's list of [(source, target, why), ...]
        failures = err.args[0]
        first = in_words(str(failures[0][2]))
        return first + (f" (and {len(failures) - 1} more file(s) like it)" if len(failures) > 1 else "")
    if isinstance(err, OSError) and err.errno:
        return about(err.errno, err.filename, err.filename2)
    return None


def in_words(text):
    """text with every `[Errno N] ...: 'path'` inside it said in words."""
    return ERRNO.sub(lambda m: about(int(m[1]), _unquote(m[2]), _unquote(m[3])), text)


def _unquote(text):
    return text.replace("\\'", "'").replace("\\\\", "\\") if text is not None else None


def about(code, path=None, other=None, what="a file the command writes"):
    """One sentence on what errno `code` means for `path` (`other`: a copy's target; `what`: the file
    in words where the path is not known) and the way on. Looking around the path (its owner, its
    disk, the names beside it) may itself be refused: then the sentence says what it can."""
    try:
        return _about(code, path, other, what)
    except (OSError, KeyError):
        words = os.strerror(code).rstrip(".")
        return f"{words[0].lower() + words[1:]}: {other or path or what}: check that path, then run the command again"


def _about(code, path, other, what):
    if code in FULL + (errno.EROFS,) + DENIED and other is not None:
        path = other   # a copy fails on the side it writes
    where = str(path) if path is not None else what
    if code in FULL:
        quota = " (your disk quota)" if code == errno.EDQUOT else ""
        disk = f"the disk that holds {where}{_mount(path)}" if path is not None else "a disk the command writes to"
        return (f"there is no space left{quota} on {disk}: free some space there (`df -h` says how much is "
                f"left) or work on another disk")
    if code == errno.EROFS:
        return (f"{where} is on a read-only file system{_mount(path)} (or a read-only file): work in a copy you "
                f"can write to, or choose a folder on a writable disk")
    if code in DENIED:
        return _denied(path, where)
    if code == errno.ENOENT:
        missing = _first_missing(path) if path is not None else None
        return (f"{missing or where} does not exist{_close_to(missing)}: check the path"
                if missing else f"{where} is not there any more (removed while the command ran): run it again")
    if code == errno.ENOTDIR:
        return f"{where} is not a folder (or a part of its path is a file): check the path"
    if code == errno.EISDIR:
        return f"{where} is a folder where a file was expected: check the path"
    if code == errno.EEXIST:
        return f"{where} already exists: move it out of the way or choose another name"
    if code == errno.ENAMETOOLONG:
        return f"{where} is too long a name for this file system: choose a shorter path"
    if code in (errno.EMFILE, errno.ENFILE):
        return "too many files are open at once: raise the limit (`ulimit -n 8192`) or grade with fewer --jobs"
    if code == errno.ENOMEM:
        return "this machine ran out of memory: close other programs or grade with fewer --jobs"
    if code == errno.EIO:
        return f"the disk that holds {where} failed to read or write it (an input/output error): check that disk"
    words = os.strerror(code).rstrip(".")
    return f"{words[0].lower() + words[1:]}: {where}" if path is not None else words[0].lower() + words[1:]


def _exists(path):
    try:
        return path.exists()
    except OSError:   # inside a folder we may not search: as good as not there for us
        return False


def _existing(path):
    """The path itself if it exists, else its nearest folder that does."""
    path = Path(os.path.abspath(path))
    while not _exists(path) and path != path.parent:
        path = path.parent
    return path


def _mount(path):
    """' (the disk mounted at /x)' for the mount point under path, '' where none is found."""
    if path is None:
        return ""
    folder = _existing(path)
    while not os.path.ismount(folder) and folder != folder.parent:
        folder = folder.parent
    return f" (the disk mounted at {folder})" if folder != folder.parent else ""


def _owner(path):
    import pwd
    uid = path.stat().st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


def _denied(path, where):
    """Who may not do what on path, who may, and the way on."""
    import getpass
    try:
        me = getpass.getuser()
    except (OSError, KeyError):   # a uid with no name (a container's)
        me = f"uid {os.geteuid()}"
    if path is None:
        return (f"you ({me}) may not open or write {where} (permission denied): run the command as the user who "
                f"owns the workspace, or choose folders you own")
    target = _existing(path)
    exists = target == Path(os.path.abspath(path))
    verb = "read" if exists and not os.access(target, os.R_OK) else "write to" if exists else "create"
    owner, mode = _owner(target), stat.filemode(target.stat().st_mode)
    holder = "" if exists else f" in {target}"
    if owner == me:
        return (f"you ({me}) may not {verb} {where}{holder}: its permissions ({mode}) forbid it; give yourself the "
                f"right (`chmod u+{'r' if verb == 'read' else 'w'} {target}`) or choose another folder")
    return (f"you ({me}) may not {verb} {where}{holder}, which belongs to {owner} ({mode}): run the command as "
            f"{owner}, ask them to give you access, or choose a folder of your own")


def _first_missing(path):
    """The first part of path that does not exist (None: it all does)."""
    path = Path(os.path.abspath(path))
    if _exists(path):
        return None
    while not _exists(path.parent) and path != path.parent:
        path = path.parent
    return path


def _close_to(missing):
    """' (did you mean X?)' when a missing path has a sibling of a close name, else ''."""
    if missing is None or not missing.parent.is_dir():
        return ""
    try:
        names = [p.name for p in missing.parent.iterdir() if not p.name.startswith(".")]
    except OSError:
        return ""
    close = difflib.get_close_matches(missing.name, names, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(str(missing.parent / name) for name in close)}?)" if close else ""
