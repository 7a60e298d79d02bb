"""`regrade`: the notebooks graded under an earlier version of the course (course/ledger/versions.py), or
those named, graded again under the course as it is now, from the files the workspace holds (submitted/:
each student's file as it was graded). A regrade is a grading like any other (the workspace kept first for
`undo`, each student committed on their own): every hand grade and comment whose answer is unchanged
stays, and who each student is and what their platform marked late stay as the record holds them. Until
it runs, every stored score stays as it was graded."""
import shutil
import tempfile
from pathlib import Path

from ..ledger import commit, derived, record, safekeeping, versions
from ..ledger.export import remaker
from .batch import grade


def regrade(course, workspace=None, notebooks=None, **options):
    """Grade again the notebooks named (default: those graded under an earlier version of the course) of
    every student the workspace holds a file of; the grade() Report, or None where there is nothing to do."""
    workspace = course.workspace(workspace)
    record.check(course, workspace)
    stems = [Path(name).stem for name in course.select(notebooks)] if notebooks else \
        sorted(versions.outdated(course, workspace))
    if not stems:   # nothing to grade: the files made from the record made whole all the same
        with safekeeping.hold(workspace):
            commit.recover(workspace, remaker(course, workspace))
            derived.rebuild(course, workspace)
            for student in record.lost_pages(course, workspace):
                remaker(course, workspace)(student)
        return None
    with tempfile.TemporaryDirectory(prefix="maskdiff-regrade-") as folder:
        found = 0
        for (student, notebook), stored in sorted(record.results(workspace / record.DB_NAME).items()):
            handed = workspace / "submitted" / student / course.assignment / f"{notebook}.ipynb"
            if notebook in stems and stored["file_sha256"] and handed.is_file():
                (Path(folder) / student).mkdir(exist_ok=True)
                shutil.copyfile(handed, Path(folder) / student / handed.name)
                found += 1
        if not found:
            raise FileNotFoundError(f"{workspace / 'submitted'} holds no handed-in file of notebook "
                                    f"{', '.join(stem[:2] for stem in stems)}: grade the students' files with "
                                    f"`python -m maskdiff_solutions grade SUBMISSIONS --workspace {workspace}`")
        return grade(course, folder, workspace, notebooks=[stem[:2] for stem in stems], regrade=True, **options)
