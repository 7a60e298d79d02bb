"""What `similarity` costs: the report (page and CSV) of the small class of the tests
(tests/support/similar_class.py, eight students, notebook 01) and of N synthetic students handing in
all six notebooks (notebook 01's cells drawn from five solutions, the later notebooks the reference's
for everyone: every pair alike there, the dearest case), each in this process, beside the baseline
of copydetect's own CopyDetector over the same solution cells written out as one file per student
and notebook (same name only, the release as its boilerplate, no report).

    python benchmarks/similarity.py [--students 200] [--rounds 1] [--no-baseline]

Prints the seconds of each (best of the rounds), the pairs found, and the load average.
"""
import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from maskdiff_solutions.course.integrity import similarity as sim  # noqa: E402
from maskdiff_solutions.course.integrity.similarity_page import report  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402
from tests.support import similar_class  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def load():
    return " / ".join(f"{value:.2f}" for value in os.getloadavg())


def best(function, rounds):
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def as_files(course, workspace, folder):
    """Each student's solution code cells of each notebook as one .py file, and the release's code."""
    for student in sim.students_in(workspace):
        for name in course.notebooks():
            path = workspace / "submitted" / student / course.assignment / name
            try:
                cells = sim.cells_of(path)
            except (OSError, ValueError):
                continue
            target = folder / "students" / student / name.replace(".ipynb", ".py")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n\n".join(c.source for c in cells if sim.chosen(c, sim.CODE)))
    for name in course.notebooks():
        target = folder / "release" / name.replace(".ipynb", ".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("\n\n".join(c.source for c in sim.cells_of(course.release_dir / name)
                                      if c.cell_type == "code"))


def baseline(folder):
    from copydetect import CopyDetector
    detector = CopyDetector(test_dirs=[str(folder / "students")], boilerplate_dirs=[str(folder / "release")],
                            extensions=["py"], same_name_only=True, autoopen=False, silent=True)
    detector.run()
    return detector


def measure(course, workspace, label, rounds, with_baseline):
    print(f"\n{label}  [load before: {load()}]", flush=True)
    seconds, (result, page, table) = best(lambda: report(course, workspace), rounds)
    pairs = sum(len(unit.pairs) for unit in result.units)
    print(f"  similarity report: {seconds:.1f} s ({len(result.students)} students, {len(result.units)} notebooks, "
          f"{pairs} pairs sharing something; page {page.stat().st_size / 1e6:.1f} MB, "
          f"CSV {table.stat().st_size / 1e6:.1f} MB)")
    if with_baseline:
        with tempfile.TemporaryDirectory() as folder:
            as_files(course, workspace, Path(folder))
            seconds_base, _ = best(lambda: baseline(Path(folder)), rounds)
        print(f"  baseline, copydetect's CopyDetector on the same cells as files: {seconds_base:.1f} s "
              f"(similarity / baseline: {seconds / seconds_base:.2f})")
    print(f"  [load after: {load()}]", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false")
    args = parser.parse_args()
    course = Course.load(ROOT)
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "class"
        similar_class.write(course, small)
        measure(course, small, "the tests' class (8 students, notebook 01)", max(args.rounds, 3), args.baseline)
        large = Path(folder) / "synthetic"
        similar_class.synthetic(course, large, args.students)
        measure(course, large, f"{args.students} synthetic students, six notebooks", args.rounds, args.baseline)


if __name__ == "__main__":
    main()
