"""One bug never costs marks twice (the README's carry-over promise, issue 12).

A function is graded only in the notebook that introduces it, only in its own test cells. Executing
every notebook through a kernel once per catalog mutant (over a hundred) would take an hour, so the
promise is proven in three cheaper steps that together cover how a cell is scored (`grade` gives a
test cell its points exactly when every check it names passed in the trusted checker):

1. Static, on the source notebooks: every test cell starts with its hidden part, so its checks are
   asked for before any visible assert can stop the cell; and its visible part reads nothing but
   given code, names it binds itself and the functions its own checks grade (never another student
   function, a carried one, or a name another test cell or an answer cell made).
2. The hidden checks: a check receives only its own function and calls the rest of the notebook only
   through that function's globals. For every function whose reference solution names another student
   function (Chat's default step, sample's helpers) the checks run with every other student function
   replaced by a poison that records being called: they must pass and call no poison. (Which checks a
   function's own bugs fail is proven by tests/grading/test_checks.py and tests/grading/test_checker.py.)
3. Execution without a kernel: each notebook's code cells run in one Python process, in order, answer
   cells (plots, printouts) skipped, `run_check` replaced by a recorder, and the few given cells too
   heavy to run a hundred times replaced by what the test cells need from them (SUBSTITUTES). With
   each catalog mutant in its own notebook, every test cell must still ask for its checks with the
   notebook's own function, and visible asserts may fail only in the mutant's own cells (or where a
   visible check calls the mutant through the tested function, listed in CALLS_THROUGH and said in the
   cell). With the later notebooks' carried cells holding the release's stubs (which raise when
   called, so no test cell may call a carried function at all) or a catalog mutant of a carried
   function that binds more than its function, every test cell must ask for its checks and no
   visible assert may fail.

Cost: each notebook's cells before a function's cell run once and are shared by every mutant placed
in that cell (notebook 05's denoiser trains once), and a mutant's own test cells are not run (they
may fail, and fail only there): 139 tests in about 45 s on two cores shared at load 4-6.

Marks lost = the cells some of whose checks are in the mutant's `fails`, or whose checks were not
asked for: the tests below show both are the mutant's own cells only.
"""
import ast
import builtins
import contextlib
import io
import math
from functools import lru_cache
from pathlib import Path

import matplotlib
import pytest
import torch

import maskdiff_client
from maskdiff_client import drawn
from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks as nbtools
from tests.mutants import catalog
from tests.support.cells import stubbed

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "source" / "maskdiff"
NOTEBOOKS = sorted(p.name for p in SOURCE.glob("*.ipynb"))
MUTANTS = catalog(in_notebooks=True)   # a catalog whose notebook is still to come has no cell to go in

# Visible checks of a function that (by design) calls other functions of its notebook: sample calls
# the helpers, and its test cell says so. The hidden check hands sample our helpers.
CALLS_THROUGH = {"test_sample": {"blank_canvas", "candidate_distributions", "confidence_scores",
                                 "reveal_counts", "reverse_update"}}


def function_of(check):
    return check.split(".")[0]


def visible_part(source):
    return source.split(nbtools.END_HIDDEN, 1)[1] if nbtools.END_HIDDEN in source else source


class Notebook:
    """A source notebook's cells, sorted by what they are."""

    def __init__(self, name):
        self.name = name
        self.cells = nbtools.read(SOURCE / name).cells
        self.functions, self.carried, self.tests, self.given, self.drawings = {}, {}, [], [], {}
        for cell in self.cells:
            if cell.cell_type != "code":
                continue
            gid = nbtools.grade_id(cell)
            if nbtools.is_carried(cell):
                self.carried.update({f: gid for f in nbtools.defined_functions(cell.source)})
            elif nbtools.is_test(cell):
                self.tests.append((gid, nbtools.hidden_check_names(cell.source), cell.source))
            elif nbtools.is_function(cell):
                self.functions[gid] = cell
            elif nbtools.is_drawing(cell):
                self.drawings[gid] = cell
            elif not nbtools.is_solution(cell):
                self.given.append(cell)

    @property
    def students(self):
        """Every function a student writes or pastes in this notebook."""
        return set(self.functions) | set(self.carried)


@lru_cache(maxsize=None)
def notebook(name):
    return Notebook(name)


def bound_names(tree, top_level_only=False):
    """Names a piece of code binds: assignments, defs, classes, imports, loop and with targets, the
    name of a caught exception, and (unless top_level_only) arguments and everything bound inside
    functions."""
    names = set()
    nodes = ast.walk(tree) if not top_level_only else _top_level(tree)
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _top_level(tree):
    """Statements run when the cell runs (into if/for/with/try bodies, not into functions), and the
    names they bind."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) or isinstance(child, (ast.Name, ast.alias, ast.excepthandler,
                                                                 ast.withitem, ast.expr)):
                stack.append(child)


@lru_cache(maxsize=None)
def given_names(name):
    nb = notebook(name)
    names = set()
    for cell in nb.given:
        names |= bound_names(ast.parse(cell.source), top_level_only=True)
    return names


# --------------------------------------------------------------------------- 1. static

@pytest.mark.parametrize("name", NOTEBOOKS)
def test_visible_tests_read_only_given_code_and_their_own_function(name):
    nb = notebook(name)
    allowed_everywhere = given_names(name) | set(dir(builtins))
    problems = []
    for gid, checks, source in nb.tests:
        own = {function_of(check) for check in checks}
        tree = ast.parse(visible_part(source))
        used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        others = (used & nb.students) - own
        if others:
            problems.append(f"{gid} calls {sorted(others)}: a bug there would fail this cell too")
        unknown = used - allowed_everywhere - bound_names(tree) - own
        if unknown:
            problems.append(f"{gid} reads {sorted(unknown)}, which no given cell defines (another test "
                            f"or answer cell's names are gone when that cell fails)")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_test_cell_asks_for_its_checks_before_anything_else(name):
    for gid, checks, source in notebook(name).tests:
        assert source.startswith(nbtools.BEGIN_HIDDEN + "\n"), \
            f"{gid}: the hidden part must come first, so a failing visible assert cannot hide it"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_visible_assert_says_what_went_wrong(name):
    bare = [f"{gid}: {ast.unparse(node)[:80]}" for gid, _, source in notebook(name).tests
            for node in ast.walk(ast.parse(visible_part(source))) if isinstance(node, ast.Assert) and node.msg is None]
    assert not bare, "asserts without a message (a student would see a bare AssertionError):\n" + "\n".join(bare)


# --------------------------------------------------------------------------- 2. hidden checks

class Poison:
    """Stands for a student function a check must never reach; remembers being called."""

    def __init__(self, name):
        self.__name__, self.calls = name, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        raise NotImplementedError(f"{self.__name__} was called")


def reaching():
    """(notebook, function, other student functions its reference code names)."""
    found = []
    for name in NOTEBOOKS:
        nb = notebook(name)
        for function, cell in nb.functions.items():
            used = {n.id for n in ast.walk(ast.parse(cell.source)) if isinstance(n, ast.Name)}
            others = (used & nb.students) - {function}
            if others:
                found.append((name, function, tuple(sorted(others))))
    return found


def test_the_poison_test_covers_the_functions_that_call_others():
    assert {f for _, f, _ in reaching()} >= {"Chat", "sample"}


@pytest.mark.parametrize("name,function,others", reaching(), ids=lambda v: v if isinstance(v, str) else "")
def test_hidden_checks_reach_no_other_student_function(name, function, others):
    nb = notebook(name)
    poisons = {other: Poison(other) for other in nb.students - {function}}
    namespace = {"torch": torch, "math": math, **poisons}
    exec(nbtools.without_markers(nb.functions[function].source), namespace)
    for check in [c for _, checks, _ in nb.tests for c in checks if function_of(c) == function]:
        outcome = grading.evaluate(check, namespace[function])
        assert outcome.passed, f"{check}: {outcome.message}"
    called = {n: p.calls for n, p in poisons.items() if p.calls}
    assert not called, f"the checks of {function} called {called}"


# --------------------------------------------------------------------------- 3. execution


def chat_world(namespace):
    """What notebook 03's test cells need from its loading cells, without a network: a character
    tokenizer with [MASK] and [PAD], and a guesser that favours a few letters."""
    from maskdiff_client.fakes import CharTokenizer, Text, Tokens
    tokenizer = CharTokenizer(["<unused>", "[PAD]", "[MASK]"] + [chr(c) for c in range(32, 127)] + ["\n"])
    favourite = torch.full((len(tokenizer),), -4.0)
    favourite[[tokenizer.ids[c] for c in "abc "]] = 1.0

    def GuessBERT(x_t):
        return favourite.softmax(-1).expand(len(x_t), -1).clone()
    namespace.update(tokenizer=tokenizer, Tokens=Tokens(tokenizer), Text=Text(tokenizer), GuessBERT=GuessBERT,
                     BERT_MASK=tokenizer.mask_token_id, SAMPLE_ON_DEVICE=False, device="cpu")


# Given cells too heavy to run once per mutant: None skips the cell (nothing after it needs it),
# a function puts what later cells need into the namespace.
SUBSTITUTES = {
    ("03_real_language_model.ipynb", "machinery"): None,
    ("03_real_language_model.ipynb", "load_bert"): chat_world,
    ("03_real_language_model.ipynb", "faster_measure"): None,
    ("03_real_language_model.ipynb", "load_qwen"): None,
    ("05_sampler_internals.ipynb", "batching_speed"): None,
    ("06_revising_and_faster.ipynb", "scorer"): None,
    ("06_revising_and_faster.ipynb", "load_scorer"): None,
    ("08_noise_without_a_mask.ipynb", "uniform_exact"): lambda namespace: namespace.update(
        UniformExact=__import__("maskdiff_solutions.uniform", fromlist=["UniformExact"]).UniformExact),
    ("08_noise_without_a_mask.ipynb", "scorer"): None,
    ("08_noise_without_a_mask.ipynb", "load_scorer"): None,
}


class Recorder:
    """Stands in for run_check: records what each test cell asks for."""

    def __init__(self):
        self.asked = []

    def __call__(self, name, *functions):
        self.asked.append((name, functions))


def code_cells(name):
    """(grade_id, cell) of the code cells the execution runs: answer cells, try-it cells and plots or
    printouts left out (tests/grading/test_checks_plots.py shows that a plot of a buggy function costs nothing
    there)."""
    return [(nbtools.grade_id(cell), cell) for cell in notebook(name).cells
            if cell.cell_type == "code" and not nbtools.is_manual(cell) and not nbtools.is_experiment(cell)
            and not nbtools.is_drawing(cell)]


_PREFIXES = {}


def prefix(name, stop, monkeypatch):
    """The namespace and test results after the notebook's code cells before index `stop`, untouched:
    run once per notebook and cell (every mutant placed in a cell shares what comes before it, like
    notebook 05's denoiser training). Later runs start from a shallow copy: no cell after a function's
    cell changes the objects an earlier given cell made (models are trained where they are built)."""
    if (name, stop) not in _PREFIXES:
        start = max((k for n, k in _PREFIXES if n == name and k < stop), default=0)
        namespace, results = ({"__name__": "__main__"}, {}) if not start else \
            tuple(dict(d) for d in _PREFIXES[(name, start)])
        for gid, cell in code_cells(name)[start:stop]:
            run_cell(name, gid, nbtools.without_markers(cell.source), None, namespace, results, monkeypatch)
        _PREFIXES[(name, stop)] = (namespace, results)
    namespace, results = _PREFIXES[(name, stop)]
    return dict(namespace), dict(results)


def run_cell(name, gid, source, after, namespace, results, monkeypatch):
    cell = dict(code_cells(name))[gid]
    if (name, gid) in SUBSTITUTES:
        if SUBSTITUTES[(name, gid)]:
            SUBSTITUTES[(name, gid)](namespace)
        return
    recorder = Recorder()
    monkeypatch.setattr(maskdiff_client, "run_check", recorder)
    raised = None
    torch.manual_seed(0)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"<{name}:{gid}>", "exec"), namespace)
            if after:
                exec(compile(after, f"<{name}:{gid} (replaced)>", "exec"), namespace)
    except Exception as err:  # noqa: BLE001 - what a cell raises is what we look at
        raised = f"{type(err).__name__}: {err}"
    if nbtools.is_test(cell):
        asked = [(check, asked_with_own_functions(check, fs, namespace)) for check, fs in recorder.asked]
        results[gid] = (asked, raised)


def asked_with_own_functions(check, functions, namespace):
    """A function's check gets that function of the notebook; a plot's check gets the record of the
    cell above (maskdiff_client.drawn) and the notebook's functions it names."""
    if check.startswith(("plot_", "show_")):
        return (bool(functions) and isinstance(functions[0], drawn.Cell)
                and all(f is namespace.get(getattr(f, "__name__", None)) for f in functions[1:]))
    return all(f is namespace.get(function_of(check)) for f in functions)


def run(name, replace=(), after=(), skip=(), monkeypatch=None):
    """Run the notebook's code cells (answer cells skipped) in one namespace, the cells named in
    `replace` ({grade_id: source}) replaced, the sources in `after` ({grade_id: source}) run right
    after theirs, and the test cells in `skip` not run (their verdicts are the mutant's own, allowed
    anything). Returns {test grade_id: (what it asked for, what it raised or None)}."""
    replace, after = dict(replace), dict(after)
    cells = code_cells(name)
    changed = [i for i, (gid, _) in enumerate(cells) if gid in replace or gid in after]
    stop = min(changed, default=len(cells))
    namespace, results = prefix(name, stop, monkeypatch)
    for gid, cell in cells[stop:]:
        if gid in skip:
            continue
        source = replace.get(gid, nbtools.without_markers(cell.source))
        run_cell(name, gid, source, after.get(gid), namespace, results, monkeypatch)
    return results


def asked_properly(nb, results):
    """Test cells that did not ask for every one of their checks with the notebook's own function."""
    missing = []
    for gid, checks, _ in nb.tests:
        if gid not in results:      # not run: the mutant's own cell
            continue
        asked, _ = results[gid]
        if [check for check, ok in asked if ok] != checks:
            missing.append(gid)
    return missing


@pytest.fixture
def quick(monkeypatch):
    """Quick mode, as under the grader, one thread, and the notebooks' globals left alone."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with torch.random.fork_rng(devices=[]):
        yield monkeypatch
    torch.set_num_threads(threads)


def home(function):
    return next(name for name in NOTEBOOKS if function in notebook(name).functions)


def cells_of(nb, function):
    return {gid for gid, checks, _ in nb.tests if any(function_of(c) == function for c in checks)}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_the_reference_notebook_passes_every_visible_check(name, quick):
    results = run(name, monkeypatch=quick)
    assert not asked_properly(notebook(name), results)
    failed = {gid: raised for gid, (_, raised) in results.items() if raised}
    assert not failed, failed


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.function}:{m.name}")
def test_a_bug_costs_marks_only_in_its_own_cells(mutant, quick):
    name = home(mutant.function)
    nb = notebook(name)
    own = cells_of(nb, mutant.function)
    results = run(name, replace={mutant.function: mutant.source}, skip=own, monkeypatch=quick)
    assert not set(asked_properly(nb, results)) - own, "a test cell of another function did not ask for its checks"
    lost = {gid for gid, checks, _ in nb.tests if set(checks) & set(mutant.fails)}
    assert lost <= own and lost, f"{mutant.name}: marks lost in {lost}, its own cells are {own}"
    visible = {gid for gid, (_, raised) in results.items() if raised}
    through = {gid for gid, functions in CALLS_THROUGH.items() if mutant.function in functions}
    assert visible <= own | through, \
        f"{mutant.name}: visible checks of other functions failed: {{g: results[g][1] for g in visible - own}}"


def binds_more_than_its_function(mutant):
    """A mutant whose cell also binds other names at the top level (a counter, a constant; imports of
    modules aside)."""
    tree = ast.parse(mutant.source)
    imported = {(a.asname or a.name).split(".")[0] for node in tree.body
                if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    return bool(bound_names(tree, top_level_only=True) - {mutant.function} - imported)


def carried_variants():
    """(notebook, label, change) for the release's stubs in every carried cell, and for each catalog
    mutant of a carried function whose cell binds more than that function. The stubs raise whenever
    they are called, so a notebook that passes with them never calls a carried function from a test
    cell: no mutant can then cost marks there, except through a name its cell binds besides the
    function, which the mutants that do so are run for."""
    variants = []
    for name in NOTEBOOKS:
        nb = notebook(name)
        cells = sorted(set(nb.carried.values()))
        if not cells:
            continue
        variants.append((name, "stubs", {"replace": {gid: stubbed(cell.source) for cell in nb.cells
                                                      for gid in [nbtools.grade_id(cell)] if gid in cells}}))
        for mutant in MUTANTS:
            if mutant.function in nb.carried and binds_more_than_its_function(mutant):
                variants.append((name, f"{mutant.function}: {mutant.name}",
                                 {"after": {nb.carried[mutant.function]: mutant.source}}))
    return variants


@pytest.mark.parametrize("name,label,change", carried_variants(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_carried_bug_costs_no_marks_in_a_later_notebook(name, label, change, quick):
    nb = notebook(name)
    results = run(name, monkeypatch=quick, **change)
    assert not asked_properly(nb, results), f"{label}: test cells did not ask for their checks"
    failed = {gid: raised for gid, (_, raised) in results.items() if raised}
    assert not failed, f"{label}: visible checks failed in {failed}"


def test_every_carried_function_has_mutants_in_the_catalog():
    carried = set().union(*(notebook(name).carried for name in NOTEBOOKS))
    assert carried <= {m.function for m in MUTANTS}


def test_tally_shrinks_any_count_under_the_grader(monkeypatch):
    from maskdiff_solutions import toy
    monkeypatch.setenv("NBGRADER_EXECUTION", "1")
    calls = []
    counts = toy.Tally(lambda: calls.append(1) or toy.Encode(toy.ALIVE), 2000)
    assert len(calls) == 400 and counts == {toy.ALIVE: 400}
    monkeypatch.delenv("NBGRADER_EXECUTION")
    monkeypatch.delenv("CI", raising=False)
    assert sum(toy.Tally(lambda: toy.Encode(toy.ALIVE), 150).values()) == 150
