"""A small class handed in and graded, as `similarity` reads it, written straight to disk (no kernel runs):
WORKSPACE/submitted/<student>/<assignment>/01_noise_for_words.ipynb, the release notebook with its
solution cells filled in, and grades-by-student.csv with names as a platform's roster gives them.

- ana and ben share one solution: ben's is ana's with the variables and a helper renamed, the
  spacing, blank lines and comments changed;
- cara, dev and eli each wrote their own correct solution, in styles of their own (a list and a
  running product, numpy and masked_fill, token lists and a binomial count);
- fay and gus left every solution cell as the release gives it;
- hal's file is cut off mid-JSON.

Used by tests/course/integrity/test_similarity.py and benchmarks/similarity.py."""
import copy
import csv
import json
import random
import re

from maskdiff_solutions.course.intake import notebooks as nbtools

NOTEBOOK = "01_noise_for_words.ipynb"
STUB = re.compile(r"^([ \t]*)# YOUR CODE HERE\n[ \t]*raise NotImplementedError\(\)", re.M)
INJECTION = '</pre><script>alert("ana")</script><img src=x onerror=alert(1)>'
NAMES = {"ana": "Ana Lopez", "ben": "Ben <b>Bold</b> & Co", "cara": "Cara Nkemelu", "dev": "", "eli": "Eli Park",
         "fay": "Fay Wong", "gus": "Gus Meyer", "hal": "Hal Ode"}
COPYING, OWN, STUBS, BROKEN = ("ana", "ben"), ("cara", "dev", "eli"), ("fay", "gus"), "hal"

ANA = {
    "MakeSchedule": '''
steps = torch.arange(T + 1, dtype=torch.float64)
beta = 1.0 / (T - steps + 1)
beta[0] = 0.0   # no masking before the first step
alpha_bar = torch.cumprod(1.0 - beta, dim=0)''',
    "ForwardMask": f'''
# {INJECTION} keep x_0 as it is
current = x_0.clone()
trajectory = [current]
for step in range(1, t + 1):
    current = current.clone()
    hits = torch.rand(len(current)) < float(beta[step])
    current[hits] = MASK
    trajectory.append(current)
return trajectory''',
    "ForwardMaskFast": '''
keep_prob = float(alpha_bar[t])
dropped = torch.rand(x_0.shape[0]) >= keep_prob
out = x_0.clone()
out[dropped] = MASK
return out''',
    "plot_masked_fraction": '''
def masked_share(run):
    """Fraction of masked tokens at each step of one run."""
    return (torch.stack(run) == MASK).double().mean(dim=1)

T = 50
beta, alpha_bar = MakeSchedule(T)
n_runs = repeats(1000)
total = torch.zeros(T + 1, dtype=torch.float64)
for _ in range(n_runs):
    total += masked_share(ForwardMask(x_0, T, beta))
plt.figure(figsize=(6, 3.5))
plt.plot(total / n_runs, "o", ms=3, label="<b>simulated</b> average")
plt.plot(1 - alpha_bar, "k-", label="theory 1 - alpha_bar")
plt.xlabel("step t")
plt.ylabel("fraction masked")
plt.legend()
plt.show()''',
}

BEN = {  # ana's, renamed and reformatted
    "MakeSchedule": '''
ts = torch.arange(T+1, dtype = torch.float64)
beta = 1.0/(T-ts+1)

beta[0] = 0.0  # step zero masks nothing
alpha_bar = torch.cumprod(1.0-beta, dim=0)''',
    "ForwardMask": '''
x = x_0.clone()   # copy first
xs = [x]
for k in range(1, t+1):
    x = x.clone()
    m = torch.rand(len(x)) < float(beta[k])
    x[m] = MASK
    xs.append(x)

return xs''',
    "ForwardMaskFast": '''
p_keep = float(alpha_bar[t])
gone = torch.rand(x_0.shape[0]) >= p_keep
y = x_0.clone()
y[gone] = MASK
return y''',
    "plot_masked_fraction": '''
def frac_masked(traj):
    # share of MASK tokens per step
    return (torch.stack(traj)==MASK).double().mean(dim=1)


T=50
beta,alpha_bar=MakeSchedule(T)
runs=repeats(1000)
acc=torch.zeros(T+1,dtype=torch.float64)
for _ in range(runs):
    acc+=frac_masked(ForwardMask(x_0,T,beta))
plt.figure(figsize=(6,3.5))
plt.plot(acc/runs,'o',ms=3,label='average of my runs')
plt.plot(1-alpha_bar,'k-',label='theory')
plt.xlabel('t')
plt.ylabel('masked fraction')
plt.legend()
plt.show()''',
}

CARA = {
    "MakeSchedule": '''
beta = torch.tensor([0.0] + [1.0 / (T - s + 1) for s in range(1, T + 1)], dtype=torch.float64)
alpha_bar = torch.ones(T + 1, dtype=torch.float64)
for s in range(1, T + 1):
    alpha_bar[s] = alpha_bar[s - 1] * (1 - beta[s])''',
    "ForwardMask": '''
out = [x_0.clone()]
while len(out) <= t:
    prev = out[-1]
    coin = torch.bernoulli(torch.full(prev.shape, float(beta[len(out)])))
    out.append(torch.where(coin.bool(), torch.tensor(MASK), prev))
return out''',
    "ForwardMaskFast": '''
import random
p = 1 - alpha_bar[t].item()
return torch.tensor([MASK if random.random() < p else int(tok) for tok in x_0])''',
    "plot_masked_fraction": '''
import numpy as np
T = 50
beta, alpha_bar = MakeSchedule(T)
n = repeats(1000)
counts = np.zeros(T + 1)
for run in range(n):
    for step, xt in enumerate(ForwardMask(x_0, T, beta)):
        counts[step] += (xt == MASK).sum().item() / len(xt)
fig, ax = plt.subplots()
ax.plot(np.arange(T + 1), counts / n, marker=".", linestyle="none", label="runs")
ax.plot(np.arange(T + 1), 1 - alpha_bar.numpy(), label="1 - alpha bar")
ax.set(xlabel="t", ylabel="masked")
ax.legend()''',
}

DEV = {
    "MakeSchedule": '''
import numpy as np
t = np.arange(T + 1)
b = np.where(t == 0, 0.0, 1.0 / np.maximum(T - t + 1, 1))
beta = torch.from_numpy(b)
alpha_bar = torch.from_numpy(np.cumprod(1 - b))''',
    "ForwardMask": '''
history = [x_0.clone()]
for s in range(t):
    nxt = history[-1].clone()
    mask_here = torch.rand(nxt.shape) < beta[s + 1]
    nxt.masked_fill_(mask_here, MASK)
    history += [nxt]
return history''',
    "ForwardMaskFast": '''
survive = torch.bernoulli(torch.full((len(x_0),), float(alpha_bar[t]))).bool()
return x_0.masked_fill(~survive, MASK)''',
    "plot_masked_fraction": '''
T = 50
beta, alpha_bar = MakeSchedule(T)
runs = [torch.stack(ForwardMask(x_0, T, beta)) for _ in range(repeats(1000))]
frac = (torch.stack(runs) == MASK).float().mean(dim=(0, 2))
plt.plot(frac, ".", label=f"mean over {len(runs)} runs")
plt.plot(1 - alpha_bar, label="exact")
plt.xlabel("step"); plt.ylabel("masked share")
plt.legend(); plt.show()''',
}

ELI = {
    "MakeSchedule": '''
beta = torch.zeros(T + 1, dtype=torch.float64)
alpha_bar = torch.ones(T + 1, dtype=torch.float64)
running = 1.0
for step in range(1, T + 1):
    beta[step] = 1 / (T + 1 - step)
    running = running * (1 - beta[step].item())
    alpha_bar[step] = running''',
    "ForwardMask": '''
sequence = x_0.tolist()
result = [torch.tensor(sequence)]
for step in range(1, t + 1):
    sequence = [MASK if torch.rand(()).item() < beta[step] else token for token in sequence]
    result.append(torch.tensor(sequence))
return result''',
    "ForwardMaskFast": '''
n = len(x_0)
k = int(torch.distributions.Binomial(n, torch.tensor(1 - float(alpha_bar[t]))).sample())
where = torch.randperm(n)[:k]
y = x_0.clone()
y[where] = MASK
return y''',
    "plot_masked_fraction": '''
T = 50
beta, alpha_bar = MakeSchedule(T)
N = repeats(1000)
sums = [0.0] * (T + 1)
for i in range(N):
    path = ForwardMask(x_0, T, beta)
    for s in range(T + 1):
        sums[s] += float((path[s] == MASK).float().mean())
average = [v / N for v in sums]
plt.scatter(range(T + 1), average, s=8, label="simulation")
plt.plot(range(T + 1), [1 - float(a) for a in alpha_bar], color="black", label="theory")
plt.xlabel("t"); plt.ylabel("fraction of [MASK]")
plt.legend()
plt.show()''',
}

SOLUTIONS = {"ana": ANA, "ben": BEN, "cara": CARA, "dev": DEV, "eli": ELI}
# the written answer of notebook 01 (telescoping_product): ben's is ana's, wrapped otherwise
ANSWERS = {
    "ana": "Each step keeps a token with probability 1 - beta_s = (T - s)/(T - s + 1), so the product\n"
           "telescopes: every numerator cancels the next denominator and alpha_bar_t = (T - t)/T = 1 - t/T.\n"
           "So the masked share grows linearly in t and reaches every token at t = T.",
    "ben": "Each step keeps a token with probability 1 - beta_s = (T - s)/(T - s + 1), so the\n\n"
           "product telescopes: every numerator cancels the next denominator   and alpha_bar_t = (T - t)/T = 1 - t/T. "
           "So the masked share grows linearly in t and reaches every token at t = T.",
    "cara": "Writing out the factors, (T-1)/T times (T-2)/(T-1) and so on down to (T-t)/(T-t+1), all middle "
            "terms cancel; what remains is (T-t)/T. A uniform schedule in disguise.",
}


def fill(stub, body):
    """A release solution cell with its `# YOUR CODE HERE / raise NotImplementedError()` replaced by
    body, indented as the stub was."""
    def put(match):
        indent = match.group(1)
        return "\n".join(indent + line if line else line for line in body.strip("\n").splitlines())
    return STUB.sub(put, stub, count=1)


def notebook(release, solutions, answer=None):
    """The release notebook (a dict, as JSON) with these cells filled in."""
    nb = json.loads(json.dumps(release))
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if gid in solutions:
            cell["source"] = fill(source, solutions[gid])
        elif answer and gid == "telescoping_product":
            cell["source"] = answer
    return nb


def write(course, workspace, renamed=None):
    """The class above, in workspace; renamed maps each student to the folder name used (the
    benchmark's synthetic students). Returns the students' folders."""
    release = json.loads((course.release_dir / NOTEBOOK).read_text())
    folders = {}
    for student in NAMES:
        folder = workspace / "submitted" / student / course.assignment
        folder.mkdir(parents=True)
        path = folder / NOTEBOOK
        if student == BROKEN:
            path.write_text(json.dumps(release)[:5000])
        else:
            nb = notebook(release, SOLUTIONS.get(student, {}), ANSWERS.get(student))
            path.write_text(json.dumps(nb, indent=1))
        folders[student] = folder
    with open(workspace / "grades-by-student.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "name", "platform_id", "01_noise_for_words", "total", "out_of"])
        writer.writerows([student, name, "", 0, 0, 18] for student, name in NAMES.items())
    return folders


def synthetic(course, workspace, students, seed=0):
    """`students` synthetic students for the benchmark, each handing in every notebook: notebook 01's
    solution cells drawn one by one from the five solutions above (so many pairs share a function, and
    some a whole notebook), the later notebooks' from the reference solution (every pair alike: the
    dearest case), each solution cell signed with a comment of its own (so no two students' texts are
    one), one student in ten leaving the release's stubs."""
    rng = random.Random(seed)
    release01 = json.loads((course.release_dir / NOTEBOOK).read_text())
    solved = {name: nbtools.solved(nbtools.read(course.source_dir / name), nbtools.read(course.release_dir / name))
              for name in course.notebooks() if name != NOTEBOOK}
    for i in range(students):
        folder = workspace / "submitted" / f"student{i:03d}" / course.assignment
        folder.mkdir(parents=True)
        if rng.random() < 0.1:
            for name in course.notebooks():
                (folder / name).write_bytes((course.release_dir / name).read_bytes())
            continue
        cells = {gid: SOLUTIONS[rng.choice(sorted(SOLUTIONS))][gid] + f"\n# student {i}" for gid in ANA}
        (folder / NOTEBOOK).write_text(json.dumps(notebook(release01, cells)))
        for name, nb in solved.items():
            nb = copy.deepcopy(nb)
            for cell in nb.cells:
                if nbtools.is_solution(cell) and cell.cell_type == "code":
                    cell.source += f"\n# student {i}"
            nbtools.write(nb, folder / name)
