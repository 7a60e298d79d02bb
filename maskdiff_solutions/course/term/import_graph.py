"""Import graphs read from source, without importing anything: every `import` and `from ... import`
of a module, wherever it stands (a function-level import that dodges a loop is still a loop), one
loop of a graph if it has any, and every module a set of modules needs. The Gradescope autograder
(course/term/gradescope.py) holds only what its notebooks' checks need; tests/course/test_layers.py
reads course/'s wings with it, tests/test_package.py the whole repository. A module imported by a
name built at run time (importlib) is not seen: the packages' own lazy imports are such."""
import ast
from pathlib import Path


def modules(root, package):
    """{dotted name: path} for every module under the folder `root` of the package named `package`
    (a package under its own name, read from its __init__.py)."""
    found = {}
    for path in sorted(Path(root).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        found[".".join((package, *parts))] = path
    return found


def imports(path, name, known):
    """The modules of `known` (dotted names) that the module `name` at `path` imports."""
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = set()

    def add(base, names):
        for item in names:
            dotted = ".".join([*base, item])
            if dotted in known:
                found.add(dotted)
            else:
                nearest = list(base)
                while nearest and ".".join(nearest) not in known:
                    nearest.pop()
                if nearest:
                    found.add(".".join(nearest))

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            if node.level:
                if node.level - 1 > len(package):
                    continue
                base = package[:len(package) - (node.level - 1)]
                add(base + (node.module.split(".") if node.module else []), names)
            elif node.module:
                add(node.module.split("."), names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                dotted = alias.name.split(".")
                while dotted and ".".join(dotted) not in known:
                    dotted.pop()
                if dotted:
                    found.add(".".join(dotted))
    found.discard(name)
    return found


def graph(found):
    """{module: modules it imports} over the modules of `found` ({dotted name: path})."""
    return {name: imports(path, name, found) for name, path in found.items()}


def closure(found, roots):
    """The modules of `found` ({dotted name: path}) that importing `roots` runs: each root, what it
    imports, and so on, with every package above each (Python runs their __init__ first)."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in found:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:n]) for n in range(1, len(parts))]
        todo += imports(found[name], name, found)
    return seen


def cycle(edges):
    """One import loop as [a, b, ..., a], or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None
