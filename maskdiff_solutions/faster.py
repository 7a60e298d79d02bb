"""Beyond the course page: fewer network calls per answer (notebook 03's optional section).

Two tricks leave the answer's distribution exactly as it was, and one trades a little of it for speed:
- `Remember`: the network is not told t, so its guess depends on x_t alone; when no token changed
  since the last call, the last guess is still right and the call can be skipped (MDLM's caching);
- stopping once the end-of-answer marker and everything before it are written: later steps only
  fill positions that trimming throws away;
- `UndiffuseConfident`: also commit every masked position whose best token is more probable than a
  threshold (Fast-dLLM's parallel decoding) - faster, but no longer the same distribution.
`Sharpened` (chat.py, the notebook's Temperature section) wraps a guesser with a temperature and top-k.
The markers come from the tokenizer (`tokenizer.mask_token`, `tokenizer.pad_token`) and `ANSWER_END`,
so all of it works the same after switching to Qwen3.

With the same seed, `ChatFast` with the first two returns exactly the answer `Chat` returns: the
guesses are identical and the random numbers are drawn in the same order.
The code between the markers is the notebook's given cell `faster` (tests/course/term/test_notebooks.py keeps them
identical).
"""
import torch

from . import chat
from .chat import ANSWER_END, BERT_MASK, GuessBERT, MakePrompt, Sharpened, Text, Tokens, tokenizer  # noqa: F401
from .sampling import Undiffuse


def use(tokenizer, guess, kind="bert"):
    """Talk to a network (chat.use), and read its guesser, mask and marker here too, as the
    notebook's cell reads them from its globals."""
    chat.use(tokenizer, guess, kind)
    globals().update(tokenizer=chat.tokenizer, GuessBERT=chat.GuessBERT, BERT_MASK=chat.BERT_MASK,
                     ANSWER_END=chat.ANSWER_END)


# --- notebook cell: faster ---
class Remember:
    """A guesser that asks the network only when the sentence changed since its last question."""

    def __init__(self, guess):
        self.guess, self.calls, self.last_x, self.last_p = guess, 0, None, None

    def __call__(self, x_t):
        if self.last_x is None or not torch.equal(x_t, self.last_x):
            self.last_x, self.last_p = x_t.clone(), self.guess(x_t)
            self.calls += 1
        return self.last_p


def AnswerFinished(answer_text):
    """True once the end marker is written and nothing before it is still masked."""
    end = answer_text.find(ANSWER_END)
    return end >= 0 and tokenizer.mask_token not in answer_text[:end]


def UndiffuseConfident(x_t, t, GuessX0, mask, threshold=0.9):
    """Undiffuse, then also commit every masked position whose best token has probability > threshold."""
    p = GuessX0(x_t).float()
    x = Undiffuse(x_t, t, lambda _: p, mask)
    confidence, best = p.max(dim=-1)
    sure = (x == mask) & (confidence > threshold).to(x.device)
    return torch.where(sure, best.to(x.device), x)


def ChatFast(question, answer_length=64, T=64, step=Undiffuse, remember=True, stop=True):
    """Chat with the tricks switched on; returns (answer, network calls)."""
    guess = Remember(GuessBERT) if remember else CountCalls(GuessBERT)
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK, dtype=prompt.dtype)])
    for t in range(T, 0, -1):
        x = step(x, t, guess, BERT_MASK)
        if stop and AnswerFinished(Text(x[len(prompt):])):
            break
    answer = Text(x[len(prompt):])
    return answer.replace(tokenizer.pad_token, "").split(ANSWER_END)[0].strip(), guess.calls


class CountCalls:
    """A guesser that counts the network calls it passes on (the plain loop, for comparison)."""

    def __init__(self, guess):
        self.guess, self.calls = guess, 0

    def __call__(self, x_t):
        self.calls += 1
        return self.guess(x_t)
# --- end of notebook cell ---
