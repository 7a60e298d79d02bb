"""Two gradings of one batch compared, as the tests of `grade --jobs`, `--notebook-jobs`, `--executor dask`
and two graders at once compare them with the serial run."""
import sqlite3

from maskdiff_solutions.course.records.rows import CSV_NAME


def assert_same_grading(one, serial, two, other, students=None, notebooks=None):
    """Two gradings of the same batch agree: rows, tests, gradebook, CSV bytes, feedback pages. With
    `students` and `notebooks` (stems) only theirs are compared: `one` may be a larger grading (more
    students, every notebook) that holds the batch of `two`."""
    def kept(student, notebook):   # notebook None: any (a student's feedback folder)
        return (students is None or student in students) and (notebooks is None or notebook in (None, *notebooks))

    assert [vars(row) for row in other.rows if kept(row.student, row.notebook)] == \
        [vars(row) for row in serial.rows if kept(row.student, row.notebook)]
    assert {key: v for key, v in other.tests.items() if kept(*key)} == {key: v for key, v in serial.tests.items() if kept(*key)}
    graded = [row for row in gradebook_rows(one / "gradebook.db") if kept(row[0], row[1])]
    assert [row for row in gradebook_rows(two / "gradebook.db") if kept(row[0], row[1])] == graded
    assert len(graded) > len([row for row in serial.rows if kept(row.student, row.notebook)])
    assert csv_lines(two, kept) == csv_lines(one, kept)
    assert feedback(two, kept) == feedback(one, kept)


def csv_lines(workspace, kept):
    """The header and the kept students' lines of grades-by-notebook.csv, as bytes."""
    lines = (workspace / CSV_NAME).read_bytes().splitlines(keepends=True)
    return lines[:1] + [line for line in lines[1:] if kept(*line.decode().split(",")[:2])]


def feedback(workspace, kept):
    """The kept students' feedback folders and pages (feedback/<student>/<assignment>/<notebook>.html)."""
    root = workspace / "feedback"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if kept(p.relative_to(root).parts[0], p.stem if p.is_file() else None))


def gradebook_rows(db):
    """Every grade of the batch as plain values (ids and timestamps differ from run to run)."""
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute(
            "SELECT sa.student_id, n.name, c.name, g.auto_score, g.manual_score, g.needs_manual_grade "
            "FROM grade g JOIN base_cell c ON g.cell_id = c.id "
            "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN notebook n ON sn.notebook_id = n.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id").fetchall())
    finally:
        con.close()
