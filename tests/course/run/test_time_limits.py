"""Time limits that load cannot bend (issue 63): a cell's limit counts what its code computes
(course/sandbox/time_limits.py, applied by course/run/preprocessors.py), with a backstop of clock time
for code that sleeps or waits. A cell that truly loops still stops, on an idle machine and on a busy
one; a cell that sleeps stops at the backstop; a cell that fits its limit is not stopped because
other work holds the cores; a cell the machine starves is stopped as the machine's doing.

The busy machine is busy processes that each spin a core in a session of their own (setsid), as other
people's work does (tests/support/busy.py: Linux's autogroup scheduler gives each session one share,
so spinners in the test's own session would barely slow the kernel). BUSY_PER_CORE of them per core,
LOAD_STARVED per core for the starved cell: a load of at least 4 (8 on two cores) beside the kernel,
whatever else the machine runs."""
import os
import re
import subprocess
import sys
import time

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from maskdiff_solutions.course.run import preprocessors
from maskdiff_solutions.course.sandbox import time_limits
from maskdiff_solutions.course.sandbox.time_limits import COMPUTED, STARVED, WAITED, Reading, Spent, spent, verdict
from tests.support import busy

pytestmark = pytest.mark.course
BUSY_PER_CORE, LOAD_STARVED = 2, 4
TICK = 1 / time_limits.TICKS
# a cell that computes `seconds` of CPU time, whatever the clock says, and prints the clock time it took
COMPUTES = ("import time\nclock, cpu = time.monotonic(), time.process_time()\n"
            "while time.process_time() - cpu < {seconds}:\n    pass\nprint(f'clock {{time.monotonic() - clock:.2f}}')")


def test_spent_counts_the_busiest_thread_what_ended_and_the_waits():
    """Two threads that compute side by side count once (the busier), a thread that ended and a child
    reaped count in full, and `wanted` adds the busiest waits for a CPU."""
    before = Reading(100.0, {(1, 1): (1.0, 0.5), (1, 2): (0.0, 0.0)}, {1: (1.0, 0.0)})
    after = Reading(110.0, {(1, 1): (3.0, 0.5), (1, 2): (2.5, 4.0), (1, 3): (0.5, 0.0)},
                    {1: (1.0 + 2.0 + 2.5 + 0.5 + 1.0, 2.0)})   # 1.0 s of a thread that ended, 2.0 s reaped
    used = spent(before, after)
    assert used.wall == 10.0
    assert used.busy == pytest.approx(2.5 + 1.0 + 2.0, abs=2 * TICK)
    assert used.wanted == pytest.approx(2.5 + 4.0 + 1.0 + 2.0, abs=2 * TICK)
    assert (used + used).busy == pytest.approx(2 * used.busy)


@pytest.mark.parametrize("wall, busy_, wanted, expected", [
    (29.0, 29.0, 29.0, None),          # inside its limit
    (31.0, 30.5, 31.0, COMPUTED),      # computed its limit: stopped, on an idle machine as before
    (31.0, 12.0, 31.0, None),          # past 30 s of clock, but it computed 12: the machine is busy
    (119.0, 20.0, 119.0, None),        # ... up to the backstop
    (120.0, 20.0, 119.0, STARVED),     # wanted its 30 s of CPU, waited for it past the backstop
    (120.0, 0.5, 0.6, WAITED),         # slept or waited: the student's doing
    (120.0, 31.0, 120.0, COMPUTED),
])
def test_the_verdict_of_a_limit(wall, busy_, wanted, expected):
    assert verdict(Spent(wall, busy_, wanted), 30, 4.0) == expected


CHILD = """import subprocess, sys, time
work = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 1.0:\\n    pass"
subprocess.run([sys.executable, "-c", work])
time.sleep(1.5)
"""


def test_a_reading_counts_a_reaped_childs_work_and_not_a_sleep():
    """The tree under a process, read from /proc: a child's second of CPU counts (while it runs, then
    reaped into its parent's account); the parent's sleep of 1.5 s does not."""
    parent = subprocess.Popen([sys.executable, "-c", CHILD])
    try:
        meter = time_limits.KernelMeter(parent.pid)
        start = last = meter.read()
        seen = set()
        while parent.poll() is None:
            seen.update(meter.pids())
            reading = meter.read()
            last = reading if parent.pid in reading.processes else last   # not one taken as it ended
            time.sleep(0.05)
    finally:
        parent.kill()
    assert len(seen) >= 2, "the tree holds the child below the process"
    used = spent(start, last)
    assert 0.9 <= used.busy <= 2.5, used            # the child's second and the interpreters' starts
    assert used.wall - used.busy >= 1.0, used       # the sleep is clock time only


def run(cells, **traits):
    """Each cell's errors [(ename, evalue)] and printed text, run by SurvivingExecute (no sandbox)."""
    nb = new_notebook(cells=[new_code_cell(source) for source in cells])
    nb, _ = preprocessors.SurvivingExecute(**traits).preprocess(nb, {"metadata": {"path": "."}})
    return ([[(o.get("ename"), o.get("evalue")) for o in c.outputs if o.output_type == "error"] for c in nb.cells],
            ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in nb.cells])


def clock_of(printed):
    return float(re.search(r"clock (\d+\.\d+)", printed).group(1))


@pytest.mark.slow
def test_a_cell_that_sleeps_is_stopped_at_the_backstop():
    started = time.monotonic()
    errors, _ = run(["import time\ntime.sleep(600)", "x = 1"], timeout=1, backstop=3)
    assert errors[0] == [(preprocessors.TIMED_OUT, preprocessors.waited_sentence(3))]
    assert errors[1] == []
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_the_notebook_budget_counts_computing_and_its_backstop_the_clock():
    computes = COMPUTES.format(seconds=1.2)
    errors, _ = run([computes, "assert True"], notebook_timeout=1)
    assert errors[0] == []
    assert errors[1][0][0] == preprocessors.NOT_RUN and "used up" in errors[1][0][1]
    sleeps = "import time\ntime.sleep(1.2)"
    errors, _ = run([sleeps, "assert True"], notebook_timeout=1)
    assert errors == [[], []], "a notebook that sleeps computes nothing"
    errors, _ = run([sleeps, "assert True"], notebook_timeout=1, backstop=1.0)
    assert errors[1][0][0] == preprocessors.NOT_RUN and "used up" in errors[1][0][1]


@pytest.mark.slow
def test_on_a_busy_machine_a_loop_still_stops_and_a_cell_that_fits_is_not_stopped():
    """The issue's guarantee at a small scale: with busy processes holding both cores, a cell that
    computes 1.5 s under a 2 s limit takes longer than 2 s of clock time (nbgrader's clock limit would
    have stopped it) and is not stopped; a cell that loops forever still is, as computing too long."""
    with busy.busy(BUSY_PER_CORE * busy.cores()):
        load = busy.load()
        errors, printed = run([COMPUTES.format(seconds=1.5), "while True:\n    pass"], timeout=2, backstop=8)
    assert errors[0] == [], f"a cell that fits its limit was stopped (load {load})"
    assert clock_of(printed[0]) > 2, f"the machine was not busy enough to prove anything (load {load})"
    assert errors[1] == [(preprocessors.TIMED_OUT, preprocessors.timeout_sentence(2))], load


@pytest.mark.slow
def test_a_cell_the_machine_starves_is_stopped_as_the_machines_doing():
    """LOAD_STARVED busy processes per core: a loop under a 2 s limit gets well under 2 s of CPU in its
    3 s of clock time (backstop 1.5), so it is stopped as MachineBusy, which the student's row flags
    for a person and `grade --only-changed` grades again, never as the student's timeout."""
    with busy.busy(LOAD_STARVED * busy.cores()):
        load = busy.load()
        errors, _ = run(["while True:\n    pass", "x = 1"], timeout=2, backstop=1.5)
    assert [e for e, _ in errors[0]] == [preprocessors.MACHINE_BUSY], (errors, load)
    assert "too busy" in errors[0][0][1] and "not your code's doing" in errors[0][0][1]
    assert errors[1] == []


def test_busy_processes_lead_sessions_of_their_own_and_end_with_the_block():
    with busy.busy(2) as processes:
        pids = [process.pid for process in processes]
        assert all(busy.session_of(pid) == pid != os.getsid(0) for pid in pids)
    assert all(process.poll() is not None for process in processes)


def test_a_notebook_the_machine_stopped_is_graded_again_by_only_changed(course, tmp_path, monkeypatch):
    """The record keeps no submission hash for a notebook the machine's load stopped (StudentResult.busy),
    so `grade --only-changed` grades that student again instead of keeping the result."""
    from maskdiff_solutions.course.records.nbgrader_apps import up_to_date_gradebook
    from maskdiff_solutions.course.records.rows import Row, StudentResult
    from maskdiff_solutions.course.run import committer
    from maskdiff_solutions.course.run.earlier import Earlier
    up_to_date_gradebook(course, tmp_path)   # the points each result is graded under (course/ledger/versions.py)
    kept = {}
    monkeypatch.setattr(committer.commit, "commit", lambda *args, **_: kept.update(args[6]))
    earlier = Earlier([], ["01_noise_for_words.ipynb", "02_undiffusing.ipynb"])   # a fresh workspace's
    folder = tmp_path / "ann"
    folder.mkdir()
    (folder / "01_noise_for_words.ipynb").write_text("{}")
    result = StudentResult("ann", [Row("ann", "01_noise_for_words", "flagged"), Row("ann", "02_undiffusing", "graded")],
                           busy=["01_noise_for_words"])
    committer.Committer(course, tmp_path, earlier, None, "inputs").student(tmp_path, result, folder)
    assert kept["01_noise_for_words"]["submission"] == ""
    assert kept["02_undiffusing"]["submission"]
