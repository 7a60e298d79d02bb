"""The gradebook, in one vocabulary: opening it, each notebook's scores (and into a row), the checker's
verdicts as scores, withheld marks, and moving one student's rows between copies of one gradebook
(all copies of one template, so notebooks and cells have the same ids everywhere)."""
import sqlite3
from pathlib import Path

from nbgrader.api import Gradebook

from ..layout import COURSE_ID

SUBMISSION_TABLES = ("comment", "grade", "submitted_notebook", "submitted_assignment")
# The student's submitted assignment, and their submitted notebooks (all, or one by name), in the
# database attached as {db}; parameters (student, assignment), and (notebook, student, assignment).
SUBMISSION = ("SELECT id FROM {db}.submitted_assignment WHERE student_id = ? AND assignment_id IN "
              "(SELECT id FROM {db}.assignment WHERE name = ?)")
NOTEBOOKS = "SELECT id FROM {db}.submitted_notebook WHERE assignment_id IN (" + SUBMISSION + ")"
NOTEBOOK = ("SELECT s.id FROM {db}.submitted_notebook s JOIN {db}.notebook n ON s.notebook_id = n.id "
            "WHERE n.name = ? AND s.assignment_id IN (" + SUBMISSION + ")")


def open_gradebook(db):
    """nbgrader's Gradebook of the sqlite file db (a context manager)."""
    return Gradebook(f"sqlite:///{db}", course_id=COURSE_ID)


def scores(gradebook, assignment, notebook, student):
    """Autograded points (a person's override counts: withheld marks, or marks lifted in formgrader),
    the manual points awarded and still to award, and each autograded test's score."""
    submitted = gradebook.find_submission_notebook(notebook, assignment, student)
    answers = {cell.name for cell in gradebook.find_notebook(notebook, assignment).solution_cells}
    row = {"auto_score": 0.0, "auto_max": 0.0, "manual_score": 0.0, "manual_max": 0.0,
           "manual_pending": 0.0, "failed": [], "tests": {}, "review": []}
    for grade in sorted(submitted.grades, key=lambda g: g.name):
        if grade.name in answers:  # graded by a person, not by a test
            row["manual_max"] += grade.max_score
            if grade.needs_manual_grade:
                row["manual_pending"] += grade.max_score
            else:
                row["manual_score"] += grade.score or 0.0
        else:
            row["auto_max"] += grade.max_score
            if grade.needs_manual_grade and grade.manual_score is None:
                row["review"].append(grade.name)  # a review: no points until a person gives them
                continue
            got = grade.score or 0.0
            row["auto_score"] += got
            row["tests"][grade.name] = (got, grade.max_score)
            if got < grade.max_score:
                row["failed"].append(grade.name)
    return row


def notebook_points(gradebook, assignment, notebook):
    """(autograded, manual) points the notebook is worth, from the course's own cells: what a
    notebook not handed in, or not gradable, scores 0 out of."""
    cells = gradebook.find_notebook(notebook, assignment)
    answers = {cell.name for cell in cells.solution_cells}
    return (sum(cell.max_score for cell in cells.grade_cells if cell.name not in answers),
            sum(cell.max_score for cell in cells.grade_cells if cell.name in answers))


def out_of_full_points(db, assignment, rows, optional=False, graded_under=None):
    """Rows that score 0 (missing, failed) out of their notebook's full points, so that every
    student's total has the same maximum; nothing in them is left for a person to grade. graded_under:
    {(student, notebook): (autograded, manual) points} a row was graded out of (else the notebook's now)."""
    graded_under = graded_under or {}
    with open_gradebook(db) as gradebook:
        for row in rows:
            if row.status in ("missing", "failed"):
                row.auto_max, row.manual_max = graded_under.get((row.student, row.notebook)) or \
                    notebook_points(gradebook, assignment, row.notebook)
                row.auto_score = row.manual_score = row.manual_pending = 0.0
                row.review = ""
                if optional:
                    row.automatic_only()
    return rows


def score_row(row, got, optional=False):
    """Copy scores(...) into a grades-by-notebook row (optional: the course's written answers count
    for nothing, so nothing manual is left in it)."""
    row.auto_score, row.auto_max = got["auto_score"], got["auto_max"]
    row.manual_score, row.manual_max = got["manual_score"], got["manual_max"]
    row.manual_pending = got["manual_pending"]
    row.review = " ".join(got["review"])  # drawings still to review (a person's points count)
    if optional:
        row.automatic_only()
    return row


AUTOGRADED = ("graded", "repaired", "flagged")   # the statuses whose rows the gradebook holds scores for


def rescore(db, assignment, rows, optional=False, maxima=None):
    """Each autograded row of `rows` takes the scores the gradebook holds now (a person's manual grades
    and overrides since grading count), out of the points it was graded under (maxima, all_scores); the
    other fields, failed_tests included, stay as grading wrote them. A row the gradebook does not know
    keeps its scores. Returns rows. One query for them all (`all_scores`): nbgrader's ORM costs ~20 ms a
    notebook, a minute for a class of hundreds."""
    held = all_scores(db, assignment, maxima)
    for row in rows:
        if row.status in AUTOGRADED and (row.student, row.notebook) in held:
            score_row(row, held[(row.student, row.notebook)], optional)
    return rows


# Every grade of an assignment with what `scores` reads of it: its cell's points and whether the cell is a
# written answer (a solution cell of the same name in the notebook), as nbgrader's Grade.score computes.
ALL_GRADES = """
SELECT sa.student_id, n.name, b.name, COALESCE(gc.max_score, tc.max_score, 0), g.auto_score, g.manual_score,
       g.extra_credit, g.needs_manual_grade,
       EXISTS (SELECT 1 FROM solution_cells sc JOIN base_cell b2 ON sc.id = b2.id
               WHERE b2.name = b.name AND b2.notebook_id = b.notebook_id)
FROM grade g JOIN base_cell b ON g.cell_id = b.id
LEFT JOIN grade_cells gc ON gc.id = b.id LEFT JOIN task_cells tc ON tc.id = b.id
JOIN submitted_notebook s ON g.notebook_id = s.id JOIN notebook n ON s.notebook_id = n.id
JOIN submitted_assignment sa ON s.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id
WHERE a.name = ? ORDER BY sa.student_id, n.name, b.name"""


def all_scores(db, assignment, maxima=None):
    """{(student, notebook): scores(...)} of every submitted notebook of the assignment, in one query;
    maxima: {(student, notebook): {cell: points}} a notebook was graded out of (else its cells' now)."""
    maxima = maxima or {}
    con = sqlite3.connect(db)
    try:
        found = con.execute(ALL_GRADES, (assignment,)).fetchall()
    finally:
        con.close()
    out = {}
    for student, notebook, name, most, auto, manual, extra, needs, answer in found:
        most = maxima.get((student, notebook), {}).get(name, most)
        row = out.setdefault((student, notebook), {"auto_score": 0.0, "auto_max": 0.0, "manual_score": 0.0,
                                                   "manual_max": 0.0, "manual_pending": 0.0, "failed": [],
                                                   "tests": {}, "review": []})
        score = (manual if manual is not None else auto if auto is not None else None)
        score = 0.0 if score is None else score + (extra or 0.0)
        if answer:
            row["manual_max"] += most
            if needs:
                row["manual_pending"] += most
            else:
                row["manual_score"] += score
        else:
            row["auto_max"] += most
            if needs and manual is None:
                row["review"].append(name)
                continue
            row["auto_score"] += score
            row["tests"][name] = (score, most)
            if score < most:
                row["failed"].append(name)
    return out


def cell_verdict(names, record):
    """"pass", "review" or "fail": a test cell's verdict from the checker's record of its checks (a
    review where every check passed or was sent to a person, and at least one was)."""
    outcomes = [record.verdicts.get(name) for name in names]
    if all(o is not None and o.passed for o in outcomes):
        return "pass"
    if all(o is not None and (o.passed or o.review) for o in outcomes):
        return "review"
    return "fail"


def reviews(plan, record, notebook):
    """{test cell: the reader's reasons} of the notebook's cells sent to a person."""
    return {cell: "; ".join(record.verdicts[n].message for n in names if not record.verdicts[n].passed)
            for nb, cell, names in plan if nb == notebook and cell_verdict(names, record) == "review"}


def score_from_verdicts(gradebook, assignment, student, plan, record, prepared):
    """Give every hidden test cell the checker's score: its points if all its checks passed there,
    no score and a manual grade to come (nbgrader's needs_manual_grade: formgrader lists it) where
    the checker's reader was unsure, else 0, whatever the cell's outputs say. Returns
    {notebook: [why it is suspect]} for cells that finished without an error although the checker
    passed nothing."""
    suspect = {}
    for notebook, cell, names in plan:
        if notebook not in prepared or prepared[notebook].problem:
            continue
        try:
            grade = gradebook.find_grade(cell, Path(notebook).stem, assignment, student)
        except Exception:  # noqa: BLE001 - not graded (nbgrader failed on this notebook)
            continue
        verdict = cell_verdict(names, record)
        passed = verdict == "pass"
        if verdict == "fail" and grade.auto_score and grade.auto_score >= grade.max_score:
            missing = [name for name in names if name not in record.verdicts]
            suspect.setdefault(notebook, []).append(
                f"{cell} ran without an error but the checker " +
                (f"never received its check {missing[0]!r}" if missing else "did not pass it"))
        grade.auto_score = grade.max_score if passed else None if verdict == "review" else 0.0
        if verdict == "review":
            grade.needs_manual_grade = True
    gradebook.db.commit()
    for incident in record.incidents:
        owners = [incident.notebook] if incident.notebook else \
            [nb for nb, _, names in plan if incident.check in names] or list(prepared)
        for notebook in owners:
            suspect.setdefault(notebook, []).append(f"checker: {incident.text}")
    return suspect


def strip_submissions(db):
    """Leave the gradebook's course (assignments, notebooks, cells, students) and no submission: what
    each student's grading starts from, so it sees no other student's marks and starts fresh
    (course/ledger/commit.py carries what a person graded over)."""
    con = sqlite3.connect(db)
    try:
        with con:
            for table in SUBMISSION_TABLES:
                con.execute(f"DELETE FROM {table}")
            ours = [name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                    "AND name LIKE 'maskdiff\\_%' ESCAPE '\\'")]
            for table in ours:   # the course's own tables of the record: no student's grading reads them
                con.execute(f"DROP TABLE IF EXISTS {table}")
        con.execute("VACUUM")
    finally:
        con.close()


def has_submission(db, student, assignment):
    if not db.is_file():
        return False
    con = sqlite3.connect(db)
    try:
        return con.execute(SUBMISSION.format(db="main"), (student, assignment)).fetchone() is not None
    except sqlite3.DatabaseError:
        return False
    finally:
        con.close()


def take_notebook(db, unit_db, student, assignment, notebook):
    """Replace db's rows of the student's `notebook` (its submitted notebook, grades, comments) with
    unit_db's. Both are copies of one template, so notebooks and cells have the same ids."""
    con = sqlite3.connect(db)
    try:
        con.execute("ATTACH DATABASE ? AS u", (str(unit_db),))
        mine, theirs = NOTEBOOK.format(db="main"), NOTEBOOK.format(db="u")
        key = (notebook, student, assignment)
        with con:
            for table in ("grade", "comment"):
                con.execute(f"DELETE FROM main.{table} WHERE notebook_id IN ({mine})", key)
            con.execute(f"DELETE FROM main.submitted_notebook WHERE id IN ({mine})", key)
            con.execute(f"INSERT INTO main.submitted_notebook (id, assignment_id, notebook_id, flagged, "
                        f"late_submission_penalty) SELECT s.id, ({SUBMISSION.format(db='main')}), "
                        f"s.notebook_id, s.flagged, s.late_submission_penalty FROM u.submitted_notebook s "
                        f"WHERE s.id IN ({theirs})", (student, assignment, *key))
            for table in ("grade", "comment"):
                con.execute(f"INSERT INTO main.{table} SELECT * FROM u.{table} WHERE notebook_id IN ({theirs})",
                            key)
    finally:
        con.close()
