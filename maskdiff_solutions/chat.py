"""Reference for notebook 03: talking to a masked diffusion language model.

Written the way the notebook is: `Chat` reads the globals the notebook's given cells define
(`tokenizer`, `GuessBERT`, `BERT_MASK`, `MakePrompt`, `Tokens`, `Text`, `ANSWER_END`). Here they are
this module's globals, set by `use(...)`; the hidden checks swap in fakes the same way for the
student's `Chat` (see grading/chat.py). Nothing here imports transformers: models.py does that.

The markers are the tokenizer's own: its `mask_token` and `pad_token` (ModernBERT writes [MASK] and
[PAD], Qwen3 <|mask|> and <|endoftext|>), and the network's end of answer, `ANSWER_END`.
Where the tensors live: the sentence x_t on the CPU (Tokens makes it there); the guesses on the
network's device; a step samples where the guesses are and moves only the chosen tokens to x_t.
"""
import os

import torch

from .sampling import Undiffuse

# Set by use(); None until a model is chosen.
tokenizer = None
GuessBERT = None
BERT_MASK = None
PROMPTS = {
    "bert": "[SYS]\nYou are a helpful AI assistant.\n[/SYS]\n\n[Question]\n{}\n[/Question]\n\n[Answer]\n",
    "qwen": ("<|im_start|>system\nYou are a helpful AI assistant.<|im_end|>\n<|im_start|>user\n{}"
             "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"),
}
ENDINGS = {"bert": "[/Answer", "qwen": "<|im_end|>"}
PROMPT, ANSWER_END = PROMPTS["bert"], ENDINGS["bert"]


def use(new_tokenizer, guess, kind="bert"):
    """Talk to another network: its tokenizer, its guessing function, and its prompt format."""
    global tokenizer, GuessBERT, BERT_MASK, PROMPT, ANSWER_END
    if kind not in PROMPTS:
        raise ValueError(f"kind must be one of {sorted(PROMPTS)}, got {kind!r}")
    tokenizer, GuessBERT, BERT_MASK = new_tokenizer, guess, new_tokenizer.mask_token_id
    PROMPT, ANSWER_END = PROMPTS[kind], ENDINGS[kind]


def Tokens(text):
    """text -> tensor of token ids (no [CLS]/[SEP] added)."""
    return torch.tensor(tokenizer.encode(text, add_special_tokens=False))


def Text(x):
    """tensor of token ids -> text, markers and all."""
    return tokenizer.decode(x)


def MakePrompt(question):
    """The question in the format the network was trained on, ready for the answer to follow."""
    return PROMPT.format(question)


def Marker(name):
    """The chosen tokenizer's spelling of a special token ("mask_token", "pad_token"). Before a network
    is chosen (the hidden checks call TrimAnswer so), ModernBERT's spelling, which their fake shares."""
    return getattr(tokenizer, name, None) or {"mask_token": "[MASK]", "pad_token": "[PAD]"}[name]


def TrimAnswer(text, end=None, pad=None):
    """Drop the padding and everything from the end-of-answer marker on."""
    return text.replace(pad or Marker("pad_token"), "").split(end or ANSWER_END)[0].strip()


def Show(t, answer):
    """One line of Chat(show=True): x_t's answer, masks as _ and padding as a dot."""
    answer = answer.replace(Marker("mask_token"), "_").replace(Marker("pad_token"), "·")
    print(f"t = {t:3d} | " + answer.replace("\n", " "))


def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    """Answer a question by undiffusing answer_length masks placed after the prompt, in T steps."""
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK, dtype=prompt.dtype)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)      # the step from t gives x_{t-1}
        if show and (t - 1) % max(1, T // 8) == 0:   # about eight snapshots, the last one x_0
            Show(t - 1, Text(x[len(prompt):]))
    return TrimAnswer(Text(x[len(prompt):]))


def AtTemperature(p, temperature):
    """The guess p (probabilities over the last axis) at temperature tau: p ** (1/tau), normalised so
    every row sums to one again. Computed as a softmax of log p / tau, which cannot underflow to a row of
    zeros at small tau; log 0 = -inf keeps an impossible token impossible."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    return torch.softmax(torch.log(p) / temperature, dim=-1)


# --- notebook cell: sharpened ---
def Sharpened(guess, temperature=1.0, top_k=None):
    """A guesser: guess's probabilities at the temperature (your AtTemperature), and with top_k only each
    position's top_k tokens kept. Computed where p lives, so on a GPU only the chosen tokens leave it.
    Use it as step=lambda x, t, guess, mask: Undiffuse(x, t, Sharpened(guess, 0.5), mask)."""
    def sharpened(x_t):
        p = guess(x_t).float()
        if top_k is not None:
            kth = p.topk(top_k, dim=-1).values[..., -1:]
            p = torch.where(p >= kth, p, torch.zeros_like(p))
            p = p / p.sum(dim=-1, keepdim=True)
        return AtTemperature(p, temperature)
    return sharpened
# --- end of notebook cell ---


# --- notebook cell: chat_loop ---
def ChatLoop(**settings):
    """Type a question, get an answer; an empty line stops. Under the autograder or CI nobody types,
    so it says so and returns."""
    if os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI"):
        print("ChatLoop waits for typing, so it does nothing under the autograder or CI")
        return
    while True:
        question = input("You: ")
        if question.strip() == "":
            break
        print("Model:", Chat(question, **settings), "\n")

# ChatLoop(step=UndiffuseGreedy)     # <- remove the # to talk (under the autograder it returns at once)
# --- end of notebook cell ---
