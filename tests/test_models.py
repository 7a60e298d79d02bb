"""The chat networks' loading code and the offline stand-ins: built fast, saved and loaded through
the same from_pretrained calls as the real networks, carrying the real markers; version shims."""
import time

import pytest
import torch
import transformers

from maskdiff_solutions import models

pytestmark = pytest.mark.nb03


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("stand-ins")


@pytest.fixture(scope="module")
def bert(cache):
    started = time.perf_counter()
    folder = models.StandIn("bert", cache)
    return folder, time.perf_counter() - started


@pytest.fixture(scope="module")
def qwen(cache):
    return models.StandIn("qwen", cache)


def test_stand_in_is_saved_with_save_pretrained_and_cached(bert, cache):
    folder, _ = bert
    assert (folder / "config.json").is_file() and (folder / "STAND_IN.txt").is_file()
    assert {p.name for p in folder.iterdir()} >= {"tokenizer.json", "tokenizer_config.json"}
    started = time.perf_counter()
    assert models.StandIn("bert", cache) == folder
    assert time.perf_counter() - started < 1.0, "a cached stand-in is not rebuilt"
    assert not list(cache.glob("*.partial")), "no half-written folder is left behind"


def test_stand_ins_load_through_from_pretrained_as_the_real_classes(bert, qwen):
    tokenizer, network = models.LoadNetwork(bert[0], "bert", "cpu")
    assert type(network).__name__ == "ModernBertForMaskedLM" and not network.training
    tokenizer, network = models.LoadNetwork(qwen, "qwen", "cpu")
    assert type(network).__name__ == "Qwen3ForCausalLM"
    assert network.dtype == torch.float32


def test_stand_in_tokenizer_has_the_real_markers(bert):
    tokenizer, _ = models.LoadNetwork(bert[0], "bert", "cpu")
    assert tokenizer.mask_token == "[MASK]" and tokenizer.pad_token == "[PAD]"
    for marker in ("[Question]", "[/Answer]", "[SYS]"):   # ordinary text, as in the real tokenizer
        assert marker not in tokenizer.all_special_tokens
    text = "[Question]\nWhy?\n[/Question]\n\n[Answer]\nBlue.\n[/Answer][PAD][PAD]"
    ids = tokenizer.encode(text + "[MASK]", add_special_tokens=False)
    assert ids[-1] == tokenizer.mask_token_id and ids.count(tokenizer.pad_token_id) == 2
    assert tokenizer.decode(ids) == text + "[MASK]"


def test_stand_in_learned_to_answer_and_then_pad(bert):
    """Greedy undiffusion of a trained question gives its answer, the end marker, then padding."""
    from maskdiff_solutions import chat
    from maskdiff_solutions.sampling import UndiffuseGreedy
    tokenizer, network = models.LoadNetwork(bert[0], "bert", "cpu")
    chat.use(tokenizer, lambda x: models.Logits(network, x[None])[0].detach().float().softmax(-1))
    try:
        answer = chat.Chat("What is two plus two?", step=UndiffuseGreedy)
    finally:
        chat.use(tokenizer, None)
    assert "four" in answer and "[PAD]" not in answer and "[/Answer" not in answer, answer


def test_stand_in_builds_in_seconds(bert):
    assert bert[1] < 60, f"building the stand-in took {bert[1]:.0f} s (budget: a notebook cell, 30 s, unloaded)"


def test_qwen_attention_sees_both_ways(qwen):
    _, network = models.LoadNetwork(qwen, "qwen", "cpu")
    x = torch.tensor([[5, 6, 7, 8, 9]])
    y = x.clone()
    y[0, -1] = 10
    with torch.no_grad():
        both = models.Logits(network, x)[0, 0], models.Logits(network, y)[0, 0]
        causal = network(x).logits[0, 0], network(y).logits[0, 0]
    assert not torch.allclose(*both), "position 0 must see the last token"
    assert torch.allclose(*causal), "without the mask the network only looks left"
    mask = models.SeeEverything(network, x)
    assert mask.shape == (1, 1, 5, 5) and mask.dtype == network.dtype and not mask.any()


def test_load_chat_model_uses_the_stand_in_under_a_grader(cache, bert, monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(models, "HubReachable", lambda: pytest.fail("a grader must not try the hub"))
    tokenizer, network, stand_in = models.LoadChatModel("bert", "cpu", cache)
    assert stand_in and "STAND-IN" in capsys.readouterr().out


def test_load_chat_model_falls_back_when_offline(cache, bert, monkeypatch, capsys):
    for variable in ("NBGRADER_EXECUTION", "CI", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(models, "HubReachable", lambda: False)
    monkeypatch.setenv("HF_HOME", str(cache / "empty-hf-home"))   # nothing downloaded earlier
    _, _, stand_in = models.LoadChatModel("bert", "cpu", cache)
    out = capsys.readouterr().out
    assert stand_in and "offline" in out and "STAND-IN" in out


def test_load_chat_model_names_a_wrong_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        models.LoadChatModel("gpt")


@pytest.mark.parametrize("version,keyword", [("4.48.3", "torch_dtype"), ("4.55.4", "torch_dtype"),
                                             ("4.56.0", "dtype"), ("5.24.0", "dtype")])
def test_dtype_keyword_follows_the_transformers_version(monkeypatch, version, keyword):
    monkeypatch.setattr(transformers, "__version__", version)
    assert models.DtypeArgument(torch.float16) == {keyword: torch.float16}


def test_dtype_for_each_device(monkeypatch):
    assert models.PickDtype("cpu") == torch.float32 and models.PickDtype("mps") == torch.float32
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)   # a T4
    assert models.PickDtype("cuda") == torch.float16
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert models.PickDtype("cuda") == torch.bfloat16
