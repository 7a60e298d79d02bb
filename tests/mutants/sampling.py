"""Bugs students make in notebook 02 (the toy worlds, Undiffuse, UndiffuseGreedy)."""
from . import Mutant

MUTANTS = [
    Mutant("SamplePInit_one", "returns the words, not the tokens", """
def SamplePInit_one():
    return "the cat is alive"
""", ("SamplePInit_one",)),
    Mutant("SamplePInit_one", "returns a batch of one", """
def SamplePInit_one():
    return torch.tensor([[0, 1, 3, 4]])
""", ("SamplePInit_one",)),
    Mutant("SamplePInit_one", "wrong sentence", """
def SamplePInit_one():
    return torch.tensor([vocab.index(w) for w in "the box is alive".split()])
""", ("SamplePInit_one",)),
    Mutant("SamplePInit_one", "the right ids as a float tensor", """
def SamplePInit_one():
    return torch.tensor([vocab.index(w) for w in "the cat is alive".split()], dtype=torch.float32)
""", ("SamplePInit_one",)),

    Mutant("GuessX0_one", "transposed: (V, L)", """
def GuessX0_one(x_t):
    p = torch.zeros(len(vocab), len(x_t))
    for i, w in enumerate("the cat is alive".split()):
        p[vocab.index(w), i] = 1
    return p
""", ("GuessX0_one",)),
    Mutant("GuessX0_one", "echoes x_t: guesses the mask where it sees one", """
def GuessX0_one(x_t):
    return torch.nn.functional.one_hot(x_t, len(vocab)).float()
""", ("GuessX0_one",)),
    Mutant("GuessX0_one", "only fills the masked positions", """
def GuessX0_one(x_t):
    answer = torch.tensor([0, 1, 3, 4])
    p = torch.zeros(len(x_t), len(vocab))
    for i in range(len(x_t)):
        if x_t[i] == MASK:
            p[i, answer[i]] = 1
    return p
""", ("GuessX0_one",)),

    Mutant("Undiffuse", "argmax instead of sampling", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = p.argmax(dim=1)
    x = x_t.clone()
    reveal = (x == mask) & (torch.rand(len(x)) < 1 / t)
    x[reveal] = guess[reveal]
    return x
""", ("Undiffuse.samples", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "overwrites visible tokens too", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    x = x_t.clone()
    reveal = torch.rand(len(x)) < 1 / t
    x[reveal] = guess[reveal]
    return x
""", ("Undiffuse.keeps", "Undiffuse.rate", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "reads the global MASK, not the mask argument", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    x = x_t.clone()
    reveal = (x == MASK) & (torch.rand(len(x)) < 1 / t)
    x[reveal] = guess[reveal]
    return x
""", ("Undiffuse.keeps", "Undiffuse.rate", "Undiffuse.samples")),
    Mutant("Undiffuse", "reveals with probability 1/(t+1)", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    x = x_t.clone()
    reveal = (x == mask) & (torch.rand(len(x)) < 1 / (t + 1))
    x[reveal] = guess[reveal]
    return x
""", ("Undiffuse.keeps", "Undiffuse.rate", "Undiffuse.samples",
      "Undiffuse.one_sentence", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "reveals everything at once", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    return torch.where(x_t == mask, guess, x_t)
""", ("Undiffuse.rate", "Undiffuse.one_sentence", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "reveals left to right, ceil(masked/t) per step", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    x = x_t.clone()
    masked = torch.nonzero(x == mask).flatten()
    first = masked[:math.ceil(len(masked) / t)]
    x[first] = guess[first]
    return x
""", ("Undiffuse.rate", "Undiffuse.one_sentence", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "masks its input in place", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    guess = torch.multinomial(p, 1).squeeze(1)
    reveal = (x_t == mask) & (torch.rand(len(x_t)) < 1 / t)
    x_t[reveal] = guess[reveal]
    return x_t
""", ("Undiffuse.keeps", "Undiffuse.rate", "Undiffuse.samples",
      "Undiffuse.one_sentence", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "right number of reveals, but always the leftmost masks", """
def Undiffuse(x_t, t, GuessX0, mask):
    guess = torch.multinomial(GuessX0(x_t), 1).squeeze(1)
    x = x_t.clone()
    masked = torch.nonzero(x == mask).flatten()
    n = int((torch.rand(len(masked)) < 1 / t).sum())   # as many as the coins say...
    x[masked[:n]] = guess[masked[:n]]                   # ...but the first ones
    return x
""", ("Undiffuse.rate", "Undiffuse.one_sentence", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "one random number picks the token at every position", """
def Undiffuse(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    u = torch.rand(1)                                   # shared by all positions
    guess = (p.cumsum(dim=1) < u).sum(dim=1).clamp(max=p.shape[1] - 1)
    reveal = (x_t == mask) & (torch.rand(len(x_t)) < 1 / t)
    return torch.where(reveal, guess, x_t)
""", ("Undiffuse.samples", "Undiffuse.two_sentences")),
    Mutant("Undiffuse", "one coin for all the masks", """
def Undiffuse(x_t, t, GuessX0, mask):
    guess = torch.multinomial(GuessX0(x_t), 1).squeeze(1)
    if torch.rand(1) < 1 / t:
        return torch.where(x_t == mask, guess, x_t)
    return x_t.clone()
""", ("Undiffuse.rate", "Undiffuse.one_sentence", "Undiffuse.two_sentences")),

    Mutant("SamplePInit_two", "a fair coin", """
def SamplePInit_two():
    words = "the cat is alive" if torch.rand(1) < 0.5 else "the box is empty"
    return torch.tensor([vocab.index(w) for w in words.split()])
""", ("SamplePInit_two",)),
    Mutant("SamplePInit_two", "torch.Tensor([...]): the right ids, as floats", """
def SamplePInit_two():
    words = "the cat is alive" if torch.rand(1) < 0.8 else "the box is empty"
    return torch.Tensor([vocab.index(w) for w in words.split()])
""", ("SamplePInit_two",)),
    Mutant("SamplePInit_two", "probabilities swapped", """
def SamplePInit_two():
    words = "the cat is alive" if torch.rand(1) < 0.2 else "the box is empty"
    return torch.tensor([vocab.index(w) for w in words.split()])
""", ("SamplePInit_two",)),
    Mutant("SamplePInit_two", "mixes the sentences word by word", """
def SamplePInit_two():
    a, b = [0, 1, 3, 4], [0, 2, 3, 5]
    return torch.tensor([x if torch.rand(1) < 0.8 else y for x, y in zip(a, b)])
""", ("SamplePInit_two",)),

    Mutant("SamplePInit_two", "exactly four in five: a counter instead of a coin", """
calls = 0

def SamplePInit_two():
    global calls
    calls += 1
    words = "the box is empty" if calls % 5 == 0 else "the cat is alive"
    return torch.tensor([vocab.index(w) for w in words.split()])
""", ("SamplePInit_two",)),

    Mutant("GuessX0_two", "no fallback: 0/0 when neither sentence agrees", """
def GuessX0_two(x_t):
    sentences = [torch.tensor([0, 1, 3, 4]), torch.tensor([0, 2, 3, 5])]
    w = torch.tensor([0.8, 0.2])
    visible = x_t != MASK
    for k, s in enumerate(sentences):
        if (s[visible] != x_t[visible]).any():
            w[k] = 0
    w = w / w.sum()
    p = torch.zeros(len(x_t), len(vocab))
    for k, s in enumerate(sentences):
        p[torch.arange(4), s] += w[k]
    return p
""", ("GuessX0_two",)),
    Mutant("GuessX0_two", "fallback to 50/50", """
def GuessX0_two(x_t):
    sentences = [torch.tensor([0, 1, 3, 4]), torch.tensor([0, 2, 3, 5])]
    w = torch.tensor([0.8, 0.2])
    visible = x_t != MASK
    for k, s in enumerate(sentences):
        if (s[visible] != x_t[visible]).any():
            w[k] = 0
    w = w / w.sum() if w.sum() > 0 else torch.tensor([0.5, 0.5])
    p = torch.zeros(len(x_t), len(vocab))
    for k, s in enumerate(sentences):
        p[torch.arange(4), s] += w[k]
    return p
""", ("GuessX0_two",)),
    Mutant("GuessX0_two", "forgets to normalise the weights", """
def GuessX0_two(x_t):
    sentences = [torch.tensor([0, 1, 3, 4]), torch.tensor([0, 2, 3, 5])]
    w = torch.tensor([0.8, 0.2])
    visible = x_t != MASK
    for k, s in enumerate(sentences):
        if (s[visible] != x_t[visible]).any():
            w[k] = 0
    if w.sum() == 0:
        w = torch.tensor([0.8, 0.2])
    p = torch.zeros(len(x_t), len(vocab))
    for k, s in enumerate(sentences):
        p[torch.arange(4), s] += w[k]
    return p
""", ("GuessX0_two",)),
    Mutant("GuessX0_two", "ignores what it sees: always the prior", """
def GuessX0_two(x_t):
    p = torch.zeros(len(x_t), len(vocab))
    p[torch.arange(4), torch.tensor([0, 1, 3, 4])] += 0.8
    p[torch.arange(4), torch.tensor([0, 2, 3, 5])] += 0.2
    return p
""", ("GuessX0_two",)),

    Mutant("UndiffuseGreedy", "samples the token instead of taking the argmax", """
def UndiffuseGreedy(x_t, t, GuessX0, mask):
    p = GuessX0(x_t)
    confidence, _ = p.max(dim=-1)
    guess = torch.multinomial(p, 1).squeeze(1)
    confidence[x_t != mask] = -1
    k = math.ceil(int((x_t == mask).sum()) / t)
    x = x_t.clone()
    top = confidence.topk(k).indices
    x[top] = guess[top]
    return x
""", ("UndiffuseGreedy.choice", "UndiffuseGreedy.two_sentences")),
    Mutant("UndiffuseGreedy", "rounds down instead of up", """
def UndiffuseGreedy(x_t, t, GuessX0, mask):
    confidence, guess = GuessX0(x_t).max(dim=-1)
    confidence[x_t != mask] = -1
    k = int((x_t == mask).sum()) // t
    x = x_t.clone()
    top = confidence.topk(k).indices
    x[top] = guess[top]
    return x
""", ("UndiffuseGreedy.count", "UndiffuseGreedy.choice")),
    Mutant("UndiffuseGreedy", "forgets to rule out visible positions", """
def UndiffuseGreedy(x_t, t, GuessX0, mask):
    confidence, guess = GuessX0(x_t).max(dim=-1)
    k = math.ceil(int((x_t == mask).sum()) / t)
    x = x_t.clone()
    top = confidence.topk(k).indices
    x[top] = guess[top]
    return x
""", ("UndiffuseGreedy.count", "UndiffuseGreedy.choice", "UndiffuseGreedy.two_sentences")),
    Mutant("UndiffuseGreedy", "picks the least confident positions", """
def UndiffuseGreedy(x_t, t, GuessX0, mask):
    confidence, guess = GuessX0(x_t).max(dim=-1)
    confidence[x_t != mask] = 2
    k = math.ceil(int((x_t == mask).sum()) / t)
    x = x_t.clone()
    top = confidence.topk(k, largest=False).indices
    x[top] = guess[top]
    return x
""", ("UndiffuseGreedy.choice",)),
    Mutant("UndiffuseGreedy", "counts the whole sentence, not the masks", """
def UndiffuseGreedy(x_t, t, GuessX0, mask):
    confidence, guess = GuessX0(x_t).max(dim=-1)
    confidence[x_t != mask] = -1
    k = min(math.ceil(len(x_t) / t), int((x_t == mask).sum()))
    x = x_t.clone()
    top = confidence.topk(k).indices
    x[top] = guess[top]
    return x
""", ("UndiffuseGreedy.count", "UndiffuseGreedy.choice")),
]
