"""Reading and writing notebooks, and the nbgrader markers inside their cells."""
import re
from pathlib import Path

import nbformat

BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
BADGE_MARKER = "<!-- colab-badge -->"
# The ungraded cell in which students paste functions from notebook NN: grade_id carried_from_NN.
CARRIED_PREFIX = "carried_from_"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"


def read(path):
    return nbformat.read(str(path), as_version=4)


def read_text(text):
    return nbformat.reads(text, as_version=4)


def write(nb, path):
    """nbformat's own layout (sorted keys, indent 1) plus a final newline: byte-stable output."""
    text = nbformat.writes(nb)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")


def nbgrader(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def grade_id(cell):
    return nbgrader(cell).get("grade_id")


def is_solution(cell):
    return bool(nbgrader(cell).get("solution"))


def is_test(cell):
    meta = nbgrader(cell)
    return bool(meta.get("grade")) and not meta.get("solution") and cell.cell_type == "code"


DRAWING_PREFIXES = ("plot_", "show_")


def _written_not_a_function(cell):
    """A solution code cell without points, not carried, that does not define the function it is
    named after."""
    return (is_solution(cell) and cell.cell_type == "code" and not nbgrader(cell).get("grade")
            and not is_carried(cell) and grade_id(cell) not in defined_functions(cell.source))


def is_drawing(cell):
    """A plot or printout the student writes (grade_id `plot_...` or `show_...`), judged by the hidden
    check of the test cell `test_<grade_id>` right after it."""
    return _written_not_a_function(cell) and str(grade_id(cell)).startswith(DRAWING_PREFIXES)


def is_function(cell):
    """A cell that defines the student function it is named after."""
    return (is_solution(cell) and cell.cell_type == "code" and not nbgrader(cell).get("grade")
            and not is_carried(cell) and not _written_not_a_function(cell))


def is_manual(cell):
    """An answer graded by a person: a solution cell that also carries points."""
    meta = nbgrader(cell)
    return bool(meta.get("grade")) and bool(meta.get("solution"))


def is_carried(cell):
    """The ungraded cell where students paste functions graded in an earlier notebook
    (grade_id `carried_from_NN`)."""
    return is_solution(cell) and not is_manual(cell) and str(grade_id(cell)).startswith(CARRIED_PREFIX)


def is_experiment(cell):
    """A "try it" cell: code students write and run to look at something, ungraded and unchecked."""
    return _written_not_a_function(cell) and not is_drawing(cell)


def regions(source, begin, end):
    """The lines strictly between each begin/end marker pair."""
    found, inside = [], None
    for line in source.splitlines():
        if begin in line:
            inside = []
        elif end in line and inside is not None:
            found.append("\n".join(inside))
            inside = None
        elif inside is not None:
            inside.append(line)
    return found


def without_markers(source):
    """A solution cell as a student who solved it would submit it: the marker lines removed."""
    kept = [line for line in source.splitlines()
            if BEGIN_SOLUTION not in line and END_SOLUTION not in line]
    return "\n".join(kept)


def secret_lines(*nbs):
    """Lines (stripped) found in the solutions or hidden tests of the source notebooks and nowhere else
    in them (a line a notebook gives students in the open is not secret): none may reach students."""
    secret, public = set(), set()
    for nb in nbs:
        for cell in nb.cells:
            hidden = regions(cell.source, BEGIN_HIDDEN, END_HIDDEN)
            if is_solution(cell):
                found = regions(cell.source, BEGIN_SOLUTION, END_SOLUTION) if cell.cell_type == "code" \
                    else [cell.source]
            else:
                found = []
            inside = {line.strip() for block in found + hidden for line in block.splitlines()}
            secret |= inside
            public |= {line.strip() for line in cell.source.splitlines()} - inside
    return {line for line in secret - public if line}


def defined_functions(source):
    return re.findall(r"^def\s+(\w+)\s*\(", source, flags=re.MULTILINE)


def hidden_check_names(source):
    """The names a test cell passes to run_check(...) in its hidden part."""
    return re.findall(r"run_check\(\s*[\"']([^\"']+)[\"']", source)


def check_plan(source_dir):
    """[(notebook name, test cell grade_id, [check names])] of every hidden test cell, in the order the
    notebooks and their cells run: the order in which a kernel may ask the checker for them."""
    plan = []
    for path in sorted(Path(source_dir).glob("*.ipynb")):
        for cell in read(path).cells:
            names = hidden_check_names(cell.source) if is_test(cell) else []
            if names:
                plan.append((path.name, grade_id(cell), names))
    return plan


BLOCK_BEGIN, BLOCK_END = "# --- notebook cell: ", "# --- end of notebook cell ---"


def module_blocks(package_dir):
    """{grade_id: code} for every `# --- notebook cell: ID ---` block in the package's modules:
    code a notebook must hold verbatim in its given cell ID."""
    blocks = {}
    for path in sorted(Path(package_dir).glob("*.py")):
        found = re.findall(re.escape(BLOCK_BEGIN) + r"(\w+) ---\n(.*?)\n" + re.escape(BLOCK_END),
                           path.read_text(), flags=re.DOTALL)
        blocks.update(found)
    return blocks


def badge(url):
    return f"{BADGE_MARKER}\n[![Open In Colab]({BADGE_IMAGE})]({url})"


READER_LINE = re.compile(r'^READER_URL = "[^"\n]*"$', re.M)


def point_reader(nb, url):
    """Set the set-up cell's READER_URL to `url`; True when that changed the notebook."""
    changed = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        new = READER_LINE.sub(f'READER_URL = "{url}"', cell.source)
        if new != cell.source:
            cell.source, changed = new, True
    return changed


def insert_badge(nb, url):
    """Put the Open-in-Colab badge where the source notebook has the marker (once)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and BADGE_MARKER in cell.source:
            cell.source = re.sub(re.escape(BADGE_MARKER) + r"(\n\[!\[Open In Colab\][^\n]*)?",
                                 lambda _: badge(url), cell.source, count=1)
    return nb


def solved(source_nb, release_nb):
    """The release notebook with each answer cell replaced by the source's solution."""
    answers = {grade_id(cell): without_markers(cell.source)
               for cell in source_nb.cells if is_solution(cell)}
    for cell in release_nb.cells:
        if is_solution(cell):
            cell.source = answers[grade_id(cell)]
    return release_nb
