"""Notebook 06's scorer (`maskdiff_solutions/scorer.py`, the given cell `scorer`): the real network is
tried first unless offline, and a hub that cannot be reached gives way to the stand-in with the error
named; the stand-in is a word-level tokenizer and a tiny GPT-2 trained on the notebook's stories,
saved with save_pretrained, loaded back through the same from_pretrained calls, announced, seeded,
kept in its cache folder, cheap to build (the grader's cells have 30 s). Its Logits mix in a copy term
(MixInCopying), so that, as the notebook teaches of a large scorer, it reads `the the … the` as more
likely than stories, and stories as far more likely than the same words shuffled; the notebook's
numbers are held here. Runs on the oldest supported transformers (4.48, `.ci/old_transformers`) and
the newest."""
import random
import re
from pathlib import Path

import pytest
import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

from maskdiff_solutions import scorer
from maskdiff_solutions.corpus import MakeCorpus, StandInStories
from maskdiff_solutions.course.intake import notebooks as nbtools
from maskdiff_solutions.revising import Perplexity

pytestmark = pytest.mark.nb06

ROOT = Path(__file__).resolve().parents[2]
TEXT = StandInStories()   # what the notebook passes offline: the corpus cell's story_text
REPEATED = " ".join(["the"] * 32)   # the notebook's degenerate sample


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("scorer-stand-in")


@pytest.fixture(scope="module")
def stand_in(cache):
    """The stand-in as the notebook gets it under a grader (built once for this module)."""
    return scorer.LoadScorer(TEXT, offline=True, cache=cache)


@pytest.fixture
def calls(monkeypatch):
    """Every from_pretrained call of the loader, in order: (class, what it loaded, local_files_only)."""
    seen = []
    for auto in (AutoTokenizer, AutoModelForCausalLM):
        real = auto.from_pretrained.__func__

        def recorded(cls, where, *args, _real=real, _auto=auto, **kwargs):
            seen.append((_auto.__name__, str(where), kwargs.get("local_files_only", False)))
            return _real(cls, where, *args, **kwargs)
        monkeypatch.setattr(auto, "from_pretrained", classmethod(recorded))
    return seen


def hub_fails(monkeypatch, calls, error=OSError("We couldn't connect to 'https://huggingface.co'")):
    """from_pretrained of the hub network raises `error`; every other load goes through."""
    for auto in (AutoTokenizer, AutoModelForCausalLM):
        recorded = auto.from_pretrained.__func__

        def failing(cls, where, *args, _recorded=recorded, **kwargs):
            if str(where) == scorer.SCORER:
                calls.append((cls.__name__, str(where), kwargs.get("local_files_only", False)))
                raise error
            return _recorded(cls, where, *args, **kwargs)
        monkeypatch.setattr(auto, "from_pretrained", classmethod(failing))


def shuffled(text, seed=0):
    words = text.split()
    random.Random(seed).shuffle(words)
    return " ".join(words)


def stretches(count=12, words=32, seed=1):
    """Stretches of `words` words of the training text, as the notebook's GetBatch(4, 32) gives them."""
    stories = MakeCorpus(TEXT)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return [stories.StoryText(row) for row in stories.GetBatch(count, words)]


def state(folder):
    return AutoModelForCausalLM.from_pretrained(folder).state_dict()


# ----------------------------------------------------------------------------- the stand-in

def test_stand_in_is_saved_and_loaded_through_from_pretrained(cache, calls, capsys):
    loaded = scorer.LoadScorer(TEXT, offline=True, cache=cache)
    folder = scorer.ScorerFolder(TEXT, cache)
    assert calls == [("AutoTokenizer", str(folder), False), ("AutoModelForCausalLM", str(folder), False)], \
        "offline, the stand-in (and nothing from the hub) is loaded through the real network's calls"
    assert {"config.json", "tokenizer.json", "tokenizer_config.json", "STAND_IN.txt"} <= {
        p.name for p in folder.iterdir()}
    assert type(loaded.model).__name__ == "GPT2LMHeadModel" and not loaded.model.training
    assert sum(p.numel() for p in loaded.model.parameters()) < 500_000, "a tiny network"
    assert isinstance(loaded.tokenizer, transformers.PreTrainedTokenizerFast)
    assert loaded.tokenizer.unk_token == "<unk>"


def test_stand_in_is_announced(stand_in, cache, capsys):
    assert stand_in.source.startswith("STAND-IN scorer") and "\n" not in stand_in.source
    assert "copy term" in stand_in.source
    assert scorer.SCORER in stand_in.source and "offline" in stand_in.source
    scorer.LoadScorer(TEXT, offline=True, cache=cache)
    printed = capsys.readouterr().out
    assert "STAND-IN scorer" in printed and scorer.SCORER in printed


def test_a_cached_stand_in_is_loaded_not_rebuilt(stand_in, cache, monkeypatch):
    monkeypatch.setattr(scorer, "BuildScorer", lambda *_, **__: pytest.fail("a cached stand-in was rebuilt"))
    again = scorer.LoadScorer(TEXT, offline=True, cache=cache)
    assert "kept from an earlier run" in again.source
    assert not list(Path(cache).glob("*.partial")), "no half-written folder is left behind"


def test_the_cache_folder_names_recipe_text_seed_and_transformers(cache):
    folder = scorer.ScorerFolder(TEXT, cache)
    assert f"v{scorer.SCORER_VERSION}-" in folder.name and transformers.__version__ in folder.name
    assert scorer.ScorerFolder(TEXT + " the end .", cache) != folder, "another text, another stand-in"
    assert scorer.ScorerFolder(TEXT, cache, seed=1) != folder


def test_stand_in_is_deterministic_for_a_seed(tmp_path):
    rng, threads = torch.random.get_rng_state(), torch.get_num_threads()
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        made = scorer.BuildScorer(TEXT, tmp_path / name, seed=seed, seconds=60)
        assert f"trained {scorer.SCORER_STEPS} steps" in made
    assert torch.equal(torch.random.get_rng_state(), rng), "the notebook's random generator is left alone"
    assert torch.get_num_threads() == threads, "the thread count is put back"
    a, b, c = (state(tmp_path / name) for name in "abc")
    # bit for bit whatever this process's thread count: TrainScorer trains on one thread, and stops at its steps
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), "same seed, same weights"
    assert any(not torch.equal(a[k], c[k]) for k in a), "another seed, other weights"
    assert [p.name for p in tmp_path.iterdir()] and not list(tmp_path.glob("*.partial"))


def test_training_stops_when_its_time_is_up():
    tokenizer = scorer.ScorerTokenizer(TEXT[:50_000])
    tokens = torch.tensor(tokenizer(TEXT[:50_000], add_special_tokens=False)["input_ids"])
    _, done, _ = scorer.TrainScorer(scorer.ScorerNetwork(tokenizer), tokens, steps=10_000, seconds=0.3)
    assert 0 < done < 10_000, "a time budget of 0.3 s ends training long before 10,000 steps"


def test_too_little_text_is_refused(tmp_path):
    with pytest.raises(ValueError, match="too little"):
        scorer.BuildScorer("once upon a time .", tmp_path / "x")


# ----------------------------------------------------------------------------- Ids and Logits

def test_ids_are_the_words_without_special_tokens(stand_in):
    text = "once upon a time , lily went to the park ."
    ids = stand_in.Ids(text)
    assert ids.dtype == torch.long and ids.dim() == 1 and len(ids) == len(text.split())
    assert stand_in.tokenizer.decode(ids) == text
    assert stand_in.Ids("").shape == (0,)
    assert stand_in.Ids("Once upon a TIME").tolist() == stand_in.Ids("once upon a time").tolist()
    unknown = stand_in.Ids("once upon a zyzzyva")
    assert unknown[-1] == stand_in.tokenizer.unk_token_id


def test_logits_are_float_on_the_cpu_without_gradient(stand_in):
    ids = stand_in.Ids("once upon a time , there was a little dog named tom .")[None]
    logits = stand_in.Logits(ids)
    assert logits.shape == (1, ids.shape[1], len(stand_in.tokenizer))
    assert logits.dtype == torch.float32 and logits.device.type == "cpu" and not logits.requires_grad
    assert torch.isfinite(logits).all()
    assert torch.equal(stand_in.Logits(ids), logits), "eval mode: the same logits every time"
    for wrong in (ids[0], torch.cat([ids, ids])):
        with pytest.raises(ValueError, match=r"\[1, n\]"):
            stand_in.Logits(wrong)


def test_repetition_scores_below_stories_and_stories_far_below_word_salad(stand_in):
    """What the notebook teaches of a large scorer: one word repeated is more predictable than real
    text, and real text is far more predictable than its words shuffled or words drawn at random."""
    def perplexity(text):
        return Perplexity(stand_in.Logits, stand_in.Ids(text))
    real = [perplexity(text) for text in stretches()]
    salad = [perplexity(shuffled(text)) for text in stretches()]
    words, draw = MakeCorpus(TEXT).vocab[:-2], random.Random(0)
    uniform = [perplexity(" ".join(draw.choice(words) for _ in range(32))) for _ in range(12)]
    assert perplexity(REPEATED) < min(real), (perplexity(REPEATED), real)
    assert all(1 <= r < 10 for r in real), real
    assert all(10 * r < s for r, s in zip(real, salad)), (real, salad)
    assert all(10 * max(real) < u for u in uniform), (real, uniform)


def test_the_copy_term_is_what_reads_repetition_as_predictable(stand_in):
    """The tiny network alone finds `the the` absurd; the stand-in's Logits are its logits with the
    copy term mixed in, and that is all they add."""
    ids = stand_in.Ids(REPEATED)
    with torch.no_grad():
        network = stand_in.model(ids[None]).logits.float()
    assert Perplexity(lambda _: network, ids) > 1000
    # Logits runs the tiny network on one thread, this test on the process's count: their low bits may differ
    # (7e-8 for the real GPT-Neo between 1 and 2 threads; none for the stand-in on this CPU, at 1, 2 or 4). The
    # copy term moves these logits by 10.2 (their log-softmax by 9.4): 1e-4 is far from both.
    assert torch.allclose(stand_in.Logits(ids[None]), scorer.MixInCopying(network[0], ids)[None], rtol=0, atol=1e-4)


def test_the_numbers_the_notebook_states(stand_in):
    said = " ".join(next(c.source for c in nbtools.read(ROOT / "source" / "maskdiff" / "06_revising_and_faster.ipynb")
                         .cells if c.source.startswith("The scorer: on Colab")).split())
    assert ("it scores `the the … the` at about 1.6, stretches of the stories between 2 and 6, and the same "
            "words shuffled above 1,000 (the tiny network alone puts `the the … the` above 1,000 as well)") in said
    assert Perplexity(stand_in.Logits, stand_in.Ids(REPEATED)) == pytest.approx(1.6, abs=0.1)
    real = stretches(64, seed=0)
    assert all(2 <= Perplexity(stand_in.Logits, stand_in.Ids(text)) <= 6 for text in real)
    assert all(Perplexity(stand_in.Logits, stand_in.Ids(shuffled(text))) > 1000 for text in real[:12])
    # the network alone: test_the_copy_term_is_what_reads_repetition_as_predictable


# ----------------------------------------------------------------------------- the copy term

def logits(n, size=9, seed=0):
    return torch.randn(n, size, generator=torch.Generator().manual_seed(seed)) * 3


def test_the_copy_term_gives_log_probabilities_and_reads_only_the_past():
    ids = torch.tensor([1, 2, 1, 3, 1, 2, 4, 1, 2, 2])
    mixed = scorer.MixInCopying(logits(10), ids)
    assert mixed.shape == (10, 9) and torch.allclose(mixed.logsumexp(-1), torch.zeros(10), atol=1e-5)
    for k in range(1, 10):
        assert torch.allclose(scorer.MixInCopying(logits(10)[:k], ids[:k]), mixed[:k], atol=1e-6), k


def test_the_copy_term_leaves_a_text_without_a_repeated_token_to_the_network():
    ids = torch.tensor([4, 0, 7, 2, 5, 1])
    assert torch.allclose(scorer.MixInCopying(logits(6), ids), logits(6).log_softmax(-1), atol=1e-6)


def test_the_copy_term_wins_a_text_that_repeats_itself_and_yields_on_one_that_does_not():
    net = logits(40, seed=1)
    loop = torch.tensor([3, 5, 8] * 13 + [3])
    copied = scorer.MixInCopying(net, loop).exp()[:-1].gather(1, loop[1:, None])[:, 0]
    assert (copied[6:] > 0.85).all(), "after two rounds the loop is expected"
    # a text whose repeated token is followed by something new each time: the network's word counts
    fresh = torch.tensor([3, 0, 3, 1, 3, 2, 3, 4, 3, 6, 3, 7, 3])
    mixed, network = scorer.MixInCopying(logits(13, seed=2), fresh).exp(), logits(13, seed=2).softmax(-1)
    assert not torch.allclose(mixed[2], network[2], atol=0.01), "at first, the copy term has its say"
    assert torch.allclose(mixed[-1], network[-1], atol=1e-4), "after many misses, it has none"


# ----------------------------------------------------------------------------- the real network first

def test_not_offline_the_real_network_is_tried_first_then_the_stand_in_with_the_error(
        cache, stand_in, calls, monkeypatch, capsys):
    monkeypatch.setattr(scorer, "HubAnswers", lambda timeout=5: True)
    hub_fails(monkeypatch, calls, OSError("We couldn't connect to 'https://huggingface.co'"))
    loaded = scorer.LoadScorer(TEXT, cache=cache)
    assert calls[0] == ("AutoTokenizer", scorer.SCORER, False), "the real network is tried first, from the hub"
    assert all(where != scorer.SCORER for _, where, _ in calls[1:]), calls
    assert loaded.source.startswith("STAND-IN scorer")
    assert "OSError: We couldn't connect to 'https://huggingface.co'" in loaded.source, "the error is named"
    assert "STAND-IN scorer" in capsys.readouterr().out


def test_a_hub_that_cannot_be_reached_means_the_copy_downloaded_earlier_or_the_stand_in(
        cache, stand_in, calls, monkeypatch):
    monkeypatch.setattr(scorer, "HubAnswers", lambda timeout=5: False)
    hub_fails(monkeypatch, calls, OSError("not in the cache"))
    loaded = scorer.LoadScorer(TEXT, cache=cache)
    assert calls[0] == ("AutoTokenizer", scorer.SCORER, True), "no download tried, only a copy on this machine"
    assert "the hub cannot be reached" in loaded.source and "OSError: not in the cache" in loaded.source


def test_any_failure_of_the_real_network_gives_way_to_the_stand_in(cache, stand_in, calls, monkeypatch):
    monkeypatch.setattr(scorer, "HubAnswers", lambda timeout=5: True)
    hub_fails(monkeypatch, calls, ValueError("unrecognized model type gpt_neo"))
    loaded = scorer.LoadScorer(TEXT, cache=cache)
    assert "ValueError: unrecognized model type gpt_neo" in loaded.source and loaded.source.startswith("STAND-IN")


def test_offline_never_asks_the_hub(cache, stand_in, calls, monkeypatch):
    monkeypatch.setattr(scorer, "HubAnswers", lambda timeout=5: pytest.fail("offline asked the hub"))
    scorer.LoadScorer(TEXT, offline=True, cache=cache)
    assert all(where != scorer.SCORER for _, where, _ in calls)


def test_hf_hub_offline_skips_the_request(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("urllib.request.urlopen", lambda *_, **__: pytest.fail("asked the hub"))
    assert scorer.HubAnswers() is False


def test_a_real_gpt_neo_network_is_loaded_as_itself(tmp_path, stand_in, calls, monkeypatch):
    """The path the notebook takes on Colab, with a tiny GPT-Neo (TinyStories-33M's architecture) in a
    folder playing the hub's network."""
    from transformers import GPTNeoConfig, GPTNeoForCausalLM
    torch.manual_seed(0)
    GPTNeoForCausalLM(GPTNeoConfig(vocab_size=len(stand_in.tokenizer), hidden_size=32, num_layers=2,
                                   num_heads=2, attention_types=[[["global", "local"], 1]],
                                   max_position_embeddings=128, window_size=16)).save_pretrained(tmp_path)
    stand_in.tokenizer.save_pretrained(tmp_path)
    monkeypatch.setattr(scorer, "HubAnswers", lambda timeout=5: True)
    loaded = scorer.LoadScorer(TEXT, name=str(tmp_path), cache=tmp_path / "never")
    assert calls[0][:2] == ("AutoTokenizer", str(tmp_path))
    assert type(loaded.model).__name__ == "GPTNeoForCausalLM" and not loaded.model.training
    assert "STAND-IN" not in loaded.source and str(tmp_path) in loaded.source
    assert not (tmp_path / "never").exists(), "no stand-in is built when the real network loads"
    # a text that repeats itself, so that a copy term would change the shape of each row too
    ids = loaded.Ids("once upon a time , lily went to the park . once upon a time , lily went to the park .")
    got = loaded.Logits(ids[None])
    assert got.shape == (1, len(ids), len(stand_in.tokenizer))
    # Logits runs a network this small on one thread; the process here may run more, and the low bits of
    # a matrix product depend on the thread count and the CPU's kernels (7e-8 seen between 1 and 2 threads).
    # A copy term moves these logits by 7.0 at most and their log-softmax by 4.8, so 1e-4 tells them apart
    # by four orders of magnitude either way.
    with torch.no_grad():
        own = loaded.model(ids[None]).logits.float()
    assert torch.allclose(got, own, rtol=0, atol=1e-4), "a real network's logits are its own: no copy term"
    copied = scorer.MixInCopying(own[0], ids)[None]
    assert (copied.log_softmax(-1) - own.log_softmax(-1)).abs().max() > 1, "the text makes a copy term show"
    assert Perplexity(loaded.Logits, ids) >= 1


# ----------------------------------------------------------------------------- the notebook's given cell

def segment():
    text = (ROOT / "maskdiff_solutions" / "scorer.py").read_text()
    found = re.search(r"# --- notebook cell: scorer ---\n(.*# --- end of notebook cell ---\n)\Z", text, re.S)
    assert found, "scorer.py marks the cell `scorer` and nothing follows its end marker"
    return found.group(1)


def test_the_given_cell_stands_alone(stand_in, cache):
    """The cell runs on Colab without the package: it imports what it uses and nothing of ours."""
    source = segment()
    assert "maskdiff" not in re.sub(r"#.*", "", source)
    namespace = {}
    exec(compile(source, "<notebook 06 cell scorer>", "exec"), namespace)
    loaded = namespace["LoadScorer"](TEXT, offline=True, cache=cache)   # the same stand-in: same folder
    ids = loaded.Ids(stretches(1)[0])
    # bit for bit: the same weights through the same Logits, which runs a network this small on one thread
    assert torch.equal(loaded.Logits(ids[None]), stand_in.Logits(ids[None]))


def test_the_stand_in_trains_its_steps_on_a_loaded_grader_too():
    """The stand-in's training stops at SCORER_STEPS, not at a clock a loaded machine reaches first:
    a grader under load builds the very scorer an idle one does (its time cap is a safety net, five
    times what 100 steps take here), so a regrading prints and scores the same."""
    import inspect
    assert scorer.SCORER_SECONDS >= 10 and scorer.SCORER_STEPS == 100
    for function in (scorer.TrainScorer, scorer.BuildScorer, scorer.LoadScorer):
        assert inspect.signature(function).parameters["seconds"].default == scorer.SCORER_SECONDS, function
