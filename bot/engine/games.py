"""Finds the games: every module and package of ``bot.engine`` is imported, and each game
registers itself in ``GAMES`` with ``@register``. A new game is a new module (or package) of
``bot.engine``; there is no list to keep."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterable

__all__ = ["import_all"]


def import_all(package: str, path: Iterable[str]) -> list[str]:
    """Import every module and subpackage of ``package`` (whose ``__path__`` is ``path``) but
    those named ``_...``, in name order, so that each registers what it declares. Returns the
    names found."""
    found = sorted(
        info.name for info in pkgutil.iter_modules(list(path)) if not info.name.startswith("_")
    )
    for name in found:
        module = f"{package}.{name}"
        if module not in sys.modules:
            importlib.import_module(module)
    return found


_ENGINE = __name__.rpartition(".")[0]
import_all(_ENGINE, sys.modules[_ENGINE].__path__)
