"""Every number and claim of notebook 08's text that the code decides, held to the code: the table of the
impossible shares (exact chain), T times the share, the 0.8076 of `the cat is alive`, the posterior's worked
examples, the changed share, the 36 lumped canvases, the visible tests' numbers, and the two story
denoisers' equal budgets."""
import math
import re
from pathlib import Path

import pytest
import torch

from maskdiff_solutions import story_denoiser, uniform, uniform_denoiser
from maskdiff_solutions.course.intake import notebooks as nbtools

pytestmark = pytest.mark.nb08

NOTEBOOK = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "08_noise_without_a_mask.ipynb"
TS = (1, 2, 4, 8, 16, 32, 64)


def cells():
    return nbtools.read(NOTEBOOK).cells


def text():
    return " ".join(" ".join(c.source.split()) for c in cells() if c.cell_type == "markdown")


def cell(grade_id):
    return next(c.source for c in cells() if nbtools.grade_id(c) == grade_id)


@pytest.fixture(scope="module")
def laws():
    return {T: uniform.UniformExact(T) for T in TS}


def test_the_table_is_the_exact_chains(laws):
    rows = re.findall(r"^\| ([^|]+?) \|((?: [^|]+ \|){7})$", cell_markdown_with("| uniform noise |"), re.M)
    table = {name.strip(): [v.strip() for v in values.strip(" |").split(" | ")] for name, values in rows}
    uniform_row, masks_row = table["uniform noise"], table["masks, $0.32/T$"]
    for T, said in zip(TS, uniform_row):
        digits = len(said.split(".")[1])
        assert f"{laws[T]['impossible']:.{digits}f}" == said, (T, said)
    for T, said in zip(TS, masks_row):
        assert f"{0.32 / T:.3f}" == said, (T, said)
    assert [f"{T}" for T in TS] == re.findall(r"^\| \$T\$ \|((?: \d+ \|){7})$", cell_markdown_with("| $T$ |"),
                                                 re.M)[0].replace("|", " ").split()


def cell_markdown_with(marker):
    return next(c.source for c in cells() if c.cell_type == "markdown" and marker in c.source)


def test_what_the_text_says_of_the_table(laws):
    said = text()
    assert "falls from 0.32 to 0.085 at $T = 64$" in said
    assert round(laws[1]["impossible"], 2) == 0.32 and round(64 * laws[64]["impossible"], 3) == 0.085
    assert [T * laws[T]["impossible"] for T in TS] == sorted((T * laws[T]["impossible"] for T in TS), reverse=True)
    assert "with probability 0.8076, not the world's 0.8" in said
    assert round(laws[8]["the cat is alive"], 4) == 0.8076
    assert "only as $T$ grows does the share return to 0.8" in said
    assert abs(laws[64]["the cat is alive"] - 0.8) < abs(laws[8]["the cat is alive"] - 0.8)
    # "In one step the two are the same sampler" and "From two steps on, uniform noise pulls ahead"
    assert abs(laws[1]["impossible"] - 0.32) < 1e-12 and all(laws[T]["impossible"] < 0.32 / T for T in TS[1:])


def test_the_worked_posteriors():
    said = text()
    half, fifth = 0.5, 0.2
    box_knows = uniform.PosteriorUniform(uniform.Encode("the box is knows"), half)
    assert "leaves `the cat is alive` a weight of 0.22 (one agreeing word multiplies the odds by 14)" in said
    assert round(float(box_knows[0]), 2) == 0.22
    assert (half + (1 - half) / 13) / ((1 - half) / 13) == pytest.approx(14)
    box_empty = uniform.PosteriorUniform(uniform.Encode("the box is empty"), fifth)
    assert "at $\\alpha = 0.2$ even `the box is empty`, every word showing, leaves it 0.18" in said
    assert round(float(box_empty[0]), 2) == 0.18
    assert "`the box is alive` gives back the prior, 0.8 and 0.2" in said
    assert torch.allclose(uniform.PosteriorUniform(uniform.Encode("the box is alive"), half),
                          torch.tensor([0.8, 0.2], dtype=torch.float64))


def test_the_forward_process_as_said():
    said = text()
    assert "a word changes with probability $(1 - \\alpha_t)(1 - 1/N)$" in said
    assert uniform.N_WORDS == 13 and len(uniform.words) == 13 and "_" not in uniform.words
    assert "the theory $(1 - \\alpha_t)(1 - 1/N) = t\\,(1 - 1/13)$" in said
    law = torch.stack([torch.full((uniform.N_WORDS,), 0.3 / 13) + 0.7 * torch.nn.functional.one_hot(
        torch.tensor(v), uniform.N_WORDS) for v in range(uniform.N_WORDS)])
    assert float(1 - law.diagonal().mean()) == pytest.approx(0.3 * (1 - 1 / 13))


def test_the_lumped_chain_has_36_canvases():
    assert "$2 \\times 3 \\times 2 \\times 3 = 36$ canvases of classes" in text()
    first, second = uniform.SENTENCE_IDS.tolist()
    classes = [2 if a == b else 3 for a, b in zip(first, second)]
    assert math.prod(classes) == 36 and classes == [2, 3, 2, 3]


def test_the_visible_tests_numbers():
    source = cell("test_UniformStep_law")
    assert "0.5 + 0.5 / 3 = 0.667" in source
    sure = torch.tensor([[0.0, 0.0, 1.0]], dtype=torch.float64)
    assert float(uniform.StepLaw(torch.tensor([0]), 1.0, 0.5, sure)[0, 2]) == pytest.approx(2 / 3)
    assert "1 - 1/7 = 0.857" in cell("test_ForwardUniform_law") and round(6 / 7, 3) == 0.857
    assert "0.5 (1 - 1/7) = 0.429" in cell("test_ForwardUniform_law") and round(0.5 * 6 / 7, 3) == 0.429
    assert "expected [0.222, 0.778]" in cell("test_PosteriorUniform_exact")


def test_the_two_story_denoisers_have_one_size_and_one_budget():
    assert "both networks have the same size and the same number of training steps" in text()
    assert uniform_denoiser.QUICK_UNIFORM_STEPS == story_denoiser.QUICK_STEPS
    assert "training_steps(3000, 1000, QUICK_UNIFORM_STEPS)" in cell("uniform_training")
    assert "training_steps(3000, 1000, QUICK_STEPS)" in cell("story_denoiser")
    assert "QUICK_SIZE if QUICK else {}" in cell("uniform_training") and "QUICK_SIZE if QUICK else {}" in cell("story_denoiser")


def test_the_scorer_is_notebook_06s():
    six = nbtools.read(NOTEBOOK.with_name("06_revising_and_faster.ipynb")).cells
    for name in ("scorer", "load_scorer"):
        assert cell(name) == next(c.source for c in six if nbtools.grade_id(c) == name)
