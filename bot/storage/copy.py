"""``python -m bot copy-database --to postgresql://...``: the SQLite database into PostgreSQL.

The source is the configured SQLite file (``DATABASE_PATH``), brought to the latest schema
first as a start-up would. The target must be empty: no table at all, or the bot's schema
with no row. Every table is copied in one PostgreSQL transaction (``COPY``), the identity
sequences move past the copied ids, and the row counts of both sides are compared per table
before the commit: a mismatch rolls everything back.

Stop the bot first: rows written during the copy would not be in it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.clock import SystemClock
from bot.storage import Database, Store
from bot.storage.pg_schema import IDENTITY_TABLES, TABLES
from bot.storage.postgres import PostgresDatabase, redact

__all__ = ["CopyFailed", "copy_database"]


class CopyFailed(RuntimeError):
    """The copy did not happen (the message says why); nothing was written."""


async def _sqlite_tables(db: Database) -> list[str]:
    rows = await db.fetchall(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    return [str(row[0]) for row in rows]


async def _check_empty(target: PostgresDatabase) -> None:
    tables = await target.table_names()
    if not tables:
        return
    full = []
    for table in tables:
        count = await target.fetchval(f'SELECT COUNT(*) FROM "{table}"')  # noqa: S608
        if count and table != "schema_version":
            full.append(f"{table} has {count} rows")
    unknown = sorted(set(tables) - {*TABLES, "schema_version"})
    if full or unknown:
        what = "; ".join(full + [f"unknown table {t}" for t in unknown])
        raise CopyFailed(f"the target database is not empty ({what}): give an empty database")


async def _copy(source: Path, url: str, say: Callable[[str], None]) -> None:
    if not source.exists():
        raise CopyFailed(f"no SQLite database at {source} (DATABASE_PATH)")
    clock = SystemClock()
    sqlite = Store(Database(source), clock)
    target = Store(PostgresDatabase(url), clock)
    version = await sqlite.open()
    try:
        pg = target.db
        if not isinstance(pg, PostgresDatabase):
            raise TypeError("the target is not PostgreSQL")
        await pg.open()
        await _check_empty(pg)
        pg_version = await target.open()  # the schema (a no-op if it is there already)
        if pg_version != version:
            raise CopyFailed(f"schema versions differ: SQLite {version}, PostgreSQL {pg_version}")
        tables = await _sqlite_tables(sqlite.db)
        missing = sorted(set(tables) - set(TABLES))
        if missing:
            raise CopyFailed(f"PostgreSQL has no table {', '.join(missing)}")
        counts: list[tuple[str, int, int]] = []
        async with pg.transaction() as tx:
            for table in TABLES:
                rows = await sqlite.db.fetchall(f"SELECT * FROM {table}")  # noqa: S608
                columns = list(rows[0].keys()) if rows else await _columns(sqlite, table)
                records: list[tuple[Any, ...]] = [tuple(row) for row in rows]
                if records:
                    await pg.copy_rows(tx, table, columns, records)
                if table in IDENTITY_TABLES:
                    await tx.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"  # noqa: S608
                        f" coalesce(max(id), 0) + 1, false) FROM {table}"
                    )
                cur = await tx.execute(f"SELECT COUNT(*) FROM {table}")  # noqa: S608
                row = await cur.fetchone()
                counts.append((table, len(records), int(row[0])))
            width = max(len(t) for t, _, _ in counts)
            say(f"{'table':<{width}}  {'sqlite':>8}  {'postgresql':>10}")
            for table, expected, got in counts:
                mark = "" if expected == got else "  MISMATCH"
                say(f"{table:<{width}}  {expected:>8}  {got:>10}{mark}")
            bad = [t for t, expected, got in counts if expected != got]
            if bad:
                raise CopyFailed(f"row counts differ for {', '.join(bad)}: nothing was copied")
        total = sum(got for _, _, got in counts)
        say(f"copied {total} rows of {len(counts)} tables into {redact(url)}")
    finally:
        await target.close()
        await sqlite.close()


async def _columns(store: Store, table: str) -> list[str]:
    rows = await store.db.fetchall(f"PRAGMA table_info({table})")
    return [str(row["name"]) for row in rows]


async def copy_database(source: Path, url: str, say: Callable[[str], None] = print) -> int:
    """Copy, print the counts through ``say``; the exit code (0, or 1 when nothing was
    copied: a target not empty, a mismatch, a server out of reach)."""
    from bot.storage.postgres import DatabaseUnavailable

    try:
        await _copy(source, url, say)
    except (CopyFailed, DatabaseUnavailable) as err:
        say(f"gamenight: copy-database: {err}")
        return 1
    return 0
