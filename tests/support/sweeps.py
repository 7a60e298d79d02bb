"""Sweeps that CI runs a part of each day: every case of the sweep within a week, a representative of each
kind of case in every run.

A sweep repeats one property over many cases that mostly go down the same road (every function mutant
under every plot, every mutant through the checker's kernel). Each run of CI takes the sweep's
representatives (one case of each kind, chosen by the test) and the other cases whose turn it is: a case
takes its turn one day in DAYS, by a stable hash of its name, so that a week of runs covers them all.
A case out of turn is skipped, with one reason for them all. MASKDIFF_FULL_SWEEPS=1 runs every case (before a
release, or after changing what a sweep judges); MASKDIFF_SWEEP_DAY=N runs day N's turn.
"""
import os
import time
import zlib

import pytest

FULL, DAY = "MASKDIFF_FULL_SWEEPS", "MASKDIFF_SWEEP_DAY"
DAYS = 7


def today():
    return int(os.environ.get(DAY) or time.gmtime().tm_yday) % DAYS


def turn(name):
    """The day (0 to DAYS - 1) on which the case called `name` takes its turn."""
    return zlib.crc32(name.encode()) % DAYS


def in_turn(name, representative, day=None):
    """Whether the case runs now: it is a representative, its turn has come, or every case is asked for (for
    a test that sweeps its cases in a loop of its own). `day`: the case's own day, for a sweep of a few costly
    cases that spreads them one a day rather than by the hash of their names."""
    return representative or os.environ.get(FULL) == "1" or (turn(name) if day is None else day % DAYS) == today()


def take_turn(name, representative, day=None):
    """Skip the current test unless it is a representative, its turn has come, or every case is asked for."""
    if in_turn(name, representative, day):
        return
    pytest.skip(f"a case of a sweep whose turn is another day of the {DAYS} ({FULL}=1 runs every case: "
                f"tests/support/sweeps.py)")


def representatives(cases, kind, most=1, differ=None):
    """The first `most` cases of each kind (`kind(case)`), in the order given, each differing from those taken
    before it by `differ(case)` where that is given: what every run takes."""
    taken, seen = [], {}
    for case in cases:
        earlier = seen.setdefault(kind(case), [])
        mark = differ(case) if differ else len(earlier)
        if len(earlier) < most and mark not in earlier:
            earlier.append(mark)
            taken.append(case)
    return taken
