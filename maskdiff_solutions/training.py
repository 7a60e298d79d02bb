"""The training loop of notebooks 04 and 05 and its loss plot; the denoiser itself and its guesser
wrapper live in maskdiff_client.denoiser (the hidden checks train it inside the student's kernel).

This module is the source of truth for the notebooks' given cell `training`: that cell holds exactly
the definitions below (tests/course/term/test_given_cells.py compares them statement by statement), because the
notebooks must run on Colab without this package.
"""
import os
import time

import matplotlib.pyplot as plt
import torch
from tqdm.auto import tqdm

from maskdiff_client.denoiser import Block, MakeGuesser, Rotate, RotaryTables, TinyDenoiser  # noqa: F401

QUICK = bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI"))  # the set-up cell's QUICK


# --- notebook cell `training` (which imports time itself) -----------------------------------------
QUICK_SECONDS = 15     # under the autograder Train stops after this long (and at least QUICK_MIN_STEPS)
QUICK_MIN_STEPS = 20


def Train(net, loss_function, get_batch, mask, steps, lr=1e-3, desc="training"):
    """Adam on loss_function(net, x_0, mask) for `steps` batches from get_batch(); returns every loss.
    Under the autograder it stops after QUICK_SECONDS seconds, whatever `steps` says, so that a count
    written out (the page's 5000) still fits in a cell's 30 seconds."""
    device = next(net.parameters()).device
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    bar = tqdm(range(steps), desc=desc)
    started = time.perf_counter()
    for step in bar:
        opt.zero_grad()
        loss = loss_function(net, get_batch().to(device), mask)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 50 == 0 or step == steps - 1:
            recent = losses[-100:]
            bar.set_postfix(loss=f"{sum(recent) / len(recent):.3f}")
        if QUICK and step + 1 >= QUICK_MIN_STEPS and time.perf_counter() - started > QUICK_SECONDS \
                and step + 1 < steps:
            bar.close()
            print(f"quick mode: training stopped after {step + 1} of {steps} steps ({QUICK_SECONDS} seconds)")
            break
    return losses


def WindowAverage(values, window=100):
    """Mean of each run of `window` consecutive values (shorter at the start, so nothing is dropped)."""
    values = torch.as_tensor(values, dtype=torch.float64)
    sums = torch.cat([torch.zeros(1, dtype=torch.float64), values.cumsum(0)])
    end = torch.arange(1, len(values) + 1)
    start = (end - window).clamp(min=0)
    return (sums[end] - sums[start]) / (end - start)


def PlotLoss(losses, window=100, lines=(), scale=1.0, ylabel="loss", title=None):
    """Raw losses (faint) and their window average against the step, with horizontal reference lines
    given as (value, label) pairs. `scale` divides every loss (e.g. by L for the loss per token)."""
    values = torch.as_tensor(losses, dtype=torch.float64) / scale
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(values, color="tab:blue", alpha=0.2, lw=0.8, label="each step")
    smooth = WindowAverage(values, window)
    ax.plot(smooth, color="tab:blue", lw=2, label=f"average over {window} steps")
    for i, (value, label) in enumerate(lines):
        ax.axhline(value, ls="--", lw=1.2, color=f"C{i + 1}", label=label)
    start = float(smooth[min(len(values), window) - 1]) if len(values) else 1.0
    ax.set_ylim(0, max([start * 1.3] + [value * 1.15 for value, _ in lines]))
    ax.set_xlabel("training step")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper right")
    plt.show()
