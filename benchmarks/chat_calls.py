"""Network calls per answer for notebook 03's faster sampler, next to the plain loop (T calls).

Runs offline on the bert stand-in (the real network cannot be downloaded here): stochastic sampling,
T = 64, answer_length = 64, the question the notebook measures. Also prints what caching alone should
give when the answer has n masks, 1 + (T - 1)(1 - (1 - 1/T)^n) (each mask is revealed at a step drawn
uniformly from 1..T; a call is needed after every step that revealed something), and checks that the
faithful variants return the plain loop's answer under the same seed.

    python benchmarks/chat_calls.py [--runs 200] [--T 64] [--answer-length 64]
"""
import argparse
import time

import torch

from maskdiff_solutions import chat, faster, models
from maskdiff_solutions.sampling import UndiffuseGreedy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--T", type=int, default=64)
    parser.add_argument("--answer-length", type=int, default=64)
    parser.add_argument("--question", default="Why is the sky blue?")
    args = parser.parse_args()
    T, n = args.T, args.answer_length

    torch.set_num_threads(1)
    tokenizer, network = models.LoadNetwork(models.StandIn("bert"), "bert", "cpu")
    faster.use(tokenizer, lambda x: models.Logits(network, x[None])[0].detach().float().softmax(-1))

    variants = {"plain loop": dict(remember=False, stop=False),
                "remember": dict(stop=False),
                "remember + stop": dict(),
                "+ confident 0.9 (not faithful)": dict(step=faster.UndiffuseConfident),
                "greedy, remember + stop": dict(step=UndiffuseGreedy)}
    print(f"stand-in bert, question {args.question!r}, T = {T}, answer_length = {n}, {args.runs} answers each")
    for name, options in variants.items():
        started = time.perf_counter()
        calls = torch.tensor([float(faster.ChatFast(args.question, n, T, **options)[1])
                              for _ in range(args.runs)])
        print(f"{name:32s} {calls.mean():6.2f} calls per answer = {calls.mean() / T:.3f} T "
              f"(sd {calls.std():.2f}; {1000 * (time.perf_counter() - started) / args.runs:.0f} ms per answer)")
    print(f"theory, remember alone: {1 + (T - 1) * (1 - (1 - 1 / T) ** n):.2f} calls = "
          f"{(1 + (T - 1) * (1 - (1 - 1 / T) ** n)) / T:.3f} T")
    same = 0
    for seed in range(args.runs):
        torch.manual_seed(seed)
        plain = chat.Chat(args.question, n, T)
        torch.manual_seed(seed)
        same += faster.ChatFast(args.question, n, T)[0] == plain
    print(f"remember + stop gave the plain loop's answer under the same seed in {same} of {args.runs} runs")


if __name__ == "__main__":
    main()
