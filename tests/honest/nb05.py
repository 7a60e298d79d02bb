"""Notebook 05's drawing and printout cells, drawn in other correct ways (written from the task text)."""
from textwrap import dedent

from tests.honest import Honest

NOTEBOOK = "05_sampler_internals.ipynb"

DATA = {
    "show_first_pass": dedent("""\
        canvas = blank_canvas(1, 12, MASK_ID)
        probabilities = candidate_distributions(story_model, canvas, CONTROL_IDS)
        top_probability, top_id = probabilities.max(dim=-1)
        """),
    "plot_confidence": dedent("""\
        kinds = ("top", "margin", "neg_entropy")
        scores = {kind: confidence_scores(probabilities, kind)[0] for kind in kinds}
        """),
}


def _alternatives(cell, prefix="", kind="matplotlib", **bodies):
    return [Honest(cell, name, prefix + dedent(body), kind) for name, body in bodies.items()]


HONEST = []

HONEST += _alternatives(
    "show_first_pass",
    labelled_table="""\
        print(f"canvas shape: {list(canvas.shape)}")
        print(f"distributions shape: {list(probabilities.shape)}")
        print(f"sum of one distribution: {probabilities[0, 5].sum().item():.4f}")
        print("pos | token    | probability")
        for i in range(12):
            print(f"{i:3d} | {vocab[top_id[0, i]]:>8} | {top_probability[0, i]:.3f}")
        print("all masks still:", (canvas == MASK_ID).all().item())
        """,
    tensors_printed="""\
        print(canvas.shape)
        print(probabilities.shape)
        print(probabilities[0, 0].sum())
        print(top_id)
        print(top_probability)
        print(canvas)
        """,
    words_and_percentages="""\
        print("canvas", tuple(canvas.shape), "-> distributions", tuple(probabilities.shape))
        print("the first distribution adds up to", round(probabilities[0, 0].sum().item(), 4))
        for i in range(12):
            print(f"position {i}: '{vocab[top_id[0, i].item()]}' ({100 * top_probability[0, i].item():.1f}%)")
        print("canvas is all masks:", torch.all(canvas == MASK_ID).item())
        """,
    list_of_pairs="""\
        print("shapes:", canvas.shape, probabilities.shape)
        print("sum:", probabilities[0, 3].sum().item())
        print([(vocab[i], round(p, 3)) for i, p in zip(top_id[0].tolist(), top_probability[0].tolist())])
        print("unchanged:", bool((canvas == MASK_ID).all()))
        """,
    canvas_shown_as_text="""\
        print("canvas shape:", list(canvas.shape), "| distributions shape:", list(probabilities.shape))
        print("one distribution sums to", float(probabilities[0, 7].sum()))
        for i, (p, t) in enumerate(zip(top_probability[0], top_id[0])):
            print(i, vocab[int(t)], f"{float(p):.3f}")
        print("canvas:", Show(canvas[0].cpu()))
        """,
    numbered_from_one="""\
        print(f"Canvas: {tuple(canvas.shape)}, probabilities: {tuple(probabilities.shape)}")
        print(f"Sum over the vocabulary at position 1: {probabilities[0, 0].sum():.6f}")
        for i in range(12):
            print(f"#{i + 1:02d}  {vocab[top_id[0, i]]:<10} p = {top_probability[0, i]:.4f}")
        print(f"Still all masks? {(canvas == MASK_ID).all().item()}")
        """,
    two_rows_words_then_probabilities="""\
        print("canvas:", tuple(canvas.shape))
        print("distributions:", tuple(probabilities.shape))
        print("sum of one distribution:", f"{probabilities[0, 0].sum():.3f}")
        print("top candidates:", " ".join(vocab[i] for i in top_id[0].tolist()))
        print("probabilities: ", " ".join(f"{p:.2f}" for p in top_probability[0].tolist()))
        print("canvas still all masks:", (canvas == MASK_ID).all().item())
        """,
    every_sum_and_extra_lines="""\
        print("device:", canvas.device, "dtype:", canvas.dtype)
        print("canvas shape", canvas.shape)
        print("distributions shape", probabilities.shape)
        print("sums:", probabilities.sum(dim=-1))
        for i in range(12):
            print(f"pos {i:2d}  id {int(top_id[0, i]):4d}  {vocab[int(top_id[0, i])]:10s}  {float(top_probability[0, i]):.3f}")
        print("masks left on the canvas:", int((canvas == MASK_ID).sum()), "of", canvas.numel())
        """,
)

HONEST += _alternatives(
    "plot_confidence",
    bars_from_a_baseline="""\
        fig, axes = plt.subplots(1, 3, figsize=(12, 3))
        for ax, kind in zip(axes, kinds):
            s = scores[kind]
            spread = float(s.max() - s.min()) or 1.0
            base = float(s.min()) - 0.1 * spread
            ax.bar(range(12), s - base, bottom=base)
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel("confidence")
        plt.tight_layout()
        """,
    scatter_stacked="""\
        plt.figure(figsize=(6, 8))
        for i, kind in enumerate(kinds):
            plt.subplot(3, 1, i + 1)
            plt.scatter(range(12), scores[kind])
            plt.title(f"confidence: {kind}")
            plt.xlabel("position"); plt.ylabel(kind)
        plt.tight_layout()
        """,
    stem="""\
        fig, axes = plt.subplots(1, 3, figsize=(13, 3))
        for ax, kind in zip(axes, kinds):
            s = scores[kind]
            ax.stem(range(12), s, bottom=float(s.min()))
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel("score")
        """,
    step="""\
        fig, axes = plt.subplots(1, 3, figsize=(12, 3))
        for ax, kind in zip(axes, kinds):
            ax.step(range(12), scores[kind], where="mid")
            ax.set_title(kind); ax.set_xlabel("position i"); ax.set_ylabel(f"{kind} score")
        """,
    numpy_sharex_column="""\
        import numpy as np
        fig, axes = plt.subplots(3, 1, sharex=True, figsize=(6, 7))
        for ax, kind in zip(axes, kinds):
            ax.plot(np.arange(12), scores[kind].numpy(), marker="s")
            ax.set_title(kind); ax.set_ylabel("confidence"); ax.grid(alpha=0.3)
        axes[-1].set_xlabel("position")
        """,
    bars_with_fitted_ylim="""\
        fig, axes = plt.subplots(1, 3, figsize=(12, 3))
        for ax, kind in zip(axes, kinds):
            s = scores[kind]
            ax.bar(range(12), s.tolist(), color="C1")
            pad = 0.1 * float(s.max() - s.min()) + 1e-6
            ax.set_ylim(float(s.min()) - pad, float(s.max()) + pad)
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel("value")
        """,
    long_titles_positions_from_one="""\
        names = {"top": "top (max p)", "margin": "margin (p1 - p2)", "neg_entropy": "neg_entropy (sum p log p)"}
        fig, axes = plt.subplots(1, 3, figsize=(14, 3.2))
        for ax, kind in zip(axes, kinds):
            ax.plot(range(1, 13), scores[kind], "o-", color="purple")
            ax.set_title("confidence: " + names[kind]); ax.set_xlabel("position (1-12)"); ax.set_ylabel("score")
            ax.set_xticks(range(1, 13))
        fig.suptitle("three confidence scores of the first pass")
        """,
    markers_only_recomputed="""\
        fig, axes = plt.subplots(ncols=3, figsize=(12, 3))
        for k, kind in enumerate(["top", "margin", "neg_entropy"]):
            values = confidence_scores(probabilities, kind).squeeze(0)
            axes[k].plot(values, "D", ms=5)
            axes[k].set(title=kind, xlabel="position", ylabel="confidence")
        """,
    lollipop_vlines="""\
        fig, axes = plt.subplots(1, 3, figsize=(12, 3))
        for ax, kind in zip(axes, kinds):
            s = scores[kind]
            low = float(s.min()) - 0.05 * (float(s.max() - s.min()) + 1e-9)
            ax.vlines(range(12), low, s, color="gray")
            ax.plot(range(12), s, "o")
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel(kind)
        """,
)

_EXAMPLE = "reverse_update(**example, reveal_counts=[2, 1], mask_id=1, pad_id=0)"

HONEST += _alternatives(
    "show_worked_example",
    tolist=f"""\
        print({_EXAMPLE}.tolist())
        """,
    row_by_row=f"""\
        result = {_EXAMPLE}
        for b, row in enumerate(result):
            print(f"row {{b}}: {{row.tolist()}}")
        """,
    numpy_with_label=f"""\
        print("next canvas:")
        print({_EXAMPLE}.numpy())
        """,
    counts_as_a_tensor="""\
        result = reverse_update(**example, reveal_counts=torch.tensor([2, 1]), mask_id=1, pad_id=0)
        print(result)
        """,
    positional_call="""\
        out = reverse_update(example["x"], example["candidate_ids"], example["confidence"],
                             example["generation_slots"], [2, 1], 1, 0)
        print("result:", out)
        """,
    before_and_after=f"""\
        print("before:", example["x"].tolist())
        print("after: ", {_EXAMPLE}.tolist())
        """,
    mask_and_pad_named=f"""\
        for row in {_EXAMPLE}.tolist():
            print(["PAD" if v == 0 else "MASK" if v == 1 else v for v in row])
        """,
    spaced_numbers_with_explanation=f"""\
        result = {_EXAMPLE}
        for row in result:
            print(" ".join(str(v) for v in row.tolist()))
        # prefix scores never compete: they are not generation slots
        print("committed: two proposals in row 0, one in row 1")
        """,
)

HONEST += _alternatives(
    "show_batch_stories",
    row_k_n_tokens="""\
        prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog"),
                   torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long)]
        rows = sample(story_model, prompts, [32, 32, 20, 12], 16, MASK_ID, PAD_ID, CONTROL_IDS)
        for k, row in enumerate(rows.cpu()):
            print(f"row {k} ({int((row != PAD_ID).sum())} tokens): {Show(row)}")
        """,
    prompts_as_lists="""\
        prompts = [StoryTokens("once upon a time ,").tolist(), StoryTokens("the dog").tolist(), [], []]
        out = sample(story_model, prompts, [32, 32, 20, 12], 16, MASK_ID, PAD_ID, CONTROL_IDS)
        for row in out:
            print(Show(row.cpu()))
        """,
    short_rows_first="""\
        empty = torch.tensor([], dtype=torch.long)
        rows = sample(story_model, [empty, empty, StoryTokens("once upon a time ,"), StoryTokens("the dog")],
                      [20, 12, 32, 32], 16, MASK_ID, PAD_ID, control_ids=CONTROL_IDS)
        for row in rows.cpu():
            print(Show(row))
        """,
    header_and_torch_empty="""\
        prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog"), torch.empty(0, dtype=torch.long),
                   torch.empty(0, dtype=torch.long)]
        lengths = [32, 32, 20, 12]
        print(f"a batch of {len(prompts)} rows, 16 steps")
        rows = sample(story_model, prompts, lengths, 16, MASK_ID, PAD_ID, CONTROL_IDS).cpu()
        for i in range(len(rows)):
            print(Show(rows[i]))
        """,
    length_in_brackets="""\
        lengths = [32, 32, 20, 12]
        prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog")] + [torch.tensor([], dtype=torch.long)] * 2
        batch = sample(story_model, prompts, lengths, 16, MASK_ID, PAD_ID, CONTROL_IDS)
        for n, row in zip(lengths, batch.cpu()):
            print(f"[{n} tokens] {Show(row)}")
        """,
    divider_lines="""\
        prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog"), torch.tensor([], dtype=torch.long),
                   torch.tensor([], dtype=torch.long)]
        rows = sample(story_model, prompts, [32, 32, 20, 12], 16, MASK_ID, PAD_ID, CONTROL_IDS)
        for row in rows.cpu():
            print("-" * 40)
            print(Show(row))
        print("-" * 40)
        """,
    numbered_from_one="""\
        prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog"), torch.tensor([], dtype=torch.long),
                   torch.tensor([], dtype=torch.long)]
        rows = sample(story_model, prompts, [32, 32, 20, 12], 16, MASK_ID, PAD_ID, CONTROL_IDS).cpu()
        for i in range(rows.shape[0]):
            print(i + 1, Show(rows[i]))
        """,
    named_by_prompt="""\
        setup = {"once upon a time ,": 32, "the dog": 32, "": 20, " ": 12}
        prompts = [StoryTokens(p) if p.strip() else torch.tensor([], dtype=torch.long) for p in setup]
        rows = sample(story_model, prompts, list(setup.values()), 16, MASK_ID, PAD_ID, CONTROL_IDS)
        for p, row in zip(setup, rows.cpu()):
            print(f"prompt {p.strip() or '(none)'!r}: {Show(row)}")
        """,
)

# Drawn with pandas and seaborn (Colab has both), and shown without print (a cell's last expression,
# display(...)), as students who know those tools would.
HONEST += _alternatives(
    "show_first_pass", kind="shown",
    display_imported_each_part="""\
        from IPython.display import display
        display(canvas.shape)
        display(probabilities.shape)
        display(probabilities[0, 0].sum())
        display([(vocab[i], round(p, 3)) for i, p in zip(top_id[0].tolist(), top_probability[0].tolist())])
        display(canvas)
        """,
    dict_last_expression="""\
        {"canvas shape": tuple(canvas.shape),
         "distributions shape": tuple(probabilities.shape),
         "sum of one distribution": probabilities[0, 0].sum().item(),
         "top candidates": [(vocab[i], round(p, 3)) for i, p in zip(top_id[0].tolist(), top_probability[0].tolist())],
         "canvas all masks": bool((canvas == MASK_ID).all())}
        """,
)
HONEST += _alternatives(
    "show_first_pass", kind="pandas-seaborn",
    dataframe_printed="""\
        import pandas as pd
        print("canvas shape:", tuple(canvas.shape))
        print("distributions shape:", tuple(probabilities.shape))
        print("sum of one distribution:", round(float(probabilities[0, 0].sum()), 4))
        df = pd.DataFrame({"top candidate": [vocab[i] for i in top_id[0].tolist()],
                           "probability": top_probability[0].numpy()})
        df.index.name = "position"
        print(df)
        print("canvas still all masks:", bool((canvas == MASK_ID).all()))
        """,
)

HONEST += _alternatives(
    "plot_confidence", kind="pandas-seaborn",
    pandas_subplots_row="""\
        import pandas as pd
        df = pd.DataFrame({kind: scores[kind].numpy() for kind in kinds})
        df.index.name = "position"
        axes = df.plot(subplots=True, layout=(1, 3), figsize=(13, 3), marker="o", sharex=False,
                       legend=False, title=list(kinds))
        for ax, kind in zip(axes.flat, kinds):
            ax.set_ylabel(f"{kind} score")
        plt.tight_layout()
        """,
    seaborn_relplot_line_facets="""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame([{"position": i, "score": float(scores[k][i]), "kind": k}
                             for k in kinds for i in range(12)])
        g = sns.relplot(data=long, x="position", y="score", col="kind", col_order=list(kinds), kind="line",
                        marker="o", height=3, facet_kws={"sharey": False})
        g.set_titles("{col_name}")
        for ax, kind in zip(g.axes.flat, kinds):
            ax.set_xlabel("position"); ax.set_ylabel(f"{kind} confidence")
        """,
    seaborn_catplot_bars_fitted_ylim="""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame({"position": list(range(12)) * 3,
                             "score": torch.cat([scores[k] for k in kinds]).numpy(),
                             "kind": [k for k in kinds for _ in range(12)]})
        g = sns.catplot(data=long, x="position", y="score", col="kind", kind="bar", sharey=False, height=3)
        for ax, kind in zip(g.axes.flat, kinds):
            s = scores[kind]
            pad = 0.1 * float(s.max() - s.min()) + 1e-6
            ax.set_ylim(float(s.min()) - pad, float(s.max()) + pad)
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel("score")
        """,
    seaborn_facetgrid_scatter_ranked="""\
        import pandas as pd
        import seaborn as sns
        long = pd.concat([pd.DataFrame({"position": range(12), "score": scores[k].numpy(), "kind": k}) for k in kinds])
        ranked = long.sort_values("score", ascending=False)   # the surest positions first
        g = sns.FacetGrid(ranked, col="kind", col_order=list(kinds), sharey=False, height=3)
        g.map_dataframe(sns.scatterplot, x="position", y="score")
        g.set_titles("{col_name}")
        for ax in g.axes.flat:
            ax.set_xlabel("position"); ax.set_ylabel("confidence score")
        """,
    seaborn_scatterplot_panels="""\
        import seaborn as sns
        fig, axes = plt.subplots(1, 3, figsize=(12, 3))
        for ax, kind in zip(axes, kinds):
            sns.scatterplot(x=list(range(12)), y=scores[kind].numpy(), ax=ax, s=50)
            ax.set(title=kind, xlabel="position", ylabel="confidence")
        plt.tight_layout()
        """,
    seaborn_pointplot_panels="""\
        import seaborn as sns
        fig, axes = plt.subplots(1, 3, figsize=(13, 3))
        for ax, kind in zip(axes, kinds):
            sns.pointplot(x=list(range(12)), y=scores[kind].tolist(), ax=ax, color="C2")
            ax.set_title(kind); ax.set_xlabel("position"); ax.set_ylabel(kind)
        plt.tight_layout()
        """,
)

HONEST += _alternatives(
    "show_worked_example", kind="shown",
    tensor_last_expression=f"""\
        {_EXAMPLE}
        """,
    display_builtin_tolist=f"""\
        result = {_EXAMPLE}
        display(result.tolist())
        """,
)
HONEST += _alternatives(
    "show_worked_example", kind="pandas-seaborn",
    dataframe_last_expression=f"""\
        import pandas as pd
        pd.DataFrame({_EXAMPLE}.numpy())
        """,
)

_BATCH = """\
prompts = [StoryTokens("once upon a time ,"), StoryTokens("the dog"), torch.tensor([], dtype=torch.long),
           torch.tensor([], dtype=torch.long)]
rows = sample(story_model, prompts, [32, 32, 20, 12], 16, MASK_ID, PAD_ID, CONTROL_IDS).cpu()
"""

HONEST += _alternatives(
    "show_batch_stories", prefix=_BATCH, kind="shown",
    list_last_expression="""\
        [Show(row) for row in rows]
        """,
    display_builtin_each_row="""\
        for row in rows:
            display(Show(row))
        """,
)
HONEST += _alternatives(
    "show_batch_stories", prefix=_BATCH, kind="pandas-seaborn",
    dataframe_full_width="""\
        import pandas as pd
        df = pd.DataFrame({"length": [32, 32, 20, 12], "story": [Show(row) for row in rows]})
        with pd.option_context("display.max_colwidth", None):
            print(df)
        """,
)

# Colab's other plotting libraries (issue 46): plotly and altair
HONEST += _alternatives(
    "plot_confidence", kind="plotly-altair",
    plotly_three_panels="""\
        from plotly.subplots import make_subplots
        import plotly.graph_objects as go
        fig = make_subplots(rows=1, cols=3, subplot_titles=kinds)
        for col, kind in enumerate(kinds, 1):
            fig.add_trace(go.Scatter(x=list(range(12)), y=scores[kind].tolist(), mode="markers+lines", name=kind), 1, col)
            fig.update_xaxes(title_text="position", row=1, col=col)
            fig.update_yaxes(title_text="confidence", row=1, col=col)
        fig.show()
        """)
HONEST += _alternatives(
    "plot_confidence", kind="plotly-altair",
    altair_three_charts="""\
        import altair as alt
        import pandas as pd
        charts = [alt.Chart(pd.DataFrame({"position": range(12), "confidence": scores[kind].tolist()}), title=kind)
                  .mark_line(point=True).encode(x="position", y="confidence") for kind in kinds]
        alt.hconcat(*charts)
        """)

# a second plotly way: plotly express, one panel per score as facets of a long table would be read for
# review, so three figures, one per score, each shown
HONEST += _alternatives(
    "plot_confidence", kind="plotly-altair",
    plotly_express_three_figures="""\
        import plotly.express as px
        for kind in kinds:
            px.line(x=list(range(12)), y=scores[kind].tolist(), markers=True, title=kind,
                    labels={"x": "position", "y": f"{kind} confidence"}).show()
        """)

# printouts shown another way (issue 46): rich, Markdown, an HTML table
HONEST += _alternatives(
    "show_first_pass", kind="shown",
    rich_console="""\
        from rich.console import Console
        console = Console()
        console.print(f"canvas shape: {list(canvas.shape)}")
        console.print(f"distributions shape: {list(probabilities.shape)}")
        console.print(f"sum of one distribution: {probabilities[0, 5].sum().item():.4f}")
        for i in range(12):
            console.print(f"{i:3d}  {vocab[top_id[0, i]]:>8}  {top_probability[0, i]:.3f}")
        console.print("all masks still:", (canvas == MASK_ID).all().item())
        """)
HONEST += _alternatives(
    "show_worked_example", kind="shown",
    markdown_code=f"""\
        from IPython.display import Markdown, display
        result = {_EXAMPLE}
        display(Markdown(f"`{{result.tolist()}}`"))
        """)
HONEST += _alternatives(
    "show_batch_stories", prefix=_BATCH, kind="shown",
    html_table="""\
        import pandas as pd
        from IPython.display import HTML, display
        table = pd.DataFrame({"length": [32, 32, 20, 12], "story": [Show(row) for row in rows]})
        display(HTML(table.to_html(index=False)))
        """)
HONEST += _alternatives(
    "plot_confidence", kind="plotly-altair",
    altair_facet_by_score="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame([{"position": i, "confidence": float(v), "score": kind}
                              for kind in kinds for i, v in enumerate(scores[kind])])
        alt.Chart(table).mark_line(point=True).encode(x="position:Q", y="confidence:Q").facet(
            column="score:N").resolve_scale(y="independent")
        """)
