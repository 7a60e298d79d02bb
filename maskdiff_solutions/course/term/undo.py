"""`undo`: the workspace put back as it was before its latest grading (course/ledger/safekeeping.py keeps
the copies), every derived file made from the record again, and the decisions a person made since applied
again; what it did, said."""
import sys

from ..ledger.commit import recover
from ..ledger.derived import rebuild
from ..ledger.export import remaker
from ..ledger.manifest import refuse_edited
from ..ledger.record import refuse_while_open
from ..ledger.returns import refresh
from ..ledger.safekeeping import hold, latest_kept, take_back
from ..ledger.versions import lines


def undo(course, workspace):
    workspace = course.workspace(workspace)
    with hold(workspace):   # a grading killed mid-commit is finished first, and kept as what undo replaces
        refuse_edited(workspace, "undo")
        latest_kept(workspace)   # none: stop before anything is written
        refuse_while_open(workspace / "gradebook.db", "undo")   # formgrader running, another program's lock
        recover(workspace, remaker(course, workspace))
        (put, about, replaced), applied, aside = take_back(course, workspace, remaker(course, workspace))
        rebuild(course, workspace)   # the files made from the record put back, made from it again
        made_again = refresh(course, workspace)
    print(f"put back the workspace as it was before {about['before']} (kept {about['kept']}); what it "
          f"replaced is kept in {replaced}")
    if applied:
        print(f"{len(applied)} decision{'s' * (len(applied) != 1)} a person made since (hand grades, overrides, "
              f"comments) applied again")
    for student, notebook, cell in sorted({(d["student"], d["notebook"], d["cell"]) for d in aside}):
        print(f"{student} {notebook[:2]}: {cell} set aside, to grade again: the grading a person's decision "
              f"of it was made on was undone", file=sys.stderr)
    for line in made_again + lines(course, workspace):
        print(line, file=sys.stderr)
    return 0
