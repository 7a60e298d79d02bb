"""The instructor's summary of a graded batch: how often each autograded test passed, and how the
students' autograded totals spread — in the terminal and as a PNG."""
from collections import Counter

import matplotlib

matplotlib.use("Agg")  # files only: grading runs on servers without a display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ... import colab  # noqa: E402
from ..layout import plural  # noqa: E402

BAR = 30  # characters of a full terminal bar


def pass_rates(report):
    """(notebook, test) -> (passed, graded): over every notebook that was autograded."""
    rates = {}
    for (_, notebook), tests in sorted(report.tests.items()):
        for test, (score, best) in tests.items():
            passed, graded = rates.get((notebook, test), (0, 0))
            rates[(notebook, test)] = (passed + (score >= best), graded + 1)
    return rates


def totals(report):
    """student -> autograded points over all notebooks (0 for missing or failed ones), and the most
    a student can get."""
    best = {}
    for row in report.rows:
        best[row.notebook] = max(best.get(row.notebook, 0.0), row.auto_max)
    scores = {}
    for row in report.rows:
        scores[row.student] = scores.get(row.student, 0.0) + row.auto_score
    return scores, sum(best.values())


def text(report):
    rates, (scores, most) = pass_rates(report), totals(report)
    width = max((len(f"{nb}/{test}") for nb, test in rates), default=10)
    left = Counter(row.status for row in report.rows if row.status in ("missing", "failed"))
    kept_out = ", ".join(f"{plural(n, 'notebook')} {status}" for status, n in sorted(left.items()))
    counted = ("per-test pass rates, over the notebooks that were autograded"
               + (f" ({kept_out} left out: their rows say why, and they count 0 in the totals)" if left else "") + ":")
    lines = [counted]
    for (notebook, test), (passed, graded) in rates.items():
        share = passed / graded
        lines.append(f"  {notebook + '/' + test:<{width}} {'#' * round(BAR * share):<{BAR}} "
                     f"{passed:>3}/{graded:<3} {share:5.0%}")
    review = sum(len(row.review.split()) for row in report.rows)
    if review:
        lines.append(f"{review} drawing{'s' * (review != 1)} to review: the reader could not decide; a person "
                     f"grades them in formgrader, then `python -m maskdiff_solutions export`")
    lacked = colab.lacked(row.reason for row in report.rows)
    if lacked:
        lines.append(f"the grader lacks {', '.join(lacked)}, which Colab has: drawings that import "
                     f"{'it' if len(lacked) == 1 else 'them'} went to review; grade them in formgrader, or "
                     f"install {'it' if len(lacked) == 1 else 'them'} where grading runs "
                     f"(pip install {' '.join(lacked)}) and grade again")
    statuses = Counter(row.status for row in report.rows)
    lines.append("statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    if report.answers_optional:
        lines.append("written answers: optional in this course, not graded; these totals are the grades")
    lines.append(f"autograded totals (out of {most:g}), {plural(len(scores), 'student')}:")
    counts = Counter(scores.values())
    top = max(counts.values(), default=1)
    for score in sorted(counts):
        lines.append(f"  {score:>6g} {'#' * max(1, round(BAR * counts[score] / top)):<{BAR}} "
                     f"{counts[score]}")
    return "\n".join(lines)


def figure(report):
    """The pass rate of every autograded test beside the histogram of the students' totals."""
    rates, (scores, most) = pass_rates(report), totals(report)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, max(3.5, 0.35 * len(rates) + 1.5)))
    names = [f"{nb}\n{test}" if len(rates) < 8 else test for nb, test in rates]
    shares = [100 * passed / graded for passed, graded in rates.values()]
    left.barh(range(len(shares)), shares, color="tab:blue")
    left.set_yticks(range(len(shares)), names, fontsize=8)
    left.invert_yaxis()
    left.set_xlim(0, 100)
    left.set_xlabel("students passing (%)")
    left.set_title("autograded tests")
    right.hist(list(scores.values()), bins=max(1, min(20, int(most) + 1)), range=(-0.5, most + 0.5),
               color="tab:orange", edgecolor="black")
    right.set_xlabel(f"autograded points (out of {most:g})")
    right.set_ylabel("students")
    right.yaxis.set_major_locator(MaxNLocator(integer=True))   # never 1.25 students
    right.set_title(f"totals of {plural(len(scores), 'student')}")
    fig.tight_layout()
    return fig


def plot(report, path):
    fig = figure(report)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write(report, workspace):
    """grading-summary.txt and grading-summary.png in the workspace; returns the text."""
    summary = text(report)
    (workspace / "grading-summary.txt").write_text(summary + "\n")
    plot(report, workspace / "grading-summary.png")
    return summary
