"""What a grading keeps of the grading before it in the same workspace: nothing is replaced without asking.

A grading replaces the results of the notebooks it was asked to grade for the students whose files it
found. Every other result in the workspace stays as it was: other notebooks, students not in this
batch, and a notebook a student had handed in before and is missing now (a wrong or partial zip). Each
result kept for want of a file is listed (its row's reason says so too). `--replace` grades the notebooks
that the students of this batch did not hand in this time as missing instead (0, out of the notebook's
points, with their gradebook entries and pages gone), and says how many; students not in the batch keep
their results.
Whatever a grading changes is copied first into the workspace's earlier-gradings/
(course/ledger/safekeeping.py), so `undo` puts it back.
"""
from dataclasses import dataclass, replace as copy_row
from pathlib import Path

from ..ledger import record

KEPT_REASON = "not in this batch: the earlier grading's result kept (grade with --replace to score it as missing)"


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
    """The workspace's results before this grading, by (student, notebook), as the record holds them
    (scored from the gradebook now: a person's grades included); none in a fresh workspace."""

    def __init__(self, rows, selected, replace=False):
        self.replace = replace
        self.graded_now = {Path(name).stem for name in selected}
        self.rows = {(row.student, row.notebook): row for row in rows}
        self.kept, self.replaced = [], []

    @classmethod
    def of(cls, course, workspace, selected, replace=False):
        stored = record.results(Path(workspace) / record.DB_NAME)
        return cls([row for row in record.derived_rows(course, workspace) if (row.student, row.notebook) in stored],
                   selected, replace)

    def _had_work(self, student, notebook):
        row = self.rows.get((student, notebook))
        return row is not None and row.status != "missing"

    def had_result(self, student, notebook):
        return (student, notebook) in self.rows

    def keeps(self, student, rows, handed=True):
        """The notebooks (stems) of this student's new rows whose earlier result stays: found before,
        missing now, and no --replace (which is about the students who handed in something this time:
        handed; a roster's student who handed in nothing keeps theirs)."""
        if self.replace and handed:
            return set()
        return {row.notebook for row in rows if row.status == "missing" and self._had_work(student, row.notebook)}

    def note_replaced(self, student, row, handed=True):
        """A new missing row of the batch that replaces earlier work (--replace): listed by `lines`."""
        if self.replace and handed and row.status == "missing" and self._had_work(student, row.notebook):
            self.replaced.append(_kept(self.rows[(student, row.notebook)]))

    def kept_row(self, student, notebook):
        """The earlier row that stays, its reason saying why (listed by `lines`)."""
        old = copy_row(self.rows[(student, notebook)])
        if KEPT_REASON not in old.reason:
            old.reason = "; ".join(filter(None, [old.reason, KEPT_REASON]))
        self.kept.append(_kept(old))
        return old

    def absent(self, batch):
        """(student, rows to record, rows kept) of each student not in batch with an earlier result of a
        notebook graded now: kept, their reason saying so (--replace is about the students of the batch: a
        late zip of one student replaces nobody else's work)."""
        mine = {}
        for (student, notebook), old in sorted(self.rows.items()):
            if student in batch or notebook not in self.graded_now or old.status == "missing":
                continue
            mine.setdefault(student, ([], []))[1].append(self.kept_row(student, notebook))
        return [(student, rows, kept) for student, (rows, kept) in mine.items()]

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
