"""maskdiff_solutions: the instructors' half of the maskdiff course.

Reference implementations (`schedule`, `toy`, `sampling`, `chat`, ...), the hidden checks that graded
notebooks call (`grading`), exact statistical tests (`stats`) and the course tooling (`course`:
release, grade, demo). `models` (the chat networks and their offline stand-ins) pulls in transformers,
so it is imported only where needed.
Students never get this package. Hidden test cells import `maskdiff_client`, which hands the
student's functions to the grader's trusted checker, where this package's checks run (only a plain
`nbgrader autograde`, without the course's grader, runs them in the student's kernel).

The reference functions are imported when first asked for (`from maskdiff_solutions import Chat`), not
with the package: the course's tooling imports none of them, and a Gradescope autograder built for some
notebooks holds only those notebooks' references (course/term/gradescope.py).
"""
import importlib
import sys

# jsonschema (under nbformat and nbgrader) imports rfc3987_syntax when it is installed (jupyter-events
# asks for it), which builds a parser at import: about 1.5 s of CPU in every grading process, pool
# worker and Dask worker, to check the "iri" string format that no notebook schema uses. Left out:
# jsonschema then skips that one format. tests/test_package.py holds both halves.
sys.modules.setdefault("rfc3987_syntax", None)

# name -> the module of this package that defines it
_HOME = {
    **dict.fromkeys(["MakeSchedule", "ForwardMask", "ForwardMaskFast"], "schedule"),
    **dict.fromkeys(["MASK", "VOCAB", "Decode", "Encode", "GuessX0_one", "GuessX0_two", "SamplePInit_one",
                     "SamplePInit_two"], "toy"),
    **dict.fromkeys(["Generate", "Undiffuse", "UndiffuseGreedy"], "sampling"),
    **dict.fromkeys(["AtTemperature", "Chat", "ChatLoop", "MakePrompt"], "chat"),
    **dict.fromkeys(["FetchStories", "LoadStories", "MakeCorpus", "StandInStories"], "corpus"),
    **dict.fromkeys(["DiffusionLoss", "DiffusionLossPrompt"], "loss"),
    **dict.fromkeys(["MakeGuesser", "PlotLoss", "TinyDenoiser", "Train", "WindowAverage"], "training"),
    **dict.fromkeys(["blank_canvas", "candidate_distributions", "confidence_scores", "reveal_counts",
                     "reverse_update", "sample"], "batched"),
    **dict.fromkeys(["TransferCounts", "SampleBlocks", "CommitAbove", "SigmaMax", "RemaskSigma", "RemaskStep",
                     "RemaskLoop", "GenerateRemask", "SampleEntropy", "Perplexity"], "revising"),
    **dict.fromkeys(["BlockIndex", "BlockCausalMask", "TokensProcessed", "Counted", "SampleBlocksBlockCausal",
                     "SampleBlocksCached", "SampleBlocksPrefixCache", "CacheDrift"], "caching"),
    **dict.fromkeys(["CachingDenoiser", "BlockDiffusionLoss", "TrainBlockDenoiser"], "block_denoiser"),
    **dict.fromkeys(["ForwardUniform", "PosteriorUniform", "UniformStep", "UniformLoss", "StepLaw", "GuessFromOutput",
                     "GuessUniform_two", "UniformTwo", "AbsorbingTwo", "UniformExact", "SimulateUniform"], "uniform"),
}

__version__ = "0.1.0"
__all__ = list(_HOME)


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value   # asked once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_HOME})
