"""The tiny corpus of notebook 04 (maskdiff_solutions.corpus): offline, nothing here downloads."""
import pytest
import torch

from maskdiff_solutions import corpus

pytestmark = pytest.mark.nb04


@pytest.fixture(scope="module")
def stories():
    return corpus.MakeCorpus(corpus.StandInStories())


def test_stand_in_is_deterministic_and_says_so():
    assert corpus.StandInStories(50, seed=3) == corpus.StandInStories(50, seed=3)
    assert corpus.StandInStories(50, seed=3) != corpus.StandInStories(50, seed=4)
    text, source = corpus.LoadStories(offline=True)
    assert "STAND-IN" in source and text == corpus.StandInStories()


def test_stand_in_knows_the_prompt_words(stories):
    for word in "once upon a time there was little dog named one day lily went to the park and they were all happy dragon cake".split():
        assert word in stories.vocab, word


def test_vocabulary_ends_with_unk_and_mask(stories):
    assert stories.vocab[-2:] == ["<unk>", "_"]
    assert (stories.unk, stories.mask) == (len(stories.vocab) - 2, len(stories.vocab) - 1)
    assert stories.tokens.max() < stories.unk  # every word of the stand-in is in the vocabulary


def test_vocabulary_keeps_the_most_common_words():
    made = corpus.MakeCorpus("a a a b b c " * 30 + "d", size=2)
    assert made.vocab == ["a", "b", "<unk>", "_"]
    assert made.StoryText(made.StoryTokens("a c d _ b")) == "a <unk> <unk> _ b"


def test_tokens_and_text_round_trip(stories):
    text = "once upon a time , there was a little dog named _ . \" can i have the cake ? \" asked lily !"
    x = stories.StoryTokens(text)
    assert stories.StoryText(x) == text
    assert x[11] == stories.mask


def test_get_batch_shapes_and_contents(stories):
    batch = stories.GetBatch(5, 7)
    assert batch.shape == (5, 7) and batch.dtype == torch.long
    # every row is a stretch of the token stream
    stream = stories.tokens.tolist()
    for row in batch.tolist():
        starts = [i for i in range(len(stream) - 7) if stream[i:i + 7] == row]
        assert starts


def test_local_file_wins(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("hello world . " * 60)
    text, source = corpus.LoadStories(path)
    assert text.startswith("hello world") and str(path) in source


def test_cache_is_read_without_network(tmp_path):
    cache = tmp_path / "stories.txt"
    cache.write_text("the cached text")
    assert corpus.FetchStories(url="http://unreachable.invalid/x", cache=cache) == "the cached text"


def test_failed_download_falls_back_to_the_stand_in(monkeypatch, tmp_path):
    def offline(*args, **kwargs):
        raise OSError("no network")
    monkeypatch.setattr(corpus, "FetchStories", offline)
    text, source = corpus.LoadStories()
    assert "STAND-IN" in source and "no network" in source and text == corpus.StandInStories()


def test_too_little_text_is_named():
    with pytest.raises(ValueError, match="too little"):
        corpus.MakeCorpus("just a few words")
