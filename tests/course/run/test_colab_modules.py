"""A notebook whose cells use Colab's own modules, or draw with its other plotting libraries (plotly,
altair), grades as it runs on Colab, through the command line in the sandbox: Drive mounted and a
figure saved there, a file "uploaded" and one "downloaded"
(maskdiff_client/stand_ins: google.colab under the grader, /content a scratch folder of the sandbox's),
and shell lines that install with pip fail at once instead of retrying a network there is none of.
Both hand in the `drawing_reader.py` their set-up cell fetched beside the notebook (a Jupyter
student's folder holds it): imported under the grader, its recorder must not blind the grader's."""
import csv

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.sandbox.settings import available
from maskdiff_solutions.course.term.reader import reader_text
from tests.support import exports

pytestmark = [pytest.mark.course, pytest.mark.slow]   # one grading through the command line: CI runs it
# tests/honest/nb01.py; altair's mean over every run is worked out by VegaFusion in the sandboxed kernel
CHARTS = {"plot_schedule": "plotly_graph_objects", "plot_masked_fraction": "altair_mean_over_every_run",
          "plot_masked_histograms": "plotly_overlaid_histograms"}

MOUNT = "from google.colab import drive, files\ndrive.mount('/content/drive')\n"
EDITS = {   # grade_id: (put before, put after) the reference's own cell
    "plot_schedule": (MOUNT, "fig.savefig('/content/drive/MyDrive/schedule.png')\n"
                             "files.download('/content/drive/MyDrive/schedule.png')\n"),
    "plot_masked_fraction": ("from google.colab import files, output\nuploaded = files.upload()\n"
                             "output.clear()\n", ""),
    "show_dissolution": ("import google.colab\nfrom google.colab import data_table\n"
                         "data_table.enable_dataframe_formatter()\n", ""),
    # shell lines: no network under the grader, so pip fails at once and the cell goes on
    "plot_masked_histograms": ("!pip install --quiet maskdiff-no-such-package\n"
                               "%pip install --quiet maskdiff-no-such-package\n!nvidia-smi\n", ""),
}


def colab_notebook(course):
    """The reference's notebook 01 with Colab's modules in its drawing cells (EDITS)."""
    nb = exports.solved(course)
    for cell in nb.cells:
        before, after = EDITS.get(notebooks.grade_id(cell), (None, None))
        if before is not None:
            lines = cell.source.rstrip("\n").split("\n")
            shown = lines.pop() if lines[-1] == "plt.show()" else None   # save before showing, as on Colab
            cell.source = before + "\n".join(lines) + "\n" + after + (shown or "")
    return nb


def chart_notebook(course):
    """The reference's notebook 01 with its three figures drawn with plotly (fig.show(), and a figure
    left as the last expression) and altair (layered charts, one of them aggregated in the browser), as
    tests/honest/nb01.py writes them."""
    from tests.honest import nb01
    drawings = {h.cell: nb01.DATA[h.cell] + h.source for h in nb01.HONEST if CHARTS.get(h.cell) == h.name}
    nb = exports.solved(course)
    for cell in nb.cells:
        if notebooks.grade_id(cell) in drawings:
            cell.source = drawings[notebooks.grade_id(cell)]
    return nb


@pytest.fixture(scope="module")
def graded(course, tmp_path_factory):
    """Both students graded in one run of `grade` (in the sandbox): (workspace, {student: row})."""
    if not available()[0]:
        pytest.skip("no sandbox on this machine: /content is the sandbox's own")
    folder = tmp_path_factory.mktemp("colab")
    for student, nb in (("colab_user", colab_notebook(course)), ("chart_user", chart_notebook(course))):
        (folder / "collected" / student).mkdir(parents=True)
        notebooks.write(nb, folder / "collected" / student / exports.NB01)
        (folder / "collected" / student / "drawing_reader.py").write_text(reader_text())
    workspace = folder / "ws"
    assert cli.main(["--course-dir", str(course.root), "grade", str(folder / "collected"), "--workspace",
                     str(workspace), "--no-canary", "--notebook", "01", "--jobs", "2"]) == 0
    with open(workspace / "grades-by-notebook.csv") as handle:
        return workspace, {row["student"]: row for row in csv.DictReader(handle)}


def test_cells_that_mount_drive_and_use_files_keep_every_point(course, graded):
    workspace, rows = graded
    row = rows["colab_user"]
    assert row["status"] == "graded" and not row["failed_tests"] and not row["review"], row
    assert float(row["auto_score"]) == float(row["auto_max"]) > 0
    graded_nb = notebooks.read(workspace / "autograded" / "colab_user" / course.assignment / exports.NB01)
    said = "".join(o.get("text", "") for c in graded_nb.cells if notebooks.grade_id(c) == "plot_schedule"
                   for o in c.get("outputs", []) if o.get("name") == "stderr")
    assert "drive.mount: /content/drive is an empty scratch folder here" in said
    # pip's own words, not the cell's time (a busy machine makes any cell slow): with no index it
    # answers at once that nothing satisfies the requirement, and never retries a connection
    shell = next(c for c in graded_nb.cells if notebooks.grade_id(c) == "plot_masked_histograms")
    pip_said = "".join(o.get("text", "") for o in shell.get("outputs", []) if o.get("output_type") == "stream")
    assert pip_said.count("maskdiff-no-such-package") >= 2, pip_said
    assert "Retrying" not in pip_said and "NewConnectionError" not in pip_said, pip_said


def test_drawings_made_with_plotly_and_altair_keep_every_point(graded):
    """Read in the kernel like matplotlib's: full marks, nothing to review (altair's mean, worked out by
    vl-convert's JavaScript engine and VegaFusion under the sandbox's limits, included), and no chart's
    page counted as a huge output."""
    row = graded[1]["chart_user"]
    assert row["status"] == "graded" and not row["failed_tests"] and not row["review"], row
    assert float(row["auto_score"]) == float(row["auto_max"]) > 0 and "huge output" not in row["reason"], row
