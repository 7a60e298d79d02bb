"""Notebook 02: correct drawings and printouts of its nine graded cells, each written from the task text
above the cell as a different student would (see tests/honest/__init__.py)."""
from . import Honest

NOTEBOOK = "02_undiffusing.ipynb"

_ONE_RUN = ("def undiffuse_from_masks(T, step=Undiffuse):\n"
            "    x = torch.full((4,), MASK)\n"
            "    for t in range(T, 0, -1):\n"
            "        x = step(x, t, GuessX0_two, MASK)\n"
            "    return x\n")

DATA = {
    "plot_undiffusion_histograms": (
        "T, t_stop, n_runs = 10, 5, repeats(1000)\n_, alpha_bar = MakeSchedule(T)\n"
        "forward = [int((ForwardMaskFast(SamplePInit_one(), t_stop, alpha_bar) == MASK).sum()) for _ in range(n_runs)]\n"
        "backward = []\n"
        "for _ in range(n_runs):\n"
        "    x = torch.full((4,), MASK)\n"
        "    for t in range(T, t_stop, -1):\n"
        "        x = Undiffuse(x, t, GuessX0_one, MASK)\n"
        "    backward.append(int((x == MASK).sum()))\n"),
    "plot_two_sentence_bars": _ONE_RUN + "made = Tally(lambda: undiffuse_from_masks(50), 2000)\n",
    "plot_bars_few_steps": _ONE_RUN + "made_by_T = {T: Tally(lambda: undiffuse_from_masks(T), 2000) for T in (1, 2, 4, 10)}\n",
    "plot_impossible_fraction": (
        _ONE_RUN + "Ts = [1, 2, 4, 10, 20, 50]\n"
        "made_by_T = {T: Tally(lambda: undiffuse_from_masks(T), 2000) for T in Ts}\n"
        "real = {'the cat is alive', 'the box is empty'}\n"
        "impossible = [sum(n for s, n in made_by_T[T].items() if s not in real) / sum(made_by_T[T].values()) for T in Ts]\n"),
    "plot_greedy_bars": (
        _ONE_RUN + "greedy_by_T = {T: Tally(lambda: undiffuse_from_masks(T, UndiffuseGreedy), 200) for T in (1, 2, 4)}\n"),
}

RUNS = [
    Honest("show_undiffusion_runs", "blank_line_between_runs", """
for run in range(5):
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        print(Decode(x))
    print()
"""),
    Honest("show_undiffusion_runs", "x_t_prefixes_and_headers", """
T = 10
for run in range(1, 6):
    print(f"--- run {run} ---")
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        print(f"x_{t - 1}: {Decode(x)}")
"""),
    Honest("show_undiffusion_runs", "the_masks_printed_first", """
for run in range(5):
    x = torch.full((4,), MASK)
    print(f"run {run}: t = 10  {Decode(x)}")
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        print(f"run {run}: t = {t - 1:2d}  {Decode(x)}")
"""),
    Honest("show_undiffusion_runs", "one_run_per_line", """
for run in range(5):
    x = torch.full((4,), MASK)
    history = []
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        history.append(Decode(x))
    print(" -> ".join(history))
"""),
    Honest("show_undiffusion_runs", "seven_runs_step_numbers", """
T = 10
for run in range(7):
    print("Run", run + 1)
    x = torch.full((4,), MASK)
    for step, t in enumerate(range(T, 0, -1), start=1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        print(f"  step {step}: {Decode(x)}")
"""),
    Honest("show_undiffusion_runs", "histories_then_printed", """
histories = []
for _ in range(5):
    x, h = torch.full((4,), MASK), []
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        h.append(x)
    histories.append(h)
for i, h in enumerate(histories):
    print(f"run {i}")
    for x in h:
        print("   ", Decode(x))
"""),
    Honest("show_undiffusion_runs", "masks_left_beside", """
for run in range(5):
    x = torch.full((4,), MASK)
    print(f"run {run + 1} (T = 10)")
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        print(f"t={t - 1} [{int((x == MASK).sum())} masks left] {Decode(x)}")
"""),
    Honest("show_undiffusion_runs", "reveal_as_they_come", """
for run in range(5):
    x = torch.full((4,), MASK)
    print(f"Run #{run + 1}:")
    for t in range(10, 0, -1):
        new = Undiffuse(x, t, GuessX0_one, MASK)
        note = "  (revealed " + ", ".join(vocab[int(new[i])] for i in range(4) if x[i] != new[i]) + ")" if (new != x).any() else ""
        x = new
        print(f"  {Decode(x)}{note}")
"""),
    Honest("show_undiffusion_runs", "display_each_history", """
for run in range(5):
    x = torch.full((4,), MASK)
    steps = []
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        steps.append(Decode(x))
    display(steps)
""", "shown"),
    Honest("show_undiffusion_runs", "pandas_long_table_last_expression", """
import pandas as pd
rows = []
for run in range(1, 6):
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        rows.append({"run": run, "t": t - 1, "sentence": Decode(x)})
pd.DataFrame(rows)
""", "pandas-seaborn"),
]

THOUSAND = [
    Honest("show_thousand_runs", "lambda", """
def run():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

print(Tally(lambda: run(), 1000))
"""),
    Honest("show_thousand_runs", "most_common_table", """
def undiffuse_one():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

tally = Tally(undiffuse_one, 1000)
for sentence, count in tally.most_common():
    print(f"{count:5d}  {sentence}")
"""),
    Honest("show_thousand_runs", "dict", """
def make():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

counts = Tally(make, 1000)
print(dict(counts))
"""),
    Honest("show_thousand_runs", "header_and_verdict", """
T = 10
def one_run():
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

tally = Tally(one_run, 1000)
print(f"{sum(tally.values())} undiffusions with T = {T}:")
print(tally)
print("always 'the cat is alive':", set(tally) == {"the cat is alive"})
"""),
    Honest("show_thousand_runs", "percent_with_total", """
def sample():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

tally = Tally(sample, 1000)
total = sum(tally.values())
for sentence, count in tally.items():
    print(f"'{sentence}': {count} of {total} ({100 * count / total:.1f}%)")
"""),
    Honest("show_thousand_runs", "most_common_list", """
def run(T=10):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

print(Tally(run, 1000).most_common())
"""),
    Honest("show_thousand_runs", "counter_and_its_size", """
def undiffused():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

result = Tally(undiffused, 1000)
print("distinct sentences:", len(result))
print(result)
"""),
    Honest("show_thousand_runs", "colon_lines", """
def make_one():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

for sentence, n in Tally(make_one, 1000).items():
    print(sentence, ":", n)
"""),
    Honest("show_thousand_runs", "counter_as_last_expression", """
def undiffuse_once():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

Tally(undiffuse_once, 1000)
""", "shown"),
    Honest("show_thousand_runs", "ipython_display_counter", """
from IPython.display import display

def one():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

counts = Tally(one, 1000)
display(counts)
""", "shown"),
    Honest("show_thousand_runs", "pandas_series_table", """
import pandas as pd

def run():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

table = pd.Series(Tally(run, 1000), name="count").rename_axis("sentence").to_frame()
table
""", "pandas-seaborn"),
]

UNDIFFUSION_HISTOGRAMS = [
    Honest("plot_undiffusion_histograms", "density_pyplot", """
bins = [k - 0.5 for k in range(6)]
plt.hist(forward, bins=bins, density=True, alpha=0.5, label="ForwardMaskFast")
plt.hist(backward, bins=bins, density=True, alpha=0.5, label="Undiffuse")
plt.xlabel("masked tokens in x_5")
plt.ylabel("probability")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "grouped_hist", """
import numpy as np
plt.hist([forward, backward], bins=np.arange(6) - 0.5, label=["forward", "undiffusion"])
plt.xlabel("number of masks")
plt.ylabel("count")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "side_by_side_bincount", """
import numpy as np
k = np.arange(5)
fig, ax = plt.subplots()
ax.bar(k - 0.2, np.bincount(forward, minlength=5), width=0.4, label="ForwardMaskFast, t = 5")
ax.bar(k + 0.2, np.bincount(backward, minlength=5), width=0.4, label="Undiffuse 10 -> 5")
ax.set_xticks(k)
ax.set_xlabel("masked tokens")
ax.set_ylabel("runs")
ax.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "step_histograms", """
edges = torch.arange(6) - 0.5
plt.hist(forward, bins=edges, histtype="step", lw=2, label="forward")
plt.hist(backward, bins=edges, histtype="step", lw=2, ls="--", label="backward")
plt.xlabel("# masked")
plt.ylabel("frequency")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "stairs_fractions", """
import numpy as np
edges = np.arange(-0.5, 5)
for data, name in ((forward, "ForwardMaskFast"), (backward, "Undiffuse")):
    h, _ = np.histogram(data, bins=edges)
    plt.stairs(h / len(data), edges, label=name)
plt.xlabel("masked tokens at t = 5")
plt.ylabel("fraction of runs")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "default_bins", """
plt.hist(forward, alpha=0.5, label="forward to t=5")
plt.hist(backward, alpha=0.5, label="undiffused to t=5")
plt.xlabel("masked tokens")
plt.ylabel("count")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "horizontal_bars", """
from collections import Counter
f, b = Counter(forward), Counter(backward)
ks = list(range(5))
plt.barh([k - 0.2 for k in ks], [f[k] for k in ks], height=0.4, label="ForwardMaskFast")
plt.barh([k + 0.2 for k in ks], [b[k] for k in ks], height=0.4, label="Undiffuse")
plt.ylabel("masked tokens")
plt.xlabel("count")
plt.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "percent_object_api", """
import numpy as np
fig, ax = plt.subplots(figsize=(6, 4))
bins = np.arange(6) - 0.5
ax.hist(forward, bins=bins, weights=np.full(len(forward), 100 / len(forward)), alpha=0.6, label="ForwardMaskFast")
ax.hist(backward, bins=bins, weights=np.full(len(backward), 100 / len(backward)), alpha=0.6, label="Undiffuse")
ax.set_xlabel("masked tokens")
ax.set_ylabel("% of runs")
ax.set_title(f"x_5 two ways, {n_runs} samples each")
ax.grid(axis="y")
ax.legend()
plt.show()
"""),
    Honest("plot_undiffusion_histograms", "seaborn_histplot_hue_dodge", """
import pandas as pd
import seaborn as sns
df = pd.DataFrame({"masked": forward + backward,
                   "how": ["ForwardMaskFast"] * len(forward) + ["Undiffuse 10 -> 5"] * len(backward)})
ax = sns.histplot(data=df, x="masked", hue="how", discrete=True, multiple="dodge", shrink=0.8)
ax.set_xlabel("masked tokens in x_5")
ax.set_ylabel("count")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_undiffusion_histograms", "seaborn_countplot_hue", """
import pandas as pd
import seaborn as sns
df = pd.DataFrame({"masked tokens": forward + backward,
                   "process": ["forward"] * len(forward) + ["undiffusion"] * len(backward)})
sns.countplot(data=df, x="masked tokens", hue="process", order=[0, 1, 2, 3, 4])
plt.ylabel(f"runs (of {n_runs})")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_undiffusion_histograms", "pandas_value_counts_bars", """
import pandas as pd
table = pd.DataFrame({"ForwardMaskFast": pd.Series(forward).value_counts(),
                      "Undiffuse": pd.Series(backward).value_counts()}).reindex(range(5), fill_value=0)
ax = table.plot.bar(rot=0)
ax.set_xlabel("number of masked tokens")
ax.set_ylabel("count")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_undiffusion_histograms", "pandas_plot_hist", """
import numpy as np
import pandas as pd
ax = pd.DataFrame({"forward to t=5": forward, "undiffused to t=5": backward}).plot.hist(
    bins=np.arange(6) - 0.5, alpha=0.5)
ax.set_xlabel("masked tokens")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_undiffusion_histograms", "seaborn_histplot_step_percent", """
import seaborn as sns
sns.histplot(forward, discrete=True, stat="percent", element="step", fill=False, label="ForwardMaskFast")
sns.histplot(backward, discrete=True, stat="percent", element="step", fill=False, label="Undiffuse")
plt.xlabel("masked tokens")
plt.ylabel("% of runs")
plt.legend()
plt.show()
""", "pandas-seaborn"),
]

TWO_SENTENCE_BARS = [
    Honest("plot_two_sentence_bars", "categorical_counts", """
plt.bar(list(made.keys()), list(made.values()))
plt.xticks(rotation=45, ha="right")
plt.ylabel("count")
plt.title("T = 50")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "barh_counts", """
names = list(made)
plt.barh(names, [made[n] for n in names])
plt.xlabel("how often")
plt.title("T = 50")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "percent", """
total = sum(made.values())
names = sorted(made, key=made.get, reverse=True)
plt.bar(range(len(names)), [100 * made[n] / total for n in names])
plt.xticks(range(len(names)), names, rotation=60)
plt.ylabel("% of sentences")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "tick_label_fractions", """
names, counts = zip(*made.most_common())
total = sum(counts)
fig, ax = plt.subplots(figsize=(6, 4))
ax.bar(range(len(names)), [c / total for c in counts], tick_label=names)
ax.set_ylabel("fraction")
ax.set_title(f"{total} sentences, T = 50")
plt.xticks(rotation=30)
plt.show()
"""),
    Honest("plot_two_sentence_bars", "numpy_with_counts_written", """
import numpy as np
names = np.array(list(made))
counts = np.array([made[n] for n in names])
fig, ax = plt.subplots()
bars = ax.bar(names, counts, color="tab:green")
for rect, c in zip(bars, counts):
    ax.text(rect.get_x() + rect.get_width() / 2, c, str(c), ha="center", va="bottom")
ax.set_ylabel("number of sentences")
ax.grid(axis="y", alpha=0.3)
ax.tick_params(axis="x", rotation=45)
plt.show()
"""),
    Honest("plot_two_sentence_bars", "barh_fraction_inverted", """
total = sum(made.values())
names = [s for s, _ in made.most_common()]
fig, ax = plt.subplots()
ax.barh(range(len(names)), [made[s] / total for s in names])
ax.set_yticks(range(len(names)))
ax.set_yticklabels(names)
ax.invert_yaxis()
ax.set_xlabel("fraction of 2000 sentences")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "all_four_combinations", """
order = ["the cat is alive", "the box is empty", "the cat is empty", "the box is alive"]
names = order + [s for s in made if s not in order]
plt.bar(names, [made.get(s, 0) for s in names])
plt.xticks(rotation=90)
plt.ylabel("count")
plt.xlabel("sentence")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "torch_heights_and_xticks", """
names = list(made)
heights = torch.tensor([made[n] for n in names], dtype=torch.float) / sum(made.values())
fig, ax = plt.subplots()
ax.bar(torch.arange(len(names)), heights, width=0.6)
ax.set_xticks(range(len(names)))
ax.set_xticklabels(names, rotation=45, ha="right")
ax.set_ylim(0, 1)
ax.set_ylabel("share")
plt.show()
"""),
    Honest("plot_two_sentence_bars", "pandas_series_bar", """
import pandas as pd
counts = pd.Series(made).sort_values(ascending=False)
ax = counts.plot.bar(rot=30)
ax.set_xlabel("sentence")
ax.set_ylabel("count")
ax.set_title("T = 50")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_two_sentence_bars", "seaborn_barplot_fractions", """
import seaborn as sns
total = sum(made.values())
ax = sns.barplot(x=list(made.keys()), y=[c / total for c in made.values()])
ax.set_xlabel("sentence")
ax.set_ylabel("fraction of sentences")
ax.tick_params(axis="x", rotation=45)
plt.show()
""", "pandas-seaborn"),
    Honest("plot_two_sentence_bars", "seaborn_countplot_horizontal", """
import seaborn as sns
every_sentence = list(made.elements())
ax = sns.countplot(y=every_sentence, order=[s for s, _ in made.most_common()])
ax.set_xlabel("count")
ax.set_ylabel("sentence")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_two_sentence_bars", "pandas_dataframe_barh", """
import pandas as pd
df = pd.DataFrame.from_dict(made, orient="index", columns=["count"])
df["fraction"] = df["count"] / df["count"].sum()
ax = df["fraction"].plot.barh()
ax.set_xlabel("fraction of sentences")
ax.set_ylabel("sentence")
plt.show()
""", "pandas-seaborn"),
]

CAT = [
    Honest("plot_cat_probability", "object_api_t_descending", """
T = 50
cat = vocab.index("cat")
fig, ax = plt.subplots()
for run in range(10):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, cat]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    ax.plot(list(range(T, 0, -1)), ps)
ax.set_ylim(0, 1)
ax.set_xlabel("t")
ax.set_ylabel("P(cat at position 2)")
plt.show()
"""),
    Honest("plot_cat_probability", "fifty_one_points", """
T = 50
for run in range(10):
    x = torch.full((4,), MASK)
    ps = [float(GuessX0_two(x)[1, vocab.index("cat")])]
    for t in range(T, 0, -1):
        x = Undiffuse(x, t, GuessX0_two, MASK)
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
    plt.plot(range(T, -1, -1), ps)
plt.ylim(0, 1)
plt.xlabel("t")
plt.ylabel("guessed P(cat)")
plt.show()
"""),
    Honest("plot_cat_probability", "steps_taken_on_x", """
T = 50
for run in range(10):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(GuessX0_two(x)[1, vocab.index("cat")].item())
        x = Undiffuse(x, t, GuessX0_two, MASK)
    plt.plot(ps, label=f"run {run + 1}")
plt.ylim(0, 1)
plt.xlabel("steps taken (t = 50 - step)")
plt.ylabel("P(x[1] = cat)")
plt.legend(fontsize=6, ncol=2)
plt.show()
"""),
    Honest("plot_cat_probability", "one_panel_per_run", """
T = 50
fig, axes = plt.subplots(2, 5, figsize=(14, 5), sharey=True)
for ax in axes.flat:
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    ax.plot(range(T, 0, -1), ps)
    ax.set_ylim(0, 1)
    ax.set_xlabel("t")
    ax.set_ylabel("P(cat)")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_cat_probability", "scatter_points", """
T = 50
fig, ax = plt.subplots()
for run in range(10):
    x, ts, ps = torch.full((4,), MASK), [], []
    for t in range(T, 0, -1):
        ts.append(t)
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    ax.scatter(ts, ps, s=6)
ax.set_ylim(-0.05, 1.05)
ax.invert_xaxis()
ax.set_xlabel("t")
ax.set_ylabel("probability of cat")
plt.show()
"""),
    Honest("plot_cat_probability", "numpy_array_one_call", """
import numpy as np
T, runs = 50, 10
trace = np.zeros((runs, T))
for r in range(runs):
    x = torch.full((4,), MASK)
    for i, t in enumerate(range(T, 0, -1)):
        trace[r, i] = GuessX0_two(x)[1, vocab.index("cat")]
        x = Undiffuse(x, t, GuessX0_two, MASK)
plt.plot(np.arange(T, 0, -1), trace.T, alpha=0.6)
plt.ylim(0, 1)
plt.xlabel("t")
plt.ylabel("P(position 2 = cat)")
plt.title("10 runs, T = 50")
plt.show()
"""),
    Honest("plot_cat_probability", "step_lines_grid", """
T = 50
for run in range(10):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    plt.step(range(T, 0, -1), ps, where="post")
plt.ylim(0, 1)
plt.grid(True)
plt.xlabel("t")
plt.ylabel("P(cat)")
plt.show()
"""),
    Honest("plot_cat_probability", "with_their_average", """
T = 50
traces = []
for run in range(10):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    traces.append(ps)
    plt.plot(range(T, 0, -1), ps, color="gray", alpha=0.5)
plt.axhline(0.8, color="r", ls=":", label="prior 0.8")
plt.ylim(0, 1)
plt.xlabel("t")
plt.ylabel("P(cat at position 2)")
plt.legend()
plt.show()
"""),
    Honest("plot_cat_probability", "pandas_dataframe_one_column_per_run", """
import pandas as pd
T = 50
columns = {}
for run in range(1, 11):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, vocab.index("cat")]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    columns[f"run {run}"] = ps
df = pd.DataFrame(columns, index=pd.Index(range(T, 0, -1), name="t"))
ax = df.plot(ylim=(0, 1), legend=False, alpha=0.7)
ax.set_ylabel("P(cat at position 2)")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_cat_probability", "seaborn_lineplot_hue_run", """
import pandas as pd
import seaborn as sns
T = 50
rows = []
for run in range(10):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        rows.append({"run": run, "t": t, "P(cat)": float(GuessX0_two(x)[1, vocab.index("cat")])})
        x = Undiffuse(x, t, GuessX0_two, MASK)
df = pd.DataFrame(rows)
ax = sns.lineplot(data=df, x="t", y="P(cat)", hue="run", palette="tab10")
ax.set_ylim(0, 1)
ax.invert_xaxis()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_cat_probability", "seaborn_lineplot_units", """
import pandas as pd
import seaborn as sns
T = 50
rows = []
for run in range(10):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        rows.append((run, t, GuessX0_two(x)[1, vocab.index("cat")].item()))
        x = Undiffuse(x, t, GuessX0_two, MASK)
df = pd.DataFrame(rows, columns=["run", "t", "p"])
sns.lineplot(data=df, x="t", y="p", units="run", estimator=None, color="gray", alpha=0.6)
plt.ylim(0, 1)
plt.xlabel("t")
plt.ylabel("P(position 2 is cat)")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_cat_probability", "seaborn_relplot_facets", """
import pandas as pd
import seaborn as sns
T = 50
rows = []
for run in range(1, 11):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        rows.append({"run": run, "t": t, "P(cat)": float(GuessX0_two(x)[1, vocab.index("cat")])})
        x = Undiffuse(x, t, GuessX0_two, MASK)
g = sns.relplot(data=pd.DataFrame(rows), x="t", y="P(cat)", col="run", col_wrap=5, kind="line", height=2)
g.set(ylim=(0, 1))
g.set_axis_labels("t", "P(cat)")
plt.show()
""", "pandas-seaborn"),
]


FEW_STEPS = [
    Honest("plot_bars_few_steps", "four_panels_categorical", """
fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
for ax, T in zip(axes, (1, 2, 4, 10)):
    made = made_by_T[T]
    ax.bar(list(made), list(made.values()))
    ax.set_title(f"T = {T}")
    ax.tick_params(axis="x", rotation=90)
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_bars_few_steps", "two_by_two_fractions", """
fig, axes = plt.subplots(2, 2, figsize=(10, 8))
for ax, T in zip(axes.flat, [1, 2, 4, 10]):
    made = made_by_T[T]
    total = sum(made.values())
    names = sorted(made)
    ax.bar(range(len(names)), [made[n] / total for n in names], tick_label=names)
    ax.set_title(f"T={T}")
    ax.set_ylabel("fraction")
    ax.tick_params(axis="x", labelrotation=60)
plt.tight_layout()
plt.show()
"""),
    Honest("plot_bars_few_steps", "one_figure_per_T", """
for T in (1, 2, 4, 10):
    made = made_by_T[T]
    plt.figure(figsize=(5, 3))
    plt.bar(made.keys(), made.values())
    plt.title(f"T = {T}")
    plt.ylabel("count")
    plt.xticks(rotation=60, ha="right")
    plt.show()
"""),
    Honest("plot_bars_few_steps", "barh_panels", """
fig, axes = plt.subplots(4, 1, figsize=(6, 12))
for ax, T in zip(axes, (1, 2, 4, 10)):
    made = made_by_T[T]
    names = [s for s, _ in made.most_common()]
    ax.barh(names, [made[s] for s in names])
    ax.set_title(f"T = {T}")
    ax.set_xlabel("sentences")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_bars_few_steps", "percent_panels_same_order", """
order = ["the cat is alive", "the box is empty", "the cat is empty", "the box is alive"]
fig, axes = plt.subplots(1, 4, figsize=(16, 4))
for ax, T in zip(axes, (1, 2, 4, 10)):
    made = made_by_T[T]
    names = order + sorted(set(made) - set(order))
    total = sum(made.values())
    ax.bar(range(len(names)), [100 * made.get(n, 0) / total for n in names])
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=70, fontsize=7)
    ax.set_ylabel("% of sentences")
    ax.set_title(f"T = {T}")
fig.suptitle("fewer, bigger steps")
plt.show()
"""),
    Honest("plot_bars_few_steps", "reference_helpers_new_sampling", """
fig, axes = plt.subplots(1, 4, figsize=(15, 3.5))
for ax, T in zip(axes, (1, 2, 4, 10)):
    bar_chart(ax, sentences(T, Undiffuse, 2000), f"T = {T}")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_bars_few_steps", "grouped_bars_one_axes", """
import numpy as np
names = sorted(set().union(*[set(m) for m in made_by_T.values()]))
x = np.arange(len(names))
fig, ax = plt.subplots(figsize=(10, 4))
for i, T in enumerate((1, 2, 4, 10)):
    made = made_by_T[T]
    total = sum(made.values())
    ax.bar(x + (i - 1.5) * 0.2, [made.get(n, 0) / total for n in names], width=0.2, label=f"T = {T}")
ax.set_xticks(x, names, rotation=60, ha="right")
ax.set_ylabel("fraction")
ax.legend()
plt.show()
"""),
    Honest("plot_bars_few_steps", "numpy_counts_with_grid", """
import numpy as np
fig, axes = plt.subplots(1, 4, figsize=(16, 4))
for ax, T in zip(axes, (1, 2, 4, 10)):
    made = made_by_T[T]
    names = list(made)
    ax.bar(np.arange(len(names)), np.array([made[n] for n in names]))
    ax.set_xticks(np.arange(len(names)))
    ax.set_xticklabels(names, rotation=80)
    ax.set_title(f"{T} steps (T = {T})")
    ax.grid(axis="y")
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_bars_few_steps", "pandas_bar_subplots", """
import pandas as pd
df = pd.DataFrame({f"T = {T}": pd.Series(made) for T, made in made_by_T.items()}).fillna(0)
axes = df.plot.bar(subplots=True, layout=(1, 4), figsize=(16, 4), sharey=True, rot=90)
for ax in axes.flat:
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_bars_few_steps", "seaborn_catplot_col_T", """
import pandas as pd
import seaborn as sns
long = pd.DataFrame([{"T": T, "sentence": s, "fraction": n / sum(made.values())}
                     for T, made in made_by_T.items() for s, n in made.items()])
g = sns.catplot(data=long, x="sentence", y="fraction", col="T", kind="bar", height=3.5)
g.set_xticklabels(rotation=90)
g.set_axis_labels("sentence", "fraction of sentences")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_bars_few_steps", "seaborn_countplot_panels", """
import seaborn as sns
fig, axes = plt.subplots(2, 2, figsize=(10, 8))
for ax, T in zip(axes.flat, (1, 2, 4, 10)):
    sns.countplot(y=list(made_by_T[T].elements()), ax=ax)
    ax.set_title(f"T = {T}")
    ax.set_xlabel("count")
    ax.set_ylabel("sentence")
plt.tight_layout()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_bars_few_steps", "pandas_grouped_bars_one_axes", """
import pandas as pd
shares = pd.DataFrame({f"T = {T}": pd.Series(made) / sum(made.values()) for T, made in made_by_T.items()})
ax = shares.fillna(0).plot.bar(figsize=(10, 4), rot=60)
ax.set_xlabel("sentence")
ax.set_ylabel("fraction")
plt.show()
""", "pandas-seaborn"),
]

IMPOSSIBLE = [
    Honest("plot_impossible_fraction", "object_api_log_scales", """
fig, ax = plt.subplots()
ax.plot(Ts, impossible, "o-", label="measured")
ax.plot(Ts, [0.32 / T for T in Ts], "--", label="0.32/T")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("T")
ax.set_ylabel("fraction impossible")
ax.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "axline_on_log_axes", """
plt.loglog(Ts, impossible, "s", label="neither real sentence")
plt.axline((1, 0.32), (50, 0.32 / 50), color="k", ls=":", label="0.32 / T")
plt.xlabel("T (steps)")
plt.ylabel("fraction")
plt.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "scatter_and_a_dense_line", """
import numpy as np
grid = np.logspace(0, np.log10(50), 100)
plt.scatter(Ts, impossible, label="measured", zorder=3)
plt.plot(grid, 0.32 / grid, "r-", label="0.32/T")
plt.xscale("log")
plt.yscale("log")
plt.xlabel("T")
plt.ylabel("impossible fraction")
plt.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "percent", """
plt.loglog(Ts, [100 * f for f in impossible], "o", label="measured")
plt.loglog(Ts, [32 / T for T in Ts], "k--", label="32 / T %")
plt.xlabel("number of steps T")
plt.ylabel("% impossible sentences")
plt.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "errorbar_binomial", """
import numpy as np
n = np.array([sum(made_by_T[T].values()) for T in Ts])
f = np.array(impossible)
plt.errorbar(Ts, f, yerr=np.sqrt(f * (1 - f) / n), fmt="o", capsize=3, label="measured")
plt.plot(Ts, 0.32 / np.array(Ts), "k-", label="0.32/T")
plt.xscale("log")
plt.yscale("log")
plt.xlabel("T")
plt.ylabel("fraction of impossible sentences")
plt.legend()
plt.grid(True, which="both", alpha=0.3)
plt.show()
"""),
    Honest("plot_impossible_fraction", "recomputed_from_tallies_torch", """
Ts_t = torch.tensor(Ts, dtype=torch.float)
fr = torch.tensor([1 - (m["the cat is alive"] + m["the box is empty"]) / sum(m.values())
                   for m in (made_by_T[T] for T in Ts)])
fig, ax = plt.subplots(figsize=(5, 4))
ax.loglog(Ts_t, fr, "D", label="fraction neither real")
ax.loglog(Ts_t, 0.32 / Ts_t, "g-", label="0.32 / T")
ax.set_xlabel("T")
ax.set_ylabel("fraction")
ax.set_title("impossible sentences vs T")
ax.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "line_first_then_points_annotated", """
plt.loglog(Ts, [0.32 / T for T in Ts], color="gray", label="0.32 / T")
plt.loglog(Ts, impossible, "ro", label="undiffusion")
for T, f in zip(Ts, impossible):
    plt.annotate(f"T={T}", (T, f), textcoords="offset points", xytext=(4, 4), fontsize=7)
plt.xlabel("T")
plt.ylabel("fraction neither sentence")
plt.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "lists_and_grid", """
xs = list(Ts)
ys = list(impossible)
theory = [0.32 / x for x in xs]
plt.figure()
plt.loglog(xs, ys, marker="o", linestyle="none", label="data")
plt.loglog(xs, theory, linestyle="--", label="0.32/T")
plt.grid(True)
plt.xlabel("steps T")
plt.ylabel("share of impossible sentences")
plt.legend()
plt.show()
"""),
    Honest("plot_impossible_fraction", "pandas_dataframe_loglog", """
import pandas as pd
df = pd.DataFrame({"measured": impossible, "0.32 / T": [0.32 / T for T in Ts]}, index=pd.Index(Ts, name="T"))
ax = df.plot(loglog=True, style=["o", "k--"])
ax.set_ylabel("fraction of impossible sentences")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_impossible_fraction", "seaborn_scatter_and_line", """
import numpy as np
import seaborn as sns
ax = sns.scatterplot(x=Ts, y=impossible, s=60, label="measured")
sns.lineplot(x=Ts, y=0.32 / np.array(Ts), color="k", label="0.32/T", ax=ax)
ax.set(xscale="log", yscale="log", xlabel="T", ylabel="impossible fraction")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_impossible_fraction", "seaborn_lineplot_long_hue", """
import pandas as pd
import seaborn as sns
long = pd.DataFrame({"T": Ts + Ts, "fraction": impossible + [0.32 / T for T in Ts],
                     "curve": ["measured"] * len(Ts) + ["0.32 / T"] * len(Ts)})
ax = sns.lineplot(data=long, x="T", y="fraction", hue="curve", style="curve", markers=True)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_ylabel("fraction neither real sentence")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_impossible_fraction", "pandas_series_logx_logy", """
import pandas as pd
measured = pd.Series(impossible, index=Ts, name="undiffusion")
theory = pd.Series([0.32 / T for T in Ts], index=Ts, name="0.32/T")
ax = measured.plot(logx=True, logy=True, marker="s", linestyle="none", legend=True)
theory.plot(ax=ax, logx=True, logy=True, style="r-", legend=True)
ax.set_xlabel("T")
ax.set_ylabel("fraction impossible")
plt.show()
""", "pandas-seaborn"),
]

GREEDY_RUNS = [
    Honest("show_greedy_runs", "three_runs_bare", """
for run in range(3):
    x = torch.full((4,), MASK)
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        print(Decode(x))
    print()
"""),
    Honest("show_greedy_runs", "two_runs_x_t", """
T = 4
for run in range(2):
    print(f"run {run}")
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        print(f"x_{t - 1} = {Decode(x)}")
"""),
    Honest("show_greedy_runs", "masks_printed_first", """
for run in range(4):
    x = torch.full((4,), MASK)
    print(f"run {run + 1}:")
    print(f"  t = 4: {Decode(x)}")
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        print(f"  t = {t - 1}: {Decode(x)}")
"""),
    Honest("show_greedy_runs", "one_run_per_line", """
for run in range(3):
    x, steps = torch.full((4,), MASK), []
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        steps.append(Decode(x))
    print(f"run {run + 1}: " + " | ".join(steps))
"""),
    Honest("show_greedy_runs", "five_runs_header", """
print("greedy undiffusion, T = 4")
for run in range(5):
    x = torch.full((4,), MASK)
    print(f"== run {run + 1} ==")
    for step, t in enumerate(range(4, 0, -1), 1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        print(f"step {step}: {Decode(x)}")
"""),
    Honest("show_greedy_runs", "histories_then_printed", """
runs = []
for _ in range(3):
    x, h = torch.full((4,), MASK), []
    for t in [4, 3, 2, 1]:
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        h.append(x.clone())
    runs.append(h)
for i, h in enumerate(runs, 1):
    print("Run", i)
    for t, x in zip([3, 2, 1, 0], h):
        print(" ", t, Decode(x))
"""),
    Honest("show_greedy_runs", "masks_left", """
for run in range(3):
    x = torch.full((4,), MASK)
    print(f"run {run + 1}")
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        print(f"  t={t - 1} ({int((x == MASK).sum())} masked): {Decode(x)}")
"""),
    Honest("show_greedy_runs", "functions_and_list", """
def greedy_history(T=4):
    x, out = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        out.append(Decode(x))
    return out

for run in range(3):
    print(f"run {run + 1}")
    print("\\n".join("   " + s for s in greedy_history()))
"""),
    Honest("show_greedy_runs", "ipython_display_each_step", """
from IPython.display import display
for run in range(3):
    display(f"run {run + 1}")
    x = torch.full((4,), MASK)
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        display(Decode(x))
""", "shown"),
    Honest("show_greedy_runs", "pandas_table_last_expression", """
import pandas as pd
rows = []
for run in range(1, 4):
    x = torch.full((4,), MASK)
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        rows.append((run, t - 1, Decode(x)))
pd.DataFrame(rows, columns=["run", "t", "sentence"])
""", "pandas-seaborn"),
]

GREEDY_BARS = [
    Honest("plot_greedy_bars", "three_panels_categorical", """
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, T in zip(axes, (1, 2, 4)):
    made = greedy_by_T[T]
    ax.bar(list(made), list(made.values()))
    ax.set_title(f"T = {T}")
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_greedy_bars", "barh_stacked_panels", """
fig, axes = plt.subplots(3, 1, figsize=(6, 7))
for ax, T in zip(axes, [1, 2, 4]):
    made = greedy_by_T[T]
    ax.barh(list(made), [made[s] / sum(made.values()) for s in made])
    ax.set_xlim(0, 1)
    ax.set_title(f"greedy, T = {T}")
    ax.set_xlabel("fraction")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_greedy_bars", "one_figure_per_T", """
for T in (1, 2, 4):
    made = greedy_by_T[T]
    plt.figure()
    plt.bar(made.keys(), made.values())
    plt.title(f"T = {T}")
    plt.ylabel("number of sentences")
    plt.show()
"""),
    Honest("plot_greedy_bars", "all_four_sentences_fraction", """
order = ["the cat is alive", "the box is empty", "the cat is empty", "the box is alive"]
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True)
for ax, T in zip(axes, (1, 2, 4)):
    made = greedy_by_T[T]
    names = order + [s for s in made if s not in order]
    total = sum(made.values())
    ax.bar(range(len(names)), [made.get(s, 0) / total for s in names], tick_label=names)
    ax.tick_params(axis="x", rotation=70)
    ax.set_title(f"T = {T}")
axes[0].set_ylabel("fraction")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_greedy_bars", "percent", """
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, T in zip(axes, (1, 2, 4)):
    made = greedy_by_T[T]
    total = sum(made.values())
    ax.bar(list(made), [100 * c / total for c in made.values()])
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of runs")
    ax.set_title(f"T = {T}")
fig.suptitle("greedy undiffusion")
plt.show()
"""),
    Honest("plot_greedy_bars", "reference_helpers_new_sampling", """
fig, axes = plt.subplots(1, 3, figsize=(11, 3.5))
for ax, T in zip(axes, (1, 2, 4)):
    bar_chart(ax, sentences(T, UndiffuseGreedy, 200), f"T = {T}")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_greedy_bars", "counts_written_on_bars", """
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, T in zip(axes, (1, 2, 4)):
    made = greedy_by_T[T]
    names = list(made)
    bars = ax.bar(range(len(names)), [made[n] for n in names])
    ax.bar_label(bars)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names)
    ax.set_title(f"T = {T}")
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
"""),
    Honest("plot_greedy_bars", "grouped_bars_one_axes", """
import numpy as np
names = sorted(set().union(*greedy_by_T.values()))
x = np.arange(len(names))
for i, T in enumerate((1, 2, 4)):
    made = greedy_by_T[T]
    plt.bar(x + (i - 1) * 0.25, [made.get(n, 0) for n in names], width=0.25, label=f"T = {T}")
plt.xticks(x, names)
plt.ylabel("count")
plt.title("greedy undiffusion")
plt.legend()
plt.show()
"""),
    Honest("plot_greedy_bars", "pandas_series_bar_per_axes", """
import pandas as pd
fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, T in zip(axes, (1, 2, 4)):
    pd.Series(greedy_by_T[T]).plot.bar(ax=ax, rot=0, title=f"T = {T}")
    ax.set_ylabel("count")
plt.tight_layout()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_greedy_bars", "seaborn_catplot_col_T", """
import pandas as pd
import seaborn as sns
long = pd.DataFrame([{"T": T, "sentence": s, "count": n} for T, made in greedy_by_T.items() for s, n in made.items()])
g = sns.catplot(data=long, x="sentence", y="count", col="T", kind="bar", height=3.5)
g.set_axis_labels("sentence", "count")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_greedy_bars", "seaborn_countplot_hue_T", """
import pandas as pd
import seaborn as sns
long = pd.DataFrame([{"sentence": s, "run of": f"T = {T}"} for T, made in greedy_by_T.items() for s in made.elements()])
ax = sns.countplot(data=long, x="sentence", hue="run of")
ax.set_ylabel("count")
ax.set_title("greedy undiffusion")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_greedy_bars", "pandas_bar_subplots", """
import pandas as pd
df = pd.DataFrame({f"T = {T}": pd.Series(made) for T, made in greedy_by_T.items()})
axes = df.plot.bar(subplots=True, layout=(1, 3), figsize=(12, 4), rot=0, legend=False,
                   title=list(df.columns))
for ax in axes.flat:
    ax.set_ylabel("runs")
plt.show()
""", "pandas-seaborn"),
]


# Colab's other plotting libraries (issue 46): plotly and altair
OTHER_LIBRARIES = [
    Honest("plot_undiffusion_histograms", "plotly_two_histograms", """
import plotly.graph_objects as go
fig = go.Figure()
for counts, name in ((forward, "ForwardMaskFast"), (backward, "Undiffuse")):
    fig.add_trace(go.Histogram(x=counts, name=name, histnorm="probability", xbins=dict(start=-0.5, end=4.5, size=1)))
fig.update_layout(barmode="group", xaxis_title="masked tokens in x_5", yaxis_title="probability")
fig.show()
""", "plotly-altair"),
    Honest("plot_two_sentence_bars", "plotly_express_bar", """
import plotly.express as px
px.bar(x=list(made.keys()), y=list(made.values()), labels={"x": "sentence", "y": "count"}, title="T = 50")
""", "plotly-altair"),
    Honest("plot_two_sentence_bars", "altair_bars", """
import altair as alt
import pandas as pd
table = pd.DataFrame({"sentence": list(made.keys()), "count": list(made.values())})
alt.Chart(table, title="T = 50").mark_bar().encode(x=alt.X("sentence:N", sort=None), y="count")
""", "plotly-altair"),
    Honest("plot_two_sentence_bars", "plotly_histogram_of_every_sentence", """
import plotly.express as px
sentences = list(made.elements())   # one entry per run
fig = px.histogram(x=sentences, title="T = 50", labels={"x": "sentence made"})
fig.update_layout(yaxis_title="count")
fig.show()
""", "plotly-altair"),
    Honest("plot_two_sentence_bars", "altair_bars_with_their_counts_written", """
import altair as alt
import pandas as pd
table = pd.DataFrame({"sentence": list(made.keys()), "runs": list(made.values())})
bars = alt.Chart(table, title="T = 50").mark_bar().encode(x=alt.X("sentence:N", sort="-y"), y=alt.Y("runs:Q", title="count"))
bars + bars.mark_text(dy=-6).encode(text="runs:Q")
""", "plotly-altair"),
    Honest("plot_cat_probability", "plotly_ten_lines", """
import plotly.graph_objects as go
T = 50
cat = vocab.index("cat")
fig = go.Figure()
for run in range(10):
    x, ps = torch.full((4,), MASK), []
    for t in range(T, 0, -1):
        ps.append(float(GuessX0_two(x)[1, cat]))
        x = Undiffuse(x, t, GuessX0_two, MASK)
    fig.add_trace(go.Scatter(x=list(range(T, 0, -1)), y=ps, mode="lines", name=f"run {run + 1}"))
fig.update_layout(xaxis_title="t", yaxis_title="P(cat at position 2)", yaxis_range=[0, 1])
fig.show()
""", "plotly-altair"),
    Honest("plot_bars_few_steps", "plotly_subplots", """
from plotly.subplots import make_subplots
import plotly.graph_objects as go
Ts = (1, 2, 4, 10)
fig = make_subplots(rows=1, cols=4, subplot_titles=[f"T = {T}" for T in Ts])
for col, T in enumerate(Ts, 1):
    made = made_by_T[T]
    fig.add_trace(go.Bar(x=list(made), y=list(made.values()), name=f"T = {T}"), 1, col)
    fig.update_yaxes(title_text="count", row=1, col=col)
fig.show()
""", "plotly-altair"),
    Honest("plot_impossible_fraction", "plotly_log_axes", """
import plotly.graph_objects as go
fig = go.Figure()
fig.add_trace(go.Scatter(x=Ts, y=impossible, mode="markers+lines", name="measured"))
fig.add_trace(go.Scatter(x=Ts, y=[0.32 / T for T in Ts], mode="lines", line=dict(dash="dash"), name="0.32/T"))
fig.update_xaxes(type="log", title_text="T")
fig.update_yaxes(type="log", title_text="fraction impossible")
fig.show()
""", "plotly-altair"),
    Honest("plot_greedy_bars", "plotly_subplots", """
from plotly.subplots import make_subplots
import plotly.graph_objects as go
fig = make_subplots(rows=1, cols=3, subplot_titles=["T = 1", "T = 2", "T = 4"])
for col, T in enumerate((1, 2, 4), 1):
    made = greedy_by_T[T]
    fig.add_trace(go.Bar(x=list(made), y=list(made.values()), showlegend=False), 1, col)
    fig.update_yaxes(title_text="count", row=1, col=col)
fig.show()
""", "plotly-altair"),
]


OTHER_LIBRARIES += [
    Honest("plot_undiffusion_histograms", "altair_counts_side_by_side", """
import altair as alt
import pandas as pd
runs = pd.DataFrame({"masked": forward + backward,
                     "process": ["forward to t = 5"] * len(forward) + ["undiffused from T to 5"] * len(backward)})
alt.Chart(runs).mark_bar().encode(x=alt.X("masked:O", title="masked tokens"), y=alt.Y("count()", title="runs"),
                                  xOffset="process:N", color="process:N")
""", "plotly-altair"),
    Honest("plot_undiffusion_histograms", "altair_overlaid_shares", """
import altair as alt
import pandas as pd
from collections import Counter
rows = []
for how, counts in (("forward", forward), ("undiffusion", backward)):
    tally = Counter(counts)
    rows += [{"masks": k, "share": tally[k] / len(counts), "how": how} for k in range(5)]
alt.Chart(pd.DataFrame(rows)).mark_bar(opacity=0.5).encode(
    x=alt.X("masks:Q", title="masked tokens in x_5"), y=alt.Y("share", title="probability", stack=None), color="how")
""", "plotly-altair"),
    Honest("plot_cat_probability", "altair_lines_by_run", """
import altair as alt
import pandas as pd
T = 50
cat = vocab.index("cat")
rows = []
for run in range(10):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        rows.append({"t": t, "p": float(GuessX0_two(x)[1, cat]), "run": f"run {run + 1}"})
        x = Undiffuse(x, t, GuessX0_two, MASK)
alt.Chart(pd.DataFrame(rows)).mark_line().encode(x="t", y=alt.Y("p", title="P(cat at position 2)",
                                                                 scale=alt.Scale(domain=[0, 1])), color="run")
""", "plotly-altair"),
    Honest("plot_bars_few_steps", "altair_four_charts", """
import altair as alt
import pandas as pd
def bars(T):
    made = made_by_T[T]
    table = pd.DataFrame({"sentence": list(made), "count": list(made.values())})
    return alt.Chart(table, title=f"T = {T}").mark_bar().encode(x=alt.X("sentence:N", sort=None), y="count")
alt.hconcat(*[bars(T) for T in (1, 2, 4, 10)])
""", "plotly-altair"),
    Honest("plot_impossible_fraction", "altair_log_log", """
import altair as alt
import pandas as pd
table = pd.DataFrame({"T": Ts, "measured": impossible, "theory": [0.32 / T for T in Ts]})
log = alt.Scale(type="log")
points = alt.Chart(table).mark_point().encode(x=alt.X("T", scale=log), y=alt.Y("measured", scale=log,
                                                                                 title="fraction impossible"))
line = alt.Chart(table).mark_line(strokeDash=[4, 2]).encode(x=alt.X("T", scale=log), y=alt.Y("theory", scale=log))
points + line
""", "plotly-altair"),
    Honest("plot_greedy_bars", "altair_three_charts", """
import altair as alt
import pandas as pd
charts = []
for T in (1, 2, 4):
    made = greedy_by_T[T]
    table = pd.DataFrame({"sentence": list(made), "count": list(made.values())})
    charts.append(alt.Chart(table, title=f"T = {T}").mark_bar().encode(x=alt.X("sentence:N", sort=None), y="count"))
alt.hconcat(*charts)
""", "plotly-altair"),
]

# a second plotly way per plot: plotly express, a figure left as the last expression or passed to display()
OTHER_LIBRARIES += [
    Honest("plot_undiffusion_histograms", "plotly_express_overlay", """
import pandas as pd
import plotly.express as px
table = pd.DataFrame({"masked": forward + backward,
                      "how": ["ForwardMaskFast"] * len(forward) + ["Undiffuse from masks"] * len(backward)})
fig = px.histogram(table, x="masked", color="how", barmode="overlay", histnorm="probability", opacity=0.6,
                   labels={"masked": "masked tokens at t = 5"})
fig.update_traces(xbins=dict(start=-0.5, end=4.5, size=1))
fig.update_layout(yaxis_title="share of runs")
fig
""", "plotly-altair"),
    Honest("plot_two_sentence_bars", "plotly_horizontal_display", """
import plotly.graph_objects as go
from IPython.display import display
names = sorted(made, key=made.get)
fig = go.Figure(go.Bar(y=names, x=[made[n] for n in names], orientation="h"))
fig.update_layout(title="T = 50", xaxis_title="count out of 2000 runs", yaxis_title="sentence")
display(fig)
""", "plotly-altair"),
    Honest("plot_cat_probability", "plotly_express_long_table", """
import pandas as pd
import plotly.express as px
T, cat, rows = 50, vocab.index("cat"), []
for run in range(10):
    x = torch.full((4,), MASK)
    for t in range(T, 0, -1):
        rows.append({"t": t, "P(cat)": GuessX0_two(x)[1, cat].item(), "run": run})
        x = Undiffuse(x, t, GuessX0_two, MASK)
px.line(pd.DataFrame(rows), x="t", y="P(cat)", color="run", range_y=[0, 1],
        labels={"t": "step t", "P(cat)": "P(cat) at position 2"})
""", "plotly-altair"),
    Honest("plot_bars_few_steps", "plotly_grid_last_expression", """
from plotly.subplots import make_subplots
import plotly.graph_objects as go
Ts = (1, 2, 4, 10)
fig = make_subplots(rows=2, cols=2, subplot_titles=[f"T = {T}" for T in Ts])
for i, T in enumerate(Ts):
    made = made_by_T[T]
    fig.add_trace(go.Bar(x=list(made.keys()), y=list(made.values()), showlegend=False), i // 2 + 1, i % 2 + 1)
fig.update_yaxes(title_text="sentences")
fig.update_layout(height=700)
fig
""", "plotly-altair"),
    Honest("plot_bars_few_steps", "plotly_express_facets", """
import pandas as pd
import plotly.express as px
rows = [{"T": T, "sentence": sentence, "count": n} for T, made in made_by_T.items() for sentence, n in made.items()]
fig = px.bar(pd.DataFrame(rows), x="sentence", y="count", facet_col="T", facet_col_wrap=2, height=800)
fig.update_xaxes(matches=None, showticklabels=True)
fig.show()
""", "plotly-altair"),
    Honest("plot_greedy_bars", "altair_facet_columns", """
import altair as alt
import pandas as pd
rows = [{"T": T, "sentence": s, "runs": n} for T, made in greedy_by_T.items() for s, n in made.items()]
alt.Chart(pd.DataFrame(rows)).mark_bar().encode(x=alt.X("sentence:N"), y="runs:Q").facet(column="T:O")
""", "plotly-altair"),
    Honest("plot_impossible_fraction", "plotly_express_log_log", """
import plotly.express as px
import plotly.graph_objects as go
fig = px.scatter(x=Ts, y=impossible, log_x=True, log_y=True,
                 labels={"x": "T (steps)", "y": "share of impossible sentences"})
fig.add_trace(go.Scatter(x=Ts, y=[0.32 / T for T in Ts], mode="lines", name="0.32 / T"))
fig.show()
""", "plotly-altair"),
    Honest("plot_greedy_bars", "plotly_rows_display", """
from plotly.subplots import make_subplots
import plotly.graph_objects as go
from IPython.display import display
fig = make_subplots(rows=3, cols=1, subplot_titles=[f"T = {T}" for T in (1, 2, 4)])
for row, T in enumerate((1, 2, 4), 1):
    made = greedy_by_T[T]
    fig.add_trace(go.Bar(x=list(made), y=list(made.values()), name=f"T = {T}"), row, 1)
fig.update_yaxes(title_text="runs")
display(fig)
""", "plotly-altair"),
]

# printouts shown another way (issue 46): Markdown, an HTML table, rich
OTHER_LIBRARIES += [
    Honest("plot_two_sentence_bars", "altair_horizontal_bars", """
import altair as alt
import pandas as pd
table = pd.DataFrame(made.most_common(), columns=["sentence", "runs"])
alt.Chart(table, title="T = 50").mark_bar().encode(y=alt.Y("sentence:N", sort="-x"), x=alt.X("runs:Q", title="count"))
""", "plotly-altair"),
    Honest("show_undiffusion_runs", "markdown_lists", """
from IPython.display import Markdown, display
lines = []
for run in range(1, 6):
    lines.append(f"**run {run}**")
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
        lines.append(f"- {Decode(x)}")
    lines.append("")
display(Markdown("\\n".join(lines)))
""", "shown"),
    Honest("show_thousand_runs", "html_table", """
import pandas as pd
from IPython.display import HTML, display

def once():
    x = torch.full((4,), MASK)
    for t in range(10, 0, -1):
        x = Undiffuse(x, t, GuessX0_one, MASK)
    return x

made = Tally(once, 1000)
table = pd.DataFrame(made.most_common(), columns=["sentence", "runs"])
display(HTML(table.to_html(index=False)))
""", "shown"),
    Honest("show_greedy_runs", "rich_console", """
from rich.console import Console
console = Console()
for run in range(3):
    console.print(f"[bold]run {run + 1}[/bold]")
    x = torch.full((4,), MASK)
    for t in range(4, 0, -1):
        x = UndiffuseGreedy(x, t, GuessX0_two, MASK)
        console.print(f"  t = {t - 1}: {Decode(x)}")
""", "shown"),
]

HONEST = RUNS + THOUSAND + UNDIFFUSION_HISTOGRAMS + TWO_SENTENCE_BARS + CAT + FEW_STEPS + IMPOSSIBLE + GREEDY_RUNS + GREEDY_BARS + OTHER_LIBRARIES
