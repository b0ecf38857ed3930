"""The package's modules import one another in one direction only: the
import graph inside ``larder`` has no cycle, counting every import — at
module level, under ``if TYPE_CHECKING:`` and inside functions — since each
is a dependency a reader has to follow (and a back-edge under
``TYPE_CHECKING`` is what lets a helper module come to depend on the client
that uses it)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "larder"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` (at ``path``) imports anywhere in
    its text. ``from . import x`` names the module ``x`` when there is one,
    else the package; ``from .m import x`` names ``m``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imported(name, path, set(found)) for name, path in found.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's
    algorithm), each sorted, plus any module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_is_read_from_every_module_with_every_kind_of_import():
    graph = import_graph()
    assert "larder" in graph and "larder.aio" in graph and "larder.client" in graph
    assert "larder.errors" in graph["larder"]  # `from . import errors` names the module


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    found = cycles(graph)
    described = ["{" + ", ".join(c) + "}: " + "; ".join(
        f"{m} imports {', '.join(sorted(graph[m] & set(c)))}" for m in c) for c in found]
    assert not found, "import cycles in the larder package:\n" + "\n".join(described)


def test_a_cycle_is_found_however_it_is_imported(tmp_path):
    # Each edge of the one cycle is of another kind: at module level, under
    # TYPE_CHECKING, inside a function; `d` only leans on it.
    sources = {
        "a": "from .b import B\n",
        "b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\nB = 1\n",
        "c": "def f():\n    from . import a\n    return a\nC = 2\n",
        "d": "from .a import *\n",
    }
    root = tmp_path / "p"
    root.mkdir()
    known = {"p"} | {f"p.{n}" for n in sources}
    graph: dict[str, set[str]] = {"p": set()}
    for n, text in sources.items():
        (root / f"{n}.py").write_text(text)
        graph[f"p.{n}"] = imported(f"p.{n}", root / f"{n}.py", known)
    assert graph["p.d"] == {"p.a"}
    assert cycles(graph) == [["p.a", "p.b", "p.c"]]
