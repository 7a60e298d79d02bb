"""The pre-trained chat networks of notebook 03, and the small stand-ins used when they cannot be had.

`LoadChatModel(kind, device)` loads `dllm-hub/ModernBERT-large-chat-v0.1` ("bert") or
`dllm-hub/Qwen3-0.6B-diffusion-mdlm-v0.1` ("qwen"), or the copy that `MASKDIFF_BERT` / `MASKDIFF_QWEN`
names (a folder or a hub id). Offline (`HF_HUB_OFFLINE`, a grader, CI, no connection) it takes a copy
downloaded earlier; only when no real copy can be had does it build a stand-in: a tiny network of the
same architecture with its own tokenizer carrying the same markers, trained for a few seconds on a
handful of questions and answers (and the capitals of the two-blank lesson), saved with
`save_pretrained` and loaded back through the very same `from_pretrained` calls. It always says which
copy it loaded.

Every load is checked: the number type suits the device (`ChooseDtype`: float16 on GPUs without native
bfloat16, such as the T4), half-precision logits are finite (else float32), the tokenizer has a mask
token, and the settings the network runs with are the ones its checkpoint states (an old transformers
can misread a checkpoint saved by a newer one); what an old transformers cannot load is explained with
the advice to upgrade.

The notebook cannot import this package (students do not have it), so the code between the
`notebook cell` markers below is copied verbatim into the notebook's given cell `machinery`;
tests/course/term/test_notebooks.py keeps the two identical. Edit it here, then paste it there.
"""
# --- notebook cell: machinery ---
#@title Machinery: loading a network and checking it, or building an offline stand-in (run it; reading it is optional)
import json
import os
import re
import shutil
import time
import urllib.request
from pathlib import Path

import torch
import transformers
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoModelForMaskedLM, AutoTokenizer, PreTrainedTokenizerFast

NETWORKS = {"bert": "dllm-hub/ModernBERT-large-chat-v0.1",
            "qwen": "dllm-hub/Qwen3-0.6B-diffusion-mdlm-v0.1"}
SETTINGS = {"bert": "MASKDIFF_BERT", "qwen": "MASKDIFF_QWEN"}   # name another copy: a folder or a hub id
UPGRADE = "pip install -U transformers   (on Colab: run it in a cell, then Runtime > Restart session)"
STAND_IN_VERSION = 4          # bump when the recipe below changes: old cached stand-ins are rebuilt
STAND_IN_ANSWER = 64          # answer positions the stand-in is trained to fill
STAND_IN_SEED = 0             # the stand-in's weights and training draw only from this seed


class TransformersTooOld(RuntimeError):
    """The installed transformers cannot load this network correctly: upgrade it."""


def TransformersVersion():
    return tuple(int(part) for part in re.findall(r"\d+", transformers.__version__)[:2])


def ChooseDtype(device, capability=None, native_bf16=None):
    """The number type for a network on `device` ("cuda", "mps", "cpu"). For a CUDA GPU give its compute
    capability (major, minor) and, when known, whether it has bfloat16 in hardware. bfloat16 needs
    hardware from capability 8.0 on (A100, L4, RTX 30xx); a T4 (7.5) can only emulate it, slowly, so it
    gets float16. CPUs and Apple GPUs get float32."""
    if torch.device(device).type != "cuda":
        return torch.float32
    if native_bf16 is None:
        native_bf16 = capability is not None and tuple(capability) >= (8, 0)
    return torch.bfloat16 if native_bf16 else torch.float16


def PickDtype(device):
    """ChooseDtype for this machine. torch.cuda.is_bf16_supported() alone says yes on a T4, because
    by default it counts emulation; ask for hardware support where torch can tell it apart."""
    if torch.device(device).type != "cuda":
        return ChooseDtype(device)
    capability = torch.cuda.get_device_capability(device)
    try:
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    except TypeError:     # a torch without the argument: decide from the capability alone
        native = None
    return ChooseDtype("cuda", capability, native)


def DtypeArgument(dtype):
    """from_pretrained calls it `dtype` since transformers 4.56 and `torch_dtype` before."""
    return {"dtype": dtype} if TransformersVersion() >= (4, 56) else {"torch_dtype": dtype}


def SeeEverything(model, x):
    """An additive attention mask of zeros, (batch, 1, L, L) in the model's dtype: every position may
    look at every other one. A left-to-right network (Qwen3) needs it to guess like a diffusion model."""
    return torch.zeros(x.shape[0], 1, x.shape[1], x.shape[1], dtype=model.dtype, device=x.device)


def Logits(model, x):
    """Logits (batch, L, vocabulary) for a batch of token rows x, with attention in both directions."""
    if "CausalLM" in type(model).__name__:
        return model(x, attention_mask=SeeEverything(model, x)).logits
    return model(x).logits


def Quick():
    """True while a grader or CI runs the notebook."""
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI"))


def Offline():
    """True while a grader or CI runs the notebook (they never download), or when told to stay offline."""
    return Quick() or bool(os.environ.get("HF_HUB_OFFLINE"))


def HubReachable(timeout=5):
    """One quick request, so that an offline laptop does not sit through the hub client's retries."""
    try:
        urllib.request.urlopen(urllib.request.Request("https://huggingface.co", method="HEAD"),
                               timeout=timeout)
    except urllib.error.HTTPError:
        return True     # it answered, if grumpily
    except OSError:
        return False
    return True


def Qwen3():
    """(Qwen3Config, Qwen3ForCausalLM), which arrived in transformers 4.51."""
    try:
        from transformers import Qwen3Config, Qwen3ForCausalLM
    except ImportError:
        raise ImportError(f"Qwen3 needs transformers >= 4.51 (you have {transformers.__version__}): "
                          + UPGRADE) from None
    return Qwen3Config, Qwen3ForCausalLM


def Source(kind):
    """(where, named): the folder or hub id of the network for `kind`, and whether a setting named it."""
    named = os.environ.get(SETTINGS[kind], "").strip()
    return (named or NETWORKS[kind]), bool(named)


def CachedCopy(name):
    """The folder of hub network `name` as downloaded earlier into the Hugging Face cache, or None."""
    from transformers.utils.hub import try_to_load_from_cache   # huggingface_hub's, as transformers has it
    found = try_to_load_from_cache(name, "config.json")
    return Path(found).parent if isinstance(found, str) else None


def CheckpointFile(where, filename, local):
    """A json file of the checkpoint as it is written there (a folder or a hub id), or {} if it has none."""
    if Path(where).is_dir():
        path = Path(where) / filename
    else:
        from transformers.utils.hub import hf_hub_download
        try:
            path = Path(hf_hub_download(where, filename, local_files_only=local))
        except Exception as error:   # a file the checkpoint does not have; a missing connection is raised
            if "EntryNotFound" not in type(error).__name__:
                raise
            return {}
    return json.loads(path.read_text()) if path.is_file() else {}


def RopeThetas(settings, read_as=None):
    """The rotary base(s) in a config dict, one name per base whatever the transformers version:
    rope_theta (Qwen3), global_rope_theta and local_rope_theta (ModernBERT). Newer checkpoints keep
    them in rope_parameters (per layer type for ModernBERT), older ones at the top level. `read_as`
    "new" or "old" reads only that place (how the installed transformers reads it)."""
    nested = settings.get("rope_parameters") if isinstance(settings.get("rope_parameters"), dict) else {}
    new = {name: nested[layer]["rope_theta"]
           for layer, name in (("full_attention", "global_rope_theta"), ("sliding_attention", "local_rope_theta"))
           if isinstance(nested.get(layer), dict) and "rope_theta" in nested[layer]}
    if "rope_theta" in nested:
        new["rope_theta"] = nested["rope_theta"]
    old = {name: settings[name] for name in ("rope_theta", "global_rope_theta", "local_rope_theta")
           if settings.get(name) is not None}
    if read_as == "new":
        return new
    if read_as == "old":
        return old
    return {**old, **new}


SIZES = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
         "num_key_value_heads", "head_dim")


def Misread(stated, config):
    """What the loaded network's config holds differently from what its checkpoint states:
    [(setting, stated, loaded)]. Empty when the two agree."""
    loaded, known = config.to_dict(), type(config)().to_dict()   # known: what this version's class holds
    used = RopeThetas(loaded, "new" if "rope_parameters" in known else "old")
    wrong = [(name, value, used.get(name)) for name, value in RopeThetas(stated).items()
             if (name in known or name in used)
             and (used.get(name) is None or abs(float(used[name]) - float(value)) > 1e-6 * abs(float(value)))]
    wrong += [(name, stated[name], loaded.get(name)) for name in SIZES
              if stated.get(name) is not None and loaded.get(name) is not None and stated[name] != loaded[name]]
    return wrong


def CheckTokenizerClass(where, settings):
    """A tokenizer saved by transformers 5 names its class TokenizersBackend, which 4.x does not have."""
    name = settings.get("tokenizer_class")
    if name and not hasattr(transformers, name) and not hasattr(transformers, name.replace("Fast", "")):
        raise TransformersTooOld(
            f"{where} was saved with the tokenizer class {name}, which transformers "
            f"{transformers.__version__} does not know (it came with a newer version). " + UPGRADE)


def LoadNetwork(where, kind, device, local=False, dtype=None):
    """tokenizer and network from a hub name or a local folder, in `dtype` (PickDtype(device) unless
    given), checked: a registered mask token, the settings the checkpoint states, finite logits."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    stated = CheckpointFile(where, "config.json", local)
    if stated.get("model_type") and stated["model_type"] not in CONFIG_MAPPING:
        raise TransformersTooOld(f"{where} is a {stated['model_type']} network, which transformers "
                                 f"{transformers.__version__} does not know. " + UPGRADE)
    CheckTokenizerClass(where, CheckpointFile(where, "tokenizer_config.json", local))
    tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=local)
    if tokenizer.mask_token_id is None:
        raise ValueError(f"the tokenizer of {where} has no mask token registered "
                         f"(tokenizer.mask_token_id is None): a diffusion chat network needs one to undiffuse")
    model = ReadWeights(where, kind, local, dtype or PickDtype(device), device)
    wrong = Misread(stated, model.config)
    if wrong:
        raise TransformersTooOld(
            f"transformers {transformers.__version__} misreads the settings of {where}: "
            + "; ".join(f"{name} is {value} in the checkpoint but {got} in the loaded network"
                        for name, value, got in wrong)
            + ". It was saved by a newer transformers, and would run but write nonsense. " + UPGRADE)
    if not FiniteLogits(model, tokenizer):
        print(f"{where}: its {model.dtype} logits overflow (inf or nan) on a probe sentence, "
              "so it runs in float32 instead (twice the memory, a little slower)")
        del model
        model = ReadWeights(where, kind, local, torch.float32, device)
    return tokenizer, model


def ReadWeights(where, kind, local, dtype, device):
    """from_pretrained with the right class and dtype keyword, on `device`, in evaluation mode."""
    network = Qwen3()[1] if kind == "qwen" else AutoModelForMaskedLM
    try:
        model = network.from_pretrained(where, local_files_only=local, **DtypeArgument(dtype))
    except NameError as error:   # transformers 4.51.0 without accelerate: init_empty_weights is not defined
        raise TransformersTooOld(
            f"transformers {transformers.__version__} failed inside from_pretrained ({error}). "
            + UPGRADE + "  (or: pip install accelerate)") from error
    return model.to(device).eval()


def FiniteLogits(model, tokenizer):
    """float16 tops out at 65504: a network whose logits outgrow it gives inf or nan. One probe."""
    if model.dtype == torch.float32:
        return True
    text = f"The capital of France is {tokenizer.mask_token}. Why is the sky blue?"
    x = torch.tensor([tokenizer.encode(text, add_special_tokens=False)], device=model.device)
    with torch.no_grad():
        return bool(torch.isfinite(Logits(model, x)).all())


def IsStandIn(model):
    return (Path(model.name_or_path) / "STAND_IN.txt").is_file()


def Loaded(kind, where, device, how, local=True):
    tokenizer, model = LoadNetwork(where, kind, device, local=local)
    print(f"loaded {how}: {model.num_parameters() / 1e6:.0f} million parameters on {device} in "
          f"{str(model.dtype).replace('torch.', '')}")
    return tokenizer, model


def LoadChatModel(kind="bert", device="cpu", cache=None):
    """(tokenizer, network) for `kind`: the copy MASKDIFF_BERT / MASKDIFF_QWEN names, else the hub's
    network (downloaded once; offline, the copy downloaded earlier); a stand-in only when no real copy
    can be had. Prints which one it loaded. A stand-in on a CPU sets torch to one thread (it runs
    fastest so)."""
    if kind not in NETWORKS:
        raise ValueError(f"kind must be one of {sorted(NETWORKS)}, got {kind!r}")
    where, named = Source(kind)
    copy = where if Path(where).is_dir() else CachedCopy(where)
    if Quick() and torch.device(device).type == "cpu" and not named and copy is not None:
        print(f"a copy of {where} is on this machine, but on a CPU under a grader it would take minutes "
              f"per cell (the limit is 30 s); set {SETTINGS[kind]}={where} to use it anyway")
        copy = None
    reason = "offline, and no copy was downloaded earlier"
    try:
        if Path(where).is_dir():
            return Loaded(kind, where, device, f"{where} (the folder {SETTINGS[kind]} names)")
        if not Offline() and HubReachable():
            try:
                return Loaded(kind, where, device, f"{where} from the Hugging Face hub", local=False)
            except OSError as error:   # a failed download
                reason = f"{type(error).__name__}: {str(error)[:300]}; no copy was downloaded earlier"
        if copy is not None:
            return Loaded(kind, copy, device, f"the copy of {where} downloaded earlier ({copy})")
    except TransformersTooOld as error:
        if not Quick():
            raise
        reason = str(error)   # a grader must get through the notebook: on to the stand-in
    print(f"could not load {where} ({reason})")
    folder = StandIn(kind, cache)
    print(f"STAND-IN: answers below come from a tiny {kind} network trained for seconds in this notebook"
          f" ({folder}), not from {where}. Expect it to know a dozen questions and little else.")
    if torch.device(device).type == "cpu":
        torch.set_num_threads(1)
        print("The stand-in is small: on a CPU it answers in moments, so the NO GPU warning of the set-up "
              "cell does not apply to it.")
    return LoadNetwork(folder, kind, device, local=True)


def SamplesOnDevice(device, *steps):
    """Can GuessBERT leave its probabilities on the network's device? The sentence x_t lives on the
    CPU (Tokens makes it there); a step that samples where p lives and moves the chosen tokens to x_t's
    device (.to(x_t.device)) is fast. One that mixes devices fails on a GPU: then the probabilities go
    to the CPU, as on the course page (slower: the whole table crosses every step)."""
    if torch.device(device).type == "cpu":
        return True
    return StepsTake(torch.full((4, 5), 0.2, device=device), *steps)


def StepsTake(p, *steps):
    """True when each step takes two steps from a CPU sentence with the guesses p (on their device);
    else says why and what to change. The notebook's random generators are left as they were."""
    x = torch.tensor([0, 1, 1, 1])                    # token 1 plays the mask
    cuda = [p.device] if p.device.type == "cuda" and torch.cuda.is_available() else []
    try:
        with torch.random.fork_rng(devices=cuda):
            for step in steps:
                step(step(x, 2, lambda _: p, 1), 1, lambda _: p, 1)
    except NotImplementedError:
        print(f"{step.__name__} is not written yet: GuessBERT hands the steps CPU probabilities. Once your "
              "steps are in, run this cell again to sample on the GPU.")
        return False
    except Exception as error:
        print(f"{step.__name__} cannot yet sample from guesses on the {p.device.type} "
              f"({type(error).__name__}: {str(error)[:150]}). GuessBERT hands it CPU probabilities (slower). "
              "To sample on the GPU, build random numbers on x_t's device and move what you picked with "
              ".to(x_t.device), then run this cell again.")
        return False
    return True


# What the stand-ins learn: our own questions and answers, and the capitals of the two-blank lesson.
CAPITALS = [("France", "Paris"), ("India", "Delhi"), ("Thailand", "Bangkok"), ("Japan", "Tokyo")]
STAND_IN_QA = [
    ("Why is the sky blue?", "Air scatters blue light much more than red light, so blue light reaches "
                             "your eyes from every part of the sky."),
    ("What is a cat?", "A cat is a small furry animal that hunts mice and sleeps most of the day."),
    ("Why do we have seasons?", "The axis of the Earth is tilted, so each half of the Earth gets more "
                                "sunlight for part of the year."),
    ("What is diffusion?", "Diffusion is the slow spreading of something, like ink in water."),
    ("How do plants eat?", "Plants use sunlight to turn water and air into sugar."),
    ("What is the largest planet?", "Jupiter is the largest planet in our solar system."),
    ("Who wrote Hamlet?", "Hamlet was written by William Shakespeare."),
    ("What is two plus two?", "Two plus two is four."),
] + [("Name a country and its capital city.", f"The capital of {country} is {city}.")
     for country, city in CAPITALS]

STAND_IN_FORMAT = {   # kind -> (prompt template, end of answer, padding, mask, other markers)
    "bert": ("[SYS]\nYou are a helpful AI assistant.\n[/SYS]\n\n[Question]\n{}\n[/Question]\n\n[Answer]\n",
             "\n[/Answer]", "[PAD]", "[MASK]", ["[CLS]", "[SEP]", "[UNK]"]),
    "qwen": ("<|im_start|>system\nYou are a helpful AI assistant.<|im_end|>\n<|im_start|>user\n{}"
             "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
             "<|im_end|>", "<|endoftext|>", "<|mask|>", ["<|im_start|>", "<|im_end|>"]),
}


# The two-blank lesson writes the capitals question without the [SYS] part, with the answer's end
# marker in place and only the country, the capital, or both masked.
STAND_IN_BARE = "[Question]\n{}\n[/Question]\n\n[Answer]\n"


def StandInTokenizer(kind):
    """A byte-level BPE tokenizer (like the real ones): markers such as [Question] are ordinary text,
    while the mask and padding are special tokens that decode to [MASK] and [PAD]."""
    template, end, pad, mask, others = STAND_IN_FORMAT[kind]
    texts = [template.format(q) + a + end for q, a in STAND_IN_QA]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=1000, special_tokens=[pad, mask, *others], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    bpe.add_special_tokens([AddedToken(mask, lstrip=True, special=True)])  # "of [MASK]" masks " France"
    names = ({"cls_token": "[CLS]", "sep_token": "[SEP]", "unk_token": "[UNK]"} if kind == "bert"
             else {"eos_token": "<|im_end|>", "additional_special_tokens": others})
    return PreTrainedTokenizerFast(tokenizer_object=bpe, pad_token=pad, mask_token=mask,
                                   clean_up_tokenization_spaces=False, **names)


def StandInNetwork(kind, tokenizer, seed=STAND_IN_SEED):
    """The real architecture, shrunk to about 100 thousand parameters; its initial weights come from
    `seed` alone (the global generator is left as it was). Initial weights larger than the real
    networks' (initializer_range 0.2) let attention pick out single words early in training."""
    size = dict(vocab_size=len(tokenizer), hidden_size=48, intermediate_size=96, num_hidden_layers=2,
                num_attention_heads=4, max_position_embeddings=512, pad_token_id=tokenizer.pad_token_id,
                initializer_range=0.2)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        if kind == "qwen":
            Qwen3Config, Qwen3ForCausalLM = Qwen3()
            return Qwen3ForCausalLM(Qwen3Config(num_key_value_heads=2, head_dim=12, tie_word_embeddings=True,
                                                eos_token_id=tokenizer.eos_token_id, **size))
        from transformers import ModernBertConfig
        return AutoModelForMaskedLM.from_config(ModernBertConfig(
            global_attn_every_n_layers=1, local_attention=512, global_rope_theta=10000.0,
            cls_token_id=tokenizer.cls_token_id, sep_token_id=tokenizer.sep_token_id,
            bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id, **size))


def StandInExamples(kind, tokenizer):
    """Training batches [(x_0, maskable, fixed)]. The first holds each question, its answer, the end
    marker, then padding up to STAND_IN_ANSWER answer tokens: random masks fall on the answer
    (`maskable`). For bert a second holds the two-blank lesson as the notebook writes it, each
    country-capital pair three times with fixed masks (`fixed`): the country, the capital, or both."""
    template, end, pad, mask, others = STAND_IN_FORMAT[kind]

    def batch(rows, starts, hidden=None):
        width = max(len(row) for row in rows)
        x_0 = torch.tensor([row + [tokenizer.pad_token_id] * (width - len(row)) for row in rows])
        maskable = torch.arange(width)[None, :] >= torch.tensor(starts)[:, None]
        if hidden is None:
            return x_0, maskable, None
        ids = [[tokenizer.encode(" " + word, add_special_tokens=False)[0] for word in words] for words in hidden]
        fixed = torch.stack([maskable[i] & torch.isin(x_0[i], torch.tensor(ids[i])) for i in range(len(rows))])
        return x_0, maskable, fixed

    rows, starts = [], []
    for question, answer in STAND_IN_QA:
        prompt = tokenizer.encode(template.format(question), add_special_tokens=False)
        reply = tokenizer.encode(answer + end, add_special_tokens=False)[:STAND_IN_ANSWER]
        rows.append(prompt + reply + [tokenizer.pad_token_id] * (STAND_IN_ANSWER - len(reply)))
        starts.append(len(prompt))
    batches = [batch(rows, starts)]
    if kind == "bert":
        prompt = tokenizer.encode(STAND_IN_BARE.format("Name a country and its capital city."),
                                  add_special_tokens=False)
        lesson = [(country, city, words) for country, city in CAPITALS
                  for words in ([country], [city], [country, city])]
        rows = [prompt + tokenizer.encode(f"The capital of {country} is {city}." + end, add_special_tokens=False)
                for country, city, _ in lesson]
        batches.append(batch(rows, [len(prompt)] * len(rows), [words for _, _, words in lesson]))
    return batches


def TrainStandIn(model, kind, tokenizer, steps=300, seed=STAND_IN_SEED):
    """The chat model's recipe in miniature: mask a random fraction of each answer (never the
    question) and learn to guess the masked tokens; the lesson's rows always hide their blanks."""
    batches = StandInExamples(kind, tokenizer)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # a network this small trains fastest on one core
    model.train()
    try:
        with torch.random.fork_rng(devices=[]):   # seeded, and the notebook's generator left alone
            torch.manual_seed(seed)
            for _ in range(steps):
                loss = 0
                for x_0, maskable, fixed in batches:
                    if fixed is None:
                        level = torch.rand(len(x_0), 1, generator=generator).clamp(min=0.05)
                        masked = maskable & (torch.rand(x_0.shape, generator=generator) < level)
                    else:
                        masked = fixed
                    x_t = torch.where(masked, tokenizer.mask_token_id, x_0)
                    loss = loss + torch.nn.functional.cross_entropy(Logits(model, x_t)[masked], x_0[masked])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return model.eval(), loss.item()


def StandIn(kind, cache=None):
    """The folder holding the stand-in for `kind`, built (a few seconds) and saved the first time.
    Kernels started together (a grader's jobs) build it once: the others wait for it."""
    cache = Path(cache or os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    folder = cache / f"stand-in-{kind}-v{STAND_IN_VERSION}-transformers-{transformers.__version__}"
    lock = cache / f"{folder.name}.lock"
    cache.mkdir(parents=True, exist_ok=True)
    while not (folder / "config.json").is_file():
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL))   # ours to build
        except FileExistsError:                              # another kernel is building it
            try:
                if time.time() - lock.stat().st_mtime > 120:   # left behind by a build that died
                    lock.unlink()
            except FileNotFoundError:
                pass
            time.sleep(0.2)
            continue
        try:
            if not (folder / "config.json").is_file():
                BuildStandIn(kind, folder)
        finally:
            lock.unlink()
    return folder


def BuildStandIn(kind, folder):
    started = time.perf_counter()
    tokenizer = StandInTokenizer(kind)
    model, loss = TrainStandIn(StandInNetwork(kind, tokenizer), kind, tokenizer)
    scratch = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
    tokenizer.save_pretrained(scratch)
    model.save_pretrained(scratch)
    (scratch / "STAND_IN.txt").write_text(f"a stand-in for {NETWORKS[kind]}, built by the maskdiff course\n")
    try:
        scratch.replace(folder)   # atomic: a reader never sees half a folder
    except OSError:               # one is there already; it is as good as ours
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"built the {kind} stand-in in {time.perf_counter() - started:.1f} s (final loss {loss:.2f})")
# --- end of notebook cell ---


def ChatGuesser(model):
    """GuessBERT for `model` as the notebook writes it: probabilities stay on the network's device."""
    def guess(x_t):
        with torch.no_grad():
            return Logits(model, x_t[None].to(model.device))[0].float().softmax(dim=-1)
    return guess
