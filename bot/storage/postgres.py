"""PostgreSQL through asyncpg, with the interface of :class:`bot.storage.db.Database`.

Chosen by ``DATABASE_URL=postgresql://...`` (:func:`bot.storage.make_database`). The
repositories do not change: they send SQLite's SQL, which :mod:`bot.storage.dialect`
translates (once per distinct statement), and read rows as ``asyncpg.Record``, which
answers ``row["col"]``, ``row[0]`` and ``dict(row)`` like ``sqlite3.Row``.

Same rules as the SQLite backend:

- writes: one writing connection behind one asyncio lock per process (``BEGIN`` ...
  ``COMMIT``); a transaction opened inside another one by the same task joins it as a
  ``SAVEPOINT``; ``Tx.defer`` keeps statements for the next trip (here each still costs a
  round trip: asyncpg has no pipeline), with the same row-count check (``expect``);
- reads outside a transaction use a small pool and see the last committed state (READ
  COMMITTED); reads inside the current task's transaction go through it;
- an integrity error (unique key, foreign key, check) is raised as :class:`PgIntegrityError`,
  a ``sqlite3.IntegrityError``, so code that catches SQLite's keeps working.

Several processes may share the database (PostgreSQL's row locks order their writes).

When the server goes away (a restart, the network), the operation that meets the broken
connection raises :class:`DatabaseLost`, saying whether its writes may have been saved
(only when the ``COMMIT`` itself went unanswered). Every operation after it first waits for
the server to answer again, up to ``RECONNECT_SECONDS``, and then goes on as usual on new
connections, or raises :class:`DatabaseLost` (nothing written) if it did not come back.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from bot.redaction import mask_secrets, redact_url, url_secrets
from bot.storage.db import Database, DatabaseClosed, DatabaseLost, Params, Rows, Tx, log
from bot.storage.dialect import bind, returning_id, returns_rows, status_count, translate

__all__ = [
    "DatabaseUnavailable",
    "PgIntegrityError",
    "PgTx",
    "PostgresDatabase",
    "redact",
]

CONNECT_TIMEOUT = 10.0
READ_POOL = 4
RECONNECT_SECONDS = 30.0
"""How long an operation waits for a lost server to answer again (a restart takes seconds;
a player's deferred click may wait 15 minutes, a timer its next sweep)."""
RECONNECT_PAUSE = 0.25
"""Between two attempts to connect again."""

_LOST = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,  # class 08, the connection closed mid-operation included
    asyncpg.CannotConnectNowError,  # starting up or shutting down
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
)


def lost_connection(err: BaseException, conn: asyncpg.Connection | None = None) -> bool:
    """Whether ``err`` says the connection (or the server) is gone, not that a statement
    was wrong. ``conn``: the connection it came from, gone if closed now (a server shutting
    down in the middle of a statement may leave asyncpg's protocol in an error of its own)."""
    if isinstance(err, _LOST) or (conn is not None and _closed(conn)):
        return True
    if isinstance(err, asyncpg.InternalClientError):
        return True  # its protocol lost track of the connection: it cannot be used again
    return isinstance(err, asyncpg.InterfaceError) and "closed" in str(err)


class DatabaseUnavailable(RuntimeError):
    """PostgreSQL cannot be reached, or refuses us, at start-up (the message says which)."""


class PgIntegrityError(sqlite3.IntegrityError):
    """A constraint refused a write (raised from the ``asyncpg`` error)."""


def redact(url: str) -> str:
    """``url`` without its password (userinfo, ``password`` / ``sslpassword`` in the query),
    for logs and messages (:func:`bot.redaction.redact_url`)."""
    return redact_url(url)


async def _command(conn: asyncpg.Connection, sql: str, params: Any) -> tuple[list[Any], int]:
    """Run one statement; its rows (if it answers any) and the rows it changed."""
    translated = translate(sql)
    args = bind(translated, params)
    try:
        if returns_rows(translated.sql):
            rows = await conn.fetch(translated.sql, *args)
            return list(rows), len(rows)
        if args:
            return [], status_count(await conn.execute(translated.sql, *args))
        return [], status_count(await conn.execute(translated.sql))
    except asyncpg.IntegrityConstraintViolationError as err:
        raise PgIntegrityError(str(err)) from err


class PgTx(Tx):
    """A transaction's (or a read's) connection: the interface of :class:`Tx`."""

    def __init__(self, conn: asyncpg.Connection) -> None:  # no sqlite connection
        self._pg = conn
        self._inline = True
        self._pending = []
        self.commit_sent = False
        """Whether ``COMMIT`` went to the server (if its answer is lost, it may be saved)."""

    async def _run(
        self, sql: str | None, params: Any = (), many: bool = False, rollback: bool = False
    ) -> Rows:
        pending, self._pending = self._pending, []
        conn = self._pg
        for item in pending:
            _, changed = await _command(conn, item.sql, item.params)
            item.sent = True
            if item.expect is not None and changed != item.expect:
                raise item.error or PgIntegrityError(
                    f"{item.sql!r} changed {changed} rows, not {item.expect}"
                )
        if sql is None or (rollback and (conn.is_closed() or not conn.is_in_transaction())):
            return Rows([], -1, None)
        if many:
            translated = translate(sql)
            batch = [bind(translated, row) for row in params]
            if batch:
                try:
                    await conn.executemany(translated.sql, batch)
                except asyncpg.IntegrityConstraintViolationError as err:
                    raise PgIntegrityError(str(err)) from err
            return Rows([], len(batch), None)
        with_id = returning_id(sql)
        if with_id is not None:
            rows, count = await _command(conn, with_id, params)
            return Rows([], count, rows[-1][0] if rows else None)
        if sql == "COMMIT":
            self.commit_sent = True
        rows, count = await _command(conn, sql, params)
        return Rows(rows, count, None)


class PostgresDatabase(Database):
    """The bot's PostgreSQL connections (one writer, a small pool of readers)."""

    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__(":memory:")  # the shared state (lock, owner, depth); no SQLite file
        self.url = url
        self.path = redact(url)
        self._secrets = tuple(url_secrets(url))
        """The URL's passwords, masked in any error text that might repeat them."""
        self._writer: asyncpg.Connection | None = None
        self._pool: asyncpg.Pool | None = None
        self._back = asyncio.Lock()  # one task connects again; the others wait for it

    @property
    def is_open(self) -> bool:
        return self._pool is not None

    async def open(self) -> None:
        """Connect; raises :class:`DatabaseUnavailable` when PostgreSQL cannot be used."""
        if self._writer is not None:
            return
        try:
            writer = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
            raise DatabaseUnavailable(
                f"cannot reach PostgreSQL at {self.path} ({self._reason(err)}): check "
                "DATABASE_URL and that the server is running"
            ) from err
        try:
            pool = await asyncpg.create_pool(  # min_size 0: none to restore while away
                self.url, min_size=0, max_size=READ_POOL, timeout=CONNECT_TIMEOUT
            )
        except BaseException:
            await writer.close()
            raise
        self._writer, self._pool = writer, pool
        log.info("database opened", extra={"path": self.path})

    async def close(self) -> None:
        """Wait for the running transaction, then close. Safe to call twice."""
        if self._pool is None:
            return
        async with self._lock:
            writer, self._writer = self._writer, None
            pool, self._pool = self._pool, None
            if pool is not None:
                await pool.close()
            if writer is not None:
                await writer.close()
        log.info("database closed", extra={"path": self.path})

    def _reason(self, err: BaseException) -> str:
        """The first line of ``err``, never with the URL's password in it."""
        return mask_secrets(_reason(err), *self._secrets)

    def _pg(self) -> asyncpg.Connection:
        if self._writer is None:
            if self._pool is not None:  # lost meanwhile, by another task
                raise DatabaseLost(f"lost PostgreSQL at {self.path}", committed=False)
            raise DatabaseClosed("the database is not open")
        return self._writer

    def _lost(self, err: BaseException) -> None:
        """The connection broke: the next operation connects again before it starts."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.terminate()
            log.warning(
                "lost the connection to PostgreSQL; operations wait for it to come back",
                extra={"path": self.path, "error": self._reason(err)},
            )

    async def _ready(self) -> None:
        """Connected, or connected again within ``RECONNECT_SECONDS`` if the server went
        away; else :class:`DatabaseLost` (nothing was tried)."""
        if self._pool is None:
            raise DatabaseClosed("the database is not open")
        if self._writer is not None:
            if not self._writer.is_closed():
                return
            self._lost(ConnectionError("the server closed the connection"))
        async with self._back:
            deadline = time.monotonic() + RECONNECT_SECONDS
            while self._writer is None:
                if self._pool is None:
                    raise DatabaseClosed("the database is not open")
                try:
                    self._writer = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT)
                except Exception as err:
                    if not lost_connection(err):
                        raise
                    if time.monotonic() >= deadline:
                        raise DatabaseLost(
                            f"PostgreSQL at {self.path} did not come back within"
                            f" {RECONNECT_SECONDS:g} s ({self._reason(err)})",
                            committed=False,
                        ) from err
                    await asyncio.sleep(RECONNECT_PAUSE)
                    continue
                # The pool's connections are from before: each is replaced when next taken.
                await self._pool.expire_connections()
                log.warning("connected to PostgreSQL again", extra={"path": self.path})

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """:meth:`Database.transaction`; a lost connection raises :class:`DatabaseLost`."""
        if self._in_own_transaction() and self._tx is not None:
            async with super().transaction() as nested:  # a savepoint: the outer one reports
                yield nested
            return
        await self._ready()
        opened: list[Tx] = []
        try:
            async with super().transaction() as tx:
                opened.append(tx)
                yield tx
        except Exception as err:
            used = opened[0]._pg if opened and isinstance(opened[0], PgTx) else None
            if not lost_connection(err, used):
                raise
            self._lost(err)
            sent = bool(opened) and isinstance(opened[0], PgTx) and opened[0].commit_sent
            raise DatabaseLost(
                f"lost PostgreSQL at {self.path} during a transaction ({self._reason(err)})",
                committed=None if sent else False,
            ) from err

    BEGIN = "BEGIN"

    def _new_tx(self) -> Tx:
        return PgTx(self._pg())

    def _committed(self) -> None:
        """PostgreSQL needs no checkpoint from the bot."""

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """The current task's transaction if there is one, else a pooled connection."""
        if self._in_own_transaction() and self._tx is not None:
            yield self._tx
            return
        await self._ready()
        pool = self._pool
        if pool is None:
            raise DatabaseClosed("the database is not open")
        used: list[asyncpg.Connection] = []
        try:
            async with pool.acquire() as conn:
                used.append(conn)
                yield PgTx(conn)
        except Exception as err:
            if not lost_connection(err, used[0] if used else None):
                raise
            self._lost(err)
            raise DatabaseLost(f"lost PostgreSQL at {self.path} during a read") from err

    async def fetchone(self, sql: str, params: Params = ()) -> Any:
        """:meth:`Database.fetchone`, tried once more when the connection was lost (a read
        changes nothing; the second try waits for the server)."""
        try:
            return await super().fetchone(sql, params)
        except DatabaseLost:
            return await super().fetchone(sql, params)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Any]:
        try:
            return await super().fetchall(sql, params)
        except DatabaseLost:
            return await super().fetchall(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        async with self.transaction() as conn:
            await conn.executemany(sql, rows)

    async def pragma(self, name: str) -> Any:
        """Only ``user_version``: the schema version (from ``schema_version``)."""
        if name != "user_version":
            raise ValueError(f"PRAGMA {name} is SQLite's; PostgreSQL has none")
        exists = await self.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
        if not exists:
            return 0
        return int(await self.fetchval("SELECT coalesce(max(version), 0) FROM schema_version"))

    async def run_script(self, tx: Tx, sql: str) -> None:
        """Several statements without parameters (a migration), in ``tx``'s transaction."""
        await tx._run(None)  # send what is pending first
        conn = tx._pg if isinstance(tx, PgTx) else self._pg()
        await conn.execute(sql)

    async def table_names(self) -> list[str]:
        rows = await self.fetchall(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
        )
        return [str(row[0]) for row in rows]

    async def copy_rows(
        self, tx: Tx, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]
    ) -> None:
        """Bulk-load ``rows`` into ``table`` (``COPY``), in ``tx``'s transaction."""
        await tx._run(None)
        conn = tx._pg if isinstance(tx, PgTx) else self._pg()
        await conn.copy_records_to_table(table, records=rows, columns=list(columns))


def _closed(conn: asyncpg.Connection) -> bool:
    try:
        return bool(conn.is_closed())
    except asyncpg.InterfaceError:  # a pooled connection already given back
        return False


def _reason(err: BaseException) -> str:
    text = getattr(err, "strerror", None) or str(err) or type(err).__name__
    return str(text).splitlines()[0]
