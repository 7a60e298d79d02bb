"""The red-team table: every attack of tests/attacks.py graded through the command line in a sandbox
(the same batch tests/course/test_red_team.py grades), one line each: what the attack does, the status and
autograded score it got against the score it deserves, and the reason grading gave.

    python benchmarks/red_team.py [--jobs 2]
"""
import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maskdiff_solutions.course.layout import Course  # noqa: E402
from tests import attacks  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="maskdiff-redteam-") as folder:
        result = attacks.run(Course.load(ROOT), Path(folder), jobs=args.jobs)
        result["secret_file"].unlink()
    rows = result["rows"]
    print(f"| attack | what it tries | status | marks (honest) | what grading says |")
    print("| --- | --- | --- | --- | --- |")
    for attack in attacks.ATTACKS:
        row = rows[(attack.name, "01_noise_for_words")]
        reason = row["reason"].replace("|", "/")[:160] or "-"
        print(f"| {attack.name} | {attack.what} | {row['status']} | {float(row['auto_score']):g} / "
              f"{attacks.HONEST[attack.base]:g} | {reason} |")
    for name in attacks.BROKEN_FILES:
        row = rows[(name, "02_undiffusing")]
        print(f"| {name} | notebook 02 beside an honest notebook 01 | {row['status']} | - | {row['reason'][:160]} |")
    for student in ("honest_reference", "honest_untouched", "honest_cheater"):
        row = rows[(student, "01_noise_for_words")]
        print(f"| {student} | (honest, same batch) | {row['status']} | {float(row['auto_score']):g} | - |")
    print(f"\ncourse files unchanged: {result['after'] == result['before']}; handed-in files unchanged: "
          f"{result['handed_in_after'] == result['handed_in']}; processes left: {len(result['leftovers'])}; "
          f"connections to the machine's loopback server: {len(result['reached'])}")
    print(f"{len(result['students'])} students graded in {result['seconds']:.0f} s with --jobs {args.jobs}")


if __name__ == "__main__":
    main()
