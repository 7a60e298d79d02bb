"""A notebook whose cells use Colab's own modules, or draw with its other plotting libraries (plotly,
altair), grades as it runs on Colab, through the command line in the sandbox: Drive mounted and a
figure saved there, a file "uploaded" and one "downloaded"
(maskdiff_client/stand_ins: google.colab under the grader, /content a scratch folder of the sandbox's),
and shell lines that install with pip fail at once instead of retrying a network there is none of."""
import csv
from datetime import datetime

import pytest

from maskdiff_solutions.course import cli
from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.sandbox.settings import resolve_mode
from tests.support import exports

pytestmark = [pytest.mark.course, pytest.mark.slow]   # one grading through the command line: CI runs it

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


def test_cells_that_mount_drive_and_use_files_keep_every_point(course, tmp_path, capsys):
    if resolve_mode("auto") == "off":
        pytest.skip("no sandbox on this machine: /content is the sandbox's own")
    nb = exports.solved(course)
    for cell in nb.cells:
        before, after = EDITS.get(notebooks.grade_id(cell), (None, None))
        if before is not None:
            lines = cell.source.rstrip("\n").split("\n")
            shown = lines.pop() if lines[-1] == "plt.show()" else None   # save before showing, as on Colab
            cell.source = before + "\n".join(lines) + "\n" + after + (shown or "")
    (tmp_path / "collected" / "colab_user").mkdir(parents=True)
    notebooks.write(nb, tmp_path / "collected" / "colab_user" / exports.NB01)
    workspace = tmp_path / "ws"
    assert cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--workspace",
                     str(workspace), "--no-canary", "--notebook", "01"]) == 0
    with open(workspace / "grades-by-notebook.csv") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["status"] == "graded" and not row["failed_tests"] and not row["review"], row
    assert float(row["auto_score"]) == float(row["auto_max"]) > 0
    graded = notebooks.read(workspace / "autograded" / "colab_user" / course.assignment / exports.NB01)
    said = "".join(o.get("text", "") for c in graded.cells if notebooks.grade_id(c) == "plot_schedule"
                   for o in c.get("outputs", []) if o.get("name") == "stderr")
    assert "drive.mount: /content/drive is an empty scratch folder here" in said
    shell = next(c for c in graded.cells if notebooks.grade_id(c) == "plot_masked_histograms")
    ran = shell.metadata.execution
    seconds = (datetime.fromisoformat(ran["shell.execute_reply"].replace("Z", "+00:00")) -
               datetime.fromisoformat(ran["iopub.execute_input"].replace("Z", "+00:00"))).total_seconds()
    assert seconds < 8, f"the cell with two pip installs took {seconds:.1f} s: pip retried a network"


def test_drawings_made_with_plotly_and_altair_keep_every_point(course, tmp_path):
    """Notebook 01's three figures drawn with plotly (fig.show(), and a figure left as the last expression)
    and altair (layered charts), as tests/honest/nb01.py writes them: read in the kernel like matplotlib's,
    full marks, nothing to review, and no chart's page counted as a huge output."""
    from tests.honest import nb01
    chosen = {"plot_schedule": "plotly_graph_objects", "plot_masked_fraction": "altair_points_and_rule_line",
              "plot_masked_histograms": "plotly_overlaid_histograms"}
    drawings = {h.cell: nb01.DATA[h.cell] + h.source for h in nb01.HONEST if chosen.get(h.cell) == h.name}
    nb = exports.solved(course)
    for cell in nb.cells:
        if notebooks.grade_id(cell) in drawings:
            cell.source = drawings[notebooks.grade_id(cell)]
    (tmp_path / "collected" / "chart_user").mkdir(parents=True)
    notebooks.write(nb, tmp_path / "collected" / "chart_user" / exports.NB01)
    workspace = tmp_path / "ws"
    assert cli.main(["--course-dir", str(course.root), "grade", str(tmp_path / "collected"), "--workspace",
                     str(workspace), "--no-canary", "--notebook", "01"]) == 0
    with open(workspace / "grades-by-notebook.csv") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["status"] == "graded" and not row["failed_tests"] and not row["review"], row
    assert float(row["auto_score"]) == float(row["auto_max"]) > 0 and "huge output" not in row["reason"], row
