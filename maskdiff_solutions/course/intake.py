"""What a student hands in, taken in for grading: their id, every entry of their folder (never
following a link), the file chosen for each expected notebook (by name, by a renamed copy, else by
content), repaired, and their other files copied within a budget. Nothing in their folder changes."""
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import notebooks, repair
from .layout import COURSE_PACKAGES

MAX_EXTRA_FILES, MAX_EXTRA_BYTES = 200, 64 << 20


def student_id(folder_name):
    """nbgrader wants plain ids: keep letters, digits, '-', '_' and '.'."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", folder_name).strip("_") or "student"


def students(submissions):
    """{student id: their folder} of every sub-folder of submissions."""
    return {student_id(p.name): p for p in sorted(Path(submissions).iterdir()) if p.is_dir()}


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


@dataclass
class Prepared:
    """What became of one expected notebook before autograde."""
    file: str = ""            # the student's file it came from ("" when none)
    problem: str = ""         # why it cannot be graded
    changes: list = field(default_factory=list)
    hidden_uses: list = field(default_factory=list)
    left_out: list = field(default_factory=list)  # the student's other files not handed to the kernel


def _notebook_files(folder):
    return sorted(p for p, regular in submitted_entries(folder) if regular and p.suffix == ".ipynb")


def pick_files(expected, folder):
    """expected notebook name -> the student's file for it: the exact name, else a renamed copy
    ('Copy of X', 'X (1)'), the newest when there are several."""
    files = _notebook_files(folder)
    chosen = {}
    for name in expected:
        same = [p for p in files if repair.canonical_name(p.name) == repair.canonical_name(name)]
        exact = [p for p in same if p.name == name]
        if exact or same:
            chosen[name] = (exact or sorted(same, key=lambda p: (p.stat().st_mtime, p.name)))[-1]
    return chosen


def recognise_by_content(releases, folder, chosen):
    """Notebooks under names of their own ('homework.ipynb'): each missing notebook gets the unused
    file that holds most of its release's cells, if any holds at least MIN_RECOGNISED of them."""
    unused = [p for p in _notebook_files(folder) if p not in chosen.values()]
    found = {}
    for name, release_nb in releases.items():
        if name in chosen or not unused:
            continue
        shares = []
        for path in unused:
            try:
                shares.append((repair.recognised_share(repair.load(path), release_nb), path))
            except repair.Unreadable:
                continue
        share, path = max(shares, default=(0.0, None), key=lambda pair: pair[0])
        if share >= repair.MIN_RECOGNISED:
            found[name] = path
            unused.remove(path)
    return found


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


def prepare(course, folder, target, expected=None):
    """Write the student's expected notebooks (default: all), repaired, and their other files to
    target (nothing in folder is changed); returns {notebook name: Prepared}. One bad file never
    spoils another."""
    target.mkdir(parents=True)
    left_out = copy_extras(folder, target)
    expected = expected or course.notebooks()
    chosen = pick_files(expected, folder)
    releases = {name: notebooks.read(course.release_dir / name) for name in expected}
    chosen.update(recognise_by_content(releases, folder, chosen))
    prepared = {}
    for name in expected:
        path = chosen.get(name)
        if path is None:
            continue
        info = prepared[name] = Prepared(str(path.relative_to(folder)))
        if info.file != name:
            info.changes.append(f"graded {info.file!r} as {name}")
        try:
            prepare_notebook(info, path, name, expected, releases, target)
        except Exception as err:  # noqa: BLE001 - a file that breaks repair fails alone
            info.problem = f"{info.file} could not be prepared for grading: {type(err).__name__}: {err}"[:500]
    for info in prepared.values():
        info.left_out = left_out
    return prepared


def prepare_notebook(info, path, name, expected, releases, target):
    try:
        nb = repair.load(path)
    except repair.Unreadable as err:
        info.problem = f"{info.file}: {err}"
        return
    fixed = repair.repair(nb, releases[name])
    if fixed.recognised < repair.MIN_RECOGNISED:
        others = [other for other in expected if other != name and
                  repair.recognised_share(nb, releases[other]) >= repair.MIN_RECOGNISED]
        info.problem = (f"{info.file} is some other notebook: it holds {fixed.recognised:.0%} of "
                        f"the release's cells" + (f" (it looks like {others[0]})" if others else ""))
        return
    info.changes += fixed.changes
    info.hidden_uses = repair.hidden_package_uses(fixed.nb)
    notebooks.write(fixed.nb, target / name)


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
