"""The red-team table: every attack of tests/attacks.py graded through the command line in a sandbox
(the same batch tests/course/sandbox/test_red_team.py grades), one line each: what the attack does, the status and
autograded score it got against the score it deserves, and the reason grading gave. One column per
kind of grader (`--kinds`, default all three):

  root        this process as root (each kernel its own leased uid and cgroup);
  user        the same batch graded by an ordinary user (`--user`, made by .ci/unprivileged), this script
              started again through `setpriv --reuid`;
  concurrent  as root, beside a second grader with its own TMPDIR and workspace grading two honest
              students (the reference and the cheater), and with the attacks on that grader
              (AGAINST_THE_OTHER_GRADER); its grades-by-notebook.csv is compared with grading the same
              students alone afterwards.

    python benchmarks/red_team.py [--jobs 2] [--kinds root,user,concurrent] [--user maskdiff-grader]
"""
import argparse
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maskdiff_solutions.course.records.rows import CSV_NAME  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402
from tests import attacks  # noqa: E402

STEM = "01_noise_for_words"
KINDS = ("root", "user", "concurrent")


def summary(result):
    """What the table needs of attacks.run's result, as plain data (it crosses a pipe for `user`)."""
    return dict(rows={f"{s}|{n}": row for (s, n), row in result["rows"].items()}, seconds=result["seconds"],
                students=len(result["students"]), course_unchanged=result["after"] == result["before"],
                handed_in_unchanged=result["handed_in_after"] == result["handed_in"],
                leftovers=len(result["leftovers"]), reached=len(result["reached"]), returncode=result["done"].returncode)


def grade_once(course, folder, jobs, **options):
    result = attacks.run(course, folder, jobs=jobs, **options)
    result["secret_file"].unlink()
    return result


def as_user(user, jobs):
    """This script, run by `user` on the root kind's batch; its summary."""
    account = pwd.getpwnam(user)
    env = ["env", "-i", f"PATH={Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
           f"HOME={account.pw_dir}", "LANG=C.UTF-8", f"PYTHONPATH={ROOT}"]
    done = subprocess.run(["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--init-groups",
                           *env, sys.executable, str(Path(__file__).resolve()), "--jobs", str(jobs), "--summary"],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"the red team as {user} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def concurrent(course, folder, jobs):
    honest = folder / "honest"
    attacks.build(course, folder / "scratch", {}, attacks=[], everyone=True)
    for student in ("honest_reference", "honest_cheater"):
        shutil.copytree(folder / "scratch" / student, honest / student)
    result = grade_once(course, folder / "beside", jobs, attacks=attacks.ATTACKS + attacks.AGAINST_THE_OTHER_GRADER,
                        beside=honest)
    sibling = result["sibling"]
    started = time.perf_counter()
    alone = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(course.root), "grade",
                            str(honest), "--workspace", str(folder / "alone"), "--notebook", "01", "--no-canary"],
                           capture_output=True, text=True)
    out = summary(result)
    out.update(together=result["together"], alone_seconds=time.perf_counter() - started,
               sibling_returncode=sibling["returncode"], planted=len(sibling["planted"]),
               identical=alone.returncode == 0 and (folder / "alone" / CSV_NAME).read_bytes() ==
               (sibling["workspace"] / CSV_NAME).read_bytes(),
               sibling_rows=(sibling["workspace"] / CSV_NAME).read_text().splitlines()[1:])
    return out


def cell(summary_, student, notebook=STEM):
    row = summary_["rows"].get(f"{student}|{notebook}")
    return f"{row['status']} {float(row['auto_score']):g}" if row else "-"


def table(found, kinds):
    heads = {"root": "as root", "user": "as an ordinary user", "concurrent": "beside another grader"}
    print("| attack | what it tries | " + " | ".join(heads[k] for k in kinds) + " | honest marks | what grading "
          "says (first kind) |")
    print("| --- | --- | " + " | ".join("---" for _ in kinds) + " | --- | --- |")
    first = found[kinds[0]]
    for attack in attacks.ATTACKS + attacks.AGAINST_THE_OTHER_GRADER:
        row = first["rows"].get(f"{attack.name}|{STEM}") or found.get("concurrent", first)["rows"][f"{attack.name}|{STEM}"]
        reason = row["reason"].replace("|", "/")[:160] or "-"
        print(f"| {attack.name} | {attack.what} | " + " | ".join(cell(found[k], attack.name) for k in kinds) +
              f" | {attacks.HONEST[attack.base]:g} | {reason} |")
    for name in attacks.BROKEN_FILES:
        print(f"| {name} | notebook 02 beside an honest notebook 01 | " +
              " | ".join(cell(found[k], name, "02_undiffusing") for k in kinds) + " | - | - |")
    for student in ("honest_reference", "honest_untouched", "honest_cheater"):
        print(f"| {student} | (honest, same batch) | " + " | ".join(cell(found[k], student) for k in kinds) + " | - | - |")
    for kind in kinds:
        s = found[kind]
        print(f"\n{heads[kind]}: course files unchanged: {s['course_unchanged']}; handed-in files unchanged: "
              f"{s['handed_in_unchanged']}; processes left: {s['leftovers']}; connections to the machine's "
              f"loopback server: {s['reached']}; {s['students']} students graded in {s['seconds']:.0f} s")
        if kind == "concurrent":
            print(f"the other grader: exit status {s['sibling_returncode']}, files planted in its workspace or "
                  f"TMPDIR: {s['planted']}, grades-by-notebook.csv byte-identical to grading its students alone: "
                  f"{s['identical']} ({'; '.join(s['sibling_rows'])}); both graders done in {s['together']:.0f} s, "
                  f"its students alone in {s['alone_seconds']:.0f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--user", default="maskdiff-grader")
    parser.add_argument("--summary", action="store_true", help="grade once as whoever runs this; print JSON")
    args = parser.parse_args()
    course = Course.load(ROOT)
    if args.summary:
        with tempfile.TemporaryDirectory(prefix="maskdiff-redteam-") as folder:
            print(json.dumps(summary(grade_once(course, Path(folder), args.jobs))))
        return
    kinds = [kind for kind in args.kinds.split(",") if kind]
    if set(kinds) - set(KINDS) or ({"root", "concurrent"} & set(kinds) and os.geteuid() != 0):
        parser.error(f"--kinds: some of {', '.join(KINDS)}; root and concurrent as root")
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}", flush=True)
    found = {}
    for kind in kinds:
        with tempfile.TemporaryDirectory(prefix="maskdiff-redteam-") as folder:
            if kind == "root":
                found[kind] = summary(grade_once(course, Path(folder), args.jobs))
            elif kind == "user":
                found[kind] = as_user(args.user, args.jobs)
            else:
                found[kind] = concurrent(course, Path(folder), args.jobs)
        print(f"{kind} done; uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}",
              flush=True)
    table(found, kinds)


if __name__ == "__main__":
    main()
