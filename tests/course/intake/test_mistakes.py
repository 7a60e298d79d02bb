"""An instructor's wrong input stops `grade` before the workspace changes (course/intake/mistakes.py):
a roster that is another platform's or another class's (exit 3), a batch in which most students handed
in another notebook than the ones graded, or another course's notebooks (exit 4), a file named .zip
that is no zip (exit 2); each says what it found and how to go on, and the overrides grade all the
same. tests/course/records/test_round_trip.py does it on a graded workspace, whose export then stays
as it was."""
import hashlib
import json
import re
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import mistakes, platforms
from tests.support import exports

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow  # the command line, five times: CI runs them, the inner loop does not

NB01, NB02 = "01_noise_for_words.ipynb", "02_undiffusing.ipynb"


def snapshot(folder):
    """Every file and its bytes, but the lock's note of who held it last (course/ledger/safekeeping.py)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".grading.lock"}


def earlier_grading(folder):
    """A workspace an earlier grading left: what stopping must leave as it was."""
    (folder / "feedback" / "doejane_4242").mkdir(parents=True)
    (folder / "feedback" / "doejane_4242" / "page.html").write_text("16 of 16")
    (folder / "grades-by-notebook.csv").write_text("student,notebook,status\ndoejane_4242,01,graded\n")
    (folder / "gradebook.db").write_bytes(b"an earlier gradebook")
    (folder / ".grading.lock").write_text("")
    return snapshot(folder)


def grade(course, submissions, workspace, *extra):
    return cli.main(["--course-dir", str(course.root), "grade", str(submissions), "--workspace", str(workspace),
                     "--no-canary", "--sandbox", "off", *extra])


def test_another_platforms_roster_stops_grading_and_changes_nothing(course, tmp_path, capsys):
    export, _ = exports.canvas(course, tmp_path)
    _, moodle_roster = exports.moodle(course, tmp_path)
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, export, tmp_path / "ws", "--roster", str(moodle_roster), "--notebook", "01") == 3
    said = capsys.readouterr().err
    assert "moodle-worksheet.csv is Moodle's, but the submissions are Canvas's" in said and "--any-roster" in said
    assert snapshot(tmp_path / "ws") == before


def test_a_roster_of_another_class_stops_grading(course, tmp_path, capsys):
    export, _ = exports.canvas(course, tmp_path)
    other = tmp_path / "other-class.csv"
    other.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                     '"Roe, Rita",1111,,,A\n"Poe, Ed",2222,,,A\n')
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, export, tmp_path / "ws", "--roster", str(other), "--notebook", "01") == 3
    said = capsys.readouterr().err
    assert "names only 0 of the 3 students who handed in" in said
    assert snapshot(tmp_path / "ws") == before


def test_another_weeks_export_stops_grading_and_says_what_it_holds(course, tmp_path, capsys):
    """Week 2's Canvas zip graded as notebook 01: every student would become 'missing 0'."""
    week2 = exports.write_zip(tmp_path / "week2.zip", {
        f"doejane_4242_1001_{NB02}": (course.release_dir / NB02).read_bytes(),
        f"smithbob_5151_1002_{NB02}": (course.release_dir / NB02).read_bytes(),
        f"nunezzoe_6161_1003_{NB01}": (course.release_dir / NB01).read_bytes()})
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, week2, tmp_path / "ws", "--notebook", "01") == 4
    said = capsys.readouterr().err
    assert f"2 of the 3 students who handed in notebooks handed in none of {NB01}" in said
    assert f"{NB02} (2)" in said and "--any-notebooks" in said
    assert snapshot(tmp_path / "ws") == before


def test_a_collected_folder_of_another_notebook_stops_too(course, tmp_path, capsys):
    for student in ("ann", "ben"):
        (tmp_path / "collected" / student).mkdir(parents=True)
        (tmp_path / "collected" / student / f"Copy of {NB02}").write_bytes((course.release_dir / NB02).read_bytes())
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, tmp_path / "collected", tmp_path / "ws", "--notebook", "01") == 4
    assert snapshot(tmp_path / "ws") == before and NB02 in capsys.readouterr().err


@pytest.mark.parametrize("data, looks", [(b"student,notebook\nann,01\n", "it is a text file"),
                                         (b"<!DOCTYPE html><html><body>Sign in</body></html>", "it is an HTML page"),
                                         (b"", "it is empty")])
def test_a_file_named_zip_that_is_no_zip_is_said_so(course, tmp_path, capsys, data, looks):
    """A browser's saved sign-in page, or a text file, under the export's name: what it is, and where the
    guide says what grade takes (a heading of docs/grading.md)."""
    (tmp_path / "submissions.zip").write_bytes(data)
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, tmp_path / "submissions.zip", tmp_path / "ws", "--notebook", "01") == 2
    said = capsys.readouterr().err
    assert f"submissions.zip is not a zip file: {looks}" in said and f"see {platforms.COLLECT_GUIDE}" in said
    page, anchor = platforms.COLLECT_GUIDE.split("#")
    headings = re.findall(r"^#+ (.+)$", (ROOT / page).read_text(), re.MULTILINE)
    assert anchor in [re.sub(r"\s+", "-", re.sub(r"[^\w\s-]", "", h).strip().lower()) for h in headings]
    assert snapshot(tmp_path / "ws") == before


def test_another_courses_export_stops_grading_and_names_what_it_holds(course, tmp_path, capsys):
    """Every student of another course's zip would be graded missing without a word."""
    other = {"cells": [{"cell_type": "code", "metadata": {}, "source": "print('lab')", "outputs": [],
                        "execution_count": None}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    data = json.dumps(other).encode()
    export = exports.write_zip(tmp_path / "other.zip", {"doejane_4242_1001_hw1.ipynb": data,
                                                        "smithbob_5151_1002_lab2.ipynb": data,
                                                        "smithbob_5151_1003_notes.pdf": b"%PDF-1.4"})
    before = earlier_grading(tmp_path / "ws")
    assert grade(course, export, tmp_path / "ws", "--notebook", "01") == 4
    said = capsys.readouterr().err
    assert "none of the 2 notebooks handed in is a notebook of this course" in said
    assert "hw1.ipynb, lab2.ipynb" in said and ", ".join(course.notebooks()) in said and "--any-notebooks" in said
    assert snapshot(tmp_path / "ws") == before


def test_notebooks_of_the_course_under_names_of_their_own_are_no_other_course(course, tmp_path):
    """Grading finds a notebook by its cells whatever its name: so does the stop."""
    names = course.notebooks()
    homework = tmp_path / "homework.ipynb"
    homework.write_bytes((course.release_dir / NB02).read_bytes())
    lab = tmp_path / "lab2.ipynb"
    lab.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    mistakes.check_course({"a": {"homework.ipynb": homework}, "b": {"lab2.ipynb": lab}}, names, course.release_dir)
    mistakes.check_course({"a": {"lab2.ipynb": lab}, "b": {"work.zip": lab}}, names, course.release_dir)  # unjudged
    mistakes.check_course({"a": {"notes.pdf": lab}}, names, course.release_dir)   # no notebook: missing says it
    with pytest.raises(mistakes.OtherCourse, match="lab2.ipynb"):
        mistakes.check_course({"b": {"lab2.ipynb": lab}}, names, course.release_dir)
    assert mistakes.OtherCourse.status == mistakes.WrongNotebooks.status


def test_what_is_not_a_mistake_goes_through():
    """The right roster, a few strangers, students missing a notebook, notebooks under names of their
    own, a student with both weeks: no stop."""
    mistakes.check_roster("canvas", "canvas", "r.csv", handed=10, on_roster=5)
    mistakes.check_roster("canvas", "ids", "r.csv", handed=4, on_roster=4)
    mistakes.check_roster("collected", "moodle", "r.csv", handed=2, on_roster=2)
    names = ["01_noise_for_words.ipynb", "02_undiffusing.ipynb", "03_x.ipynb"]
    mistakes.check_notebooks({"a": [NB01], "b": [], "c": ["homework.ipynb"], "d": [NB02, NB01]}, [NB01], names)
    mistakes.check_notebooks({"a": [NB01], "b": [NB02]}, [NB01], names)   # half is not most
    with pytest.raises(mistakes.WrongNotebooks):
        mistakes.check_notebooks({"a": [NB02], "b": [NB02], "c": [NB01]}, [NB01], names)
    with pytest.raises(mistakes.WrongRoster, match="names only 4 of the 9"):
        mistakes.check_roster("canvas", "canvas", "r.csv", handed=9, on_roster=4)


def test_the_overrides_take_the_input_as_it_is(course, tmp_path):
    """--any-roster and --any-notebooks: take_in goes on (grading itself is tested elsewhere)."""
    from maskdiff_solutions.course.intake import platforms
    export, _ = exports.canvas(course, tmp_path)
    _, moodle_roster = exports.moodle(course, tmp_path)
    folder, intake = platforms.take_in(course, export, tmp_path / "ws", moodle_roster, [NB01], any_roster=True)
    assert intake.platform == "canvas" and folder.is_dir()
    week2 = exports.write_zip(tmp_path / "week2.zip", {f"doejane_4242_1001_{NB02}": b"{}"})
    folder, intake = platforms.take_in(course, week2, tmp_path / "ws2", None, [NB01], any_notebooks=True)
    assert intake.platform == "canvas"


def test_the_guides_state_the_statuses_the_command_gives():
    from maskdiff_solutions.course.cli import GRADE_EXIT
    from tests.support.docs import DOCS
    assert "roster" in GRADE_EXIT[mistakes.WrongRoster.status] and "notebooks" in GRADE_EXIT[mistakes.WrongNotebooks.status]
    for platform in ("canvas", "moodle", "gradescope"):
        text = " ".join((DOCS / "platforms" / f"{platform}.md").read_text().split())
        assert (f"exit {mistakes.WrongRoster.status} when the roster is another platform's" in text
                and f"exit {mistakes.WrongNotebooks.status} when most students handed in" in text), platform
