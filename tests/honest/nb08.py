"""Notebook 08's drawing cells, done in other correct ways (written from the task text alone)."""
from textwrap import dedent

from tests.honest import Honest

NOTEBOOK = "08_noise_without_a_mask.ipynb"

DATA = {
    "plot_changed_share": dedent("""\
        x0 = Encode(SCHRODINGER)
        ts = [k / 20 for k in range(21)]
        runs = repeats(1000)
        changed = [sum(float((ForwardUniform(x0, 1 - t, N_WORDS) != x0).float().mean()) for _ in range(runs)) / runs
                   for t in ts]
        theory = [t * (1 - 1 / N_WORDS) for t in ts]
        """),
    "plot_few_steps": dedent("""\
        Ts = [1, 2, 4, 8]
        runs = repeats(1000)
        uniform = [sum(Impossible(UniformTwo(UniformStep, T)) for _ in range(runs)) / runs for T in Ts]
        masks = [sum(Impossible(AbsorbingTwo(Undiffuse, T)) for _ in range(runs)) / runs for T in Ts]
        exact = [UniformExact(T)["impossible"] for T in Ts]
        lines = [0.32 / T for T in Ts]
        """),
}


def _alternatives(cell, prefix="", kind="matplotlib", **bodies):
    return [Honest(cell, name, prefix + dedent(body), kind) for name, body in bodies.items()]


HONEST = []

HONEST += _alternatives(
    "plot_changed_share",
    object_api="""\
        fig, ax = plt.subplots()
        ax.plot(ts, changed, "o-", label="measured")
        ax.plot(ts, theory, label="t(1 - 1/N)")
        ax.plot(ts, ts, "--", label="masked share (notebook 1)")
        ax.set_xlabel("t"); ax.set_ylabel("changed share"); ax.legend()
        """,
    percent="""\
        plt.plot(ts, [100 * c for c in changed], "x", label="uniform noise (%)")
        plt.plot(ts, [100 * v for v in theory], label="theory (%)")
        plt.plot(ts, [100 * t for t in ts], "k:", label="masks (%)")
        plt.xlabel("t"); plt.ylabel("tokens changed (%)"); plt.legend()
        """,
    axlines_for_theory="""\
        fig, ax = plt.subplots()
        ax.scatter(ts, changed, label="ForwardUniform")
        ax.axline((0, 0), slope=12 / 13, color="C1", label="slope 12/13")
        ax.axline((0, 0), (1, 1), color="k", ls="--", label="slope 1: masks")
        ax.set_xlim(0, 1)
        ax.set_xlabel("time t"); ax.set_ylabel("share changed"); ax.legend()
        """,
    bars_for_the_runs="""\
        plt.bar(ts, changed, width=0.03, alpha=0.6, label="measured")
        plt.plot(ts, theory, "r-", label="(1 - alpha)(1 - 1/13)")
        plt.plot(ts, ts, "g--", label="1 - alpha (masks)")
        plt.xlabel("t"); plt.ylabel("share"); plt.legend()
        """,
    error_bars="""\
        import math
        plt.errorbar(ts, changed, yerr=[math.sqrt(max(c * (1 - c), 1e-12) / (16 * runs)) for c in changed],
                     fmt="o", capsize=2, label="measured")
        plt.plot(ts, theory, label="theory")
        plt.plot(ts, ts, label="masked")
        plt.xlabel("t"); plt.ylabel("changed fraction"); plt.legend()
        """,
    torch_and_numpy="""\
        import numpy as np
        t_axis = np.linspace(0, 1, 21)
        plt.plot(t_axis, np.array(changed), "s", label="runs")
        plt.plot(t_axis, t_axis * (1 - 1 / 13), label="expected")
        plt.plot(t_axis, t_axis, label="notebook 1")
        plt.xlabel("t"); plt.ylabel("changed"); plt.legend(loc="upper left")
        """,
)
HONEST += _alternatives(
    "plot_changed_share", kind="pandas-seaborn",
    pandas_plot="""\
        import pandas as pd
        df = pd.DataFrame({"measured": changed, "t (1 - 1/13)": theory, "t (masks)": ts}, index=pd.Index(ts, name="t"))
        ax = df.plot(style=["o", "-", "--"])
        ax.set_ylabel("share of tokens changed")
        """,
    seaborn_lineplot_hue="""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame({"t": ts * 3, "share": changed + theory + ts,
                             "curve": ["measured"] * 21 + ["theory"] * 21 + ["masked"] * 21})
        ax = sns.lineplot(data=long, x="t", y="share", hue="curve", marker="o")
        ax.set(xlabel="t", ylabel="share")
        """,
    seaborn_scatter_and_lines="""\
        import seaborn as sns
        ax = sns.scatterplot(x=ts, y=changed, label="measured")
        sns.lineplot(x=ts, y=theory, ax=ax, label="t(1-1/13)")
        sns.lineplot(x=ts, y=ts, ax=ax, label="t")
        ax.set_xlabel("t"); ax.set_ylabel("changed share")
        """,
)
HONEST += _alternatives(
    "plot_changed_share", kind="plotly-altair",
    plotly_graph_objects="""\
        import plotly.graph_objects as go
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=ts, y=changed, mode="markers", name="measured"))
        fig.add_trace(go.Scatter(x=ts, y=theory, mode="lines", name="t (1 - 1/13)"))
        fig.add_trace(go.Scatter(x=ts, y=ts, mode="lines", line=dict(dash="dash"), name="t"))
        fig.update_layout(xaxis_title="t", yaxis_title="share changed")
        fig.show()
        """,
    plotly_express_long_table="""\
        import pandas as pd
        import plotly.express as px
        table = pd.DataFrame({"t": ts * 3, "share": changed + theory + ts,
                              "curve": ["measured"] * 21 + ["theory"] * 21 + ["masks"] * 21})
        px.line(table, x="t", y="share", color="curve", markers=True)
        """,
    altair_folded_with_a_legend="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"t": ts, "measured": changed, "t (1 - 1/13)": theory, "t (masks)": ts})
        alt.Chart(table).transform_fold(["measured", "t (1 - 1/13)", "t (masks)"], as_=["curve", "share"]).mark_line(
            point=True).encode(x=alt.X("t:Q", title="t"), y=alt.Y("share:Q", title="share changed"), color="curve:N")
        """,
)

HONEST += _alternatives(
    "plot_few_steps",
    object_api="""\
        fig, ax = plt.subplots()
        ax.loglog(Ts, uniform, "o", label="uniform, measured")
        ax.loglog(Ts, exact, "-", label="uniform, exact")
        ax.loglog(Ts, masks, "s", label="masks, measured")
        ax.loglog(Ts, lines, "--", label="0.32/T")
        ax.set_xlabel("T"); ax.set_ylabel("impossible share"); ax.legend()
        """,
    log_scales_set="""\
        plt.plot(Ts, masks, "o-", label="absorbing (measured)")
        plt.plot(Ts, uniform, "o-", label="uniform (measured)")
        plt.plot(Ts, lines, "k--", label="absorbing exact")
        plt.plot(Ts, exact, "k-", label="uniform exact")
        plt.xscale("log"); plt.yscale("log")
        plt.xlabel("steps"); plt.ylabel("P(impossible)"); plt.legend()
        """,
    percent="""\
        plt.loglog(Ts, [100 * v for v in uniform], "o", label="uniform %")
        plt.loglog(Ts, [100 * v for v in masks], "s", label="masks %")
        plt.loglog(Ts, [100 * v for v in exact], "-", label="uniform exact %")
        plt.loglog(Ts, [32 / T for T in Ts], "--", label="32 / T %")
        plt.xlabel("T"); plt.ylabel("impossible sentences (%)"); plt.legend()
        """,
    axline_for_one_over_t="""\
        fig, ax = plt.subplots()
        ax.loglog(Ts, uniform, "o", label="uniform noise")
        ax.loglog(Ts, masks, "^", label="masks")
        ax.loglog(Ts, exact, label="UniformExact")
        ax.axline((1, 0.32), (8, 0.04), color="k", ls="--", label="0.32/T")
        ax.set_xlim(0.8, 10)
        ax.set_xlabel("T"); ax.set_ylabel("impossible"); ax.legend()
        """,
    two_panels="""\
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
        left.loglog(Ts, uniform, "o", label="measured"); left.loglog(Ts, exact, "-", label="exact")
        left.set_title("uniform noise"); left.set_xlabel("T"); left.set_ylabel("impossible share"); left.legend()
        right.loglog(Ts, masks, "o", label="measured"); right.loglog(Ts, lines, "--", label="0.32/T")
        right.set_title("masks"); right.set_xlabel("T"); right.legend()
        """,
    error_bars="""\
        import numpy as np
        for name, values in (("uniform", uniform), ("masks", masks)):
            p = np.array(values)
            plt.errorbar(Ts, p, yerr=np.sqrt(p * (1 - p) / runs), fmt="o", capsize=3, label=f"{name}, measured")
        plt.plot(Ts, exact, "-", label="uniform, exact")
        plt.plot(Ts, lines, "--", label="masks, exact")
        plt.xscale("log"); plt.yscale("log")
        plt.xlabel("T"); plt.ylabel("share of impossible sentences"); plt.legend()
        """,
)
HONEST += _alternatives(
    "plot_few_steps", kind="pandas-seaborn",
    pandas_loglog="""\
        import pandas as pd
        df = pd.DataFrame({"uniform": uniform, "masks": masks, "uniform exact": exact, "0.32/T": lines},
                          index=pd.Index(Ts, name="T"))
        ax = df.plot(loglog=True, style=["o", "s", "-", "--"])
        ax.set_ylabel("share of impossible sentences")
        """,
    seaborn_lineplot_hue="""\
        import pandas as pd
        import seaborn as sns
        long = pd.DataFrame({"T": Ts * 4, "share": uniform + masks + exact + lines,
                             "curve": ["uniform measured"] * 4 + ["masks measured"] * 4 + ["uniform exact"] * 4
                             + ["0.32/T"] * 4})
        ax = sns.lineplot(data=long, x="T", y="share", hue="curve", marker="o")
        ax.set(xscale="log", yscale="log", xlabel="T", ylabel="impossible share")
        """,
    seaborn_scatter_and_lines="""\
        import pandas as pd
        import seaborn as sns
        points = pd.DataFrame({"T": Ts * 2, "share": uniform + masks, "sampler": ["uniform"] * 4 + ["masks"] * 4})
        ax = sns.scatterplot(data=points, x="T", y="share", hue="sampler", s=60)
        ax.plot(Ts, exact, color="C0", label="uniform exact")
        ax.plot(Ts, lines, color="C1", ls="--", label="0.32 / T")
        ax.set_xscale("log"); ax.set_yscale("log"); ax.set_xlabel("T"); ax.set_ylabel("impossible"); ax.legend()
        """,
)
HONEST += _alternatives(
    "plot_few_steps", kind="plotly-altair",
    plotly_graph_objects="""\
        import plotly.graph_objects as go
        fig = go.Figure()
        fig.add_trace(go.Scatter(x=Ts, y=uniform, mode="markers", name="uniform measured"))
        fig.add_trace(go.Scatter(x=Ts, y=masks, mode="markers", name="masks measured"))
        fig.add_trace(go.Scatter(x=Ts, y=exact, mode="lines", name="uniform exact"))
        fig.add_trace(go.Scatter(x=Ts, y=lines, mode="lines", line=dict(dash="dash"), name="0.32/T"))
        fig.update_xaxes(type="log", title_text="T")
        fig.update_yaxes(type="log", title_text="impossible share")
        fig.show()
        """,
    plotly_express_long_table="""\
        import pandas as pd
        import plotly.express as px
        table = pd.DataFrame({"T": Ts * 4, "share": uniform + masks + exact + lines,
                              "curve": ["uniform"] * 4 + ["masks"] * 4 + ["uniform exact"] * 4 + ["0.32 / T"] * 4})
        px.line(table, x="T", y="share", color="curve", markers=True, log_x=True, log_y=True,
                labels={"share": "share of impossible sentences"})
        """,
    altair_log_log="""\
        import altair as alt
        import pandas as pd
        rows = [{"T": T, "share": v, "curve": name} for name, values in
                (("uniform measured", uniform), ("masks measured", masks), ("uniform exact", exact), ("0.32/T", lines))
                for T, v in zip(Ts, values)]
        log = alt.Scale(type="log")
        alt.Chart(pd.DataFrame(rows)).mark_line(point=True).encode(
            x=alt.X("T", scale=log), y=alt.Y("share", scale=log, title="impossible share"), color="curve")
        """,
)
