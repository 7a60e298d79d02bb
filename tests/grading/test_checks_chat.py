"""Hidden checks of notebook 03: the reference Chat and AtTemperature pass under any seed, other
correct styles pass, the notebook's globals are restored, and every mutant loses exactly the marks it
names."""
import numpy as np
import pytest
import torch

import maskdiff_solutions as reference
from maskdiff_solutions import grading
from tests.mutants import chat as catalog

pytestmark = pytest.mark.nb03

CHECKS = ["Chat.prompt", "Chat.steps", "Chat.answer", "Chat.show"]
# the inner loop (`-m "not slow"`) the first, as in test_checks.py
SEEDS = [0, *(pytest.param(seed, marks=pytest.mark.slow) for seed in (1, 31337, 20261130))]



def xdist_group(item):
    """Under pytest-xdist any worker may take any test here (tests/conftest.py): they share nothing."""
    return None


def test_every_registered_check_is_covered():
    assert {name for name in grading.CHECKS if name.startswith("Chat")} == set(CHECKS)
    assert "AtTemperature" in grading.CHECKS


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CHECKS)
def test_reference_passes(name, seed, monkeypatch):
    monkeypatch.setenv(grading.SEED_VARIABLE, str(seed))
    outcome = grading.evaluate(name, reference.Chat)
    assert outcome.passed, outcome.message


# Correct Chats written differently: the tokenizer called directly, a while loop, the marker spelled
# out as on the course page, printing every step.
def notebook_namespace(source):
    namespace = {"torch": torch, "Undiffuse": reference.Undiffuse, "tokenizer": "the real one",
                 "BERT_MASK": 50284}
    exec(source, namespace)
    return namespace


STYLES = {
    "tokenizer and while loop": """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    ids = tokenizer.encode(MakePrompt(question), add_special_tokens=False)
    x = torch.tensor(ids + [tokenizer.mask_token_id] * answer_length)
    t = T
    while t > 0:
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(tokenizer.decode(x[len(ids):]))
        t -= 1
    text = tokenizer.decode(x[len(ids):]).replace("[PAD]", "")
    return text.split("[/Answer")[0].strip()
""",
    "list of tokens, prints each step": """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question)).tolist()
    x = torch.tensor(prompt + [BERT_MASK] * answer_length)
    for t in reversed(range(1, T + 1)):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(t, Text(x[len(prompt):]).replace("[MASK]", "_"))
    answer = Text(x[len(prompt):]).replace("[PAD]", "")
    return answer.split(ANSWER_END)[0].strip()
""",
}


@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("name", CHECKS)
def test_other_correct_styles_pass(style, name):
    outcome = grading.evaluate(name, notebook_namespace(STYLES[style])["Chat"])
    assert outcome.passed, outcome.message


def test_checks_restore_the_notebook_globals():
    namespace = notebook_namespace(STYLES["tokenizer and while loop"])
    before = dict(namespace)
    for name in CHECKS:
        grading.evaluate(name, namespace["Chat"])
    assert namespace.keys() == before.keys()
    assert all(namespace[key] is before[key] for key in before)


def test_a_chat_that_is_not_a_function_is_told_so():
    outcome = grading.evaluate("Chat.prompt", print)
    assert not outcome.passed and "def Chat" in outcome.message


def temper_numpy(p, temperature):
    q = np.asarray(p, dtype=np.float64) ** (1.0 / temperature)
    return torch.from_numpy(q / q.sum(axis=-1, keepdims=True))


def temper_power(p, temperature):
    """The course page's recipe, literally."""
    q = p ** (1 / temperature)
    return q / q.sum(-1, keepdim=True)


def temper_log_space(p, temperature):
    return torch.softmax(p.log() / temperature, dim=-1)


@pytest.mark.parametrize("function", [temper_numpy, temper_power, temper_log_space], ids=lambda f: f.__name__)
def test_other_correct_temperatures_pass(function):
    outcome = grading.evaluate("AtTemperature", function)
    assert outcome.passed, outcome.message


@pytest.mark.parametrize("mutant", catalog.MUTANTS, ids=lambda m: m.name)
def test_mutant_loses_marks(mutant):
    buggy = mutant.load()
    checks = CHECKS if mutant.function == "Chat" else [mutant.function]
    failed = {name for name in checks if not grading.evaluate(name, buggy).passed}
    assert failed == set(mutant.fails), f"{mutant.name}: expected {mutant.fails} to fail, failed {failed}"


def test_catalog_has_at_least_three_bugs():
    assert len(catalog.MUTANTS) >= 3
