"""Reference chat code of notebook 03 (Chat, trimming, ChatLoop) and the faster sampler, on the
hidden checks' exact fake world and on the offline stand-in."""
import builtins

import pytest
import torch

from maskdiff_solutions import chat, faster
from maskdiff_solutions.grading import chat as fake
from maskdiff_solutions.sampling import UndiffuseGreedy

pytestmark = pytest.mark.nb03


@pytest.mark.parametrize("text,want", [
    ("Blue light.\n[/Answer][PAD][PAD]", "Blue light."),
    ("  Blue[PAD] light. \n[/Answer]\nnot this", "Blue light."),
    ("Cut short.\n[/Answer", "Cut short."),
    ("no marker at all ", "no marker at all"),
])
def test_trim_answer(text, want):
    assert chat.TrimAnswer(text, "[/Answer") == want


@pytest.fixture
def fake_world():
    """chat's globals pointed at the checks' fake tokenizer and a guesser that knows the answer."""
    prompt, target = fake.sentence("Why?", "Blue light.\n[/Answer]", 20)
    saved = {name: getattr(chat, name) for name in ("tokenizer", "GuessBERT", "BERT_MASK", "PROMPT")}
    guess = fake.FakeGuesser(target, spread=0.2)
    chat.use(fake.FAKE_TOKENIZER, guess)
    chat.PROMPT = fake.fake_prompt("{}")
    yield guess
    for name, value in saved.items():
        setattr(chat, name, value)


def test_chat_answers_from_the_guesses(fake_world):
    assert chat.Chat("Why?", answer_length=20, T=8, step=UndiffuseGreedy) == "Blue light."
    assert fake_world.calls == 8


def test_chat_shows_progress_with_underscores(fake_world, capsys):
    chat.Chat("Why?", answer_length=20, T=16, step=UndiffuseGreedy, show=True)
    lines = capsys.readouterr().out.splitlines()
    assert 8 <= len(lines) <= 10 and "_" in lines[0] and "[MASK]" not in lines[0]


def test_chat_loop_stops_at_an_empty_line(fake_world, monkeypatch, capsys):
    questions = iter(["Why?", "Why?", "  "])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(questions))
    chat.ChatLoop(answer_length=20, T=4, step=UndiffuseGreedy)
    assert capsys.readouterr().out.count("Model: Blue light.") == 2


def test_use_names_a_wrong_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        chat.use(fake.FAKE_TOKENIZER, None, kind="gpt")


def test_remember_skips_only_repeated_questions():
    asked = []
    guess = faster.Remember(lambda x: asked.append(x.clone()) or torch.ones(len(x), 3) / 3)
    x = torch.tensor([0, 2, 2])
    guess(x), guess(x.clone()), guess(torch.tensor([0, 1, 2])), guess(torch.tensor([0, 1, 2]))
    assert guess.calls == 2 == len(asked)


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    from maskdiff_solutions import models
    tokenizer, network = models.LoadNetwork(models.StandIn("bert", tmp_path_factory.mktemp("cache")),
                                            "bert", "cpu")
    guess = lambda x: models.Logits(network, x[None])[0].detach().float().softmax(-1)  # noqa: E731
    saved = {name: getattr(chat, name) for name in ("tokenizer", "GuessBERT", "BERT_MASK")}
    faster.use(tokenizer, guess)
    yield
    for name, value in saved.items():
        setattr(chat, name, value)
        setattr(faster, name, value) if hasattr(faster, name) else None


def test_fast_chat_gives_the_same_answer_with_the_same_seed(stand_in):
    """Remembering and stopping early change no answer: with the same seed the random numbers are
    drawn in the same order and the guesses are identical, so the answers are too."""
    for seed in range(6):
        torch.manual_seed(seed)
        plain = chat.Chat("Why is the sky blue?")
        torch.manual_seed(seed)
        fast, calls = faster.ChatFast("Why is the sky blue?")
        assert fast == plain and calls < 64


def test_plain_loop_makes_one_call_per_step(stand_in):
    assert faster.ChatFast("What is a cat?", T=16, remember=False, stop=False)[1] == 16
    assert faster.ChatFast("What is a cat?", T=16, step=UndiffuseGreedy, stop=False)[1] <= 16


def test_confident_step_commits_sure_tokens_at_once():
    p = torch.tensor([[0.95, 0.05, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    x = torch.tensor([2, 2, 0])   # mask = 2; the last position is visible and must stay
    out = faster.UndiffuseConfident(x, 1000, lambda _: p, 2, threshold=0.9)
    assert out[0] == 0 and out[2] == 0   # sure: committed although 1/t is tiny; visible: kept
