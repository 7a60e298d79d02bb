"""A person's decision is a record of its own: a hand grade of a written answer, an override of an
autograded test's score, extra credit and a comment, each kept with who made it, when, and the digest of
what it judged (the answer's own, course/ledger/commit.py `digests`; for a test, the notebook's code:
a written answer is not the code a test reads).

Formgrader writes a person's grades into nbgrader's tables; every command that reads the record first
takes them in (`take_in`): each value that differs from the last decision kept of its cell is a new
decision. A decision stays while what it judged is unchanged: a regrade whose answer (or, for an
override, code) changed drops it (`drop`), `undo` puts back the grading before and applies again every
decision made since on what it did not touch (`since`, `apply`), and drops the others. A dropped decision
is named in its row (`notes`, read by course/ledger/record.py) and on the student's feedback page
(`mark_page`, course/ledger/export.py) until a person decides that cell again.
"""
import getpass
import html
import json
import re
import time
from pathlib import Path

from ..records.gradebook import NOTEBOOK

CODE = "code"   # the digest of a notebook's code: what its tests read (commit.digests)
KINDS = ("score", "extra", "comment")
NOTE_MARK = "<!-- maskdiff: decisions set aside -->"
SELECT = """SELECT sa.student_id, n.name, b.name, g.manual_score, g.extra_credit, c.manual_comment,
       EXISTS (SELECT 1 FROM solution_cells s WHERE s.id = b.id)
FROM submitted_notebook sn JOIN notebook n ON sn.notebook_id = n.id
JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN assignment a ON sa.assignment_id = a.id
JOIN base_cell b ON b.notebook_id = n.id
LEFT JOIN grade g ON g.cell_id = b.id AND g.notebook_id = sn.id
LEFT JOIN comment c ON c.cell_id = b.id AND c.notebook_id = sn.id
WHERE a.name = ? AND (g.id IS NOT NULL OR c.id IS NOT NULL)"""


def who():
    try:
        return getpass.getuser()
    except (KeyError, OSError):   # no name for this uid (a container)
        return "unknown"


def now():
    return time.strftime("%Y-%m-%d %H:%M:%S")


def held(con, where="", args=()):
    """{(student, notebook, cell, kind): (id, value)} of the latest decision of each cell, if it is held."""
    found = {}
    for row in con.execute(f"SELECT id, student, notebook, cell, kind, value, state FROM maskdiff_decision "
                           f"{'WHERE ' + where if where else ''} ORDER BY id", args):
        found[row[1:5]] = (row[0], json.loads(row[5])) if row[6] == "held" else None
    return {key: value for key, value in found.items() if value is not None}


def take_in(con, assignment, key=None, by=None):
    """Record (inside the caller's transaction) every value a person set in nbgrader's tables since the
    last decision of its cell, for every submitted notebook or one (key: (student, notebook)); by: who
    made them (default: whoever runs this command, which found them); returns how many."""
    where, args = ("sa.student_id = ? AND n.name = ?", key) if key else ("", ())
    rows = con.execute(SELECT + (f" AND {where}" if where else ""), (assignment, *args)).fetchall()
    now_held = {}
    answers = {}
    for student, notebook, cell, score, extra, comment, is_answer in rows:
        for kind, value in (("score", score), ("extra", extra), ("comment", comment)):
            if value is not None:
                now_held[(student, notebook, cell, kind)] = value
        answers[(student, notebook, cell)] = bool(is_answer)
    kept = held(con, "student = ? AND notebook = ?" if key else "", key or ())
    made = 0
    for item in sorted(set(now_held) | set(kept)):
        value = now_held.get(item)
        if item in kept and kept[item][1] == value:
            continue
        if item not in kept and value is None:
            continue
        student, notebook, cell, kind = item
        put(con, student, notebook, cell, kind, value,
            judged(con, student, notebook, cell, answers.get((student, notebook, cell), True)), by=by)
        made += 1
    return made


def judged(con, student, notebook, cell, is_answer):
    """The digest of what a decision of this cell judges: the answer's, or for a test the notebook's code."""
    found = con.execute("SELECT digest FROM maskdiff_answer WHERE student = ? AND notebook = ? AND cell = ?",
                        (student, notebook, cell if is_answer else CODE)).fetchone()
    return found[0] if found else ""


def put(con, student, notebook, cell, kind, value, digest, state="held", why="", by=None, at=None):
    con.execute("INSERT INTO maskdiff_decision (student, notebook, cell, kind, value, judged, who, at, state, why) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (student, notebook, cell, kind, json.dumps(value), digest,
                                                         by or who(), at or now(), state, why))


def drop(con, student, notebook, cells, why):
    """The held decisions of these cells are set aside (inside the caller's transaction)."""
    for cell in cells:
        con.execute("UPDATE maskdiff_decision SET state = 'dropped', why = ? WHERE student = ? AND notebook = ? "
                    "AND cell = ? AND state = 'held'", (why, student, notebook, cell))


def since(con, last_id):
    """Every decision made after the decision numbered last_id, in order, as dicts."""
    con_rows = con.execute("SELECT id, student, notebook, cell, kind, value, judged, who, at, state, why FROM "
                           "maskdiff_decision WHERE id > ? ORDER BY id", (last_id,)).fetchall()
    names = ("id", "student", "notebook", "cell", "kind", "value", "judged", "who", "at", "state", "why")
    return [dict(zip(names, row), value=json.loads(row[5])) for row in con_rows]


def last_id(con):
    return con.execute("SELECT COALESCE(MAX(id), 0) FROM maskdiff_decision").fetchone()[0]


def apply(con, assignment, decision, why_not, untouched=False):
    """Apply one decision made since a grading that `undo` has taken back (inside the caller's
    transaction), where the notebook is one that grading did not touch (untouched) or what it judged is
    what the record holds now; else keep it as dropped (why_not). Returns whether it was applied."""
    student, notebook, cell = decision["student"], decision["notebook"], decision["cell"]
    is_answer = con.execute("SELECT EXISTS (SELECT 1 FROM solution_cells s JOIN base_cell b ON s.id = b.id JOIN "
                            "notebook n ON b.notebook_id = n.id WHERE b.name = ? AND n.name = ?)",
                            (cell, notebook)).fetchone()[0]
    now_judged = judged(con, student, notebook, cell, bool(is_answer))
    key = (notebook, student, assignment)
    mine = NOTEBOOK.format(db="main")
    target = "(SELECT b.id FROM base_cell b JOIN notebook n ON b.notebook_id = n.id WHERE b.name = ? AND n.name = ?)"
    ok = (untouched or bool(decision["judged"]) and decision["judged"] == now_judged) and \
        con.execute(f"SELECT COUNT(*) FROM submitted_notebook WHERE id IN ({mine})", key).fetchone()[0] > 0
    if ok:
        value = decision["value"]
        if decision["kind"] == "comment":
            con.execute(f"UPDATE comment SET manual_comment = ? WHERE notebook_id IN ({mine}) AND cell_id IN {target}",
                        (value, *key, cell, notebook))
        else:
            column = "manual_score" if decision["kind"] == "score" else "extra_credit"
            con.execute(f"UPDATE grade SET {column} = ?, needs_manual_grade = CASE WHEN ? IS NULL THEN "
                        f"needs_manual_grade ELSE 0 END WHERE notebook_id IN ({mine}) AND cell_id IN {target}",
                        (value, value, *key, cell, notebook))
    put(con, student, notebook, cell, decision["kind"], decision["value"], decision["judged"],
        "held" if ok else "dropped", "" if ok else why_not, decision["who"], decision["at"])
    return ok


def set_aside(con):
    """{(student, notebook): [dropped decision, ...]} not followed by any later decision of their cell."""
    latest = {}
    for row in con.execute("SELECT student, notebook, cell, kind, value, who, at, state, why FROM maskdiff_decision "
                           "ORDER BY id"):
        student, notebook, cell = row[:3]
        mine = latest.setdefault((student, notebook, cell), [])
        if row[7] != "dropped":
            mine.clear()
        elif row[4] != "null":
            mine.append({"cell": cell, "kind": row[3], "value": json.loads(row[4]), "who": row[5], "at": row[6],
                         "why": row[8]})
    out = {}
    for (student, notebook, _), dropped in sorted(latest.items()):
        if dropped:
            out.setdefault((student, notebook), []).extend(dropped)
    return out


def words(dropped):
    """'telescoping_product (grade 1.5, comment 'Good.'; by ann, 2026-...)' for each cell set aside."""
    out = []
    for cell in sorted({d["cell"] for d in dropped}):
        mine = sorted((d for d in dropped if d["cell"] == cell), key=lambda d: KINDS.index(d["kind"]))
        values = ", ".join(f"{ {'score': 'grade', 'extra': 'extra credit', 'comment': 'comment'}[d['kind']] } "
                           + (f"{d['value']:g}" if isinstance(d["value"], (int, float)) else repr(d["value"]))
                           for d in mine)
        out.append(f"{cell} ({values}; by {mine[-1]['who']}, {mine[-1]['at']})")
    return out


def note(dropped):
    """The row's words for its decisions set aside."""
    return f"set aside, to grade again: {'; '.join(words(dropped))}: {dropped[-1]['why']}"


def mark_page(page, dropped):
    """Name the dropped decisions at the top of a feedback page (once)."""
    page = Path(page)
    if not page.is_file():
        return
    text = page.read_text(encoding="utf-8", errors="replace")
    text = re.sub(re.escape(NOTE_MARK) + r".*?" + re.escape(NOTE_MARK) + "\n", "", text, flags=re.DOTALL)
    items = "".join(f"<li>{html.escape(item)}: {html.escape(dropped[-1]['why'])}</li>" for item in words(dropped))
    block = (f'{NOTE_MARK}<div style="background:#fff4e5;border-left:4px solid #e69500;padding:.5em 1em">'
             f"<strong>Set aside, to be graded again by a person:</strong><ul>{items}</ul></div>{NOTE_MARK}\n")
    at = re.search(r"<body[^>]*>", text)
    text = text[:at.end()] + "\n" + block + text[at.end():] if at else block + text
    page.write_text(text, encoding="utf-8")
