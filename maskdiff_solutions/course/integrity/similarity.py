"""`similarity`: how alike the students' handed-in solutions are, notebook by notebook, measured with
copydetect (a winnowing detector like MOSS: code tokenized, names, strings, comments and layout
filtered out, every stretch of NOISE characters of what is left fingerprinted). Nothing a student
wrote is run: the notebooks in WORKSPACE/submitted/ are read as JSON, and one that cannot be read is
left out with a note.

A student's part of a notebook is its solution code cells (carried cells left out: their functions
are compared in their own notebook), or with `answers` its written answers. What the release gives
everyone (every given, test and stub cell of every release notebook; for answers, its text and
questions) is boilerplate: its fingerprints are taken out of every student's, so what two students
share only through it counts for nothing, and students who left the stubs share nothing. Each cell is fingerprinted alone (no stretch spans two
cells). Of a pair, each student's share is the part of their own code (its tokens beyond the
release) lying in stretches the other's code holds too. Pairs rank by the smaller share (a student
who wrote one common line cannot top the list), then by the tokens shared. High similarity is a
reason to look, never a verdict."""
import csv
import json
from dataclasses import dataclass, field
from io import StringIO

import numpy as np
from nbformat import NotebookNode

from ..intake import notebooks as nbtools
from ..records.totals import STUDENT_CSV

try:
    from copydetect import CodeFingerprint
    from copydetect.utils import get_copied_slices, get_token_coverage
except ImportError:   # check-setup says MISSING; the command says so in one line
    CodeFingerprint = get_copied_slices = get_token_coverage = None

FOLDER = "similarity"       # WORKSPACE/similarity/: the report and the CSV, unless --out says
REPORT, CSV_NAME = "report.html", "similarity.csv"
NOISE = 25                  # copydetect's default: a shared stretch under 25 characters of filtered code is noise
MAX_FILE_BYTES = 20_000_000  # a notebook file larger than this is left out, with a note
MAX_CELL_CHARS = 100_000     # of one cell: the rest is cut, with a note
CODE, ANSWERS = "code", "written answers"
ALL = "all"                 # the notebook column of a pair's rows over every notebook
CSV_FIELDS = ("student_a", "name_a", "student_b", "name_b", "notebook", "part", "similarity_a", "similarity_b",
              "matched_tokens_a", "matched_tokens_b", "tokens_a", "tokens_b")


@dataclass
class Cell:
    grade_id: str
    text: str
    fingerprint: object   # copydetect.CodeFingerprint of this cell alone


@dataclass
class Part:
    """One student's code (or written answers) of one notebook: each fingerprint's cell and position in
    the filtered cell, in that order, its distinct fingerprints sorted, and the tokens of their own
    (copydetect's token coverage, the release left out)."""
    student: str
    cells: list
    hashes: np.ndarray    # the fingerprint at each (cell, position) below
    cell: np.ndarray
    position: np.ndarray
    distinct: np.ndarray  # sorted
    tokens: int

    @classmethod
    def of(cls, student, cells):
        found = sorted((i, int(at), int(value)) for i, cell in enumerate(cells)
                       for value, positions in cell.fingerprint.hash_idx.items() for at in positions)
        table = np.array(found, dtype=np.int64).reshape(-1, 3)
        return cls(student, cells, table[:, 2], table[:, 0], table[:, 1], np.unique(table[:, 2]),
                   sum(int(cell.fingerprint.token_coverage) for cell in cells))

    def shared_with(self, other):
        """Whether each of this part's fingerprints is one of `other`'s too."""
        if not len(other.distinct) or not len(self.hashes):
            return np.zeros(len(self.hashes), dtype=bool)
        at = np.minimum(np.searchsorted(other.distinct, self.hashes), len(other.distinct) - 1)
        return other.distinct[at] == self.hashes


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    notebook: str
    part: str
    matched_a: int
    matched_b: int
    tokens_a: int
    tokens_b: int

    @property
    def share_a(self):
        return self.matched_a / self.tokens_a if self.tokens_a else 0.0

    @property
    def share_b(self):
        return self.matched_b / self.tokens_b if self.tokens_b else 0.0

    @property
    def share(self):
        """What the pair is ranked by: the smaller of the two shares."""
        return min(self.share_a, self.share_b)

    def rank(self):
        return (-self.share, -(self.matched_a + self.matched_b), self.a, self.b)


@dataclass
class Unit:
    """One notebook's code (or answers): every student who handed it in, and the pairs sharing some."""
    notebook: str
    part: str
    parts: dict     # student -> Part (those with no code of their own too)
    pairs: list     # ranked

    @property
    def own(self):
        return sorted(s for s, p in self.parts.items() if p.tokens)


@dataclass
class Comparison:
    assignment: str
    students: list
    names: dict
    units: list
    notes: list
    overall: dict = field(default_factory=dict)   # part -> ranked pairs over every notebook

    def label(self, student):
        name = self.names.get(student, "")
        return f"{name} ({student})" if name and name != student else student


def cells_of(path):
    """The cells of a notebook file as nbformat nodes (cell_type, source, nbgrader metadata), read as
    JSON only; ValueError saying why it is not a notebook."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"over {MAX_FILE_BYTES:,} bytes")
    try:
        nb = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as err:
        raise ValueError(f"not JSON ({str(err)[:120]})") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook (no list of cells)")
    found = []
    for cell in cells:
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if isinstance(source, list):
            source = "".join(line for line in source if isinstance(line, str))
        if not isinstance(source, str):
            continue
        meta = cell.get("metadata")
        meta = meta.get("nbgrader") if isinstance(meta, dict) else None
        found.append(NotebookNode(cell_type=str(cell.get("cell_type")), source=source,
                                  metadata={"nbgrader": meta if isinstance(meta, dict) else {}}))
    return found


def text_of(cell, part):
    """What is fingerprinted of a cell: code as written; an answer with its white space made one space."""
    return cell.source if part == CODE else " ".join(cell.source.split())


def fingerprint(text, part, given=frozenset()):
    """copydetect's fingerprint of one cell: every stretch of NOISE characters (window 1: each one kept,
    so the result does not depend on Python's hash seed), code filtered, prose as written; those in
    `given` (the release's) taken out, and its tokens counted again without them. Not through
    copydetect's own `boilerplate` argument: in 0.5.0 that also drops one of every fingerprint a cell
    repeats (numpy's intersect1d told the hashes are unique when they are not), the release's or not."""
    if part == CODE:
        found = CodeFingerprint("cell.py", NOISE, 1, filter=True, language="python", fp=StringIO(text))
    else:
        found = CodeFingerprint("answer.txt", NOISE, 1, filter=False, fp=StringIO(text))
    if given:
        found.hash_idx = {value: at for value, at in found.hash_idx.items() if int(value) not in given}
        found.hashes = set(found.hash_idx)
        found.token_coverage = get_token_coverage(found.hash_idx, NOISE, len(found.filtered_code))
    return found


def chosen(cell, part):
    if not nbtools.is_solution(cell):
        return False
    if part == CODE:
        return cell.cell_type == "code" and not nbtools.is_carried(cell)
    return cell.cell_type == "markdown"


def boilerplate(course, part):
    """The fingerprints of what the release gives everyone: each cell of each release notebook alone
    (code: given, test and stub cells; answers: every markdown cell)."""
    if not course.release_dir.is_dir():
        raise FileNotFoundError(f"{course.release_dir} does not exist: run `python -m maskdiff_solutions "
                                f"release` first (the release's code is left out of every comparison)")
    kind = "code" if part == CODE else "markdown"
    given = set()
    for name in course.notebooks():
        for cell in cells_of(course.release_dir / name):
            if cell.cell_type == kind:
                given |= {int(value) for value in fingerprint(text_of(cell, part), part).hashes}
    return frozenset(given)


def students_in(workspace):
    root = workspace / "submitted"
    if not root.is_dir():
        raise FileNotFoundError(f"{root} does not exist: `similarity` reads a graded workspace (grade first, or "
                                f"name it with --workspace DIR)")
    # a leading "_" is never a student's (the canary's folder), nor a "."
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.is_symlink() and not p.name.startswith((".", "_")))


def names_in(workspace):
    """{student: name} of grades-by-student.csv (names come from a platform's roster; else none)."""
    try:
        with open(workspace / STUDENT_CSV, newline="", encoding="utf-8") as handle:
            return {row["student"]: (row.get("name") or "").strip() for row in csv.DictReader(handle)
                    if row.get("student")}
    except (OSError, KeyError, csv.Error, UnicodeDecodeError):
        return {}


def matched(part, shared):
    """The tokens of the part lying in stretches of fingerprints marked `shared`: within each cell, the
    union of the NOISE characters each one starts (what copydetect's compare_files counts, from
    get_copied_slices), over every cell at once."""
    cell, position = part.cell[shared], part.position[shared]
    if not len(position):
        return 0
    same = cell[1:] == cell[:-1]
    return int(np.where(same, np.minimum(position[1:] - position[:-1], NOISE), NOISE).sum()) + NOISE


def slices(part, shared):
    """{cell index: 2xN [starts, ends]} of the stretches of fingerprints marked `shared`, in each
    cell's own text (copydetect's get_copied_slices, mapped back through the filter's offsets as
    compare_files maps them)."""
    found = {}
    for i in np.unique(part.cell[shared]):
        cut = get_copied_slices(part.position[shared & (part.cell == i)], NOISE)
        offsets = part.cells[i].fingerprint.offsets
        if len(offsets) > 0:
            cut = cut + offsets[:, 1][np.clip(np.searchsorted(offsets[:, 0], cut), 0, offsets.shape[0] - 1)]
        found[int(i)] = cut
    return found


def pairs_of(parts, notebook, part):
    """Every pair of students with code of their own here that shares some, ranked."""
    own = [parts[s] for s in sorted(parts) if parts[s].tokens]
    found = []
    for i, a in enumerate(own):
        for b in own[i + 1:]:
            mine = a.shared_with(b)
            if mine.any():
                found.append(Pair(a.student, b.student, notebook, part, matched(a, mine),
                                  matched(b, b.shared_with(a)), a.tokens, b.tokens))
    return sorted(found, key=Pair.rank)


def overall(units, part):
    """Each pair sharing code somewhere, over every notebook both handed in: tokens and matches added up."""
    units = [(unit, {(p.a, p.b): p for p in unit.pairs}) for unit in units if unit.part == part]
    found = []
    for a, b in sorted({key for _, pairs in units for key in pairs}):
        sums = [0, 0, 0, 0]
        for unit, pairs in units:
            if a in unit.parts and b in unit.parts:
                pair = pairs.get((a, b))
                adds = (pair.matched_a, pair.matched_b) if pair else (0, 0)
                for k, value in enumerate((*adds, unit.parts[a].tokens, unit.parts[b].tokens)):
                    sums[k] += value
        found.append(Pair(a, b, ALL, part, *sums))
    return sorted(found, key=Pair.rank)


def compare(course, workspace, notebooks=None, answers=False):
    """The Comparison of the students in WORKSPACE/submitted/: each selected notebook's code (and
    written answers), every pair ranked, per notebook and over all of them."""
    if CodeFingerprint is None:
        raise RuntimeError("`similarity` needs copydetect: pip install -r requirements.txt")
    names = course.select(notebooks)
    everyone = students_in(workspace)
    handed, notes = {}, []
    for student in everyone:
        for name in names:
            path = workspace / "submitted" / student / course.assignment / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                handed[student, name] = cells_of(path)
            except (OSError, ValueError) as err:
                notes.append(f"{student} {name}: left out, {err}")
    units = []
    for part in (CODE, ANSWERS) if answers else (CODE,):
        given, known = boilerplate(course, part), {}   # known: a text's fingerprint (the stubs many hand in)
        for name in names:
            parts = {}
            for student in everyone:
                if (student, name) not in handed:
                    continue
                cells = []
                for cell in (c for c in handed[student, name] if chosen(c, part)):
                    text = text_of(cell, part)
                    if len(text) > MAX_CELL_CHARS:
                        notes.append(f"{student} {name} {nbtools.grade_id(cell)}: only its first "
                                     f"{MAX_CELL_CHARS:,} characters compared")
                        text = text[:MAX_CELL_CHARS]
                    if text not in known:
                        known[text] = fingerprint(text, part, given)
                    cells.append(Cell(str(nbtools.grade_id(cell)), text, known[text]))
                parts[student] = Part.of(student, cells)
            if parts:   # a notebook nobody handed in has no section
                stem = name.removesuffix(".ipynb")
                units.append(Unit(stem, part, parts, pairs_of(parts, stem, part)))
    result = Comparison(course.assignment, everyone, names_in(workspace), units, notes)
    result.overall = {part: overall(units, part) for part in dict.fromkeys(unit.part for unit in units)}
    return result

