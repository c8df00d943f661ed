"""Finding the cogs to load, without importing them.

The bot loads every module (``cogs/<name>.py``) or package (``cogs/<name>/__init__.py``) of
the ``cogs`` package whose source defines a top-level ``setup`` function — found by reading
the source, not by importing it — so a game's cog is picked up as soon as it exists, and a
game whose cog is not written yet cannot break start-up. Names starting with ``_`` are never
loaded. The runtime never imports a cog itself: discord.py loads them as extensions.
"""

from __future__ import annotations

import ast
import importlib.util
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


def _package_folder(package: str) -> Path:
    spec = importlib.util.find_spec(package)  # a top-level package is found, not imported
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"no {package!r} package to load cogs from")
    return Path(next(iter(spec.submodule_search_locations)))


def discover_cogs(folder: Path | None = None, package: str = "cogs") -> list[str]:
    """Dotted names of the cog modules to load, sorted (``["cogs.config", "cogs.help"...]``)."""
    root = folder or _package_folder(package)
    found = []
    for module in pkgutil.iter_modules([str(root)]):
        if module.name.startswith("_"):
            continue
        path = root / module.name / "__init__.py" if module.ispkg else root / f"{module.name}.py"
        if _defines_setup(path):
            found.append(f"{package}.{module.name}")
    return sorted(found)
