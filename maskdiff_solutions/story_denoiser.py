"""The story denoiser of notebooks 05 and 06 under the grader, and the copy a grading machine keeps.

Ten steps of the full denoiser (what fitted a grader's cell before) leave it writing `. . . .`: every
story sampler of the two notebooks then wrote 32 full stops, on top of the degenerate `the the … the`
of notebook 06's entropy figure. Under the grader the given cell `story_denoiser` therefore builds a
smaller denoiser (QUICK_SIZE), which learns the stand-in stories in QUICK_STEPS steps. A grading
machine trains it once, before any kernel starts (`KeepQuickDenoiser`, from `course.layout.warm_caches`),
exactly as the cell would with the reference DiffusionLoss, and keeps it in the stand-in cache, which
kernels read; the cell loads that file when it is there, and otherwise trains the denoiser itself
(about ten seconds on one CPU thread). It always says which. The full (Colab) path is unchanged.

The notebooks cannot import this package, so the segment between the `notebook cell` markers below
is pasted verbatim into both notebooks' given cell `story_denoiser`, which goes on to build, load or
train the denoiser (tests/course/term/test_given_cells.py compares the definitions).
"""
import hashlib
import os
from pathlib import Path

import torch

from maskdiff_client.denoiser import TinyDenoiser

from .corpus import MakeCorpus, StandInStories
from .loss import DiffusionLoss


# --- notebook cell `story_denoiser` (which also imports hashlib and Path) ---------------------------
QUICK_SIZE = dict(dim=64, heads=4, layers=2)   # under the grader: a smaller denoiser, which learns in seconds
QUICK_STEPS = 300        # its training steps: about 10 s on one CPU thread
QUICK_LR = 3e-3
KEPT_VERSION = 1         # bump when the quick recipe changes: grading machines then train theirs again


def KeptDenoiser(tokens, vocab_size, cache=None):
    """The file in which a grading machine keeps the quick denoiser, trained once for this corpus (its
    tokens) and vocabulary as this cell would train it, from seed 0, with the course's DiffusionLoss.
    Where there is none (a grader that made none, CI), the cell trains the denoiser itself."""
    cache = Path(cache or os.environ.get("MASKDIFF_CACHE") or Path.home() / ".cache" / "maskdiff")
    digest = hashlib.sha256(tokens.numpy().tobytes()).hexdigest()[:12]
    return cache / f"story-denoiser-v{KEPT_VERSION}-seed0-{vocab_size}-words-text-{digest}.pt"


def LoadKept(denoiser, file):
    """Load the weights kept in `file` into `denoiser`: True, or False (saying why) where it cannot."""
    try:
        where = next(denoiser.parameters()).device
        denoiser.load_state_dict(torch.load(file, map_location=where, weights_only=True))
    except Exception as err:  # a damaged or foreign file: the cell trains the denoiser instead
        print(f"could not load {file} ({type(err).__name__}: {err}); training the denoiser here instead")
        return False
    return True


# --- end of notebook cell ---


# The grader's, not the notebooks'.
def TrainQuickDenoiser(steps=QUICK_STEPS):
    """(the quick denoiser, the corpus): trained as the cell trains it under the grader (the stand-in
    stories, seed 0, one thread, Train's Adam and batches), with the reference DiffusionLoss."""
    stories = MakeCorpus(StandInStories())
    vocab_size = len(stories.vocab) + 1   # and <pad>
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # as the set-up cell does under the grader: a kernel's very numbers
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            net = TinyDenoiser(vocab_size, pad_id=vocab_size - 1, **QUICK_SIZE)
            optimizer = torch.optim.Adam(net.parameters(), lr=QUICK_LR)
            for _ in range(steps):
                optimizer.zero_grad()
                DiffusionLoss(net, stories.GetBatch(64, 32), stories.mask).backward()
                optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return net.eval(), stories


def KeepQuickDenoiser(cache):
    """The file of the quick denoiser in `cache`, trained (about 10 s) and written whole the first
    time. Two graders that train it at once write alike copies, one after the other."""
    stories = MakeCorpus(StandInStories())
    return Kept(KeptDenoiser(stories.tokens, len(stories.vocab) + 1, cache), TrainQuickDenoiser)


def Kept(file, train):
    """`file`, holding the weights of train()'s network: trained and written whole the first time (notebook
    07's block denoiser is kept the same way). Two graders that train at once write alike copies."""
    if not file.is_file():
        net, _ = train()
        file.parent.mkdir(parents=True, exist_ok=True)
        scratch = file.with_name(f"{file.name}.{os.getpid()}.partial")
        torch.save(net.state_dict(), scratch)
        os.replace(scratch, file)   # a kernel never reads half a file
    return file
