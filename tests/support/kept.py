"""The given cells that build a network under the grader from the copy a grading machine keeps, or train
it where none is kept (notebooks 05 and 06's story denoiser, notebook 07's block-causal one), run in a
notebook's namespace with a cache of the test's own and a step count of the test's choosing."""
import torch

from tests.support import cells


def run_training_cell(namespace, notebook, grade_id, steps_name, steps, cache, monkeypatch):
    """Run the cell `grade_id` in `namespace` with the cache `cache` and its `steps_name = ...` line set
    to `steps` (the steps it trains where it trains). Returns what it printed."""
    source = cells.cell_source(notebook, grade_id)
    written = next(line for line in source.splitlines() if line.startswith(f"{steps_name} = "))
    assert source.count(written) == 1, f"{grade_id} sets {steps_name} once"
    monkeypatch.setenv("MASKDIFF_CACHE", str(cache))
    record = cells.run_cell(source.replace(written, f"{steps_name} = {steps}"), namespace)
    assert record.raised is None, record.raised
    return "".join(record.printed)


def same_weights(net, state):
    """Whether `net` holds exactly the tensors of the state dict `state`. Bit for bit, as the grader needs: the
    cell trains on its namespace's thread count, the one its set-up cell chose under the grader (cells.py keeps
    it), and the package's training on one thread too, whatever this process runs on."""
    mine = net.state_dict()
    return mine.keys() == state.keys() and all(torch.equal(mine[k], state[k]) for k in state)
