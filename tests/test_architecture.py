"""The dependency rule between packages, checked on the source (see ARCHITECTURE.md):
`dsl/` (the language) imports nothing from `kb/` (the runtime), and no module imports itself
back through others, not even through an import hidden inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "kb")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
        if ".venv" not in p.parts and "__pycache__" not in p.parts
    }


def _type_checking_only(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules `name` imports anywhere in its body (type-checking-only ones aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_language_imports_nothing_from_the_runtime() -> None:
    edges = graph()
    wrong = sorted(
        f"{m} -> {t}"
        for m, ts in edges.items()
        if m.split(".")[0] == "dsl"
        for t in ts
        if t.split(".")[0] == "kb"
    )
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert not found, "\n".join(" <-> ".join(c) for c in found)


def test_the_checks_can_fail() -> None:
    """The cycle finder sees a cycle, and the import reader sees a function-local import."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    known = set(_modules())
    assert "kb.scan.regexes" in imports_of("kb", ROOT / "kb" / "__init__.py", known)


def _sources_of(package: str) -> dict[str, str]:
    return {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in (ROOT / package).rglob("*.py")
        if "__pycache__" not in p.parts
    }


def test_the_readers_byte_shortcut_lives_in_one_place() -> None:
    """The "ank" test (a line that never spells rank is its file's rank) is fastpath.py's."""
    spelled = sorted(
        path
        for path, text in _sources_of("kb").items()
        if ('"ank"' in text or "b'ank'" in text) and not path.endswith("fastpath.py")
    )
    assert not spelled, spelled


def test_sources_are_typed_with_their_context() -> None:
    untyped = sorted(
        path for path, text in _sources_of("kb/evidence").items() if "ctx: object" in text
    )
    assert not untyped, untyped
