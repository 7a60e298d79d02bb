"""Weeks are columns: on a platform each notebook of the term is an assignment of its own, with its column
(Canvas) or its grading worksheet (Moodle) and its points. `export --to canvas|moodle` writes each notebook
chosen into its own column (`--notebook NN`, `--each-notebook`), and the sum of several into one column only
where asked (`--total`). The column's points as the platform holds them (Canvas's Points Possible in the
gradebook export, Moodle's Maximum Grade in the assignment's worksheet) must be the notebook's: a mismatch
stops the export before it writes. Each column holds its notebooks' marks only, so exporting an earlier
week again writes what it wrote before, unless that week's record changed.
"""
import difflib
import re
import shlex
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..intake import roster as rosters
from ..intake.identities import keys_of
from ..intake.platforms import Intake
from ..layout import plural
from ..records.gradebook import notebook_points, open_gradebook
from . import identity, record


@dataclass
class Column:
    """One assignment of the platform that `export --to` writes."""
    name: str                 # Canvas: the gradebook's column header; Moodle: "" (the worksheet is the assignment's)
    notebooks: list           # the notebook stems whose marks it holds: one, or with --total several
    points: float             # what they are worth in the course
    label: str                # the notebook's number, or "total": where its feedback goes when several are written
    roster: str = ""          # the roster its name and points were checked against (its file's name)
    people: dict = field(default_factory=dict)   # Moodle: {student id: the worksheet's Person}


def graded(workspace):
    """The notebook stems the workspace's record holds results of, in course order."""
    return sorted({notebook for _, notebook in record.results(Path(workspace) / record.DB_NAME)})


def choose(course, workspace, platform, notebooks=(), each=False, total=False, columns=(), roster=None):
    """The columns `export --to platform` writes, each checked before anything is written; returns
    (columns, notes for the instructor). notebooks: --notebook; each: --each-notebook; total: --total;
    columns: the --column values (NAME, or NN=NAME); roster: --roster (default: the one grading took in)."""
    workspace = Path(workspace)
    have = graded(workspace)
    chosen = _chosen(course, workspace, platform, have, notebooks, each, total)
    points = _points(course, workspace, chosen)
    groups = [chosen] if total else [[stem] for stem in chosen]
    names = _named(course, columns, groups)
    intake = Intake.load(workspace)
    made, notes = [], []
    with tempfile.TemporaryDirectory(prefix="maskdiff-rosters-") as folder:
        def kept(stem=None):   # a roster as grading read it (intake.json), as a file again
            name, text = intake.roster_of(stem) if intake else ("", "")
            if not text:
                return ""
            path = Path(folder) / (stem or "latest") / Path(name).name
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return str(path)
        for group in groups:
            column = Column("", group, sum(points[stem] for stem in group), "total" if total else group[0][:2])
            if platform == "canvas":
                _canvas(column, names.get(tuple(group)), roster or kept(), course, notes, len(groups) == 1)
            else:
                single = len(group) == 1
                sheet = roster or (kept(group[0]) if single else "") or (kept() if len(have) < 2 else "")
                _moodle(column, sheet, workspace, len(have), notes)
            made.append(column)
    return made, notes


def _chosen(course, workspace, platform, have, notebooks, each, total):
    if each and total:
        raise ValueError("--each-notebook writes each notebook into its own column, --total their sum into one: "
                         "choose one")
    if notebooks:
        chosen = [Path(name).stem for name in course.select(notebooks)]
        never = [stem for stem in chosen if stem not in have]
        if never:
            raise ValueError(f"{', '.join(never)} {'was' if len(never) == 1 else 'were'} never graded in {workspace} "
                             f"(it holds {', '.join(have) or 'no grading'}): grade it there first")
        return chosen
    if each or total or len(have) < 2:
        return have
    raise ValueError(f"{workspace} holds the marks of notebooks {', '.join(s[:2] for s in have)}, and on {platform} "
                     f"each is an assignment of its own: export one into its column with --notebook NN, every one "
                     f"into its own column with --each-notebook, or their sum into one column with --total")


def _points(course, workspace, stems):
    """{stem: the points the notebook's results are out of}: what it was worth when they were graded
    (course/ledger/versions.py), its written answers counting for nothing where optional. Results graded
    under different points stop the export until the notebook is regraded."""
    rows = record.derived_rows(course, workspace)
    out = {}
    for stem in stems:
        worth = {row.auto_max + (0.0 if course.answers_optional else row.manual_max) for row in rows if row.notebook == stem}
        if len(worth) > 1:
            raise ValueError(f"the results of notebook {stem[:2]} are out of different points ({' and '.join(f'{w:g}' for w in sorted(worth))}): "
                             f"some were graded under an earlier version of the course; `python -m maskdiff_solutions regrade "
                             f"--notebook {stem[:2]} --workspace {workspace}` grades them all under the course as it is now")
        if worth:
            out[stem] = worth.pop()
        else:
            with open_gradebook(Path(workspace) / record.DB_NAME) as gradebook:
                auto, manual = notebook_points(gradebook, course.assignment, stem)
            out[stem] = auto + (0.0 if course.answers_optional else manual)
    return out


def _named(course, columns, groups):
    """{group: the column named for it}: `NN=NAME` names a notebook's, a plain NAME the only group's."""
    named = {}
    for value in columns or ():
        head, sep, rest = value.partition("=")
        stems = _notebook(course, head) if sep else None
        if stems:
            group = next((g for g in groups if g == [stems]), None)
            if group is None:
                raise ValueError(f"--column {value!r} names notebook {stems[:2]}, which this export does not write "
                                 f"({', '.join(s[:2] for g in groups for s in g)})")
            named[tuple(group)] = rest.strip()
        elif len(groups) == 1:
            named[tuple(groups[0])] = value
        else:
            raise ValueError(f"--column {value!r} names no notebook, and this export writes {len(groups)} columns: "
                             f"name each as --column NN=NAME (e.g. --column {shlex.quote('01=' + value)})")
    return named


def _notebook(course, word):
    try:
        (stem,) = [Path(name).stem for name in course.select([word.strip()])]
        return stem
    except ValueError:
        return None


def _canvas(column, name, roster, course, notes, alone=True):
    """Name the Canvas column (given, else the roster's one column that names the notebook) and check its
    Points Possible against the notebook's points."""
    roster = Path(roster) if roster else None
    known = rosters.canvas_points(roster) if roster and roster.is_file() else {}
    which = "+".join(stem[:2] for stem in column.notebooks)
    if name is None and known:
        name = _matching(column, list(known))
        if name is None:
            example = next(iter(known)) if alone else f"{which}={next(iter(known))}"
            raise ValueError(f"name the Canvas column of notebook {which}: --column {shlex.quote(example)} "
                             f"(the assignment columns of the roster {roster.name}: {', '.join(known)}); without it Canvas "
                             f"would import the marks as a new assignment")
        notes.append(f"notebook {which}: into the column {name!r}, the roster's one column that names it")
    if name is not None and known and name not in known:
        close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.4)
        raise ValueError(f"--column {name!r} is no assignment column of the roster {roster.name}"
                         + (f": did you mean {close[0]!r}?" if close else "") + f" (its assignment columns: "
                         f"{', '.join(known)}); Canvas would import the grades as a new assignment")
    if name is None:
        name = course.assignment + ("" if column.label == "total" else f" {column.notebooks[0]}")
        notes.append(f"column: {name!r}, which Canvas imports as a new assignment (no roster to check against: "
                     f"--column names an existing one)")
    column.name, column.roster = name, roster.name if roster else ""
    possible = known.get(name)
    if possible is None:
        if known:
            notes.append(f"{name!r}: the roster states no Points Possible, so notebook {which}'s {column.points:g} "
                         f"points could not be checked against it")
    elif abs(possible - column.points) > 1e-9:
        raise ValueError(f"the column {name!r} is worth {possible:g} points in Canvas (Points Possible in {roster.name}), "
                         f"but notebook {which} is worth {column.points:g}: export each notebook into its own "
                         f"assignment's column, or set that assignment's points to {column.points:g} in Canvas and give "
                         f"its gradebook export again with --roster; nothing was written")


def _matching(column, names):
    """The one roster column whose name names the notebook (its title, its stem, or 'notebook NN'), or None."""
    if len(column.notebooks) != 1:
        return None
    stem = column.notebooks[0]
    number, title = stem[:2], stem[3:].replace("_", " ")
    found = [name for name in names if title in name.lower().replace("_", " ") or stem in name.lower()
             or re.search(rf"\b(notebook|nb)\s*0*{int(number)}\b", name.lower())]
    return found[0] if len(found) == 1 else None


def _moodle(column, sheet, workspace, notebooks_graded, notes):
    """The worksheet of the column's assignment (Moodle numbers each assignment's participants anew): its
    participants matched to the students, its Maximum Grade checked against the notebook's points."""
    which = "+".join(stem[:2] for stem in column.notebooks)
    if not sheet:
        if notebooks_graded < 2:
            return   # one assignment in the workspace: the intake's participant ids are its own
        raise ValueError(f"Moodle numbers the participants of each assignment anew, and notebook {which} was not "
                         f"graded with its assignment's grading worksheet: download it and give it with --roster")
    sheet = Path(sheet)
    if not sheet.is_file():
        raise ValueError(f"the grading worksheet of notebook {which}, {sheet}, is gone: download the assignment's "
                         f"grading worksheet again and give it with --roster")
    column.roster = sheet.name
    maximum = rosters.moodle_maximum(sheet)
    if maximum is None:
        notes.append(f"{sheet.name} states no one Maximum Grade, so notebook {which}'s {column.points:g} points could "
                     f"not be checked against it")
    elif abs(maximum - column.points) > 1e-9:
        raise ValueError(f"the assignment of {sheet.name} has a Maximum Grade of {maximum:g} in Moodle, but notebook "
                         f"{which} is worth {column.points:g}: set the assignment's maximum grade to {column.points:g} "
                         f"and download its worksheet again for --roster; nothing was written")
    kind, people = rosters.read(sheet)
    if kind != "moodle":
        raise ValueError(f"{sheet.name} is not Moodle's grading worksheet (it reads as {kind}'s)")
    known = identity.known(Path(workspace) / record.DB_NAME)
    for person in people:
        found = next((known[("moodle", key)][0] for key in keys_of("moodle", person.key, person.email)
                      if ("moodle", key) in known), None)
        if found:
            column.people[found] = person
    if len(column.people) < len(people):
        notes.append(f"{sheet.name}: {plural(len(people) - len(column.people), 'participant')} never graded in this "
                     f"workspace, left out of the file")
