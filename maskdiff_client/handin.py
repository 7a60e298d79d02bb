"""The check a student runs last, before handing a notebook in: what is left to do, and how to hand in.

It reads the notebook itself (on Colab through Colab's own message to the page, in Jupyter from its
file), and what this session ran from the recorder (drawn.py remembers every cell's latest run by its
text). Then it runs each test cell's visible checks again, on a copy of the names they use, so the
student's variables and random state stay as they were, and prints one table: each function, visible
check, drawing, printout and written answer of the notebook, what state it is in, and what to do.
It grades nothing and decides no mark (the autograder re-runs the whole notebook and its hidden
checks); under the autograder it does nothing.

Like the recorder, it imports nothing of the course: `publish` puts it into the students'
`drawing_reader.py`, which the set-up cell imports from beside the notebook or fetches (course/term/reader.py).
"""
import contextlib
import copy
import io
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

try:  # in the package; in the students' single file the recorder's code stands above this
    from .drawn import cell_runs, cell_text_key
except ImportError:
    pass

CHECK_SECONDS = 120        # the longest one visible check may run here before it is reported as too slow
COPIED_ITEMS = 10_000_000  # a list, dict or tensor a check uses is copied for it up to this many items
HIDDEN = "HIDDEN" + " TESTS"   # (spelt so that the students' copy holds no hidden-test marker)
HIDDEN_PART = re.compile(rf"### BEGIN {HIDDEN}.*?### END {HIDDEN}[^\n]*\n?", re.S)  # in the course's source only
STUB = re.compile(r"^\s*raise NotImplementedError\b", re.M)
EMPTY_ANSWER = "YOUR ANSWER HERE"
HAND_IN_CELL = "hand_in_check"   # the notebooks' last cell, which runs this check
HAND_IN_STEPS = """How to hand it in:
  1. Run everything from the top once more (Colab: Runtime > Restart session and run all; Jupyter:
     Kernel > Restart Kernel and Run All Cells), then run this cell again: the autograder runs the
     notebook top to bottom, as that does.
  2. Download the notebook as an .ipynb file: Colab: File > Download > Download .ipynb; Jupyter:
     File > Download (or hand in the saved file itself). Hand in the .ipynb, not a PDF, a link or a
     zip; a renamed copy ("Copy of ...", "... (1).ipynb") is recognised.
  3. Upload it where your course collects it:
     - Canvas: open the assignment, Start Assignment (or New Attempt), File Upload, choose the
       .ipynb, Submit Assignment.
     - Moodle: open the assignment, Add submission, drop the .ipynb into File submissions, Save
       changes (and Submit assignment, if your course asks you to confirm).
     - Gradescope: open the assignment, Upload Submission, drag the .ipynb in, Upload; the
       autograder's marks follow in a few minutes.
Passing the visible checks does not promise the marks: the autograder runs more checks (hidden ones),
reads your figures and printouts (each drawing's test cell prints what it finds there), and a person
reads your written answers."""


def check_before_handing_in(name, namespace=None, notebook=None):
    """Print what is left to do in the notebook `name` (its file name) and how to hand it in. Reads the
    notebook from the page (Colab) or its file (Jupyter) unless `notebook` (a notebook as a dict) is
    given, and the session's variables from IPython unless `namespace` is."""
    if os.environ.get("NBGRADER_EXECUTION"):
        print("the hand-in check is for you, before you hand in: the autograder skips it")
        return None
    if namespace is None:
        namespace = _session_namespace()
    where = "as given"
    if notebook is None:
        try:
            notebook, where = read_own_notebook(name, namespace)
        except LookupError as err:
            print(f"The hand-in check could not read the notebook: {err}")
            return None
    started = time.monotonic()
    try:
        rows = hand_in_rows(notebook, namespace)
    except Exception as err:  # noqa: BLE001 - the check must never be what stops a student's notebook
        print(f"The hand-in check stopped on {type(err).__name__}: {_short(err)}. Nothing of your notebook "
              "changed; run the whole notebook from the top and hand it in as below.\n\n" + HAND_IN_STEPS)
        return None
    checks = sum(1 for row in rows if row["kind"] == "visible check")
    print(hand_in_report(name, where, rows, checks, time.monotonic() - started))
    return rows


# ---- the notebook, as the page holds it ------------------------------------------------------------

def read_own_notebook(name, namespace=None):
    """The notebook as a dict, and where it was read: from Colab's page (what is on screen, unsaved
    edits included) or, in Jupyter, from its file (as last saved)."""
    try:
        from google.colab import _message   # Colab: ask the page for the notebook as it stands
    except ImportError:
        _message = None
    if hasattr(_message, "blocking_request"):
        try:
            reply = _message.blocking_request("get_ipynb", request="", timeout_sec=60)
            if isinstance(reply, dict) and isinstance(reply.get("ipynb"), dict):
                return reply["ipynb"], "Colab's page"
            why = f"it answered {str(reply.get('error') if isinstance(reply, dict) else reply)[:80]}"
        except Exception as err:  # noqa: BLE001 - any failure: say it, then try the file
            why = type(err).__name__
        print(f"(Colab did not hand over the notebook: {why}; trying its file)")
    for path in _candidate_files(name, namespace or {}):
        try:
            with open(path, encoding="utf-8") as handle:
                notebook = json.load(handle)
        except (OSError, ValueError):
            continue
        saved = time.strftime("%H:%M:%S", time.localtime(os.path.getmtime(path)))
        return notebook, f"{path}, saved at {saved}: save before you run this, unsaved edits are not read"
    raise LookupError(f"no file {name} here ({os.getcwd()}): save the notebook under that name, or run this "
                      "cell in the folder that holds it")


def _candidate_files(name, namespace):
    """Where Jupyter, JupyterLab and VS Code say the notebook is, then its name in this folder, then a
    renamed copy of it here ("Copy of NAME", "NAME (1)")."""
    said = [os.environ.get("JPY_SESSION_NAME"), namespace.get("__vsc_ipynb_file__"), namespace.get("__session__")]
    found = [Path(p) for p in said if isinstance(p, str) and p.endswith(".ipynb")]
    found.append(Path.cwd() / name)
    stem = Path(name).stem
    copies = sorted(Path.cwd().glob(f"*{stem}*.ipynb"), key=lambda p: p.stat().st_mtime, reverse=True)
    return [p for p in dict.fromkeys(found + copies) if p.is_file()]


def _cells(notebook):
    """Each cell as (kind, its nbgrader metadata, its text, its outputs, its execution count)."""
    out = []
    for cell in notebook.get("cells") or []:
        text = cell.get("source") or ""
        text = "".join(text) if isinstance(text, list) else str(text)
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        out.append((cell.get("cell_type"), meta if isinstance(meta, dict) else {}, text,
                    cell.get("outputs") or [], cell.get("execution_count")))
    return out


# ---- what each cell's latest run did ---------------------------------------------------------------

def _runs_of(cells):
    """For each code cell, what its latest run did ({"order", "figures", "printed", "error"}) or None
    when it has not run as it reads now. From the recorder where it watched this session, else from
    the notebook's own outputs and execution counts (a saved file, or Colab's page)."""
    recorded = cell_runs() if "cell_runs" in globals() else {}
    if recorded:
        order = {key: i for i, key in enumerate(recorded)}
        runs = []
        for kind, _, text, _, _ in cells:
            key = cell_text_key(text) if kind == "code" else ""
            run = recorded.get(key) if key else None
            runs.append(dict(run, order=order[key]) if run else None)
        return runs
    return [_run_from_outputs(outputs, count) if kind == "code" else None
            for kind, _, _, outputs, count in cells]


def _run_from_outputs(outputs, count):
    if not isinstance(count, int):
        return None
    error = next((o for o in outputs if o.get("output_type") == "error"), None)
    figures = printed = 0
    for output in outputs:
        data = output.get("data") or {}
        if any(k.startswith("image/") or "plotly" in k or "vega" in k for k in data):
            figures += 1
        elif output.get("output_type") == "stream" or data:
            printed += 1
    return {"order": count, "figures": figures, "printed": bool(printed), "shown": 0,
            "error": {"type": error.get("ename", "an error"), "message": error.get("evalue", "")} if error else None}


def _late_runs(cells, runs):
    """Indices of code cells that ran before a code cell above them last ran: what they show (and
    what they defined) may come from an older version of the cells above."""
    late, latest = set(), -1
    for i, ((kind, meta, *_), run) in enumerate(zip(cells, runs)):
        if run is None or not meta.get("grade_id") or (meta.get("grade") and not meta.get("solution")):
            continue   # a scratch cell or a test cell run again changes nothing a later cell depends on
        if run["order"] < latest:
            late.add(i)
        latest = max(latest, run["order"])
    return late


# ---- the table ---------------------------------------------------------------------------------------

def hand_in_rows(notebook, namespace):
    """One row per thing the notebook asks of the student, in its order: {"name", "kind", "points",
    "left" (True when something is left to do), "state"}."""
    cells = _cells(notebook)
    runs = _runs_of(cells)
    late = _late_runs(cells, runs)
    rows, drawing_rows, given_unrun = [], {}, []
    for i, (kind, meta, text, outputs, _) in enumerate(cells):
        gid = str(meta.get("grade_id") or "")
        if not gid or gid == HAND_IN_CELL:
            continue
        points = meta.get("points") if meta.get("grade") else None
        run = runs[i]
        if kind == "markdown" and meta.get("solution"):
            empty = EMPTY_ANSWER in text or not text.strip()
            rows.append(_row(gid, "written answer", points, empty,
                             "no answer yet: it still says YOUR ANSWER HERE" if empty else "answered (a person grades it)"))
        elif kind != "code":
            continue
        elif meta.get("grade") and not meta.get("solution"):
            target = gid[len("test_"):]
            if target in drawing_rows:      # a drawing's test: its points belong to the drawing's row
                drawing_rows[target]["points"] = points
            else:
                rows.append(_visible_check(gid, points, text, namespace))
        elif meta.get("solution"):
            rows.append(_written_cell(gid, meta, text, run, i in late))
            if gid.startswith(("plot_", "show_")):
                drawing_rows[gid] = rows[-1]
        elif meta.get("locked") and run is None and text.strip() and not _in_history(text):
            given_unrun.append(gid)
    if not any(meta.get("grade_id") for _, meta, *_ in cells):
        rows.append(_row("notebook", "marks", None, True, "its cells lost the marks that tell graded cells apart (an "
                         "editor dropped their metadata): this check cannot list them; the autograder repairs them"))
    if given_unrun:
        rows.insert(0, _row("given cells", "given code", None, True,
                            f"not run: {', '.join(given_unrun)} (the cells after them need what they define)"))
    return rows


def _in_history(text):
    """Whether IPython ran this text in this session (the set-up cell runs before the recorder starts)."""
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if get_ipython else None
    raw = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None) or []
    key = cell_text_key(text)
    return any(cell_text_key(ran) == key for ran in raw[-2000:])


def _row(name, kind, points, left, state):
    return {"name": name, "kind": kind, "points": points, "left": bool(left), "state": state}


def _written_cell(gid, meta, text, run, late):
    """A cell the student writes: a function, a drawing or printout, a pasted carry-over, a try-it cell
    or a code cell a person grades from its output."""
    if gid.startswith("carried_from_"):
        kind = "your earlier functions"
    elif gid.startswith("plot_"):
        kind = "drawing"
    elif gid.startswith("show_"):
        kind = "printout"
    elif re.search(rf"^def {re.escape(gid)}\b", text, re.M):
        kind = "function"
    else:
        kind = "graded by a person" if meta.get("grade") else "try it (not graded)"
    points = meta.get("points") if meta.get("grade") else None
    stubs = _stubbed_functions(text)
    if stubs and kind == "your earlier functions":
        return _row(gid, kind, points, True, f"still the stub of {', '.join(stubs)}: paste yours from notebook "
                                             f"{gid[len('carried_from_'):]}, then run it")
    if stubs:
        return _row(gid, kind, points, True, "still the stub: write it, then run it")
    if run is None:
        return _row(gid, kind, points, True, "not run as it reads now: run it")
    if run.get("error"):
        error = run["error"]
        return _row(gid, kind, points, True, f"stopped with {error.get('type')}: {_short(error.get('message'))}")
    if late:
        return _row(gid, kind, points, True, "ran before a cell above it last ran: run the notebook again from "
                                             "the top, so it shows what the cells above do now")
    if kind == "drawing" and not run.get("figures"):
        return _row(gid, kind, points, True, "drew no figure: draw what the task asks, and show it")
    if kind in ("printout", "graded by a person") and not (run.get("printed") or run.get("figures")):
        return _row(gid, kind, points, True, "shows nothing: print what the task asks")
    done = {"drawing": f"drew {run['figures']} figure{'s' * (run['figures'] != 1)}", "printout": "printed",
            "graded by a person": "ran: a person grades the output you hand in"}
    return _row(gid, kind, points, False, done.get(kind, "written and run"))


def _stubbed_functions(text):
    """The functions of a cell whose body is still the release's stub (`raise NotImplementedError`)."""
    names, current = [], None
    for line in text.splitlines():
        header = re.match(r"def (\w+)", line)
        if header:
            current = header.group(1)
        elif STUB.match(line):
            names.append(current or "the cell")
    return list(dict.fromkeys(names))


# ---- a visible check, run again -------------------------------------------------------------------

def _visible_check(gid, points, text, namespace):
    visible = HIDDEN_PART.sub("", text)
    statements = [line for line in visible.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not statements or all(line.startswith("show_reading(") for line in statements):
        return _row(gid, "visible check", points, False, "nothing visible to run: the autograder's checks are hidden")
    failure = run_visible_check(visible, namespace)
    if failure is None:
        return _row(gid, "visible check", points, False, "passes")
    return _row(gid, "visible check", points, True, f"fails: {failure}")


def run_visible_check(code, namespace):
    """Run a test cell's visible part on a copy of the session's names; None if it passes, else what
    stopped it, in one line. The session's names, random state, figures and folder are left as they were."""
    try:
        compiled = compile(code, "<visible check>", "exec")
    except SyntaxError as err:
        return f"SyntaxError: {err.msg}"
    scope = dict(namespace)
    for name in _names_used(compiled):
        if name in scope and _is_data(scope[name]):
            try:
                scope[name] = copy.deepcopy(scope[name])
            except Exception:  # noqa: BLE001 - not copyable: the check uses it as it is
                pass
    with _left_as_it_was(), _time_limit(CHECK_SECONDS):
        try:
            exec(compiled, scope)  # noqa: S102 - the notebook's own test cell, on the student's own machine
        except TimeoutError:
            return f"did not finish in {CHECK_SECONDS} s (the autograder stops a cell after 30 s)"
        except Exception as err:  # noqa: BLE001 - the check's own message is what the student needs
            if isinstance(err, NameError):
                return f"NameError: {_short(err)} (run the cells above first)"
            if isinstance(err, NotImplementedError):
                return "NotImplementedError (a function it runs is still the stub)"
            return f"{type(err).__name__}: {_short(err)}" if str(err) else type(err).__name__
    return None


def _names_used(compiled):
    names = set(compiled.co_names)
    for const in compiled.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


def _is_data(value):
    """A value a check may change in place, small enough to copy for it: containers, arrays, tensors."""
    if isinstance(value, (list, dict, set, bytearray)):
        return len(value) <= COPIED_ITEMS
    module = type(value).__module__ or ""
    if module.startswith(("torch", "numpy")) and hasattr(value, "shape") and hasattr(value, "dtype"):
        try:
            return int(getattr(value, "numel", lambda: value.size)()) <= COPIED_ITEMS
        except Exception:  # noqa: BLE001
            return False
    return False


@contextlib.contextmanager
def _left_as_it_was():
    """The random generators, open figures, working folder, grad mode and printed output as they were."""
    import random
    states = [(random.setstate, random.getstate())]
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        states.append((numpy.random.set_state, numpy.random.get_state()))
    torch = sys.modules.get("torch")
    if torch is not None:
        states.append((torch.set_rng_state, torch.get_rng_state()))
        states.append((torch.set_grad_enabled, torch.is_grad_enabled()))
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            states.append((torch.cuda.set_rng_state_all, torch.cuda.get_rng_state_all()))
    pyplot = sys.modules.get("matplotlib.pyplot")
    figures = set(pyplot.get_fignums()) if pyplot is not None else set()
    folder = os.getcwd()
    import warnings
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        for restore, state in states:
            restore(state)
        if pyplot is not None:
            for number in set(pyplot.get_fignums()) - figures:
                pyplot.close(number)
        os.chdir(folder)


@contextlib.contextmanager
def _time_limit(seconds):
    """A TimeoutError in the check after `seconds`, where the platform has alarms (not on Windows)."""
    if not hasattr(signal, "SIGALRM") or not _in_main_thread():
        yield
        return

    def stop(*_):
        raise TimeoutError

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


def _in_main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


def _short(message, limit=160):
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _session_namespace():
    get_ipython = getattr(sys.modules.get("IPython"), "get_ipython", None)
    shell = get_ipython() if get_ipython else None
    if shell is None:
        raise RuntimeError("check_before_handing_in reads the notebook's variables: run it in the notebook")
    return shell.user_ns


# ---- the report --------------------------------------------------------------------------------------

def hand_in_report(name, where, rows, checks, seconds):
    left = [row for row in rows if row["left"]]
    head = (f"Before you hand in {name}: " + (f"{len(left)} thing{'s' * (len(left) != 1)} left to do."
                                              if left else "nothing left that this check can see."))
    lines = [head, f"(read from {where}; {checks} visible check{'s' * (checks != 1)} run again in {seconds:.1f} s "
                   "on copies: your variables are as they were)", ""]
    width = max([len(row["name"]) for row in rows] + [4])
    lines.append(f"  {'':6}{'cell':<{width}}  {'points':>6}  state")
    for row in rows:
        points = "-" if row["points"] is None else f"{row['points']:g}"
        mark = "TO DO" if row["left"] else "ok"
        lines.append(f"  {mark:<6}{row['name']:<{width}}  {points:>6}  {row['kind']}: {row['state']}")
    return "\n".join(lines + ["", HAND_IN_STEPS])
