"""Generated mutants (issue 63): every argument, every boundary and "check before you work" must matter.

For each function the hidden checks grade, read from its solution cell in `source/` (so that a new
notebook's functions join by themselves), three kinds of mutant are made from the cell's own code:

- `ignores ARG`: the argument overwritten as the function starts, by its default, or, for an argument
  without one, by the value the function's hidden checks hand it most often (recorded from the cell's
  own run under those checks): the student who never hands `rule` on, or who hard-codes the mask;
- `OLD -> NEW in: LINE`: one comparison's boundary moved (`<` for `<=` and back, `>` for `>=` and
  back), one mutant for each comparison of the cell;
- `checks after work`: the function's argument checks (its top-level `if ...: raise`) moved after the
  straight-line work that follows them: the canvas built, the prompt run through the network first.

Each must lose marks: `verdicts.VERDICTS` names the checks that catch it (`benchmarks/power.py`
recomputes them all; `tests/grading/test_generated_mutants.py` holds the table to them), or
`verdicts.HARMLESS` says why no check can catch it, or need to.
"""
import ast
import io
import sys
import time
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks

from . import Mutant

SOURCE = Path(__file__).resolve().parents[2] / "source" / "maskdiff"
FLIPPED = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
ORDER = "checks after work"
LITERAL_ELEMENTS = 64   # a recorded tensor up to this size is written out; a larger one is handed in


@dataclass(frozen=True)
class Cell:
    notebook: str      # "07"
    function: str
    source: str        # the solution's code, without nbgrader's markers

    @property
    def checks(self):
        return [name for name in grading.CHECKS if name.split(".")[0] == self.function]

    @property
    def definition(self):
        """The cell's `def` of its function (the last one, as Python keeps it)."""
        return [node for node in ast.parse(self.source).body
                if isinstance(node, ast.FunctionDef) and node.name == self.function][-1]

    def arguments(self):
        """(name, default's source or None) of each argument, in order."""
        args = self.definition.args
        plain = args.posonlyargs + args.args
        defaults = [None] * (len(plain) - len(args.defaults)) + list(args.defaults)
        pairs = list(zip(plain, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
        return [(arg.arg, None if default is None else ast.get_source_segment(self.source, default))
                for arg, default in pairs]


@lru_cache(maxsize=None)
def cells():
    """Every graded function's solution cell, notebook by notebook: a cell that defines the function it
    is named after, which a hidden check grades."""
    checked = {name.split(".")[0] for name in grading.CHECKS}
    found = []
    for path in sorted(SOURCE.glob("[0-9][0-9]_*.ipynb")):
        for cell in notebooks.read(path).cells:
            if notebooks.is_function(cell) and notebooks.grade_id(cell) in checked:
                found.append(Cell(path.name[:2], notebooks.grade_id(cell),
                                  notebooks.without_markers(cell.source).strip() + "\n"))
    return tuple(found)


def cell_of(function):
    return next(cell for cell in cells() if cell.function == function)


# ---------------------------------------------------------------- the plans (names only: no run needed)

@dataclass(frozen=True)
class Plan:
    function: str
    name: str
    kind: str          # "argument", "boundary" or "order"
    target: object     # the argument's name, the comparison's token index, or None

    @property
    def key(self):
        return f"{self.function}: {self.name}"


def comparisons(source):
    """(index, operator, line number, column) of each comparison operator `<`, `<=`, `>`, `>=` of the
    source, in reading order (tokens: strings and comments never count)."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.OP and token.string in FLIPPED:
            found.append((len(found), token.string, *token.start))
    return found


def plans(cell):
    lines = cell.source.splitlines()
    out = [Plan(cell.function, f"ignores {name}", "argument", name) for name, _ in cell.arguments()]
    seen = Counter()
    for index, op, row, col in comparisons(cell.source):
        line = " ".join(lines[row - 1].split())
        seen[(op, line)] += 1
        nth = f" (#{seen[(op, line)]})" if seen[(op, line)] > 1 else ""
        out.append(Plan(cell.function, f"{op} -> {FLIPPED[op]}{nth} in: {line}", "boundary", index))
    if moved_checks(cell) is not None:
        out.append(Plan(cell.function, ORDER, "order", None))
    return out


def all_plans():
    return [plan for cell in cells() for plan in plans(cell)]


# ---------------------------------------------------------------- the sources

def is_check(node):
    """A statement that only checks arguments: `if ...: raise`, or a loop of such ifs."""
    if isinstance(node, ast.If):
        return not node.orelse and isinstance(node.body[-1], ast.Raise)
    if isinstance(node, ast.For):
        return not node.orelse and all(is_check(inner) for inner in node.body)
    return False


def statement_lines(cell):
    """The function's top-level statements as (node, first line, last line), 1-based; the comments and
    blank lines above a statement go with it."""
    body = cell.definition.body
    spans, start = [], body[0].lineno
    for node in body:
        spans.append((node, start, node.end_lineno))
        start = node.end_lineno + 1
    return spans


def moved_checks(cell):
    """The cell with the function's argument checks moved after the straight-line work that follows the
    last of them (up to the first loop, `with`, `try`, `return` or other `if`), or None when no work
    lies there to move them past."""
    spans = statement_lines(cell)
    checks = [i for i, (node, _, _) in enumerate(spans) if is_check(node)]
    if not checks:
        return None
    straight = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    end = checks[-1] + 1
    while end < len(spans) and isinstance(spans[end][0], straight):
        end += 1
    work = [i for i in range(checks[0], end) if i not in checks]
    if not any(i > checks[0] for i in work):
        return None
    lines = cell.source.splitlines(keepends=True)
    chunk = lambda i: "".join(lines[spans[i][1] - 1:spans[i][2]])   # noqa: E731
    first, last = spans[checks[0]][1], spans[end - 1][2]
    moved = "".join(chunk(i) for i in work) + "".join(chunk(i) for i in checks)
    return "".join(lines[:first - 1]) + moved + "".join(lines[last:])


def literal(value):
    """Source that rebuilds a recorded value, or None where only the object itself will do."""
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return repr(value) if np.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, (list, tuple)):
        inner = [literal(v) for v in value]
        if None in inner:
            return None
        text = ", ".join(inner)
        return f"[{text}]" if isinstance(value, list) else f"({text}{',' if len(inner) == 1 else ''})"
    if torch.is_tensor(value) and value.numel() <= LITERAL_ELEMENTS and value.device.type == "cpu":
        return f"torch.tensor({value.tolist()!r}, dtype={value.dtype})"
    return None


def ignoring(cell, name, default, recorded):
    """The cell with `name := its default, or the recorded value` as the function's first statement;
    (source, {name: object} to hand in where no literal rebuilds the value)."""
    handed = {}
    if default is not None:
        value, why = default, "its default"
    else:
        held = recorded.get(name)
        value = literal(held.value) if held else None
        if held and value is None:
            value = f"RECORDED_{name}"
            handed[value] = held.value
        why = f"the value {held.calls} of its {held.total} hidden calls hand it" if held else "never called"
        if not held:
            value = "None"
    body = cell.definition.body
    first = body[1] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
        len(body) > 1 else body[0]
    lines = cell.source.splitlines(keepends=True)
    at = first.lineno - 1
    line = f"{' ' * first.col_offset}{name} = {value}   # ignores {name}: {why}\n"
    return "".join(lines[:at]) + line + "".join(lines[at:]), handed


def flipped(cell, index):
    index, op, row, col = comparisons(cell.source)[index]
    lines = cell.source.splitlines(keepends=True)
    text = lines[row - 1]
    lines[row - 1] = text[:col] + FLIPPED[op] + text[col + len(op):]
    return "".join(lines)


@dataclass(frozen=True)
class Generated(Mutant):
    kind: str = ""
    handed: dict = field(default_factory=dict, hash=False, compare=False)

    def load(self):
        return Mutant.load_in(self.function, self.name, self.source, self.handed)


def build(plan, recorded=None):
    """The mutant of a plan; `recorded`: what the hidden checks hand the function (`record`), needed by
    the `ignores` mutants of arguments without a default."""
    cell = cell_of(plan.function)
    handed = {}
    if plan.kind == "argument":
        default = dict(cell.arguments())[plan.target]
        source, handed = ignoring(cell, plan.target, default, recorded or {})
    elif plan.kind == "boundary":
        source = flipped(cell, plan.target)
    else:
        source = moved_checks(cell)
    from .verdicts import VERDICTS
    return Generated(plan.function, plan.name, source, tuple(VERDICTS.get(plan.key, ())), plan.kind, handed)


# ---------------------------------------------------------------- what the hidden checks hand a function

@dataclass
class Held:
    value: object
    calls: int
    total: int


def value_key(value):
    if torch.is_tensor(value):
        value = value.detach().cpu()
        return ("tensor", str(value.dtype), tuple(value.shape), value.numpy().tobytes())
    if isinstance(value, np.ndarray):
        return ("array", str(value.dtype), value.shape, value.tobytes())
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return ("plain", type(value).__name__, repr(value))
    if isinstance(value, (list, tuple)):
        try:
            return (type(value).__name__, tuple(value_key(v) for v in value))
        except TypeError:
            pass
    return ("object", id(value))


def kept(value):
    return value.detach().clone() if torch.is_tensor(value) else value


def record(function, checks=None):
    """{argument: Held(most common value, its calls, all calls)} over every call the hidden checks of
    `function` make of its solution cell (all of its checks, or `checks`)."""
    cell = cell_of(function)
    target = Mutant(function, "solution", cell.source, ()).load()
    code = getattr(target, "__wrapped__", target).__code__
    names = [name for name, _ in cell.arguments()]
    counts, first = {n: Counter() for n in names}, {n: {} for n in names}

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            for name in names:
                if name in frame.f_locals:
                    value = frame.f_locals[name]
                    key = value_key(value)
                    counts[name][key] += 1
                    first[name].setdefault(key, kept(value))

    for name in checks or cell.checks:
        sys.setprofile(profile)
        try:
            grading.evaluate(name, target)
        finally:
            sys.setprofile(None)
    held = {}
    for name in names:
        if counts[name]:
            key, calls = counts[name].most_common(1)[0]
            held[name] = Held(first[name][key], calls, sum(counts[name].values()))
    return held


def mutants(function, recorded=None):
    """Every generated mutant of `function` (recording what its checks hand it, unless given)."""
    cell = cell_of(function)
    todo = plans(cell)
    if recorded is None and any(p.kind == "argument" and dict(cell.arguments())[p.target] is None for p in todo):
        recorded = record(function)
    return [build(plan, recorded) for plan in todo]


def verdict(mutant, checks=None):
    """The checks of its function that the mutant fails."""
    buggy = mutant.load()
    return {name for name in (checks or cell_of(mutant.function).checks)
            if not grading.evaluate(name, buggy).passed}


# ---------------------------------------------------------------- the verdicts table

def verdicts(functions=None, progress=print):
    """{key: the checks it fails} for every generated mutant (of `functions`), and the time each took."""
    found, seconds = {}, {}
    for cell in cells():
        if functions and cell.function not in functions:
            continue
        started = time.perf_counter()
        for mutant in mutants(cell.function):
            found[f"{mutant.function}: {mutant.name}"] = tuple(sorted(verdict(mutant)))
        seconds[cell.function] = time.perf_counter() - started
        progress(f"{cell.function}: {seconds[cell.function]:.1f} s")
    return found, seconds


def write(found, path=Path(__file__).with_name("verdicts.py")):
    """Rewrite the VERDICTS of verdicts.py with the mutants that lose marks; HARMLESS is kept as written."""
    text = path.read_text()
    start, end = text.index("VERDICTS = {"), text.index("\n}\n", text.index("VERDICTS = {")) + 3
    lines = "".join(f"    {key!r}: {fails!r},\n" for key, fails in found.items() if fails)
    path.write_text(text[:start] + "VERDICTS = {\n" + lines + "}\n" + text[end:])


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description="the generated mutants' verdicts (a few minutes)")
    parser.add_argument("--write", action="store_true", help="rewrite tests/mutants/verdicts.py's VERDICTS")
    parser.add_argument("function", nargs="*")
    args = parser.parse_args()
    found, _ = verdicts(args.function)
    from .verdicts import HARMLESS
    for key, fails in found.items():
        if not fails and key not in HARMLESS:
            print(f"ESCAPES: {key}")
    if args.write:
        write(found)
