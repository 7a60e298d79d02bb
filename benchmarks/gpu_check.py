"""Notebook 03's real-size networks on a CUDA GPU (a T4 on Colab): dtype, memory, time per answer.

Builds ModernBERT-large and Qwen3-0.6B from the configurations in benchmarks/real_size.py with random
weights, in float16 (as notebook 03 runs them on a T4; --dtype auto asks the notebook's PickDtype),
and reports for each

- what the notebook's PickDtype chooses on this GPU, from its compute capability;
- whether the float16 logits are finite on a probe (the notebook falls back to float32 if not);
- parameters and peak GPU memory;
- seconds per network call, and per sampling step with the guesses left on the GPU (only the chosen
  ids cross to the CPU) against the course page's way (the whole table copied to the CPU first);
- seconds per 64-token answer: Chat's loop, T = 64, the stochastic step sampling on the GPU;
- that SamplesOnDevice accepts the notebook's reference steps and turns down a step that mixes devices
  (notebook 2's style, which samples on the CPU), so GuessBERT hands that one CPU guesses.

    python benchmarks/gpu_check.py [--kinds bert qwen] [--dtype float16|auto] [--answers 3]

Exits with status 2, saying so, where there is no CUDA device.
"""
import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_size import MASK_IDS, Build, Load, Sentence  # noqa: E402


def CpuStyleUndiffuse(x_t, t, GuessX0, mask):
    """Notebook 2's style, written for CPU guesses: mixes devices when p is on the GPU."""
    p = GuessX0(x_t).float()
    guess = torch.multinomial(p, 1).squeeze(1)
    reveal = (x_t == mask) & (torch.rand(len(x_t)) < 1.0 / t)
    return torch.where(reveal, guess, x_t)


def Timed(function, repeats=5):
    function()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(repeats):
        function()
    torch.cuda.synchronize()
    return (time.perf_counter() - started) / repeats


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", nargs="+", default=["bert", "qwen"])
    parser.add_argument("--dtype", default="float16", choices=["float16", "auto"])
    parser.add_argument("--answers", type=int, default=3)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA device here: gpu_check.py not run")
        sys.exit(2)
    from maskdiff_solutions import models
    # the reference steps, as notebook 03 carries them: sample where p lives, move the ids to x_t's device
    from maskdiff_solutions.sampling import Undiffuse, UndiffuseGreedy
    device = "cuda"
    capability = torch.cuda.get_device_capability()
    chosen = models.PickDtype(device)
    dtype = torch.float16 if args.dtype == "float16" else chosen
    print(f"{torch.cuda.get_device_name()} (compute capability {capability[0]}.{capability[1]}); "
          f"torch {torch.__version__}; PickDtype chooses {chosen}; running {dtype}; {Load()}")
    print(f"SamplesOnDevice: reference steps {models.SamplesOnDevice(device, Undiffuse, UndiffuseGreedy)}, "
          f"notebook-2-style step {models.SamplesOnDevice(device, CpuStyleUndiffuse)} (False expected)")
    for kind in args.kinds:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        model = Build(kind, device, dtype)
        x = Sentence(kind, 100)
        with torch.no_grad():
            finite = bool(torch.isfinite(models.Logits(model, x[None].to(device))).all())

        def guess(x_t):
            with torch.no_grad():
                return models.Logits(model, x_t[None].to(device))[0].float().softmax(dim=-1)
        call = Timed(lambda: guess(x))
        p = guess(x)
        on_gpu = Timed(lambda: torch.multinomial(p, 1).squeeze(1).cpu())
        via_cpu = Timed(lambda: torch.multinomial(p.cpu(), 1).squeeze(1))
        tempered = Timed(lambda: torch.multinomial(torch.softmax(torch.log(p) / 0.7, dim=-1), 1).cpu())
        torch.manual_seed(0)
        started = time.perf_counter()
        for _ in range(args.answers):
            y = x.clone()
            for t in range(64, 0, -1):
                y = Undiffuse(y, t, guess, MASK_IDS[kind])
        torch.cuda.synchronize()
        answer = (time.perf_counter() - started) / args.answers
        started = time.perf_counter()
        y = x.clone()
        for t in range(64, 0, -1):
            y = UndiffuseGreedy(y, t, guess, MASK_IDS[kind])
        torch.cuda.synchronize()
        greedy = time.perf_counter() - started
        print(f"\n{kind}: {model.num_parameters() / 1e6:.1f} M parameters in {model.dtype}; logits finite: {finite}; "
              f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
        print(f"  network call (L = 100): {1000 * call:.1f} ms; sampling step on the GPU {1000 * on_gpu:.1f} ms "
              f"(with a temperature {1000 * tempered:.1f} ms) against {1000 * via_cpu:.1f} ms via the CPU")
        print(f"  one 64-token answer, T = 64: stochastic {answer:.2f} s, greedy {greedy:.2f} s")
        del model, p
    print(f"\n{Load()}")


if __name__ == "__main__":
    main()
