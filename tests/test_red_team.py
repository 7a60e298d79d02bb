"""The red-team suite: every attack of tests/attacks.py, handed in by its own student, graded in one
batch through the command line (`grade --jobs 2 --sandbox required`) beside honest students.

Nothing an attacker does may steal a mark, change another student's result or files, change the
course, outlive the batch, reach the grading machine's network services, or put the hidden tests,
the solutions or the grader's secrets into anybody's feedback.
"""
import csv
import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from nbformat.v4 import new_code_cell

from maskdiff_solutions.course import notebooks
from maskdiff_solutions.course.demo import solved, with_answer
from maskdiff_solutions.course.sandbox import UIDS, available
from tests.attacks import ATTACKS, BROKEN_FILES, CHEATER, HONEST

pytestmark = [pytest.mark.course, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
NB, STEM = "01_noise_for_words.ipynb", "01_noise_for_words"
# small enough that the memory and disk bombs end fast on a shared machine
LIMITS = {"memory_mb": 2048, "address_space_mb": 12288, "home_mb": 512, "tmp_mb": 256, "processes": 256}


class Listener:
    """A TCP server on this machine's loopback that counts whoever reaches it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port, self.reached, self.stop = self.server.getsockname()[1], [], False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                connection, address = self.server.accept()
                self.reached.append(address)
                connection.close()
            except OSError:
                continue

    def close(self):
        self.stop = True
        self.thread.join()
        self.server.close()


def fingerprint(paths):
    digest = {}
    for top in paths:
        for path in sorted(Path(top).rglob("*")) if Path(top).is_dir() else [Path(top)]:
            if path.is_file() and "__pycache__" not in path.parts and not path.is_symlink():
                digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


COURSE_FILES = [ROOT / "source", ROOT / "release", ROOT / "maskdiff_solutions", ROOT / "maskdiff_client",
                ROOT / "nbgrader_config.py", ROOT / "pyproject.toml"]


def sandbox_processes():
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                uid = int(next(line for line in (entry / "status").read_text().splitlines()
                               if line.startswith("Uid:")).split()[1])
            except (OSError, StopIteration):
                continue
            if uid in UIDS:
                found.append(entry.name)
    return found


@pytest.fixture(scope="module")
def red_team(course, tmp_path_factory):
    works, why = available()
    if not works:
        if os.environ.get("CI"):
            pytest.fail(f"CI must grade in a sandbox (.ci/setup installs bubblewrap): {why}")
        pytest.skip(f"bubblewrap cannot make sandboxes here: {why}")
    folder = tmp_path_factory.mktemp("redteam")
    collected, workspace = folder / "collected", folder / "workspace"
    listener = Listener()
    secret_file = Path("/tmp") / f"maskdiff-redteam-{secrets.token_hex(4)}.txt"
    secret_file.write_text(f"GRADER-ONLY {secrets.token_hex(16)}")
    secret_env = secrets.token_hex(16)
    fill = {"port": str(listener.port), "secret_file": str(secret_file), "secret_env": "MASKDIFF_REDTEAM_SECRET",
            "course": str(ROOT)}
    release = notebooks.read(course.release_dir / NB)
    reference = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))

    def base(kind):
        if kind == "untouched":
            return notebooks.read(course.release_dir / NB)
        nb = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))
        return with_answer(nb, CHEATER[0], CHEATER[1])

    def hand_in(student, nb, files=None):
        (collected / student).mkdir(parents=True)
        if nb is not None:
            notebooks.write(nb, collected / student / NB)
        for name, content in (files or {}).items():
            path = collected / student / name
            if isinstance(content, tuple):
                os.symlink(content[1].format(**fill), path)
            else:
                path.write_text(content)

    hand_in("honest_reference", reference)
    hand_in("honest_untouched", release)
    hand_in("honest_cheater", base("cheater"))
    for attack in ATTACKS:
        nb = base(attack.base)
        at = next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == "setup") + 1
        for offset, code in enumerate(attack.cells):
            source = code
            for key, value in fill.items():
                source = source.replace("{" + key + "}", value)
            nb.cells.insert(at + offset, new_code_cell(source.strip("\n")))
        hand_in(attack.name, None if NB in attack.files else nb, attack.files)
    for name, (content, _) in BROKEN_FILES.items():
        hand_in(name, reference, {"02_undiffusing.ipynb": content})
    hand_in("link_to_solutions", None, {NB: ("link", "{course}/source/maskdiff/" + NB)})
    hand_in("linked_solutions_folder", release, {"course": ("link", "{course}/source/maskdiff")})

    before = fingerprint(COURSE_FILES)
    handed_in = fingerprint([collected])
    env = {**os.environ, fill["secret_env"]: secret_env, "MASKDIFF_SANDBOX_LIMITS": json.dumps(LIMITS)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(ROOT), "grade",
                           str(collected), "--workspace", str(workspace), "--jobs", "2", "--sandbox", "required"],
                          capture_output=True, text=True, env=env, timeout=1800)
    seconds = time.perf_counter() - started
    time.sleep(2)  # anything left behind would act now
    leftovers = sandbox_processes()
    listener.close()
    rows = {}
    if (workspace / "grades.csv").is_file():
        with open(workspace / "grades.csv") as handle:
            rows = {(r["student"], r["notebook"]): r for r in csv.DictReader(handle)}
    yield dict(done=done, rows=rows, workspace=workspace, collected=collected, before=before,
               after=fingerprint(COURSE_FILES), handed_in=handed_in, handed_in_after=fingerprint([collected]),
               leftovers=leftovers, reached=listener.reached, secret_file=secret_file, secret_env=secret_env,
               seconds=seconds)
    secret_file.unlink()


def test_the_batch_completes_and_lists_everyone(red_team):
    done, rows = red_team["done"], red_team["rows"]
    assert done.returncode in (0, 1), done.stderr[-3000:]
    students = {s for s, _ in rows}
    expected = {a.name for a in ATTACKS} | set(BROKEN_FILES) | {
        "honest_reference", "honest_untouched", "honest_cheater", "link_to_solutions", "linked_solutions_folder"}
    assert students == expected
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def test_honest_students_get_their_honest_marks(red_team):
    rows = red_team["rows"]
    assert (rows[("honest_reference", STEM)]["status"], float(rows[("honest_reference", STEM)]["auto_score"])) == \
        ("graded", 9.0)
    assert float(rows[("honest_untouched", STEM)]["auto_score"]) == HONEST["untouched"]
    cheater = rows[("honest_cheater", STEM)]
    assert (cheater["status"], float(cheater["auto_score"])) == ("graded", HONEST["cheater"]), cheater


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_no_attack_steals_a_mark(red_team, attack):
    row = red_team["rows"][(attack.name, STEM)]
    # an attack that stops the hidden checks from running, or names the hidden package, loses marks
    assert float(row["auto_score"]) <= HONEST[attack.base], row
    if attack.keeps_honest:
        assert float(row["auto_score"]) == HONEST[attack.base], row
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
    assert (honest["status"], float(honest["auto_score"])) == ("graded", 9.0), honest


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
