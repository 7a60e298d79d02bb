"""Who a student is, as the record keeps it: their platform's own key (Canvas's user id, Moodle's participant
id and email, Gradescope's SID or email) or, for plain folders and rosters of ids, their folder's name in NFC;
fixed the first time the workspace sees them, with the nbgrader id given then (the id every file and row of
theirs is kept under). Their name is an attribute: the latest shown, the earlier ones kept. Every later
grading finds them by any of their keys (course/intake/platforms.py `match`), with or without a roster, so
a student renamed on the platform stays one student and the intake says so in one line.

Two tables of the record (course/ledger/record.py): maskdiff_student (the id, the platform, the name, where
the name came from, the earlier names, when first seen) and maskdiff_alias (platform, key) -> id.
"""
import json
import sqlite3
from contextlib import closing
from pathlib import Path


def known(db):
    """{(platform, key): (student id, name, where the name came from)} of every key the record holds; {}
    where there is no record (or no readable one: the record's check then stops the command)."""
    if not Path(db).is_file():
        return {}
    try:
        with closing(sqlite3.connect(str(db))) as con:
            found = con.execute("SELECT a.platform, a.key, s.student, s.name, s.name_from FROM maskdiff_alias a "
                                "JOIN maskdiff_student s ON a.student = s.student").fetchall()
    except sqlite3.DatabaseError:   # an older record without these tables, or no database at all
        return {}
    return {(platform, key): (student, name, name_from) for platform, key, student, name, name_from in found}


def people(db):
    """{student id: (name, [earlier names])} of every student the record knows."""
    if not Path(db).is_file():
        return {}
    try:
        with closing(sqlite3.connect(str(db))) as con:
            found = con.execute("SELECT student, name, earlier_names FROM maskdiff_student").fetchall()
    except sqlite3.DatabaseError:
        return {}
    return {student: (name, json.loads(earlier)) for student, name, earlier in found}


def put(con, student, platform, keys, name, name_from, when):
    """Record (inside the caller's transaction) who `student` is: their platform's keys and their name
    now; a name that changed is kept among the earlier ones."""
    old = con.execute("SELECT name, earlier_names FROM maskdiff_student WHERE student = ?", (student,)).fetchone()
    if old is None:
        con.execute("INSERT INTO maskdiff_student (student, platform, name, name_from, first_seen) VALUES (?, ?, ?, ?, ?)",
                    (student, platform, name, name_from, when))
    elif name and name != old[0]:
        earlier = json.loads(old[1]) + ([old[0]] if old[0] and old[0] not in json.loads(old[1]) else [])
        con.execute("UPDATE maskdiff_student SET name = ?, name_from = ?, earlier_names = ? WHERE student = ?",
                    (name, name_from, json.dumps(earlier, ensure_ascii=False), student))
    con.executemany("INSERT OR IGNORE INTO maskdiff_alias (platform, key, student) VALUES (?, ?, ?)",
                    [(platform, key, student) for key in keys])
