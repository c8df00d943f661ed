"""The import rules that keep the house together, read from the sources (nothing imported):

- the engine imports nothing else of the project (``bot.engine`` only);
- computer players (``bot.ai``) import only the engine and themselves;
- a game night's rules (``bot.nights``) import only the engine and themselves;
- storage and the runtime (``bot``) never import a cog;
- a cog never imports another cog.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("bot", "cogs", "tests", "bench")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every project module ``path`` imports, anywhere in the file (functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in PROJECT}


def sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_rules_see_every_source() -> None:
    assert sources("bot/engine") and sources("cogs") and sources("bot/storage")


@pytest.mark.parametrize("path", sources("bot/engine"), ids=lambda p: p.name)
def test_the_engine_imports_only_itself(path: Path) -> None:
    bad = sorted(n for n in imports(path) if not under(n, "bot.engine"))
    assert bad == [], f"{path.name} imports {bad}"


def test_computer_players_import_only_the_engine() -> None:
    for path in sources("bot/ai"):
        bad = sorted(n for n in imports(path) if not (under(n, "bot.engine") or under(n, "bot.ai")))
        assert bad == [], f"{path.name} imports {bad}"


def test_a_nights_rules_import_only_the_engine() -> None:
    assert sources("bot/nights")
    for path in sources("bot/nights"):
        bad = sorted(
            n for n in imports(path) if not (under(n, "bot.engine") or under(n, "bot.nights"))
        )
        assert bad == [], f"{path.name} imports {bad}"


def test_the_runtime_and_storage_never_import_a_cog() -> None:
    for path in sources("bot"):
        bad = sorted(n for n in imports(path) if under(n, "cogs") or under(n, "tests"))
        assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_a_cog_never_imports_another() -> None:
    for path in sources("cogs"):
        name = module_name(path)
        if name == "cogs":
            continue
        own = ".".join(name.split(".")[:2])
        bad = sorted(n for n in imports(path) if under(n, "cogs") and not under(n, own))
        assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"
