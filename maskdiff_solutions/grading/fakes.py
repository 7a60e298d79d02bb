"""Test doubles the checks of several notebooks hand to students' functions: a guesser that always
answers one table (02, 04), a small random denoiser (05, 06), and that denoiser as the notebooks hand
it to a sampler (`story_model`: ids on the CPU in, logits on the CPU out)."""
import torch

from maskdiff_client.fakes import FixedGuesser
from maskdiff_client.wire import Opaque

from .core import Failure

# The device a check binds the notebook's `device` to, standing for Colab's GPU: the grader has none,
# and a tensor there has a shape but no data, so whatever is moved there cannot be used by mistake.
ELSEWHERE = "meta"


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


class CpuModel:
    """`net` as notebooks 05 and 06 hand a denoiser to what students write (`story_model`): a plain
    function from [B, L] ids on the CPU to [B, L, V] logits on the CPU, wherever the network lives. It
    has no parameters to take a device from, and ids that arrive off the CPU are refused with the rule."""

    def __init__(self, net):
        self.net = net

    @property
    def calls(self):
        return self.net.calls

    def __call__(self, x):
        on_cpu(x, "the model")
        return self.net(x)


def off_cpu(value):
    """Where a tensor (or one in a list or tuple) is, if not on the CPU ("on the meta device, shape
    [2, 9]"), said alike of one that could not cross from the student's kernel (wire: a tensor without data)."""
    if torch.is_tensor(value):
        return None if value.device.type == "cpu" else f"on the {value.device} device, shape {list(value.shape)}"
    if isinstance(value, Opaque) and value.type_name == "Tensor" and value.text.startswith("on "):
        return value.text
    if isinstance(value, (list, tuple)):
        return next((where for where in map(off_cpu, value) if where), None)
    return None


def on_cpu(value, who):
    """Fail, with the notebooks' device rule, when `value` holds a tensor off the CPU."""
    where = off_cpu(value)
    if where:
        raise Failure(f"{who} was handed a tensor {where}, not on "
                      f"the CPU (the check sets the notebook's `device` to {ELSEWHERE!r} to stand for Colab's GPU, "
                      "where mixing devices crashes): story_model takes ids on the CPU and returns logits there, "
                      "so build the canvas on the CPU and keep it there")


def fixed_guesser(p):
    """A guesser that ignores its input and always returns the table p (L, V)."""
    return FixedGuesser(p)
