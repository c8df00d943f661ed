"""The engine is pure: importing it pulls in no discord, asyncio, database or clock."""

import subprocess
import sys

FORBIDDEN = ["discord", "asyncio", "aiosqlite", "sqlite3", "apscheduler", "datetime", "time"]


def test_engine_imports_nothing_impure() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import bot.engine\n"
        "new = set(sys.modules) - before\n"
        f"bad = sorted(m for m in new if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"bot.engine imported: {out}"


def test_games_registered() -> None:
    """Every game the engine's modules define is registered under its kind (found, not
    listed)."""
    import inspect

    from bot.engine import GAMES
    from bot.engine.base import Game

    defined = {
        cls.kind
        for name, module in list(sys.modules.items())
        if name.startswith("bot.engine.")
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, Game) and cls.__module__ == name and "kind" in vars(cls)
    }
    assert len(defined) > 1 and defined <= set(GAMES)
    assert all(GAMES[kind].__module__.startswith("bot.engine.") for kind in defined)
