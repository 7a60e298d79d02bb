"""What the workspace's derived files were when written, kept in the record (maskdiff_derived): the files a
person could type a grade into (grades-by-notebook.csv, grades-by-student.csv, grades-canvas.csv, each
grades-moodle.csv) are written through `put`, which records the new file's digest before it takes its
place (the one before stays accepted, so a kill between the two is no edit). A command that would write
them first stops where one was edited by hand (`refuse_edited`): the next export would drop that edit
without a word, and a change of grade belongs in the record (formgrader), from which every file is made.
An export also records what it wrote for the platform (`exported`), so that a later grading or `undo`
can make those files again from the record (course/ledger/returns.py `refresh`)."""
import json
import os
from contextlib import closing
from pathlib import Path

from .record import DB_NAME, connect, file_digest, has_record


def put(workspace, path, make):
    """Write path whole (make(temporary path) writes it), its digest recorded before it takes its place."""
    workspace, path = Path(workspace), Path(path)
    fresh = path.with_name(path.name + ".new")
    make(fresh)
    relative = str(path.relative_to(workspace))
    if has_record(workspace / DB_NAME):
        with closing(connect(workspace / DB_NAME)) as con:
            old = con.execute("SELECT digest FROM maskdiff_derived WHERE path = ?", (relative,)).fetchone()
            con.execute("INSERT OR REPLACE INTO maskdiff_derived (path, digest, earlier, made) VALUES (?, ?, ?, "
                        "COALESCE((SELECT made FROM maskdiff_derived WHERE path = ?), ''))",
                        (relative, file_digest(fresh), old[0] if old else "", relative))
    os.replace(fresh, path)
    return path


def edited(workspace):
    """The derived files (relative paths) whose content is not what a command wrote there."""
    workspace = Path(workspace)
    if not has_record(workspace / DB_NAME):
        return []
    with closing(connect(workspace / DB_NAME)) as con:
        known = con.execute("SELECT path, digest, earlier FROM maskdiff_derived").fetchall()
    return sorted(path for path, digest, earlier in known
                  if (workspace / path).is_file() and file_digest(workspace / path) not in (digest, earlier))


def refuse_edited(workspace, command):
    """Stop (ValueError) before `command` writes anything, where a derived file was edited by hand."""
    found = edited(workspace)
    if found:
        raise ValueError(f"{', '.join(found)} in {workspace} {'was' if len(found) == 1 else 'were'} edited since "
                         f"{'it was' if len(found) == 1 else 'they were'} written, and `{command}` would write "
                         f"{'it' if len(found) == 1 else 'them'} again from the record, losing the edit: a change of grade "
                         f"belongs in formgrader (the record every file is made from, docs/grading.md), then `export`; "
                         f"move the edited file out of the workspace to keep it, or delete it to have it made again; "
                         f"nothing was done")


def exported(workspace, path, made):
    """Record what a platform file was made of (made: a JSON-able description) beside its digest."""
    workspace = Path(workspace)
    with closing(connect(workspace / DB_NAME)) as con:
        con.execute("UPDATE maskdiff_derived SET made = ? WHERE path = ?",
                    (json.dumps(made, ensure_ascii=False), str(Path(path).relative_to(workspace))))


def platform_files(workspace):
    """{relative path: what it was made of} of every platform file an export wrote."""
    workspace = Path(workspace)
    if not has_record(workspace / DB_NAME):
        return {}
    with closing(connect(workspace / DB_NAME)) as con:
        return {path: json.loads(made) for path, made in
                con.execute("SELECT path, made FROM maskdiff_derived WHERE made != ''").fetchall()}
