"""What this machine has for the course, in a few lines: the closing summary of `.ci/setup` and the
`check-setup` command. Every line is read off the running interpreter, never assumed."""
import importlib.metadata
import os
import pwd
import shutil
import sys

from ..layout import HIDDEN_PACKAGE, PACKAGE_PARENT
from ..sandbox import settings


def summary():
    """[(what, how it stands)], in the order an instructor asks: which Python, which torch, nbgrader,
    copydetect (`similarity`), vegafusion and vl-convert-python (altair charts worked out in the
    browser), which copy of the hidden checks it imports, and whether the sandbox works for the user who
    will grade."""
    return [("python", f"{sys.version.split()[0]} at {sys.executable}" + (" (a virtual environment)"
                                                                          if sys.prefix != sys.base_prefix else "")),
            ("torch", _torch()),
            ("transformers", _version("transformers")),
            ("nbgrader", _version("nbgrader")),
            ("copydetect", _version("copydetect")),
            ("vegafusion", _version("vegafusion")),
            ("vl-convert-python", _version("vl-convert-python")),
            ("checks", f"{PACKAGE_PARENT / HIDDEN_PACKAGE} (the copy of the hidden checks this Python imports here)"),
            ("sandbox", _sandbox())]


def _version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "MISSING (pip install -r requirements.txt)"


def _torch():
    try:
        import torch
    except ImportError as err:
        return f"MISSING ({err})"
    if torch.cuda.is_available():
        return f"{torch.__version__}, GPU: {torch.cuda.get_device_name(0)}"
    build = "a CUDA build, no GPU here" if torch.version.cuda else "a CPU build"
    return f"{torch.__version__}, CPU only ({build})"


def _sandbox():
    user = pwd.getpwuid(os.geteuid()).pw_name
    works, why = settings.available()
    if works:
        how = "a uid per sandbox, as root" if os.geteuid() == 0 else "user namespaces"
        return f"bubblewrap {shutil.which('bwrap')} works for {user} ({how})"
    if os.geteuid() == 0:
        return f"NOT WORKING for {user}: {why}; grade stops unless told --sandbox off (students' code would run as root)"
    return f"NOT WORKING for {user}: {why}; grading would run without one (grade --sandbox required refuses)"


def problems(lines):
    """The lines that stop a course from being graded here (the sandbox is a warning, not a stop)."""
    return [what for what, said in lines if said.startswith("MISSING")]


def print_summary(stream=sys.stdout):
    lines = summary()
    width = max(len(what) for what, _ in lines)
    for what, said in lines:
        print(f"  {what:<{width}}  {said}", file=stream)
    return 1 if problems(lines) else 0
