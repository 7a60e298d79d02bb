"""`grade --only-changed`: regrade only the students whose submission changed since the last grading
into the same workspace (a content hash of what grading reads of it), with every other input
unchanged (the course's source and release, the notebooks chosen, the sandbox and its limits, the
grading seed, the grading code). The others keep their results: their gradebook entries, autograded
notebooks and feedback are already in the workspace, their rows come back from grading-state.json
with the scores the gradebook holds now (a person's manual grades included).

Every grading writes grading-state.json, whichever executor ran it; a student whose grading crashed
or timed out is never kept.
"""
import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path

from ..layout import SEED_VARIABLE
from ..records.gradebook import rescore
from ..records.rows import Row, StudentResult
from . import job

STATE_NAME = "grading-state.json"
VERSION = 1


def inputs_hash(course, selected, sandbox, limits):
    """Everything besides the submission that decides a student's results."""
    digest = hashlib.sha256()
    parts = [job.bundle_hash({name: data for name, data in job.course_bundle(course, os.devnull).items()
                              if name != "template.db"}),
             json.dumps(sorted(selected)), sandbox, json.dumps(limits or {}, sort_keys=True, default=str),
             os.environ.get(SEED_VARIABLE, ""), job.package_fingerprint()]
    for part in parts:
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


class State:
    def __init__(self, workspace, inputs, assignment):
        self.path, self.inputs, self.assignment = Path(workspace) / STATE_NAME, inputs, assignment
        self.old = self._load()
        self.new = {}

    def _load(self):
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if data.get("version") != VERSION or data.get("inputs") != self.inputs:
            return {}
        return data.get("students", {})

    def reusable(self, batch):
        """{student: StudentResult} of the unchanged students of batch ({student: folder}), their
        scores read again from the workspace's gradebook."""
        kept = {}
        for student, folder in batch.items():
            old = self.old.get(student)
            if old and old["hash"] == job.submission_hash(folder):
                result = old["result"]
                kept[student] = StudentResult(student, [Row(**row) for row in result["rows"]],
                                              {nb: {t: tuple(v) for t, v in tests.items()}
                                               for nb, tests in result["tests"].items()},
                                              result["withheld"], result["check_seconds"])
                self.new[student] = old
        if kept:
            # their scores as the gradebook holds them now (as `export` does): manual grading since counts
            rescore(self.path.parent / "gradebook.db", self.assignment,
                    [row for result in kept.values() for row in result.rows])
        return kept

    def record(self, student, folder, result):
        if any(row.reason.startswith("grading crashed") for row in result.rows):
            self.new.pop(student, None)
            return
        self.new[student] = {"hash": job.submission_hash(folder), "result": asdict(result)}

    def save(self):
        text = json.dumps({"version": VERSION, "inputs": self.inputs, "students": self.new}, sort_keys=True)
        self.path.with_suffix(".tmp").write_text(text)
        os.replace(self.path.with_suffix(".tmp"), self.path)
