"""Reference for notebook 03: talking to a masked diffusion language model.

Written the way the notebook is: `Chat` reads the globals the notebook's given cells define
(`tokenizer`, `GuessBERT`, `BERT_MASK`, `MakePrompt`, `Tokens`, `Text`, `ANSWER_END`). Here they are
this module's globals, set by `use(...)`; the hidden checks swap in fakes the same way for the
student's `Chat` (see grading/chat.py). Nothing here imports transformers: models.py does that.
"""
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


def TrimAnswer(text, end=None):
    """Drop the padding and everything from the end-of-answer marker on."""
    return text.replace("[PAD]", "").split(end or ANSWER_END)[0].strip()


def Show(t, answer):
    print(f"t = {t:3d} | " + answer.replace("[MASK]", "_").replace("[PAD]", "·").replace("\n", " "))


def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    """Answer a question by undiffusing answer_length masks placed after the prompt, in T steps."""
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK, dtype=prompt.dtype)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show and (t % max(1, T // 8) == 0 or t == 1):   # about eight snapshots
            Show(t, Text(x[len(prompt):]))
    return TrimAnswer(Text(x[len(prompt):]))


def ChatLoop(**settings):
    """Type a question, get an answer; an empty line stops."""
    while True:
        question = input("You: ")
        if question.strip() == "":
            break
        print("Model:", Chat(question, **settings), "\n")
