"""A stand-in for a student's kernel, for tests of the trusted checker without Jupyter: reads one
JSON job per line on stdin ({"socket", "function", "checks"} and "source", or "reference": true),
defines the function the way a notebook would (the mutant catalog's namespace) or takes the
reference's, runs each check through maskdiff_client.run_check against the checker at "socket", and
prints one JSON line of [check, passed, message] results (a check that raised nothing: what it
printed other than "[check] passed", such as a review's note). A job with "notebook" runs a plot
cell instead, "source" (or the reference's cell), in a fresh copy of the namespace that the notebook's
cells before "function" (its grade_id) leave (tests/support/drawings.py: the notebook runs once per
kernel); each check gets `last_cell()` and the functions it names."""
import contextlib
import io
import json
import os
import sys

from maskdiff_client import GradingFailure, run_check
from tests.mutants import Mutant


def main():
    for line in sys.stdin:
        job = json.loads(line)
        os.environ["MASKDIFF_CHECKER"] = job["socket"]
        if job.get("notebook"):
            print(json.dumps(plot_job(job)), flush=True)
            continue
        if job.get("reference"):
            import maskdiff_solutions
            function = getattr(maskdiff_solutions, job["function"])
        else:
            function = Mutant(job["function"], "job", job["source"], ()).load()
        results = []
        for name in job["checks"]:
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):  # "[name] passed", or a review's note
                    run_check(name, function)
                results.append([name, True, "" if printed.getvalue() == f"[{name}] passed\n" else printed.getvalue()])
            except GradingFailure as failure:
                results.append([name, False, str(failure)])
        print(json.dumps(results), flush=True)


def plot_job(job):
    import torch
    from maskdiff_client import last_cell
    from maskdiff_solutions.grading.checker import argument_names
    from tests.mutants.plots import reference_source
    from tests.support import cells, drawings

    with contextlib.redirect_stdout(sys.stderr):
        namespace = drawings.namespace(job["notebook"], job["function"])  # the notebook runs once per kernel
        torch.manual_seed(0)
        if job.get("functions"):
            cells.run_cell(job["functions"], namespace)
        cells.run_cell(job.get("source") or reference_source(job["notebook"], job["function"]), namespace)
    record = last_cell()
    results = []
    for name in job["checks"]:
        try:
            with contextlib.redirect_stdout(sys.stderr):
                run_check(name, record, *[namespace[f] for f in argument_names(name)[1:]])
            results.append([name, True, ""])
        except GradingFailure as failure:
            results.append([name, False, str(failure)])
    return results


if __name__ == "__main__":
    main()
