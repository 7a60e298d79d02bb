"""The red-team suite: every attack of tests/attacks.py, handed in by its own student, graded in one
batch through the command line (`grade --jobs 3 --sandbox required`) beside honest students.

Nothing an attacker does may steal a mark, change another student's result or files, change the
course, outlive the batch, reach the grading machine's network services, or put the hidden tests,
the solutions or the grader's secrets into anybody's feedback.

As root (CI's first leg) the batch is graded beside a second grader (issue 22), with its own TMPDIR
and workspace, grading an honest batch on the same machine at the same time; the batch then also holds
the attack aimed at that grader (tests/attacks.py, AGAINST_THE_OTHER_GRADER). Nothing of it may be
stolen or harmed, and its grades-by-notebook.csv must be byte for byte what it is when that batch is
graded alone (the serial fixture). As an ordinary user (`.ci/unprivileged`) the batch is graded alone,
without the attacks that stay inside the kernel's interpreter (`Attack.inside`: hooks, patches, frames),
whose handling does not depend on who grades. The batch grades a copy of the course whose cells may run
15 s, not 30 (tests/attacks.py, with_cell_limit): the attacks that run until stopped cost less.
"""
import os
import re
import shutil
from pathlib import Path

import pytest
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records.rows import CSV_NAME
from maskdiff_solutions.course.sandbox.settings import available
from tests import attacks
from tests.attacks import AGAINST_THE_OTHER_GRADER, ATTACKS, BROKEN_FILES, FULL, HONEST, PWNED
from tests.support.pages import active, formgrader_view

# one group with the serial fixture that the second grader's CSV is compared with (tests/conftest.py)
pytestmark = [pytest.mark.course, pytest.mark.slow, pytest.mark.xdist_group("gradings")]
ROOT = Path(__file__).resolve().parents[3]
STEM = "01_noise_for_words"
# What the security model (docs/security.md) says a non-root grader's sandbox cannot stop (its kernel owns its own
# folder); that it steals nothing is still checked.
NON_ROOT_CAN = {"swap_kernel_sockets"}
BESIDE = os.geteuid() == 0   # a second grader beside the batch (root's leg; the ordinary user's grades alone)
beside_only = pytest.mark.skipif(not BESIDE, reason="the second grader runs beside the root leg's red team")
root_only = pytest.mark.skipif(not BESIDE, reason="stays inside the kernel's interpreter: graded in the root leg "
                                                  "(tests/attacks.py, Attack.inside)")
# The root leg grades every attack; the ordinary user's leg those whose handling can depend on who grades.
GRADED = ATTACKS + AGAINST_THE_OTHER_GRADER if BESIDE else [a for a in ATTACKS if not a.inside]
HONEST_STUDENTS = ("reference", "buggy")   # the second grader's, of the small batch: a full and a partial score


@pytest.fixture(scope="module")
def red_team(course, small_batch, tmp_path_factory):
    works, why = available()
    if not works:
        if os.environ.get("CI"):
            pytest.fail(f"CI must grade in a sandbox (.ci/setup installs bubblewrap): {why}")
        pytest.skip(f"bubblewrap cannot make sandboxes here: {why}")
    folder = tmp_path_factory.mktemp("redteam")
    graded = attacks.with_cell_limit(course, folder / "course")  # the course, cells limited to 15 s
    honest = None
    if BESIDE:
        honest = folder / "honest"
        for student in HONEST_STUDENTS:
            shutil.copytree(small_batch / student, honest / student, symlinks=True)
    # three students at once on two cores: a spinning attack (ignore_interrupts) holds one job for its
    # whole time limit, and the batch's slack is filled rather than idle
    result = attacks.run(graded, folder, jobs=3, attacks=GRADED, beside=honest)
    yield result
    result["secret_file"].unlink()


def test_the_batch_completes_and_lists_everyone(red_team):
    done, rows = red_team["done"], red_team["rows"]
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert {s for s, _ in rows} == set(red_team["students"]) >= {a.name for a in GRADED} | set(BROKEN_FILES)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def test_honest_students_get_their_honest_marks(red_team):
    rows = red_team["rows"]
    assert (rows[("honest_reference", STEM)]["status"], float(rows[("honest_reference", STEM)]["auto_score"])) == \
        ("graded", FULL)
    assert float(rows[("honest_untouched", STEM)]["auto_score"]) == HONEST["untouched"]
    cheater = rows[("honest_cheater", STEM)]
    assert (cheater["status"], float(cheater["auto_score"])) == ("graded", HONEST["cheater"]), cheater


@pytest.mark.parametrize("attack", [pytest.param(a, marks=root_only) if a.inside else a for a in ATTACKS]
                         + [pytest.param(a, marks=beside_only) for a in AGAINST_THE_OTHER_GRADER], ids=lambda a: a.name)
def test_no_attack_steals_a_mark(red_team, attack):
    row = red_team["rows"][(attack.name, STEM)]
    # an attack that stops the hidden checks from running, or names the hidden package, loses marks
    assert float(row["auto_score"]) <= HONEST[attack.base], row
    assert not row["review"], row  # only the checker sends a drawing to a person
    if attack.keeps_honest:
        assert float(row["auto_score"]) == HONEST[attack.base], row
    if attack.tells and not (os.geteuid() != 0 and attack.name in NON_ROOT_CAN):
        graded = notebooks.read(red_team["workspace"] / "autograded" / attack.name / "maskdiff" / f"{STEM}.ipynb")
        printed = [str(output) for cell in graded.cells for output in cell.get("outputs", [])]
        assert not any(attack.tells in text for text in printed), f"{attack.name} worked"
    assert row["status"] in attack.status, row
    assert attack.note in row["reason"], row


def test_links_to_the_course_are_never_followed(red_team):
    rows = red_team["rows"]
    for student in ("link_to_solutions", "linked_solutions_folder", "linked_files_in_submission"):
        assert float(rows[(student, STEM)]["auto_score"]) == 0.0, rows[(student, STEM)]
    assert rows[("link_to_solutions", STEM)]["status"] in ("missing", "failed")


@pytest.mark.parametrize("name", sorted(BROKEN_FILES))
def test_a_broken_file_fails_alone_with_a_reason(red_team, name):
    rows = red_team["rows"]
    broken = rows[(name, "02_undiffusing")]
    assert broken["status"] == "failed" and BROKEN_FILES[name][1] in broken["reason"], broken
    honest = rows[(name, STEM)]
    assert (honest["status"], float(honest["auto_score"])) == ("graded", FULL), honest


def test_nothing_outside_the_sandbox_changes(red_team):
    assert red_team["after"] == red_team["before"], "the course's files changed"
    assert red_team["handed_in_after"] == red_team["handed_in"], "a handed-in file changed"
    assert red_team["secret_file"].read_text().startswith("GRADER-ONLY")


def test_nothing_outlives_the_batch(red_team):
    assert red_team["leftovers"] == [], f"processes of sandbox users still run: {red_team['leftovers']}"


def test_no_kernel_reaches_the_machines_network_services(red_team):
    assert red_team["reached"] == []


def solution_lines(course):
    lines = set()
    for name in course.notebooks():
        for cell in notebooks.read(course.source_dir / name).cells:
            for block in notebooks.regions(cell.source, notebooks.BEGIN_SOLUTION, notebooks.END_SOLUTION) + \
                    notebooks.regions(cell.source, notebooks.BEGIN_HIDDEN, notebooks.END_HIDDEN):
                lines |= {line.strip() for line in block.splitlines() if len(line.strip()) >= 25}
    return lines


def test_feedback_leaks_nothing_and_stays_small(course, red_team):
    workspace, secret_env = red_team["workspace"], red_team["secret_env"]
    secret_text = red_team["secret_file"].read_text()
    package_text = (ROOT / "maskdiff_solutions" / "grading" / "core.py").read_text().splitlines()[0]
    secrets_ = solution_lines(course) | {secret_env, secret_text, package_text, "run_check("}
    pages = sorted((workspace / "feedback").rglob("*"))
    assert any(p.suffix == ".html" for p in pages)
    honest = ("honest_reference",) + tuple(BROKEN_FILES)  # their own solutions are theirs to see
    for page in pages:
        if page.is_dir() or page.relative_to(workspace / "feedback").parts[0] in honest:
            continue
        assert page.suffix == ".html", f"feedback holds a file that is not a graded notebook: {page}"
        text = page.read_text(errors="ignore")
        assert len(text) < 5_000_000, f"{page} is {len(text):,} characters"
        leaked = [s for s in secrets_ if s in text]
        assert not leaked, f"{page} shows {leaked[:3]}"
    for graded in (workspace / "autograded").rglob("*.ipynb"):
        assert graded.stat().st_size < 10_000_000, graded


def test_no_page_carries_a_students_script(course, red_team):
    """Outputs (re-run or handed in) and written answers reach a person's browser, in formgrader and in
    feedback, as text and checked images only: nothing a student wrote can act there."""
    workspace = red_team["workspace"]
    pages = {page: page.read_text(errors="ignore") for page in (workspace / "feedback").rglob("*.html")}
    for student in ("script_in_the_page", "honest_reference"):
        page = formgrader_view(course, workspace, student, attacks.NB)
        pages[f"formgrader: {student}"] = page
    assert PWNED in pages["formgrader: script_in_the_page"]  # shown, as text
    for where, page in pages.items():
        assert active(page, PWNED) == [], where
        assert "<script>document.title" not in page, where


# ------------------------------------------------------------------ the second grader beside the batch

@beside_only
def test_the_honest_grader_gives_what_it_gives_alone(red_team, small_serial):
    sibling = red_team["sibling"]
    assert sibling["returncode"] == 0, sibling["log"][-3000:]
    alone = (small_serial[0] / CSV_NAME).read_bytes().splitlines(keepends=True)
    expected = b"".join(alone[:1] + [line for line in alone[1:] if line.split(b",")[0].decode() in HONEST_STUDENTS])
    assert (sibling["workspace"] / CSV_NAME).read_bytes() == expected


@beside_only
def test_the_attack_ran_while_the_other_graders_kernels_did(red_team):
    graded = notebooks.read(red_team["workspace"] / "autograded" / "attack_the_other_grader" / "maskdiff" /
                            f"{STEM}.ipynb")
    printed = " ".join(str(output) for cell in graded.cells for output in cell.get("outputs", []))
    start, end = map(float, re.search(r"attack from ([\d.]+) to ([\d.]+)", printed).groups())
    alive = red_team["sibling"]["kernels_alive"]
    assert any(start <= moment <= end for moment in alive), (start, end, alive[:1], alive[-1:])
    assert "the other grader was out of reach" in printed, printed[-2000:]


@beside_only
def test_nothing_of_the_other_grader_is_touched(red_team):
    sibling = red_team["sibling"]
    assert sibling["planted"] == []
    assert "owned" not in (sibling["workspace"] / CSV_NAME).read_text()
