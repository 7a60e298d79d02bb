"""Stand-ins that the hidden checks hand to a student's functions inside the student's kernel.

They hold data, not solutions: a guesser that always returns one table, a guesser that looks its
answer up in a table the checker filled, a character-level tokenizer. The checker describes each one
as data (`wire_spec`) and the kernel builds it (`build`); whatever a student's function does with
them, the checker re-verifies the results it gets back. Stand-ins that must count or record
faithfully (Chat's guesser and step, notebook 05's denoiser) stay in the checker and are called back.
"""
import re

import torch

from .wire import ProtocolError


class FixedGuesser:
    """Ignores x_t and always returns the table p (L, V)."""

    def __init__(self, p):
        self.p = torch.as_tensor(p, dtype=torch.float32)

    def wire_spec(self):
        return "FixedGuesser", {"p": self.p}

    def __call__(self, x_t):
        return self.p.clone()


class TableGuesser:
    """Looks x_t up among the sentences the checker foresaw (`sentences`, each with its row block of
    `tables`); any other x_t is an error that names it."""

    def __init__(self, sentences, tables, vocabulary=None):
        self.sentences = [tuple(int(v) for v in s) for s in sentences]
        self.tables = torch.as_tensor(tables, dtype=torch.float32)
        self.vocabulary = vocabulary
        self.index = {s: i for i, s in enumerate(self.sentences)}

    def wire_spec(self):
        return "TableGuesser", {"sentences": self.sentences, "tables": self.tables,
                                "vocabulary": self.vocabulary}

    def __call__(self, x_t):
        key = tuple(int(v) for v in torch.as_tensor(x_t).reshape(-1).tolist())
        if key not in self.index:
            shown = " ".join(self.vocabulary[v] if self.vocabulary and 0 <= v < len(self.vocabulary)
                             else str(v) for v in key)
            raise ValueError(f"the guesser was handed '{shown}', which is not a sentence of this world "
                             "with some positions masked")
        return self.tables[self.index[key]].clone()


class TimedGuesser:
    """GuessX0(x_t, t) for a step of notebook 08: the table tables[k] (L, V) when asked at times[k] (to 1e-9),
    whatever x_t; asked at another time it raises a LookupError that names it. With no times it stands
    for a guess that must not be asked at all (a step whose times are wrong stops before any work)."""

    def __init__(self, times, tables):
        self.times = [float(t) for t in times]
        self.tables = torch.as_tensor(tables, dtype=torch.float32)   # (len(times), L, V)

    def wire_spec(self):
        return "TimedGuesser", {"times": self.times, "tables": self.tables}

    def __call__(self, x_t, t=None, *rest):
        if not self.times:
            raise LookupError("GuessX0 was called, but with these times the step should stop before any work "
                              "(check the times first)")
        for k, when in enumerate(self.times):
            if t is not None and abs(float(t) - when) <= 1e-9:
                return self.tables[k].clone()
        raise LookupError(f"GuessX0 was asked at t = {t!r}; this step goes from t = "
                          f"{', '.join(f'{w:g}' for w in self.times)}: call GuessX0(x_t, t) with the step's t")


class CharTokenizer:
    """One token per character; the mask and pad markers are one token each (like a real tokenizer's
    special tokens). Enough of a Hugging Face tokenizer for Chat."""

    def __init__(self, pieces, mask_token="[MASK]", pad_token="[PAD]"):
        self.pieces = list(pieces)
        self.mask_token, self.pad_token = mask_token, pad_token
        self.mask_token_id = self.pieces.index(mask_token)
        self.pad_token_id = self.pieces.index(pad_token)
        self.ids = {piece: i for i, piece in enumerate(self.pieces)}
        self.pattern = re.compile("|".join(re.escape(m) for m in (mask_token, pad_token)) + "|.", re.DOTALL)

    def wire_spec(self):
        return "CharTokenizer", {"pieces": self.pieces, "mask_token": self.mask_token,
                                 "pad_token": self.pad_token}

    def __len__(self):
        return len(self.pieces)

    def encode(self, text, add_special_tokens=False):
        try:
            return [self.ids[piece] for piece in self.pattern.findall(text)]
        except KeyError as err:
            raise ValueError(f"this tokenizer has no token for {err.args[0]!r}") from None

    def decode(self, ids, skip_special_tokens=False):
        ids = ids.tolist() if hasattr(ids, "tolist") else ids
        ids = [ids] if isinstance(ids, int) else list(ids)
        special = {self.mask_token_id, self.pad_token_id} if skip_special_tokens else set()
        return "".join(self.pieces[int(i)] for i in ids if int(i) not in special)

    def convert_ids_to_tokens(self, ids):
        return [self.pieces[int(i)] for i in (ids.tolist() if hasattr(ids, "tolist") else ids)]


class _WithTokenizer:
    """A notebook helper made of a CharTokenizer alone; it crosses the wire as its class name."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def wire_spec(self):
        return type(self).__name__, {"tokenizer": self.tokenizer}


class Tokens(_WithTokenizer):
    """text -> tensor of token ids, with a CharTokenizer (the notebook's `Tokens`)."""

    def __call__(self, text):
        return torch.tensor(self.tokenizer.encode(text), dtype=torch.long)


class Text(_WithTokenizer):
    """token ids -> text, with a CharTokenizer (the notebook's `Text`)."""

    def __call__(self, x):
        return self.tokenizer.decode(x)


class Template:
    """question -> text: `form` with {question} filled in (the notebook's `MakePrompt`)."""

    def __init__(self, form):
        self.form = str(form)

    def wire_spec(self):
        return "Template", {"form": self.form}

    def __call__(self, question):
        return self.form.replace("{question}", str(question))


KINDS = {cls.__name__: cls for cls in (FixedGuesser, TableGuesser, TimedGuesser, CharTokenizer, Tokens, Text,
                                         Template)}


def build(kind, args):
    """A stand-in from its wire description (the kernel side of `wire_spec`)."""
    if kind not in KINDS or not isinstance(args, dict):
        raise ProtocolError(f"no stand-in of kind {kind!r:.50}")
    try:
        return KINDS[kind](**args)
    except (TypeError, ValueError) as err:
        raise ProtocolError(f"a {kind} that cannot be built: {err}") from None
