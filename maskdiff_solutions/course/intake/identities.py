"""Who each file and roster line of a platform's export belongs to: the platform's key of the student in
one spelling (NFC, a plain folder's name as its student id), the nbgrader id of a student the workspace
has not seen (readable: their name's letters and the key), and a student the workspace's record knows
found again by any of their keys, whatever their name is now (course/ledger/identity.py keeps them). A
change of name is one line of the intake's notes, never a new student."""
import unicodedata
from dataclasses import dataclass, field

from . import roster as rosters
from .folder import student_id


@dataclass
class Student:
    id: str
    key: str
    name: str = ""
    email: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    on_roster: bool = False
    late: bool = False
    name_from: str = ""                           # roster | files: where the name shown comes from
    keys: list = field(default_factory=list)      # every key the platform names them by (identity.py)
    files: list = field(default_factory=list)     # [export path, staged name]
    earlier: list = field(default_factory=list)   # export paths a later submission replaced
    not_notebooks: list = field(default_factory=list)  # staged files that cannot be graded (a PDF ...)
    notes: list = field(default_factory=list)


def key_of(platform, key):
    """A platform's key of a student in one spelling: NFC (a roster exported on a Mac is NFD), trimmed;
    Gradescope's emails in lower case; a plain folder's or a roster's id as the folder's student id."""
    key = unicodedata.normalize("NFC", str(key)).strip()
    if platform in ("nbgrader", "collected"):
        return student_id(key)
    return key.lower() if platform in ("gradescope",) else key


def plain_name(name):
    """A name as shown and compared: NFC, its spaces single (one name printed alike is one name)."""
    return " ".join(unicodedata.normalize("NFC", name or "").split())


def keys_of(platform, key, email=""):
    """Every key by which the platform names a student: its id, and for Moodle (which numbers the
    participants of each assignment anew) and Gradescope their email address, which stays."""
    email = plain_name(email).lower()
    return [key] + ([f"email:{email}"] if email and platform in ("moodle", "gradescope") else [])


def _new_id(platform, key, name, taken):
    """A readable nbgrader id: the name's letters and the platform's number (its key), given the first
    time the workspace sees the student and kept from then on (course/ledger/identity.py)."""
    if platform in ("nbgrader", "collected"):
        base = student_id(key)
    else:
        base = "_".join(filter(None, [rosters.slug(name), rosters.slug(key.split("@")[0], 40)]))
    base = student_id(base)
    sid, n = base, 2
    while sid in taken:
        sid, n = f"{base}_{n}", n + 1
    return sid


class Identities:
    """Students as the workspace's record knows them (known: {(platform, key): (id, name, where the name
    came from)}, course/ledger/identity.py): a student seen before keeps their id, whatever their name
    is now; a new one gets an id no one has."""

    def __init__(self, platform, known, intake):
        self.platform, self.known, self.intake = platform, known or {}, intake
        self.taken = {sid for sid, _, _ in self.known.values()}

    def student(self, key, name, name_from, email="", **details):
        keys = keys_of(self.platform, key, email)
        name = plain_name(name)
        seen = next((self.known[(self.platform, k)] for k in keys if (self.platform, k) in self.known), None)
        if seen is None or seen[0] not in self.taken:
            sid = _new_id(self.platform, key, name, self.taken)
        else:
            sid, old, old_from = seen
            if old and name != old and name_from == old_from:
                self.intake.notes.append(f"renamed on {self.platform}: {old} is now {name} ({key}), the same "
                                         f"student ({sid}), their grades kept")
            elif old and (old_from == "roster" or not name):
                name, name_from = old, old_from   # a file's form of the name never replaces the roster's
        self.taken.add(sid)
        return Student(sid, key, name, email, name_from=name_from, keys=keys, **details)


def match(platform, entries, people, intake, known=None, folders=()):
    """Students of intake from the export's entries and the roster's people (None: no roster), and a
    student for each of `folders` (collected/: every folder is a student, even an empty one); a student
    the record knows (known: course/ledger/identity.known) is found by their keys."""
    by_key, ids = {}, Identities(platform, known, intake)
    roster_keys = {key_of(platform, p.key): p for p in people or []}
    for key, person in roster_keys.items():
        by_key[key] = ids.student(key, person.name, "roster", person.email, sis_user_id=person.sis_user_id,
                                  sis_login_id=person.sis_login_id, section=person.section, on_roster=True,
                                  late="late" in person.status.lower())
    for entry in entries:
        key = key_of(platform, entry.key)
        student = by_key.get(key)
        if student is None:
            student = by_key[key] = ids.student(key, entry.name, "files", on_roster=False)
        student.late = student.late or entry.late
    for name in folders:
        if key_of(platform, name) not in by_key:
            by_key[key_of(platform, name)] = ids.student(key_of(platform, name), name, "files")
    intake.students = {student.id: student for student in by_key.values()}
    return by_key
