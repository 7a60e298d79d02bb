"""README.md and the docs site (tests/support/docs.py), CONTRIBUTING.md, BENCHMARKS.md and the notebooks' own headings against the notebooks'
nbgrader metadata, the code and the grader's settings: a number or a list printed there is a promise
(issue 23)."""
import re
from pathlib import Path

import pytest
from traitlets.config import Config

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.course.run.preprocessors import SurvivingExecute
from maskdiff_solutions.course.records.rows import CSV_NAME, Row
from maskdiff_solutions.toy import TWO_WORLD, VOCAB
from tests.support.docs import one_line, pages, site

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p.name for p in (ROOT / "source" / "maskdiff").glob("*.ipynb"))
HEADING = re.compile(r"^#+ ", flags=re.MULTILINE)
GRADED = re.compile(r"^### Graded\b.*$", flags=re.MULTILINE)
STATED = re.compile(r"^### Graded \((\d+) points?\b[^)]*\): \S")


def cells(name):
    return nbtools.read(ROOT / "source" / "maskdiff" / name).cells


def points(cell):
    return nbtools.nbgrader(cell).get("points", 0) if nbtools.nbgrader(cell).get("grade") else 0


def manual_cells(name):
    """[(grade_id, points, cell type)] of the cells a person grades, in notebook order."""
    return [(nbtools.grade_id(c), points(c), c.cell_type) for c in cells(name) if nbtools.is_manual(c)]


def autograded_points(name):
    return sum(points(c) for c in cells(name) if not nbtools.is_manual(c))


def readme():
    """The README and the docs site's pages (tests/support/docs.py): what instructors read."""
    return site()


def contributing():
    return (ROOT / "CONTRIBUTING.md").read_text()


def grader_limits():
    """(seconds per cell, seconds per notebook) as the grader applies them."""
    config = Config()
    exec((ROOT / "nbgrader_config.py").read_text(), {"get_config": lambda: config})
    return config.Execute.timeout, SurvivingExecute.notebook_timeout.default_value


# ---------------------------------------------------------------- points and manual cells

def readme_points_table():
    """{notebook number: (autograded, by a person, [grade_ids])} of the README's table."""
    rows = re.findall(r"^\s*\| (\d\d) \| (\d+) \| (\d+) \| (.*) \|$", readme(), flags=re.MULTILINE)
    return {n: (int(auto), int(manual), re.findall(r"`(\w+)`", ids)) for n, auto, manual, ids in rows}


def test_the_readme_states_each_notebooks_points_and_manual_cells():
    table = readme_points_table()
    assert sorted(table) == [name[:2] for name in NOTEBOOKS], "one row per notebook in the README's table"
    for name in NOTEBOOKS:
        manual = manual_cells(name)
        want = (autograded_points(name), sum(p for _, p, _ in manual), [gid for gid, _, _ in manual])
        assert table[name[:2]] == want, f"README's row for {name}: {table[name[:2]]}, the notebook: {want}"


def test_the_readme_names_every_person_graded_code_cell():
    """Issue 23: the README said only written answers are left to a person."""
    text = one_line(readme())
    manual = text[text.index("## 4. Grade by hand"):]
    assert "only written answers" not in text
    for name in NOTEBOOKS:
        for gid, _, kind in manual_cells(name):
            if kind == "code":
                assert f"`{gid}`" in manual[:600], f"the README's manual grading step should name {gid}"


def test_contributing_lists_exactly_the_manual_cells():
    section = contributing()[contributing().index("## Manually graded cells"):]
    listed = {(n, gid): int(p) for n, gid, p in
              re.findall(r"^\| (\d\d) \| `(\w+)` \| (\d+) \|", section, flags=re.MULTILINE)}
    want = {(name[:2], gid): p for name in NOTEBOOKS for gid, p, _ in manual_cells(name)}
    assert listed == want
    code = [gid for name in NOTEBOOKS for gid, _, kind in manual_cells(name) if kind == "code"]
    bullet = one_line(contributing())
    bullet = bullet[bullet.index("- A manually graded code cell"):][:300]
    assert all(f"`{gid}`" in bullet for gid in code), "CONTRIBUTING names every manually graded code cell"


# ---------------------------------------------------------------- time limits

def test_the_docs_state_the_graders_time_limits():
    """CONTRIBUTING once said a whole submission may take 60 s; the grader's limits are per cell and
    per notebook."""
    cell, notebook = grader_limits()
    text = one_line(contributing())
    assert f"{cell} s per cell" in text and f"{notebook} s per notebook" in text
    assert "60 s a whole submission may take" not in text
    assert f"Each cell may run {cell} s and each notebook {notebook} s" in one_line(readme())


# ---------------------------------------------------------------- command-line tests

def test_contributing_names_every_file_that_tests_the_command_line():
    text = one_line(contributing())
    start = text.index("The command line is tested in the file of its command")
    sentence = text[start:text.index("same commit", start)]
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name != Path(__file__).name and "cli.main([" in path.read_text():
            name = path.relative_to(ROOT).as_posix()
            assert f"`{name}`" in sentence, f"{name} tests the command line"


def test_contributing_maps_every_test_file_in_its_folder():
    """CONTRIBUTING's map of the tests: each folder's row names every test file in it, and no other."""
    rows = dict(re.findall(r"^\| `tests/(\w+)/` \| (.*) \|$", contributing(), flags=re.MULTILINE))
    assert set(rows) == {"reference", "grading", "course"}
    for folder, row in rows.items():
        named = set(re.findall(r"`(test_\w+\.py)`", row))
        present = {p.name for p in (ROOT / "tests" / folder).rglob("test_*.py")}   # tests/course/<wing>/ too
        assert named == present, f"tests/{folder}/: the map lacks {present - named}, names {named - present}"
    wings = {p.name for p in (ROOT / "maskdiff_solutions" / "course").iterdir() if (p / "__init__.py").is_file()}
    mirrored = {p.name for p in (ROOT / "tests" / "course").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert mirrored <= wings, f"tests/course/ folders that are no wing of course/: {mirrored - wings}"


# ---------------------------------------------------------------- the notebooks' own headings

def sections(name):
    """[(heading cell, [cells up to the next heading or task])] for every *Graded* heading."""
    nb = cells(name)
    out = []
    for k, cell in enumerate(nb):
        if cell.cell_type == "markdown" and GRADED.search(cell.source):
            end = next((j for j in range(k + 1, len(nb))
                        if nb[j].cell_type == "markdown" and (HEADING.search(nb[j].source)
                                                              or "**Your task.**" in nb[j].source)), len(nb))
            out.append((cell, nb[k + 1:end]))
    return out


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_graded_heading_states_its_points(name):
    for heading, body in sections(name):
        line = GRADED.search(heading.source).group(0)
        stated = STATED.match(line)
        assert stated, f"{name}: {line!r} should read '### Graded (N points): ...'"
        total = points(heading) + sum(points(c) for c in body)
        assert int(stated.group(1)) == total, f"{name}: {line!r} but its cells carry {total} points"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_written_answers_get_one_point_per_question(name):
    for heading, body in sections(name):
        asked = heading.source
        for cell in body:
            if nbtools.is_manual(cell) and cell.cell_type == "markdown":
                questions = len(re.findall(r"^\d+\. ", asked, flags=re.MULTILINE))
                if points(cell) > 1:
                    assert questions == points(cell), \
                        f"{name}: {nbtools.grade_id(cell)} is worth {points(cell)} points for {questions} questions"
                    assert "one per question" in asked or "one point each" in asked, \
                        f"{name}: say the points per question of {nbtools.grade_id(cell)}"
            elif cell.cell_type == "markdown":
                asked += "\n" + cell.source


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_person_graded_code_says_keep_your_output(name):
    for heading, body in sections(name):
        if any(nbtools.is_manual(c) and c.cell_type == "code" for c in body):
            assert "by a person from your own run" in GRADED.search(heading.source).group(0)
            assert "keep its output" in one_line(heading.source)


def test_no_notebook_calls_a_graded_task_optional():
    """Issue 23: DiffusionLossPrompt was 'optional' while its point counted in the maximum. A part
    headed optional carries no points."""
    for name in NOTEBOOKS:
        nb = cells(name)
        for k, cell in enumerate(nb):
            if cell.cell_type != "markdown":
                continue
            assert "(optional:" not in cell.source.lower(), f"{name}: {cell.source[:80]!r}"
            if any("optional" in line.lower() for line in cell.source.splitlines() if HEADING.match(line)):
                end = next((j for j in range(k + 1, len(nb))
                            if nb[j].cell_type == "markdown" and HEADING.search(nb[j].source)), len(nb))
                assert not any(points(c) for c in nb[k:end]), f"{name}: an optional part carries points"


def test_notebook_02_names_the_impossible_sentences():
    """Its first cell's 'sentences that should never exist' are the two mixed ones."""
    first = one_line(cells("02_undiffusing.ipynb")[0].source)
    named = re.findall(r"a (\w+) that is (\w+)", first)
    assert len(named) == 2
    real = {sentence for sentence, _ in TWO_WORLD}
    for noun, state in named:
        assert noun in VOCAB and state in VOCAB
        assert f"the {noun} is {state}" not in real, f"'the {noun} is {state}' is a real sentence"


def test_notebooks_02_and_04_count_position_2_alike():
    """Issue 53: the Bayes table of notebook 04 asks for "position 2", which a student could take for an
    index. Both notebooks say it in code, `GuessX0_two(x...)[1`, the index of the word where cat and box
    differ, masked in the three sentences of notebook 04's table."""
    for name in ("02_undiffusing.ipynb", "04_training.ipynb"):
        said = [one_line(c.source) for c in cells(name) if c.cell_type == "markdown" and "position 2" in c.source]
        assert any(re.search(r"GuessX0_two\(x(?:_t)?\)\[1\b", text) for text in said), name
    assert "index 1" in next(text for text in (one_line(c.source) for c in cells("04_training.ipynb"))
                             if text.startswith("### Graded") and "has it learned Bayes" in text)
    words = {sentence.split()[1] for sentence, _ in TWO_WORLD}
    assert words == {"cat", "box"}, words
    for pattern in ("_ _ _ _", "_ _ is alive", "the _ _ empty"):
        assert pattern.split()[1] == "_", pattern


# ---------------------------------------------------------------- the README holds to the code

README = readme()


def test_the_readme_quotes_the_torch_that_setup_installs():
    pin = re.search(r"^TORCH=torch==([\d.]+)$", (ROOT / ".ci" / "setup").read_text(), re.M).group(1)
    assert f"torch {pin} if no torch is installed" in README


def test_the_readme_documents_every_command_and_the_console_script():
    commands = cli.parser()._subparsers._group_actions[0].choices
    for command in commands:
        assert f"python -m maskdiff_solutions {command}" in README, command
    assert "`maskdiff`" in README and 'maskdiff = "maskdiff_solutions.course.cli:main"' in \
        (ROOT / "pyproject.toml").read_text()


def test_the_readme_names_every_column_of_our_grades_file():
    from dataclasses import fields
    assert CSV_NAME in README
    for field in fields(Row):
        assert f"`{field.name}`" in README, field.name


def test_the_readme_quotes_the_handed_in_budgets_and_settings():
    from maskdiff_solutions.course.records import handed_in
    from maskdiff_solutions.course.layout import SETTINGS
    assert (f"{handed_in.MAX_OUTPUTS} outputs and {handed_in.MAX_CELL_CHARS:,} characters per cell, "
            f"{handed_in.MAX_NOTEBOOK_CHARS:,} per notebook") in one_line(README)
    for setting in SETTINGS:
        assert f"`{setting}`" in README, setting
    assert handed_in.STUDENT_LABEL.split(".")[0].strip("*") in README
    assert "Re-run by the grader" in handed_in.RERUN_LABEL and "Re-run by the grader" in README
    assert handed_in.FOR_STUDENT[handed_in.STUDENT_LABEL].split(".")[0].strip("*") in one_line(README)


def figures(text):
    return set(re.findall(r"\d+(?:\.\d+)?", text))


# What an instructor's page must not hold: CI's internals, in-house references and benchmark figures
# (they stay in CONTRIBUTING.md and BENCHMARKS.md, issue 36).
INTERNALS = (".ci/run", ".ci/old_transformers", ".ci/unprivileged", "2-core", "load average",
             "BENCHMARKS", "pytest-xdist", "loadgroup")


def test_the_instructors_pages_hold_no_ci_internals_nor_benchmark_figures():
    for name, text in {"README.md": (ROOT / "README.md").read_text(), **pages()}.items():
        if name == "authoring.md":  # CONTRIBUTING, for course authors: CI is theirs
            continue
        body = text if name != "README.md" else text[:text.index("Timings and how they were measured")]
        found = [word for word in INTERNALS if word in body] + re.findall(r"\bissue \d+", body)
        assert not found, (name, found)


def source(course, name):
    return nbtools.read(course.source_dir / name)


def manual_cells_table():
    """{(notebook number, grade_id): points} of CONTRIBUTING.md's table of manually graded cells."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text[text.index("## Manually graded cells"):]
    rows = re.findall(r"^\| (\d\d) \| `(\w+)` \| (\d+) \|", section, flags=re.MULTILINE)
    return {(number, gid): int(points) for number, gid, points in rows}


def test_contributing_lists_the_manually_graded_cells(course):
    listed = manual_cells_table()
    assert listed, "CONTRIBUTING.md has no table of manually graded cells"
    for name in NOTEBOOKS:
        manual = {(name[:2], nbtools.grade_id(c)): (nbtools.nbgrader(c)["points"], c.cell_type)
                  for c in source(course, name).cells if nbtools.is_manual(c)}
        for key, points in listed.items():
            if key[0] == name[:2]:
                assert key in manual and manual[key][0] == points, \
                    f"CONTRIBUTING.md lists {key[1]} ({points} points), not a manual cell of {name} with those points"
        for key in manual:
            assert key in listed, f"{name}: manual cell {key[1]} is missing from CONTRIBUTING.md's table"


def test_every_command_in_the_docs_is_one_the_cli_takes():
    """Every `python -m maskdiff_solutions` line of the README and the docs' pages (the platform pages
    each linked from the README) parses with the command line's own parser: an option renamed breaks
    this test."""
    import shlex
    platforms = sorted((ROOT / "docs" / "platforms").glob("*.md"))
    assert {p.stem for p in platforms} >= {"canvas", "moodle", "gradescope", "nbgrader"}
    assert all(f"(docs/platforms/{page.name})" in (ROOT / "README.md").read_text() for page in platforms)
    for name, text in {"README.md": (ROOT / "README.md").read_text(), **pages()}.items():
        lines = [re.split(r"\s#\s", line.strip())[0] for line in text.splitlines()
                 if line.strip().startswith("python -m maskdiff_solutions ")]
        assert lines or name not in {f"platforms/{p.name}" for p in platforms}, name
        for line in lines:
            if "[-h]" not in line:  # the reference's usage lines are argparse's own
                cli.parser().parse_args(shlex.split(line)[3:])  # SystemExit on anything it does not take


def test_the_readme_states_what_each_exit_status_of_grade_means():
    assert "grade` exits with status 0 when every student got a row, whatever their marks" in README
    for code, meaning in cli.GRADE_EXIT.items():
        words = meaning.split(":")[0].split("(")[0].strip()
        assert words.split()[0] in README and str(code) in README, (code, words)
    assert 'their rows say "grading crashed"' in one_line(README)


def test_the_pages_read_whole_as_plain_markdown():
    """On GitHub as on the site: the reference's tables are committed as the code makes them (not left
    to the site's build), and no page but Course authoring (this repository's CONTRIBUTING.md, which
    GitHub shows as it is) includes another file."""
    from maskdiff_solutions.course.cli_reference import MARKERS, fill
    page = (ROOT / "docs" / "reference.md").read_text()
    assert all(start in page and end in page for start, end in MARKERS)
    assert fill(page) == page, ("docs/reference.md's tables are stale: python -m "
                                "maskdiff_solutions.course.cli_reference docs/reference.md")
    including = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md") if "--8<--" in p.read_text())
    assert including == ["docs/authoring.md"], including
