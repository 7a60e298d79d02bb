"""Students' files never reach git by accident. What grading writes into a workspace is student records
(their notebooks, marks and feedback: FERPA, GDPR); a workspace inside a git work tree must be one that
git ignores, or `grade` stops before it writes, saying which line of which .gitignore would keep it out.
One `git add -A` must never publish a class's work."""
import shutil
import subprocess
from pathlib import Path

# What grading writes below a workspace that holds a student's work or marks (s: a student, n: a notebook).
RESULTS = ("submitted/s/n/n.ipynb", "autograded/s/n/n.ipynb", "feedback/s/n/n.html", "gradebook.db",
           "grades-by-notebook.csv", "grades-by-student.csv", "intake/s/n.ipynb", "intake.json",
           "intake-unmatched/x.ipynb", ".intake-export/x.ipynb", "grades-canvas.csv", "grades-moodle.csv",
           "feedback-canvas/1.html", "feedback-moodle.zip", "moodle/n/grades-moodle.csv", "moodle/n/feedback-moodle.zip",
           "similarity/report.html", "similarity/similarity.csv")
# Folders that hold copies of those: the gradings kept for `undo` (ledger/safekeeping.py) and a grading's
# files before they are put in place. Each copy is probed, as an anchored line (`/intake.json`, as in the
# course's own .gitignore) keeps out the workspace's file and not its copy.
COPIES = ("earlier-gradings/0001-when", ".grading-staging")
STUDENT_FILES = RESULTS + tuple(f"{folder}/{name}" for folder in COPIES for name in RESULTS)


class TrackedWorkspace(ValueError):
    """The workspace is inside a git work tree, and git would track the students' files there."""


def _work_tree(folder):
    """The top of the git work tree that holds folder (which may not exist yet), or None."""
    if shutil.which("git") is None:
        return None
    existing = Path(folder)
    while not existing.is_dir():
        existing = existing.parent
    done = subprocess.run(["git", "-C", str(existing), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True)
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 and done.stdout.strip() else None


def tracked_files(workspace):
    """The student files grading would write into workspace that git would not ignore (relative to the
    workspace), and the work tree's top; ([], None) outside any work tree."""
    workspace = Path(workspace).resolve()
    top = _work_tree(workspace)
    if top is None:
        return [], None
    probes = [str((workspace / name).relative_to(top)) for name in STUDENT_FILES]
    done = subprocess.run(["git", "-C", str(top), "check-ignore", "--no-index", "--stdin"],
                          input="\n".join(probes) + "\n", capture_output=True, text=True)
    ignored = set(done.stdout.splitlines())
    return [name for name, probe in zip(STUDENT_FILES, probes) if probe not in ignored], top


def check(workspace):
    """Stop (TrackedWorkspace) when git would track students' files grading writes into workspace."""
    tracked, top = tracked_files(workspace)
    if not tracked:
        return
    workspace = Path(workspace).resolve()
    where = workspace.relative_to(top)
    kinds = sorted({name.split("/")[0] + ("/" if "/" in name else "") for name in tracked})
    lines = [f"{where.parts[0]}/"] if where.parts else kinds
    raise TrackedWorkspace(
        f"the workspace {workspace} is inside the git work tree {top}, and git would track the students' "
        f"files grading writes there ({', '.join(kinds)}): add {' and '.join(f'`{line}`' for line in lines)} "
        f"to {top / '.gitignore'}, or grade into a folder outside the repository, or --workspace-in-git to "
        f"grade there all the same")
