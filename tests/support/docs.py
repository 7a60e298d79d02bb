"""The instructors' documentation as a reader sees it: the README (the entrance) and the pages of
the docs site, the reference's generated tables filled in as `mkdocs build` fills them. Tests hold
the numbers and names in it to the code."""
from pathlib import Path

from maskdiff_solutions.course.cli_reference import fill

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def pages():
    """{path relative to docs/: its Markdown, filled}."""
    return {str(path.relative_to(DOCS)): fill(path.read_text()) for path in sorted(DOCS.rglob("*.md"))}


def page(name):
    return fill((DOCS / name).read_text())


def site():
    """The README and every page, one after another."""
    return "\n\n".join([(ROOT / "README.md").read_text(), *pages().values()])


def one_line(text):
    return " ".join(text.split())


def demo_output():
    """The demo's printout as Getting started shows it (the fenced block of its totals)."""
    import re
    blocks = re.findall(r"^```text\n(.*?)^```", (DOCS / "getting-started.md").read_text(), re.MULTILINE | re.DOTALL)
    return next(block for block in blocks if "autograded points" in block)
