"""`gradescope OUT.zip [--notebook NN]`: the course as a Gradescope autograder, and what runs inside it.

The zip holds what Gradescope's "Upload your autograder" takes (its documented layout, unpacked into
/autograder/source): `setup.sh`, run once as root when the image is built, installs the course's Python
environment and bubblewrap, then grades the reference solution once (`self-test`), so that an image that
cannot grade fails at upload, not on students; `run_autograder`, run for each submission, grades
whatever notebooks are in /autograder/submission/ with the same grader, checker and limits as `grade`
(`run`) and writes /autograder/results/results.json. The course itself (source/, release/, the
packages) sits in /autograder/source/course, which only the grader reads: kernels run in the sandbox,
which sees the student's files and nothing of /autograder (`sandbox = "required"`, the default).

results.json: one test per autograded test cell (its points, and the message the student's feedback
page gives), the written answers as tests worth 0 that a person grades in Gradescope, drawings the
reader could not decide named for review, and the hidden tests' messages shown only as
`[tool.maskdiff.gradescope] hidden_visibility` says (default after the due date).
"""
import json
import os
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from ..intake import notebooks as nbs
from ..layout import KEPT_FOR, PACKAGE_PARENT, Course, settings_table
from ..records.nbgrader_apps import CourseError
from . import import_graph, whole
from .publish import MANIFEST

ROOT_VARIABLE = "MASKDIFF_AUTOGRADER_ROOT"  # /autograder on Gradescope; a test's tree laid out like it
TORCH = "torch==2.13.0"                     # as .ci/setup installs (a test holds them equal)
STUDENT = "student"
VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")
DEFAULTS = {"hidden_visibility": "after_due_date", "sandbox": "required"}
CHOICES = {"hidden_visibility": VISIBILITY, "sandbox": ("required", "off")}
# Gradescope grades as root: `auto` would run students' code as root wherever its container refuses bubblewrap
ROOT_AUTO = ("[tool.maskdiff.gradescope] sandbox = 'auto' would run students' code as root in Gradescope's container "
             "wherever it refuses bubblewrap: keep \"required\" (the upload then fails where the sandbox cannot "
             "run), or say \"off\" to grade without a sandbox knowingly")
PACKAGE_FILES = ("pyproject.toml", "requirements.txt", "nbgrader_config.py")   # and README below
README = """# The maskdiff autograder

Built by `python -m maskdiff_solutions gradescope` for {notebooks}: what grading them needs, and nothing
of the course's other notebooks. Gradescope runs setup.sh once and run_autograder per submission.
Never give it to students: it holds those notebooks' solutions and hidden checks.
"""

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when the autograder image is built: the course's Python
# environment, bubblewrap for the sandbox, then the reference graded once (the upload fails unless it
# gets full marks, saying why).
set -euo pipefail
root=${MASKDIFF_AUTOGRADER_ROOT:-/autograder}
here="$root/source"
if [ "${MASKDIFF_SETUP_INSTALL:-1}" = 1 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap python3-venv python3-pip >/dev/null
    python3 -c 'import sys; assert sys.version_info >= (3, 11), "the course needs Python 3.11 or newer: choose the Ubuntu 24.04 base image in the autograder settings"'
    python3 -m venv "$root/venv"
    pip="$root/venv/bin/python -m pip install --quiet"
    $pip --index-url https://download.pytorch.org/whl/cpu "@TORCH@" || $pip "@TORCH@"
    $pip -r "$here/course/requirements.txt"
    $pip --no-deps "$here/course"
    python="$root/venv/bin/python"
else  # a tree laid out like Gradescope's: the interpreter that runs the test has everything
    python=${PYTHON:-python3}
fi
echo "$python" > "$here/python"
"$python" -m maskdiff_solutions.course.term.gradescope self-test
"""

RUN = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission; results.json is written by the grader, nothing else.
root=${MASKDIFF_AUTOGRADER_ROOT:-/autograder}
exec "$(cat "$root/source/python")" -m maskdiff_solutions.course.term.gradescope run
"""


def settings(course):
    """[tool.maskdiff.gradescope], checked: an unknown key or value is an error that names it."""
    table = settings_table(course.root / "pyproject.toml", "gradescope")
    for key, value in table.items():
        if (key, value) == ("sandbox", "auto"):
            raise ValueError(ROOT_AUTO)
        if key not in CHOICES:
            raise ValueError(f"[tool.maskdiff.gradescope] {key}: unknown setting; known: {', '.join(CHOICES)}")
        if value not in CHOICES[key]:
            raise ValueError(f"[tool.maskdiff.gradescope] {key} = {value!r} is not one of {', '.join(CHOICES[key])}")
    return {**DEFAULTS, **table}


def _files(course, chosen):
    """{path in the zip: bytes}: what grading the `chosen` notebooks needs, and nothing of the others'
    (bundle_modules): the packages' modules it runs, source/ and release/ of those notebooks, what pip
    needs, and a README of its own instead of the instructors'."""
    files = {}
    for name in PACKAGE_FILES:
        where = course.root / name if (course.root / name).is_file() else PACKAGE_PARENT / name
        if where.is_file():
            files[f"course/{name}"] = where.read_bytes()
    files["course/README.md"] = README.format(notebooks=", ".join(chosen)).encode()
    for path in bundle_modules(chosen):
        files[f"course/{path.relative_to(PACKAGE_PARENT).as_posix()}"] = path.read_bytes()
    others = set(course.notebooks()) - set(chosen)
    for folder in (course.root / "source", course.root / "release"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.name not in others and not {"__pycache__", ".ipynb_checkpoints"} & set(path.parts):
                files[f"course/{path.relative_to(course.root).as_posix()}"] = path.read_bytes()
    return files


def bundle_modules(chosen):
    """The files of maskdiff_solutions and maskdiff_client that grading `chosen` runs: the course's
    tooling, the checker and the client, with the chosen notebooks' checks (grading.PARTS) and what
    they import (their references, and an earlier notebook's where a check uses it: 06's use 05's),
    read from source (course/term/import_graph.py), and what the grader keeps for them in the cache
    (layout.KEPT_FOR); the package data of every package held."""
    from ...grading import PARTS
    found = {}
    for package in ("maskdiff_solutions", "maskdiff_client"):
        found.update(import_graph.modules(PACKAGE_PARENT / package, package))
    roots = [name for name in found if name.startswith(("maskdiff_solutions.course", "maskdiff_client"))]
    roots += ["maskdiff_solutions.__main__", "maskdiff_solutions.grading.checker"]
    roots += [f"maskdiff_solutions.grading.{module}" for name in chosen for module in PARTS[Path(name).stem]]
    roots += [f"maskdiff_solutions.{module}" for name in chosen for module in KEPT_FOR.get(Path(name).stem, ())]
    needed = import_graph.closure(found, roots)
    paths = {found[name] for name in needed}
    for name in needed:   # package data: colab.txt, the feedback page's templates
        if found[name].name == "__init__.py":
            paths |= {path for path in found[name].parent.rglob("*") if path.is_file() and path.suffix != ".py"
                      and "__pycache__" not in path.parts and _package_of(path, found) == name}
    return sorted(paths)


def _package_of(path, found):
    """The package whose folder holds the data file at path (the nearest with an __init__.py)."""
    folder = path.parent
    while not (folder / "__init__.py").is_file():
        folder = folder.parent
    return ".".join(folder.relative_to(PACKAGE_PARENT).parts)


def refuse_students_folder(course, out):
    """The autograder holds the solutions and the checks: never inside the students' repository (a
    folder `publish` wrote, or a clone of the course's public_repository), whose `git add -A` would
    publish it."""
    out = Path(out).resolve()
    for folder in out.parents:
        config = folder / ".git" / "config"
        if (folder / MANIFEST).is_file():
            what = "publish wrote it"
        elif course.public_repository and config.is_file() and \
                course.public_repository.lower() in config.read_text(errors="replace").lower():
            what = f"a clone of {course.public_repository}"
        else:
            continue
        raise CourseError(f"{out} is inside the students' repository {folder} ({what}), where `git add -A` "
                          f"would publish the solutions and the checks the autograder holds: write it outside, "
                          f"e.g. in the course root, and upload it to Gradescope from there")


def build(course, out, selected=None):
    """Write the autograder zip; returns (its path, the notebooks it grades)."""
    chosen = course.select(selected)
    config = {"notebooks": chosen, "assignment": course.assignment, **settings(course),
              "built": time.strftime("%Y-%m-%d %H:%M:%S")}
    out = Path(out)
    refuse_students_folder(course, out)
    with whole.new_file(out) as partial, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (("setup.sh", SETUP.replace("@TORCH@", TORCH)), ("run_autograder", RUN)):
            info = zipfile.ZipInfo(name, time.localtime()[:6])
            info.external_attr = 0o100755 << 16
            archive.writestr(info, text)
        archive.writestr("gradescope.json", json.dumps(config, indent=1))
        for name, data in _files(course, chosen).items():   # readable by all, as pip installs them: the
            info = zipfile.ZipInfo(name, time.localtime()[:6])  # sandboxed kernels read the packages
            info.external_attr, info.compress_type = 0o100644 << 16, zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return out, chosen


# --- inside Gradescope's container ---------------------------------------------------------------

def _root():
    return Path(os.environ.get(ROOT_VARIABLE, "/autograder"))


def _load(root):
    source = root / "source"
    return Course.load(source / "course"), json.loads((source / "gradescope.json").read_text())


def grade_folder(course, config, folder, workspace):
    """Grade one submission folder as `grade` would; returns (report, workspace)."""
    from ..run.batch import grade
    collected = Path(workspace).parent / "collected"
    shutil.copytree(folder, collected / STUDENT, symlinks=True)  # links stay links: intake never follows them
    report = grade(course, collected, workspace, notebooks=config["notebooks"], sandbox=config["sandbox"],
                   canary=False, progress=False)
    return report


def results(course, config, report, workspace, seconds=0.0):
    """results.json's content, in Gradescope's documented format."""
    from ..records.gradebook import open_gradebook
    tests, lines, score = [], [], 0.0
    rows = {row.notebook: row for row in report.rows}
    with open_gradebook(workspace / "gradebook.db") as gradebook:
        for number, name in enumerate(config["notebooks"], 1):
            stem = Path(name).stem
            row = rows[stem]
            cells = gradebook.find_notebook(stem, course.assignment)
            answers = {cell.name for cell in cells.solution_cells}
            hidden = _hidden_tests(course, name)
            messages = _messages(workspace, course.assignment, name)
            got = report.tests.get((STUDENT, stem), {})
            for index, cell in enumerate(sorted(cells.grade_cells, key=lambda c: _order(course, name, c.name)), 1):
                test = {"name": f"{stem} / {cell.name}", "number": f"{number}.{index}", "output_format": "text",
                        "visibility": config["hidden_visibility"] if cell.name in hidden else "visible"}
                if cell.name in answers:
                    test.update(score=0.0, max_score=0.0, output=f"Graded by a person, out of {cell.max_score:g} "
                                f"points; those points are added to this score once they are given.")
                elif row.status in ("missing", "failed"):
                    test.update(score=0.0, max_score=cell.max_score, status="failed", output=row.reason)
                elif cell.name in row.review.split():
                    test.update(score=0.0, max_score=cell.max_score, output="A person reviews this drawing (the "
                                "autograder could not decide); its points come once they do.")
                else:
                    points, most = got.get(cell.name, (0.0, cell.max_score))
                    test.update(score=points, max_score=most, status="passed" if points >= most else "failed",
                                output=messages.get(cell.name, "") if points < most else "")
                score += test["score"]
                tests.append(test)
            lines.append(_line(row))
    lines.append(f"sandbox: {config['sandbox']} (each notebook's code ran in a sandbox that sees only your files)"
                 if config["sandbox"] == "required" else f"sandbox: {config['sandbox']}")
    return {"score": score, "execution_time": round(seconds), "output": "\n".join(lines), "output_format": "text",
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"rows": [vars(row) for row in report.rows]}}


def _line(row):
    manual = f", {row.manual_max:g} points of written answers graded by a person" if row.manual_max else ""
    review = f", {len(row.review.split())} drawings to review" if row.review else ""
    why = f": {row.reason}" if row.reason else ""
    return f"{row.notebook}: {row.status}, {row.auto_score:g} of {row.auto_max:g} autograded points{manual}{review}{why}"


def _hidden_tests(course, name):
    nb = nbs.read(course.source_dir / name)
    return {nbs.grade_id(cell) for cell in nb.cells if nbs.BEGIN_HIDDEN in cell.source}


def _order(course, name, cell_name):
    ids = [nbs.grade_id(cell) for cell in nbs.read(course.source_dir / name).cells]
    return ids.index(cell_name) if cell_name in ids else len(ids)


def _messages(workspace, assignment, name):
    """{test cell: the error its autograded run shows, in the words the feedback page gives}."""
    from ..records.feedback import PLAIN
    path = workspace / "autograded" / STUDENT / assignment / name
    if not path.is_file():
        return {}
    found = {}
    for cell in nbs.read(path).cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                evalue = str(output.get("evalue", "")).strip() or PLAIN.get(output.get("ename"), "")
                found[nbs.grade_id(cell)] = f"{output.get('ename', 'Error')}: {evalue}"
    return found


def run(root=None):
    """Grade /autograder/submission into /autograder/results/results.json. A grading that cannot run
    writes nothing and exits 1: Gradescope then shows the failure, never a silent 0."""
    root = root or _root()
    course, config = _load(root)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="maskdiff-gradescope-") as scratch:
        workspace = Path(scratch) / "workspace"
        report = grade_folder(course, config, root / "submission", workspace)
        data = results(course, config, report, workspace, time.perf_counter() - started)
    (root / "results").mkdir(exist_ok=True)
    partial = root / "results" / ".results.json.tmp"
    partial.write_text(json.dumps(data, indent=1))
    partial.replace(root / "results" / "results.json")
    print("\n".join([data["output"], f"score: {data['score']:g}"]))
    return data


def self_test(root=None):
    """At upload: the reference solution graded as a submission; full marks or the upload fails."""
    from ..run.canary import submission
    root = root or _root()
    course, config = _load(root)
    with tempfile.TemporaryDirectory(prefix="maskdiff-selftest-") as scratch:
        folder = submission(course, Path(scratch) / "reference", config["notebooks"])
        workspace = Path(scratch) / "workspace"
        report = grade_folder(course, config, folder, workspace)
        data = results(course, config, report, workspace)
    short = [t for t in data["tests"] if t.get("status") != "passed" and t["max_score"] > 0]
    if short:
        print("autograder self-test FAILED: the reference solution lost points, so this image would grade "
              "students wrongly:\n" + "\n".join(f"  {t['name']}: {t['output']}" for t in short) +
              "\n" + data["output"], file=sys.stderr)
        return 1
    print(f"autograder self-test passed: the reference got {data['score']:g} points on "
          f"{', '.join(Path(n).stem for n in config['notebooks'])} ({data['output'].splitlines()[-1]})")
    return 0


def main(argv=None):
    command = (argv or sys.argv[1:] or ["run"])[0]
    if command == "self-test":
        return self_test()
    if command == "run":
        try:
            run()
        except Exception as err:  # noqa: BLE001 - Gradescope shows the failure; the student gets no 0
            print(f"the autograder could not grade this submission: {type(err).__name__}: {err}", file=sys.stderr)
            return 1
        return 0
    print(f"unknown command {command!r}: run or self-test", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
