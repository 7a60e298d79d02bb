"""Grading output, byte for byte, before and after a change that must not alter grading (issue 24).

Grades two batches and keeps what an instructor hands back: `grades-by-notebook.csv`, the feedback
HTML and the autograded notebooks.
- demo: the demo's three students (reference, untouched, buggy), every notebook;
- mutants: one student per catalog mutant (tests/mutants), handing in only the notebook that holds
  the mutant's function, the reference elsewhere in it. `--every N` keeps every Nth mutant of each
  function's list (default 1: all), for a machine too loaded to grade them all.

    python benchmarks/byte_identical.py save BASELINE_DIR [--every N]   # before the change
    python benchmarks/byte_identical.py check BASELINE_DIR              # after: exit 1 on any difference

Run both at a low load: a cell that passes its time limit under load is flagged and loses marks.
Keep BASELINE_DIR outside the repository (e.g. /work/baselines/issue24). `check` grades the same
batches (the --every the baseline was saved with) and compares every file, naming each that differs,
is missing or is new. `check --every M`, M a multiple of the baseline's, grades fewer mutants (a
loaded machine): then each file of the students graded is compared, and each of the CSV's rows.

A few bytes differ between two gradings of the same code, so they are left out of the comparison
(`comparable`), and nothing else:
- each cell's `metadata.execution` (nbclient's timestamps) and the notebook's `metadata.widgets`
  (progress bars' random model ids);
- how a cell's printed text is cut into stream outputs (the kernel flushes stdout on a timer): the
  pieces of one stream are joined, in the notebook and in the feedback page;
- line numbers in tracebacks: a frame of the course's own code (maskdiff_client) moves when that code
  is rearranged, and what the student reads is the error and the lines around it;
- durations and speed-ups printed by a cell (`1.23 s`, `45 ms`, `1.7x`): they change on every run;
- the uid a root grader leased for the kernel, in a path a cell prints (notebook 06's stand-in scorer
  is cached under /tmp/scorer-stand-in-UID): the lease takes the first uid no other grader on the
  machine holds, so it is 61001 while a test run holds 61000.
"""
import argparse
import copy
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package, installed or not
from maskdiff_solutions.course.intake import notebooks  # noqa: E402
from maskdiff_solutions.course.term import demo
from maskdiff_solutions.course.run.batch import grade  # noqa: E402
from maskdiff_solutions.course.layout import Course  # noqa: E402

KEPT = ("grades-by-notebook.csv", "feedback", "autograded")


def mutant_batch(course, folder, every):
    """folder/<function>--<n>/<notebook>: the solved notebook holding the function, with the mutant in."""
    from tests.mutants import catalog
    solved = {name: demo.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))
              for name in course.notebooks()}
    home = {notebooks.grade_id(cell): name for name, nb in solved.items() for cell in nb.cells
            if notebooks.is_solution(cell)}
    count = {}
    for mutant in catalog(in_notebooks=True):
        n = count[mutant.function] = count.get(mutant.function, -1) + 1
        if n % every:
            continue
        name = home[mutant.function]
        nb = demo.with_answer(copy.deepcopy(solved[name]), mutant.function, mutant.source)
        student = folder / f"{mutant.function}--{n}"
        student.mkdir(parents=True)
        notebooks.write(nb, student / name)


def graded(course, scratch, every):
    """{batch: workspace} after grading both batches (serially: the default --jobs)."""
    out = {}
    for batch in ("demo", "mutants"):
        workspace = scratch / batch
        submissions = workspace / "collected"
        submissions.mkdir(parents=True)
        if batch == "demo":
            demo.build_submissions(course, submissions)
        else:
            mutant_batch(course, submissions, every)
        started = time.perf_counter()
        report = grade(course, submissions, workspace, progress=False)
        print(f"{batch}: {len({r.student for r in report.rows})} students, {len(report.rows)} rows, "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        out[batch] = workspace
    return out


def files(folder):
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def keep(workspaces, baseline):
    for batch, workspace in workspaces.items():
        for name in KEPT:
            source, target = workspace / name, baseline / batch / name
            if source.is_dir():
                shutil.copytree(source, target, symlinks=True)
            elif source.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


def same(a, b):
    return comparable(a) == comparable(b)


ANSI = re.compile(r"\x1b\[[0-9;]*m")
TIMING = re.compile(r"\d+(?:\.\d+)?(?:e-?\d+)?\s?(?:s|ms|µs|us|seconds|sec|x|×)(?!\w)")
GUTTER = re.compile(r"^(\s*(?:-+>)?\s*)\d+(?=\s)", re.M)  # a traceback's line-number margin
FRAME = re.compile(r"(\.py:|line )\d+")
LEASED_UID = re.compile(r"(scorer-stand-in-)\d+")
HTML_GUTTER = re.compile(r'(<span class="ansi-green[^"]*">\s*(?:-*&gt;)?\s*)\d+(</span>)')
HTML_SPLIT = re.compile(  # a stream's text cut into two output areas: joined again
    r'(output_stream output_(stdout|stderr) output_text">\s*<pre>(?:(?!</pre>).)*)</pre>\s*</div>\s*</div>\s*'
    r'<div class="output_area">\s*<div class="prompt">\s*</div>\s*'
    r'<div class="output_subarea output_stream output_\2 output_text">\s*<pre>', re.S)


def comparable(path):
    """The file's text without what changes between two gradings of the same code (module docstring)."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text())
        nb.get("metadata", {}).pop("widgets", None)
        for cell in nb.get("cells", []):
            cell.get("metadata", {}).pop("execution", None)
            if "outputs" in cell:
                cell["outputs"] = joined_streams(cell["outputs"])
        return json.dumps(nb, sort_keys=True)
    if path.suffix == ".html":
        text = path.read_text()
        while True:
            text, joined = HTML_SPLIT.subn(r"\1", text)
            if not joined:
                break
        return LEASED_UID.sub(r"\1UID", TIMING.sub("<time>", FRAME.sub(r"\1N", HTML_GUTTER.sub(r"\1N\2", text))))
    return path.read_bytes()


def joined_streams(outputs):
    out = []
    for output in outputs:
        output = dict(output)
        if output.get("output_type") == "stream":
            text = output["text"] if isinstance(output["text"], str) else "".join(output["text"])
            if out and out[-1].get("output_type") == "stream" and out[-1]["name"] == output["name"]:
                out[-1]["text"] += text
                continue
            output["text"] = text
        elif output.get("output_type") == "error":
            output["traceback"] = [FRAME.sub(r"\1N", GUTTER.sub(r"\1N", ANSI.sub("", line)))
                                   for line in output.get("traceback", [])]
        out.append(output)
    for output in out:
        if output.get("output_type") == "stream":
            output["text"] = LEASED_UID.sub(r"\1UID", TIMING.sub("<time>", output["text"]))
    return out


def compare(baseline, fresh, subset=False):
    """Lines naming each file that differs, is missing from `fresh` or is new in it. With `subset`
    (fewer mutant students graded): only the mutant students graded, and the CSV row by row."""
    old, new = files(baseline), files(fresh)
    if subset:
        csv = "mutants/grades-by-notebook.csv"
        graded = {p.split("/")[2] for p in new if p.startswith(("mutants/feedback/", "mutants/autograded/"))}
        old = {p for p in old if not p.startswith("mutants/") or p == csv or p.split("/")[2] in graded}
        kept, rows = (baseline / csv).read_text().splitlines(), (fresh / csv).read_text().splitlines()
        problems = [f"CSV row differs: {row}" for row in rows if row not in kept]
        problems += [f"CSV row missing: {row}" for row in kept if row.split(",")[0] in graded and row not in rows]
        old, new = old - {csv}, new - {csv}
    else:
        problems = []
    problems += [f"missing: {p}" for p in sorted(old - new)] + [f"new: {p}" for p in sorted(new - old)]
    problems += [f"differs: {p}" for p in sorted(old & new) if not same(baseline / p, fresh / p)]
    return problems, len(old & new)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("save", "check"))
    parser.add_argument("baseline", type=Path, help="folder for the kept outputs (outside the repository)")
    parser.add_argument("--every", type=int, help="grade every Nth mutant of each function (save: default 1; "
                        "check: default the baseline's, else a multiple of it)")
    parser.add_argument("--keep", type=Path, help="check: keep the fresh outputs here too (to read the differences)")
    args = parser.parse_args()
    course = Course.load(ROOT)
    settings = args.baseline / "settings.json"
    if args.mode == "save":
        if args.baseline.exists() and any(args.baseline.iterdir()):
            parser.error(f"{args.baseline} is not empty")
        every = args.every or 1
    else:
        if not settings.is_file():
            parser.error(f"{args.baseline} holds no saved baseline (no settings.json)")
        saved = json.loads(settings.read_text())["every"]
        every = args.every or saved
        if every % saved:
            parser.error(f"--every {every} is not a multiple of the baseline's {saved}")
    with tempfile.TemporaryDirectory() as scratch:
        workspaces = graded(course, Path(scratch), every)
        if args.mode == "save":
            keep(workspaces, args.baseline)
            settings.write_text(json.dumps({"every": every}) + "\n")
            print(f"saved {len(files(args.baseline)) - 1} files in {args.baseline}")
            return 0
        fresh = args.keep or Path(scratch) / "kept"
        keep(workspaces, fresh)
        problems, same = compare(args.baseline, fresh, subset=every != saved)
        problems = [p for p in problems if p != "missing: settings.json"]
        print("\n".join(problems) if problems else f"byte-identical: {same} files")
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
