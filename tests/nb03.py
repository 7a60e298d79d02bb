"""Shared by notebook 03's tests: the stand-in networks (built once per test process: they take
seconds), copies of them that play real checkpoints, notebook 03's own cells run in a namespace, and
`GPU`, a mode in which CPU tensors play ones on a GPU (`Remote`)."""
import atexit
import functools
import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
import torch
from torch.overrides import TorchFunctionMode

from maskdiff_solutions import models
from maskdiff_solutions.course.intake import notebooks as nbtools

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "source" / "maskdiff" / "03_real_language_model.ipynb"
CACHE = Path(tempfile.mkdtemp(prefix="maskdiff-stand-ins-"))
atexit.register(shutil.rmtree, CACHE, True)


def require_qwen():
    if models.TransformersVersion() < (4, 51):
        pytest.skip(f"Qwen3 needs transformers 4.51 (this is {models.transformers.__version__})")


@functools.lru_cache(maxsize=None)
def stand_in(kind):
    """(folder, seconds it took to build) of the stand-in for `kind`, built on first use."""
    if kind == "qwen":
        require_qwen()
    started = time.perf_counter()
    folder = models.StandIn(kind, CACHE)
    return folder, time.perf_counter() - started


def real_copy(where, kind="bert", config=None, tokenizer_config=None, drop=()):
    """A copy of the stand-in that plays a real checkpoint (no STAND_IN.txt) in the folder `where`:
    config / tokenizer_config edit its json files (called with the dict, may change it), `drop` lists
    keys to delete from every tokenizer json file."""
    shutil.copytree(stand_in(kind)[0], where)
    (where / "STAND_IN.txt").unlink()
    for name, edit in (("config.json", config), ("tokenizer_config.json", tokenizer_config)):
        settings = json.loads((where / name).read_text())
        if edit:
            edit(settings)
        for key in drop:
            settings.pop(key, None)
        (where / name).write_text(json.dumps(settings, indent=2))
    special = where / "special_tokens_map.json"
    if special.is_file() and drop:
        settings = json.loads(special.read_text())
        for key in drop:
            settings.pop(key, None)
        special.write_text(json.dumps(settings, indent=2))
    return where


def cell(grade_id):
    for found in nbtools.read(NOTEBOOK).cells:
        if nbtools.grade_id(found) == grade_id:
            return found.source
    raise KeyError(grade_id)


def run_cells(namespace, *grade_ids):
    """Run notebook 03's cells (the source notebook, solutions in) in `namespace`, in order."""
    for grade_id in grade_ids:
        exec(compile(cell(grade_id), f"<notebook 03 cell {grade_id}>", "exec"), namespace)
    return namespace


class Remote(torch.Tensor):
    """A tensor on the simulated GPU (see `GPU`): it lives in CPU memory, reports device cuda."""
    __torch_function__ = torch._C._disabled_torch_function_impl

    @property
    def device(self):
        return torch.device("cuda")


def on_gpu(device):
    return device is not None and torch.device(device).type == "cuda"


class GPU(TorchFunctionMode):
    """Plays a GPU on a CPU-only machine, as CUDA behaves: tensors made on the device, moved there
    (.to("cuda"), .cuda()) or computed from tensors there are `Remote`; taking one to the CPU (.cpu(),
    .to(a CPU device), .tolist(), .item(), int(), formatting) is a crossing, recorded in `crossings`
    as its number of elements; an operation mixing a Remote with a CPU tensor of more than one element
    raises, as CUDA does."""

    LEAVE = {torch.Tensor.cpu, torch.Tensor.tolist, torch.Tensor.item, torch.Tensor.numpy,
             torch.Tensor.__int__, torch.Tensor.__float__, torch.Tensor.__bool__, torch.Tensor.__index__,
             torch.Tensor.__format__}

    def __init__(self):
        super().__init__()
        self.crossings = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        flat = list(args) + list(kwargs.values())
        flat += [item for a in flat if isinstance(a, (list, tuple)) for item in a]
        tensors = [a for a in flat if isinstance(a, torch.Tensor)]
        remote = any(isinstance(t, Remote) for t in tensors)
        targets = [a for a in list(args[1:]) + [kwargs.get("device")] if isinstance(a, (str, torch.device))]
        if func is torch.Tensor.cuda or (func is torch.Tensor.to and any(on_gpu(d) for d in targets)):
            kwargs.pop("device", None)
            args = [a for a in args if not isinstance(a, (str, torch.device))]
            moved = torch.Tensor.to(*args, **kwargs) if func is torch.Tensor.to and (args[1:] or kwargs) else args[0]
            return moved.as_subclass(Remote)
        if on_gpu(kwargs.get("device")):            # a factory: torch.rand(..., device="cuda")
            kwargs["device"] = "cpu"
            return self.wrap(func(*args, **kwargs))
        leaving = func in self.LEAVE or (func is torch.Tensor.to and targets)
        if leaving and isinstance(args[0], Remote):
            self.crossings.append(args[0].numel())
            out = func(args[0].as_subclass(torch.Tensor), *args[1:], **kwargs)
            return out.as_subclass(torch.Tensor) if isinstance(out, torch.Tensor) else out
        if remote and any(type(t) is torch.Tensor and t.dim() > 0 for t in tensors):
            raise RuntimeError(f"Expected all tensors to be on the same device, but found cuda and cpu "
                               f"({getattr(func, '__name__', func)})")
        out = func(*args, **kwargs)
        return self.wrap(out) if remote else out

    @classmethod
    def wrap(cls, out):
        if isinstance(out, torch.Tensor) and not isinstance(out, Remote):
            return out.as_subclass(Remote)
        if isinstance(out, tuple) and type(out) is not tuple:      # torch.return_types (topk, max)
            return type(out)([cls.wrap(o) for o in out])
        if isinstance(out, (list, tuple)):
            return type(out)(cls.wrap(o) for o in out)
        return out


class OnAnotherDevice:
    """A network whose logits come back Remote, as a network on a GPU gives them."""

    def __init__(self, network):
        self.network = network

    def __call__(self, *args, **kwargs):
        out = self.network(*args, **kwargs)
        out.logits = out.logits.as_subclass(Remote)
        return out

    def __getattr__(self, name):
        return getattr(self.network, name)
