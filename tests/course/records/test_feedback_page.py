"""The feedback page's markdown (maskdiff_solutions/course/records/feedback.py), without a grading: maths as
escaped MathML, every formula of the course readable, nothing on the page fetched from the web.
The whole page in a browser: tests/course/records/test_handed_in.py."""
import html
import re

import pytest
from nbconvert.filters.markdown_mistune import MarkdownWithMath

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.records.feedback import MathMLRenderer, mathml

pytestmark = pytest.mark.course
BADGE = ("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
         "(https://colab.research.google.com/github/someone/course/blob/main/01.ipynb)")
TINY_PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def render(source):
    return MarkdownWithMath(renderer=MathMLRenderer(escape=False)).render(source)


@pytest.mark.parametrize("tex", [r"\text{<script>alert(1)</script>}", r"a < b \text{ & } c",
                                 r"\mathrm{<img src=x onerror=alert(1)>}"])
def test_text_inside_maths_stays_text(tex):
    out = mathml(tex, display=False)
    assert out.startswith("<math") and "<script" not in out and "<img" not in out, out


@pytest.mark.parametrize("tex", [r"\frac{1}{", r"x^", r"\left( x <b>"])
def test_tex_it_cannot_read_is_shown_as_code(tex):
    assert mathml(tex, display=True) == f"<code>{html.escape(tex)}</code>"


def test_every_formula_of_the_course_becomes_mathml(course):
    """Each $...$ and $$...$$ of the source notebooks' markdown renders as a <math> element."""
    formulas = 0
    for name in course.notebooks():
        for cell in notebooks.read(course.source_dir / name).cells:
            if cell.cell_type != "markdown":
                continue
            out = render(cell.source)
            formulas += out.count("<math")
            assert "<code>\\" not in out and not re.search(r"(?<!\\)\$[^$\s]", re.sub(r"<[^>]+>", "", out)), \
                (name, cell.source[:200])
    assert formulas > 100


def test_a_picture_on_the_web_is_shown_as_its_words():
    out = render(BADGE)
    assert "<img" not in out and ">Open In Colab</span>" in out
    assert 'href="https://colab.research.google.com/github/someone/course' in out   # the link still works
    out = render('![a "chart" <b>of</b> loss](HTTPS://example.org/a.png?x=1&y=2)')
    assert "<img" not in out and "<b>" not in out and "chart" in out and "loss" in out


def test_a_picture_carried_in_the_notebook_stays_a_picture():
    out = render(f"![tiny]({TINY_PNG})")
    assert out.count("<img") == 1 and 'alt="tiny"' in out
