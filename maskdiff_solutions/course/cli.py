"""python -m maskdiff_solutions {release,grade,demo}: the instructor's command line."""
import argparse
import sys
import time

from .layout import Course


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m maskdiff_solutions", description=__doc__)
    parser.add_argument("--course-dir", help="course root (holds nbgrader_config.py); default: here")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="regenerate release/ from source/ through nbgrader")
    grade = commands.add_parser("grade", help="autograde DIR/<student>/*.ipynb, feedback, grades.csv")
    grade.add_argument("submissions", help="folder with one sub-folder of notebooks per student")
    grade.add_argument("--workspace", help="where submitted/, autograded/, feedback/, gradebook.db, "
                                           "grades.csv and grading-summary.* go (default: the course root)")
    grade.add_argument("--jobs", type=int, default=1, help="students graded at once, each in its own "
                                                           "process (default 1; results do not depend on it)")
    grade.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                       help="grade only this notebook (01, or 01_noise_for_words); repeat for more; "
                            "default: all")
    grade.add_argument("--sandbox", choices=("auto", "required", "off"), default="auto",
                       help="run each kernel in a bubblewrap sandbox: auto (where bubblewrap works, "
                            "else warn), required (stop if it does not), off (trust the students)")
    demo = commands.add_parser("demo", help="grade three sample submissions offline, print scores")
    demo.add_argument("--workspace", help="keep the demo's files here (default: a temporary folder)")
    demo.add_argument("--sandbox", choices=("auto", "required", "off"), default="auto",
                      help="as for grade")
    demo.add_argument("--notebook", action="append", dest="notebooks", metavar="NN",
                      help="as for grade")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    try:
        status = dispatch(args)
    except (FileNotFoundError, NotADirectoryError, RuntimeError, KeyError, ValueError) as err:  # SandboxError too
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"[{args.command} took {time.perf_counter() - started:.1f} s]", file=sys.stderr)
    return status


def dispatch(args):
    course = Course.load(args.course_dir) if args.course_dir else Course.find()
    if args.command == "release":
        from .release import release
        for path in release(course):
            print(f"wrote {path.relative_to(course.root)}")
        status = 0
    elif args.command == "grade":
        from . import summary
        from .grade import grade, print_table
        report = grade(course, args.submissions, args.workspace, jobs=args.jobs, sandbox=args.sandbox,
                       notebooks=args.notebooks)
        print_table(report.rows)
        print("\n" + summary.write(report, report.csv_path.parent))
        print(f"grades: {report.csv_path}\nfeedback: {report.feedback_dir}\n"
              f"summary: {report.csv_path.parent / 'grading-summary.png'}")
        status = 0 if all(row.status != "failed" for row in report.rows) else 1
    else:
        from .demo import demo
        status = demo(course, args.workspace, sandbox=args.sandbox, selection=args.notebooks)
    return status
