"""Bugs students make in notebook 04 (DiffusionLoss and the optional DiffusionLossPrompt)."""
from . import Mutant

ALL = ("DiffusionLoss.backprop", "DiffusionLoss.exact", "DiffusionLoss.law",
       "DiffusionLoss.expectation", "DiffusionLoss.training")


def loss_cell(body, signature="def DiffusionLoss(net, x_0, mask, T=100):"):
    """A solution cell: the signature, the page's imports, then the (buggy) body."""
    return f"import torch.nn.functional as F\n\n{signature}\n{body}"


MUTANTS = [
    Mutant("DiffusionLoss", "no T/t weight", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.law", "DiffusionLoss.expectation")),
    Mutant("DiffusionLoss", "weight t/T instead of T/t", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (t / T * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation")),
    Mutant("DiffusionLoss", "counts every position, masked or not", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce).sum(dim=1).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation")),
    Mutant("DiffusionLoss", "mean over positions instead of sum", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation")),
    Mutant("DiffusionLoss", "one t for the whole batch", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (1,)).item()
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.law",)),
    Mutant("DiffusionLoss", "inverted mask: scores the visible positions", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * ~masked).sum(dim=1).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation",
       "DiffusionLoss.training")),
    Mutant("DiffusionLoss", "inverted coin: masks with probability 1 - t/T", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) > t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation",
       "DiffusionLoss.training")),
    Mutant("DiffusionLoss", "returns loss.item()", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean().item()
"""), ("DiffusionLoss.backprop", "DiffusionLoss.exact", "DiffusionLoss.law",
       "DiffusionLoss.training")),

    Mutant("DiffusionLoss", "one span of masks at a random place", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    n = (torch.rand(batch, L, device=x_0.device) < t / T).sum(dim=1, keepdim=True)   # how many...
    start = torch.randint(0, L, (batch, 1), device=x_0.device)                        # ...in one run
    masked = (torch.arange(L, device=x_0.device)[None, :] - start) % L < n
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.law",)),
    Mutant("DiffusionLoss", "never masks the first position", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    masked[:, 0] = False          # (as if position 0 were a start-of-text token)
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.exact", "DiffusionLoss.law", "DiffusionLoss.expectation",
       "DiffusionLoss.training")),
    Mutant("DiffusionLoss", "neighbouring positions share one coin", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    coins = torch.rand(batch, (L + 1) // 2, device=x_0.device).repeat_interleave(2, dim=1)[:, :L]
    masked = coins < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
"""), ("DiffusionLoss.law",)),

    Mutant("DiffusionLossPrompt", "masks the prompt too", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, L, device=x_0.device) < t / T
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
""", "def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):"), ("DiffusionLossPrompt",)),
    Mutant("DiffusionLossPrompt", "scores every answer position, masked or not", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = (torch.rand(batch, L, device=x_0.device) < t / T) & ~prompt
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * ~prompt).sum(dim=1).mean()
""", "def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):"), ("DiffusionLossPrompt",)),
    Mutant("DiffusionLossPrompt", "no T/t weight", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = (torch.rand(batch, L, device=x_0.device) < t / T) & ~prompt
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (ce * masked).sum(dim=1).mean()
""", "def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):"), ("DiffusionLossPrompt",)),
    Mutant("DiffusionLossPrompt", "right number of masks, but the first answer positions", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    n = ((torch.rand(batch, L, device=x_0.device) < t / T) & ~prompt).sum(dim=1, keepdim=True)
    rank = (~prompt).long().cumsum(dim=1)           # 1, 2, ... along the answer positions
    masked = ~prompt & (rank <= n)
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
""", "def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):"), ("DiffusionLossPrompt",)),
    Mutant("DiffusionLossPrompt", "answer positions share a coin, two by two", loss_cell("""
    batch, L = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    rank = (~prompt).long().cumsum(dim=1)           # 1, 2, ... along the answer positions
    coins = torch.rand(batch, L, device=x_0.device).gather(1, (rank - 1).clamp(min=0) // 2)
    masked = (coins < t / T) & ~prompt
    x_t = torch.where(masked, mask, x_0)
    ce = F.cross_entropy(net(x_t).transpose(1, 2), x_0, reduction="none")
    return (T / t * ce * masked).sum(dim=1).mean()
""", "def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):"), ("DiffusionLossPrompt",)),
]
