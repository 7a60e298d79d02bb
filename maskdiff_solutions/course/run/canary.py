"""The canary: the reference solution of every notebook being graded, graded first as one more
student, in the same sandbox, limits and settings as everyone. Unless it gets full autograded
marks, something in this grading setup is broken (a sandbox that cannot start a kernel, a missing
package, a limit too small), and every student would get a grade that says nothing true: grading
then stops before any student's result is kept, saying why in one sentence.

It runs beside the first students (one more task, first in line); their results are held back
until the canary's verdict arrives. `grade --no-canary` skips it.

It proves once: a notebook whose reference got full marks is recorded in the workspace's
canary-proof.json under a key made of everything that could change that verdict (`setup_parts`: the
course, the grading code, the installed packages, the sandbox and its limits, the seed, the user).
A later grading under the same key leaves that notebook's canary out and says so; any changed part
proves again, naming it. `grade --prove-again` proves regardless.
"""
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ... import colab
from ..intake import notebooks
from ..layout import SEED_VARIABLE
from . import job

STUDENT = "_canary"   # student_id() never makes a leading "_": no real student can be named so


class CanaryFailed(RuntimeError):
    """The reference solution did not get full marks here: nobody is graded."""


def submission(course, folder, selected):
    """folder/_canary/<notebook>.ipynb: each selected release notebook with the source's solutions, the
    first drawing cell of each importing what colab.txt installs for students' cells (prove_colab)."""
    target = Path(folder) / STUDENT
    target.mkdir(parents=True)
    for name in selected:
        nb = notebooks.solved(notebooks.read(course.source_dir / name), notebooks.read(course.release_dir / name))
        notebooks.write(prove_colab(nb), target / name)
    return target


# Found, not imported: importing all of them costs 5 to 13 s of a kernel's time on every grading (the
# 2-core machine, idle to loaded); tests/course/sandbox/test_sandbox.py imports each inside the sandbox.
FIND = """import importlib.util as _util
for _name in {names!r}:
    if _util.find_spec(_name) is None:
        raise ModuleNotFoundError(f"No module named {{_name!r}}", name=_name)
"""


def prove_colab(nb):
    """The notebook with its first drawing cell first finding every module of Colab's stack that the
    grader installs: a module the sandbox cannot find stops the cell as its import would, which sends
    that drawing to review, naming the module (grading/plots.py), so the canary falls short of full
    marks and says which one."""
    for cell in nb.cells:
        if cell.cell_type == "code" and str(notebooks.grade_id(cell) or "").startswith("plot_"):
            cell.source = FIND.format(names=colab.installed()) + cell.source
            break
    return nb


NOTHING_HANDED_IN = "canary: nobody handed in a notebook, so there is nothing to prove it on"


def notebooks_to_prove(selected, folders):
    """The selected notebooks some student hands in under its own name (nobody's is graded for the
    rest); all selected ones when no file is named so but some notebook was handed in (the grader
    recognises them by content); none when nobody handed in a notebook at all (nothing to grade)."""
    named = [name for name in selected if any((Path(folder) / name).is_file() for folder in folders)]
    if named:
        return named
    handed = any(path.is_file() for folder in folders for path in Path(folder).rglob("*.ipynb"))
    return list(selected) if handed else []


def problem(result):
    """None when every notebook of the canary got full autograded marks, or fell short only where a
    time limit stopped it (`out_of_time`), else the sentence why not."""
    for row in result.rows:
        if row.notebook in out_of_time(result):
            continue
        if row.status != "graded" or row.auto_score < row.auto_max or row.auto_max == 0:
            why = f" ({row.reason.rstrip('.')[:300]})" if row.reason else ""
            return (f"the reference solution of {row.notebook} got {row.auto_score:g} / {row.auto_max:g} "
                    f"here{why}, so this grading setup is broken and nobody was graded; fix the cause, or "
                    f"pass --no-canary to grade anyway")
    return None


def out_of_time(result):
    """{notebook: why} of the notebooks whose reference lost points only in the test cells at or after
    the first cell a time limit stopped (course/run/student.time_stops): slow here, now (a machine too
    busy, or slower than the course expects), which says nothing of the setup. They are not proved,
    and grading goes on."""
    found = {}
    for row in result.rows:
        after = set(result.timed.get(row.notebook, ()))
        lost = set(row.failed_tests.split()) | set(row.review.split())
        if after and lost <= after and row.status in ("graded", "flagged") and row.auto_max > 0:
            found[row.notebook] = row.reason
    return found


def out_of_time_sentence(found):
    """What the canary says of the notebooks `out_of_time` found, one line each."""
    return "\n".join(f"canary: the reference of {notebook} ran out of time here ({why.rstrip('.')[:300]}): that "
                     f"is this machine, now (too busy, or slower than the course expects), not a broken setup, "
                     f"so grading went on; students stopped the same way are flagged for a person"
                     for notebook, why in sorted(found.items()))


def gate(stream, on_pass=None):
    """The (student, result) stream without the canary; nothing passes before the canary's verdict,
    and a failed canary ends the stream with CanaryFailed. on_pass(late) runs once the canary passed,
    with the notebooks it could not prove for a time limit (`out_of_time`)."""
    held, passed = [], False
    for student, result in stream:
        if student == STUDENT:
            why = problem(result)
            if why:
                raise CanaryFailed(why)
            passed = True
            if on_pass is not None:
                on_pass(out_of_time(result))
            yield from held
            held = []
        elif passed:
            yield student, result
        else:
            held.append((student, result))
    if not passed:
        raise CanaryFailed("the canary's grading never came back, so nobody was graded")


# --- proved once ---------------------------------------------------------------------------------
PROOF_NAME = "canary-proof.json"
PROOF_VERSION = 1


def _digest(*parts):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(str(part).encode() + b"\0")
    return digest.hexdigest()


def _packages():
    """Every installed distribution, name==version, and the Python running the grader."""
    found = sorted({f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
                    if d.metadata["Name"]})
    return _digest(sys.version, *found)


def _bubblewrap():
    """The bubblewrap the sandbox would run: its path and its version ('' where there is none)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ""
    try:
        version = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        version = "?"
    return f"{bwrap} {version.strip()}"


def setup_parts(course, sandbox, limits):
    """{part of the grading setup: its hash}: everything besides the notebook that could change the
    canary's verdict."""
    files = {name: data for name, data in job.course_bundle(course, os.devnull).items() if name != "template.db"}
    return {
        "the course (source, release, nbgrader_config.py, pyproject.toml)": job.bundle_hash(files),
        "the grading code": job.package_fingerprint(),
        "the installed packages": _packages(),
        "the sandbox and its limits": _digest(sandbox, json.dumps(limits or {}, sort_keys=True, default=str),
                                              _bubblewrap()),
        "the grading seed": _digest(os.environ.get(SEED_VARIABLE, "")),
        "the user grading": _digest(os.getuid() if hasattr(os, "getuid") else ""),
    }


class Proof:
    """The notebooks proved under this setup, read from and written to WORKSPACE/canary-proof.json; a
    file that is unreadable, of another version or of another setup proves nothing."""

    def __init__(self, workspace, parts):
        self.path, self.parts = Path(workspace) / PROOF_NAME, parts
        self.proved, self.changed = set(), []
        try:
            data = json.loads(self.path.read_text())
            old = data["parts"] if data.get("version") == PROOF_VERSION else {}
            proved = set(data["proved"]) if isinstance(data.get("proved"), list) else set()
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return
        if old == parts:
            self.proved = {name for name in proved if isinstance(name, str)}
        else:
            self.changed = sorted(part for part in set(parts) | set(old) if old.get(part) != parts.get(part))

    def record(self, names):
        """Add the notebooks whose canary just got full marks, and write the file atomically."""
        self.proved |= set(names)
        text = json.dumps({"version": PROOF_VERSION, "parts": self.parts, "proved": sorted(self.proved)},
                          indent=1, sort_keys=True)
        scratch = self.path.with_name(self.path.name + ".tmp")
        scratch.write_text(text)
        os.replace(scratch, self.path)

    def plan(self, names, again=False):
        """(notebooks to prove, the sentence saying what the canary does this time)."""
        if not names:
            return [], NOTHING_HANDED_IN
        todo = list(names) if again else [name for name in names if name not in self.proved]
        kept = [Path(name).stem for name in names if name not in todo]
        said = []
        if kept:
            said.append(f"canary: the reference of {', '.join(kept)} got full marks under this grading setup "
                        f"before ({PROOF_NAME}), so it is not graded again (--prove-again grades it anyway)")
        if todo:
            why = ("as --prove-again asks" if again else
                   f"since its last proof, {' and '.join(self.changed)} changed" if self.changed else
                   "not yet proved under this grading setup")
            said.append(f"canary: the reference of {', '.join(Path(n).stem for n in todo)} is graded first ({why})")
        return todo, "\n".join(said)
