"""Small classes for the record's tests (tests/support/fake_grading.py grades them in milliseconds): the
notebooks a student hands in, made from the release (unsolved) and the source (the reference), and the
batch written as collected/ folders or as Canvas's submissions zip with its gradebook export (the roster
`export --to canvas` needs)."""
import copy
import shutil
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nbformat

from maskdiff_solutions.course.intake import notebooks

NB01, NB02 = "01_noise_for_words.ipynb", "02_undiffusing.ipynb"
COLUMN = "Masked diffusion (777)"     # notebook 01's assignment in Canvas (named as no rule can guess)
COLUMN02 = "Week 2: undiffusing (778)"   # notebook 02's (its title in it: export finds it unnamed)
RELEASE = Path(__file__).resolve().parents[2] / "release" / "maskdiff"


@dataclass(frozen=True)
class Student:
    name: str        # as Canvas's roster writes it ("Last, First")
    canvas_id: str   # Canvas's user id
    sortable: str    # how Canvas names their files: <sortable>_<id>_<attachment>_<file>
    folder: str      # their collected/ folder
    address: str = ""   # their email, where it is not <sortable>@uni.example (it stays when they are renamed)

    @property
    def full_name(self):
        """As Moodle writes it: "First Last"."""
        last, _, first = self.name.partition(", ")
        return f"{first} {last}".strip()

    @property
    def email(self):
        return self.address or f"{self.sortable}@uni.example"


# The fixed class: one whose name, file names and folder are not ASCII.
CLASS = (Student("Doe, Jane", "4242", "doejane", "jane"),
         Student("Smith, Bob", "5151", "smithbob", "bob"),
         Student("Núñez, Zoë", "6161", "núñezzoë", "Zoë Núñez"),
         Student("Lee, Ann", "7171", "leeann", "ann"))


@lru_cache(maxsize=None)
def _release(root, name):
    return notebooks.read(Path(root) / "release" / "maskdiff" / name)


@lru_cache(maxsize=None)
def _source(root, name):
    return notebooks.read(Path(root) / "source" / "maskdiff" / name)


def release(course, name):
    """The notebook as handed out (a copy)."""
    return copy.deepcopy(_release(str(course.root), name))


def function_cells(course, name):
    """grade_ids of the cells a student writes code in that tests check (functions, plots, printouts)."""
    return [notebooks.grade_id(c) for c in _release(str(course.root), name).cells
            if notebooks.is_function(c) or notebooks.is_drawing(c)]


def manual_cells(course, name):
    return [notebooks.grade_id(c) for c in _release(str(course.root), name).cells if notebooks.is_manual(c)]


def handed_in(course, name, solved=(), answers=None):
    """The release with the cells named in `solved` replaced by the reference's (every one with
    solved=True), and each written answer named in `answers` ({grade_id: text}) written."""
    nb = release(course, name)
    reference = {notebooks.grade_id(c): notebooks.without_markers(c.source)
                 for c in _source(str(course.root), name).cells if notebooks.is_solution(c)}
    answers = answers or {}
    for cell in nb.cells:
        cell_id = notebooks.grade_id(cell)
        if notebooks.is_manual(cell):
            if cell_id in answers:
                cell.source = answers[cell_id]
        elif notebooks.is_solution(cell) and (solved is True or cell_id in solved):
            cell.source = reference[cell_id]
    return nb


def solved(course, name, answer="My answer."):
    """The reference: every function solved and every written answer written."""
    return handed_in(course, name, True, {cell: answer for cell in manual_cells(course, name)})


def nb_bytes(nb):
    return nbformat.writes(nb).encode()


def write_collected(folder, batch):
    """batch: {Student: {notebook file name: notebook}} as collected/<folder>/<file>."""
    folder = Path(folder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for student, files in batch.items():
        (folder / student.folder).mkdir()
        for name, nb in files.items():
            (folder / student.folder / name).write_bytes(nb_bytes(nb))
    return folder


def write_canvas(path, batch, attachment=1000):
    """batch as Canvas's submissions zip (each file `<sortable>_<id>_<attachment>_<file>`; a notebook, or its
    bytes)."""
    with zipfile.ZipFile(path, "w") as out:
        for student, files in batch.items():
            for name, nb in sorted(files.items()):
                attachment += 1
                out.writestr(f"{student.sortable}_{student.canvas_id}_{attachment}_{name}",
                             nb if isinstance(nb, bytes) else nb_bytes(nb))
    return path


def points(name, release=RELEASE):
    """What a notebook of the release is worth: the points of its graded cells."""
    return sum(float(notebooks.nbgrader(c).get("points", 0)) for c in notebooks.read(Path(release) / name).cells
               if notebooks.nbgrader(c).get("grade"))


def write_roster(path, students=CLASS, columns=None):
    """Canvas's gradebook export of the class, with an assignment column per week ({column: Points
    Possible}; default notebook 01's and 02's, each worth its notebook's points)."""
    columns = columns or {COLUMN: points(NB01), COLUMN02: points(NB02)}
    lines = ["Student,ID,SIS User ID,SIS Login ID,Section," + ",".join(f'"{name}"' for name in columns),
             "    Points Possible,,,,," + ",".join(f"{value:g}" for value in columns.values())]
    lines += [f'"{s.name}",{s.canvas_id},s{s.canvas_id},{s.sortable},A' + "," * len(columns) for s in students]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_moodle(path, batch, participants, attachment=0):
    """batch as Moodle's "Download all submissions" zip (a folder per student,
    `<Full name>_<participant id>_assignsubmission_file_/<file>`); participants: {Student: participant id}
    (Moodle numbers the participants of each assignment anew)."""
    with zipfile.ZipFile(path, "w") as out:
        for student, files in batch.items():
            for name, nb in sorted(files.items()):
                out.writestr(f"{student.full_name}_{participants[student]}_assignsubmission_file_/{name}", nb_bytes(nb))
    return path


def write_worksheet(path, participants, maximum, handed_in=()):
    """Moodle's grading worksheet of one assignment (the roster a Moodle grading takes)."""
    lines = ["Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
             "Last modified (submission),Last modified (grade),Feedback comments"]
    lines += [f"Participant {pid},{s.full_name},{s.email},"
              f"{'Submitted for grading' if s in handed_in else 'No submission'},,{maximum:g},Yes,,,"
              for s, pid in participants.items()]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def course_copy(folder, root):
    """A copy of the course at root in folder: source/, release/, its nbgrader configuration and settings
    (what grading reads of a course). Returns the copy's root."""
    folder, root = Path(folder), Path(root)
    for part in ("source", "release"):
        shutil.copytree(root / part, folder / part)
    for part in ("nbgrader_config.py", "pyproject.toml"):
        if (root / part).is_file():
            shutil.copyfile(root / part, folder / part)
    return folder


def change_points(root, name, cell, points):
    """The course at root fixed: the cell `cell` of notebook `name` worth `points`, in its source and its
    release alike (as editing source/ and running `release` leaves them)."""
    for part in ("source", "release"):
        path = Path(root) / part / "maskdiff" / name
        nb = notebooks.read(path)
        (found,) = [c for c in nb.cells if notebooks.grade_id(c) == cell]
        found.metadata["nbgrader"]["points"] = points
        path.write_bytes(nb_bytes(nb))
    return root


def changed_course(folder, root, name, cell, points):
    """A copy of the course at root in which the cell `cell` of notebook `name` is worth `points` (a course
    fixed during the term, then released). Returns the copy's root."""
    return change_points(course_copy(folder, root), name, cell, points)
