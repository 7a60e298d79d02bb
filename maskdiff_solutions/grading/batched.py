"""Hidden checks for notebook 05: the first pass, confidence, reveal budgets, the reverse update
and the batched sampler. Everything here is deterministic given the inputs, so the checks compare
with the reference exactly (confidences are drawn distinct, so no ties decide anything). The fake
denoiser and, for `sample`, the reference helpers stay with the checker: the student's code calls
them back, so their call counts are ours. `sample`'s rows are held token for token to the reference's
row-by-row run, whose model calls have other shapes than a batched sampler's: along both, every
committed candidate leads its runner-up by 1.2e-2 in probability and every call's last commit lies
8e-4 above the first confidence it leaves, where another batch shape, thread count or softmax moves
the probabilities by 5e-7 at most (tests/grading/test_checks_batched.py holds it).

`sample` is held to the notebook's device rule without a GPU: its model is a plain function from ids
on the CPU to logits on the CPU (fakes.CpuModel, as `story_model` is), the notebook's `device` is bound
to a device without data for the call, and the model and helpers refuse tensors from there. A canvas
moved to `device` (or to the model's parameters' device) fails here as it crashes on Colab's GPU."""
import torch

from .. import batched as ref
from .core import Failure, call, changed, check, expect, not_integers, refused, stated, value_of, vector
from .fakes import ELSEWHERE, CpuModel, FakeDenoiser, off_cpu, on_cpu

PAD, MASK = 0, 1
# Other ids for the mask and the padding (within the fake denoiser's 23 tokens), used by a few calls:
# a function that reads 0 and 1 (or the notebook's ids) in place of its mask_id and pad_id is caught.
OTHER_PAD, OTHER_MASK = 21, 22


def relabel(x, mask_id, pad_id):
    """Ids written with MASK and PAD, with mask_id and pad_id in their place (and the other way round)."""
    swap = {MASK: mask_id, mask_id: MASK, PAD: pad_id, pad_id: PAD}
    return x.clone().apply_(lambda v: swap.get(v, v)) if torch.is_tensor(x) else x


def random_canvas(g, B, L, V=23):
    """Rows with a prefix, masks (some already committed) and PAD tails; slots cover the middle.
    A few masks outside the slots test that slots, not masks alone, decide eligibility."""
    x = torch.randint(2, V, (B, L), generator=g)
    slots = torch.zeros(B, L, dtype=torch.bool)
    for b in range(B):
        start = int(torch.randint(0, L // 2, (1,), generator=g))
        end = int(torch.randint(start + 1, L + 1, (1,), generator=g))
        slots[b, start:end] = True
        x[b, end:] = PAD
        masked = slots[b] & (torch.rand(L, generator=g) < 0.7)
        x[b, masked] = MASK
        if start > 0 and torch.rand(1, generator=g) < 0.5:
            x[b, 0] = MASK  # a mask in the fixed prefix: not a generation slot
    return x, slots


@check("blank_canvas")
def canvas(blank_canvas):
    for B, L, mask_id in ((1, 12, 1), (4, 7, 50256), (3, 1, 0)):
        x = call(blank_canvas, B, L, mask_id, what=f"blank_canvas({B}, {L}, {mask_id})")
        expect(torch.is_tensor(x), f"blank_canvas should return a tensor, got {type(x).__name__}")
        expect(tuple(x.shape) == (B, L), f"blank_canvas({B}, {L}, {mask_id}) should have shape "
                                         f"[{B}, {L}], got {list(x.shape)}")
        expect(x.dtype == torch.long, f"token ids are integers (torch.long), got {x.dtype}")
        expect(bool((x == mask_id).all()), "every position of the canvas should hold the mask id: "
                                           "a fully masked canvas, not an empty tensor")


@check("candidate_distributions")
def distributions(candidate_distributions):
    g = torch.Generator().manual_seed(1)
    for control in ([PAD, MASK], [PAD, MASK, 5]):
        model = FakeDenoiser()
        x, _ = random_canvas(g, 3, 9)
        before = x.clone()
        probs = call(candidate_distributions, model, x, control,
                     what=f"candidate_distributions(model, x, {control})")
        expect(torch.is_tensor(probs) and tuple(probs.shape) == (3, 9, 23),
               f"expected distributions of shape [B, L, V] = [3, 9, 23], got "
               f"{list(getattr(probs, 'shape', []))}")
        expect(torch.equal(x, before), "candidate_distributions changed the canvas: it only predicts")
        expect(model.calls == 1, f"one denoiser call gives every distribution; it was called {model.calls} times")
        probs = probs.detach().float()
        expect(bool((probs[..., control] == 0).all()),
               f"control tokens {control} must get probability exactly 0 (set their logits to -inf "
               "before the softmax)")
        sums = probs.sum(dim=-1)
        expect(torch.allclose(sums, torch.ones_like(sums), atol=1e-4),
               f"each position's distribution over the vocabulary must sum to 1, got sums from "
               f"{float(sums.min()):.3f} to {float(sums.max()):.3f} (softmax over the last axis)")
        want = ref.candidate_distributions(FakeDenoiser(), x, control)
        expect(torch.allclose(probs, want, atol=1e-5), "the distributions differ from the softmax of "
                                                       "the model's logits with control tokens removed")


@check("confidence_scores")
def confidence(confidence_scores):
    g = torch.Generator().manual_seed(2)
    for shape in ((4, 10, 12), (2, 3, 7)):   # two batches: the scores are those of the probs handed in
        probs = torch.rand(*shape, generator=g) ** 3
        probs[..., :3] = 0  # control tokens: zero probability must not produce NaN
        probs = probs / probs.sum(dim=-1, keepdim=True)
        default = vector_2d(call(confidence_scores, probs.clone(), what="confidence_scores(probs)"), "top",
                            shape[:2])
        expect(torch.allclose(default, ref.confidence_scores(probs, "top"), atol=1e-6),
               "by default the confidence is each position's top probability")
        for kind in ref.CONFIDENCE_KINDS:
            got = vector_2d(call(confidence_scores, probs.clone(), kind,
                                 what=f"confidence_scores(probs, {kind!r})"), kind, shape[:2])
            expect(not bool(torch.isnan(got).any()), f"confidence {kind!r} gave NaN (0 * log 0 counts as 0)")
            expect(torch.allclose(got, ref.confidence_scores(probs, kind), atol=1e-5),
                   {"top": "'top' is the largest probability at each position",
                    "margin": "'margin' is the top probability minus the second one",
                    "neg_entropy": "'neg_entropy' is sum p log p over the vocabulary (higher = surer)"}[kind])


def vector_2d(value, kind, shape):
    expect(torch.is_tensor(value) and tuple(value.shape) == tuple(shape),
           f"confidence {kind!r} should have shape [B, L] = {list(shape)}, got {list(getattr(value, 'shape', []))}")
    return value.detach().float()


@check("reveal_counts")
def budgets(reveal_counts):
    g = torch.Generator().manual_seed(3)
    cases = []  # (masks left, steps left) along 50 reference runs of the sampler's budgets
    for _ in range(50):
        left = torch.randint(0, 40, (5,), generator=g)
        for steps_left in range(int(torch.randint(1, 12, (1,), generator=g)), 0, -1):
            cases.append((left, steps_left))
            left = left - ref.reveal_counts(left, steps_left)
    for (left, steps_left), result in zip(cases, reveal_counts.calls(cases)):
        k = vector(value_of(result, f"reveal_counts({left.tolist()}, {steps_left})"),
                   "the reveal counts", length=5, dtype=torch.long)
        want = ref.reveal_counts(left, steps_left)
        expect(torch.equal(k, want), f"with {left.tolist()} masks left and {steps_left} steps to go "
                                     f"the budgets should be ceil(remaining / steps_left) = "
                                     f"{want.tolist()} (one per row), got {k.tolist()}")


EXAMPLE = dict(
    x=torch.tensor([[7, 8, MASK, MASK, MASK, PAD], [9, MASK, MASK, MASK, PAD, PAD]]),
    candidate_ids=torch.tensor([[7, 8, 11, 12, 13, 0], [9, 21, 22, 23, 0, 0]]),
    confidence=torch.tensor([[0.99, 0.97, 0.55, 0.90, 0.72, 0.80], [0.88, 0.60, 0.30, 0.95, 0.10, 0.10]]),
    generation_slots=torch.tensor([[False, False, True, True, True, False],
                                   [False, True, True, True, False, False]]),
    reveal_counts=[2, 1],
)


INPUTS = ("x", "candidate_ids", "confidence", "generation_slots")


def updated(result, x, what):
    """What one call of reverse_update returned, checked: inputs untouched, a tensor of x's shape."""
    out = value_of(result, what)
    for index in sorted(changed(result) & set(range(len(INPUTS)))):
        raise Failure(f"reverse_update modified its input {INPUTS[index]}: build next_x from a clone")
    expect(torch.is_tensor(out) and out.shape == x.shape,
           f"reverse_update should return a tensor of shape {list(x.shape)}")
    integer_ids(out, "reverse_update")
    return out


def integer_ids(out, name):
    held = not_integers(out)
    expect(held is None, f"{name} should return token ids as integers (torch.long, like x), got {held}: "
                         "the next denoiser pass and Decode need integer ids")


def update(reverse_update, x, candidate_ids, confidence, generation_slots, reveal_counts, what):
    result = reverse_update.calls([[x, candidate_ids, confidence, generation_slots, reveal_counts, MASK, PAD]])[0]
    return updated(result, x, what)


@check("reverse_update.example")
def worked_example(reverse_update):
    out = update(reverse_update, **EXAMPLE, what="reverse_update on the lesson's example")
    want = [[7, 8, MASK, 12, 13, PAD], [9, MASK, MASK, 23, PAD, PAD]]
    expect(out.tolist() == want, f"the lesson's example should give {want}, got {out.tolist()}")


# The task's words for each error (core.STATED)
SHAPES, NOT_BOOLEAN, PER_ROW = "position-wise tensors of different shapes", "slots that are not Boolean", \
    "not one count per row"
TOO_MANY, NEGATIVE, MASK_OR_PAD = ("larger than the row's eligible masks", "a count that is negative",
                                   "a committed proposal that is `MASK` or `PAD`")
UPDATE_STATED = {"confidence of another shape": SHAPES, "candidate_ids of another shape": SHAPES,
                 "generation_slots given as 0/1 integers": NOT_BOOLEAN, "three reveal counts for two rows": PER_ROW,
                 "a reveal count above the row's eligible masks (row 1 has 3)": TOO_MANY,
                 "a negative reveal count": NEGATIVE, "the most confident proposal is MASK": MASK_OR_PAD,
                 "the most confident proposal is PAD": MASK_OR_PAD}


def other_ids(why):
    return f"{why} (mask_id = {OTHER_MASK}, pad_id = {OTHER_PAD})"


stated("reverse_update.errors", {**UPDATE_STATED, **{other_ids(why): MASK_OR_PAD for why in list(UPDATE_STATED)[-2:]}})


def bad_inputs():
    """(why, the lesson's example with one thing wrong) for every error reverse_update must catch."""
    e = EXAMPLE
    mask_first, pad_first = e["candidate_ids"].clone(), e["candidate_ids"].clone()
    mask_first[0, 3], pad_first[1, 3] = MASK, PAD
    return [("confidence of another shape", dict(confidence=e["confidence"][:, :5])),
            ("candidate_ids of another shape", dict(candidate_ids=e["candidate_ids"][:1])),
            ("generation_slots given as 0/1 integers", dict(generation_slots=e["generation_slots"].long())),
            ("three reveal counts for two rows", dict(reveal_counts=[1, 1, 1])),
            ("a reveal count above the row's eligible masks (row 1 has 3)", dict(reveal_counts=[1, 4])),
            ("a negative reveal count", dict(reveal_counts=[-1, 1])),
            ("the most confident proposal is MASK", dict(candidate_ids=mask_first)),
            ("the most confident proposal is PAD", dict(candidate_ids=pad_first))]


@check("reverse_update.errors")
def errors(reverse_update):
    e = EXAMPLE
    cases = bad_inputs()
    arguments = [[case[name] for name in (*INPUTS, "reveal_counts")] + [MASK, PAD]
                 for case in ({**EXAMPLE, **changes} for _, changes in cases)]
    # the last two again with other ids for the mask and the padding: the arguments, not 1 and 0
    for why, changes in cases[-2:]:
        case = {**EXAMPLE, **changes}
        cases.append((other_ids(why), changes))
        arguments.append([relabel(case[name], OTHER_MASK, OTHER_PAD) for name in (*INPUTS, "reveal_counts")]
                         + [OTHER_MASK, OTHER_PAD])
    for (why, _), result in zip(cases, reverse_update.calls(arguments)):
        refused(result, why, "reverse_update")
    # ...but a MASK proposal that is not committed is no error:
    candidates = e["candidate_ids"].clone()
    candidates[0, 2] = MASK
    update(reverse_update, e["x"], candidates, e["confidence"], e["generation_slots"], [2, 1],
           what="reverse_update with a MASK proposal that is not among the top 2")


@check("reverse_update.invariants")
def invariants(reverse_update):
    g = torch.Generator().manual_seed(4)
    cases = []
    for case in range(150):
        B, L = int(torch.randint(1, 7, (1,), generator=g)), int(torch.randint(2, 21, (1,), generator=g))
        x, slots = random_canvas(g, B, L)
        candidates = torch.randint(2, 23, (B, L), generator=g)
        confidence = torch.randperm(B * L, generator=g).reshape(B, L).float() / (B * L)  # distinct
        eligible = (slots & (x == MASK)).sum(dim=1)
        counts = [int(torch.randint(0, int(n) + 1, (1,), generator=g)) for n in eligible]
        cases.append((x, candidates, confidence, slots, counts))
    # every tenth batch with other ids for the mask and the padding (candidates 2..20 stay clear of them)
    ids = [(OTHER_MASK, OTHER_PAD) if case % 10 == 9 else (MASK, PAD) for case in range(len(cases))]
    cases = [(relabel(x, *i), relabel(c.clamp(max=20), *i), conf, slots, counts)
             if i != (MASK, PAD) else (x, c, conf, slots, counts)
             for (x, c, conf, slots, counts), i in zip(cases, ids)]
    results = reverse_update.calls([[*inputs, *i] for inputs, i in zip(cases, ids)])
    for case, ((x, candidates, confidence, slots, counts), result, (mask_id, pad_id)) in enumerate(
            zip(cases, results, ids)):
        B, L = x.shape
        out = updated(result, x, f"reverse_update on random batch {case} (B = {B}, L = {L}, mask_id = "
                                 f"{mask_id}, pad_id = {pad_id})")
        want = ref.reverse_update(x, candidates, confidence, slots, counts, mask_id, pad_id)
        keep = ~(slots & (x == mask_id))
        expect(torch.equal(out[keep], x[keep]), "prefix, padding, earlier commits and masks outside the "
                                                "generation slots must keep their ids")
        new = (out != x).sum(dim=1).tolist()
        expect(new == counts, f"each row must commit exactly its own reveal count {counts}, "
                              f"committed {new}")
        expect(torch.equal(out, want), "each row must commit its most confident eligible proposals")


def cpu_only(helper):
    """A reference helper handed to the student's sample, refusing tensors off the CPU as the model does."""
    def guarded(*args, **kwargs):
        for value in (*args, *kwargs.values()):
            on_cpu(value, f"the check's {helper.__name__}")
        return helper(*args, **kwargs)
    guarded.__name__ = helper.__name__
    return guarded


def run_sample(sample, helpers, seed, args):
    """One call of the student's sample with the notebook's `device` standing for a GPU, and the model
    it was handed. A canvas moved there only on the way out is harmless (Colab prints it all the same):
    such a call is judged again with `device` on the CPU."""
    for device in (ELSEWHERE, "cpu"):
        model = CpuModel(FakeDenoiser(seed=seed))
        result = sample.with_globals({**helpers, "device": device}, model, *args)
        if not (result[0] == "ok" and off_cpu(result[1])):
            break
    return model, result


def sampled(result, what):
    """The canvas one call of sample returned; a model asked for its parameters is said in the rule."""
    if result[0] == "raised" and result[1] == "AttributeError" and "parameters" in str(result[2]):
        raise Failure(f"{what} asked the model for its parameters ({result[2]}): the model is any function "
                      "from ids on the CPU to logits on the CPU, as story_model is, with no parameters to take a "
                      "device from; build the canvas on the CPU and keep it there")
    return value_of(result, what)


@check("sample")
def batched_sampler(sample):
    g = torch.Generator().manual_seed(5)
    helpers = {helper.__name__: cpu_only(helper) for helper in (
        ref.blank_canvas, ref.candidate_distributions, ref.confidence_scores, ref.reveal_counts, ref.reverse_update)}
    # the last case with other ids for the mask and the padding, and a control token of its own
    for case, (B, steps, mask_id, pad_id, control) in enumerate(
            ((1, 5, MASK, PAD, None), (4, 3, MASK, PAD, None), (6, 8, MASK, PAD, None), (3, 1, MASK, PAD, None),
             (4, 4, OTHER_MASK, OTHER_PAD, (8,)))):
        lengths = torch.randint(4, 17, (B,), generator=g).tolist()
        prompts = [torch.randint(2, 21, (int(torch.randint(0, n - 1, (1,), generator=g)),), generator=g)
                   for n in lengths]
        given = () if control is None else (control,)
        what = (f"sample(model, prompts, lengths={lengths}, steps={steps}, mask_id={mask_id}, "
                f"pad_id={pad_id}{'' if control is None else f', control_ids={control}'})")
        model, result = run_sample(sample, helpers, case, (prompts, lengths, steps, mask_id, pad_id, *given))
        out = sampled(result, what)
        expect(torch.is_tensor(out) and tuple(out.shape) == (B, max(lengths)),
               f"sample should return [B, max length] = [{B}, {max(lengths)}], "
               f"got {list(getattr(out, 'shape', []))}")
        integer_ids(out, "sample")
        expect(model.calls == steps, f"with {steps} steps the denoiser should run {steps} times, "
                                     f"once before each update; it ran {model.calls} times")
        want = ref.sample_rowwise(FakeDenoiser(seed=case), prompts, lengths, steps, mask_id, pad_id, control or ())
        for b, (prompt, n) in enumerate(zip(prompts, lengths)):
            expect(out[b, :len(prompt)].tolist() == prompt.tolist(), f"{what}, row {b}: the prompt changed")
            expect(bool((out[b, n:] == pad_id).all()), f"{what}, row {b}: positions past its length {n} "
                                                       f"must stay PAD ({pad_id})")
            expect(not bool((out[b, :n] == mask_id).any()), f"{what}, row {b}: masks are left after the last step")
        expect(torch.equal(out, want), f"{what}: the batched sampler must give exactly what sampling each row "
                                       f"alone gives (fresh predictions after every update, each row its own "
                                       f"budget, the mask, the padding and control_ids never proposed)")
