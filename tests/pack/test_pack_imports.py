"""No import cycle between the pack's modules: each module's imports (at module level or inside a function, read
from its syntax tree) form no circle. A new law goes in a room of its own (docs/writing-laws.md); a module's own
parent packages, which Python imports before it, are no edge of its making."""

from __future__ import annotations

import ast
from pathlib import Path

PACK = Path(__file__).resolve().parents[2] / "pytest_physlaw" / "pack"
KNOWN: set[frozenset[str]] = set()  # cycles tolerated for now: none


def imports(root: Path = PACK) -> dict[str, set[str]]:
    """{module: the pack's modules it imports}."""
    base = root.parents[1]
    names = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(base).with_suffix("")
        names[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = path
    edges: dict[str, set[str]] = {m: set() for m in names}
    for module, path in names.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges[module] |= {a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    parts = package.split(".")
                    source = ".".join(parts[: len(parts) - node.level + 1] + ([source] if source else []))
                subs = {f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in names}
                edges[module] |= subs
                if source in names and len(subs) < len(node.names):
                    edges[module].add(source)
        edges[module] = {e for e in edges[module] if e != module and not module.startswith(e + ".")}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_pack_has_no_import_cycle() -> None:
    assert [sorted(c) for c in cycles(imports()) if c not in KNOWN] == []


def test_the_scan_finds_a_cycle(tmp_path: Path) -> None:
    """The scan sees a circle through a function-level import (the one routes.common and routes.newton had)."""
    pack = tmp_path / "pytest_physlaw" / "pack"
    pack.mkdir(parents=True)
    (pack / "__init__.py").write_text("")
    (pack / "a.py").write_text("from pytest_physlaw.pack.b import x\n")
    (pack / "b.py").write_text("def x():\n    from pytest_physlaw.pack import a\n")
    assert cycles(imports(pack)) == [frozenset({"pytest_physlaw.pack.a", "pytest_physlaw.pack.b"})]
