"""What a grading keeps of the one before it (course/run/earlier.py), row by row, without grading:
tests/course/run/test_regrade.py grades through the command line."""
import pytest

from maskdiff_solutions.course.records.rows import CSV_NAME, Row, write_csv
from maskdiff_solutions.course.run.earlier import KEPT_REASON, Earlier

pytestmark = pytest.mark.course

NB01, NB02 = "01_noise_for_words", "02_undiffusing"


def earlier(tmp_path, rows, selected=(f"{NB01}.ipynb",)):
    write_csv(rows, tmp_path / CSV_NAME)
    return Earlier(tmp_path, "maskdiff", list(selected))


def test_only_what_was_graded_again_and_found_is_replaced(tmp_path):
    before = earlier(tmp_path, [Row("ann", NB01, "graded", 16, 16), Row("ann", NB02, "graded", 9, 20),
                                Row("ben", NB01, "flagged", 12, 16), Row("cy", NB01, "missing", 0, 16),
                                Row("di", NB01, "failed", 0, 16, reason="not valid JSON")])
    new = [Row("ann", NB01, "graded", 3, 16), Row("cy", NB01, "missing", 0, 16),
           Row("di", NB01, "missing", 0, 16), Row("ed", NB01, "graded", 16, 16)]
    assert before.keeps("di", new[2:3]) == {NB01} and before.keeps("ann", new[:1]) == set()
    after = {(row.student, row.notebook): row for row in before.rows_after(new, tmp_path / "gradebook.db")}
    assert after["ann", NB01].auto_score == 3 and after["ann", NB02].auto_score == 9   # 02 was not asked about
    assert after["ben", NB01].status == "flagged" and KEPT_REASON in after["ben", NB01].reason   # absent
    assert after["di", NB01].status == "failed" and KEPT_REASON in after["di", NB01].reason    # handed in, now not
    assert after["cy", NB01].status == "missing" and after["ed", NB01].auto_score == 16
    assert [str(k) for k in before.kept] == ["ben 01 (flagged 12/16)", "di 01 (failed 0/16)"]
    assert len(before.lines()) == 1 and "2 earlier results" in before.lines()[0]


def test_kept_twice_the_reason_says_it_once(tmp_path):
    first = earlier(tmp_path, [Row("ben", NB01, "graded", 16, 16)])
    write_csv(first.rows_after([], tmp_path / "gradebook.db"), tmp_path / CSV_NAME)
    second = Earlier(tmp_path, "maskdiff", [f"{NB01}.ipynb"])
    (row,) = second.rows_after([], tmp_path / "gradebook.db")
    assert row.reason.count(KEPT_REASON) == 1


def test_a_grades_file_grading_cannot_read_stops_it_naming_the_file(tmp_path):
    (tmp_path / CSV_NAME).write_text("student,notebook,status\nann,01,graded\n")
    with pytest.raises(ValueError, match=f"move {CSV_NAME} out of"):
        Earlier(tmp_path, "maskdiff", [f"{NB01}.ipynb"])
