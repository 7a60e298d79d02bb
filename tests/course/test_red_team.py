"""The red-team suite: every attack of tests/attacks.py, handed in by its own student, graded in one
batch through the command line (`grade --jobs 2 --sandbox required`) beside honest students.

Nothing an attacker does may steal a mark, change another student's result or files, change the
course, outlive the batch, reach the grading machine's network services, or put the hidden tests,
the solutions or the grader's secrets into anybody's feedback.
"""
import os
from pathlib import Path

import pytest
from maskdiff_solutions.course import notebooks
from maskdiff_solutions.course.sandbox import available
from tests import attacks
from tests.attacks import ATTACKS, BROKEN_FILES, FULL, HONEST, PWNED
from tests.support.pages import active, formgrader_view

pytestmark = [pytest.mark.course, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
STEM = "01_noise_for_words"
# What the README's threat model says a non-root grader's sandbox cannot stop (its kernel owns its own
# folder); that it steals nothing is still checked.
NON_ROOT_CAN = {"swap_kernel_sockets"}
@pytest.fixture(scope="module")
def red_team(course, tmp_path_factory):
    works, why = available()
    if not works:
        if os.environ.get("CI"):
            pytest.fail(f"CI must grade in a sandbox (.ci/setup installs bubblewrap): {why}")
        pytest.skip(f"bubblewrap cannot make sandboxes here: {why}")
    result = attacks.run(course, tmp_path_factory.mktemp("redteam"))
    yield result
    result["secret_file"].unlink()


def test_the_batch_completes_and_lists_everyone(red_team):
    done, rows = red_team["done"], red_team["rows"]
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert {s for s, _ in rows} == set(red_team["students"]) >= {a.name for a in ATTACKS} | set(BROKEN_FILES)
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def test_honest_students_get_their_honest_marks(red_team):
    rows = red_team["rows"]
    assert (rows[("honest_reference", STEM)]["status"], float(rows[("honest_reference", STEM)]["auto_score"])) == \
        ("graded", FULL)
    assert float(rows[("honest_untouched", STEM)]["auto_score"]) == HONEST["untouched"]
    cheater = rows[("honest_cheater", STEM)]
    assert (cheater["status"], float(cheater["auto_score"])) == ("graded", HONEST["cheater"]), cheater


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
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
