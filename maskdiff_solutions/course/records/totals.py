"""Every student out of the same maximum, and nobody left out: one total per student
(grades-by-student.csv), a gradebook entry for every student (so nbgrader's own `grades.csv` and
formgrader list them too), and a feedback page for each notebook that was not graded, saying why and
what to hand in. `grade` and `export` both end here."""
import csv
import os
import html
from pathlib import Path

from ..intake.platforms import HOW_TO_HAND_IN
from .gradebook import open_gradebook

STUDENT_CSV = "grades-by-student.csv"
NOT_GRADED_MARK = "<!-- maskdiff: not graded -->"


def per_student(rows, intake=None):
    """One record per student: each notebook's points (autograded and manual awarded), the total out
    of the maximum of the notebooks graded, what a person still has to grade, and why points are 0."""
    notebooks = sorted({row.notebook for row in rows})
    students = {}
    for row in rows:
        students.setdefault(row.student, []).append(row)
    records = []
    for student, own in sorted(students.items()):
        info = intake.students.get(student) if intake else None
        record = {"student": student, "name": info.name if info else "", "platform_id": info.key if info else ""}
        for notebook in notebooks:
            record[notebook] = sum(r.auto_score + r.manual_score for r in own if r.notebook == notebook)
        record["total"] = sum(r.auto_score + r.manual_score for r in own)
        record["out_of"] = sum(r.auto_max + r.manual_max for r in own)
        record["to_grade"] = sum(r.manual_pending for r in own)
        record["drawings_to_review"] = sum(len(r.review.split()) for r in own)
        record["late"] = "yes" if any(r.late for r in own) else ""
        record["not_graded"] = "; ".join(f"{r.notebook}: {r.status}" for r in own if r.status in ("missing", "failed"))
        records.append(record)
    return records


def write_csv(rows, path, intake=None):
    records = per_student(rows, intake)
    part = Path(path).with_name(Path(path).name + ".part")   # whole or not at all
    with open(part, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(records[0]) if records else ["student", "total", "out_of"])
        writer.writeheader()
        writer.writerows({k: f"{v:g}" if isinstance(v, float) else v for k, v in record.items()}
                         for record in records)
    os.replace(part, path)
    return path


def split_name(name):
    """(first, last) of 'Last, First' (Canvas) or 'First Last'."""
    if "," in name:
        last, first = (part.strip() for part in name.split(",", 1))
        return first, last
    parts = name.split()
    return (" ".join(parts[:-1]), parts[-1]) if len(parts) > 1 else (name, "")


def enrol(db, students, intake=None):
    """A gradebook entry for every student graded (their name and platform id where the intake has
    them), whatever they handed in: nbgrader lists only the students its gradebook holds."""
    with open_gradebook(db) as gradebook:
        for student in students:
            info = intake.students.get(student) if intake else None
            details = {}
            if info:
                first, last = split_name(info.name)
                details = {"first_name": first or None, "last_name": last or None,
                           "email": info.email or None, "lms_user_id": info.key or None}
            gradebook.update_or_create_student(student, **details)


def not_graded_pages(rows, feedback_dir, assignment, notebook_files):
    """A feedback page for every notebook a student has no graded page for (missing, failed);
    notebook_files: {notebook stem: file name}. Returns the pages written."""
    written = []
    for row in rows:
        if row.status not in ("missing", "failed"):
            continue
        page = Path(feedback_dir) / row.student / assignment / f"{row.notebook}.html"
        if page.is_file() and NOT_GRADED_MARK not in page.read_text(errors="replace")[:200]:
            continue  # nbgrader's page of an earlier grading: left as it is
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(_page(row, notebook_files.get(row.notebook, f"{row.notebook}.ipynb")), encoding="utf-8")
        written.append(page)
    return written


def _page(row, file_name):
    what = "was not handed in" if row.status == "missing" else "could not be graded"
    why = (row.reason or what).replace(f"; {HOW_TO_HAND_IN}", "")   # said once, below, with the file's name
    return f"""<!DOCTYPE html>
{NOT_GRADED_MARK}
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(row.notebook)}: not graded</title>
<style>body{{font-family:sans-serif;max-width:46em;margin:2em auto;line-height:1.5;overflow-wrap:anywhere}}
.why{{background:#fff4e5;border-left:4px solid #e69500;padding:.5em 1em}}</style></head>
<body><h1>{html.escape(row.notebook)}: 0 out of {row.auto_max + row.manual_max:g} points</h1>
<p>This notebook {what}, so it scores 0 out of its {row.auto_max + row.manual_max:g} points.</p>
<p class="why"><strong>Why:</strong> {html.escape(why)}</p>
<p><strong>What to hand in:</strong> {html.escape(file_name)}: {html.escape(HOW_TO_HAND_IN)}.
If you handed it in and think this is wrong, write to your course staff with this page.</p>
</body></html>
"""
