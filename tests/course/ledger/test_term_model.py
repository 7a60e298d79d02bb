"""A term of grading as Hypothesis's state machine (issues 52 and 62): an instructor hands notebooks 01 and
02 of a small class to `grade` in any order, with Canvas's roster or without it (a late zip), with
`--replace` or not; students are renamed in Canvas and rosters arrive written on a Mac (NFD); written
answers are graded by hand and autograded tests overridden (formgrader), answers resubmitted alone; the
course is fixed during the term and `regrade` applies the fix; each week is exported into its own Canvas
column and earlier weeks again; `undo`; a derived file is lost; and (a slower machine) a grading is
stopped half-way and followed by an export. After every step the record must be what a model of the term
says (tests/support/term.py). The fake grader (tests/support/fake_grading.py) grades in milliseconds, by a
rule of the notebook's content, so the model knows every score.

Invariants after every step:

- one student per platform id: a student's id is fixed the first time the workspace sees them, whatever
  their name since (renamed, NFD) and with or without a roster; every student with a row has exactly one
  row per notebook graded for anyone in the workspace, missing where no grading found theirs;
- no stored score changes unless that notebook was graded again: every test cell's score is the fake's
  score of the content last graded, under the points it was graded out of (a course fixed since changes
  nothing until `regrade`), or a person's override;
- every decision entered (a hand grade, its comment, an override) is in the gradebook and in the record's
  decisions, in grades-by-notebook.csv and the feedback page once they were remade, and in Canvas's column,
  unless what it judged changed since (an answer; for an override, the code): then it is set aside and
  the row names it; `undo` keeps every decision made since on what the grading undone did not touch;
- derived files equal what the record derives: grades-by-student.csv and each Canvas column equal the
  rows, each column holds its notebook's marks only; a column whose points are not the notebook's (or
  whose results were graded under different points) stops the export;
- a derived file deleted (grades-by-notebook.csv, grades-by-student.csv, a feedback page): the next command
  rebuilds it, or stops with exit 2, one `error:` line and nothing changed; after a grading killed
  half-way `export --to canvas` stops until the grading is finished.

Examples: MASKDIFF_TERM_EXAMPLES, else 10 + 3 of up to 12 steps (the inner loop) and 350 + 150 of up to 8
steps where CI is set (`.ci/run`: 500 sequences of an instructor's actions, measured on the 2-core
machine); the slow machine that stops gradings: 5, 10 in CI (subprocesses); MASKDIFF_TERM_STEPS steps each
(default 12, 8 in CI); MASKDIFF_TERM_SHRINK=1 shrinks a failure (minutes). A failure found is kept below as
a test of its steps (`test_found_...`).
"""
import copy
import csv
import dataclasses
import os
import shutil
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, run_state_machine_as_test

from maskdiff_solutions.course.intake.folder import student_id
from maskdiff_solutions.course.intake.platforms import Intake
from maskdiff_solutions.course.records.rows import CSV_NAME
from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, COLUMN, COLUMN02
from tests.support.term import ANSWERS, COURSE, NOTEBOOKS, STEM, Graded, Spec, fixed, maxima, notebook_bytes

pytestmark = pytest.mark.course


def xdist_group(item):
    """Its tests share nothing costly (each process makes the gradebook template once): any worker."""
    return None


KEPT = 5   # safekeeping.KEPT: the earlier gradings kept
DERIVED = {"csv": CSV_NAME, "by-student": "grades-by-student.csv"}
COLUMNS = {"01": COLUMN, "02": COLUMN02}
RENAMED = {0: "Smith, Jane", 2: "Núñez Ruiz, Zoë"}   # names Canvas may give two of the class during the term


def specs(notebook):
    return st.builds(Spec, st.just(notebook), st.integers(0, 2),
                     st.tuples(*[st.tuples(st.just(cell), st.sampled_from([None, "An answer.", "Another answer."]))
                                 for cell in ANSWERS[notebook]]))


def nfc(name):
    return unicodedata.normalize("NFC", name)


class Term(RuleBasedStateMachine):
    """One workspace through a term (module docstring). MODE "canvas": Canvas's zips, with the roster or
    without it (export --to canvas works); "collected": collected/ folders, one named in non-ASCII."""
    MODE = "canvas"
    base = None          # the test's tmp_path
    template = None

    def __init__(self):
        super().__init__()
        self.root = Path(tempfile.mkdtemp(dir=self.base))
        self.ws = self.root / "ws"
        self.course = COURSE
        self.people = list(CLASS)   # as Canvas names them now
        self.nfd = False            # the roster (canvas) or the folders (collected) written in NFD
        self.handed = {}            # (person, notebook) -> Spec in their folder now
        self.graded = {}            # (person, notebook) -> Graded
        self.rows_due = {}          # (person, notebook) -> "graded" or "missing": the CSV's rows
        self.under = {}             # (person, notebook) of a missing row a grading recorded -> the points then
        self.fresh_rows = set()     # (person, notebook) whose CSV row was remade from the gradebook since a decision
        self.fresh_pages = set()    # ... whose feedback page was
        self.kept = []              # earlier-gradings/, oldest first: {"kind": "kept"|"undone", "model", "decided", "touched"}
        self.ids = {}               # person -> student id, fixed the first time the workspace saw them
        self.names = {}             # person -> the name the record shows (the latest roster's, NFC)
        self.log = []               # the decisions a person made: (n, key, "answer"|"test", cell, value, what it judged)
        self.deleted = None         # (path, bytes) of a derived file deleted by the last step
        self.canvas = None          # {notebook: column} of grades-canvas.csv while it is made from the record now
        self.batches = 0

    def teardown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------- commands

    def run(self, *args):
        return records.run(self.course, *args)

    def command(self, *args, due=None):
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
            self.nothing_changed(before, args[0])
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

    def nothing_changed(self, before, what):
        now = self.contents()
        changed = sorted(str(p) for p in set(before) | set(now) if before.get(p) != now.get(p))
        assert not changed, f"`{what}` stopped (exit 2) but changed {changed}"

    def snapshot(self):
        return copy.deepcopy((self.graded, self.rows_due, self.under, self.fresh_rows, self.fresh_pages, self.names,
                              self.ids))

    def restore(self, snapshot):
        (self.graded, self.rows_due, self.under, self.fresh_rows, self.fresh_pages, self.names,
         self.ids) = copy.deepcopy(snapshot)

    def roster(self):
        """Canvas's gradebook export as it is now: the class's names (NFD where a Mac wrote it), each
        notebook's column worth its points in the course as it is now."""
        people = [dataclasses.replace(who, name=unicodedata.normalize("NFD", who.name)) if self.nfd else who
                  for who in self.people]
        points = {COLUMNS[nb]: sum(maxima(str(self.course.root), nb).values()) for nb in NOTEBOOKS}
        self.batches += 1
        return classes.write_roster(self.root / f"roster{self.batches}.csv", people, points)

    def batch(self, notebooks, people):
        self.batches += 1
        files = {p: {NOTEBOOKS[nb]: self.handed[(p, nb)] for nb in notebooks if (p, nb) in self.handed} for p in people}
        if self.MODE == "canvas":
            path = self.root / f"batch{self.batches}.zip"
            classes.write_canvas(path, {self.people[p]: {name: notebook_bytes(spec) for name, spec in got.items()}
                                        for p, got in files.items() if got}, attachment=1000 * self.batches)
            return path, any(files.values())
        folder = self.root / f"batch{self.batches}"
        for p, got in files.items():
            name = unicodedata.normalize("NFD", CLASS[p].folder) if self.nfd else CLASS[p].folder
            (folder / name).mkdir(parents=True)
            for file_name, spec in got.items():
                (folder / name / file_name).write_bytes(notebook_bytes(spec))
        return folder, True

    def grade_args(self, path, notebooks, only_changed=False, roster=True, replace=False):
        args = ["grade", path, "--workspace", self.ws, "--no-canary", "--sandbox", "off"]
        args += [part for nb in sorted(notebooks) for part in ("--notebook", nb)]
        args += ["--roster", self.roster()] if self.MODE == "canvas" and roster else []
        return args + (["--only-changed"] if only_changed else []) + (["--replace"] if replace else [])

    def most(self, notebook):
        return maxima(str(self.course.root), notebook)

    def graded_now(self, notebooks, people, only_changed=False, roster=True, replace=False):
        """The model after a grading of `notebooks` from a batch of `people`'s files; returns the (person,
        notebook) it recorded (touched). roster: Canvas's roster given (everyone on it is in the batch);
        replace: --replace (a notebook a student who handed in something left out is graded missing)."""
        handed = {p for p in people if any((p, nb) in self.handed for nb in notebooks)} \
            if self.MODE == "canvas" else set(people)
        batch = set(range(len(CLASS))) if self.MODE == "canvas" and roster else handed
        touched = set()
        for p in sorted(batch):
            for nb in notebooks:
                key = (p, nb)
                spec = self.handed.get(key) if p in handed else None
                before = self.graded.get(key)
                touched.add(key)
                if spec is not None:
                    self.graded[key] = before.regraded(spec, self.most(nb)) if before else Graded(spec, self.most(nb))
                    self.rows_due[key] = "graded"
                    self.under.pop(key, None)
                    if not (only_changed and before is not None and before.spec == spec and before.most == self.most(nb)):
                        self.fresh_pages.add(key)
                elif before is None or (replace and p in handed):
                    self.graded.pop(key, None)
                    self.rows_due[key] = "missing"
                    self.under[key] = self.most(nb)
                else:
                    touched.discard(key)   # kept as it was: its reason alone says so
        # everyone out of the same maximum: a student with any row has one for every notebook graded
        # for anyone in this workspace (missing where no grading found theirs)
        for p in {p for p, _ in self.rows_due}:
            for nb in {nb for _, nb in self.rows_due}:
                self.rows_due.setdefault((p, nb), "missing")
        self.fresh_rows = set(self.graded)
        if self.MODE == "canvas" and roster:
            self.names.update({p: nfc(who.name) for p, who in enumerate(self.people)})
        self.learn_ids()
        self.canvas = None
        return touched

    def learn_ids(self):
        intake = Intake.load(self.ws)
        for p, who in enumerate(CLASS):
            if self.MODE == "canvas" and intake:
                found = [sid for sid, s in intake.students.items() if s.key == who.canvas_id]
                assert len(found) <= 1, f"Canvas id {who.canvas_id} is {len(found)} students in intake.json: {found}"
                if found and p in self.ids and any(k[0] == p for k in self.rows_due):
                    assert found[0] == self.ids[p], f"{who.name} was {self.ids[p]}, now {found[0]}: a second student"
                if found:
                    self.ids[p] = found[0]
            elif self.MODE != "canvas":
                self.ids[p] = student_id(who.folder)

    def keep_aside(self, had_results, touched):
        """The grading just done kept the workspace before it for `undo` (earlier-gradings/)."""
        if had_results:
            self.kept[-1]["touched"] = touched
            del self.kept[:-KEPT]

    def before_grading(self, had_results):
        if had_results:
            self.kept.append({"kind": "kept", "model": self.snapshot(), "decided": len(self.log), "touched": set()})

    def outdated(self):
        """The notebooks the record holds results of graded under an earlier version of the course."""
        now = {nb: self.most(nb) for nb in NOTEBOOKS}
        return {nb for (p, nb), g in self.graded.items() if g.most != now[nb]} | \
            {nb for (p, nb), most in self.under.items() if most != now[nb] and self.rows_due.get((p, nb)) == "missing"}

    def said_outdated(self, err):
        for nb in NOTEBOOKS:
            assert (f"regrade --notebook {nb}" in err) == (nb in self.outdated()), \
                f"notebook {nb} {'is' if nb in self.outdated() else 'is not'} graded under an earlier course: {err[-600:]}"

    # ------------------------------------------------------------------- rules

    @initialize(first=st.builds(Spec, st.just("01"), st.integers(0, 2),
                                st.tuples(*[st.tuples(st.just(c), st.sampled_from([None, "An answer."]))
                                            for c in ANSWERS["01"]])))
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

    @precondition(lambda self: self.graded)
    @rule(data=st.data())
    def resubmit_an_answer(self, data):
        """A student hands in again with a written answer changed and their code as it was."""
        person, notebook = data.draw(st.sampled_from(sorted(self.graded)), label="graded notebook")
        spec = self.graded[(person, notebook)].spec
        cell = data.draw(st.sampled_from(ANSWERS[notebook]), label="answer")
        text = "A new answer." if spec.answer(cell) != "A new answer." else "Yet another answer."
        self.give(person, Spec(notebook, spec.level, tuple((c, text if c == cell else t) for c, t in spec.answers)))

    @precondition(lambda self: self.MODE == "canvas")
    @rule(person=st.sampled_from(sorted(RENAMED)))
    def rename(self, person):
        """Canvas renames a student (the same user id): the next roster and files carry the new name."""
        who = self.people[person]
        new = RENAMED[person] if who.name == CLASS[person].name else CLASS[person].name
        last, first = new.split(", ")
        self.people[person] = dataclasses.replace(who, name=new, sortable=(last + first).lower().replace(" ", ""))

    @rule()
    def written_on_a_mac(self):
        """The roster (Canvas) or the students' folders (collected) arrive in NFD from now on, or in NFC again."""
        self.nfd = not self.nfd

    @rule(notebooks=st.sets(st.sampled_from(sorted(NOTEBOOKS)), min_size=1),
          people=st.sets(st.integers(0, len(CLASS) - 1), min_size=1), only_changed=st.booleans(),
          roster=st.sampled_from([True, True, False]), replace=st.sampled_from([False, False, True]))
    def grade(self, notebooks, people, only_changed, roster=True, replace=False):
        roster = roster or self.MODE != "canvas"
        path, any_file = self.batch(notebooks, people)
        had_results = (self.ws / CSV_NAME).is_file() or (self.deleted and self.deleted[0].name == CSV_NAME)
        status, out, err = self.command(*self.grade_args(path, notebooks, only_changed, roster, replace))
        if not any_file:
            assert status == 2, f"a Canvas zip with no file was graded (exit {status})"
            return
        assert status == 0, f"grade exited {status}: {err[-800:]}"
        self.before_grading(had_results)
        self.keep_aside(had_results, self.graded_now(notebooks, people, only_changed, roster, replace))
        self.said_outdated(err)

    @precondition(lambda self: self.course is COURSE and self.MODE == "canvas")
    @rule()
    def fix_the_course(self):
        """A test of notebook 01 is made worth a point more, and released; Canvas's column follows it."""
        self.course = fixed()

    @precondition(lambda self: self.rows_due)
    @rule()
    def regrade(self):
        outdated = self.outdated()
        had_results = (self.ws / CSV_NAME).is_file() or (self.deleted and self.deleted[0].name == CSV_NAME)
        status, out, err = self.command("regrade", "--workspace", self.ws, "--no-canary", "--sandbox", "off")
        assert status == 0, f"regrade exited {status}: {err[-800:]}"
        if not outdated:
            assert "nothing to regrade" in out
            return
        self.before_grading(had_results)
        touched = set()
        for (p, nb), g in list(self.graded.items()):
            if nb in outdated:
                self.graded[(p, nb)] = g.regraded(g.spec, self.most(nb))
                self.fresh_pages.add((p, nb))
                touched.add((p, nb))
        for key in list(self.under):
            if key[1] in outdated:
                self.under[key] = self.most(key[1])
        self.fresh_rows = set(self.graded)
        self.canvas = None
        self.keep_aside(had_results, touched)
        assert not self.outdated()

    @precondition(lambda self: self.graded)
    @rule(data=st.data())
    def hand_grade(self, data):
        key = data.draw(st.sampled_from(sorted(self.graded)), label="graded notebook")
        cell = data.draw(st.sampled_from(ANSWERS[key[1]]), label="cell")
        most = self.graded[key].most[cell]
        points = data.draw(st.sampled_from([0.0, most / 2, most]), label="points")
        comment = data.draw(st.sampled_from(["", "Good.", "Say why, please.", "Très bien: ½ point more."]), label="comment")
        self.grade_by_hand(key, cell, points, comment)

    def grade_by_hand(self, key, cell, points, comment):
        """formgrader: a person grades the answer `cell` of (person, notebook) `key`."""
        graded = self.graded[key]
        records.hand_grade(self.ws, self.ids[key[0]], STEM[key[1]], cell, points, comment)
        graded.hand[cell] = (points, comment)
        graded.changed.discard(cell)
        self.decided(key, "answer", cell, (points, comment), graded.spec.answer(cell))

    @precondition(lambda self: self.graded)
    @rule(data=st.data())
    def override(self, data):
        """formgrader: a person gives an autograded test a score of their own (a drawing reviewed, an appeal)."""
        key = data.draw(st.sampled_from(sorted(self.graded)), label="graded notebook")
        graded = self.graded[key]
        cell = data.draw(st.sampled_from(sorted(c for c in graded.most if c not in ANSWERS[key[1]])), label="test")
        points = data.draw(st.sampled_from([0.0, graded.most[cell]]), label="points")
        records.override(self.ws, self.ids[key[0]], STEM[key[1]], cell, points)
        graded.overrides[cell] = points
        graded.set_aside.discard(cell)
        self.decided(key, "test", cell, points, graded.spec.level)

    def decided(self, key, kind, cell, value, judged):
        self.log.append((len(self.log) + 1, key, kind, cell, value, judged))
        self.fresh_rows.discard(key)
        self.fresh_pages.discard(key)
        self.canvas = None

    @precondition(lambda self: self.rows_due)
    @rule()
    def export(self):
        status, _, err = self.command("export", "--workspace", self.ws)
        assert status == 0, f"export exited {status}: {err[-800:]}"
        self.fresh_rows = set(self.graded)
        self.fresh_pages = set(self.graded)
        self.said_outdated(err)
        self.canvas = None   # made again where the record allows (returns.refresh): checked where it is

    @precondition(lambda self: self.rows_due and self.MODE == "canvas")
    @rule(which=st.sampled_from(["each", "01", "02"]))
    def export_to_canvas(self, which="each"):
        """Each week into its own column (notebook 02's found by its title in the roster), or one week
        (again): the column must hold that notebook's marks only, or the export stop where the column's
        points are not those its results were graded out of."""
        graded = sorted({nb for _, nb in self.rows_due})
        chosen = graded if which == "each" else [which]
        args = ["export", "--workspace", self.ws, "--to", "canvas", "--roster", self.roster()]
        args += ["--each-notebook"] if which == "each" else ["--notebook", which]
        args += ["--column", f"01={COLUMN}"] if "01" in chosen else []
        status, _, err = self.command(*args)
        never = [nb for nb in chosen if nb not in graded]
        stop = never or [nb for nb in chosen if self.points_out_of(nb) != {sum(self.most(nb).values())}]
        if stop:
            assert status == 2 and len(records.error_lines(err)) == 1, f"export of {chosen} should stop ({stop}): {err[-800:]}"
            return
        if status == 2 and "would give 0" in err:
            assert self.may_zero(chosen), f"export refused new zeros the model knows nothing of: {err[-800:]}"
            return
        assert status == 0, f"export --to canvas exited {status}: {err[-800:]}"
        self.fresh_rows = set(self.graded)
        self.fresh_pages = set(self.graded)
        self.canvas = {nb: COLUMNS[nb] for nb in chosen}
        self.canvas_is_the_record()

    def may_zero(self, notebooks):
        """Whether someone of whom nothing of these notebooks was found now had work of them in a grading
        kept for `undo` (`export --to` then refuses to give them 0 unasked)."""
        nothing = {p for p, _ in self.rows_due} - {p for (p, nb), due in self.rows_due.items()
                                                   if nb in notebooks and due == "graded"}
        return any(due == "graded" and p in nothing and nb in notebooks
                   for entry in self.kept if entry["kind"] == "kept" for (p, nb), due in entry["model"][1].items())

    def points_out_of(self, notebook):
        """The points the rows of a notebook are out of: each result's as graded, a missing one's as recorded."""
        got = set()
        for (p, nb), due in self.rows_due.items():
            if nb != notebook:
                continue
            most = self.graded[(p, nb)].most if due == "graded" else self.under.get((p, nb), self.most(nb))
            got.add(sum(most.values()))
        return got

    @precondition(lambda self: self.rows_due)
    @rule()
    def undo(self):
        candidates = [i for i, entry in enumerate(self.kept) if entry["kind"] == "kept"]
        restored = self.kept[candidates[-1]]["model"][1] if candidates else self.rows_due   # the rows it brings back
        status, _, err = self.command("undo", "--workspace", self.ws, due=lambda path: self.page_in(path, restored))
        if not candidates:
            assert status == 2, f"undo with no earlier grading kept exited {status}"
            return
        assert status == 0, f"undo exited {status}: {err[-800:]}"
        entry = self.kept.pop(candidates[-1])
        self.kept.append({"kind": "undone"})
        self.restore(entry["model"])
        since = [decision for decision in self.log if decision[0] > entry["decided"]]
        for _, key, kind, cell, value, judged in since:   # decisions made since: kept unless what they judged went
            graded = self.graded.get(key)
            if graded is None:
                continue
            same = key not in entry["touched"] or judged == (graded.spec.answer(cell) if kind == "answer" else graded.spec.level)
            if kind == "answer":
                if same:
                    graded.hand[cell] = value
                    graded.changed.discard(cell)
                else:
                    graded.changed.add(cell)
            elif same:
                graded.overrides[cell] = value
                graded.set_aside.discard(cell)
            else:
                graded.set_aside.add(cell)
        remade = {key[0] for _, key, *_ in since}
        self.fresh_rows = set(self.graded)
        self.fresh_pages |= {key for key in self.graded if key[0] in remade}
        self.canvas = None
        self.said_outdated(err)

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
        decided = records.decisions(self.ws)
        ids = dict(self.ids)
        assert len(set(ids.values())) == len(ids), f"two people of the class are one student: {ids}"
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
            for cell in graded.most:
                auto, manual, to_grade, comment = marks[(sid, stem, cell)]
                want = graded.cell(cell)
                if cell not in ANSWERS[nb]:
                    got = manual if cell in graded.overrides else auto
                    assert (got, to_grade) == (want[0], False), f"{sid} {stem} {cell}: gradebook {got, to_grade}, model {want[:2]}"
                    continue
                got = (manual if cell in graded.hand else None, to_grade, comment)
                if want[0] == "any":
                    assert to_grade, f"{sid} {stem} {cell}: answered anew since it was graded by hand, yet not to grade"
                    continue
                assert got == want, f"{sid} {stem} {cell}: gradebook (manual, to grade, comment) {got}, model {want}"
            if (p, nb) in self.fresh_rows:
                self.decisions_are_kept(sid, stem, graded, decided)
                auto, auto_max, manual, pending = graded.row()
                assert (row.auto_score, row.auto_max, row.manual_score, row.manual_pending) == \
                    (auto, auto_max, manual, pending), f"{sid} {stem}: row {row}, model {(auto, auto_max, manual, pending)}"
                for cell in graded.named():
                    assert cell in row.reason, f"{sid} {stem}: a decision of {cell} was set aside; the row should say so: {row.reason!r}"
            if (p, nb) in self.fresh_pages:
                self.the_page_is_the_record(sid, stem, graded)
        self.totals_equal_rows(rows)
        if self.canvas:
            self.canvas_is_the_record()

    def decisions_are_kept(self, sid, stem, graded, decided):
        """Every decision in force is the record's latest of its cell, held."""
        for cell, (points, comment) in graded.hand.items():
            assert decided.get((sid, stem, cell, "score")) == (points, "held"), \
                f"{sid} {stem} {cell}: the record's decision {decided.get((sid, stem, cell, 'score'))}, given {points}"
        for cell, points in graded.overrides.items():
            assert decided.get((sid, stem, cell, "score")) == (points, "held"), \
                f"{sid} {stem} {cell}: the record's override {decided.get((sid, stem, cell, 'score'))}, given {points}"

    def the_page_is_the_record(self, sid, stem, graded):
        page = records.page(self.ws, sid, stem)
        assert page not in (None, "absent"), f"{sid} {stem}: no feedback page ({page})"
        for cell in graded.most:
            want = graded.cell(cell)
            score, most, comment = page[cell]
            assert most == graded.most[cell], f"{sid} {stem} {cell}: the page says out of {most}, graded out of {graded.most[cell]}"
            if want[0] == "any" or want[1]:
                assert score is None, f"{sid} {stem} {cell}: the page gives {score}, yet it is to grade"
            else:
                assert score == (want[0] if want[0] is not None else 0.0), f"{sid} {stem} {cell}: page {score}, model {want}"
                if cell in graded.hand:
                    assert comment == graded.hand[cell][1], f"{sid} {stem} {cell}: page comment {comment!r}, model {graded.hand[cell][1]!r}"
        if graded.named():
            text = (self.ws / "feedback" / sid / "maskdiff" / f"{stem}.html").read_text()
            assert "Set aside" in text and all(c in text for c in graded.named()), f"{sid} {stem}: the page names no decision set aside"

    def canvas_is_the_record(self):
        """grades-canvas.csv, one line per Canvas id, each column exactly its notebook's marks."""
        got, points = importers.canvas_grades(self.ws / "grades-canvas.csv")   # (which fails on an id twice)
        assert set(points) == set(self.canvas.values()), f"grades-canvas.csv holds {sorted(points)}, exported {self.canvas}"
        for p, who in enumerate(CLASS):
            for nb, column in self.canvas.items():
                due = self.rows_due.get((p, nb))
                if due is None:
                    assert who.canvas_id not in got or got[who.canvas_id][column] is None
                    continue
                row = self.graded[(p, nb)].row() if due == "graded" else (0.0, 0.0, 0.0, 0.0)
                want = None if row[3] else row[0] + row[2]
                assert got[who.canvas_id][column] == want, \
                    f"{who.name} in {column}: {got[who.canvas_id][column]}, the record says {want}"

    def totals_equal_rows(self, rows):
        path = self.ws / "grades-by-student.csv"
        if not path.is_file():
            return
        with open(path, newline="", encoding="utf-8") as handle:
            found = list(csv.DictReader(handle))
        totals = {record["student"]: float(record["total"]) for record in found}
        want = {}
        for (student, _), row in rows.items():
            want[student] = want.get(student, 0.0) + row.auto_score + row.manual_score
        assert totals == want, f"grades-by-student.csv {totals} against the rows {want}"
        if self.MODE == "canvas":
            names = {record["student"]: record["name"] for record in found}
            for p, name in self.names.items():
                if self.ids.get(p) in names:
                    assert names[self.ids[p]] == name, f"{self.ids[p]} is named {names[self.ids[p]]!r}, the latest roster {name!r}"


class TermCollected(Term):
    MODE = "collected"


class TermInterrupted(Term):
    """The term with gradings stopped half-way (a subprocess signalling itself, fake_grading.STOP), then an
    export to Canvas (which must refuse while the grading is unfinished), then the grading run again: the
    pair must leave what one grading leaves, and count as one grading for `undo`."""

    @precondition(lambda self: self.handed)
    @rule(notebooks=st.sets(st.sampled_from(sorted(NOTEBOOKS)), min_size=1),
          people=st.sets(st.integers(0, len(CLASS) - 1), min_size=1), how=st.sampled_from(["INT", "KILL"]),
          at=st.integers(1, 12))
    def interrupted_grade(self, notebooks, people, how, at):
        path, any_file = self.batch(notebooks, people)
        if self.MODE == "canvas" and not any_file:
            return
        had_results = (self.ws / CSV_NAME).is_file()
        args = self.grade_args(path, notebooks)
        template = self.template if self.course is COURSE else fake_grading.template_gradebook(str(self.course.root))
        done = fake_grading.run_stopped(self.course.root, args, template, stop=f"{how}@{at}", tmpdir=self.root)
        if how == "INT" and done.returncode != 0:
            assert "Traceback" not in done.stderr, f"Ctrl-C printed a traceback ending {done.stderr.strip().splitlines()[-1]!r}"
        if self.MODE == "canvas" and done.returncode != 0 and self.deleted is None:
            before = self.contents()
            status, _, err = self.run("export", "--workspace", self.ws, "--to", "canvas", "--each-notebook",
                                      "--column", f"01={COLUMN}")
            assert status == 2 and "stopped before it finished" in err, f"export after a stopped grading: {status} {err[-600:]}"
            self.nothing_changed(before, "export after a stopped grading")
        status, _, err = self.command(*args)
        assert status == 0, f"grade after an interrupted grading exited {status}: {err[-800:]}"
        self.before_grading(had_results)
        self.keep_aside(had_results, self.graded_now(notebooks, people))


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


def test_found_a_set_aside_grade_is_named_on_the_page_after_a_regrade_with_replace(term):
    """A hand grade set aside by a resubmitted answer must be named on the page, also after later gradings."""
    state = term(TermCollected)
    blank = Spec("01", 1, (("telescoping_product", None),))
    steps(state, ("start", blank), ("grade", {"01", "02"}, EVERYONE, True),
          ("grade_by_hand", (2, "01"), "telescoping_product", 2.0, "Good."),
          ("give", 2, Spec("01", 1, (("telescoping_product", "A new answer."),))),
          ("grade", {"01"}, {1, 2}, False, False, True))
    state.lose_csv()
    steps(state, ("grade", {"01"}, EVERYONE, True, False, True))


def test_found_a_roster_name_reaches_the_students_only_changed_kept(term):
    """Graded without a roster (the files' form of the name, `doejane`), then again with it and --only-changed:
    the students kept unchanged are still who the roster says (`Doe, Jane`), and a later grading without the
    roster does not take the roster's name back."""
    steps(term(), ("start", ANSWERED01), ("fix_the_course",),
          ("grade", {"02", "01"}, EVERYONE, False, False, True), ("grade", {"02", "01"}, EVERYONE, True, True, False),
          ("export_to_canvas", "01"), ("grade", {"01"}, {0}, False, False, True))
