"""The canary proves once (course/run/canary.py): its proof is kept in the workspace under a key made of
everything that could change its verdict, a grading under the same key leaves the proved notebooks'
canary out and says so, and a changed part, a corrupt file or --prove-again proves again."""
import json
import re
import shutil
import types

import pytest

from maskdiff_solutions.course.run import canary, job, preprocessors, student
from maskdiff_solutions.course.layout import SEED_VARIABLE
from maskdiff_solutions.course.records.rows import Row, StudentResult

pytestmark = pytest.mark.course
NB01, NB04 = "01_noise_for_words.ipynb", "04_training.ipynb"


def parts(**changed):
    base = {"the course": "c", "the grading code": "g", "the grading seed": "s"}
    return {**base, **changed}


def test_a_proved_notebook_is_left_out_and_said(tmp_path):
    canary.Proof(tmp_path, parts()).record([NB01])
    todo, said = canary.Proof(tmp_path, parts()).plan([NB01, NB04])
    assert todo == [NB04]
    assert "reference of 01_noise_for_words got full marks" in said and "not graded again" in said
    assert "reference of 04_training is graded first (not yet proved" in said


def test_the_readmes_quote_is_what_the_canary_says(tmp_path):
    from tests.support.docs import one_line, page
    readme = one_line(page("grading.md"))
    quoted = re.search(r"says so above the grades table \(`(canary: [^`]+)`\)", readme).group(1)
    canary.Proof(tmp_path, parts()).record([NB01])
    assert quoted in canary.Proof(tmp_path, parts()).plan([NB01])[1]


def test_everything_proved_grades_no_canary(tmp_path):
    canary.Proof(tmp_path, parts()).record([NB01, NB04])
    todo, said = canary.Proof(tmp_path, parts()).plan([NB04, NB01])
    assert todo == [] and "graded first" not in said and "--prove-again" in said


def test_a_changed_part_proves_again_and_is_named(tmp_path):
    canary.Proof(tmp_path, parts()).record([NB01])
    proof = canary.Proof(tmp_path, parts(**{"the grading seed": "other"}))
    todo, said = proof.plan([NB01])
    assert todo == [NB01] and proof.changed == ["the grading seed"]
    assert "since its last proof, the grading seed changed" in said
    proof.record(todo)   # the new setup's proof replaces the old one's
    assert canary.Proof(tmp_path, parts()).proved == set()


@pytest.mark.parametrize("text", ["not json", "[]", '{"version": 1, "parts": {}, "proved": "all"}',
                                  '{"version": 99, "parts": {}, "proved": []}', '{"proved": null}'])
def test_a_corrupt_or_foreign_proof_proves_nothing(tmp_path, text):
    (tmp_path / canary.PROOF_NAME).write_text(text)
    todo, _ = canary.Proof(tmp_path, parts()).plan([NB01])
    assert todo == [NB01]


def test_prove_again_grades_every_notebook(tmp_path):
    canary.Proof(tmp_path, parts()).record([NB01])
    todo, said = canary.Proof(tmp_path, parts()).plan([NB01], again=True)
    assert todo == [NB01] and "as --prove-again asks" in said


def test_the_proof_is_written_whole(tmp_path):
    canary.Proof(tmp_path, parts()).record([NB01])
    data = json.loads((tmp_path / canary.PROOF_NAME).read_text())
    assert data == {"version": canary.PROOF_VERSION, "parts": parts(), "proved": [NB01]}
    assert not list(tmp_path.glob("*.tmp"))


def test_only_a_passing_canary_is_recorded():
    def result(student, score):
        return student, StudentResult(student, [Row(student, "01_noise_for_words", "graded", score, 3.0)])
    recorded = []
    list(canary.gate(iter([result("a", 3.0), result(canary.STUDENT, 3.0)]), lambda late: recorded.append(1)))
    assert recorded == [1]
    with pytest.raises(canary.CanaryFailed):
        list(canary.gate(iter([result(canary.STUDENT, 2.0)]), lambda late: recorded.append(2)))
    assert recorded == [1]


def stopped_notebook(ename, evalue, at):
    """A notebook of five cells, a solution and its test, then a cell stopped by `ename` at index `at`."""
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    def cell(gid, test=False):
        return new_code_cell("", metadata={"nbgrader": {"grade_id": gid, "grade": test, "solution": not test}})
    cells = [cell("f"), cell("test_f", True), cell("g"), cell("test_g", True), cell("test_h", True)]
    cells[at].outputs = [new_output("error", ename=ename, evalue=evalue, traceback=[])]
    return new_notebook(cells=cells)


@pytest.mark.parametrize("ename, evalue, busy", [
    (preprocessors.MACHINE_BUSY, "the grading machine was too busy", True),
    (preprocessors.NOT_RUN, "not run: the grading machine was too busy to finish this notebook", True),
    (preprocessors.TIMED_OUT, preprocessors.timeout_sentence(30), False),
    (preprocessors.NOT_RUN, "not run: the notebook used up the grader's 300 s", False),
    (preprocessors.IGNORED_INTERRUPT, "this cell ran past the time limit and ignored the interrupt", False),
])
def test_a_time_stop_names_the_tests_it_may_have_cost(ename, evalue, busy):
    assert student.time_stops(stopped_notebook(ename, evalue, 2)) == (["test_g", "test_h"], busy)
    assert student.time_stops(stopped_notebook(preprocessors.KERNEL_DIED, "died", 2)) == ([], False)


def canary_result(failed, timed, status="flagged"):
    row = Row(canary.STUDENT, "06_revising_and_faster", status, 25.0, 28.0, failed_tests=" ".join(failed),
              reason="plot_loop ran past the cell time limit and was interrupted")
    return StudentResult(canary.STUDENT, [row], timed={"06_revising_and_faster": timed} if timed else {})


def test_a_reference_that_only_ran_out_of_time_never_stops_a_batch():
    """Issue 63: 'slow here, now' is not 'wrong'. Points lost only at or after the first cell a time
    limit stopped pass the gate, unproved and said; one point lost before it stops grading."""
    late = []
    out = list(canary.gate(iter([("ann", "a result"), (canary.STUDENT, canary_result(
        ["test_plot_loop", "test_later"], ["test_plot_loop", "test_later", "test_never_lost"]))]), late.append))
    assert out == [("ann", "a result")]
    assert list(late[0]) == ["06_revising_and_faster"]
    said = canary.out_of_time_sentence(late[0])
    assert "ran out of time here (plot_loop ran past the cell time limit" in said and "grading went on" in said
    with pytest.raises(canary.CanaryFailed, match="got 25 / 28"):   # a test lost before the stop
        list(canary.gate(iter([(canary.STUDENT, canary_result(["test_earlier", "test_plot_loop"],
                                                              ["test_plot_loop"]))]), late.append))
    with pytest.raises(canary.CanaryFailed):   # no time stop at all
        list(canary.gate(iter([(canary.STUDENT, canary_result(["test_plot_loop"], []))]), late.append))


@pytest.fixture
def small_course(course, tmp_path):
    """A copy of the course's files that setup_parts reads (the session's course is shared)."""
    root = tmp_path / "course"
    for name in ("source", "release"):
        shutil.copytree(course.root / name, root / name)
    for name in ("nbgrader_config.py", "pyproject.toml"):
        shutil.copy(course.root / name, root / name)
    return types.SimpleNamespace(root=root, source_dir=root / "source", release_dir=root / "release")


def test_every_part_of_the_setup_is_in_the_key(small_course, monkeypatch):
    base = canary.setup_parts(small_course, "on", {"memory_mb": 4096})
    assert base == canary.setup_parts(small_course, "on", {"memory_mb": 4096})

    def differs(**change):
        now = canary.setup_parts(small_course, change.get("sandbox", "on"), change.get("limits", {"memory_mb": 4096}))
        return sorted(part for part in base if base[part] != now[part])

    assert differs(sandbox="off") == ["the sandbox and its limits"]
    assert differs(limits={"memory_mb": 2048}) == ["the sandbox and its limits"]
    with monkeypatch.context() as patched:
        patched.setenv(SEED_VARIABLE, "12345")
        assert differs() == ["the grading seed"]
    with monkeypatch.context() as patched:
        patched.setattr(job, "package_fingerprint", lambda: "other code")
        assert differs() == ["the grading code"]
    with monkeypatch.context() as patched:
        patched.setattr(canary, "_packages", lambda: "numpy==0.0")
        assert differs() == ["the installed packages"]
    with monkeypatch.context() as patched:
        patched.setattr(canary, "_bubblewrap", lambda: "/elsewhere/bwrap 0.1")
        assert differs() == ["the sandbox and its limits"]
    with monkeypatch.context() as patched:
        patched.setattr(canary.os, "getuid", lambda: 4242)
        assert differs() == ["the user grading"]
    page = small_course.release_dir / "maskdiff" / NB01
    page.write_text(page.read_text().replace("Noise for words", "Noise for words (edited)", 1))
    assert differs() == ["the course (source, release, nbgrader_config.py, pyproject.toml)"]


@pytest.mark.slow
def test_a_second_grading_leaves_the_proved_canary_out(course, small_batch, tmp_path):
    """Two gradings of one student's notebook 01 into one workspace: the first proves the canary, the
    second says it is not graded again and gives the same rows."""
    from maskdiff_solutions.course.run.batch import grade
    shutil.copytree(small_batch / "reference", tmp_path / "collected" / "reference")
    first = grade(course, tmp_path / "collected", tmp_path / "ws", progress=False, notebooks=["01"])
    assert "reference of 01_noise_for_words is graded first" in first.canary, first.canary
    assert json.loads((tmp_path / "ws" / canary.PROOF_NAME).read_text())["proved"] == [NB01]
    second = grade(course, tmp_path / "collected", tmp_path / "ws", progress=False, notebooks=["01"])
    assert "not graded again" in second.canary and "graded first" not in second.canary, second.canary
    assert second.rows == first.rows


def test_the_canary_proves_what_can_be_graded_and_nothing_when_nobody_handed_in_a_notebook(tmp_path):
    from maskdiff_solutions.course.run.canary import notebooks_to_prove
    selected = ["01_noise_for_words.ipynb", "02_undiffusing.ipynb"]
    ann, ben = tmp_path / "ann", tmp_path / "ben"
    ann.mkdir(), ben.mkdir()
    (ann / "homework.pdf").write_bytes(b"%PDF")
    assert notebooks_to_prove(selected, [ann, ben]) == []                      # nothing to grade
    (ben / "my homework.ipynb").write_text("{}")
    assert notebooks_to_prove(selected, [ann, ben]) == selected                # recognised by content, maybe
    (ann / "02_undiffusing.ipynb").write_text("{}")
    assert notebooks_to_prove(selected, [ann, ben]) == ["02_undiffusing.ipynb"]
