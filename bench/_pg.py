"""The bench's read-only view of the bot's database, SQLite file or PostgreSQL, and a
throwaway PostgreSQL server (``tests.storage_backends``) for ``bench.load --postgres``."""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

__all__ = ["BenchDb", "postgres_server"]


class BenchDb:
    """Queries with ``?`` placeholders, on the SQLite file (read-only) or on PostgreSQL."""

    def __init__(self, sqlite: Path | None = None, url: str | None = None) -> None:
        self.sqlite = sqlite
        self.url = url
        self._pool: Any = None
        self._lock = asyncio.Lock()

    async def fetch(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        if self.url is None:
            assert self.sqlite is not None
            with contextlib.closing(
                sqlite3.connect(f"file:{self.sqlite}?mode=ro", uri=True)
            ) as conn:
                return conn.execute(sql, params).fetchall()
        import asyncpg

        async with self._lock:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(self.url, min_size=0, max_size=2)
        numbered = iter(range(1, 1000))
        query = re.sub(r"\?", lambda _: f"${next(numbered)}", sql)
        rows = await self._pool.fetch(query, *params)
        return [tuple(row) for row in rows]

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


@contextlib.asynccontextmanager
async def postgres_server() -> AsyncIterator[tuple[str, Any]]:
    """A throwaway PostgreSQL server and a fresh database on it: its URL, and the server
    (``halt()`` and ``launch()`` stop it and start it again). The server is stopped (and its
    folder removed) on the way out, whatever happened."""
    from tests.storage_backends import PostgresServer, unavailable_reason

    why = unavailable_reason()
    if why is not None:
        raise RuntimeError(f"--postgres: {why}")
    server = PostgresServer()
    try:
        await asyncio.to_thread(server.start)
        yield await server.new_database(), server
    finally:
        await asyncio.to_thread(server.stop)
