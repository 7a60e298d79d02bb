"""The instructor pipeline end to end: grading a batch through nbgrader, feedback, export, demo, CLI."""
import csv
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from maskdiff_solutions.course import cli, demo, notebooks
from tests.mutants import forward as catalog

pytestmark = [pytest.mark.course, pytest.mark.slow]
NB = "01_noise_for_words"
# Autograded and manually graded points of each notebook: the totals below follow from these.
POINTS = {"01_noise_for_words": (9, 9), "04_training": (10, 13)}
AUTO_TOTAL = sum(auto for auto, _ in POINTS.values())


def test_reference_gets_full_autograded_marks(graded_batch):
    workspace, rows = graded_batch
    row = rows[("reference", NB)]
    assert row.status == "graded" and row.auto_max == 9 and row.auto_score == 9, row
    assert row.manual_max == 9 and row.manual_pending  # plots and the derivation await a person
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook(NB, "maskdiff", "reference")
        assert {g.name: g.auto_score for g in submitted.grades if g.name.startswith("test_")} == {
            "test_MakeSchedule": 2, "test_ForwardMask_history": 2, "test_ForwardMask_rates": 2,
            "test_ForwardMaskFast_basics": 1, "test_ForwardMaskFast_law": 2}


def test_training_notebook_reference_gets_full_marks(graded_batch):
    workspace, rows = graded_batch
    row = rows[("reference", "04_training")]
    assert row.status == "graded" and (row.auto_score, row.auto_max) == (10, 10), row
    assert row.manual_max == 13 and row.manual_pending
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook("04_training", "maskdiff", "reference")
        assert {g.name: g.auto_score for g in submitted.grades if g.name.startswith("test_")} == {
            "test_DiffusionLoss_backprop": 1, "test_DiffusionLoss_exact": 2, "test_DiffusionLoss_law": 2,
            "test_DiffusionLoss_expectation": 2, "test_DiffusionLoss_training": 2,
            "test_DiffusionLossPrompt": 1}


def test_every_notebook_has_the_expected_points(graded_batch):
    rows = graded_batch[1]
    assert {nb for (student, nb) in rows if student == "reference"} == set(POINTS)
    for nb, (auto, manual) in POINTS.items():
        row = rows[("reference", nb)]
        assert (row.auto_max, row.manual_max) == (auto, manual), row
        assert rows[("untouched", nb)].auto_score == 0


def test_untouched_release_gets_nothing(graded_batch):
    row = graded_batch[1][("untouched", NB)]
    assert row.status == "graded" and row.auto_score == 0 and row.auto_max == 9


def test_buggy_submission_loses_exactly_its_bugs_marks(graded_batch):
    row = graded_batch[1][("buggy", NB)]
    bug = next(m for m in catalog.MUTANTS if (m.function, m.name) == demo.DEMO_BUG)
    expected = {"test_" + name.replace(".", "_") for name in bug.fails}
    assert set(row.failed_tests.split()) == expected
    assert row.auto_score == 9 - 3 and row.status == "graded"


def test_fake_hidden_package_is_ignored_and_flagged(graded_batch):
    row = graded_batch[1][("shadow", NB)]
    assert row.status == "flagged" and "maskdiff_solutions" in row.reason
    assert row.auto_score == 0  # its no-op grading.run did not shadow the real checks


def test_broken_and_missing_submissions_keep_their_rows(graded_batch):
    rows = graded_batch[1]
    assert rows[("broken", NB)].status == "failed" and rows[("broken", NB)].reason
    assert rows[("nothing", NB)].status == "missing"
    assert rows[("reference", NB)].status == "graded"  # the batch went on after the failure


def test_grade_export_has_one_row_per_student_and_notebook(graded_batch):
    workspace, rows = graded_batch
    with open(workspace / "grades.csv") as handle:
        exported = list(csv.DictReader(handle))
    assert {(r["student"], r["notebook"]) for r in exported} == set(rows)
    assert len(exported) == 6 * len(POINTS)
    assert {r["status"] for r in exported} >= {"graded", "failed", "missing"}


def test_feedback_hides_hidden_tests_but_says_what_failed(graded_batch):
    workspace, _ = graded_batch
    html = (workspace / "feedback" / "buggy" / "maskdiff" / f"{NB}.html").read_text()
    for secret in ("grading.run", notebooks.BEGIN_HIDDEN, "maskdiff_solutions", "most recent call last"):
        assert secret not in html, secret
    assert "each token should be masked with probability" in html


def test_demo_scores_are_judged_right(graded_batch):
    rows = [row for (student, _), row in graded_batch[1].items()
            if student in ("reference", "untouched", "buggy")]
    ok, total = demo.expected_outcome(rows)
    assert ok and total["reference"] == (AUTO_TOTAL, AUTO_TOTAL) and total["untouched"] == (0, AUTO_TOTAL)


def test_demo_command_end_to_end(course):
    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root),
                           "demo"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every submission got the score it deserves" in done.stdout


def test_grade_names_a_missing_folder(course, tmp_path, capsys):
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "nope"),
                       "--workspace", str(tmp_path)])
    assert status == 2 and "no submissions folder at" in capsys.readouterr().err


def test_solved_release_runs_without_the_hidden_package(course, tmp_path):
    """What a student has on Colab: the release notebook, no maskdiff_solutions. The visible tests
    of a correct solution pass there."""
    import nbclient
    for name in course.notebooks():
        nb = demo.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))
        (tmp_path / "maskdiff_solutions.py").write_text("raise ImportError('students do not have this')")
        client = nbclient.NotebookClient(nb, timeout=120, resources={"metadata": {"path": str(tmp_path)}})
        client.execute(env={"CI": "1", "PYTHONPATH": ""})  # nbclient raises on the first error
