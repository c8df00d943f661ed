"""The SQLite connections: WAL, foreign keys, busy timeout, serialized transactions.

Every write runs in ``BEGIN IMMEDIATE`` behind one asyncio lock::

    async with db.transaction() as conn:
        await conn.execute("UPDATE ...", (...,))

A transaction opened inside another one *by the same task* joins it as a ``SAVEPOINT``: the
repositories can be composed (``GameStore.act(..., in_tx=...)`` calls other stores inside its
own transaction) and an error inside the inner block rolls back only that block if caught.

Writes run on the event loop itself. SQLite's own work for a move (a few statements and a
commit into the WAL, with no fsync) costs less than handing it to a thread and back, and a
thread would fight the event loop for the GIL while a move waits. So the writing
connection never waits on the loop: its ``busy_timeout`` is 0, and a trip that finds the
database locked by another process (``BEGIN IMMEDIATE`` refused, nothing done yet) is sent
again through aiosqlite's thread, which waits up to ``BUSY_TIMEOUT_MS`` for the lock while
the loop answers everyone else. Checkpoints (copying the WAL back into the database, with an
fsync) run on a connection of their own in a thread, every ``CHECKPOINT_EVERY`` commits,
never inside a move.

Round-trips. Each statement sent costs a call into SQLite, and the write lock is held
across them. The ``conn`` of a transaction (a :class:`Tx`) runs a statement
and fetches all its rows in one trip, and folds the statements whose result nobody reads
(``BEGIN``, ``SAVEPOINT``, ``RELEASE``, a save checked by its row count, a timer row) into
the next trip: a move (``BEGIN``, its save, two timers in savepoints, ``COMMIT``) is one
trip.

Reads outside a transaction use a second, read-only connection and never queue behind the
write lock; WAL gives them the last committed state, never another task's uncommitted
writes. Reads inside the current task's transaction go through it (they see its writes).
An in-memory database (``:memory:``) has no second connection: its reads take the lock.

Durability: ``synchronous = NORMAL`` in WAL mode. A commit is in the WAL file before the
answer, so it survives the bot being killed; only a power loss or an OS crash may drop the
last commits (the database stays consistent). ``FULL`` would add an fsync (about 5 ms) to
every move, inside the write lock.

Never await Discord (or anything slow) inside a transaction: the lock is global.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

__all__ = ["Database", "DatabaseClosed", "DatabaseLost", "Params", "Rows", "Tx"]

log = logging.getLogger("gamenight.storage")

Params = Sequence[Any] | dict[str, Any]

BUSY_TIMEOUT_MS = 5000
CHECKPOINT_EVERY = 200
"""Commits between two checkpoints (a move writes a few pages to the WAL)."""
SQLITE_BUSY = 5


class DatabaseClosed(RuntimeError):
    """The database is not open (before start-up or after shutdown)."""


class DatabaseLost(RuntimeError):
    """The connection to the database went away during an operation and did not come back
    in time (a database server restarting, the network). ``committed`` says what became of
    the operation's writes: ``False`` when nothing was saved (it may be tried again), ``None``
    when its ``COMMIT`` was sent and the answer lost (it may be saved: look before trying it
    again). SQLite, a file, never raises it."""

    def __init__(self, message: str, *, committed: bool | None = False) -> None:
        super().__init__(message)
        self.committed = committed


class Rows:
    """A statement's result, fetched in the same trip (a cursor that is already done)."""

    __slots__ = ("_rows", "lastrowid", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def close(self) -> None:
        self._rows = []

    async def __aenter__(self) -> Rows:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._rows = []


class _Statement:
    """``await conn.execute(...)`` or ``async with conn.execute(...) as cur``."""

    __slots__ = ("_run",)

    def __init__(self, run: Callable[[], Awaitable[Rows]]) -> None:
        self._run = run

    def __await__(self) -> Generator[Any, None, Rows]:
        return self._run().__await__()

    async def __aenter__(self) -> Rows:
        return await self._run()

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Deferred:
    """A statement with no result waiting for the next trip (``sent`` once it ran).

    ``expect``: the number of rows it must change, else ``error`` is raised in that trip and
    the statements after it do not run (the transaction then rolls back).
    """

    __slots__ = ("error", "expect", "params", "sent", "sql")

    def __init__(
        self,
        sql: str,
        params: Params = (),
        expect: int | None = None,
        error: Exception | None = None,
    ) -> None:
        self.sql = sql
        self.params = params
        self.sent = False
        self.expect = expect
        self.error = error


def _run_in_thread(
    raw: sqlite3.Connection,
    pending: list[_Deferred],
    sql: str | None,
    params: Any,
    many: bool,
    rollback: bool = False,
) -> Rows:
    for item in pending:
        changed = raw.execute(item.sql, item.params).rowcount
        item.sent = True
        if item.expect is not None and changed != item.expect:
            raise item.error or sqlite3.IntegrityError(
                f"{item.sql!r} changed {changed} rows, not {item.expect}"
            )
    if sql is None or (rollback and not raw.in_transaction):
        return Rows([], -1, None)
    cur = raw.executemany(sql, params) if many else raw.execute(sql, params)
    try:
        rows = cur.fetchall() if cur.description is not None else []
        return Rows(rows, cur.rowcount, cur.lastrowid)
    finally:
        cur.close()


def _run_waiting(
    raw: sqlite3.Connection,
    pending: list[_Deferred],
    sql: str | None,
    params: Any,
    many: bool,
    rollback: bool = False,
) -> Rows:
    """:func:`_run_in_thread`, waiting for another process's write lock (in the thread)."""
    raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        return _run_in_thread(raw, pending, sql, params, many, rollback)
    finally:
        raw.execute("PRAGMA busy_timeout = 0")


def _busy(err: sqlite3.OperationalError) -> bool:
    return (getattr(err, "sqlite_errorcode", 0) & 0xFF) == SQLITE_BUSY


class Tx:
    """The connection of a transaction (or of a read): one trip per statement.

    ``inline``: statements run on the event loop (the writer, see the module's docstring);
    otherwise in aiosqlite's thread.
    """

    def __init__(self, conn: aiosqlite.Connection, inline: bool = False) -> None:
        self._conn = conn
        self._inline = inline
        self._pending: list[_Deferred] = []

    def defer(
        self,
        sql: str,
        params: Params = (),
        *,
        expect: int | None = None,
        error: Exception | None = None,
    ) -> _Deferred:
        """Send ``sql`` (whose result nobody reads) with the next statement; with ``expect``,
        that trip raises ``error`` unless it changed exactly ``expect`` rows."""
        item = _Deferred(sql, params, expect, error)
        self._pending.append(item)
        return item

    def drop(self, item: _Deferred) -> bool:
        """Take back a deferred statement not sent yet, with every one deferred after it
        (they belong to the block ``item`` opened); ``False`` if it already ran."""
        if not item.sent and item in self._pending:
            del self._pending[self._pending.index(item) :]
            return True
        return False

    def only_pending(self, item: _Deferred) -> bool:
        """Whether ``item`` is all there is to send (nothing ran or waits after it)."""
        return self._pending == [item] and not item.sent

    def last_pending(self, item: _Deferred) -> bool:
        return bool(self._pending) and self._pending[-1] is item

    async def _run(
        self, sql: str | None, params: Any = (), many: bool = False, rollback: bool = False
    ) -> Rows:
        pending, self._pending = self._pending, []
        raw = self._conn._conn
        call: Callable[..., Awaitable[Rows]] = self._conn._execute
        if not self._inline:
            return await call(_run_in_thread, raw, pending, sql, params, many, rollback)
        try:
            return _run_in_thread(raw, pending, sql, params, many, rollback)
        except sqlite3.OperationalError as err:
            if not _busy(err) or any(item.sent for item in pending):
                raise
        # Locked by another process before anything ran: the same trip, waiting in the thread.
        return await call(_run_waiting, raw, pending, sql, params, many, rollback)

    def execute(self, sql: str, params: Params = ()) -> _Statement:
        return _Statement(lambda: self._run(sql, params))

    async def executemany(self, sql: str, rows: Iterable[Params]) -> Rows:
        return await self._run(sql, list(rows), True)

    async def finish(self, sql: str) -> None:
        """What is pending and ``sql`` in one trip (a ``ROLLBACK`` only in a transaction)."""
        await self._run(sql, (), False, sql == "ROLLBACK")


class Database:
    """Owns the long-lived aiosqlite connections of the bot (one writer, one reader)."""

    BEGIN: ClassVar[str] = "BEGIN IMMEDIATE"
    """How a write transaction starts (SQLite takes the write lock at once)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self._conn: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._tx: Tx | None = None
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0
        self._commits = 0
        self._checkpointer: aiosqlite.Connection | None = None
        self._checkpoint: asyncio.Task[None] | None = None

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    async def open(self) -> None:
        """Connect and set the pragmas. Creates the parent folder of the file if needed."""
        if self._conn is not None:
            return
        if isinstance(self.path, Path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # Used from the loop (writes) and from aiosqlite's thread (a wait for the lock), never
        # at once: the write lock orders them.
        conn = await aiosqlite.connect(
            str(self.path), isolation_level=None, check_same_thread=False
        )
        conn.row_factory = aiosqlite.Row
        await conn.execute("PRAGMA busy_timeout = 0")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        self._conn = conn
        if isinstance(self.path, Path):
            await conn.execute("PRAGMA wal_autocheckpoint = 0")  # see _checkpoint_soon
            checkpointer = await aiosqlite.connect(str(self.path), isolation_level=None)
            await checkpointer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._checkpointer = checkpointer
            reader = await aiosqlite.connect(
                self.path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None
            )
            reader.row_factory = aiosqlite.Row
            await reader.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._reader = reader
        log.info("database opened", extra={"path": str(self.path)})

    async def close(self) -> None:
        """Wait for the running transaction, then close. Safe to call twice."""
        if self._conn is None:
            return
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        async with self._lock:
            conn, self._conn = self._conn, None
            reader, self._reader = self._reader, None
            checkpointer, self._checkpointer = self._checkpointer, None
            if checkpointer is not None:
                await checkpointer.close()
            if reader is not None:
                await reader.close()
            if conn is not None:
                await conn.close()
        log.info("database closed", extra={"path": str(self.path)})

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise DatabaseClosed("the database is not open")
        return self._conn

    def in_transaction(self) -> bool:
        """Whether the current task is inside a transaction (its writes not committed yet)."""
        return self._in_own_transaction()

    def _in_own_transaction(self) -> bool:
        task = asyncio.current_task()
        return task is not None and self._owner is task

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """A write transaction (``BEGIN IMMEDIATE``), or a savepoint when nested in one."""
        if self._in_own_transaction() and self._tx is not None:
            async with self._savepoint(self._tx) as tx:
                yield tx
            return
        async with self._lock:
            tx = self._new_tx()
            self._owner = asyncio.current_task()
            self._tx = tx
            try:
                begin = tx.defer(self.BEGIN)
                try:
                    yield tx
                except BaseException:
                    if not tx.drop(begin):
                        await tx.finish("ROLLBACK")
                    raise
                if not (tx.only_pending(begin) and tx.drop(begin)):
                    try:
                        await tx.finish("COMMIT")
                    except BaseException:  # a deferred statement failed: nothing stays
                        await tx.finish("ROLLBACK")
                        raise
                    self._committed()
            finally:
                self._owner = None
                self._tx = None

    def _new_tx(self) -> Tx:
        """The writing connection's transaction object (one at a time, under the lock)."""
        return Tx(self._connection(), inline=True)

    def _committed(self) -> None:
        """After each commit (SQLite: a checkpoint every ``CHECKPOINT_EVERY``)."""
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0:
            self._checkpoint_soon()

    def _checkpoint_soon(self) -> None:
        """Copy the WAL back into the database, in a thread, on its own connection: readers
        and the next writes go on meanwhile (``PASSIVE``)."""
        checkpointer = self._checkpointer
        if checkpointer is None or (self._checkpoint is not None and not self._checkpoint.done()):
            return

        async def run() -> None:
            try:
                await checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
            except (sqlite3.Error, ValueError):
                log.warning("checkpoint failed; the next one will catch up", exc_info=True)

        self._checkpoint = asyncio.create_task(run(), name="sqlite-checkpoint")

    @asynccontextmanager
    async def _savepoint(self, tx: Tx) -> AsyncIterator[Tx]:
        self._depth += 1
        name = f"sp{self._depth}"
        mark = tx.defer(f"SAVEPOINT {name}")
        try:
            yield tx
        except BaseException:
            if not tx.drop(mark):
                await tx.finish(f"ROLLBACK TO {name}")
                await tx.finish(f"RELEASE {name}")
            raise
        else:
            if not (tx.last_pending(mark) and tx.drop(mark)):
                tx.defer(f"RELEASE {name}")
        finally:
            self._depth -= 1

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """A connection for reads: the current task's transaction if there is one, else the
        read-only connection (no lock), or the writer behind the lock (``:memory:``)."""
        if self._in_own_transaction() and self._tx is not None:
            yield self._tx
            return
        if self._reader is not None:
            yield Tx(self._reader)
            return
        async with self._lock:
            yield Tx(self._connection(), inline=True)

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
        """Read one pragma of the writing connection (``journal_mode``, ``user_version``...)."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        if self._in_own_transaction() and self._tx is not None:
            rows = await self._tx.execute(f"PRAGMA {name}")
        else:
            async with self._lock:
                rows = await Tx(self._connection(), inline=True).execute(f"PRAGMA {name}")
        row = await rows.fetchone()
        return None if row is None else row[0]
