"""Platform exports as Canvas, Moodle, Gradescope and nbgrader write them, for the intake's tests:
names, metadata files, resubmissions, late work, strangers' files, and the rosters each exports."""
import zipfile
from pathlib import Path

from maskdiff_solutions.course.intake import notebooks

NB01 = "01_noise_for_words.ipynb"


def solved(course, name=NB01):
    return notebooks.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))


def write_zip(path, members):
    """members: {name in the zip: bytes}."""
    with zipfile.ZipFile(path, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    return path


def notebook_bytes(nb):
    import nbformat
    return nbformat.writes(nb).encode()


def canvas(course, folder, broken=False):
    """Canvas's submissions zip and gradebook export: Jane (the reference), Bob (late, handed in again:
    `-1`), Zoë (a PDF), Al (nothing), a stranger's file, and Canvas's test student on the roster;
    broken: also Kim, whose notebook is not JSON (not on the roster)."""
    folder = Path(folder)
    good, untouched = notebook_bytes(solved(course)), (course.release_dir / NB01).read_bytes()
    extra = {f"kimbroken_8181_1004_{NB01}": b'{"cells": [ truncated'} if broken else {}
    export = write_zip(folder / "submissions.zip", {**extra,
        f"doejane_4242_1001_{NB01}": good,
        f"smithbob_late_5151_1002_{NB01}": untouched,
        "smithbob_late_5151_1009_01_noise_for_words-1.ipynb": good,
        "nunezzoe_6161_1003_homework.pdf": b"%PDF-1.4 not a notebook",
        "notes from the TA.txt": b"a stranger's file",
    })
    roster = folder / "canvas-gradebook.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Masked diffusion (777)\n"
                      "    Points Possible,,,,,18\n"
                      '"Doe, Jane",4242,s1,jdoe,A,\n"Smith, Bob",5151,s2,bsmith,A,\n'
                      '"Núñez, Zoë",6161,s3,znunez,B,\n"Absent, Al",7171,s4,aabsent,B,\n'
                      '"Student, Test",9999,,,,\n', encoding="utf-8")
    return export, roster


def moodle(course, folder, flat=False):
    """Moodle's "download all submissions" (folders, or flat files) and its grading worksheet: two
    students named Jane Doe, a late Bob, online text, and one participant who handed in nothing."""
    folder = Path(folder)
    good, untouched = notebook_bytes(solved(course)), (course.release_dir / NB01).read_bytes()
    sep = "" if flat else "/"
    export = write_zip(folder / "moodle.zip", {
        f"Jane Doe_301_assignsubmission_file_{sep}{NB01}": good,
        f"Jane Doe_302_assignsubmission_file_{sep}{NB01}": untouched,
        f"Bob Smith_303_assignsubmission_file_{sep}Copy of {NB01}": good,
        f"Bob Smith_303_assignsubmission_onlinetext_{sep}onlinetext.html": b"<p>see attached</p>",
    })
    roster = folder / "moodle-worksheet.csv"
    roster.write_text("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
                      "Last modified (submission),Last modified (grade),Feedback comments\n"
                      "Participant 301,Jane Doe,jane1@uni.example,Submitted for grading,,18,Yes,,,\n"
                      "Participant 302,Jane Doe,jane2@uni.example,Submitted for grading,,18,Yes,,,\n"
                      "Participant 303,Bob Smith,bob@uni.example,Submitted for grading - 2 hours late,,18,Yes,,,\n"
                      "Participant 304,Émile Zola,emile@uni.example,No submission,,18,Yes,,,\n", encoding="utf-8")
    return export, roster


def gradescope(course, folder):
    """Gradescope's "Export submissions" folder: a group submission of two, a single one, a file
    outside any submission, and Gradescope's roster with a TA on it."""
    folder = Path(folder) / "download" / "assignment_55_export"
    for sub in ("submission_1", "submission_2"):
        (folder / sub).mkdir(parents=True)
    notebooks.write(solved(course), folder / "submission_1" / NB01)
    (folder / "submission_2" / NB01).write_bytes((course.release_dir / NB01).read_bytes())
    (folder / "stray.ipynb").write_text("{}")
    (folder / "submission_metadata.yml").write_text("""\
submission_1:
  :submitters:
  - :name: Ann Lee
    :sid: A100
    :email: ann@uni.example
  - :name: Ben Ode
    :sid: B200
    :email: ben@uni.example
  :created_at: 2026-11-30 10:00:00.000000000 -08:00
  :status: processed
submission_2:
  :submitters:
  - :name: Cai Wu
    :sid: C300
    :email: cai@uni.example
  :created_at: 2026-11-30 11:00:00.000000000 -08:00
  :status: late
""", encoding="utf-8")
    roster = folder.parents[1] / "gradescope-roster.csv"
    roster.write_text("First Name,Last Name,SID,Email,Role,Sections\nAnn,Lee,A100,ann@uni.example,Student,\n"
                      "Ben,Ode,B200,ben@uni.example,Student,\nCai,Wu,C300,cai@uni.example,Student,\n"
                      "Dee,Ray,D400,dee@uni.example,Student,\nTa,Person,,ta@uni.example,TA,\n", encoding="utf-8")
    return folder, roster
