"""Notebook 04's drawing and printout cells, drawn in other correct ways (written from the task text)."""
from textwrap import dedent

from tests.honest import Honest

NOTEBOOK = "04_training.ipynb"

DATA = {
    "plot_two_sentence_loss": dedent("""\
        torch.manual_seed(0)
        net = TinyDenoiser(len(vocab), dim=32, heads=2, layers=2)
        steps = training_steps(1500, 1500, 200)
        two_batch = lambda: torch.stack([SamplePInit_two() for _ in range(64)])
        losses = Train(net, DiffusionLoss, two_batch, MASK, steps, desc="two sentences")
        entropy = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2))
        """),
    "show_bayes_comparison": dedent("""\
        GuessNet = MakeGuesser(net)
        cat, box = vocab.index("cat"), vocab.index("box")
        sentences = ["_ _ _ _", "_ _ is alive", "the _ _ empty"]
        """),
    "plot_net_sentence_bars": dedent("""\
        def net_sentence():
            x = torch.full((4,), MASK)
            for t in range(20, 0, -1):
                x = Undiffuse(x, t, GuessNet, MASK)
            return x

        outcomes = Tally(net_sentence, 1000)
        total = sum(outcomes.values())
        truth = {"the cat is alive": 0.8, "the box is empty": 0.2}

        def top_with_real(k):
            top = [s for s, _ in outcomes.most_common(k)]
            return top + [s for s in truth if s not in top]
        """),
    "show_untrained_story": dedent("""\
        torch.manual_seed(0)
        story_net = TinyDenoiser(len(story_vocab)).to(device)
        GuessStory = MakeGuesser(story_net, forbidden=[STORY_MASK, STORY_UNK])
        n_params = sum(p.numel() for p in story_net.parameters())
        """),
    "plot_story_loss": dedent("""\
        steps = training_steps(5000, 1500, 20)
        story_losses = Train(story_net, DiffusionLoss, GetBatch, STORY_MASK, steps, desc="stories")
        per_token = [loss / 32 for loss in story_losses]
        """),
    "show_prompt_stories": dedent("""\
        start = "once upon a time , there was a little dog named"
        begin, end = "one day , lily went to the park .", "and they were all happy ."
        """),
}


def _alternatives(cell, prefix="", kind="matplotlib", **bodies):
    return [Honest(cell, name, prefix + dedent(body), kind) for name, body in bodies.items()]


HONEST = []

HONEST += _alternatives(
    "plot_two_sentence_loss",
    given_PlotLoss_literal_level="""\
        PlotLoss(losses, lines=[(0.5, "entropy")])
        """,
    pyplot_convolve_valid="""\
        import numpy as np
        values = np.array(losses)
        smooth = np.convolve(values, np.ones(100) / 100, mode="valid")
        plt.figure()
        plt.plot(values, alpha=0.3, label="loss")
        plt.plot(np.arange(99, len(values)), smooth, label="running mean (100)")
        plt.axhline(entropy, color="k", linestyle=":", label="entropy 0.50")
        plt.xlabel("step"); plt.ylabel("loss"); plt.legend(); plt.show()
        """,
    object_api_hlines_average_only="""\
        fig, ax = plt.subplots()
        smooth = WindowAverage(losses, 100)
        ax.plot(range(1, len(losses) + 1), smooth.numpy(), color="C0", label="loss, 100-step average")
        ax.hlines(entropy, 1, len(losses), colors="r", linestyles="dashed", label="entropy")
        ax.set_xlabel("training step"); ax.set_ylabel("average loss"); ax.set_title("two sentences")
        ax.legend(); ax.grid(True)
        plt.show()
        """,
    axline_level="""\
        fig, ax = plt.subplots()
        ax.plot(losses, lw=0.5, color="lightgray", label="each step")
        ax.plot(WindowAverage(losses, 100), lw=2, label="window of 100")
        ax.axline((0, entropy), slope=0, color="green", ls="-.", label=f"entropy {entropy:.2f}")
        ax.set(xlabel="step", ylabel="diffusion loss")
        ax.legend()
        """,
    level_as_two_points_unfold="""\
        smooth = torch.tensor(losses).unfold(0, 100, 1).mean(dim=1)
        plt.plot(torch.arange(100, len(losses) + 1), smooth, label="mean of the last 100 steps")
        plt.plot([0, len(losses)], [entropy, entropy], "k--", label="entropy")
        plt.xlabel("step"); plt.ylabel("loss"); plt.legend()
        """,
    two_panels_raw_and_average="""\
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
        left.plot(losses, alpha=0.5); left.set_title("every step")
        left.set_xlabel("step"); left.set_ylabel("loss")
        right.plot(WindowAverage(losses, 100))
        right.axhline(entropy, color="C3", ls=":", label="entropy 0.50")
        right.set_title("average over 100 steps"); right.set_xlabel("step"); right.legend()
        plt.show()
        """,
    log_scale_level_named_by_text="""\
        import numpy as np
        avg = [np.mean(losses[max(0, i - 99): i + 1]) for i in range(len(losses))]
        plt.semilogy(avg, label="running average")
        plt.axhline(entropy, color="k", lw=1)
        plt.text(0, entropy * 1.05, "entropy 0.50")
        plt.xlabel("step"); plt.ylabel("loss (log scale)"); plt.legend()
        """,
    centred_window="""\
        half = 50
        centred = []
        for i in range(len(losses)):
            part = losses[max(0, i - half): i + half]
            centred.append(sum(part) / len(part))
        plt.plot(losses, ".", ms=2, alpha=0.4, label="loss of each batch")
        plt.plot(centred, "C1", label="centred average, 100 steps")
        plt.axhline(0.5004, color="gray", ls="--", label="entropy")
        plt.xlabel("step"); plt.ylabel("loss"); plt.title("two sentences"); plt.legend()
        """,
)
HONEST += _alternatives(
    "plot_two_sentence_loss",
    ema_of_the_loss="""\
        # an exponential moving average of about 100 steps stands in for the window average
        ema, smooth = losses[0], []
        for value in losses:
            ema = 0.99 * ema + 0.01 * value
            smooth.append(ema)
        plt.plot(losses, alpha=0.3, label="loss")
        plt.plot(smooth, label="exponential moving average (0.99)")
        plt.axhline(entropy, color="k", ls="--", label="entropy")
        plt.xlabel("step"); plt.ylabel("loss"); plt.legend(); plt.show()
        """,
)
HONEST += _alternatives(
    "plot_two_sentence_loss", kind="pandas-seaborn",
    pandas_ewm_span_100_alone="""\
        import pandas as pd
        ax = pd.Series(losses).ewm(span=100).mean().plot(label="loss, EMA over ~100 steps")
        ax.axhline(entropy, color="r", ls=":", label="entropy 0.50")
        ax.set_xlabel("step"); ax.set_ylabel("loss"); ax.legend()
        """,
)
# A whole cell with its own training loop (no shared prelude): the loop a student writes by hand.
HONEST.append(Honest("plot_two_sentence_loss", "own_training_loop", dedent("""\
    torch.manual_seed(1)
    model = TinyDenoiser(len(vocab), dim=32, heads=2, layers=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for step in range(training_steps(1500, 1500, 200)):
        x_0 = torch.stack([SamplePInit_two() for _ in range(64)])
        loss = DiffusionLoss(model, x_0, MASK)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        history.append(loss.item())
    import numpy as np
    h = np.array(history)
    window = 100
    running = np.array([h[max(0, i - window + 1): i + 1].mean() for i in range(len(h))])
    plt.plot(running, label=f"{window}-step running mean")
    plt.axhline(0.5, ls="--", c="gray", label="entropy")
    plt.xlabel("iteration"); plt.ylabel("loss"); plt.legend(); plt.show()
    net = model
    """)))

HONEST += _alternatives(
    "show_bayes_comparison",
    network_line_then_bayes_line="""\
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            print(f"x_t = {s}")
            print(f"  network : P(cat) = {n[cat]:.3f}  P(box) = {n[box]:.3f}")
            print(f"  Bayes   : P(cat) = {b[cat]:.3f}  P(box) = {b[box]:.3f}")
        """,
    percentage_table="""\
        print("sentence        | net cat | net box | Bayes cat | Bayes box")
        for s in sentences:
            n, b = GuessNet(Encode(s))[1], GuessX0_two(Encode(s))[1]
            print(f"{s:15s} | {100 * n[cat]:6.1f}% | {100 * n[box]:6.1f}% | {100 * b[cat]:8.1f}% | {100 * b[box]:8.1f}%")
        """,
    bayes_first_with_equals="""\
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            print(f"{s!r}: Bayes cat={b[cat]:.2f} box={b[box]:.2f}; net cat={n[cat]:.2f} box={n[box]:.2f}")
        """,
    tensors_printed="""\
        for s in sentences:
            x = Encode(s)
            print(s, "| net:", GuessNet(x)[1, [cat, box]], "| Bayes:", GuessX0_two(x)[1, [cat, box]])
        """,
    one_line_per_word="""\
        for s in sentences:
            x = Encode(s)
            for word in ("cat", "box"):
                i = vocab.index(word)
                print(f"{s:14s} {word}: network {float(GuessNet(x)[1, i]):.4f}   Bayes {float(GuessX0_two(x)[1, i]):.4f}")
        """,
    box_columns_first="""\
        print("x_t".ljust(16), "P_net(box)  P_Bayes(box)  P_net(cat)  P_Bayes(cat)")
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            print(s.ljust(16), f"{n[box]:10.3f}  {b[box]:12.3f}  {n[cat]:10.3f}  {b[cat]:12.3f}")
        """,
    dict_rounded="""\
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            print(s, {"net": {"cat": round(float(n[cat]), 3), "box": round(float(n[box]), 3)},
                      "bayes": {"cat": round(float(b[cat]), 3), "box": round(float(b[box]), 3)}})
        """,
    versus_two_decimals="""\
        print("probabilities at position 2 (the second word)")
        for s in sentences:
            x = Encode(s)
            net_p, bayes_p = GuessNet(x)[1], GuessX0_two(x)[1]
            print(f'"{s}":  cat {net_p[cat]:.2f} (net) vs {bayes_p[cat]:.2f} (Bayes),  '
                  f'box {net_p[box]:.2f} (net) vs {bayes_p[box]:.2f} (Bayes)')
        """,
    softmax_of_the_network="""\
        print(f"{'':15s}{'network':>16s}{'exact':>16s}")
        print(f"{'x_t':15s}{'cat':>8s}{'box':>8s}{'cat':>8s}{'box':>8s}")
        for s in sentences:
            x = Encode(s)
            with torch.no_grad():
                p = torch.softmax(net(x[None])[0, 1], dim=-1)
            q = GuessX0_two(x)[1]
            print(f"{s:15s}{p[cat]:8.3f}{p[box]:8.3f}{q[cat]:8.3f}{q[box]:8.3f}")
        """,
)

HONEST += _alternatives(
    "plot_net_sentence_bars",
    vertical_bars_with_markers="""\
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        x = range(len(names))
        plt.figure(figsize=(8, 4))
        plt.bar(x, shares, label="network")
        plt.scatter(x, [truth.get(n, 0) for n in names], color="red", marker="_", s=400, label="p_init", zorder=3)
        plt.xticks(x, names, rotation=30, ha="right")
        plt.ylabel("fraction"); plt.xlabel("sentence"); plt.legend(); plt.tight_layout()
        """,
    grouped_bars_network_and_p_init="""\
        import numpy as np
        top = top_with_real(5)
        names = top + ["other"]
        net_share = np.array([outcomes[s] for s in top] + [total - sum(outcomes[s] for s in top)]) / total
        p_init = np.array([truth.get(n, 0.0) for n in names])
        x = np.arange(len(names))
        fig, ax = plt.subplots()
        ax.bar(x - 0.2, net_share, width=0.4, label="trained network")
        ax.bar(x + 0.2, p_init, width=0.4, label="p_init")
        ax.set_xticks(x); ax.set_xticklabels(names, rotation=45, ha="right")
        ax.set_ylabel("probability"); ax.legend()
        """,
    horizontal_percent_with_vlines="""\
        top = top_with_real(3)
        names = top + ["other"]
        pct = [100 * outcomes[s] / total for s in top] + [100 * (total - sum(outcomes[s] for s in top)) / total]
        fig, ax = plt.subplots()
        ax.barh(names, pct, color="C2", label="network (T = 20)")
        for i, n in enumerate(names):
            if n in truth:
                ax.vlines(100 * truth[n], i - 0.4, i + 0.4, colors="k", lw=3,
                          label="p_init" if n == "the cat is alive" else None)
        ax.set_xlabel("% of sentences"); ax.invert_yaxis(); ax.legend()
        """,
    counts_with_p_init_times_total="""\
        top = top_with_real(4)
        names = top + ["other"]
        counts = [outcomes[s] for s in top] + [total - sum(outcomes[s] for s in top)]
        plt.bar(names, counts, label=f"count out of {total}")
        plt.plot(names, [truth.get(n, 0) * total for n in names], "kD", label="p_init x total")
        plt.ylabel("number of sentences"); plt.xticks(rotation=20); plt.legend()
        """,
    tick_label_and_stem="""\
        top = top_with_real(5)
        names = top + ["other"]
        heights = [outcomes[s] / total for s in top] + [sum(v for s, v in outcomes.items() if s not in top) / total]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar(range(len(names)), heights, tick_label=names, alpha=0.7, label="sampled")
        real = [i for i, n in enumerate(names) if n in truth]
        ax.stem(real, [truth[names[i]] for i in real], linefmt="r-", markerfmt="ro", basefmt=" ", label="p_init")
        ax.set_ylabel("share"); ax.tick_params(axis="x", rotation=30); ax.legend()
        """,
    p_init_as_short_hlines="""\
        top = top_with_real(5)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [(total - sum(outcomes[s] for s in top)) / total]
        fig, ax = plt.subplots()
        ax.bar(range(len(names)), shares, color="lightsteelblue", label="network")
        for i, n in enumerate(names):
            if n in truth:
                ax.hlines(truth[n], i - 0.4, i + 0.4, colors="k", linestyles="--", label="p_init" if i == 0 else None)
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_ylabel("fraction of the 1000 sentences"); ax.legend()
        """,
    torch_heights_star_markers="""\
        top = top_with_real(3)
        names = top + ["other"]
        counts = torch.tensor([outcomes[s] for s in top] + [total - sum(outcomes[s] for s in top)], dtype=torch.float)
        x = torch.arange(len(names))
        plt.bar(x, counts / counts.sum(), width=0.6, label="trained network, T = 20")
        real = [i for i, n in enumerate(names) if n in truth]
        plt.plot(real, [truth[names[i]] for i in real], "r*", ms=14, label="p_init")
        plt.xticks(x, names, rotation=15)
        plt.ylabel("frequency"); plt.title("sentences from the trained network"); plt.legend()
        """,
    grouped_horizontal_bars="""\
        import numpy as np
        top = top_with_real(4)
        names = top + ["other"]
        net_share = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        y = np.arange(len(names))
        fig, ax = plt.subplots()
        ax.barh(y - 0.2, net_share, height=0.4, label="network")
        ax.barh(y + 0.2, [truth.get(n, 0) for n in names], height=0.4, label="p_init")
        ax.set_yticks(y, names)
        ax.set_xlabel("probability"); ax.legend()
        """,
    errorbar_ticks_without_data="""\
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        fig, ax = plt.subplots()
        ax.bar(range(len(names)), shares, color="silver", label="network")
        real = [names.index(s) for s in truth]
        ax.errorbar(real, [truth[s] for s in truth], xerr=0.4, fmt="none", ecolor="crimson", elinewidth=3,
                    label="p_init")
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
        ax.set_ylabel("share"); ax.legend()
        """,
    barh_with_axvlines="""\
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        plt.barh(names[::-1], shares[::-1], label="network")
        plt.axvline(truth["the cat is alive"], color="k", ls="--", label="p_init: the cat is alive")
        plt.axvline(truth["the box is empty"], color="k", ls=":", label="p_init: the box is empty")
        plt.xlabel("share of the sentences"); plt.legend()
        """,
    plot_with_underscore_markers="""\
        top = top_with_real(4)
        names = top + ["other"]
        counts = [outcomes[s] for s in top] + [total - sum(outcomes[s] for s in top)]
        fig, ax = plt.subplots()
        ax.bar(names, counts, label="network")
        ax.plot(list(truth), [p * total for p in truth.values()], "_", color="r", ms=40, mew=3, label="p_init x total")
        ax.set_ylabel("sentences"); ax.tick_params(axis="x", rotation=30); ax.legend()
        """,
    p_init_as_axhlines="""\
        top = top_with_real(5)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [(total - sum(outcomes[s] for s in top)) / total]
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.bar(names, shares, edgecolor="k", label="network")
        ax.axhline(0.8, color="C1", ls="--", label="p_init(the cat is alive) = 0.8")
        ax.axhline(0.2, color="C2", ls=":", label="p_init(the box is empty) = 0.2")
        ax.set_ylabel("fraction"); ax.tick_params(axis="x", labelrotation=30); ax.legend()
        """,
)

HONEST += _alternatives(
    "show_untrained_story",
    raw_count="""\
        print(f"{n_params} parameters")
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(StoryText(x))
        """,
    one_point_three_M="""\
        print(f"size: {n_params / 1e6:.1f}M parameters")
        x = torch.full((32,), STORY_MASK)
        for t in reversed(range(1, 33)):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(StoryText(x))
        """,
    commas_and_millions="""\
        print(f"The network has {n_params:,} parameters ({n_params / 1e6:.2f} million).")
        x = torch.full((32,), STORY_MASK, dtype=torch.long)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(StoryText(x))
        """,
    words_million_story_prefix="""\
        print(f"{n_params / 1e6:.1f} million parameters")
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print("story:", StoryText(x))
        """,
    story_first_then_size="""\
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(StoryText(x))
        print("params (M):", round(n_params / 1e6, 2))
        """,
    thousands="""\
        print(f"parameters: {n_params / 1000:.0f} thousand ({n_params / 1e6:.3f} M)")
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(" ".join(story_vocab[i] for i in x.tolist()))
        """,
    helper_with_size_label="""\
        def write(length=32, T=32):
            x = torch.full((length,), STORY_MASK)
            for t in range(T, 0, -1):
                x = Undiffuse(x, t, GuessStory, STORY_MASK)
            return StoryText(x)

        print(f"Model size: {n_params / 1e6:.2f} M parameters")
        print(write())
        """,
    quoted_story="""\
        total = 0
        for p in story_net.parameters():
            total += p.numel()
        print(f"about {total / 1e6:.1f} million parameters")
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        print(f'untrained story: "{StoryText(x)}"')
        """,
)

HONEST += _alternatives(
    "plot_story_loss",
    given_PlotLoss="""\
        PlotLoss(story_losses, scale=32, ylabel="loss / token",
                 lines=[(NO_IDEA, "uniform"), (WORD_FREQUENCIES, "unigram")])
        """,
    pyplot_dotted_and_dashdot="""\
        plt.plot(per_token, alpha=0.3, label="loss per token")
        plt.plot(WindowAverage(per_token, 100), label="running average")
        plt.axhline(NO_IDEA, ls=":", color="r", label="uniform guess")
        plt.axhline(WORD_FREQUENCIES, ls="-.", color="g", label="word frequencies")
        plt.xlabel("step"); plt.ylabel("loss per token"); plt.legend()
        """,
    hlines_both_levels_at_once="""\
        fig, ax = plt.subplots()
        ax.plot(WindowAverage(per_token, 100), label="loss per token (running average)")
        ax.hlines([NO_IDEA, WORD_FREQUENCIES], 0, len(per_token) - 1, colors=["r", "g"],
                  linestyles=["dotted", "dashed"], label="levels")
        ax.set_xlabel("step"); ax.set_ylabel("nats per token"); ax.legend()
        """,
    axline_levels="""\
        fig, ax = plt.subplots()
        ax.plot(per_token, color="C0", alpha=0.25)
        ax.plot(WindowAverage(per_token, 100), color="C0", label="average")
        ax.axline((0, NO_IDEA), (1, NO_IDEA), color="C3", label="log |V|")
        ax.axline((0, WORD_FREQUENCIES), slope=0, color="C2", ls="--", label="word frequencies")
        ax.set_xlabel("training step"); ax.set_ylabel("loss per token"); ax.legend()
        """,
    constant_lines_plotted="""\
        n = len(per_token)
        plt.plot(range(n), WindowAverage(per_token, 100), label="loss per token")
        plt.plot(range(n), [NO_IDEA] * n, "--", label=f"uniform guess {NO_IDEA:.2f}")
        plt.plot(range(n), [WORD_FREQUENCIES] * n, "--", label=f"word frequencies {WORD_FREQUENCIES:.2f}")
        plt.xlabel("step"); plt.ylabel("loss / token"); plt.legend()
        """,
    two_panels="""\
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
        axes[0].plot(per_token); axes[0].set_title("loss per token, each step")
        axes[0].set_xlabel("step"); axes[0].set_ylabel("loss per token")
        axes[1].plot(WindowAverage(per_token, 100), label="running average")
        axes[1].axhline(NO_IDEA, color="k", ls="--", label="uniform")
        axes[1].axhline(WORD_FREQUENCIES, color="gray", ls="--", label="word frequencies")
        axes[1].set_xlabel("step"); axes[1].set_ylabel("loss per token"); axes[1].legend()
        """,
    log_y="""\
        plt.semilogy(WindowAverage(per_token, 100), label="running average")
        plt.axhline(NO_IDEA, c="r", label="no idea")
        plt.axhline(WORD_FREQUENCIES, c="g", label="word frequencies")
        plt.xlabel("step"); plt.ylabel("loss per token"); plt.legend()
        """,
    torch_cumsum_from_step_one="""\
        y = torch.tensor(story_losses) / 32
        c = torch.cat([torch.zeros(1), y.cumsum(0)])
        i = torch.arange(1, len(y) + 1)
        running = (c[i] - c[(i - 100).clamp(min=0)]) / (i - (i - 100).clamp(min=0))
        plt.plot(i, y, lw=0.5, alpha=0.4, label="per step")
        plt.plot(i, running, lw=2, label="running mean")
        plt.axhline(NO_IDEA, ls="--", color="C3", label="uniform guess")
        plt.axhline(WORD_FREQUENCIES, ls="--", color="C2", label="unigram entropy")
        plt.xlabel("step"); plt.ylabel("loss per token"); plt.title("stories"); plt.legend()
        """,
    levels_named_by_text="""\
        fig, ax = plt.subplots()
        ax.plot(WindowAverage(per_token, 100), color="k")
        for level, name in ((NO_IDEA, "uniform guess"), (WORD_FREQUENCIES, "word frequencies")):
            ax.axhline(level, color="C1", lw=1, ls=(0, (5, 2)))
            ax.text(0, level + 0.05, f"{name} {level:.2f}")
        ax.set_xlabel("step"); ax.set_ylabel("loss per token")
        """,
)

_FILL = """\
def fill(x, T=32, step=Undiffuse):
    x = x.clone()
    for t in range(T, 0, -1):
        x = step(x, t, GuessStory, STORY_MASK)
    return StoryText(x)

b, e = StoryTokens(begin), StoryTokens(end)
p1 = torch.cat([StoryTokens(start), torch.full((32 - len(StoryTokens(start)),), STORY_MASK)])
p2 = torch.cat([b, torch.full((32 - len(b) - len(e),), STORY_MASK), e])
p3 = torch.full((32,), STORY_MASK)
p3[12], p3[20] = StoryTokens("dragon")[0], StoryTokens("cake")[0]
"""

HONEST += _alternatives(
    "show_prompt_stories", prefix=_FILL,
    numbered="""\
        for k, p in enumerate([p1, p2, p3], 1):
            print(f"prompt {k}:")
            for j in range(3):
                print(f"  {j + 1}. {fill(p)}")
        """,
    greedy_with_headers="""\
        for name, p in [("starts with a dog", p1), ("beginning and end", p2), ("dragon and cake", p3)]:
            print(f"=== {name} ===")
            for _ in range(3):
                print(fill(p, step=UndiffuseGreedy))
        """,
    temperature_and_prompt_text="""\
        hot = lambda x, t, g, m: Undiffuse(x, t, lambda y: AtTemperature(g(y), 0.8), m)
        n1, n2, n3 = (len(StoryTokens(s)) for s in (start, begin, end))
        texts = [start + " _" * (32 - n1),
                 begin + " _" * (32 - n2 - n3) + " " + end,
                 "_ " * 10 + "dragon " + "_ " * 8 + "cake" + " _" * 12]
        for text in texts:
            print("prompt:", text)
            for _ in range(3):
                print("   ->", WriteStory(StoryTokens(text), 32, hot))
        """,
    fewer_steps_story_prefix="""\
        for p in (p1, p2, p3):
            for _ in range(3):
                print("story:", fill(p, T=16))
            print()
        """,
    bare_lines="""\
        for p in (p1, p2, p3):
            for _ in range(3):
                print(fill(p))
        """,
    prompt_and_story_index="""\
        for i, p in enumerate((p1, p2, p3)):
            for j in range(3):
                print(f"prompt {i + 1}, story {j + 1}: {fill(p)}")
        """,
    adjacent_dragon_cake="""\
        def fill(x, T=32):
            for t in range(T, 0, -1):
                x = Undiffuse(x, t, GuessStory, STORY_MASK)
            return StoryText(x)

        m = STORY_MASK
        dog = StoryTokens(start).tolist()
        ends = StoryTokens(begin).tolist(), StoryTokens(end).tolist()
        canvases = [dog + [m] * (32 - len(dog)),
                    ends[0] + [m] * (32 - len(ends[0]) - len(ends[1])) + ends[1],
                    [m] * 14 + StoryTokens("dragon cake").tolist() + [m] * 16]
        for canvas in canvases:
            print("prompt:", StoryText(torch.tensor(canvas)))
            for _ in range(3):
                print("  " + fill(torch.tensor(canvas)))
        """,
    quoted="""\
        for p in (p1, p2, p3):
            stories = [fill(p) for _ in range(3)]
            for s in stories:
                print(f'"{s}"')
        """,
)

# Drawn with pandas and seaborn (Colab has both), and shown without print (a cell's last expression,
# display(...)), as students who know those tools would.
HONEST += _alternatives(
    "plot_two_sentence_loss", kind="pandas-seaborn",
    pandas_series_rolling_beside_raw="""\
        import pandas as pd
        loss = pd.Series(losses, name="loss")
        ax = loss.plot(alpha=0.3, figsize=(7, 4), label="each step")
        loss.rolling(100).mean().plot(ax=ax, lw=2, label="rolling mean, 100 steps")
        ax.axhline(entropy, color="k", ls="--", label=f"entropy {entropy:.2f}")
        ax.set_xlabel("step"); ax.set_ylabel("loss"); ax.legend()
        plt.show()
        """,
    dataframe_plot_min_periods="""\
        import pandas as pd
        df = pd.DataFrame({"loss": losses})
        df["running mean (100)"] = df["loss"].rolling(window=100, min_periods=1).mean()
        ax = df.plot(xlabel="training step", ylabel="diffusion loss", title="two sentences")
        ax.axhline(entropy, color="red", linestyle=":", label="entropy 0.50")
        ax.legend()
        """,
    seaborn_lineplot_long_form_hue="""\
        import pandas as pd
        import seaborn as sns
        df = pd.DataFrame({"step": range(len(losses)), "each step": losses})
        df["average of 100 steps"] = df["each step"].rolling(100, min_periods=1).mean()
        long = df.melt(id_vars="step", var_name="curve", value_name="loss")
        ax = sns.lineplot(data=long, x="step", y="loss", hue="curve")
        ax.axhline(entropy, color="gray", ls="--", label="entropy")
        ax.legend()
        plt.show()
        """,
    seaborn_lineplot_average_only="""\
        import numpy as np
        import pandas as pd
        import seaborn as sns
        smooth = pd.Series(losses).rolling(100, min_periods=1).mean()
        sns.lineplot(x=np.arange(len(losses)), y=smooth.values, errorbar=None, label="loss, 100-step average")
        plt.axhline(entropy, ls="--", c="C3", label="entropy of p_init")
        plt.xlabel("step"); plt.ylabel("loss"); plt.legend()
        """,
    seaborn_scatter_raw_line_average="""\
        import pandas as pd
        import seaborn as sns
        df = pd.DataFrame({"step": range(1, len(losses) + 1), "loss": losses})
        df["running mean"] = df["loss"].rolling(100, min_periods=1).mean()
        fig, ax = plt.subplots(figsize=(8, 4))
        sns.scatterplot(data=df, x="step", y="loss", s=8, alpha=0.3, ax=ax, label="loss of one batch")
        sns.lineplot(data=df, x="step", y="running mean", ax=ax, color="C1", label="running mean over 100 steps")
        ax.axhline(entropy, color="k", ls="--", label="entropy 0.50")
        ax.set_ylabel("loss"); ax.legend()
        """,
    pandas_subplots_raw_and_average="""\
        import pandas as pd
        s = pd.Series(losses)
        df = pd.DataFrame({"loss": s, "loss, mean of 100 steps": s.rolling(100, min_periods=1).mean()})
        axes = df.plot(subplots=True, figsize=(7, 6), xlabel="step", ylabel="loss")
        for ax in axes:
            ax.axhline(entropy, color="k", ls=":", label="entropy")
        plt.tight_layout()
        """,
)

HONEST += _alternatives(
    "show_bayes_comparison", kind="shown",
    rows_as_the_last_expression="""\
        rows = [("x_t", "net cat", "net box", "Bayes cat", "Bayes box")]
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            rows.append((s, round(float(n[cat]), 3), round(float(n[box]), 3),
                         round(float(b[cat]), 3), round(float(b[box]), 3)))
        rows
        """,
    display_imported_one_line_each="""\
        from IPython.display import display
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            display(f"{s}: network cat {n[cat]:.3f} box {n[box]:.3f} | Bayes cat {b[cat]:.3f} box {b[box]:.3f}")
        """,
)
HONEST += _alternatives(
    "show_bayes_comparison", kind="pandas-seaborn",
    dataframe_last_expression="""\
        import pandas as pd
        table = pd.DataFrame(
            [[float(GuessNet(Encode(s))[1, cat]), float(GuessNet(Encode(s))[1, box]),
              float(GuessX0_two(Encode(s))[1, cat]), float(GuessX0_two(Encode(s))[1, box])] for s in sentences],
            index=sentences, columns=["net cat", "net box", "Bayes cat", "Bayes box"])
        table.index.name = "x_t"
        table.round(3)
        """,
)

HONEST += _alternatives(
    "plot_net_sentence_bars", kind="pandas-seaborn",
    pandas_grouped_bars="""\
        import pandas as pd
        top = top_with_real(5)
        counts = pd.Series(outcomes, dtype=float)
        table = pd.DataFrame({"network": [counts.get(s, 0) / total for s in top]
                                         + [counts.drop(top, errors="ignore").sum() / total],
                              "p_init": [truth.get(s, 0.0) for s in top] + [0.0]},
                             index=top + ["other"])
        ax = table.plot.bar(rot=30, figsize=(8, 4))
        ax.set_ylabel("share of the sentences")
        plt.tight_layout()
        """,
    value_counts_barh_percent="""\
        import pandas as pd
        keep = top_with_real(4)
        made = pd.Series(list(outcomes.elements()))
        made = made.where(made.isin(keep), "other")
        pct = (made.value_counts(normalize=True) * 100).reindex(keep + ["other"], fill_value=0)
        ax = pct.plot.barh(color="C0", label="network, T = 20")
        real = [keep.index(s) for s in truth]
        ax.plot([100 * truth[s] for s in truth], real, "r|", ms=20, mew=3, label="p_init")
        ax.invert_yaxis()
        ax.set_xlabel("% of the sentences"); ax.legend()
        """,
    seaborn_barplot_hue_long_form="""\
        import pandas as pd
        import seaborn as sns
        top = top_with_real(5)
        names = top + ["other"]
        share = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        rows = [{"sentence": n, "source": "network", "probability": v} for n, v in zip(names, share)]
        rows += [{"sentence": n, "source": "p_init", "probability": p} for n, p in truth.items()]
        ax = sns.barplot(data=pd.DataFrame(rows), x="sentence", y="probability", hue="source", order=names)
        ax.tick_params(axis="x", rotation=30)
        plt.tight_layout()
        """,
    seaborn_countplot_hue_counts="""\
        import pandas as pd
        import seaborn as sns
        keep = top_with_real(4)
        order = keep + ["other"]
        df = pd.DataFrame({"sentence": [s if s in keep else "other" for s in outcomes.elements()]})
        df["kind"] = df["sentence"].map(lambda s: "a sentence of p_init" if s in truth else "made up")
        ax = sns.countplot(data=df, x="sentence", hue="kind", order=order)
        for s, p in truth.items():
            ax.plot(order.index(s), p * total, "k_", ms=40, mew=3, label=f"p_init x {total}" if p == 0.8 else None)
        ax.set_ylabel(f"count out of {total}")
        ax.tick_params(axis="x", rotation=20)
        ax.legend()
        """,
    seaborn_histplot_categorical_shares="""\
        import pandas as pd
        import seaborn as sns
        order = top_with_real(5) + ["other"]
        made = [s if s in order else "other" for s in outcomes.elements()]
        ax = sns.histplot(x=pd.Categorical(made, categories=order), stat="probability", shrink=0.8,
                          label="sentences of the network")
        ax.scatter([order.index(s) for s in truth], list(truth.values()), color="red", marker="D", zorder=3,
                   label="p_init")
        ax.set_xlabel("sentence"); ax.set_ylabel("share")
        ax.tick_params(axis="x", rotation=30)
        ax.legend()
        """,
    series_bar_and_short_hlines="""\
        import pandas as pd
        top = top_with_real(3)
        share = pd.Series({s: outcomes[s] / total for s in top})
        share["other"] = 1 - share.sum()
        ax = share.plot(kind="bar", color="lightgray", edgecolor="k", rot=15, label="network")
        for i, s in enumerate(share.index):
            if s in truth:
                ax.hlines(truth[s], i - 0.4, i + 0.4, colors="C3", lw=3, label="p_init" if i == 0 else None)
        ax.set_ylabel("fraction"); ax.legend()
        """,
)

HONEST += _alternatives(
    "show_untrained_story", kind="shown",
    display_size_story_last_expression="""\
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        display(f"{n_params / 1e6:.2f} million parameters")
        StoryText(x)
        """,
    tuple_last_expression="""\
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        f"size: {n_params / 1e6:.1f}M parameters", StoryText(x)
        """,
)

HONEST += _alternatives(
    "plot_story_loss", kind="pandas-seaborn",
    pandas_series_divided_by_32="""\
        import pandas as pd
        per_tok = pd.Series(story_losses) / 32
        ax = per_tok.plot(alpha=0.3, label="loss per token")
        per_tok.rolling(100, min_periods=1).mean().plot(ax=ax, label="running average (100)")
        ax.axhline(NO_IDEA, color="r", ls="--", label="uniform guess")
        ax.axhline(WORD_FREQUENCIES, color="g", ls="--", label="word frequencies")
        ax.set_xlabel("step"); ax.set_ylabel("loss per token"); ax.legend()
        """,
    pandas_rolling_without_min_periods="""\
        import pandas as pd
        s = pd.Series(per_token)
        ax = s.plot(color="C0", alpha=0.4, label="each step")
        s.rolling(100).mean().plot(ax=ax, color="C0", lw=2, label="mean of the last 100 steps")
        ax.axhline(NO_IDEA, color="C3", label=f"no idea: log |V| = {NO_IDEA:.2f}")
        ax.axhline(WORD_FREQUENCIES, color="C2", label=f"word frequencies {WORD_FREQUENCIES:.2f}")
        ax.set(xlabel="training step", ylabel="loss / token")
        ax.legend()
        """,
    dataframe_levels_as_columns="""\
        import pandas as pd
        df = pd.DataFrame({"loss per token": per_token})
        df["running average"] = df["loss per token"].rolling(100, min_periods=1).mean()
        df["uniform guess"] = NO_IDEA
        df["word frequencies"] = WORD_FREQUENCIES
        df.plot(style=["-", "-", "--", ":"], xlabel="step", ylabel="loss per token", figsize=(8, 4))
        plt.show()
        """,
    seaborn_lineplot_hue_long_form="""\
        import pandas as pd
        import seaborn as sns
        df = pd.DataFrame({"step": range(len(per_token)), "per step": per_token})
        df["running average"] = df["per step"].rolling(100, min_periods=1).mean()
        long = df.melt("step", var_name="what", value_name="loss per token")
        sns.lineplot(data=long, x="step", y="loss per token", hue="what")
        plt.axhline(NO_IDEA, ls="--", color="k", label="uniform guess")
        plt.axhline(WORD_FREQUENCIES, ls=":", color="k", label="word frequencies")
        plt.legend()
        """,
    seaborn_wide_form_and_hlines="""\
        import pandas as pd
        import seaborn as sns
        wide = pd.DataFrame({"loss per token": per_token})
        wide["average over 100 steps"] = wide["loss per token"].rolling(100, min_periods=1).mean()
        ax = sns.lineplot(data=wide)
        ax.hlines([NO_IDEA, WORD_FREQUENCIES], 0, len(wide) - 1, colors=["C3", "C2"], linestyles="dashed")
        ax.set_xlabel("step"); ax.set_ylabel("loss per token (nats)")
        """,
)

HONEST += _alternatives(
    "plot_story_loss", kind="pandas-seaborn",
    pandas_ewm_beside_raw="""\
        import pandas as pd
        per_token_series = pd.Series(per_token)
        ax = per_token_series.plot(alpha=0.3, label="per step")
        per_token_series.ewm(alpha=0.01).mean().plot(ax=ax, label="exponential moving average")
        ax.axhline(NO_IDEA, color="C3", ls="--", label="NO_IDEA")
        ax.axhline(WORD_FREQUENCIES, color="C2", ls="--", label="WORD_FREQUENCIES")
        ax.set_xlabel("step"); ax.set_ylabel("loss per token"); ax.legend()
        """,
)

HONEST += _alternatives(
    "show_prompt_stories", prefix=_FILL, kind="shown",
    list_last_expression="""\
        [fill(p) for p in (p1, p2, p3) for _ in range(3)]
        """,
    display_builtin_loop="""\
        for p in (p1, p2, p3):
            for _ in range(3):
                display(fill(p))
        """,
)
HONEST += _alternatives(
    "show_prompt_stories", prefix=_FILL, kind="pandas-seaborn",
    dataframe_to_string="""\
        import pandas as pd
        df = pd.DataFrame({"prompt": [k for k in (1, 2, 3) for _ in range(3)],
                           "story": [fill(p) for p in (p1, p2, p3) for _ in range(3)]})
        print(df.to_string(index=False))
        """,
)

# The page's step counts written out as numbers (issue 21, item 5): under the autograder Train stops
# after QUICK_SECONDS, so these fit in a cell's 30 seconds and lose nothing (tests/grading/test_honest_nb45.py
# runs them on their own: each trains for QUICK_SECONDS).
PAGE_COUNTS = [
    Honest("plot_two_sentence_loss", "page_count_written_out", dedent("""\
        torch.manual_seed(0)
        net = TinyDenoiser(len(vocab), dim=32, heads=2, layers=2)
        two_batch = lambda: torch.stack([SamplePInit_two() for _ in range(64)])
        losses = Train(net, DiffusionLoss, two_batch, MASK, 1500, desc="two sentences")
        entropy = -(0.8 * math.log(0.8) + 0.2 * math.log(0.2))
        PlotLoss(losses, window=100, lines=[(entropy, "entropy")], title="Two sentences, 1500 steps")
        """)),
    Honest("plot_story_loss", "page_count_written_out", dedent("""\
        story_losses = Train(story_net, DiffusionLoss, GetBatch, STORY_MASK, 5000, desc="stories")
        PlotLoss(story_losses, window=100, scale=32, ylabel="loss per token",
                 lines=[(NO_IDEA, "uniform guess"), (WORD_FREQUENCIES, "word frequencies")])
        """)),
]

# Colab's other plotting libraries (issue 46): plotly and altair
HONEST += _alternatives(
    "plot_two_sentence_loss", kind="plotly-altair",
    plotly_loss_and_entropy_line="""\
        import plotly.graph_objects as go
        fig = go.Figure()
        fig.add_trace(go.Scatter(y=losses, mode="lines", name="loss", opacity=0.3))
        fig.add_trace(go.Scatter(y=WindowAverage(losses, 100).tolist(), mode="lines", name="running average"))
        fig.add_hline(y=entropy, line_dash="dot", annotation_text="entropy 0.50")
        fig.update_layout(xaxis_title="step", yaxis_title="loss")
        fig.show()
        """,
    altair_average_and_rule="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"step": range(1, len(losses) + 1), "average": WindowAverage(losses, 100).tolist()})
        line = alt.Chart(table).mark_line().encode(x="step", y=alt.Y("average", title="loss (100-step average)"))
        floor = alt.Chart(pd.DataFrame({"entropy": [entropy]})).mark_rule(strokeDash=[4, 4]).encode(y="entropy")
        line + floor
        """)
HONEST += _alternatives(
    "plot_net_sentence_bars", kind="plotly-altair",
    plotly_grouped_bars="""\
        import plotly.graph_objects as go
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        fig = go.Figure([go.Bar(x=names, y=shares, name="network"),
                         go.Bar(x=names, y=[truth.get(n, 0) for n in names], name="p_init")])
        fig.update_layout(barmode="group", xaxis_title="sentence", yaxis_title="fraction")
        fig.show()
        """)
HONEST += _alternatives(
    "plot_net_sentence_bars", kind="plotly-altair",
    plotly_bars_with_line_ew_open_markers="""\
        import plotly.graph_objects as go
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        fig = go.Figure(go.Bar(x=names, y=shares, name="network"))
        fig.add_trace(go.Scatter(x=list(truth), y=list(truth.values()), mode="markers", name="p_init",
                                 marker=dict(symbol="line-ew-open", size=36, line=dict(width=3, color="black"))))
        fig.show()
        """,
    plotly_barh_with_line_ns_open_markers="""\
        import plotly.graph_objects as go
        top = top_with_real(4)
        names = top + ["other"]
        shares = [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]
        fig = go.Figure([go.Bar(y=names, x=shares, orientation="h", name="network"),
                         go.Scatter(y=list(truth), x=list(truth.values()), mode="markers", name="p_init",
                                    marker_symbol="line-ns-open", marker_size=30, marker_line_width=3)])
        fig.update_layout(xaxis_title="share", yaxis_autorange="reversed")
        fig.show()
        """,
    altair_barh_with_ticks="""\
        import altair as alt
        import pandas as pd
        top = top_with_real(4)
        names = top + ["other"]
        table = pd.DataFrame({"sentence": names,
                              "share": [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total]})
        real = pd.DataFrame({"sentence": list(truth), "p_init": list(truth.values())})
        bars = alt.Chart(table).mark_bar().encode(y=alt.Y("sentence:N", sort=names), x=alt.X("share:Q", title="share"))
        bars + alt.Chart(real).mark_tick(color="black", thickness=3).encode(y=alt.Y("sentence:N", sort=names), x="p_init:Q")
        """)
HONEST += _alternatives(
    "plot_story_loss", kind="plotly-altair",
    plotly_express_line_and_levels="""\
        import plotly.express as px
        fig = px.line(y=WindowAverage(per_token, 100).tolist(), labels={"x": "step", "y": "loss per token"})
        fig.add_hline(y=NO_IDEA, line_dash="dot", annotation_text="uniform")
        fig.add_hline(y=WORD_FREQUENCIES, line_dash="dash", annotation_text="word frequencies")
        fig
        """)
HONEST += _alternatives(
    "plot_story_loss", kind="plotly-altair",
    altair_average_and_two_rules="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"step": range(1, len(per_token) + 1), "loss": WindowAverage(per_token, 100).tolist()})
        curve = alt.Chart(table).mark_line().encode(x="step", y=alt.Y("loss", title="loss per token"))
        levels = alt.Chart(pd.DataFrame({"level": [NO_IDEA, WORD_FREQUENCIES]})).mark_rule(color="gray").encode(y="level")
        curve + levels
        """)
HONEST += _alternatives(
    "plot_net_sentence_bars", kind="plotly-altair",
    altair_bars_and_truth_points="""\
        import altair as alt
        import pandas as pd
        top = top_with_real(4)
        names = top + ["other"]
        table = pd.DataFrame({"sentence": names,
                              "network": [outcomes[s] / total for s in top] + [1 - sum(outcomes[s] for s in top) / total],
                              "p_init": [truth.get(n, 0.0) for n in names]})
        bars = alt.Chart(table).mark_bar().encode(x=alt.X("sentence:N", sort=None), y=alt.Y("network", title="fraction"))
        truth_marks = alt.Chart(table).mark_point(color="red").encode(x=alt.X("sentence:N", sort=None), y="p_init")
        bars + truth_marks
        """)

# a second plotly way per plot: plotly express, a figure left as the last expression or passed to display()
HONEST += _alternatives(
    "plot_two_sentence_loss", kind="plotly-altair",
    plotly_express_average_last_expression="""\
        import plotly.express as px
        average = WindowAverage(losses, 100).tolist()
        fig = px.line(x=list(range(1, len(average) + 1)), y=average,
                      labels={"x": "training step", "y": "diffusion loss (100-step average)"})
        fig.add_hline(y=entropy, line_dash="dash", annotation_text="entropy of p_init")
        fig
        """,
    plotly_raw_and_average_display="""\
        import plotly.graph_objects as go
        from IPython.display import display
        steps = list(range(1, len(losses) + 1))
        fig = go.Figure([go.Scatter(x=steps, y=losses, mode="markers", marker_size=2, name="loss per step"),
                         go.Scatter(x=steps, y=WindowAverage(losses, 100).tolist(), name="average of 100")])
        fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=entropy, y1=entropy, line_dash="dot")
        fig.update_layout(xaxis_title="step", yaxis_title="loss")
        display(fig)
        """)
HONEST += _alternatives(
    "plot_net_sentence_bars", kind="plotly-altair",
    plotly_express_long_table="""\
        import pandas as pd
        import plotly.express as px
        top = top_with_real(4)
        rows = [{"sentence": s, "share": outcomes[s] / total, "who": "network"} for s in top]
        rows.append({"sentence": "other", "share": 1 - sum(outcomes[s] for s in top) / total, "who": "network"})
        rows += [{"sentence": s, "share": p, "who": "p_init"} for s, p in truth.items()]
        px.bar(pd.DataFrame(rows), x="sentence", y="share", color="who", barmode="group")
        """)
HONEST += _alternatives(
    "plot_story_loss", kind="plotly-altair",
    plotly_average_and_levels_display="""\
        import plotly.graph_objects as go
        from IPython.display import display
        fig = go.Figure(go.Scatter(y=WindowAverage(per_token, 100).tolist(), mode="lines", name="loss per token"))
        for level, name in ((NO_IDEA, "uniform guess"), (WORD_FREQUENCIES, "word frequencies")):
            fig.add_hline(y=level, line_dash="dash", annotation_text=name)
        fig.update_layout(xaxis_title="step", yaxis_title="loss per token")
        display(fig)
        """)

# printouts shown another way (issue 46): an HTML table, rich, Markdown
HONEST += _alternatives(
    "show_bayes_comparison", kind="shown",
    html_table="""\
        import pandas as pd
        from IPython.display import HTML, display
        rows = []
        for s in sentences:
            x = Encode(s)
            n, b = GuessNet(x)[1], GuessX0_two(x)[1]
            rows.append({"x_t": s, "network cat": round(float(n[cat]), 3), "network box": round(float(n[box]), 3),
                         "Bayes cat": round(float(b[cat]), 3), "Bayes box": round(float(b[box]), 3)})
        display(HTML(pd.DataFrame(rows).to_html(index=False)))
        """)
HONEST += _alternatives(
    "show_untrained_story", kind="shown",
    rich_print="""\
        from rich import print as rprint
        x = torch.full((32,), STORY_MASK)
        for t in range(32, 0, -1):
            x = Undiffuse(x, t, GuessStory, STORY_MASK)
        rprint(f"[bold]{n_params:,}[/bold] parameters")
        rprint(StoryText(x))
        """)
HONEST += _alternatives(
    "show_prompt_stories", prefix=_FILL, kind="shown",
    markdown_numbered="""\
        from IPython.display import Markdown, display
        lines = []
        for k, p in enumerate((p1, p2, p3), 1):
            lines.append(f"**prompt {k}**")
            lines += [f"{i}. {fill(p)}" for i in range(1, 4)]
            lines.append("")
        display(Markdown("\\n".join(lines)))
        """)

# altair working its table out in the browser: a window average, a calculated column, bars side by side
HONEST += _alternatives(
    "plot_two_sentence_loss", kind="plotly-altair",
    altair_rolling_window="""\
        import altair as alt
        import pandas as pd
        table = pd.DataFrame({"step": range(1, len(losses) + 1), "loss": losses})
        raw = alt.Chart(table).mark_line(opacity=0.2).encode(x="step:Q", y=alt.Y("loss:Q", title="loss"))
        smooth = alt.Chart(table).transform_window(average="mean(loss)", frame=[-99, 0]).mark_line(color="red").encode(
            x="step:Q", y="average:Q")
        floor = alt.Chart(pd.DataFrame({"y": [entropy]})).mark_rule(strokeDash=[5, 3]).encode(y="y:Q")
        raw + smooth + floor
        """)
HONEST += _alternatives(
    "plot_story_loss", kind="plotly-altair",
    altair_per_token_calculated="""\
        import altair as alt
        import pandas as pd
        alt.data_transformers.disable_max_rows()
        table = pd.DataFrame({"step": range(1, len(story_losses) + 1), "loss": story_losses})
        curve = alt.Chart(table).transform_calculate(per_token="datum.loss / 32").transform_window(
            smooth="mean(per_token)", frame=[-99, 0], sort=[{"field": "step"}]).mark_line().encode(
            x=alt.X("step:Q", title="training step"), y=alt.Y("smooth:Q", title="loss per token (100-step mean)"))
        levels = pd.DataFrame({"loss": [NO_IDEA, WORD_FREQUENCIES], "guess": ["uniform", "word frequencies"]})
        curve + alt.Chart(levels).mark_rule(strokeDash=[4, 4]).encode(y="loss:Q", color="guess:N")
        """)
HONEST += _alternatives(
    "plot_net_sentence_bars", kind="plotly-altair",
    altair_grouped_with_x_offset="""\
        import altair as alt
        import pandas as pd
        top = top_with_real(4)
        rows = [{"sentence": s, "share": outcomes[s] / total, "source": "network"} for s in top]
        rows.append({"sentence": "other", "share": 1 - sum(outcomes[s] for s in top) / total, "source": "network"})
        rows += [{"sentence": s, "share": p, "source": "p_init"} for s, p in truth.items()]
        alt.Chart(pd.DataFrame(rows)).mark_bar().encode(x=alt.X("sentence:N", title="sentence"),
                                                        y=alt.Y("share:Q", title="fraction of runs"),
                                                        xOffset="source:N", color="source:N")
        """)
