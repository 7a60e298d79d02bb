"""What a grading run shows (course/records/rows.py: rows and table; course/run/batch.py: the progress bar): the table fits long ids and
its manual column cannot be misread; the bar moves once per notebook graded."""
import re

import pytest

from maskdiff_solutions.course.run.batch import Progress
from maskdiff_solutions.course.records.rows import Row, table

pytestmark = pytest.mark.course


def test_the_table_fits_long_ids_and_its_manual_column_cannot_be_misread():
    rows = [Row("a-very-long-student-id-from-a-learning-system", "01_noise_for_words", "graded", 9, 9,
                manual_max=9, manual_pending=9),
            Row("b", "01_noise_for_words", "graded", 0, 9, manual_score=0, manual_max=9),
            Row("c", "01_noise_for_words", "graded", 9, 9, manual_score=4, manual_max=9, manual_pending=3),
            Row("d", "02_undiffusing", "missing", reason="02_undiffusing.ipynb was not in the submission")]
    lines = table(rows).splitlines()
    starts = {line.index(word) for line, word in zip(lines, ["status", "graded", "graded", "graded", "missing"])}
    assert len(starts) == 1  # the status column starts at the same place on every line
    assert "9 to grade" in lines[1] and " 0/9" in lines[2] and "4/6 +3 to grade" in lines[3]
    assert not re.search(r"\b9\*", table(rows))
    assert "still to be graded by a person" in table(rows)


def test_the_progress_bar_moves_once_per_notebook(tmp_path):
    scratch = {s: (tmp_path / s, 5) for s in ("a", "b")}
    bar = Progress(scratch, "maskdiff", enabled=False)
    assert bar.count() == 0
    for done, name in enumerate(["01.ipynb", "02.ipynb"], start=1):
        graded = tmp_path / "a" / "notebooks" / name[:2] / "work" / "autograded" / "a" / "maskdiff"
        graded.mkdir(parents=True)  # each notebook is graded in a folder of its own (course/run/by_notebook.py)
        (graded / name).write_text("{}")
        bar.refresh()
        assert bar.count() == bar.shown == done
    bar.finished("b")  # b's notebooks were missing: they count when b is done
    assert bar.shown == 7
    bar.close()


def test_the_canary_is_on_the_bar_with_its_own_notebooks(tmp_path):
    counts = {"_canary": (tmp_path / "_canary", 2), "a": (tmp_path / "a", 5)}
    bar = Progress(counts, "maskdiff", enabled=True, first="_canary")
    assert bar.bar.total == 7 and bar.bar.desc.startswith("canary, then grading")
    bar.finished("_canary")
    assert bar.shown == 2 and "canary passed" in bar.bar.desc
    bar.close()


def test_the_summarys_pass_rates_say_what_they_count(tmp_path):
    """Missing and failed notebooks are not in the pass rates: the summary says so, with how many."""
    from maskdiff_solutions.course.records import summary
    from maskdiff_solutions.course.records.rows import Report
    rows = [Row("ann", "01_noise_for_words", "graded", 3.0, 3.0), Row("bob", "01_noise_for_words", "missing", 0.0, 3.0),
            Row("cy", "01_noise_for_words", "failed", 0.0, 3.0), Row("di", "01_noise_for_words", "missing", 0.0, 3.0)]
    report = Report(rows, tmp_path / "grades.csv", tmp_path)
    report.tests = {("ann", "01_noise_for_words"): {"test_MakeSchedule": (2.0, 2.0)}}
    text = summary.text(report)
    assert ("per-test pass rates, over the notebooks that were autograded (1 notebook failed, 2 notebooks missing "
            "left out: their rows say why, and they count 0 in the totals):") in text
    assert "totals (out of 3), 4 students:" in text
