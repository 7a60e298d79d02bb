"""What a student hands in, taken in for grading: their id, every entry of their folder (never
following a link), the file chosen for each expected notebook by its name (or a renamed copy's; the
newest of several), and their other files copied within a budget; then one call to repair.prepare_all,
which recognises the rest by content and repairs each notebook against its release. Nothing in their
folder changes."""
import os
import re
import shutil
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..layout import COURSE_PACKAGES
from . import notebooks, repair

MAX_EXTRA_FILES, MAX_EXTRA_BYTES = 200, 64 << 20


# Kept in an id: letters, marks and digits of any script (a mark is part of a letter in Devanagari or
# Thai), '_', '.' and '-'. Anything else (whitespace, '/', '*', '?', '[', '+') is unsafe in a path,
# a file glob (nbgrader's CourseDirectory.student_id is one) or a CSV, and becomes '_'.
KEPT_CATEGORIES = ("L", "M", "N")


def student_id(folder_name):
    """The student's nbgrader id: the folder's name in NFC (one spelling for 'ë' composed and 'e' + '¨'),
    every letter and digit kept, each run of other characters made one '_'. An ASCII name keeps the id
    it always had."""
    name = unicodedata.normalize("NFC", folder_name)
    kept = "".join(c if c in "_.-" or unicodedata.category(c)[0] in KEPT_CATEGORIES else "\0" for c in name)
    return re.sub(r"\0+", "_", kept).strip("_") or "student"


def student_ids(folder_names):
    """{id: folder name}, one student per folder; ValueError naming both folders where two would get one
    id ('Zoë Li' and 'Zoë_Li', or one name spelt in NFC and NFD): grading them as one would lose one's work."""
    ids = {}
    for name in sorted(folder_names):
        sid = student_id(name)
        if sid in ids:
            raise ValueError(f"the folders {ids[sid]!r} and {name!r} would both be graded as student {sid!r}"
                             f"{_how_alike(ids[sid], name)}: rename one of them (each student needs a folder "
                             f"of their own) and grade again; nothing was graded")
        ids[sid] = name
    return ids


def _how_alike(one, other):
    if unicodedata.normalize("NFC", one) == unicodedata.normalize("NFC", other):
        return " (one name, its accents written in two Unicode forms: NFC and NFD)"
    return " (an id keeps letters and digits; spaces and other characters become '_')"


def students(submissions):
    """{student id: their folder} of every sub-folder of submissions (ValueError where two would share an id)."""
    folders = {p.name: p for p in sorted(Path(submissions).iterdir()) if p.is_dir()}
    return {sid: folders[name] for sid, name in student_ids(folders).items()}


def submitted_entries(folder):
    """(path, is a regular file) of everything in a submission folder, never following a link: a
    student can hand in links to anywhere on the grading machine (the course's solutions, the
    gradebook), and grading must not read through them."""
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".ipynb_checkpoints")
        for name in sorted(dirs + files):
            path = Path(top) / name
            if name in files or path.is_symlink():
                yield path, path.is_file() and not path.is_symlink()


def shadowing_files(folder):
    return sorted(str(p.relative_to(folder)) for p, _ in submitted_entries(folder)
                  if p.name.startswith(COURSE_PACKAGES) or any(part.startswith(COURSE_PACKAGES)
                                                               for part in p.relative_to(folder).parts))


def canonical_name(filename):
    """'Copy of 01_noise_for_words (1).ipynb' -> '01_noise_for_words' (what browsers and Colab do
    to a name), lower case."""
    stem = re.sub(r"\.ipynb$", "", filename.strip(), flags=re.IGNORECASE)
    stem = re.sub(r"^(copy of\s+)+", "", stem.strip(), flags=re.IGNORECASE)
    stem = re.sub(r"(\s*\(\d+\)|\s*-\s*copy|\s+copy)+$", "", stem.strip(), flags=re.IGNORECASE)
    return re.sub(r"\s+", "_", stem.strip()).lower()


def notebook_files(folder):
    return sorted(p for p, regular in submitted_entries(folder) if regular and p.suffix == ".ipynb")


def copy_number(filename):
    """How many times a browser or Colab copied the file: 'X (2)' -> 2, 'Copy of X' or 'X - Copy' -> 1,
    'X' -> 0. Each copy is made after the file it copies."""
    stem = re.sub(r"\.ipynb$", "", filename.strip(), flags=re.IGNORECASE).strip()
    numbered = re.search(r"\((\d+)\)$", stem)
    if numbered:
        return int(numbered.group(1))
    return int(bool(re.match(r"copy of\s", stem, re.IGNORECASE) or re.search(r"[\s-]copy$", stem, re.IGNORECASE)))


def _when(path):
    """The file's modification time to a zip's precision (2 s): a time from a zip and one from a disk
    compare alike."""
    return int(path.stat().st_mtime) // 2


def newest_first(paths):
    """Files for one notebook, the newest first: by modification time, and where the times are equal (a
    platform's zip often gives every file the same), by copy number. The name breaks what is left, so
    the choice never depends on the order files are listed."""
    return sorted(paths, key=lambda p: (_when(p), copy_number(p.name), p.name), reverse=True)


def pick_files(expected, folder):
    """expected notebook name -> [the student's files for it, the newest first] (the exact name or a
    renamed copy, 'Copy of X', 'X (1)'): the first is graded, the others are left out and named."""
    files = notebook_files(folder)
    chosen = {}
    for name in expected:
        same = [p for p in files if canonical_name(p.name) == canonical_name(name)]
        if same:
            chosen[name] = newest_first(same)
    return chosen


def choice_note(name, files, folder):
    """The row's note where a student handed in several files for one notebook (files: newest first):
    which was graded, why, and which were left out; "" for one file."""
    if len(files) < 2:
        return ""
    first, second = files[:2]
    if _when(first) != _when(second):
        why = "newer" if len(files) == 2 else "the newest"
    elif copy_number(first.name) != copy_number(second.name):
        why = "the same time, a later copy"
    else:
        why = "the same time and copy; the last by name"
    count = "two" if len(files) == 2 else str(len(files))
    return (f"{count} files for {Path(name).stem}: graded `{first.relative_to(folder)}` ({why}), left out "
            f"{', '.join(f'`{p.relative_to(folder)}`' for p in files[1:])}")


def copy_extras(folder, target):
    """Copy the student's other files (data they read) into target: regular files only, never
    notebooks, links, devices or anything outside the folder, within a count and size budget.
    Returns what was left out, in words."""
    left_out, count, size = [], 0, 0
    for path, regular in submitted_entries(folder):
        relative = path.relative_to(folder)
        if path.suffix == ".ipynb" and regular:
            continue
        if not regular:
            left_out.append(f"{relative} ({'a link' if path.is_symlink() else 'not a regular file'})")
            continue
        size += path.stat().st_size
        count += 1
        if count > MAX_EXTRA_FILES or size > MAX_EXTRA_BYTES:
            left_out.append(f"{relative} (over {MAX_EXTRA_FILES} files or {MAX_EXTRA_BYTES >> 20} MB)")
            continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / relative, follow_symlinks=False)
        os.chmod(target / relative, 0o644)
    return left_out


@dataclass
class TakenIn:
    """A student's folder as grading takes it: {notebook name: repair.Prepared} for each expected
    notebook handed in, and the files it ships named like a course package (they get it flagged)."""
    notebooks: dict
    shadowing: list


def prepare(course, folder, target, expected=None):
    """Write the student's expected notebooks (default: all), repaired, and their other files to
    target (nothing in folder is changed); returns a TakenIn. The files are chosen here by name;
    repair takes them, and the other notebooks among which it recognises the rest by content, in one
    call. One bad file never spoils another."""
    target.mkdir(parents=True)
    left_out = copy_extras(folder, target)
    expected = expected or course.notebooks()
    candidates = pick_files(expected, folder)
    chosen = {name: files[0] for name, files in candidates.items()}
    named = {p for files in candidates.values() for p in files}   # an older copy is no other notebook
    unused = [p for p in notebook_files(folder) if p not in named]
    releases = {name: notebooks.read(course.release_dir / name) for name in expected}
    prepared = repair.prepare_all(releases, chosen, unused, folder, target)
    for name, info in prepared.items():
        info.left_out = left_out
        info.chosen_over = choice_note(name, candidates.get(name, []), folder)
    return TakenIn(prepared, shadowing_files(target))


def regular_files(top, pattern="*"):
    """The regular files under top that match pattern, in order, none of them a link or under one."""
    top = Path(top)
    if not top.is_dir() or top.is_symlink():
        return []
    return [path for path in sorted(top.rglob(pattern))
            if path.is_file() and not path.is_symlink() and not any(p.is_symlink() for p in path.parents)]


def copy_regular_files(source, target, pattern="*"):
    """Copy the regular files under source that match pattern; links and anything else are left."""
    for path in regular_files(source, pattern):
        (target / path.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / path.relative_to(source), follow_symlinks=False)
