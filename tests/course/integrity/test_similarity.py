"""`similarity` (course/integrity/similarity.py, similarity_page.py) on a small class written to disk
without a kernel (tests/support/similar_class.py): the pair that copied and renamed first, the three
own solutions far below, the students who left the stubs sharing nothing, the page escaped and
self-contained, a broken notebook noted and left out; through the command line too."""
import csv
from html.parser import HTMLParser

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.integrity import similarity as sim
from maskdiff_solutions.course.integrity.similarity_page import report
from tests.support import similar_class as klass

pytestmark = pytest.mark.course
STEM = klass.NOTEBOOK.removesuffix(".ipynb")


@pytest.fixture(scope="module")
def compared(course, tmp_path_factory):
    """The class compared once, code and written answers: (workspace, Comparison, page, CSV)."""
    workspace = tmp_path_factory.mktemp("class")
    klass.write(course, workspace)
    return (workspace, *report(course, workspace, answers=True))


def unit(result, part=sim.CODE):
    return next(u for u in result.units if (u.notebook, u.part) == (STEM, part))


def others(pairs):
    return [p for p in pairs if (p.a, p.b) != klass.COPYING]


def test_the_pair_that_copied_and_renamed_ranks_first(compared):
    _, result, _, _ = compared
    for pairs in (result.overall[sim.CODE], unit(result).pairs):
        first = pairs[0]
        assert (first.a, first.b) == klass.COPYING, pairs[:3]
        assert first.share_a > 0.9 and first.share_b > 0.9, first
        # the three own solutions, and ana's and ben's against them: a line or two in common at most
        assert all(p.share < 0.2 for p in others(pairs)), others(pairs)
        assert first.share > 4 * max(p.share for p in others(pairs))


def test_students_who_left_the_stubs_share_nothing(course, compared):
    _, result, _, _ = compared
    code = unit(result)
    for student in klass.STUBS:
        assert code.parts[student].tokens == 0, student   # handed in, nothing beyond the release
    assert not [p for u in result.units for p in u.pairs if {p.a, p.b} & set(klass.STUBS)]
    # the release's code as copydetect's boilerplate is what clears them: without it, the stubs match
    plain = [{int(h) for c in code.parts[s].cells for h in sim.fingerprint(c.text, sim.CODE).hashes}
             for s in klass.STUBS]
    assert len(plain[0] & plain[1]) > 20


def test_the_written_answers_are_compared_only_when_asked(course, compared, tmp_path):
    workspace, result, _, _ = compared
    answers = unit(result, sim.ANSWERS)
    assert [(p.a, p.b) for p in answers.pairs[:1]] == [klass.COPYING] and answers.pairs[0].share == 1.0
    assert all(answers.parts[s].tokens == 0 for s in klass.STUBS)   # "YOUR ANSWER HERE" is the release's
    assert all(p.share < 0.2 for p in others(answers.pairs))
    plain = sim.compare(course, workspace)
    assert {u.part for u in plain.units} == {sim.CODE} and list(plain.overall) == [sim.CODE]


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs += attrs


def test_the_page_is_escaped_and_fetches_nothing(compared):
    _, _, page, _ = compared
    text = page.read_text()
    parsed = Tags()
    parsed.feed(text)
    assert parsed.tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "strong", "em", "ul",
                           "li", "table", "tr", "th", "td", "a", "details", "summary", "pre", "mark"}, parsed.tags
    assert {name for name, _ in parsed.attrs} <= {"lang", "charset", "class", "id", "href", "open"}
    assert all(value.startswith("#") for name, value in parsed.attrs if name == "href")
    assert "url(" not in text and "@import" not in text
    # what students wrote, and their names, shown as text
    assert "&lt;/pre&gt;&lt;script&gt;alert(&quot;ana&quot;)&lt;/script&gt;&lt;img src=x" in text
    assert "Ben &lt;b&gt;Bold&lt;/b&gt; &amp; Co (ben)" in text and "Ana Lopez (ana)" in text
    assert "&lt;b&gt;simulated&lt;/b&gt;" in text
    assert "<mark>" in text and "never a verdict" in text


def test_a_broken_notebook_is_noted_and_left_out(compared):
    _, result, page, table = compared
    assert [note.split(":")[0] for note in result.notes] == [f"{klass.BROKEN} {klass.NOTEBOOK}"]
    assert "not JSON" in result.notes[0] and f"{klass.BROKEN} {klass.NOTEBOOK}: left out" in page.read_text()
    assert klass.BROKEN not in unit(result).parts and klass.BROKEN not in table.read_text()


def test_the_csv_holds_every_pair_that_shares_anything(compared):
    _, result, _, table = compared
    with open(table, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == sim.CSV_FIELDS
    first = rows[0]
    assert (first["student_a"], first["student_b"], first["notebook"], first["part"]) == (*klass.COPYING, sim.ALL, sim.CODE)
    assert first["name_b"] == klass.NAMES["ben"] and float(first["similarity_a"]) > 0.9
    assert int(first["matched_tokens_a"]) <= int(first["tokens_a"])
    assert len(rows) == sum(len(pairs) for pairs in result.overall.values()) + sum(len(u.pairs) for u in result.units)
    assert {r["notebook"] for r in rows} == {sim.ALL, STEM}


def test_the_command_writes_the_page_and_the_csv(course, compared, tmp_path, capsys):
    workspace = compared[0]
    out = tmp_path / "out"
    status = cli.main(["similarity", "--course-dir", str(course.root), "--workspace", str(workspace),
                       "--notebook", "01", "--out", str(out), "--top", "2"])
    said = capsys.readouterr()
    assert status == 0, said.err
    assert (out / sim.REPORT).is_file() and (out / sim.CSV_NAME).is_file()
    assert "code: Ana Lopez (ana) and Ben <b>Bold</b> & Co (ben)" in said.out.splitlines()[1]
    assert f"{klass.BROKEN} {klass.NOTEBOOK}: left out, not JSON" in said.err
    assert (out / sim.REPORT).read_text().count("<details") == 2   # --top 2: one table, two pairs shown


def test_a_folder_that_was_never_graded_stops_the_command(course, tmp_path, capsys):
    status = cli.main(["similarity", "--course-dir", str(course.root), "--workspace", str(tmp_path)])
    assert status == 2 and "submitted does not exist" in capsys.readouterr().err
    assert not (tmp_path / sim.FOLDER).exists()


def test_code_a_cell_repeats_counts_in_full(course):
    """The release is taken out of each fingerprint by hand: copydetect 0.5.0's own `boilerplate`
    argument also drops one of every fingerprint a cell repeats (70 tokens counted as 59 here)."""
    given = sim.boilerplate(course, sim.CODE)
    twice = ("def A(x):\n    return torch.where(x > 3, torch.zeros_like(x), x * 2 + 1)\n"
             "def B(y):\n    return torch.where(y > 3, torch.zeros_like(y), y * 2 + 1)\n")
    alone = sim.fingerprint(twice, sim.CODE)
    assert given and not {int(h) for h in alone.hashes} & given
    assert sim.fingerprint(twice, sim.CODE, given).token_coverage == alone.token_coverage == 70
