"""How the hidden checks call a student's function: many calls per request, whole chains of reverse
steps, the loss with a recording network, training. Every driver returns plain data (what the
function returned, what it changed in place, what it raised); the checker alone decides what that
means. The same drivers run in the student's kernel when grading through the trusted checker, and
in-process when a notebook is graded the plain nbgrader way.

Drivers contain no reference solution: only loops that call the student's code on inputs the
checker chose.
"""
import contextlib
import inspect
import io

import numpy as np
import torch
import torch.nn as nn

from .denoiser import TinyDenoiser
from .wire import ProtocolError

MAX_PRINTED = 200_000   # characters of a function's printout sent back


class Propagate(Exception):
    """Raised by a checker's stand-in from inside student code: drivers let it through."""


# What drivers never count as the student's error: interrupts, our stand-ins' failures, and a
# broken connection to the checker (raised from a call back into it).
PASS_THROUGH = (KeyboardInterrupt, GeneratorExit, Propagate, ProtocolError)


def _fresh(value):
    """A copy of what a function could change in place (so every call starts from the same inputs)."""
    if torch.is_tensor(value):
        return value.clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [_fresh(v) for v in value]
    return value


def _changed(given, kept):
    # Exact by construction: an argument against its own copy, made before the call on the same machine, so
    # nothing but a write changes a bit (a NaN never equals itself: no check hands one in a tensor).
    if torch.is_tensor(given) and torch.is_tensor(kept):
        return given.shape != kept.shape or given.dtype != kept.dtype or not torch.equal(given, kept)
    if isinstance(given, np.ndarray) and isinstance(kept, np.ndarray):
        return given.shape != kept.shape or not np.array_equal(given, kept)
    return False


def _text(err):
    try:
        return str(err)[:20_000]
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails
        return ""


def _raised(err):
    """What a call raised: its type's name, its message, and the names of the type and its bases
    (so a checker can tell a ValueError subclass from other errors)."""
    return ["raised", type(err).__name__, _text(err), [c.__name__ for c in type(err).__mro__][:20]]


def outcome(function, args=(), kwargs=None, sent_back=()):
    """One call on fresh copies of args: ["ok", value, {index: arg after the call} for each tensor or
    array argument the call changed in place] or ["raised", type name, message, kinds]. With `sent_back`
    (argument indices), either carries one more item, {index: that argument as the call left it}: a list
    the function fills, say, or what a call that raised had done to its arguments first."""
    given = [_fresh(a) for a in args]
    kept = [_fresh(a) for a in given]
    try:
        value = function(*given, **(kwargs or {}))
    except PASS_THROUGH:
        raise
    except BaseException as err:  # noqa: BLE001 - SystemExit included: a finding, not an exit
        raised = _raised(err)
        return raised + [{int(i): given[int(i)] for i in sent_back}] if sent_back else raised
    done = ["ok", value, {i: given[i] for i in range(len(given)) if _changed(given[i], kept[i])}]
    return done + [{int(i): given[int(i)] for i in sent_back}] if sent_back else done


def call_many(function, arg_lists, kwargs=None):
    """outcome() for each argument list, in order."""
    return [outcome(function, args, kwargs) for args in arg_lists]


def repeat(function, args, times, kwargs=None):
    """outcome() of the same arguments `times` times (fresh copies each time)."""
    return [outcome(function, args, kwargs) for _ in range(int(times))]


def _sentence(value, length):
    """What a reverse step returned, as the next step's input: a 1-D long tensor of the same length."""
    if torch.is_tensor(value):
        value = value.detach().cpu()
    out = torch.as_tensor(np.asarray(value), dtype=torch.long)
    if out.dim() != 1 or out.numel() != length:
        raise ValueError(f"shape {tuple(out.shape)}")
    return out


def chains(function, start, ts, guess, mask, runs=1, extra=()):
    """`runs` times: x = start, then x = function(x, t, guess, mask, *extra) for each t in ts.
    Returns {"trace": (runs, steps, L) long tensor of what each step returned (-1 after a run
    stopped), "mutated": (runs, steps) bool tensor, whether a step changed its input in place,
    "errors": {run: [type name, message, t]} for runs an error stopped}."""
    start = torch.as_tensor(start)
    ts, length = list(ts), len(start)
    trace = torch.full((int(runs), len(ts), length), -1, dtype=torch.long)
    mutated = torch.zeros(int(runs), len(ts), dtype=torch.bool)
    errors = {}
    for run in range(int(runs)):
        x = start.clone()
        for k, t in enumerate(ts):
            given = x.clone()
            try:
                value = function(given, t, guess, mask, *extra)
            except PASS_THROUGH:
                raise
            except BaseException as err:  # noqa: BLE001
                errors[run] = [type(err).__name__, _text(err), t]
                break
            mutated[run, k] = not torch.equal(given, x)
            try:
                x = _sentence(value, length)
            except (TypeError, ValueError, RuntimeError) as err:
                errors[run] = ["BadReturn", f"returned {type(value).__name__} of {_text(err) or 'another kind'}, "
                                            f"not a sentence of {length} token ids", t]
                break
            trace[run, k] = x
    return {"trace": trace, "mutated": mutated, "errors": errors}


def call_with_globals(function, names, args=(), kwargs=None, filled=()):
    """Call a function with some of the globals it reads (the notebook's tokenizer, an earlier
    helper, ...) bound to the given values, its printout captured; the notebook's own values are put
    back afterwards. ["ok", value, printed] or ["raised", type name, message, printed]; with `filled`
    (argument indices: lists the function fills), "ok" carries a fourth item, {index: that argument
    as the call left it}."""
    namespace = globals_of(function)
    if namespace is None:
        name = getattr(function, "__name__", type(function).__name__)
        return ["raised", "NotAFunction", f"a {type(function).__name__}, not a function defined with "
                                          f"`def {name}(...)`", ["NotAFunction"], ""]
    missing = object()
    saved = {name: namespace.get(name, missing) for name in names}
    printed = io.StringIO()
    namespace.update(names)
    try:
        with contextlib.redirect_stdout(printed):
            result = outcome(function, args, kwargs, filled)
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value
    text = printed.getvalue()[:MAX_PRINTED]
    return ["ok", result[1], text, *result[3:]] if result[0] == "ok" else result[:4] + [text, *result[4:]]


def globals_of(function):
    """The globals a function reads: a decorated one's (@torch.no_grad()) are those of the function it
    wraps, not the decorator's module. None for an object without them."""
    try:
        return getattr(inspect.unwrap(function), "__globals__", None)
    except Exception:  # noqa: BLE001 - a cycle of __wrapped__, or an object that breaks unwrap
        return None


def notebook_values(function, names):
    """The values of the notebook's globals `names`, read where `function` (a function the notebook
    defined) reads them: {name: value} for the names it has (a callable crosses as a handle), or None
    for a function without globals."""
    namespace = globals_of(function)
    if not isinstance(namespace, dict):
        return None
    return {name: namespace[name] for name in names if isinstance(name, str) and name in namespace}


class _Counted:
    """A network that counts its calls and the positions they hand it (x.shape[1] each: positions per
    row), as notebook 07's given `Counted` does, and is otherwise the network."""

    def __init__(self, net):
        self.net, self.calls, self.positions = net, 0, 0

    def __call__(self, x, *args, **kwargs):
        self.calls, self.positions = self.calls + 1, self.positions + int(x.shape[1])
        return self.net(x, *args, **kwargs)


def counted(function, args, net_at=0, kwargs=None):
    """outcome() of one call with args[net_at], a network, counted as notebook 07's `Counted` counts it,
    followed by {"calls": ..., "positions": ...} (up to where the call stopped, if it raised)."""
    args = list(args)
    net = args[net_at] = _Counted(args[net_at])
    return outcome(function, args, kwargs) + [{"calls": net.calls, "positions": net.positions}]


# --------------------------------------------------------------------------- the training loss

class RecordingNet(nn.Module):
    """logits = a fixed (batch or 1, L, V) parameter whatever the input; keeps what it was called on."""

    def __init__(self, logits):
        super().__init__()
        self.logits = nn.Parameter(torch.as_tensor(logits, dtype=torch.float32).clone())
        self.inputs, self.calls, self.problem = [], 0, None

    def forward(self, x):
        self.calls += 1
        if len(self.inputs) < 4:
            self.inputs.append(x.detach().clone() if torch.is_tensor(x) else repr(type(x)))
        length = self.logits.shape[1]
        if not (torch.is_tensor(x) and x.dim() == 2 and x.shape[1] == length):
            self.problem = (f"the net should be called on x_t of shape (batch, L) = (*, {length}), "
                            f"got {tuple(x.shape) if torch.is_tensor(x) else type(x).__name__}")
            raise ValueError(self.problem)
        return self.logits.expand(x.shape[0], -1, -1) + 0.0


def _loss_facts(loss):
    facts = {"type": type(loss).__name__, "is_tensor": torch.is_tensor(loss)}
    if facts["is_tensor"]:
        facts.update(shape=list(loss.shape), requires_grad=bool(loss.requires_grad))
        if loss.numel() == 1:
            facts["value"] = float(loss.detach().reshape(()))
    else:
        try:
            facts["value"] = float(loss)
        except (TypeError, ValueError):
            pass
    return facts


def loss_observe(function, logits, x_0, mask, T, prompt=None):
    """Call the loss once with a RecordingNet, then backward(): what it returned, what the net saw,
    and the gradient that reached the net's logits."""
    net = RecordingNet(logits)
    args = (net, x_0, mask) if prompt is None else (net, x_0, prompt, mask)
    result = outcome(function, args + (T,))
    facts = {"calls": net.calls, "inputs": net.inputs, "problem": net.problem}
    if result[0] == "raised":
        return {**facts, "raised": result[1:]}
    loss = result[1]
    facts.update(_loss_facts(loss))
    if facts["is_tensor"] and loss.numel() == 1 and loss.requires_grad:
        try:
            loss.backward()
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as err:  # noqa: BLE001
            facts["backward_raised"] = [type(err).__name__, _text(err)]
        facts["grad"] = net.logits.grad
    return facts


def loss_values(function, logits, x_0, mask, T, calls, prompt=None):
    """The loss's value over `calls` calls with one RecordingNet; stops at the first call that fails."""
    net = RecordingNet(logits)
    values = []
    for _ in range(int(calls)):
        args = (net, x_0, mask) if prompt is None else (net, x_0, prompt, mask)
        result = outcome(function, args + (T,))
        if result[0] == "raised":
            return {"values": values, "raised": result[1:], "problem": net.problem}
        facts = _loss_facts(result[1])
        if "value" not in facts:
            return {"values": values, "bad": facts["type"]}
        values.append(facts["value"])
    return {"values": values}


def _denoiser(vocab_size, **size):
    return TinyDenoiser(int(vocab_size), **{k: int(v) for k, v in size.items()})


def loss_backprop(function, vocab_size, x_0, mask, size):
    """One loss on a fresh small TinyDenoiser, then backward(): the gradient norm of each parameter
    (None where no gradient arrived)."""
    net = _denoiser(vocab_size, **size)
    result = outcome(function, (net, x_0, mask))
    if result[0] == "raised":
        return {"raised": result[1:]}
    facts = _loss_facts(result[1])
    if not (facts["is_tensor"] and result[1].numel() == 1 and result[1].requires_grad):
        return facts
    try:
        result[1].backward()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as err:  # noqa: BLE001
        return {**facts, "backward_raised": [type(err).__name__, _text(err)]}
    return {**facts, "norms": [None if p.grad is None else float(p.grad.norm()) for p in net.parameters()]}


class _Adam:
    """torch.optim.Adam's update (its defaults), written out: torch.optim's first optimizer imports
    torch._dynamo, 2.7 s of a cell's 30 s on an idle grader and far more on a loaded one."""

    def __init__(self, params, betas=(0.9, 0.999), eps=1e-8):
        self.params = [p for p in params if p.requires_grad]
        self.betas, self.eps, self.step_count = betas, eps, 0
        self.moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in self.params]

    @torch.no_grad()
    def step(self, lr):
        self.step_count += 1
        b1, b2 = self.betas
        first_bias, second_bias = 1 - b1 ** self.step_count, (1 - b2 ** self.step_count) ** 0.5
        for p, (m, v) in zip(self.params, self.moments):
            if p.grad is None:
                continue
            m.lerp_(p.grad, 1 - b1)
            v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
            p.addcdiv_(m, (v.sqrt() / second_bias).add_(self.eps), value=-lr / first_bias)
            p.grad = None


def loss_training(function, batches, mask, vocab_size, size, lr):
    """Train a fresh TinyDenoiser with the student's loss on the given batches (Adam, the learning
    rate falling linearly to zero); returns its weights for the checker to judge, or what broke."""
    net = _denoiser(vocab_size, **size)
    batches = torch.as_tensor(batches, dtype=torch.long)
    steps = len(batches)
    opt = _Adam(net.parameters())
    for step, x_0 in enumerate(batches):
        for p in opt.params:
            p.grad = None
        result = outcome(function, (net, x_0, mask))
        if result[0] == "raised":
            return {"step": step, "raised": result[1:]}
        facts = _loss_facts(result[1])
        if not (facts["is_tensor"] and result[1].numel() == 1 and result[1].requires_grad
                and np.isfinite(facts.get("value", np.nan))):
            return {"step": step, **facts}
        try:
            result[1].backward()
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as err:  # noqa: BLE001
            return {"step": step, "backward_raised": [type(err).__name__, _text(err)]}
        opt.step(float(lr) * (1 - step / steps))
    return {"weights": {name: value.detach().clone() for name, value in net.state_dict().items()}}


def drawing(function):
    """What a notebook cell drew and printed (a `drawn.Cell` handed to run_check), as plain data;
    None for anything else."""
    from .drawn import Cell
    return function.data() if isinstance(function, Cell) else None


DRIVERS = {f.__name__: f for f in (drawing, call_many, repeat, chains, call_with_globals, notebook_values, counted,
                                   loss_observe, loss_values, loss_backprop, loss_training)}
