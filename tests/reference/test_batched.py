"""Reference batched sampler of notebook 05: the lesson's worked example, every error, and equality
of the vectorised sampler with the row-by-row one."""
from pathlib import Path

import pytest
import torch

from maskdiff_solutions import batched
from maskdiff_solutions.grading.batched import EXAMPLE, MASK, PAD, random_canvas
from maskdiff_solutions.grading.fakes import FakeDenoiser
from tests.support import margins

pytestmark = pytest.mark.nb05


UPDATES = [batched.reverse_update, batched.reverse_update_rowwise]


def run(update=batched.reverse_update, **changes):
    case = {**EXAMPLE, **changes}
    return update(case["x"], case["candidate_ids"], case["confidence"], case["generation_slots"],
                  case["reveal_counts"], MASK, PAD)


@pytest.mark.parametrize("update", UPDATES)
def test_worked_example(update):
    assert run(update).tolist() == [[7, 8, 1, 12, 13, 0], [9, 1, 1, 23, 0, 0]]


@pytest.mark.parametrize("changes,message", [
    (dict(confidence=EXAMPLE["confidence"][:, :5]), r"one shape \[batch, length\]; got \(2, 6\), \(2, 6\), \(2, 5\)"),
    (dict(generation_slots=EXAMPLE["generation_slots"].long()), "must be Boolean, got torch.int64"),
    (dict(reveal_counts=[1, 1, 1]), "one reveal count per batch row: 2 rows, 3 counts"),
    (dict(reveal_counts=[1, 4]), "row 1: reveal count 4 is not between 0 and its 3 eligible masks"),
    (dict(reveal_counts=[-1, 0]), "row 0: reveal count -1"),
    (dict(reveal_counts=[1.5, 0]), "whole numbers"),
    (dict(candidate_ids=torch.tensor([[7, 8, 11, MASK, 13, 0], [9, 21, 22, 23, 0, 0]])),
     "row 0, position 3: a committed proposal cannot be MASK or PAD"),
])
@pytest.mark.parametrize("update", UPDATES)
def test_errors_name_the_problem(update, changes, message):
    with pytest.raises(ValueError, match=message):
        run(update, **changes)


def test_vectorised_and_rowwise_updates_agree_on_random_batches():
    g = torch.Generator().manual_seed(9)
    for _ in range(50):
        x, slots = random_canvas(g, 5, 16)
        candidates = torch.randint(2, 23, x.shape, generator=g)
        confidence = torch.rand(x.shape, generator=g)
        counts = [int(torch.randint(0, int(n) + 1, (1,), generator=g)) for n in (slots & (x == MASK)).sum(1)]
        assert torch.equal(batched.reverse_update(x, candidates, confidence, slots, counts, MASK, PAD),
                           batched.reverse_update_rowwise(x, candidates, confidence, slots, counts, MASK, PAD))


def test_inputs_are_not_modified_and_counts_may_be_a_tensor():
    before = {k: v.clone() for k, v in EXAMPLE.items() if torch.is_tensor(v)}
    run(reveal_counts=torch.tensor([2, 1]))
    assert all(torch.equal(before[k], EXAMPLE[k]) for k in before)


def test_distributions_exclude_control_tokens_and_sum_to_one():
    x = batched.blank_canvas(2, 12, MASK)
    probs = batched.candidate_distributions(FakeDenoiser(), x, [PAD, MASK])
    assert probs.shape == (2, 12, 23) and (probs[..., [PAD, MASK]] == 0).all()
    assert torch.allclose(probs.sum(-1), torch.ones(2, 12)) and (x == MASK).all()


def test_distributions_name_a_bad_model():
    with pytest.raises(ValueError, match=r"logits of shape \[B, L, V\] = \[2, 12, V\], got \(2, 23\)"):
        batched.candidate_distributions(lambda x: torch.zeros(2, 23), batched.blank_canvas(2, 12, MASK), [0])


def test_confidence_kinds_order_a_sharp_row_above_a_flat_one():
    probs = torch.tensor([[[0.9, 0.1, 0.0], [0.4, 0.3, 0.3]]])
    for kind in batched.CONFIDENCE_KINDS:
        scores = batched.confidence_scores(probs, kind)
        assert scores[0, 0] > scores[0, 1] and not torch.isnan(scores).any()
    with pytest.raises(ValueError, match="confidence kind must be one of"):
        batched.confidence_scores(probs, "loudest")


def test_reveal_counts_empty_every_row_on_the_last_step():
    left = torch.tensor([0, 1, 7, 32])
    for steps_left in range(5, 0, -1):
        left = left - batched.reveal_counts(left, steps_left)
    assert left.tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError, match="steps_left must be at least 1"):
        batched.reveal_counts(left, 0)


@pytest.mark.parametrize("seed", range(5))
def test_batched_sampler_equals_row_by_row(seed):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(3, 30, (7,), generator=g).tolist()
    prompts = [torch.randint(2, 23, (int(torch.randint(0, n, (1,), generator=g)),), generator=g) for n in lengths]
    model = FakeDenoiser(seed=seed)
    with margins.recorded() as seen:
        out = batched.sample(model, prompts, lengths, 6, MASK, PAD)
        rowwise = batched.sample_rowwise(model, prompts, lengths, 6, MASK, PAD)
    # token for token, though the model sees other shapes: no decision lies near a tie (lead >= 1.9e-4 and
    # gap >= 2.2e-4 measured over these seeds, against rounding of 5e-7 at most: tests/support/margins.py)
    assert torch.equal(out, rowwise) and min(seen.lead, seen.gap) >= 1e-5, (seen.lead, seen.gap)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        assert out[b, :len(p)].tolist() == p.tolist() and (out[b, n:] == PAD).all()
        assert not (out[b, :n] == MASK).any()


def test_prompt_that_does_not_fit_is_named():
    with pytest.raises(ValueError, match="row 0: prompt of 5 tokens does not fit in length 3"):
        batched.prompt_canvas([torch.arange(5)], [3], MASK, PAD)


def test_random_canvas_has_masks_outside_slots_sometimes():
    g = torch.Generator().manual_seed(0)
    seen = any(((x == MASK) & ~slots).any() for x, slots in (random_canvas(g, 4, 12) for _ in range(20)))
    assert seen


# Notebook 05 promises that batching changes only the time: "Same prompts, same lengths, and the same
# results", because its denoiser is built with pad_id and never attends to padding.
NB05 = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "05_sampler_internals.ipynb"


def nb05_cell(grade_id):
    from maskdiff_solutions.course.intake import notebooks as nbtools
    return next(c for c in nbtools.read(NB05).cells if nbtools.grade_id(c) == grade_id
                or (c.cell_type == "markdown" and grade_id in c.source))


def test_notebook_05_batching_gives_the_same_results_as_its_text_says():
    from maskdiff_client.denoiser import TinyDenoiser
    assert "pad_id=PAD_ID" in nb05_cell("story_denoiser").source
    assert "same results" in " ".join(nb05_cell("How much does batching buy?").source.split())
    namespace = {"torch": torch, "sample": batched.sample}
    cell = nb05_cell("batching_speed").source
    exec(cell[:cell.index("\nB = ")], namespace)     # the cell's own row-by-row sampler
    torch.manual_seed(0)
    vocab, pad, mask = 30, 29, 1
    net = TinyDenoiser(vocab, dim=32, heads=2, layers=2, pad_id=pad).eval()
    g = torch.Generator().manual_seed(1)
    lengths = [9, 20, 14, 5]
    prompts = [torch.randint(2, 28, (n,), generator=g) for n in (3, 0, 6, 0)]
    with margins.recorded() as seen:
        batched_out = batched.sample(net, prompts, lengths, 6, mask, pad, [pad, mask])
    # The rows alone are shorter than the padded batch, and their probabilities differ from the batch's by
    # rounding (1.1e-8 here, at 1, 2 and 4 threads); this untrained network's nearest decision is 5.9e-6 from a
    # tie (another seed's can be at 1e-7), so the rows must agree token for token.
    assert min(seen.lead, seen.gap) >= 1e-6, (seen.lead, seen.gap)
    assert torch.equal(batched_out, namespace["sample_row_by_row"](net, prompts, lengths, 6, mask, pad, [pad, mask]))


def test_without_pad_id_a_row_depends_on_the_padding_after_it():
    """The notebook's aside: without pad_id, padding (forced by longer rows) changes a row's guesses."""
    from maskdiff_client.denoiser import TinyDenoiser
    torch.manual_seed(0)
    x = torch.tensor([[5, 1, 1, 7, 1]])
    padded = torch.cat([x, torch.full((1, 6), 29)], dim=1)
    for pad_id, same in ((None, False), (29, True)):
        net = TinyDenoiser(30, dim=32, heads=2, layers=2, pad_id=pad_id).eval()
        with torch.no_grad():
            assert torch.allclose(net(x), net(padded)[:, :5], atol=1e-5) == same


def test_notebook_05_toy_example_shows_commit_both_failing():
    """Issue 23: the lesson's point is that committing both *leading* candidates at once can be poor.
    The notebook's given cell works the example out; its text's numbers are the cell's."""
    import contextlib
    import io
    namespace = {"torch": torch}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(nb05_cell("toy_candidates").source, namespace)
    pairs, both = namespace["pairs"], namespace["both"]
    assert abs(sum(pairs.values()) - 1) < 1e-9
    assert both not in pairs, f"committing both leading candidates gives {both!r}, which occurs"
    text = " ".join(nb05_cell("Take a toy vocabulary").source.split())
    assert f"you write `{both}`, which never occurs" in text
    assert f"never occurs {namespace['never']:.0%} of the time" in text
    given = namespace["given"]
    assert set(given) <= {pair[0] for pair in pairs} and all(ch + namespace["surer"] in pairs for ch in given), \
        "committing the surer blank first, then asking again, only writes pairs that occur"
    assert "which occurs: False" in printed.getvalue()
