"""The term's record (course/ledger/record.py) and one student's commit into it (course/ledger/commit.py),
without kernels: a scratch workspace made as grading leaves one (nbgrader's gradebook API for the scores,
the release notebook as the file handed in). A kill at each commit point, then `recover`, leaves the
student exactly as before or exactly as after; a hand grade stays while its answer is unchanged."""
import shutil
import sqlite3

import pytest

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.ledger import commit, record
from maskdiff_solutions.course.records.gradebook import open_gradebook, strip_submissions
from maskdiff_solutions.course.records.nbgrader_apps import generate
from maskdiff_solutions.course.records.rows import Row

pytestmark = pytest.mark.course

NB01, NB02 = "01_noise_for_words", "02_undiffusing"
ANSWER = "telescoping_product"   # notebook 01's written answer, graded by a person


@pytest.fixture(scope="module")
def template(course, tmp_path_factory):
    """The course's gradebook with no submission: what every student's grading starts from."""
    folder = tmp_path_factory.mktemp("template")
    generate(course, folder / "release", folder / "ws")
    strip_submissions(folder / "ws" / "gradebook.db")
    return folder / "ws" / "gradebook.db"


def scratch_for(course, template, scratch, student, notebook, answer="my answer", auto=1.0, code=""):
    """A scratch workspace as a student's grading leaves it: their graded notebook in the gradebook
    copy (every test cell `auto` of its points, the answer to grade by a person), the file handed in,
    the autograded copy and a feedback page."""
    (scratch / "db").mkdir(parents=True)
    shutil.copy(template, scratch / "db" / "gradebook.db")
    with open_gradebook(scratch / "db" / "gradebook.db") as gradebook:
        gradebook.update_or_create_student(student)
        gradebook.add_submission(course.assignment, student)
        submitted = gradebook.find_submission_notebook(notebook, course.assignment, student)
        answers = {cell.name for cell in gradebook.find_notebook(notebook, course.assignment).solution_cells}
        for grade in submitted.grades:
            grade.auto_score = None if grade.name in answers else auto * grade.max_score
            grade.needs_manual_grade = grade.name in answers
        gradebook.db.commit()
    nb = notebooks.read(course.release_dir / f"{notebook}.ipynb")
    for cell in nb.cells:
        if notebooks.grade_id(cell) == ANSWER:
            cell.source = answer
        elif notebooks.is_function(cell) and code:
            cell.source += code   # the code its tests read
    for kind in ("handed-in", "work/autograded"):
        path = scratch / kind / student / course.assignment / f"{notebook}.ipynb"
        path.parent.mkdir(parents=True)
        notebooks.write(nb, path)
    page = scratch / "work" / "feedback" / student / course.assignment / f"{notebook}.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<p>{answer}</p>")
    return scratch


def stems(course):
    return {name.split(".")[0] for name in course.notebooks()}


def workspace_with(course, template, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True)
    shutil.copy(template, workspace / "gradebook.db")
    return workspace


def graded(course, template, workspace, tmp_path, student, notebook, answer="my answer", name="s1", auto=1.0,
           code=""):
    scratch = scratch_for(course, template, tmp_path / name, student, notebook, answer, auto, code)
    row = Row(student, notebook, "graded")
    return commit.commit(workspace, scratch, course.assignment, stems(course), student, [row],
                         {notebook: {"submission": "h", "inputs": "i"}})


def hand_grade(workspace, course, student, notebook, points, comment):
    """What formgrader does when a person grades the written answer."""
    with open_gradebook(workspace / "gradebook.db") as gradebook:
        grade = gradebook.find_grade(ANSWER, notebook, course.assignment, student)
        grade.manual_score, grade.needs_manual_grade = points, False
        gradebook.find_comment(ANSWER, notebook, course.assignment, student).manual_comment = comment
        gradebook.db.commit()


def answer_grade(workspace, course, student, notebook=NB01):
    with open_gradebook(workspace / "gradebook.db") as gradebook:
        grade = gradebook.find_grade(ANSWER, notebook, course.assignment, student)
        comment = gradebook.find_comment(ANSWER, notebook, course.assignment, student)
        return grade.manual_score, bool(grade.needs_manual_grade), comment.manual_comment


def state(workspace):
    """Everything a commit writes: our rows, nbgrader's grades, the files."""
    with sqlite3.connect(workspace / "gradebook.db") as con:
        ours = sorted(con.execute("SELECT student, notebook, status, reason FROM maskdiff_result").fetchall())
        grades = sorted(con.execute(
            "SELECT sa.student_id, n.name, b.name, g.auto_score, g.manual_score, g.needs_manual_grade FROM grade g "
            "JOIN base_cell b ON g.cell_id = b.id JOIN submitted_notebook s ON g.notebook_id = s.id JOIN notebook n "
            "ON s.notebook_id = n.id JOIN submitted_assignment sa ON s.assignment_id = sa.id").fetchall())
    files = {str(p.relative_to(workspace)): p.read_bytes() for p in sorted(workspace.rglob("*"))
             if p.is_file() and p.name != "gradebook.db" and commit.STAGING not in p.parts}
    return ours, grades, files


def test_a_commit_writes_the_notebook_graded_and_leaves_the_other_weeks_alone(course, template, tmp_path):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, name="week1")
    hand_grade(workspace, course, "ann", NB01, 2, "well argued")
    week1 = {k: v for k, v in state(workspace)[2].items() if NB01 in k}
    graded(course, template, workspace, tmp_path, "ann", NB02, name="week2", auto=0.5)
    ours, grades, files = state(workspace)
    assert [(s, n, status) for s, n, status, _ in ours] == [("ann", NB01, "graded"), ("ann", NB02, "graded")]
    assert {k: v for k, v in files.items() if NB01 in k} == week1          # week 1's files, byte for byte
    assert answer_grade(workspace, course, "ann") == (2, False, "well argued")   # and its hand grade
    assert {NB01, NB02} <= {n for _, n, *_ in grades}   # and nbgrader's placeholders (0) of the others
    assert not (workspace / commit.STAGING).exists()


def test_a_hand_grade_stays_while_its_answer_is_unchanged_and_only_then(course, template, tmp_path):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="same", name="a")
    hand_grade(workspace, course, "ann", NB01, 1.5, "close")
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="same", name="b", auto=0.0)
    assert answer_grade(workspace, course, "ann") == (1.5, False, "close")
    (row,) = [r for r in record.results(workspace / "gradebook.db").values()]
    assert "graded by hand" not in row["reason"]
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="changed", name="c")
    assert answer_grade(workspace, course, "ann") == (None, True, None)   # to grade again, by name
    (row,) = record.derived_rows(course, workspace)
    assert "set aside, to grade again: telescoping_product (grade 1.5, comment 'close'; by " in row.reason
    assert "the answer it judged has changed since" in row.reason


@pytest.mark.parametrize("point", ["staged", "committed", "half-moved"])
def test_a_kill_at_any_commit_point_leaves_before_or_after_and_recover_finishes(course, template, tmp_path,
                                                                                 monkeypatch, point):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="first", name="a")
    before = state(workspace)
    done = workspace_with(course, template, tmp_path / "done")
    graded(course, template, done, tmp_path, "ann", NB01, answer="first", name="d1")
    graded(course, template, done, tmp_path, "ann", NB01, answer="second", name="d2", auto=0.0)
    after = state(done)

    class Killed(BaseException):
        pass

    real_apply = commit.apply

    def killed(*args):
        if point == "half-moved":   # the first file moved, then the kill
            workspace_, moves = args
            real_apply(workspace_, moves[:1])
        raise Killed

    if point == "staged":
        monkeypatch.setattr(commit, "put_result", lambda *a, **k: (_ for _ in ()).throw(Killed()))
    else:
        monkeypatch.setattr(commit, "apply", killed)
    with pytest.raises(Killed):
        graded(course, template, workspace, tmp_path, "ann", NB01, answer="second", name="b", auto=0.0)
    monkeypatch.undo()
    commit.recover(workspace)
    assert state(workspace) == (before if point == "staged" else after)
    assert not (workspace / commit.STAGING).exists()


def test_a_lost_record_stops_every_command_with_the_way_back(course, template, tmp_path):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01)
    record.check(course, workspace)   # all is well
    (workspace / "gradebook.db").unlink()
    with pytest.raises(record.RecordError, match=r"gradebook.db, is missing .* undo --workspace"):
        record.check(course, workspace)


def test_a_record_at_odds_with_its_scores_stops_naming_them(course, template, tmp_path):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01)
    with sqlite3.connect(workspace / "gradebook.db") as con:
        con.execute("DELETE FROM submitted_notebook")
    with pytest.raises(record.RecordError, match=f"records ann {NB01} as graded but holds no submission"):
        record.check(course, workspace)


def test_derived_rows_give_everyone_every_notebook_graded_out_of_its_points(course, template, tmp_path):
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, name="a")
    graded(course, template, workspace, tmp_path, "bo", NB02, name="b")
    rows = {(r.student, r.notebook): r for r in record.derived_rows(course, workspace)}
    assert sorted(rows) == [("ann", NB01), ("ann", NB02), ("bo", NB01), ("bo", NB02)]
    assert rows["ann", NB02].status == "missing" and rows["ann", NB02].reason == record.NEVER_GRADED
    assert rows["ann", NB02].auto_max == rows["bo", NB02].auto_max > 0
    assert rows["ann", NB01].auto_score == rows["ann", NB01].auto_max and rows["ann", NB01].manual_pending > 0


def test_the_scores_of_one_query_are_nbgraders(course, template, tmp_path):
    """records/gradebook.all_scores (one SQL query, what every derived file is made from) gives what
    nbgrader's ORM gives notebook by notebook: hand grades, extra credit, drawings to review, to grade."""
    from maskdiff_solutions.course.records.gradebook import all_scores, scores
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, name="a")
    graded(course, template, workspace, tmp_path, "bo", NB01, name="b", auto=0.5)
    graded(course, template, workspace, tmp_path, "bo", NB02, name="c", auto=0.0)
    hand_grade(workspace, course, "ann", NB01, 1.5, "fine")
    with open_gradebook(workspace / "gradebook.db") as gradebook:
        tests = [g for g in gradebook.find_submission_notebook(NB01, course.assignment, "bo").grades
                 if g.name != ANSWER]
        tests[0].auto_score, tests[0].needs_manual_grade = None, True      # a drawing to review
        tests[1].manual_score, tests[1].extra_credit = 0.5, 1.0            # a person's override, extra credit
        gradebook.db.commit()
        want = {(s, n): scores(gradebook, course.assignment, n, s) for s in ("ann", "bo") for n in (NB01, NB02)}
    got = all_scores(workspace / "gradebook.db", course.assignment)
    assert {key: got[key] for key in want} == want   # (and nbgrader's zero placeholders of the others)
    assert want["bo", NB01]["review"] and want["ann", NB01]["manual_score"] == 1.5


def test_a_persons_override_of_a_test_stays_while_the_code_it_reads_is_unchanged(course, template, tmp_path):
    """A drawing reviewed by a person (a manual score on an autograded test) survives a regrade of the same
    notebook and one in which only a written answer changed (not the code its test reads), and goes back to
    the checker's verdict once the code changed, named in the row as set aside."""
    workspace = workspace_with(course, template, tmp_path)
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="same", name="a")
    with open_gradebook(workspace / "gradebook.db") as gradebook:
        test = next(g for g in gradebook.find_submission_notebook(NB01, course.assignment, "ann").grades if g.name != ANSWER)
        name = test.name
        test.manual_score = 0.25
        gradebook.db.commit()

    def override():
        with open_gradebook(workspace / "gradebook.db") as gradebook:
            return gradebook.find_grade(name, NB01, course.assignment, "ann").manual_score
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="same", name="b")
    assert override() == 0.25
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="changed", name="c")
    assert override() == 0.25, "a written answer is not the code a test reads"
    graded(course, template, workspace, tmp_path, "ann", NB01, answer="changed", name="d", code="\n# tidied")
    assert override() is None
    (row,) = record.derived_rows(course, workspace)
    assert f"{name} (grade 0.25; by " in row.reason and "the code its test reads has changed" in row.reason
