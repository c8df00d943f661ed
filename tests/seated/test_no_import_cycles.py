"""No import circle among the bot's modules (``bot.*``): each module's top-level imports
(those under ``if TYPE_CHECKING:`` excepted, and those inside functions) form a graph with
no cycle, so every module can be read, and imported, on its own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "bot"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in (ROOT / PACKAGE).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level_imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Imports run when the module is imported: at top level, or inside a top-level
    ``if``/``try`` (not ``if TYPE_CHECKING:``); never those inside functions or classes."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                found += _top_level_imports(node.body)
            found += _top_level_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody):
                found += _top_level_imports(block)
            for handler in node.handlers:
                found += _top_level_imports(handler.body)
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The bot modules ``name`` imports; its own parent packages are not counted (Python
    imports them before it in any case)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in _top_level_imports(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            targets.add(sub if sub in modules else base)
    return {t for t in targets if t in modules and t != name and not name.startswith(t + ".")}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
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
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_type_checking_imports_do_not_count() -> None:
    body = ast.parse(
        "import x\nif TYPE_CHECKING:\n    import y\nelse:\n    import z\ndef f():\n    import w\n"
    ).body
    names = [alias.name for node in _top_level_imports(body) for alias in node.names]
    assert names == ["x", "z"]


def test_no_import_cycle_among_bot_modules() -> None:
    modules = _modules()
    assert "bot.seated.cog" in modules
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert graph["bot.seated.cog"] >= {"bot.seated.challenge", "bot.seated.moves"}
    assert _cycles(graph) == []
