"""MkDocs hook: the reference page's markers become the tables the code makes (every command and
option from the CLI's parser, every setting from the tables that check them), so they cannot drift."""
from maskdiff_solutions.course.cli_reference import fill


def on_page_markdown(markdown, page, config, files):
    return fill(markdown)
