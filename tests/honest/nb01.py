"""Notebook 01: correct drawings and printouts of its four graded cells, each written from the task text
above the cell as a different student would (see tests/honest/__init__.py)."""
from . import Honest

NOTEBOOK = "01_noise_for_words.ipynb"

DATA = {
    "plot_schedule": "T = 50\nbeta, alpha_bar = MakeSchedule(T)\n",
    "plot_masked_fraction": (
        "T = 50\nbeta, alpha_bar = MakeSchedule(T)\nn_runs = repeats(1000)\n"
        "runs = torch.stack([torch.stack(ForwardMask(x_0, T, beta)) == MASK for _ in range(n_runs)])\n"
        "masked = runs.float().mean(dim=(0, 2))       # average fraction masked at each t\n"),
    "plot_masked_histograms": (
        "T, t, L = 50, 20, len(x_0)\nbeta, alpha_bar = MakeSchedule(T)\nn_runs = repeats(5000)\n"
        "slow = [int((ForwardMask(x_0, t, beta)[-1] == MASK).sum()) for _ in range(n_runs)]\n"
        "fast = [int((ForwardMaskFast(x_0, t, alpha_bar) == MASK).sum()) for _ in range(n_runs)]\n"
        "p = 1 - float(alpha_bar[t])\n"
        "law = [math.comb(L, k) * p**k * (1 - p) ** (L - k) for k in range(L + 1)]\n"),
}

SCHEDULE = [
    Honest("plot_schedule", "pyplot_one_axes", """
t = torch.arange(T + 1)
plt.plot(t, beta, label="beta_t")
plt.plot(t, alpha_bar, label="alpha_bar_t")
plt.plot(t, 1 - t / T, "--", label="1 - t/T")
plt.xlabel("t")
plt.ylabel("value")
plt.legend()
plt.show()
"""),
    Honest("plot_schedule", "two_panels_line_on_the_second", """
t = torch.arange(T + 1)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
left.plot(t[1:], beta[1:], "o-", label=r"$\\beta_t$")
left.set_xlabel("t")
left.set_ylabel(r"$\\beta_t$")
left.legend()
right.plot(t, alpha_bar, "o", label=r"$\\bar\\alpha_t$")
right.plot(t, 1 - t / T, "k--", label="1 - t/T")
right.set_xlabel("t")
right.set_ylabel(r"$\\bar\\alpha_t$")
right.legend()
plt.show()
"""),
    Honest("plot_schedule", "axline", """
fig, ax = plt.subplots()
ax.plot(range(T + 1), beta, "s-", ms=2, label="beta")
ax.plot(range(T + 1), alpha_bar, "o", ms=3, label="alpha bar")
ax.axline((0, 1), (T, 0), color="gray", ls=":", label="1 - t/T")
ax.set_xlabel("step")
ax.set_ylabel("probability")
ax.legend()
plt.show()
"""),
    Honest("plot_schedule", "numpy_scatter_grid_title", """
import numpy as np
t = np.arange(T + 1)
b, a = beta.numpy(), alpha_bar.numpy()
plt.figure(figsize=(7, 4))
plt.scatter(t, a, s=10, label="alpha_bar")
plt.plot(t, b, "r-", label="beta")
plt.plot(t, 1 - t / T, "k:", label="straight line 1 - t/T")
plt.title("The schedule for T = 50")
plt.grid(True)
plt.xlabel("t")
plt.ylabel("beta, alpha_bar")
plt.legend(loc="center right")
plt.show()
"""),
    Honest("plot_schedule", "lists_and_a_two_point_line", """
ts = list(range(T + 1))
plt.plot(ts, [float(v) for v in beta], label="β_t")
plt.plot(ts, [float(v) for v in alpha_bar], "o", label="ᾱ_t")
plt.plot([0, T], [1, 0], "g--", label="1 - t/T")
plt.xlabel("t")
plt.ylabel("probability")
plt.legend()
plt.show()
"""),
    Honest("plot_schedule", "stem_for_beta", """
t = torch.arange(T + 1)
fig, ax = plt.subplots()
ax.stem(t.numpy(), beta.numpy(), label="beta_t")
ax.plot(t, alpha_bar, "C1o-", ms=3, label="alpha_bar_t")
ax.plot(t, 1 - t / T, "k--", label="1 - t/T")
ax.set_xlabel("t")
ax.set_ylabel("probability")
ax.legend()
plt.show()
"""),
    Honest("plot_schedule", "step_and_stacked_panels", """
t = torch.arange(T + 1)
fig, axes = plt.subplots(2, 1, sharex=True, figsize=(6, 6))
axes[0].step(t, beta, where="post", label="beta_t")
axes[0].set_ylabel("beta_t")
axes[0].legend()
axes[1].plot(t, alpha_bar, label="alpha_bar_t")
axes[1].plot(t, 1 - t / T, "--", label="1 - t/T")
axes[1].set_ylabel("alpha_bar_t")
axes[1].set_xlabel("t")
axes[1].legend()
fig.suptitle("Schedule with T = 50")
plt.show()
"""),
    Honest("plot_schedule", "annotated_with_text", """
steps = list(range(T + 1))
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(steps, beta.tolist(), label="beta")
ax.plot(steps, alpha_bar.tolist(), "o", ms=2, label="alpha_bar")
ax.plot(steps, [1 - s / T for s in steps], ":", label="1 - t/T")
ax.annotate("beta_T = 1", xy=(T, 1.0), xytext=(30, 0.8), arrowprops={"arrowstyle": "->"})
ax.text(2, 0.1, "T = 50")
ax.set(xlabel="time step t", ylabel="probability", title="Masking schedule")
ax.legend()
plt.show()
"""),
    Honest("plot_schedule", "twin_axis_for_beta", """
t = torch.arange(T + 1)
fig, ax = plt.subplots()
ax.plot(t, alpha_bar, "b", label="alpha_bar_t")
ax.plot(t, 1 - t / T, "b--", label="1 - t/T")
ax.set_xlabel("t")
ax.set_ylabel("alpha_bar_t")
ax.legend(loc="upper center")
other = ax.twinx()
other.plot(t, beta, "r", label="beta_t")
other.set_ylabel("beta_t")
other.legend(loc="upper left")
plt.show()
"""),
    Honest("plot_schedule", "pandas_dataframe_plot", """
import pandas as pd
steps = range(T + 1)
df = pd.DataFrame({"beta_t": beta.numpy(), "alpha_bar_t": alpha_bar.numpy(),
                   "1 - t/T": [1 - t / T for t in steps]}, index=steps)
ax = df.plot(style=["o-", "s", "k--"], ms=3, figsize=(6, 4))
ax.set_xlabel("t")
ax.set_ylabel("probability")
ax.set_title(f"schedule, T = {T}")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_schedule", "pandas_two_panels", """
import pandas as pd
df = pd.DataFrame({"beta": beta.numpy(), "alpha_bar": alpha_bar.numpy()})
df["1 - t/T"] = 1 - df.index / T
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
df["beta"].plot(ax=left, marker=".", legend=True)
left.set_xlabel("t")
left.set_ylabel("beta_t")
df[["alpha_bar", "1 - t/T"]].plot(ax=right, style=["o", "--"], ms=3)
right.set_xlabel("t")
right.set_ylabel("alpha_bar_t")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_schedule", "seaborn_lineplot_long_form", """
import pandas as pd
import seaborn as sns
t = list(range(T + 1))
wide = pd.DataFrame({"t": t, "beta_t": beta.tolist(), "alpha_bar_t": alpha_bar.tolist(),
                     "1 - t/T": [1 - s / T for s in t]})
long = wide.melt(id_vars="t", var_name="curve", value_name="value")
ax = sns.lineplot(data=long, x="t", y="value", hue="curve", style="curve")
ax.set_ylabel("probability")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_schedule", "seaborn_scatter_and_lines", """
import numpy as np
import seaborn as sns
t = np.arange(T + 1)
with sns.axes_style("whitegrid"):
    fig, ax = plt.subplots(figsize=(6, 4))
    sns.lineplot(x=t, y=beta.numpy(), label="beta_t", ax=ax)
    sns.scatterplot(x=t, y=alpha_bar.numpy(), label="alpha_bar_t", ax=ax)
    sns.lineplot(x=[0, T], y=[1, 0], color="k", linestyle="--", label="1 - t/T", ax=ax)
    ax.set(xlabel="t", ylabel="beta_t, alpha_bar_t")
    plt.show()
""", "pandas-seaborn"),
    Honest("plot_schedule", "pandas_grouped_subplots", """
import pandas as pd
df = pd.DataFrame({"beta_t": beta.numpy(), "alpha_bar_t": alpha_bar.numpy()})
df["1 - t/T"] = 1 - df.index / T
axes = df.plot(subplots=[("alpha_bar_t", "1 - t/T")], style=["o", "--", "-"], ms=3, figsize=(6, 6), sharex=True)
for ax in axes:
    ax.set_xlabel("t")
    ax.set_ylabel("probability")
plt.show()
""", "pandas-seaborn"),
]

DISSOLUTION = [
    Honest("show_dissolution", "bare_sentences", """
beta, _ = MakeSchedule(16)
for x in ForwardMask(x_0, 16, beta):
    print(Decode(x))
"""),
    Honest("show_dissolution", "x_t_prefixes", """
T = 16
beta, alpha_bar = MakeSchedule(T)
history = ForwardMask(x_0, T, beta)
for t, x in enumerate(history):
    print(f"x_{t}: {Decode(x)}")
"""),
    Honest("show_dissolution", "header_line", """
T = 16
beta, _ = MakeSchedule(T)
print(f"The sentence dissolving over T = {T} steps:")
for t, x in enumerate(ForwardMask(x_0, T, beta)):
    print(t, Decode(x))
"""),
    Honest("show_dissolution", "joined_lines", """
beta, _ = MakeSchedule(T=16)
history = ForwardMask(x_0, 16, beta)
print("\\n".join(Decode(x) for x in history))
"""),
    Honest("show_dissolution", "masked_count_beside", """
beta, _ = MakeSchedule(16)
for t, x in enumerate(ForwardMask(x_0, 16, beta)):
    print(f"t={t:>2} ({int((x == MASK).sum()):2d} masked) | {Decode(x)}")
"""),
    Honest("show_dissolution", "step_of_T", """
T = 16
beta, _ = MakeSchedule(T)
for t, x in enumerate(ForwardMask(x_0, T, beta)):
    print(f"step {t}/{T}: {Decode(x)}")
"""),
    Honest("show_dissolution", "quoted_with_blank_line_after", """
beta, alpha_bar = MakeSchedule(16)
history = ForwardMask(x_0, 16, beta)
print(len(history), "sentences")
for t in range(len(history)):
    print(f"t = {t}: '{Decode(history[t])}'")
print()
"""),
    Honest("show_dissolution", "latest_first", """
T = 16
beta, _ = MakeSchedule(T)
history = ForwardMask(x_0, T, beta)
for t in range(T, -1, -1):
    print(f"t = {t:2d}  {Decode(history[t])}")
"""),
    Honest("show_dissolution", "list_as_last_expression", """
beta, _ = MakeSchedule(16)
history = ForwardMask(x_0, 16, beta)
[Decode(x) for x in history]
""", "shown"),
    Honest("show_dissolution", "display_each_sentence", """
T = 16
beta, _ = MakeSchedule(T)
for x in ForwardMask(x_0, T, beta):
    display(Decode(x))
""", "shown"),
    Honest("show_dissolution", "ipython_display_import", """
from IPython.display import display
beta, alpha_bar = MakeSchedule(16)
history = ForwardMask(x_0, 16, beta)
display(*[f"x_{t}: {Decode(x)}" for t, x in enumerate(history)])
""", "shown"),
    Honest("show_dissolution", "pandas_to_string", """
import pandas as pd
beta, _ = MakeSchedule(16)
history = ForwardMask(x_0, 16, beta)
df = pd.DataFrame({"sentence": [Decode(x) for x in history]})
df.index.name = "t"
print(df.to_string())
""", "pandas-seaborn"),
]

FRACTION = [
    Honest("plot_masked_fraction", "pyplot_points_and_curve", """
plt.plot(range(T + 1), masked, "o", label=f"average over {n_runs} runs")
plt.plot(range(T + 1), 1 - alpha_bar, label="1 - alpha_bar_t")
plt.xlabel("t")
plt.ylabel("fraction masked")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "scatter_numpy", """
import numpy as np
t = np.arange(T + 1)
fig, ax = plt.subplots()
ax.scatter(t, masked.numpy(), s=12, label="ForwardMask, 1000 runs")
ax.plot(t, 1 - alpha_bar.numpy(), "r", label=r"$1-\\bar\\alpha_t$")
ax.set_xlabel("step t")
ax.set_ylabel("average fraction of masked tokens")
ax.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "errorbar_standard_error", """
per_run = runs.float().mean(dim=2)                  # (runs, T + 1)
mean, err = per_run.mean(0), per_run.std(0) / n_runs ** 0.5
plt.errorbar(range(T + 1), mean, yerr=err, fmt=".", capsize=2, label="measured")
plt.plot(range(T + 1), 1 - alpha_bar, "k-", label="theory")
plt.xlabel("t")
plt.ylabel("fraction masked")
plt.legend()
plt.grid(alpha=0.3)
plt.show()
"""),
    Honest("plot_masked_fraction", "percent", """
plt.plot(range(T + 1), 100 * masked, "o", ms=3, label="measured")
plt.plot(range(T + 1), 100 * (1 - alpha_bar), "--", label="100 (1 - alpha_bar)")
plt.xlabel("t")
plt.ylabel("% of tokens masked")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "theory_as_steps", """
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.step(range(T + 1), 1 - alpha_bar, where="mid", color="gray", label="1 - alpha_bar (theory)")
ax.plot(range(T + 1), masked, "x", label="simulation")
ax.set_xlabel("t")
ax.set_ylabel("fraction masked")
ax.set_title(f"{n_runs} forward runs, T = {T}")
ax.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "theory_as_t_over_T", """
# for this schedule alpha_bar_t = 1 - t/T, so the theory 1 - alpha_bar_t is t/T
ts = torch.arange(T + 1)
plt.plot(ts, masked, "o", ms=3, label="measured")
plt.plot(ts, ts / T, "r-", label="theory t/T")
plt.xlabel("t")
plt.ylabel("fraction masked")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "lists_from_the_tensor", """
ts = list(range(T + 1))
measured = [float(v) for v in masked]
theory = [1 - float(a) for a in alpha_bar]
plt.plot(ts, measured, "b.", label="average")
plt.plot(ts, theory, "r-", lw=2, alpha=0.5, label="theory")
plt.xlabel("time step")
plt.ylabel("fraction masked")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "line_measured_dots_theory", """
fig, ax = plt.subplots()
ax.plot(masked, "-", label="average fraction masked")
ax.plot(1 - alpha_bar, "ko", ms=2, label="1 - alpha_bar")
ax.set_xlabel("t")
ax.set_ylabel("fraction")
ax.legend()
ax.grid()
plt.show()
"""),
    Honest("plot_masked_fraction", "theory_from_t_1_with_text", """
t = torch.arange(T + 1)
plt.plot(t, masked, "o", ms=3, label="runs")
plt.plot(t[1:], 1 - alpha_bar[1:], "k-", label="1 - alpha_bar_t")
plt.text(5, 0.8, f"{n_runs} runs")
plt.xlabel("t")
plt.ylabel("masked fraction")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_fraction", "pandas_dataframe_plot", """
import pandas as pd
df = pd.DataFrame({f"average of {n_runs} runs": masked.numpy(), "1 - alpha_bar_t": (1 - alpha_bar).numpy()})
ax = df.plot(style=["o", "k-"], ms=3)
ax.set_xlabel("t")
ax.set_ylabel("fraction masked")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_fraction", "seaborn_lineplot_averages_the_runs", """
import numpy as np
import pandas as pd
import seaborn as sns
per_run = runs.float().mean(dim=2).numpy()          # (runs, T + 1): fraction masked in each run
long = pd.DataFrame({"t": np.tile(np.arange(T + 1), n_runs), "fraction masked": per_run.ravel()})
ax = sns.lineplot(data=long, x="t", y="fraction masked", marker="o", label=f"mean of {n_runs} runs (95% CI)")
ax.plot(range(T + 1), 1 - alpha_bar, "k--", label="1 - alpha_bar_t")
ax.legend()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_fraction", "seaborn_percent_scatter", """
import seaborn as sns
ts = list(range(T + 1))
ax = sns.scatterplot(x=ts, y=(100 * masked).tolist(), label="measured")
sns.lineplot(x=ts, y=(100 * (1 - alpha_bar)).tolist(), color="red", label="100 (1 - alpha_bar_t)", ax=ax)
plt.xlabel("t")
plt.ylabel("% masked")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_fraction", "seaborn_long_form_hue", """
import pandas as pd
import seaborn as sns
ts = list(range(T + 1))
long = pd.concat([
    pd.DataFrame({"t": ts, "fraction": masked.tolist(), "curve": "simulation"}),
    pd.DataFrame({"t": ts, "fraction": (1 - alpha_bar).tolist(), "curve": "theory 1 - alpha_bar"}),
])
sns.lineplot(data=long, x="t", y="fraction", hue="curve", style="curve", markers=True, dashes=False)
plt.ylabel("fraction masked")
plt.title(f"T = {T}, {n_runs} runs")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_fraction", "pandas_series_one_by_one", """
import pandas as pd
measured = pd.Series(masked.numpy(), name="measured")
theory = pd.Series(1 - alpha_bar.numpy(), name="theory")
measured.plot(style=".", label=f"{n_runs} runs")
theory.plot(label="1 - alpha_bar")
plt.xlabel("step t")
plt.ylabel("average fraction masked")
plt.legend()
plt.show()
""", "pandas-seaborn"),
]

HISTOGRAMS = [
    Honest("plot_masked_histograms", "integer_bins_law_over_the_bar_middles", """
import numpy as np
edges = np.arange(L + 2)                        # bars over [n, n + 1)
plt.hist([slow, fast], bins=edges, density=True, label=["ForwardMask", "ForwardMaskFast"], histtype="step")
plt.plot(edges[:-1] + 0.5, law, "k^", label="binomial law at each bar's middle")
plt.xlabel("masked tokens n")
plt.ylabel("P(n)")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "two_panels_each_with_its_law", """
fig, panels = plt.subplots(1, 2, figsize=(10, 3.5))
for ax, counts, name in zip(panels, (slow, fast), ("ForwardMask", "ForwardMaskFast")):
    ax.hist(counts, bins=[k - 0.5 for k in range(L + 2)], density=True, alpha=0.6, label=name)
    ax.plot(range(L + 1), law, "ko-", ms=3, label="Binomial(16, 0.40)")
    ax.set_xlabel("masked tokens at t = 20")
    ax.set_ylabel("probability")
    ax.set_title(name)
    ax.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "overlaid_density_pyplot", """
bins = [k - 0.5 for k in range(L + 2)]
plt.hist(slow, bins=bins, density=True, alpha=0.5, label="ForwardMask")
plt.hist(fast, bins=bins, density=True, alpha=0.5, label="ForwardMaskFast")
plt.plot(range(L + 1), law, "k.-", label="binomial")
plt.xlabel("masked tokens")
plt.ylabel("probability")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "side_by_side_bincount", """
import numpy as np
k = np.arange(L + 1)
plt.bar(k - 0.2, np.bincount(slow, minlength=L + 1) / len(slow), width=0.4, label="ForwardMask")
plt.bar(k + 0.2, np.bincount(fast, minlength=L + 1) / len(fast), width=0.4, label="ForwardMaskFast")
plt.plot(k, law, "ko", label="binomial law")
plt.xlabel("number of masked tokens")
plt.ylabel("fraction of runs")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "grouped_hist", """
import numpy as np
plt.hist([slow, fast], bins=np.arange(L + 2) - 0.5, density=True, label=["ForwardMask", "ForwardMaskFast"])
plt.plot(np.arange(L + 1), law, "r-o", ms=3, label="Binomial")
plt.xlabel("n masked")
plt.ylabel("P(n)")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "bins_17_density", """
plt.hist(slow, bins=17, density=True, alpha=0.5, label="ForwardMask")
plt.hist(fast, bins=17, density=True, alpha=0.5, label="ForwardMaskFast")
plt.plot(range(L + 1), law, "k-", label="binomial P(n)")
plt.xlabel("number masked")
plt.ylabel("density")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "steps_and_counts", """
fig, ax = plt.subplots()
edges = torch.arange(L + 2) - 0.5
ax.hist(slow, bins=edges, histtype="step", lw=2, label="ForwardMask")
ax.hist(fast, bins=edges, histtype="step", ls="--", lw=2, label="ForwardMaskFast")
ax.plot(range(L + 1), [n_runs * q for q in law], "ko", label="n_runs x binomial")
ax.set_xlabel("number of masked tokens")
ax.set_ylabel(f"count (of {n_runs} runs)")
ax.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "percent_stairs", """
import numpy as np
edges = np.arange(L + 2) - 0.5
for data, name in [(slow, "ForwardMask"), (fast, "ForwardMaskFast")]:
    heights, _ = np.histogram(data, bins=edges)
    plt.stairs(100 * heights / len(data), edges, label=name)
plt.plot(range(L + 1), [100 * q for q in law], "k*", label="binomial")
plt.xlabel("masked count n")
plt.ylabel("% of runs")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "stem_law", """
import numpy as np
fig, ax = plt.subplots(figsize=(7, 4))
bins = np.arange(-0.5, L + 1)
ax.hist(np.array(slow), bins=bins, density=True, alpha=0.4, label="ForwardMask")
ax.hist(np.array(fast), bins=bins, density=True, alpha=0.4, label="ForwardMaskFast")
ax.stem(np.arange(L + 1), law, linefmt="k-", markerfmt="ko", basefmt=" ", label="binomial")
ax.set_xlabel("masked tokens at t = 20")
ax.set_ylabel("probability")
ax.set_title("T = 50, t = 20")
ax.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "fraction_weights_scatter_law", """
w = [1 / n_runs] * n_runs
bins = [x - 0.5 for x in range(L + 2)]
plt.hist(slow, bins=bins, weights=w, alpha=0.6, label="slow")
plt.hist(fast, bins=bins, weights=w, alpha=0.6, label="fast")
plt.scatter(range(L + 1), law, color="black", zorder=3, label="binomial")
plt.xlabel("number of masked tokens")
plt.ylabel("fraction")
plt.grid(axis="y")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "vlines_law_torch_bincount", """
k = torch.arange(L + 1)
slow_counts = torch.bincount(torch.tensor(slow), minlength=L + 1)
fast_counts = torch.bincount(torch.tensor(fast), minlength=L + 1)
plt.bar(k, slow_counts / n_runs, width=0.8, alpha=0.5, label="ForwardMask")
plt.bar(k, fast_counts / n_runs, width=0.5, alpha=0.5, label="ForwardMaskFast")
plt.vlines(k, 0, law, colors="k", lw=3, label="binomial")
plt.xlabel("masked")
plt.ylabel("probability")
plt.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "seaborn_histplot_hue_dodge", """
import pandas as pd
import seaborn as sns
df = pd.DataFrame({"masked": slow + fast,
                   "function": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})
ax = sns.histplot(data=df, x="masked", hue="function", discrete=True, stat="probability",
                  common_norm=False, multiple="dodge", shrink=0.8)
law_line, = ax.plot(range(L + 1), law, "ko-", ms=3)
legend = ax.get_legend()
ax.legend(legend.legend_handles + [law_line], [t.get_text() for t in legend.get_texts()] + ["binomial law"])
ax.set_xlabel("number of masked tokens")
ax.set_ylabel("probability")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_histograms", "seaborn_two_histplots", """
import seaborn as sns
sns.histplot(slow, discrete=True, stat="probability", alpha=0.4, color="C0", label="ForwardMask")
sns.histplot(fast, discrete=True, stat="probability", alpha=0.4, color="C1", label="ForwardMaskFast")
plt.plot(range(L + 1), law, "k.-", label="binomial P(n)")
plt.xlabel("masked tokens n")
plt.ylabel("probability")
plt.legend()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_histograms", "pandas_value_counts_bars", """
import pandas as pd
table = pd.DataFrame({"ForwardMask": pd.Series(slow).value_counts(normalize=True),
                      "ForwardMaskFast": pd.Series(fast).value_counts(normalize=True)})
table = table.reindex(range(L + 1), fill_value=0)
table["binomial"] = law
ax = table[["ForwardMask", "ForwardMaskFast"]].plot.bar(rot=0, width=0.8)
table["binomial"].plot(ax=ax, style="ko-", ms=3, use_index=False)
ax.set_xlabel("number of masked tokens")
ax.set_ylabel("probability")
ax.legend()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_histograms", "pandas_plot_hist_density", """
import numpy as np
import pandas as pd
df = pd.DataFrame({"ForwardMask": slow, "ForwardMaskFast": fast})
ax = df.plot.hist(bins=np.arange(L + 2) - 0.5, density=True, alpha=0.5)
pd.Series(law, name="binomial").plot(ax=ax, style="r*-", legend=True)
ax.set_xlabel("masked count")
ax.set_ylabel("probability")
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_histograms", "seaborn_countplot_counts", """
import pandas as pd
import seaborn as sns
df = pd.DataFrame({"masked": slow + fast,
                   "how": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})
ax = sns.countplot(data=df, x="masked", hue="how", order=range(L + 1))
ax.plot(range(L + 1), [n_runs * q for q in law], "ko", label=f"{n_runs} x binomial")
ax.set_xlabel("number of masked tokens")
ax.set_ylabel(f"count (of {n_runs} runs)")
ax.legend()
plt.show()
""", "pandas-seaborn"),
    Honest("plot_masked_histograms", "seaborn_histplot_density_steps", """
import pandas as pd
import seaborn as sns
df = pd.DataFrame({"masked": slow + fast,
                   "sampler": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})
ax = sns.histplot(data=df, x="masked", hue="sampler", discrete=True, stat="density", common_norm=False,
                  element="step", alpha=0.3)
ax.plot(range(L + 1), law, "k*--", label=f"Binomial({L}, {p:.2f})")
old = ax.get_legend()
handles, labels = ax.get_legend_handles_labels()
ax.legend(old.legend_handles + handles, [t.get_text() for t in old.get_texts()] + labels)
ax.set_xlabel("masked tokens at t = 20")
ax.set_ylabel("probability")
plt.show()
""", "pandas-seaborn"),
]


# Colab's other plotting libraries (issue 46): plotly (graph_objects and express) and altair
OTHER_LIBRARIES = [
    Honest("plot_schedule", "plotly_graph_objects", """
import plotly.graph_objects as go
t = list(range(T + 1))
fig = go.Figure()
fig.add_trace(go.Scatter(x=t, y=beta.tolist(), mode="lines+markers", name="beta_t"))
fig.add_trace(go.Scatter(x=t, y=alpha_bar.tolist(), mode="markers", name="alpha_bar_t"))
fig.add_trace(go.Scatter(x=[0, T], y=[1, 0], mode="lines", line=dict(dash="dash"), name="1 - t/T"))
fig.update_layout(title="The masking schedule", xaxis_title="step t", yaxis_title="probability")
fig.show()
""", "plotly-altair"),
    Honest("plot_schedule", "plotly_express_long_table", """
import pandas as pd
import plotly.express as px
t = list(range(T + 1))
table = pd.DataFrame({"t": t * 3, "value": beta.tolist() + alpha_bar.tolist() + [1 - s / T for s in t],
                      "curve": ["beta_t"] * (T + 1) + ["alpha_bar_t"] * (T + 1) + ["1 - t/T"] * (T + 1)})
px.line(table, x="t", y="value", color="curve", markers=True, labels={"value": "probability"})
""", "plotly-altair"),
    Honest("plot_schedule", "altair_layers", """
import altair as alt
import pandas as pd
t = list(range(T + 1))
table = pd.DataFrame({"t": t * 3, "value": beta.tolist() + alpha_bar.tolist() + [1 - s / T for s in t],
                      "curve": ["beta_t"] * (T + 1) + ["alpha_bar_t"] * (T + 1) + ["1 - t/T"] * (T + 1)})
alt.Chart(table).mark_line(point=True).encode(x=alt.X("t", title="step t"), y=alt.Y("value", title="probability"),
                                              color="curve")
""", "plotly-altair"),
    Honest("plot_masked_fraction", "plotly_graph_objects", """
import plotly.graph_objects as go
fig = go.Figure()
fig.add_trace(go.Scatter(x=list(range(T + 1)), y=masked.tolist(), mode="markers", name=f"average of {n_runs} runs"))
fig.add_trace(go.Scatter(x=list(range(T + 1)), y=(1 - alpha_bar).tolist(), mode="lines", name="1 - alpha_bar_t"))
fig.update_layout(xaxis_title="t", yaxis_title="fraction masked")
fig.show()
""", "plotly-altair"),
    Honest("plot_masked_fraction", "plotly_express_scatter_and_line", """
import plotly.express as px
fig = px.scatter(x=list(range(T + 1)), y=masked.tolist(), labels={"x": "step t", "y": "fraction of tokens masked"})
fig.data[0].name, fig.data[0].showlegend = "measured", True
fig.add_scatter(x=list(range(T + 1)), y=(1 - alpha_bar).tolist(), mode="lines", name="theory 1 - alpha_bar")
fig
""", "plotly-altair"),
    Honest("plot_masked_fraction", "altair_points_and_rule_line", """
import altair as alt
import pandas as pd
table = pd.DataFrame({"t": list(range(T + 1)), "measured": masked.tolist(), "theory": (1 - alpha_bar).tolist()})
points = alt.Chart(table).mark_point().encode(x="t", y=alt.Y("measured", title="fraction masked"))
curve = alt.Chart(table).mark_line(color="black").encode(x="t", y="theory")
points + curve
""", "plotly-altair"),
    Honest("plot_masked_histograms", "plotly_overlaid_histograms", """
import plotly.graph_objects as go
fig = go.Figure()
fig.add_trace(go.Histogram(x=slow, name="ForwardMask", histnorm="probability", xbins=dict(start=-0.5, end=L + 0.5, size=1)))
fig.add_trace(go.Histogram(x=fast, name="ForwardMaskFast", histnorm="probability", xbins=dict(start=-0.5, end=L + 0.5, size=1)))
fig.add_trace(go.Scatter(x=list(range(L + 1)), y=law, mode="lines+markers", name="binomial"))
fig.update_layout(barmode="overlay", xaxis_title="masked tokens", yaxis_title="probability")
fig.update_traces(opacity=0.6, selector=dict(type="histogram"))
fig.show()
""", "plotly-altair"),
    Honest("plot_masked_histograms", "plotly_subplots_bars_of_counts", """
from collections import Counter
from plotly.subplots import make_subplots
import plotly.graph_objects as go
fig = make_subplots(rows=1, cols=2, subplot_titles=("ForwardMask", "ForwardMaskFast"))
for col, counts in ((1, slow), (2, fast)):
    tally = Counter(counts)
    ks = list(range(L + 1))
    fig.add_trace(go.Bar(x=ks, y=[tally[k] / len(counts) for k in ks], name="measured" if col == 1 else "measured (fast)"), 1, col)
    fig.add_trace(go.Scatter(x=ks, y=law, mode="markers", name="binomial law" if col == 1 else "binomial law (fast)"), 1, col)
    fig.update_xaxes(title_text="masked tokens", row=1, col=col)
    fig.update_yaxes(title_text="probability", row=1, col=col)
fig.show()
""", "plotly-altair"),
    Honest("plot_masked_histograms", "altair_bars_and_law", """
import altair as alt
import pandas as pd
from collections import Counter
rows = []
for how, counts in (("ForwardMask", slow), ("ForwardMaskFast", fast)):
    tally = Counter(counts)
    rows += [{"k": k, "share": tally[k] / len(counts), "how": how} for k in range(L + 1)]
bars = alt.Chart(pd.DataFrame(rows)).mark_bar(opacity=0.5).encode(x=alt.X("k:Q", title="masked tokens"),
                                                                  y=alt.Y("share", title="probability", stack=None),
                                                                  color="how")
law_line = alt.Chart(pd.DataFrame({"k": list(range(L + 1)), "p": law})).mark_line(color="black").encode(x="k:Q", y="p")
bars + law_line
""", "plotly-altair"),
    # altair that works its table out in the browser: transforms, bins, aggregates (Vega-Lite's own idioms)
    Honest("plot_schedule", "altair_fold_a_wide_table", """
import altair as alt
import pandas as pd
wide = pd.DataFrame({"t": list(range(T + 1)), "beta_t": beta.tolist(), "alpha_bar_t": alpha_bar.tolist(),
                     "1 - t/T": [1 - s / T for s in range(T + 1)]})
alt.Chart(wide).transform_fold(["beta_t", "alpha_bar_t", "1 - t/T"], as_=["curve", "value"]).mark_line(point=True).encode(
    x=alt.X("t:Q", title="step t"), y=alt.Y("value:Q", title="probability"), color="curve:N")
""", "plotly-altair"),
    Honest("plot_schedule", "altair_one_layer_per_column", """
import altair as alt
import pandas as pd
wide = pd.DataFrame({"t": list(range(T + 1)), "beta_t": beta.tolist(), "alpha_bar_t": alpha_bar.tolist(),
                     "1 - t/T": [1 - s / T for s in range(T + 1)]})
alt.Chart(wide).mark_line(point=True).encode(
    x=alt.X("t:Q", title="step t"), y=alt.Y(alt.repeat("layer"), type="quantitative", title="probability"),
    color=alt.ColorDatum(alt.repeat("layer"))).repeat(layer=["beta_t", "alpha_bar_t", "1 - t/T"])
""", "plotly-altair"),
    Honest("plot_masked_fraction", "altair_mean_over_every_run", """
import altair as alt
import pandas as pd
alt.data_transformers.disable_max_rows()   # one row per run and step
per_run = runs.float().mean(dim=2)         # (runs, T + 1): each run's fraction masked at each t
long = pd.DataFrame({"t": list(range(T + 1)) * per_run.shape[0], "fraction": per_run.flatten().tolist()})
average = alt.Chart(long).mark_point(filled=True).encode(x=alt.X("t:Q", title="step t"),
                                                         y=alt.Y("mean(fraction):Q", title="fraction masked"))
theory = alt.Chart(pd.DataFrame({"t": list(range(T + 1)), "p": (1 - alpha_bar).tolist()})).mark_line(
    color="black").encode(x="t:Q", y="p:Q")
(average + theory).properties(title="masked fraction: mean of the runs, and 1 - alpha_bar")
""", "plotly-altair"),
    Honest("plot_masked_fraction", "altair_band_of_two_standard_errors", """
import altair as alt
import pandas as pd
per_run = runs.float().mean(dim=2)                     # (runs, T + 1)
mean, spread = per_run.mean(dim=0), 2 * per_run.std(dim=0) / per_run.shape[0] ** 0.5
table = pd.DataFrame({"t": list(range(T + 1)), "mean": mean.tolist(), "low": (mean - spread).tolist(),
                      "high": (mean + spread).tolist(), "theory": (1 - alpha_bar).tolist()})
band = alt.Chart(table).mark_area(opacity=0.25).encode(x=alt.X("t:Q", title="step t"), y=alt.Y("low:Q", title="fraction masked"),
                                                       y2="high:Q")
measured = alt.Chart(table).mark_line(point=True).encode(x="t:Q", y="mean:Q")
theory = alt.Chart(table).mark_line(color="black", strokeDash=[4, 2]).encode(x="t:Q", y="theory:Q")
band + measured + theory
""", "plotly-altair"),
    Honest("plot_masked_histograms", "altair_binned_counts", """
import altair as alt
import pandas as pd
alt.data_transformers.disable_max_rows()
counts = pd.DataFrame({"masked": slow + fast, "how": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})
histograms = alt.Chart(counts).mark_bar(opacity=0.5).encode(
    x=alt.X("masked:Q", bin=alt.Bin(step=1), title="masked tokens"),
    y=alt.Y("count()", stack=None, title="runs"), color="how:N")
expected = pd.DataFrame({"masked": [k + 0.5 for k in range(L + 1)], "runs": [n_runs * q for q in law]})
histograms + alt.Chart(expected).mark_line(point=True, color="black").encode(x="masked:Q", y="runs:Q")
""", "plotly-altair"),
    Honest("plot_masked_histograms", "altair_shares_worked_out", """
import altair as alt
import pandas as pd
alt.data_transformers.disable_max_rows()
counts = pd.DataFrame({"n": slow + fast, "how": ["ForwardMask"] * len(slow) + ["ForwardMaskFast"] * len(fast)})
shares = alt.Chart(counts).transform_joinaggregate(runs="count()", groupby=["how"]).transform_calculate(
    share="1 / datum.runs").mark_bar(opacity=0.5).encode(x=alt.X("n:Q", title="masked tokens n"),
                                                       y=alt.Y("sum(share):Q", stack=None, title="probability"),
                                                       color="how:N")
binomial = alt.Chart(pd.DataFrame({"n": list(range(L + 1)), "P(n)": law})).mark_point(color="black").encode(x="n:Q", y="P(n):Q")
shares + binomial
""", "plotly-altair"),
]

# more matplotlib habits (issue 46's held-out set draws with these): styles, mosaics, pyplot's state,
# horizontal and percent histograms, bar labels, bands
MORE_HABITS = [
    Honest("plot_schedule", "style_and_subplot_mosaic", """
plt.style.use("ggplot")
t = torch.arange(T + 1)
fig, axd = plt.subplot_mosaic([["beta", "alpha"]], figsize=(10, 3.5))
axd["beta"].plot(t, beta, label="beta_t")
axd["beta"].set(xlabel="t", ylabel="beta_t", title="the schedule")
axd["alpha"].plot(t, alpha_bar, lw=3, label="alpha_bar_t")
axd["alpha"].plot(t, 1 - t / T, "k:", label="1 - t/T")
axd["alpha"].set(xlabel="t", ylabel="alpha_bar_t")
for ax in axd.values():
    ax.legend()
plt.show()
plt.style.use("default")
"""),
    Honest("plot_schedule", "pyplot_subplot_state", """
t = list(range(T + 1))
plt.figure(figsize=(9, 3))
plt.subplot(1, 2, 1)
plt.plot(t, beta.tolist(), "o", ms=3, label="beta_t")
plt.xlabel("t"); plt.ylabel("beta_t"); plt.legend()
plt.subplot(1, 2, 2)
plt.plot(t, alpha_bar.tolist(), label="alpha_bar_t")
plt.plot(t, [1 - s / T for s in t], "r--", label="1 - t/T")
plt.xlabel("t"); plt.ylabel("alpha_bar_t"); plt.legend()
plt.tight_layout()
"""),
    Honest("plot_masked_fraction", "band_and_seaborn_theme", """
import seaborn as sns
sns.set_theme(style="whitegrid")
per_run = runs.float().mean(dim=2)                  # each run's fraction masked at each t
spread = per_run.std(dim=0) / n_runs ** 0.5
fig, ax = plt.subplots()
ax.plot(range(T + 1), masked, label="measured")
ax.fill_between(range(T + 1), masked - 2 * spread, masked + 2 * spread, alpha=0.3, label="2 standard errors")
ax.plot(range(T + 1), 1 - alpha_bar, "k--", label="1 - alpha_bar_t")
ax.set_xlabel("t"); ax.set_ylabel("fraction of tokens masked"); ax.legend()
plt.show()
sns.reset_orig()
"""),
    Honest("plot_masked_histograms", "horizontal_histograms", """
fig, ax = plt.subplots(figsize=(5, 6))
edges = [k - 0.5 for k in range(L + 2)]
ax.hist(slow, bins=edges, orientation="horizontal", alpha=0.5, label="ForwardMask")
ax.hist(fast, bins=edges, orientation="horizontal", alpha=0.5, label="ForwardMaskFast")
ax.plot([n_runs * q for q in law], range(L + 1), "k.-", label="binomial law x runs")
ax.set_ylabel("tokens masked at t = 20"); ax.set_xlabel("runs"); ax.legend()
plt.show()
"""),
    Honest("plot_masked_histograms", "percent_formatter_and_bar_labels", """
from matplotlib.ticker import PercentFormatter
import numpy as np
k = np.arange(L + 1)
share_slow = np.bincount(slow, minlength=L + 1) / n_runs
share_fast = np.bincount(fast, minlength=L + 1) / n_runs
fig, ax = plt.subplots(figsize=(10, 4))
bars = ax.bar(k - 0.2, share_slow, width=0.4, label="ForwardMask")
ax.bar(k + 0.2, share_fast, width=0.4, label="ForwardMaskFast")
ax.plot(k, law, "kx", label="binomial")
ax.bar_label(bars, labels=[f"{v:.0%}" if v > 0.05 else "" for v in share_slow], fontsize=7)
ax.yaxis.set_major_formatter(PercentFormatter(1.0))
ax.set_xlabel("masked count"); ax.set_ylabel("share of runs"); ax.legend()
plt.show()
"""),
]

# printouts shown another way (issue 46): an HTML table, shown with display()
OTHER_LIBRARIES += [
    Honest("show_dissolution", "html_table", """
import pandas as pd
from IPython.display import HTML, display
beta, _ = MakeSchedule(16)
history = ForwardMask(x_0, 16, beta)
display(HTML(pd.DataFrame({"t": range(len(history)), "x_t": [Decode(x) for x in history]}).to_html(index=False)))
""", "shown"),
]

HONEST = SCHEDULE + DISSOLUTION + FRACTION + HISTOGRAMS + OTHER_LIBRARIES + MORE_HABITS
