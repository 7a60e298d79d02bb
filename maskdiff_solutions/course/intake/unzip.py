"""Unpacking a zip that came from outside (a platform's export, or a zip a student handed in) without
trusting it: no member lands outside the target (absolute names, '..', drive letters), links are not
made, and what is unpacked stays within a count and size budget counted from the bytes actually
read (a zip's own size fields can lie). Whatever is left out is said, never silently dropped. A file
named .zip that is no zip is said to be what it looks like (`not_a_zip`)."""
import os
import stat
import time
import zipfile
from pathlib import Path, PurePosixPath

CHUNK = 1 << 20
JUNK = ("__MACOSX/", ".DS_Store", "Thumbs.db")


class Budget:
    """How many files and bytes may still be unpacked, shared by every zip of one intake."""

    def __init__(self, files, size):
        self.files, self.size = files, size


def safe_name(name):
    """The member's path relative to the target, or None when it would leave the target."""
    name = name.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or ":" in parts[0] or any(p in ("..", "") for p in parts):
        return None
    return Path(*parts)


def unpack(archive, target, budget):
    """Unpack archive into target; returns (written paths, [(member, why it was left out)])."""
    target = Path(target)
    written, left = [], []
    try:
        with zipfile.ZipFile(archive) as handle:
            members = handle.infolist()
            for info in members:
                if info.is_dir() or any(junk in info.filename for junk in JUNK):
                    continue
                why = _refuse(info, budget)
                relative = safe_name(info.filename)
                if relative is None:
                    why = "its name leads outside the folder"
                if why:
                    left.append((info.filename, why))
                    continue
                path = target / relative
                if path.exists():
                    left.append((info.filename, "a second member of the same name"))
                    continue
                why = _copy(handle, info, path, budget)
                if why:
                    left.append((info.filename, why))
                else:
                    written.append(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, RuntimeError) as err:
        left.append((Path(archive).name, f"not a readable zip: {type(err).__name__}: {err}"[:200]))
    return written, left


def _refuse(info, budget):
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a link (links are not unpacked)"
    if info.flag_bits & 0x1:
        return "encrypted"
    if budget.files <= 0:
        return "over the number of files unpacked"
    return ""


def _copy(handle, info, path, budget):
    """Copy one member, counting the bytes really read; a member over the budget is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    try:
        with handle.open(info) as source, open(path, "xb") as out:
            while block := source.read(CHUNK):
                size += len(block)
                if size > budget.size:
                    raise OverflowError
                out.write(block)
    except OverflowError:
        path.unlink(missing_ok=True)
        return "over the size unpacked"
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as err:
        path.unlink(missing_ok=True)
        return f"unreadable: {type(err).__name__}: {err}"[:200]
    budget.files -= 1
    budget.size -= size
    try:  # the member's own time: of two copies of one notebook, the newer is graded
        stamp = time.mktime(info.date_time + (0, 0, -1))
        os.utime(path, (stamp, stamp))
    except (OverflowError, ValueError, OSError):
        pass
    return ""


def not_a_zip(path):
    """"" for a zip; else what the file holds, in words, from its first bytes: a file named .zip that is
    no zip is often a sign-in or error page a browser saved in place of the download, or a download
    cut short."""
    if zipfile.is_zipfile(path):
        return ""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if not head.strip():
        return "it is empty"
    if head.startswith(b"PK"):
        return "it starts as a zip but is cut off (not downloaded whole): download it again"
    for magic, what in ((b"%PDF", "a PDF"), (b"\x1f\x8b", "a gzip archive"), (b"Rar!", "a RAR archive"),
                        (b"7z\xbc\xaf", "a 7-Zip archive")):
        if head.startswith(magic):
            return f"it is {what}"
    if any(byte < 9 or 13 < byte < 32 for byte in head):
        return "it holds binary data that is no zip"
    text = head.decode("utf-8", errors="replace").lstrip().lower()
    if text.startswith(("<!doctype html", "<html")) or "<html" in text[:1000]:
        return ("it is an HTML page (often a sign-in or error page the browser saved in place of the download): "
                "download the export again")
    return "it is JSON (a notebook?)" if text.startswith(("{", "[")) else "it is a text file"
