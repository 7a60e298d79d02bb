"""The earlier gradings kept beside a workspace's results (course/ledger/safekeeping.py): what is kept,
how many, what `undo` puts back and keeps, and the points `export --to` compares against.
tests/course/run/test_regrade.py does it through real gradings and the command line."""
import errno
import json

import pytest

from maskdiff_solutions.course.ledger import returns, safekeeping
from maskdiff_solutions.course.records.rows import CSV_NAME, Row, read_csv, write_csv

pytestmark = pytest.mark.course


def results(workspace, rows, page="a page"):
    """A workspace as a grading leaves it: the CSV, a gradebook, a feedback page, the lock."""
    workspace.mkdir(parents=True, exist_ok=True)
    write_csv(rows, workspace / CSV_NAME)
    (workspace / "gradebook.db").write_bytes(b"gradebook " + page.encode())
    (workspace / "feedback" / "ann").mkdir(parents=True, exist_ok=True)
    (workspace / "feedback" / "ann" / "01.html").write_text(page)
    (workspace / safekeeping.NAME).write_text("")
    return workspace


def files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and safekeeping.EARLIER not in p.parts}


def test_a_fresh_workspace_keeps_nothing(tmp_path):
    assert safekeeping.keep(tmp_path, "grading 01") is None
    assert not (tmp_path / safekeeping.EARLIER).exists()
    with pytest.raises(FileNotFoundError, match="no earlier grading to put back"):
        safekeeping.undo(tmp_path)


def test_a_copy_cut_short_by_a_full_disk_is_not_left_as_a_kept_grading(tmp_path, monkeypatch):
    ws = results(tmp_path / "ws", [Row("ann", "01", "graded", 16, 16)], page="first")
    real = safekeeping._copy

    def full_after_the_first(source, target):
        real(source, target)
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(safekeeping, "_copy", full_after_the_first)
    with pytest.raises(OSError):
        safekeeping.keep(ws, "grading 01")
    assert list((ws / safekeeping.EARLIER).iterdir()) == []
    monkeypatch.setattr(safekeeping, "_copy", real)
    with pytest.raises(FileNotFoundError, match="no earlier grading to put back"):
        safekeeping.undo(ws)


def test_undo_puts_back_exactly_what_was_there_and_keeps_what_it_replaced(tmp_path):
    ws = results(tmp_path / "ws", [Row("ann", "01", "graded", 16, 16)], page="first")
    before = files(ws)
    kept = safekeeping.keep(ws, "grading 01 from week1.zip")
    assert json.loads((kept / safekeeping.ABOUT).read_text())["before"] == "grading 01 from week1.zip"
    results(ws, [Row("ann", "01", "missing", 0, 16)], page="second")
    (ws / "intake.json").write_text("{}")       # written by the second grading only: it goes too
    after = files(ws)
    put, about, replaced = safekeeping.undo(ws)
    assert files(ws) == before and not put.exists()
    assert {str(p.relative_to(replaced)): p.read_bytes() for p in replaced.rglob("*")
            if p.is_file() and p.name != safekeeping.ABOUT} == {k: v for k, v in after.items() if k != safekeeping.NAME}
    with pytest.raises(FileNotFoundError):   # the undone one is not put back by a second undo
        safekeeping.undo(ws)


def test_only_the_last_few_gradings_are_kept(tmp_path):
    ws = results(tmp_path / "ws", [Row("ann", "01", "graded", 1, 16)])
    for n in range(safekeeping.KEPT + 2):
        safekeeping.completed(safekeeping.keep(ws, f"grading number {n}"))
    kept = sorted((ws / safekeeping.EARLIER).iterdir())
    assert len(kept) == safekeeping.KEPT
    assert json.loads((kept[-1] / safekeeping.ABOUT).read_text())["before"] == f"grading number {safekeeping.KEPT + 1}"


def test_a_grading_stopped_before_it_finished_and_the_one_that_finishes_it_keep_one_copy(tmp_path):
    ws = results(tmp_path / "ws", [Row("ann", "01", "graded", 1, 16)], page="before")
    first = safekeeping.keep(ws, "grading 01, stopped by Ctrl-C")
    results(ws, [Row("ann", "01", "graded", 5, 16)], page="half-way")
    assert safekeeping.keep(ws, "grading 01 again") == first      # the copy of before the stopped one stays
    safekeeping.completed(first)
    assert safekeeping.keep(ws, "grading 02") != first             # a finished grading: a new copy next time
    assert len(list((ws / safekeeping.EARLIER).iterdir())) == 2
    assert (first / "feedback" / "ann" / "01.html").read_text() == "before"


def test_export_hears_of_a_student_who_had_points_and_now_has_nothing(tmp_path):
    ws = results(tmp_path / "ws", [Row("ann", "01", "graded", 12, 16, 2, 2), Row("bo", "01", "graded", 0, 16),
                                   Row("cy", "01", "missing", 0, 16)])
    safekeeping.completed(safekeeping.keep(ws, "grading 01"))
    now = [Row("ann", "01", "missing", 0, 16, 0, 2), Row("bo", "01", "missing", 0, 16),
           Row("cy", "01", "missing", 0, 16), Row("di", "01", "graded", 16, 16)]
    results(ws, now)
    zeros = returns.new_zeros(ws, now)
    assert len(zeros) == 1 and zeros[0].startswith("ann (14 of 18 points in the grading kept ")  # bo had 0, cy nothing
    with pytest.raises(ValueError, match=r"would give 0 to 1 student .* undo --workspace .* --allow-zeros"):
        returns.refuse_new_zeros(ws, now)
    safekeeping.undo(ws)
    assert returns.new_zeros(ws, read_csv(ws / CSV_NAME)) == []


def test_the_guide_states_how_many_gradings_are_kept():
    from tests.support.docs import DOCS
    assert f"(the last {safekeeping.KEPT} are kept)" in " ".join((DOCS / "grading.md").read_text().split())
