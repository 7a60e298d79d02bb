"""A term of grading as Hypothesis's state machine (issue 52): an instructor hands notebooks 01 and 02 of a
small class to `grade` in any order, regrades, grades written answers by hand, exports, undoes, loses a
derived file, and (a slower machine) stops a grading half-way; after every step the record must be what
a model of the term says. The fake grader (tests/support/fake_grading.py) grades in milliseconds, by a
rule of the notebook's content, so the model knows every score.

The model keeps, for each (student, notebook) graded: the content last graded, hence each test cell's
score (the fake's rule) and each written answer's nbgrader state (as released: 0; changed: to grade);
the hand grades entered (and whether the answer changed since: then it is to grade again, and the row
says so); which rows and pages reflect the gradebook (a hand grade reaches the CSV at the next `grade`
or `export`, the page at the next `export` or regrade of that notebook). Invariants after every step:

- every hand grade entered is in the gradebook (manual score, not to grade, its comment), in
  grades-by-notebook.csv and the feedback page once they were remade, and in Canvas's file right after
  `export --to canvas`, unless that answer changed since (to grade again, and the row says so);
- every test cell's score is the fake's score of the content last graded: no score of a (student,
  notebook) changes unless that notebook was graded again from a changed file;
- every student with a row has exactly one row per notebook graded for anyone in the workspace,
  missing where no grading found theirs, kept where they handed it in before;
- grades-by-student.csv and Canvas's file equal the rows, and the rows equal the gradebook;
- `undo` puts back the record as it was before the last grading;
- a derived file deleted (grades-by-notebook.csv, grades-by-student.csv, a feedback
  page): the next command rebuilds it, or stops with exit 2, one `error:` line and nothing changed.

Examples: MASKDIFF_TERM_EXAMPLES, else 10 + 3 of up to 12 steps (the inner loop, about 8 s) and 350 +
150 of up to 8 steps where CI is set (`.ci/run`: 500 sequences of an instructor's actions, about 0.4 s
an example, a `grade` of the class about 0.15 s with the fake grader, measured on the 2-core machine);
the slow machine that stops gradings: 5, 10 in CI (subprocesses: about 10 s an example);
MASKDIFF_TERM_STEPS steps each (default 12, 8 in CI); MASKDIFF_TERM_SHRINK=1 shrinks a failure (minutes). A
failure found is kept below as a test of its steps (`test_found_...`).
"""
import copy
import csv
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test

from maskdiff_solutions.course.intake import notebooks as nbs
from maskdiff_solutions.course.intake.folder import student_id
from maskdiff_solutions.course.intake.platforms import Intake
from maskdiff_solutions.course.layout import Course
from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, COLUMN, COLUMN02

pytestmark = pytest.mark.course


def xdist_group(item):
    """Its tests share nothing costly (each process makes the gradebook template once): any worker."""
    return None

ROOT = Path(__file__).resolve().parents[3]
COURSE = Course.load(ROOT)
NOTEBOOKS = {"01": classes.NB01, "02": classes.NB02}
STEM = {key: name[:-6] for key, name in NOTEBOOKS.items()}
FUNCTIONS = {key: classes.function_cells(COURSE, name) for key, name in NOTEBOOKS.items()}
ANSWERS = {key: classes.manual_cells(COURSE, name) for key, name in NOTEBOOKS.items()}
KEPT = 5   # safekeeping.KEPT: the earlier gradings kept
DERIVED = {"csv": CSV_NAME, "by-student": "grades-by-student.csv"}


# --------------------------------------------------------------------------- what a student hands in

@dataclass(frozen=True)
class Spec:
    """A notebook as handed in: how much is solved (0 none, 1 the first two cells, 2 all), and each
    written answer's text (None: as released)."""
    notebook: str
    level: int
    answers: tuple

    def solved(self):
        cells = FUNCTIONS[self.notebook]
        return (), cells[:2], cells
    def answer(self, cell):
        return dict(self.answers).get(cell)


@lru_cache(maxsize=None)
def notebook_bytes(spec):
    return classes.nb_bytes(classes.handed_in(COURSE, NOTEBOOKS[spec.notebook], spec.solved()[spec.level],
                                              {c: t for c, t in spec.answers if t is not None}))


@lru_cache(maxsize=None)
def scores(spec):
    """{cell: auto score or None} the fake gives this notebook."""
    return fake_grading.expected(nbs.read_text(notebook_bytes(spec).decode()))


@lru_cache(maxsize=None)
def maxima(notebook):
    nb = classes.release(COURSE, NOTEBOOKS[notebook])
    return {nbs.grade_id(c): float(nbs.nbgrader(c)["points"]) for c in nb.cells if nbs.nbgrader(c).get("grade")}


def specs(notebook):
    return st.builds(Spec, st.just(notebook), st.integers(0, 2),
                     st.tuples(*[st.tuples(st.just(cell), st.sampled_from([None, "An answer.", "Another answer."]))
                                 for cell in ANSWERS[notebook]]))


# --------------------------------------------------------------------------- the model

@dataclass
class Graded:
    """A (student, notebook) as the record should hold it."""
    spec: Spec
    hand: dict = field(default_factory=dict)       # answer cell -> (points, comment): valid hand grades
    changed: set = field(default_factory=set)      # answer cells graded by hand whose answer changed since

    def cell(self, cell):
        """(manual score or None, to grade, comment or None) the gradebook must hold for an answer cell;
        for a test cell (its auto score, False, None)."""
        if cell not in ANSWERS[self.spec.notebook]:
            return scores(self.spec)[cell], False, None
        if cell in self.hand:
            return self.hand[cell][0], False, self.hand[cell][1]
        if cell in self.changed:
            return "any", True, "any"
        if self.spec.answer(cell) is None:
            return None, False, "No response."
        return None, True, None

    def row(self):
        """(auto score, auto max, manual awarded, manual to grade)."""
        notebook, most = self.spec.notebook, maxima(self.spec.notebook)
        tests = [c for c in most if c not in ANSWERS[notebook]]
        manual = pending = 0.0
        for cell in ANSWERS[notebook]:
            score, to_grade, _ = self.cell(cell)
            if to_grade:
                pending += most[cell]
            elif cell in self.hand:
                manual += score
        return (sum(scores(self.spec)[c] or 0.0 for c in tests), sum(most[c] for c in tests), manual, pending)


class Term(RuleBasedStateMachine):
    """One workspace through a term (module docstring). MODE "canvas": every batch is Canvas's zip with
    the roster (export --to canvas works); "collected": collected/ folders, one named in non-ASCII."""
    MODE = "canvas"
    base = None          # the test's tmp_path
    interrupting = False

    def __init__(self):
        super().__init__()
        self.root = Path(tempfile.mkdtemp(dir=self.base))
        self.ws = self.root / "ws"
        self.roster = classes.write_roster(self.root / "roster.csv")
        self.handed = {}          # (person, notebook) -> Spec in their folder now
        self.graded = {}          # (person, notebook) -> Graded
        self.rows_due = {}        # (person, notebook) -> "graded" or "missing": the CSV's rows
        self.fresh_rows = set()   # (person, notebook) whose CSV row was remade from the gradebook since a hand grade
        self.fresh_pages = set()  # ... whose feedback page was
        self.kept = []            # earlier-gradings/, oldest first: ("kept", model snapshot) or ("undone", None)
        self.ids = {}             # person -> student id
        self.deleted = None       # (path, bytes) of a derived file deleted by the last step
        self.batches = 0

    def teardown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------- commands

    def run(self, *args):
        return records.run(COURSE, *args)

    def command(self, *args, grading=False, due=None):
        """Run a command; where a derived file was deleted, it must be rebuilt, or the command stop with
        exit 2, one error line and nothing changed (then the instructor puts the file back and runs it
        again). due(path): whether the file should be there after the command (default: it should)."""
        if self.deleted is None:
            return self.run(*args)
        path, data = self.deleted
        before = self.contents()
        status, out, err = self.run(*args)
        self.deleted = None
        if status == 2:
            assert len(records.error_lines(err)) == 1, f"`{args[0]}` stopped without one error line: {err[-500:]}"
            changed = sorted(str(p) for p in set(before) | set(self.contents())
                             if before.get(p) != self.contents().get(p))
            assert not changed, f"`{args[0]}` stopped (exit 2) but changed {changed}"
            path.write_bytes(data)
            return self.run(*args)
        if due is None or due(path):
            assert path.is_file(), f"`{' '.join(map(str, args[:1]))}` went on (exit {status}) without rebuilding {path.name}"
        else:
            assert not path.is_file(), f"`{args[0]}` brought back {path.name}, which the state it restored never had"
        return status, out, err

    def contents(self):
        return {p.relative_to(self.ws): p.read_bytes() for p in self.ws.rglob("*") if p.is_file()
                and not {"earlier-gradings", "intake"} & set(p.relative_to(self.ws).parts[:1])
                and p.name != ".grading.lock"}

    def snapshot(self):
        return copy.deepcopy((self.graded, self.rows_due, self.fresh_rows, self.fresh_pages))

    def batch(self, notebooks, people):
        self.batches += 1
        files = {CLASS[p]: {NOTEBOOKS[nb]: self.handed[(p, nb)] for nb in notebooks if (p, nb) in self.handed}
                 for p in people}
        if self.MODE == "canvas":
            files = {who: {name: notebook_bytes(spec) for name, spec in got.items()} for who, got in files.items() if got}
            path = self.root / f"batch{self.batches}.zip"
            import zipfile
            with zipfile.ZipFile(path, "w") as out:
                n = 1000 * self.batches
                for who, got in files.items():
                    for name, data in sorted(got.items()):
                        n += 1
                        out.writestr(f"{who.sortable}_{who.canvas_id}_{n}_{name}", data)
            return path, bool(files)
        folder = self.root / f"batch{self.batches}"
        for who, got in files.items():
            (folder / who.folder).mkdir(parents=True)
            for name, spec in got.items():
                (folder / who.folder / name).write_bytes(notebook_bytes(spec))
        return folder, bool(files)

    def grade_args(self, path, notebooks, only_changed):
        args = ["grade", path, "--workspace", self.ws, "--no-canary", "--sandbox", "off"]
        args += [part for nb in sorted(notebooks) for part in ("--notebook", nb)]
        args += ["--roster", self.roster] if self.MODE == "canvas" else []
        return args + (["--only-changed"] if only_changed else [])

    def graded_now(self, notebooks, people, only_changed=False):
        """The model after a grading of `notebooks` from a batch of `people`'s files (only_changed: a
        notebook handed in as it was graded may keep its page as it was)."""
        everyone = range(len(CLASS)) if self.MODE == "canvas" else people
        for p in everyone:
            for nb in notebooks:
                spec = self.handed.get((p, nb)) if p in people else None
                before = self.graded.get((p, nb))
                if spec is not None:
                    now = Graded(spec)
                    if before is not None:
                        for cell, given in before.hand.items():
                            if spec.answer(cell) == before.spec.answer(cell):
                                now.hand[cell] = given
                            else:
                                now.changed.add(cell)
                        now.changed |= {c for c in before.changed if c not in now.hand}
                    self.graded[(p, nb)] = now
                    self.rows_due[(p, nb)] = "graded"
                    if not (only_changed and before is not None and before.spec == spec):
                        self.fresh_pages.add((p, nb))
                elif before is None:
                    self.rows_due[(p, nb)] = "missing"
        # everyone out of the same maximum: a student with any row has one for every notebook graded
        # for anyone in this workspace (missing where no grading found theirs)
        for p in {p for p, _ in self.rows_due}:
            for nb in {nb for _, nb in self.rows_due}:
                self.rows_due.setdefault((p, nb), "missing")
        self.fresh_rows = set(self.graded)
        self.learn_ids()

    def learn_ids(self):
        intake = Intake.load(self.ws)
        for p, who in enumerate(CLASS):
            if self.MODE == "canvas" and intake:
                self.ids[p] = next((sid for sid, s in intake.students.items() if s.key == who.canvas_id), self.ids.get(p))
            elif self.MODE != "canvas":
                self.ids[p] = student_id(who.folder)

    def keep_aside(self, had_results):
        if had_results:
            self.kept.append(("kept", self.snapshot()))
            del self.kept[:-KEPT]

    # ------------------------------------------------------------------- rules

    @initialize(first=specs("01"))
    def start(self, first):
        """Week 1 begins: everyone has notebook 01 in their folder."""
        for p in range(len(CLASS)):
            self.handed[(p, "01")] = first

    @rule(person=st.integers(0, len(CLASS) - 1), data=st.data())
    def hand_in(self, person, data):
        notebook = data.draw(st.sampled_from(sorted(NOTEBOOKS)), label="notebook")
        if data.draw(st.booleans(), label="the same again") and (person, notebook) in self.handed:
            return   # an unchanged copy: the next batch holds the same content
        self.give(person, data.draw(specs(notebook), label="spec"))

    def give(self, person, spec):
        """The student's folder now holds this notebook."""
        self.handed[(person, spec.notebook)] = spec

    @rule(notebooks=st.sets(st.sampled_from(sorted(NOTEBOOKS)), min_size=1),
          people=st.sets(st.integers(0, len(CLASS) - 1), min_size=1), only_changed=st.booleans())
    def grade(self, notebooks, people, only_changed):
        path, any_file = self.batch(notebooks, people)
        had_results = (self.ws / CSV_NAME).is_file() or (self.deleted and self.deleted[0].name == CSV_NAME)
        status, out, err = self.command(*self.grade_args(path, notebooks, only_changed), grading=True)
        if self.MODE == "canvas" and not any_file:
            assert status == 2, f"a Canvas zip with no file was graded (exit {status})"
            return
        assert status == 0, f"grade exited {status}: {err[-800:]}"
        self.keep_aside(had_results)
        self.graded_now(notebooks, people, only_changed)

    @precondition(lambda self: self.graded)
    @rule(data=st.data())
    def hand_grade(self, data):
        key = data.draw(st.sampled_from(sorted(self.graded)), label="graded notebook")
        cell = data.draw(st.sampled_from(ANSWERS[key[1]]), label="cell")
        most = maxima(key[1])[cell]
        points = data.draw(st.sampled_from([0.0, most / 2, most]), label="points")
        comment = data.draw(st.sampled_from(["", "Good.", "Say why, please.", "Très bien: ½ point more."]), label="comment")
        self.grade_by_hand(key, cell, points, comment)

    def grade_by_hand(self, key, cell, points, comment):
        """formgrader: a person grades the answer `cell` of (person, notebook) `key`."""
        graded = self.graded[key]
        records.hand_grade(self.ws, self.ids[key[0]], STEM[key[1]], cell, points, comment)
        graded.hand[cell] = (points, comment)
        graded.changed.discard(cell)
        self.fresh_rows.discard(key)
        self.fresh_pages.discard(key)

    @precondition(lambda self: self.rows_due)
    @rule()
    def export(self):
        status, _, err = self.command("export", "--workspace", self.ws)
        assert status == 0, f"export exited {status}: {err[-800:]}"
        self.fresh_rows = set(self.graded)
        self.fresh_pages = set(self.graded)

    @precondition(lambda self: self.rows_due and self.MODE == "canvas")
    @rule()
    def export_to_canvas(self):
        """Every notebook graded into its own column (notebook 02's found by its title in the roster)."""
        status, _, err = self.command("export", "--workspace", self.ws, "--to", "canvas", "--each-notebook",
                                      *(["--column", f"01={COLUMN}"] if any(nb == "01" for _, nb in self.rows_due) else []))
        assert status == 0, f"export --to canvas exited {status}: {err[-800:]}"
        self.fresh_rows = set(self.graded)
        self.fresh_pages = set(self.graded)
        got, _ = importers.canvas_grades(self.ws / "grades-canvas.csv")
        for p, who in enumerate(CLASS):
            for nb, column in (("01", COLUMN), ("02", COLUMN02)):
                due = self.rows_due.get((p, nb))
                if due is None:
                    assert column not in got.get(who.canvas_id, {}), f"{column}: exported, though never graded"
                    continue
                row = self.graded[(p, nb)].row() if due == "graded" else (0.0, 0.0, 0.0, 0.0)
                want = None if row[3] else row[0] + row[2]
                assert got[who.canvas_id][column] == want, \
                    f"{who.name} in {column}: {got[who.canvas_id][column]}, the record says {want}"

    @precondition(lambda self: self.rows_due)
    @rule()
    def undo(self):
        candidates = [i for i, (kind, _) in enumerate(self.kept) if kind == "kept"]
        restored = self.kept[candidates[-1]][1][1] if candidates else self.rows_due   # the rows it brings back
        status, _, err = self.command("undo", "--workspace", self.ws, due=lambda path: self.page_in(path, restored))
        if not candidates:
            assert status == 2, f"undo with no earlier grading kept exited {status}"
            return
        assert status == 0, f"undo exited {status}: {err[-800:]}"
        _, snapshot = self.kept.pop(candidates[-1])
        self.kept.append(("undone", None))
        self.graded, self.rows_due, self.fresh_rows, self.fresh_pages = copy.deepcopy(snapshot)

    def page_in(self, path, rows):
        """Whether a derived file belongs in a workspace whose rows are `rows` ((person, notebook) ->
        graded or missing): the CSVs always (undo needs an earlier grading with results), a feedback page
        where its row is, graded or missing (a page deleted after the grading that made it is not brought
        back by undoing that grading)."""
        if path.suffix != ".html":
            return True
        return any(path.parent.parent.name == self.ids.get(p) and path.stem == STEM[nb] for p, nb in rows)

    @precondition(lambda self: self.deleted is None and (self.ws / CSV_NAME).is_file())
    @rule(which=st.sampled_from(["csv", "by-student", "page"]), data=st.data())
    def lose_a_derived_file(self, which, data):
        if which == "page":
            pages = sorted(self.ws.glob("feedback/*/*/*.html"))
            if pages:
                self.lose(data.draw(st.sampled_from(pages), label="page"))
        elif (self.ws / DERIVED[which]).is_file():
            self.lose(self.ws / DERIVED[which])

    def lose_csv(self):
        self.lose(self.ws / CSV_NAME)

    def lose(self, path):
        """A derived file deleted (by hand, a sync tool, a full disk)."""
        self.deleted = (path, path.read_bytes())
        path.unlink()

    # ------------------------------------------------------------------- invariants

    @invariant()
    def the_record_is_the_model(self):
        if self.deleted is not None or not (self.ws / "gradebook.db").is_file():
            return
        marks = records.gradebook(self.ws)
        rows = records.rows(self.ws)
        ids = {p: sid for p, sid in self.ids.items()}
        assert set(rows) == {(ids[p], STEM[nb]) for p, nb in self.rows_due}, \
            f"rows {sorted(set(rows) ^ {(ids[p], STEM[nb]) for p, nb in self.rows_due})} should (not) be there"
        for (p, nb), due in self.rows_due.items():
            sid, stem = ids[p], STEM[nb]
            row = rows[(sid, stem)]
            if due == "missing":
                assert (row.status, row.auto_score, row.manual_score) == ("missing", 0.0, 0.0), \
                    f"{sid} {stem}: the row is {row.status} {row.auto_score:g}+{row.manual_score:g}, the model says missing"
                continue
            graded = self.graded[(p, nb)]
            assert row.status == "graded", f"{sid} {stem}: the row is {row.status} ({row.reason[:150]}), the model says graded"
            for cell in maxima(nb):
                auto, manual, to_grade, comment = marks[(sid, stem, cell)]
                want = graded.cell(cell)
                if cell not in ANSWERS[nb]:
                    assert (auto, to_grade) == (want[0], False), f"{sid} {stem} {cell}: gradebook {auto, to_grade}, model {want[:2]}"
                    continue
                got = (manual if cell in graded.hand else None, to_grade, comment)
                if want[0] == "any":
                    assert to_grade, f"{sid} {stem} {cell}: answered anew since it was graded by hand, yet not to grade"
                    continue
                assert got == want, f"{sid} {stem} {cell}: gradebook (manual, to grade, comment) {got}, model {want}"
            if (p, nb) in self.fresh_rows:
                auto, auto_max, manual, pending = graded.row()
                assert (row.auto_score, row.auto_max, row.manual_score, row.manual_pending) == \
                    (auto, auto_max, manual, pending), f"{sid} {stem}: row {row}, model {(auto, auto_max, manual, pending)}"
                for cell in graded.changed - set(graded.hand):
                    assert cell in row.reason, f"{sid} {stem}: {cell} was answered anew since a person graded it; the row should say so: {row.reason!r}"
            if (p, nb) in self.fresh_pages:
                page = records.page(self.ws, sid, stem)
                assert page not in (None, "absent"), f"{sid} {stem}: no feedback page ({page})"
                for cell in maxima(nb):
                    want = graded.cell(cell)
                    score, most, comment = page[cell]
                    if want[0] == "any":
                        assert score is None, f"{sid} {stem} {cell}: the page gives {score}, yet it is to grade"
                    elif want[1]:
                        assert score is None, f"{sid} {stem} {cell}: the page gives {score}, yet it is to grade"
                    else:
                        assert score == (want[0] if want[0] is not None else 0.0), f"{sid} {stem} {cell}: page {score}, model {want}"
                        if cell in graded.hand:
                            assert comment == want[2], f"{sid} {stem} {cell}: page comment {comment!r}, model {want[2]!r}"
        self.totals_equal_rows(rows)

    def totals_equal_rows(self, rows):
        path = self.ws / "grades-by-student.csv"
        if not path.is_file():
            return
        with open(path, newline="", encoding="utf-8") as handle:
            totals = {record["student"]: float(record["total"]) for record in csv.DictReader(handle)}
        want = {}
        for (student, _), row in rows.items():
            want[student] = want.get(student, 0.0) + row.auto_score + row.manual_score
        assert totals == want, f"grades-by-student.csv {totals} against the rows {want}"


class TermCollected(Term):
    MODE = "collected"


class TermInterrupted(Term):
    """The term with gradings stopped half-way (a subprocess signalling itself, fake_grading.STOP), then
    run again: the pair must leave what one grading leaves, and count as one grading for `undo`."""
    template = None

    @precondition(lambda self: self.handed)
    @rule(notebooks=st.sets(st.sampled_from(sorted(NOTEBOOKS)), min_size=1),
          people=st.sets(st.integers(0, len(CLASS) - 1), min_size=1), how=st.sampled_from(["INT", "KILL"]),
          at=st.integers(1, 12))
    def interrupted_grade(self, notebooks, people, how, at):
        path, any_file = self.batch(notebooks, people)
        if self.MODE == "canvas" and not any_file:
            return
        had_results = (self.ws / CSV_NAME).is_file()
        done = fake_grading.run_stopped(COURSE.root, self.grade_args(path, notebooks, False), self.template,
                                        stop=f"{how}@{at}", tmpdir=self.root)
        if how == "INT" and done.returncode != 0:
            assert "Traceback" not in done.stderr, f"Ctrl-C printed a traceback ending {done.stderr.strip().splitlines()[-1]!r}"
        status, _, err = self.command(*self.grade_args(path, notebooks, False), grading=True)
        assert status == 0, f"grade after an interrupted grading exited {status}: {err[-800:]}"
        self.keep_aside(had_results)
        self.graded_now(notebooks, people)



def term_settings(examples, steps=None, in_ci=None):
    """`examples` (`in_ci` where CI is set) unless MASKDIFF_TERM_EXAMPLES says; MASKDIFF_TERM_SHRINK=1
    shrinks a failure to its shortest steps (minutes); by default the failing steps are printed as found."""
    phases = [Phase.explicit, Phase.generate] + ([Phase.shrink] if os.environ.get("MASKDIFF_TERM_SHRINK") else [])
    examples = in_ci if os.environ.get("CI") and in_ci else examples
    return settings(max_examples=int(os.environ.get("MASKDIFF_TERM_EXAMPLES", examples)),
                    stateful_step_count=int(os.environ.get("MASKDIFF_TERM_STEPS", steps or 12)),
                    deadline=None, database=None, print_blob=True, phases=phases,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@pytest.fixture
def fast_folder(monkeypatch, tmp_path):
    """Where the workspaces and grading's scratch go: a folder in memory where there is one (/dev/shm:
    grading removes and copies many small folders, and halves its time there), else tmp_path."""
    shm = Path("/dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="maskdiff-term-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) \
        else tmp_path
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    if folder != tmp_path:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def machine(monkeypatch, fast_folder):
    template = fake_grading.install(monkeypatch)

    def run(cls, examples, steps=None, in_ci=None, steps_in_ci=None):
        cls.base, cls.template = fast_folder, template
        steps = steps_in_ci if os.environ.get("CI") and steps_in_ci else steps
        run_state_machine_as_test(cls, settings=term_settings(examples, steps, in_ci))
    return run


def test_a_term_on_canvas(machine):
    machine(Term, 10, in_ci=350, steps_in_ci=8)


def test_a_term_of_collected_folders(machine):
    machine(TermCollected, 3, in_ci=150, steps_in_ci=8)


@pytest.mark.slow
def test_a_term_with_gradings_stopped_half_way(machine):
    machine(TermInterrupted, 5, 8, in_ci=10)


# --------------------------------------------------------------------------- failures the machine found, kept

ANSWERED01 = Spec("01", 2, (("telescoping_product", "An answer."),))
SOME02 = Spec("02", 1, (("reverse_step_sums_to_one", None), ("greedy_price", "An answer.")))
EVERYONE = {0, 1, 2, 3}


@pytest.fixture
def term(monkeypatch, fast_folder):
    """A fresh machine whose steps a test takes itself, the record checked after each."""
    template = fake_grading.install(monkeypatch)
    made = []

    def new(cls=Term):
        cls.base, cls.template = fast_folder, template
        state = cls()
        made.append(state)
        return state
    yield new
    for state in made:
        state.teardown()


def steps(state, *calls):
    for call, *args in calls:
        getattr(state, call)(*args)
        state.the_record_is_the_model()


def test_found_grading_02_takes_01_away(term):
    """Finding 1: notebook 02 graded into the workspace of 01 deletes 01's pages (and files, marks)."""
    steps(term(), ("start", ANSWERED01), ("grade", {"01"}, EVERYONE, False), ("give", 0, SOME02),
          ("grade", {"02"}, EVERYONE, False))


def test_found_a_regrade_puts_a_hand_grade_back_to_grade(term):
    """Finding 2: the same file graded again, and the written answer graded by hand is to grade again."""
    steps(term(), ("start", ANSWERED01), ("grade", {"01"}, EVERYONE, False),
          ("grade_by_hand", (0, "01"), "telescoping_product", 1.0, "Good."), ("grade", {"01"}, {0}, False))


def test_found_a_lost_csv_loses_the_results_kept(term):
    """grades-by-notebook.csv deleted: the next grading of others drops the results it should keep (its
    rows go missing, the students' files go)."""
    steps(term(), ("start", ANSWERED01), ("grade", {"01"}, {0, 1}, False), ("lose_csv",), ("grade", {"01"}, {2}, False))


def test_found_a_lost_page_is_not_made_again(term):
    """A feedback page deleted: the next grading (of another student) goes on and leaves it missing."""
    state = term()
    steps(state, ("start", ANSWERED01), ("grade", {"01"}, {0, 1}, False))
    state.lose(state.ws / "feedback" / state.ids[0] / "maskdiff" / f"{STEM['01']}.html")
    steps(state, ("grade", {"01"}, {1}, False))


def test_hand_grades_reach_canvas(term):
    state = term()
    steps(state, ("start", ANSWERED01), ("grade", {"01"}, EVERYONE, False),
          *[("grade_by_hand", (p, "01"), "telescoping_product", 0.5 * p, f"comment {p}") for p in EVERYONE],
          ("export_to_canvas",), ("undo",))


def test_a_folder_named_in_non_ascii(term):
    steps(term(TermCollected), ("start", ANSWERED01), ("grade", {"01"}, {2}, False), ("export",))


def test_found_undo_keeps_a_page_the_undone_grading_made_lost(term):
    """A page deleted after the grading that made it, then that grading undone: the page is rightly not
    brought back (the model once expected it; the record was right)."""
    state = term()
    steps(state, ("start", ANSWERED01), ("grade", {"01"}, {0}, False), ("give", 0, SOME02),
          ("grade", {"01", "02"}, {0}, False))
    state.lose(state.ws / "feedback" / state.ids[0] / "maskdiff" / f"{STEM['02']}.html")
    steps(state, ("undo",))


def test_found_undo_brings_back_a_missing_rows_page(term):
    """A page of a row graded missing (nothing handed in) is a page too: undoing a later grading puts it back."""
    state = term(TermCollected)
    steps(state, ("start", ANSWERED01), ("grade", {"02"}, EVERYONE, False), ("grade", {"01"}, {1, 2}, False))
    state.lose(state.ws / "feedback" / state.ids[0] / "maskdiff" / f"{STEM['02']}.html")
    steps(state, ("undo",))
