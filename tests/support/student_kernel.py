"""A stand-in for a student's kernel, for tests of the trusted checker without Jupyter: reads one
JSON job per line on stdin ({"socket", "function", "checks"} and "source", or "reference": true),
defines the function the way a notebook would (the mutant catalog's namespace) or takes the
reference's, runs each check through maskdiff_client.run_check against the checker at "socket", and
prints one JSON line of [check, passed, message] results."""
import contextlib
import json
import os
import sys

from maskdiff_client import GradingFailure, run_check
from tests.mutants import Mutant


def main():
    for line in sys.stdin:
        job = json.loads(line)
        os.environ["MASKDIFF_CHECKER"] = job["socket"]
        if job.get("reference"):
            import maskdiff_solutions
            function = getattr(maskdiff_solutions, job["function"])
        else:
            function = Mutant(job["function"], "job", job["source"], ()).load()
        results = []
        for name in job["checks"]:
            try:
                with contextlib.redirect_stdout(sys.stderr):  # "[name] passed" lines
                    run_check(name, function)
                results.append([name, True, ""])
            except GradingFailure as failure:
                results.append([name, False, str(failure)])
        print(json.dumps(results), flush=True)


if __name__ == "__main__":
    main()
