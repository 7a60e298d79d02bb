"""`grade --only-changed`: regrade only the students whose submission changed since the last grading
into the same workspace (a content hash of what grading reads of it), with every other input
unchanged (the course's source and release, the notebooks chosen, the sandbox and its limits, the
grading seed, the grading code). The others keep their results, which the record already holds
(course/ledger/record.py: each (student, notebook) row keeps the submission's hash and the inputs'),
scored as the gradebook holds them now (a person's manual grades included). A student whose grading
crashed has no hash recorded, so is never kept.
"""
import hashlib
import json
import os
from pathlib import Path

from ..layout import SEED_VARIABLE
from ..ledger import record
from ..records.gradebook import AUTOGRADED, open_gradebook, scores
from ..records.rows import StudentResult
from . import job


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


def reusable(course, workspace, batch, selected, inputs):
    """{student: StudentResult} of the students of batch ({student: folder}) whose every notebook of
    `selected` the record holds, graded from this very submission under these inputs; their rows are
    the record's (result.rows is empty), their tests' scores read for the summary."""
    stored = record.results(Path(workspace) / record.DB_NAME)
    stems = [Path(name).stem for name in selected]
    kept = {}
    for student, folder in batch.items():
        mine = [stored.get((student, stem)) for stem in stems]
        if not all(m and m["submission"] and m["inputs"] == inputs for m in mine):
            continue
        if any(m["submission"] != job.submission_hash(folder) for m in mine):
            continue
        kept[student] = StudentResult(student, [])
    if kept:
        with open_gradebook(Path(workspace) / record.DB_NAME) as gradebook:
            for student, result in kept.items():
                for stem in stems:
                    if stored[(student, stem)]["status"] in AUTOGRADED:
                        result.tests[stem] = scores(gradebook, course.assignment, stem, student)["tests"]
    return kept
