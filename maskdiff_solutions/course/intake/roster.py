"""The class list, read from the file a platform exports of its students (`grade EXPORT --roster
FILE`), so that grading knows who should have handed in and the ids the platform's grade import wants:

- Canvas's gradebook export: Student ("Last, First"), ID, SIS User ID, SIS Login ID, Section, and a
  "Points Possible" row (and Canvas's "Student, Test" account, which is nobody);
- Moodle's grading worksheet: Identifier ("Participant 123"), Full name, Email address, Status;
- Gradescope's roster: First Name, Last Name (or Name), SID, Email;
- any CSV with a `student` (or `id`) column, and optionally `name` and `email`: nbgrader's own ids.
"""
import csv
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Person:
    """One student as the platform knows them; `key` is how their files name them."""
    key: str                  # Canvas user id, Moodle participant id, Gradescope SID, or a student id
    name: str = ""
    email: str = ""
    sis_user_id: str = ""     # Canvas only
    sis_login_id: str = ""
    section: str = ""
    status: str = ""          # Moodle's worksheet: "Submitted for grading", "... late", ...
    extra: dict = field(default_factory=dict)  # the roster's row, to write back what it had

    def to_dict(self):
        return asdict(self)


def slug(text, limit=24):
    """'Zoë Núñez' -> 'zoenunez': the readable part of a student id (letters and digits only)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "", plain.lower())[:limit]


def _columns(header):
    return {re.sub(r"\s+", " ", (name or "").strip().lower()): name for name in header}


def read(path):
    """(kind, [Person]) of a roster file: kind is canvas, moodle, gradescope or ids."""
    path = Path(path)
    rows = list(csv.DictReader(_lines(path)))
    if not rows:
        raise ValueError(f"the roster {path} has no rows under its header")
    columns = _columns(rows[0].keys())
    for kind, reader in (("canvas", _canvas), ("moodle", _moodle), ("gradescope", _gradescope), ("ids", _ids)):
        people = reader(rows, columns)
        if people is not None:
            return kind, _unique(people, path)
    raise ValueError(f"the roster {path} is none of the exports this reads (its columns: "
                     f"{', '.join(rows[0].keys())}); it needs Canvas's Student and ID, Moodle's Identifier "
                     f"and Full name, Gradescope's SID and Email, or a `student` column")


def text(path):
    """The roster's text as read (kept in intake.json, as the file may be replaced by a later download)."""
    return "\n".join(_lines(path)) + "\n"


def _lines(path):
    """The roster's lines, as UTF-8 or, failing that, as Excel's "CSV" on Windows writes it (cp1252)."""
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        return Path(path).read_text(encoding="cp1252").splitlines()


def _unique(people, path):
    seen = {}
    for person in people:
        if person.key in seen:
            raise ValueError(f"the roster {path} names the id {person.key} twice "
                             f"({seen[person.key].name} and {person.name})")
        seen[person.key] = person
    return people


def _canvas(rows, columns):
    if not {"student", "id"} <= set(columns):
        return None
    get = _getter(columns)
    people = []
    for row in rows:
        name, key = get(row, "student"), get(row, "id")
        if not key.isdigit() or is_test_student(name):
            continue  # the "Points Possible" row, and Canvas's test student (platforms.py says so)
        people.append(Person(key, name, sis_user_id=get(row, "sis user id"),
                             sis_login_id=get(row, "sis login id"), section=get(row, "section"), extra=row))
    return people


def _moodle(rows, columns):
    if not {"identifier", "full name"} <= set(columns):
        return None
    get = _getter(columns)
    people = []
    for row in rows:
        number = re.search(r"(\d+)\s*$", get(row, "identifier"))
        if number:
            people.append(Person(number.group(1), get(row, "full name"), email=get(row, "email address"),
                                 status=get(row, "status"), extra=row))
    return people


def _gradescope(rows, columns):
    if "sid" not in columns or "email" not in columns:
        return None
    get = _getter(columns)
    people = []
    for row in rows:
        name = get(row, "name") or " ".join(filter(None, [get(row, "first name"), get(row, "last name")]))
        if (get(row, "role") or "student").lower() != "student":
            continue  # instructors and TAs are on Gradescope's roster too
        key = get(row, "sid") or get(row, "email").lower()
        if key:
            people.append(Person(key, name, email=get(row, "email"), section=get(row, "sections"), extra=row))
    return people


def _ids(rows, columns):
    key = "student" if "student" in columns else "id" if "id" in columns else None
    if key is None:
        return None
    get = _getter(columns)
    return [Person(get(row, key), get(row, "name"), email=get(row, "email"), extra=row)
            for row in rows if get(row, key)]


def _getter(columns):
    def get(row, name):
        return (row.get(columns.get(name, name)) or "").strip()
    return get


def canvas_assignments(path):
    """The assignment columns of a Canvas gradebook export (`Name (id)`), in its order; [] for any other
    file, or none."""
    try:
        header = next(csv.reader(_lines(path)), [])
    except (OSError, csv.Error):
        return []
    return [name for name in header if re.fullmatch(r".+\(\d+\)", name.strip())]


def canvas_points(path):
    """{assignment column: its Points Possible (None where the row leaves it blank)} of a Canvas gradebook
    export; {} for any other file."""
    try:
        rows = list(csv.reader(_lines(path)))
    except (OSError, csv.Error):
        return {}
    columns = canvas_assignments(path)
    possible = next((row for row in rows[1:] if row and row[0].strip().lower() == "points possible"), None)
    if not rows or possible is None:
        return dict.fromkeys(columns)
    where = {name: index for index, name in enumerate(rows[0])}
    return {name: _number(possible[where[name]] if where[name] < len(possible) else "") for name in columns}


def moodle_maximum(path):
    """The assignment's Maximum Grade as Moodle's grading worksheet states it (None where it does not, or
    its rows disagree)."""
    try:
        rows = list(csv.DictReader(_lines(path)))
    except (OSError, csv.Error):
        return None
    found = {_number((row.get("Maximum Grade") or "")) for row in rows} - {None}
    return found.pop() if len(found) == 1 else None


def _number(text):
    try:
        return float(text.strip())
    except ValueError:
        return None


def is_test_student(name):
    """Canvas's Student View user, on every gradebook export: never a student of the class."""
    return name.strip().lower() in ("student, test", "test student")


def test_students(path):
    """The names of a Canvas roster's test students, whom read() leaves out."""
    try:
        return [row.get("Student", "") for row in csv.DictReader(_lines(path)) if is_test_student(row.get("Student") or "")]
    except (OSError, csv.Error):
        return []
