"""Notebook 07's drawing and printout cells, done in other correct ways (written from the task text alone)."""
from textwrap import dedent

from tests.honest import Honest

NOTEBOOK = "07_caching.ipynb"

DATA = {
    "plot_cache_drift": dedent("""\
        BLOCKS = [2, 4, 8, 12, 24]
        prompts = [StoryTokens(text) for text in ["once upon a time ,", "the dog", "lily went to the", "one day ,"]]
        drift = {b: CacheDrift(SampleBlocksPrefixCache, SampleBlocks, story_net, prompts, 24, b, 24, MASK_ID, PAD_ID,
                               CONTROL_IDS) for b in BLOCKS}
        dual = {b: CacheDrift(SampleBlocksPrefixCache, SampleBlocks, story_net, prompts, 24, b, 24, MASK_ID, PAD_ID,
                              CONTROL_IDS, dual=True) for b in BLOCKS}
        agreement = [drift[b]["agreement"] for b in BLOCKS]
        change = [drift[b]["key_change"] for b in BLOCKS]
        size = [drift[b]["key_size"] for b in BLOCKS]
        positions = [TokensProcessed(5, 24, b, 24, "prefix") for b in BLOCKS]
        """),
    "show_costs": dedent("""\
        import time
        prompt = StoryTokens("once upon a time ,")
        G, B, STEPS, TAU = 24, 8, 24, 0.9

        def Work(sampler, net, *args, **kwargs):
            counted = Counted(net)
            started = time.perf_counter()
            sampler(counted, prompt, *args, **kwargs)
            return counted.calls, counted.positions, time.perf_counter() - started

        rows = {
            "notebook 5 (one block of 24)": Work(SampleBlocks, story_model, G, G, STEPS, MASK_ID, PAD_ID, CONTROL_IDS),
            "block-causal, no cache": Work(SampleBlocksBlockCausal, block_net, G, B, STEPS, MASK_ID, PAD_ID, CONTROL_IDS),
            "block-causal, exact cache": Work(SampleBlocksCached, block_net, G, B, STEPS, MASK_ID, PAD_ID, CONTROL_IDS),
            "prefix cache": Work(SampleBlocksPrefixCache, story_net, G, B, STEPS, MASK_ID, PAD_ID, CONTROL_IDS),
            "dual cache": Work(SampleBlocksPrefixCache, story_net, G, B, STEPS, MASK_ID, PAD_ID, CONTROL_IDS, dual=True),
            "threshold, no cache": Work(SampleBlocksAbove, block_net, G, B, TAU, MASK_ID, PAD_ID, CONTROL_IDS),
        }
        c = rows["threshold, no cache"][0]
        rows["threshold, exact cache (computed)"] = (1 + c + 2, 5 + c * 8 + 2 * 8, None)
        """),
}


def _alternatives(cell, prefix="", kind="matplotlib", **bodies):
    return [Honest(cell, name, prefix + dedent(body), kind) for name, body in bodies.items()]


HONEST = []

HONEST += _alternatives(
    "plot_cache_drift",
    titles_not_y_labels="""\
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        for ax, values, title in zip(axes, (agreement, change, positions),
                                     ("agreement with the uncached sampler", "mean key change between refreshes",
                                      "positions per sample, prefix cache")):
            ax.plot(BLOCKS, values, "o-")
            ax.set_title(title)
            ax.set_xlabel("block length")
        """,
    pyplot_percent="""\
        plt.figure(figsize=(12, 3.5))
        plt.subplot(1, 3, 1)
        plt.plot(BLOCKS, [100 * a for a in agreement], "s-")
        plt.xlabel("block length"); plt.ylabel("tokens identical to uncached (%)")
        plt.subplot(1, 3, 2)
        plt.plot(BLOCKS[:-1], change[:-1], "s-")
        plt.xlabel("block length"); plt.ylabel("mean |key change|")
        plt.subplot(1, 3, 3)
        plt.plot(BLOCKS, positions, "s-")
        plt.axhline(696, color="k", ls=":")
        plt.xlabel("block length"); plt.ylabel("positions processed")
        plt.tight_layout()
        """,
    twin_axes="""\
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.5))
        left.plot(BLOCKS, agreement, "o-", color="C0")
        left.set_xlabel("block length b"); left.set_ylabel("agreement", color="C0")
        other = left.twinx()
        other.plot(BLOCKS, change, "s--", color="C1")
        other.set_ylabel("key change", color="C1")
        right.bar(BLOCKS, positions, width=1.5)
        right.set_xlabel("block length b"); right.set_ylabel("positions (prefix cache)")
        """,
    separate_figures="""\
        for values, name in ((agreement, "share of tokens agreeing"), (change, "mean key change"),
                             (positions, "positions with the prefix cache")):
            plt.figure(figsize=(4, 3))
            plt.plot(BLOCKS, values, marker="o")
            plt.xlabel("block length"); plt.ylabel(name)
            plt.show()
        """,
    with_the_dual_cache="""\
        fig, axes = plt.subplots(1, 3, figsize=(14, 3.5))
        axes[0].plot(BLOCKS, agreement, "o-", label="prefix cache")
        axes[0].plot(BLOCKS, [dual[b]["agreement"] for b in BLOCKS], "s--", label="dual cache")
        axes[0].set_ylabel("agreement")
        axes[1].plot(BLOCKS, change, "o-", label="prefix cache")
        axes[1].plot(BLOCKS, [dual[b]["key_change"] for b in BLOCKS], "s--", label="dual cache")
        axes[1].set_ylabel("key change")
        axes[2].plot(BLOCKS, positions, "o-", label="prefix cache")
        axes[2].plot(BLOCKS, [TokensProcessed(5, 24, b, 24, "dual") for b in BLOCKS], "s--", label="dual cache")
        axes[2].set_ylabel("positions")
        for ax in axes:
            ax.set_xlabel("block length"); ax.legend()
        """,
    bars_of_categories="""\
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        where = range(len(BLOCKS))
        for ax, values, name in zip(axes, (agreement, change, positions), ("agreement", "key change", "positions")):
            ax.bar(where, values)
            ax.set_xticks(where, [str(b) for b in BLOCKS])
            ax.set_xlabel("block length"); ax.set_ylabel(name)
        """,
    log2_scatter_relative_change="""\
        fig, axes = plt.subplots(3, 1, sharex=True, figsize=(5, 8))
        axes[0].scatter(BLOCKS, agreement); axes[0].set_ylabel("same token as uncached")
        axes[1].scatter(BLOCKS[:-1], [c / s for c, s in zip(change[:-1], size[:-1])])
        axes[1].set_ylabel("key change / key size")
        axes[2].scatter(BLOCKS, positions); axes[2].set_ylabel("positions per sample")
        axes[2].set_xscale("log", base=2); axes[2].set_xlabel("block length (log 2)")
        """,
    one_axes_named_in_the_legend="""\
        fig, ax = plt.subplots()
        ax.plot(BLOCKS, agreement, "o-", label="agreement (share)")
        ax.plot(BLOCKS, change, "s-", label="mean key change")
        ax.set_xlabel("block length"); ax.set_ylabel("value"); ax.legend()
        other = ax.twinx()
        other.plot(BLOCKS, positions, "k^:", label="positions (prefix cache)")
        other.set_ylabel("positions processed")
        """,
    horizontal_bars="""\
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        for ax, values, name in zip(axes, (agreement, change, positions), ("agreement", "key change", "positions")):
            ax.barh([str(b) for b in BLOCKS], values)
            ax.set_ylabel("block length"); ax.set_xlabel(name)
        """,
    nan_key_change_as_zero_with_the_key_size="""\
        import math
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        axes[0].plot(BLOCKS, [100 * a for a in agreement], "o-", label="agreement (%)")
        axes[1].plot(BLOCKS, [0 if math.isnan(c) else c for c in change], "o-", label="mean key change")
        axes[1].plot(BLOCKS, [0 if math.isnan(s) else s for s in size], "x:", label="mean key size, for scale")
        axes[2].plot(BLOCKS, positions, "o-", label="positions, prefix cache")
        for ax in axes:
            ax.set_xlabel("block length"); ax.legend()
        """,
    nan_key_change_kept_and_errorbar_style="""\
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        axes[0].errorbar(BLOCKS, agreement, fmt="o", label="prefix cache")
        axes[1].plot(BLOCKS, change, "D-", label="prefix cache")
        axes[2].step(BLOCKS, positions, where="mid", marker="o", label="prefix cache")
        axes[2].axhline(TokensProcessed(5, 24, 24, 24, "none"), color="gray", label="no cache")
        for ax, name in zip(axes, ("share agreeing", "mean |delta key|", "positions")):
            ax.set(xlabel="block length", ylabel=name)
        axes[2].legend()
        """,
)
HONEST += _alternatives(
    "plot_cache_drift", kind="pandas-seaborn",
    pandas_subplots="""\
        import pandas as pd
        df = pd.DataFrame({"agreement": agreement, "key change": change, "positions": positions},
                          index=pd.Index(BLOCKS, name="block length"))
        df.plot(subplots=True, layout=(1, 3), figsize=(13, 3.5), marker="o")
        """,
    pandas_bar_subplots="""\
        import pandas as pd
        df = pd.DataFrame({"agreement (%)": [100 * a for a in agreement], "key change": change,
                           "positions": positions}, index=pd.Index(BLOCKS, name="block length"))
        df.plot.bar(subplots=True, figsize=(6, 8), legend=False)
        """,
    seaborn_lineplots="""\
        import seaborn as sns
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        sns.lineplot(x=BLOCKS, y=agreement, marker="o", ax=axes[0])
        sns.lineplot(x=BLOCKS, y=change, marker="o", ax=axes[1])
        sns.lineplot(x=BLOCKS, y=positions, marker="o", ax=axes[2])
        for ax, name in zip(axes, ("agreement", "key change", "positions")):
            ax.set(xlabel="block length", ylabel=name)
        """,
    seaborn_pointplot_categories="""\
        import seaborn as sns
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        for ax, values, name in zip(axes, (agreement, change, positions), ("agreement", "key change", "positions")):
            sns.pointplot(x=[str(b) for b in BLOCKS], y=values, ax=ax)
            ax.set(xlabel="block length", ylabel=name)
        """,
    seaborn_relplot_facets="""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame([{"block length": b, "quantity": q, "value": v}
                             for q, vals in (("agreement", agreement), ("key change", change), ("positions", positions))
                             for b, v in zip(BLOCKS, vals)])
        sns.relplot(data=long, x="block length", y="value", col="quantity", kind="line", marker="o",
                    facet_kws={"sharey": False})
        """,
    seaborn_barplot="""\
        import seaborn as sns
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.5))
        for ax, values, name in zip(axes, (agreement, change, positions), ("agreement", "key change", "positions")):
            sns.barplot(x=BLOCKS, y=values, ax=ax, color="C2")
            ax.set(xlabel="block length", ylabel=name)
        """,
)
HONEST += _alternatives(
    "plot_cache_drift", kind="plotly-altair",
    plotly_three_panels="""\
        from plotly.subplots import make_subplots
        import plotly.graph_objects as go
        fig = make_subplots(rows=1, cols=3)
        fig.add_trace(go.Scatter(x=BLOCKS, y=agreement, mode="lines+markers", name="agreement"), 1, 1)
        fig.add_trace(go.Scatter(x=BLOCKS, y=change, mode="lines+markers", name="key change"), 1, 2)
        fig.add_trace(go.Scatter(x=BLOCKS, y=positions, mode="lines+markers", name="positions"), 1, 3)
        fig.update_xaxes(title_text="block length")
        fig.update_yaxes(title_text="agreement", row=1, col=1)
        fig.update_yaxes(title_text="mean key change", row=1, col=2)
        fig.update_yaxes(title_text="positions per sample", row=1, col=3)
        fig.show()
        """,
    plotly_express_figures="""\
        import pandas as pd
        import plotly.express as px
        df = pd.DataFrame({"block length": BLOCKS, "agreement (%)": [100 * a for a in agreement],
                           "key change": change, "positions": positions})
        for column in ("agreement (%)", "key change", "positions"):
            px.line(df, x="block length", y=column, markers=True).show()
        """,
    plotly_express_facets="""\
        import pandas as pd
        import plotly.express as px
        long = pd.DataFrame([{"block length": b, "quantity": q, "value": v}
                             for q, vals in (("agreement", agreement), ("key change", change), ("positions", positions))
                             for b, v in zip(BLOCKS, vals)])
        fig = px.line(long, x="block length", y="value", facet_col="quantity", markers=True)
        fig.update_yaxes(matches=None, showticklabels=True)
        fig.show()
        """,
    altair_three_charts="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"block length": BLOCKS, "agreement": agreement, "key change": change,
                              "positions": positions})
        charts = [alt.Chart(table).mark_line(point=True).encode(x="block length:Q", y=f"{column}:Q")
                  for column in ("agreement", "key change", "positions")]
        charts[0] | charts[1] | charts[2]
        """,
)

HONEST += _alternatives(
    "show_costs",
    plain_print="""\
        for name, (calls, positions, seconds) in rows.items():
            print(name, calls, positions)
        """,
    labelled="""\
        for name, (calls, positions, seconds) in rows.items():
            print(f"{name}: {calls} calls, {positions} positions")
        """,
    with_seconds_and_units="""\
        print("sampler | calls | positions | wall time")
        for name, (calls, positions, seconds) in rows.items():
            timing = "-" if seconds is None else f"{seconds * 1000:.1f} ms"
            print(f"{name} | {calls} | {positions} | {timing}")
        """,
    markdown_table="""\
        print("| sampler | calls | positions |")
        print("|---|---|---|")
        for name, (calls, positions, _) in rows.items():
            print(f"| {name} | {calls} | {positions} |")
        """,
    tuples="""\
        for name, (calls, positions, _) in rows.items():
            print((name, calls, positions))
        """,
    numbers_first="""\
        print(f"{'calls':>5} {'positions':>9}  sampler")
        for name, (calls, positions, _) in rows.items():
            print(f"{calls:5d} {positions:9d}  {name}")
        """,
    two_lines_a_sampler="""\
        for name, (calls, positions, seconds) in rows.items():
            print(name)
            print(f"    {calls} calls, {positions} positions" + ("" if seconds is None else f", {seconds:.4f} s"))
        """,
    pprint_of_the_dict="""\
        from pprint import pprint
        pprint({name: (calls, positions) for name, (calls, positions, _) in rows.items()}, width=60)
        """,
    counted_here_in_a_loop="""\
        specs = [("notebook 5", SampleBlocks, story_model, (G, G, STEPS), {}),
                 ("no cache, blocks of 8", SampleBlocksBlockCausal, block_net, (G, B, STEPS), {}),
                 ("exact cache", SampleBlocksCached, block_net, (G, B, STEPS), {}),
                 ("prefix cache", SampleBlocksPrefixCache, story_net, (G, B, STEPS), {}),
                 ("dual cache", SampleBlocksPrefixCache, story_net, (G, B, STEPS), {"dual": True}),
                 ("threshold 0.9", SampleBlocksAbove, block_net, (G, B, TAU), {})]
        table = []
        for name, sampler, net, sizes, options in specs:
            net = Counted(net)
            sampler(net, prompt, *sizes, MASK_ID, PAD_ID, CONTROL_IDS, **options)
            table.append((name, net.calls, net.positions))
        calls = table[-1][1]
        table.append(("threshold 0.9 + exact cache", calls + 3, len(prompt) + 8 * calls + 16))
        for name, c, p in table:
            print(f"{name:<30}{c:>8}{p:>12}")
        """,
    computed_row_as_floats="""\
        n = G / B
        c = rows["threshold, no cache"][0]
        rows["threshold, exact cache (computed)"] = (1 + c + (n - 1), len(prompt) + c * B + (n - 1) * B, None)
        for name, (calls, positions, _) in rows.items():
            print(f"{name:35} {calls:>6} {positions:>8}")
        """,
)
HONEST += _alternatives(
    "show_costs", kind="shown",
    dataframe_last_expression="""\
        import pandas as pd
        pd.DataFrame([(name, calls, positions, seconds) for name, (calls, positions, seconds) in rows.items()],
                     columns=["sampler", "calls", "positions", "seconds"])
        """,
    rich_table="""\
        from rich.console import Console
        from rich.table import Table
        table = Table("sampler", "calls", "positions", "seconds", title="work of one sample")
        for name, (calls, positions, seconds) in rows.items():
            table.add_row(name, str(calls), str(positions), "-" if seconds is None else f"{seconds:.3f}")
        Console().print(table)
        """,
    display_each_row="""\
        from IPython.display import display
        for name, (calls, positions, _) in rows.items():
            display((name, calls, positions))
        """,
)
HONEST += _alternatives(
    "show_costs", kind="pandas-seaborn",
    dataframe_printed_indexed="""\
        import pandas as pd
        df = pd.DataFrame.from_dict({name: {"calls": calls, "positions": positions} for name, (calls, positions, _)
                                     in rows.items()}, orient="index")
        print(df.to_string())
        """,
)
