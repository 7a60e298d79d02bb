"""The `grade` command: a batch of awkward submissions (tests.support.cases) where every
case gets its status and score, nothing is lost and students' files are untouched; --jobs 2 and
--notebook-jobs 2 change nothing; --notebook, the summary, a crash of one student, and a course whose
written answers are optional."""
import re
import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records import summary
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.records.rows import Report, Row, table
from tests.support.cases import SMALL_BATCH
from tests.support.gradings import assert_same_grading
from tests.support.docs import one_line, page as docs_page

pytestmark = [pytest.mark.course, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[3]


def test_every_case_gets_its_status_and_score(graded_batch, awkward_batch):
    rows, expected = graded_batch[1], awkward_batch[1]
    wrong = {key: (expected[key], (row.status, row.auto_score)) for key, row in rows.items()
             if (row.status, row.auto_score) != (expected[key].status, expected[key].score)}
    assert not wrong, wrong
    assert set(rows) == set(expected)


def test_every_row_that_is_not_plainly_graded_says_why(graded_batch):
    for row in graded_batch[1].values():
        if row.status != "graded":
            assert row.reason, row
        if row.status == "repaired":
            assert row.repairs, row


@pytest.mark.parametrize("student, words", [
    ("broken", "not valid JSON"), ("empty", "the file is empty"), ("wrong_notebook", "some other notebook"),
    ("kernel_death", "the kernel died"), ("endless_loop", "time limit"), ("huge_output", "was cut"),
    ("imports_hidden", "integrity"), ("shadow", "named like a course package"),
    ("nothing", "was not in the submission"),
])
def test_reasons_name_the_problem(course, graded_batch, student, words):
    # each case damages the first notebook; a student's other notebooks are simply missing
    row = graded_batch[1][(student, course.notebooks()[0][:-len(".ipynb")])]
    assert words in row.reason, row


@pytest.mark.parametrize("student, words", [
    ("stripped", "restored the nbgrader metadata"), ("duplicated", "kept the edited copy"),
    ("deleted_test", "re-added the deleted cell"), ("colab", "nbformat 4.0"), ("colab", "Copy of"),
])
def test_repairs_are_reported_per_student(course, graded_batch, student, words):
    row = graded_batch[1][(student, course.notebooks()[0][:-len(".ipynb")])]
    assert words in row.repairs, row


def test_pandas_seaborn_and_values_shown_without_print_earn_every_point(course, graded_batch):
    """The colab_style student drew every drawing of notebook 01 with pandas or seaborn and showed its
    printout without print (the honest catalog's first such alternatives): full marks, nothing to review."""
    row = graded_batch[1][("colab_style", course.notebooks()[0][:-len(".ipynb")])]
    assert (row.status, row.auto_score, row.review) == ("graded", row.auto_max, ""), row


def test_a_module_colab_has_and_the_grader_lacks_sends_its_drawing_to_review_and_is_named(course, graded_batch,
                                                                                          tmp_path):
    from maskdiff_solutions import colab
    from tests.support.cases import absent_colab_module
    stem = course.notebooks()[0][:-len(".ipynb")]
    row, reference = graded_batch[1][("lacks_module", stem)], graded_batch[1][("reference", stem)]
    first = next(c for c in notebooks.read(course.release_dir / course.notebooks()[0]).cells
                 if notebooks.is_drawing(c))
    assert row.review == f"test_{notebooks.grade_id(first)}" and colab.sentence(absent_colab_module()) in row.reason
    # nothing else in the notebook changes: every other test scores as the reference's
    others = {t: got for t, got in graded_batch[2].tests[("lacks_module", stem)].items() if t != row.review}
    assert others == {t: got for t, got in graded_batch[2].tests[("reference", stem)].items() if t != row.review}
    points = next(notebooks.nbgrader(c)["points"] for c in notebooks.read(course.release_dir / course.notebooks()[0]).cells
                  if notebooks.grade_id(c) == row.review)
    assert (row.auto_score, row.auto_max) == (reference.auto_score - points, reference.auto_max)
    text = summary.text(graded_batch[2])
    assert text.count(f"the grader lacks {absent_colab_module()}, which Colab has") == 1


def test_handed_in_files_are_never_modified(graded_batch, awkward_batch):
    folder, _, fingerprint = awkward_batch
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == fingerprint


def test_integrity_marks_are_withheld_in_the_gradebook_too(graded_batch, course):
    workspace = graded_batch[0]
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        for name in course.notebooks():
            nb = notebooks.read(course.release_dir / name)
            stem = name.removesuffix(".ipynb")
            honest = gradebook.find_submission_notebook(stem, "maskdiff", "reference")
            cheat = gradebook.find_submission_notebook(stem, "maskdiff", "imports_hidden")
            assert honest.score > 0 and cheat.score == 0 and nb.cells


def test_huge_output_is_cut_in_the_graded_notebook(graded_batch, course):
    path = graded_batch[0] / "autograded" / "huge_output" / "maskdiff" / course.notebooks()[0]
    assert path.stat().st_size < 2_000_000  # the case damages the first notebook only


def test_feedback_never_shows_hidden_code_and_says_what_failed(graded_batch):
    workspace = graded_batch[0]
    pages = sorted((workspace / "feedback").rglob("*.html"))
    assert pages
    for page in pages:
        html = page.read_text()
        for secret in ("grading.run", notebooks.BEGIN_HIDDEN, "maskdiff_solutions/", "grading/core.py"):
            assert secret not in html, (page, secret)
        if "imports_hidden" not in page.parts:  # that student's own cell names the package
            assert "maskdiff_solutions" not in html, page
    # the damaged notebook is the first one (01); the others are missing, each with a page of its own
    first = lambda student: sorted((workspace / "feedback" / student).rglob("*.html"))[0].read_text()  # noqa: E731
    assert "the kernel died" in first("kernel_death") and "not run" in first("kernel_death")
    assert "replace its" in first("untouched")  # NotImplementedError in plain words
    assert "limit and was stopped" in first("endless_loop")  # the timeout in one plain sentence


def test_summary_counts_pass_rates_and_totals(graded_batch, tmp_path):
    _, rows, report = graded_batch
    text = summary.write(report, tmp_path)
    graded = {}  # per notebook: the rows whose tests ran
    for row in rows.values():
        graded[row.notebook] = graded.get(row.notebook, 0) + (row.status in ("graded", "repaired", "flagged"))
    rates = summary.pass_rates(report)
    # a test cell sent to review has no score yet: it counts once a person has graded it
    to_review = {(row.notebook, test): sum(test in r.review.split() for r in rows.values() if r.notebook == row.notebook)
                 for row in rows.values() for test in row.review.split()}
    assert rates and all(total == graded[notebook] - to_review.get((notebook, test), 0)
                         for (notebook, test), (_, total) in rates.items())
    for (notebook, test), (passed, total) in rates.items():
        assert re.search(rf"{re.escape(notebook + '/' + test)}\s+#*\s+{passed:>3}/{total}", text)
    scores, most = summary.totals(report)
    assert scores["reference"] == most and scores["untouched"] == 0
    assert (tmp_path / "grading-summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_jobs_give_the_same_results_as_one(graded_batch, small_serial):
    """The small batch's students graded serially (small_serial: --jobs 1, notebook 01) and with --jobs 2
    (the awkward batch's grading, which holds them among its students): identical rows, gradebook, CSV
    and feedback for those students' notebook 01, which every case damages."""
    one, serial = graded_batch[0], graded_batch[2]
    assert serial.rows and {row.student for row in serial.rows} > set(SMALL_BATCH)
    two, parallel = small_serial
    assert_same_grading(one, serial, two, parallel, SMALL_BATCH, ("01_noise_for_words",))


def test_notebooks_at_once_give_the_same_results_as_one_at_a_time(course, awkward_batch, graded_batch, tmp_path):
    """--notebook-jobs 2 on two notebooks, for a student who hands in both (the reference), and two who
    hand in the first alone (a buggy one, one whose kernel dies in it), against the awkward batch's
    grading, which autogrades each student's notebooks one at a time (graded_batch): identical rows,
    gradebook, CSV and feedback for those students and notebooks."""
    students, stems = ("reference", "buggy", "kernel_death"), ("01_noise_for_words", "05_sampler_internals")
    folder = tmp_path / "collected"
    for student in students:
        shutil.copytree(awkward_batch[0] / student, folder / student, symlinks=True)
    one, serial = graded_batch[0], graded_batch[2]
    two = tmp_path / "two"
    parallel = grade(course, folder, two, progress=False, notebooks=["01", "05"], notebook_jobs=2, canary=False)
    assert_same_grading(one, serial, two, parallel, students, stems)
    assert {row.notebook for row in parallel.rows if row.status == "graded"} == set(stems)


def test_notebook_jobs_default_to_the_cores_per_student():
    from maskdiff_solutions.course.run.by_notebook import default_jobs
    assert [default_jobs(1, 2), default_jobs(2, 2), default_jobs(3, 2), default_jobs(2, 16)] == [2, 1, 1, 8]


def test_grade_rejects_zero_jobs(course, tmp_path, capsys):
    (tmp_path / "collected").mkdir()
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path), "--jobs", "0"])
    assert status == 2 and "--jobs must be at least 1" in capsys.readouterr().err


def test_grade_rejects_zero_notebook_jobs(course, tmp_path, capsys):
    (tmp_path / "collected").mkdir()
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path), "--notebook-jobs", "0"])
    assert status == 2 and "--notebook-jobs must be at least 1" in capsys.readouterr().err


def test_a_crash_while_grading_one_student_fails_only_that_student(course, tmp_path, monkeypatch):
    from maskdiff_solutions.course.run import batch, student as one_student
    for student in ("a", "b"):
        (tmp_path / "collected" / student).mkdir(parents=True)
    real = one_student.grade_student

    def fragile(task):
        if task.student == "a":
            raise OSError("disk full")
        return real(task)
    monkeypatch.setattr(one_student, "grade_student", fragile)
    report = batch.grade(course, tmp_path / "collected", tmp_path / "ws", progress=False, canary=False)
    assert {(row.student, row.status) for row in report.rows} == {("a", "failed"), ("b", "missing")}
    assert all("grading crashed: OSError: disk full" in row.reason
               for row in report.rows if row.student == "a")



def test_the_summary_histogram_counts_whole_students(tmp_path):
    """A few students: the y axis of the totals' histogram has whole numbers only (issue 36 saw 1.25)."""
    import matplotlib.pyplot as plt
    rows = [Row(student, "01_noise_for_words", "graded", score, 16.0) for student, score in
            (("ann", 16.0), ("bob", 13.0), ("cy", 13.0), ("dee", 9.0), ("eve", 16.0))]
    fig = summary.figure(Report(rows, tmp_path / "grades.csv", tmp_path))
    fig.canvas.draw()
    ticks = fig.axes[1].get_yticks()
    plt.close(fig)
    assert len(ticks) >= 2 and all(float(tick).is_integer() for tick in ticks), ticks

def test_grade_command_prints_the_summary_and_writes_its_png(course, tmp_path, capsys):
    for student in ("a", "b"):
        (tmp_path / "collected" / student).mkdir(parents=True)
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path / "ws"), "--jobs", "2", "--no-canary"])
    out = capsys.readouterr().out
    missing = 2 * len(course.notebooks())  # two empty folders, every notebook missing
    assert status == 0 and f"statuses: missing {missing}" in out and "autograded totals" in out
    assert (tmp_path / "ws" / "grading-summary.png").is_file()
    assert (tmp_path / "ws" / "grading-summary.txt").read_text().strip() in out


def test_grading_one_notebook_reports_only_it(course, tmp_path):
    (tmp_path / "collected" / "a").mkdir(parents=True)
    report = grade(course, tmp_path / "collected", tmp_path / "ws", progress=False, notebooks=["02"], canary=False)
    assert [(row.student, row.notebook, row.status) for row in report.rows] == [("a", "02_undiffusing", "missing")]


def test_an_unknown_notebook_is_named(course, tmp_path, capsys):
    (tmp_path / "collected").mkdir()
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"),
                       "--workspace", str(tmp_path / "ws"), "--notebook", "99"])
    assert status == 2 and "no notebook '99' in this course" in capsys.readouterr().err


def optional_course(course, folder):
    """A course root with notebook 01 alone and `written_answers = "optional"`."""
    for part in ("source", "release"):
        (folder / part / course.assignment).mkdir(parents=True)
        shutil.copy(getattr(course, f"{part}_dir") / NB01, folder / part / course.assignment)
    shutil.copy(course.root / "nbgrader_config.py", folder)
    (folder / "pyproject.toml").write_text(f'[tool.maskdiff]\nassignment = "{course.assignment}"\n'
                                           f'written_answers = "optional"\n')
    return Course.load(folder)


NB01 = "01_noise_for_words.ipynb"


@pytest.mark.slow
def test_optional_written_answers_make_the_grade_fully_automatic(course, tmp_path, capsys):
    """One student, notebook 01, every answer written: nothing waits for a person, anywhere."""
    from nbgrader.api import Gradebook

    from maskdiff_solutions.course.records import summary
    from maskdiff_solutions.course.term import demo
    from maskdiff_solutions.course.ledger.export import export
    from maskdiff_solutions.course.run.batch import grade
    optional = optional_course(course, tmp_path / "course")
    assert optional.answers_optional and not course.answers_optional
    collected = tmp_path / "collected" / "reference"
    collected.mkdir(parents=True)
    manual = [c for c in notebooks.read(course.source_dir / NB01).cells if notebooks.is_manual(c)]
    assert manual  # the answers are there, and the student wrote every one
    notebooks.write(demo.solved(notebooks.read(course.source_dir / NB01),
                                notebooks.read(course.release_dir / NB01)), collected / NB01)
    workspace = tmp_path / "ws"
    report = grade(optional, tmp_path / "collected", workspace, progress=False, sandbox="off", canary=False)
    [row] = report.rows
    assert row.status == "graded" and row.auto_score == row.auto_max > 0, row
    assert (row.manual_score, row.manual_max, row.manual_pending) == (0, 0, 0), row
    text = table(report.rows, optional=True)
    assert "optional" in text.splitlines()[1] and "to grade" not in text
    assert "written answers are optional in this course" in text
    assert "written answers: optional" in summary.text(report)
    html = (workspace / "feedback" / "reference" / course.assignment / NB01.replace(".ipynb", ".html")).read_text()
    best = f"{row.auto_max:g}"
    assert (f"Score: {best} / {best}, all of it autograded; written answers are optional in this course "
            f"and not graded") in html
    assert html.count("optional, not graded") >= len(manual) and "to be graded by a person" not in html
    assert " ".join("all of it autograded; written answers are optional in this course and not graded".split()) \
        in one_line(docs_page("grading.md"))
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="maskdiff") as gradebook:
        submitted = gradebook.find_submission_notebook(NB01[:-len(".ipynb")], course.assignment, "reference")
        assert not any(grade.needs_manual_grade for grade in submitted.grades)  # formgrader: nothing to do
        assert (submitted.score, submitted.max_score) == (row.auto_max, row.auto_max)  # `nbgrader export` too
    rows, _, failed = export(optional, workspace)
    assert not failed and [(r.auto_score, r.manual_max, r.manual_pending) for r in rows] == [(row.auto_max, 0, 0)]


def test_grade_names_a_missing_folder(course, tmp_path, capsys):
    status = cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "nope"),
                       "--workspace", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2 and f"{tmp_path / 'nope'} does not exist" in err and "Traceback" not in err
