"""Who a student is and which of their files is graded (course/intake/folder.py): an id keeps every
letter of the folder's name in any script, two folders that would share an id stop grading before it
writes, and of two files for one notebook the newest is graded, the other named in the row. One class
graded through the command line: Chinese, Cyrillic and two Zoës, one of whom handed in 01 twice."""
import csv
import os
import re
import sqlite3
import unicodedata

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import folder, platforms
from maskdiff_solutions.course.records.rows import CSV_NAME, read_csv
from tests.support import exports
from tests.support.exports import NB01

DEC_1, DEC_2 = 1764583200, 1764669600   # 2025-12-01 and 12-02, 10:00 UTC
NFD_ZOE = unicodedata.normalize("NFD", "Zoë Li")


@pytest.mark.parametrize("name, sid", [
    ("张伟", "张伟"), ("Иван Петров", "Иван_Петров"), ("Zoë Li", "Zoë_Li"), ("Zoé Li", "Zoé_Li"),
    (NFD_ZOE, "Zoë_Li"),                        # one spelling, NFC, whichever the file system kept
    ("प्रिया शर्मा", "प्रिया_शर्मा"),                 # Devanagari's vowel signs are marks: kept with their letters
    ("ann lee", "ann_lee"), ("a.b-c_d", "a.b-c_d"),
    (" *ann?[1]+ / ", "ann_1"),                 # globs (nbgrader's ids are file globs), slashes, spaces
    ("!!!", "student"),
])
def test_an_id_keeps_every_letter_and_digit_of_the_folders_name(name, sid):
    assert folder.student_id(name) == sid


def test_an_ascii_name_keeps_the_id_it_always_had():
    """Earlier gradings' ids stay the same: regrades and `undo` find their students."""
    names = ["ann", "Ann Lee", "o'brien", "x--y", "__a__", "a.b", "1 2 3", "tab\there", "(x)", "a+b@c.d"]
    for name in names:
        assert folder.student_id(name) == re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


@pytest.mark.parametrize("one, other, why", [
    ("Zoë Li", "Zoë_Li", "spaces and other characters become '_'"),
    ("Zoë Li", NFD_ZOE, "in two Unicode forms: NFC and NFD"),
])
def test_two_folders_that_would_share_an_id_stop_before_anything_is_written(course, tmp_path, one, other, why):
    for name in (one, other, "张伟"):
        (tmp_path / "collected" / name).mkdir(parents=True)
    with pytest.raises(ValueError, match=why) as stop:
        folder.students(tmp_path / "collected")
    assert repr(one) in str(stop.value) and repr(other) in str(stop.value) and "'Zoë_Li'" in str(stop.value)
    with pytest.raises(ValueError, match=why):   # a zip of those folders too, before the workspace is made
        platforms.take_in(course, exports.write_zip(tmp_path / "class.zip", {
            f"{one}/{NB01}": b"{}", f"{other}/{NB01}": b"{}"}), tmp_path / "ws")
    assert not (tmp_path / "ws" / "intake").exists() and not (tmp_path / "ws" / "intake.json").exists()


@pytest.mark.slow   # the command line up to its intake: about 4 s
def test_grade_stops_with_status_2_naming_both_folders(course, tmp_path, capsys):
    for name in ("Zoë Li", "Zoë_Li"):
        (tmp_path / "collected" / name).mkdir(parents=True)
        (tmp_path / "collected" / name / NB01).write_bytes((course.release_dir / NB01).read_bytes())
    assert cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--workspace",
                     str(tmp_path / "ws"), "--no-canary", "--sandbox", "off", "--notebook", "01"]) == 2
    said = capsys.readouterr().err
    assert "the folders 'Zoë Li' and 'Zoë_Li' would both be graded as student 'Zoë_Li'" in said
    assert {p.name for p in (tmp_path / "ws").iterdir()} <= {".grading.lock"}


def test_a_platforms_ids_carry_its_number_whatever_the_script(course, tmp_path):
    """Moodle's names in Chinese and Cyrillic: each id is its participant number (the readable part is
    ASCII, as it was), so `export --to moodle` finds everyone."""
    good = exports.notebook_bytes(exports.solved(course))
    export = exports.write_zip(tmp_path / "moodle.zip", {f"{name}_{n}_assignsubmission_file_/{NB01}": good
                                                         for name, n in (("张伟", 301), ("王芳", 302),
                                                                         ("Иван Петров", 303))})
    _, intake = platforms.take_in(course, export, tmp_path / "ws")
    assert {sid: s.key for sid, s in intake.students.items()} == {"301": "301", "302": "302", "303": "303"}
    assert platforms.Intake.load(tmp_path / "ws").students["301"].name == "张伟"


# --- two files for one notebook -----------------------------------------------------------------

def two_files(course, where, older, newer, times=(DEC_1, DEC_2)):
    """A student's folder holding `older` (the release, untouched) and `newer` (solved), with these times."""
    where.mkdir(parents=True, exist_ok=True)
    (where / older).write_bytes((course.release_dir / NB01).read_bytes())
    (where / newer).write_bytes(exports.notebook_bytes(exports.solved(course)))
    for name, when in zip((older, newer), times):
        os.utime(where / name, (when, when))
    return where


@pytest.mark.parametrize("older, newer, times, why", [
    (NB01, "01_noise_for_words (1).ipynb", (DEC_1, DEC_2), "newer"),         # the exact name loses to a newer copy
    ("01_noise_for_words (1).ipynb", NB01, (DEC_1, DEC_2), "newer"),         # ... and wins when it is the newer
    (NB01, "01_noise_for_words (1).ipynb", (DEC_1, DEC_1), "the same time, a later copy"),   # a zip's one time
    ("01_noise_for_words (1).ipynb", "01_noise_for_words (2).ipynb", (DEC_1 + 1, DEC_1), "the same time, a later copy"),
    (NB01, f"Copy of {NB01}", (DEC_1, DEC_1), "the same time, a later copy"),
])
def test_of_two_files_for_one_notebook_the_newest_is_chosen(course, tmp_path, older, newer, times, why):
    where = two_files(course, tmp_path / "ann", older, newer, times)
    chosen = folder.pick_files([NB01], where)[NB01]
    assert [p.name for p in chosen] == [newer, older]
    assert folder.choice_note(NB01, chosen, where) == (f"two files for 01_noise_for_words: graded `{newer}` "
                                                       f"({why}), left out `{older}`")


def test_the_prepared_notebook_is_the_newer_file_and_says_so(course, tmp_path):
    where = two_files(course, tmp_path / "ann", NB01, "01_noise_for_words (1).ipynb")
    info = folder.prepare(course, where, tmp_path / "target", [NB01]).notebooks[NB01]
    assert info.file == "01_noise_for_words (1).ipynb" and "left out `01_noise_for_words.ipynb`" in info.chosen_over
    assert folder.choice_note(NB01, folder.pick_files([NB01], where)[NB01][:1], where) == ""   # one file: no note


def test_a_platforms_export_goes_through_the_same_choice(course, tmp_path):
    """Canvas's zip keeps each file's time: the staged folder holds both, the intake says which is graded."""
    import zipfile
    with zipfile.ZipFile(tmp_path / "canvas.zip", "w") as out:
        for name, data, day in ((f"doejane_4242_1001_{NB01}", (course.release_dir / NB01).read_bytes(), 1),
                                ("doejane_4242_1002_01_noise_for_words (1).ipynb",
                                 exports.notebook_bytes(exports.solved(course)), 2)):
            out.writestr(zipfile.ZipInfo(name, (2025, 12, day, 10, 0, 0)), data)
    staged, intake = platforms.take_in(course, tmp_path / "canvas.zip", tmp_path / "ws")
    chosen = folder.pick_files([NB01], staged / "doejane_4242")[NB01]
    assert [p.name for p in chosen] == ["01_noise_for_words (1).ipynb", NB01]
    assert ("01_noise_for_words handed in 2 times (01_noise_for_words (1).ipynb, 01_noise_for_words.ipynb): "
            "the newest, 01_noise_for_words (1).ipynb, is graded") in intake.students["doejane_4242"].notes


# --- one class through the command line ---------------------------------------------------------

CLASS = {"张伟": "张伟", "王芳": "王芳", "Иван Петров": "Иван_Петров", "Zoë Li": "Zoë_Li", "Zoé Li": "Zoé_Li"}


@pytest.fixture(scope="module")
def graded_class(course, tmp_path_factory):
    """Five students of notebook 01: the solved notebook for 王芳 and Zoë, the release untouched for
    Иван and Zoé (so the two Zoës' marks differ), and 张伟's two files: the untouched one of 1 Dec
    under the notebook's own name, the solved one of 2 Dec as `(1)`."""
    top = tmp_path_factory.mktemp("unicode")
    collected = top / "collected"
    solved = exports.notebook_bytes(exports.solved(course))
    for name, data in (("王芳", solved), ("Zoë Li", solved), ("Иван Петров", None), ("Zoé Li", None)):
        (collected / name).mkdir(parents=True)
        (collected / name / NB01).write_bytes(data or (course.release_dir / NB01).read_bytes())
    two_files(course, collected / "张伟", NB01, "01_noise_for_words (1).ipynb")
    workspace = top / "ws"
    status = cli.main(["--course-dir", str(course.root), "grade", str(collected), "--workspace", str(workspace),
                       "--no-canary", "--sandbox", "off", "--notebook", "01"])
    return status, workspace


@pytest.mark.slow   # five students graded through the command line
def test_a_class_in_several_scripts_gets_a_row_and_a_page_each(graded_class, course):
    status, workspace = graded_class
    assert status == 0
    rows = {row.student: row for row in read_csv(workspace / CSV_NAME)}
    assert set(rows) == set(CLASS.values())
    full = rows["王芳"].auto_max
    assert full > 0 and [rows[s].auto_score for s in ("王芳", "Zoë_Li", "Иван_Петров", "Zoé_Li")] == [full, full, 0, 0]
    for sid in CLASS.values():
        assert (workspace / "feedback" / sid / course.assignment / f"{NB01[:-6]}.html").is_file(), sid
    with open(workspace / "grades-by-student.csv", encoding="utf-8") as handle:
        assert {line["student"] for line in csv.DictReader(handle)} == set(CLASS.values())
    with sqlite3.connect(workspace / "gradebook.db") as con:
        assert {sid for (sid,) in con.execute("SELECT student_id FROM submitted_assignment")} == set(CLASS.values())


@pytest.mark.slow
def test_the_newer_of_two_files_is_graded_and_the_row_names_the_other(graded_class):
    status, workspace = graded_class
    row = {row.student: row for row in read_csv(workspace / CSV_NAME)}["张伟"]
    assert row.auto_score == row.auto_max > 0
    assert ("two files for 01_noise_for_words: graded `01_noise_for_words (1).ipynb` (newer), left out "
            "`01_noise_for_words.ipynb`") in row.reason


def test_the_guide_shows_the_ids_grading_makes():
    from tests.support.docs import one_line, page
    text = one_line(page("grading.md"))
    shown = "`张伟`, `Иван_Петров`, `Zoë_Li` and `Zoé_Li` are four students"
    assert shown in text
    assert [folder.student_id(name) for name in ("张伟", "Иван Петров", "Zoë Li", "Zoé Li")] == \
        re.findall(r"`([^`]+)`", shown)
    assert "the newest is graded: the one modified last, and where the times are equal" in text
