"""The instructor's command line: `python -m maskdiff_solutions COMMAND` (or `maskdiff COMMAND`, the
console script installed with the package). Commands: release, grade, regrade, export, undo, similarity, publish,
gradescope, formgrader, check-setup, demo.

It runs in a course root (the folder that holds nbgrader_config.py and source/, or a folder below
it) or wherever --course-dir says; --course-dir may stand anywhere on the line."""
import argparse
import errno
import sys
import time
from pathlib import Path

from . import errors
from .layout import SANDBOX_MODES, Course, running_copy, same_checks

# What each command's exit status means (each parser's epilog, and the docs' reference, are made from
# this): a cron job must not read a good grading as a failure.
STOPPED = "stopped before doing anything: a bad setting or argument, or no course here (its `error:` line says which)"
GRADE_EXIT = {0: "every student got a row, whatever their marks (a broken or missing file included)",
              1: "grading itself crashed for some students: their rows say \"grading crashed\"; grade again",
              2: "nobody was graded: a bad setting, no students found, two student folders that would get one "
                 "id, no sandbox where one is required (or, as root, none that works without --sandbox off), a "
                 "workspace where git would track the students' files, checks of another copy of the package than "
                 "the course's own, or the reference (the canary) did not get full marks",
              3: "nobody was graded and the workspace is unchanged: the roster is not this export's class list "
                 "(another platform's, or it names fewer than half of those who handed in); --any-roster "
                 "grades with it all the same",
              4: "nobody was graded and the workspace is unchanged: most students handed in other notebooks "
                 "of the course than those being graded, or no notebook handed in is one of this course's "
                 "(named on stderr); --any-notebooks grades all the same",
              130: "stopped by Ctrl-C: the students committed before it keep their new results, the others their "
                   "old ones (stderr says which); grade again to finish"}
EXIT = {"release": {0: "release/ written", 2: STOPPED},
        "grade": GRADE_EXIT,
        "export": {0: "grades and every feedback page rewritten",
                   1: "some student's feedback could not be made (named on stderr); the grades file is written",
                   2: STOPPED + "; with --to, also a column whose points on the platform are not the notebook's, "
                                "several notebooks and no --notebook, --each-notebook or --total, or a platform file "
                                "that would give 0 to a student who had points in an earlier grading and of whom the "
                                "last found nothing (--allow-zeros)"},
        "regrade": {**GRADE_EXIT, 0: "every student regraded got a row (or nothing was graded under an earlier "
                                     "version: nothing to do)"},
        "undo": {0: "the workspace's latest earlier grading put back (what it replaced kept beside it)",
                 2: STOPPED + ", or the workspace keeps no earlier grading"},
        "similarity": {0: "the report and the CSV written (a notebook that could not be read is left out, named "
                          "on stderr and in the report)",
                       2: STOPPED + ", or no graded workspace there (no submitted/ folder)"},
        "publish": {0: "release/ brought up to date and the students' repository written",
                    2: STOPPED + ", a file that would leak a solution, a file of the students' folder that students "
                                 "must not see (named), or one edited since the last publish"},
        "gradescope": {0: "the autograder zip written", 2: STOPPED + ", a destination inside the students' repository, "
                                                                    "or checks of another copy of the package"},
        "formgrader": {0: "with --print, the way to start it printed; else JupyterLab's own status when it stops",
                       2: STOPPED + ", or no grading in the workspace"},
        "check-setup": {0: "every package the course needs is installed (the sandbox line may still warn)",
                        1: "a package is missing (its line says MISSING)"},
        "demo": {0: "the three sample submissions got the marks they should (full, zero, partial)",
                 1: "they did not: this machine's grading is broken", 2: STOPPED}}


def _epilog(command):
    return "exit status:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT[command].items())


def parser():
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a --course-dir after the command must not be overwritten by the default before it
    common.add_argument("--course-dir", default=argparse.SUPPRESS, metavar="DIR",
                        help="course root (holds nbgrader_config.py and source/); default: the current "
                             "folder or the nearest one above it")
    graded = argparse.ArgumentParser(add_help=False)   # the commands that work on a graded workspace
    graded.add_argument("--workspace", metavar="DIR", help="the workspace graded into (default: the course root)")
    main = argparse.ArgumentParser(prog="python -m maskdiff_solutions", description=__doc__,
                                   parents=[common], formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("release", parents=[common],
                        help="regenerate release/ from source/ through nbgrader (Colab badges included)")
    grade = commands.add_parser("grade", parents=[common], help="autograde every student's notebooks: "
                                "feedback, grades-by-notebook.csv, grades-by-student.csv, summary")
    grade.add_argument("submissions", metavar="SUBMISSIONS",
                       help="a folder with one sub-folder of notebooks per student, or a platform's export as "
                            "downloaded (Canvas or Moodle submissions zip, Gradescope's export folder, nbgrader's "
                            "submitted/), zipped or unpacked")
    grade.add_argument("--roster", metavar="CSV",
                       help="the class list as the platform exports it (Canvas gradebook CSV, Moodle grading "
                            "worksheet, Gradescope roster, or a CSV with a `student` column): students who "
                            "handed in nothing are graded 0 and listed, files are matched to it")
    grade.add_argument("--any-roster", action="store_true",
                       help="grade with --roster even when it is another platform's or names fewer than half "
                            "of those who handed in (grading stops otherwise, exit 3)")
    grade.add_argument("--any-notebooks", action="store_true",
                       help="grade the notebooks asked for even when most students handed in others of the "
                            "course, or none of the course's (grading stops otherwise, exit 4)")
    grade.add_argument("--replace", action="store_true",
                       help="a student of this batch who handed in no file of a notebook graded before is graded "
                            "missing (0) for it, and the command says how many; by default their earlier result "
                            "stays, and is listed; students not in the batch always keep theirs")
    grade.add_argument("--workspace-in-git", action="store_true",
                       help="grade into a workspace inside a git work tree even where git would track the "
                            "students' files (grading stops otherwise, exit 2)")
    grade.add_argument("--workspace", metavar="DIR", help="where submitted/, autograded/, feedback/, gradebook.db, "
                                           "grades-by-notebook.csv and grading-summary.* go "
                                           "(default: the course root)")
    grade.add_argument("--jobs", type=int, default=1, metavar="N", help="students graded at once, each in its own "
                                                           "process (default 1; results do not depend on it)")
    grade.add_argument("--notebook-jobs", type=int, default=None, metavar="N",
                       help="notebooks of one student autograded at once (default: the cores per job, "
                            "at least 1; results do not depend on it)")
    grade.add_argument("--executor", choices=("local", "dask"), default="local",
                       help="local: --jobs processes on this machine (default); dask: the Dask cluster at "
                            "--scheduler (docs/grading-at-scale.md)")
    grade.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler, e.g. tcp://host:8786")
    grade.add_argument("--retries", type=int, default=2, metavar="N", help="with dask: times a student whose worker "
                                                              "was lost is graded again (default 2)")
    grade.add_argument("--timeout", type=float, default=0.0, metavar="SECONDS",
                       help="with dask: a student still grading after this long fails, saying so "
                            "(default 0: no limit beyond the cell time limits)")
    grade.add_argument("--only-changed", action="store_true",
                       help="regrade only students whose submission changed since the last grading "
                            "into this workspace (the others keep their results)")
    grade.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                       help="grade only this notebook (01, or 01_noise_for_words); repeat for more; "
                            "default: all")
    grade.add_argument("--sandbox", choices=SANDBOX_MODES, default="auto",
                       help="run each kernel in a bubblewrap sandbox: auto (where bubblewrap works, "
                            "else warn), required (stop if it does not), off (trust the students)")
    grade.add_argument("--no-canary", dest="canary", action="store_false",
                       help="do not grade the reference solution first (by default, grading stops before "
                            "anyone is graded unless it gets full marks in the same sandbox and settings)")
    grade.add_argument("--prove-again", action="store_true",
                       help="grade the reference first even where canary-proof.json in the workspace says it "
                            "got full marks under the same setup (course, code, packages, sandbox, seed, user)")
    again = commands.add_parser("regrade", parents=[common, graded], help="grade again, from the files the workspace "
                                "holds, the notebooks graded under an earlier version of the course (or those named), "
                                "keeping every hand grade whose answer is unchanged")
    again.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                       help="regrade this notebook (01, or 01_noise_for_words) whatever version graded it; repeat for "
                            "more; default: every notebook graded under an earlier version of the course")
    for option in ("--jobs", "--notebook-jobs", "--sandbox", "--no-canary", "--prove-again", "--workspace-in-git"):
        action = next(a for a in grade._actions if option in a.option_strings)
        again._add_action(action)
    export = commands.add_parser("export", parents=[common, graded], help="after manual grading in formgrader: "
                                 "rewrite grades-by-notebook.csv and the feedback from the gradebook")
    export.add_argument("--to", choices=("canvas", "moodle"), dest="platform",
                        help="also write the platform's gradebook import (grades-canvas.csv or grades-moodle.csv) "
                             "and its bulk feedback (feedback-canvas/ or feedback-moodle.zip), keyed by the ids "
                             "of the export `grade` took in")
    export.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                        help="with --to: write this notebook's marks only, into its own assignment's column (01, or "
                             "01_noise_for_words); repeat for more, each into its own column; default: the one "
                             "notebook graded in the workspace")
    export.add_argument("--each-notebook", action="store_true",
                        help="with --to: every notebook graded in the workspace, each into its own column")
    export.add_argument("--total", action="store_true",
                        help="with --to: the sum of the notebooks chosen (default: all graded) into one column")
    export.add_argument("--column", action="append", dest="columns", metavar="NAME",
                        help="with --to canvas: the assignment's column as Canvas's gradebook export names it, "
                             "e.g. 'Week 1 (12345)', or NN=NAME for a notebook's when several are written "
                             "(default: the roster's one column that names the notebook); checked against the "
                             "roster grading took in, names and Points Possible (a missing, unknown or wrong one "
                             "stops); with no roster, a new assignment of the course's name")
    export.add_argument("--roster", metavar="CSV",
                        help="with --to: the roster to check the columns against (Canvas's gradebook export, "
                             "Moodle's grading worksheet of the assignment); default: the one each notebook "
                             "was graded with")
    export.add_argument("--allow-zeros", action="store_true",
                        help="with --to: write the platform file even where it gives 0 to students who had points in "
                             "an earlier grading and of whom the last grading found nothing (it stops otherwise)")
    undo = commands.add_parser("undo", parents=[common, graded], help="put back the workspace as it was before its last "
                               "grading (grade keeps it in earlier-gradings/ before it changes anything)")
    similar = commands.add_parser("similarity", parents=[common, graded], help="compare the students' solution "
                                  "cells, notebook by notebook (copydetect): a report of the pairs most alike, a "
                                  "reason to look, never a verdict")
    similar.add_argument("--out", metavar="DIR",
                         help="where report.html and similarity.csv go (default: WORKSPACE/similarity)")
    similar.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                         help="compare only this notebook (01, or 01_noise_for_words); repeat for more; default: all")
    similar.add_argument("--answers", action="store_true",
                         help="compare the written answers (markdown cells graded by a person) too")
    similar.add_argument("--top", type=int, default=20, metavar="N",
                         help="pairs listed, with their code, in each table of the report (default 20; the CSV "
                              "holds every pair that shares anything)")
    publish = commands.add_parser("publish", parents=[common], help="release, then write the students' "
                                  "public repository (release notebooks and their README) into DIR")
    publish.add_argument("directory", metavar="DIR",
                         help="a new or empty folder, a clone of the students' repository, or a folder "
                              "publish wrote before; outside the course")
    scope = commands.add_parser("gradescope", parents=[common], help="write the Gradescope autograder zip "
                                "(upload it as the assignment's autograder; students then get their marks in minutes)")
    scope.add_argument("zip", metavar="OUT.zip", help="where to write the autograder")
    scope.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                       help="the notebooks this Gradescope assignment grades (one assignment per notebook, or "
                            "several); repeat for more; default: all")
    formgrader = commands.add_parser("formgrader", parents=[common, graded], help="grade the written answers and the "
                                     "drawings to review by hand: nbgrader's formgrader (JupyterLab) on the workspace's "
                                     "gradebook")
    formgrader.add_argument("--print", dest="only_print", action="store_true",
                            help="print how to start it (the folder and the command), start nothing")
    formgrader.add_argument("--port", type=int, metavar="N", help="JupyterLab's port (default: its own, 8888 or the next free)")
    formgrader.add_argument("--no-browser", dest="browser", action="store_false", help="open no browser")
    commands.add_parser("check-setup", help="say what this machine has for the course: Python, torch (CPU or GPU), "
                        "transformers, nbgrader, and whether the sandbox works for you (exit 1 if a package is missing)")
    demo = commands.add_parser("demo", parents=[common],
                               help="grade three sample submissions offline, print scores")
    demo.add_argument("--workspace", metavar="DIR", help="keep the demo's files here (default: a temporary folder)")
    demo.add_argument("--sandbox", choices=SANDBOX_MODES, default="auto", help="as for grade")
    demo.add_argument("--notebook", action="append", dest="notebooks", metavar="NN", help="as for grade")
    for name, sub in commands.choices.items():  # every command states its exit statuses
        sub.formatter_class, sub.epilog = argparse.RawDescriptionHelpFormatter, _epilog(name)
    return main


def main(argv=None):
    args = parser().parse_args(argv)
    started = time.perf_counter()
    try:
        status = dispatch(args)
    except Exception as err:  # noqa: BLE001 - ours (CourseError, SandboxError, ...) and the machine's refusals
        if not isinstance(err, (OSError, RuntimeError, KeyError, ValueError)) and errors.describe(err) is None:
            raise   # a bug of the course's own code: its traceback is what finds it
        print(f"error: {errors.message(err, args.command)}", file=sys.stderr)
        from .intake.mistakes import WrongNotebooks, WrongRoster   # (here: --help stays quick)
        return err.status if isinstance(err, (WrongRoster, WrongNotebooks)) else 2   # their own statuses
    except KeyboardInterrupt as err:   # Ctrl-C: one line saying what stands, never a traceback
        print(str(err) if str(err) else f"interrupted: {args.command} stopped; every student's results are "
              f"as before or as after their own grading, never between; run the command again", file=sys.stderr)
        return 130
    print(f"[{args.command} took {time.perf_counter() - started:.1f} s]", file=sys.stderr)
    return status


def mistyped(args):
    """A folder named on the line that is not there stops the command, in one sentence that offers the
    nearest names (course/errors.py), before anything is written."""
    named = [getattr(args, "submissions", None)]
    if args.command in ("export", "undo", "regrade", "similarity", "formgrader"):   # they read a graded workspace
        named.append(getattr(args, "workspace", None))
    for given in filter(None, named):
        if not Path(given).exists():
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(Path(given).absolute()))


def _graded(report, course):
    """What `grade` and `regrade` print of a grading; the exit status."""
    from .records import summary
    from .records.rows import print_table
    if report.canary:
        print(report.canary)
    for line in report.earlier:
        print(line, file=sys.stderr)
    print_table(report.rows, course.answers_optional)
    print("\n" + summary.write(report, report.csv_path.parent))
    print(f"grades: {report.csv_path}\ntotals: {report.csv_path.parent / 'grades-by-student.csv'}\n"
          f"feedback: {report.feedback_dir}\n"
          f"summary: {report.csv_path.parent / 'grading-summary.png'}")
    crashed = sorted({row.student for row in report.rows if "grading crashed" in row.reason})
    if crashed:
        print(f"error: grading itself crashed for {len(crashed)} student(s) ({', '.join(crashed[:5])}): "
              f"their rows say why; grade them again", file=sys.stderr)
    return 1 if crashed else 0


def dispatch(args):
    from .records.nbgrader_apps import tools_on_path
    if args.command == "check-setup":  # needs no course: it is what .ci/setup ends with
        from .term.installed import print_summary
        return print_summary()
    course = Course.load(args.course_dir) if getattr(args, "course_dir", None) else Course.find()
    print(running_copy(course)[0], file=sys.stderr)   # which course, and which copy of the checks judges it
    if args.command in ("grade", "demo", "gradescope"):
        same_checks(course)
    mistyped(args)
    tools_on_path()  # before nbgrader runs: `venv/bin/python -m ...` without an activated venv
    if args.command == "release":
        from .term.release import release
        for path in release(course):
            print(f"wrote {path.relative_to(course.root)}")
        return 0
    if args.command == "grade":
        from .run.batch import grade
        report = grade(course, args.submissions, args.workspace, jobs=args.jobs, sandbox=args.sandbox,
                       notebooks=args.notebooks, executor=args.executor, scheduler=args.scheduler,
                       retries=args.retries, timeout=args.timeout, only_changed=args.only_changed,
                       notebook_jobs=args.notebook_jobs, canary=args.canary, prove_again=args.prove_again,
                       roster=args.roster, any_roster=args.any_roster, any_notebooks=args.any_notebooks,
                       in_git=args.workspace_in_git, replace=args.replace)
        return _graded(report, course)
    if args.command == "regrade":
        from .run.regrade import regrade
        report = regrade(course, args.workspace, args.notebooks, jobs=args.jobs, sandbox=args.sandbox,
                         notebook_jobs=args.notebook_jobs, canary=args.canary, prove_again=args.prove_again,
                         in_git=args.workspace_in_git)
        if report is None:
            print(f"nothing to regrade: every notebook in {course.workspace(args.workspace)} was graded under the "
                  f"course as it is now (--notebook NN grades one again all the same)")
            return 0
        return _graded(report, course)
    if args.command == "export":
        from .ledger.export import export
        from .ledger.returns import before_export
        from .records.rows import print_table
        # every check that can stop it, before anything is rewritten: exit 2 leaves the workspace as it was
        columns, notes = before_export(course, args.workspace, args.platform, args.allow_zeros, args.notebooks,
                                       args.each_notebook, args.total, args.columns, args.roster)
        for note in notes:
            print(note, file=sys.stderr)
        rows, path, failed = export(course, args.workspace)
        print_table(rows, course.answers_optional)
        for student, why in failed.items():
            print(f"error: the feedback of {student} could not be made: {why}", file=sys.stderr)
        print(f"grades: {path}\nfeedback: {path.parent / 'feedback'}")
        from .ledger.returns import put_back, refresh
        for line in refresh(course, path.parent):   # what earlier exports wrote, as the record is now
            print(line, file=sys.stderr)
        if args.platform:
            written, blank = put_back(course, path.parent, args.platform, rows, columns, args.roster)
            for student, why in blank:
                print(f"{student}: no grade yet in the {args.platform} file ({why})", file=sys.stderr)
            for column in columns:
                print(f"{', '.join(column.notebooks)}: {column.points:g} points"
                      + (f", into the column {column.name!r}" if column.name else ""))
            print("\n".join(f"wrote {p}" for p in written[:3]) + (f"\n... and {len(written) - 3} more"
                                                                    if len(written) > 3 else ""))
        return 1 if failed else 0
    if args.command == "undo":
        from .term.undo import undo
        return undo(course, args.workspace)
    if args.command == "similarity":
        from .integrity.similarity_page import closing, report
        result, page, table = report(course, args.workspace, args.out, args.notebooks, args.answers, args.top)
        for note in result.notes:
            print(note, file=sys.stderr)
        print("\n".join(closing(result, page, table)))
        return 0
    if args.command == "publish":
        from .term.publish import closing, publish
        print(closing(course, args.directory, publish(course, args.directory)))
        return 0
    if args.command == "formgrader":
        from .formgrader import start
        return start(course, args.workspace, args.port, args.browser, args.only_print)
    if args.command == "gradescope":
        from .term.gradescope import build
        path, chosen = build(course, args.zip, args.notebooks)
        print(f"wrote {path}: the autograder of {', '.join(name.split('_')[0] for name in chosen)}; upload it in "
              f"Gradescope (Configure Autograder, Ubuntu 24.04 base image); its setup grades the reference "
              f"once, so the upload fails if this image cannot grade")
        return 0
    from .term.demo import demo
    return demo(course, args.workspace, sandbox=args.sandbox, selection=args.notebooks)
