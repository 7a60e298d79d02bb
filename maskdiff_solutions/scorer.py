"""The scorer of notebook 06: a small causal language model whose perplexity says how natural a sample reads.

`LoadScorer(text, device)` loads `roneneldan/TinyStories-33M` (GPT-Neo, trained on the stories our
corpus comes from) with `AutoTokenizer` / `AutoModelForCausalLM.from_pretrained`. Offline (a grader,
CI, `offline=True`) or when the download fails, it builds a stand-in in a few seconds: a word-level
tokenizer over the words of `text` (the notebook's `story_text`) and a tiny GPT-2 trained on that text
(seeded; SCORER_STEPS steps of one thread, cut short only past SCORER_SECONDS, far beyond them, so
that a loaded grader builds the same stand-in as an idle one), saved with `save_pretrained` into
the cache folder and loaded back through the very same `from_pretrained` calls. A network that small
never learns what a large one does in context, that a word is followed by what followed it earlier in
the text (the copying that rates `the the the` or ReMDM's `love love love` as predictable), so the
stand-in's `Logits` mix in a copy term that does just that (`MixInCopying`). It always says which
one it loaded, and a stand-in is announced as a STAND-IN. A stand-in already in the cache folder
(same recipe, same text, same transformers) is loaded, not rebuilt.

The notebook cannot import this package (students do not have it), so the segment between the
`notebook cell:` markers below is pasted verbatim into notebook 06's given cell `scorer`
(tests/course/term/test_given_cells.py keeps the two identical). Edit it here, then paste it there.
Nothing may follow the end marker: the test compares everything after the start marker.
"""
# --- notebook cell: scorer ---
#@title The scorer: a small language model that reads samples (run it; reading it is optional)
import hashlib
import os
import shutil
import tempfile
import time
import types
from pathlib import Path

import torch

SCORER = "roneneldan/TinyStories-33M"   # GPT-Neo, 33 million parameters, trained on TinyStories
SCORER_VERSION = 3        # bump when the stand-in's recipe changes: cached stand-ins are then rebuilt
SCORER_SEED = 0           # the stand-in's weights and training draw only from this seed
SCORER_STEPS = 100        # training steps of the stand-in (about 2 s; fewer only past SCORER_SECONDS)
SCORER_SECONDS = 10.0     # a safety net far past 100 steps: the same stand-in on a grader, loaded or not
SCORER_WORDS = 2000       # the stand-in's vocabulary: the most common words of the text, and <unk>
SCORER_CHARACTERS = 400_000   # the stand-in reads at most this much of the text
SCORER_EOS = "<|endoftext|>"  # separates the stories, as in TinyStories
SCORER_COPY_PRIOR = 0.1   # the stand-in's belief, before reading a text, that the text copies itself
SCORER_COPY_SLIP = 0.1    # the share the copy term leaves to the network's guess when it copies


def ScorerTokenizer(text, size=SCORER_WORDS):
    """A word-level tokenizer over the `size` most common words of `text` (lower case; punctuation
    marks are words of their own), with <unk> for every other word and <|endoftext|> between stories."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    words = Tokenizer(models.WordLevel(unk_token="<unk>"))
    words.normalizer = normalizers.Lowercase()
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.train_from_iterator(text.split(SCORER_EOS), trainers.WordLevelTrainer(
        vocab_size=size + 2, special_tokens=["<unk>", SCORER_EOS], show_progress=False))
    return PreTrainedTokenizerFast(tokenizer_object=words, unk_token="<unk>", eos_token=SCORER_EOS,
                                   bos_token=SCORER_EOS, clean_up_tokenization_spaces=False)


def ScorerNetwork(tokenizer, seed=SCORER_SEED):
    """A GPT-2 of 0.1 to 0.3 million parameters (two layers, width 64); its initial weights come from
    `seed` alone (the global random generator is left as it was). No dropout: training depends on the
    seed only."""
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=512, n_embd=64, n_layer=2, n_head=4,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return GPT2LMHeadModel(config)


def TrainScorer(model, tokens, steps=SCORER_STEPS, seconds=SCORER_SECONDS, seed=SCORER_SEED, batch=8, length=64,
                lr=5e-3):
    """Next-word training on random stretches of `tokens` (a 1-D tensor of ids), on one thread, for
    `steps` steps or until `seconds` have passed, whichever comes first. Returns (model, steps done, loss)."""
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 10))
    threads, started, done, loss = torch.get_num_threads(), time.perf_counter(), 0, float("nan")
    torch.set_num_threads(1)   # a network this small trains fastest on one core
    model.train()
    try:
        while done < steps and time.perf_counter() - started < seconds:
            start = torch.randint(len(tokens) - length, (batch, 1), generator=generator)
            x = tokens[start + torch.arange(length)]
            logits = model(x).logits[:, :-1]
            step_loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                                          x[:, 1:].reshape(-1))
            optimizer.zero_grad()
            step_loss.backward()
            optimizer.step()
            schedule.step()
            done, loss = done + 1, step_loss.item()
    finally:
        torch.set_num_threads(threads)
    return model.eval(), done, loss


def MixInCopying(logits, ids, prior=SCORER_COPY_PRIOR, slip=SCORER_COPY_SLIP):
    """Log-probabilities [n, V] of each next token: the network's guess (its `logits` [n, V] for the
    ids [n]) mixed with a copy term's, which expects the token at i to be followed by what followed it
    earlier in the text (where it did not occur earlier, the copy term is the network's guess; elsewhere
    it keeps a `slip` of it). Bayes' rule mixes the two: each weighs as much as it is believed from
    `prior` and how well it foresaw the tokens so far, so copying wins a text that repeats itself and
    gives way to the network on text that does not. Position i reads ids[: i + 1] only."""
    import torch.nn.functional as F
    network = logits.float().log_softmax(-1)
    n, size = network.shape
    ids = torch.as_tensor(ids).long()
    place = torch.arange(n)
    before = (ids[:, None] == ids[None, :]) & (place[None, :] < place[:, None])   # [i, j]: j < i, same token
    followers = before[:, : n - 1].float() @ F.one_hot(ids[1:], size).float()     # what came after each j
    seen = followers.sum(-1, keepdim=True)
    copying = torch.where(seen > 0, ((1 - slip) * followers / seen.clamp(min=1) + slip * network.exp()).log(),
                          network)
    foresaw = (copying[:-1] - network[:-1]).gather(1, ids[1:, None])[:, 0]   # log-likelihood ratios
    belief = torch.logit(torch.tensor(prior)) + torch.cat([torch.zeros(1), foresaw.cumsum(0)])
    return torch.logaddexp(F.logsigmoid(belief)[:, None] + copying, F.logsigmoid(-belief)[:, None] + network)


def BuildScorer(text, folder, seed=SCORER_SEED, steps=SCORER_STEPS, seconds=SCORER_SECONDS):
    """Build the stand-in from `text`, save it with save_pretrained into `folder`; returns what it did."""
    import transformers
    started = time.perf_counter()
    text = text[:SCORER_CHARACTERS]
    tokenizer = ScorerTokenizer(text)
    tokens = torch.tensor(tokenizer(text, add_special_tokens=False)["input_ids"])
    if len(tokens) < 200:
        raise ValueError(f"the text has only {len(tokens)} words: too little to train a scorer on")
    model, done, loss = TrainScorer(ScorerNetwork(tokenizer, seed), tokens, steps, seconds, seed)
    made = (f"a {model.num_parameters() / 1e6:.1f} million parameter GPT-2 over {len(tokenizer)} words, "
            f"trained {done} steps (loss {loss:.2f}) in {time.perf_counter() - started:.1f} s "
            f"on {len(tokens)} words of the stories")
    folder = Path(folder)
    scratch = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
    shutil.rmtree(scratch, ignore_errors=True)
    tokenizer.save_pretrained(scratch)
    model.save_pretrained(scratch)
    (scratch / "STAND_IN.txt").write_text(f"a stand-in for {SCORER}: {made} (recipe {SCORER_VERSION}, "
                                          f"seed {seed}, transformers {transformers.__version__})\n")
    try:
        scratch.replace(folder)   # at once: a reader never sees half a folder
    except OSError:               # another kernel saved one first; it is as good as ours
        shutil.rmtree(scratch, ignore_errors=True)
    return made


def ScorerFolder(text, cache, seed=SCORER_SEED):
    """Where the stand-in for this text, recipe, seed and transformers version is kept."""
    import transformers
    digest = hashlib.sha256(text[:SCORER_CHARACTERS].encode("utf-8", "replace")).hexdigest()[:12]
    return Path(cache) / f"v{SCORER_VERSION}-seed{seed}-text-{digest}-transformers-{transformers.__version__}"


def HubAnswers(timeout=5):
    """One quick request: an offline machine then skips the hub client's retries (close to a minute)."""
    import urllib.error
    import urllib.request
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return False
    try:
        urllib.request.urlopen(urllib.request.Request("https://huggingface.co", method="HEAD"), timeout=timeout)
    except urllib.error.HTTPError:
        return True     # it answered, if grumpily
    except OSError:
        return False
    return True


# The stand-in is kept in the temporary folder, one per user: never beside the notebook, where a
# course's source folder would take it for a file of the assignment (and copy it into the release).
STAND_IN_CACHE = Path(tempfile.gettempdir()) / f"scorer-stand-in-{getattr(os, 'getuid', lambda: 'user')()}"


def LoadScorer(text, device="cpu", name=SCORER, offline=False, cache=STAND_IN_CACHE, seconds=SCORER_SECONDS):
    """The scorer as a namespace: tokenizer, model (eval mode, on `device`), source (one line: what was
    loaded), Ids(text) -> 1-D long tensor of its token ids (no special tokens added) and
    Logits(ids) -> [1, n, V] float logits on the CPU for a [1, n] tensor of ids (no gradient).
    Not offline: the network `name` (from the Hugging Face hub, or the copy downloaded earlier when the
    hub cannot be reached). Offline, or when that fails: a stand-in trained on `text` for at most
    `seconds` (built once, then kept in the folder `cache`), whose Logits are the model's with the copy
    term mixed in (MixInCopying)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    where, source = name, None
    if offline:
        reason = "offline: no download"
    else:
        online = HubAnswers()
        try:
            tokenizer = AutoTokenizer.from_pretrained(where, local_files_only=not online)
            model = AutoModelForCausalLM.from_pretrained(where, local_files_only=not online)
            source = (f"{name}, {model.num_parameters() / 1e6:.0f} million parameters on {device}"
                      + ("" if online else " (the copy downloaded earlier: the hub cannot be reached)"))
        except Exception as error:   # no connection, no such network, a transformers that cannot read it
            reason = (f"could not load {name}{'' if online else ' (the hub cannot be reached)'}: "
                      f"{type(error).__name__}: {' '.join(str(error).split())[:300]}")
    copies = source is None   # the stand-in needs the copy term; a large network copies on its own
    if source is None:
        where = ScorerFolder(text, cache)
        made = "kept from an earlier run"
        if not (where / "config.json").is_file():
            made = "built now: " + BuildScorer(text, where, seconds=seconds)
        tokenizer = AutoTokenizer.from_pretrained(where)
        model = AutoModelForCausalLM.from_pretrained(where)
        source = (f"STAND-IN scorer ({reason}): a tiny word-level GPT-2 trained on this notebook's stories, "
                  f"with a copy term that expects a word to be followed by what followed it earlier in the "
                  f"text, not {name} ({made}; {where}). Its perplexities compare samples with one another; "
                  f"they are not comparable with {name}'s")
    model = model.float().to(device).eval()
    longest = getattr(model.config, "max_position_embeddings", None) or 2048
    tiny = model.device.type == "cpu" and model.num_parameters() < 5_000_000   # fastest on one thread

    def Ids(text):
        return torch.tensor(tokenizer(text, add_special_tokens=False)["input_ids"], dtype=torch.long)

    def Logits(ids):
        ids = torch.as_tensor(ids)
        if ids.dim() != 2 or ids.shape[0] != 1 or ids.shape[1] > longest:
            raise ValueError(f"the scorer reads a [1, n] tensor of ids with n <= {longest}, "
                             f"got shape {tuple(ids.shape)}")
        threads = torch.get_num_threads()
        torch.set_num_threads(1 if tiny else threads)
        try:
            with torch.no_grad():
                logits = model(ids.long().to(model.device)).logits.float().cpu()
                return MixInCopying(logits[0], ids[0].cpu())[None] if copies else logits
        finally:
            torch.set_num_threads(threads)

    print(f"scorer: {source}")
    return types.SimpleNamespace(tokenizer=tokenizer, model=model, source=source, Ids=Ids, Logits=Logits)
# --- end of notebook cell ---
