"""The loss check's training as torch.optim would run it: the baseline the check's own Adam
(maskdiff_client/drivers._Adam) is held to, bit for bit (tests/grading/test_checks_loss.py), and timed
against (benchmarks/loss_checks.py)."""
import torch

import maskdiff_solutions as reference
from maskdiff_client import drivers
from maskdiff_solutions.grading import loss as checks


def torch_optim_training(batches):
    """The reference DiffusionLoss trained on `batches` with torch.optim.Adam and the check's linear
    decay; returns the network."""
    net = drivers._denoiser(len(checks.TOY_VOCAB), **checks.TRAIN_SIZE)
    opt = torch.optim.Adam(net.parameters(), lr=checks.TRAIN_LR)
    schedule = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 - step / len(batches))
    for x_0 in batches:
        opt.zero_grad()
        reference.DiffusionLoss(net, x_0, checks.TOY_MASK).backward()
        opt.step()
        schedule.step()
    return net
