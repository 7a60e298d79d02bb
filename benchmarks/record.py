"""The term's record (course/ledger/record.py) at a class's size: a gradebook of N students, every
notebook submitted, read back as every derived file is made (`record.derived_rows`), with the scores
of one SQL query (`records/gradebook.all_scores`) against nbgrader's ORM notebook by notebook (what
`rescore` did before issue 52); and `record.check` (it hashes every handed-in file) on the same class.

    python benchmarks/record.py --students 300
"""
import argparse
import shutil
import sqlite3
import tempfile
import time
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    import sys
    sys.path.insert(0, str(ROOT))
    from maskdiff_solutions.course.layout import Course
    from maskdiff_solutions.course.ledger import record
    from maskdiff_solutions.course.records.gradebook import all_scores, open_gradebook, scores, strip_submissions
    from maskdiff_solutions.course.records.nbgrader_apps import generate
    from maskdiff_solutions.course.records.rows import Row
    from tests.support.fake_grading import create_submission

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    args = parser.parse_args()
    course = Course.load(ROOT)
    stems = [Path(name).stem for name in course.notebooks()]
    with tempfile.TemporaryDirectory() as scratch:
        ws = Path(scratch) / "ws"
        generate(course, Path(scratch) / "release", ws)
        db = ws / "gradebook.db"
        strip_submissions(db)
        students = [f"student{n:04d}" for n in range(args.students)]
        with sqlite3.connect(db) as con:
            for student in students:
                create_submission(con, student, course.assignment)
                con.execute("UPDATE grade SET auto_score = 1, needs_manual_grade = 0")
        with closing(record.connect(db)) as con:
            con.execute("BEGIN")
            for student in students:
                for stem in stems:
                    path = ws / "submitted" / student / course.assignment / f"{stem}.ipynb"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(course.release_dir / f"{stem}.ipynb", path)
                    graded = ws / "autograded" / student / course.assignment / f"{stem}.ipynb"
                    graded.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, graded)
                    record.put_result(con, Row(student, stem, "graded"), file_sha256=record.file_digest(path))
            con.execute("COMMIT")
        started = time.perf_counter()
        with open_gradebook(db) as gradebook:
            orm = {(s, n): scores(gradebook, course.assignment, n, s) for s in students for n in stems}
        orm_seconds = time.perf_counter() - started
        started = time.perf_counter()
        one = all_scores(db, course.assignment)
        sql_seconds = time.perf_counter() - started
        assert {key: one[key] for key in orm} == orm
        started = time.perf_counter()
        rows = record.derived_rows(course, ws)
        rows_seconds = time.perf_counter() - started
        started = time.perf_counter()
        record.check(course, ws)
        check_seconds = time.perf_counter() - started
    print(f"{args.students} students x {len(stems)} notebooks ({len(rows)} rows):")
    print(f"  scores through nbgrader's ORM, notebook by notebook: {orm_seconds:.2f} s")
    print(f"  scores in one query (all_scores):                    {sql_seconds:.2f} s ({orm_seconds / sql_seconds:.0f} x faster), the same")
    print(f"  every derived row (record.derived_rows):             {rows_seconds:.2f} s")
    print(f"  record.check (a digest of every handed-in file):     {check_seconds:.2f} s")


if __name__ == "__main__":
    main()
