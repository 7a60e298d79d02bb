"""The canary: the reference solution of every notebook being graded, graded first as one more
student, in the same sandbox, limits and settings as everyone. Unless it gets full autograded
marks, something in this grading setup is broken (a sandbox that cannot start a kernel, a missing
package, a limit too small), and every student would get a grade that says nothing true: grading
then stops before any student's result is kept, saying why in one sentence.

It runs beside the first students (one more task, first in line); their results are held back
until the canary's verdict arrives. `grade --no-canary` skips it.
"""
from pathlib import Path

from .. import colab
from . import notebooks

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
# 2-core machine, idle to loaded); tests/course/test_sandbox.py imports each inside the sandbox.
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


def notebooks_to_prove(selected, folders):
    """The selected notebooks some student hands in under its own name (nobody's is graded for the
    rest); all selected ones when no file is named so (the grader recognises them by content)."""
    named = [name for name in selected if any((Path(folder) / name).is_file() for folder in folders)]
    return named or list(selected)


def problem(result):
    """None when every notebook of the canary got full autograded marks, else the sentence why not."""
    for row in result.rows:
        if row.status != "graded" or row.auto_score < row.auto_max or row.auto_max == 0:
            why = f" ({row.reason.rstrip('.')[:300]})" if row.reason else ""
            return (f"the reference solution of {row.notebook} got {row.auto_score:g} / {row.auto_max:g} "
                    f"here{why}, so this grading setup is broken and nobody was graded; fix the cause, or "
                    f"pass --no-canary to grade anyway")
    return None


def gate(stream):
    """The (student, result) stream without the canary; nothing passes before the canary's verdict,
    and a failed canary ends the stream with CanaryFailed."""
    held, passed = [], False
    for student, result in stream:
        if student == STUDENT:
            why = problem(result)
            if why:
                raise CanaryFailed(why)
            passed = True
            yield from held
            held = []
        elif passed:
            yield student, result
        else:
            held.append((student, result))
    if not passed:
        raise CanaryFailed("the canary's grading never came back, so nobody was graded")
