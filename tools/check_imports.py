#!/usr/bin/env python3
"""Check shlo's imports: layers one way, no cycles, no private names across modules, bindings
in their modules.

    python3 tools/check_imports.py          # exit 1 and one line per problem, else a summary

Layers follow the data flow (`LAYERS`, top first): a module imports its own folder and the
layers below, never a layer above nor a peer folder of its own layer.

Every import counts, the ones inside functions too (a cycle that only closes at run time is
still a cycle); imports under `if TYPE_CHECKING:` do not, as they never run.  The MLIR, IREE
and TensorFlow bindings may be imported only by the modules in `BINDING_MODULES`.  Standard
library only.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# package -> folder, as pyproject.toml maps them
SOURCES = {"shlo": ROOT / "python" / "shlo", "shlo.passes": ROOT / "passes"}
# The project's other Python (tests, tools, benchmarks, examples): no private names from shlo.
USERS = ("tests", "tools", "benchmarks", "examples")
BINDINGS = ("torch_mlir", "iree", "tensorflow", "jax", "jaxlib")
BINDING_MODULES = {
    "shlo.ir.stablehlo": "torch-mlir's MLIR bindings with StableHLO",
    "shlo.ir.iree": "IREE's MLIR bindings",
    "shlo.runtime.bindings": "IREE's runtime bindings",
    "shlo.frontend.fx_importer": "torch-mlir's FX importer and its internals",
    "shlo.serving.tf_writer": "TensorFlow, in a child process (its MLIR and torch-mlir's clash)",
    "shlo.jax.child": "JAX, in a child process (shlo's own never loads jaxlib by default)",
    "shlo.jax.artifacts": "jaxlib's StableHLO, in JAX's child process",
    "shlo.jax.harness_child": "JAX, in the harness sweep's child process",
    "shlo.jax.harness_cases": "JAX, in the harness sweep's child process",
    "shlo.jax.linalg_child": "JAX, in the linear-algebra child process",
    "shlo.jax.linalg_algorithms": "JAX, in the JAX child processes",
    "shlo.jax.linalg_contracts": "JAX, in the JAX child processes",
}

# Folders and top-level modules, from the top layer down.  Within a layer the folders are
# peers that never import each other: the products compose the stages, the stages share what
# lies below them.
LAYERS = (
    ("shlo.__main__",),  # `python -m shlo`
    ("shlo.tools",),  # the commands
    ("shlo", "shlo.api"),  # the Python entry points
    ("shlo.serving",),  # SavedModels, from what the products make
    ("shlo.torch", "shlo.jax", "shlo.compare"),  # products: PyTorch, JAX end to end; the oracles
    ("shlo.passes",),  # shlo's own passes, reached by name through the pipeline
    ("shlo.frontend", "shlo.backend", "shlo.interpreter"),  # the stages
    ("shlo.runtime",),
    ("shlo.pipeline",),
    ("shlo.ir",),
    ("shlo.support", "shlo.errors", "shlo.lifetime", "shlo.settings"),  # host and process facts
)
# The one edge upward: the pipeline finds shlo's own passes by name in the index that the
# `shlo.passes` package holds (a table that imports nothing), then imports the pass's module
# by its name.
INDEX_EDGE = ("shlo.pipeline.python_registry", "shlo.passes")


def unit(module: str) -> tuple[int, str]:
    """(layer, folder) of `module`: the longest entry of `LAYERS` it lies in."""
    best = (len(LAYERS), "")
    for layer, entries in enumerate(LAYERS):
        for entry in entries:
            inside = module == entry or (entry != "shlo" and module.startswith(entry + "."))
            if inside and len(entry) > len(best[1]):
                best = (layer, entry)
    return best


def layer_problems(graph: dict[str, set[str]]) -> list[str]:
    """Imports that go up a layer or across to a peer folder."""
    problems = []
    for name, targets in sorted(graph.items()):
        here = unit(name)
        for target in sorted(targets):
            there = unit(target)
            if there[1] == here[1] or (name, target) == INDEX_EDGE:
                continue
            if there[0] <= here[0]:
                way = "a peer" if there[0] == here[0] else "a layer above"
                problems.append(f"{name} imports {target}, {way} ({there[1]} from {here[1]})")
    return problems


def modules() -> dict[str, Path]:
    """Every module of the project by dotted name (a package by its `__init__.py`)."""
    found: dict[str, Path] = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under `node` that run, skipping `if TYPE_CHECKING:` bodies."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for orelse in child.orelse:
                yield from _imports(orelse)
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        yield from _imports(child)


def _targets(statement: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> list[tuple]:
    """(module imported, names taken from it) for one statement."""
    if isinstance(statement, ast.Import):
        return [(alias.name, []) for alias in statement.names]
    base = statement.module or ""
    found = []
    for alias in statement.names:
        submodule = f"{base}.{alias.name}"
        found.append((submodule, []) if submodule in known else (base, [alias.name]))
    return found


def check(known: dict[str, Path]) -> tuple[list[str], dict[str, set[str]]]:
    """Private-name and binding problems, and the import graph between project modules."""
    problems: list[str] = []
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        tree = ast.parse(path.read_text(), str(path))
        for statement in _imports(tree):
            where = f"{path.relative_to(ROOT)}:{statement.lineno}"
            for target, names in _targets(statement, known):
                if target.split(".")[0] in BINDINGS and name not in BINDING_MODULES:
                    problems.append(f"{where}: imports {target}; only {sorted(BINDING_MODULES)}")
                if target in known and target != name:
                    graph[name].add(target)
                    problems += _private(where, target, names)
    return problems, graph


def _private(where: str, target: str, names: list[str]) -> list[str]:
    private = [n for n in names if n.startswith("_") and not n.startswith("__")]
    return [f"{where}: imports private {target}.{n}" for n in private]


def user_problems(known: dict[str, Path]) -> list[str]:
    """Private names of shlo imported by the tests, tools, benchmarks or examples."""
    problems: list[str] = []
    for folder in USERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for statement in _imports(ast.parse(path.read_text(), str(path))):
                where = f"{path.relative_to(ROOT)}:{statement.lineno}"
                for target, names in _targets(statement, known):
                    if target in known:
                        problems += _private(where, target, names)
    return problems


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    stack = list(graph[start])
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(graph[node])
    return seen


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other, directly or through others."""
    reach = {node: _reachable(graph, node) for node in graph}
    groups = {
        tuple(sorted({node} | {other for other in reach[node] if node in reach[other]}))
        for node in graph
        if node in reach[node]
    }
    return [list(group) for group in sorted(groups)]


def main() -> int:
    known = modules()
    problems, graph = check(known)
    problems += user_problems(known)
    problems += [f"import cycle: {' <-> '.join(component)}" for component in cycles(graph)]
    problems += layer_problems(graph)
    if SOURCES["shlo.passes"].joinpath("__init__.py").read_text().count("import "):
        problems.append("passes/__init__.py imports: the index the pipeline reads must not")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_imports: {len(problems)} problem(s)")
        return 1
    edges = sum(map(len, graph.values()))
    print(
        f"check_imports: {len(known)} modules, {edges} imports: {len(LAYERS)} layers one way, "
        f"no cycles, no private names across modules or from {', '.join(USERS)}, bindings only "
        f"in {len(BINDING_MODULES)} "
        "modules"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
