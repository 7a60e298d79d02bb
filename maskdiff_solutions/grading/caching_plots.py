"""Hidden checks of notebook 07's drawing and printout: they read what the student drew or printed
(grading/plots.py) and compare it with what the student's own functions do, run again here.

Nothing in either cell is random: the samplers are greedy and the networks in eval mode, so the check
runs the cell's computation again in the student's kernel, with the student's functions and the
notebook's own networks, prompts and ids (read from the notebook's globals where the student's
functions read them: `Student.notebook`), and compares the drawn or printed numbers with it, allowing
for float rounding only (`RELATIVE`). There is no ALPHA: a drawing of the cell's
numbers never fails. A student function that is not deterministic after all (it draws at random) makes
that comparison impossible: such a figure goes to a person.

- plot_cache_drift: CacheDrift (the given cell) with the student's SampleBlocksPrefixCache and
  SampleBlocks on story_net, the four prompts, 24 tokens, 24 steps, at each block length of BLOCKS; the
  figure must hold, each as a curve (or points, or bars) at the block lengths, the agreement (share or
  percentage), the mean key change (nothing, nan or 0 at block length 24, where there is none; its
  share of the kept keys' size is read too) and the prefix cache's positions (the right formula or the
  student's TokensProcessed). Curves named for the dual cache, a no-cache line and anything else are
  left alone. Each of the three is named by a legend entry, its axes' y label or title, and an x label
  says what runs along x.
- show_costs: the seven rows of the printout, in any order and any layout, one line each: a line
  holds a row when its numbers hold the row's calls and, further on, its positions. Rows 1 to 5 may
  show the closed forms or what the student's samplers make (counted in the kernel as `Counted`
  counts); row 6 shows the calls c that SampleBlocksAbove makes on block_net (with the student's
  carried helpers) and 29 c positions; row 7 is computed from that c.

What the task text must state, since the checks hold students to it: the block lengths, prompts,
lengths and steps of the drift; the three quantities and that each curve says what it shows (y label,
legend or panel title); the x label; the nan at block length 24; dual curves named "dual"; that the
numbers are the same at every run and compared with the samplers run again; the prompt and sizes of the
costs; the seven rows; a row per sampler on a line of its own, calls before positions, whole numbers.
"""
import re

import numpy as np
import torch

from .. import caching as ref
from . import plots
from .core import Failure, Review, Student, check, expect, handle, token_ids
from .plots import numbers, printout_missing, statements

BLOCKS = (2, 4, 8, 12, 24)
PROMPTS = ("once upon a time ,", "the dog", "lily went to the", "one day ,")
GEN, STEPS, PROMPT_LENGTH = 24, 24, 5       # 24 tokens, 24 steps; "once upon a time ," is 5 tokens
RELATIVE = 2e-3        # drawn against recomputed: float32 plots, values rounded to three digits
DUAL_WORDS = re.compile(r"dual|suffix", re.I)
PREFIX_WORDS = re.compile(r"prefix", re.I)
IDS = ("MASK_ID", "PAD_ID", "CONTROL_IDS")


def _few(values, k=6):
    return "[" + ", ".join(f"{v:.4g}" for v in list(values)[:k]) + (", ..." if len(values) > k else "") + "]"


def _whole(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def notebook_values(students, names):
    """The notebook's globals `names`, read where the first of `students` that is a function of the
    notebook reads them, checked: callables as Students, the ids as whole numbers. What the grader cannot
    find or use goes to a person (the given cells define them all)."""
    values = None
    for student in students:
        values = student.notebook(names)
        if values is not None:
            break
    if values is None:
        raise Review("the grader could not reach your notebook's variables through your functions, so it cannot "
                     "run them as the cell above did; a person will look at it")
    wrong = [name for name in names if name not in values]
    for name in names:
        value = values.get(name)
        if name in IDS:
            ok = _whole(value) if name != "CONTROL_IDS" else \
                isinstance(value, (list, tuple)) and all(_whole(v) for v in value)
        else:
            ok = isinstance(value, Student)
        if name not in wrong and not ok:
            wrong.append(name)
    if wrong:
        raise Review(f"the grader could not use {', '.join(wrong)} of your notebook (the given cells define "
                     f"them), so it cannot run your functions as the cell above did; a person will look at it")
    return values


def story_prompts(StoryTokens, texts):
    """The prompts as the notebook's StoryTokens makes them (None where it raised or gave no ids)."""
    out = []
    for text, result in zip(texts, StoryTokens.calls([[text] for text in texts])):
        if result[0] != "ok":
            return None
        try:
            out.append(token_ids(result[1], f"StoryTokens({text!r})"))
        except Failure:
            return None
    return out


# ---- plot_cache_drift --------------------------------------------------------------------------

def drifts(CacheDrift, SampleBlocksPrefixCache, SampleBlocks, values, prompts):
    """{block length: (agreement, key change, key size)} of CacheDrift with the student's samplers on
    story_net, as the plot cell runs it (one request); a block length where it raised is left out: the
    plot cell could not have drawn it."""
    ids = [values[name] for name in IDS]
    results = CacheDrift.calls([[handle(SampleBlocksPrefixCache), handle(SampleBlocks), handle(values["story_net"]),
                                 prompts, GEN, b, STEPS, *ids] for b in BLOCKS])
    out = {}
    for b, result in zip(BLOCKS, results):
        try:
            out[b] = tuple(float(result[1][key]) for key in ("agreement", "key_change", "key_size"))
        except (TypeError, KeyError, ValueError, IndexError):
            continue   # raised, or no dictionary of numbers
    return out


def _tick_values(ticks):
    out = {}
    for at, label in ticks.items():
        try:
            out[round(at, 6)] = float(label.replace("−", "-"))
        except ValueError:
            pass
    return out


def shared_ticks(drawing, axis):
    """{place: number} of the tick labels of every axes of the figure along one axis ("x" or "y"), where
    they agree: subplots that share their x axis (pandas' subplots=True) label only the bottom one."""
    out, clash = {}, set()
    for ax in drawing.axes:
        for at, value in _tick_values(ax.xticks if axis == "x" else ax.yticks).items():
            if out.setdefault(at, value) != value:
                clash.add(at)
    return {at: value for at, value in out.items() if at not in clash}


def at_blocks(ax, series, shared=None):
    """{block length: value} of a series drawn at block lengths of BLOCKS: at those places along x (bars
    by their middles), or at places whose tick labels read as them (bars or points of categories; bars
    laid along y by the y ticks; an axes without tick labels reads those of the figure's other axes,
    `shared`: {"x": ..., "y": ...}). None unless every drawn place is a block length, each once."""
    places = series.x + series.style["width"] / 2 if series.kind == "bars" else series.x
    horizontal = series.kind == "bars" and series.style.get("horizontal")
    ticks = _tick_values(ax.yticks if horizontal else ax.xticks) or (shared or {}).get("y" if horizontal else "x", {})
    if not places.size:
        return None
    for where in (places, np.array([ticks.get(round(float(v), 6), np.nan) for v in places])):
        lengths = np.round(where)
        if np.isfinite(where).all() and np.allclose(where, lengths, atol=1e-6) and len(set(lengths)) == where.size \
                and set(lengths) <= set(BLOCKS):
            return {int(b): float(y) for b, y in zip(lengths, series.y)}
    return None


def _close(drawn, want):
    return abs(drawn - want) <= RELATIVE * abs(want) + 1e-9


def reading_of(values, wants):
    """How a series' {block length: value} reads against one quantity, `wants` = [(scale, {block length:
    acceptable values})] (no acceptable value: anything goes there; nan: nothing, nan or 0 is right):
    "is" when every drawn value is acceptable and every block length that has a value is drawn,
    "part" when the values drawn are right but some are missing, else None."""
    best = None
    for scale, want in wants:
        drawn = {b: v / scale for b, v in values.items() if np.isfinite(v)}
        if not drawn or any(not _fits(v, want.get(b, ())) for b, v in drawn.items()):
            continue
        if all(b in drawn for b in _needed(want)):
            return "is"
        best = "part"
    return best


def _fits(value, acceptable):
    if not acceptable:
        return True   # a block length the plot cell could not have computed
    return any(value == 0 if np.isnan(w) else _close(value, w) for w in acceptable)


def _dual(ax, series):
    """Is the series named for the dual cache (its legend label, else its axes' title or y label)?"""
    label = series.label if series.label and not series.label.startswith("_") else ""
    if label:
        return bool(DUAL_WORDS.search(label)) and not PREFIX_WORDS.search(label)
    text = f"{ax.title} {ax.ylabel}"
    return bool(DUAL_WORDS.search(text)) and not PREFIX_WORDS.search(text)


AGREEMENT, CHANGE, POSITIONS = ("the agreement with the uncached sampler", "the mean key change",
                                "the positions of the prefix cache")
FORMS = {AGREEMENT: "as a share or a percentage", CHANGE: "as key changes, or shares of the key size",
         POSITIONS: 'TokensProcessed(5, 24, block length, 24, "prefix")'}


def quantities(drift, positions):
    """{quantity: [(scale, {block length: acceptable values})]} of the three curves the task asks for."""
    agreement = {b: [drift[b][0]] if b in drift else [] for b in BLOCKS}
    change = {b: [drift[b][1]] if b in drift else [] for b in BLOCKS}
    relative = {b: [drift[b][1] / drift[b][2] if drift[b][2] else np.nan] if b in drift else [] for b in BLOCKS}
    return {AGREEMENT: [(1, agreement), (100, agreement)], CHANGE: [(1, change), (1, relative), (100, relative)],
            POSITIONS: [(1, positions)]}


def student_positions(TokensProcessed):
    """{block length: [the right formula's positions, and the student's TokensProcessed's where it gives
    a number]} of the prefix cache, for the first prompt (5 tokens)."""
    out = {b: [float(ref.TokensProcessed(PROMPT_LENGTH, GEN, b, STEPS, "prefix"))] for b in BLOCKS}
    results = TokensProcessed.calls([[PROMPT_LENGTH, GEN, b, STEPS, "prefix"] for b in BLOCKS])
    for b, result in zip(BLOCKS, results):
        try:
            value = float(np.asarray(result[1].detach().cpu() if torch.is_tensor(result[1]) else result[1])
                          .reshape(())) if result[0] == "ok" else np.nan
        except (TypeError, ValueError, RuntimeError, AttributeError):
            value = np.nan
        if np.isfinite(value) and not _close(value, out[b][0]):
            out[b].append(value)
    return out


def _expected(want, scale_name=""):
    return "[" + ", ".join(f"{b}: " + (" or ".join(f"{w:.4g}" for w in ok) if ok and not np.isnan(ok[0]) else "none")
                           for b, ok in want.items()) + "]" + scale_name


def _same_drift(a, b):
    return set(a) == set(b) and all(np.allclose(a[k], b[k], rtol=1e-9, atol=0, equal_nan=True) for k in a)


def _named(ax, series, legends, crowded):
    label = series.label if series.label and not series.label.startswith("_") else ""
    if label and label in legends:
        return True
    return not crowded and bool(ax.ylabel or ax.title)


@check("plot_cache_drift")
def plot_cache_drift(drawn, SampleBlocksPrefixCache, SampleBlocks, TokensProcessed):
    drawing = plots.Drawing.of(drawn)
    drawing.need_axes("the agreement, the mean key change and the prefix cache's positions against the block length")
    shared = {axis: shared_ticks(drawing, axis) for axis in ("x", "y")}
    found = [(ax, s, values) for ax, s in drawing.series() if not _dual(ax, s)
             for values in [at_blocks(ax, s, shared)] if values is not None]
    if not found:
        plots.missing(drawing, f"your figure has no curve, points or bars at the block lengths {list(BLOCKS)} (other "
                               f"than curves named for the dual cache): draw the agreement, the mean key change and "
                               f"the positions against the block length")
    values = notebook_values([SampleBlocksPrefixCache, SampleBlocks, TokensProcessed],
                             ("CacheDrift", "story_net", "StoryTokens", *IDS))
    prompts = story_prompts(values["StoryTokens"], PROMPTS)
    if prompts is None:
        raise Review("your notebook's StoryTokens did not give the four prompts as token ids here, so the grader "
                     "cannot run CacheDrift as the cell above did; a person will look at it")
    drift = drifts(values["CacheDrift"], SampleBlocksPrefixCache, SampleBlocks, values, prompts)
    if not drift:
        return   # CacheDrift raised with your samplers at every block length: nothing could be drawn from them
    chosen, problems = match(found, quantities(drift, student_positions(TokensProcessed)))
    if problems:
        again = drifts(values["CacheDrift"], SampleBlocksPrefixCache, SampleBlocks, values, prompts)
        if not _same_drift(drift, again):
            raise Review("your samplers give different numbers each time CacheDrift runs them (they should be "
                         "greedy), so the grader cannot tell whether the figure shows their numbers; a person will "
                         "look at it")
        plots.missing(drawing, problems[0])
    _presentation(drawing, chosen)


def _needed(want):
    return [b for b, ok in want.items() if ok and not all(np.isnan(w) for w in ok)]


def match(found, wanted):
    """({quantity: [(axes, series)] that show it}, [a sentence for each quantity no series shows]). A
    quantity with nothing to draw (your functions give no number at any block length) needs no curve."""
    chosen, problems = {}, []
    for name, wants in wanted.items():
        want = wants[0][1]
        if not _needed(want):
            continue
        readings = [(ax, s, reading_of(v, wants)) for ax, s, v in found]
        whole = [(ax, s) for ax, s, r in readings if r == "is"]
        part = next((s for _, s, r in readings if r == "part"), None)
        if whole:
            chosen[name] = whole
        elif part is not None:
            problems.append(f"{part.describe()} holds {name} at some block lengths only: draw it at every block "
                            f"length of {list(BLOCKS)} (your functions give {_expected(want)})")
        else:
            read = "; ".join(_few([v[b] for b in sorted(v)]) for _, _, v in found[:6])
            problems.append(f"no curve of your figure shows {name} as your functions give it: {_expected(want)} "
                            f"({FORMS[name]}); the curves at the block lengths read: {read}")
    return chosen, problems


def _presentation(drawing, chosen):
    """Each quantity named (by a legend entry, or by its axes' y label or title when no other of the three
    shares the axes); the x axis labelled."""
    legends = {text for ax in drawing.axes for text in ax.legend}
    per_axes = {}
    for name, places in chosen.items():
        for ax, _ in places:
            per_axes.setdefault(id(ax), set()).add(name)
    for name, places in chosen.items():
        expect(any(_named(ax, s, legends, len(per_axes[id(ax)]) > 1) for ax, s in places),
               f"{places[0][1].describe()} shows {name}, but nothing names it: give it a y label or a legend entry "
               f"(or a title) that says what it shows")
    used = [ax for places in chosen.values() for ax, _ in places]
    expect(any(ax.xlabel for ax in used), "label the x axis with the block length")


# ---- show_costs --------------------------------------------------------------------------------

B, TAU = 8, 0.9
BLOCKS_OF_B = GEN // B


def _pair(cache, b):
    """(calls, positions) of SampleBlocks with a cache, in closed form, for the cost prompt."""
    calls = STEPS + 1 + (GEN // b - 1) if cache == "exact" else STEPS
    return calls, ref.TokensProcessed(PROMPT_LENGTH, GEN, b, STEPS, cache)


def cost_rows(samplers, values, prompt):
    """[(the row in the task's words, [acceptable (calls, positions)])] for the seven rows: the closed form
    and what the student's sampler makes (counted in the kernel as Counted counts, where it did not raise).
    Row 6 is only what SampleBlocksAbove makes, row 7 computed from it; both are left out where it raised
    (the cell could not have printed them)."""
    ids = [values[name] for name in IDS]
    runs = [("notebook 5's sampler (SampleBlocks on story_model, one block of 24)", samplers[0], "story_model",
             [GEN, GEN, STEPS, *ids], {}, _pair("none", GEN)),
            ("SampleBlocksBlockCausal on block_net (blocks of 8, no cache)", samplers[1], "block_net",
             [GEN, B, STEPS, *ids], {}, _pair("none", B)),
            ("your SampleBlocksCached on block_net (the exact cache)", samplers[2], "block_net",
             [GEN, B, STEPS, *ids], {}, _pair("exact", B)),
            ("your SampleBlocksPrefixCache on story_net (the prefix cache)", samplers[3], "story_net",
             [GEN, B, STEPS, *ids], {}, _pair("prefix", B)),
            ("your SampleBlocksPrefixCache with dual=True (the dual cache)", samplers[3], "story_net",
             [GEN, B, STEPS, *ids], {"dual": True}, _pair("dual", B)),
            ("SampleBlocksAbove on block_net (threshold 0.9, no cache)", samplers[4], "block_net",
             [GEN, B, TAU, *ids], {}, None)]
    rows = []
    for what, sampler, net, args, kwargs, closed in runs:
        result = sampler.drive("counted", args=[handle(values[net]), prompt, *args], net_at=0, kwargs=kwargs)
        counts = result[-1] if isinstance(result, list) and result and isinstance(result[-1], dict) else {}
        made = (counts.get("calls"), counts.get("positions")) if result[0] == "ok" else None
        if made is not None and not all(_whole(v) for v in made):
            made = None
        if closed is None:
            if made is None:
                return rows   # SampleBlocksAbove raised here: rows 6 and 7 could not have been printed
            c = made[0]
            rows.append((what, [made]))
            rows.append(("threshold commits with the exact cache, computed from row 6's calls",
                         [(1 + c + BLOCKS_OF_B - 1, PROMPT_LENGTH + c * B + (BLOCKS_OF_B - 1) * B)]))
        else:
            rows.append((what, list(dict.fromkeys([closed] + ([made] if made is not None else [])))))
    return rows


def holds(line_numbers, pair):
    """Does a line's numbers hold the calls and, further on, the positions?"""
    calls, positions = pair
    for i, value in enumerate(line_numbers):
        if value == calls and positions in line_numbers[i + 1:]:
            return True
    return False


def assigned(rows, lines):
    """A line for each row (each line one row), or the rows no assignment can give a line (Kuhn's
    augmenting paths: seven rows, a few lines)."""
    fits = [[k for k, values in enumerate(lines) if any(holds(values, pair) for pair in pairs)] for _, pairs in rows]
    owner = {}

    def place(r, seen):
        for k in fits[r]:
            if k not in seen:
                seen.add(k)
                if k not in owner or place(owner[k], seen):
                    owner[k] = r
                    return True
        return False
    return [r for r in range(len(rows)) if not place(r, set())]


def _pairs_said(pairs):
    return " or ".join(f"({c}, {p})" for c, p in pairs)


@check("show_costs")
def show_costs(drawn, SampleBlocks, SampleBlocksBlockCausal, SampleBlocksCached, SampleBlocksPrefixCache,
               SampleBlocksAbove):
    drawing = plots.Drawing.of(drawn)
    advice = "print one table: a row per sampler, with its calls and then its positions"
    text = drawing.need_printed(advice)
    samplers = [SampleBlocks, SampleBlocksBlockCausal, SampleBlocksCached, SampleBlocksPrefixCache, SampleBlocksAbove]
    values = notebook_values(samplers, ("story_model", "story_net", "block_net", "StoryTokens", *IDS))
    prompt = story_prompts(values["StoryTokens"], [PROMPTS[0]])
    if prompt is None:
        raise Review("your notebook's StoryTokens did not give the prompt as token ids here, so the grader cannot "
                     "count the samplers' work as the cell above did; a person will look at it")
    rows = cost_rows(samplers, values, prompt[0])
    lines = [numbers(line) for line in statements(text)]
    unplaced = assigned(rows, lines)
    if not unplaced:
        return
    what, pairs = rows[unplaced[0]]
    seen = "; ".join(_few(v, 8) for v in lines if v)[:300] or "none"
    message = (f"no line of your printout holds the calls and then the positions of {what}: {_pairs_said(pairs)} "
               f"(calls, positions){' as the closed form or as the grader counts them' if len(pairs) > 1 else ''}, "
               f"each row on a line of its own (the numbers of your lines: {seen})")
    printout_missing(message, text)
