"""The model of a term that the Hypothesis state machine (tests/course/ledger/test_term_model.py) holds the
record to: what each student hands in (`Spec`), what the fake grader (tests/support/fake_grading.py) gives
it under a version of the course (`scores`), and what the record must hold of each (student, notebook)
graded (`Graded`: the content graded, the points it was graded out of, a person's hand grades and
overrides, and the decisions set aside because what they judged changed).

Two versions of the course: the course as released, and the course fixed during the term (`fixed`: notebook
01's first test worth 3 points instead of 2, in its source and release alike), made once per process."""
import atexit
import shutil
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from maskdiff_solutions.course.intake import notebooks as nbs
from maskdiff_solutions.course.layout import Course
from tests.support import classes, fake_grading

ROOT = Path(__file__).resolve().parents[2]
COURSE = Course.load(ROOT)
NOTEBOOKS = {"01": classes.NB01, "02": classes.NB02}
STEM = {key: name[:-6] for key, name in NOTEBOOKS.items()}
FUNCTIONS = {key: classes.function_cells(COURSE, name) for key, name in NOTEBOOKS.items()}
ANSWERS = {key: classes.manual_cells(COURSE, name) for key, name in NOTEBOOKS.items()}
FIXED_CELL, FIXED_POINTS = "test_MakeSchedule", 3   # the fix: notebook 01's first test, 2 points before
SYSTEM_TMP = tempfile.gettempdir()   # read at import: a test may point tempfile at a folder of its own for a while


@lru_cache(maxsize=None)
def fixed():
    """The course fixed during the term (a copy, made once per process)."""
    folder = Path(tempfile.mkdtemp(prefix="maskdiff-fixed-course-", dir=SYSTEM_TMP))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Course.load(classes.changed_course(folder / "course", ROOT, NOTEBOOKS["01"], FIXED_CELL, FIXED_POINTS))


@lru_cache(maxsize=None)
def maxima(course_root, notebook):
    """{cell: points} of every graded cell of a notebook of the course at course_root."""
    nb = nbs.read(Path(course_root) / "release" / "maskdiff" / NOTEBOOKS[notebook])
    return {nbs.grade_id(c): float(nbs.nbgrader(c)["points"]) for c in nb.cells if nbs.nbgrader(c).get("grade")}


@dataclass(frozen=True)
class Spec:
    """A notebook as handed in: how much is solved (0 none, 1 the first two cells, 2 all: its code), and
    each written answer's text (None: as released)."""
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
def _fake(spec):
    nb = nbs.read_text(notebook_bytes(spec).decode())
    return fake_grading.verdicts(nb), fake_grading.expected(nb)


def scores(spec, most):
    """{cell: score or None} the fake gives this notebook under a course whose cells are worth `most`: a test
    its points if it passes, an answer as nbgrader scores it (None: a person grades it)."""
    passed, given = _fake(spec)
    return {cell: (most[cell] if passed[cell] else 0.0) if cell in passed else given[cell] for cell in given}


@dataclass
class Graded:
    """A (student, notebook) as the record should hold it."""
    spec: Spec
    most: dict                                        # {cell: points} it was graded out of
    hand: dict = field(default_factory=dict)          # answer cell -> (points, comment): valid hand grades
    changed: set = field(default_factory=set)         # answer cells whose hand grade was set aside (to grade again)
    overrides: dict = field(default_factory=dict)     # test cell -> points a person gave it
    set_aside: set = field(default_factory=set)       # test cells whose override was set aside (code changed)

    def regraded(self, spec, most):
        """The record after grading `spec` under `most`: each hand grade kept where its answer is unchanged,
        each override where the code is (a written answer is not a test's code); the others set aside."""
        now = Graded(spec, most)
        for cell, given in self.hand.items():
            if spec.answer(cell) == self.spec.answer(cell):
                now.hand[cell] = given
            else:
                now.changed.add(cell)
        for cell, points in self.overrides.items():
            if spec.level == self.spec.level:
                now.overrides[cell] = points
            else:
                now.set_aside.add(cell)
        now.changed |= {c for c in self.changed if c not in now.hand}
        now.set_aside |= {c for c in self.set_aside if c not in now.overrides}
        return now

    def cell(self, cell):
        """(manual score or None, to grade, comment or None) the gradebook must hold for an answer cell;
        for a test cell (its score, False, None): a person's override, else the fake's."""
        notebook = self.spec.notebook
        if cell not in ANSWERS[notebook]:
            return self.overrides.get(cell, scores(self.spec, self.most)[cell]), False, None
        if cell in self.hand:
            return self.hand[cell][0], False, self.hand[cell][1]
        if cell in self.changed:
            return "any", True, "any"
        if self.spec.answer(cell) is None:
            return None, False, "No response."
        return None, True, None

    def row(self):
        """(auto score, auto max, manual awarded, manual to grade)."""
        notebook = self.spec.notebook
        tests = [c for c in self.most if c not in ANSWERS[notebook]]
        manual = pending = 0.0
        for cell in ANSWERS[notebook]:
            score, to_grade, _ = self.cell(cell)
            if to_grade:
                pending += self.most[cell]
            elif cell in self.hand:
                manual += score
        return (sum(self.cell(c)[0] or 0.0 for c in tests), sum(self.most[c] for c in tests), manual, pending)

    def named(self):
        """The cells whose decisions the row must name as set aside."""
        return (self.changed - set(self.hand)) | (self.set_aside - set(self.overrides))
