"""The one SQLite connection: WAL, foreign keys, busy timeout, serialized transactions.

Every write runs in ``BEGIN IMMEDIATE`` behind one asyncio lock::

    async with db.transaction() as conn:
        await conn.execute("UPDATE ...", (...,))

A transaction opened inside another one *by the same task* joins it as a ``SAVEPOINT``: the
repositories can be composed (``GameStore.act(..., in_tx=...)`` calls other stores inside its
own transaction) and an error inside the inner block rolls back only that block if caught.
Reads take the same lock (:meth:`Database.read`) so they never see another task's
uncommitted writes on the shared connection.

Never await Discord (or anything slow) inside a transaction: the lock is global.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

__all__ = ["Database", "DatabaseClosed", "Params"]

log = logging.getLogger("gamenight.storage")

Params = Sequence[Any] | dict[str, Any]

BUSY_TIMEOUT_MS = 5000


class DatabaseClosed(RuntimeError):
    """The database is not open (before start-up or after shutdown)."""


class Database:
    """Owns the long-lived aiosqlite connection of the bot."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    async def open(self) -> None:
        """Connect and set the pragmas. Creates the parent folder of the file if needed."""
        if self._conn is not None:
            return
        if isinstance(self.path, Path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(self.path), isolation_level=None)
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = FULL")
        await conn.execute("PRAGMA foreign_keys = ON")
        self._conn = conn
        log.info("database opened", extra={"path": str(self.path)})

    async def close(self) -> None:
        """Wait for the running transaction, then close. Safe to call twice."""
        if self._conn is None:
            return
        async with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()
        log.info("database closed", extra={"path": str(self.path)})

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise DatabaseClosed("the database is not open")
        return self._conn

    def _in_own_transaction(self) -> bool:
        task = asyncio.current_task()
        return task is not None and self._owner is task

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``), or a savepoint when nested in one."""
        if self._in_own_transaction():
            async with self._savepoint() as conn:
                yield conn
            return
        async with self._lock:
            conn = self._connection()
            self._owner = asyncio.current_task()
            try:
                await conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    await conn.execute("ROLLBACK")
                    raise
                await conn.execute("COMMIT")
            finally:
                self._owner = None

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[aiosqlite.Connection]:
        conn = self._connection()
        self._depth += 1
        name = f"sp{self._depth}"
        await conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            await conn.execute(f"ROLLBACK TO {name}")
            await conn.execute(f"RELEASE {name}")
            raise
        else:
            await conn.execute(f"RELEASE {name}")
        finally:
            self._depth -= 1

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection for reads (inside the current task's transaction if there is one)."""
        if self._in_own_transaction():
            yield self._connection()
            return
        async with self._lock:
            yield self._connection()

    async def fetchone(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        async with self.read() as conn, conn.execute(sql, params) as cur:
            row: sqlite3.Row | None = await cur.fetchone()
            return row

    async def fetchall(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        async with self.read() as conn, conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def fetchval(self, sql: str, params: Params = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]

    async def execute(self, sql: str, params: Params = ()) -> int:
        """One write statement in its own transaction (or the current one); returns rowcount."""
        async with self.transaction() as conn, conn.execute(sql, params) as cur:
            return cur.rowcount

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        async with self.transaction() as conn:
            await conn.executemany(sql, rows)

    async def pragma(self, name: str) -> Any:
        """Read one pragma (``journal_mode``, ``user_version``, ``foreign_keys``...)."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        return await self.fetchval(f"PRAGMA {name}")
