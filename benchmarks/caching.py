"""Notebook 07's caches measured once (issue 55), on this CPU, one torch thread: on the quick story
denoiser (notebooks 05 and 06), the share of tokens Fast-dLLM's prefix and dual caches write as the
uncached block sampler does and the mean change of the cached keys between refreshes, per block
length; on a denoiser trained block-causally, whether the exact cache writes the same rows as the
uncached block-causal sampler (float32); and the positions each processes (`TokensProcessed`).

    python benchmarks/caching.py
"""
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package

from maskdiff_solutions import caching  # noqa: E402
from maskdiff_solutions.block_denoiser import CachingDenoiser, TrainBlockDenoiser  # noqa: E402
from maskdiff_solutions.story_denoiser import TrainQuickDenoiser  # noqa: E402

PROMPTS, PROMPT_LENGTH, G = 8, 8, 24   # prompts of 8 story tokens, 24 generated, 24 steps
BLOCKS = (2, 4, 8, 12, 24)


def main():
    torch.set_num_threads(1)
    started = time.time()
    net, stories = TrainQuickDenoiser()
    twin = CachingDenoiser.Twin(net)
    prompts = [stories.tokens[1000 * i: 1000 * i + PROMPT_LENGTH] for i in range(PROMPTS)]
    pad = len(stories.vocab)
    for kind in ("prefix", "dual"):
        for b in BLOCKS:
            drift = caching.CacheDrift(caching.SampleBlocksPrefixCache, caching.SampleBlocks, twin, prompts, G, b, G, stories.mask, pad, dual=kind == "dual")
            print(f"{kind:6s} block {b:2d}: agreement {drift['agreement']:.3f}, key change "
                  f"{drift['key_change']:.4f} (key size {drift['key_size']:.4f}); positions "
                  f"{caching.TokensProcessed(PROMPT_LENGTH, G, b, G, kind)} against "
                  f"{caching.TokensProcessed(PROMPT_LENGTH, G, b, G, 'none')} uncached")
    block_net, _ = TrainBlockDenoiser()
    for b in BLOCKS:
        same = sum(torch.equal(caching.SampleBlocksCached(block_net, p, G, b, G, stories.mask, pad),
                               caching.SampleBlocksBlockCausal(block_net, p, G, b, G, stories.mask, pad))
                   for p in prompts)
        print(f"exact  block {b:2d}: {same}/{PROMPTS} rows identical (float32); positions "
              f"{caching.TokensProcessed(PROMPT_LENGTH, G, b, G, 'exact')}")
    print(f"{time.time() - started:.0f} s in all")


if __name__ == "__main__":
    main()
