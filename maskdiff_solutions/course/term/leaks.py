"""What must never reach students, looked for in every file of the students' folder, not only in those
`publish` writes: the folder is a git clone that `git add -A` publishes whole, so a solution notebook
copied in, a check module dropped beside the notebooks or the autograder zip saved there would be
public at the next push.

Never there: a solution or hidden test (their markers, their lines, a source notebook however named),
the checks (a module of the hidden package or of the client, by name, by content, compiled), what
grading writes about students (a gradebook or any database, grades or a class list by their columns,
handed-in work, feedback), the
course's own files (its tests, its nbgrader configuration), an archive holding any of these (the
Gradescope autograder, a zip of the course), and a link out of the folder. `files_written` checks what
publish itself writes, more strictly (only the notebooks, their README, the requirements and the reader).
"""
import hashlib
import io
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from ..intake import notebooks
from ..layout import COURSE_PACKAGES, PACKAGE_PARENT, READER
from .whole import PARTIAL

MARKERS = (notebooks.BEGIN_SOLUTION, notebooks.END_SOLUTION, notebooks.BEGIN_HIDDEN, notebooks.END_HIDDEN,
           "run_check", *COURSE_PACKAGES)
# the names of the instructors' repository and of what grading writes: folders, and files
FOLDER_NAMES = (*COURSE_PACKAGES, "source", "autograded", "submitted", "feedback", "collected", "earlier-gradings",
                "intake", "intake-unmatched", ".intake-export", "feedback-canvas", "similarity", ".grading-staging")
FILE_NAMES = ("nbgrader_config.py", "gradebook.db", "grades-by-notebook.csv", "grades-by-student.csv",
              "grades-canvas.csv", "grades-moodle.csv", "feedback-moodle.zip", "canary-proof.json", "intake.json",
              "grading-summary.txt", "grading-summary.png", "grading-state.json", ".grading.lock")
DATABASES = (".db", ".sqlite", ".sqlite3", ".db-journal")
# the first line of a file of students' names or marks: our grades files, Canvas's gradebook export,
# Moodle's grading worksheet, Gradescope's roster
CLASS_LISTS = ("auto_score", "platform_id", "SIS User ID", "Identifier,Full name", "SID,Email")
AUTOGRADER = {"setup.sh", "run_autograder"}   # what Gradescope's autograder zip holds at its top
COURSE_FOLDERS = (*COURSE_PACKAGES, "source", "tests")   # whose files, copied anywhere, are the course's own
SHORTEST_LINE = 16   # shorter solution lines (`return x`) are found in honest files too
LARGEST = 64 << 20   # a file or archive member read whole; larger ones are searched for the markers only
NESTED = 2           # archives inside archives looked into


class Secrets:
    """What the course holds that students must not: its solution and hidden-test lines, and the bytes
    of every file of its packages, source/ and tests/ (a copy is the course's own, whatever its name)."""

    def __init__(self, course):
        sources = [notebooks.read(course.source_dir / name) for name in course.notebooks()]
        self.lines = {line for line in notebooks.secret_lines(*sources) if len(line) >= SHORTEST_LINE}
        self.digests = {}
        roots = [PACKAGE_PARENT / package for package in COURSE_PACKAGES]
        roots += [course.root / folder for folder in COURSE_FOLDERS]
        for root in roots:
            for path in sorted(root.rglob("*")) if root.is_dir() else []:
                if path.is_file() and "__pycache__" not in path.parts and path.stat().st_size >= 64:
                    self.digests.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(),
                                            PurePosixPath(root.name, *path.relative_to(root).parts))


def in_folder(course, target, replaced=()):
    """[(path relative to target, why)] for every file of target (but .git/, and the files publish is
    about to replace or remove) that must not reach students, each with its most telling reason."""
    target = Path(target)
    if not target.is_dir():
        return []
    secrets, found = Secrets(course), []
    for path in sorted(target.rglob("*")):
        relative = path.relative_to(target)
        if relative.parts[0] in (".git", PARTIAL) or relative.as_posix() in replaced:
            continue
        if path.is_symlink():
            pointed = path.resolve()
            if target.resolve() not in pointed.parents:
                found.append((relative.as_posix(), f"a link out of the students' folder, to {pointed}"))
            continue
        if path.is_file():
            why = _judge(secrets, relative, path.stat().st_size, lambda p=path: p.open("rb"))
            if why:
                found.append((relative.as_posix(), why[0]))   # the most telling reason, first
    return _by_folder(found)


def _by_folder(found):
    """found with the files of a folder named like the course's own (a package copied in, submitted/)
    said once, as that folder."""
    folders, kept = {}, []
    for relative, why in found:
        parts = relative.split("/")
        named = next((k for k, part in enumerate(parts[:-1]) if part.lower() in FOLDER_NAMES), None)
        if named is None:
            kept.append((relative, why))
        else:
            folders.setdefault("/".join(parts[:named + 1]) + "/", []).append(relative)
    kept += [(folder, f"named like the course's own {folder.rstrip('/').split('/')[-1]!r} ({len(files)} files)")
             for folder, files in folders.items()]
    return sorted(kept)


def _judge(secrets, relative, size, opener, depth=0):
    """Why one file (relative: its path in the folder or archive; opener: its bytes) must not reach
    students: every reason found, none if it may."""
    relative = PurePosixPath(relative)
    folders, name = [part.lower() for part in relative.parts[:-1]], relative.name.lower()
    why = [f"named like the course's own {part!r}" for part in [*folders, name]
           if part in FOLDER_NAMES or part in FILE_NAMES or part.split(".")[0] in COURSE_PACKAGES][:1]
    if relative.suffix.lower() in DATABASES:
        why.append("a database (a gradebook holds students' marks)")
    if relative.suffix.lower() == ".pyc" and not relative.name.startswith(Path(READER).stem + "."):
        why.append("compiled Python (of the course's modules?): students get none")
    if size > LARGEST:
        with opener() as handle:
            return why + [f"holds {marker!r}" for marker in _markers_streamed(handle)]
    with opener() as handle:
        data = handle.read()
    copy = secrets.digests.get(hashlib.sha256(data).hexdigest())
    if copy is not None:
        why.insert(0, f"a copy of the course's {copy}")
    if zipfile.is_zipfile(io.BytesIO(data)) or _is_tar(data):   # judged by what it holds
        return _archive(secrets, data, depth) + why
    why += [f"holds {marker!r}" for marker in MARKERS if marker.encode() in data][:2]
    first = data[:4096].split(b"\n", 1)[0]
    if any(header.encode() in first for header in CLASS_LISTS):
        why.append("students' names or marks (a grades file or a class list, by its columns)")
    if why:
        return why
    lines = _lines(relative, data) & secrets.lines
    return [f"holds the solution or hidden-test line {sorted(lines)[0]!r}"
            + (f" and {len(lines) - 1} more" if len(lines) > 1 else "")] if lines else []


def _lines(relative, data):
    """The stripped lines of a text file (of a notebook: its cells' sources); none of a binary one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return set()
    if relative.suffix.lower() == ".ipynb" or text.lstrip().startswith("{"):
        try:
            return {line.strip() for cell in notebooks.read_text(text).cells for line in cell.source.splitlines()}
        except Exception:  # noqa: BLE001 - not a notebook after all: read as text
            pass
    return {line.strip() for line in text.splitlines()}


def _is_tar(data):
    try:
        with tarfile.open(fileobj=io.BytesIO(data)):
            return True
    except (tarfile.TarError, EOFError, OSError):
        return False


def _archive(secrets, data, depth):
    """Why an archive (zip, tar, compressed tar) must not reach students: what its members hold."""
    members = []
    try:
        if zipfile.is_zipfile(io.BytesIO(data)):
            archive = zipfile.ZipFile(io.BytesIO(data))
            members = [(info.filename, info.file_size, lambda i=info: archive.open(i))
                       for info in archive.infolist() if not info.is_dir()]
        else:
            archive = tarfile.open(fileobj=io.BytesIO(data))
            members = [(info.name, info.size, lambda i=info: archive.extractfile(i))
                       for info in archive.getmembers() if info.isfile()]
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, RuntimeError):
        return ["an archive that cannot be read (encrypted or damaged): students get none"]
    if AUTOGRADER <= {PurePosixPath(name).name for name, _, _ in members}:
        return ["an autograder zip (setup.sh, run_autograder): it holds the solutions and the checks"]
    if depth >= NESTED:
        return []
    for name, size, opener in members:
        inside = _judge(secrets, name, size, opener, depth + 1)
        if inside:
            return [f"an archive whose {name} is {inside[0]}" if inside[0].startswith(("a ", "an ", "compiled"))
                    else f"an archive whose {name} {inside[0]}"]
    return []


def _markers_streamed(handle, chunk=1 << 20):
    """The markers found in a large file, read a chunk at a time (each chunk overlapping the last)."""
    found, tail, longest = set(), b"", max(len(marker) for marker in MARKERS)
    while True:
        block = handle.read(chunk)
        if not block:
            return [marker for marker in MARKERS if marker in found][:2]
        window = tail + block
        found |= {marker for marker in MARKERS if marker.encode() in window}
        tail = window[-longest:]
