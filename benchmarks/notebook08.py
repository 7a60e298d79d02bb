"""Notebook 08 as a student runs it, as benchmarks/notebook06.py runs notebook 06: the solved release
notebook top to bottom, full mode (Colab's sizes: both story denoisers, with masks and on uniform noise, at
full size, 1000 CPU or 3000 GPU steps each) or quick mode (the autograder's), with the seconds of every cell
over a tenth of one.

    python benchmarks/notebook08.py [--quick] [--empty-cache] [--write-script FILE]

--empty-cache times the quick-mode cells where no denoiser is kept: both are then trained in their cells
(QUICK_STEPS and QUICK_UNIFORM_STEPS), each stopped by Train after QUICK_SECONDS. --write-script FILE writes
a standalone timed script for a machine without Jupyter or this package (a GPU box).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from notebook06 import main  # noqa: E402

if __name__ == "__main__":
    main("08_noise_without_a_mask.ipynb")
