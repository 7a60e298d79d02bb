"""`export --to canvas|moodle`: the grades and the feedback put back where the class hands in, in the
files each platform's own bulk import takes, keyed by the ids `grade` took in (intake.json).

- Canvas: grades-canvas.csv, its gradebook import (Student, ID, SIS User ID, SIS Login ID, Section, then
  the assignment's column, under a "Points Possible" row); feedback-canvas/<Canvas user id>.html, one
  page per student holding every notebook's feedback, to attach in SpeedGrader.
- Moodle: grades-moodle.csv, its offline grading worksheet (Identifier "Participant N", Grade, Last
  modified (grade), Feedback comments, ...); feedback-moodle.zip, its "Upload multiple feedback files in
  a zip", one folder per student named `<Full name>_<participant id>_assignsubmission_file`.

A student with points still to grade by a person (written answers, drawings to review) gets no grade
yet, never a grade that would drop when those points come: their line is left blank and named. A
student who had points in an earlier grading of the workspace and of whom the last grading found
nothing stops the export (`new_zeros`), unless the instructor says 0 is right (--allow-zeros).

`before_export` runs every check that can stop `export` before it writes anything (exit 2 means the
workspace is as it was): a grading to export, and with --to, the platform that grading was taken in
from, its ids, new zeros and Canvas's column.
"""
import csv
import difflib
import html
import re
import shlex
import time
import zipfile
from pathlib import Path

from ..intake import roster as rosters
from ..intake.platforms import Intake
from ..layout import plural
from ..records import totals
from . import record, safekeeping
from ..records.rows import CSV_NAME

PLATFORMS = ("canvas", "moodle")
MOODLE_COLUMNS = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                  "Grade can be changed", "Last modified (submission)", "Last modified (grade)", "Feedback comments"]
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
IDS = {"canvas": "Canvas user id: grade Canvas's submissions zip",
       "moodle": "Moodle participant id: grade Moodle's download of all submissions"}


def before_export(course, workspace=None, platform=None, column=None, allow_zeros=False):
    """Every check that can stop `export` (exit 2), run before it writes anything. Returns (the Canvas
    column to write, a note for the instructor or "")."""
    given, workspace = workspace is not None, course.workspace(workspace)
    record.check(course, workspace)   # a record lost or at odds with the workspace stops it first
    graded_in(workspace, given)
    if not platform:
        return column, ""
    taken_in_from(workspace, platform)
    if not allow_zeros:   # nobody zeroed by mistake
        refuse_new_zeros(workspace, record.derived_rows(course, workspace))
    if platform == "canvas":   # a wrong column zeroes nobody
        return canvas_column(workspace, column, course.assignment)
    return column, ""


def graded_in(workspace, given=True):
    """Stop where workspace holds no grading to export, naming the gradings near the current folder
    (an instructor in grading/week1 who typed no --workspace exports the course root)."""
    if record.results(workspace / record.DB_NAME):
        return
    near = [folder for folder in graded_near(Path.cwd()) if folder != workspace]
    where = f"no grading in {workspace}" + ("" if given else " (the course root: export reads it unless "
                                                                   "--workspace names another)")
    if not near:
        raise FileNotFoundError(f"{where}: grade first "
                                f"(python -m maskdiff_solutions grade DIR --workspace {workspace})")
    how = " or ".join(f"`python -m maskdiff_solutions export --workspace {shlex.quote(str(folder))}`"
                      for folder in near[:3])
    found = f"a grading is in {near[0]}" if len(near) == 1 else f"gradings are in {', '.join(map(str, near[:3]))}"
    raise FileNotFoundError(f"{where}; {found}: export with {how}")


def graded_near(start):
    """Folders holding a grading: start or the nearest one above it (absolute), else those up to two
    levels below it (relative to start)."""
    above = next((folder for folder in (start, *start.parents) if record.results(folder / record.DB_NAME)), None)
    if above:
        return [above.resolve()]
    below = sorted({path.parent for pattern in (f"*/{record.DB_NAME}", f"*/*/{record.DB_NAME}")
                    for path in start.glob(pattern) if record.results(path)})
    return [folder.relative_to(start) for folder in below]


def taken_in_from(workspace, platform):
    """The grading's intake, where it was taken in from the platform's own export with its ids; else stop."""
    intake = Intake.load(workspace)
    if intake is None or intake.platform != platform:
        took = f"was taken in from {intake.platform}" if intake else f"has no intake.json ({CSV_NAME} alone)"
        raise ValueError(f"the grading in {workspace} {took}: `export --to {platform}` needs the ids {platform} "
                         f"wrote into its export; grade {platform}'s own export (with --roster) into this "
                         f"workspace first")
    if not all(re.fullmatch(r"\d+", s.key) for s in intake.students.values()):
        raise ValueError(f"some students have no {IDS[platform]}")
    return intake


def put_back(course, workspace, platform, rows, column=None):
    """Write the platform's grade file (and its feedback) into workspace; returns (paths written,
    [students left blank, with why])."""
    workspace = Path(workspace)
    intake = taken_in_from(workspace, platform)
    records = {record["student"]: record for record in totals.per_student(rows, intake)}
    blank = [(sid, _pending(record)) for sid, record in sorted(records.items()) if _pending(record)]
    if platform == "canvas":
        paths = _canvas(course, workspace, intake, records, dict(blank), column or course.assignment)
    else:
        paths = _moodle(course, workspace, intake, records, dict(blank))
    return paths, blank


def new_zeros(workspace, rows):
    """Lines for each student of whom the workspace's rows (record.derived_rows) hold nothing found
    (every row missing) and who had points in an earlier grading kept beside it
    (course/ledger/safekeeping.py)."""
    found_nothing = {row.student for row in rows} - {row.student for row in rows if row.status != "missing"}
    before = safekeeping.earlier_points(workspace)
    return [f"{student} ({before[student][0]:g} of {before[student][1]:g} points in the grading kept "
            f"{before[student][2]})" for student in sorted(found_nothing)
            if student in before and before[student][0] > 0]


def refuse_new_zeros(workspace, rows):
    """Stop an export that would give 0 to students who had points, before anything is written."""
    zeros = new_zeros(workspace, rows)
    if zeros:
        raise ValueError(f"the platform file would give 0 to {plural(len(zeros), 'student')} of whom the last grading "
                         f"found nothing, who had points before: {', '.join(zeros[:5])}"
                         f"{f' and {len(zeros) - 5} more' if len(zeros) > 5 else ''}. If that grading took the "
                         f"wrong files, `python -m maskdiff_solutions undo --workspace {workspace}` puts the one "
                         f"before back; if 0 is right, export with --allow-zeros")


def canvas_column(workspace, column, default):
    """The gradebook column `export --to canvas` writes: checked against the assignment columns of the
    roster grading took in (a mistyped or missing --column makes Canvas create a new assignment, and the
    real one keeps its old marks). Returns (the column, a note for the instructor or "")."""
    intake = Intake.load(workspace)
    roster = Path(intake.roster) if intake and intake.roster else None
    known = rosters.canvas_assignments(roster) if roster and roster.is_file() else []
    if column is None and known:
        raise ValueError(f"name the assignment's column in Canvas: --column {shlex.quote(known[0])} (the "
                         f"assignment columns of the roster {roster.name}: {', '.join(known)}); without it Canvas "
                         f"would import the grades as a new assignment")
    if column is not None and known and column not in known:
        close = difflib.get_close_matches(column, known, n=1, cutoff=0.4)
        raise ValueError(f"--column {column!r} is no assignment column of the roster {roster.name}"
                         + (f": did you mean {close[0]!r}?" if close else "") + f" (its assignment columns: "
                         f"{', '.join(known)}); Canvas would import the grades as a new assignment")
    if column is None:
        return default, (f"column: {default!r}, which Canvas imports as a new assignment (no roster to check "
                         f"against: --column names an existing one)")
    return column, ""


def _pending(record):
    parts = []
    if record["to_grade"]:
        parts.append(f"{record['to_grade']:g} points of written answers to grade")
    if record["drawings_to_review"]:
        parts.append(f"{record['drawings_to_review']} drawings to review")
    return " and ".join(parts)


def _grade(record, blank):
    return "" if record["student"] in blank else f"{record['total']:g}"


def _canvas(course, workspace, intake, records, blank, column):
    path = workspace / "grades-canvas.csv"
    most = max((r["out_of"] for r in records.values()), default=0.0)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CANVAS_COLUMNS + [column])
        writer.writerow(["Points Possible", "", "", "", "", f"{most:g}"])
        for sid, student in sorted(intake.students.items(), key=lambda item: item[1].name.lower()):
            record = records.get(sid)
            writer.writerow([student.name, student.key, student.sis_user_id, student.sis_login_id,
                             student.section, _grade(record, blank) if record else ""])
    folder = workspace / "feedback-canvas"
    folder.mkdir(exist_ok=True)
    pages = [_combined(workspace, course, sid, records[sid], folder / f"{student.key}.html")
             for sid, student in intake.students.items() if sid in records]
    return [path, *pages]


def _moodle(course, workspace, intake, records, blank):
    path = workspace / "grades-moodle.csv"
    now = time.strftime("%Y-%m-%d %H:%M:%S")  # Moodle reads it with strtotime()
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(MOODLE_COLUMNS)
        for sid, student in sorted(intake.students.items(), key=lambda item: int(item[1].key)):
            record = records.get(sid)
            if record is None:
                continue
            writer.writerow([f"Participant {student.key}", student.name, student.email,
                             "Submitted for grading" if student.files else "No submission",
                             _grade(record, blank), f"{record['out_of']:g}", "Yes", "", now,
                             comment(record, blank.get(sid))])
    archive = workspace / "feedback-moodle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        for sid, student in intake.students.items():
            folder = f"{moodle_name(student.name or sid)}_{student.key}_assignsubmission_file"
            for page in sorted((workspace / "feedback" / sid / course.assignment).glob("*.html")):
                out.write(page, f"{folder}/{page.stem}-feedback.html")
    return [path, archive]


def moodle_name(name):
    """Moodle splits the folder name at '_' to find the participant id: none may be in the name."""
    return re.sub(r"[_/\\]+", " ", name).strip() or "student"


def headline(record, pending=""):
    """The total as a student must read it: 'so far' while a person has points still to award."""
    if pending or _pending(record):
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


def _combined(workspace, course, sid, record, path):
    """One page holding each notebook's feedback page whole (its own styles intact)."""
    pages = sorted((workspace / "feedback" / sid / course.assignment).glob("*.html"))
    still = f"; still to grade: {_pending(record)}" if _pending(record) else ""
    frames = "\n".join(f'<h2>{html.escape(page.stem)}</h2>\n<iframe title="{html.escape(page.stem)}" '
                       f'style="width:100%;height:80vh;border:1px solid #ccc" '
                       f'srcdoc="{html.escape(page.read_text(encoding="utf-8", errors="replace"))}"></iframe>'
                       for page in pages)
    path.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(course.assignment)}: feedback</title></head>
<body style="font-family:sans-serif;margin:1em 2em">
<h1>{html.escape(course.assignment)}: {html.escape(headline(record))}{html.escape(still)}</h1>
{frames}
</body></html>
""", encoding="utf-8")
    return path
