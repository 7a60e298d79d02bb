"""Repair a submitted notebook against its release before nbgrader sees it.

Plain nbgrader trusts each cell's metadata: stripped metadata scores 0 silently, a duplicated
grade_id aborts autograde with a misleading message, a deleted test cell leaves the score empty.
Here every graded cell of the release is found again in the submission — by grade_id, locked cells
by their content, function cells by their `def Name(` line, stubs and answers by their place between
cells already found — its metadata restored, duplicates dropped and deleted cells re-added. Each
change is a sentence in `Repaired.changes`. Only copies are changed; the student's file never is.
`prepare_all` is the one door from intake/folder.py: a student's chosen files in, prepared notebooks out.
"""
import difflib
import hashlib
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from . import notebooks

# Below this share of the release's cells found in a submission, it is some other notebook.
MIN_RECOGNISED = 0.5
# An edited given cell is still that cell when this much of its text is left (difflib's ratio).
MIN_SIMILAR = 0.6
HIDDEN_NAME = re.compile(r"maskdiff[\W_]*solutions")  # also catches "maskdiff" + "_solutions"


class Unreadable(ValueError):
    """The file is no notebook at all (empty, not JSON, no cells); the message says which."""


@dataclass
class Repaired:
    nb: object
    changes: list = field(default_factory=list)
    recognised: float = 1.0  # share of the release's cells found in the submission


MAX_NOTEBOOK_BYTES = 200 << 20


def load(path):
    """The submission as a notebook, or Unreadable naming what is wrong with the file."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        raise Unreadable("it is not a regular file (a link or a device)")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise Unreadable(f"the file is larger than {MAX_NOTEBOOK_BYTES >> 20} MB")
    raw = path.read_bytes()
    if not raw.strip():
        raise Unreadable("the file is empty")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as err:
        raise Unreadable(_not_json(err)) from None
    except RecursionError:
        raise Unreadable("the file's JSON is nested too deeply to be a notebook") from None
    if isinstance(data, dict) and data.get("nbformat") == 3 and "worksheets" in data:
        raise Unreadable("the notebook is in the old format 3: open it in Jupyter or Colab and save it "
                         "again (File > Save), which writes format 4")
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise Unreadable("the file is JSON but not a notebook (no list of cells)")
    if data.get("nbformat") != 4:
        raise Unreadable(f"notebook format {data.get('nbformat')} is not supported (expected 4)")
    try:
        with warnings.catch_warnings():  # duplicate cell ids are fixed by repair(); no need to warn
            warnings.simplefilter("ignore")
            return nbformat.reads(json.dumps(data), as_version=4)
    except RecursionError:
        raise Unreadable("the file's JSON is nested too deeply to be a notebook") from None
    except Exception as err:  # noqa: BLE001 - nbformat raises many kinds; all mean "unreadable"
        raise Unreadable(f"the notebook cannot be read: {err}") from None


def _key(source):
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _signature(cell):
    """What identifies an answer cell whatever the student wrote in it: the function it defines."""
    if cell.cell_type != "code":
        return None
    names = notebooks.defined_functions(cell.source)
    return names[0] if names else None


def _not_json(err):
    """What is wrong with a file that is not JSON, and, when it stops short (a download or an upload that
    did not finish), that it is cut off and how to get it whole."""
    where = f"line {err.lineno}"
    said = f"{err.msg} {where}" if err.msg.endswith(" at") else f"{err.msg} at {where}"
    if err.msg.startswith("Unterminated string") or err.pos >= len(err.doc.rstrip()) - 1:
        return (f"the file is cut off ({said}, its end): it was not downloaded or uploaded whole; download it "
                f"from the platform again, or ask the student to hand it in again")
    return f"the file is not valid JSON ({said})"


def recognised_share(nb, release_nb):
    """Share of the release's cells found in nb: by content, grade_id or the function defined."""
    keys = {_key(c.source) for c in nb.cells}
    defined = {name for c in nb.cells if c.cell_type == "code"
               for name in notebooks.defined_functions(c.source)}
    gids = {notebooks.grade_id(c) for c in nb.cells} - {None}
    found = sum(1 for c in release_nb.cells
                if _key(c.source) in keys or (_signature(c) and _signature(c) in defined)
                or notebooks.grade_id(c) in gids)
    return found / max(1, len(release_nb.cells))


def repair(nb, release_nb):
    """A repaired copy of nb (nb itself is left alone) and the sentences saying what changed."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    changes = _normalise_format(nb, release_nb)
    share = recognised_share(nb, release_nb)
    if share < MIN_RECOGNISED:
        return Repaired(nb, changes, share)
    released = {notebooks.grade_id(c): c for c in release_nb.cells if notebooks.grade_id(c)}
    changes += _drop_duplicates(nb, released)
    for cell in nb.cells:
        gid = notebooks.grade_id(cell)
        if gid is not None and gid not in released:
            del cell.metadata["nbgrader"]
            changes.append(f"removed nbgrader metadata naming an unknown cell {gid!r}")
    owner = _match(nb, release_nb, changes)
    changes += _readd_missing(nb, release_nb, owner)
    _unique_ids(nb)
    return Repaired(nb, changes, share)


def _normalise_format(nb, release_nb):
    """Colab writes nbformat 4.0 and a kernelspec without `language`; use the release's."""
    changes = []
    if nb.nbformat_minor < release_nb.nbformat_minor:
        changes.append(f"upgraded the file format from nbformat 4.{nb.nbformat_minor} "
                       f"to 4.{release_nb.nbformat_minor}")
        nb.nbformat_minor = release_nb.nbformat_minor
    wanted = release_nb.metadata.get("kernelspec")
    if wanted and nb.metadata.get("kernelspec") != wanted:
        had = nb.metadata.get("kernelspec") or {}
        missing = sorted(set(wanted) - set(had))
        changes.append("set the kernelspec to the release's" +
                       (f" (it lacked {', '.join(missing)})" if missing else ""))
        nb.metadata["kernelspec"] = nbformat.from_dict(dict(wanted))
    return changes


def _drop_duplicates(nb, released):
    """Several cells with one grade_id: keep the student's edited copy (the last one that differs
    from the release), drop the others — a leftover stub after it would undo the student's code."""
    by_id = {}
    for index, cell in enumerate(nb.cells):
        if notebooks.grade_id(cell) in released:
            by_id.setdefault(notebooks.grade_id(cell), []).append(index)
    drop, changes = set(), []
    for gid, indices in by_id.items():
        if len(indices) < 2:
            continue
        stub = _key(released[gid].source)
        edited = [i for i in indices if _key(nb.cells[i].source) != stub]
        keep = (edited or indices)[-1]
        drop |= set(indices) - {keep}
        changes.append(f"dropped {len(indices) - 1} duplicate(s) of cell {gid!r}, kept "
                       f"{'the edited copy' if edited else 'one copy'} (cell {keep + 1})")
    nb.cells = [cell for i, cell in enumerate(nb.cells) if i not in drop]
    return changes


def _match(nb, release_nb, changes):
    """owner[student index] = release index, for every cell found; restores lost metadata."""
    owner = {}
    by_id = {notebooks.grade_id(c): i for i, c in enumerate(nb.cells) if notebooks.grade_id(c)}
    keys = {}
    for i, cell in enumerate(nb.cells):
        keys.setdefault((cell.cell_type, _key(cell.source)), []).append(i)
    release_keys = {}
    for r, cell in enumerate(release_nb.cells):
        release_keys.setdefault((cell.cell_type, _key(cell.source)), []).append(r)
    for r, cell in enumerate(release_nb.cells):
        gid = notebooks.grade_id(cell)
        if gid in by_id:
            owner[by_id[gid]] = r
    taken = set(owner)
    # Anchors: cells found by unique content (locked cells, instructions) or by the function defined.
    for r, cell in enumerate(release_nb.cells):
        if r in owner.values():
            continue
        key = (cell.cell_type, _key(cell.source))
        candidates = [i for i in keys.get(key, []) if i not in taken]
        how = "its content"
        if len(release_keys[key]) > 1 or len(candidates) != 1:
            candidates, how = [], ""
        name = _signature(cell) if notebooks.is_solution(cell) else None
        if not candidates and name:
            candidates = [i for i, c in enumerate(nb.cells) if i not in taken and _signature(c) == name
                          and not notebooks.grade_id(c)]
            candidates, how = candidates[-1:], f"its line `def {name}(`"
        if candidates:
            owner[candidates[0]] = r
            taken.add(candidates[0])
            _restore(nb.cells[candidates[0]], cell, how, changes)
    owner = _monotone(owner)
    # What is left (stubs a student filled in, edited locked cells) is matched by place: the cells
    # between the same two anchors, in order, of the same kind.
    for r, cell in enumerate(release_nb.cells):
        if r in owner.values() or not notebooks.grade_id(cell) or _has_id(nb, notebooks.grade_id(cell)):
            continue
        before = max((s for s, rr in owner.items() if rr < r), default=-1)
        after = min((s for s, rr in owner.items() if rr > r), default=len(nb.cells))
        gap = [i for i in range(before + 1, after)
               if i not in owner and nb.cells[i].cell_type == cell.cell_type
               and not notebooks.grade_id(nb.cells[i])]
        if notebooks.nbgrader(cell).get("locked"):  # an edited given cell: the closest text, if close
            gap = [i for i in gap if difflib.SequenceMatcher(
                None, _key(nb.cells[i].source), _key(cell.source)).ratio() >= MIN_SIMILAR][:1]
        if gap:
            owner[gap[0]] = r
            _restore(nb.cells[gap[0]], cell, "its place between the cells around it", changes)
    return owner


def _monotone(owner):
    """Keep the longest chain of matches in release order; a cell moved out of order is let go."""
    pairs = sorted(owner.items())
    best = []  # longest increasing subsequence of release indices, O(n^2) is plenty for notebooks
    chains = []
    for s, r in pairs:
        chain = max((c for c in chains if c[-1][1] < r), key=len, default=[])
        chains.append(chain + [(s, r)])
    if chains:
        best = max(chains, key=len)
    return dict(best)


def _has_id(nb, gid):
    return any(notebooks.grade_id(c) == gid for c in nb.cells)


def _restore(cell, released_cell, how, changes):
    if notebooks.grade_id(cell) or not notebooks.grade_id(released_cell):
        return
    cell.metadata["nbgrader"] = nbformat.from_dict(json.loads(json.dumps(notebooks.nbgrader(released_cell))))
    changes.append(f"restored the nbgrader metadata of cell {notebooks.grade_id(released_cell)!r} "
                   f"(found by {how})")


def _readd_missing(nb, release_nb, owner):
    """Graded cells of the release that are nowhere in the submission go back where they were:
    right after the student's copy of the cell that precedes them in the release."""
    placed = {r: s for s, r in owner.items()}
    inserts, changes = [], []
    for r, cell in enumerate(release_nb.cells):
        if r in placed or not notebooks.grade_id(cell) or _has_id(nb, notebooks.grade_id(cell)):
            continue
        after = max((s for rr, s in placed.items() if rr < r), default=-1)
        inserts.append((after, r))
        changes.append(f"re-added the deleted cell {notebooks.grade_id(cell)!r} from the release")
    for after, r in sorted(inserts, reverse=True):
        nb.cells.insert(after + 1, nbformat.from_dict(json.loads(json.dumps(release_nb.cells[r]))))
    return changes


def _unique_ids(nb):
    """nbformat 4.5 wants a unique id per cell; Colab's 4.0 files have none."""
    seen = set()
    for index, cell in enumerate(nb.cells):
        if not cell.get("id") or cell.id in seen:
            cell.id = hashlib.sha1(f"{index}:{cell.source}".encode()).hexdigest()[:16]
        seen.add(cell.id)


def hidden_package_uses(nb):
    """Cells of student code (not locked, not tests) that name the hidden package."""
    found = []
    for index, cell in enumerate(nb.cells):
        meta = notebooks.nbgrader(cell)
        if cell.cell_type == "code" and not meta.get("locked") and HIDDEN_NAME.search(cell.source):
            found.append(meta.get("grade_id") or f"cell {index + 1}")
    return found


# ---------------------------------------------------------------- a student's notebooks, prepared
@dataclass
class Prepared:
    """What became of one expected notebook before autograde."""
    file: str = ""            # the student's file it came from ("" when none)
    problem: str = ""         # why it cannot be graded
    changes: list = field(default_factory=list)
    hidden_uses: list = field(default_factory=list)
    left_out: list = field(default_factory=list)  # the student's other files not handed to the kernel
    chosen_over: str = ""     # the other files for this notebook, older, left out (folder.choice_note), in words


def recognise_by_content(releases, unused):
    """Notebooks under names of their own ('homework.ipynb'): each release with no file yet gets the
    unused file that holds most of its cells, if any holds at least MIN_RECOGNISED of them."""
    unused, found = list(unused), {}
    for name, release_nb in releases.items():
        if not unused:
            break
        shares = []
        for path in unused:
            try:
                shares.append((recognised_share(load(path), release_nb), path))
            except Unreadable:
                continue
        share, path = max(shares, default=(0.0, None), key=lambda pair: pair[0])
        if share >= MIN_RECOGNISED:
            found[name] = path
            unused.remove(path)
    return found


def prepare_all(releases, chosen, unused, folder, target):
    """Each expected notebook (the releases' names) from its file, repaired and written to target:
    `chosen` are the files picked by name, `unused` the student's other notebooks, among which the
    rest are recognised by content. Returns {name: Prepared}; one bad file never spoils another."""
    chosen = {**chosen, **recognise_by_content({n: nb for n, nb in releases.items() if n not in chosen}, unused)}
    prepared = {}
    for name in releases:
        path = chosen.get(name)
        if path is None:
            continue
        info = prepared[name] = Prepared(str(path.relative_to(folder)))
        if info.file != name:
            info.changes.append(f"graded {info.file!r} as {name}")
        try:
            _prepare_one(info, path, name, releases, target)
        except Exception as err:  # noqa: BLE001 - a file that breaks repair fails alone
            info.problem = f"{info.file} could not be prepared for grading: {type(err).__name__}: {err}"[:500]
    return prepared


def _prepare_one(info, path, name, releases, target):
    try:
        nb = load(path)
    except Unreadable as err:
        info.problem = f"{info.file}: {err}"
        return
    fixed = repair(nb, releases[name])
    if fixed.recognised < MIN_RECOGNISED:
        others = [other for other in releases if other != name and
                  recognised_share(nb, releases[other]) >= MIN_RECOGNISED]
        info.problem = (f"{info.file} is some other notebook: it holds {fixed.recognised:.0%} of "
                        f"the release's cells" + (f" (it looks like {others[0]})" if others else ""))
        return
    info.changes += fixed.changes
    info.hidden_uses = hidden_package_uses(fixed.nb)
    notebooks.write(fixed.nb, target / name)
