"""No import cycle between pytest_physlaw's modules: every import statement (at module level or inside a
function) read from the source by AST, the strongly connected components of that graph of more than one module.
A package's own `from pkg import sub` counts as an import of `sub` alone, not of the package's __init__."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_physlaw"


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for file in root.rglob("*.py"):
        parts = (root.name, *file.relative_to(root).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    return found


def imports(name: str, file: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules `name` imports."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if file.name == "__init__.py" else name.split(".")[:-1]
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            subs = [f"{base}.{a.name}" for a in node.names]
            out.update(subs)
            if any(s not in known for s in subs):  # a name defined in the package itself
                out.add(base)
    return {m for m in out if m in known and m != name}


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return found


def test_the_finder_finds_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (pkg / "c.py").write_text("from . import a\n")
    known = modules(pkg)
    graph = {m: imports(m, f, known) for m, f in known.items()}
    assert cycles(graph) == [("pkg.a", "pkg.b")]


def test_no_import_cycle_in_the_plugin() -> None:
    known = modules(PACKAGE)
    graph = {m: imports(m, f, known) for m, f in known.items()}
    assert "pytest_physlaw.findings" in graph["pytest_physlaw.upgrade"]
    assert cycles(graph) == []
