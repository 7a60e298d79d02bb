"""What Colab preinstalls that a student may import in a cell (colab.txt beside this file), and which of
it this grader lacks: a drawing that stops on such an import is the grader's fault, never the
student's, so it goes to a person (grading/plots.py) and the summary names the module."""
import importlib.util
import re
from functools import lru_cache
from pathlib import Path

LIST = Path(__file__).with_name("colab.txt")
LACKS = re.compile(r"the grader lacks ([\w.]+), which Colab has")


@lru_cache(maxsize=None)
def modules():
    """{module a student imports: "installed" (the grader installs it) or "colab-only"}."""
    out = {}
    for line in LIST.read_text().splitlines():
        line = line.strip()
        if line.startswith("# colab-only:"):
            out.update({name: "colab-only" for name in line.split(":", 1)[1].split()})
        elif line and not line.startswith("#"):
            package = re.split(r"[=<>!~ ;\[]", line, maxsplit=1)[0]
            imported = re.search(r"#\s*import\s+([\w.]+)", line)
            out[imported.group(1) if imported else package.replace("-", "_").lower()] = "installed"
    return out


def installed():
    """The modules the grader installs for students (the canary imports each in the sandbox)."""
    return sorted(name for name, kind in modules().items() if kind == "installed")


def lacking(module):
    """The top-level name of `module` when Colab has it and this grader cannot import it, else None."""
    top = str(module or "").split(".")[0]
    if top not in modules():
        return None
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        found = None
    return top if found is None else None


def sentence(module):
    """The reason a drawing that needs `module` goes to a person (LACKS reads it back)."""
    return (f"the grader lacks {module}, which Colab has: the cell stopped at its import, so a person "
            f"grades it (the instructor can install {module} for grading)")


def lacked(reasons):
    """The modules named as lacking in any of the sentences, once each, in order."""
    seen = []
    for reason in reasons:
        for name in LACKS.findall(reason or ""):
            if name not in seen:
                seen.append(name)
    return seen
