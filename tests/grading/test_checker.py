"""The trusted checker decides exactly as the in-process checks do: the reference passes every check
and every mutant of the catalog fails exactly its checks when its code runs in another process (a
stand-in for the student's kernel) and only the checker decides."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import maskdiff_client
from maskdiff_solutions import grading
from maskdiff_solutions.course.records.gradebook import score_from_verdicts
from maskdiff_solutions.grading import core
from maskdiff_solutions.grading.checker import Checker, Record
from tests.mutants import catalog
from tests.support import sweeps

ROOT = Path(__file__).resolve().parents[2]
PLAN = list(grading.CHECKS)  # registration order follows the notebooks
MUTANTS = catalog()
# Every mutant's verdicts are proven in-process (tests/grading/test_checks*.py); through the kernel, every run of
# CI takes one mutant for each set of checks a function's bugs fail (the checker decides as the in-process checks
# do, and one of each verdict shows it), and the others take turns by day (tests/support/sweeps.py): 77 of the
# 333 mutants every run, 71 of the 211 s CI measured for the 295 it ran before, and a seventh of the rest a day.
ONE_EACH = {id(m) for m in sweeps.representatives(MUTANTS, lambda m: (m.function, frozenset(m.fails)))}
PLOTS = {name for name in PLAN if name.startswith(("plot_", "show_"))}  # checks of what a cell drew
# The plots that took 4 s or more each through the kernel in CI (the first six 10 s or more: 155 of the 218 s of
# all 33; the next six 62 of the 145 s of a later run): the reference's is judged through the real grader's
# checker in every run too (tests/course/run/test_grade.py asks the graded batch's reference for full marks in
# every notebook), and in-process (test_checks_plots.py), so only the failing verdict's way back is theirs alone.
HEAVY = {"plot_remasking", "plot_commit_order", "plot_bars_few_steps", "plot_impossible_fraction",
         "plot_net_sentence_bars", "plot_loop",
         "plot_cat_probability", "plot_two_sentence_bars", "plot_few_steps", "plot_story_loss", "plot_cache_drift",
         "plot_changed_share"}


def checks_of(function):
    return [name for name in PLAN if name.split(".")[0] == function]


class Kernel:
    """One long-lived stand-in kernel process; each job gets a fresh checker of its own."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "tests.support.student_kernel"], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.folder = tempfile.TemporaryDirectory(prefix="mdk-")
        self.jobs = 0

    def run(self, function, source, checks, **plot):
        """source None: the reference's own function (or plot cell). `plot`: notebook=..., functions=..."""
        self.jobs += 1
        path = str(Path(self.folder.name) / f"{self.jobs}.sock")
        with Checker(path, PLAN) as checker:
            self.process.stdin.write(json.dumps({"socket": path, "source": source, "function": function,
                                                 "reference": source is None, "checks": checks, **plot}) + "\n")
            self.process.stdin.flush()
            said = json.loads(self.process.stdout.readline())
        return checker.record, said

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.folder.cleanup()


@pytest.fixture(scope="module")
def kernel():
    kernel = Kernel()
    yield kernel
    kernel.close()


@pytest.mark.parametrize("function", sorted({name.split(".")[0] for name in PLAN} - PLOTS))
def test_reference_passes_through_the_checker(kernel, function):
    record, said = kernel.run(function, None, checks_of(function))
    assert {name: o.passed for name, o in record.verdicts.items()} == {name: True for name in checks_of(function)}, \
        {name: o.message for name, o in record.verdicts.items()}
    assert all(passed for _, passed, _ in said) and not record.incidents


@pytest.mark.slow  # mutants through a kernel (ONE_EACH, then today's turn); tests/grading/test_checks*.py prove each in-process
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: f"{m.function}:{m.name}")
def test_mutant_fails_exactly_its_checks_through_the_checker(kernel, mutant):
    sweeps.take_turn(f"{mutant.function}:{mutant.name}", id(mutant) in ONE_EACH)
    record, said = kernel.run(mutant.function, mutant.source, checks_of(mutant.function))
    failed = {name for name, outcome in record.verdicts.items() if not outcome.passed}
    assert failed == set(mutant.fails), {name: o.message for name, o in record.verdicts.items()}
    # the kernel is told the checker's verdict, word for word
    assert {name: passed for name, passed, _ in said} == {n: o.passed for n, o in record.verdicts.items()}


SAVES_GUESSER = '''
saved = []
def Chat(question, answer_length=64, T=64, step=Undiffuse, show=False):
    saved.append(GuessBERT)
    if len(saved) == 3:  # Chat.prompt calls Chat twice: this guesser came from that earlier check
        saved[0](torch.full((len(Tokens(MakePrompt(question))) + answer_length,), BERT_MASK))
    prompt = Tokens(MakePrompt(question))
    x = torch.cat([prompt, torch.full((answer_length,), BERT_MASK)])
    for t in range(T, 0, -1):
        x = step(x, t, GuessBERT, BERT_MASK)
    return Text(x[len(prompt):]).replace("[PAD]", "").split(ANSWER_END)[0].strip()
'''


def test_a_stand_in_from_an_earlier_check_no_longer_answers(kernel):
    record, said = kernel.run("Chat", SAVES_GUESSER, ["Chat.prompt", "Chat.steps"])
    assert record.verdicts["Chat.prompt"].passed
    assert not record.verdicts["Chat.steps"].passed
    assert any("not (or no longer)" in incident.text for incident in record.incidents), record.incidents


def test_checks_run_once_each_in_the_notebooks_order(kernel):
    source = "def MakeSchedule(T):\n    raise NotImplementedError()\n"
    record, said = kernel.run("MakeSchedule", source, ["ForwardMask.rates", "MakeSchedule", "ForwardMask.rates",
                                                       "No.such_check"])
    assert list(record.verdicts) == ["ForwardMask.rates"]
    refused = [message for _, passed, message in said[1:]]
    assert "after a later one" in refused[0] and "already run once" in refused[1] and "no hidden check" in refused[2]
    assert len(record.incidents) == 3


@pytest.mark.slow  # draws every plot cell in a kernel (minutes); tests/grading/test_checks_plots.py does it in-process
@pytest.mark.parametrize("check", sorted(PLOTS))
def test_a_plot_is_judged_through_the_checker(kernel, check):
    """The reference's plot passes and a wrong plot fails, with the figure read in the kernel. One
    mutant per cell shows that a failing verdict travels; tests/grading/test_checks_plots.py judges
    every plot mutant in-process. The plots of HEAVY take turns by day (tests/support/sweeps.py)."""
    sweeps.take_turn(check, check not in HEAVY)
    from tests.mutants.plots import MUTANTS as PLOT_MUTANTS, reference_source
    notebook = next(m.notebook for m in PLOT_MUTANTS if m.cell == check)
    record, said = kernel.run(check, None, [check], notebook=notebook)
    assert record.verdicts[check].passed, record.verdicts[check].message
    assert not record.incidents
    mutant = next(m for m in PLOT_MUTANTS if m.cell == check)
    source = mutant.source(reference_source(notebook, check))
    record, said = kernel.run(check, source, [check], notebook=notebook, functions=mutant.functions)
    outcome = record.verdicts[check]
    assert not outcome.passed   # failed, or (too few runs drawn as shares) sent to a person
    assert outcome.review or said[0][2].endswith(outcome.message)   # a review is a printed note


@pytest.mark.slow  # draws notebook 07's figure in a kernel (tens of seconds)
def test_a_complement_is_read_through_the_checker(kernel):
    """The disagreement drawn where the agreement is asked goes to a person, named, with the figure read in
    the kernel and the student's runs replayed in the checker (grading/complement.py)."""
    from tests.mutants.plots import MUTANTS as PLOT_MUTANTS, reference_source
    mutant = next(m for m in PLOT_MUTANTS if m.name == "disagreement_drawn_as_the_agreement")
    source = mutant.source(reference_source(mutant.notebook, mutant.cell))
    record, said = kernel.run(mutant.cell, source, [mutant.cell], notebook=mutant.notebook)
    outcome = record.verdicts[mutant.cell]
    assert outcome.review and "reads as one minus the share the task asks for" in outcome.message, outcome.message
    assert not record.incidents


def test_a_review_reaches_the_kernel_as_a_note_and_the_record_as_a_review(kernel):
    """Unsure is not wrong: the kernel shows a note (no error, no pass) and the checker keeps the review."""
    name = "MakeSchedule.unsure_for_this_test"

    @core.check(name)
    def unsure(MakeSchedule):
        raise core.Review("the reader saw a curve it could not place")

    try:
        path = str(Path(kernel.folder.name) / "review.sock")
        with Checker(path, [name]) as checker:
            kernel.process.stdin.write(json.dumps({"socket": path, "source": None, "function": "MakeSchedule",
                                                   "reference": True, "checks": [name]}) + "\n")
            kernel.process.stdin.flush()
            said = json.loads(kernel.process.stdout.readline())
    finally:
        del core.CHECKS[name]
    outcome = checker.record.verdicts[name]
    assert (outcome.passed, outcome.review) == (False, True)
    (_, raised_nothing, printed), = said
    assert raised_nothing and maskdiff_client.REVIEW_NOTE in printed and outcome.message in printed
    assert "passed" not in printed


class FakeGrade:
    def __init__(self, auto_score):
        self.auto_score, self.max_score, self.needs_manual_grade = auto_score, 2.0, False


def test_scores_come_from_the_checkers_record_alone():
    """A reviewed cell waits for a person; a kernel that printed a review's note (or a pass) for a check
    the checker failed or never saw gets 0, and the cell is suspect."""
    plan = [("nb.ipynb", f"test_plot_{x}", [f"plot_{x}"]) for x in "abcd"]
    grades = {cell: FakeGrade(2.0) for _, cell, _ in plan}  # every cell ran without an error
    gradebook = type("Gradebook", (), {"find_grade": lambda self, cell, *_: grades[cell],
                                       "db": type("Db", (), {"commit": lambda self: None})()})()
    record = Record({"plot_a": core.Outcome("plot_a", False, "unsure", review=True),
                     "plot_b": core.Outcome("plot_b", False, "wrong"),
                     "plot_d": core.Outcome("plot_d", True)})
    suspect = score_from_verdicts(gradebook, "maskdiff", "s", plan, record,
                                  {"nb.ipynb": type("P", (), {"problem": ""})()})
    got = {cell: (g.auto_score, g.needs_manual_grade) for cell, g in grades.items()}
    assert got == {"test_plot_a": (None, True), "test_plot_b": (0.0, False), "test_plot_c": (0.0, False),
                   "test_plot_d": (2.0, False)}
    assert len(suspect["nb.ipynb"]) == 2 and not any("test_plot_a" in why for why in suspect["nb.ipynb"])


# Notebook 06 hands student code the checker's own objects (the recording denoiser, our notebook-05
# helpers, the scorer, the guesser) as handles. A hostile student reads them, calls them with what they
# never expect, forges the protocol's frames on the handle's own channel, calls handles the checker never
# gave out, and lets the drivers' own exception through: each takes no check, and the checker grades the
# next job as before.
HOSTILE_06 = {
    "SampleBlocks": '''
def SampleBlocks(denoiser, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    for name in ("canvases", "__dict__", "forward", "length", "_ref"):
        try:
            getattr(denoiser, name)
        except Exception:
            pass
    class Anything:
        def __eq__(self, other): return True
        def __len__(self): return 10 ** 9
        def __index__(self): return 0
    for helper in (reverse_update, candidate_distributions, TransferCounts):
        try:
            helper(Anything(), Anything(), Anything())
        except Exception:
            pass
    x = torch.cat([torch.as_tensor(prompt), torch.full((gen_length,), mask_id)])[None]
    for bad in (x.float(), x[:, :3], torch.zeros(1, 10 ** 7, dtype=torch.long)):
        try:
            denoiser(bad)
        except BaseException:
            pass
    from maskdiff_client.drivers import Propagate
    raise Propagate("let me through")
''',
    "SampleBlocks forged": '''
def SampleBlocks(denoiser, prompt, gen_length, block_length, steps, mask_id, pad_id, control_ids=(), rule="even"):
    row = torch.cat([torch.as_tensor(prompt), torch.full((gen_length,), 7)]).tolist()
    for re in range(1, 40):   # a "return" for every request the checker may be waiting on
        denoiser._channel.send({"op": "return", "re": re, "value": {"returned": row, "status": "returned"}})
    denoiser._channel.send({"op": "return", "re": 1, "value": eval("[" * 60 + "0" + "]" * 60)})
    return torch.tensor(row)
''',
    "Perplexity": '''
def Perplexity(logits_of, ids):
    class Equal(float):
        def __eq__(self, other): return True
    try:
        logits_of(torch.zeros(1, 9_000_000, dtype=torch.long))   # 72 MB: over a frame
    except BaseException:
        pass
    logits_of._channel.send({"op": "call", "target": 1, "args": [], "kwargs": {}})
    return Equal(1.0)
''',
    "RemaskStep": '''
def RemaskStep(x_t, t, s, GuessX0, mask, sigma, fixed=None):
    for target in range(1, 20):   # handles the checker never gave out
        try:
            GuessX0._channel.call(type(GuessX0._ref)("checker", target), [x_t], {})
        except BaseException:
            pass
    return x_t.clone()
''',
}


@pytest.mark.slow  # about 10 s
@pytest.mark.parametrize("attack", sorted(HOSTILE_06))
def test_hostile_notebook_06_code_takes_no_check(kernel, attack):
    function = attack.split()[0]
    record, said = kernel.run(function, HOSTILE_06[attack], checks_of(function))
    assert set(record.verdicts) == set(checks_of(function))
    assert not any(o.passed for o in record.verdicts.values()), {n: o.message for n, o in record.verdicts.items()}
    assert not any(passed for _, passed, _ in said)
    record, said = kernel.run(function, None, checks_of(function))   # the checker's next student
    assert all(o.passed for o in record.verdicts.values()) and not record.incidents
