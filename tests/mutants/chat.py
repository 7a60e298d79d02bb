"""Bugs students make in notebook 03's Chat. Each is the whole solution cell; it reads the notebook's
globals (tokenizer, GuessBERT, BERT_MASK, MakePrompt, Tokens, Text, Undiffuse), which the checks swap
for fakes."""
from . import Mutant

MUTANTS = [
    Mutant("Chat", "forgets to trim the answer", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):])
""", ("Chat.answer",)),
    Mutant("Chat", "returns the prompt with the answer", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    x = torch.cat([Tokens(MakePrompt(question)), torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x).replace("[MASK]", "_"))
    return Text(x).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.answer",)),
    Mutant("Chat", "ignores step and always undiffuses stochastically", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = Undiffuse(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.steps",)),
    Mutant("Chat", "loop runs t = T-1 ... 1, one step short", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T - 1, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.steps",)),
    Mutant("Chat", "loop runs t = T ... 0, one step too many", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, -1, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.prompt", "Chat.steps", "Chat.answer", "Chat.show")),
    Mutant("Chat", "fills the last masks with one extra greedy guess", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    best = GuessBERT(x).argmax(dim=-1)
    x = torch.where(x == BERT_MASK, best, x)
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.steps",)),
    Mutant("Chat", "forgets the prompt: all masks", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.full((len(prompt) + answer_length,), BERT_MASK)
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.prompt",)),
    Mutant("Chat", "masks go before the prompt", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([torch.full((answer_length,), BERT_MASK), prompt])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.prompt", "Chat.answer")),
    Mutant("Chat", "cuts at the full marker [/Answer] only", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show:
            print(Text(x[len(prompt):]).replace("[MASK]", "_"))
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer]")[0].strip()
""", ("Chat.answer",)),
    Mutant("Chat", "show is ignored", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
    return Text(x[len(prompt):]).replace("[PAD]", "").split("[/Answer")[0].strip()
""", ("Chat.show",)),

    Mutant("AtTemperature", "p ** temperature instead of p ** (1/temperature)", """
def AtTemperature(p, temperature):
    q = p ** temperature
    return q / q.sum(dim=-1, keepdim=True)
""", ("AtTemperature",)),
    Mutant("AtTemperature", "divides the probabilities by the temperature as if they were logits", """
def AtTemperature(p, temperature):
    return torch.softmax(p / temperature, dim=-1)
""", ("AtTemperature",)),
    Mutant("AtTemperature", "forgets to normalise", """
def AtTemperature(p, temperature):
    return p ** (1 / temperature)
""", ("AtTemperature",)),
    Mutant("AtTemperature", "normalises over the wrong axis", """
def AtTemperature(p, temperature):
    q = p ** (1 / temperature)
    return q / q.sum(dim=0, keepdim=True)
""", ("AtTemperature",)),
    Mutant("AtTemperature", "tempers the guess in place", """
def AtTemperature(p, temperature):
    p **= 1 / temperature
    p /= p.sum(dim=-1, keepdim=True)
    return p
""", ("AtTemperature",)),
    Mutant("Chat", "show=True prints every T // 8 steps: divides by zero when T < 8", """
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
        if show and (t - 1) % (T // 8) == 0:
            print(f"t = {t - 1}:", Text(x[len(prompt):]).replace(tokenizer.mask_token, "_"))
    answer = Text(x[len(prompt):])
    return answer.replace(tokenizer.pad_token, "").split(ANSWER_END)[0].strip()
""", ("Chat.show",)),
]
