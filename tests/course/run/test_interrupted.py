"""A grading stopped half-way (Ctrl-C, or the machine killing it) leaves a workspace that is, student by
student, either as it was before or as the whole grading leaves it; Ctrl-C says in one line, without a
traceback, what was kept and how to go on; grading again finishes the rest and gives the record an
uninterrupted grading gives; and `undo` then goes back to before the grading (only committed gradings
count: the half of one is not one) (issue 52).

The grading runs in a subprocess with the fake grader (tests/support/fake_grading.py), which signals
its own process at its k-th step (MASKDIFF_FAKE_STOP=INT@k or KILL@k): a student's grading starting,
and each commit point of merging one into the workspace (staged, inside the record's transaction, its
files moved), keeping the earlier grading aside, and writing the files made from the record. An uninterrupted run first counts the steps (MASKDIFF_FAKE_STEPS).
"""
import shutil
import signal
from pathlib import Path

import pytest

from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.ledger import commit
from tests.support import classes, fake_grading, records, sweeps
from tests.support.classes import CLASS, NB01

pytestmark = [pytest.mark.course, pytest.mark.slow]   # subprocesses stopped by signals: the inner loop has test_record.py

ROOT = Path(__file__).resolve().parents[3]
N01 = NB01[:-6]


def child(batch, workspace, roster, template, scratch, stop=None, steps=None):
    """`grade` of notebook 01 in a subprocess with the fake grader, stopped where `stop` says
    (fake_grading.run_stopped); returns the CompletedProcess."""
    scratch.mkdir(parents=True, exist_ok=True)
    return fake_grading.run_stopped(ROOT, ["grade", batch, "--roster", roster, "--workspace", workspace, "--no-canary",
                                           "--sandbox", "off", "--notebook", "01"],
                                    template, stop=stop, steps=steps, tmpdir=scratch)


@pytest.fixture(scope="module")
def term(course, tmp_path_factory):
    """Before: week 1 graded (notebook 01, two functions solved, written answers), two students graded
    by hand. The batch: two students solved more, two handed in the same files. After: that batch
    graded without a stop (in a subprocess, counting its steps)."""
    folder = tmp_path_factory.mktemp("interrupted")
    roster = classes.write_roster(folder / "roster.csv")
    first = classes.handed_in(course, NB01, ["MakeSchedule", "ForwardMask"], {"telescoping_product": "Mine."})
    better = classes.solved(course, NB01, answer="Mine.")
    week1 = classes.write_canvas(folder / "week1.zip", {s: {NB01: first} for s in CLASS})
    batch = classes.write_canvas(folder / "again.zip", {s: {NB01: better if n % 2 else first}
                                                        for n, s in enumerate(CLASS)}, attachment=2000)
    before = folder / "before"
    with pytest.MonkeyPatch.context() as patch:
        template = fake_grading.install(patch)
        status, _, err = records.grade(course, week1, before, roster=roster)
        assert status == 0, err
        students = sorted({student for student, _ in records.rows(before)})
        for student in students[:2]:
            records.hand_grade(before, student, N01, "telescoping_product", 1.5, "Good.")
        assert records.run(course, "export", "--workspace", before)[0] == 0
    after = folder / "after"
    shutil.copytree(before, after, symlinks=True)
    steps = folder / "steps.txt"
    done = child(batch, after, roster, template, folder / "tmp", steps=steps)
    assert done.returncode == 0, done.stderr
    return {"folder": folder, "roster": roster, "batch": batch, "before": before, "after": after,
            "students": students, "template": template, "steps": steps.read_text().splitlines(),
            "stderr": done.stderr}


def interrupted(course, term, how, at, name):
    """A copy of `before`, its grading of the batch stopped at step `at`: (workspace, the run)."""
    workspace = term["folder"] / name
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.copytree(term["before"], workspace, symlinks=True)
    done = child(term["batch"], workspace, term["roster"], term["template"], term["folder"] / "tmp",
                 stop=f"{how}@{at}")
    return workspace, done


def step_numbers(term, *wanted):
    """The steps whose names start with each of `wanted` ("grade <student>", "copy_regular_files" ...), the
    n-th of that name with "name#n"."""
    out = []
    for want in wanted:
        name, _, nth = want.partition("#")
        found = [int(line.split()[0]) for line in term["steps"] if line.split(" ", 1)[1].startswith(name)]
        out.append(found[int(nth or 1) - 1])
    return out


def said_after_start(stderr):
    """What the run said on stderr after its start line (or, stopped before it, after the command line's first
    line, which names the course and the package copy), progress bars left out."""
    lines = [line.strip() for part in stderr.split("\n") for line in part.split("\r")]
    start = next((i for i, line in enumerate(lines) if line.startswith("grading ") and " student" in line),
                 0 if lines and lines[0].startswith("course ") else -1)
    return [line for line in lines[start + 1:] if line and not line.startswith("grading:")]


def assert_each_student_before_or_after(term, workspace, parts=("gradebook", "files", "rows")):
    """As the next command finds it: every command first finishes what a killed grading had committed
    (course/ledger/commit.py's journal, as sqlite's own), then reads."""
    commit.recover(workspace, lambda student: fake_grading.fake_page(Course.load(ROOT), workspace, student))
    for student in term["students"]:
        now = {k: v for k, v in records.student_record(workspace, student).items() if k in parts}
        was = {k: v for k, v in records.student_record(term["before"], student).items() if k in parts}
        will = {k: v for k, v in records.student_record(term["after"], student).items() if k in parts}
        if now not in (was, will):
            raise AssertionError(f"{student} is neither as before nor as after the grading; against before: "
                        f"{records.differences(now, was, 3)}; against after: {records.differences(now, will, 3)}")


def assert_finishes_and_undoes(course, term, workspace, monkeypatch):
    fake_grading.install(monkeypatch)
    status, _, err = records.grade(course, term["batch"], workspace, roster=term["roster"])
    assert status == 0, err
    wrong = records.differences(records.record(workspace), records.record(term["after"]))
    assert not wrong, f"grading again did not give the record of an uninterrupted grading: {wrong}"
    status, _, err = records.run(course, "undo", "--workspace", workspace)
    assert status == 0, err
    wrong = records.differences(records.record(workspace), records.record(term["before"]))
    assert not wrong, f"undo after the grading was finished did not go back to before it (the interrupted half counted as a grading): {wrong}"


def test_grading_again_without_a_stop_gives_the_same_record(course, term, monkeypatch):
    """The comparisons below hold: the subprocess's grading and this process's give one record."""
    workspace = term["folder"] / "again-in-process"
    shutil.copytree(term["before"], workspace, symlinks=True)
    fake_grading.install(monkeypatch)
    assert records.grade(course, term["batch"], workspace, roster=term["roster"])[0] == 0
    assert records.record(workspace) == records.record(term["after"])
    for student in term["students"]:
        assert records.student_record(term["before"], student) != {}


def test_the_uninterrupted_grading_counts_its_steps(term):
    names = [line.split(" ", 1)[1] for line in term["steps"]]
    assert [n for n in names if n.startswith("grade ")] == [f"grade {s}" for s in term["students"]]
    assert {"keep", "stage", "put_result", "apply", "everyone", "write_csv"} <= \
        {n.split()[0] for n in names}


# Each kind of commit point once: the copy kept for undo, a student's grading starting, their files staged,
# inside the record's transaction, their files moved, the files made from the record (the second
# student's, so that one student stands committed before it).
COMMIT_POINTS = ("keep", "grade #2", "stage#2", "put_result#2", "apply#2", "everyone", "write_csv")
# A sweep (tests/support/sweeps.py): every run stops Ctrl-C inside the record's transaction and the kill while
# the files made from the record are written; each other (stop, point) takes its turn by day (12 s each in CI).
EVERY_RUN = {("INT", "apply#2"), ("KILL", "write_csv")}


@pytest.mark.slow
@pytest.mark.parametrize("how", ["INT", "KILL"])
def test_a_stop_at_every_commit_point(course, term, how, monkeypatch):
    """Ctrl-C, and a kill, at every kind of commit point (a subprocess each, about 5 s with the
    grading that finishes it; EVERY_RUN in every run of CI, the others on their day): Ctrl-C says in one line, without a traceback, what was kept and how to go
    on; each student is as before or as after; grading again finishes the rest and `undo` goes back."""
    failures = []
    chosen = [point for point in COMMIT_POINTS if sweeps.in_turn(f"{how} at {point}", (how, point) in EVERY_RUN)]
    points = [f"grade {term['students'][1]}" if point == "grade #2" else point for point in chosen]
    for at in step_numbers(term, *points):
        workspace, done = interrupted(course, term, how, at, f"{how}-every-{at}")
        try:
            if how == "INT":
                assert done.returncode != 0, "Ctrl-C did not stop the grading"
                assert "Traceback" not in done.stderr, "a traceback"
                said = said_after_start(done.stderr)
                assert len(said) == 1 and "grade" in said[0], f"Ctrl-C should say one line (what was kept, how to go on): {said}"
            else:
                assert done.returncode == -signal.SIGKILL, f"the kill ended the grading with {done.returncode}"
            assert_each_student_before_or_after(term, workspace, ("gradebook", "files", "rows")[:3 if how == "INT" else 2])
            with pytest.MonkeyPatch.context() as patch:
                assert_finishes_and_undoes(course, term, workspace, patch)
        except AssertionError as err:
            failures.append(f"step {at} ({term['steps'][at - 1]}): {str(err).splitlines()[0]}")
    assert not failures, "\n".join(failures)
