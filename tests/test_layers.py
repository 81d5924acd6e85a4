"""The floors of the package stay as docs/architecture.md draws them.

Every import of an ember module by another is read from the source (module level and inside
functions alike: an import inside a function still makes the arrow, it only hides it) and
checked against the floors below. A part may import its own modules and the parts on lower
floors; parts on one floor are siblings and do not import each other. The package face
(``ember/__init__.py``) sits on top and no part imports it. The same walk finds import circles
between modules and files that have outgrown one idea.

``python tests/test_layers.py`` prints what it finds without running pytest.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ember"

# part -> floor. Order along the op path: what a tensor is, how an op is dispatched, the ops
# (device-agnostic: they never see a kernel), the kernels that implement them per device and
# autograd over them, then the parts built on the op system, then the libraries.
FLOORS = {
    "_core": 0,
    "dispatch": 1,
    "ops": 2,
    "kernels": 3,
    "autograd": 3,
    "interop": 4,
    "multiprocessing": 4,
    "graph": 5,
    "distributed": 5,
    "sparse": 6,
    "array_api": 7,
    "linalg": 7,
    "fft": 7,
    "special": 7,
    "io": 7,
    "memory": 7,
    "backends": 7,
    "cuda": 7,
    "nn": 8,
    "optim": 8,
    "distributions": 8,
    "utils": 9,
    "compat": 9,
    "ember": 10,  # the face
}

MAX_LINES = 800  # a file past this holds more than one idea


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _imported(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, modules) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    # `from . import x` imports the submodule x when there is one, else a name of the package
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]


@functools.cache
def import_edges() -> list[tuple[str, str, int, bool]]:
    """(importer, imported, line, inside a function) for every import of an ember module."""
    modules = _modules()
    edges = []
    for module, (path, is_package) in modules.items():
        for node, nested in _imports(ast.parse(path.read_text()), False):
            for target in _imported(module, is_package, node, modules):
                if target != "ember" and not target.startswith("ember."):
                    continue
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != module:
                    edges.append((module, target, node.lineno, nested))
    return edges


def _imports(node: ast.AST, nested: bool):
    """The import statements under ``node``, each with whether a function holds it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            if getattr(child, "module", None) != "__future__":
                yield child, nested
        else:
            yield from _imports(child, nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def part_of(module: str) -> str:
    names = module.split(".")
    return names[1] if len(names) > 1 else "ember"


def upward_arrows(edges) -> dict[str, list[str]]:
    """Arrows to a part on the same or a higher floor, with the lines that make them."""
    found = defaultdict(list)
    for src, dst, line, _ in edges:
        a, b = part_of(src), part_of(dst)
        if a != b and FLOORS[b] >= FLOORS[a]:
            found[f"{src} -> {dst}"].append(f"{src}:{line}")
    return dict(found)


def circles(edges) -> list[tuple[str, ...]]:
    """Strongly connected groups of modules (Tarjan's algorithm, iterative)."""
    graph = defaultdict(set)
    for src, dst, _, _ in edges:
        graph[src].add(dst)
    index, low, stack, on_stack, groups = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(tuple(sorted(group)))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return groups


def long_files() -> dict[str, int]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            found[str(path.relative_to(PACKAGE.parent))] = lines
    return found


def test_every_part_has_a_floor():
    parts = {part_of(m) for m in _modules()}
    assert parts <= set(FLOORS), f"parts without a floor in FLOORS: {sorted(parts - set(FLOORS))}"


def test_imports_point_down():
    found = upward_arrows(import_edges())
    assert not found, "imports that reach up or sideways (import the owning lower part instead):\n" + "\n".join(
        f"  {k}  ({', '.join(v)})" for k, v in sorted(found.items())
    )


def test_no_import_circles():
    groups = circles(import_edges())
    assert not groups, "import circles:\n" + "\n".join(f"  {' <-> '.join(g)}" for g in groups)


def test_files_stay_focused():
    found = long_files()
    assert not found, f"files over {MAX_LINES} lines (split them by idea): {found}"


def test_the_checks_see_a_circle_and_an_upward_arrow():
    # a made-up import graph: dispatch reaching up into ops, and two ops modules importing each other
    edges = [
        ("ember.dispatch.trace", "ember.ops.schema", 1, True),
        ("ember.ops.a", "ember.ops.b", 1, False),
        ("ember.ops.b", "ember.ops.a", 2, True),
    ]
    assert list(upward_arrows(edges)) == ["ember.dispatch.trace -> ember.ops.schema"]
    assert circles(edges) == [("ember.ops.a", "ember.ops.b")]


if __name__ == "__main__":
    edges = import_edges()
    nested = [e for e in edges if e[3]]
    print(f"{len(edges)} imports of ember modules, {len(nested)} of them inside functions ({len({e[0] for e in nested})} files)")
    for arrow, lines in sorted(upward_arrows(edges).items()):
        print(f"upward: {arrow}  {', '.join(lines)}")
    for group in circles(edges):
        print(f"circle of {len(group)}: {', '.join(group)}")
    sizes = sorted(len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py"))
    print(f"{len(sizes)} files, median {sizes[len(sizes) // 2]} lines; over {MAX_LINES}: {long_files()}")
