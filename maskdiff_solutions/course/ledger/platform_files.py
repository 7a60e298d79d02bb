"""The files `export --to canvas|moodle` writes, as each platform's own bulk import takes them (course/ledger/
returns.py decides what goes in them): Canvas's gradebook import with a column per assignment under its
Points Possible and a feedback page per student to attach in SpeedGrader; Moodle's offline grading
worksheet of one assignment and its zip of feedback files, one folder per participant. A student with
points still to grade by a person gets no grade yet, never one that would drop when those points come."""
import csv
import html
import re
import zipfile
from contextlib import closing
from pathlib import Path

from . import manifest, record

MOODLE_COLUMNS = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                  "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def last_changed(workspace):
    """{(student, notebook): when its result or a person's decision of it last changed} (Moodle's 'Last
    modified (grade)', which Moodle compares with its own: a file made again from an unchanged record is
    the same file)."""
    with closing(record.connect(Path(workspace) / record.DB_NAME)) as con:
        found = con.execute("SELECT student, notebook, MAX(at) FROM (SELECT student, notebook, graded_at AS at FROM "
                            "maskdiff_result UNION ALL SELECT student, notebook, at FROM maskdiff_decision) "
                            "GROUP BY student, notebook").fetchall()
    return {(student, notebook): at or "" for student, notebook, at in found}


def still_to_grade(record):
    parts = []
    if record["to_grade"]:
        parts.append(f"{record['to_grade']:g} points of written answers to grade")
    if record["drawings_to_review"]:
        parts.append(f"{record['drawings_to_review']} drawings to review")
    return " and ".join(parts)


def _grade(record, blank):
    return "" if record["student"] in blank else f"{record['total']:g}"


def canvas(course, workspace, intake, marks):
    """grades-canvas.csv, one column per exported column under its Points Possible, one line per student;
    feedback-canvas/<Canvas user id>.html (one column), or feedback-canvas/<NN>/... for each of several."""
    path = manifest.put(workspace, workspace / "grades-canvas.csv", lambda fresh: _canvas_csv(fresh, intake, marks))
    pages = []
    for column, records, _ in marks:
        folder = workspace / "feedback-canvas" / (column.label if len(marks) > 1 else "")
        folder.mkdir(parents=True, exist_ok=True)
        pages += [_combined(workspace, course, sid, records[sid], folder / f"{student.key}.html", column.notebooks)
                  for sid, student in intake.students.items() if sid in records]
    return [path, *pages]


def _canvas_csv(path, intake, marks):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CANVAS_COLUMNS + [column.name for column, _, _ in marks])
        writer.writerow(["Points Possible", "", "", "", ""] + [f"{column.points:g}" for column, _, _ in marks])
        for sid, student in sorted(intake.students.items(), key=lambda item: item[1].name.lower()):
            if not any(sid in records for _, records, _ in marks):
                continue
            writer.writerow([student.name, student.key, student.sis_user_id, student.sis_login_id, student.section]
                            + [_grade(records[sid], left) if sid in records else "" for _, records, left in marks])


def moodle(course, workspace, intake, column, records, blank, several, changed):
    """The assignment's worksheet to upload (grades-moodle.csv) and its feedback zip (feedback-moodle.zip);
    of several columns, each in moodle/<NN>/."""
    folder = workspace / "moodle" / column.label if several else workspace
    folder.mkdir(parents=True, exist_ok=True)
    people = column.people or {sid: student for sid, student in intake.students.items()}
    path = manifest.put(workspace, folder / "grades-moodle.csv",
                        lambda fresh: _moodle_csv(fresh, people, column, records, blank, changed))
    archive = folder / "feedback-moodle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for sid, person in people.items():
            if sid not in records:
                continue
            inside = f"{moodle_name(person.name or sid)}_{person.key}_assignsubmission_file"
            for page in _pages(workspace, course, sid, column.notebooks):
                out.write(page, f"{inside}/{page.stem}-feedback.html")
    return [path, archive]


def _moodle_csv(path, people, column, records, blank, changed):
    """The worksheet; 'Last modified (grade)': when the record last changed the student's mark (Moodle
    reads it with strtotime(), and takes a grade only where it is newer than its own)."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(MOODLE_COLUMNS)
        for sid, person in sorted(people.items(), key=lambda item: int(item[1].key)):
            record = records.get(sid)
            if record is None:
                continue
            missing = {part.rsplit(": ", 1)[0] for part in record["not_graded"].split("; ") if part.endswith(": missing")}
            handed = bool(set(column.notebooks) - missing)
            when = max((changed.get((sid, stem), "") for stem in column.notebooks), default="")
            writer.writerow([f"Participant {person.key}", person.name, person.email,
                             "Submitted for grading" if handed else "No submission",
                             _grade(record, blank), f"{record['out_of']:g}", "Yes", "", when,
                             comment(record, blank.get(sid))])


def _pages(workspace, course, sid, notebooks):
    """The student's feedback pages of these notebooks."""
    folder = workspace / "feedback" / sid / course.assignment
    return [folder / f"{stem}.html" for stem in notebooks if (folder / f"{stem}.html").is_file()]


def moodle_name(name):
    """Moodle splits the folder name at '_' to find the participant id: none may be in the name."""
    return re.sub(r"[_/\\]+", " ", name).strip() or "student"


def headline(record, pending=""):
    """The total as a student must read it: 'so far' while a person has points still to award."""
    if pending or still_to_grade(record):
        return f"{record['total']:g} points so far, out of {record['out_of']:g}"
    return f"{record['total']:g} out of {record['out_of']:g} points"


def comment(record, pending=""):
    """The feedback comment: the total, each notebook, and what is not graded yet."""
    parts = [headline(record, pending)]
    if record["not_graded"]:
        parts.append(f"not graded: {record['not_graded']} (see the feedback files)")
    if pending:
        parts.append(f"still to grade: {pending}")
    return "; ".join(parts)


def _combined(workspace, course, sid, record, path, notebooks):
    """One page holding each of the notebooks' feedback pages whole (their own styles intact)."""
    still = f"; still to grade: {still_to_grade(record)}" if still_to_grade(record) else ""
    frames = "\n".join(f'<h2>{html.escape(page.stem)}</h2>\n<iframe title="{html.escape(page.stem)}" '
                       f'style="width:100%;height:80vh;border:1px solid #ccc" '
                       f'srcdoc="{html.escape(page.read_text(encoding="utf-8", errors="replace"))}"></iframe>'
                       for page in _pages(workspace, course, sid, notebooks))
    path.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(course.assignment)}: feedback</title></head>
<body style="font-family:sans-serif;margin:1em 2em">
<h1>{html.escape(course.assignment)}: {html.escape(headline(record))}{html.escape(still)}</h1>
{frames}
</body></html>
""", encoding="utf-8")
    return path
