"""What a grading keeps of the one before it (course/run/earlier.py), row by row, without grading:
tests/course/run/test_regrade.py grades through the command line."""
import sqlite3

import pytest

from maskdiff_solutions.course.ledger.record import RecordError, check
from maskdiff_solutions.course.records.rows import CSV_NAME, Row
from maskdiff_solutions.course.run.earlier import KEPT_REASON, Earlier

pytestmark = pytest.mark.course

NB01, NB02 = "01_noise_for_words", "02_undiffusing"
BEFORE = [Row("ann", NB01, "graded", 16, 16), Row("ann", NB02, "graded", 9, 20), Row("ben", NB01, "flagged", 12, 16),
          Row("cy", NB01, "missing", 0, 16), Row("di", NB01, "failed", 0, 16, reason="not valid JSON")]


def test_only_what_was_graded_again_and_found_is_replaced():
    before = Earlier(BEFORE, [f"{NB01}.ipynb"])
    new = [Row("ann", NB01, "graded", 3, 16), Row("cy", NB01, "missing", 0, 16),
           Row("di", NB01, "missing", 0, 16), Row("ed", NB01, "graded", 16, 16)]
    assert before.keeps("di", new[2:3]) == {NB01} and before.keeps("ann", new[:1]) == set()
    assert before.keeps("cy", new[1:2]) == set()   # missing then and now: nothing to keep
    kept = before.kept_row("di", NB01)
    assert kept.status == "failed" and KEPT_REASON in kept.reason and "not valid JSON" in kept.reason
    absent = before.absent({"ann", "cy", "di", "ed"})   # ben is not in the batch; 02 was not asked about
    assert [(student, rows, [(k.notebook, k.status) for k in kept]) for student, rows, kept in absent] == \
        [("ben", [], [(NB01, "flagged")])]
    assert [str(k) for k in before.kept] == ["di 01 (failed 0/16)", "ben 01 (flagged 12/16)"]
    assert len(before.lines()) == 1 and "2 earlier results" in before.lines()[0]


def test_replace_grades_the_batch_students_missing_notebooks_and_keeps_everyone_elses():
    """--replace is about the students of the batch: di handed in nothing of 01 this time (replaced, and
    counted), ben is not in the batch at all (kept: a late zip of one student replaces nobody else)."""
    before = Earlier(BEFORE, [f"{NB01}.ipynb"], replace=True)
    assert before.keeps("di", [Row("di", NB01, "missing")]) == set()
    before.note_replaced("di", Row("di", NB01, "missing"))
    ((student, rows, kept),) = before.absent({"ann", "cy", "di"})
    assert (student, rows, [(k.notebook, k.status) for k in kept]) == ("ben", [], [(NB01, "flagged")])
    lines = before.lines()
    assert "1 earlier result with no file in this batch kept: ben 01" in lines[0]
    assert "1 earlier result with no file in this batch replaced by missing (--replace): di 01" in lines[1]


def test_kept_twice_the_reason_says_it_once():
    first = Earlier([Row("ben", NB01, "graded", 16, 16)], [f"{NB01}.ipynb"])
    once = first.kept_row("ben", NB01)
    second = Earlier([once], [f"{NB01}.ipynb"])
    assert second.kept_row("ben", NB01).reason.count(KEPT_REASON) == 1


def test_a_grades_file_from_before_the_record_that_cannot_be_read_stops_naming_it(course, tmp_path):
    sqlite3.connect(tmp_path / "gradebook.db").close()   # a gradebook with no record beside it
    (tmp_path / CSV_NAME).write_text("student,notebook,status\nann,01,graded\n")
    with pytest.raises(RecordError, match=f"move {CSV_NAME} out of"):
        check(course, tmp_path)


def test_a_second_batch_keeps_the_first_ones_students_in_intake_json(tmp_path):
    """Week 2's zip lacks a student of week 1: intake.json still names them (their platform id, for
    `export --to`), with week 2's word for everyone it holds; another platform's batch replaces it."""
    from maskdiff_solutions.course.intake.platforms import Intake, Student
    from maskdiff_solutions.course.run.committer import remember_intake
    week1 = Intake("canvas", "week1.zip", students={"ann_1": Student("ann_1", "1", "Ann", late=True),
                                                    "bo_2": Student("bo_2", "2", "Bo")})
    week2 = Intake("canvas", "week2.zip", students={"bo_2": Student("bo_2", "2", "Bo B.")})
    week2.save(tmp_path)
    remember_intake(tmp_path, week1, week2)
    kept = Intake.load(tmp_path)
    assert sorted(kept.students) == ["ann_1", "bo_2"] and kept.students["bo_2"].name == "Bo B."
    assert kept.source == "week2.zip"
    moodle = Intake("moodle", "m.zip", students={"cy_3": Student("cy_3", "3", "Cy")})
    moodle.save(tmp_path)
    remember_intake(tmp_path, kept, moodle)
    assert sorted(Intake.load(tmp_path).students) == ["cy_3"]
