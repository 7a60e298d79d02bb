"""Two gradings of one batch compared, as the tests of `grade --jobs`, `--notebook-jobs`, `--executor dask`
and two graders at once compare them with the serial run."""
import sqlite3

from maskdiff_solutions.course.rows import CSV_NAME


def assert_same_grading(one, serial, two, other):
    """Two gradings of the same batch agree: rows, tests, gradebook, CSV bytes, feedback pages."""
    assert [vars(row) for row in other.rows] == [vars(row) for row in serial.rows]
    assert other.tests == serial.tests
    assert gradebook_rows(two / "gradebook.db") == gradebook_rows(one / "gradebook.db")
    assert len(gradebook_rows(one / "gradebook.db")) > len(serial.rows)
    assert (two / CSV_NAME).read_bytes() == (one / CSV_NAME).read_bytes()
    listing = lambda root: sorted(str(p.relative_to(root)) for p in (root / "feedback").rglob("*"))  # noqa: E731
    assert listing(two) == listing(one)


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
