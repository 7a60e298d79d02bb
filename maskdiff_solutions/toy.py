"""The toy world of the first notebooks: a 14-word vocabulary whose last entry is the mask."""
import torch

VOCAB = ("the", "cat", "box", "is", "alive", "empty", "nobody", "knows",
         "if", "or", "until", "somebody", "looks", "_")
MASK = VOCAB.index("_")
TOKEN_ID = {word: i for i, word in enumerate(VOCAB)}

# The sentence the forward-process exercises dissolve (L = 16).
SCHRODINGER = "nobody knows if the cat is alive or if the box is empty until somebody looks"


def Encode(sentence):
    """Words separated by spaces -> 1-D tensor of token ids."""
    try:
        return torch.tensor([TOKEN_ID[word] for word in sentence.split()])
    except KeyError as err:
        raise ValueError(f"{err.args[0]!r} is not in the toy vocabulary {VOCAB}") from None


def Decode(x):
    """1-D tensor (or list) of token ids -> words separated by spaces."""
    ids = x.tolist() if hasattr(x, "tolist") else list(x)
    return " ".join(VOCAB[i] for i in ids)
