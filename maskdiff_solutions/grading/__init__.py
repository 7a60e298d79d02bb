"""Hidden checks, one module per part of the course; importing this package registers them all."""
from .core import ALPHA, CHECKS, DEFAULT_SEED, SEED_VARIABLE, Outcome, evaluate, grading_seed, run
from . import chat, forward  # noqa: F401  (registers the checks of notebooks 01 and 03)

__all__ = ["ALPHA", "CHECKS", "DEFAULT_SEED", "SEED_VARIABLE", "Outcome", "evaluate",
           "grading_seed", "run"]
