"""How far from a tie the decisions of notebooks 05 and 06's samplers lie along a run, so that a test may
say why rows compared token for token cannot differ by rounding.

Within `recorded()` every call of the reference's candidate_distributions and reverse_update (and its
per-row twin) is watched, wherever it is called from (the samplers, a check's helpers bound in a student's
globals), and `Margins` keeps the two smallest margins seen: `lead`, the probability by which a committed
candidate leads its runner-up at that position, and `gap`, in a row where a call commits some of its
eligible masks but not all, the last committed confidence minus the first one left. Another correct way of
computing the same probabilities (a batch against its rows one by one, another thread count, a softmax in
float64 or as log_softmax().exp()) moves them by 5e-7 at most (measured on this CPU by
benchmarks/rounding.py: 2.4e-7 between the softmax forms, 4.8e-7 between 1 and 4 threads on the checks'
FakeDenoiser, 1.1e-8 between a TinyDenoiser's padded batch and its rows alone), so a margin far above that
changes no token."""
import contextlib
import functools
import math
from unittest import mock

from maskdiff_solutions import batched, caching, revising

# The modules whose globals name the helpers (each imports them from batched under the same names).
USERS = (batched, revising, caching)


class Margins:
    def __init__(self):
        self.lead = self.gap = math.inf
        self.updates = 0
        self._probs = None

    def _seen_probs(self, probs):
        self._probs = probs

    def _seen_update(self, x, out, confidence, slots, counts, mask_id):
        self.updates += 1
        new = out != x
        if new.any() and self._probs is not None and self._probs.shape[:2] == x.shape:
            top = self._probs.topk(2, dim=-1).values
            self.lead = min(self.lead, float((top[..., 0] - top[..., 1])[new].min()))
        eligible = slots & (x == mask_id)
        for b in range(x.shape[0]):
            k, ranked = int(counts[b]), confidence[b][eligible[b]].float().sort(descending=True).values
            if 0 < k < len(ranked):
                self.gap = min(self.gap, float(ranked[k - 1] - ranked[k]))


@contextlib.contextmanager
def recorded():
    """Margins of every commit the reference's helpers make inside the block."""
    margins = Margins()
    distributions, update, rowwise = batched.candidate_distributions, batched.reverse_update, batched.reverse_update_rowwise

    @functools.wraps(distributions)
    def watched_distributions(model, x, control_ids):
        probs = distributions(model, x, control_ids)
        margins._seen_probs(probs)
        return probs

    def watching(function):
        @functools.wraps(function)
        def watched(x, candidate_ids, confidence, slots, counts, mask_id, pad_id):
            out = function(x, candidate_ids, confidence, slots, counts, mask_id, pad_id)
            margins._seen_update(x, out, confidence, slots, [int(k) for k in counts], mask_id)
            return out
        return watched

    with contextlib.ExitStack() as stack:
        for module in USERS:
            stack.enter_context(mock.patch.object(module, "candidate_distributions", watched_distributions))
            stack.enter_context(mock.patch.object(module, "reverse_update", watching(update)))
        stack.enter_context(mock.patch.object(batched, "reverse_update_rowwise", watching(rowwise)))
        yield margins
