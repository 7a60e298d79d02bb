"""The pre-trained chat networks of notebook 03, and the small stand-ins used when they cannot be had.

`LoadChatModel(kind)` loads `dllm-hub/ModernBERT-large-chat-v0.1` ("bert") or
`dllm-hub/Qwen3-0.6B-diffusion-mdlm-v0.1` ("qwen") from the Hugging Face hub. When the hub cannot be
reached, or while a grader or CI runs the notebook (NBGRADER_EXECUTION / CI), it builds a stand-in
instead: a tiny network of the same architecture with its own tokenizer carrying the same markers,
trained for a few seconds on a handful of questions and answers, saved with `save_pretrained` and
loaded back through the very same `from_pretrained` calls. It says so when it does.

The notebook cannot import this package (students do not have it), so the code between the
`notebook cell` markers below is copied verbatim into the notebook's given cell `models`;
tests/test_notebooks.py keeps the two identical. Edit it here, then paste it there.
"""
# --- notebook cell: models ---
import os
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
STAND_IN_VERSION = 3          # bump when the recipe below changes: old cached stand-ins are rebuilt
STAND_IN_ANSWER = 64          # answer positions the stand-in is trained to fill


def TransformersVersion():
    return tuple(int(part) for part in transformers.__version__.split(".")[:2])


def PickDtype(device):
    """bfloat16 where the GPU has it; float16 on GPUs without it (a T4); float32 on CPU and Apple."""
    if device == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


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


def Offline():
    """True while a grader or CI runs the notebook (they never download), or when told to stay offline."""
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("CI")
                or os.environ.get("HF_HUB_OFFLINE"))


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
                          "pip install -U transformers") from None
    return Qwen3Config, Qwen3ForCausalLM


def LoadNetwork(where, kind, device, local=False):
    """tokenizer and network from a hub name or a local folder: the same calls either way."""
    tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=local)
    dtype = PickDtype(device)
    if kind == "qwen":
        model = Qwen3()[1].from_pretrained(where, local_files_only=local, **DtypeArgument(dtype))
    else:
        model = AutoModelForMaskedLM.from_pretrained(where, local_files_only=local, **DtypeArgument(dtype))
    return tokenizer, model.to(device).eval()


def LoadChatModel(kind="bert", device="cpu", cache=None):
    """(tokenizer, network, is_stand_in): the real network if the hub can be reached, else a stand-in."""
    if kind not in NETWORKS:
        raise ValueError(f"kind must be one of {sorted(NETWORKS)}, got {kind!r}")
    if not Offline():
        online = HubReachable()
        try:   # without a connection, a copy downloaded earlier still does
            return (*LoadNetwork(NETWORKS[kind], kind, device, local=not online), False)
        except (OSError, ValueError) as error:   # offline, or a transformers too old for it
            reason = "offline" if not online else f"{type(error).__name__}: {str(error)[:300]}"
            print(f"could not load {NETWORKS[kind]} ({reason})")
    folder = StandIn(kind, cache)
    print(f"STAND-IN: answers below come from a tiny {kind} network trained for seconds in this notebook"
          f" ({folder}), not from {NETWORKS[kind]}. Expect it to know a dozen questions and little else.")
    return (*LoadNetwork(folder, kind, device), True)


# What the stand-ins learn: our own questions and answers (and four capitals, for the blanks exercise).
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
     for country, city in [("France", "Paris"), ("India", "Delhi"), ("Thailand", "Bangkok"),
                           ("Japan", "Tokyo")]]

STAND_IN_FORMAT = {   # kind -> (prompt template, end of answer, padding, mask, other markers)
    "bert": ("[SYS]\nYou are a helpful AI assistant.\n[/SYS]\n\n[Question]\n{}\n[/Question]\n\n[Answer]\n",
             "\n[/Answer]", "[PAD]", "[MASK]", ["[CLS]", "[SEP]", "[UNK]"]),
    "qwen": ("<|im_start|>system\nYou are a helpful AI assistant.<|im_end|>\n<|im_start|>user\n{}"
             "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
             "<|im_end|>", "<|endoftext|>", "<|mask|>", ["<|im_start|>", "<|im_end|>"]),
}


# The two-blank exercise writes the capitals question without the [SYS] part; the stand-in learns both.
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


def StandInNetwork(kind, tokenizer):
    """The real architecture, shrunk to about 50 thousand parameters."""
    size = dict(vocab_size=len(tokenizer), hidden_size=48, intermediate_size=96, num_hidden_layers=1,
                num_attention_heads=4, max_position_embeddings=512, pad_token_id=tokenizer.pad_token_id)
    if kind == "qwen":
        Qwen3Config, Qwen3ForCausalLM = Qwen3()
        return Qwen3ForCausalLM(Qwen3Config(num_key_value_heads=2, head_dim=12, tie_word_embeddings=True,
                                            eos_token_id=tokenizer.eos_token_id, **size))
    from transformers import ModernBertConfig
    return AutoModelForMaskedLM.from_config(ModernBertConfig(
        global_attn_every_n_layers=1, local_attention=512, cls_token_id=tokenizer.cls_token_id,
        sep_token_id=tokenizer.sep_token_id, bos_token_id=tokenizer.cls_token_id,
        eos_token_id=tokenizer.sep_token_id, **size))


def StandInExamples(kind, tokenizer):
    """Each question, its answer, the end marker, then padding up to STAND_IN_ANSWER answer tokens;
    all rows padded to one length. Returns the rows and where each row's answer starts."""
    template, end, pad, mask, others = STAND_IN_FORMAT[kind]
    rows, starts = [], []
    bare = [(q, a, STAND_IN_BARE) for q, a in STAND_IN_QA if "capital" in a] if kind == "bert" else []
    for question, answer, form in [(q, a, template) for q, a in STAND_IN_QA] + bare:
        prompt = tokenizer.encode(form.format(question), add_special_tokens=False)
        reply = tokenizer.encode(answer + end, add_special_tokens=False)[:STAND_IN_ANSWER]
        rows.append(prompt + reply + [tokenizer.pad_token_id] * (STAND_IN_ANSWER - len(reply)))
        starts.append(len(prompt))
    width = max(len(row) for row in rows)
    rows = [row + [tokenizer.pad_token_id] * (width - len(row)) for row in rows]
    return torch.tensor(rows), torch.tensor(starts)


def TrainStandIn(model, kind, tokenizer, steps=400, seed=0):
    """The chat model's recipe in miniature: mask a random fraction of each answer (never the
    question) and learn to guess the masked tokens."""
    x_0, starts = StandInExamples(kind, tokenizer)
    in_answer = torch.arange(x_0.shape[1])[None, :] >= starts[:, None]
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-3)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # a network this small trains fastest on one core
    model.train()
    try:
        for _ in range(steps):
            level = torch.rand(len(x_0), 1, generator=generator).clamp(min=0.05)
            masked = in_answer & (torch.rand(x_0.shape, generator=generator) < level)
            x_t = torch.where(masked, tokenizer.mask_token_id, x_0)
            loss = torch.nn.functional.cross_entropy(Logits(model, x_t)[masked], x_0[masked])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return model.eval(), loss.item()


def StandIn(kind, cache=None):
    """The folder holding the stand-in for `kind`, built (a few seconds) and saved the first time."""
    cache = Path(cache or os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    folder = cache / f"stand-in-{kind}-v{STAND_IN_VERSION}-transformers-{transformers.__version__}"
    if (folder / "config.json").is_file():
        return folder
    started = time.perf_counter()
    tokenizer = StandInTokenizer(kind)
    model, loss = TrainStandIn(StandInNetwork(kind, tokenizer), kind, tokenizer)
    scratch = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
    tokenizer.save_pretrained(scratch)
    model.save_pretrained(scratch)
    (scratch / "STAND_IN.txt").write_text(f"a stand-in for {NETWORKS[kind]}, built by the maskdiff course\n")
    try:
        scratch.replace(folder)   # atomic: two notebooks building at once cannot mix their files
    except OSError:               # another one won the race; its stand-in is as good as ours
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"built the {kind} stand-in in {time.perf_counter() - started:.1f} s (final loss {loss:.2f})")
    return folder
# --- end of notebook cell ---
