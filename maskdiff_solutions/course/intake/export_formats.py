"""Each platform's export read as it lays out its files: which student each file belongs to (the id the
platform wrote into its name, or its metadata), the file's own name, which of several is the latest,
and what the platform marked late. Files that match nobody go to `unmatched` with the reason; nothing
here copies or changes a file (course/intake/platforms.py stages them)."""
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from .folder import regular_files, student_ids

CANVAS = re.compile(r"^(?P<name>[^_]+?)(?P<late>_late)?_(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)$",
                    re.IGNORECASE)
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<participant>\d+)_assign(?:submission|feedback)_(?P<plugin>[a-z]+)_?"
                    r"(?P<file>.*)$")
RESUBMITTED = re.compile(r"^(?P<stem>.+?)-(?P<version>\d+)(?P<suffix>\.[A-Za-z0-9]+)$")

@dataclass
class Entry:
    """One file of the export, matched to the student its name (or metadata) says."""
    key: str             # the platform's id of the student
    name: str            # their name as the export writes it
    path: Path
    staged: str          # its name in the student's folder
    order: tuple = ()    # the latest of several with one staged name wins
    late: bool = False


def detect(folder, assignment):
    """canvas | moodle | gradescope | nbgrader | collected | None (nothing this can read)."""
    entries = [p for p in sorted(folder.iterdir()) if not p.name.startswith((".", "__MACOSX"))]
    files = [p for p in entries if p.is_file() and not p.is_symlink()]
    dirs = [p for p in entries if p.is_dir() and not p.is_symlink()]
    if (folder / "submission_metadata.yml").is_file():
        return "gradescope"
    if any(MOODLE.match(p.name) for p in entries):
        return "moodle"
    if files and any(CANVAS.match(p.name) for p in files) and not dirs:
        return "canvas"
    if dirs and all((d / assignment).is_dir() for d in dirs):
        return "nbgrader"
    return "collected" if dirs else None


def unwrap(folder, assignment):
    """An export unpacked into a folder of its own (`assignment_123_export/`): the folder inside."""
    entries = [p for p in folder.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        inner = detect(entries[0], assignment)
        if inner not in (None, "collected"):
            return entries[0]
    return folder


def canvas(folder, unmatched, notes):
    entries = []
    for path in regular_files(folder):
        relative = path.relative_to(folder)
        found = CANVAS.match(path.name) if len(relative.parts) == 1 else None
        if not found:
            unmatched.append([str(relative), "not named as Canvas names a submission"])
            continue
        staged, version = _resubmitted(found["file"])
        entries.append(Entry(found["user"], found["name"], path, staged,
                             (version, int(found["attachment"])), bool(found["late"])))
    return entries


def _resubmitted(name):
    """Canvas renames a file handed in again 'x-1.ipynb', 'x-2.ipynb': (its first name, how often)."""
    found = RESUBMITTED.match(name)
    return (found["stem"] + found["suffix"], int(found["version"])) if found else (name, 0)


def moodle(folder, unmatched, notes):
    entries = []
    for path in regular_files(folder):
        relative = path.relative_to(folder)
        found = MOODLE.match(relative.parts[0])
        if not found or (len(relative.parts) == 1 and not found["file"]):
            unmatched.append([str(relative), "not named as Moodle names a submission"])
            continue
        inside = Path(*relative.parts[1:]) if len(relative.parts) > 1 else Path(found["file"])
        if found["plugin"] == "onlinetext":
            notes.append(f"{found['name']}: online text ({relative}) is not graded")
        entries.append(Entry(found["participant"], found["name"], path, str(inside), (path.stat().st_mtime,)))
    return entries


def gradescope(folder, unmatched, notes):
    try:
        metadata = yaml.safe_load((folder / "submission_metadata.yml").read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise ValueError(f"{folder / 'submission_metadata.yml'} cannot be read: {err}") from err
    if not isinstance(metadata, dict):
        raise ValueError(f"{folder / 'submission_metadata.yml'} is not Gradescope's metadata (no submissions in it)")
    entries, named = [], set()
    for submission, info in metadata.items():
        if not _one_name(submission):
            notes.append(f"submission_metadata.yml names {str(submission)[:80]!r}, which is not a folder "
                         f"of the export; left out")
            continue
        info = info if isinstance(info, dict) else {}
        people = [p for p in _plain(info).get("submitters", []) or [] if isinstance(p, dict)]
        when, late = str(_plain(info).get("created_at", "")), _gradescope_late(_plain(info))
        for path in regular_files(folder / str(submission)):
            named.add(path)
            for person in map(_plain, people):
                key = str(person.get("sid") or person.get("email") or "").strip().lower()
                if not key:
                    unmatched.append([str(path.relative_to(folder)), "its submitter has no SID or email"])
                    continue
                entries.append(Entry(key, str(person.get("name", "")), path,
                                     str(path.relative_to(folder / str(submission))), (when,), late))
            if len(people) > 1:
                notes.append(f"{submission}: a group submission of {len(people)} students, "
                                    f"each graded on it")
    for path in regular_files(folder):
        if path not in named and path.name != "submission_metadata.yml":
            unmatched.append([str(path.relative_to(folder)), "in no submission the metadata names"])
    return entries


def _one_name(name):
    """A folder name of the export itself: never a path that leads elsewhere."""
    name = str(name)
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name


def _plain(info):
    """Gradescope's YAML keys are Ruby symbols (':name'): the names without the colon."""
    return {str(k).lstrip(":"): v for k, v in info.items()} if isinstance(info, dict) else {}


def _gradescope_late(info):
    return bool(info.get("late")) or "late" in str(info.get("status", "")).lower()


def folders(folder, unmatched, notes, inner=None):
    """nbgrader's submitted/<student>/<assignment>/ (inner: the assignment) or collected/<student>/.
    Two folders that would share one id stop it (folder.student_ids): never one student of two."""
    ids = {name: sid for sid, name in student_ids(p.name for p in folder.iterdir()
                                                  if p.is_dir() and not p.is_symlink()).items()}
    entries = []
    for path in regular_files(folder):
        relative = path.relative_to(folder)
        if len(relative.parts) == 1:
            unmatched.append([str(relative), "not inside a student's folder"])
            continue
        student = relative.parts[0]
        rest = Path(*relative.parts[1:])
        if inner:
            if rest.parts[0] != inner or len(rest.parts) == 1:
                unmatched.append([str(relative), f"not inside {student}/{inner}/"])
                continue
            rest = Path(*rest.parts[1:])
        entries.append(Entry(ids[student], student, path, str(rest), (path.stat().st_mtime,)))
    return entries
