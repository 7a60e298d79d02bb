"""Reference chat code of notebook 03 (Chat, trimming, ChatLoop) and the faster sampler, on the
hidden checks' exact fake world, on a Qwen-like fake (other markers), and on the offline stand-in;
and notebook 03's own cells with a network that plays one on a GPU: the guesses stay there and only
the chosen tokens cross to the CPU."""
import builtins
import math
import os
import re

import pytest
import torch

from maskdiff_solutions import chat, faster, models
from maskdiff_solutions.grading import chat as fake
from maskdiff_solutions.sampling import UndiffuseGreedy
from tests.nb03 import CACHE, GPU, OnAnotherDevice, Remote, run_cells, stand_in

pytestmark = pytest.mark.nb03

NAMES = ("tokenizer", "GuessBERT", "BERT_MASK", "PROMPT", "ANSWER_END")


@pytest.fixture(autouse=True)
def restore():
    """The chat and faster modules' globals and torch's threads, as they were."""
    saved = {module: {name: getattr(module, name) for name in NAMES if hasattr(module, name)}
             for module in (chat, faster)}
    threads = torch.get_num_threads()
    yield
    for module, values in saved.items():
        for name, value in values.items():
            setattr(module, name, value)
    torch.set_num_threads(threads)


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
    guess = fake.FakeGuesser(target, spread=0.2)
    chat.use(fake.FAKE_TOKENIZER, guess)
    chat.PROMPT = fake.fake_prompt("{}")
    return guess


def test_chat_answers_from_the_guesses(fake_world):
    assert chat.Chat("Why?", answer_length=20, T=8, step=UndiffuseGreedy) == "Blue light."
    assert fake_world.calls == 8


def test_chat_shows_progress_with_underscores(fake_world, capsys):
    chat.Chat("Why?", answer_length=20, T=16, step=UndiffuseGreedy, show=True)
    lines = capsys.readouterr().out.splitlines()
    assert 8 <= len(lines) <= 10 and "_" in lines[0] and "[MASK]" not in lines[0]


def test_chat_labels_what_it_shows_with_its_t(fake_world, capsys):
    """Issue 12: the state after the step from t is x_{t-1}, labelled t - 1 as notebook 02 does."""
    chat.Chat("Why?", answer_length=20, T=16, step=UndiffuseGreedy, show=True)
    lines = capsys.readouterr().out.splitlines()
    labels = [int(re.match(r"t = +(\d+) \|", line).group(1)) for line in lines]
    assert labels == [14, 12, 10, 8, 6, 4, 2, 0], labels
    assert "_" not in lines[-1].split("|", 1)[1], "x_0 has no masks left"


def test_chat_loop_stops_at_an_empty_line(fake_world, monkeypatch, capsys):
    for variable in ("NBGRADER_EXECUTION", "CI"):
        monkeypatch.delenv(variable, raising=False)
    questions = iter(["Why?", "Why?", "  "])
    monkeypatch.setattr(builtins, "input", lambda prompt="": next(questions))
    chat.ChatLoop(answer_length=20, T=4, step=UndiffuseGreedy)
    assert capsys.readouterr().out.count("Model: Blue light.") == 2


@pytest.mark.parametrize("variable", ["NBGRADER_EXECUTION", "CI"])
def test_chat_loop_never_waits_for_typing_under_a_grader(fake_world, monkeypatch, capsys, variable):
    """Issue 12: under nbgrader or CI nobody types: ChatLoop says so and returns."""
    for other in ("NBGRADER_EXECUTION", "CI"):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(variable, "1")
    monkeypatch.setattr(builtins, "input", lambda prompt="": pytest.fail("input() under a grader"))
    chat.ChatLoop(answer_length=20, T=4, step=UndiffuseGreedy)
    assert "does nothing under the autograder" in capsys.readouterr().out


def test_use_names_a_wrong_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        chat.use(fake.FAKE_TOKENIZER, None, kind="gpt")


def test_remember_skips_only_repeated_questions():
    asked = []
    guess = faster.Remember(lambda x: asked.append(x.clone()) or torch.ones(len(x), 3) / 3)
    x = torch.tensor([0, 2, 2])
    guess(x), guess(x.clone()), guess(torch.tensor([0, 1, 2])), guess(torch.tensor([0, 1, 2]))
    assert guess.calls == 2 == len(asked)


def test_confident_step_commits_sure_tokens_at_once():
    p = torch.tensor([[0.95, 0.05, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    x = torch.tensor([2, 2, 0])   # mask = 2; the last position is visible and must stay
    out = faster.UndiffuseConfident(x, 1000, lambda _: p, 2, threshold=0.9)
    assert out[0] == 0 and out[2] == 0   # sure: committed although 1/t is tiny; visible: kept


def test_sharpened_applies_top_k_and_temperature():
    p = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    assert torch.allclose(faster.Sharpened(lambda _: p, top_k=2)(None), torch.tensor([[0.625, 0.375, 0, 0]]))
    squared = p ** 2 / (p ** 2).sum()
    assert torch.allclose(faster.Sharpened(lambda _: p, temperature=0.5)(None), squared)
    both = faster.Sharpened(lambda _: p, temperature=0.5, top_k=3)(None)
    assert both[0, 3] == 0 and torch.allclose(both.sum(), torch.tensor(1.0))


def test_at_temperature_limits():
    p = torch.tensor([[0.5, 0.3, 0.2, 0.0]])
    assert torch.allclose(chat.AtTemperature(p, 1.0), p)
    assert torch.allclose(chat.AtTemperature(p, 0.5), p**2 / (p**2).sum())
    frozen = chat.AtTemperature(p, 1e-3)   # in log space: no underflow to a row of zeros
    assert frozen.argmax() == 0 and frozen[0, 0] == pytest.approx(1) and frozen[0, 3] == 0
    with pytest.raises(ValueError, match="temperature must be positive"):
        chat.AtTemperature(p, 0)


# ----------------------------------------------------------------------------- other markers (Qwen3)

class QwenLikeTokenizer:
    """One token per character, and Qwen3's markers, one token each."""
    mask_token, pad_token, eos_token = "<|mask|>", "<|endoftext|>", "<|im_end|>"
    SPECIAL = [pad_token, mask_token, eos_token]
    PIECES = SPECIAL + [chr(c) for c in range(32, 127)] + ["\n"]
    pad_token_id, mask_token_id = 0, 1

    def encode(self, text, add_special_tokens=False):
        pattern = "|".join(map(re.escape, self.SPECIAL)) + "|."
        return [self.PIECES.index(piece) for piece in re.findall(pattern, text, flags=re.DOTALL)]

    def decode(self, ids):
        return "".join(self.PIECES[i] for i in (ids.tolist() if hasattr(ids, "tolist") else ids))


class SureOfTheEndFirst:
    """Knows the sentence; surest of the end marker and the padding, so greedy steps write them before
    the words in front of them."""

    def __init__(self, target):
        self.target = target

    def __call__(self, x_t):
        p = torch.full((len(self.target), len(QwenLikeTokenizer.PIECES)), 1e-4)
        sure = torch.tensor([0.99 if token in (0, 2) else 0.6 for token in self.target.tolist()])
        p[torch.arange(len(self.target)), self.target] = sure
        return p / p.sum(dim=-1, keepdim=True)


@pytest.fixture
def qwen_world():
    tokenizer = QwenLikeTokenizer()
    prompt = torch.tensor(tokenizer.encode(chat.PROMPTS["qwen"].format("Why?")))
    answer = tokenizer.encode("Blue light.<|im_end|>")
    target = torch.cat([prompt, torch.tensor(answer + [0] * (20 - len(answer)))])
    faster.use(tokenizer, SureOfTheEndFirst(target), "qwen")
    return tokenizer


def test_answer_finished_knows_the_tokenizer_mask(qwen_world):
    """Issue 13 item 5: with Qwen3's markers, masks before the end marker mean not finished."""
    assert not faster.AnswerFinished("Blue<|mask|> light.<|im_end|><|endoftext|>")
    assert faster.AnswerFinished("Blue light.<|im_end|><|mask|><|endoftext|>")


def test_fast_chat_with_other_markers_does_not_stop_with_masks_left(qwen_world):
    """Issue 13 item 5: the end marker is written first; the faster sampler goes on until the words
    before it are written too, and strips the padding."""
    answer, calls = faster.ChatFast("Why?", answer_length=20, T=20, step=UndiffuseGreedy)
    assert answer == "Blue light.", answer


def test_trim_and_show_use_the_tokenizer_markers(qwen_world, capsys):
    """Issue 13 item 5: TrimAnswer strips Qwen3's padding; Show draws its masks and padding."""
    assert chat.TrimAnswer("Blue<|endoftext|> light.<|im_end|><|endoftext|>") == "Blue light."
    chat.Show(3, "Blue<|mask|><|mask|>.<|im_end|><|endoftext|>")
    assert capsys.readouterr().out.strip() == "t =   3 | Blue__.<|im_end|>·"
    assert chat.Chat("Why?", answer_length=20, T=20, step=UndiffuseGreedy) == "Blue light."


# ----------------------------------------------------------------------------- the stand-in

@pytest.fixture
def bert_stand_in():
    tokenizer, network = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu")
    torch.set_num_threads(1)
    faster.use(tokenizer, models.ChatGuesser(network))
    return tokenizer


def test_fast_chat_gives_the_same_answer_with_the_same_seed(bert_stand_in):
    """Remembering and stopping early change no answer: with the same seed the random numbers are
    drawn in the same order and the guesses are identical, so the answers are too."""
    for seed in range(6):
        torch.manual_seed(seed)
        plain = chat.Chat("Why is the sky blue?")
        torch.manual_seed(seed)
        fast, calls = faster.ChatFast("Why is the sky blue?")
        assert fast == plain and calls < 64


def test_plain_loop_makes_one_call_per_step(bert_stand_in):
    assert faster.ChatFast("What is a cat?", T=16, remember=False, stop=False)[1] == 16
    assert faster.ChatFast("What is a cat?", T=16, step=UndiffuseGreedy, stop=False)[1] <= 16


# ----------------------------------------------------------------------------- guesses on the GPU

@pytest.fixture
def notebook(monkeypatch):
    """Notebook 03's cells, solutions in, run under CI (the stand-in) in the simulated GPU: the network's
    logits come back on the device, as from a network on a GPU."""
    for variable in ("NBGRADER_EXECUTION", "HF_HUB_OFFLINE", "MASKDIFF_BERT"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("CI", "1")
    monkeypatch.setenv("MASKDIFF_CACHE", str(CACHE))
    stand_in("bert")
    namespace = {"torch": torch, "math": math, "os": os, "device": "cpu", "QUICK": True,
                 "repeats": lambda n: max(1, n // 5)}
    run_cells(namespace, "machinery", "carried_from_02", "load_bert")
    namespace["bert"] = OnAnotherDevice(namespace["bert"])
    run_cells(namespace, "make_prompt", "Chat", "AtTemperature", "sharpened", "faster")
    return namespace


def test_guesses_stay_on_the_network_device_and_only_chosen_tokens_cross(notebook):
    """Issue 13 item 2: GuessBERT leaves p where the network is; sampling (with a temperature or top-k),
    greedy steps, Fast-dLLM's confident step and ShowGuesses take from it only what they chose."""
    nb = notebook
    tempered = lambda x, t, guess, mask: nb["Undiffuse"](x, t, nb["Sharpened"](guess, 0.5), mask)  # noqa: E731
    top_k = lambda x, t, guess, mask: nb["Undiffuse"](x, t, nb["Sharpened"](guess, 0.7, top_k=20), mask)  # noqa: E731
    with GPU() as gpu:
        x = nb["Tokens"](nb["MakePrompt"]("Why is the sky blue?"))
        assert isinstance(nb["GuessBERT"](x), Remote), "GuessBERT's probabilities stay on the device"
        assert not gpu.crossings, f"GuessBERT moved {gpu.crossings} numbers to the CPU"
        for step in (nb["Undiffuse"], tempered, top_k, nb["UndiffuseGreedy"]):
            assert isinstance(nb["Chat"]("Why is the sky blue?", answer_length=16, T=8, step=step), str)
        nb["ChatFast"]("What is a cat?", answer_length=16, T=8, step=nb["UndiffuseConfident"])
        run_cells(nb, "show_guesses")
    length = len(x) + 16
    assert gpu.crossings and max(gpu.crossings) <= length, \
        f"a whole table crossed to the CPU: {sorted(set(gpu.crossings))[-3:]} numbers (sentence: {length})"


def cpu_style_undiffuse(x_t, t, GuessX0, mask):
    """Notebook 2's reference, written for CPU guesses."""
    p = GuessX0(x_t).float()
    guess = torch.multinomial(p, 1).squeeze(1)
    reveal = (x_t == mask) & (torch.rand(len(x_t)) < 1.0 / t)
    return torch.where(reveal, guess, x_t)


def test_steps_that_mix_devices_get_cpu_guesses(notebook, capsys):
    """Issue 13 item 2: a step written for CPU guesses fails on GPU ones; the loader notices and hands
    such steps CPU probabilities (and says what to change); the notebook's reference steps pass."""
    with GPU():
        table = torch.full((4, 5), 0.2, device="cuda")
        assert models.StepsTake(table, notebook["Undiffuse"], notebook["UndiffuseGreedy"])
        assert not models.StepsTake(table, cpu_style_undiffuse)
    assert ".to(x_t.device)" in capsys.readouterr().out
    assert models.SamplesOnDevice("cpu", cpu_style_undiffuse), "on a CPU there is nothing to move"
