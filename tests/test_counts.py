"""Every count of notebooks, sections or steps that the notebooks, the README, the docs or CONTRIBUTING
state, held to the course as it stands (issue 63): the notebooks are whatever source/ holds, so a new
notebook makes each of these tests ask for the new count ("eight") until every text says it. The points
that the texts state are held in tests/test_docs.py (each *Graded* heading, the README's table)."""
import re
from pathlib import Path

import pytest

from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.course.layout import Course
from tests.support.docs import one_line, page, pages

ROOT = Path(__file__).resolve().parents[1]
COURSE = Course.load(ROOT)
NOTEBOOKS = COURSE.notebooks()
NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
           "twelve"]
ORDINALS = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
            "tenth", "eleventh", "twelfth"]
COUNT = NUMBERS[len(NOTEBOOKS)]


def markdown(name):
    return [cell.source for cell in nbtools.read(COURSE.source_dir / name).cells if cell.cell_type == "markdown"]


def title(name):
    """A notebook's title, from its first heading: '# Masked diffusion 3 · A real language model'."""
    heading = markdown(name)[0].splitlines()[0]
    found = re.match(r"# Masked diffusion (\d+) · (.+)$", heading)
    assert found and int(found.group(1)) == NOTEBOOKS.index(name) + 1, f"{name}: {heading!r}"
    return found.group(2).strip()


def texts():
    """{where: text in one line} of everything a student or an instructor reads."""
    found = {"README.md": (ROOT / "README.md").read_text(), "CONTRIBUTING.md": (ROOT / "CONTRIBUTING.md").read_text()}
    found.update({f"docs/{name}": text for name, text in pages().items()})
    found.update({name: "\n\n".join(markdown(name)) for name in NOTEBOOKS})
    return {where: one_line(text) for where, text in found.items()}


def test_there_are_as_many_notebooks_as_the_words_can_say():
    assert 1 < len(NOTEBOOKS) < len(NUMBERS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_notebook_says_its_place_in_the_course(name):
    """Notebook 06 opened with 'The last of six notebooks', notebook 04 with 'the fourth of six': there
    were seven. Each opening says 'The <place> of <count> notebooks'."""
    opening = one_line(markdown(name)[0])
    said = re.search(r"\bthe (\w+) of (\w+) notebooks\b", opening, flags=re.IGNORECASE)
    assert said, f"{name}: its first cell should say 'The {ORDINALS[NOTEBOOKS.index(name) + 1]} of {COUNT} notebooks'"
    assert said.group(1).lower() == ORDINALS[NOTEBOOKS.index(name) + 1] and said.group(2).lower() == COUNT, \
        f"{name}: {said.group(0)!r}, but it is the {ORDINALS[NOTEBOOKS.index(name) + 1]} of {COUNT}"


COUNTS_OF_NOTEBOOKS = [r"\b(?:the )?(\w+) of (\w+) notebooks\b", r"\bin (\w+) (?:Jupyter )?notebooks\b",
                       r"\ball (\w+) notebooks\b", r"\b(\w+) notebooks on\b", r"\bthe (\w+) notebooks of the course\b"]


def test_no_text_miscounts_the_notebooks():
    """Wherever a text counts the course's notebooks ('of six notebooks', 'in seven notebooks', 'all six
    notebooks', 'the last of'), the count is the course's."""
    wrong = []
    for where, text in texts().items():
        for pattern in COUNTS_OF_NOTEBOOKS:
            for found in re.finditer(pattern, text, flags=re.IGNORECASE):
                words = [word.lower() for word in found.groups()]
                if words[-1] in NUMBERS and words[-1] != COUNT:
                    wrong.append(f"{where}: {found.group(0)!r}")
                if len(words) == 2 and words[0] == "last" and where != NOTEBOOKS[-1]:
                    wrong.append(f"{where}: {found.group(0)!r} (it is not the last notebook)")
    assert not wrong, f"the course has {COUNT} notebooks: {wrong}"


@pytest.mark.parametrize("where", ["README.md", "docs/index.md"])
def test_the_summary_counts_and_names_every_notebook(where):
    """The README's summary stopped at notebook 05, and the docs' first page's at notebook 05, when
    there were seven: each names every notebook by its title, and their number."""
    text = (ROOT / where).read_text()
    summary = one_line(text.split("\n\n")[1]).lower()
    assert f"in {COUNT} jupyter notebooks" in summary, f"{where}: say 'in {COUNT} Jupyter notebooks'"
    missing = [title(name) for name in NOTEBOOKS if title(name).lower() not in summary]
    assert not missing, f"{where}'s summary does not name {missing}"


def test_the_docs_table_of_notebooks_has_one_row_each():
    rows = re.findall(r"^\| `(\d\d_\w+)` \|", page("index.md"), flags=re.MULTILINE)
    assert rows == [Path(name).stem for name in NOTEBOOKS]


def course_lists(text):
    """The lists of the course's notebooks in a notebook's text, each as its entries: the numbered list
    or the line that marks one notebook '(this one)', from '1. ' to the paragraph's end."""
    for found in re.finditer(r"^1\. .*?\(this one\).*?(?=\n\n|\Z)", text, flags=re.MULTILINE | re.DOTALL):
        yield [entry.strip() for entry in re.split(r"\s+·\s+|\n(?=\d+\. )", found.group(0))]


def test_a_list_of_the_notebooks_lists_them_all():
    """Notebook 01's list of the course and notebook 03's line ('1. Noise for words · … **3. …** (this
    one) · …') stopped at notebook 5: each names every notebook by its title, in order, and marks its own."""
    seen = 0
    for name in NOTEBOOKS:
        for text in markdown(name):
            for entries in course_lists(text):
                seen += 1
                plain = [re.sub(r":.*", "", entry.replace("**", "").replace(" (this one)", "")) for entry in entries]
                assert plain == [f"{i}. {title(other)}" for i, other in enumerate(NOTEBOOKS, 1)], f"{name}: {plain}"
                own = [i for i, entry in enumerate(entries) if "(this one)" in entry]
                assert own == [NOTEBOOKS.index(name)], f"{name} marks {own} as 'this one'"
    assert seen >= 2, "notebooks 01 and 03 list the course"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_an_openings_list_of_sections_names_them_in_order(name):
    """An opening that lists the notebook's sections ('1. **Blocks**: …') names each by its heading, in
    order, numbered from 1: notebook 04 listed 'The loss' for its section 'Training'."""
    items = re.findall(r"^(\d+)\. \*\*([^*]+)\*\*:", markdown(name)[0], flags=re.MULTILINE)
    if not items:
        return
    headings = [text.splitlines()[0][3:].strip() for text in markdown(name) if text.startswith("## ")]
    assert [int(n) for n, _ in items] == list(range(1, len(items) + 1)), f"{name}: {items}"
    listed = [item for _, item in items]
    missing = [item for item in listed if item not in headings]
    assert not missing, f"{name}: the opening lists {missing}, which no section of the notebook is called"
    positions = [headings.index(item) for item in listed]
    assert positions == sorted(positions), f"{name}: the opening lists its sections out of order"


def test_the_docs_name_the_notebooks_that_want_a_gpu():
    """Teaching the course: students choose a T4 GPU for the notebooks whose text asks for one."""
    wanting = [name[:2] for name in NOTEBOOKS if "T4" in " ".join(markdown(name))]
    said = re.search(r"T4 GPU\* for notebooks (\d\d) to (\d\d)", one_line(page("teaching.md")))
    assert said, "Teaching the course should say which notebooks want a T4 GPU, as 'for notebooks NN to MM'"
    ranged = [name[:2] for name in NOTEBOOKS if said.group(1) <= name[:2] <= said.group(2)]
    assert ranged == wanting, f"{said.group(0)!r}, but notebooks {wanting} ask for a T4"


def test_contributing_counts_the_steps_of_a_section():
    text = (ROOT / "CONTRIBUTING.md").read_text()
    steps = re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE)
    said = re.search(r"A section is done when all (\w+) steps", one_line(text))
    assert steps == [str(i) for i in range(1, len(steps) + 1)]
    assert said and said.group(1) == NUMBERS[len(steps)]
