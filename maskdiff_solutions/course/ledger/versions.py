"""Graded under a version: each (student, notebook) result records what graded it, the notebook's version
(digests of its release and its source, of the checks that decide its marks, and of its points) and each
of its cells' points as they were. A change to the course never changes a stored score: the record scores
a result out of the points it was graded under (course/ledger/record.py `derived_rows`, and its feedback
page, course/ledger/export.py), whatever `release` has done to the gradebook's cells since. Every command
that reads the record names the notebooks graded under an earlier version and the command that grades
them again (`regrade`, course/run/regrade.py), which applies the change and keeps every hand grade whose
answer is unchanged.

The checks of a notebook: its modules of the hidden checks (grading.PARTS), the grading package's modules
that no notebook owns (core, checker, plots, ...), what they import of the hidden package (the reference
solutions), and maskdiff_client (what runs in the kernel for them).
"""
import ast
import hashlib
import json
import re
import shutil
import sqlite3
import tempfile
from contextlib import closing, contextmanager
from functools import lru_cache
from pathlib import Path

from ..layout import CLIENT_PACKAGE, PACKAGE_PARENT
from . import record

PARTS_OF = {"release": "its release", "source": "its source", "checks": "its checks", "points": "its points"}


def of(course):
    """{notebook stem: {part: digest}} of every notebook of the course as it is now."""
    out = {}
    for name in course.notebooks():
        stem = Path(name).stem
        release, source = course.release_dir / name, course.source_dir / name
        out[stem] = {"release": _digest(release.read_bytes() if release.is_file() else b""),
                     "source": _digest(source.read_bytes() if source.is_file() else b""),
                     "checks": checks_digest(stem), "points": _digest(json.dumps(_points_in(source)).encode())}
    return out


def points(db, assignment):
    """{notebook stem: {"cells": {cell: points}, "answers": [written answer cells]}}: what the gradebook's
    cells are worth now (what a grading made now scores out of)."""
    with closing(sqlite3.connect(str(db))) as con:
        found = con.execute(
            "SELECT n.name, b.name, g.max_score, EXISTS (SELECT 1 FROM solution_cells s JOIN base_cell b2 ON s.id = b2.id "
            "WHERE b2.name = b.name AND b2.notebook_id = b.notebook_id) "
            "FROM grade_cells g JOIN base_cell b ON g.id = b.id JOIN notebook n ON b.notebook_id = n.id "
            "JOIN assignment a ON n.assignment_id = a.id WHERE a.name = ?", (assignment,)).fetchall()
    out = {}
    for notebook, cell, most, answer in found:
        mine = out.setdefault(notebook, {"cells": {}, "answers": []})
        mine["cells"][cell] = most
        if answer:
            mine["answers"].append(cell)
    for mine in out.values():
        mine["answers"].sort()
    return out


def graded_under(stored):
    """The stored result's points ({"cells", "answers"}), or None where it was recorded before they were."""
    return json.loads(stored["points"]) if stored.get("points") else None


def outdated(course, workspace):
    """{notebook stem: (students, the parts that changed)} of the results graded under an earlier version
    of the notebook than the course's now (results recorded before versions were are left out)."""
    now, found = of(course), {}
    for (student, notebook), stored in record.results(Path(workspace) / record.DB_NAME).items():
        if not stored.get("version") or notebook not in now:
            continue
        then = json.loads(stored["version"])
        changed = [part for part in PARTS_OF if then.get(part) != now[notebook][part]]
        if changed:
            students, parts = found.setdefault(notebook, (set(), set()))
            students.add(student)
            parts.update(changed)
    return found


def lines(course, workspace):
    """What every command that reads the record says of the notebooks graded under an earlier version."""
    out = []
    for notebook, (students, parts) in sorted(outdated(course, workspace).items()):
        what = ", ".join(PARTS_OF[part] for part in PARTS_OF if part in parts)
        out.append(f"notebook {notebook[:2]} of {len(students)} student{'s' * (len(students) != 1)} was graded under "
                   f"an earlier version of the course ({what} changed since); their scores stay as graded until "
                   f"`python -m maskdiff_solutions regrade --notebook {notebook[:2]} --workspace {workspace}` grades "
                   f"them again from the files they handed in (every hand grade whose answer is unchanged kept)")
    return out


@contextmanager
def as_graded(workspace, assignment, students):
    """{student: a gradebook to make their feedback from}: a copy of the record whose cells are worth what
    they were worth when the student's notebooks were graded, for each student with a notebook graded
    under other points than the gradebook's now (nbgrader's feedback reads the points from the cells);
    the others read the record itself."""
    db = Path(workspace) / record.DB_NAME
    stored = record.results(db)
    now = points(db, assignment) if stored else {}
    then = {}
    for (student, notebook), result in stored.items():
        was = graded_under(result)
        if student in students and was and was["cells"] != now.get(notebook, {}).get("cells"):
            then.setdefault(student, {})[notebook] = was["cells"]
    if not then:
        yield {}
        return
    with tempfile.TemporaryDirectory(prefix="maskdiff-as-graded-") as scratch:
        copies = {}
        for student, notebooks in then.items():
            copy = Path(scratch) / f"{len(copies)}.db"
            shutil.copyfile(db, copy)
            with closing(sqlite3.connect(str(copy))) as con, con:
                for notebook, cells in notebooks.items():
                    con.executemany("UPDATE grade_cells SET max_score = ? WHERE id IN (SELECT b.id FROM base_cell b "
                                    "JOIN notebook n ON b.notebook_id = n.id WHERE b.name = ? AND n.name = ?)",
                                    [(most, cell, notebook) for cell, most in cells.items()])
            copies[student] = copy
        yield copies


@lru_cache(maxsize=None)
def checks_digest(stem):
    """The digest of the code that decides the notebook's marks (module docstring)."""
    parts = _parts()
    modules = set(parts.get(stem, ()))
    owned = {module for mine in parts.values() for module in mine}
    shared = {path.stem for path in (PACKAGE_PARENT / "maskdiff_solutions" / "grading").glob("*.py")} - owned
    files = _reached(tuple(sorted(f"maskdiff_solutions.grading.{m}" for m in modules | shared)))
    files |= set((PACKAGE_PARENT / CLIENT_PACKAGE).rglob("*.py"))
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(PACKAGE_PARENT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@lru_cache(maxsize=None)
def _parts():
    """grading.PARTS, read from its source (importing the checks would import torch)."""
    tree = ast.parse((PACKAGE_PARENT / "maskdiff_solutions" / "grading" / "__init__.py").read_text(encoding="utf-8"))
    return next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                and any(getattr(target, "id", "") == "PARTS" for target in node.targets))


@lru_cache(maxsize=None)
def _reached(start):
    """The files of the hidden package's modules `start` (dotted names) and of every module of it they
    import, their imports' too (the course tooling, maskdiff_solutions.course, left out)."""
    seen, todo = set(), list(start)
    while todo:
        path = _file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        todo += _imports(path)
    return frozenset(seen)


def _file(dotted):
    parts = dotted.split(".")
    if parts[0] != "maskdiff_solutions" or parts[1:2] == ["course"]:
        return None
    base = PACKAGE_PARENT.joinpath(*parts)
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.MULTILINE)
IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]*)", re.MULTILINE)


@lru_cache(maxsize=None)
def _imports(path):
    """Dotted names path imports, wherever it imports them (each `from X import y` as X and X.y: y may be a
    module); read as text, as parsing every module costs seconds."""
    package = path.relative_to(PACKAGE_PARENT).with_suffix("").parts[:-1]
    text = path.read_text(encoding="utf-8")
    names = [name.split(" as ")[0].strip() for found in IMPORT.findall(text) for name in found.split(",")]
    for dots, module, what in FROM.findall(text):
        base = list(package[:len(package) - len(dots) + 1]) if dots else []
        base += module.split(".") if module else []
        names.append(".".join(base))
        names += [".".join(base + [item.split(" as ")[0].strip()]) for item in what.strip("()").split(",")
                  if item.split(" as ")[0].strip()]
    return names


def _points_in(source):
    """Each graded cell's points in a source notebook."""
    if not source.is_file():
        return {}
    cells = json.loads(source.read_text(encoding="utf-8")).get("cells", [])
    return {meta.get("grade_id"): meta.get("points") for meta in
            (cell.get("metadata", {}).get("nbgrader", {}) for cell in cells) if meta.get("grade")}


def _digest(data):
    return hashlib.sha256(data).hexdigest()
