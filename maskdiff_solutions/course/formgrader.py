"""`formgrader [--workspace DIR]`: nbgrader's formgrader on a workspace's gradebook, where a person grades
the written answers and the drawings to review.

Formgrader reads its course from the nbgrader_config.py of the folder Jupyter starts in, and opens the
gradebook.db there: started at the course root it shows the course root's grading, and for a grading in
`--workspace grading/week1` nothing (it even makes an empty gradebook at the root). So for a workspace
other than the course root this command writes WORKSPACE/nbgrader_config.py (the course's configuration,
with the workspace as nbgrader's course directory, the course's source/ and release/, and the workspace's
gradebook), then starts JupyterLab there; `--print` only says how. From then on plain `nbgrader`
commands run in that folder read that workspace too.
"""
import os
import shlex
import sys

from .layout import COURSE_ID
from .term import whole

CONFIG = "nbgrader_config.py"
WRITTEN = "# Written by `python -m maskdiff_solutions formgrader`"
TEMPLATE = WRITTEN + """: this workspace as nbgrader's course directory, so that
# formgrader (JupyterLab started here) and plain `nbgrader` commands run here read its gradebook. The command
# writes it again each time it runs.
c = get_config()  # noqa: F821 - provided by nbgrader
load_subconfig({course_config!r})  # noqa: F821 - the course's own settings first
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = {root!r}
c.CourseDirectory.source_directory = {source!r}
c.CourseDirectory.release_directory = {release!r}
c.CourseDirectory.db_url = {db_url!r}
"""


def config_text(course, workspace):
    return TEMPLATE.format(course_config=str(course.root / CONFIG), course_id=COURSE_ID, root=str(workspace),
                           source=str(course.root / "source"), release=str(course.root / "release"),
                           db_url=f"sqlite:///{workspace / 'gradebook.db'}")


def prepare(course, workspace):
    """The folder to start JupyterLab in for `workspace`, its nbgrader_config.py written where needed.
    Stops where the workspace holds no grading, or an nbgrader_config.py of someone else's."""
    workspace = course.workspace(workspace)
    if not (workspace / "gradebook.db").is_file():
        raise FileNotFoundError(f"no grading in {workspace} (it has no gradebook.db): formgrader shows a "
                                f"workspace `grade` wrote; grade first, or name it with --workspace DIR")
    if workspace == course.root:
        return workspace
    config = workspace / CONFIG
    if config.is_file() and not config.read_text(errors="replace").startswith(WRITTEN):
        raise FileExistsError(f"{config} was not written by this command, and formgrader needs its own there: "
                              f"move it away, then run formgrader again")
    whole.write_text(config, config_text(course, workspace))
    return workspace


def command(folder, port=None, browser=True):
    """JupyterLab's command line, started in folder."""
    argv = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}"]
    if port:
        argv.append(f"--ServerApp.port={port}")
    if not browser:
        argv.append("--no-browser")
    if os.geteuid() == 0:   # Jupyter refuses root unless told: whoever grades as root chose to
        argv.append("--allow-root")
    return argv


def start(course, workspace, port=None, browser=True, only_print=False):
    """Start formgrader on the workspace (replacing this process), or print how with only_print."""
    folder = prepare(course, workspace)
    argv = command(folder, port, browser)
    where = shlex.quote(str(folder))
    print(f"formgrader on the gradebook of {folder}:\n  cd {where} && {shlex.join(['jupyter', 'lab', *argv[3:]])}\n"
          f"then JupyterLab's menu Nbgrader > Formgrader (or /formgrader at the address it prints); when the "
          f"grading by hand is done: python -m maskdiff_solutions export --workspace {where}")
    if only_print:
        return 0
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(folder)
    os.execv(argv[0], argv)
