"""An instructor's wrong input, caught before grading writes anything: a roster that is another
platform's or another class's, a batch in which most students handed in other notebooks than the
ones asked for, and one in which no notebook is this course's (another course's export). Each stops
`grade` with one sentence that names what was given, what was found and how to go on all the same
(its own exit status: cli.GRADE_EXIT)."""
from collections import Counter
from pathlib import Path

from ..layout import plural
from . import notebooks, repair
from .folder import canonical_name

PLATFORMS = ("canvas", "moodle", "gradescope")
NAMES = {"canvas": "Canvas", "moodle": "Moodle", "gradescope": "Gradescope", "ids": "a list of ids"}


class WrongRoster(ValueError):
    """The roster is not the class list of this export."""
    status = 3


class WrongNotebooks(ValueError):
    """Most students handed in another notebook than the ones being graded."""
    status = 4


class OtherCourse(WrongNotebooks):
    """Students handed in notebooks and none is one of this course's, by name or content."""


def check_roster(platform, kind, roster, handed, on_roster):
    """platform: the export's; kind: the roster's (roster.read); handed: how many students handed in
    files; on_roster: how many of those the roster names."""
    if kind in PLATFORMS and platform in PLATFORMS and kind != platform:
        raise WrongRoster(f"the roster {roster} is {NAMES[kind]}'s, but the submissions are {NAMES[platform]}'s "
                          f"export: give {NAMES[platform]}'s own class list (docs/platforms/{platform}.md), or "
                          f"--any-roster to grade with this one all the same")
    if handed and on_roster * 2 < handed:
        raise WrongRoster(f"the roster {roster} names only {on_roster} of the {plural(handed, 'student')} "
                          f"who handed in: is it another class's or "
                          f"another term's? Give this class's list, or --any-roster to grade with it all the same")


def check_notebooks(files, expected, course_notebooks):
    """files: {student: [file names they handed in]}; expected: the notebooks being graded. Most of the
    students who handed in a notebook of the course handed in none of the expected ones: stop."""
    wanted = {canonical_name(name) for name in expected}
    others = {canonical_name(name): name for name in course_notebooks if name not in expected}
    handed, elsewhere, found = 0, 0, Counter()
    for names in files.values():
        kinds = {canonical_name(name) for name in names if name.lower().endswith(".ipynb")}
        if not kinds:
            continue
        handed += 1
        if not kinds & wanted and kinds & set(others):
            elsewhere += 1
            found.update(others[kind] for kind in kinds & set(others))
    if handed and elsewhere * 2 > handed:
        seen = ", ".join(f"{name} ({count})" for name, count in found.most_common(3))
        raise WrongNotebooks(f"{elsewhere} of the {plural(handed, 'student')} who handed in notebooks handed in none of "
                             f"{', '.join(expected)} but other notebooks of the course: {seen}. Is this "
                             f"another week's export? Grade it with --notebook for those, or "
                             f"--any-notebooks to grade {', '.join(expected)} all the same")


def check_course(files, course_notebooks, release_dir):
    """files: {student: {name: path}} of what they handed in. Stop (OtherCourse) where students handed in
    notebooks and not one is a notebook of this course, by its name or, as grading would find it, its
    content: every student would be graded missing without a word. A zip is left unjudged (grading
    unpacks it later), and so is a batch holding one."""
    handed = [(name, path) for named in files.values() for name, path in named.items()]
    handed_in = [(name, path) for name, path in handed if name.lower().endswith(".ipynb")]
    ours = {canonical_name(name) for name in course_notebooks}
    if not handed_in or any(name.lower().endswith(".zip") for name, _ in handed) or \
            any(canonical_name(Path(name).name) in ours for name, _ in handed_in):
        return
    releases = [notebooks.read(Path(release_dir) / name) for name in course_notebooks]
    if any(_one_of(path, releases) for _, path in handed_in):
        return
    found = sorted({Path(name).name for name, _ in handed_in})
    raise OtherCourse(f"none of the {plural(len(handed_in), 'notebook')} handed in is a notebook of this course, by its "
                      f"name or its cells ({', '.join(found[:4])}{', ...' if len(found) > 4 else ''}); this "
                      f"course's are {', '.join(course_notebooks)}. Is this another course's export? Grade this "
                      f"course's, or --any-notebooks to grade it all the same (everyone would be missing)")


def _one_of(path, releases):
    try:
        nb = repair.load(path)
    except repair.Unreadable:
        return False
    return any(repair.recognised_share(nb, release) >= repair.MIN_RECOGNISED for release in releases)
