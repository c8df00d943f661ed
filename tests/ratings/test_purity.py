"""The ratings package is pure: importing it pulls in nothing of Discord, the database, the
clock or the runtime (``season_label`` reads the catalogs only when it is called)."""

from tests.ai.test_purity import FORBIDDEN_BOT, impure_imports

FORBIDDEN = ["discord", "asyncio", "aiosqlite", "sqlite3", "asyncpg", "apscheduler"]
"""The engine's list but ``datetime`` and ``time``: seasons are dates (never the clock)."""


def test_ratings_import_nothing_impure() -> None:
    out = impure_imports(
        "import bot.ratings.seasons, bot.ratings.model, bot.ratings.ledger, bot.ratings.settings",
        FORBIDDEN,
        FORBIDDEN_BOT,
        libraries=("pydantic", "openskill"),
    )
    assert out == "", f"bot.ratings imported: {out}"
