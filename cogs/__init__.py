"""Discord cogs, one per game plus the shared commands; each is thin over bot.engine.

The bot loads every module (``cogs/<name>.py``) or package (``cogs/<name>/__init__.py``)
here whose source defines a top-level ``setup`` function — found by reading the source, not
by importing it — so a game's cog is picked up as soon as it exists, and a game whose cog is
not written yet cannot break start-up. Names starting with ``_`` are never loaded.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

__all__ = ["discover_cogs"]


def _defines_setup(source: Path) -> bool:
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return False
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "setup"
        for node in tree.body
    )


def discover_cogs(folder: Path | None = None, package: str = __name__) -> list[str]:
    """Dotted names of the cog modules to load, sorted (``["cogs.config", "cogs.help"...]``)."""
    root = folder or Path(__file__).parent
    found = []
    for module in pkgutil.iter_modules([str(root)]):
        if module.name.startswith("_"):
            continue
        path = root / module.name / "__init__.py" if module.ispkg else root / f"{module.name}.py"
        if _defines_setup(path):
            found.append(f"{package}.{module.name}")
    return sorted(found)
