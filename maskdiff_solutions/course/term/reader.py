"""drawing_reader.py, the one Python file of the students' repository (written by `publish`): what the
autograder reads in a student's figures and printouts, as maskdiff_client holds it (charts.py, drawn.py,
seen.py, with vega.py under charts.py) in one module, so that `show("plot_x")` in a notebook says what the grader will read there, and
the check students run before handing in (handin.py: `check_before_handing_in`)."""
import ast
import itertools

from ..layout import CLIENT_PACKAGE, PACKAGE_PARENT
from ..records.nbgrader_apps import CourseError

# maskdiff_client's public modules, in order, each under its heading in the one module
READER_PARTS = {"vega.py": "altair's tables, worked out by altair's transformed_data() (VegaFusion)",
                "charts.py": "plotly and altair charts, read", "drawn.py": "the recorder",
                "seen.py": "its description", "handin.py": "the check before handing in"}


def without_docstring(text):
    """A module's text less its docstring (ours name the course's private parts)."""
    body = ast.parse(text).body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        lines = text.splitlines(keepends=True)
        return "".join(lines[body[0].end_lineno:]).lstrip("\n")
    return text


def top_level_names(text):
    """Each name a module binds at its top, with what it binds: the same module imported in two parts
    is one name, a function of one part and anything else of another's the same name is a clash."""
    names = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = ("defined", id(text))
        elif isinstance(node, ast.Assign):
            names.update({t.id: ("defined", id(text)) for t in node.targets if isinstance(t, ast.Name)})
        elif isinstance(node, ast.Import):
            names.update({(a.asname or a.name).split(".")[0]: ("import", a.name if a.asname else a.name.split(".")[0])
                          for a in node.names})
        elif isinstance(node, ast.ImportFrom):
            names.update({a.asname or a.name: ("from", node.module, a.name) for a in node.names})
    return names


def reader_text():
    """drawing_reader.py: maskdiff_client's altair tables (vega.py), chart reader (charts.py),
    recorder (drawn.py), its description (seen.py) and the hand-in check (handin.py) verbatim, less
    their docstrings, as one module that starts recording when imported in IPython."""
    folder = PACKAGE_PARENT / CLIENT_PACKAGE
    files = list(READER_PARTS)
    parts = [without_docstring((folder / name).read_text(encoding="utf-8")) for name in files]
    names = [top_level_names(part) for part in parts]
    for i, j in itertools.combinations(range(len(parts)), 2):   # one module: a name bound twice to two
        clash = sorted(n for n in names[i].keys() & names[j].keys() if names[i][n] != names[j][n])  # things
        if clash:                                                # would replace the other part's own
            raise CourseError(f"maskdiff_client's {files[i]} and {files[j]} both define {clash}")
    return ('"""What the autograder reads in your figures and printouts: it keeps what each cell draws and\n'
            'prints, and `show("plot_x")` says what the reader finds in the drawing cell plot_x.\n'
            '`check_before_handing_in("NN_name.ipynb")` lists what is left to do in a notebook. Keep it\n'
            'beside the notebooks: their set-up cell imports it from there and fetches it only when it is\n'
            'missing. It grades nothing; the grading itself is done elsewhere."""\n'
            + "".join(f"\n\n# ---- {READER_PARTS[name]} ----\n{part}" for name, part in zip(files, parts))
            + "\n\ninstall()\n")
