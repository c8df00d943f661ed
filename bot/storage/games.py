"""Games: create, load, and :meth:`GameStore.act`, the one way a move is saved.

Every cog handles an action the same way::

    stored, events = await bot.store.games.act(game_id, interaction.user.id, action)
    # committed: now render `events` and answer Discord

``act`` serializes actions per game (an asyncio lock), applies the action with the engine,
and saves the new state, version and status in one ``BEGIN IMMEDIATE`` transaction. An
``IllegalAction`` propagates and nothing is written. A double click runs twice in a row: the
second call sees the state the first one saved and gets ``IllegalAction``.

When an action ends a game, its results are written to ``game_results`` in the same
transaction (see :meth:`GameStore.register_kind` to shape them per kind).

Active games are cached in memory, write-through: ``act`` applies the move to a fresh
``load_game`` of the cached state text, so a refused move or a failed commit never leaves a
half-applied object; the committed result replaces the cache entry after the commit. A
:class:`StoredGame` returned by the store is shared: callers read it and never mutate it
(``game.apply``, ``meta[...] =``).

Several processes on one database (the bot as shards, ``GameStore.shared``): another
process may save a game this one holds. ``get``/``require`` then check a cached game's
version with one indexed read (``SELECT version``) and load the row again when it moved;
without ``shared`` (one process, the only writer) they read no database at all. ``act``
trusts the cache and lets the save decide: the save is conditional on the version it was
decided on, and a save that finds another version (:class:`StaleGame`, nothing written)
reloads the game and decides again, guard included, on the newest state; a move the cached
copy refuses is refused only once the database confirms that copy is the newest. So a move
is applied once and in order, whichever process receives it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeAlias

from bot.clock import Clock, from_iso, to_iso
from bot.engine import Event, Game, IllegalAction, load_game
from bot.ratings.model import ranks_of
from bot.storage.db import Database, DatabaseLost, Tx
from bot.storage.limits import delete_lobby, purge_closed_lobbies
from bot.storage.models import ActOutcome, GameStatus, PlayerResult, StoredGame

__all__ = [
    "CreateHook",
    "GameClosed",
    "GameNotFound",
    "GameStore",
    "Guard",
    "KindHooks",
    "RateFn",
    "ResultsFn",
    "StaleGame",
    "StatusFn",
    "TxHook",
    "default_results",
    "default_status",
]

log = logging.getLogger("gamenight.storage.games")

StatusFn: TypeAlias = Callable[[Game], GameStatus]
"""Decides a game's stored status after a move (``active``, ``over`` or ``voided``)."""
ResultsFn: TypeAlias = Callable[[StoredGame], list[PlayerResult]]
"""Turns a game that just finished into its ``game_results`` lines."""
TxHook: TypeAlias = Callable[[StoredGame, list[Event]], Awaitable[None]]
"""Extra writes run inside ``act``'s transaction (after the save, before the commit)."""
CreateHook: TypeAlias = Callable[[Tx, int], Awaitable[None]]
"""Checks run inside ``create``'s transaction once the row is written (``conn``, its id):
raising there (e.g. a limit reached) rolls the new row back."""
RateFn: TypeAlias = Callable[[StoredGame, list[PlayerResult]], Awaitable[object]]
"""Rates a game that just finished, inside the transaction that records its results
(``bot.store.ratings.record``)."""
Guard: TypeAlias = Callable[[StoredGame], None]
"""A precondition checked under the game's lock before the move: raise ``IllegalAction``
(e.g. the button was made for a decision that is gone) and nothing is applied."""


class GameNotFound(LookupError):
    """No game with that id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game #{game_id}")
        self.game_id = game_id


class GameClosed(IllegalAction):
    """An action on a game that is over or voided."""

    def __init__(self, game_id: int, status: GameStatus) -> None:
        super().__init__(
            f"game #{game_id} is {status}; it takes no more moves",
            "game.closed",
            game_id=game_id,
            status=status,
        )


class StaleGame(RuntimeError):
    """The row changed under us (another process wrote it); nothing was saved."""


def default_status(game: Game) -> GameStatus:
    """``over`` once the engine says so, ``voided`` if its result says ``"voided": true``."""
    if not game.is_over():
        return "active"
    result = game.result()
    if result.get("voided") is True or result.get("status") == "voided":
        return "voided"
    return "over"


def default_results(stored: StoredGame) -> list[PlayerResult]:
    """Results from the engine's ``result()``: rank from ``ranking``, points from ``scores``.

    Tied players share a rank (1, 1, 3...); rank 1 wins. Seats whose id is not a Discord
    user id (numeric) get no line.
    """
    result = stored.game.result()
    ranking: list[list[str]] = result.get("ranking") or []
    scores: dict[str, Any] = result.get("scores") or {}
    rounds = result.get("rounds")
    ranks = ranks_of(ranking)
    lines = []
    for player in dict.fromkeys([*ranks, *scores]):
        if not str(player).isdigit():
            continue
        score = scores.get(player, 0)
        lines.append(
            PlayerResult(
                user_id=int(player),
                points=int(score) if isinstance(score, int | float) else 0,
                won=ranks.get(player) == 1,
                rank=ranks.get(player),
                rounds=rounds if isinstance(rounds, int) else 0,
            )
        )
    return lines


@dataclass(frozen=True, slots=True)
class KindHooks:
    """How the store treats one game kind (registered by its cog)."""

    status: StatusFn = default_status
    results: ResultsFn = default_results


def _dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


_SELECT = (
    "SELECT id, kind, guild_id, channel_id, status, state, meta, version, created_at,"
    " updated_at, number FROM games"
)


STALE_RETRIES = 8
"""Tries of one ``act`` against a game other processes keep saving (each try reloads it)."""

LOST_RETRIES = 2
"""Tries again of one ``act`` whose database connection broke before anything was saved
(each waits for the database to answer again)."""


def _row_to_game(row: sqlite3.Row) -> StoredGame:
    """A game from its row (a fresh object, owned by the caller)."""
    return StoredGame(
        id=row["id"],
        kind=row["kind"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        status=row["status"],
        game=load_game(row["state"]),
        meta=json.loads(row["meta"]),
        version=row["version"],
        created_at=from_iso(row["created_at"]),
        updated_at=from_iso(row["updated_at"]),
        number=row["number"],
    )


async def insert_game(
    conn: Tx,
    *,
    kind: str,
    guild_id: int,
    channel_id: int,
    game: Game,
    meta: Mapping[str, Any],
    now: str,
) -> int:
    """INSERT one game row inside the caller's transaction; returns its id.

    The game gets the next number of its server and kind (:attr:`StoredGame.number`) from
    the counter row of ``game_numbers``, taken by an upsert in the same transaction: the
    upsert holds that row (SQLite's write lock, PostgreSQL's row lock) until the commit, so
    two processes creating games in one server and kind at once get different numbers (a
    ``max(number) + 1`` read could give both the same one on PostgreSQL).
    """
    if game.kind != kind:
        raise ValueError(f"a {game.kind} game cannot be stored as {kind}")
    status = "over" if game.is_over() else "active"
    async with conn.execute(
        "INSERT INTO game_numbers (guild_id, kind, last) VALUES (?, ?, 1)"
        " ON CONFLICT (guild_id, kind) DO UPDATE SET last = game_numbers.last + 1"
        " RETURNING last",
        (guild_id, kind),
    ) as cur:
        row = await cur.fetchone()
    if row is None:
        raise RuntimeError("the game number counter answered nothing")
    number = int(row[0])
    async with conn.execute(
        "INSERT INTO games (kind, guild_id, channel_id, status, state, meta, version,"
        " created_at, updated_at, number) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
        (kind, guild_id, channel_id, status, game.dumps(), _dumps(meta), now, now, number),
    ) as cur:
        game_id = cur.lastrowid
    if game_id is None:
        raise RuntimeError("the game row got no id")
    return game_id


async def fetch_game(conn: Tx, game_id: int) -> StoredGame | None:
    async with conn.execute(f"{_SELECT} WHERE id = ?", (game_id,)) as cur:
        row = await cur.fetchone()
    return None if row is None else _row_to_game(row)


async def _save(
    conn: Tx,
    new: StoredGame,
    expected_version: int,
    state: str | None = None,
    meta: str | None = None,
) -> None:
    """The save rides on the transaction's next trip; that trip raises :class:`StaleGame` if
    the row is no longer at ``expected_version`` (and the transaction rolls back)."""
    conn.defer(
        "UPDATE games SET state = ?, status = ?, meta = ?, version = ?, updated_at = ?"
        " WHERE id = ? AND version = ?",
        (
            new.game.dumps() if state is None else state,
            new.status,
            _dumps(new.meta) if meta is None else meta,
            new.version,
            to_iso(new.updated_at),
            new.id,
            expected_version,
        ),
        expect=1,
        error=StaleGame(f"game #{new.id} is no longer at version {expected_version}"),
    )


async def _record_results(conn: Tx, stored: StoredGame, lines: list[PlayerResult]) -> None:
    await conn.executemany(
        "INSERT OR REPLACE INTO game_results (game_id, guild_id, kind, user_id, points, won,"
        " rank, rounds, details, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                stored.id,
                stored.guild_id,
                line.kind or stored.kind,
                line.user_id,
                line.points,
                int(line.won),
                line.rank,
                line.rounds,
                _dumps(line.details),
                to_iso(stored.updated_at),
            )
            for line in lines
        ],
    )


class GameStore:
    """The ``games`` table. Available to cogs as ``bot.store.games``."""

    def __init__(self, db: Database, clock: Clock, *, shared: bool = False) -> None:
        self._db = db
        self._clock = clock
        self.shared = shared
        """Other processes write this database too (the bot as shards): a cached game is
        checked against the saved version before it is returned."""
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._hooks: dict[str, KindHooks] = {}
        self._cache: dict[int, tuple[str, StoredGame]] = {}
        """Active games as committed: (state text, shared read-only object)."""
        self._writes = 0
        """Games saved so far: a read from the database that saw none meanwhile may be
        cached."""
        self._meta_texts: dict[int, tuple[Mapping[str, Any], str]] = {}
        """The saved text of each cached game's ``meta``: most moves leave it as it was."""
        self.rate: RateFn | None = None
        """Run after a finished game's results are written, in the same transaction (the
        ratings, set by :class:`bot.storage.Store`)."""

    # -- per-kind behaviour ---------------------------------------------------------------

    def register_kind(
        self, kind: str, *, status: StatusFn | None = None, results: ResultsFn | None = None
    ) -> None:
        """Override how ``kind`` games get their status and results (defaults: engine result)."""
        self._hooks[kind] = KindHooks(
            status=status or default_status, results=results or default_results
        )

    def hooks(self, kind: str) -> KindHooks:
        return self._hooks.get(kind) or KindHooks()

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock that serializes every change to one game (held by ``act``)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    # -- reads ----------------------------------------------------------------------------

    async def get(self, game_id: int) -> StoredGame | None:
        """The game, or ``None`` when there is no such id (shared: never mutate it)."""
        found = await self._current(game_id)
        return None if found is None else found[1]

    async def _current(
        self, game_id: int, *, check: bool = True, fresh: bool = False
    ) -> tuple[str, StoredGame] | None:
        """The game as committed: (state text, shared object). ``check``: with ``shared``,
        a cached game is returned only if the database still holds its version; ``fresh``:
        never the cached one."""
        cached = None if fresh else self._cache.get(game_id)
        if cached is not None and not self._db.in_transaction():
            if not (check and self.shared):
                return cached
            saved = await self._db.fetchval("SELECT version FROM games WHERE id = ?", (game_id,))
            if saved == cached[1].version:
                return cached
            latest = self._cache.get(game_id)
            if latest is not None and latest[1].version == saved:
                return latest  # this process saved it meanwhile
        writes = self._writes
        async with (
            self._db.read() as conn,
            conn.execute(f"{_SELECT} WHERE id = ?", (game_id,)) as cur,
        ):
            row = await cur.fetchone()
        if row is None:
            return None
        found = (str(row["state"]), _row_to_game(row))
        if not self._db.in_transaction() and self._writes == writes:
            # Kept only if no move was committed while the row was read: that move's newer
            # state is the one in memory now, and must not be replaced by the older one.
            self._remember(found[0], found[1], saved=False)
        return found

    def _remember(self, state: str, stored: StoredGame, *, saved: bool = True) -> None:
        """Keep a committed game while it is active (never from inside a transaction);
        ``saved``: it was just saved (not read)."""
        self._writes += saved
        if stored.is_active and not self._db.in_transaction():
            self._cache[stored.id] = (state, stored)
        else:
            self._cache.pop(stored.id, None)
            self._meta_texts.pop(stored.id, None)

    async def _moved(self, stored: StoredGame) -> bool:
        """Whether the database holds another version of ``stored`` (then it is forgotten)."""
        saved = await self._db.fetchval("SELECT version FROM games WHERE id = ?", (stored.id,))
        if saved == stored.version:
            return False
        self._forget(stored.id)
        return True

    async def _holds(self, new: StoredGame, state: str) -> bool:
        """Whether the database holds ``new`` as this process wrote it: its version and its
        state (after a ``COMMIT`` whose answer was lost; the read waits for the database)."""
        row = await self._db.fetchone("SELECT version, state FROM games WHERE id = ?", (new.id,))
        return row is not None and row["version"] == new.version and row["state"] == state

    def _forget(self, game_id: int) -> None:
        self._cache.pop(game_id, None)
        self._meta_texts.pop(game_id, None)

    def _meta_text(self, stored: StoredGame) -> str:
        """``stored.meta`` as saved, written again only when it is another object (``meta``
        is replaced, never changed in place)."""
        known = self._meta_texts.get(stored.id)
        if known is not None and known[0] is stored.meta:
            return known[1]
        text = _dumps(stored.meta)
        if stored.is_active:
            self._meta_texts[stored.id] = (stored.meta, text)
        return text

    def cached(self) -> int:
        """How many active games are held in memory."""
        return len(self._cache)

    async def running_among(self, game_ids: Iterable[int]) -> set[int]:
        """Which of ``game_ids`` are still running (status ``active``). The others are
        forgotten from memory too: another process may have ended them behind this one's
        back (as shards)."""
        wanted = sorted(set(game_ids))
        running: set[int] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))  # placeholders only: the ids are parameters
            sql = f"SELECT id FROM games WHERE status = 'active' AND id IN ({marks})"  # noqa: S608
            rows = await self._db.fetchall(sql, chunk)
            running.update(int(row["id"]) for row in rows)
        for game_id in set(wanted) - running:
            self._forget(game_id)
        return running

    async def require(self, game_id: int) -> StoredGame:
        """The game; raises :class:`GameNotFound` when there is no such id."""
        stored = await self.get(game_id)
        if stored is None:
            raise GameNotFound(game_id)
        return stored

    async def by_number(self, guild_id: int, kind: str, number: int) -> StoredGame | None:
        """The game of ``kind`` that players of ``guild_id`` know as ``#number``."""
        game_id = await self._db.fetchval(
            "SELECT id FROM games WHERE guild_id = ? AND kind = ? AND number = ?",
            (guild_id, kind, number),
        )
        return None if game_id is None else await self.get(int(game_id))

    async def find(
        self,
        *,
        guild_id: int | None = None,
        kind: str | None = None,
        channel_id: int | None = None,
        status: GameStatus | None = "active",
        limit: int = 100,
    ) -> list[StoredGame]:
        """Games matching every given filter, newest first (active ones by default).

        Rows whose kind has no engine loaded are skipped (and logged).
        """
        sql = f"{_SELECT} WHERE 1 = 1"
        params: list[Any] = []
        for column, value in (
            ("guild_id", guild_id),
            ("kind", kind),
            ("channel_id", channel_id),
            ("status", status),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        sql += " ORDER BY id DESC LIMIT ?"
        params.append(limit)
        rows = await self._db.fetchall(sql, params)
        games = []
        for row in rows:
            try:
                games.append(_row_to_game(row))
            except ValueError:
                log.warning("game not loadable", extra={"game_id": row["id"], "kind": row["kind"]})
        return games

    # -- writes ---------------------------------------------------------------------------

    async def create(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        game: Game,
        meta: Mapping[str, Any] | None = None,
        *,
        in_tx: CreateHook | None = None,
    ) -> int:
        """Store a new game (version 1); returns its id. ``in_tx``: checks run in the same
        transaction after the row is written (a limit counted with the new row in it);
        whatever they raise rolls the row back and propagates."""
        async with self._db.transaction() as conn:
            game_id = await insert_game(
                conn,
                kind=kind,
                guild_id=guild_id,
                channel_id=channel_id,
                game=game,
                meta=meta or {},
                now=to_iso(self._clock.now()),
            )
            if in_tx is not None:
                await in_tx(conn, game_id)
            return game_id

    async def delete_lobby(self, lobby_id: int) -> None:
        """Delete a lobby that is no longer open (expired, cancelled) and its timers: an
        abandoned lobby leaves no row behind. An open one is left as it is."""
        async with self.lock(lobby_id):
            async with self._db.transaction() as conn:
                await delete_lobby(conn, lobby_id)
            self._forget(lobby_id)

    async def purge_closed_lobbies(self, before: datetime) -> int:
        """Delete every lobby closed without a game (``voided``) last changed before
        ``before``, with its timers; returns how many went."""
        return await purge_closed_lobbies(self._db, before)

    async def act(
        self,
        game_id: int,
        player_id: str | int,
        action: Mapping[str, Any],
        *,
        meta_update: Mapping[str, Any] | None = None,
        in_tx: TxHook | None = None,
        guard: Guard | None = None,
    ) -> ActOutcome:
        """Apply one player's action and commit it; returns ``(stored_game, events)``.

        - ``player_id``: a Discord user id (int or str) or ``bot.engine.SYSTEM``.
        - ``meta_update``: keys merged (shallowly) into the game's ``meta`` in the same save.
        - ``in_tx``: ``async (stored, events) -> None`` run inside the transaction, for writes
          that must commit with the move (spending a title bonus, scheduling a timer through
          ``bot.store.timers``); raising there rolls everything back.
        - ``guard``: ``(stored) -> None`` checked under the lock before the move; it raises
          ``IllegalAction`` when the move was decided on a state that is gone.

        Raises ``IllegalAction`` (nothing written) when the engine refuses the action,
        :class:`GameClosed` (an ``IllegalAction``) when the game is over or voided, and
        :class:`GameNotFound` for an unknown id.
        """
        async with self.lock(game_id):
            lost = 0
            for attempt in range(STALE_RETRIES):
                try:
                    return await self._act(
                        game_id, player_id, action, meta_update, in_tx, guard, fresh=attempt > 0
                    )
                except DatabaseLost as err:
                    # Nothing was saved: the move is decided again once the database
                    # answers (the next try waits for it), on the state it then holds.
                    lost += 1
                    if err.committed is not False or lost > LOST_RETRIES:
                        raise
                    log.warning("move tried again after losing the database",
                                extra={"game_id": game_id})  # fmt: skip
                except StaleGame:
                    # The game in memory was older than the saved one (nothing was written):
                    # once more from the database, the move decided again on what it holds.
                    # In one process the second try meets the newest state (every save goes
                    # through this lock); other processes may save in between.
                    log.debug("stale game reloaded", extra={"game_id": game_id})
            raise StaleGame(f"game #{game_id} kept changing under {STALE_RETRIES} tries")

    async def _act(
        self,
        game_id: int,
        player_id: str | int,
        action: Mapping[str, Any],
        meta_update: Mapping[str, Any] | None,
        in_tx: TxHook | None,
        guard: Guard | None,
        *,
        fresh: bool = False,
    ) -> ActOutcome:
        # Unchecked: the conditional save below tells a stale copy (StaleGame).
        found = await self._current(game_id, check=False, fresh=fresh)
        if found is None:
            raise GameNotFound(game_id)
        text, stored = found
        try:
            if not stored.is_active:
                raise GameClosed(game_id, stored.status)
            if guard is not None:
                guard(stored)
            game = load_game(text)
            events = game.apply(str(player_id), action)
        except IllegalAction:
            # Refused by the copy in memory: only the newest state may refuse a move.
            if self.shared and not fresh and await self._moved(stored):
                raise StaleGame(f"game #{game_id} moved past version {stored.version}") from None
            raise
        hooks = self.hooks(stored.kind)
        new = replace(
            stored,
            game=game,
            status=hooks.status(game),
            meta={**stored.meta, **meta_update} if meta_update else stored.meta,
            version=stored.version + 1,
            updated_at=self._clock.now(),
        )
        lines = hooks.results(new) if new.status == "over" else []
        state = game.dumps()
        try:
            async with self._db.transaction() as conn:
                await _save(conn, new, stored.version, state, self._meta_text(new))
                if lines:
                    await _record_results(conn, new, lines)
                    if self.rate is not None:
                        await self.rate(new, lines)
                if in_tx is not None:
                    await in_tx(new, events)
        except StaleGame:
            self._forget(game_id)
            raise
        except DatabaseLost as err:
            self._forget(game_id)
            if err.committed is None and await self._holds(new, state):
                log.warning("move saved though its commit went unanswered",
                            extra={"game_id": game_id, "version": new.version})  # fmt: skip
            else:
                raise
        self._remember(state, new)
        log.debug(
            "game saved",
            extra={"game_id": game_id, "version": new.version, "status": new.status},
        )
        return ActOutcome(new, events)

    async def update_meta(self, game_id: int, meta_update: Mapping[str, Any]) -> StoredGame:
        """Merge keys into a game's ``meta`` (e.g. the id of the message showing the board)."""
        return await self._change_meta(game_id, lambda meta: {**meta, **meta_update})

    async def merge_meta(self, game_id: int, key: str, entries: Mapping[str, Any]) -> StoredGame:
        """Merge ``entries`` into the mapping ``meta[key]`` (under the game's lock, so that
        concurrent merges, e.g. each hand recorded as it is sent, keep each other's)."""
        return await self._change_meta(
            game_id, lambda meta: {**meta, key: {**(meta.get(key) or {}), **entries}}
        )

    async def merge_meta_entry(
        self, game_id: int, key: str, entry: str, fields: Mapping[str, Any]
    ) -> StoredGame:
        """Merge ``fields`` into ``meta[key][entry]`` (under the game's lock), keeping what
        else the entry holds (e.g. the message id of a record whose lines moves add)."""

        def change(meta: dict[str, Any]) -> dict[str, Any]:
            outer = dict(meta.get(key) or {})
            outer[entry] = {**(outer.get(entry) or {}), **fields}
            return {**meta, key: outer}

        return await self._change_meta(game_id, change)

    async def _change_meta(
        self, game_id: int, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> StoredGame:
        async with self.lock(game_id):
            for _ in range(STALE_RETRIES):
                stored = await self.require(game_id)
                new = replace(
                    stored,
                    meta=change(dict(stored.meta)),
                    version=stored.version + 1,
                    updated_at=self._clock.now(),
                )
                state = new.game.dumps()
                try:
                    async with self._db.transaction() as conn:
                        await _save(conn, new, stored.version, state)
                except StaleGame:
                    self._forget(game_id)  # another process saved it: merge into its version
                    continue
                self._remember(state, new)
                return new
            raise StaleGame(f"game #{game_id} kept changing under {STALE_RETRIES} tries")

    async def set_status(self, game_id: int, status: GameStatus) -> StoredGame:
        """Force a status (an admin abandoning a game: ``voided``). Returns the saved game.

        Voiding deletes the game's results and gives back any title bonus spent in it (a
        trigger keeps ``spaye_days`` in step). ``over`` records results if the engine agrees
        the game is finished.
        """
        async with self.lock(game_id):
            for _ in range(STALE_RETRIES):
                stored = await self.require(game_id)
                if stored.status == status:
                    return stored
                new = replace(
                    stored, status=status, version=stored.version + 1, updated_at=self._clock.now()
                )
                finished = status == "over" and new.game.is_over()
                lines = self.hooks(new.kind).results(new) if finished else []
                state = new.game.dumps()
                try:
                    async with self._db.transaction() as conn:
                        await _save(conn, new, stored.version, state)
                        if lines:
                            await _record_results(conn, new, lines)
                            if self.rate is not None:
                                await self.rate(new, lines)
                except StaleGame:
                    self._forget(game_id)
                    continue
                self._remember(state, new)
                return new
            raise StaleGame(f"game #{game_id} kept changing under {STALE_RETRIES} tries")
