"""Three weeks of a term as the guides tell it (docs/teaching.md, docs/platforms/canvas.md and moodle.md):
the guides' own commands, word for word but for the downloads' paths, the week's notebook and its column,
run through the command line in a copy of the course (the instructor's folder), with the fake grader
(tests/support/fake_grading.py) and formgrader's hand grading as nbgrader's API does it. Notebooks 01, 02
and 07, a class of four:

1. week 1 taken in and put back; a late zip of one student graded on its own, without the roster, and
   week 1 exported again;
2. week 2, with a student renamed on the platform since week 1;
3. the course fixed (notebook 01's first test worth 3 points: its source and release edited as `release`
   leaves them, and the platform's points set to match); week 3 graded, which says notebook 01 was graded
   under an earlier version; `regrade` of notebook 01 and its export;
4. an appeal on week 2 (a test's score overridden, a hand grade raised) and week 2 exported again.

After each export, that week's column (Canvas) or worksheet (Moodle) holds exactly the marks awarded:
each test's points under the course it was graded under (or a person's override), each answer's hand
grade; and every student is one student throughout."""
import contextlib
import io
import re
import shlex

import pytest

from maskdiff_solutions.course import cli
from tests.support import classes, fake_grading, importers, records
from tests.support.classes import CLASS, NB01, NB02

pytestmark = pytest.mark.course

NB07 = "07_caching.ipynb"
WEEKS = {1: NB01, 2: NB02, 3: NB07}
COLUMNS = {1: "Week 1: noise for words (12345)", 2: "Week 2: undiffusing (12346)", 3: "Week 3: caching (12347)"}
JANE, BOB, ZOE, ANN = CLASS
RENAMED = classes.Student("Smith, Jane", JANE.canvas_id, "smithjane", JANE.folder, address=JANE.email)
FIXED, FIXED_POINTS = "test_MakeSchedule", 3


def guide(platform):
    """The guide's commands, in its order: take in, put back, the late zip and its export, regrade and its export."""
    text = (classes.RELEASE.parents[1] / "docs" / "platforms" / f"{platform}.md").read_text()
    found = re.findall(r"^\s*(python -m maskdiff_solutions .*)$", text, re.MULTILINE)
    assert [line.split()[3] for line in found] == ["grade", "export", "grade", "export", "regrade", "export"], found
    return dict(zip(("take in", "put back", "late", "late export", "regrade", "fixed export"), found))


class Term:
    """The instructor's folder and downloads, the class as the platform names it, and what was awarded."""

    def __init__(self, course, folder, platform):
        self.platform, self.folder = platform, folder
        self.root = classes.course_copy(folder / "course", course.root)
        self.downloads = folder / "Downloads"
        self.downloads.mkdir()
        self.people = list(CLASS)
        self.handed = {}      # (person, week) -> the notebook last graded
        self.most = {}        # (person, week) -> {cell: points} it was graded out of
        self.hand = {}        # (person, week, cell) -> points a person gave (an answer, or a test overridden)
        self.guide = guide(platform)
        self.course = course

    def points(self, week):
        nb = classes.notebooks.read(self.root / "release" / "maskdiff" / WEEKS[week])
        return {classes.notebooks.grade_id(c): float(classes.notebooks.nbgrader(c)["points"]) for c in nb.cells
                if classes.notebooks.nbgrader(c).get("grade")}

    def participants(self, week):
        """Moodle numbers the participants of each assignment anew."""
        return {who: 100 * week + 1 + n for n, who in enumerate(self.people)}

    def roster(self, week):
        """The platform's class list as downloaded this week (Canvas: every week's column and its points;
        Moodle: this assignment's worksheet)."""
        if self.platform == "canvas":
            return classes.write_roster(self.downloads / "gradebook.csv", self.people,
                                        {COLUMNS[w]: sum(self.points(w).values()) for w in WEEKS})
        return classes.write_worksheet(self.downloads / "Grades.csv", self.participants(week),
                                       sum(self.points(week).values()), self.people)

    def download(self, week, batch, name):
        """The platform's zip of this week's assignment: {person: notebook}."""
        path = self.downloads / name
        people = {self.people[CLASS.index(who)]: {WEEKS[week]: nb} for who, nb in batch.items()}
        if self.platform == "canvas":
            return classes.write_canvas(path, people, attachment=1000 * week + len(name))
        return classes.write_moodle(path, people, self.participants(week))

    def run(self, which, week, zip_name="submissions.zip"):
        """One of the guide's commands, for this week's notebook and column; (status, stdout, stderr)."""
        line = self.guide[which].replace("--notebook 01", f"--notebook {WEEKS[week][:2]}")
        line = line.replace("Week 1 (12345)", COLUMNS[week]).replace("submissions.zip", zip_name)
        argv = shlex.split(line.replace("~/Downloads", str(self.downloads)))
        assert argv[:3] == ["python", "-m", "maskdiff_solutions"]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv[3:])
        assert status == 0, f"{line}: exit {status}: {err.getvalue()[-1500:]}"
        return status, out.getvalue(), err.getvalue()

    def graded(self, week, batch):
        for who, nb in batch.items():
            self.handed[(who, week)] = nb
            self.most[(who, week)] = self.points(week)

    def awarded(self, who, week):
        """What the student's notebook of this week earns: None while a written answer awaits a person."""
        nb = self.handed[(who, week)]
        passed, given = fake_grading.verdicts(nb), fake_grading.expected(nb)
        total = 0.0
        for cell, most in self.most[(who, week)].items():
            if (who, week, cell) in self.hand:
                total += self.hand[(who, week, cell)]
            elif cell in passed:
                total += most if passed[cell] else 0.0
            elif given[cell] is None:
                return None
        return total

    def ws(self):
        return self.root / "grading" / "term"

    def sid(self, who):
        return next(sid for sid, _ in records.rows(self.ws()) if sid.endswith(str(self.key(who))))

    def key(self, who):
        return who.canvas_id if self.platform == "canvas" else f"_{101 + CLASS.index(who)}"   # week 1's id

    def by_hand(self, who, week, cell, points):
        """formgrader: a person grades an answer, or overrides a test's score (an appeal)."""
        stem = WEEKS[week][:-6]
        if cell in fake_grading.verdicts(self.handed[(who, week)]):
            records.override(self.ws(), self.sid(who), stem, cell, points)
        else:
            records.hand_grade(self.ws(), self.sid(who), stem, cell, points, "by hand")
        self.hand[(who, week, cell)] = points

    def exported(self, week):
        """{person: mark} of the file the export wrote for this week."""
        if self.platform == "canvas":
            grades, points = importers.canvas_grades(self.ws() / "grades-canvas.csv")
            assert points == {COLUMNS[week]: sum(self.most[(JANE, week)].values())}, points
            return {who: grades[who.canvas_id][COLUMNS[week]] for who in CLASS}
        ids = self.participants(week)
        got = importers.moodle_grades(self.ws() / "grades-moodle.csv", set(ids.values()))
        return {who: got[ids[self.people[CLASS.index(who)]]][0] for who in CLASS}

    def check(self, week):
        assert self.exported(week) == {who: self.awarded(who, week) for who in CLASS}, f"week {week}"


def notebook(course, name, solved, answer=None):
    cells = classes.function_cells(course, name)
    return classes.handed_in(course, name, cells[:solved], {c: answer for c in classes.manual_cells(course, name)}
                             if answer else {})


@pytest.mark.parametrize("platform", ["canvas", "moodle"])
def test_three_weeks_as_the_guides_tell_them(course, monkeypatch, tmp_path, platform):
    template = fake_grading.install(monkeypatch)
    monkeypatch.setenv(fake_grading.TEMPLATE, str(template))   # the copy is the course: its gradebook the same
    term = Term(course, tmp_path, platform)
    monkeypatch.chdir(term.root)   # the instructor runs the commands in the course's folder

    # week 1: taken in, written answers graded by hand, put back
    week1 = {JANE: notebook(course, NB01, 7, "It telescopes."), BOB: notebook(course, NB01, 3, "Hm."),
             ZOE: notebook(course, NB01, 5, "Each factor cancels."), ANN: notebook(course, NB01, 0)}
    term.roster(1)
    term.download(1, week1, "submissions.zip")
    term.run("take in", 1)
    term.graded(1, week1)
    for who, points in ((JANE, 2.0), (BOB, 0.5), (ZOE, 1.5)):
        term.by_hand(who, 1, "telescoping_product", points)
    term.run("put back", 1)
    term.check(1)
    ids = {who: term.sid(who) for who in CLASS}

    # Bob's late file, its code fixed and his answer as it was: graded on its own, week 1 again
    late = {BOB: notebook(course, NB01, 6, "Hm.")}
    term.download(1, late, "late.zip")
    term.run("late", 1)
    term.graded(1, late)
    term.run("late export", 1)
    term.check(1)

    # week 2: Jane is Jane Smith on the platform now
    term.people[0] = RENAMED
    week2 = {who: notebook(course, NB02, n, "An answer.") for n, who in zip((15, 4, 9, 12), CLASS)}
    term.roster(2)
    term.download(2, week2, "submissions.zip")
    _, _, err = term.run("take in", 2)
    assert [line for line in err.splitlines() if "is now" in line and "Smith" in line], err[-1500:]
    term.graded(2, week2)
    for who in CLASS:
        for cell in classes.manual_cells(course, NB02):
            term.by_hand(who, 2, cell, 1.0)
    term.run("put back", 2)
    term.check(2)
    assert {who: term.sid(who) for who in CLASS} == ids, "a student renamed is still one student"

    # the course fixed and released; week 3 says notebook 01 was graded under an earlier version
    classes.change_points(term.root, NB01, FIXED, FIXED_POINTS)
    week3 = {who: notebook(course, NB07, n, "Because.") for n, who in zip((6, 2, 4, 0), CLASS)}
    term.roster(3)
    term.download(3, week3, "submissions.zip")
    _, _, err = term.run("take in", 3)
    assert "notebook 01 of 4 students was graded under an earlier version" in err, err[-1500:]
    term.graded(3, week3)
    term.run("put back", 3)
    term.check(3)
    term.roster(1)   # the assignment's points set to the fix's, the roster downloaded again
    _, _, err = term.run("regrade", 1)
    term.most.update({(who, 1): term.points(1) for who in CLASS})
    term.run("fixed export", 1)
    term.check(1)
    assert "earlier version" not in term.run("put back", 3)[2]

    # an appeal on week 2: Bob's failing test given its points, Zoë's answer raised
    failing = next(cell for cell, ok in fake_grading.verdicts(week2[BOB]).items() if not ok)
    term.by_hand(BOB, 2, failing, term.most[(BOB, 2)][failing])
    term.by_hand(ZOE, 2, "greedy_price", 2.0)
    term.roster(2)
    term.run("put back", 2)
    term.check(2)
    for week in WEEKS:   # every week again, at the end: each column exactly its marks
        term.roster(week)
        term.run("put back", week)
        term.check(week)
    assert {who: term.sid(who) for who in CLASS} == ids
