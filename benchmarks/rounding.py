"""Rounding against the differences the tests and hidden checks tell apart (issue 61): what another torch
thread count, another batch shape or another honest softmax changes in the numbers compared, beside how far
the compared decisions and values lie from a real difference.

    python benchmarks/rounding.py [--threads 1 2 4]

1. Each thread count in a process of its own (OMP_NUM_THREADS and torch.set_num_threads): a small matmul, a
   sum over a large tensor, softmax, the checks' FakeDenoiser and the untrained TinyDenoiser of
   tests/reference/test_batched.py (its batch against each row alone, at the row's own length), and the
   stand-in scorer's network against its Logits (which runs it on one thread); then every count's numbers
   against one thread's.
2. Honest softmax forms against torch.softmax: log_softmax().exp(), float64, exp / sum.
3. The margins (tests/support/margins.py) along the hidden checks `sample` (notebook 05) and
   `SampleBlocks.blocks` (notebook 06), and along test_batched's two samplers, and the size of the copy term
   that test_scorer's tolerance must tell from rounding.
"""
import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package
from maskdiff_client.denoiser import TinyDenoiser  # noqa: E402
from maskdiff_solutions import batched, grading, revising, scorer  # noqa: E402
from maskdiff_solutions.corpus import StandInStories  # noqa: E402
from maskdiff_solutions.grading.fakes import FakeDenoiser  # noqa: E402
from tests.support import margins  # noqa: E402

REPEATED = " ".join(["the"] * 32)   # test_scorer's text: the copy term at its largest
STORY = "once upon a time , lily went to the park . she saw a big dog and the dog was happy ."


def tiny_case(dtype=torch.float32):
    """test_batched's notebook-05 case: the network, its padded batch and slots, the rows' lengths."""
    torch.manual_seed(0)
    net = TinyDenoiser(30, dim=32, heads=2, layers=2, pad_id=29).eval().to(dtype)
    g = torch.Generator().manual_seed(1)
    lengths = [9, 20, 14, 5]
    prompts = [torch.randint(2, 28, (n,), generator=g) for n in (3, 0, 6, 0)]
    return net, prompts, lengths


@torch.no_grad()
def numbers():
    """Everything compared across thread counts, computed on this process's count."""
    g = torch.Generator().manual_seed(0)
    out = {"matmul [1,16,16]@[16,23]": torch.randn(1, 16, 16, generator=g) @ torch.randn(16, 23, generator=g),
           "sum of [1,64,5000]": (torch.randn(1, 64, 5000, generator=g) * 5).sum().reshape(1)}
    out["softmax [1,64,5000]"] = torch.softmax(torch.randn(1, 64, 5000, generator=g) * 5, -1)
    x = torch.randint(0, 23, (4, 16), generator=g)
    out["FakeDenoiser probabilities"] = batched.candidate_distributions(FakeDenoiser(seed=3), x, [0, 1])
    net, prompts, lengths = tiny_case()
    canvas, _ = batched.prompt_canvas(prompts, lengths, 1, 29)
    whole = batched.candidate_distributions(net, canvas, [29, 1])
    out["TinyDenoiser probabilities"] = whole
    rows = max(float((whole[b, :n] - batched.candidate_distributions(net, canvas[b:b + 1, :n], [29, 1])[0]).abs().max())
               for b, n in enumerate(lengths))
    stand_in = scorer.LoadScorer(StandInStories(), offline=True)
    ids = stand_in.Ids(STORY)
    network = stand_in.model(ids[None]).logits.float()
    logits = stand_in.Logits(ids[None])
    out["scorer network logits"] = network
    return out, {"TinyDenoiser: batch against rows alone": rows,
                 "scorer: network here against Logits (one thread)":
                     float((scorer.MixInCopying(network[0], ids)[None] - logits).abs().max())}


def child(threads, path):
    torch.set_num_threads(threads)
    out, within = numbers()
    torch.save({"out": out, "within": within}, path)


def across_threads(counts, folder):
    saved = {}
    for n in counts:
        path = folder / f"rounding-{n}.pt"
        env = {**os.environ, "OMP_NUM_THREADS": str(n), "MKL_NUM_THREADS": str(n)}
        subprocess.run([sys.executable, __file__, "--child", str(n), str(path)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        saved[n] = torch.load(path)
    first = counts[0]
    for n in counts:
        for name, value in saved[n]["within"].items():
            print(f"  {n} thread(s): {name}: {value:.3g}")
    for n in counts[1:]:
        for name, value in saved[first]["out"].items():
            print(f"  {n} against {first} thread(s): {name}: {float((saved[n]['out'][name] - value).abs().max()):.3g}")


def softmax_forms():
    g = torch.Generator().manual_seed(0)
    for name, logits in (("FakeDenoiser", FakeDenoiser(seed=3)(torch.randint(0, 23, (4, 16), generator=g)).detach()),
                         ("random logits x 5", torch.randn(4, 16, 23, generator=g) * 5)):
        logits = logits.float().index_fill(-1, torch.tensor([0, 1]), -math.inf)
        base = torch.softmax(logits, -1)
        e = (logits - logits.max(-1, keepdim=True).values).exp()
        for form, value in (("log_softmax().exp()", logits.log_softmax(-1).exp()),
                            ("float64", torch.softmax(logits.double(), -1).float()),
                            ("exp / sum", e / e.sum(-1, keepdim=True))):
            print(f"  {name}: softmax against {form}: {float((base - value).abs().max()):.3g}")


def decision_margins():
    for check, function in (("sample", batched.sample), ("SampleBlocks.blocks", revising.SampleBlocks)):
        with margins.recorded() as seen:
            passed = grading.evaluate(check, function).passed
        print(f"  check {check} (reference {'passes' if passed else 'FAILS'}): lead {seen.lead:.3g}, gap {seen.gap:.3g}")
    with margins.recorded() as seen:
        for seed in range(5):   # test_batched_sampler_equals_row_by_row
            g = torch.Generator().manual_seed(seed)
            lengths = torch.randint(3, 30, (7,), generator=g).tolist()
            prompts = [torch.randint(2, 23, (int(torch.randint(0, n, (1,), generator=g)),), generator=g)
                       for n in lengths]
            batched.sample(FakeDenoiser(seed=seed), prompts, lengths, 6, 1, 0)
            batched.sample_rowwise(FakeDenoiser(seed=seed), prompts, lengths, 6, 1, 0)
    print(f"  test_batched, FakeDenoiser seeds 0-4: lead {seen.lead:.3g}, gap {seen.gap:.3g}")
    net, prompts, lengths = tiny_case()
    with margins.recorded() as seen:
        batched.sample(net, prompts, lengths, 6, 1, 29, [29, 1])
    print(f"  test_batched, notebook 05's TinyDenoiser case: lead {seen.lead:.3g}, gap {seen.gap:.3g}")
    stand_in = scorer.LoadScorer(StandInStories(), offline=True)
    ids = stand_in.Ids(REPEATED)
    with torch.no_grad():
        network = stand_in.model(ids[None]).logits.float()[0]
    mixed = scorer.MixInCopying(network, ids)
    print(f"  test_scorer: the copy term moves the logits by {float((mixed - network).abs().max()):.3g}, their "
          f"log-softmax by {float((mixed.log_softmax(-1) - network.log_softmax(-1)).abs().max()):.3g}")


def main():
    if sys.argv[1:2] == ["--child"]:
        return child(int(sys.argv[2]), sys.argv[3])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2, 4])
    args = parser.parse_args()
    import tempfile
    print(f"load {os.getloadavg()[0]:.2f}, torch {torch.__version__}")
    print("1. across torch thread counts (largest absolute difference)")
    with tempfile.TemporaryDirectory() as folder:
        across_threads(args.threads, Path(folder))
    print("2. honest softmax forms (largest absolute difference in probability)")
    softmax_forms()
    torch.set_num_threads(1)
    print("3. what those must stay far below: decision margins and the copy term")
    decision_margins()
    print(json.dumps({"load_after": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
