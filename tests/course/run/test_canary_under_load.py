"""The canary on a busy machine (issue 63): the reference of a notebook, graded by `grade`'s canary in
its sandbox while busy processes hold both cores, gets full marks and is proved, with nothing stopped
by a time limit. With nbgrader's clock limit a load of 7 on two cores stopped notebook 06's reference
at 24 / 28 and graded nobody.

The load: BUSY_PER_CORE busy processes per core, each spinning in a session of its own as other
people's work does (tests/support/busy.py), on top of whatever else runs (in CI, the other pytest
worker): a load average of at least 2 on two cores beside the grading, quoted in the failure message.
BENCHMARKS.md ("Time limits that load cannot bend") and benchmarks/time_limits.py measure every notebook
at many loads, and how far the load can go.

Grading a notebook's reference takes from half a minute to four minutes under load here, so each run
grades PER_RUN notebook, turning through the course with the day of the year (every notebook within a
week); MASKDIFF_LOAD_NOTEBOOKS="06 07" (or "all") names the notebooks instead."""
import json
import os
import time

import pytest
from nbformat.v4 import new_markdown_cell, new_notebook

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.run.batch import grade
from maskdiff_solutions.course.run.canary import PROOF_NAME
from tests.support import busy

pytestmark = [pytest.mark.course, pytest.mark.slow]
BUSY_PER_CORE, PER_RUN = 1, 1


def chosen(course):
    names = [name[:2] for name in course.notebooks()]
    asked = os.environ.get("MASKDIFF_LOAD_NOTEBOOKS", "").split()
    if asked:
        return names if asked == ["all"] else asked
    day = time.gmtime().tm_yday
    return [names[(day + k) % len(names)] for k in range(PER_RUN)]


def test_the_reference_gets_full_marks_with_the_canary_while_the_cores_are_busy(course, tmp_path):
    selected = chosen(course)
    collected = tmp_path / "collected" / "student"
    collected.mkdir(parents=True)   # a student whose essay is no notebook of the course: the canary is all the work
    notebooks.write(new_notebook(cells=[new_markdown_cell("# My essay")]), collected / "essay.ipynb")
    with busy.busy(BUSY_PER_CORE * busy.cores()):
        before = busy.load()
        started = time.monotonic()
        report = grade(course, collected.parent, tmp_path / "workspace", progress=False, notebooks=selected,
                       any_notebooks=True)
        seconds, after = time.monotonic() - started, busy.load()
    load = f"notebooks {selected}, load average {before} -> {after}, {seconds:.0f} s"
    assert "ran out of time" not in report.canary, f"{report.canary} ({load})"
    proved = json.loads((tmp_path / "workspace" / PROOF_NAME).read_text())["proved"]
    assert sorted(name[:2] for name in proved) == sorted(selected), load
    assert {row.student for row in report.rows} == {"student"}, load   # the canary is nobody's row
