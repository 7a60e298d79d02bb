"""Reference training losses of notebook 04.

L = (T/t) * sum over masked positions of -log p_net(x_0^i | x_t), with t uniform on 1..T per sentence
and each token masked with probability t/T; averaged over the batch. The T/t weight makes every t
count equally: E[L | t] = sum_i -log p(x_0^i | x_t) whatever t is, for a net that ignores x_t.
"""
import torch
import torch.nn.functional as F


def check_batch(x_0, what="x_0"):
    if not torch.is_tensor(x_0) or x_0.dim() != 2 or x_0.dtype != torch.long:
        shape = tuple(x_0.shape) if torch.is_tensor(x_0) else type(x_0).__name__
        raise ValueError(f"{what} must be a (batch, L) tensor of token ids (long), got {shape}")


def WeightedMaskedLoss(net, x_0, masked, t, mask, T):
    """The loss for a given t (batch, 1) and mask pattern (batch, L): the part that is not random."""
    x_t = torch.where(masked, torch.full_like(x_0, mask), x_0)
    logits = net(x_t)
    surprise = F.cross_entropy(logits.transpose(1, 2), x_0, reduction="none")  # (batch, L)
    return ((T / t) * (surprise * masked)).sum(dim=1).mean()


def DiffusionLoss(net, x_0, mask, T=100):
    """One sample of the masked-diffusion loss for the batch x_0 (batch, L); a tensor that backpropagates."""
    check_batch(x_0)
    batch, length = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = torch.rand(batch, length, device=x_0.device) < t / T
    return WeightedMaskedLoss(net, x_0, masked, t, mask, T)


def DiffusionLossPrompt(net, x_0, prompt, mask, T=100):
    """The question/answer variant: positions where `prompt` (batch, L, bool) is True are never
    masked, so the net learns to fill in answers next to a visible question."""
    check_batch(x_0)
    prompt = torch.as_tensor(prompt, dtype=torch.bool, device=x_0.device)
    if prompt.shape != x_0.shape:
        raise ValueError(f"prompt must have the shape of x_0 {tuple(x_0.shape)}, got {tuple(prompt.shape)}")
    batch, length = x_0.shape
    t = torch.randint(1, T + 1, (batch, 1), device=x_0.device)
    masked = (torch.rand(batch, length, device=x_0.device) < t / T) & ~prompt
    return WeightedMaskedLoss(net, x_0, masked, t, mask, T)
