"""`export --to canvas|moodle`: the grades and the feedback put back where the class hands in, in the
files each platform's own bulk import takes (course/ledger/platform_files.py writes them), keyed by the ids
`grade` took in (intake.json), each notebook into its own assignment's column (course/ledger/columns.py
chooses and checks them); every platform file an export wrote made again from the record after a change
(`refresh`).

- Canvas: grades-canvas.csv, its gradebook import (Student, ID, SIS User ID, SIS Login ID, Section, then
  one column per assignment written, under a "Points Possible" row); feedback-canvas/<Canvas user id>.html,
  one page per student holding the feedback of the column's notebooks, to attach in SpeedGrader (of several
  columns, feedback-canvas/<NN>/ for each).
- Moodle: grades-moodle.csv, the assignment's offline grading worksheet (Identifier "Participant N", Grade,
  Last modified (grade), Feedback comments, ...); feedback-moodle.zip, its "Upload multiple feedback files
  in a zip", one folder per student named `<Full name>_<participant id>_assignsubmission_file` (of several
  assignments, moodle/<NN>/ for each: Moodle takes one worksheet per assignment).

A student with points still to grade by a person (written answers, drawings to review) gets no grade
yet, never a grade that would drop when those points come: their line is left blank and named. A
student who had points in an earlier grading of the workspace and of whom the last grading found
nothing stops the export (`new_zeros`), unless the instructor says 0 is right (--allow-zeros).

`before_export` runs every check that can stop `export` before it writes anything (exit 2 means the
workspace is as it was): a grading to export, and with --to, the platform that grading was taken in
from, its ids, the columns and their points, and new zeros.
"""
import re
import shlex
from pathlib import Path

from ..intake import roster as rosters
from ..intake.platforms import Intake
from ..layout import plural
from ..records import totals
from . import manifest, platform_files, record, safekeeping, versions
from .columns import choose
from ..records.rows import CSV_NAME

PLATFORMS = ("canvas", "moodle")
IDS = {"canvas": "Canvas user id: grade Canvas's submissions zip",
       "moodle": "Moodle participant id: grade Moodle's download of all submissions"}


def before_export(course, workspace=None, platform=None, allow_zeros=False, notebooks=(), each=False, total=False,
                  columns=(), roster=None):
    """Every check that can stop `export` (exit 2), run before it writes anything. Returns (the columns to
    write, course/ledger/columns.py: none without a platform; notes for the instructor)."""
    given, workspace = workspace is not None, course.workspace(workspace)
    record.check(course, workspace)   # a record lost or at odds with the workspace stops it first
    graded_in(workspace, given)
    manifest.refuse_edited(workspace, "export")   # a grade typed into a derived file is never lost unsaid
    record.take_in_decisions(course, workspace)   # formgrader's, since the last command
    earlier = versions.lines(course, workspace)   # notebooks graded under an earlier course: said every time
    stopped = safekeeping.unfinished(workspace)
    if stopped:
        why = (f"the last grading ({stopped['before']}, started {stopped['kept']}) was stopped before it finished "
               f"(Ctrl-C, a kill or a crash): some students have its results, the others their earlier ones")
        how = (f"run that `grade` again to finish it, or `python -m maskdiff_solutions undo --workspace {workspace}` "
               f"to put back the workspace as it was before")
        if platform:
            raise ValueError(f"{why}, and the {platform} file would mix them: {how}; nothing was written")
        earlier.append(f"{why}: {how}")
    if not platform:
        if notebooks or each or total or columns or roster:
            raise ValueError("--notebook, --each-notebook, --total, --column and --roster say what `export --to "
                             "canvas|moodle` writes: add --to")
        return [], earlier
    taken_in_from(workspace, platform)
    chosen, notes = choose(course, workspace, platform, notebooks, each, total, columns, roster)
    notes = earlier + notes
    if not allow_zeros:   # nobody zeroed by mistake
        rows = record.derived_rows(course, workspace)
        for column in chosen:
            refuse_new_zeros(workspace, [row for row in rows if row.notebook in column.notebooks], column.notebooks)
    return chosen, notes


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


def put_back(course, workspace, platform, rows, columns, roster=None):
    """Write the platform's grade file (and its feedback) of each column (course/ledger/columns.py) into
    workspace, and what it was made of (roster: the export's --roster), so that `refresh` can make it again;
    returns (paths written, [students left blank, with why])."""
    workspace = Path(workspace)
    intake = taken_in_from(workspace, platform)
    blank = []
    marks = []
    for column in columns:
        mine = [row for row in rows if row.notebook in column.notebooks]
        records = {record["student"]: record for record in totals.per_student(mine, intake)}
        left = {sid: platform_files.still_to_grade(record) for sid, record in sorted(records.items()) if platform_files.still_to_grade(record)}
        blank += [(sid, f"{column.label}: {why}" if len(columns) > 1 else why) for sid, why in left.items()]
        marks.append((column, records, left))
    earlier = manifest.platform_files(workspace).get("grades-canvas.csv" if platform == "canvas" else "", {})
    if platform == "canvas":
        written = platform_files.canvas(course, workspace, intake, marks)
    else:
        changed = platform_files.last_changed(workspace)
        written = [path for column, records, left in marks
                   for path in platform_files.moodle(course, workspace, intake, column, records, left, len(columns) > 1,
                                                      changed)]
    total = len(columns) == 1 and len(columns[0].notebooks) > 1
    manifest.exported(workspace, written[0], {
        "platform": platform, "notebooks": [stem for column in columns for stem in column.notebooks], "total": total,
        "columns": [column.name if total else f"{column.notebooks[0][:2]}={column.name}"
                    for column in columns if column.name], "roster": str(roster or ""),
        "files": [str(Path(path).relative_to(workspace)) for path in written]})
    for name in set(earlier.get("files", [])) - {str(Path(path).relative_to(workspace)) for path in written}:
        _remove(workspace / name)   # a page of the export before that this one does not make
    if roster:   # a roster downloaded again (new points): what the next export of these notebooks checks against
        _remember(workspace, intake, roster, [stem for column in columns for stem in column.notebooks], platform)
    return written, blank


def _remember(workspace, intake, roster, stems, platform):
    text = rosters.text(roster)
    kept = {"file": Path(roster).name, "text": text}
    if platform == "canvas":
        intake.roster, intake.roster_text = str(roster), text
    intake.rosters.update({stem: kept for stem in stems} if platform == "moodle" and len(stems) == 1 else {})
    intake.save(workspace)


def refresh(course, workspace):
    """Every platform file an export wrote, made again from the record as it is now, as that export made it
    (its columns chosen and checked again); where they no longer pass (a column's points, new zeros),
    its files are removed. Returns a line for each file that changed or went (a grading, `undo` or a
    person's grades since changed it: import it again)."""
    workspace, lines = Path(workspace), []
    for path, made in sorted(manifest.platform_files(workspace).items()):
        files = [workspace / name for name in made["files"]]
        if not (workspace / path).is_file():
            continue   # removed by the instructor: not made again unasked
        before = {name: record.file_digest(name) for name in files}
        try:
            chosen, _ = choose(course, workspace, made["platform"], made["notebooks"], False, made["total"],
                               made["columns"], made["roster"] or None)
            rows = record.derived_rows(course, workspace)
            for column in chosen:
                refuse_new_zeros(workspace, [row for row in rows if row.notebook in column.notebooks], column.notebooks)
            put_back(course, workspace, made["platform"], rows, chosen, made["roster"] or None)
        except (OSError, ValueError) as err:
            for name in files:
                _remove(name)
            lines.append(f"{path} and its feedback removed: the record no longer makes them as exported ({err})")
            continue
        if any(record.file_digest(name) != digest for name, digest in before.items()):
            lines.append(f"{path} made again from the record: its marks changed since it was exported; import it again")
    return lines


def _remove(path):
    if path.is_file():
        path.unlink()
    for folder in (path.parent, path.parent.parent):   # feedback-canvas/<NN>/, moodle/<NN>/ left empty
        try:
            folder.rmdir()
        except OSError:
            pass


def new_zeros(workspace, rows, notebooks=None):
    """Lines for each student of whom the workspace's rows (record.derived_rows, of the notebooks exported)
    hold nothing found (every row missing) and who had points for those notebooks in an earlier grading
    kept beside it (course/ledger/safekeeping.py)."""
    found_nothing = {row.student for row in rows} - {row.student for row in rows if row.status != "missing"}
    before = safekeeping.earlier_points(workspace, notebooks)
    return [f"{student} ({before[student][0]:g} of {before[student][1]:g} points in the grading kept "
            f"{before[student][2]})" for student in sorted(found_nothing)
            if student in before and before[student][0] > 0]


def refuse_new_zeros(workspace, rows, notebooks=None):
    """Stop an export that would give 0 to students who had points, before anything is written."""
    zeros = new_zeros(workspace, rows, notebooks)
    if zeros:
        raise ValueError(f"the platform file would give 0 to {plural(len(zeros), 'student')} of whom the last grading "
                         f"found nothing, who had points before: {', '.join(zeros[:5])}"
                         f"{f' and {len(zeros) - 5} more' if len(zeros) > 5 else ''}. If that grading took the "
                         f"wrong files, `python -m maskdiff_solutions undo --workspace {workspace}` puts the one "
                         f"before back; if 0 is right, export with --allow-zeros")
