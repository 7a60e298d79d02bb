"""The whole round trip: a platform's export graded with its roster, and the grades and feedback put
back in the files the platform imports. Every student, of the roster or not, handed in or not, has a
row, the same maximum, a total, a gradebook entry and a feedback page. What is judged is the record and the
files made from it, so each student's grading is the fake's (tests/support/fake_grading.py, one job: it
records what real grading records, tests/course/ledger/test_term_real.py)."""
import csv

import pytest
from nbgrader.api import Gradebook

from maskdiff_solutions.course.ledger import returns
from maskdiff_solutions.course.records import totals
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.ledger.export import export
from maskdiff_solutions.course.layout import COURSE_ID
from tests.support import exports, importers

pytestmark = pytest.mark.slow
NOTEBOOK = "01_noise_for_words"


@pytest.fixture(scope="module")
def canvas_graded(course, tmp_path_factory, fake_grader):
    folder = tmp_path_factory.mktemp("canvas")
    export_zip, roster = exports.canvas(course, folder, broken=True)
    report = grade(course, export_zip, folder / "ws", notebooks=["01"], canary=False, progress=False,
                   roster=roster, jobs=1)
    return folder / "ws", report


@pytest.fixture(scope="module")
def moodle_graded(course, tmp_path_factory, fake_grader):
    folder = tmp_path_factory.mktemp("moodle")
    export_zip, roster = exports.moodle(course, folder)
    report = grade(course, export_zip, folder / "ws", notebooks=["01"], canary=False, progress=False,
                   roster=roster, jobs=1)
    return folder / "ws", report


def columns(course, workspace, platform):
    """The one column `export --to platform` writes (course/ledger/columns.py): notebook 01's."""
    named = ["Masked diffusion (777)"] if platform == "canvas" else []
    return returns.before_export(course, workspace, platform, columns=named, allow_zeros=True)[0]


def test_every_student_has_a_row_out_of_the_same_maximum(canvas_graded):
    workspace, report = canvas_graded
    rows = {row.student: row for row in report.rows}
    assert set(rows) == {"doejane_4242", "smithbob_5151", "nunezzoe_6161", "absental_7171", "kimbroken_8181"}
    assert {row.auto_max + row.manual_max for row in rows.values()} == {rows["doejane_4242"].auto_max +
                                                                         rows["doejane_4242"].manual_max}
    assert rows["doejane_4242"].auto_score == rows["doejane_4242"].auto_max > 0
    assert rows["smithbob_5151"].auto_score == rows["smithbob_5151"].auto_max  # the later file, graded
    assert rows["absental_7171"].status == "missing" and "nothing was handed in" in rows["absental_7171"].reason
    assert "homework.pdf instead" in rows["nunezzoe_6161"].reason
    assert rows["kimbroken_8181"].status == "failed"


def test_every_student_has_a_total_a_gradebook_entry_and_a_page(canvas_graded, course):
    workspace, report = canvas_graded
    with open(workspace / totals.STUDENT_CSV, encoding="utf-8") as handle:
        records = {r["student"]: r for r in csv.DictReader(handle)}
    assert len(records) == 5 and len({r["out_of"] for r in records.values()}) == 1
    assert records["doejane_4242"]["name"] == "Doe, Jane" and records["smithbob_5151"]["late"] == "yes"
    assert records["absental_7171"]["total"] == "0" and records["absental_7171"]["not_graded"] == f"{NOTEBOOK}: missing"
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id=COURSE_ID) as gradebook:
        students = {s.id: s for s in gradebook.students}
    assert set(students) == set(records)
    assert (students["nunezzoe_6161"].first_name, students["nunezzoe_6161"].lms_user_id) == ("Zoë", "6161")
    for student in records:
        page = workspace / "feedback" / student / course.assignment / f"{NOTEBOOK}.html"
        assert page.is_file(), student
    broken = (workspace / "feedback" / "kimbroken_8181" / course.assignment / f"{NOTEBOOK}.html").read_text()
    assert "could not be graded" in broken and "not valid JSON" in broken and "Download .ipynb" in broken


def test_canvas_takes_the_grades_back(canvas_graded, course):
    workspace, _ = canvas_graded
    rows, _, failed = export(course, workspace)
    assert not failed
    written, blank = returns.put_back(course, workspace, "canvas", rows, columns(course, workspace, "canvas"))
    grades, points = importers.canvas_grades(workspace / "grades-canvas.csv")
    assert set(grades) == {"4242", "5151", "6161", "7171", "8181"}
    assert points == {"Masked diffusion (777)": 18.0} or list(points) == ["Masked diffusion (777)"]
    # written answers are still to grade: no grade yet where they count, never a grade that drops later
    assert grades["7171"]["Masked diffusion (777)"] == 0.0
    assert grades["4242"]["Masked diffusion (777)"] is None and dict(blank)["doejane_4242"]
    page = (workspace / "feedback-canvas" / "4242.html").read_text()
    assert page.count("<iframe") == 1
    # Jane's written answers await a person: her page never reads as a final mark (nbgrader's own page under
    # real grading says "Score so far": tests/course/records/test_handed_in.py)
    assert "maskdiff: 16 points so far, out of 18; still to grade: 2 points of written answers to grade" in page


def test_moodle_takes_the_grades_and_the_feedback_back(moodle_graded, course):
    workspace, report = moodle_graded
    rows, _, _ = export(course, workspace)
    written, blank = returns.put_back(course, workspace, "moodle", rows, columns(course, workspace, "moodle"))
    participants = {301, 302, 303, 304}
    got = importers.moodle_grades(workspace / "grades-moodle.csv", participants)
    assert set(got) == participants
    assert got[304][0] == 0.0 and "not graded" in got[304][1]
    files = importers.moodle_feedback_files(workspace / "feedback-moodle.zip", participants)
    assert set(files) == participants and files[301] == [f"{NOTEBOOK}-feedback.html"]


def test_the_other_platform_is_refused_with_the_reason(canvas_graded, course):
    workspace, report = canvas_graded
    with pytest.raises(ValueError, match="taken in from canvas"):
        returns.put_back(course, workspace, "moodle", report.rows, [])


def test_a_wrong_roster_or_week_leaves_the_grades_and_their_export_alone(canvas_graded, course, tmp_path):
    """The two mistakes of a tired instructor, through the command line, on a graded workspace: a Moodle
    worksheet given with the Canvas zip (exit 3) and week 2's zip graded as notebook 01 (exit 4). Both
    stop before the workspace changes, so the next export writes what it wrote before: nobody zeroed."""
    import hashlib
    from maskdiff_solutions.course import cli
    workspace, _ = canvas_graded

    def exported():
        rows, _, _ = export(course, workspace)
        returns.put_back(course, workspace, "canvas", rows, columns(course, workspace, "canvas"))
        return (workspace / "grades-canvas.csv").read_bytes()

    def snapshot():
        return {str(p.relative_to(workspace)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(workspace.rglob("*")) if p.is_file() and p.name != ".grading.lock"}

    before, files = exported(), snapshot()
    export_zip, _ = exports.canvas(course, tmp_path)
    _, worksheet = exports.moodle(course, tmp_path)
    week2 = exports.write_zip(tmp_path / "week2.zip", {
        "doejane_4242_1001_02_undiffusing.ipynb": (course.release_dir / "02_undiffusing.ipynb").read_bytes()})
    common = ["--course-dir", str(course.root), "grade", "--workspace", str(workspace), "--notebook", "01",
              "--no-canary", "--sandbox", "off"]
    assert cli.main(common + [str(export_zip), "--roster", str(worksheet)]) == 3
    assert cli.main(common + [str(week2)]) == 4
    assert snapshot() == files
    assert exported() == before


def test_a_missing_or_mistyped_canvas_column_stops_export_before_it_writes(canvas_graded, course, capsys):
    """Without --column, or with one the roster grading took in does not hold, Canvas would import the
    grades as a new assignment: export stops at once, naming the roster's assignment columns."""
    from maskdiff_solutions.course import cli
    workspace, _ = canvas_graded
    written = {p: p.stat().st_mtime_ns for p in workspace.rglob("*") if p.is_file()}
    common = ["--course-dir", str(course.root), "export", "--workspace", str(workspace), "--to", "canvas"]
    assert cli.main(common) == 2
    assert "--column 'Masked diffusion (777)'" in capsys.readouterr().err
    assert cli.main(common + ["--column", "Masked difusion (777)"]) == 2
    assert "did you mean 'Masked diffusion (777)'?" in capsys.readouterr().err
    assert {p: p.stat().st_mtime_ns for p in workspace.rglob("*") if p.is_file()} == written


def test_a_page_of_a_notebook_not_graded_says_each_thing_once(canvas_graded, course):
    """Al handed in nothing: his pages say why and what to hand in, the how-to sentence once."""
    import html
    from maskdiff_solutions.course.intake.platforms import HOW_TO_HAND_IN
    workspace, _ = canvas_graded
    pages = sorted((workspace / "feedback").glob(f"*7171/{course.assignment}/*.html"))
    assert pages
    for page in pages:
        text = page.read_text()
        assert "nothing was handed in" in text and text.count(html.escape(HOW_TO_HAND_IN)) == 1, page
