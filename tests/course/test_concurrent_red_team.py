"""The red team beside a second grader (issue 22): a hostile batch graded while another grader, with
its own TMPDIR and workspace, grades an honest batch on the same machine. The hostile batch is the
attacks that reach beyond their own kernel (kill, fork, fill memory, vandalise, outlive the notebook)
and one aimed at the other grader itself (tests/attacks.py, AGAINST_THE_OTHER_GRADER). Nothing may be
stolen or harmed, and the honest grader's grades-by-notebook.csv must be byte for byte what it is
when that batch is graded alone (the serial fixture)."""
import re
import shutil

import pytest

from maskdiff_solutions.course import notebooks
from maskdiff_solutions.course.rows import CSV_NAME
from maskdiff_solutions.course.sandbox import available
from tests import attacks
from tests.attacks import AGAINST_THE_OTHER_GRADER, ATTACKS, HONEST

pytestmark = [pytest.mark.course, pytest.mark.slow, pytest.mark.xdist_group("small_serial")]  # side_by_side
STEM = "01_noise_for_words"
HONEST_STUDENTS = ("reference", "buggy")   # of the small batch: a full and a partial score
# the attacks whose harm could reach past their own kernel, to the other grader
REACHING = ("daemon", "fork_bomb", "kill_the_grader", "memory_bomb", "vandalise_everything")
HOSTILE = [a for a in ATTACKS if a.name in REACHING] + AGAINST_THE_OTHER_GRADER


@pytest.fixture(scope="module")
def side_by_side(course, small_batch, tmp_path_factory):
    works, why = available()
    if not works:
        pytest.skip(f"bubblewrap cannot make sandboxes here: {why}")
    folder = tmp_path_factory.mktemp("redteam-beside")
    honest = folder / "honest"
    for student in HONEST_STUDENTS:
        shutil.copytree(small_batch / student, honest / student, symlinks=True)
    result = attacks.run(course, folder, attacks=HOSTILE, everyone=False, beside=honest)
    yield result
    result["secret_file"].unlink()


def test_the_honest_grader_gives_what_it_gives_alone(side_by_side, small_serial):
    sibling = side_by_side["sibling"]
    assert sibling["returncode"] == 0, sibling["log"][-3000:]
    alone = (small_serial[0] / CSV_NAME).read_bytes().splitlines(keepends=True)
    expected = b"".join(alone[:1] + [line for line in alone[1:] if line.split(b",")[0].decode() in HONEST_STUDENTS])
    assert (sibling["workspace"] / CSV_NAME).read_bytes() == expected


def test_the_attack_ran_while_the_other_graders_kernels_did(side_by_side):
    graded = notebooks.read(side_by_side["workspace"] / "autograded" / "attack_the_other_grader" / "maskdiff" /
                            f"{STEM}.ipynb")
    printed = " ".join(str(output) for cell in graded.cells for output in cell.get("outputs", []))
    start, end = map(float, re.search(r"attack from ([\d.]+) to ([\d.]+)", printed).groups())
    alive = side_by_side["sibling"]["kernels_alive"]
    assert any(start <= moment <= end for moment in alive), (start, end, alive[:1], alive[-1:])
    assert "the other grader was out of reach" in printed, printed[-2000:]


def test_nothing_of_the_other_grader_is_touched(side_by_side):
    sibling = side_by_side["sibling"]
    assert sibling["planted"] == []
    assert "owned" not in (sibling["workspace"] / CSV_NAME).read_text()


@pytest.mark.parametrize("attack", HOSTILE, ids=lambda a: a.name)
def test_no_hostile_student_steals_a_mark(side_by_side, attack):
    assert side_by_side["done"].returncode in (0, 1), side_by_side["done"].stderr[-3000:]
    row = side_by_side["rows"][(attack.name, STEM)]
    assert float(row["auto_score"]) <= HONEST[attack.base] and row["status"] in attack.status, row
    assert attack.note in row["reason"], row


def test_nothing_else_is_harmed_or_left_behind(side_by_side):
    assert side_by_side["after"] == side_by_side["before"], "the course's files changed"
    assert side_by_side["handed_in_after"] == side_by_side["handed_in"], "a handed-in file changed"
    assert side_by_side["leftovers"] == [], side_by_side["leftovers"]
