"""maskdiff_solutions: the instructors' half of the maskdiff course.

Reference implementations (`schedule`, `toy`, `sampling`, `chat`), the hidden checks that graded
notebooks call (`grading`), exact statistical tests (`stats`) and the course tooling (`course`:
release, grade, demo). `models` (the chat networks and their offline stand-ins) pulls in transformers,
so it is imported only where needed.
Students never get this package. Hidden test cells import `maskdiff_client`, which hands the
student's functions to the grader's trusted checker, where this package's checks run (only a plain
`nbgrader autograde`, without the course's grader, runs them in the student's kernel).
"""
import sys

# jsonschema (under nbformat and nbgrader) imports rfc3987_syntax when it is installed (jupyter-events
# asks for it), which builds a parser at import: about 1.5 s of CPU in every grading process, pool
# worker and Dask worker, to check the "iri" string format that no notebook schema uses. Left out:
# jsonschema then skips that one format. tests/test_package.py holds both halves.
sys.modules.setdefault("rfc3987_syntax", None)

from .batched import (blank_canvas, candidate_distributions, confidence_scores, reveal_counts,
                      reverse_update, sample)
from .chat import AtTemperature, Chat, ChatLoop, MakePrompt
from .corpus import FetchStories, LoadStories, MakeCorpus, StandInStories
from .loss import DiffusionLoss, DiffusionLossPrompt
from .training import MakeGuesser, PlotLoss, TinyDenoiser, Train, WindowAverage
from .revising import (CommitAbove, GenerateRemask, Perplexity, RemaskSigma, RemaskStep, SampleBlocks,
                       SampleEntropy, SigmaMax, TransferCounts)
from .sampling import Generate, Undiffuse, UndiffuseGreedy
from .schedule import ForwardMask, ForwardMaskFast, MakeSchedule
from .toy import (MASK, VOCAB, Decode, Encode, GuessX0_one, GuessX0_two, SamplePInit_one,
                  SamplePInit_two)

__version__ = "0.1.0"
__all__ = ["AtTemperature", "Chat", "ChatLoop", "MakePrompt", "ForwardMask", "ForwardMaskFast", "MakeSchedule", "MASK",
           "VOCAB", "Decode", "Encode",
           "Generate", "Undiffuse", "UndiffuseGreedy", "GuessX0_one", "GuessX0_two",
           "SamplePInit_one", "SamplePInit_two", "blank_canvas", "candidate_distributions",
           "confidence_scores", "reveal_counts", "reverse_update", "sample", "DiffusionLoss",
           "DiffusionLossPrompt", "TinyDenoiser", "MakeGuesser", "Train", "PlotLoss", "WindowAverage",
           "FetchStories", "LoadStories", "MakeCorpus", "StandInStories", "TransferCounts", "SampleBlocks",
           "CommitAbove", "SigmaMax", "RemaskSigma", "RemaskStep", "GenerateRemask", "SampleEntropy", "Perplexity"]
