"""What grading hands around and writes out: a student's task, the grades-by-notebook rows (one per
student and notebook), a student's result, the batch's report, and the CSV and table made of them."""
import csv
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .answers import OPTIONAL_NOTE

CSV_NAME = "grades-by-notebook.csv"  # not nbgrader's grades.csv: `nbgrader export` writes that one
SEVERITY = ["graded", "repaired", "flagged", "failed"]  # a row takes the worst that applies


@dataclass
class Task:
    """Everything one student's grading reads (course/run/student.py), as plain values: it crosses into
    spawned worker processes."""
    course_root: str
    template_db: str          # the gradebook every student's copy starts from
    student: str
    folder: str               # the student's submission
    scratch: str              # their scratch workspace (a folder of its own), where merge reads
    sandbox: str = "off"      # the sandbox mode (course/sandbox/settings.py)
    cache: str = ""           # the stand-in cache kernels read
    limits: dict = None       # the sandbox's limits
    selected: list = None     # the notebooks to grade (None: all)
    notebook_jobs: int = 1    # notebooks autograded at once


@dataclass
class Row:
    student: str
    notebook: str
    status: str            # graded | repaired | flagged | failed | missing
    auto_score: float = 0.0
    auto_max: float = 0.0
    manual_score: float = 0.0    # points of manually graded cells awarded so far (a blank answer: 0)
    manual_max: float = 0.0
    manual_pending: float = 0.0  # points still to be graded by a person (formgrader)
    failed_tests: str = ""
    reason: str = ""
    repairs: str = ""
    review: str = ""       # drawings a person grades (the checker's reader was unsure): their test cells
    late: str = ""         # "yes" where the platform's export marked it handed in late

    def mark(self, status, reason):
        if SEVERITY.index(status) > SEVERITY.index(self.status):
            self.status = status
        self.reason = "; ".join(filter(None, [self.reason, reason]))

    def automatic_only(self):
        """Nothing manual left in the row (a score a person gave before the course made its written
        answers optional included: course/records/answers.py)."""
        self.manual_score = self.manual_max = self.manual_pending = 0.0
        return self


@dataclass
class StudentResult:
    student: str
    rows: list
    tests: dict = field(default_factory=dict)   # notebook -> {test grade_id: (score, max)}
    withheld: list = field(default_factory=list)  # notebooks whose autograded marks are withheld
    check_seconds: dict = field(default_factory=dict)  # notebook -> seconds its hidden checks took
    timed: dict = field(default_factory=dict)  # notebook -> its test cells from the first a time limit stopped
    busy: list = field(default_factory=list)   # notebooks the machine's load stopped (not the student's code)


@dataclass
class Report:
    rows: list
    csv_path: Path
    feedback_dir: Path
    tests: dict = field(default_factory=dict)  # (student, notebook) -> {test: (score, max)}
    merge_seconds: float = 0.0  # time spent merging scratch workspaces (what isolation costs)
    check_seconds: dict = field(default_factory=dict)  # (student, notebook) -> seconds of hidden checks
    answers_optional: bool = False  # [tool.maskdiff] written_answers = "optional"
    canary: str = ""  # what the canary did: proved which notebooks, or left them out as proved before
    earlier: list = field(default_factory=list)  # lines: the earlier grading kept aside, results kept or replaced


def write_csv(rows, path):
    """Write the rows whole or not at all (a stop half-way leaves the file as it was)."""
    part = Path(path).with_name(Path(path).name + ".part")
    with open(part, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=[f.name for f in fields(Row)])
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))
    os.replace(part, path)


def manual_cell(row, optional=False):
    """The manual column in words that cannot be misread: awarded/out of, and what is still to grade."""
    if optional:
        return "optional"
    if not row.manual_max:
        return "-"
    if row.manual_pending >= row.manual_max:
        return f"{row.manual_max:g} to grade"
    if row.manual_pending:
        return f"{row.manual_score:g}/{row.manual_max - row.manual_pending:g} +{row.manual_pending:g} to grade"
    return f"{row.manual_score:g}/{row.manual_max:g}"


def to_review(row):
    """'N drawings to review: test cells', or '' (`Row.review`)."""
    cells = row.review.split()
    return f"{len(cells)} drawing{'s' * (len(cells) != 1)} to review: {', '.join(cells)}" if cells else ""


def table(rows, optional=False):
    """The grading table as text, its columns as wide as their longest entry (optional: the course's
    written answers are optional, so the manual column says so)."""
    header = ("student", "notebook", "status", "auto", "manual", "notes")
    lines = [(row.student, row.notebook, row.status, f"{row.auto_score:g}/{row.auto_max:g}",
              manual_cell(row, optional),
              "; ".join(filter(None, [row.reason or (f"failed: {row.failed_tests}" if row.failed_tests else ""),
                                      to_review(row)]))) for row in rows]
    widths = [max(len(line[i]) for line in [header, *lines]) for i in range(5)]
    align = ("<", "<", "<", ">", ">")
    out = ["  ".join(f"{value:{a}{w}}" for value, a, w in zip(line[:5], align, widths)) + "  " + line[5]
           for line in [header, *lines]]
    out = [line.rstrip() for line in out]
    if optional:
        out.append(f"auto: autograded points / out of, the whole grade. manual: {OPTIONAL_NOTE}.")
    else:
        out.append("auto: autograded points / out of. manual: points a person awarded / out of "
                   "(a blank answer gets 0 from nbgrader); 'N to grade': N points still to be graded by a "
                   "person in formgrader (then `python -m maskdiff_solutions export`).")
    if any(row.review for row in rows):
        out.append("'N drawings to review': the autograder's reader could not decide on these drawings; "
                   "their points count once a person gives them in formgrader (then `export`).")
    repaired = [row for row in rows if row.repairs]
    if repaired:
        out.append("\nrepairs (the students' own files are unchanged):")
        out += [f"  {row.student} / {row.notebook}: {row.repairs}" for row in repaired]
    return "\n".join(out)


def print_table(rows, optional=False):
    print(table(rows, optional))


def read_csv(path):
    """Rows of a grades-by-notebook.csv, typed as grading wrote them."""
    kinds = {f.name: f.type for f in fields(Row)}
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = set(kinds) - set(reader.fieldnames or []) - {"review", "late"}  # newer than some CSVs
        if missing:
            raise ValueError(f"{path} lacks the columns {', '.join(sorted(missing))}: it was not "
                             f"written by `python -m maskdiff_solutions grade`")
        for record in reader:
            rows.append(Row(**{name: float(record.get(name) or 0) if kinds[name] in (float, "float")
                               else record.get(name) or "" for name in kinds}))
    return rows
