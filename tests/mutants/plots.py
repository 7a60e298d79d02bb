"""Wrong plots and printouts a student would hand in, for the hidden checks that read what a cell drew.

Each `PlotMutant` is the reference's plot cell with one realistic mistake (`edits`: replacements in
its source), optionally after a student function replaced by a buggy one (`functions`: a cell run
before the plot, as if the student had written it so). It must fail exactly the checks in `fails`;
the reference's cell passes them all (tests/grading/test_checks_plots.py).
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
# the reference plot_masked_histograms' drawing, which the mutants in other libraries replace
MATPLOTLIB_HISTOGRAMS = ('ax.hist(slow, bins=bins, density=True, alpha=0.5, label="ForwardMask")\n'
                         'ax.hist(fast, bins=bins, density=True, alpha=0.5, label="ForwardMaskFast")\n'
                         'ax.plot(n, law, "ko-", ms=3, label=f"Binomial({L}, {p:.2f})")\n'
                         'ax.set_xlabel("number of masked tokens")\n'
                         'ax.set_ylabel("probability")\n'
                         'ax.legend()\n'
                         'plt.show()\n')

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
    PlotMutant(NB01, "plot_masked_fraction", "ten_runs_not_repeats_1000", (("n_runs = repeats(1000)", "n_runs = 10"),),
               ("plot_masked_fraction",)),
    # notebook 01: the two histograms and the binomial law
    PlotMutant(NB01, "plot_masked_histograms", "fifty_runs_not_repeats_5000",
               (("n_runs = repeats(5000)", "n_runs = 50"),), ("plot_masked_histograms",)),
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
    PlotMutant(NB01, "plot_masked_histograms", "law_between_the_bars",   # bars centred on n, the law at n + 1/2
               (('ax.plot(n, law', 'ax.plot(n + 0.5, law'),), ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "law_a_bar_to_the_right",   # bars over [n, n+1), the law at n + 1
               (("bins = torch.arange(L + 2) - 0.5", "bins = torch.arange(L + 2)"), ('ax.plot(n, law', 'ax.plot(n + 1, law')),
               ("plot_masked_histograms",)),
    PlotMutant(NB01, "plot_masked_histograms", "plotly_histograms_piled_up",   # plotly express stacks by default
               (('fig, ax = plt.subplots(figsize=(6, 3.5))\n', 'import plotly.express as px\n'),
                (MATPLOTLIB_HISTOGRAMS,
                 'fig = px.histogram(x=slow + fast, color=["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast),\n'
                 '                   histnorm="probability", labels={"x": "number of masked tokens"})\n'
                 'fig.update_traces(histnorm="probability", xbins=dict(start=-0.5, end=L + 0.5, size=1))\n'
                 'fig.add_scatter(x=n.tolist(), y=law, mode="lines+markers", name="binomial")\n'
                 'fig.update_layout(yaxis_title="probability")\n'
                 'fig.show()\n')),
               ("plot_masked_histograms",)),
    # altair stacks bars of several colours unless told stack=None: the two histograms piled up, their
    # bins and shares worked out in the browser (transforms, bin, sum: VegaFusion, maskdiff_client/vega.py)
    PlotMutant(NB01, "plot_masked_histograms", "altair_histograms_piled_up",
               (('fig, ax = plt.subplots(figsize=(6, 3.5))\n', 'import altair as alt\nimport pandas as pd\n'),
                (MATPLOTLIB_HISTOGRAMS,
                 'alt.data_transformers.disable_max_rows()\n'
                 'runs = pd.DataFrame({"n": slow + fast, "how": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})\n'
                 'bars = alt.Chart(runs).transform_joinaggregate(total="count()", groupby=["how"]).transform_calculate(\n'
                 '    share="1 / datum.total").mark_bar(opacity=0.5).encode(\n'
                 '    x=alt.X("n:Q", bin=alt.Bin(step=1), title="number of masked tokens"),\n'
                 '    y=alt.Y("sum(share):Q", title="probability"), color="how:N")\n'
                 'binomial = alt.Chart(pd.DataFrame({"n": (n + 0.5).tolist(), "p": law})).mark_line(point=True, color="black")\n'
                 'display(bars + binomial.encode(x="n:Q", y="p:Q"))\n')),
               ("plot_masked_histograms",)),
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

NB02 = "02_undiffusing.ipynb"
REVEAL_ALL = ("def Undiffuse(x_t, t, GuessX0, mask):\n"
              "    guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1)\n"
              "    return torch.where(x_t == mask, guess, x_t)\n")                       # one step reveals every mask
REVEAL_LATE = ("def Undiffuse(x_t, t, GuessX0, mask):\n"
               "    guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1)\n"
               "    reveal = (x_t == mask) & (torch.rand(len(x_t)) < 1 / (t + 1))\n"
               "    return torch.where(reveal, guess, x_t)\n")                             # some masks survive t = 1
ONE_RUN_STEP = '        x = Undiffuse(x, t, GuessX0_one, MASK)\n        print(f"  t = {t - 1}: {Decode(x)}")'
GREEDY_STEP = '        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)\n        print(f"  t = {t - 1}: {Decode(x)}")'

MUTANTS += [
    # notebook 02: five printed runs in the one-sentence world
    PlotMutant(NB02, "show_undiffusion_runs", "only_the_last_sentence",
               ((ONE_RUN_STEP, '        x = Undiffuse(x, t, GuessX0_one, MASK)\n    print(f"  t = 0: {Decode(x)}")'),),
               ("show_undiffusion_runs",)),
    PlotMutant(NB02, "show_undiffusion_runs", "wrong_T", (("range(10, 0, -1)", "range(5, 0, -1)"),),
               ("show_undiffusion_runs",)),
    PlotMutant(NB02, "show_undiffusion_runs", "token_ids_not_words", (("{Decode(x)}", "{x.tolist()}"),),
               ("show_undiffusion_runs",)),
    PlotMutant(NB02, "show_undiffusion_runs", "one_run", (("range(5)", "range(1)"),), ("show_undiffusion_runs",)),
    PlotMutant(NB02, "show_undiffusion_runs", "every_step_from_fresh_masks",
               (("Undiffuse(x, t, GuessX0_one, MASK)", "Undiffuse(torch.full((4,), MASK), t, GuessX0_one, MASK)"),),
               ("show_undiffusion_runs",)),
    # notebook 02: the tally of the one-sentence world
    PlotMutant(NB02, "show_thousand_runs", "one_sentence_not_the_tally",
               (("print(Tally(one_sentence_run, 1000))", "print(Decode(one_sentence_run()))"),),
               ("show_thousand_runs",)),
    PlotMutant(NB02, "show_thousand_runs", "p_init_tallied_not_the_buggy_undiffusion",
               (("print(Tally(one_sentence_run, 1000))", "print(Tally(SamplePInit_one, 1000))"),),
               ("show_thousand_runs",), functions=REVEAL_LATE),
    # notebook 02: the two histograms of x_5
    PlotMutant(NB02, "plot_undiffusion_histograms", "wrong_T",
               (("T, t_stop, n_runs = 10, 5", "T, t_stop, n_runs = 20, 5"),),
               ("plot_undiffusion_histograms",)),
    PlotMutant(NB02, "plot_undiffusion_histograms", "undiffused_all_the_way",
               (("for t in range(T, t_stop, -1)", "for t in range(T, 0, -1)"),), ("plot_undiffusion_histograms",)),
    PlotMutant(NB02, "plot_undiffusion_histograms", "forward_to_the_wrong_step",
               (("ForwardMaskFast(SamplePInit_one(), t_stop, alpha_bar)",
                 "ForwardMaskFast(SamplePInit_one(), 2, alpha_bar)"),),
               ("plot_undiffusion_histograms",)),
    PlotMutant(NB02, "plot_undiffusion_histograms", "no_legend", (("plt.legend()\n", ""),),
               ("plot_undiffusion_histograms",)),
    # notebook 02: the bar chart at T = 50
    PlotMutant(NB02, "plot_two_sentence_bars", "wrong_T", (("sentences(50, Undiffuse", "sentences(1, Undiffuse"),),
               ("plot_two_sentence_bars",)),
    PlotMutant(NB02, "plot_two_sentence_bars", "p_init_drawn_not_the_buggy_undiffusion",
               (("made = sentences(50, Undiffuse, 2000)", "made = Tally(SamplePInit_two, 2000)"),),
               ("plot_two_sentence_bars",), functions=REVEAL_ALL),
    PlotMutant(NB02, "plot_two_sentence_bars", "bars_not_named",
               (('    ax.set_xticks(range(len(names)), names, rotation=60, ha="right")\n', ""),),
               ("plot_two_sentence_bars",)),
    PlotMutant(NB02, "plot_two_sentence_bars", "no_ylabel", (('    ax.set_ylabel("fraction of sentences")\n', ""),),
               ("plot_two_sentence_bars",)),
    # notebook 02: the guess for 'cat' along ten runs
    PlotMutant(NB02, "plot_cat_probability", "probability_of_box", (('vocab.index("cat")]', 'vocab.index("box")]'),),
               ("plot_cat_probability",)),
    PlotMutant(NB02, "plot_cat_probability", "wrong_position", (("GuessX0_two(x)[1,", "GuessX0_two(x)[2,"),),
               ("plot_cat_probability",)),
    PlotMutant(NB02, "plot_cat_probability", "wrong_T", (("T = 50", "T = 20"),), ("plot_cat_probability",)),
    PlotMutant(NB02, "plot_cat_probability", "y_axis_not_0_to_1", (("plt.ylim(-0.03, 1.03)", "plt.ylim(0.5, 1.03)"),),
               ("plot_cat_probability",)),
    PlotMutant(NB02, "plot_cat_probability", "three_runs", (("range(10)", "range(3)"),), ("plot_cat_probability",)),
    # notebook 02: bar charts with few steps
    PlotMutant(NB02, "plot_bars_few_steps", "wrong_T", (("(1, 2, 4, 10)", "(1, 2, 5, 10)"),), ("plot_bars_few_steps",)),
    PlotMutant(NB02, "plot_bars_few_steps", "every_chart_at_T_1",
               (("sentences(T, Undiffuse", "sentences(1, Undiffuse"),),
               ("plot_bars_few_steps",)),
    PlotMutant(NB02, "plot_bars_few_steps", "p_init_drawn_not_the_buggy_undiffusion",
               (("bar_chart(ax, sentences(T, Undiffuse, 2000)", "bar_chart(ax, Tally(SamplePInit_two, 2000)"),),
               ("plot_bars_few_steps",), functions=REVEAL_ALL),
    # notebook 02: the impossible fraction against T
    PlotMutant(NB02, "plot_impossible_fraction", "linear_axes_where_log_log_is_asked",
               (("plt.loglog(Ts, fractions", "plt.plot(Ts, fractions"), ("plt.loglog(Ts, [0.32", "plt.plot(Ts, [0.32")),
               ("plot_impossible_fraction",)),
    PlotMutant(NB02, "plot_impossible_fraction", "wrong_T_no_50",
               (("Ts = [1, 2, 4, 10, 20, 50]", "Ts = [1, 2, 4, 10, 20]"),),
               ("plot_impossible_fraction",)),
    PlotMutant(NB02, "plot_impossible_fraction", "theory_drawn_as_the_measurement",
               (('plt.loglog(Ts, fractions, "o"', 'plt.loglog(Ts, [0.32 / T for T in Ts], "o"'),),
               ("plot_impossible_fraction",)),
    PlotMutant(NB02, "plot_impossible_fraction", "fraction_of_real_sentences", (("if s not in real", "if s in real"),),
               ("plot_impossible_fraction",)),
    PlotMutant(NB02, "plot_impossible_fraction", "theory_one_over_T_squared",
               (("[0.32 / T for T in Ts]", "[0.32 / T ** 2 for T in Ts]"),),
               ("plot_impossible_fraction",)),
    # notebook 02: greedy
    PlotMutant(NB02, "show_greedy_runs", "wrong_T", (("range(4, 0, -1)", "range(2, 0, -1)"),), ("show_greedy_runs",)),
    PlotMutant(NB02, "show_greedy_runs", "stochastic_step_not_greedy",
               (("UndiffuseGreedy(x, t, GuessX0_two, MASK)", "Undiffuse(x, t, GuessX0_two, MASK)"),),
               ("show_greedy_runs",)),
    PlotMutant(NB02, "show_greedy_runs", "only_the_last_sentence",
               ((GREEDY_STEP,
                 '        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)\n    print(f"  t = 0: {Decode(x)}")'),),
               ("show_greedy_runs",)),
    PlotMutant(NB02, "plot_greedy_bars", "stochastic_step_not_greedy",
               (("sentences(T, UndiffuseGreedy, 200)", "sentences(T, Undiffuse, 200)"),), ("plot_greedy_bars",)),
    PlotMutant(NB02, "plot_greedy_bars", "wrong_T", (("(1, 2, 4)", "(1, 2, 3)"),), ("plot_greedy_bars",)),

]

NB04, NB05 = "04_training.ipynb", "05_sampler_internals.ipynb"
PLOT_LOSS = 'PlotLoss(losses, window=100, lines=[(entropy, f"entropy {entropy:.2f}")],'

MUTANTS += [
    # notebook 04: the two-sentence loss and its floor
    PlotMutant(NB04, "plot_two_sentence_loss", "no_floor_line",
               ((PLOT_LOSS, "PlotLoss(losses, window=100, lines=[],"),), ("plot_two_sentence_loss",)),
    PlotMutant(NB04, "plot_two_sentence_loss", "floor_in_bits",
               (("-(0.8 * math.log(0.8) + 0.2 * math.log(0.2))", "-(0.8 * math.log2(0.8) + 0.2 * math.log2(0.2))"),),
               ("plot_two_sentence_loss",)),
    PlotMutant(NB04, "plot_two_sentence_loss", "loss_per_token_against_the_sentence_floor",
               ((PLOT_LOSS, PLOT_LOSS.replace("window=100,", "window=100, scale=4,")),), ("plot_two_sentence_loss",)),
    PlotMutant(NB04, "plot_two_sentence_loss", "hand_drawn_without_axis_labels",
               ((PLOT_LOSS, "plt.plot(losses); plt.axhline(entropy); plt.title("),
                ('         title=f"Two sentences, {steps} steps")', 'f"Two sentences, {steps} steps")')),
               ("plot_two_sentence_loss",)),
    # notebook 04: the network's guesses beside Bayes'
    PlotMutant(NB04, "show_bayes_comparison", "bayes_at_position_1",
               (("GuessX0_two(x_t)[1]", "GuessX0_two(x_t)[0]"),), ("show_bayes_comparison",)),
    PlotMutant(NB04, "show_bayes_comparison", "logits_not_probabilities",
               (("net_p, bayes_p = GuessNet(x_t)[1]", "net_p, bayes_p = net(x_t[None]).detach()[0][1]"),),
               ("show_bayes_comparison",)),
    PlotMutant(NB04, "show_bayes_comparison", "one_sentence_left_out",
               (('["_ _ _ _", "_ _ is alive", "the _ _ empty"]', '["_ _ _ _", "_ _ is alive"]'),),
               ("show_bayes_comparison",)),
    # notebook 04: the bar chart of the trained network's sentences
    PlotMutant(NB04, "plot_net_sentence_bars", "counts_beside_probabilities",
               (("shares = [outcomes[s] / total for s in top] + ([other / total] if other else [])",
                 "shares = [outcomes[s] for s in top] + ([other] if other else [])"),), ("plot_net_sentence_bars",)),
    PlotMutant(NB04, "plot_net_sentence_bars", "p_init_drawn_as_the_bars",
               (("ax.barh(rows, shares,", 'ax.barh(rows, [{"the cat is alive": 0.8, "the box is empty": 0.2}.get(n, 0) '
                                          'for n in names],'),), ("plot_net_sentence_bars",)),
    PlotMutant(NB04, "plot_net_sentence_bars", "no_p_init",
               (('ax.plot([truth.get(n, 0) for n in names], rows, "k|", ms=18, mew=2, label="p_init")\n', ""),),
               ("plot_net_sentence_bars",)),
    PlotMutant(NB04, "plot_net_sentence_bars", "rare_sentences_dropped",
               (("+ ([other / total] if other else [])", ""), ('+ (["other"] if other else [])', "")),
               ("plot_net_sentence_bars",)),
    PlotMutant(NB04, "plot_net_sentence_bars", "fifty_sentences_counted",
               (("outcomes = Tally(net_sentence, 1000)", "outcomes = Counter(Decode(net_sentence()) for _ in range(50))"),
                ("shares = [outcomes[s] / total for s in top] + ([other / total] if other else [])",
                 "shares = [outcomes[s] for s in top] + ([other] if other else [])"),
                ("[truth.get(n, 0) for n in names]", "[truth.get(n, 0) * total for n in names]")),
               ("plot_net_sentence_bars",)),
    # notebook 04: the untrained network's story
    PlotMutant(NB04, "show_untrained_story", "story_of_16_tokens",
               (("print(WriteStory(torch.full((32,), STORY_MASK), 32))", "print(WriteStory(torch.full((16,), STORY_MASK), 32))"),),
               ("show_untrained_story",)),
    PlotMutant(NB04, "show_untrained_story", "the_canvas_before_undiffusing",
               (("print(WriteStory(torch.full((32,), STORY_MASK), 32))", "print(StoryText(torch.full((32,), STORY_MASK)))"),),
               ("show_untrained_story",)),
    PlotMutant(NB04, "show_untrained_story", "token_ids_not_words",
               (("    return StoryText(x)", "    return x.tolist()"),), ("show_untrained_story",)),
    PlotMutant(NB04, "show_untrained_story", "no_size", (('print(f"{sum(p.numel() for p in story_net.parameters()) / 1e6:.2f} '
                                                         'million parameters")\n', ""),), ("show_untrained_story",)),
    # notebook 04: the loss per token on the stories
    PlotMutant(NB04, "plot_story_loss", "loss_per_sentence", (("scale=32, ", ""),), ("plot_story_loss",)),
    PlotMutant(NB04, "plot_story_loss", "uniform_guess_in_bits", (("[(NO_IDEA, ", "[(math.log2(len(story_vocab)), "),),
               ("plot_story_loss",)),
    PlotMutant(NB04, "plot_story_loss", "one_level_only",
               (('(WORD_FREQUENCIES, f"word frequencies {WORD_FREQUENCIES:.1f}")', ""),), ("plot_story_loss",)),
    # notebook 04: stories from prompts
    PlotMutant(NB04, "show_prompt_stories", "prompt_not_put_on_the_canvas",
               (("    x = StoryTokens(prompt)\n", "    x = torch.full((32,), STORY_MASK)\n"),), ("show_prompt_stories",)),
    PlotMutant(NB04, "show_prompt_stories", "two_stories_per_prompt", (("for _ in range(3):", "for _ in range(2):"),),
               ("show_prompt_stories",)),
    PlotMutant(NB04, "show_prompt_stories", "ending_left_out",
               (('begin + Blanks(32 - n_begin - n_end) + " " + end', "begin + Blanks(32 - n_begin)"),),
               ("show_prompt_stories",)),
    # notebook 05: the first pass
    PlotMutant(NB05, "show_first_pass", "canvas_overwritten_with_the_candidates",
               (('print("canvas still masked:"', 'canvas[0] = top_id[0].to(canvas.device)\nprint("canvas still masked:"'),),
               ("show_first_pass",)),
    PlotMutant(NB05, "show_first_pass", "five_positions_only", (("for i in range(12):", "for i in range(5):"),),
               ("show_first_pass",)),
    PlotMutant(NB05, "show_first_pass", "logits_not_distributions",
               (("probabilities = candidate_distributions(story_model, canvas, CONTROL_IDS)",
                 "probabilities = story_model(canvas)"),), ("show_first_pass",)),
    PlotMutant(NB05, "show_first_pass", "canvas_of_10",
               (("blank_canvas(1, 12, MASK_ID)", "blank_canvas(1, 10, MASK_ID)"), ("for i in range(12):", "for i in range(10):")),
               ("show_first_pass",)),
    # notebook 05: the three confidence panels
    PlotMutant(NB05, "plot_confidence", "every_panel_the_default_score",
               (("scores = confidence_scores(probabilities, kind)[0]", "scores = confidence_scores(probabilities)[0]"),),
               ("plot_confidence",)),
    PlotMutant(NB05, "plot_confidence", "entropy_not_minus_it",
               (("scores = confidence_scores(probabilities, kind)[0]",
                 'scores = confidence_scores(probabilities, kind)[0] * (-1 if kind == "neg_entropy" else 1)'),),
               ("plot_confidence",)),
    PlotMutant(NB05, "plot_confidence", "two_panels", (('zip(axes, ("top", "margin", "neg_entropy"))', 'zip(axes, ("top", "margin"))'),),
               ("plot_confidence",)),
    PlotMutant(NB05, "plot_confidence", "no_y_labels", (("    ax.set_ylabel(labels[kind])\n", ""),), ("plot_confidence",)),
    # notebook 05: the worked example
    PlotMutant(NB05, "show_worked_example", "the_input_printed",
               (("print(reverse_update(**example, reveal_counts=[2, 1], mask_id=1, pad_id=0))",
                 'reverse_update(**example, reveal_counts=[2, 1], mask_id=1, pad_id=0)\nprint(example["x"])'),),
               ("show_worked_example",)),
    PlotMutant(NB05, "show_worked_example", "other_reveal_counts", (("reveal_counts=[2, 1]", "reveal_counts=[1, 1]"),),
               ("show_worked_example",)),
    # notebook 05: the batch of stories
    PlotMutant(NB05, "show_batch_stories", "prompts_left_out",
               (('[StoryTokens("once upon a time ,"), StoryTokens("the dog"),',
                 '[torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long),'),), ("show_batch_stories",)),
    PlotMutant(NB05, "show_batch_stories", "every_row_32_long", (("[32, 32, 20, 12]", "[32, 32, 32, 32]"),),
               ("show_batch_stories",)),
    PlotMutant(NB05, "show_batch_stories", "padding_printed", (("print(Show(story))", 'print(" ".join(vocab[i] for i in story.tolist()))'),),
               ("show_batch_stories",)),
    PlotMutant(NB05, "show_batch_stories", "token_ids_printed", (("print(Show(story))", "print(story.tolist())"),),
               ("show_batch_stories",)),
]


NB06 = "06_revising_and_faster.ipynb"
BUDGET_LINE = ("{str(TransferCounts(n, steps, 'even')):18} {TransferCounts(n, steps, 'schedule')}")
COMMITTED_AT = "committed_at = CommitCalls(recorder.canvases, MASK_ID)[len(prompt):]"
COMMIT_ABOVE_OR_EQUAL = (  # a CommitAbove that commits confidences equal to tau too: 3 calls at tau = 1
    "def CommitAbove(x, candidate_ids, confidence, slots, tau, mask_id):\n"
    "    eligible = slots & (x == mask_id)\n"
    "    chosen = eligible & (confidence >= tau)\n"
    "    for b in range(x.shape[0]):\n"
    "        if eligible[b].any() and not chosen[b].any():\n"
    "            chosen[b, confidence[b].masked_fill(~eligible[b], -torch.inf).argmax()] = True\n"
    "    return torch.where(chosen, candidate_ids, x)\n")
ONE_COIN_STEP = (  # a RemaskStep with one coin for every position: masks are revealed all at once or not at all
    "def RemaskStep(x_t, t, s, GuessX0, mask, sigma, fixed=None):\n"
    "    alpha_t, alpha_s = 1 - t, 1 - s\n"
    "    reveal = (alpha_s - (1 - sigma) * alpha_t) / (1 - alpha_t)\n"
    "    guess = torch.multinomial(GuessX0(x_t).float(), 1).squeeze(1)\n"
    "    u = torch.rand(1).expand(x_t.shape)\n"
    "    x = torch.where((x_t == mask) & (u < reveal), guess, x_t)\n"
    "    return torch.where((x_t != mask) & (u < sigma), torch.full_like(x_t, mask), x)\n")
UNDIFFUSE_INLINE = ("(lambda x, t, s, G, m, sigma: torch.where((x == m) & (torch.rand(4) < (t - s) / t), "
                    "torch.multinomial(G(x), 1)[:, 0], x))")
RATES = "rates = [sum(Impossible(RemaskTwo(RemaskStep, RemaskSigma, T, eta, schedule)) for _ in range(runs)) / runs"
LOOP_RATES = ("rates = [sum(Impossible(LoopTwo(RemaskStep, RemaskSigma, RemaskLoop, n, eta)) for _ in range(runs)) / runs\n"
              "             for n in tqdm(NS, desc=f\"eta = {eta}\")]")

MUTANTS += [
    # notebook 06: the two budgets side by side
    PlotMutant(NB06, "show_budgets", "schedule_printed_for_even",
               ((BUDGET_LINE, BUDGET_LINE.replace("'even'", "'schedule'")),), ("show_budgets",)),
    PlotMutant(NB06, "show_budgets", "rules_in_the_other_order",
               ((BUDGET_LINE, "{str(TransferCounts(n, steps, 'schedule')):18} {TransferCounts(n, steps, 'even')}"),),
               ("show_budgets",)),
    PlotMutant(NB06, "show_budgets", "n_and_steps_left_out", (("{n:>3} {steps:>5}   ", ""),), ("show_budgets",)),
    PlotMutant(NB06, "show_budgets", "a_pair_left_out", ((", (9, 2)]", "]"),), ("show_budgets",)),
    PlotMutant(NB06, "show_budgets", "schedule_rounded_half_up_by_hand",
               (("{TransferCounts(n, steps, 'schedule')}",
                 "{[int(r / k + 0.5) for r, k in [(n, steps)]] + TransferCounts(n - int(n / steps + 0.5), steps - 1, 'schedule') if steps > 1 else [n]}"),),
               ("show_budgets",)),
    # notebook 06: when was each position written?
    PlotMutant(NB06, "plot_commit_order", "positions_off_by_the_prompt",
               ((COMMITTED_AT, COMMITTED_AT.replace("[len(prompt):]", "[:24]")),), ("plot_commit_order",)),
    PlotMutant(NB06, "plot_commit_order", "the_prompt_left_in",
               ((COMMITTED_AT, COMMITTED_AT.replace("[len(prompt):]", "")),
                ("plt.bar(range(24), committed_at)", "plt.bar(range(len(committed_at)), committed_at)")),
               ("plot_commit_order",)),
    PlotMutant(NB06, "plot_commit_order", "one_block_of_24",
               (("SampleBlocks(recorder, prompt, 24, 8, 12,", "SampleBlocks(recorder, prompt, 24, 24, 12,"),),
               ("plot_commit_order",)),
    PlotMutant(NB06, "plot_commit_order", "24_calls_not_12",
               (("SampleBlocks(recorder, prompt, 24, 8, 12,", "SampleBlocks(recorder, prompt, 24, 8, 24,"),),
               ("plot_commit_order",)),
    PlotMutant(NB06, "plot_commit_order", "first_canvas_showing_it_the_last_call_at_0",
               ((COMMITTED_AT, "committed_at = torch.stack([c.reshape(-1)[len(prompt):] != MASK_ID "
                               "for c in recorder.canvases]).long().argmax(dim=0)"),), ("plot_commit_order",)),
    PlotMutant(NB06, "plot_commit_order", "no_axis_labels",
               (('plt.ylabel("call that committed it")\n', ""),), ("plot_commit_order",)),
    # notebook 06: calls against mistakes
    PlotMutant(NB06, "plot_threshold_trade", "share_of_possible_sentences",
               (("sum(Impossible(x) for x, _ in results)", "sum(not Impossible(x) for x, _ in results)"),),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "calls_per_position_not_per_sentence",
               (("calls.append(sum(c for _, c in results) / runs)", "calls.append(sum(c for _, c in results) / runs / 4)"),),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "curves_that_do_not_say_what_they_show",
               (('left.set_ylabel("impossible sentences (fraction)")\n', ""),
                ('right.set_ylabel("guesser calls per sentence")\n', ""), ('label="commit above tau"', 'label="tau"')),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "y_labels_swapped",
               (('"impossible sentences (fraction)"', '"CALLS"'), ('"guesser calls per sentence"', '"impossible sentences"'),
                ('"CALLS"', '"guesser calls per sentence"'), ('label="commit above tau"', 'label="_"')),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "a_tau_left_out",
               (("TAUS = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]", "TAUS = [0.05, 0.1, 0.3, 0.5, 0.9, 1.0]"),),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "ten_runs_not_repeats_1000", (("runs = repeats(1000)", "runs = 10"),),
               ("plot_threshold_trade",)),
    PlotMutant(NB06, "plot_threshold_trade", "tau_1_point_written_in_not_run",
               (("fig, (left, right)", "calls[-1] = 4.0  # one at a time: 4 calls\nfig, (left, right)"),),
               ("plot_threshold_trade",), functions=COMMIT_ABOVE_OR_EQUAL),
    # notebook 06: does revising fix the cat is empty?
    PlotMutant(NB06, "plot_remasking", "linear_axes_where_log_log_is_asked",
               (("plt.loglog(Ts, rates", "plt.plot(Ts, rates"), ("plt.loglog(Ts, [0.32", "plt.plot(Ts, [0.32")),
               ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "theory_of_the_real_sentences",
               (("[0.32 / T for T in Ts]", "[1 - 0.32 / T for T in Ts]"),), ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "share_of_real_sentences",
               ((RATES, RATES.replace("sum(Impossible(", "sum(not Impossible(")),), ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "no_legend", (("plt.legend()\n", ""),), ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "ten_runs_not_repeats_5000", (("runs = repeats(5000)", "runs = 10"),),
               ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "the_remasking_curve_without_remasking_eta_0_twice",
               (('("remasking, sigma = sigma_max", 1.0, "rescale")', '("remasking, sigma = sigma_max", 0.0, "cap")'),),
               ("plot_remasking",)),
    PlotMutant(NB06, "plot_remasking", "no_remasking_run_with_another_step",
               ((RATES, RATES.replace("RemaskTwo(RemaskStep,", f"RemaskTwo(RemaskStep if eta else {UNDIFFUSE_INLINE},")),),
               ("plot_remasking",), functions=ONE_COIN_STEP),
    # notebook 06: does the loop fix the cat is empty?
    PlotMutant(NB06, "plot_loop", "exact_law_drawn_as_the_measurement",
               ((LOOP_RATES, "rates = [LoopExact(n, eta) for n in NS]"),), ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "share_of_real_sentences",
               ((LOOP_RATES, LOOP_RATES.replace("sum(Impossible(", "sum(not Impossible(")),), ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "no_level_without_the_loop", (('plt.axhline(0.32 / 4, color="k", ls="--", '
                                                              'label="no loop: 0.32 / T, T = 4")\n', ""),),
               ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "level_of_the_last_figure_at_T_32", (("plt.axhline(0.32 / 4,", "plt.axhline(0.32 / 32,"),),
               ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "one_exact_curve_for_both_etas",
               (("[LoopExact(n, eta) for n in NS]", "[LoopExact(n, 0.2) for n in NS]"),), ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "no_legend", (("plt.legend()\n", ""),), ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "ten_runs_not_repeats_2500", (("runs = repeats(2500)", "runs = 10"),), ("plot_loop",)),
    PlotMutant(NB06, "plot_loop", "the_loop_never_run_n_left_at_0",
               ((LOOP_RATES, LOOP_RATES.replace("RemaskLoop, n, eta)", "RemaskLoop, 0, eta)")),), ("plot_loop",)),
    # notebook 06: two numbers for a sample
    PlotMutant(NB06, "plot_entropy_perplexity", "entropy_in_bits",
               (("entropy = [SampleEntropy(row) for row in rows]", "entropy = [SampleEntropy(row) / math.log(2) for row in rows]"),),
               ("plot_entropy_perplexity",)),
    PlotMutant(NB06, "plot_entropy_perplexity", "degenerate_sample_lumped_with_the_training_text",
               (('samples["training text"] = list(GetBatch(4, 32))\nsamples["the the the ..."] = [StoryTokens(" ".join(["the"] * 32))]',
                 'samples["training text"] = list(GetBatch(4, 32)) + [StoryTokens(" ".join(["the"] * 32))]'),),
               ("plot_entropy_perplexity",)),
    PlotMutant(NB06, "plot_entropy_perplexity", "one_point_per_source",
               (("plt.scatter(entropy, perplexity,", "plt.scatter([sum(entropy) / len(entropy)], [sum(perplexity) / len(perplexity)],"),),
               ("plot_entropy_perplexity",)),
    PlotMutant(NB06, "plot_entropy_perplexity", "axes_not_named",
               (('plt.xlabel("entropy of the sample (nats)")', 'plt.xlabel("H")'),), ("plot_entropy_perplexity",)),
    PlotMutant(NB06, "plot_entropy_perplexity", "entropy_and_perplexity_over_the_prompt_too",
               (('CONTROL_IDS)[len(prompt):])\n    samples["one block of 32"]', 'CONTROL_IDS))\n    samples["one block of 32"]'),
                ('CONTROL_IDS)[len(prompt):])\n    samples["remasking"]', 'CONTROL_IDS))\n    samples["remasking"]'),
                ('RemaskStory(prompt)[len(prompt):]', 'RemaskStory(prompt)')),
               ("plot_entropy_perplexity",)),
]


NB07 = "07_caching.ipynb"
DRIFT_CALL = ("drift = CacheDrift(SampleBlocksPrefixCache, SampleBlocks, story_net, prompts, 24, block_length, 24,\n"
              "                       MASK_ID, PAD_ID, CONTROL_IDS)")
COST_LINE = 'print(f"{name:40} {calls:6d} {positions:10d} {seconds:8.3f}")'
DUAL_ROW = ('    "blocks of 8, dual cache": Work(SampleBlocksPrefixCache, story_net, G, B, STEPS, MASK_ID, PAD_ID, CONTROL_IDS,\n'
            '                                    dual=True),\n')
COMPUTED_ROW = "(1 + c + n - 1, len(prompt) + c * B + (n - 1) * B, float(\"nan\"))"

MUTANTS += [
    # notebook 07: how far the prefix cache strays
    PlotMutant(NB07, "plot_cache_drift", "key_size_drawn_as_the_change",
               (('change.append(drift["key_change"])', 'change.append(drift["key_size"])'),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "disagreement_drawn_as_the_agreement",
               (('agreement.append(drift["agreement"])', 'agreement.append(1 - drift["agreement"])'),),
               ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "the_dual_cache_drawn_as_the_prefix_cache",
               ((DRIFT_CALL, DRIFT_CALL.replace("CONTROL_IDS)", "CONTROL_IDS, dual=True)")),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "blocks_of_8_at_every_block_length",
               ((DRIFT_CALL, DRIFT_CALL.replace("24, block_length, 24", "24, 8, 24")),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "drawn_against_the_number_of_blocks",
               (("for ax in axes:\n    ax.set_xlabel(\"block length\")",
                 "for ax in axes:\n    ax.set_xlabel(\"blocks\")\n    for line in ax.get_lines()[:1]:\n"
                 "        line.set_xdata([24 // b for b in BLOCKS])"),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "12_steps_not_24",
               ((DRIFT_CALL, DRIFT_CALL.replace("block_length, 24,", "block_length, 12,")),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "the_first_prompt_alone",
               ((DRIFT_CALL, DRIFT_CALL.replace("prompts, 24", "prompts[:1], 24")),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "measured_on_the_block_causal_network",
               ((DRIFT_CALL, DRIFT_CALL.replace("story_net, prompts", "block_net, prompts")),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "positions_without_a_cache",
               (('positions.append(TokensProcessed(5, 24, block_length, 24, "prefix"))',
                 'positions.append(TokensProcessed(5, 24, block_length, 24, "none"))'),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "positions_of_the_dual_cache",
               (('positions.append(TokensProcessed(5, 24, block_length, 24, "prefix"))',
                 'positions.append(TokensProcessed(5, 24, block_length, 24, "dual"))'),), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "positions_of_a_two_token_prompt",
               (('TokensProcessed(5, 24, block_length, 24, "prefix")', 'TokensProcessed(2, 24, block_length, 24, "prefix")'),),
               ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "curves_that_do_not_say_what_they_show",
               (('axes[0].set_ylabel("share of tokens as uncached")\n', ""),
                ('axes[1].set_ylabel("mean |change| of a kept key")\n', "")), ("plot_cache_drift",)),
    PlotMutant(NB07, "plot_cache_drift", "no_x_label", (('    ax.set_xlabel("block length")\n', "    pass\n"),),
               ("plot_cache_drift",)),
    # notebook 07: every sampler's work
    PlotMutant(NB07, "show_costs", "the_dual_cache_row_left_out", ((DUAL_ROW, ""),), ("show_costs",)),
    PlotMutant(NB07, "show_costs", "positions_before_calls",
               ((COST_LINE, 'print(f"{name:40} {positions:10d} {calls:6d} {seconds:8.3f}")'),), ("show_costs",)),
    PlotMutant(NB07, "show_costs", "counted_on_another_prompt",
               (('prompt = StoryTokens("once upon a time ,")', 'prompt = StoryTokens("lily went to the")'),),
               ("show_costs",)),
    PlotMutant(NB07, "show_costs", "blocks_of_4",
               (("G, B, STEPS, TAU = 24, 8, 24, 0.9", "G, B, STEPS, TAU = 24, 4, 24, 0.9"),), ("show_costs",)),
    PlotMutant(NB07, "show_costs", "computed_row_without_the_clean_passes",
               ((COMPUTED_ROW, "(1 + c, len(prompt) + c * B, float(\"nan\"))"),), ("show_costs",)),
    PlotMutant(NB07, "show_costs", "threshold_sampler_on_the_bidirectional_network",
               (("Work(SampleBlocksAbove, block_net,", "Work(SampleBlocksAbove, story_net,"),), ("show_costs",)),
    PlotMutant(NB07, "show_costs", "calls_per_block_not_per_sample",
               ((COST_LINE, 'print(f"{name:40} {calls // 3:6d} {positions:10d} {seconds:8.3f}")'),), ("show_costs",)),
]


NB08 = "08_noise_without_a_mask.ipynb"
CHANGED = "changed = [sum(float((ForwardUniform(x0, 1 - t, N_WORDS) != x0).float().mean()) for _ in range(runs)) / runs"
# a ForwardUniform that reads alpha as the noise, beside a cell that draws the right law instead of running it:
# right-looking runs that are not the student's function's
ALPHA_AS_NOISE = ("def ForwardUniform(x0, alpha, vocab_size):\n    keep = torch.rand(x0.shape) < 1 - alpha\n"
                  "    return torch.where(keep, x0, torch.randint(vocab_size, x0.shape))\n")

MUTANTS += [
    # notebook 08: how much the noise changes
    PlotMutant(NB08, "plot_changed_share", "theory_drawn_as_the_runs",
               ((CHANGED, "changed = [t * (1 - 1 / N_WORDS)"),), ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "kept_share_not_changed",
               (("!= x0).float().mean()", "== x0).float().mean()"),), ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "alpha_t_read_as_t",
               (("ForwardUniform(x0, 1 - t, N_WORDS)", "ForwardUniform(x0, t, N_WORDS)"),), ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "notebook_1s_line_missing",
               (('plt.plot(ts, ts, "k--", label="notebook 1: share masked, t")\n', ""),), ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "theory_without_the_words_that_draw_themselves",
               (('plt.plot(ts, [t * (1 - 1 / N_WORDS) for t in ts], "-"', 'plt.plot(ts, [0.9 * t for t in ts], "-"'),),
               ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "ten_runs_not_repeats_1000", (("runs = repeats(1000)", "runs = 10"),),
               ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "the_right_law_drawn_beside_a_buggy_function",
               (("ForwardUniform(x0, 1 - t, N_WORDS) != x0",
                 "torch.where(torch.rand(16) < 1 - t, x0, torch.randint(13, (16,))) != x0"),),
               ("plot_changed_share",), functions=ALPHA_AS_NOISE),
    PlotMutant(NB08, "plot_changed_share", "no_legend", (("plt.legend()\n", ""),), ("plot_changed_share",)),
    PlotMutant(NB08, "plot_changed_share", "no_axis_labels", (('plt.ylabel("share of the 16 tokens")\n', ""),),
               ("plot_changed_share",)),
    # notebook 08: few steps, two kinds of noise
    PlotMutant(NB08, "plot_few_steps", "exact_law_drawn_as_the_runs",
               (('plt.loglog(Ts, uniform, "o"', 'plt.loglog(Ts, [UniformExact(T)["impossible"] for T in Ts], "o"'),),
               ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "counts_not_shares",
               (("Impossible(UniformTwo(UniformStep, T)) for _ in range(runs)) / runs",
                 "Impossible(UniformTwo(UniformStep, T)) for _ in range(runs))"),), ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "linear_axes", (("plt.loglog(", "plt.plot("),), ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "exact_curve_missing",
               (('plt.loglog(Ts, [UniformExact(T)["impossible"] for T in Ts], "-", color="C0", label="uniform noise, '
                 'exact")\n', ""),), ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "one_over_t_missing",
               (('plt.loglog(Ts, [0.32 / T for T in Ts], "--", color="C1", label="masks, exact: 0.32 / T")\n', ""),),
               ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "one_step_everywhere",
               (("Impossible(UniformTwo(UniformStep, T))", "Impossible(UniformTwo(UniformStep, 1))"),), ("plot_few_steps",)),
    PlotMutant(NB08, "plot_few_steps", "twenty_runs_not_repeats_1000", (("runs = repeats(1000)", "runs = 20"),),
               ("plot_few_steps",)),
]

# The wrong plots that draw the complement of a share the task asks for (1 - y, or 100 - y, of one curve or of
# two), exactly or within what the runs can tell: they go to a person, named, not to a fail
# (grading/complement.py), and no other does.
COMPLEMENTS = {"plot_schedule:alpha_bar_drawn_as_masked_share", "plot_masked_fraction:theory_alpha_bar_not_one_minus",
               "plot_masked_fraction:visible_share_not_masked", "plot_impossible_fraction:fraction_of_real_sentences",
               "plot_threshold_trade:share_of_possible_sentences", "plot_remasking:theory_of_the_real_sentences",
               "plot_remasking:share_of_real_sentences", "plot_loop:share_of_real_sentences",
               "plot_cache_drift:disagreement_drawn_as_the_agreement",
               "plot_changed_share:kept_share_not_changed",
               # turned, these lie 1/13 from the student's own runs at every t: (1 - t) 12/13 drawn where t 12/13 is
               # measured. The check compares run averages (Hoeffding over 200 runs a point under the autograder,
               # 0.46 at 1e-6: a wrong function may correlate its tokens), which cannot tell 1/13: a person decides
               "plot_changed_share:alpha_t_read_as_t", "plot_changed_share:the_right_law_drawn_beside_a_buggy_function"}


def reference_source(notebook, cell):
    for c in cells.notebook_cells(notebook):
        if c.cell_type == "code" and cells.nbtools.grade_id(c) == cell:
            return c.source
    raise KeyError(cell)
