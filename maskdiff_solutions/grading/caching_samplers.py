"""Hidden checks for notebook 07's cached samplers: the exact cache of a block-causal network
(SampleBlocksCached) and Fast-dLLM's prefix and dual caches of a bidirectional one
(SampleBlocksPrefixCache).

Each check hands the student's sampler a network that lives in the checker (`RecordingNet`: called
back across the socket, tensors crossing as data): a small CachingDenoiser with random weights, in
float64, that records every call (the positions it ran, where they start, which keys and values its
`past` held and which call made them, the mask it was given) and returns (logits, present). The
reference sampler runs on a twin of it, and the student's run is judged call by call against that:
the same positions in the same order, each call seeing exactly the keys it should (made by the right
call), no key hidden by `attend`, the same tokens before every call, the same row at the end. The
helpers of notebooks 05 and 06 (and this notebook's BlockCausalMask) are bound to the references for
the call, so a bug in a carried cell costs nothing here.

Nothing is drawn at random: the networks' weights and the prompts come from fixed seeds, so a
correct sampler never fails and no false-failure bound (ALPHA) is needed. Other correct orders of
work (a block's logits ranked alone, past concatenated another way or kept in another order, a
softmax in float64, a cache kept in float32) move the probabilities by rounding only, 1e-7 at most
(candidate_distributions works in float32); the weights' spread keeps every decision far from a tie:
over every case of these checks, along the reference's run, each masked position of the current
block has a best candidate ahead of its runner-up by at least 1e-3 in probability, and the last
confidence a call commits is at least 4e-3 above the first it leaves
(tests/grading/test_checks_caching.py holds both), so rounding never changes a token.

What the task text must state, since the checks hold students to it:
- SampleBlocksCached(net, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(),
  rule="even") and SampleBlocksPrefixCache(net, prompt, gen_length, block_length, steps, mask_id,
  pad_id, control_ids=(), rule="even", dual=False, kept=None) return the finished row, prompt then
  generation, as integer ids (a 1-D tensor, or [1, L]). The checks pass every argument by position
  (dual and kept the 10th and 11th), the prompt a 1-D torch.long tensor, possibly empty.
- They use `net` only by calling it, net(x, attend=None, past=None, start=0) -> (logits, present),
  never its parameters, modes or device (the checks' network is a plain function on the CPU; they
  bind the notebook's `device` to "cpu"), with x a [1, n] torch.long tensor of ids (x[:, a:b] of the
  row), `start` the position of x's first id, past None or one (k, v) pair per layer as net
  returned them (sliced or concatenated along dim 2, never an empty list); attend None (or all
  True) in every call. Calls that run no position (n = 0) are ignored.
- The row is prompt (P ids, possibly none) then gen_length masks; block j (from 1) is positions
  P + (j - 1) * block_length to P + j * block_length - 1; each block gets steps / blocks calls, and
  call k of a block commits TransferCounts(block_length, steps / blocks, rule)[k] masks of that block,
  the most confident, as notebook 06's SampleBlocks (candidate_distributions on that call's logits,
  control ids plus mask_id and pad_id never proposed, then reverse_update with the block as the
  slots): the same tokens as SampleBlocksBlockCausal / SampleBlocks on the same network.
- SampleBlocksCached's calls, in this order: the prompt once, net(x[:, :P]) with nothing cached (no
  call when P = 0); then per block, each of its calls net(x[:, start:end], past=past, start=start)
  with past holding every position before the block (the prompt and all finished blocks); after a
  block's last call, for each block but the last, one more, clean, call on the block the same way,
  whose keys and values join past. So positions = TokensProcessed(P, gen_length, block_length,
  steps, "exact") and calls = [P > 0] + steps + blocks - 1.
- SampleBlocksPrefixCache's calls: a block's first call runs the whole row, net(x), nothing cached,
  and its logits commit as every call's do; it refreshes the cache: past becomes the keys and values
  it returned for the positions before the block (dual=False) or for every position but the block's
  (dual=True), in the row's order or any other. The block's later calls run x[:, start:] (prefix)
  or x[:, start:end] (dual) with that past and start=start. Positions = TokensProcessed(...,
  "prefix" or "dual"). When `kept` is a list, each refresh appends to it one entry: the keys that call
  returned, one [1, heads, P + gen_length, dim // heads] tensor per layer (a list or tuple of them).
- ValueErrors (both samplers, SampleBlocksPrefixCache's "as in SampleBlocksCached"): gen_length,
  block_length or steps < 1, gen_length not a multiple of block_length, steps not a multiple of the
  number of blocks, checked first, before any call: a refused call has called net no time, changed
  neither the prompt nor `kept`, and built no canvas (a negative gen_length, where building one raises
  torch's error). A valid call must reach the network (what it then does is the other checks' to
  judge); one position, blocks of one and one call a block are valid.
- `rule` and `control_ids` matter: a case's blocks split differently under the two rules (5 masks in
  two calls: "even" [3, 2], "schedule" [2, 3]), and its network leans to the padding and the control
  ids (TEMPTING).
Edges a text may leave open are neither asked for nor refused: whole floats, bools, prompts as lists.
"""
from dataclasses import dataclass, field

import numpy as np
import torch

from .. import batched as ref05
from .. import caching as ref
from .. import revising as ref06
from .revising import block_rule
from ..block_denoiser import CachingDenoiser
from .core import Failure, check, expect, raised, refused, stated, token_ids, type_name, value_of

VOCAB, DIM, HEADS, LAYERS, MAX_LENGTH = 23, 16, 2, 2, 32
SPREAD = 0.5        # the random weights' standard deviation: confident, distinct decisions
SAME_KEY = 1e-6     # a cached key or value within this (relative) of one net returned is that one
KEPT = 10           # SampleBlocksPrefixCache's argument `kept`, by position


def random_network(seed, pad_id, tempt=()):
    """The checks' CachingDenoiser: every parameter drawn from `seed` (matrices N(0, SPREAD^2), the
    layer norms' scales near 1, other vectors small), in float64, in eval mode, without gradients; the
    logits of the ids `tempt` raised by TEMPT."""
    g = torch.Generator().manual_seed(seed)
    net = CachingDenoiser(VOCAB, dim=DIM, heads=HEADS, layers=LAYERS, max_length=MAX_LENGTH, pad_id=pad_id)
    with torch.no_grad():
        for module in net.modules():
            for name, p in module.named_parameters(recurse=False):
                noise = torch.randn(p.shape, generator=g)
                scale = isinstance(module, torch.nn.LayerNorm) and name == "weight"
                p.copy_(noise * SPREAD if p.dim() > 1 else 1 + 0.1 * noise if scale else 0.1 * noise)
        net.out.bias[list(tempt)] += TEMPT
    return net.double().eval().requires_grad_(False)


# The cases whose network leans to the padding and the control ids (their logits raised by TEMPT), so
# that a sampler that leaves `pad_id` or `control_ids` out of the controls commits them.
TEMPT = 4.0


def tempting(case):
    P, G, B, steps, mask_id, pad_id, control, rule = case
    return (pad_id, *control) if case in TEMPTING else ()


def span(start, n):
    return f"positions {start} to {start + n - 1}" if n > 1 else f"position {start}" if n else "no position"


def runs(positions):
    """Sorted positions as ranges: '0 to 4, 9'."""
    out = []
    for i in sorted(positions):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return ", ".join(f"{a} to {b}" if b > a else f"{a}" for a, b in out)


def ran(start, n, cached):
    return f"{span(start, n)} (start={start}) seeing {cached} cached"


@dataclass
class Call:
    """One call of the network that ran positions. origins: for each column of its past, the
    (call, position) pairs whose keys and values it equals; attend: "" or what the mask hid; keys:
    the keys it returned, one a layer."""
    start: int
    n: int
    ids: torch.Tensor
    origins: list
    attend: str
    keys: list

    @property
    def cached(self):
        return len(self.origins)


@dataclass
class RecordingNet:
    """A network of the checker, handed to the student's sampler: CachingDenoiser's forward on a
    `random_network`, refusing with the rule what the notebook's network cannot take, and keeping a
    `Call` for each call that runs positions, with the keys and values it returned (`made`: a row of
    every layer's k and v per position; `owners`: its (call, position))."""
    net: CachingDenoiser
    what: str = "the sampler"   # the run, in words, for what it refuses
    calls: list = field(default_factory=list)
    made: list = field(default_factory=list)
    owners: list = field(default_factory=list)

    def __call__(self, x, attend=None, past=None, start=0):
        c = len(self.calls)
        call = f"{self.what}: call {c + 1} of net was handed"
        x = self.ids(x, call)
        n, start = x.shape[1], self.position(start, x, call)
        past, origins = self.cache(past, call)
        hidden = self.mask(attend, n, len(origins), call)
        with torch.no_grad():
            logits, present = self.net(x, attend, past, start)
        if n:   # a call that runs nothing is not one the checks count
            self.calls.append(Call(start, n, x[0].clone(), origins, hidden, [k for k, _ in present]))
            self.made.append(fingerprints(present))
            self.owners += [(c, start + i) for i in range(n)]
        return logits, [(k, v) for k, v in present]

    def ids(self, x, call):
        expect(torch.is_tensor(x), f"{call} {type_name(x)}: net takes a [1, n] tensor of ids, x[:, start:end]")
        expect(x.dim() == 2 and x.shape[0] == 1 and x.dtype == torch.long,
               f"{call} a tensor of shape {list(x.shape)} and dtype {str(x.dtype).replace('torch.', '')}: net takes "
               f"a [1, n] torch.long tensor of ids (x[:, start:end] of the row, keeping its batch dimension)")
        return x

    def position(self, start, x, call):
        try:
            value = int(start)
            whole = bool(value == start)
        except (TypeError, ValueError, RuntimeError):
            whole = False
        expect(whole, f"{call} start = {start!r}: the position of x's first id, a whole number")
        expect(0 <= value and value + x.shape[1] <= MAX_LENGTH,
               f"{call} {x.shape[1]} ids at start={value}: {span(value, x.shape[1])} lie outside the row")
        return value

    def cache(self, past, call):
        """past as the network takes it (float64), and the origins of its columns."""
        if past is None:
            return None, []
        rule = (f"past is None (nothing cached) or one (k, v) pair per layer ({LAYERS} here), each "
                f"[1, heads, m, dim // heads], as net returned them")
        try:
            pairs = [tuple(pair) for pair in past]
        except TypeError:
            raise Failure(f"{call} past = {type_name(past)}: {rule}") from None
        expect(len(pairs) == LAYERS and all(len(pair) == 2 for pair in pairs),
               f"{call} a past of {len(pairs)} items: {rule}")
        tensors = [t for pair in pairs for t in pair]
        shaped = all(torch.is_tensor(t) and t.dim() == 4 and tuple(t.shape[:2]) == (1, HEADS)
                     and t.shape[2] == tensors[0].shape[2] and t.shape[3] == DIM // HEADS for t in tensors)
        expect(shaped, f"{call} a past whose tensors are "
                       f"{[list(t.shape) if torch.is_tensor(t) else type_name(t) for t in tensors]}: {rule}")
        past = [(k.double(), v.double()) for k, v in pairs]
        return past, self.origins(fingerprints(past))

    def origins(self, columns):
        if not self.made or not len(columns):
            return [[] for _ in range(len(columns))]
        table = torch.cat(self.made)
        close = ((columns[:, None] - table[None]).abs() <= SAME_KEY * (1 + table.abs())[None]).all(-1)
        return [[self.owners[i] for i in torch.nonzero(row).flatten().tolist()] for row in close]

    def mask(self, attend, n, cached, call):
        """What `attend` hides ("" when nothing), refusing what the network cannot take."""
        if attend is None:
            return ""
        what = f"{call} attend ="
        kind = str(attend.dtype).replace("torch.", "") if torch.is_tensor(attend) else type_name(attend)
        expect(torch.is_tensor(attend) and attend.dtype == torch.bool,
               f"{what} {kind}: attend is None or a Boolean tensor (a mask of numbers is added to the scores: "
               f"it hides nothing)")
        expect(tuple(attend.shape) == (n, cached + n), f"{what} a tensor of shape {list(attend.shape)}: it should "
                                                       f"be [n, cached + n] = [{n}, {cached + n}]")
        if bool(attend.all()):
            return ""
        q, k = (int(i) for i in torch.nonzero(~attend)[0])
        key = f"cached key {k}" if k < cached else f"the key of x's position {k - cached}"
        return f"hid {key} from the query of x's position {q}"


def fingerprints(pairs):
    """[positions, features]: each position's keys and values of every layer, side by side."""
    return torch.cat([t[0].permute(1, 0, 2).reshape(t.shape[2], DIM) for pair in pairs for t in pair], 1)


def notebook_helpers():
    """The names a sampler of this notebook reads, bound to the references (notebooks 05 and 06's
    helpers, carried, and BlockCausalMask: their checks come earlier), and `device` to the CPU, where
    the checks' network lives."""
    return {**{name: getattr(ref05, name) for name in ("blank_canvas", "candidate_distributions",
                                                       "confidence_scores", "reveal_counts", "reverse_update")},
            "TransferCounts": ref06.TransferCounts, "BlockCausalMask": ref.BlockCausalMask, "device": "cpu"}


# ---------------------------------------------------------------- the calls a sampler should make

@dataclass(frozen=True)
class Expected:
    role: str        # in words: "the prompt's run", "block 2's call 1", "block 1's clean run"
    kind: str        # "prompt", "call", "clean" (exact); "refresh", "call" (prefix and dual)
    block: int       # 0 for the prompt, j >= 1 for block j
    k: int           # the call's number in its block (from 1), 0 for a run that commits nothing
    start: int
    n: int
    held: frozenset  # the positions its past holds


def exact_plan(P, G, B, steps):
    """SampleBlocksCached's calls, in order."""
    plan = [Expected("the prompt's run", "prompt", 0, 0, 0, P, frozenset())] if P else []
    blocks = G // B
    for j in range(1, blocks + 1):
        start = P + (j - 1) * B
        before = frozenset(range(start))
        plan += [Expected(f"block {j}'s call {k}", "call", j, k, start, B, before)
                 for k in range(1, steps // blocks + 1)]
        if j < blocks:
            plan.append(Expected(f"block {j}'s clean run", "clean", j, 0, start, B, before))
    return plan


def prefix_plan(P, G, B, steps, dual):
    """SampleBlocksPrefixCache's calls, in order."""
    L, blocks, plan = P + G, G // B, []
    for j in range(1, blocks + 1):
        start = P + (j - 1) * B
        plan.append(Expected(f"block {j}'s first call (the refresh)", "refresh", j, 1, 0, L, frozenset()))
        held = frozenset(range(start)) | (frozenset(range(start + B, L)) if dual else frozenset())
        plan += [Expected(f"block {j}'s call {k}", "call", j, k, start, B if dual else L - start, held)
                 for k in range(2, steps // blocks + 1)]
    return plan


# ---------------------------------------------------------------- judging a run

def judge_sequence(calls, plan, what, rules):
    """Each call ran the positions the plan says (what it saw is judge_past's); none more, none fewer."""
    for c, (got, want) in enumerate(zip(calls, plan)):
        if (got.start, got.n) != (want.start, want.n):
            raise Failure(f"{what}: call {c + 1} of net ran {ran(got.start, got.n, got.cached)}; it should be "
                          f"{want.role}, {ran(want.start, want.n, len(want.held))}{rules.hint(got, want)}")
    if len(calls) > len(plan):
        extra = calls[len(plan)]
        raise Failure(f"{what}: call {len(plan) + 1} of net ran {ran(extra.start, extra.n, extra.cached)} after "
                      f"the last one it should make ({plan[-1].role}){rules.hint(extra, None)}; in all "
                      f"{len(calls)} calls ran {sum(call.n for call in calls)} positions, not {len(plan)} "
                      f"running {sum(e.n for e in plan)}")
    if len(calls) < len(plan):
        want = plan[len(calls)]
        raise Failure(f"{what} made {len(calls)} calls of net; call {len(calls) + 1} should be {want.role}, "
                      f"{ran(want.start, want.n, len(want.held))}{rules.hint(None, want)}")


def judge_past(c, calls, plan, what, rules):
    """The past of call c holds each position it should once, made by the call `rules` says."""
    call, want = calls[c], plan[c]
    unknown = sum(not origin for origin in call.origins)
    expect(not unknown, f"{what}: call {c + 1} of net ({want.role}) was handed {unknown} cached keys and values "
                        f"that net never returned: keep them as net returns them, layer by layer, each key with "
                        f"its value")
    held = [origin[-1][1] for origin in call.origins]
    twice = sorted({i for i in held if held.count(i) > 1})
    where = f"{what}: the past of call {c + 1} of net ({want.role})"
    expect(not twice, f"{where} holds positions {runs(twice)} twice: each position is cached once")
    extra, missing = set(held) - want.held, want.held - set(held)
    expect(not extra, f"{where} holds positions {runs(extra)}; {rules.held(want)}")
    expect(not missing, f"{where} lacks positions {runs(missing)}; {rules.held(want)}{rules.missing(missing)}")
    for position, origin in zip(held, call.origins):
        makers = [d for d, i in origin if i == position]
        problem = rules.made(position, makers, calls, plan, c)
        expect(not problem, f"{where}: the keys and values of position {position} were made by {problem}")


def judge_calls(calls, plan, reference, what, rules):
    """The student's calls, in order, against the plan and the reference's run on a twin network."""
    judge_sequence(calls, plan, what, rules)
    for c, (call, want, same) in enumerate(zip(calls, plan, reference)):
        judge_past(c, calls, plan, what, rules)
        expect(not call.attend, f"{what}: call {c + 1} of net ({want.role}) was handed a mask that {call.attend}: "
                                f"{rules.attend}; pass attend=None")
        if not torch.equal(call.ids, same.ids):
            where = [call.start + int(i) for i in torch.nonzero(call.ids != same.ids).flatten()]
            raise Failure(f"{what}: the ids handed to call {c + 1} of net ({want.role}) differ from the "
                          f"reference's at positions {runs(where)}: {call.ids.tolist()}, expected "
                          f"{same.ids.tolist()}. {rules.commit(plan, c)}")


class Rules:
    """What a sampler's calls should hold, in words, for its case (P, G, B, steps, mask_id, pad_id,
    control_ids, rule)."""
    attend = "nothing is hidden"

    def __init__(self, case):
        self.case = case
        self.P, _, self.B = case[:3]

    def commit(self, plan, c):
        """What the commit after the last committing call before c should have done."""
        _, G, B, steps, mask_id, pad_id, control, rule = self.case
        before = next((e for e in reversed(plan[:c]) if e.k), None)
        if before is None:
            return (f"The row starts as the prompt, then {G} masks (mask_id = {mask_id}), and nothing is committed "
                    f"before a block's first call")
        per_block = steps // (G // B)
        budget = ref06.TransferCounts(B, per_block, rule or "even")
        controls = sorted({mask_id, pad_id, *(control or ())})
        clean = ("A block's clean run is handed its final ids, once its last call's commit is made. "
                 if plan[c].kind == "clean" else "")
        return (f"{clean}After {before.role.split(' (')[0]}, {budget[before.k - 1]} of block {before.block}'s masks "
                f"should be committed (TransferCounts({B}, {per_block}, {rule or 'even'!r}) = {budget}), the most "
                f"confident: candidate_distributions on that call's logits (control ids {controls} never "
                f"proposed), then reverse_update with the block's positions as the slots")

    def started(self, got, want):
        if got is not None and want is not None and got.n == want.n and got.start == 0 != want.start:
            return (f": net numbers x's positions from `start` (0 unless given): pass start={want.start}, the "
                    f"position of x's first id")
        return ""


class ExactRules(Rules):
    attend = ("a cached call's block sees every cached position and each of its own, both ways, so nothing "
              "is hidden")

    def held(self, want):
        if not want.start:
            return "the first block's calls, with no prompt, see nothing cached"
        return (f"a call on block {want.block} sees the keys and values of every position before it, 0 to "
                f"{want.start - 1} (the prompt and the finished blocks), and of nothing else")

    def missing(self, missing):
        if self.P and set(range(self.P)) <= missing:
            return ": the prompt's keys and values, from its run, stay in past for every later call"
        return (": after a block's last call, run it once more, clean, with start = its first position, and "
                "append the keys and values that run returns to past")

    def made(self, position, makers, calls, plan, c):
        """"" when a call that ran exactly the position's block, once final, made it; else what did."""
        first, size = (0, self.P) if position < self.P else (position - (position - self.P) % self.B, self.B)
        mask_id = self.case[4]
        if any(calls[d].start == first and calls[d].n == size and not bool((calls[d].ids == mask_id).any())
               for d in makers):
            return ""
        d = makers[-1]
        if bool((calls[d].ids == mask_id).any()):
            return (f"call {d + 1}, while its block still had masks: a block's keys and values are stored from "
                    f"one more, clean, run after its last call, once its ids are final")
        return (f"call {d + 1}, which ran {span(calls[d].start, calls[d].n)}: they come from the run of "
                f"{span(first, size)}, {'the prompt' if position < self.P else 'the block'}, alone")

    def hint(self, got, want):
        if got is not None and self.P and got.start < self.P and (want is None or want.kind != "prompt"):
            return (": the prompt ran again. It runs once, first, as net(x[:, :P]); its keys and values are kept "
                    "in past, and every later call runs the current block only")
        if self.started(got, want):
            return self.started(got, want)
        if want is None and got is not None and got.n == self.B:
            return (": nothing reads the last block's keys and values, so the last block is not run again "
                    "(each finished block but the last gets one clean run)")
        if want is not None and want.kind == "clean":
            return (": after a block's last call, run the block once more, clean (its ids final), and append "
                    "its keys and values to past")
        if want is not None and want.kind == "prompt":
            return ": the prompt runs first, once, with nothing cached"
        return ""


class PrefixRules(Rules):
    attend = "with a bidirectional network every query sees every key"

    def __init__(self, case, dual):
        super().__init__(case)
        self.dual = dual

    def held(self, want):
        if want.kind == "refresh":
            return "a block's first call, the refresh, runs the whole row with nothing cached"
        if self.dual:
            return (f"the dual cache holds every position but the block's ({span(want.start, self.B)}), whose ids "
                    f"change as it fills")
        return (f"the prefix cache holds the positions before the block ({span(0, want.start)}); the block and "
                f"what follows it run in the call")

    def missing(self, missing):
        return ""

    def made(self, position, makers, calls, plan, c):
        """"" when this block's refresh made it; else what did."""
        refresh = max(d for d in range(c) if plan[d].kind == "refresh")
        if refresh in makers:
            return ""
        d = makers[-1]
        if plan[d].kind == "refresh":
            return (f"call {d + 1}, an earlier block's refresh, not call {refresh + 1}: refresh the cache at each "
                    f"block's first call, from the keys and values it returns")
        return (f"call {d + 1}, a call that ran with the cache, not call {refresh + 1}, the block's refresh: keep "
                f"the keys and values of the block's first call")

    def hint(self, got, want):
        if want is not None and want.kind == "refresh":
            return ": each block's first call runs the whole row, net(x), with nothing cached, and refreshes the cache"
        if self.started(got, want):
            return self.started(got, want)
        if want is not None and self.dual:
            return f": with the dual cache a block's later calls run the block only, x[:, start:start + {self.B}]"
        if want is not None:
            return (": with the prefix cache a block's later calls run the block and all after it, x[:, start:], "
                    "seeing the cached positions before it")
        return ""

    def commit(self, plan, c):
        said = super().commit(plan, c)
        first = c and plan[c - 1].kind == "refresh"
        return said + (": a block's first call commits too, as every call does" if first else "")


def returned_row(result, want, what):
    """The row the sampler returned (1-D, or [1, L]) is the reference's."""
    value = value_of(result, what)
    if (torch.is_tensor(value) or isinstance(value, np.ndarray)) and value.ndim == 2 and value.shape[0] == 1:
        value = value[0]
    got = token_ids(value, f"what {what} returned", length=len(want))
    expect(torch.equal(got, want), f"{what} returned {got.tolist()}, expected {want.tolist()}")


def case_words(name, case, tail=""):
    P, G, B, steps, mask_id, pad_id, control, rule = case
    given = "" if control is None else f", {control}, {rule!r}"
    return f"{name}(net, prompt, {G}, {B}, {steps}, {mask_id}, {pad_id}{given}{tail}) with a prompt of {P} ids"


@dataclass
class CountingNet:
    """The network of the errors check: the notebook's, counting its calls, judging nothing."""
    net: CachingDenoiser
    calls: int = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        with torch.no_grad():
            return self.net(*args, **kwargs)


def sample(sampler, case, seed, extra=(), filled=(), kind=RecordingNet, what=""):
    """One run of `sampler` (the student's, through the drivers, or a reference) on the case's network
    (a `kind` of it, `what` naming the run) and prompt: (the network, raw outcome)."""
    P, G, B, steps, mask_id, pad_id, control, rule = case
    prompt = torch.randint(2, 21, (P,), generator=torch.Generator().manual_seed(1000 + seed))
    model = kind(random_network(seed, pad_id, tempting(case)), *([what] if what else []))
    args = [model, prompt, G, B, steps, mask_id, pad_id, *([] if control is None else [control, rule]), *extra]
    if not hasattr(sampler, "with_globals"):
        return model, ["ok", sampler(*args)]
    return model, sampler.with_globals(notebook_helpers(), *args, filled=filled)


def judged(student, reference, case, seed, plan, what, rules, extra=(), filled=()):
    """Run the student's sampler and the reference's on twin networks; judge the calls and the row."""
    model, result = sample(student, case, seed, extra, filled, what=what)
    twin, (_, want) = sample(reference, case, seed, extra)
    if result[0] == "raised":   # what it did before it raised says more than the error
        judge_calls(model.calls, plan[:len(model.calls)], twin.calls, what, rules)
        raise Failure(f"{what} {raised(result[1], result[2])} (after {len(model.calls)} calls of net)")
    judge_calls(model.calls, plan, twin.calls, what, rules)
    returned_row(result, want, what)
    return model, result


# ---------------------------------------------------------------- SampleBlocksCached

# (prompt length, gen_length, block_length, steps, mask_id, pad_id, control_ids, rule); None: the defaults.
# No prompt, blocks of one position, one block, one call a block and several, both rules.
# The last: blocks of 5 in two calls each, where the rules differ ("even" [3, 2], "schedule" [2, 3]),
# on a network that tempts (TEMPTING).
EXACT_CASES = [(0, 4, 1, 4, 1, 0, (5,), "even"),
               (3, 6, 6, 3, 22, 21, (), "schedule"),
               (4, 8, 2, 4, 22, 21, (), "even"),
               (5, 12, 4, 6, 1, 0, (5,), "even"),
               (2, 9, 3, 9, 1, 0, (5, 9), "schedule"),
               (0, 10, 5, 6, 1, 0, None, None),
               (3, 10, 5, 4, 22, 21, (5, 9), "schedule")]
TEMPTING = {(3, 10, 5, 4, 22, 21, (5, 9), "schedule"), (2, 10, 5, 4, 22, 21, (5, 9), "schedule"),
            (1, 10, 5, 4, 22, 21, (5, 9), "even")}


@check("SampleBlocksCached.exact")
def sample_blocks_cached(SampleBlocksCached):
    for seed, case in enumerate(EXACT_CASES):
        plan = exact_plan(*case[:4])
        judged(SampleBlocksCached, ref.SampleBlocksCached, case, seed, plan,
               case_words("SampleBlocksCached", case), ExactRules(case))


# (why, prompt length, gen_length, block_length, steps): each breaks one rule. A negative gen_length
# leaves no canvas to build: a sampler that builds it before checking the rules raises torch's error.
SAMPLER_ERRORS = [("gen_length = 10 is not a multiple of block_length = 4", 3, 10, 4, 4),
                  ("gen_length = 9 is not a multiple of block_length = 6", 0, 9, 6, 3),
                  ("steps = 4 is not a multiple of the 3 blocks", 3, 12, 4, 4),
                  ("steps = 5 is not a multiple of the 2 blocks", 2, 16, 8, 5),
                  ("block_length = 0: blocks hold at least one position", 3, 8, 0, 4),
                  ("block_length = -4: blocks hold at least one position", 3, 8, -4, 4),
                  ("steps = 0: every block needs at least one call", 3, 8, 4, 0),
                  ("gen_length = 0: there is nothing to generate", 3, 0, 4, 4),
                  ("gen_length = -4: there is nothing to generate", 2, -4, 4, 4)]

# Valid calls beside them, which must get past the rules to the network: a function that refuses
# everything has not learnt what to refuse (what the sampling then does is the other checks'). One
# position, blocks of one and one call a block sit on the rules' boundary ("at least 1").
SAMPLER_ALLOWED = [(3, 8, 4, 4), (0, 3, 1, 3), (2, 6, 2, 3), (2, 1, 1, 1), (1, 2, 2, 1)]
PROMPT = 1   # the samplers' argument `prompt`, by position


def refuses_before_work(sampler, name, extra=()):
    """Each case of SAMPLER_ERRORS raises a ValueError before anything else happens (the text: the rules
    are checked first, before any call): no call of net, the prompt (and `kept`) as they were handed in;
    each case of SAMPLER_ALLOWED gets past the rules to the network."""
    sent = [PROMPT, *([KEPT] if len(extra) > 1 else [])]
    for seed, (why, *shape) in enumerate(SAMPLER_ERRORS):
        case = (*shape, 1, 0, (), "even")
        what = case_words(name, case)
        model, result = sample(sampler, case, seed, extra, filled=sent, kind=CountingNet)
        refused(result, why, what)
        first = f"{what} raised, but first "
        expect(not model.calls, f"{first}called net {model.calls} times: check the rules first, before any call "
                                f"of net (and before the canvas is built)")
        left = result[5] if len(result) > 5 and isinstance(result[5], dict) else {}
        prompt = torch.randint(2, 21, (shape[0],), generator=torch.Generator().manual_seed(1000 + seed))
        try:
            same = torch.equal(torch.as_tensor(left.get(PROMPT, prompt)).long(), prompt)
        except (TypeError, ValueError, RuntimeError):
            same = False
        expect(same, f"{first}changed the prompt it was handed: check the rules first, before any work")
        expect(left.get(KEPT, []) == [], f"{first}appended to `kept`: check the rules first, before any work")
    for seed, shape in enumerate(SAMPLER_ALLOWED):
        case = (*shape, 1, 0, (), "even")
        model, result = sample(sampler, case, seed, extra, kind=CountingNet)
        expect(model.calls or result[0] == "ok" or "ValueError" not in result[3],
               f"{case_words(name, case)} is a valid call ({shape[1]} positions in blocks of {shape[2]}, {shape[3]} "
               f"steps) and it {raised(result[1], result[2]) if result[0] == 'raised' else ''} before calling net: "
               f"only the rules' violations are refused")


stated("SampleBlocksCached.errors", {why: block_rule(why) for why, *_ in SAMPLER_ERRORS})
stated("SampleBlocksPrefixCache.errors", {why: ("SampleBlocksCached", block_rule(why)) for why, *_ in SAMPLER_ERRORS})


@check("SampleBlocksCached.errors")
def sample_blocks_cached_errors(SampleBlocksCached):
    refuses_before_work(SampleBlocksCached, "SampleBlocksCached")


# ---------------------------------------------------------------- SampleBlocksPrefixCache

# As EXACT_CASES, and whether `kept` is a list; the defaults (control_ids, rule, dual and kept left out)
# in the prefix check only.
PREFIX_CASES = [((0, 4, 2, 4, 1, 0, (5,), "even"), True),
                ((3, 6, 6, 3, 22, 21, (), "schedule"), True),
                ((4, 8, 2, 4, 22, 21, (), "even"), False),
                ((5, 12, 4, 6, 1, 0, (5,), "even"), True),
                ((2, 9, 3, 9, 1, 0, (5, 9), "schedule"), True),
                ((0, 10, 5, 6, 1, 0, None, None), False),
                ((2, 10, 5, 4, 22, 21, (5, 9), "schedule"), False),
                ((1, 10, 5, 4, 22, 21, (5, 9), "even"), True)]


def kept_keys(entries, calls, plan, what):
    """`kept` holds one entry a refresh: the keys it returned, one [1, heads, L, d] tensor a layer."""
    refreshes = [c for c, e in enumerate(plan) if e.kind == "refresh"]
    rule = (f"kept should receive, at each block's first call (the refresh), the keys that call returned: one "
            f"entry a refresh, {len(refreshes)} here, each a list of {LAYERS} tensors (one a layer) of shape "
            f"[1, heads, {plan[0].n}, dim // heads]")
    count = len(entries) if isinstance(entries, (list, tuple)) else type_name(entries)
    expect(isinstance(entries, list) and len(entries) == len(refreshes), f"{what}: {rule}; it holds {count} entries")
    for r, (entry, c) in enumerate(zip(entries, refreshes)):
        try:
            got = [torch.as_tensor(t).double() for t in entry]
        except (TypeError, ValueError, RuntimeError):
            raise Failure(f"{what}: entry {r} of kept is {type_name(entry)}; {rule}") from None
        want = calls[c].keys
        shapes = [list(t.shape) for t in got]
        expect(shapes == [list(k.shape) for k in want], f"{what}: entry {r} of kept holds shapes {shapes}; {rule}")
        for layer, (g, k) in enumerate(zip(got, want)):
            expect(bool(((g - k).abs() <= SAME_KEY * (1 + k.abs())).all()),
                   f"{what}: entry {r} of kept, layer {layer}, is not the keys call {c + 1} of net ({plan[c].role}) "
                   f"returned; {rule}")


def prefix_cases(student, dual):
    for seed, (case, keep) in enumerate(PREFIX_CASES):
        defaults = case[6] is None and not dual
        extra = [] if defaults else [dual, [] if keep else None]
        if case[6] is None and dual:
            case = (*case[:6], (), "even")
        tail = "" if defaults else f", dual={dual}" + (", kept=[]" if keep else ", kept=None")
        what = case_words("SampleBlocksPrefixCache", case, tail)
        model, result = judged(student, ref.SampleBlocksPrefixCache, case, seed, prefix_plan(*case[:4], dual), what,
                               PrefixRules(case, dual), extra, filled=[KEPT] if keep else ())
        if keep:
            kept_keys(result[3][KEPT], model.calls, prefix_plan(*case[:4], dual), what)


@check("SampleBlocksPrefixCache.prefix")
def sample_blocks_prefix(SampleBlocksPrefixCache):
    prefix_cases(SampleBlocksPrefixCache, dual=False)


@check("SampleBlocksPrefixCache.dual")
def sample_blocks_dual(SampleBlocksPrefixCache):
    prefix_cases(SampleBlocksPrefixCache, dual=True)


@check("SampleBlocksPrefixCache.errors")
def sample_blocks_prefix_errors(SampleBlocksPrefixCache):
    refuses_before_work(SampleBlocksPrefixCache, "SampleBlocksPrefixCache", extra=(False, []))
