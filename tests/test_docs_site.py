"""The docs site (mkdocs.yml, docs/): it builds with warnings as errors (a broken internal link or
anchor is one), its reference holds every command and option of the parser, the README is the short
entrance, and every link the README and the pages make to a file of this repository resolves."""
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from maskdiff_solutions.course import cli_reference
from tests.support.docs import DOCS, ROOT, pages

LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if shutil.which("mkdocs") is None and subprocess.run([sys.executable, "-m", "mkdocs", "--version"],
                                                         capture_output=True).returncode:
        pytest.fail("mkdocs is not installed: bash .ci/setup installs it (requirements.txt)")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_site_builds_with_warnings_as_errors(built):
    assert (built / "index.html").is_file() and (built / "reference" / "index.html").is_file()


def test_the_reference_holds_every_command_and_option_of_the_parser(built):
    html = unescape((built / "reference" / "index.html").read_text())
    for name, (parser, _) in cli_reference.commands().items():
        assert f"python -m maskdiff_solutions {name} [-h]" in html, name
        for action in parser._actions:
            for flag in action.option_strings:
                assert flag in html, (name, flag)
        for code in cli_reference.cli.EXIT[name]:
            assert re.search(rf"<td>{code}</td>\s*<td>", html), (name, code)


def test_every_command_states_its_exit_statuses():
    assert set(cli_reference.cli.EXIT) == set(cli_reference.commands())


def test_the_readme_is_the_short_entrance():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 120
    assert "python -m maskdiff_solutions demo" in readme and "python -m pytest" in readme
    assert "(docs/images/feedback.png)" in readme and (DOCS / "images" / "feedback.png").is_file()
    for page in ("getting-started", "teaching", "grading", "grading-at-scale", "security", "reference", "authoring"):
        assert f"(docs/{page}.md)" in readme, page


def test_every_link_to_a_file_of_the_repository_resolves():
    """The site's build checks the pages' links among themselves; this also checks the README's, as
    GitHub shows them."""
    sources = {ROOT / "README.md": (ROOT / "README.md").read_text(),
               **{DOCS / name: text for name, text in pages().items()}}
    for path, text in sources.items():
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            assert (path.parent / target.split("#")[0]).exists(), (path.name, target)


def test_the_authoring_page_is_contributing():
    assert '--8<-- "CONTRIBUTING.md"' in (DOCS / "authoring.md").read_text()
