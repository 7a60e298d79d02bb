"""`grade EXPORT [--roster FILE]`: what a learning platform exports, taken in as one folder per student.

EXPORT may be any of these (a zip, or the zip unpacked):
- Canvas's "Download submissions": one flat zip of `<sortable name>[_late]_<user id>_<attachment id>_<file>`,
  a resubmitted file named `<file>-1`, `-2`, ...;
- Moodle's "Download all submissions": `<Full name>_<participant id>_assignsubmission_file[_]/` folders
  (or, without "download in folders", files named with that prefix);
- Gradescope's "Export submissions": `submission_<id>/` folders beside `submission_metadata.yml`,
  which names each submission's students;
- nbgrader's `submitted/<student>/<assignment>/`;
- `collected/<student>/` (one folder of notebooks per student).

Each file is matched to a student by the id the platform wrote into its name (or the metadata), and,
with a roster (course/intake/roster.py), to the class list. Before anyone is graded the intake says who handed
in nothing, which files matched nobody (copied to intake-unmatched/, never dropped), which earlier
submissions the latest one replaced, what the platform marked late, notebooks handed in twice, zips
unpacked and files that are not notebooks. The students' folders are made under WORKSPACE/intake/ (the
export itself is never changed) and intake.json records who is who, for `export --to canvas|moodle`.
"""
import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import export_formats as formats, mistakes, roster as rosters
from .identities import Student, key_of, match
from .folder import (MAX_EXTRA_BYTES, MAX_EXTRA_FILES, canonical_name, newest_first, notebook_files,
                     regular_files, students)
from ..layout import plural
from .unzip import Budget, not_a_zip, unpack

INTAKE_NAME, STAGED, UNMATCHED = "intake.json", "intake", "intake-unmatched"
MAX_EXPORT_FILES, MAX_EXPORT_BYTES = 100_000, 8 << 30
NOT_NOTEBOOKS = {".pdf": "a PDF", ".html": "an HTML page", ".py": "a Python script", ".docx": "a Word file",
                 ".txt": "a text file", ".png": "a picture", ".jpg": "a picture", ".md": "a text file"}
# The guide's section on what `grade` takes (docs/grading.md's heading "1. Collect"; tests hold it there).
COLLECT_GUIDE = "docs/grading.md#1-collect"
HOW_TO_HAND_IN = ("hand in the .ipynb file itself (in Colab: File > Download > Download .ipynb), "
                  "not a PDF, a link or a printout")


@dataclass
class Intake:
    platform: str
    source: str
    roster: str = ""
    students: dict = field(default_factory=dict)  # id -> Student
    rosters: dict = field(default_factory=dict)   # notebook stem -> {"file", "text"}: the roster it was last graded with
    roster_text: str = ""                         # the latest roster as it was read (the file may be downloaded again)

    def roster_of(self, stem=None):
        """(file name, text) of the roster notebook `stem` was last graded with (Moodle's worksheet is its
        assignment's own), or of the latest one; ("", "") where none was given."""
        kept = self.rosters.get(stem) if stem else None
        if isinstance(kept, dict):
            return kept["file"], kept["text"]
        return (self.roster, self.roster_text) if self.roster_text and not stem else ("", "")
    unmatched: list = field(default_factory=list)  # [export path, why]
    notes: list = field(default_factory=list)

    def save(self, workspace):
        data = asdict(self)
        (Path(workspace) / INTAKE_NAME).write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str),
                                                   encoding="utf-8")   # names in any script, whatever the locale

    @classmethod
    def load(cls, workspace):
        path = Path(workspace) / INTAKE_NAME
        if not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        data["students"] = {sid: Student(**value) for sid, value in data["students"].items()}
        return cls(**data)

    def summary(self):
        return report(self)


# --- entries + roster -> students (course/intake/identities.py) ------------------------------------

def latest(entries, by_key, platform, export):
    """{student id: {staged name: entry}}: of several files with one name, the latest."""
    chosen = {}
    for entry in sorted(entries, key=lambda e: e.order):
        student = by_key[key_of(platform, entry.key)]
        files = chosen.setdefault(student.id, {})
        if entry.staged in files:
            student.earlier.append(str(files[entry.staged].path.relative_to(export)))
        files[entry.staged] = entry
    return chosen


# --- taking an export in -------------------------------------------------------------------------

def take_in(course, submissions, workspace, roster=None, expected=None, any_roster=False, any_notebooks=False,
            before_writing=lambda: None, known=None):
    """(the folder to grade, with one sub-folder per student; the Intake, or None where submissions is
    already collected/ and there is no roster). A roster that is not this export's class list, and a
    batch of other notebooks than `expected` (course/intake/mistakes.py), stop it before it writes
    anything, unless any_roster / any_notebooks; once they pass, before_writing() is called (the
    grader keeps the workspace's earlier results aside). known: the students the workspace's record
    knows (course/ledger/identity.known), found again by their keys."""
    checks = Checks(course, expected, any_roster, any_notebooks)
    source = Path(submissions)
    workspace = Path(workspace)
    if not source.exists():
        raise FileNotFoundError(f"no submissions folder or export at {source}")
    unpacked = workspace / ".intake-export"
    shutil.rmtree(unpacked, ignore_errors=True)
    try:
        folder, notes = _open(source, unpacked)
        folder = formats.unwrap(folder, course.assignment)
        platform = formats.detect(folder, course.assignment)
        if platform is None:
            raise ValueError(_nothing_to_grade(source, folder))
        if platform == "collected" and roster is None and source.is_dir():   # a zip of folders is staged
            checks.notebooks({sid: {p.name: p for p in notebook_files(path)} for sid, path in students(source).items()})
            before_writing()
            return source, None
        return _stage(course, source, folder, platform, workspace, roster, notes, checks, before_writing, known)
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)


def _open(source, unpacked):
    if source.is_dir():
        return source, []
    if source.suffix.lower() != ".zip":
        raise ValueError(f"{source} is neither a folder nor a .zip: give grade a folder of student folders "
                         f"or a platform's export (a zip or its folder)")
    looks = not_a_zip(source)
    if looks:
        raise ValueError(f"{source} is not a zip file: {looks}. grade takes a folder with one "
                         f"sub-folder of notebooks per student, or a platform's export as downloaded (a zip or "
                         f"its folder): see {COLLECT_GUIDE}")
    unpacked.mkdir(parents=True)
    _, left = unpack(source, unpacked, Budget(MAX_EXPORT_FILES, MAX_EXPORT_BYTES))
    return unpacked, [f"{source.name}: {member} left out: {why}" for member, why in left]


def _nothing_to_grade(source, folder):
    files = [p.name for p in sorted(folder.iterdir()) if not p.name.startswith(".")][:5]
    return (f"{source} holds no student sub-folders and no platform's export "
            f"({'its files: ' + ', '.join(files) if files else 'it is empty'}): grade takes a folder with one "
            f"sub-folder of notebooks per student, or the export of Canvas, Moodle or Gradescope, or "
            f"nbgrader's submitted/ (see {COLLECT_GUIDE})")


class Checks:
    """The checks of an instructor's input take_in runs before it writes (course/intake/mistakes.py)."""

    def __init__(self, course, expected, any_roster, any_notebooks):
        self.course, self.expected = course, expected or course.notebooks()
        self.any_roster, self.any_notebooks = any_roster, any_notebooks

    def roster(self, platform, kind, roster_file, students, chosen):
        if not self.any_roster:
            handed = [sid for sid in students if chosen.get(sid)]
            mistakes.check_roster(platform, kind, Path(roster_file).name, len(handed),
                                  sum(students[sid].on_roster for sid in handed))

    def notebooks(self, files):
        """files: {student: {name: path}} of what each handed in."""
        if not self.any_notebooks:
            mistakes.check_notebooks({sid: list(named) for sid, named in files.items()}, self.expected,
                                     self.course.notebooks())
            mistakes.check_course(files, self.course.notebooks(), self.course.release_dir)


def _stage(course, source, folder, platform, workspace, roster_file, notes, checks, before_writing, known):
    text = rosters.text(roster_file) if roster_file else ""   # kept: the file may be downloaded again, replaced
    intake = Intake(platform, str(source), str(roster_file or ""), notes=list(notes), roster_text=text,
                    rosters={Path(name).stem: {"file": Path(roster_file).name, "text": text} for name in checks.expected}
                    if roster_file else {})
    readers = {"canvas": formats.canvas, "moodle": formats.moodle, "gradescope": formats.gradescope,
               "nbgrader": lambda *a: formats.folders(*a, inner=course.assignment), "collected": formats.folders}
    entries = readers[platform](folder, intake.unmatched, intake.notes)
    people, kind = None, None
    if roster_file:
        kind, people = rosters.read(roster_file)
        intake.notes.append(f"roster {Path(roster_file).name}: {plural(len(people), 'student')} ({kind})")
        intake.notes += [f"roster {Path(roster_file).name}: Canvas's test student ({name}) left out: not a "
                         f"student of the class" for name in rosters.test_students(roster_file)]
    folders = [p.name for p in sorted(folder.iterdir()) if p.is_dir() and not p.is_symlink()] \
        if platform == "collected" else []
    by_key = match(platform, entries, people, intake, known, folders)
    chosen = latest(entries, by_key, platform, folder)
    if roster_file:
        checks.roster(platform, kind, roster_file, intake.students, chosen)
    checks.notebooks({sid: {name: entry.path for name, entry in files.items()} for sid, files in chosen.items()})
    before_writing()
    staged = workspace / STAGED
    shutil.rmtree(staged, ignore_errors=True)
    for sid, student in intake.students.items():
        target = staged / sid
        target.mkdir(parents=True)
        for name, entry in sorted(chosen.get(sid, {}).items()):
            path = target / name
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(entry.path, path, follow_symlinks=False)
            student.files.append([str(entry.path.relative_to(folder)), name])
        _inside(student, target, course)
    _keep_unmatched(intake, folder, workspace / UNMATCHED)
    intake.save(workspace)
    return staged, intake


def _inside(student, target, course):
    """What a student's own folder holds that grading should hear of: zips (unpacked beside them),
    files that are not notebooks, one notebook handed in twice."""
    budget = Budget(MAX_EXTRA_FILES, MAX_EXTRA_BYTES)
    for archive in sorted(target.rglob("*.zip")):
        into = archive.with_suffix("")
        if into.exists():
            into = archive.with_name(archive.stem + "_unzipped")
        written, left = unpack(archive, into, budget)
        student.notes.append(f"unpacked {archive.relative_to(target)} ({len(written)} files)")
        student.notes += [f"{archive.name}: {member} left out: {why}" for member, why in left]
    notebooks = [p for p in regular_files(target) if p.suffix == ".ipynb"]
    for path in regular_files(target):
        kind = NOT_NOTEBOOKS.get(path.suffix.lower())
        if kind:
            student.not_notebooks.append(str(path.relative_to(target)))
            student.notes.append(f"{path.relative_to(target)} is {kind}, not a notebook, and is not graded")
    for name in course.notebooks():
        same = newest_first([p for p in notebooks if canonical_name(p.name) == canonical_name(name)])
        if len(same) > 1:
            student.notes.append(f"{Path(name).stem} handed in {len(same)} times "
                                 f"({', '.join(str(p.relative_to(target)) for p in same)}): the newest, "
                                 f"{same[0].relative_to(target)}, is graded")


def _keep_unmatched(intake, folder, there):
    shutil.rmtree(there, ignore_errors=True)
    for relative, _ in intake.unmatched:
        path = there / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if (folder / relative).is_file():
            shutil.copy2(folder / relative, path, follow_symlinks=False)


# --- what the instructor reads before grading ----------------------------------------------------

def report(intake, limit=20):
    """The intake in lines: counts first, then each kind of case that needs a look."""
    students = list(intake.students.values())
    handed = [s for s in students if s.files]
    lines = [f"intake: {intake.platform} export {Path(intake.source).name}: {plural(len(handed), 'student')} handed in"
             + (f", {len(students) - len(handed)} handed in nothing" if len(handed) < len(students) else "")]
    lines += [f"  {note}" for note in intake.notes]

    def listing(title, items):
        if items:
            lines.append(f"  {title} ({len(items)}):")
            lines.extend(f"    {item}" for item in items[:limit])
            if len(items) > limit:
                lines.append(f"    ... and {len(items) - limit} more (all in {INTAKE_NAME})")

    who = {s.id: f"{s.name or s.id} ({s.key})" for s in students}
    listing("on the roster, handed in nothing", [who[s.id] for s in students if s.on_roster and not s.files])
    if intake.roster:
        listing("handed in but not on the roster (graded all the same)",
                [who[s.id] for s in students if not s.on_roster])
    listing(f"files matched to nobody (kept in {UNMATCHED}/)", [f"{path}: {why}" for path, why in intake.unmatched])
    listing("earlier submissions replaced by a later one (the latest is graded)",
            [f"{who[s.id]}: {path}" for s in students for path in s.earlier])
    listing(f"late, as {intake.platform} marked it", [who[s.id] for s in students if s.late])
    names = {}
    for s in students:
        names.setdefault(s.name.strip().lower(), []).append(s)
    listing("students with the same name, told apart by their ids",
            [", ".join(f"{s.id}" for s in same) for name, same in names.items() if name and len(same) > 1])
    listing("in a student's files", [f"{who[s.id]}: {note}" for s in students for note in s.notes])
    return "\n".join(lines)


def not_handed_in_reason(intake, student):
    """Words for a notebook a student did not hand in: what they handed in instead, if anything."""
    info = intake.students.get(student) if intake else None
    if info is None:
        return ""
    if not info.files:
        return f"nothing was handed in; {HOW_TO_HAND_IN}"
    if info.not_notebooks:
        return f"handed in {', '.join(info.not_notebooks[:3])} instead; {HOW_TO_HAND_IN}"
    return ""

