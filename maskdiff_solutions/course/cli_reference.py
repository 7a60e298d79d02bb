"""The docs site's reference pages, made from the code when the site is built (docs/hooks.py): every
command and option from the command line's own parser, every exit status from cli.EXIT, every
pyproject.toml setting from the tables that check them. So the reference cannot drift from the code."""
import argparse
import dataclasses

from . import cli, layout
from .sandbox import settings
from .term import gradescope


def commands():
    """{name: (its parser, its one-line help)}, in the order `--help` lists them."""
    root = cli.parser()
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    helps = {action.dest: action.help for action in sub._choices_actions}
    return {name: (parser, helps[name]) for name, parser in sub.choices.items()}


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _option(action):
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    flags = ", ".join(action.option_strings)
    if action.nargs == 0:
        return f"`{flags}`"
    return f"`{flags} {action.metavar or action.dest.upper()}`"


def _default(action):
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS) or not action.option_strings:
        return ""
    return f"`{action.default}`"


def options_table(parser):
    rows = ["| option | default | what it does |", "| --- | --- | --- |"]
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        help_text = action.help or ""
        if action.choices and action.option_strings:
            help_text += f" (one of: {', '.join(map(str, action.choices))})"
        if isinstance(action, argparse._AppendAction):
            help_text += " (may be repeated)"
        rows.append(f"| {_option(action)} | {_default(action)} | {_cell(help_text)} |")
    return rows


def exit_table(name):
    return ["| exit status | means |", "| --- | --- |"] + [f"| {code} | {_cell(meaning)} |"
                                                          for code, meaning in cli.EXIT[name].items()]


def commands_markdown():
    """The commands, each with its usage, options and exit statuses, as Markdown."""
    lines = []
    for name, (parser, help_text) in commands().items():
        usage = " ".join(parser.format_usage().split())  # one line, as argparse would wrap it anyway
        lines += [f"## `{name}`", "", help_text[0].upper() + help_text[1:] + ".", "",
                  "```", usage.removeprefix("usage: "), "```", "", *options_table(parser), "",
                  *exit_table(name), ""]
    return "\n".join(lines)


def settings_markdown():
    """pyproject.toml's [tool.maskdiff] tables, from the dictionaries that check them."""
    lines = ["### `[tool.maskdiff]`", "", "| setting | valid values | what it is |", "| --- | --- | --- |"]
    lines += [f"| `{key}` | `{_cell(pattern)}` | {_cell(meaning)} |" for key, (pattern, meaning) in layout.SETTINGS.items()]
    lines += ["", "### `[tool.maskdiff.sandbox]`", "",
              "Limits per student kernel; `MASKDIFF_SANDBOX_LIMITS` (a JSON object) overrides them for one run.", "",
              "| setting | default | what it caps |", "| --- | --- | --- |"]
    lines += [f"| `{f.name}` | `{f.default}` | {_cell(f.metadata['doc'])} |" for f in dataclasses.fields(settings.Limits)]
    lines += ["", "### `[tool.maskdiff.gradescope]`", "", "| setting | default | one of |", "| --- | --- | --- |"]
    lines += [f"| `{key}` | `{default}` | {', '.join(f'`{c}`' for c in gradescope.CHOICES[key])} |"
              for key, default in gradescope.DEFAULTS.items()]
    return "\n".join(lines) + "\n"


# A block between a start marker and its end holds the tables: committed, so that the page reads whole
# as plain Markdown (on GitHub too), and made again by every site build, so it cannot drift (a test
# holds the committed block to the code: `python -m maskdiff_solutions.course.cli_reference PAGE`
# rewrites it).
MARKERS = {("<!-- commands: made from the parser -->", "<!-- end of the commands -->"): commands_markdown,
           ("<!-- settings: made from the code -->", "<!-- end of the settings -->"): settings_markdown}


def fill(markdown):
    """A page with each marked block (or a lone start marker) holding what it stands for."""
    for (start, end), make in MARKERS.items():
        if start not in markdown:
            continue
        before, _, after = markdown.partition(start)
        after = after.partition(end)[2] if end in after else after
        markdown = f"{before}{start}\n\n{make().strip()}\n\n{end}{after}"
    return markdown


if __name__ == "__main__":
    import sys
    from pathlib import Path
    for name in sys.argv[1:]:
        Path(name).write_text(fill(Path(name).read_text()))
