"""What each platform's bulk import checks, written down from its documentation and source, so a test
can say "Canvas (or Moodle) would take this file" without the platform.

Canvas's gradebook import (Grades > Import): a UTF-8 CSV whose header starts Student, ID, then the SIS
columns and Section; every further column is an assignment, and "Name (id)" names an existing one; a
row whose first cell is "Points Possible" gives each assignment's points; students are matched by ID
(the Canvas user id); an empty cell changes nothing.

Moodle's offline grading worksheet import (assignfeedback_offline's grade_importer): it needs the
columns "Identifier", "Grade" and "Last modified (grade)" by those exact names; the identifier is
"Participant " followed by the participant id; the modified time is read with PHP's strtotime; a
feedback plugin's column is matched by its description ("Feedback comments").

Moodle's feedback files zip (assignfeedback_file's zip_importer): a path part "fullname_id_type_plugin"
(with or without a trailing '_'), split at the first four '_', gives the participant id (numeric) and
the plugin (type, name); the rest of the path is the file's name; hidden files ('.', '~') are skipped.
"""
import csv
import io
import re
import zipfile
from datetime import datetime

CANVAS_FIRST = ["Student", "ID"]
CANVAS_KNOWN = {"Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section"}
MOODLE_NEEDED = ("Identifier", "Grade", "Last modified (grade)")


def canvas_grades(path):
    """{Canvas user id: {assignment column: grade}} as Canvas's import reads the file, or an error."""
    text = path.read_bytes().decode("utf-8")  # raises on anything but UTF-8
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert header[:2] == CANVAS_FIRST, f"Canvas wants Student, ID first, got {header[:2]}"
    assignments = [name for name in header if name not in CANVAS_KNOWN]
    assert assignments, "no assignment column"
    grades, points = {}, {}
    for row in rows[1:]:
        record = dict(zip(header, row))
        if record["Student"].strip() == "Points Possible":
            points = {name: float(record[name]) for name in assignments if record[name]}
            continue
        assert re.fullmatch(r"\d+", record["ID"]), f"not a Canvas user id: {record['ID']!r}"
        assert record["ID"] not in grades, f"ID {record['ID']} twice"
        grades[record["ID"]] = {name: (float(record[name]) if record[name] else None) for name in assignments}
    for by_column in grades.values():
        for name, value in by_column.items():
            assert value is None or 0 <= value <= points.get(name, float("inf")), f"{value} over {name}'s points"
    return grades, points


def moodle_grades(path, participants):
    """{participant id: (grade, feedback comment)} as Moodle's worksheet import reads the file."""
    rows = list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8"))))
    header = rows[0]
    for needed in MOODLE_NEEDED:
        assert needed in header, f"Moodle's import needs the column {needed!r}"
    index = {name: header.index(name) for name in header}
    got = {}
    for row in rows[1:]:
        identifier = row[index["Identifier"]]
        assert identifier.startswith("Participant "), identifier
        pid = int(identifier[len("Participant "):])
        assert pid in participants, f"participant {pid} is not in the assignment"
        datetime.strptime(row[index["Last modified (grade)"]], "%Y-%m-%d %H:%M:%S")  # strtotime reads it
        grade = row[index["Grade"]]
        got[pid] = (float(grade) if grade else None, row[index.get("Feedback comments", -1)])
    return got


def moodle_feedback_files(path, participants):
    """{participant id: [file names]} as Moodle's feedback zip import matches the zip's files."""
    matched = {}
    with zipfile.ZipFile(path) as handle:
        for name in handle.namelist():
            if name.endswith("/") or name.split("/")[-1].startswith((".", "~")):
                continue
            parts = name.split("/")
            while parts:
                info = parts.pop(0).split("_", 4)
                if len(info) < 4 or not info[1].isdigit() or int(info[1]) not in participants:
                    continue
                assert (info[2], info[3]) in (("assignsubmission", "file"), ("assignfeedback", "file")), info
                rest = "/".join(([info[4]] if len(info) == 5 and info[4] else []) + parts)
                matched.setdefault(int(info[1]), []).append(rest)
                break
            else:
                raise AssertionError(f"Moodle would skip {name}: no participant in its path")
    return matched


# Gradescope's autograder results (gradescope-autograders.readthedocs.io, "Autograder Specifications"):
# results.json holds a score (or per-test scores), and optionally execution_time, output, visibility,
# stdout_visibility, extra_data and tests; each test may have score, max_score, status (passed or
# failed), name, number, output, tags, visibility (hidden, after_due_date, after_published, visible).
GRADESCOPE_TOP = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
                  "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GRADESCOPE_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                   "tags", "visibility", "extra_data"}
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def gradescope_results(data):
    """{test name: (score, max_score)} of a results.json that Gradescope's format allows."""
    assert set(data) <= GRADESCOPE_TOP, set(data) - GRADESCOPE_TOP
    assert isinstance(data["score"], (int, float)) or all("score" in t for t in data["tests"])
    assert data.get("visibility", "visible") in GRADESCOPE_VISIBILITY
    assert data.get("stdout_visibility", "visible") in GRADESCOPE_VISIBILITY
    found = {}
    for test in data.get("tests", []):
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert test.get("visibility", "visible") in GRADESCOPE_VISIBILITY
        assert test.get("status", "passed") in ("passed", "failed")
        assert isinstance(test["score"], (int, float)) and isinstance(test.get("max_score", 0), (int, float))
        assert 0 <= test["score"] <= max(test.get("max_score", 0), test["score"])
        assert isinstance(test.get("output", ""), str) and test["name"] not in found
        found[test["name"]] = (test["score"], test.get("max_score", 0))
    if isinstance(data.get("score"), (int, float)):
        assert abs(data["score"] - sum(score for score, _ in found.values())) < 1e-9
    return found
