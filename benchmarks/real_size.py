"""Notebook 03's real networks at their real size, with random weights, on this machine's CPU.

The hub is unreachable here, so the two networks are built from their published configurations
(written out below) with random weights: ModernBERT-large (what dllm-hub/ModernBERT-large-chat-v0.1
fine-tunes) and Qwen3-0.6B (what dllm-hub/Qwen3-0.6B-diffusion-mdlm-v0.1 fine-tunes). Their speed and
memory do not depend on the weights. For each it reports

- parameters, and the memory the weights take in float32, bfloat16 and float16;
- seconds per network call (one guess, as GuessBERT makes it) on a sentence of --length tokens
  (a prompt and a 64-token answer is about 100), median of --calls, in float32 (and in bfloat16 with
  --bf16: CPUs without bf16 arithmetic are slow at it);
- milliseconds per sampling step from the (L, vocabulary) table: multinomial as Undiffuse draws it,
  and with a temperature;
- what that means for notebook 03 on a CPU: one 64-step answer, and the notebook's network calls.

    python benchmarks/real_size.py [--kinds bert qwen] [--length 100] [--calls 5] [--threads N] [--bf16]

Prints the load average (os.getloadavg) before and after: the machine may be shared.
benchmarks/gpu_check.py runs the same networks in float16 on a CUDA GPU.
"""
import argparse
import os
import statistics
import time

import torch
import transformers

# The published config.json of each, the values that shape the network (the rest are defaults).
CONFIGS = {
    "bert": dict(  # answerdotai/ModernBERT-large
        model_type="modernbert", vocab_size=50368, hidden_size=1024, intermediate_size=2624,
        num_hidden_layers=28, num_attention_heads=16, max_position_embeddings=8192,
        global_attn_every_n_layers=3, local_attention=128, global_rope_theta=160000.0,
        local_rope_theta=10000.0, hidden_activation="gelu", norm_eps=1e-5, norm_bias=False,
        mlp_bias=False, attention_bias=False, decoder_bias=True, initializer_range=0.02,
        initializer_cutoff_factor=2.0, pad_token_id=50283, mask_token_id=50284, cls_token_id=50281,
        sep_token_id=50282, bos_token_id=50281, eos_token_id=50282, tie_word_embeddings=True),
    "qwen": dict(  # Qwen/Qwen3-0.6B
        model_type="qwen3", vocab_size=151936, hidden_size=1024, intermediate_size=3072,
        num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=8, head_dim=128,
        max_position_embeddings=40960, rope_theta=1000000.0, rms_norm_eps=1e-6, hidden_act="silu",
        attention_bias=False, tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645,
        initializer_range=0.02),
}
MASK_IDS = {"bert": 50284, "qwen": 151669}   # [MASK]; <|mask|> sits in Qwen3's spare vocabulary rows
PUBLISHED_PARAMETERS = {"bert": 395.8e6, "qwen": 596.0e6}
# Network calls in one full-mode run of notebook 03's solution: capitals 10 * (1 + 20); visible tests
# about 32; answers with T = 64: 1 + 6 + 7 (show, more questions, greedy), 12 at four temperatures;
# fewer steps 2 * (64 + 32 + 16 + 4 + 1); the optional fewer-calls section 20 answers with each of
# 64, ~41, ~40 and ~21 calls, and 2 more answers.
NOTEBOOK_CALLS = 10 * 21 + 32 + (1 + 6 + 7 + 12) * 64 + 2 * 117 + 20 * (64 + 41 + 40 + 21) + 2 * 64


def Build(kind, device="cpu", dtype=torch.float32, seed=0):
    """The real-size network with random weights (seeded), on `device` in `dtype`, evaluation mode."""
    from transformers import AutoConfig, AutoModelForMaskedLM
    settings = dict(CONFIGS[kind])
    config = AutoConfig.for_model(settings.pop("model_type"), **settings)
    torch.manual_seed(seed)
    if kind == "qwen":
        from transformers import Qwen3ForCausalLM
        model = Qwen3ForCausalLM(config)
    else:
        model = AutoModelForMaskedLM.from_config(config)
    return model.to(device=device, dtype=dtype).eval()


def Sentence(kind, length, answer=64, seed=0):
    """A prompt of random ordinary tokens followed by `answer` masks: what Chat hands the network."""
    generator = torch.Generator().manual_seed(seed)
    prompt = torch.randint(1000, 30000, (length - answer,), generator=generator)
    return torch.cat([prompt, torch.full((answer,), MASK_IDS[kind])])


def Seconds(function, calls):
    """Median seconds of `calls` runs, after one warm-up run."""
    function()
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def Load():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", nargs="+", default=["bert", "qwen"], choices=sorted(CONFIGS))
    parser.add_argument("--length", type=int, default=100)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--bf16", action="store_true", help="also time bfloat16 on the CPU")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from maskdiff_solutions.models import Logits
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, {args.threads} threads, "
          f"{os.cpu_count()} cores; {Load()}")
    for kind in args.kinds:
        started = time.perf_counter()
        model = Build(kind)
        built = time.perf_counter() - started
        n = model.num_parameters()
        print(f"\n{kind}: {n / 1e6:.1f} M parameters (published {PUBLISHED_PARAMETERS[kind] / 1e6:.1f} M), "
              f"built with random weights in {built:.0f} s")
        print("  weights: " + ", ".join(f"{name} {n * size / 2**30:.2f} GiB" for name, size in
                                        (("float32", 4), ("bfloat16", 2), ("float16", 2))))
        x = Sentence(kind, args.length)[None]
        with torch.no_grad():
            per_call = Seconds(lambda: Logits(model, x), args.calls)
            print(f"  one network call, L = {args.length}, float32: {per_call:.2f} s (median of {args.calls})")
            if args.bf16:
                half = model.to(torch.bfloat16)
                print(f"  one network call, L = {args.length}, bfloat16: "
                      f"{Seconds(lambda: Logits(half, x), args.calls):.2f} s")
                model = half.to(torch.float32)
            p = Logits(model, x)[0].float().softmax(dim=-1)
        sample = Seconds(lambda: torch.multinomial(p, 1), args.calls)
        tempered = Seconds(lambda: torch.multinomial(torch.softmax(torch.log(p) / 0.7, dim=-1), 1), args.calls)
        greedy = Seconds(lambda: p.max(dim=-1), args.calls)
        print(f"  one sampling step from the ({args.length}, {p.shape[1]}) table: multinomial {1000 * sample:.0f} ms, "
              f"with a temperature {1000 * tempered:.0f} ms, greedy (max) {1000 * greedy:.0f} ms; "
              f"the table is {p.numel() * 4 / 2**20:.0f} MiB")
        print(f"  on this CPU: one 64-step answer {64 * (per_call + sample):.0f} s; notebook 03 in full mode "
              f"(about {NOTEBOOK_CALLS} calls) {NOTEBOOK_CALLS * (per_call + sample) / 60:.0f} min")
        del model, p
    print(f"\n{Load()}")


if __name__ == "__main__":
    main()
