"""Hidden function checks of notebook 08: the reference passes under any seed, so do the notebook's own
solution cells and correct functions written in other styles (numpy, loops, lists, the step drawn in two
stages, the loss summed over every word), and every mutant loses exactly the marks it names (under more
seeds: `python benchmarks/power.py --function UniformStep ...`, not here, for CI's time)."""
import re
from pathlib import Path

import pytest

from maskdiff_solutions import grading
from maskdiff_solutions.course.intake import notebooks
from tests.mutants import Mutant
from tests.mutants import uniform as catalog
from tests.support import function_checks

pytestmark = pytest.mark.nb08

CHECKS = ["ForwardUniform.law", "ForwardUniform.errors", "PosteriorUniform.exact", "PosteriorUniform.errors",
          "UniformStep.law", "UniformStep.errors", "UniformLoss.exact", "UniformLoss.errors"]
FUNCTIONS = function_checks.functions(CHECKS)
NOTEBOOK = Path(__file__).resolve().parents[2] / "source" / "maskdiff" / "08_noise_without_a_mask.ipynb"
xdist_group = function_checks.xdist_group   # tests/conftest.py reads it: the tests share nothing


def checks_of(function):
    return function_checks.checks_of(CHECKS, function)


test_every_registered_check_is_covered, test_reference_passes, test_the_notebooks_solution_cells_pass = \
    function_checks.shared_tests(CHECKS, "uniform", catalog.REFERENCE)


def solution_code(source):
    """A solution cell's code without its markers and docstring; F is torch.nn.functional there."""
    code = "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))
    code = re.sub(r'\n    """.*?"""', "", code, count=1, flags=re.S)
    return code.replace("F.one_hot", "torch.nn.functional.one_hot").strip()


@pytest.mark.skipif(not NOTEBOOK.exists(), reason="notebook 08 is still to be written")
@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_catalogs_solution_cells_are_the_notebooks(function):
    """The mutants are edits of the notebook's own solution: when the notebook's cell changes, copy it
    into tests/mutants/uniform.py's REFERENCE and check that every mutant still reads as its bug."""
    cells = {notebooks.grade_id(cell): cell.source for cell in notebooks.read(NOTEBOOK).cells}
    assert solution_code(cells[function]) == catalog.REFERENCE[function].strip()


# Correct functions written other ways, each run in a namespace like its notebook's (the mutant catalog's).
STYLES = {
    "ForwardUniform": {
        "numpy, a Bernoulli coin per token": '''
def ForwardUniform(x0, alpha, vocab_size):
    a = np.asarray(alpha, dtype=float)
    if vocab_size < 1 or vocab_size != int(vocab_size) or (a < 0).any() or (a > 1).any():
        raise ValueError("alpha in [0, 1] and a whole vocab_size >= 1, please")
    x = np.asarray(x0)
    if x.dtype.kind not in "iu" or x.min() < 0 or x.max() >= vocab_size:
        raise ValueError("x0 holds ids of the vocabulary")
    changed = np.random.random_sample(x.shape) >= a
    return torch.from_numpy(np.where(changed, np.random.randint(0, int(vocab_size), x.shape), x))
''',
        "torch.bernoulli, the words drawn only where needed": '''
def ForwardUniform(x0, alpha, vocab_size):
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size = {vocab_size!r}")
    alpha = torch.as_tensor(alpha, dtype=torch.float32)
    if alpha.min() < 0 or alpha.max() > 1:
        raise ValueError("alpha is a probability")
    if x0.dtype.is_floating_point or x0.min() < 0 or x0.max() >= vocab_size:
        raise ValueError("bad ids")
    replace = torch.bernoulli((1 - alpha).expand(x0.shape)).bool()
    x = x0.clone()
    x[replace] = torch.randint(0, vocab_size, (int(replace.sum()),))
    return x
''',
    },
    "PosteriorUniform": {
        "a loop over the sentences, floats, a list back": '''
def PosteriorUniform(x_t, alpha):
    if alpha < 0 or alpha >= 1:
        raise ValueError("0 <= alpha < 1")
    ids = x_t.tolist()
    if len(ids) != 4 or x_t.is_floating_point() or any(i < 0 or i > 12 for i in ids):
        raise ValueError("four words of the world, please")
    weights = []
    for k, prior in enumerate(PRIOR.tolist()):
        w = prior
        for i, word in enumerate(ids):
            w *= (alpha if word == SENTENCE_IDS[k, i] else 0.0) + (1 - alpha) / 13
        weights.append(w)
    total = sum(weights)
    return [w / total for w in weights]
''',
        "log-space, numpy, softmax": '''
def PosteriorUniform(x_t, alpha):
    if not (0 <= alpha < 1):
        raise ValueError("alpha")
    x = np.asarray(x_t)
    if x.shape != (4,) or x.dtype.kind not in "iu" or (x < 0).any() or (x >= len(words)).any():
        raise ValueError("x_t")
    match = SENTENCE_IDS.numpy() == x
    logs = np.log(PRIOR.numpy().astype(float)) + np.log(alpha * match + (1 - alpha) / len(words)).sum(axis=1)
    e = np.exp(logs - logs.max())
    return e / e.sum()
''',
    },
    "UniformStep": {
        "two stages: draw x_0 from the guess, then x_s from the bridge": '''
def UniformStep(x_t, t, s, GuessX0):
    if not (0 <= s < t <= 1):
        raise ValueError("times")
    p = GuessX0(x_t, t).double()
    L, N = p.shape
    a_t, a_s = 1 - t, 1 - s
    here = torch.nn.functional.one_hot(x_t, N).double()
    # the posterior of x_0 given x_t and the guess: p(u) q(x_t | u) / ... is not it; the guess IS p(x_0 | x_t)
    x_0 = torch.multinomial(p, 1).squeeze(1)
    start = torch.nn.functional.one_hot(x_0, N).double()
    law = ((a_t / a_s) * here + (1 - a_t / a_s) / N) * (a_s * start + (1 - a_s) / N)
    return torch.multinomial(law, 1).squeeze(1)
''',
        "position by position, the three factors as tables, numpy's generator": '''
def UniformStep(x_t, t, s, GuessX0):
    if s < 0 or t > 1 or s >= t:
        raise ValueError(f"need 0 <= s < t <= 1, got {t}, {s}")
    p = np.asarray(GuessX0(x_t, t), dtype=float)
    N = p.shape[-1]
    a_t, a_s = 1.0 - t, 1.0 - s
    eye = np.eye(N)
    A = (a_t / a_s) * eye + (1 - a_t / a_s) / N        # A[v, w]
    B = a_s * eye + (1 - a_s) / N                      # B[v, u]
    C = a_t * eye + (1 - a_t) / N                      # C[w, u]
    out = []
    for i, w in enumerate(np.asarray(x_t).tolist()):
        law = A[:, w] * (B @ (p[i] / C[w]))
        out.append(np.random.choice(N, p=law / law.sum()))
    return torch.tensor(out)
''',
    },
    "UniformLoss": {
        "summed over every word (the v = w term is zero), logs apart": '''
def UniformLoss(probs, x_0, x_t, t):
    if probs.dim() != 3 or tuple(x_0.shape) != tuple(probs.shape[:2]) or x_t.shape != x_0.shape:
        raise ValueError("shapes")
    if t.dim() != 1 or len(t) != len(x_0):
        raise ValueError("one t per row")
    if (t <= 0).any() or (t >= 1).any():
        raise ValueError("0 < t < 1")
    N = probs.shape[-1]
    a = 1 - t.to(probs.dtype).view(-1, 1, 1)
    xbar = N * a * torch.nn.functional.one_hot(x_0, N).to(probs.dtype) + (1 - a)
    xth = N * a * probs + (1 - a)
    xw = torch.gather(xbar, 2, x_t.unsqueeze(2))
    tw = torch.gather(xth, 2, x_t.unsqueeze(2))
    log_terms = torch.log(xbar) + torch.log(tw) - torch.log(xw) - torch.log(xth)
    total = N / tw - N / xw + (xbar / xw * log_terms).sum(dim=2, keepdim=True)
    return (total / (N * a)).squeeze(2)
''',
    },
}

test_other_correct_styles_pass = function_checks.styles_test(CHECKS, STYLES)
test_mutant_loses_marks_exactly_where_it_says = function_checks.mutants_test(CHECKS, catalog.MUTANTS)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_has_five_realistic_bugs_and_each_argument_matters(function):
    mutants = [m for m in catalog.MUTANTS if m.function == function]
    assert len(mutants) >= 5, function
    assert all(set(m.fails) <= set(checks_of(function)) for m in mutants)
    assert len({m.name for m in mutants}) == len(mutants)
    arguments = {"ForwardUniform": ("x0", "alpha", "vocab_size"), "PosteriorUniform": ("x_t", "alpha"),
                 "UniformStep": ("x_t", "t", "s", "GuessX0"), "UniformLoss": ("probs", "x_0", "x_t", "t")}[function]
    ignored = {m.name.split(":")[0].removeprefix("ignores ") for m in mutants if m.name.startswith("ignores ")}
    assert ignored >= set(arguments), (function, ignored)
