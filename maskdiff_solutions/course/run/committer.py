"""Each student's result committed as it comes back (course/ledger/commit.py does the transaction),
with what this grading decides for it: which earlier results stay, a crash that must not overwrite an
earlier result, the late flag, what `--only-changed` compares next time; and Ctrl-C in one sentence."""
import dataclasses
import json
import time
from pathlib import Path

from ..intake import platforms
from ..intake.identities import plain_name
from ..ledger import commit, versions
from ..ledger.export import remaker
from . import job
from .canary import STUDENT


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a grading: what was committed, and how to go on, in one sentence."""


class Committer:
    """Each student's result committed into the workspace as it comes (course/ledger/commit.py), with
    what this grading decides for it: the notebooks graded now whose earlier result stays for want of
    a file (course/run/earlier.py), a crash that must not overwrite an earlier result, the late flag,
    what `--only-changed` compares next time."""

    def __init__(self, course, workspace, earlier, intake, inputs, regrade=False):
        self.course, self.workspace, self.earlier, self.intake, self.inputs = course, workspace, earlier, intake, inputs
        self.regrade = regrade   # the workspace's own files graded again: who they are and late flags stay
        self.stems = {Path(name).stem for name in course.notebooks()}
        self.version = versions.of(course)   # what grades now (course/ledger/versions.py)
        self.points = versions.points(workspace / "gradebook.db", course.assignment)
        self.remake = remaker(course, workspace)
        self.done = []

    def student(self, scratch, result, folder):
        if result.student == STUDENT:
            return
        info = self.intake.students.get(result.student) if self.intake else None
        handed = bool(info.files) if info else True   # a file of theirs is in this batch (--replace)
        keep = self.earlier.keeps(result.student, result.rows, handed)
        crashed = any(row.reason.startswith("grading crashed") for row in result.rows)
        rows, kept = [], []
        for row in result.rows:
            if row.notebook in keep:
                kept.append(self.earlier.kept_row(result.student, row.notebook))
            elif crashed and self.earlier.had_result(result.student, row.notebook):
                # a grading that broke never replaces a result: the row says so (exit 1), and grade again
                old = dataclasses.replace(self.earlier.rows[(result.student, row.notebook)])
                old.reason = join_once(old.reason, f"{row.reason}; the earlier result is kept: grade again")
                kept.append(old)
            else:
                self.earlier.note_replaced(result.student, row, handed)
                if row.status == "missing":
                    row.reason = join_once(row.reason, platforms.not_handed_in_reason(self.intake, row.student))
                rows.append(row)
        submission = "" if crashed else job.submission_hash(folder)
        # a notebook the machine's load stopped is graded again by --only-changed (no hash to match)
        extra = {row.notebook: {"late": self.late(info, row),
                                "submission": "" if row.notebook in result.busy else submission,
                                "inputs": self.inputs, "graded_at": time.strftime("%Y-%m-%d %H:%M:%S"),
                                **self.stamp(row.notebook)}
                 for row in rows}
        commit.commit(self.workspace, scratch, self.course.assignment, self.stems, result.student, rows, extra,
                      result.withheld, kept, self.remake,
                      who=None if self.regrade else self.who(result.student, info, folder))
        self.done.append(result.student)

    def late(self, info, row):
        if self.regrade:   # as the platform marked it when it was handed in
            earlier = self.earlier.rows.get((row.student, row.notebook))
            return int(bool(earlier and earlier.late == "yes"))
        return int(bool(info and info.late and row.status != "missing"))

    def stamp(self, notebook):
        """The version of what grades the notebook now, and its cells' points (course/ledger/versions.py)."""
        return {"version": json.dumps(self.version.get(notebook, {}), sort_keys=True),
                "points": json.dumps(self.points.get(notebook, {"cells": {}, "answers": []}), sort_keys=True)}

    def unchanged(self, students, batch):
        """Who the students `--only-changed` kept are, as this batch says (a roster's name where the record
        had the files' form): their results stay, and so does nothing else about them go stale."""
        whom = {student: self.who(student, self.intake.students.get(student) if self.intake else None,
                                  batch[student]) for student in students if student != STUDENT}
        if whom:
            commit.identities(self.workspace, whom)

    def who(self, student, info, folder):
        """(platform, keys, name, where the name came from) of a student of this batch, for the record."""
        if info is None:   # a plain folder: its name is who they are
            return "collected", [student], plain_name(Path(folder).name), "files"
        return self.intake.platform, info.keys or [info.key], info.name, info.name_from


    def absent(self, batch):
        """The earlier results of students not in this batch for the notebooks graded now: kept (their
        reason says so), or with --replace graded missing."""
        for student, rows, kept in self.earlier.absent(batch):
            commit.commit(self.workspace, self.workspace / ".none", self.course.assignment, self.stems, student,
                          rows, {row.notebook: self.stamp(row.notebook) for row in rows}, (), kept, self.remake)

    def restamp(self, stems, batch):
        """A regrade's rows it had no file to grade (missing, a file that was no notebook): nothing of
        them changes but the version and points they are now out of (course/ledger/versions.py)."""
        commit.restamp(self.workspace, [(student, notebook) for (student, notebook) in self.earlier.rows
                                        if notebook in stems and student not in batch],
                       {stem: self.stamp(stem) for stem in stems})

    def interrupted(self, total, workspace):
        done = len(self.done)
        return (f"interrupted: {done} of {total} students' results committed"
                + (f" ({', '.join(self.done[:5])}{', ...' if done > 5 else ''})" if done else "")
                + f", the others' as they were; run the same `grade` command again to finish (with --only-changed "
                  f"it skips those done), or `python -m maskdiff_solutions undo --workspace {workspace}` to put back "
                  f"the workspace as it was before")


def join_once(reason, more):
    """reason; more, unless it says that already (a regrade never doubles a reason)."""
    return reason if not more or more in reason else "; ".join(filter(None, [reason, more]))


def remember_intake(workspace, before, now):
    """intake.json holds every student any batch took in (their names and platform ids), the newest batch's
    word for each, and the roster each notebook was last graded with (Moodle's worksheet is its
    assignment's own): a second batch never makes the first one's students nameless."""
    if before is None or now is None or before.platform != now.platform:
        return
    merged = dataclasses.replace(now, students={**before.students, **now.students}, roster=now.roster or before.roster,
                                 roster_text=now.roster_text or before.roster_text,   # a late zip graded without one
                                 rosters={**before.rosters, **now.rosters})
    merged.save(workspace)
