"""Bugs students make in notebook 01 (MakeSchedule, ForwardMask, ForwardMaskFast)."""
from . import Mutant

MUTANTS = [
    Mutant("MakeSchedule", "beta off by one, 1/(T-t)", """
def MakeSchedule(T):
    t = torch.arange(T + 1)
    beta = 1 / (T - t)
    beta[0] = 0
    alpha_bar = torch.cumprod(1 - beta, dim=0)
    return beta, alpha_bar
""", ("MakeSchedule",)),
    Mutant("MakeSchedule", "no step 0: arrays of length T", """
def MakeSchedule(T):
    t = torch.arange(1, T + 1)
    beta = 1 / (T - t + 1)
    return beta, torch.cumprod(1 - beta, dim=0)
""", ("MakeSchedule",)),
    Mutant("MakeSchedule", "beta[0] left at 1/(T+1)", """
def MakeSchedule(T):
    t = torch.arange(T + 1)
    beta = 1 / (T - t + 1)
    return beta, torch.cumprod(1 - beta, dim=0)
""", ("MakeSchedule",)),
    Mutant("MakeSchedule", "cumprod of beta instead of alpha", """
def MakeSchedule(T):
    beta = torch.zeros(T + 1)
    for t in range(1, T + 1):
        beta[t] = 1 / (T - t + 1)
    alpha_bar = torch.cumprod(beta, dim=0)
    return beta, alpha_bar
""", ("MakeSchedule",)),
    Mutant("MakeSchedule", "cumsum instead of cumprod", """
def MakeSchedule(T):
    beta = torch.zeros(T + 1)
    beta[1:] = 1 / (T - torch.arange(1, T + 1) + 1)
    return beta, 1 - torch.cumsum(beta, dim=0)
""", ("MakeSchedule",)),

    Mutant("ForwardMask", "no clone: every entry is the same tensor", """
def ForwardMask(x_0, t, beta):
    x = x_0
    xs = [x]
    for s in range(1, t + 1):
        x[torch.rand(len(x)) < beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),
    Mutant("ForwardMask", "masks with alpha = 1 - beta", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        x[torch.rand(len(x)) < 1 - beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),   # history: with T = 1, x_1 must be all masks
    Mutant("ForwardMask", "steps use beta[s-1]", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    x = x_0
    for s in range(t):
        x = x.clone()
        x[torch.rand(len(x)) < beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),
    Mutant("ForwardMask", "masks are not absorbing: each step re-masks x_0", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    for s in range(1, t + 1):
        x = x_0.clone()
        x[torch.rand(len(x)) < beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),
    Mutant("ForwardMask", "history without x_0", """
def ForwardMask(x_0, t, beta):
    xs = []
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        x[torch.rand(len(x)) < beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),
    Mutant("ForwardMask", "one coin per step for the whole sentence", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        if torch.rand(1).item() < beta[s]:
            x[:] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.rates",)),
    Mutant("ForwardMask", "constant rate 1/T at every step", """
def ForwardMask(x_0, t, beta):
    T = len(beta) - 1
    xs = [x_0]
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        x[torch.rand(len(x)) < 1 / T] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.history", "ForwardMask.rates")),

    Mutant("ForwardMask", "right count, but always the leftmost visible tokens", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        visible = torch.nonzero(x != MASK).flatten()
        n = int((torch.rand(len(visible)) < beta[s]).sum())   # as many as the coins say...
        x[visible[:n]] = MASK                                   # ...but the first ones
        xs.append(x)
    return xs
""", ("ForwardMask.rates",)),
    Mutant("ForwardMask", "neighbours share one coin", """
def ForwardMask(x_0, t, beta):
    xs = [x_0]
    x = x_0
    for s in range(1, t + 1):
        x = x.clone()
        coins = torch.rand((len(x) + 1) // 2).repeat_interleave(2)[:len(x)]
        x[coins < beta[s]] = MASK
        xs.append(x)
    return xs
""", ("ForwardMask.rates",)),

    Mutant("ForwardMaskFast", "masks with alpha_bar instead of 1 - alpha_bar", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    x[torch.rand(len(x)) < alpha_bar[t]] = MASK
    return x
""", ("ForwardMaskFast.basics", "ForwardMaskFast.law")),
    Mutant("ForwardMaskFast", "uses alpha_bar[t-1]", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    x[torch.rand(len(x)) < 1 - alpha_bar[t - 1]] = MASK
    return x
""", ("ForwardMaskFast.basics", "ForwardMaskFast.law")),
    Mutant("ForwardMaskFast", "masks exactly round((1 - alpha_bar) L) random positions", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    n = round(float(1 - alpha_bar[t]) * len(x))
    x[torch.randperm(len(x))[:n]] = MASK
    return x
""", ("ForwardMaskFast.law",)),
    Mutant("ForwardMaskFast", "masks the first positions", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x = x_0.clone()
    n = int(torch.distributions.Binomial(len(x), 1 - alpha_bar[t]).sample())
    x[:n] = MASK
    return x
""", ("ForwardMaskFast.law",)),
    Mutant("ForwardMaskFast", "masks its input in place", """
def ForwardMaskFast(x_0, t, alpha_bar):
    x_0[torch.rand(len(x_0)) < 1 - alpha_bar[t]] = MASK
    return x_0
""", ("ForwardMaskFast.basics", "ForwardMaskFast.law")),
    Mutant("ForwardMaskFast", "one coin for the whole sentence", """
def ForwardMaskFast(x_0, t, alpha_bar):
    if torch.rand(1).item() < 1 - alpha_bar[t]:
        return torch.full_like(x_0, MASK)
    return x_0.clone()
""", ("ForwardMaskFast.law",)),
    Mutant("ForwardMaskFast", "uses beta_t as if it were the jump probability", """
def ForwardMaskFast(x_0, t, alpha_bar):
    T = len(alpha_bar) - 1
    x = x_0.clone()
    x[torch.rand(len(x)) < 1 / (T - t + 1)] = MASK
    return x
""", ("ForwardMaskFast.basics", "ForwardMaskFast.law")),
    Mutant("ForwardMaskFast", "neighbours share one coin", """
def ForwardMaskFast(x_0, t, alpha_bar):
    coins = torch.rand((len(x_0) + 1) // 2).repeat_interleave(2)[:len(x_0)]
    return torch.where(coins < 1 - alpha_bar[t], MASK, x_0)
""", ("ForwardMaskFast.law",)),
]
