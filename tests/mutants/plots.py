"""Wrong plots and printouts a student would hand in, for the hidden checks that read what a cell drew.

Each `PlotMutant` is the reference's plot cell with one realistic mistake (`edits`: replacements in
its source), optionally after a student function replaced by a buggy one (`functions`: a cell run
before the plot, as if the student had written it so). It must fail exactly the checks in `fails`;
the reference's cell passes them all (tests/test_checks_plots.py).
"""
from dataclasses import dataclass

from tests.support import cells


@dataclass(frozen=True)
class PlotMutant:
    notebook: str
    cell: str               # grade_id of the plot cell
    name: str
    edits: tuple            # (old, new) replacements in the reference cell's source
    fails: tuple
    functions: str = ""     # a cell run just before the plot (a buggy function the plot should show)

    def source(self, reference):
        for old, new in self.edits:
            if old not in reference:
                raise ValueError(f"mutant {self.cell}:{self.name}: {old!r} is not in the reference cell")
            reference = reference.replace(old, new)
        return reference


NB01 = "01_noise_for_words.ipynb"

MUTANTS = [
    # notebook 01: the schedule
    PlotMutant(NB01, "plot_schedule", "alpha_bar_drawn_as_masked_share",
               (('ax.plot(steps, alpha_bar, "o"', 'ax.plot(steps, 1 - alpha_bar, "o"'),), ("plot_schedule",)),
    PlotMutant(NB01, "plot_schedule", "wrong_T", (("T = 50", "T = 20"),), ("plot_schedule",)),
    PlotMutant(NB01, "plot_schedule", "no_straight_line",
               (('ax.plot(steps, 1 - steps / T, "k--", lw=1, label=r"$1 - t/T$")\n', ''),), ("plot_schedule",)),
    PlotMutant(NB01, "plot_schedule", "no_legend", (("ax.legend()\n", ""),), ("plot_schedule",)),
    PlotMutant(NB01, "plot_schedule", "no_axis_labels", (('ax.set_ylabel("probability")\n', ""),),
               ("plot_schedule",)),
    # notebook 01: the printed history
    PlotMutant(NB01, "show_dissolution", "only_the_last_sentence",
               (('for t, x in enumerate(ForwardMask(x_0, 16, beta)):\n    print(f"t = {t:2d}  {Decode(x)}")',
                 'print(Decode(ForwardMask(x_0, 16, beta)[-1]))'),), ("show_dissolution",)),
    PlotMutant(NB01, "show_dissolution", "token_ids_not_words", (("{Decode(x)}", "{x.tolist()}"),),
               ("show_dissolution",)),
    PlotMutant(NB01, "show_dissolution", "wrong_T",
               (("MakeSchedule(16)", "MakeSchedule(10)"), ("x_0, 16, beta", "x_0, 10, beta")), ("show_dissolution",)),
    # notebook 01: the fraction masked
    PlotMutant(NB01, "plot_masked_fraction", "theory_alpha_bar_not_one_minus",
               (('ax.plot(1 - alpha_bar, "k-"', 'ax.plot(alpha_bar, "k-"'),), ("plot_masked_fraction",)),
    PlotMutant(NB01, "plot_masked_fraction", "wrong_T", (("T = 50", "T = 30"),), ("plot_masked_fraction",)),
    PlotMutant(NB01, "plot_masked_fraction", "theory_drawn_as_the_runs",
               (('ax.plot(masked / n_runs, "o"', 'ax.plot(1 - alpha_bar, "o"'),), ("plot_masked_fraction",)),
    PlotMutant(NB01, "plot_masked_fraction", "visible_share_not_masked",
               (("== MASK).float()", "!= MASK).float()"),), ("plot_masked_fraction",)),
    PlotMutant(NB01, "plot_masked_fraction", "runs_of_another_function",
               (("(torch.stack(ForwardMask(x_0, T, beta)) == MASK)",
                 "(torch.stack([x_0] + [torch.where(torch.rand(len(x_0)) < 1 - alpha_bar[s], x_0, MASK) "
                 "for s in range(1, T + 1)]) == MASK)"),),
               ("plot_masked_fraction",),
               functions="def ForwardMask(x_0, t, beta):\n    xs = [x_0.clone()]\n    for s in range(1, t + 1):\n"
                         "        x = xs[-1].clone()\n        x[torch.rand(len(x)) < 0.5 * float(beta[s])] = MASK\n"
                         "        xs.append(x)\n    return xs\n"),
    # notebook 01: the two histograms and the binomial law
    PlotMutant(NB01, "plot_masked_histograms", "counts_beside_a_probability_law",
               (('density=True, alpha=0.5, label="ForwardMask")', 'alpha=0.5, label="ForwardMask")'),
                ('density=True, alpha=0.5, label="ForwardMaskFast")', 'alpha=0.5, label="ForwardMaskFast")')),
               ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "histograms_of_the_wrong_step",
               (("ForwardMask(x_0, t, beta)", "ForwardMask(x_0, 10, beta)"),
                ("ForwardMaskFast(x_0, t, alpha_bar)", "ForwardMaskFast(x_0, 10, alpha_bar)")),
               ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "law_drawn_as_a_histogram",
               (('ax.hist(fast, bins=bins, density=True, alpha=0.5, label="ForwardMaskFast")',
                 'ax.bar(n, law, alpha=0.5, label="ForwardMaskFast")'),), ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "law_with_p_alpha_bar",
               (("p = 1 - float(alpha_bar[t])", "p = float(alpha_bar[t])"),), ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "right_samples_not_from_the_buggy_function",
               (("fast = [int((ForwardMaskFast(x_0, t, alpha_bar) == MASK).sum()) for _ in range(n_runs)]",
                 "fast = [int((torch.rand(L) < 1 - float(alpha_bar[t])).sum()) for _ in range(n_runs)]"),),
               ("plot_masked_histograms",),
               functions="def ForwardMaskFast(x_0, t, alpha_bar):\n"
                         "    hit = torch.rand(len(x_0)) < float(alpha_bar[t])\n"
                         "    return torch.where(hit, torch.full_like(x_0, MASK), x_0)\n"),
]


def reference_source(notebook, cell):
    for c in cells.notebook_cells(notebook):
        if c.cell_type == "code" and cells.nbtools.grade_id(c) == cell:
            return c.source
    raise KeyError(cell)
