"""The `similarity` report: one self-contained HTML page (nothing fetched: no script, font, style sheet
or picture, as the feedback pages) ranking the pairs of students most alike over all notebooks and
in each, with each listed pair's matching code side by side, marked; the CSV of every pair beside it.
Everything that comes from students (code, answers, folder names) and every name is escaped."""
import csv
import html
import importlib.metadata
import statistics
from pathlib import Path

from . import similarity as sim

CAUTION = ("High similarity is a reason to look, never a verdict. Students of one course write alike (one "
           "task, one lesson, and a short function has few ways to be written), and students allowed to work "
           "together share code honestly. Read both sides, and what your course allows, before concluding "
           "anything.")
STYLE = """body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.45;overflow-wrap:anywhere}
.caution{background:#fff4e5;border-left:4px solid #e69500;padding:.5em 1em}
table{border-collapse:collapse;margin:.5em 0 1em}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
td.n{text-align:right}table.side{width:100%;table-layout:fixed}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:.85em}mark{background:#ffd54f}
.gid{font-weight:bold;margin:.2em 0}.none{color:#777}summary{cursor:pointer;margin:.3em 0}"""


def esc(text):
    return html.escape(str(text), quote=True)


def percent(share):
    return f"{100 * share:.0f}%"


def highlighted(text, slices):
    """The text escaped, each matched stretch in <mark>."""
    out, at = [], 0
    for start, end in sorted(slices):
        start, end = max(start, at), min(end, len(text))
        if end > start:
            out += [esc(text[at:start]), "<mark>", esc(text[start:end]), "</mark>"]
            at = end
    return "".join(out) + esc(text[at:])


def view(unit, pair):
    """The cells of a pair that hold a match on either side, lined up by grade_id:
    [(grade_id, (text, [(start, end)]) or None for a, the same for b)]."""
    a, b = unit.parts[pair.a], unit.parts[pair.b]
    sides = []
    for part, other in ((a, b), (b, a)):
        slices = sim.slices(part, part.shared_with(other))
        cells = {cell.grade_id: (cell.text, [(int(s), int(e)) for s, e in zip(*slices[i])] if i in slices else [])
                 for i, cell in enumerate(part.cells)}
        sides.append((cells, [part.cells[i].grade_id for i in sorted(slices)]))
    order = list(dict.fromkeys(sides[0][1] + sides[1][1]))
    return [(grade_id, sides[0][0].get(grade_id), sides[1][0].get(grade_id)) for grade_id in order]


def write_csv(result, path):
    """Every pair that shares something: its row over all notebooks, then its row in each notebook."""
    rows = [pair for pairs in result.overall.values() for pair in pairs]
    rows += [pair for unit in result.units for pair in unit.pairs]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(sim.CSV_FIELDS)
        for p in rows:
            writer.writerow([p.a, result.names.get(p.a, ""), p.b, result.names.get(p.b, ""), p.notebook, p.part,
                             f"{p.share_a:.3f}", f"{p.share_b:.3f}", p.matched_a, p.matched_b, p.tokens_a, p.tokens_b])
    return path


def _side(side, grade_id):
    if side is None:
        return f'<p class="none">no cell {esc(grade_id)}</p>'
    return f'<p class="gid">{esc(grade_id)}</p><pre>{highlighted(*side)}</pre>'


def _pairs_table(result, pairs, link):
    rows = ["<table><tr><th>#</th><th>student A</th><th>student B</th><th>share of A</th><th>share of B</th>"
            "<th>tokens shared (A, B)</th><th>where</th></tr>"]
    for i, (pair, where) in enumerate(zip(pairs, link)):
        rows.append(f"<tr><td class=n>{i + 1}</td><td>{esc(result.label(pair.a))}</td><td>{esc(result.label(pair.b))}"
                    f"</td><td class=n>{percent(pair.share_a)}</td><td class=n>{percent(pair.share_b)}</td>"
                    f"<td class=n>{pair.matched_a}, {pair.matched_b}</td><td>{where}</td></tr>")
    return "\n".join(rows) + "</table>" if pairs else "<p>No two students share anything beyond the release.</p>"


def _unit(result, u, unit, top, shown):
    own = unit.own
    count = len(own) * (len(own) - 1) // 2
    median = statistics.median([p.share for p in unit.pairs] + [0.0] * (count - len(unit.pairs))) if count else 0.0
    stubs = len(unit.parts) - len(own)
    what = "code" if unit.part == sim.CODE else "written answers"
    lines = [f'<h2 id="u{u}">{esc(unit.notebook)}: {what}</h2>',
             f"<p>{len(own)} students handed in {what} of their own here"
             + (f" ({stubs} more only what the release gives)" if stubs else "")
             + f"; {len(unit.pairs)} of {count} pairs share some; the median pair's smaller share is "
             f"{percent(median)}.</p>"]
    listed = unit.pairs[:top]
    for i, pair in enumerate(listed):
        shown[unit.notebook, unit.part, pair.a, pair.b] = f"u{u}-p{i}"
    lines.append(_pairs_table(result, listed, [f'<a href="#u{u}-p{i}">code</a>' if unit.part == sim.CODE
                                               else f'<a href="#u{u}-p{i}">answers</a>' for i in range(len(listed))]))
    for i, pair in enumerate(listed):
        a, b = esc(result.label(pair.a)), esc(result.label(pair.b))
        lines.append(f'<details id="u{u}-p{i}"{" open" if i == 0 else ""}><summary>#{i + 1} {a} and {b}: '
                     f"{percent(pair.share_a)} of A's own {what} and {percent(pair.share_b)} of B's lie in "
                     f'stretches both hold</summary><table class="side"><tr><th>A: {a}</th><th>B: {b}</th></tr>')
        lines += [f"<tr><td>{_side(left, grade_id)}</td><td>{_side(right, grade_id)}</td></tr>"
                  for grade_id, left, right in view(unit, pair)]
        lines.append("</table></details>")
    return "\n".join(lines)


def _overall(result, part, top, shown):
    what = "code" if part == sim.CODE else "written answers"
    listed = result.overall[part][:top]
    units = [(unit, {(p.a, p.b): p for p in unit.pairs}) for unit in result.units if unit.part == part]
    where = []
    for pair in listed:
        found = []
        for unit, pairs in units:
            mine = pairs.get((pair.a, pair.b))
            if mine:
                anchor = shown.get((unit.notebook, part, pair.a, pair.b))
                text = f"{esc(unit.notebook.split('_')[0])} {percent(mine.share)}"
                found.append(f'<a href="#{anchor}">{text}</a>' if anchor else text)
        where.append(", ".join(found))
    return "\n".join([f'<h2 id="all-{"code" if part == sim.CODE else "answers"}">All notebooks: {what}</h2>',
                      f"<p>Each pair's tokens over the notebooks both handed in; <em>where</em> gives each "
                      f"notebook's smaller share.</p>", _pairs_table(result, listed, where)])


def render(result, top):
    shown = {}   # (notebook, part, a, b) -> the anchor of a pair shown with its code
    units = [_unit(result, u, unit, top, shown) for u, unit in enumerate(result.units)]
    overall = [_overall(result, part, top, shown) for part in result.overall]
    notes = "".join(f"<li>{esc(note)}</li>" for note in result.notes)
    version = importlib.metadata.version("copydetect")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Similar submissions: {esc(result.assignment)}</title>
<style>{STYLE}</style></head>
<body><h1>Similar submissions: {esc(result.assignment)}</h1>
<p class="caution"><strong>{esc(CAUTION)}</strong></p>
<p>The solution cells of {len(result.students)} students' handed-in notebooks, compared notebook by notebook with
copydetect {esc(version)}, a detector like MOSS: names, strings, comments and layout are filtered out, so renaming
and reformatting hide nothing, and what the release gives everyone (given cells, tests, the stubs) is left out, so
students who share only that share nothing. A pair's <em>share of A</em> is the part of A's own code that lies in
stretches of at least {sim.NOISE} characters of filtered code that B's holds too. Pairs are ranked by the smaller
share; each table lists the first {top}, and {sim.CSV_NAME} beside this page every pair that shares anything. Marked
text is what matched.</p>
{f"<p>Left out:</p><ul>{notes}</ul>" if notes else ""}
{"".join(overall)}
{"".join(units)}
</body></html>
"""


def report(course, workspace=None, out=None, notebooks=None, answers=False, top=20):
    """Compare, then write the page and the CSV into `out` (default WORKSPACE/similarity/):
    (the Comparison, the page's path, the CSV's path)."""
    if top < 1:
        raise ValueError(f"--top {top}: at least 1 pair must be listed")
    workspace = course.workspace(workspace)
    result = sim.compare(course, workspace, notebooks, answers)
    folder = Path(out).resolve() if out else workspace / sim.FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / sim.REPORT
    page.write_text(render(result, top), encoding="utf-8")
    return result, page, write_csv(result, folder / sim.CSV_NAME)


def closing(result, page, table, most=3):
    """What the command prints: what was compared, the pairs most alike, where the files are."""
    handed = ", ".join(dict.fromkeys(unit.notebook.split("_")[0] for unit in result.units)) or "none"
    lines = [f"compared the solution cells of {len(result.students)} students, notebook by notebook "
             f"({', '.join(result.overall) or 'code'}); notebooks handed in: {handed}"]
    for part, pairs in result.overall.items():
        for pair in pairs[:most]:
            lines.append(f"  {part}: {result.label(pair.a)} and {result.label(pair.b)}: {percent(pair.share_a)} and "
                         f"{percent(pair.share_b)} of their own shared")
    return lines + ["a reason to look, never a verdict", f"report: {page}", f"pairs: {table}"]
