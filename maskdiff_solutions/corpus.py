"""The tiny corpus of notebook 04: a piece of TinyStories, or a stand-in we generate ourselves.

- `FetchStories` downloads the first 4 MB of TinyStoriesV2-GPT4-valid.txt with an HTTP Range request
  and caches it on disk, so the download happens once;
- `StandInStories` writes simple children's stories from a small seeded grammar: what the notebook
  trains on offline (while grading, in CI, or wherever Hugging Face cannot be reached);
- `LoadStories` picks between a local file, the stand-in, the cache and the download, and says which;
- `MakeCorpus` builds the vocabulary (the most common words plus <unk> and the mask `_`), the token
  stream and the notebook's `GetBatch`, `StoryTokens` and `StoryText`.

This module is the source of truth for the notebook's given cell `corpus`, which holds exactly these
definitions (tests/reference/test_corpus.py compares them statement by statement).
"""
import random
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import torch


# --- notebook cell `corpus` ---------------------------------------------------------------------
STORIES_URL = ("https://huggingface.co/datasets/roneneldan/TinyStories/resolve/main/"
               "TinyStoriesV2-GPT4-valid.txt")
STORIES_BYTES = 4_000_000
STORIES_CACHE = Path("data") / "TinyStoriesV2-GPT4-valid.first4MB.txt"
WORD = r"[a-z']+|[.,!?\"]"          # a word, or one punctuation mark
WORD_OR_BLANK = r"[a-z']+|[.,!?\"_]"  # the same, and `_` for a blank


def FetchStories(url=STORIES_URL, size=STORIES_BYTES, cache=STORIES_CACHE, timeout=30):
    """The first `size` bytes of the stories file: from the cache if it is there, else downloaded."""
    cache = Path(cache)
    if not cache.is_file():
        import requests
        reply = requests.get(url, headers={"Range": f"bytes=0-{size - 1}"}, timeout=timeout)
        reply.raise_for_status()
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(reply.content[:size])  # a server that ignores Range sends it all
    return cache.read_bytes()[:size].decode("utf-8", errors="ignore")


def StandInStories(stories=1500, seed=0):
    """Short stories from a fixed grammar, the same text for the same seed. They use the words of the
    prompts in this notebook (lily, park, dog, named, dragon, cake, happy, ...)."""
    rng = random.Random(seed)
    names = ["lily", "tom", "ben", "mia", "sam", "sue", "max", "anna", "tim", "lucy"]
    animals = ["dog", "cat", "bird", "bunny", "frog", "bear", "duck", "dragon", "fish", "mouse"]
    things = ["ball", "cake", "toy", "kite", "box", "hat", "book", "apple", "car", "flower"]
    places = ["park", "garden", "house", "forest", "lake", "school", "beach", "yard"]
    looks = ["little", "big", "red", "small", "shiny", "funny", "soft", "blue"]
    moods = ["happy", "sad", "scared", "sleepy", "excited", "hungry"]
    acts = ["played", "ran", "jumped", "laughed", "danced", "sang"]

    def pick(words):
        return rng.choice(words)

    def story():
        hero, friend, pet, thing, place = pick(names), pick(names), pick(animals), pick(things), pick(places)
        opening = rng.choice([
            f"once upon a time , there was a {pick(looks)} {pet} named {hero} .",
            f"one day , {hero} went to the {place} .",
            f"{hero} had a {pick(looks)} {thing} . {hero} loved it very much .",
        ])
        middle = [
            f"{hero} saw a {pick(looks)} {thing} near the {pick(places)} .",
            f"{hero} wanted to play with the {thing} .",
            f"the {pet} was very {pick(moods)} .",
            f"{hero} and {friend} {pick(acts)} in the {place} .",
            f"\" can i have the {thing} ? \" asked {friend} .",
            f"\" yes , you can ! \" said {hero} .",
            f"they ate a big cake with {friend} .",
            f"a {pick(looks)} dragon flew over the {place} .",
            f"{friend} gave {hero} a {pick(looks)} {pick(things)} .",
            f"{hero} felt {pick(moods)} , but {friend} was kind .",
        ]
        rng.shuffle(middle)
        ending = rng.choice(["and they were all happy .", "the end .",
                             f"from that day on , {hero} and {friend} were best friends ."])
        return " ".join([opening, *middle[:rng.randint(3, 6)], ending])

    return " <|endoftext|> ".join(story() for _ in range(stories))


def LoadStories(path=None, offline=False):
    """(text, where it came from). A given file wins; offline means the stand-in; otherwise the cached
    or downloaded TinyStories, and the stand-in if the download fails."""
    if path:
        return Path(path).read_text(encoding="utf-8", errors="ignore"), f"the local file {path}"
    if offline:
        return StandInStories(), "STAND-IN stories from a small grammar (offline: no download)"
    try:
        return FetchStories(), f"TinyStories, the first {STORIES_BYTES // 10**6} MB"
    except Exception as err:  # no network, no Hugging Face: keep going on the stand-in
        return StandInStories(), f"STAND-IN stories from a small grammar (download failed: {err})"


def MakeCorpus(text, size=2000):
    """Vocabulary of the `size` most common words plus <unk> and the mask, and helpers to use it."""
    words = re.findall(WORD, text.lower().replace("<|endoftext|>", " "))
    if len(words) < 100:
        raise ValueError(f"the text has only {len(words)} words: too little to train on")
    vocab = [word for word, _ in Counter(words).most_common(size)] + ["<unk>", "_"]
    unk, mask = len(vocab) - 2, len(vocab) - 1
    index = {word: i for i, word in enumerate(vocab)}
    tokens = torch.tensor([index.get(word, unk) for word in words])

    def StoryTokens(text):
        """Text -> token ids; words outside the vocabulary become <unk>, and `_` becomes the mask."""
        return torch.tensor([index.get(word, unk) for word in re.findall(WORD_OR_BLANK, text.lower())])

    def StoryText(x):
        """Token ids -> text, words separated by spaces."""
        return " ".join(vocab[i] for i in x.tolist())

    def GetBatch(batch=64, L=32):
        """`batch` random stretches of L consecutive tokens: samples of x_0, shape (batch, L)."""
        if L >= len(tokens):
            raise ValueError(f"L = {L} is longer than the corpus ({len(tokens)} tokens)")
        start = torch.randint(len(tokens) - L, (batch, 1))
        return tokens[start + torch.arange(L)]

    return SimpleNamespace(vocab=vocab, unk=unk, mask=mask, tokens=tokens,
                           StoryTokens=StoryTokens, StoryText=StoryText, GetBatch=GetBatch)
