"""The grader's stand-in for Colab's `google.colab` (maskdiff_client/stand_ins/README.md): what students
call in ordinary cells does what it harmlessly can under the grader and says so on stderr, never on
the printout a check reads. drive.mount makes a scratch folder, files.upload returns no files,
files.download does nothing, output and data_table show what they are given; nothing reaches a network
or the student's Drive."""
import sys

GRADER = True   # a cell may ask: `getattr(google.colab, "GRADER", False)`


def note(text):
    print(f"[google.colab under the grader] {text}", file=sys.stderr)


def __getattr__(name):   # `import google.colab; google.colab.drive.mount(...)`
    import importlib
    if name in ("auth", "data_table", "drive", "files", "output", "userdata", "widgets"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"the grader's stand-in for google.colab has no {name!r}; the cell needs Colab itself")
