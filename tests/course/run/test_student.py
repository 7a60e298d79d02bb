"""One student's grading through nbgrader, as the awkward batch (tests/conftest.py) shows it: the reference
gets full marks in every notebook, the untouched release nothing, a bug exactly its checks' marks, a fake
hidden package a flag, broken and missing files their rows; the CSV has a row per student and notebook,
the feedback hides the hidden tests, and cells moved around a drawing cost nothing."""
import csv

import pytest
from nbgrader.api import Gradebook

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term import demo
from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.mutants import forward as catalog
from tests.support.points import points_of

pytestmark = [pytest.mark.course, pytest.mark.slow]
NB = "01_noise_for_words"
NB03 = "03_real_language_model"


def test_notebook_03_reference_gets_its_chat_marks(graded_batch):
    row = graded_batch[1][("reference", NB03)]
    assert row.status == "graded" and row.auto_score == row.auto_max == 8, row   # Chat 6, AtTemperature 2
    assert row.manual_max == 14 and row.manual_pending  # five written answers
    untouched = graded_batch[1][("untouched", NB03)]
    assert untouched.status == "graded" and untouched.auto_score == 0


def test_reference_gets_full_autograded_marks(graded_batch):
    workspace, rows, _ = graded_batch
    row = rows[("reference", NB)]
    assert row.status == "graded" and row.auto_max == 16 and row.auto_score == 16, row
    assert row.manual_max == 2 and row.manual_pending  # the derivation awaits a person
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook(NB, "maskdiff", "reference")
        assert {g.name: g.auto_score for g in submitted.grades if g.name.startswith("test_")} == {
            "test_MakeSchedule": 2, "test_ForwardMask_history": 2, "test_ForwardMask_rates": 2,
            "test_ForwardMaskFast_basics": 1, "test_ForwardMaskFast_law": 2, "test_plot_schedule": 2,
            "test_show_dissolution": 1, "test_plot_masked_fraction": 2, "test_plot_masked_histograms": 2}


def test_every_notebook_of_the_reference_gets_full_marks(course, graded_batch):
    for name in course.notebooks():
        row = graded_batch[1][("reference", name[:-len(".ipynb")])]
        assert row.status == "graded" and row.auto_score == row.auto_max == points_of(course, row.notebook), row


def test_untouched_release_gets_nothing(course, graded_batch):
    for name in course.notebooks():
        row = graded_batch[1][("untouched", name[:-len(".ipynb")])]
        assert row.status == "graded" and row.auto_score == 0 and row.auto_max > 0, row


def test_training_notebook_reference_gets_full_marks(graded_batch):
    workspace, rows, _ = graded_batch
    row = rows[("reference", "04_training")]
    assert row.status == "graded" and (row.auto_score, row.auto_max) == (19, 19), row
    assert row.manual_max == 6 and row.manual_pending  # three written answers and the four stories
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook("04_training", "maskdiff", "reference")
        assert {g.name: g.auto_score for g in submitted.grades if g.name.startswith("test_")} == {
            "test_DiffusionLoss_backprop": 1, "test_DiffusionLoss_exact": 2, "test_DiffusionLoss_law": 2,
            "test_DiffusionLoss_expectation": 2, "test_DiffusionLoss_training": 2,
            "test_DiffusionLossPrompt": 1, "test_plot_two_sentence_loss": 2, "test_show_bayes_comparison": 1,
            "test_plot_net_sentence_bars": 1, "test_show_untrained_story": 1, "test_plot_story_loss": 2,
            "test_show_prompt_stories": 2}


def test_buggy_submission_loses_exactly_its_bugs_marks(graded_batch):
    row = graded_batch[1][("buggy", NB)]
    bug = next(m for m in catalog.MUTANTS if (m.function, m.name) == (demo.BUG.function, demo.BUG.name))
    expected = {"test_" + name.replace(".", "_") for name in bug.fails}
    assert set(row.failed_tests.split()) == expected
    assert row.auto_score == 16 - 3 and row.status == "graded"


def test_fake_hidden_package_is_ignored_and_flagged(graded_batch):
    row = graded_batch[1][("shadow", NB)]
    assert row.status == "flagged" and "maskdiff_solutions" in row.reason
    assert row.auto_score == 0  # its no-op grading.run did not shadow the real checks


def test_broken_and_missing_submissions_keep_their_rows(graded_batch):
    rows = graded_batch[1]
    assert rows[("broken", NB)].status == "failed" and rows[("broken", NB)].reason
    assert rows[("nothing", NB)].status == "missing"
    assert rows[("reference", NB)].status == "graded"  # the batch went on after the failure


def test_grade_export_has_one_row_per_student_and_notebook(graded_batch, awkward_batch):
    workspace, rows, _ = graded_batch
    with open(workspace / CSV_NAME) as handle:
        exported = list(csv.DictReader(handle))
    assert {(r["student"], r["notebook"]) for r in exported} == set(rows) == set(awkward_batch[1])
    assert len(exported) == len(rows)
    assert {r["status"] for r in exported} == {"graded", "repaired", "flagged", "failed", "missing"}


def test_feedback_hides_hidden_tests_but_says_what_failed(graded_batch):
    workspace, _, _ = graded_batch
    html = (workspace / "feedback" / "buggy" / "maskdiff" / f"{NB}.html").read_text()
    for secret in ("run_check", notebooks.BEGIN_HIDDEN, "maskdiff_solutions", "maskdiff_client",
                   "most recent call last"):
        assert secret not in html, secret
    assert "each token should be masked with probability" in html


def test_cells_inserted_or_moved_around_a_drawing_cost_nothing(course, awkward_batch, graded_batch):
    """A scratch cell that prints and draws before every drawing's test cell, and a test cell moved down
    (the awkward batch's scratch_cells student): each check reads its drawing cell itself (the grader
    names cells by grade_id), so full marks."""
    from tests.support import cases
    nb = notebooks.read(awkward_batch[0] / "scratch_cells" / course.notebooks()[0])
    assert sum(cases.SCRATCH in c.source for c in nb.cells) == 4  # notebook 01's four drawings
    row = graded_batch[1][("scratch_cells", NB)]
    assert (row.status, row.auto_score, row.failed_tests) == ("graded", points_of(course, NB), ""), row