"""Notebook 06's printout and drawing cells, done in other correct ways (written from the task text alone)."""
from textwrap import dedent

from tests.honest import Honest

NOTEBOOK = "06_revising_and_faster.ipynb"

DATA = {
    "plot_commit_order": dedent("""\
        prompt = StoryTokens("once upon a time ,")
        recorder = Recorder(story_model)
        row = SampleBlocks(recorder, prompt, 24, 8, 12, MASK_ID, PAD_ID, CONTROL_IDS)
        committed_at = CommitCalls(recorder.canvases, MASK_ID)[len(prompt):]
        """),
    "plot_threshold_trade": dedent("""\
        TAUS = [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]
        runs = repeats(1000)
        impossible, calls = [], []
        for tau in TAUS:
            results = [ParallelTwo(CommitAbove, tau) for _ in range(runs)]
            impossible.append(sum(Impossible(x) for x, _ in results) / runs)
            calls.append(sum(c for _, c in results) / runs)
        """),
    "plot_remasking": dedent("""\
        Ts = [1, 2, 4, 8, 16, 32]
        runs = repeats(5000)
        counts = {}
        for label, eta, schedule in (("no remasking", 0.0, "cap"), ("remasking", 1.0, "rescale")):
            counts[label] = [sum(Impossible(RemaskTwo(RemaskStep, RemaskSigma, T, eta, schedule)) for _ in range(runs))
                             for T in Ts]
        rates = {label: [k / runs for k in ks] for label, ks in counts.items()}
        """),
    "plot_loop": dedent("""\
        ETAS = [0.2, 0.05]
        NS = [0, 1, 2, 4, 8, 16, 32]
        runs = repeats(2500)
        counts = {eta: [sum(Impossible(LoopTwo(RemaskStep, RemaskSigma, RemaskLoop, n, eta)) for _ in range(runs))
                        for n in NS] for eta in ETAS}
        rates = {eta: [k / runs for k in ks] for eta, ks in counts.items()}
        """),
    "plot_entropy_perplexity": dedent("""\
        PROMPTS = ["once upon a time ,", "the dog", "lily went to the", "one day ,"]
        guess_story = MakeGuesser(denoiser, CONTROL_IDS)

        def RemaskStory(prompt, L=32, T=32):
            x = torch.cat([prompt, torch.full((L,), MASK_ID)])
            fixed = torch.arange(len(x)) < len(prompt)
            for k in range(T, 0, -1):
                t, s = k / T, (k - 1) / T
                x = RemaskStep(x, t, s, guess_story, MASK_ID, RemaskSigma(t, s, 1.0, "rescale"), fixed)
            return x

        samples = {"blocks of 8": [], "one block of 32": [], "remasking": []}
        for text in PROMPTS:
            prompt = StoryTokens(text)
            for name, block in (("blocks of 8", 8), ("one block of 32", 32)):
                row = SampleBlocks(story_model, prompt, 32, block, 16, MASK_ID, PAD_ID, CONTROL_IDS)
                samples[name].append(row[len(prompt):])
            samples["remasking"].append(RemaskStory(prompt)[len(prompt):])
        samples["training text"] = list(GetBatch(4, 32))
        samples["the the the ..."] = [StoryTokens(" ".join(["the"] * 32))]
        scores = {name: ([SampleEntropy(row) for row in rows],
                         [Perplexity(scorer.Logits, scorer.Ids(StoryText(row))) for row in rows])
                  for name, rows in samples.items()}
        """),
}

PAIRS = "[(10, 4), (12, 5), (7, 7), (3, 6), (32, 8), (9, 2)]"


def _alternatives(cell, prefix="", kind="matplotlib", **bodies):
    return [Honest(cell, name, prefix + dedent(body), kind) for name, body in bodies.items()]


HONEST = []

HONEST += _alternatives(
    "show_budgets",
    plain_print=f"""\
        for n, steps in {PAIRS}:
            print(n, steps, TransferCounts(n, steps, "even"), TransferCounts(n, steps, "schedule"))
        """,
    labelled=f"""\
        for n, steps in {PAIRS}:
            print(f"n={{n}}, steps={{steps}}: even={{TransferCounts(n, steps, 'even')}} "
                  f"schedule={{TransferCounts(n, steps, 'schedule')}}")
        """,
    numpy_arrays=f"""\
        import numpy as np
        print("n  steps  even  schedule")
        for n, steps in {PAIRS}:
            print(n, steps, np.array(TransferCounts(n, steps)), np.array(TransferCounts(n, steps, "schedule")))
        """,
    tensors=f"""\
        for n, steps in {PAIRS}:
            even = torch.tensor(TransferCounts(n, steps, "even"))
            schedule = torch.tensor(TransferCounts(n, steps, "schedule"))
            print(f"({{n}}, {{steps}})", even, schedule)
        """,
    markdown_table=f"""\
        print("| n | steps | even | schedule |")
        print("|---|---|---|---|")
        for n, steps in {PAIRS}:
            even = " ".join(map(str, TransferCounts(n, steps, "even")))
            schedule = " ".join(map(str, TransferCounts(n, steps, "schedule")))
            print(f"| {{n}} | {{steps}} | {{even}} | {{schedule}} |")
        """,
    sums_beside=f"""\
        for n, steps in {PAIRS}:
            even, schedule = TransferCounts(n, steps, "even"), TransferCounts(n, steps, "schedule")
            print(f"{{n:>2}} masks, {{steps}} steps -> even {{even}} (sum {{sum(even)}}), schedule {{schedule}} "
                  f"(sum {{sum(schedule)}})")
        """,
    dashes_and_slash=f"""\
        for n, steps in {PAIRS}:
            even = "-".join(str(k) for k in TransferCounts(n, steps, "even"))
            schedule = "-".join(str(k) for k in TransferCounts(n, steps, "schedule"))
            print(f"{{n}}/{{steps}}:  even {{even}}   schedule {{schedule}}")
        """,
    dict_per_line=f"""\
        rules = ("even", "schedule")
        for n, steps in {PAIRS}:
            print({{"n": n, "steps": steps, **{{rule: TransferCounts(n, steps, rule) for rule in rules}}}})
        """,
    computed_first_then_printed=f"""\
        table = [(n, steps, TransferCounts(n, steps), TransferCounts(n, steps, rule="schedule"))
                 for n, steps in {PAIRS}]
        print("pair        even budgets               schedule budgets")
        for n, steps, even, schedule in table:
            print(f"{{(n, steps)!s:10}}  {{str(even):26}} {{schedule}}")
        """,
)
HONEST += _alternatives(
    "show_budgets", kind="shown",
    list_of_rows_last_expression=f"""\
        [(n, steps, TransferCounts(n, steps, "even"), TransferCounts(n, steps, "schedule")) for n, steps in {PAIRS}]
        """,
    display_each_pair=f"""\
        from IPython.display import display
        for n, steps in {PAIRS}:
            display((n, steps, TransferCounts(n, steps, "even"), TransferCounts(n, steps, "schedule")))
        """,
)
HONEST += _alternatives(
    "show_budgets", kind="pandas-seaborn",
    dataframe_last_expression=f"""\
        import pandas as pd
        pd.DataFrame([{{"n": n, "steps": steps, "even": TransferCounts(n, steps, "even"),
                       "schedule": TransferCounts(n, steps, "schedule")}} for n, steps in {PAIRS}])
        """,
    dataframe_multiindex_printed=f"""\
        import pandas as pd
        pairs = {PAIRS}
        df = pd.DataFrame({{"even": [TransferCounts(n, s) for n, s in pairs],
                           "schedule": [TransferCounts(n, s, "schedule") for n, s in pairs]}},
                          index=pd.MultiIndex.from_tuples(pairs, names=["n", "steps"]))
        print(df.to_string())
        """,
)

HONEST += _alternatives(
    "plot_commit_order",
    scatter=f"""\
        plt.scatter(range(24), committed_at)
        plt.xlabel("position after the prompt"); plt.ylabel("denoiser call")
        """,
    absolute_positions=f"""\
        fig, ax = plt.subplots(figsize=(8, 3))
        ax.bar(range(len(prompt), len(prompt) + 24), committed_at.tolist(), color="teal")
        ax.set_xlabel("position in the row"); ax.set_ylabel("committed at call")
        """,
    steps=f"""\
        plt.step(range(24), committed_at, where="mid")
        plt.xlabel("generated position"); plt.ylabel("call (1-12)")
        plt.yticks(range(1, 13))
        """,
    horizontal_bars=f"""\
        plt.figure(figsize=(4, 7))
        plt.barh(range(24), committed_at)
        plt.ylabel("generated position"); plt.xlabel("call that committed it")
        plt.gca().invert_yaxis()
        """,
    calls_on_x=f"""\
        plt.scatter(committed_at, range(24), marker="s")
        plt.xlabel("denoiser call"); plt.ylabel("position committed")
        """,
    stem=f"""\
        plt.stem(range(24), committed_at)
        plt.xlabel("position"); plt.ylabel("call")
        """,
    bars_coloured_by_block=f"""\
        fig, ax = plt.subplots(figsize=(8, 3))
        for b in range(3):
            where = range(8 * b, 8 * b + 8)
            ax.bar(where, committed_at[8 * b:8 * b + 8], label=f"block {{b + 1}}")
        ax.legend(); ax.set_xlabel("generated position"); ax.set_ylabel("call that committed it")
        """,
    points_coloured_by_block=f"""\
        for b in range(3):
            plt.plot(range(8 * b, 8 * b + 8), committed_at[8 * b:8 * b + 8].tolist(), "o", label=f"block {{b + 1}}")
        plt.legend(); plt.xlabel("position"); plt.ylabel("call number")
        """,
    calls_counted_from_0=f"""\
        plt.plot(range(24), (committed_at - 1).tolist(), "o-")
        plt.xlabel("generated position"); plt.ylabel("call index (counted from 0)")
        """,
)
HONEST += _alternatives(
    "plot_commit_order", kind="pandas-seaborn",
    pandas_series_bar=f"""\
        import pandas as pd
        ax = pd.Series(committed_at.numpy(), name="call").plot.bar(figsize=(8, 3))
        ax.set_xlabel("generated position"); ax.set_ylabel("call that committed it")
        """,
    pandas_scatter=f"""\
        import pandas as pd
        df = pd.DataFrame({{"position": range(24), "call": committed_at.numpy()}})
        df.plot.scatter(x="position", y="call")
        """,
    seaborn_scatter_hue_block=f"""\
        import seaborn as sns
        ax = sns.scatterplot(x=list(range(24)), y=committed_at.tolist(), hue=[p // 8 + 1 for p in range(24)],
                             palette="deep")
        ax.set(xlabel="generated position", ylabel="call")
        """,
    seaborn_barplot=f"""\
        import seaborn as sns
        ax = sns.barplot(x=list(range(24)), y=committed_at.tolist(), color="C0")
        ax.set_xlabel("position"); ax.set_ylabel("denoiser call that committed it")
        """,
)

HONEST += _alternatives(
    "plot_threshold_trade",
    twin_axes=f"""\
        fig, ax = plt.subplots()
        ax.plot(TAUS, impossible, "o-", color="C3")
        ax.set_xlabel("tau"); ax.set_ylabel("share of impossible sentences", color="C3")
        other = ax.twinx()
        other.plot(TAUS, calls, "s--", color="C0")
        other.set_ylabel("mean guesser calls", color="C0")
        """,
    percent_and_baseline=f"""\
        fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(6, 6))
        a.plot(TAUS, [100 * f for f in impossible], "o-")
        a.set_ylabel("impossible sentences (%)")
        b.plot(TAUS, calls, "o-")
        b.axhline(4, color="k", ls=":")
        b.set_ylabel("calls per sentence"); b.set_xlabel("threshold")
        """,
    two_figures=f"""\
        plt.figure()
        plt.plot(TAUS, impossible, marker="o")
        plt.xlabel("tau"); plt.ylabel("fraction impossible")
        plt.show()
        plt.figure()
        plt.plot(TAUS, calls, marker="o", label="commit above tau")
        plt.plot([1.0], [4], "r*", ms=12, label="one at a time")
        plt.xlabel("tau"); plt.ylabel("calls"); plt.legend()
        plt.show()
        """,
    one_axes_named_in_the_legend=f"""\
        plt.plot(TAUS, impossible, "o-", label="impossible sentences (share)")
        plt.plot(TAUS, calls, "s-", label="guesser calls per sentence")
        plt.xlabel("tau"); plt.ylabel("value"); plt.legend()
        """,
    bars_of_categories=f"""\
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3))
        a.bar(range(len(TAUS)), impossible); a.set_xticks(range(len(TAUS)), [str(t) for t in TAUS])
        a.set_xlabel("tau"); a.set_ylabel("impossible fraction")
        b.bar(range(len(TAUS)), calls, color="C1"); b.set_xticks(range(len(TAUS)), [str(t) for t in TAUS])
        b.set_xlabel("tau"); b.set_ylabel("calls")
        """,
    error_bars=f"""\
        import math
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.5))
        a.errorbar(TAUS, impossible, yerr=[math.sqrt(p * (1 - p) / runs) for p in impossible], fmt="o-", capsize=3)
        a.set(xlabel="tau", ylabel="impossible sentences")
        b.errorbar(TAUS, calls, fmt="o-")
        b.set(xlabel="tau", ylabel="calls to the guesser")
        """,
    log_tau_scatter=f"""\
        fig, axes = plt.subplots(1, 2, figsize=(10, 3))
        axes[0].scatter(TAUS, impossible); axes[0].set_ylabel("mistakes: impossible share")
        axes[1].scatter(TAUS, calls); axes[1].set_ylabel("guesser calls")
        for ax in axes:
            ax.set_xscale("log"); ax.set_xlabel("tau (log scale)")
        """,
    steps_and_titles=f"""\
        fig, axes = plt.subplots(1, 2, figsize=(10, 3))
        axes[0].step(TAUS, impossible, where="post", marker="o", label="impossible")
        axes[1].step(TAUS, calls, where="post", marker="o", label="calls")
        for ax in axes:
            ax.legend(); ax.set_xlabel("threshold tau")
        """,
)
HONEST += _alternatives(
    "plot_threshold_trade", kind="pandas-seaborn",
    pandas_subplots=f"""\
        import pandas as pd
        df = pd.DataFrame({{"impossible sentences": impossible, "guesser calls": calls}},
                          index=pd.Index(TAUS, name="tau"))
        df.plot(subplots=True, marker="o", figsize=(6, 5))
        """,
    pandas_secondary_y=f"""\
        import pandas as pd
        df = pd.DataFrame({{"impossible (%)": [100 * f for f in impossible], "calls": calls}}, index=TAUS)
        ax = df["impossible (%)"].plot(marker="o", legend=True)
        df["calls"].plot(marker="s", secondary_y=True, legend=True)
        ax.set_xlabel("tau")
        """,
    seaborn_lines=f"""\
        import seaborn as sns
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.5))
        sns.lineplot(x=TAUS, y=impossible, marker="o", ax=a)
        sns.lineplot(x=TAUS, y=calls, marker="o", ax=b)
        a.set(xlabel="tau", ylabel="impossible fraction"); b.set(xlabel="tau", ylabel="mean calls")
        """,
    seaborn_pointplot_categories=f"""\
        import seaborn as sns
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.5))
        sns.pointplot(x=[str(t) for t in TAUS], y=impossible, ax=a)
        sns.pointplot(x=[str(t) for t in TAUS], y=calls, ax=b, color="C1")
        a.set(xlabel="tau", ylabel="impossible sentences"); b.set(xlabel="tau", ylabel="guesser calls")
        """,
)

THEORY = "[0.32 / T for T in Ts]"
HONEST += _alternatives(
    "plot_remasking",
    object_api=f"""\
        fig, ax = plt.subplots()
        for label, values in rates.items():
            ax.loglog(Ts, values, "o-", label=label)
        ax.loglog(Ts, {THEORY}, "k--", label="0.32/T")
        ax.set_xlabel("T"); ax.set_ylabel("impossible share"); ax.legend()
        """,
    log_scales_set=f"""\
        plt.plot(Ts, rates["no remasking"], "o", label="sigma = 0")
        plt.plot(Ts, rates["remasking"], "s", label="sigma = sigma_max")
        plt.plot(Ts, {THEORY}, "k-", label="0.32 / T")
        plt.xscale("log"); plt.yscale("log")
        plt.xlabel("number of steps"); plt.ylabel("fraction impossible"); plt.legend()
        """,
    percent=f"""\
        for label, values in rates.items():
            plt.loglog(Ts, [100 * v for v in values], "o-", label=label)
        plt.loglog(Ts, [32 / T for T in Ts], "--", color="gray", label="32 / T %")
        plt.xlabel("T"); plt.ylabel("impossible sentences (%)"); plt.legend()
        """,
    axline_theory=f"""\
        fig, ax = plt.subplots()
        ax.loglog(Ts, rates["no remasking"], "o-", label="no remasking")
        ax.loglog(Ts, rates["remasking"], "^-", label="ReMDM, sigma_max")
        ax.axline((1, 0.32), (32, 0.01), color="k", ls="--", label="0.32/T")
        ax.set_xlim(0.8, 40)
        ax.set_xlabel("T"); ax.set_ylabel("P(impossible)"); ax.legend()
        """,
    zeros_left_out=f"""\
        for label, values in rates.items():
            kept = [(T, v) for T, v in zip(Ts, values) if v > 0]
            plt.loglog([T for T, _ in kept], [v for _, v in kept], "o-", label=label)
        plt.loglog(Ts, {THEORY}, "k:", label="0.32/T")
        plt.xlabel("T"); plt.ylabel("impossible fraction"); plt.legend()
        """,
    zeros_marked_apart=f"""\
        for i, (label, values) in enumerate(rates.items()):
            plt.loglog(Ts, [v if v > 0 else float("nan") for v in values], "o-", color=f"C{{i}}", label=label)
            zeros = [T for T, v in zip(Ts, values) if v == 0]
            if zeros:
                plt.loglog(zeros, [1e-3] * len(zeros), "v", color=f"C{{i}}", label=f"{{label}}: none impossible")
        plt.loglog(Ts, {THEORY}, "k--", label="0.32/T")
        plt.xlabel("T"); plt.ylabel("impossible"); plt.legend()
        """,
    scatter_and_error_bars=f"""\
        import math
        for label, values in rates.items():
            plt.errorbar(Ts, values, yerr=[math.sqrt(v * (1 - v) / runs) for v in values], fmt="o", capsize=2,
                         label=label)
        plt.plot(Ts, {THEORY}, "k--", label="0.32/T")
        plt.xscale("log"); plt.yscale("log")
        plt.xlabel("T"); plt.ylabel("impossible fraction"); plt.legend()
        """,
    two_panels_titled=f"""\
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, (label, values) in zip(axes, rates.items()):
            ax.loglog(Ts, values, "o-")
            ax.loglog(Ts, {THEORY}, "k--")
            ax.set_title(label); ax.set_xlabel("T"); ax.set_ylabel("impossible sentences")
        """,
)
HONEST += _alternatives(
    "plot_remasking", kind="pandas-seaborn",
    pandas_loglog=f"""\
        import pandas as pd
        df = pd.DataFrame({{**rates, "0.32/T": {THEORY}}}, index=pd.Index(Ts, name="T"))
        ax = df.plot(loglog=True, style=["o-", "s-", "k--"])
        ax.set_ylabel("share of impossible sentences")
        """,
    seaborn_lineplot_hue=f"""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame([{{"T": T, "share": v, "sampler": label}} for label, values in rates.items()
                             for T, v in zip(Ts, values)])
        ax = sns.lineplot(data=long, x="T", y="share", hue="sampler", marker="o")
        ax.plot(Ts, {THEORY}, "k--", label="0.32 / T")
        ax.set(xscale="log", yscale="log", xlabel="T", ylabel="impossible share")
        ax.legend()
        """,
    seaborn_scatter_hue=f"""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame({{"T": Ts * 2, "impossible": rates["no remasking"] + rates["remasking"],
                             "remasking": ["no"] * len(Ts) + ["sigma_max"] * len(Ts)}})
        ax = sns.scatterplot(data=long, x="T", y="impossible", hue="remasking", s=60)
        ax.loglog(Ts, {THEORY}, color="gray", ls="--", label="0.32/T")
        ax.set_xlabel("T (steps)"); ax.set_ylabel("impossible fraction"); ax.legend()
        """,
)

HONEST += _alternatives(
    "plot_entropy_perplexity",
    object_api_annotated=f"""\
        fig, ax = plt.subplots()
        for name, (entropy, perplexity) in scores.items():
            ax.scatter(entropy, perplexity, label=name)
        ax.annotate("the the ... the", (scores["the the the ..."][0][0], scores["the the the ..."][1][0]))
        ax.set_yscale("log"); ax.set_xlabel("unigram entropy (nats)"); ax.set_ylabel("generative perplexity")
        ax.legend()
        """,
    semilogy_markers=f"""\
        for i, (name, (entropy, perplexity)) in enumerate(scores.items()):
            plt.semilogy(entropy, perplexity, "oxsd*"[i], label=name, ms=12 if name.startswith("the the") else 6)
        plt.xlabel("entropy"); plt.ylabel("perplexity"); plt.legend()
        """,
    linear_axes=f"""\
        for name, (entropy, perplexity) in scores.items():
            plt.plot(entropy, perplexity, "o", label=name)
        plt.xlabel("sample entropy"); plt.ylabel("perplexity (scorer)"); plt.legend(fontsize=8)
        """,
    one_scatter_manual_legend=f"""\
        from matplotlib.lines import Line2D
        names = list(scores)
        xs = [e for n in names for e in scores[n][0]]
        ys = [p for n in names for p in scores[n][1]]
        colours = [f"C{{i}}" for i, n in enumerate(names) for _ in scores[n][0]]
        plt.scatter(xs, ys, c=colours)
        plt.legend(handles=[Line2D([], [], marker="o", ls="", color=f"C{{i}}", label=n) for i, n in enumerate(names)])
        plt.yscale("log"); plt.xlabel("entropy (nats)"); plt.ylabel("perplexity")
        """,
    text_label_on_the_degenerate=f"""\
        for name, (entropy, perplexity) in scores.items():
            if name.startswith("the the"):
                plt.scatter(entropy, perplexity, marker="*", s=200, color="red")
                plt.text(entropy[0] + 0.05, perplexity[0], "degenerate: the the the")
            else:
                plt.scatter(entropy, perplexity, label=name)
        plt.yscale("log"); plt.xlabel("entropy H"); plt.ylabel("perplexity"); plt.legend()
        """,
    with_source_means=f"""\
        import numpy as np
        fig, ax = plt.subplots()
        for i, (name, (entropy, perplexity)) in enumerate(scores.items()):
            ax.scatter(entropy, perplexity, color=f"C{{i}}", alpha=0.6, label=name)
            ax.scatter([np.mean(entropy)], [np.exp(np.mean(np.log(perplexity)))], color=f"C{{i}}", marker="+", s=200)
        ax.set_yscale("log"); ax.set_xlabel("entropy"); ax.set_ylabel("perplexity"); ax.legend()
        """,
    recomputed_in_the_cell=f"""\
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, rows in samples.items():
            h = [SampleEntropy(r) for r in rows]
            p = [Perplexity(scorer.Logits, scorer.Ids(StoryText(r))) for r in rows]
            ax.plot(h, p, "D" if name.startswith("the the") else "o", label=name)
        ax.set(yscale="log", xlabel="entropy [nats]", ylabel="perplexity [log scale]")
        ax.legend()
        """,
    x_limits_to_ln_32=f"""\
        import math
        for name, (entropy, perplexity) in scores.items():
            plt.scatter(entropy, perplexity, label=name, edgecolor="k")
        plt.axvline(math.log(32), color="gray", ls=":", label="ln 32")
        plt.xlim(-0.2, 3.7); plt.yscale("log")
        plt.xlabel("entropy of 32 tokens"); plt.ylabel("perplexity"); plt.legend()
        """,
)
HONEST += _alternatives(
    "plot_entropy_perplexity", kind="pandas-seaborn",
    seaborn_scatter_hue_style=f"""\
        import pandas as pd
        import seaborn as sns
        df = pd.DataFrame([{{"source": name, "entropy": e, "perplexity": p}} for name, (es, ps) in scores.items()
                           for e, p in zip(es, ps)])
        ax = sns.scatterplot(data=df, x="entropy", y="perplexity", hue="source", style="source", s=80)
        ax.set_yscale("log")
        """,
    pandas_groupby_scatter=f"""\
        import pandas as pd
        df = pd.DataFrame([{{"source": name, "entropy": e, "perplexity": p}} for name, (es, ps) in scores.items()
                           for e, p in zip(es, ps)])
        fig, ax = plt.subplots()
        for i, (name, group) in enumerate(df.groupby("source", sort=False)):
            group.plot.scatter(x="entropy", y="perplexity", ax=ax, color=f"C{{i}}", label=name, logy=True)
        """,
    seaborn_relplot=f"""\
        import pandas as pd
        import seaborn as sns
        df = pd.DataFrame([{{"source": name, "entropy (nats)": e, "perplexity": p}}
                           for name, (es, ps) in scores.items() for e, p in zip(es, ps)])
        g = sns.relplot(data=df, x="entropy (nats)", y="perplexity", hue="source", height=4)
        g.set(yscale="log")
        """,
)

# Colab's other plotting libraries (issue 46): plotly and altair
HONEST += _alternatives(
    "plot_commit_order", kind="plotly-altair",
    plotly_bars="""\
        import plotly.graph_objects as go
        fig = go.Figure(go.Bar(x=list(range(24)), y=committed_at.tolist()))
        fig.add_vline(x=7.5, line_dash="dash")
        fig.add_vline(x=15.5, line_dash="dash")
        fig.update_layout(xaxis_title="generated position", yaxis_title="call that committed it")
        fig.show()
        """,
    altair_points="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"position": range(24), "call": committed_at.tolist()})
        alt.Chart(table).mark_point().encode(x="position", y=alt.Y("call", title="denoiser call"))
        """)
HONEST += _alternatives(
    "plot_threshold_trade", kind="plotly-altair",
    plotly_two_panels="""\
        from plotly.subplots import make_subplots
        import plotly.graph_objects as go
        fig = make_subplots(rows=1, cols=2)
        fig.add_trace(go.Scatter(x=TAUS, y=impossible, mode="lines+markers", name="impossible"), 1, 1)
        fig.add_trace(go.Scatter(x=TAUS, y=calls, mode="lines+markers", name="calls"), 1, 2)
        fig.update_xaxes(title_text="threshold tau")
        fig.update_yaxes(title_text="impossible sentences (fraction)", row=1, col=1)
        fig.update_yaxes(title_text="guesser calls per sentence", row=1, col=2)
        fig.show()
        """)
HONEST += _alternatives(
    "plot_remasking", kind="plotly-altair",
    plotly_log_log=f"""\
        import plotly.graph_objects as go
        fig = go.Figure()
        for label, values in rates.items():
            fig.add_trace(go.Scatter(x=Ts, y=values, mode="lines+markers", name=label))
        fig.add_trace(go.Scatter(x=Ts, y={THEORY}, mode="lines", line=dict(dash="dash"), name="0.32/T"))
        fig.update_xaxes(type="log", title_text="T")
        fig.update_yaxes(type="log", title_text="impossible share")
        fig.show()
        """)
HONEST += _alternatives(
    "plot_entropy_perplexity", kind="plotly-altair",
    plotly_scatter_log_y="""\
        import plotly.graph_objects as go
        fig = go.Figure()
        for name, (entropy, perplexity) in scores.items():
            fig.add_trace(go.Scatter(x=entropy, y=perplexity, mode="markers", name=name))
        fig.update_layout(xaxis_title="unigram entropy (nats)", yaxis_title="generative perplexity", yaxis_type="log")
        fig.show()
        """)
# printouts shown another way (issue 46): a rich table, HTML and Markdown tables shown with display()
HONEST += _alternatives(
    "show_budgets", kind="shown",
    rich_table=f"""\
        from rich.console import Console
        from rich.table import Table
        table = Table("n", "steps", "even", "schedule", title="transfer budgets")
        for n, steps in {PAIRS}:
            table.add_row(str(n), str(steps), str(TransferCounts(n, steps, "even")),
                          str(TransferCounts(n, steps, "schedule")))
        Console(force_terminal=True).print(table)
        """,
    html_table_displayed=f"""\
        import pandas as pd
        from IPython.display import HTML, display
        rows = [{{"n": n, "steps": steps, "even": TransferCounts(n, steps, "even"),
                  "schedule": TransferCounts(n, steps, "schedule")}} for n, steps in {PAIRS}]
        display(HTML(pd.DataFrame(rows).to_html(index=False)))
        """,
    markdown_table_displayed=f"""\
        from IPython.display import Markdown, display
        lines = ["| n | steps | even | schedule |", "|---:|---:|:---|:---|"]
        for n, steps in {PAIRS}:
            lines.append(f"| {{n}} | {{steps}} | {{TransferCounts(n, steps, 'even')}} | "
                         f"{{TransferCounts(n, steps, 'schedule')}} |")
        display(Markdown("\\n".join(lines)))
        """,
)
# matplotlib habits (issue 46): a percent formatter on one axis of a twinx pair, a secondary x axis
HONEST += _alternatives(
    "plot_threshold_trade",
    twinx_percent_and_secondary_axis="""\
        from matplotlib.ticker import PercentFormatter
        fig, ax = plt.subplots()
        ax.plot(TAUS, impossible, "o-", color="C3", label="impossible sentences")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("threshold tau"); ax.set_ylabel("impossible sentences")
        other = ax.twinx()
        other.plot(TAUS, calls, "s--", color="C0", label="guesser calls")
        other.set_ylabel("guesser calls per sentence")
        top = ax.secondary_xaxis("top", functions=(lambda t: 1 - t, lambda c: 1 - c))
        top.set_xlabel("1 - tau")
        fig.legend(loc="upper center")
        """,
)
HONEST += _alternatives(
    "plot_remasking",
    errorbar_binomial_spread=f"""\
        import numpy as np
        for label, values in rates.items():
            p = np.array(values)
            plt.errorbar(Ts, p, yerr=np.sqrt(p * (1 - p) / runs), fmt="o-", capsize=3, label=label)
        plt.plot(Ts, {THEORY}, "k--", label="0.32/T")
        plt.xscale("log"); plt.yscale("log")
        plt.xlabel("T"); plt.ylabel("share of impossible sentences"); plt.legend()
        """,
)
HONEST += _alternatives(
    "plot_threshold_trade", kind="plotly-altair",
    altair_two_charts="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"tau": TAUS, "impossible": impossible, "calls": calls})
        left = alt.Chart(table).mark_line(point=True).encode(x=alt.X("tau", title="threshold tau"),
                                                             y=alt.Y("impossible", title="impossible sentences (fraction)"))
        right = alt.Chart(table).mark_line(point=True).encode(x=alt.X("tau", title="threshold tau"),
                                                              y=alt.Y("calls", title="guesser calls per sentence"))
        left | right
        """)
HONEST += _alternatives(
    "plot_remasking", kind="plotly-altair",
    altair_log_log=f"""\
        import altair as alt
        import pandas as pd
        rows = [{{"T": T, "share": share, "how": label}} for label, values in rates.items() for T, share in zip(Ts, values)]
        rows += [{{"T": T, "share": share, "how": "0.32/T"}} for T, share in zip(Ts, {THEORY})]
        log = alt.Scale(type="log")
        alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
            x=alt.X("T", scale=log), y=alt.Y("share", scale=log, title="impossible share"), color="how")
        """)
HONEST += _alternatives(
    "plot_entropy_perplexity", kind="plotly-altair",
    altair_points_log_y="""\
        import altair as alt
        import pandas as pd
        rows = [{"entropy": e, "perplexity": p, "samples": name} for name, (entropies, perplexities) in scores.items()
                for e, p in zip(entropies, perplexities)]
        alt.Chart(pd.DataFrame(rows)).mark_point().encode(
            x=alt.X("entropy", title="unigram entropy (nats)"),
            y=alt.Y("perplexity", scale=alt.Scale(type="log"), title="generative perplexity"), color="samples")
        """)

# a second plotly way per plot: plotly express, a figure left as the last expression or passed to display()
HONEST += _alternatives(
    "plot_commit_order", kind="plotly-altair",
    plotly_express_scatter="""\
        import plotly.express as px
        fig = px.scatter(x=list(range(1, 25)), y=committed_at.tolist(),
                         labels={"x": "position after the prompt", "y": "denoiser call that committed it"})
        for edge in (8.5, 16.5):
            fig.add_vline(x=edge, line_dash="dot")
        fig
        """)
HONEST += _alternatives(
    "plot_threshold_trade", kind="plotly-altair",
    plotly_express_two_figures="""\
        import plotly.express as px
        px.line(x=TAUS, y=impossible, markers=True, labels={"x": "tau", "y": "share impossible"}).show()
        px.line(x=TAUS, y=calls, markers=True, labels={"x": "tau", "y": "mean guesser calls"}).show()
        """)
HONEST += _alternatives(
    "plot_remasking", kind="plotly-altair",
    plotly_express_long_table_display=f"""\
        import pandas as pd
        import plotly.express as px
        import plotly.graph_objects as go
        from IPython.display import display
        table = pd.DataFrame([{{"T": T, "share": share, "sampler": label}}
                              for label, values in rates.items() for T, share in zip(Ts, values)])
        fig = px.line(table, x="T", y="share", color="sampler", markers=True, log_x=True, log_y=True,
                      labels={{"share": "impossible share"}})
        fig.add_trace(go.Scatter(x=Ts, y={THEORY}, mode="lines", line_dash="dash", name="0.32 / T"))
        display(fig)
        """)
HONEST += _alternatives(
    "plot_entropy_perplexity", kind="plotly-altair",
    plotly_express_colour_by_source="""\
        import pandas as pd
        import plotly.express as px
        rows = [{"entropy": e, "perplexity": p, "source": name} for name, (entropies, perplexities) in scores.items()
                for e, p in zip(entropies, perplexities)]
        px.scatter(pd.DataFrame(rows), x="entropy", y="perplexity", color="source", log_y=True,
                   labels={"entropy": "unigram entropy (nats)", "perplexity": "perplexity under the scorer"})
        """)

# altair working its table out in the browser: a wide table folded long, a column calculated, facets
HONEST += _alternatives(
    "plot_remasking", kind="plotly-altair",
    altair_fold_and_calculated_theory="""\
        import altair as alt
        import pandas as pd
        wide = pd.DataFrame({"T": Ts, **rates})
        log = alt.Scale(type="log")
        measured = alt.Chart(wide).transform_fold(list(rates), as_=["sampler", "share"]).mark_line(point=True).encode(
            x=alt.X("T:Q", scale=log), y=alt.Y("share:Q", scale=log, title="share of impossible sentences"),
            color="sampler:N")
        theory = alt.Chart(wide).transform_calculate(theory="0.32 / datum.T").mark_line(strokeDash=[6, 3]).encode(
            x=alt.X("T:Q", scale=log), y=alt.Y("theory:Q", scale=log))
        measured + theory
        """)
HONEST += _alternatives(
    "plot_threshold_trade", kind="plotly-altair",
    altair_folded_into_two_rows="""\
        import altair as alt
        import pandas as pd
        wide = pd.DataFrame({"tau": TAUS, "impossible sentences (share)": impossible, "guesser calls": calls})
        alt.Chart(wide).transform_fold(["impossible sentences (share)", "guesser calls"], as_=["measure", "value"]).mark_line(
            point=True).encode(x=alt.X("tau:Q", title="threshold tau"), y=alt.Y("value:Q", title=None),
                               row=alt.Row("measure:N", title=None)).properties(height=150).resolve_scale(y="independent")
        """)
HONEST += _alternatives(
    "plot_commit_order", kind="plotly-altair",
    altair_bars_and_block_edges="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"position": range(24), "call": committed_at.tolist()})
        bars = alt.Chart(table).mark_bar().encode(x=alt.X("position:Q", title="generated position"),
                                                  y=alt.Y("call:Q", title="denoiser call that committed it"))
        edges = alt.Chart(pd.DataFrame({"edge": [7.5, 15.5]})).mark_rule(strokeDash=[4, 4]).encode(x="edge:Q")
        alt.layer(bars, edges)
        """)
HONEST += _alternatives(
    "plot_threshold_trade", kind="plotly-altair",
    altair_repeated_per_measure="""\
        import altair as alt
        import pandas as pd
        wide = pd.DataFrame({"threshold tau": TAUS, "share impossible": impossible, "guesser calls per sentence": calls})
        alt.Chart(wide).mark_line(point=True).encode(x="threshold tau:Q", y=alt.Y(alt.repeat("column"), type="quantitative")
                                                     ).properties(width=220).repeat(column=["share impossible",
                                                                                            "guesser calls per sentence"])
        """)

# notebook 06: does the loop fix the cat is empty? (the measured shares, the exact curves, the level 0.08)
EXACT = "[LoopExact(n, eta) for n in NS]"
HONEST += _alternatives(
    "plot_loop",
    object_api_percent=f"""\
        fig, ax = plt.subplots()
        for i, eta in enumerate(ETAS):
            ax.plot(NS, [100 * r for r in rates[eta]], "o", color=f"C{{i}}", label=f"measured (eta={{eta}})")
            ax.plot(NS, [100 * p for p in {EXACT}], "-", color=f"C{{i}}", label=f"LoopExact, eta={{eta}}")
        ax.axhline(32 / 4, color="gray", ls=":", label="no loop (8 %)")
        ax.set_xscale("symlog")
        ax.set_xlabel("n"); ax.set_ylabel("impossible sentences (%)"); ax.legend()
        """,
    semilogy_markers_and_lines=f"""\
        for eta, marker in zip(ETAS, "os"):
            plt.semilogy(NS, rates[eta], marker, ls="none", label=f"eta = {{eta}}, simulated")
            plt.semilogy(NS, {EXACT}, "--", label=f"eta = {{eta}}, exact")
        plt.axhline(0.08, color="k", label="0.32/T (no loop)")
        plt.xlabel("loop steps"); plt.ylabel("P(impossible)"); plt.legend()
        """,
    symlog_x_with_ticks_at_NS=f"""\
        for eta in ETAS:
            line, = plt.plot(NS, rates[eta], "o", label=f"LoopTwo, eta={{eta}}")
            plt.plot(NS, {EXACT}, color=line.get_color(), label=f"LoopExact(n, {{eta}})")
        plt.axhline(0.32 / 4, ls="--", color="k", label="without the loop")
        plt.xscale("symlog"); plt.xticks(NS, [str(n) for n in NS])
        plt.xlabel("n"); plt.ylabel("impossible fraction"); plt.legend()
        """,
    two_panels_one_per_eta=f"""\
        fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for ax, eta in zip(axes, ETAS):
            ax.plot(NS, rates[eta], "o", label="measured")
            ax.plot(NS, {EXACT}, "-", label="exact")
            ax.axhline(0.08, color="k", ls=":", label="no loop")
            ax.set_title(f"eta = {{eta}}"); ax.set_xlabel("loop steps n"); ax.set_ylabel("impossible share")
            ax.legend()
        """,
    errorbars_binomial=f"""\
        import numpy as np
        for eta in ETAS:
            p = np.array(rates[eta])
            plt.errorbar(NS, p, yerr=1.96 * np.sqrt(p * (1 - p) / runs), fmt="o", capsize=3,
                         label=f"measured, eta {{eta}}")
            plt.plot(NS, {EXACT}, label=f"exact, eta {{eta}}")
        plt.axhline(0.08, color="k", ls="--", label="0.32 / T")
        plt.xscale("symlog", linthresh=1)
        plt.xlabel("loop steps"); plt.ylabel("fraction impossible (95 % error bars)"); plt.legend()
        """,
    exact_dense_as_steps="""\
        dense = range(33)
        for i, eta in enumerate(ETAS):
            plt.plot(NS, rates[eta], "o", color=f"C{i}", label=f"measured, eta = {eta}")
            plt.step(dense, [LoopExact(n, eta) for n in dense], where="post", color=f"C{i}", label=f"exact, eta = {eta}")
        plt.axhline(0.08, color="k", ls="--", label="no loop, 0.08")
        plt.xlabel("loop steps n"); plt.ylabel("impossible sentences"); plt.legend()
        """,
    exact_dense_scatter_measured_hlines_level="""\
        ns = list(range(33))
        for eta, colour in zip(ETAS, ["tab:blue", "tab:red"]):
            plt.plot(ns, [LoopExact(n, eta) for n in ns], c=colour, lw=1, label=f"exact (eta={eta})")
            plt.scatter(NS, rates[eta], c=colour, label=f"runs (eta={eta})")
        plt.hlines(0.08, 0, 32, colors="k", linestyles="dashed", label="0.32 / T")
        plt.xlabel("n (loop steps)"); plt.ylabel("impossible"); plt.legend()
        """,
    level_as_a_constant_curve=f"""\
        fig, ax = plt.subplots()
        ax.plot(NS, [0.32 / 4] * len(NS), "k--", label="0.32/T, no loop")
        for eta, style in zip(ETAS, ("^", "v")):
            ax.plot(NS, rates[eta], style, ms=8, label=f"sampled, eta={{eta}}")
            ax.plot(NS, {EXACT}, ":", label=f"Markov chain, eta={{eta}}")
        ax.set(xscale="symlog", xlabel="loop steps", ylabel="share impossible")
        ax.legend()
        """,
    axline_level_lines_for_all=f"""\
        fig, ax = plt.subplots()
        for eta in ETAS:
            ax.plot(NS, rates[eta], "o-", alpha=0.7, label=f"measured eta={{eta}}")
            ax.plot(NS, {EXACT}, "k--", lw=1, label=f"exact eta={{eta}}")
        ax.axline((0, 0.08), slope=0, color="gray", label="no loop")
        ax.set_xlabel("n"); ax.set_ylabel("impossible share"); ax.legend()
        """,
    exact_first_in_a_dict=f"""\
        exact = {{eta: {EXACT} for eta in ETAS}}
        plt.figure(figsize=(7, 4))
        for eta in ETAS:
            plt.plot(NS, exact[eta], lw=2, label=f"LoopExact eta={{eta}}")
        for eta in ETAS:
            plt.plot(NS, rates[eta], "x", ms=10, mew=2, label=f"{{runs}} runs, eta={{eta}}")
        plt.axhline(0.32 / 4, color="r", label="0.32/T at T=4")
        plt.xscale("symlog", linthresh=2)
        plt.xlabel("loop steps"); plt.ylabel("impossible"); plt.legend(loc="upper right")
        """,
)
HONEST += _alternatives(
    "plot_loop", kind="pandas-seaborn",
    pandas_dataframe_plot=f"""\
        import pandas as pd
        df = pd.DataFrame({{**{{f"measured eta={{eta}}": rates[eta] for eta in ETAS}},
                           **{{f"exact eta={{eta}}": {EXACT} for eta in ETAS}}}}, index=pd.Index(NS, name="loop steps n"))
        ax = df.plot(style=["o", "s", "-", "--"])
        ax.axhline(0.08, color="k", ls=":", label="no loop")
        ax.set_ylabel("impossible fraction"); ax.legend()
        """,
    seaborn_lineplot_hue_and_style=f"""\
        import pandas as pd
        import seaborn as sns
        rows = [{{"n": n, "share": r, "eta": str(eta), "curve": "measured"}} for eta in ETAS
                for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "share": p, "eta": str(eta), "curve": "exact"}} for eta in ETAS
                 for n, p in zip(NS, {EXACT})]
        ax = sns.lineplot(data=pd.DataFrame(rows), x="n", y="share", hue="eta", style="curve", markers=True)
        ax.axhline(0.08, color="k", ls=":", label="no loop")
        ax.set(xlabel="loop steps n", ylabel="impossible share")
        ax.legend()
        """,
    seaborn_scatter_hue_numeric_eta=f"""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame({{"n": NS * 2, "impossible": rates[0.2] + rates[0.05], "eta": [0.2] * 7 + [0.05] * 7}})
        ax = sns.scatterplot(data=long, x="n", y="impossible", hue="eta", palette=["C0", "C1"], s=60)
        for eta in ETAS:
            ax.plot(NS, {EXACT}, "--", label=f"exact, eta {{eta}}")
        ax.axhline(0.08, color="gray", label="0.32/T")
        ax.set_xlabel("loop steps"); ax.set_ylabel("impossible fraction"); ax.legend()
        """,
    pandas_two_frames_one_axes=f"""\
        import pandas as pd
        measured = pd.DataFrame({{f"measured, eta = {{eta}}": rates[eta] for eta in ETAS}}, index=NS)
        exact = pd.DataFrame({{f"exact, eta = {{eta}}": {EXACT} for eta in ETAS}}, index=NS)
        ax = measured.plot(style="o", logx=False)
        exact.plot(ax=ax, style="-")
        ax.hlines(0.08, 0, 32, color="k", linestyle="--", label="no loop")
        ax.set_xlabel("n"); ax.set_ylabel("share of impossible sentences"); ax.legend()
        """,
)
HONEST += _alternatives(
    "plot_loop", kind="plotly-altair",
    plotly_graph_objects=f"""\
        import plotly.graph_objects as go
        fig = go.Figure()
        for eta in ETAS:
            fig.add_trace(go.Scatter(x=NS, y=rates[eta], mode="markers", name=f"measured, eta={{eta}}"))
            fig.add_trace(go.Scatter(x=NS, y={EXACT}, mode="lines", name=f"exact, eta={{eta}}"))
        fig.add_hline(y=0.08, line_dash="dash", annotation_text="no loop: 0.08")
        fig.update_layout(xaxis_title="loop steps n", yaxis_title="impossible share")
        fig.show()
        """,
    plotly_express_percent=f"""\
        import pandas as pd
        import plotly.express as px
        rows = [{{"n": n, "percent": 100 * r, "curve": f"measured eta={{eta}}"}} for eta in ETAS
                for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "percent": 100 * p, "curve": f"exact eta={{eta}}"}} for eta in ETAS
                 for n, p in zip(NS, {EXACT})]
        fig = px.line(pd.DataFrame(rows), x="n", y="percent", color="curve", markers=True,
                      labels={{"n": "loop steps", "percent": "impossible sentences (%)"}})
        fig.add_hline(y=8, line_dash="dot")
        fig
        """,
    altair_layers=f"""\
        import altair as alt
        import pandas as pd
        measured = pd.DataFrame([{{"n": n, "share": r, "curve": f"measured, eta = {{eta}}"}} for eta in ETAS
                                 for n, r in zip(NS, rates[eta])])
        exact = pd.DataFrame([{{"n": n, "share": p, "curve": f"exact, eta = {{eta}}"}} for eta in ETAS
                              for n, p in zip(NS, {EXACT})])
        points = alt.Chart(measured).mark_point(filled=True).encode(
            x=alt.X("n:Q", title="loop steps n"), y=alt.Y("share:Q", title="impossible share"), color="curve:N")
        lines = alt.Chart(exact).mark_line().encode(x="n:Q", y="share:Q", color="curve:N")
        level = alt.Chart(pd.DataFrame({{"y": [0.08]}})).mark_rule(strokeDash=[4, 4]).encode(y="y:Q")
        points + lines + level
        """,
    altair_symlog_x=f"""\
        import altair as alt
        import pandas as pd
        rows = [{{"n": n, "share": r, "what": f"runs, eta {{eta}}"}} for eta in ETAS for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "share": p, "what": f"LoopExact, eta {{eta}}"}} for eta in ETAS for n, p in zip(NS, {EXACT})]
        curves = alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
            x=alt.X("n:Q", scale=alt.Scale(type="symlog"), title="n"), y=alt.Y("share:Q", title="fraction impossible"),
            color="what:N")
        curves + alt.Chart().mark_rule(color="black").encode(y=alt.datum(0.08))
        """,
)
HONEST += _alternatives(
    "plot_loop",
    loglog_without_n_0=f"""\
        for eta in ETAS:
            plt.loglog(NS[1:], rates[eta][1:], "o", label=f"measured, eta = {{eta}}")
            plt.loglog(NS[1:], {EXACT}[1:], "-", label=f"exact, eta = {{eta}}")
        plt.plot([1, 32], [0.08, 0.08], "k:", label="0.32 / T without the loop")
        plt.xlabel("loop steps n (n = 0 is the line)"); plt.ylabel("impossible fraction"); plt.legend()
        """,
    one_plot_call_for_both_etas=f"""\
        import numpy as np
        from matplotlib.ticker import PercentFormatter
        measured = np.array([rates[eta] for eta in ETAS]).T
        exact = np.array([{EXACT} for eta in ETAS]).T
        fig, ax = plt.subplots()
        ax.plot(NS, measured, "o")
        ax.set_prop_cycle(None)
        ax.plot(NS, exact, "-")
        ax.axhline(0.08, color="k", lw=0.8)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.legend([r"measured $\\eta=0.2$", r"measured $\\eta=0.05$", r"exact $\\eta=0.2$", r"exact $\\eta=0.05$",
                   "no loop"])
        ax.set_xlabel("$n$"); ax.set_ylabel("impossible sentences")
        """,
    panels_measured_and_exact_apart=f"""\
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        for eta in ETAS:
            left.plot(NS, rates[eta], "o--", label=f"eta = {{eta}}")
            right.plot(NS, {EXACT}, "-", label=f"eta = {{eta}}")
        for ax, title in ((left, "measured ({{}} runs)".format(runs)), (right, "exact (LoopExact)")):
            ax.axhline(0.08, color="gray", ls=":", label="no loop")
            ax.set(title=title, xlabel="n", xscale="symlog")
            ax.legend()
        left.set_ylabel("impossible share")
        """,
)
HONEST += _alternatives(
    "plot_loop", kind="pandas-seaborn",
    seaborn_relplot_lines=f"""\
        import pandas as pd
        import seaborn as sns
        rows = [{{"n": n, "share": r, "curve": f"measured {{eta}}"}} for eta in ETAS for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "share": p, "curve": f"exact {{eta}}"}} for eta in ETAS for n, p in zip(NS, {EXACT})]
        g = sns.relplot(data=pd.DataFrame(rows), x="n", y="share", hue="curve", kind="line", marker="o", height=4)
        g.ax.axhline(0.08, color="k", ls="--")
        g.set_axis_labels("loop steps", "impossible share")
        """,
)
HONEST += _alternatives(
    "plot_loop", kind="plotly-altair",
    plotly_two_panels_per_eta=f"""\
        from plotly.subplots import make_subplots
        import plotly.graph_objects as go
        fig = make_subplots(rows=1, cols=2, subplot_titles=[f"eta = {{eta}}" for eta in ETAS], shared_yaxes=True)
        for col, eta in enumerate(ETAS, start=1):
            fig.add_trace(go.Scatter(x=NS, y=rates[eta], mode="markers", name=f"measured {{eta}}"), 1, col)
            fig.add_trace(go.Scatter(x=NS, y={EXACT}, mode="lines", name=f"exact {{eta}}"), 1, col)
        fig.add_hline(y=0.08, line_dash="dash")
        fig.update_xaxes(title_text="loop steps n")
        fig.update_yaxes(title_text="impossible share", row=1, col=1)
        fig.show()
        """,
    altair_facet_per_eta=f"""\
        import altair as alt
        import pandas as pd
        rows = [{{"n": n, "share": r, "eta": eta, "curve": "measured"}} for eta in ETAS for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "share": p, "eta": eta, "curve": "exact"}} for eta in ETAS for n, p in zip(NS, {EXACT})]
        base = alt.Chart().encode(x=alt.X("n:Q", title="loop steps"), y=alt.Y("share:Q", title="impossible share"),
                                  color="curve:N")
        layered = alt.layer(base.mark_line(point=True), alt.Chart().mark_rule(strokeDash=[3, 3]).encode(y=alt.datum(0.08)),
                            data=pd.DataFrame(rows))
        layered.facet(column=alt.Column("eta:N", title="eta"))
        """,
)
HONEST += _alternatives(
    "plot_loop", kind="pandas-seaborn",
    seaborn_scatter_every_curve_as_points=f"""\
        import pandas as pd
        import seaborn as sns
        rows = [{{"n": n, "impossible": r, "what": f"measured, eta={{eta}}"}} for eta in ETAS for n, r in zip(NS, rates[eta])]
        rows += [{{"n": n, "impossible": p, "what": f"exact, eta={{eta}}"}} for eta in ETAS for n, p in zip(NS, {EXACT})]
        ax = sns.scatterplot(data=pd.DataFrame(rows), x="n", y="impossible", hue="what", style="what", s=70)
        ax.axhline(0.08, color="k", ls="--", label="no loop")
        ax.set_xscale("symlog"); ax.set_xlabel("loop steps n"); ax.set_ylabel("impossible fraction"); ax.legend()
        """,
)
