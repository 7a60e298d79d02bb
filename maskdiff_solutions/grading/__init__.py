"""Hidden checks, one module per part of the course; importing this package registers them all."""
from .core import ALPHA, CHECKS, DEFAULT_SEED, SEED_VARIABLE, Outcome, evaluate, grading_seed, run
from . import forward  # noqa: F401  (registers the checks of notebook 01)
from . import loss  # noqa: F401  (registers the checks of notebook 04)

__all__ = ["ALPHA", "CHECKS", "DEFAULT_SEED", "SEED_VARIABLE", "Outcome", "evaluate",
           "grading_seed", "run"]
