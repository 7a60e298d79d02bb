"""`publish DIR`: write the students' public repository.

A course keeps two repositories. This one, the instructors', is private: it holds source/ (the
solutions), the hidden package, the tests and, once grading has run, the students' work. Students get
a second, public one (`[tool.maskdiff] public_repository` in pyproject.toml), which holds only what
they need: the release notebooks at its top, where their "Open in Colab" badges point, a README for
students with the same badges, a requirements.txt for their own machines, a .gitignore, and
`drawing_reader.py` (course/term/reader.py): the recorder of what cells draw and print and its description in
words, so that each drawing's test cell shows the student what the autograder's reader finds (it
decides nothing). It lies beside the notebooks, so a clone or a folder uploaded whole has it: the
set-up cell imports that copy, and fetches one only where there is none (Colab). Networks and stories come from the Hugging
Face hub. The course's own words to its students (where and when to hand in) live in the course, in
the Markdown file `[tool.maskdiff] student_notes` names, and go into that README under their own
heading at every publish, so that nothing publish writes needs editing in the students' repository.

Publishing first does what `release` does (the set-up cells' READER_URL follows public_repository,
release/ is regenerated from source/), so the notebooks published are release/'s bytes, and their
badges and READER_URL name the same repository (checked, with the leaks, before anything is
written): no solution or hidden-test line of any source notebook, no solution or hidden-test marker,
no Python file but the reader, nothing named like a course package. Every other file of the folder is
looked at too (course/term/leaks.py: the documented `git add -A` publishes them all), and one that must
not reach students stops publish, named. A file publish wrote and someone has edited since (publish
keeps fingerprints) is never overwritten: publish says where the words belong. The files are written
whole or not at all (course/term/whole.py): a full disk leaves the folder as it was.
"""
import hashlib
import re
from pathlib import Path

from ..intake import notebooks
from ..layout import COURSE_PACKAGES, PLACEHOLDER_REPOSITORY, READER
from ..records.nbgrader_apps import CourseError
from .reader import reader_text
from . import leaks as folder_leaks, whole
from .release import needs_public_repository, release

MANIFEST = ".maskdiff-published"  # the files publish wrote last time, which it may replace
COURSE_NAMES = (*COURSE_PACKAGES, "source", "tests", "gradebook", "autograded",
                "submitted", "feedback", "collected", "nbgrader_config")
FORBIDDEN_TEXT = (notebooks.BEGIN_SOLUTION, notebooks.END_SOLUTION, notebooks.BEGIN_HIDDEN,
                  notebooks.END_HIDDEN, "run_check", *COURSE_PACKAGES)
GPU_NOTEBOOKS = ("3", "4")  # where the README tells students to pick a T4 GPU
BADGE = re.compile(r"\(https://colab\.research\.google\.com/github/([^/)\s]+/[^/)\s]+)/blob/([^)\s]+?)/"
                   r"([^)\s]+\.ipynb)\)")
READER_URLS = re.compile(r"https://raw\.githubusercontent\.com/[^\s\"'\\]+/" + re.escape(READER))
NOTES_HEADING = "From your instructors"
WRITTEN = re.compile(r"([0-9a-f]{64})  (.+)")  # a line of MANIFEST: fingerprint, two spaces, path

STUDENT_README = """\
# Masked diffusion language models: the notebooks

{count} notebooks in which you build a masked (absorbing) diffusion language model yourself: the
noise schedule, forward masking, undiffusion, greedy decoding, the training loss, a chat loop and a
batched sampler. Along the way you chat with a real diffusion language model and train your own.

| notebook | open it |
| --- | --- |
{table}
{notes}
## Working on them

1. Click a notebook's badge: it opens in Google Colab. *File → Save a copy in Drive* keeps your work.
2. For notebooks {gpu}, pick *Runtime → Change runtime type → T4 GPU* first.
3. Fill in every `YOUR CODE HERE` and `YOUR ANSWER HERE`, and run the tests under each function (they
   are the visible ones; the grader runs more).
4. **Run the whole notebook, top to bottom, before you hand it in.** The autograder runs it again
   (with smaller experiments) and grades each plot or printout you are asked for by reading what your
   cell drew or printed: its curves, bars, axes, labels and legend, compared with fresh runs of your
   own functions (the cell after each plot says what it reads, and prints what the reader finds in
   your figure or printout: if it misses something you drew, draw it more plainly). Draw them with
   matplotlib, from your functions. Your written answers are graded by a person.
5. Run the last cell, *Before you hand in*: it lists what is still to do (failing visible checks,
   stubs, empty answers, drawings that drew nothing, cells not run or run out of order) and how to
   download the notebook. It changes none of your variables and grades nothing.
6. Hand in each notebook as an `.ipynb` file (*File → Download → Download .ipynb*){where}.

Each notebook runs top to bottom on its own. Later notebooks need functions you wrote earlier: each
opens with one cell, *your functions from earlier notebooks*, where you paste them. That cell is not
graded, and a function is graded only in the notebook that introduces it.

## On your own machine

```bash
pip install -r requirements.txt
jupyter lab
```

Keep `drawing_reader.py` beside the notebooks: their set-up cell uses that copy (on Colab, where there is
none, it fetches it from this repository; offline, upload it beside the notebook). It grades nothing:
with it each drawing's test cell prints what the autograder reads in your figure, and the last cell
runs the check before you hand in. Without it the notebooks run all the same.

The first run downloads what the notebooks use from the Hugging Face hub (no account needed): the chat
network `dllm-hub/ModernBERT-large-chat-v0.1` (0.9 GB) for notebook 3 and 4 MB of TinyStories for
notebooks 4 and 5. Notebooks 1, 2 and 5 run on a laptop's processor in a minute or two; 3 and 4 are
much faster on a GPU (notebook 4 trains for about a quarter of an hour on a processor).
"""

STUDENT_IGNORE = "# what the notebooks download or write\n.ipynb_checkpoints/\n__pycache__/\ndata/\n"


def title(nb, fallback):
    """The notebook's heading: its first markdown line that starts with '# '."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def student_requirements(course):
    """What a student's own machine needs: the course's requirements above its instructors' part (a
    file it includes with `-r`, Colab's stack, written out: the students' repository holds no file of
    the instructors'), and Jupyter."""
    kept = []
    for line in (course.root / "requirements.txt").read_text().splitlines():
        if line.strip().lower().startswith("# instructors"):
            break
        if line.strip().startswith("-r "):
            included = (course.root / line.strip()[3:].strip()).read_text().splitlines()
            kept += [x.split("#")[0].strip() for x in included if x.split("#")[0].strip()]
        elif line.strip() and not line.startswith("#"):
            kept.append(line.strip())
    return "# What the notebooks need on your own machine (Colab already has all of it).\n" + \
        "\n".join(kept + ["jupyter"]) + "\n"


def student_notes(course):
    """The course's own words for its students' README (the file `student_notes` names), "" when it
    names none. A missing file is an error: the README would silently lose the hand-in rules."""
    if not course.student_notes:
        return ""
    path = course.root / course.student_notes
    if not path.is_file():
        raise CourseError(f"{course.root / 'pyproject.toml'} [tool.maskdiff] student_notes = "
                          f"{course.student_notes!r}, and there is no file {path}: write there what "
                          f"students must know (where and when to hand in), or remove the setting")
    return path.read_text(encoding="utf-8").strip()


def readme(rows, notes):
    """The students' README: the notebooks' table, then the course's own words when it has some."""
    section = f"\n## {NOTES_HEADING}\n\n{notes}\n" if notes else ""
    where = f", where and when *{NOTES_HEADING}* says" if notes else ""
    return STUDENT_README.format(count=len(rows), table="\n".join(rows), notes=section, where=where,
                                 gpu=" and ".join(GPU_NOTEBOOKS))


def build(course, notes=""):
    """{relative path: text} of the students' repository, its notebooks those of release/."""
    files, rows = {}, []
    for path in sorted(course.release_dir.glob("*.ipynb")):
        nb = notebooks.read(path)
        files[path.name] = path.read_text(encoding="utf-8")
        badge = f"[![Open In Colab]({notebooks.BADGE_IMAGE})]({course.colab_url(path.name)})"
        rows.append(f"| {title(nb, path.stem)} (`{path.name}`) | {badge} |")
    files["README.md"] = readme(rows, notes)
    files["requirements.txt"] = student_requirements(course)
    files[".gitignore"] = STUDENT_IGNORE
    files[READER] = reader_text()
    return files


def leaks(course, files):
    """What in files must not reach students, in words (empty: nothing)."""
    found = []
    secret = notebooks.secret_lines(*(notebooks.read(course.source_dir / name) for name in course.notebooks()))
    for relative, text in files.items():
        parts = Path(relative).parts
        if Path(relative).suffix in (".py", ".pyc", ".db", ".sqlite") and relative != READER or any(
                part.startswith(COURSE_NAMES) for part in parts):
            found.append(f"{relative}: a file the students' repository never holds")
        for marker in FORBIDDEN_TEXT:
            if marker in text:
                found.append(f"{relative}: holds {marker!r}")
        lines = {line.strip() for line in text.splitlines()}
        if relative.endswith(".ipynb"):
            nb = notebooks.read_text(text)
            lines = {line.strip() for cell in nb.cells for line in cell.source.splitlines()}
            if any(cell.get("outputs") for cell in nb.cells):
                found.append(f"{relative}: has outputs")
        for line in sorted(lines & secret)[:3]:
            found.append(f"{relative}: holds the solution or hidden-test line {line!r}")
    return found


def disagreements(course, files):
    """Each badge or drawing-reader address in files that names another repository or branch than
    the course's settings, in words (empty: they all agree)."""
    found = []
    for relative, text in sorted(files.items()):
        for repository, branch, _ in badge_targets(text):
            if (repository, branch) != (course.public_repository, course.public_branch):
                found.append(f"{relative}: a Colab badge opens {repository} (branch {branch})")
        for url in sorted(set(READER_URLS.findall(text)) - {course.reader_url()}):
            found.append(f"{relative}: fetches the drawing reader from {url}")
    return found


def fingerprint(data):
    """sha256 of a file's bytes, its line ends as publish wrote them (a clone may have made them CRLF)."""
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()


def manifest(files):
    """MANIFEST's text: each file publish writes, with its fingerprint."""
    lines = [f"{fingerprint(text.encode('utf-8'))}  {relative}" for relative, text in sorted(files.items())]
    return "\n".join(["# written by the course's publish command, which replaces these files next time "
                      "(unless edited since) and leaves every other file alone", *lines]) + "\n"


def last_written(target):
    """{relative path: fingerprint} of what the last publish wrote into target (None: written by a
    publish that kept no fingerprints)."""
    listed = {}
    if (target / MANIFEST).is_file():
        for line in (target / MANIFEST).read_text().splitlines():
            match = WRITTEN.fullmatch(line.strip())
            if match:
                listed[match[2]] = match[1]
            elif line.strip() and not line.startswith("#"):
                listed[line.strip()] = None
    return listed


def _inside(target, relative):
    """target/relative when it is a plain file inside target (never a link, never outside)."""
    path = target / relative
    if target in path.resolve().parents and path.is_file() and not path.is_symlink():
        return path
    return None


def edited_since(target):
    """The files the last publish wrote into target that have been changed since."""
    edited = []
    for relative, written in sorted(last_written(target).items()):
        path = _inside(target, relative)
        if written and path and fingerprint(path.read_bytes()) != written:
            edited.append(relative)
    return edited


def _target(course, directory):
    target = Path(directory).resolve()
    root = course.root
    if target == root or root in target.parents or target in root.parents:
        raise CourseError(f"{target} is inside the course repository (or holds it): the students' "
                          f"repository is a repository of its own; publish it somewhere else")
    if target.exists() and not target.is_dir():
        raise CourseError(f"{target} is not a folder")
    entries = [p for p in target.iterdir() if p.name not in (".git", whole.PARTIAL)] if target.is_dir() else []
    if entries and not (target / MANIFEST).is_file():
        raise CourseError(f"{target} already holds files that publish did not write "
                          f"({', '.join(sorted(p.name for p in entries)[:5])}): give a new or empty "
                          f"folder, a fresh clone of the students' repository, or a folder publish wrote")
    return target


def refuse_edits(target):
    """Someone's words are never lost to a publish: refuse while a file it wrote has been edited since."""
    edited = edited_since(target)
    if edited:
        them = "it" if len(edited) == 1 else "them"
        raise CourseError(f"{', '.join(edited)} in {target} changed since publish wrote {them}, and publishing "
                          f"would overwrite {them}: put the course's own words in the Markdown file "
                          f"[tool.maskdiff] student_notes names (publish puts it in the README), then "
                          f"delete or restore the changed files and publish again")


def refuse_leaks(course, target):
    """Nothing in the students' folder that students must not see, whoever put it there: publish's
    documented `git add -A` takes every file (course/term/leaks.py). Those it replaces are not looked at,
    unless edited since it wrote them (a solution notebook copied over a published one)."""
    ours = {*course.notebooks(), "README.md", "requirements.txt", ".gitignore", READER, MANIFEST, *last_written(target)}
    ours -= set(edited_since(target))
    found = folder_leaks.in_folder(course, target, ours)
    if found:
        listed = "; ".join(f"{relative}: {why}" for relative, why in found[:20])
        more = f"; and {len(found) - 20} more files" if len(found) > 20 else ""
        raise CourseError(f"refusing to publish, {target} holds what students must never see, and `git add -A` "
                          f"would publish it: {listed}{more}; remove {'it' if len(found) == 1 else 'them'} from "
                          f"{target} (and from its git history if committed), then publish again")


def release_up_to_date(course):
    """Do what `release` does, so that the notebooks follow the current settings; says which release/
    notebooks changed (the course repository has them to commit)."""
    before = {path.name: path.read_bytes() for path in course.release_dir.glob("*.ipynb")}
    for path in release(course):
        if before.pop(path.name, None) != path.read_bytes():
            print(f"{path.relative_to(course.root)}: regenerated from source/ (commit it)")
    for name in sorted(before):
        print(f"{(course.release_dir / name).relative_to(course.root)}: removed, no longer in source/ (commit it)")


def publish(course, directory):
    """Release the course, then write the students' repository into directory; returns the files
    written (relative). Every refusal about the settings or the folder comes before any work."""
    needs_public_repository(course)
    notes = student_notes(course)
    target = _target(course, directory)
    refuse_leaks(course, target)
    refuse_edits(target)
    release_up_to_date(course)
    files = build(course, notes)
    files[MANIFEST] = manifest(files)
    wrong = disagreements(course, files)
    if wrong:
        raise CourseError(f"refusing to publish, the notebooks do not all point at {course.public_repository} "
                          f"(branch {course.public_branch}): " + "; ".join(wrong[:10]))
    found = leaks(course, files)
    if found:
        raise CourseError("refusing to publish, the students' repository would leak: " + "; ".join(found[:10]))
    # what the last publish wrote goes (if still its own); the rest (LICENSE, .github/) stays
    whole.put_files(target, files, [relative for relative in last_written(target) if _inside(target, relative)])
    return sorted(files)


def badge_targets(text):
    """(repository, branch, path) of every Colab badge link in a text."""
    return BADGE.findall(text)


def closing(course, directory, written):
    """The last line of `publish`: where the files went and where to push them (the bundle's
    placeholder repository is no course's, so it is named as such)."""
    unset = (" (the placeholder: set [tool.maskdiff] public_repository in pyproject.toml to your students' "
             "repository and publish again)" if course.public_repository == PLACEHOLDER_REPOSITORY else "")
    return (f"wrote the students' repository ({len(written)} files) to {directory}; commit and push it to "
            f"https://github.com/{course.public_repository}{unset}")
