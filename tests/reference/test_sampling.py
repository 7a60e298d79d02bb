"""Reference code of notebook 02: the toy worlds and the two undiffusion steps."""
import pytest
import torch

from maskdiff_solutions import sampling, toy

pytestmark = pytest.mark.nb02


@pytest.mark.parametrize("text,weights", [("_ _ _ _", [0.8, 0.2]), ("_ _ is alive", [1, 0]),
                                          ("the _ _ empty", [0, 1]), ("_ cat is empty", [0.8, 0.2])])
def test_two_world_weights(text, weights):
    assert torch.allclose(toy.two_world_weights(toy.Encode(text)), torch.tensor(weights, dtype=torch.float))


def test_two_world_guess_is_a_distribution_with_the_page_example():
    p = toy.GuessX0_two(toy.Encode("_ _ is _"))
    assert torch.allclose(p.sum(dim=1), torch.ones(4))
    assert p[1, toy.VOCAB.index("cat")] == pytest.approx(0.8) and p[0, toy.VOCAB.index("the")] == 1


def test_two_world_rejects_other_lengths():
    with pytest.raises(ValueError, match="sentences of 4 tokens, got shape"):
        toy.GuessX0_two(toy.Encode("the cat"))


def test_undiffuse_keeps_visible_and_finishes_at_t1():
    x = toy.Encode("the _ is _")
    keep = x.clone()
    out = sampling.Undiffuse(x, 1, toy.GuessX0_two, toy.MASK)
    assert torch.equal(x, keep) and (out != toy.MASK).all() and out[0] == 0 and out[2] == 3


def test_greedy_reveals_ceil_of_masked_over_t():
    x = torch.full((4,), toy.MASK)
    out = sampling.UndiffuseGreedy(x, 3, toy.GuessX0_two, toy.MASK)
    assert int((out != toy.MASK).sum()) == 2  # ceil(4 / 3)
    assert toy.Decode(sampling.Generate(4, 4, toy.GuessX0_two, toy.MASK, sampling.UndiffuseGreedy)) == toy.ALIVE


def test_generate_one_sentence_world():
    assert toy.Decode(sampling.Generate(4, 10, toy.GuessX0_one, toy.MASK)) == toy.ALIVE
    assert toy.Decode(toy.SamplePInit_one()) == toy.ALIVE
