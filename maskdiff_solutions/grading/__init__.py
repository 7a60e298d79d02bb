"""Hidden checks, one module per part of the course; importing this package registers them all."""
from .core import ALPHA, CHECKS, DEFAULT_SEED, SEED_VARIABLE, Outcome, evaluate, grading_seed, run
from . import forward  # noqa: F401  (registers the checks of notebook 01)
from . import forward_plots  # noqa: F401  (notebook 01's plots and printout)
from . import sampling  # noqa: F401  (notebook 02)
from . import sampling_plots  # noqa: F401  (notebook 02's plots and printouts)
from . import chat  # noqa: F401  (notebook 03)
from . import loss  # noqa: F401  (notebook 04)
from . import loss_plots  # noqa: F401  (notebook 04's plots and printouts)
from . import batched  # noqa: F401  (notebook 05)
from . import batched_plots  # noqa: F401  (notebook 05's printouts and figure)
from . import revising  # noqa: F401  (notebook 06)
from . import revising_plots  # noqa: F401  (notebook 06's printout and figures)

__all__ = ["ALPHA", "CHECKS", "DEFAULT_SEED", "SEED_VARIABLE", "Outcome", "evaluate",
           "grading_seed", "run"]
