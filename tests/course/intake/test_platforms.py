"""Taking in what a platform exports (course/intake/platforms.py, course/intake/roster.py, course/intake/unzip.py): every
file matched to a student or listed, every messy case said, nothing lost. No grading here: the round
trip through grading and back is tests/course/records/test_round_trip.py."""
import os
import shutil
import zipfile

import pytest

from maskdiff_solutions.course.intake import platforms, roster as rosters
from maskdiff_solutions.course.intake.unzip import Budget, unpack
from tests.support import exports
from tests.support.exports import NB01


def staged_files(folder):
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_a_canvas_zip_with_its_gradebook_as_roster(course, tmp_path):
    export, roster = exports.canvas(course, tmp_path)
    folder, intake = platforms.take_in(course, export, tmp_path / "ws", roster)
    assert folder == tmp_path / "ws" / "intake" and intake.platform == "canvas"
    assert set(intake.students) == {"doejane_4242", "smithbob_5151", "nunezzoe_6161", "absental_7171"}
    assert staged_files(folder / "doejane_4242") == {NB01}
    # Bob handed in twice: the later file (`-1`) is graded under the notebook's own name
    assert (folder / "smithbob_5151" / NB01).read_bytes() == (folder / "doejane_4242" / NB01).read_bytes()
    bob = intake.students["smithbob_5151"]
    assert bob.late and bob.earlier == [f"smithbob_late_5151_1002_{NB01}"]
    assert intake.students["absental_7171"].on_roster and not intake.students["absental_7171"].files
    assert staged_files(folder / "absental_7171") == set()
    assert intake.students["nunezzoe_6161"].name == "Núñez, Zoë"
    assert intake.students["nunezzoe_6161"].not_notebooks == ["homework.pdf"]
    assert "9999" not in {s.key for s in intake.students.values()}  # Canvas's test student is nobody
    assert intake.unmatched == [["notes from the TA.txt", "not named as Canvas names a submission"]]
    assert (tmp_path / "ws" / "intake-unmatched" / "notes from the TA.txt").read_bytes() == b"a stranger's file"
    text = intake.summary()
    for line in ("3 students handed in, 1 handed in nothing", "Absent, Al (7171)", "notes from the TA.txt",
                 "smithbob_late_5151_1002", "late, as canvas marked it", "homework.pdf is a PDF"):
        assert line in text
    assert platforms.Intake.load(tmp_path / "ws").students["smithbob_5151"].late
    assert not (tmp_path / "ws" / ".intake-export").exists()


def test_the_unpacked_zip_and_a_wrapping_folder_take_in_the_same(course, tmp_path):
    export, roster = exports.canvas(course, tmp_path)
    _, zipped = platforms.take_in(course, export, tmp_path / "a", roster)
    with zipfile.ZipFile(export) as handle:
        handle.extractall(tmp_path / "unpacked" / "submissions")
    for source in (tmp_path / "unpacked" / "submissions", tmp_path / "unpacked"):
        _, intake = platforms.take_in(course, source, tmp_path / "b", roster)
        assert {sid: (s.files, s.earlier, s.late) for sid, s in intake.students.items()} == \
            {sid: (s.files, s.earlier, s.late) for sid, s in zipped.students.items()}


def test_canvas_without_a_roster_names_students_as_with_one(course, tmp_path):
    export, roster = exports.canvas(course, tmp_path)
    _, alone = platforms.take_in(course, export, tmp_path / "a")
    _, listed = platforms.take_in(course, export, tmp_path / "b", roster)
    assert set(alone.students) == set(listed.students) - {"absental_7171"}


@pytest.mark.parametrize("flat", [False, True], ids=["folders", "flat files"])
def test_a_moodle_download_with_its_grading_worksheet(course, tmp_path, flat):
    export, roster = exports.moodle(course, tmp_path, flat)
    folder, intake = platforms.take_in(course, export, tmp_path / "ws", roster)
    assert intake.platform == "moodle"
    assert set(intake.students) == {"janedoe_301", "janedoe_302", "bobsmith_303", "emilezola_304"}
    assert staged_files(folder / "janedoe_301") == {NB01}
    assert staged_files(folder / "bobsmith_303") == {f"Copy of {NB01}", "onlinetext.html"}
    assert intake.students["bobsmith_303"].late  # the worksheet's status says so
    assert intake.students["emilezola_304"].email == "emile@uni.example"
    text = intake.summary()
    assert "students with the same name, told apart by their ids" in text and "janedoe_301, janedoe_302" in text
    assert "Émile Zola (304)" in text


def test_a_gradescope_export_folder(course, tmp_path):
    export, roster = exports.gradescope(course, tmp_path)
    folder, intake = platforms.take_in(course, export, tmp_path / "ws", roster)
    assert intake.platform == "gradescope"
    # a group submission: each of its students graded on it; the TA on the roster is nobody
    assert set(intake.students) == {"annlee_a100", "benode_b200", "caiwu_c300", "deeray_d400"}
    assert staged_files(folder / "annlee_a100") == staged_files(folder / "benode_b200") == {NB01}
    assert intake.students["caiwu_c300"].late
    assert not intake.students["deeray_d400"].files
    assert intake.unmatched == [["stray.ipynb", "in no submission the metadata names"]]
    assert "a group submission of 2 students" in intake.summary()
    # the export's parent folder (as unpacked from Gradescope's zip) is the same export
    _, again = platforms.take_in(course, export.parent, tmp_path / "ws2", roster)
    assert set(again.students) == set(intake.students)


def test_gradescope_metadata_never_leads_outside_the_export(course, tmp_path):
    export, _ = exports.gradescope(course, tmp_path)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / NB01).write_text("{}")
    (export / "submission_metadata.yml").write_text(
        "../../secret:\n  :submitters:\n  - :name: Eve\n    :sid: E1\n" +
        (export / "submission_metadata.yml").read_text())
    folder, intake = platforms.take_in(course, export, tmp_path / "ws")
    assert "evee1" not in " ".join(intake.students) and not (folder / "eve_e1").exists()
    assert any("not a folder of the export" in note for note in intake.notes)
    (export / "submission_metadata.yml").write_text("- just\n- a list\n")
    with pytest.raises(ValueError, match="not Gradescope's metadata"):
        platforms.take_in(course, export, tmp_path / "ws")


def test_nbgrader_submitted_layout(course, tmp_path):
    submitted = tmp_path / "submitted"
    for student in ("ada", "bo"):
        (submitted / student / course.assignment).mkdir(parents=True)
        shutil.copy(course.release_dir / NB01, submitted / student / course.assignment / NB01)
        (submitted / student / course.assignment / "timestamp.txt").write_text("2026-12-01 10:00:00")
    ids = tmp_path / "ids.csv"
    ids.write_text("student,name\nada,Ada L\nbo,Bo K\ncy,Cy M\n")
    folder, intake = platforms.take_in(course, submitted, tmp_path / "ws", ids)
    assert intake.platform == "nbgrader"
    assert staged_files(folder / "ada") == {NB01, "timestamp.txt"}
    assert not intake.students["cy"].files and "Cy M (cy)" in intake.summary()


def test_collected_without_a_roster_is_graded_where_it_is(course, tmp_path):
    (tmp_path / "collected" / "ada").mkdir(parents=True)
    assert platforms.take_in(course, tmp_path / "collected", tmp_path / "ws") == (tmp_path / "collected", None)
    ids = tmp_path / "ids.csv"
    ids.write_text("student\nada\nbo\n")
    folder, intake = platforms.take_in(course, tmp_path / "collected", tmp_path / "ws", ids)
    assert set(intake.students) == {"ada", "bo"} and (folder / "bo").is_dir()


def test_a_folder_without_student_folders_is_an_error_that_says_why(course, tmp_path):
    (tmp_path / "flat").mkdir()
    shutil.copy(course.release_dir / NB01, tmp_path / "flat" / NB01)
    with pytest.raises(ValueError, match="no student sub-folders.*01_noise_for_words.ipynb.*one\nsub-folder|"
                                         "no student sub-folders"):
        platforms.take_in(course, tmp_path / "flat", tmp_path / "ws")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="it is empty"):
        platforms.take_in(course, tmp_path / "empty", tmp_path / "ws")


def test_the_cli_exits_2_on_a_folder_without_students(course, tmp_path, capsys):
    from maskdiff_solutions.course.cli import main
    (tmp_path / "flat").mkdir()
    (tmp_path / "flat" / NB01).write_text("{}")
    assert main(["grade", str(tmp_path / "flat"), "--workspace", str(tmp_path / "ws"), "--course-dir",
                 str(course.root), "--no-canary"]) == 2
    assert "no student sub-folders" in capsys.readouterr().err


def test_a_zip_a_student_handed_in_is_unpacked_and_a_notebook_twice_is_said(course, tmp_path):
    inner = exports.write_zip(tmp_path / "work.zip", {f"work/{NB01}": (course.release_dir / NB01).read_bytes()})
    export = exports.write_zip(tmp_path / "canvas.zip", {
        "leeann_11_21_work.zip": inner.read_bytes(),
        f"okoro_12_22_{NB01}": b"{}", f"okoro_12_23_Copy of {NB01}": b"{}"})
    folder, intake = platforms.take_in(course, export, tmp_path / "ws")
    assert f"work/work/{NB01}" in staged_files(folder / "leeann_11")
    assert "unpacked work.zip (1 files)" in intake.students["leeann_11"].notes
    assert any("01_noise_for_words handed in 2 times" in note for note in intake.students["okoro_12"].notes)


def test_a_hostile_zip_writes_nothing_outside_and_says_what_it_left(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("../../escape.txt", "x")
        out.writestr("/etc/absolute.txt", "x")
        out.writestr("C:/windows.txt", "x")
        link = zipfile.ZipInfo("link")
        link.external_attr = (0o120777 << 16)
        out.writestr(link, "/etc/passwd")
        out.writestr("big.bin", b"0" * 5000)
        out.writestr("fine/ok.txt", "fine")
    target = tmp_path / "deep" / "target"
    target.mkdir(parents=True)
    written, left = unpack(archive, target, Budget(100, 4000))
    assert [p.relative_to(target).as_posix() for p in written] == ["fine/ok.txt"]
    reasons = dict(left)
    assert reasons["../../escape.txt"] == reasons["/etc/absolute.txt"] == reasons["C:/windows.txt"] \
        == "its name leads outside the folder"
    assert reasons["link"].startswith("a link") and reasons["big.bin"] == "over the size unpacked"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["evil.zip", "ok.txt"]
    assert not os.path.lexists(target / "link")


def test_a_zip_that_lies_about_its_size_stops_at_the_budget(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("zeros.bin", b"\0" * (3 << 20))
    data = bytearray(archive.read_bytes())
    # every size field that says 3 MiB says 10 bytes instead: the unpacked bytes are counted, not read off
    data = data.replace((3 << 20).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    archive.write_bytes(bytes(data))
    written, left = unpack(archive, tmp_path / "out", Budget(10, 1 << 20))
    assert not written and left and not (tmp_path / "out" / "zeros.bin").exists()


def test_a_broken_export_zip_is_said_not_dropped(course, tmp_path):
    (tmp_path / "canvas.zip").write_bytes(b"PK\3\4 truncated")
    with pytest.raises(ValueError, match=r"canvas.zip is not a zip file: it starts as a zip but is cut off"):
        platforms.take_in(course, tmp_path / "canvas.zip", tmp_path / "ws")


@pytest.mark.parametrize("kind,text,keys", [
    ("canvas", "Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n\"Doe, Jane\",42,,,\n", ["42"]),
    ("moodle", "Identifier,Full name,Email address,Status\nParticipant 7,Al B,a@b.c,\n", ["7"]),
    ("gradescope", "Name,SID,Email,Role\nAl B,s7,a@b.c,Student\nT A,,t@b.c,Instructor\n", ["s7"]),
    ("gradescope", "First Name,Last Name,SID,Email\nAl,B,,a@B.c\n", ["a@b.c"]),
    ("ids", "student,name\nada,Ada\n", ["ada"]),
])
def test_each_roster_kind_is_read(tmp_path, kind, text, keys):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    got_kind, people = rosters.read(path)
    assert got_kind == kind and [p.key for p in people] == keys


def test_a_roster_from_excel_on_windows_and_bad_rosters(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("student,name\nzoe,Zoë\n".encode("cp1252"))
    assert rosters.read(path)[1][0].name == "Zoë"
    path.write_text("who,where\nx,y\n")
    with pytest.raises(ValueError, match="none of the exports this reads.*who, where"):
        rosters.read(path)
    path.write_text("student\nada\nada\n")
    with pytest.raises(ValueError, match="names the id ada twice"):
        rosters.read(path)


def test_canvas_test_student_is_named_when_left_out_and_counts_read_right(course, tmp_path):
    """Canvas puts its Student View user on every gradebook export: left out, with a line that says so;
    and a count of one is '1 student'."""
    from maskdiff_solutions.course.intake.platforms import take_in
    from maskdiff_solutions.course.layout import plural
    export, roster = exports.canvas(course, tmp_path)
    _, intake = take_in(course, export, tmp_path / "ws", roster)
    assert "roster canvas-gradebook.csv: Canvas's test student (Student, Test) left out: not a student of the class" \
        in intake.notes
    assert "9999" not in {s.key for s in intake.students.values()}
    assert (plural(1, "student"), plural(2, "student"), plural(1.5, "point")) == ("1 student", "2 students", "1.5 points")


def test_a_zip_of_student_folders_is_taken_in(course, tmp_path):
    """collected/ zipped, no roster: staged like any export (it was opened as a folder, and failed)."""
    export = exports.write_zip(tmp_path / "class.zip", {f"ann/{NB01}": b"{}", f"bo/Copy of {NB01}": b"{}"})
    folder, intake = platforms.take_in(course, export, tmp_path / "ws")
    assert intake.platform == "collected" and set(intake.students) == {"ann", "bo"}
    assert staged_files(folder / "bo") == {f"Copy of {NB01}"}
