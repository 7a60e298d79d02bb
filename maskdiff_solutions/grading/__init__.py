"""Hidden checks, one module per part of the course; importing this package registers the checks of
every part installed: all of them, but in a Gradescope autograder built for some notebooks, which holds
only their parts (course/term/gradescope.py)."""
import importlib
import importlib.util

from .core import ALPHA, CHECKS, DEFAULT_SEED, SEED_VARIABLE, Outcome, evaluate, grading_seed, run

# each notebook's modules of checks (tests/grading/test_parts.py: every module of checks is one of them)
PARTS = {
    "01_noise_for_words": ("forward", "forward_plots"),        # and its plots and printout
    "02_undiffusing": ("sampling", "sampling_plots"),
    "03_real_language_model": ("chat",),
    "04_training": ("loss", "loss_plots"),
    "05_sampler_internals": ("batched", "batched_plots"),
    "06_revising_and_faster": ("revising", "revising_plots", "loop_plots"),
    "07_caching": ("caching", "caching_samplers", "caching_plots"),
    "08_noise_without_a_mask": ("uniform", "uniform_plots"),
}

for _modules in PARTS.values():
    for _module in _modules:
        if importlib.util.find_spec(f"{__name__}.{_module}") is not None:
            importlib.import_module(f".{_module}", __name__)   # registers its checks in CHECKS

__all__ = ["ALPHA", "CHECKS", "DEFAULT_SEED", "PARTS", "SEED_VARIABLE", "Outcome", "evaluate",
           "grading_seed", "run"]
