"""What grading keeps per machine to save time (issue 54: a whole submission at most 0.6 of its bare
run): the gradebook generate_assignment makes for a fresh workspace, and how long each notebook took,
which orders the next grading's notebooks. Neither may change a result."""
import errno
import pathlib
import shutil
import sqlite3

import pytest

from maskdiff_solutions.course import layout
from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.records import nbgrader_apps
from maskdiff_solutions.course.run import by_notebook

pytestmark = pytest.mark.course


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(layout.CACHE_VARIABLE, str(tmp_path / "cache"))
    return tmp_path / "cache"


def rows(db):
    """The gradebook's notebooks and cells as generate_assignment wrote them, without nbgrader's ids."""
    queries = {
        "notebooks": "SELECT name, kernelspec FROM notebook",
        "cells": "SELECT n.name, b.name, b.type, g.max_score, g.cell_type FROM base_cell b "
                 "JOIN notebook n ON n.id = b.notebook_id LEFT JOIN grade_cells g ON g.id = b.id",
        "sources": "SELECT n.name, s.name, s.cell_type, s.locked, s.source, s.checksum FROM source_cell s "
                   "JOIN notebook n ON n.id = s.notebook_id",
    }
    with sqlite3.connect(db) as con:
        return {kind: sorted(con.execute(query).fetchall(), key=repr) for kind, query in queries.items()}


def test_a_fresh_workspace_gets_the_gradebook_generate_makes_and_a_changed_source_another(course, cache,
                                                                                           tmp_path):
    nbgrader_apps.up_to_date_gradebook(course, tmp_path / "first")     # generates, and keeps a copy
    kept = list((tmp_path / "cache-gradebooks").glob("generated-*.db"))
    assert len(kept) == 1
    nbgrader_apps.up_to_date_gradebook(course, tmp_path / "second")    # the copy
    assert rows(tmp_path / "second" / "gradebook.db") == rows(tmp_path / "first" / "gradebook.db")
    assert rows(kept[0])["cells"], "the kept gradebook holds the course's graded cells"

    changed = tmp_path / "course"
    shutil.copytree(course.root / "source", changed / "source")
    shutil.copy(course.root / "nbgrader_config.py", changed)
    first = next(changed.glob("source/*/01_*.ipynb"))
    text = first.read_text()
    assert "ForwardMask" in text
    first.write_text(text.replace("ForwardMask", "ForwardMasks", 1))
    assert nbgrader_apps.generated_digest(Course.load(changed)) != nbgrader_apps.generated_digest(course)


def test_a_full_disk_while_the_kept_gradebook_is_copied_leaves_no_gradebook(course, cache, tmp_path, monkeypatch):
    """A gradebook.db cut short would pass for the workspace's record: the copy is written beside, then renamed."""
    kept = nbgrader_apps.kept_gradebooks() / f"generated-{nbgrader_apps.generated_digest(course)}.db"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(b"a kept gradebook " * 100)   # as a first grading on this machine leaves it

    def half_then_full(source, target, **_):
        pathlib.Path(target).write_bytes(pathlib.Path(source).read_bytes()[:100])
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(nbgrader_apps.shutil, "copyfile", half_then_full)
    with pytest.raises(OSError):
        nbgrader_apps.up_to_date_gradebook(course, tmp_path / "second")
    assert list((tmp_path / "second").iterdir()) == []


def test_notebooks_start_longest_first_as_last_seen_and_a_bad_record_changes_nothing_but_order(cache):
    names = ["01.ipynb", "02.ipynb", "06.ipynb"]
    assert by_notebook.longest_first(names) == names               # nothing seen yet: the notebooks' order
    by_notebook.remember_seconds({"01.ipynb": 3.0, "02.ipynb": 12.5, "06.ipynb": 22.0})
    assert by_notebook.longest_first(names) == ["06.ipynb", "02.ipynb", "01.ipynb"]
    assert by_notebook.longest_first(names + ["07.ipynb"])[0] == "07.ipynb"   # never seen: first
    by_notebook.seconds_file().write_text("{not json")
    assert by_notebook.longest_first(names) == names
    by_notebook.seconds_file().write_text('["a list"]')
    assert by_notebook.longest_first(names) == names
