"""Hidden checks for notebook 03: Chat.

The student's `Chat` reads globals of the notebook (`tokenizer`, `GuessBERT`, `BERT_MASK`,
`MakePrompt`, `Tokens`, `Text`, `ANSWER_END`). Autograding re-runs the notebook with a stand-in
network, so the checks do not use it: each call of Chat runs with a fake of each bound in Chat's
namespace (`Student.with_globals`, which puts the notebook's own back afterwards). The fakes are exact:
a character-level tokenizer whose [MASK] and [PAD] are single tokens (data, built in the student's
kernel), and a guesser that knows the answer, so every property is checked without statistics. The
guesser and the steps handed to Chat stay with the checker (the student's kernel calls them back),
so what they count and record cannot be forged; the steps are our own (reference steps wrapped in a
recorder), so a bug in the student's Undiffuse costs nothing here.
"""
import torch

from maskdiff_client.fakes import CharTokenizer, Template, Text, Tokens

from ..chat import TrimAnswer
from ..sampling import Undiffuse, UndiffuseGreedy
from .core import Failure, changed, check, expect, type_name, value_of

FAKE_MASK, FAKE_PAD = 2, 1     # not the real ids, and not the last entry of the vocabulary
END = "[/Answer"
PIECES = ["<unused>", "[PAD]", "[MASK]"] + [chr(c) for c in range(32, 127)] + ["\n"]
FAKE_TOKENIZER = CharTokenizer(PIECES)
PROMPT = Template("<question>{question}</question>\n<answer>\n")


def fake_tokens(text):
    return Tokens(FAKE_TOKENIZER)(text)


def fake_text(x):
    return FAKE_TOKENIZER.decode(x)


def fake_prompt(question):
    return PROMPT(question)


class FakeGuesser:
    """Knows the whole sentence (prompt, answer, padding): puts probability 1 - spread on it at every
    position and spreads the rest over three letters. Checks and counts what it is handed."""

    def __init__(self, target, spread=0.0):
        self.target, self.spread, self.seen = target, spread, []

    @property
    def calls(self):
        return len(self.seen)

    def __call__(self, x_t):
        self.seen.append(x_t.clone() if torch.is_tensor(x_t) else x_t)
        if not (torch.is_tensor(x_t) and x_t.dim() == 1 and len(x_t) == len(self.target)):
            shape = tuple(x_t.shape) if torch.is_tensor(x_t) else type(x_t).__name__
            raise Failure(f"GuessBERT was handed {shape}; it should get the 1-D sentence of the prompt "
                          f"plus answer_length tokens, {len(self.target)} in all")
        p = torch.zeros(len(self.target), len(PIECES))
        p[torch.arange(len(self.target)), self.target] = 1.0 - self.spread
        p[:, [PIECES.index(c) for c in "xyz"]] += self.spread / 3
        return p


def fake_world(guess):
    """The names the student's Chat reads, bound to fakes for one call."""
    return dict(tokenizer=FAKE_TOKENIZER, Tokens=Tokens(FAKE_TOKENIZER), Text=Text(FAKE_TOKENIZER),
                MakePrompt=PROMPT, GuessBERT=guess, BERT_MASK=FAKE_MASK, ANSWER_END=END)


class Recorder:
    """A step for Chat: records what it is handed, then takes a reference step."""

    def __init__(self, inner=Undiffuse):
        self.inner, self.log = inner, []

    def __call__(self, x, t, guess, mask):
        handed = x.clone() if torch.is_tensor(x) else x
        out = self.inner(x, t, guess, mask)
        self.log.append((handed, t, mask, out.clone()))
        return out


def sentence(question, answer, answer_length):
    """Prompt tokens, and the full target sentence: prompt + answer text cut or padded to length."""
    prompt = fake_tokens(fake_prompt(question))
    reply = fake_tokens(answer)[:answer_length]
    pad = torch.full((answer_length - len(reply),), FAKE_PAD)
    return prompt, torch.cat([prompt, reply, pad])


def chat(Chat, question, answer, answer_length, T, step=None, spread=0.0, show=False):
    """Run the student's Chat in the fake world; returns (answer, guesser, recorder, printed)."""
    prompt, target = sentence(question, answer, answer_length)
    guess, recorder = FakeGuesser(target, spread), Recorder(step or Undiffuse)
    what = f"Chat({question!r}, answer_length={answer_length}, T={T}, step=..., show={show})"
    result = Chat.with_globals(fake_world(guess), question, answer_length, T, recorder, show)
    return value_of(result, what), guess, recorder, result[-1]


ANSWER = "Blue light scatters most.\n[/Answer]"


@check("Chat.prompt")
def chat_prompt(Chat):
    for question, n in (("Why is the sky blue?", 24), ("Hi", 5)):
        prompt, _ = sentence(question, ANSWER, n)
        _, guess, _, _ = chat(Chat, question, ANSWER, n, 3)
        expect(guess.seen, "Chat never asked the network (GuessBERT) for a guess")
        first = guess.seen[0]
        expect(not first.is_floating_point(), "the sentence should be a tensor of token ids (integers)")
        expect(len(first) == len(prompt) + n,
               f"the sentence should be the {len(prompt)} prompt tokens followed by answer_length = {n} "
               f"masks ({len(prompt) + n} tokens), got {len(first)} tokens")
        expect(torch.equal(first[:len(prompt)], prompt),
               "the sentence should start with Tokens(MakePrompt(question)), unmasked")
        expect(bool((first[len(prompt):] == FAKE_MASK).all()),
               "every answer position should start out as BERT_MASK")
        for k, seen in enumerate(guess.seen):
            expect(torch.equal(seen[:len(prompt)], prompt),
                   f"the prompt had changed by guess number {k + 1}: only the answer positions may change")


@check("Chat.steps")
def chat_steps(Chat):
    for T, n in ((6, 16), (1, 10), (20, 8)):
        _, guess, recorder, _ = chat(Chat, "Why?", ANSWER, n, T)
        ts = [t for _, t, _, _ in recorder.log]
        expect(ts == list(range(T, 0, -1)),
               f"with T = {T}, step should be called with t = {T}, {T - 1}, ..., 1 (once each); "
               f"it was called with t = {ts[:12]}{' ...' if len(ts) > 12 else ''}")
        masks = {int(mask) if not torch.is_tensor(mask) or mask.numel() == 1 else -1
                 for _, _, mask, _ in recorder.log}
        expect(masks == {FAKE_MASK}, f"step should be handed BERT_MASK ({FAKE_MASK}) as its mask, got {masks}")
        for k in range(1, len(recorder.log)):
            expect(torch.equal(recorder.log[k][0], recorder.log[k - 1][3]),
                   f"each step should start from what the previous step returned (step t = {ts[k]} did not)")
        expect(guess.calls == T, f"with T = {T} the network should be asked T = {T} times (once per step), "
                                 f"it was asked {guess.calls} times")
    answers = {chat(Chat, "Why?", ANSWER, 12, 4, UndiffuseGreedy, spread=0.3)[0] for _ in range(4)}
    expect(len(answers) == 1, f"with step=UndiffuseGreedy, Chat should give the same answer every time; "
                              f"four runs gave {sorted(answers)}")


TRIM_CASES = [  # (what the network writes, answer_length)
    ("The sky scatters blue light.\n[/Answer]", 48),
    ("  Blue[PAD] light. \n[/Answer]\nAnything after the marker[PAD]", 70),
    ("no end marker, the answer fills it", 34),
    ("Cut short.\n[/Answer", 19),
]


@check("Chat.answer")
def chat_answer(Chat):
    for written, n in TRIM_CASES:
        out, _, _, _ = chat(Chat, "Tell me.", written, n, 5)
        shown = fake_text(fake_tokens(written)[:n]).replace("\n", "\\n")
        want = TrimAnswer(fake_text(fake_tokens(written)[:n]), END)
        expect(isinstance(out, str), f"Chat should return the answer as a string, got {type(out).__name__}")
        expect(out == want, f"when the network writes {shown!r} after the prompt, Chat should return "
                            f"{want!r} (only the answer, [PAD] removed, cut at {END!r}, stripped); "
                            f"got {out!r}")


@check("Chat.show")
def chat_show(Chat):
    quiet, quiet_guess, _, _ = chat(Chat, "Why?", ANSWER, 30, 16)
    loud, guess, _, printed = chat(Chat, "Why?", ANSWER, 30, 16, show=True)
    lines = [line for line in printed.splitlines() if line.strip()]
    expect(len(lines) >= 2, f"with show=True Chat should print the answer as it forms every few steps; "
                            f"it printed {len(lines)} line(s) in 16 steps")
    expect(loud == quiet, "show=True should only print: the answer changed")
    expect(guess.calls == quiet_guess.calls, f"show=True should not ask the network extra questions: "
                                             f"it was asked {guess.calls} times, {quiet_guess.calls} "
                                             f"without show")
    for T in SMALL_T:  # "every few steps" must still work when there are fewer than eight steps
        quiet = chat(Chat, "Hi", ANSWER, 6, T)[0]
        loud = chat(Chat, "Hi", ANSWER, 6, T, show=True)[0]
        expect(loud == quiet, f"with T = {T}, show=True should only print: the answer changed")


SMALL_T = range(1, 9)


# ---------------------------------------------------------------- AtTemperature

def temperature_tables(generator):
    """Guesses to temper: (L, V) tables with zeros (impossible tokens must stay impossible), a batch
    (B, L, V) (rows are the last axis, whatever comes before), and a float64 table. Every non-zero
    probability is at least 0.01, so p ** (1/tau) stays far from underflow at the temperatures used."""
    flat = torch.rand(5, 9, generator=generator) + 0.1
    flat[:, :2] = 0.0
    sharp = torch.rand(3, 4, 6, generator=generator) ** 4 + 0.01
    sharp[0, :, 3] = 0.0
    wide = torch.rand(2, 40, generator=generator, dtype=torch.float64) + 0.05
    return [table / table.sum(dim=-1, keepdim=True) for table in (flat, sharp, wide)]


@check("AtTemperature")
def at_temperature(AtTemperature):
    from ..chat import AtTemperature as reference
    generator = torch.Generator().manual_seed(11)
    cases = [(p, tau) for p in temperature_tables(generator) for tau in (1.0, 0.5, 2.0, 0.25, 1.5)]
    results = AtTemperature.calls([[p, tau] for p, tau in cases])
    for (p, tau), result in zip(cases, results):
        what = f"AtTemperature(p, {tau}) for p of shape {tuple(p.shape)}"
        out = value_of(result, what)
        expect(0 not in changed(result), "AtTemperature changed the p it was given: compute a new tensor "
                                         "(a guesser may hand the same table out twice)")
        expect(torch.is_tensor(out) and tuple(out.shape) == tuple(p.shape),
               f"{what} should return a tensor of the same shape, got "
               f"{tuple(out.shape) if torch.is_tensor(out) else type_name(out)}")
        out = out.detach().double()
        expect(not bool(out.isnan().any()), f"{what} holds NaN")
        sums = out.sum(dim=-1)
        expect(bool(((sums - 1).abs() < 1e-4).all()),
               f"{what}: each row (the last axis) should sum to one again, got sums from "
               f"{float(sums.min()):.4f} to {float(sums.max()):.4f}")
        want = reference(p.double(), tau)
        if not torch.allclose(out, want, atol=1e-5, rtol=1e-4):
            row = int((out - want).abs().amax(dim=-1).flatten().argmax())
            got_row, want_row = out.reshape(-1, p.shape[-1])[row], want.reshape(-1, p.shape[-1])[row]
            raise Failure(f"{what}: a row with probabilities {fmt(p.reshape(-1, p.shape[-1])[row])} should "
                          f"become {fmt(want_row)} (p ** (1/tau), normalised), got {fmt(got_row)}")


def fmt(row):
    return "[" + ", ".join(f"{float(v):.3f}" for v in row[:6]) + (", ...]" if len(row) > 6 else "]")
