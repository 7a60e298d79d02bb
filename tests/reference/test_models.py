"""Notebook 03's loading code and offline stand-ins: built fast and seeded, saved and loaded through
the same from_pretrained calls as the real networks, carrying the real markers and knowing the
capitals lesson; the dtype for each device; the checks on every load (finite logits, a mask token,
settings read as the checkpoint states them, what an old transformers cannot do); which copy is
loaded; and the set-up cell's advice and upgrades. Runs on the oldest supported transformers (4.48,
`.ci/old_transformers`) and the newest."""
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import transformers

from maskdiff_solutions import models
from tests.nb03 import ROOT, cell, real_copy, require_qwen, stand_in

pytestmark = pytest.mark.nb03

OLD = models.TransformersVersion() < (5, 0)


@pytest.fixture(autouse=True)
def threads():
    """LoadChatModel puts torch on one thread for a stand-in, as the notebook wants; not for the tests."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.fixture
def quiet_environment(monkeypatch):
    for variable in ("NBGRADER_EXECUTION", "CI", "HF_HUB_OFFLINE", "MASKDIFF_BERT", "MASKDIFF_QWEN"):
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


# ----------------------------------------------------------------------------- the stand-ins

def test_stand_in_is_saved_with_save_pretrained_and_cached():
    folder, _ = stand_in("bert")
    assert (folder / "config.json").is_file() and (folder / "STAND_IN.txt").is_file()
    assert {p.name for p in folder.iterdir()} >= {"tokenizer.json", "tokenizer_config.json"}
    with pytest.MonkeyPatch.context() as patch:  # a cached stand-in is loaded, never rebuilt
        patch.setattr(models, "BuildStandIn", lambda *_: pytest.fail("a cached stand-in was rebuilt"))
        assert models.StandIn("bert", folder.parent) == folder
    assert not list(folder.parent.glob("*.partial")), "no half-written folder is left behind"
    assert not list(folder.parent.glob("*.lock")), "no lock is left behind"


def test_kernels_started_together_build_the_stand_in_once(tmp_path, monkeypatch):
    """A grader's jobs start kernels together: while one builds the stand-in (its lock is there) the
    others wait for it instead of building their own (two builds at once take twice as long, close to
    the 30 s cell limit). A lock left by a build that died is taken over."""
    import shutil
    import threading
    built, ready = [], stand_in("bert")[0]   # built before BuildStandIn is replaced: this worker may not have it yet
    monkeypatch.setattr(models, "BuildStandIn", lambda kind, folder: built.append(kind) or
                        shutil.copytree(ready, folder))
    folder = tmp_path / f"stand-in-bert-v{models.STAND_IN_VERSION}-transformers-{transformers.__version__}"
    lock = tmp_path / f"{folder.name}.lock"
    lock.touch()
    found = []
    waiting = threading.Thread(target=lambda: found.append(models.StandIn("bert", tmp_path)))
    waiting.start()
    time.sleep(1.0)
    assert waiting.is_alive() and not built, "it waits while another kernel holds the lock"
    shutil.copytree(ready, folder)   # the other kernel finishes
    lock.unlink()
    waiting.join(timeout=10)
    assert found == [folder] and not built

    shutil.rmtree(folder)
    lock.touch()
    os.utime(lock, (time.time() - 600, time.time() - 600))
    assert models.StandIn("bert", tmp_path) == folder and built == ["bert"] and not lock.exists()


def test_stand_ins_load_through_from_pretrained_as_the_real_classes():
    tokenizer, network = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu")
    assert type(network).__name__ == "ModernBertForMaskedLM" and not network.training
    assert models.IsStandIn(network) and network.dtype == torch.float32


def test_qwen_stand_in_loads_as_qwen3():
    tokenizer, network = models.LoadNetwork(stand_in("qwen")[0], "qwen", "cpu")
    assert type(network).__name__ == "Qwen3ForCausalLM" and network.dtype == torch.float32
    assert tokenizer.mask_token == "<|mask|>" and tokenizer.pad_token == "<|endoftext|>"


def test_stand_in_tokenizer_has_the_real_markers():
    tokenizer, _ = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu")
    assert tokenizer.mask_token == "[MASK]" and tokenizer.pad_token == "[PAD]"
    for marker in ("[Question]", "[/Answer]", "[SYS]"):   # ordinary text, as in the real tokenizer
        assert marker not in tokenizer.all_special_tokens
    text = "[Question]\nWhy?\n[/Question]\n\n[Answer]\nBlue.\n[/Answer][PAD][PAD]"
    ids = tokenizer.encode(text + "[MASK]", add_special_tokens=False)
    assert ids[-1] == tokenizer.mask_token_id and ids.count(tokenizer.pad_token_id) == 2
    assert tokenizer.decode(ids) == text + "[MASK]"


def test_stand_in_weights_come_from_the_seed_alone():
    """Issue 13 item 6: the stand-in's initial weights (and its training) draw on their own seed, not
    on the global generator, so every process builds the same stand-in; the notebook's generator is
    left as it was."""
    tokenizer = models.StandInTokenizer("bert")
    torch.manual_seed(1)
    first = models.StandInNetwork("bert", tokenizer).state_dict()
    torch.manual_seed(2)
    state = torch.get_rng_state()
    second = models.StandInNetwork("bert", tokenizer).state_dict()
    assert torch.equal(torch.get_rng_state(), state), "building the stand-in moved the global generator"
    assert all(torch.equal(first[name], second[name]) for name in first)
    other = models.StandInNetwork("bert", tokenizer, seed=1).state_dict()
    assert not all(torch.equal(first[name], other[name]) for name in first), "another seed, other weights"


def test_stand_in_learned_to_answer_and_then_pad():
    """Greedy undiffusion of a trained question gives its answer, the end marker, then padding."""
    from maskdiff_solutions import chat
    from maskdiff_solutions.sampling import UndiffuseGreedy
    tokenizer, network = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu")
    torch.set_num_threads(1)   # as the notebook runs a stand-in (and several times faster on 4.48)
    saved = chat.tokenizer, chat.GuessBERT, chat.BERT_MASK
    chat.use(tokenizer, models.ChatGuesser(network))
    try:
        answers = {question: chat.Chat(question, step=UndiffuseGreedy) for question, _ in models.STAND_IN_QA[:8]}
    finally:
        chat.tokenizer, chat.GuessBERT, chat.BERT_MASK = saved
    assert "four" in answers["What is two plus two?"], answers
    assert all("[PAD]" not in a and "[/Answer" not in a for a in answers.values()), answers
    right = sum(answers[q] == a for q, a in models.STAND_IN_QA[:8])
    assert right >= 6, f"only {right} of 8 trained questions answered word for word: {answers}"


def test_stand_in_knows_the_capitals_lesson():
    """Issue 12: with the country written the stand-in is nearly sure of the capital (and the other way
    round); with both blank it spreads over countries and capitals; undiffusing at T = 20 gives right
    pairs where T = 1 mostly does not. Seeded."""
    from maskdiff_solutions.sampling import Undiffuse
    tokenizer, network = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu")
    torch.set_num_threads(1)
    guess = models.ChatGuesser(network)
    question = models.STAND_IN_BARE.format("Name a country and its capital city.")

    def at_masks(answer):
        x = torch.tensor(tokenizer.encode(question + answer + "\n[/Answer]", add_special_tokens=False))
        p = guess(x)
        return [p[i] for i in torch.where(x == tokenizer.mask_token_id)[0]]

    def token(word):
        return tokenizer.encode(" " + word, add_special_tokens=False)[0]

    for country, city in models.CAPITALS:
        assert at_masks(f"The capital of {country} is [MASK].")[0][token(city)] > 0.9, (country, city)
        assert at_masks(f"The capital of [MASK] is {city}.")[0][token(country)] > 0.9, (country, city)
    countries, cities = at_masks("The capital of [MASK] is [MASK].")
    for p, words in ((countries, [c for c, _ in models.CAPITALS]), (cities, [c for _, c in models.CAPITALS])):
        shares = p[[token(word) for word in words]]
        assert shares.sum() > 0.9 and shares.max() < 0.5, f"both blank: {shares.tolist()} should spread"

    start = torch.tensor(tokenizer.encode(question + "The capital of [MASK] is [MASK].\n[/Answer]",
                                          add_special_tokens=False))
    pairs = {f"The capital of {country} is {city}." for country, city in models.CAPITALS}
    right = {}
    with torch.random.fork_rng():
        torch.manual_seed(0)
        for T in (1, 20):
            sentences = []
            for _ in range(40):
                x = start.clone()
                for t in range(T, 0, -1):
                    x = Undiffuse(x, t, guess, tokenizer.mask_token_id)
                sentences.append(tokenizer.decode(x).split("[Answer]\n")[1].split("\n")[0])
            right[T] = sum(s in pairs for s in sentences)
    assert right[20] >= 34, f"T = 20: only {right[20]} of 40 right pairs"
    assert right[1] <= 24, f"T = 1: {right[1]} of 40 right pairs; the lesson needs mixed-up pairs"


def test_qwen_attention_sees_both_ways():
    _, network = models.LoadNetwork(stand_in("qwen")[0], "qwen", "cpu")
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


# ----------------------------------------------------------------------------- which copy is loaded

def test_load_chat_model_uses_the_stand_in_under_a_grader(quiet_environment, monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(models, "HubReachable", lambda: pytest.fail("a grader must not try the hub"))
    monkeypatch.setattr(models, "CachedCopy", lambda name: None)
    tokenizer, network = models.LoadChatModel("bert", "cpu", stand_in("bert")[0].parent)
    assert models.IsStandIn(network) and "STAND-IN" in capsys.readouterr().out


def test_load_chat_model_falls_back_when_offline(quiet_environment, monkeypatch, capsys):
    monkeypatch.setattr(models, "HubReachable", lambda: False)
    monkeypatch.setattr(models, "CachedCopy", lambda name: None)   # nothing downloaded earlier
    _, network = models.LoadChatModel("bert", "cpu", stand_in("bert")[0].parent)
    out = capsys.readouterr().out
    assert models.IsStandIn(network) and "offline" in out and "STAND-IN" in out
    assert "does not apply" in out, "on a CPU, the stand-in says the set-up cell's NO GPU warning is not for it"


def test_a_setting_names_the_folder_to_load(quiet_environment, tmp_path, capsys):
    """Issue 13 item 3: MASKDIFF_BERT names a model folder, used even under a grader, and said."""
    folder = real_copy(tmp_path / "my-modernbert")
    quiet_environment.setenv("MASKDIFF_BERT", str(folder))
    quiet_environment.setenv("NBGRADER_EXECUTION", "autograde")
    quiet_environment.setattr(models, "HubReachable", lambda: pytest.fail("a folder needs no hub"))
    tokenizer, network = models.LoadChatModel("bert", "cpu")
    out = capsys.readouterr().out
    assert Path(network.name_or_path) == folder and not models.IsStandIn(network)
    assert f"loaded {folder}" in out and "STAND-IN" not in out


def fake_hub_cache(home, name, folder):
    """A Hugging Face cache under `home` holding `folder` as the downloaded snapshot of `name`."""
    repo = home / "hub" / ("models--" + name.replace("/", "--"))
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.parent.mkdir(parents=True)
    folder.rename(snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    return snapshot


def load_in_a_fresh_process(home, **environment):
    """LoadChatModel("bert") in a new Python whose Hugging Face cache is `home` (read at import)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NBGRADER_EXECUTION", "CI", "HF_HUB_OFFLINE", "MASKDIFF_BERT")}
    env.update(HF_HOME=str(home), MASKDIFF_CACHE=str(stand_in("bert")[0].parent),
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]), **environment)
    code = ("from maskdiff_solutions import models; models.HubReachable = lambda: False\n"
            "tokenizer, network = models.LoadChatModel('bert', 'cpu')\n"
            "print('STAND_IN' if models.IsStandIn(network) else 'REAL', network.name_or_path)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def hub_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("hf-home")
    snapshot = fake_hub_cache(home, models.NETWORKS["bert"], real_copy(home / "copy"))
    return home, snapshot


def test_offline_loads_the_copy_downloaded_earlier(hub_home):
    """Issue 13 item 3: HF_HUB_OFFLINE=1 loads the cached real copy (local files only) and says so."""
    home, snapshot = hub_home
    out = load_in_a_fresh_process(home, HF_HUB_OFFLINE="1")
    assert out.strip().endswith(f"REAL {snapshot}"), out
    assert "downloaded earlier" in out and "STAND-IN" not in out


def test_a_grader_on_a_cpu_keeps_the_stand_in_unless_told(hub_home):
    """CI / NBGRADER_EXECUTION are offline too: on a GPU they would take the cached copy; on a CPU a
    real-size network would break the 30 s cell limit, so they say so and take the stand-in, unless a
    setting names the network."""
    home, snapshot = hub_home
    out = load_in_a_fresh_process(home, CI="1")
    assert "STAND_IN" in out and "is on this machine" in out and "MASKDIFF_BERT" in out, out
    out = load_in_a_fresh_process(home, CI="1", MASKDIFF_BERT=models.NETWORKS["bert"])
    assert out.strip().endswith(f"REAL {snapshot}"), out


def test_load_chat_model_names_a_wrong_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        models.LoadChatModel("gpt")


# ----------------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("version,keyword", [("4.48.3", "torch_dtype"), ("4.55.4", "torch_dtype"),
                                             ("4.56.0", "dtype"), ("5.24.0", "dtype"), ("5.0.0.dev0", "dtype")])
def test_dtype_keyword_follows_the_transformers_version(monkeypatch, version, keyword):
    monkeypatch.setattr(transformers, "__version__", version)
    assert models.DtypeArgument(torch.float16) == {keyword: torch.float16}


@pytest.mark.parametrize("device,capability,native,dtype", [
    ("cpu", None, None, torch.float32), ("mps", None, None, torch.float32),
    ("cuda", (7, 5), None, torch.float16),        # T4: bfloat16 only emulated
    ("cuda", (7, 0), None, torch.float16),        # V100
    ("cuda", (8, 0), None, torch.bfloat16),       # A100
    ("cuda", (8, 9), None, torch.bfloat16),       # L4
    ("cuda", (9, 0), None, torch.bfloat16),       # H100
    ("cuda", (8, 6), False, torch.float16),       # whatever the capability, torch says no hardware
    ("cuda:0", (7, 5), False, torch.float16),
])
def test_dtype_for_each_device(device, capability, native, dtype):
    """Issue 13 item 1: the decision itself, on described devices."""
    assert models.ChooseDtype(device, capability, native) == dtype


def test_a_t4_gets_float16(monkeypatch):
    """Issue 13 item 1: a T4 described as torch describes it (capability 7.5; is_bf16_supported says
    True unless emulation is excluded) gets float16, and so it does where torch cannot exclude it."""
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (7, 5))
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert models.PickDtype("cuda") == torch.float16
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)   # an older torch
    assert models.PickDtype("cuda") == torch.float16
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: (8, 0))
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)
    assert models.PickDtype("cuda") == torch.bfloat16
    assert models.PickDtype("cpu") == torch.float32


def test_half_precision_network_with_finite_logits_stays_half():
    tokenizer, network = models.LoadNetwork(stand_in("bert")[0], "bert", "cpu", dtype=torch.float16)
    assert network.dtype == torch.float16 and models.FiniteLogits(network, tokenizer)


def test_float16_logits_that_overflow_fall_back_to_float32(tmp_path, capsys):
    """Issue 13 item 1: a network whose float16 logits overflow (past 65504: inf) runs in float32,
    reloaded from its checkpoint, and says so. Its weights fit float16; its logits do not."""
    folder = real_copy(tmp_path / "hot")
    _, network = models.LoadNetwork(folder, "bert", "cpu")
    with torch.no_grad():
        network.decoder.weight.mul_(100.0)            # the decoder's weight is tied to the embeddings:
        network.decoder.bias.fill_(65000.0)           # both stay well inside float16's range
    network.save_pretrained(folder)
    tokenizer, network = models.LoadNetwork(folder, "bert", "cpu", dtype=torch.float16)
    assert network.dtype == torch.float32 and models.FiniteLogits(network, tokenizer)
    assert "overflow" in capsys.readouterr().out
    x = torch.tensor([tokenizer.encode("Why is the sky blue? [MASK]", add_special_tokens=False)])
    with torch.no_grad():
        assert torch.isfinite(models.Logits(network, x)).all()
        assert models.Logits(network, x).abs().max() > 65504, "the float32 logits really are that big"


# ----------------------------------------------------------------------------- loading checks

def test_a_tokenizer_without_a_mask_token_is_refused(tmp_path):
    """Issue 13 item 4: mask_token_id None would crash Chat later; say it at loading time."""
    folder = real_copy(tmp_path / "no-mask", drop=("mask_token",))
    with pytest.raises(ValueError, match="no mask token"):
        models.LoadNetwork(folder, "bert", "cpu")


def test_a_tokenizer_class_this_transformers_lacks_says_upgrade(tmp_path):
    """Issue 13 item 4: a tokenizer saved by a newer transformers (transformers 5 writes
    TokenizersBackend, unknown to 4.x) is refused with the advice to upgrade."""
    folder = real_copy(tmp_path / "future", tokenizer_config=lambda s: s.update(tokenizer_class="TokenizersFromTheFuture"))
    with pytest.raises(models.TransformersTooOld, match="pip install -U transformers"):
        models.LoadNetwork(folder, "bert", "cpu")


def test_a_transformers_5_tokenizer_loads_or_says_upgrade(tmp_path):
    folder = real_copy(tmp_path / "v5", tokenizer_config=lambda s: s.update(tokenizer_class="TokenizersBackend"))
    if OLD:
        with pytest.raises(models.TransformersTooOld, match="TokenizersBackend.*pip install -U transformers"):
            models.LoadNetwork(folder, "bert", "cpu")
    else:
        tokenizer, _ = models.LoadNetwork(folder, "bert", "cpu")
        assert tokenizer.mask_token == "[MASK]"


def rope_parameters_only(full, sliding):
    """A ModernBERT config as transformers 5 writes it: rotary bases per layer type, in rope_parameters."""
    def edit(settings):
        for name in ("global_rope_theta", "local_rope_theta"):
            settings.pop(name, None)
        settings["rope_parameters"] = {"full_attention": {"rope_type": "default", "rope_theta": full},
                                       "sliding_attention": {"rope_type": "default", "rope_theta": sliding}}
    return edit


def test_settings_are_read_as_the_checkpoint_states_them_or_refused(tmp_path):
    """Issue 13 item 4: a config with its rotary bases only in rope_parameters (how transformers 5
    writes them) must load with those bases, or not at all: 4.x reads it with its defaults."""
    folder = real_copy(tmp_path / "rope", config=rope_parameters_only(320000.0, 20000.0))
    if OLD:
        with pytest.raises(models.TransformersTooOld, match="global_rope_theta.*pip install -U transformers"):
            models.LoadNetwork(folder, "bert", "cpu")
    else:
        _, network = models.LoadNetwork(folder, "bert", "cpu")
        thetas = models.RopeThetas(network.config.to_dict(), "new")
        assert thetas == {"global_rope_theta": 320000.0, "local_rope_theta": 20000.0}


def test_qwen_settings_in_rope_parameters_are_read_right(tmp_path):
    require_qwen()
    def edit(settings):
        settings.pop("rope_theta", None)
        settings["rope_parameters"] = {"rope_type": "default", "rope_theta": 1000000.0}
    folder = real_copy(tmp_path / "qwen", "qwen", config=edit)
    try:
        _, network = models.LoadNetwork(folder, "qwen", "cpu")
    except models.TransformersTooOld as error:   # 4.51-4.57 read rope_theta 10000: refused
        assert "rope_theta is 1000000.0 in the checkpoint but 10000" in str(error)
    else:
        assert models.RopeThetas(network.config.to_dict(), "new" if not OLD else "old")["rope_theta"] == 1e6


class OldQwen3Config(transformers.PretrainedConfig):
    """Qwen3Config as transformers 4.51-4.57 have it: rope_theta at the top, 10000 unless given."""
    model_type = "old-qwen3"

    def __init__(self, rope_theta=10000.0, hidden_size=1024, **kwargs):
        self.rope_theta, self.hidden_size = rope_theta, hidden_size
        super().__init__(**kwargs)


def test_a_misread_rope_theta_is_caught():
    """Issue 13 item 4, on a described 4.57: a config that states its base only in rope_parameters is
    read with rope_theta 10000; Misread reports it (and LoadNetwork refuses it, below)."""
    stated = {"model_type": "qwen3", "hidden_size": 1024,
              "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}}
    assert models.Misread(stated, OldQwen3Config(**{"hidden_size": 1024})) == [("rope_theta", 1000000.0, 10000.0)]
    assert models.Misread(stated, OldQwen3Config(rope_theta=1000000.0)) == []
    assert models.Misread({"rope_theta": 1e6, "hidden_size": 512}, OldQwen3Config(rope_theta=1e6)) == \
        [("hidden_size", 512, 1024)]


def test_load_network_refuses_a_misread_config(tmp_path, monkeypatch):
    folder = real_copy(tmp_path / "misread")
    monkeypatch.setattr(models, "Misread", lambda stated, config: [("rope_theta", 1e6, 1e4)])
    with pytest.raises(models.TransformersTooOld, match="rope_theta is 1000000.0 in the checkpoint.*pip install -U transformers"):
        models.LoadNetwork(folder, "bert", "cpu")


def test_the_4_51_crash_without_accelerate_says_what_to_do(tmp_path, quiet_environment):
    """Issue 13 item 4: transformers 4.51.0 without accelerate raises NameError inside from_pretrained."""
    folder = real_copy(tmp_path / "crash")

    def crash(*args, **kwargs):
        raise NameError("name 'init_empty_weights' is not defined")
    quiet_environment.setattr(models.AutoModelForMaskedLM, "from_pretrained", crash)
    quiet_environment.setenv("MASKDIFF_BERT", str(folder))
    with pytest.raises(models.TransformersTooOld, match="init_empty_weights.*pip install -U transformers.*accelerate"):
        models.LoadChatModel("bert", "cpu")


def test_under_a_grader_an_unloadable_real_copy_gives_way_to_the_stand_in(tmp_path, quiet_environment, capsys):
    folder = real_copy(tmp_path / "unloadable", tokenizer_config=lambda s: s.update(tokenizer_class="FromTheFuture"))
    quiet_environment.setenv("MASKDIFF_BERT", str(folder))
    with pytest.raises(models.TransformersTooOld):
        models.LoadChatModel("bert", "cpu")
    quiet_environment.setenv("NBGRADER_EXECUTION", "autograde")
    _, network = models.LoadChatModel("bert", "cpu", stand_in("bert")[0].parent)
    assert models.IsStandIn(network) and "pip install -U transformers" in capsys.readouterr().out


def test_qwen_on_an_old_transformers_says_upgrade():
    if models.TransformersVersion() >= (4, 51):
        pytest.skip("this transformers has Qwen3")
    with pytest.raises(ImportError, match="Qwen3 needs transformers >= 4.51.*pip install -U transformers"):
        models.Qwen3()


# ----------------------------------------------------------------------------- the set-up cell

def setup_functions():
    namespace = {}
    exec(compile("import importlib.metadata, re\n" + "\n".join(
        block for block in cell("setup").split("\n\n\n") if block.lstrip().startswith("def ")), "setup", "exec"), namespace)
    return namespace


def test_setup_cell_upgrades_a_transformers_too_old():
    """Issue 12: an installed but too old transformers is upgraded, not silently kept."""
    functions = setup_functions()
    required = {"torch": None, "tqdm": None, "transformers": (4, 48)}
    assert functions["ToInstall"](required, {"torch": (2, 1), "tqdm": (4, 6), "transformers": (4, 47)}) == \
        ["transformers>=4.48"]
    assert functions["ToInstall"](required, {"torch": (2, 1), "tqdm": None, "transformers": (5, 24)}) == ["tqdm"]
    assert functions["ToInstall"](required, {"torch": (2, 1), "tqdm": (4, 6), "transformers": (4, 48)}) == []
    assert functions["Version"]("torch") == tuple(int(p) for p in torch.__version__.split(".")[:2])
    assert functions["Version"]("no-such-package-here") is None


def run_setup_cell(**environment):
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", "CI")}
    env.update(CUDA_VISIBLE_DEVICES="", MPLBACKEND="Agg", **environment)
    done = subprocess.run([sys.executable, "-c", cell("setup")], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_setup_cell_says_up_front_that_a_cpu_is_slow():
    """Issue 13 item 7: on a CPU-only runtime the first output says what the real network costs there
    and what to do; not under a grader (which uses the stand-in)."""
    out = run_setup_cell()
    assert "NO GPU" in out and "call" in out and "T4 GPU" in out and "minute" in out and "hours" in out, out
    assert "NO GPU" not in run_setup_cell(CI="1")


# ----------------------------------------------------------------------------- real-size benchmark configs

def test_real_size_configs_give_the_published_networks():
    """Issue 13 item 8: benchmarks/real_size.py writes out the published configurations; built on the
    meta device (no memory, no time) they have the published numbers of parameters."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import real_size
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    kinds = ["bert"] + (["qwen"] if models.TransformersVersion() >= (4, 51) else [])
    for kind in kinds:
        with torch.device("meta"):
            network = real_size.Build(kind, device="meta")
        assert math.isclose(network.num_parameters(), real_size.PUBLISHED_PARAMETERS[kind], rel_tol=1e-3), kind
        assert not models.Misread(real_size.CONFIGS[kind], network.config)
