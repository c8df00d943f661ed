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
    from bot.engine import GAMES

    assert {"spaye", "papayoo"} <= set(GAMES)
