"""Bugs students make in notebook 08 (uniform noise, the posterior of the two-sentence world, the reverse
step, the uniform-state loss). Each mutant is an edit of the correct solution cell in REFERENCE, so the
catalog reads as the bug and nothing else. REFERENCE holds the notebook's own solution cells (their code
without the docstring and markers; `F` spelled out, the mutant namespace has `torch` alone):
tests/grading/test_checks_uniform.py fails when the notebook's cell and its copy here part.

Every argument is ignored by some mutant ("ignores X"), and every boundary the task text states is moved
by one (alpha = 0 and 1 refused or let through, s = t let through, t = 1 refused, 0 < t < 1 moved)."""
from . import Edits

REFERENCE = {
    "ForwardUniform": """
def ForwardUniform(x0, alpha, vocab_size):
    if isinstance(vocab_size, bool) or int(vocab_size) != vocab_size or vocab_size < 1:
        raise ValueError(f"vocab_size must be a whole number of at least 1, got {vocab_size!r}")
    alpha = torch.as_tensor(alpha, dtype=torch.float64)
    if ((alpha < 0) | (alpha > 1)).any():
        raise ValueError(f"alpha must lie in [0, 1], got {alpha}")
    x0 = torch.as_tensor(x0)
    if x0.is_floating_point() or (x0 < 0).any() or (x0 >= vocab_size).any():
        raise ValueError(f"x0 must hold integer ids from 0 to {vocab_size - 1}")
    keep = torch.rand(x0.shape, dtype=torch.float64) < alpha
    words = torch.randint(int(vocab_size), x0.shape)
    return torch.where(keep, x0, words)
""",
    "PosteriorUniform": """
def PosteriorUniform(x_t, alpha):
    if not 0 <= alpha < 1:
        raise ValueError(f"alpha must satisfy 0 <= alpha < 1, got {alpha}")
    x_t = torch.as_tensor(x_t)
    if x_t.shape != (4,) or x_t.is_floating_point() or (x_t < 0).any() or (x_t >= len(words)).any():
        raise ValueError(f"x_t must be 4 integer ids from 0 to {len(words) - 1}, got {x_t}")
    same = (SENTENCE_IDS == x_t).double()
    likelihood = (alpha * same + (1 - alpha) / len(words)).prod(dim=1)
    weights = PRIOR.double() * likelihood
    return weights / weights.sum()
""",
    "UniformStep": """
def UniformStep(x_t, t, s, GuessX0):
    if not 0 <= s < t <= 1:
        raise ValueError(f"times must satisfy 0 <= s < t <= 1, got t = {t}, s = {s}")
    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)
    N = p.shape[1]
    alpha_t, alpha_s = 1 - t, 1 - s
    keep = alpha_t / alpha_s
    here = torch.nn.functional.one_hot(x_t.long(), N).double()
    p = p / (alpha_t * here + (1 - alpha_t) / N)
    towards = alpha_s * p + (1 - alpha_s) / N * p.sum(dim=1, keepdim=True)
    law = (keep * here + (1 - keep) / N) * towards
    return torch.multinomial(law, 1).squeeze(1)
""",
    "UniformLoss": """
def UniformLoss(probs, x_0, x_t, t):
    if probs.dim() != 3 or x_0.shape != probs.shape[:2] or x_t.shape != x_0.shape:
        raise ValueError(f"probs must be (B, L, N) and x_0, x_t (B, L), got {tuple(probs.shape)}, "
                         f"{tuple(x_0.shape)}, {tuple(x_t.shape)}")
    if t.shape != (x_0.shape[0],):
        raise ValueError(f"t must hold one time per row, got shape {tuple(t.shape)}")
    if ((t <= 0) | (t >= 1)).any():
        raise ValueError("every t must lie strictly between 0 and 1")
    N = probs.shape[-1]
    alpha = (1 - t.to(probs.dtype))[:, None, None]
    xbar = N * alpha * torch.nn.functional.one_hot(x_0, N).to(probs.dtype) + 1 - alpha
    xbar_theta = N * alpha * probs + 1 - alpha
    w = x_t[..., None]
    xbar_w, theta_w = xbar.gather(-1, w), xbar_theta.gather(-1, w)
    terms = xbar / xbar_w * torch.log(xbar * theta_w / (xbar_w * xbar_theta))
    others = terms.sum(dim=-1) - terms.gather(-1, w)[..., 0]
    inside = N / theta_w[..., 0] - N / xbar_w[..., 0] + others
    return inside / (N * alpha[..., 0])
""",
}

FLAW, FERR = "ForwardUniform.law", "ForwardUniform.errors"
PEXACT, PERR = "PosteriorUniform.exact", "PosteriorUniform.errors"
SLAW, SERR = "UniformStep.law", "UniformStep.errors"
LEXACT, LERR = "UniformLoss.exact", "UniformLoss.errors"

edit = Edits(REFERENCE)

MUTANTS = [
    # ------------------------------------------------------------ ForwardUniform
    edit("ForwardUniform", "ignores vocab_size: draws from the 13 words of the toy world", [FLAW],
         ("torch.randint(int(vocab_size), x0.shape)", "torch.randint(13, x0.shape)")),
    edit("ForwardUniform", "ignores alpha: keeps half the tokens", [FLAW],
         ("torch.rand(x0.shape, dtype=torch.float64) < alpha", "torch.rand(x0.shape, dtype=torch.float64) < 0.5")),
    edit("ForwardUniform", "keeps with probability 1 - alpha (alpha read as the noise)", [FLAW],
         ("torch.rand(x0.shape, dtype=torch.float64) < alpha", "torch.rand(x0.shape, dtype=torch.float64) < 1 - alpha")),
    edit("ForwardUniform", "a replaced token never draws itself", [FLAW],
         ("    words = torch.randint(int(vocab_size), x0.shape)\n",
          "    words = (x0 + torch.randint(1, max(int(vocab_size), 2), x0.shape)) % int(vocab_size)\n")),
    edit("ForwardUniform", "one coin for the whole sentence", [FLAW],
         ("torch.rand(x0.shape, dtype=torch.float64) < alpha", "torch.rand(x0.shape[:-1] + (1,), dtype=torch.float64) < alpha")),
    edit("ForwardUniform", "one replacement word for every position", [FLAW],
         ("torch.randint(int(vocab_size), x0.shape)", "torch.randint(int(vocab_size), ()).expand(x0.shape)")),
    edit("ForwardUniform", "replaces in place", [FLAW],
         ("    return torch.where(keep, x0, words)\n", "    x0[~keep] = words[~keep]\n    return x0\n")),
    edit("ForwardUniform", "ignores x0: draws every position anew", [FLAW],
         ("torch.where(keep, x0, words)", "torch.where(keep, words, torch.randint(int(vocab_size), x0.shape))")),
    edit("ForwardUniform", "float ids", [FLAW], ("torch.where(keep, x0, words)", "torch.where(keep, x0, words).float()")),
    edit("ForwardUniform", "alpha = 1 refused (the boundary moved)", [FLAW, FERR],
         ("(alpha > 1)", "(alpha >= 1)")),
    edit.without("ForwardUniform", "alpha not checked", [FERR], "if ((alpha < 0) | (alpha > 1)).any():"),
    edit.without("ForwardUniform", "x0's ids not checked", [FERR],
                 "if x0.is_floating_point() or (x0 < 0).any() or (x0 >= vocab_size).any():"),
    edit.without("ForwardUniform", "vocab_size not checked", [FERR],
                 "if isinstance(vocab_size, bool) or int(vocab_size) != vocab_size or vocab_size < 1:"),
    # ------------------------------------------------------------ PosteriorUniform
    edit("PosteriorUniform", "ignores alpha: a visible word weighs as under masks", [PEXACT],
         ("(alpha * same + (1 - alpha) / len(words))", "(0.5 * same + 0.5 / len(words))")),
    edit("PosteriorUniform", "ignores x_t: the prior", [PEXACT],
         ("    same = (SENTENCE_IDS == x_t).double()\n", "    same = torch.ones(2, 4, dtype=torch.float64)\n")),
    edit("PosteriorUniform", "a visible word is certain (notebook 2's rule)", [PEXACT],
         ("(alpha * same + (1 - alpha) / len(words))", "same")),
    edit("PosteriorUniform", "forgets the (1 - alpha) / N a changed word leaves to every sentence", [PEXACT],
         ("(alpha * same + (1 - alpha) / len(words))", "(alpha * same + (1 - alpha))")),
    edit("PosteriorUniform", "drops the prior", [PEXACT], ("    weights = PRIOR.double() * likelihood\n",
                                                          "    weights = likelihood\n")),
    edit("PosteriorUniform", "not normalised", [PEXACT], ("    return weights / weights.sum()\n",
                                                         "    return weights\n")),
    edit("PosteriorUniform", "sums the positions' evidence instead of multiplying it", [PEXACT],
         (".prod(dim=1)", ".sum(dim=1)")),
    edit("PosteriorUniform", "alpha = 1 let through", [PERR], ("if not 0 <= alpha < 1:", "if not 0 <= alpha <= 1:")),
    edit("PosteriorUniform", "alpha = 0 refused (the boundary moved)", [PEXACT, PERR], ("if not 0 <= alpha < 1:", "if not 0 < alpha < 1:")),
    edit.without("PosteriorUniform", "x_t not checked", [PERR],
                 "if x_t.shape != (4,) or x_t.is_floating_point() or (x_t < 0).any() or (x_t >= len(words)).any():"),
    # ------------------------------------------------------------ UniformStep
    edit("UniformStep", "asks the guess at s", [SLAW], ("GuessX0(x_t, t)", "GuessX0(x_t, s)")),
    edit("UniformStep", "ignores x_t: draws x_s from q(x_s | x_0) alone", [SLAW],
         ("    law = (keep * here + (1 - keep) / N) * towards\n",
          "    law = alpha_s * torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64) + (1 - alpha_s) / N\n")),
    edit("UniformStep", "ignores s: jumps to x_0", [SLAW],
         ("    alpha_t, alpha_s = 1 - t, 1 - s\n", "    alpha_t, alpha_s = 1 - t, 1.0\n")),
    edit("UniformStep", "ignores t: alpha_t = 0 (the step forgets x_t)", [SLAW],
         ("    alpha_t, alpha_s = 1 - t, 1 - s\n", "    alpha_t, alpha_s = 0.0, 1 - s\n")),
    edit("UniformStep", "ignores GuessX0: a flat guess", [SLAW],
         ("    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)\n",
          "    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)\n    p = torch.full_like(p, 1 / p.shape[1])\n")),
    edit("UniformStep", "DUO's formula with the guess plugged in for x_0 (it weighs the guess by q(x_t | x_0))", [SLAW],
         ("    p = p / (alpha_t * here + (1 - alpha_t) / N)\n", "")),
    edit("UniformStep", "alpha(t) = t: the schedule read backwards", [SLAW],
         ("    alpha_t, alpha_s = 1 - t, 1 - s\n", "    alpha_t, alpha_s = t, s\n    alpha_s = max(alpha_s, 1e-9)\n")),
    edit("UniformStep", "keeps x_t's word with alpha_s instead of alpha_t / alpha_s", [SLAW],
         ("    keep = alpha_t / alpha_s\n", "    keep = alpha_s\n")),
    edit("UniformStep", "greedy: the likeliest word of the step's law", [SLAW],
         ("    return torch.multinomial(law, 1).squeeze(1)\n", "    return law.argmax(dim=1)\n")),
    edit("UniformStep", "one draw for every position", [SLAW],
         ("    return torch.multinomial(law, 1).squeeze(1)\n",
          "    u = torch.rand(1, dtype=torch.float64)\n"
          "    return (law.cumsum(dim=1) / law.sum(dim=1, keepdim=True) < u).sum(dim=1).clamp(max=N - 1)\n")),
    edit("UniformStep", "s = t let through", [SERR], ("if not 0 <= s < t <= 1:", "if not 0 <= s <= t <= 1:")),
    edit("UniformStep", "t = 1 refused (the boundary moved)", [SLAW, SERR], ("if not 0 <= s < t <= 1:", "if not 0 <= s < t < 1:")),
    edit("UniformStep", "times checked after asking the guess", [SERR],
         ("    if not 0 <= s < t <= 1:\n        raise ValueError(f\"times must satisfy 0 <= s < t <= 1, got t = {t}, s = {s}\")\n"
          "    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)\n",
          "    p = torch.as_tensor(GuessX0(x_t, t), dtype=torch.float64)\n    if not 0 <= s < t <= 1:\n"
          "        raise ValueError(f\"times must satisfy 0 <= s < t <= 1, got t = {t}, s = {s}\")\n")),
    # ------------------------------------------------------------ UniformLoss
    edit("UniformLoss", "ignores t: alpha_t = 1/2", [LEXACT],
         ("    alpha = (1 - t.to(probs.dtype))[:, None, None]\n",
          "    alpha = torch.full((len(t), 1, 1), 0.5, dtype=probs.dtype)\n")),
    edit("UniformLoss", "ignores x_t: w = x_0", [LEXACT], ("    w = x_t[..., None]\n", "    w = x_0[..., None]\n")),
    edit("UniformLoss", "ignores probs: xbar_theta is uniform", [LEXACT],
         ("    xbar_theta = N * alpha * probs + 1 - alpha\n", "    xbar_theta = torch.ones_like(probs)\n")),
    edit("UniformLoss", "ignores x_0: xbar from x_t", [LEXACT],
         ("torch.nn.functional.one_hot(x_0, N)", "torch.nn.functional.one_hot(x_t, N)")),
    edit("UniformLoss", "xbar_theta is probs itself", [LEXACT],
         ("    xbar_theta = N * alpha * probs + 1 - alpha\n", "    xbar_theta = probs\n")),
    edit("UniformLoss", "no 1 / (N alpha_t) in front", [LEXACT], ("    return inside / (N * alpha[..., 0])\n",
                                                                 "    return inside\n")),
    edit("UniformLoss", "the ratios upside down: xbar_theta / xbar in the log", [LEXACT],
         ("torch.log(xbar * theta_w / (xbar_w * xbar_theta))", "torch.log(xbar_w * xbar_theta / (xbar * theta_w))")),
    edit("UniformLoss", "the N / xbar terms' signs swapped", [LEXACT],
         ("N / theta_w[..., 0] - N / xbar_w[..., 0]", "N / xbar_w[..., 0] - N / theta_w[..., 0]")),
    edit("UniformLoss", "averaged over the tokens: one number", [LEXACT],
         ("    return inside / (N * alpha[..., 0])\n", "    return (inside / (N * alpha[..., 0])).mean()\n")),
    edit("UniformLoss", "t = 1 let through", [LERR], ("(t >= 1)", "(t > 1)")),
    edit("UniformLoss", "t = 0 let through", [LERR], ("(t <= 0)", "(t < 0)")),
    edit.without("UniformLoss", "shapes not checked", [LERR],
                 "if probs.dim() != 3 or x_0.shape != probs.shape[:2] or x_t.shape != x_0.shape:"),
    edit.without("UniformLoss", "t's shape not checked", [LERR], "if t.shape != (x_0.shape[0],):"),
]
