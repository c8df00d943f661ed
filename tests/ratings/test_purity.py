"""The ratings package is pure: importing it pulls in nothing of Discord, the database, the
clock or the runtime (``season_label`` reads the catalogs only when it is called)."""

import subprocess
import sys

FORBIDDEN = ["discord", "asyncio", "aiosqlite", "sqlite3", "asyncpg", "apscheduler"]
FORBIDDEN_BOT = ["bot.storage", "bot.ui", "bot.private", "bot.client", "bot.timers", "bot.clock"]


def test_ratings_import_nothing_impure() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import bot.ratings.seasons, bot.ratings.model, bot.ratings.ledger, bot.ratings.settings\n"
        "new = set(sys.modules) - before\n"
        f"bad = sorted(m for m in new if m.split('.')[0] in {FORBIDDEN!r}\n"
        f"             or m.split('.')[0] == 'cogs'\n"
        f"             or any(m == b or m.startswith(b + '.') for b in {FORBIDDEN_BOT!r}))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"bot.ratings imported: {out}"
