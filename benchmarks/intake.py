"""What taking in a platform's export costs before grading: a Canvas submissions zip of N students,
each handing in the five release notebooks, taken in (unpacked within its budget, matched to the
roster, staged one folder per student, intake.json written), against the baseline of Python's own
`zipfile.extractall` of the same zip, in one run.

    python benchmarks/intake.py [--students 200] [--rounds 3]

Prints the zip's size, the best seconds of each over the rounds, the ratio, and the load average.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from maskdiff_solutions.course.intake import platforms  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def canvas_export(course, folder, students):
    """submissions.zip and its gradebook export: student i is `student<i>`, Canvas id 1000 + i."""
    notebooks = {name: (course.release_dir / name).read_bytes() for name in course.notebooks()}
    export = folder / "submissions.zip"
    with zipfile.ZipFile(export, "w", zipfile.ZIP_DEFLATED) as out:
        for i in range(students):
            for n, (name, data) in enumerate(notebooks.items()):
                out.writestr(f"student{i}_{1000 + i}_{50000 + 5 * i + n}_{name}", data)
    roster = folder / "gradebook.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n" +
                      "".join(f'"Student, {i}",{1000 + i},,,\n' for i in range(students)))
    return export, roster


def best(function, rounds):
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    course = Course.load(ROOT)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        export, roster = canvas_export(course, scratch, args.students)

        def baseline():
            shutil.rmtree(scratch / "plain", ignore_errors=True)
            with zipfile.ZipFile(export) as handle:
                handle.extractall(scratch / "plain")

        def intake():
            shutil.rmtree(scratch / "ws", ignore_errors=True)
            folder, taken = platforms.take_in(course, export, scratch / "ws", roster)
            assert len(taken.students) == args.students

        plain, ours = best(baseline, args.rounds), best(intake, args.rounds)
        print(f"{args.students} students, {export.stat().st_size / 2**20:.1f} MiB zip, best of {args.rounds}: "
              f"extractall {plain:.2f} s, take_in {ours:.2f} s, ratio {ours / plain:.2f}; "
              f"load {load:.2f} -> {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
