"""What a grading keeps of the grading before it in the same workspace: nothing is replaced without asking.

A grading replaces the results of the notebooks it was asked to grade for the students whose files it
found. Every other result in the workspace stays as it was: other notebooks, students not in this
batch, and a notebook a student had handed in before and is missing now (a wrong or partial zip). Each
result kept for want of a file is listed (its row's reason says so too). `--replace` grades those as
missing instead (0, out of the notebook's points, with their gradebook entries and pages gone).
Whatever a grading changes is copied first into the workspace's earlier-gradings/
(course/records/safekeeping.py), so `undo` puts it back.
"""
from dataclasses import dataclass
from pathlib import Path

from ..records.gradebook import drop_notebook, rescore
from ..records.rows import CSV_NAME, Row, read_csv

KEPT_REASON = "not in this batch: the earlier grading's result kept (grade with --replace to score it as missing)"
REPLACED_REASON = "not in this batch: the earlier grading's result replaced (--replace)"


@dataclass
class Kept:
    student: str
    notebook: str
    status: str
    points: float
    out_of: float

    def __str__(self):
        return f"{self.student} {self.notebook.split('_')[0]} ({self.status} {self.points:g}/{self.out_of:g})"


class Earlier:
    """The workspace's rows before this grading, by (student, notebook), their scores as the gradebook
    holds them now (a person's manual grades included); none in a fresh workspace."""

    def __init__(self, workspace, assignment, selected, replace=False):
        self.workspace, self.assignment, self.replace = Path(workspace), assignment, replace
        self.graded_now = {Path(name).stem for name in selected}
        path = self.workspace / CSV_NAME
        try:
            self.rows = {(row.student, row.notebook): row for row in read_csv(path)} if path.is_file() else {}
        except (ValueError, TypeError, KeyError) as err:   # edited by hand, or not ours
            raise ValueError(f"{err}; grading keeps a workspace's earlier results and cannot read these: move "
                             f"{path.name} out of {self.workspace}, or grade into another --workspace") from None
        self._refresh()
        self.kept, self.replaced = [], []

    def _refresh(self):
        if self.rows and (self.workspace / "gradebook.db").is_file():
            rescore(self.workspace / "gradebook.db", self.assignment, list(self.rows.values()))

    def _had_work(self, student, notebook):
        row = self.rows.get((student, notebook))
        return row is not None and row.status != "missing"

    def keeps(self, student, rows):
        """The notebooks (stems) of this student's new rows whose earlier result stays: found before,
        missing now, and no --replace."""
        if self.replace:
            return set()
        return {row.notebook for row in rows if row.status == "missing" and self._had_work(student, row.notebook)}

    def rows_after(self, new_rows, main_db):
        """Every row the workspace holds after this grading: the new ones, with what stays of the
        earlier ones (module docstring). With --replace, an earlier result the batch has no file for
        becomes a missing row and leaves the gradebook."""
        new = {(row.student, row.notebook): row for row in new_rows}
        out = dict(new)
        for key, old in self.rows.items():
            student, notebook = key
            fresh = new.get(key)
            if fresh is not None and (fresh.status != "missing" or old.status == "missing"):
                continue   # graded again, or missing then and now
            if notebook not in self.graded_now or old.status == "missing":
                out.setdefault(key, old)   # not asked about: as it was
                continue
            if self.replace:
                out[key] = Row(student, notebook, "missing",
                               reason=fresh.reason if fresh is not None else REPLACED_REASON)
                self.replaced.append(_kept(old))
                drop_notebook(main_db, student, self.assignment, notebook)
                continue
            if KEPT_REASON not in old.reason:
                old.reason = "; ".join(filter(None, [old.reason, KEPT_REASON]))
            out[key] = old
            self.kept.append(_kept(old))
        return [out[key] for key in sorted(out)]

    def lines(self):
        """What the instructor reads about the earlier results (stderr), if anything."""
        out = []
        for verb, items, hint in (("kept", self.kept, "grade again with --replace to score them as missing"),
                                  ("replaced by missing (--replace)", self.replaced, "`undo` puts them back")):
            if items:
                shown = ", ".join(str(item) for item in items[:8]) + (f" and {len(items) - 8} more" if len(items) > 8 else "")
                out.append(f"{len(items)} earlier result{'' if len(items) == 1 else 's'} with no file in this batch "
                           f"{verb}: {shown}; {hint}")
        return out


def _kept(row):
    return Kept(row.student, row.notebook, row.status, row.auto_score + row.manual_score, row.auto_max + row.manual_max)
