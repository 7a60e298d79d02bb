"""repair: every graded cell of the release found again in a damaged submission (no kernel needed)."""
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from maskdiff_solutions.course.intake import folder, notebooks, repair
from tests.support import cases
from maskdiff_solutions.course.term.demo import solved

pytestmark = pytest.mark.course


@pytest.fixture
def pair(course):
    """(release notebook, the reference solution as a student would hand it in), for each notebook."""
    out = []
    for name in course.notebooks():
        release_nb = notebooks.read(course.release_dir / name)
        out.append((release_nb, solved(notebooks.read(course.source_dir / name),
                                       notebooks.read(course.release_dir / name))))
    return out


def ids(nb):
    return [notebooks.grade_id(c) for c in nb.cells if notebooks.grade_id(c)]


def metadata(nb):
    return {notebooks.grade_id(c): dict(notebooks.nbgrader(c)) for c in nb.cells if notebooks.grade_id(c)}


@pytest.mark.parametrize("filename, canonical", [
    ("01_noise_for_words.ipynb", "01_noise_for_words"),
    ("01_noise_for_words (1).ipynb", "01_noise_for_words"),
    ("Copy of 01_noise_for_words.ipynb", "01_noise_for_words"),
    ("Copy of Copy of 01_noise_for_words (2) (3).ipynb", "01_noise_for_words"),
    ("01_Noise_For_Words - Copy.IPYNB", "01_noise_for_words"),
    ("02_undiffusing.ipynb", "02_undiffusing"),
])
def test_renamed_files_are_recognised(filename, canonical):
    assert folder.canonical_name(filename) == canonical


def test_a_clean_submission_needs_no_repair(pair):
    for release_nb, nb in pair:
        fixed = repair.repair(nb, release_nb)
        assert fixed.changes == [] and fixed.recognised == 1.0
        assert metadata(fixed.nb) == metadata(nb)


def test_stripped_metadata_is_restored_cell_by_cell(pair):
    for release_nb, nb in pair:
        stripped = cases._strip_metadata(json_copy(nb))
        fixed = repair.repair(stripped, release_nb)
        assert metadata(fixed.nb) == metadata(release_nb)
        assert ids(fixed.nb) == ids(release_nb)  # and in the right cells, in order
        assert len(fixed.changes) == len(ids(release_nb))
        assert not any(notebooks.grade_id(c) for c in stripped.cells)  # the input is left alone
        for cell, original in zip(fixed.nb.cells, nb.cells):
            assert cell.source == original.source


def test_stripped_and_edited_with_scratch_cells_still_matches(pair):
    """Student cells added between graded cells, and an answer cell rewritten: matched by place."""
    for release_nb, nb in pair:
        nb = cases._strip_metadata(json_copy(nb))
        manual = [i for i, c in enumerate(release_nb.cells) if notebooks.is_manual(c)]
        nb.cells[manual[0]].source = "import matplotlib.pyplot as plt\nplt.plot([1, 2])"
        nb.cells.insert(manual[0] + 1, new_markdown_cell("my notes"))
        nb.cells.insert(0, new_code_cell("print('scratch')"))
        fixed = repair.repair(nb, release_nb)
        assert ids(fixed.nb) == ids(release_nb)
        graded = {notebooks.grade_id(c): c.source for c in fixed.nb.cells if notebooks.grade_id(c)}
        assert graded[notebooks.grade_id(release_nb.cells[manual[0]])].startswith("import matplotlib")


def test_duplicates_keep_the_students_edited_copy(pair):
    for release_nb, nb in pair:
        duplicated = cases._duplicate_stub(json_copy(nb), release_nb)
        name = notebooks.grade_id(cases._functions(release_nb)[0])
        fixed = repair.repair(duplicated, release_nb)
        kept = [c for c in fixed.nb.cells if notebooks.grade_id(c) == name]
        assert len(kept) == 1 and "NotImplementedError" not in kept[0].source
        assert ids(fixed.nb) == ids(release_nb)
        assert any("duplicate" in change and name in change for change in fixed.changes)


def test_deleted_test_cells_come_back_in_place(pair):
    for release_nb, nb in pair:
        tests = [notebooks.grade_id(c) for c in release_nb.cells if notebooks.is_test(c)]
        damaged = json_copy(nb)
        damaged.cells = [c for c in damaged.cells if notebooks.grade_id(c) not in (tests[0], tests[-1])]
        fixed = repair.repair(damaged, release_nb)
        assert ids(fixed.nb) == ids(release_nb)
        assert sorted(c for c in fixed.changes if "re-added" in c) == sorted(
            f"re-added the deleted cell {t!r} from the release" for t in (tests[0], tests[-1]))


def test_colab_format_is_accepted(pair, tmp_path):
    for release_nb, nb in pair:
        path = tmp_path / "Copy of x (1).ipynb"
        path.write_text(cases._colab_file(nb))
        fixed = repair.repair(repair.load(path), release_nb)
        assert fixed.nb.nbformat_minor == release_nb.nbformat_minor
        assert fixed.nb.metadata.kernelspec == release_nb.metadata.kernelspec
        assert len({c.id for c in fixed.nb.cells}) == len(fixed.nb.cells)
        nbformat.validate(fixed.nb)
        assert any("nbformat 4.0" in c for c in fixed.changes)
        assert any("language" in c for c in fixed.changes)


@pytest.mark.parametrize("content, says", [
    ("", "empty"), ("  \n", "empty"), ("{ nope", "not valid JSON"), ("[1, 2]", "not a notebook"),
    ('{"cells": [], "nbformat": 3}', "format 3"),
    # cut off in a string, or after a comma: said so, with the way to a whole file
    ('{"cells": [{"source": "import tor', r"cut off \(Unterminated string starting at line 1, its end\).* again"),
    ('{"cells": [{"source": "x"},\n', r"cut off \(Expecting value at line 2, its end\): it was not downloaded"),
])
def test_unreadable_files_say_why(tmp_path, content, says):
    path = tmp_path / "x.ipynb"
    path.write_text(content)
    with pytest.raises(repair.Unreadable, match=says):
        repair.load(path)


def test_some_other_notebook_is_not_recognised(pair):
    other = new_notebook(cells=[new_markdown_cell("# Another course"), new_code_cell("print(1)")])
    for release_nb, _ in pair:
        assert repair.repair(other, release_nb).recognised < repair.MIN_RECOGNISED


def test_student_code_naming_the_hidden_package_is_found(pair):
    for release_nb, nb in pair:
        clean = repair.repair(nb, release_nb).nb
        assert repair.hidden_package_uses(clean) == []  # the hidden tests' own import does not count
        evasive = json_copy(nb)
        evasive.cells.append(new_code_cell('m = __import__("maskdiff" + "_solutions")'))
        assert repair.hidden_package_uses(repair.repair(evasive, release_nb).nb) == [
            f"cell {len(evasive.cells)}"]


def json_copy(nb):
    return nbformat.from_dict(json.loads(json.dumps(nb)))


def test_a_notebook_under_a_name_of_its_own_is_found_by_content(course, tmp_path):
    from maskdiff_solutions.course.intake.folder import notebook_files, pick_files
    name = course.notebooks()[0]
    notebooks.write(notebooks.read(course.release_dir / name), tmp_path / "my homework.ipynb")
    (tmp_path / "notes.ipynb").write_text("{ not json")
    releases = {n: notebooks.read(course.release_dir / n) for n in course.notebooks()}
    chosen = pick_files(course.notebooks(), tmp_path)
    assert chosen == {}
    assert repair.recognise_by_content(releases, notebook_files(tmp_path)) == {name: tmp_path / "my homework.ipynb"}


def test_an_edited_given_cell_keeps_its_place_and_a_stranger_does_not_take_it(pair):
    for release_nb, nb in pair:
        locked = next(i for i, c in enumerate(release_nb.cells)
                      if notebooks.nbgrader(c).get("locked") and not notebooks.is_test(c))
        edited = cases._strip_metadata(json_copy(nb))
        edited.cells[locked].source += "\nprint('my addition')"
        fixed = repair.repair(edited, release_nb)
        assert ids(fixed.nb) == ids(release_nb) and len(fixed.nb.cells) == len(nb.cells)
        replaced = cases._strip_metadata(json_copy(nb))
        replaced.cells[locked].source = "print('something else entirely')"
        fixed = repair.repair(replaced, release_nb)
        assert ids(fixed.nb) == ids(release_nb) and len(fixed.nb.cells) == len(nb.cells) + 1
        assert any("re-added" in change for change in fixed.changes)


def test_a_students_task_enters_intake_once_and_repair_once(course, tmp_path, monkeypatch):
    """grade_student hands the folder to intake once (folder.prepare), which hands the chosen files to
    repair once (repair.prepare_all): each is entered from outside it once, whatever the folder holds
    (a notebook by its name, a renamed copy, one under a name of its own, a broken file)."""
    import sys
    from maskdiff_solutions.course.intake import folder as intake_folder
    from maskdiff_solutions.course.records.rows import Task
    from maskdiff_solutions.course.run import by_notebook, student
    names = course.notebooks()[:3]
    handed = tmp_path / "kim"
    handed.mkdir()
    notebooks.write(notebooks.read(course.release_dir / names[0]), handed / names[0])
    notebooks.write(notebooks.read(course.release_dir / names[1]), handed / f"Copy of {names[1][:-6]} (1).ipynb")
    notebooks.write(notebooks.read(course.release_dir / names[2]), handed / "my homework.ipynb")
    (handed / "notes.ipynb").write_text("{ not json")
    (tmp_path / "template.db").write_bytes(b"")

    class Stop(Exception):
        pass

    monkeypatch.setattr(by_notebook, "autograde_all", lambda *a, **k: (_ for _ in ()).throw(Stop()))
    watched = {intake_folder.__file__: "intake", repair.__file__: "repair"}
    entered, stack = {"intake": 0, "repair": 0}, []

    def profile(frame, event, arg):
        if event == "call":
            here = watched.get(frame.f_code.co_filename)
            caller = stack[-1] if stack else None
            if here and caller != here:
                entered[here] += 1
            stack.append(here)
        elif event == "return" and stack:
            stack.pop()

    task = Task(str(course.root), str(tmp_path / "template.db"), "kim", str(handed), str(tmp_path / "scratch"),
                selected=names)
    sys.setprofile(profile)
    try:
        with pytest.raises(Stop):
            student.grade_student(task)
    finally:
        sys.setprofile(None)
    assert entered == {"intake": 1, "repair": 1}
