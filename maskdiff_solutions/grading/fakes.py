"""Test doubles the checks of several notebooks hand to students' functions: a guesser that always
answers one table (02, 04), a small random denoiser (05, 06)."""
import torch

from maskdiff_client.fakes import FixedGuesser


class FakeDenoiser(torch.nn.Module):
    """A small random network whose logits depend on the token, its position and the row's context
    (never on other rows), so batched and row-by-row sampling must agree, and ties never happen."""

    def __init__(self, V=23, L_max=64, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.token = torch.nn.Parameter(torch.randn(V, 16, generator=g))
        self.position = torch.nn.Parameter(torch.randn(L_max, 16, generator=g))
        self.out = torch.nn.Parameter(torch.randn(16, V, generator=g) * 2)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        h = self.token[x] + self.position[: x.shape[1]]
        return torch.tanh(h + h.mean(dim=1, keepdim=True)) @ self.out


def fixed_guesser(p):
    """A guesser that ignores its input and always returns the table p (L, V)."""
    return FixedGuesser(p)
