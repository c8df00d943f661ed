"""A server's records: the games played (``/<game> history``), its results for an export
(``/config export``), and forgetting one member (``/forget-me``).

Forgetting a member (:meth:`RecordStore.forget_member`) runs in one transaction. Deleted:
their direct-message records (``dm_channels``, ``pending_private``) and, in every server,
their ratings, rating history and opt-out (``bot.store.ratings.forget``, in the same
transaction). Kept, but no longer theirs: wherever their id stands in the history (a seat
in a game's state, the game's ``meta``, a result line, a rated game's left-out members or
leavers, a monthly title, a timer's key or payload) it is replaced by a **stand-in id**, a
random negative number, the same in every row of that member. So the games and the other
players' results stay whole (a forgotten seat keeps its place and its points, and a
rebuild of the ratings gives the others the same numbers), and no query by the member's id
finds anything. Their display names go (``meta.names``, a lobby's ``name:<id>``), and so
do the ids of their hands' direct messages (``meta.hands``). A negative id is never a
Discord id: the texts show it as a former member (:func:`bot.present.mention`), the
statistics do not rank it, and it is kept out of the rating boards (an opt-out row of its
own).

A member who sits in a running game (an open table, a game under way, today's Späye) is
refused and nothing changes (:class:`StillPlaying`): the game needs its seats until its
result is recorded.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from bot.clock import Clock, from_iso, to_iso
from bot.storage.db import Database, Tx
from bot.storage.games import _dumps, _row_to_game
from bot.storage.models import StoredGame
from bot.storage.ratings import RatingStore

__all__ = [
    "ExportLine",
    "Forgotten",
    "PlayedGame",
    "RecordStore",
    "StillPlaying",
    "new_pseudonym",
]

ENDED: Final = ("over", "voided")
LOBBY: Final = "lobby"
EXPORT_ROWS: Final = 2000
"""Result lines read per query of an export (whole games only)."""

_GAME_COLUMNS = (
    "g.id, g.kind, g.guild_id, g.channel_id, g.status, g.state, g.meta, g.version,"
    " g.created_at, g.updated_at, g.number"
)


def new_pseudonym() -> int:
    """A random negative id (53 bits: exact in JSON numbers too), unrelated to the member's."""
    return -(secrets.randbelow(2**53 - 2) + 1)


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A game that ended (``over``) or was abandoned (``voided``), and when."""

    stored: StoredGame
    ended_at: datetime
    """When its result was recorded (else its last save: an abandoned game)."""

    @property
    def abandoned(self) -> bool:
        return self.stored.status == "voided"


@dataclass(frozen=True, slots=True)
class ExportLine:
    """One result line of a finished game, for an export."""

    game_id: int
    kind: str
    """The game's kind (``papayoo``), whether computers played or not."""
    result_kind: str
    """Where the line is filed (``papayoo.computers`` when computers played)."""
    number: int
    finished_at: datetime
    user_id: int
    name: str | None
    """The display name the member had at the table, when the game kept it."""
    rank: int | None
    points: int
    won: bool
    rated: bool | None = None
    """Whether the game rated this member (``None``: the ratings have not judged it)."""


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What :meth:`RecordStore.forget_member` changed."""

    pseudonym: int
    games: int = 0
    """Games (lobbies aside) where a seat of theirs was made a former member's."""
    results: int = 0
    titles: int = 0
    timers: int = 0
    private: int = 0
    guilds: frozenset[int] = field(default_factory=frozenset)
    """The servers where the member's ratings went (where they had anything)."""


class StillPlaying(RuntimeError):
    """The member sits in a running game: nothing was forgotten."""

    def __init__(self, games: list[tuple[str, int]]) -> None:
        super().__init__(f"still playing in {games}")
        self.games = games
        """``(kind, number)`` of each running game (a lobby is ``("lobby", its number)``)."""


def _token(user_id: int) -> re.Pattern[str]:
    """The id as a whole number inside a text (``name:123`` yes, ``91234`` no)."""
    return re.compile(rf"(?<![0-9-]){user_id}(?![0-9])")


class _Replacer:
    """Replaces one member's id by a pseudonym in JSON values and texts."""

    def __init__(self, user_id: int, pseudonym: int) -> None:
        self.user_id = user_id
        self.pseudonym = pseudonym
        self.like = f"%{user_id}%"
        """A ``LIKE`` pattern for the rows that may hold the id (the digits anywhere)."""
        self._pattern = _token(user_id)

    def text(self, value: str) -> str:
        return self._pattern.sub(str(self.pseudonym), value)

    def value(self, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            return self.pseudonym if value == self.user_id else value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        return value

    def json(self, text: str) -> str:
        return _dumps_any(self.value(json.loads(text)))

    def meta(self, text: str) -> str:
        """A game's ``meta`` with the id replaced and the member's names dropped."""
        meta = self.value(json.loads(text))
        if not isinstance(meta, dict):
            return _dumps_any(meta)
        shown = str(self.pseudonym)
        for key in (f"name:{shown}", f"locale:{shown}"):
            meta.pop(key, None)
        for key in ("names", "hands"):  # display names; hand DMs (channel and message ids)
            kept = meta.get(key)
            if isinstance(kept, dict):
                kept.pop(shown, None)
        return _dumps(meta)


def _dumps_any(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


class RecordStore:
    """``bot.store.records``: history, export and forgetting, over the games and results."""

    def __init__(self, db: Database, clock: Clock, ratings: RatingStore) -> None:
        self._db = db
        self._clock = clock
        self._ratings = ratings

    # -- /<game> history ----------------------------------------------------------------

    async def count_played(self, guild_id: int, kind: str) -> int:
        """Games of ``kind`` in the server that ended or were abandoned."""
        value = await self._db.fetchval(
            "SELECT count(*) FROM games WHERE guild_id = ? AND kind = ? AND status IN (?, ?)",
            (guild_id, kind, *ENDED),
        )
        return int(value or 0)

    async def played(
        self, guild_id: int, kind: str, *, offset: int = 0, limit: int = 10
    ) -> list[PlayedGame]:
        """The games of ``kind`` that ended or were abandoned, newest (highest number) first."""
        rows = await self._db.fetchall(
            f"SELECT {_GAME_COLUMNS},"  # noqa: S608 (column names only; values are parameters)
            " (SELECT min(r.finished_at) FROM game_results AS r WHERE r.game_id = g.id)"
            " AS finished_at"
            " FROM games AS g WHERE g.guild_id = ? AND g.kind = ? AND g.status IN (?, ?)"
            " ORDER BY g.number DESC LIMIT ? OFFSET ?",
            (guild_id, kind, *ENDED, limit, offset),
        )
        played = []
        for row in rows:
            stored = _row_to_game(row)
            ended = row["finished_at"]
            played.append(PlayedGame(stored, from_iso(ended) if ended else stored.updated_at))
        return played

    # -- /config export -------------------------------------------------------------------

    async def export_lines(self, guild_id: int) -> AsyncIterator[list[ExportLine]]:
        """Every result line of the server, game after game (in the order they were
        created), about :data:`EXPORT_ROWS` lines per query (whole games: they follow the
        primary key); within a game, by rank."""
        after = 0
        while True:
            rows = await self._db.fetchall(
                "SELECT r.game_id, g.kind, r.kind AS result_kind, g.number, r.finished_at,"
                " r.user_id, r.rank, r.points, r.won, g.meta, m.rated, m.excluded"
                " FROM game_results AS r JOIN games AS g ON g.id = r.game_id"
                " LEFT JOIN rated_games AS m ON m.game_id = r.game_id"
                # `+r.guild_id`: SQLite then walks the primary key from `after` (in the
                # order asked) instead of sorting all the server's lines for each query.
                " WHERE r.game_id > ? AND +r.guild_id = ?"
                " ORDER BY r.game_id, r.user_id LIMIT ?",
                (after, guild_id, EXPORT_ROWS),
            )
            if not rows:
                return
            last = int(rows[-1]["game_id"])
            if len(rows) == EXPORT_ROWS and int(rows[0]["game_id"]) != last:
                rows = [row for row in rows if int(row["game_id"]) != last]  # its next query
            rows.sort(key=lambda r: (r["game_id"], r["rank"] is None, r["rank"] or 0, r["user_id"]))
            names: dict[int, dict[str, Any]] = {}  # each game's meta read once
            yield [_export_line(row, names) for row in rows]
            after = int(rows[-1]["game_id"])

    # -- /forget-me -----------------------------------------------------------------------

    async def running_games(self, user_id: int) -> list[tuple[str, int]]:
        """``(kind, number)`` of the running games (open tables included) the member sits in."""
        async with self._db.read() as conn:
            return await _running_games(conn, user_id)

    async def forget_member(
        self, user_id: int, *, guilds: frozenset[int] = frozenset()
    ) -> Forgotten:
        """Forget ``user_id`` everywhere, in one transaction (see the module's docstring):
        their ratings in every server where they had a game, a result, a rating or an
        opt-out, and in ``guilds`` (the server the request came from). Raises
        :class:`StillPlaying` (nothing changed) while they sit in a running game."""
        async with self._db.transaction() as conn:
            running = await _running_games(conn, user_id)
            if running:
                raise StillPlaying(running)
            replace = _Replacer(user_id, new_pseudonym())
            guild_ids = set(guilds) | {
                int(row[0]) for row in await _rows(conn, _GUILDS_OF_MEMBER, [user_id] * 3)
            }
            games = await _forget_in_games(conn, replace, guild_ids)
            changed = {
                table: await _count(conn, update, (replace.pseudonym, user_id))
                for table, update in _USER_ID_UPDATES.items()
            }
            timers = 0
            for select, update, values in _REWRITES:
                rows = await _rows(conn, select, [replace.like] * select.count("?"))
                for row in rows:
                    await conn.execute(update, values(replace, row))
                timers += len(rows) if select.startswith(_TIMERS) else 0
            await conn.execute("DELETE FROM dm_channels WHERE user_id = ?", (user_id,))
            private = await _count(
                conn, "DELETE FROM pending_private WHERE user_id = ?", (user_id,)
            )
            for guild_id in sorted(guild_ids):
                await self._ratings.forget(guild_id, user_id)
                # A rebuild rates the stand-in like anyone: kept off the boards, always.
                await conn.execute(
                    "INSERT OR IGNORE INTO rating_opt_outs (guild_id, user_id, since)"
                    " VALUES (?, ?, ?)",
                    (guild_id, replace.pseudonym, to_iso(self._clock.now())),
                )
            return Forgotten(
                pseudonym=replace.pseudonym,
                games=games,
                results=changed["game_results"],
                titles=changed["month_titles"],
                timers=timers,
                private=private,
                guilds=frozenset(guild_ids),
            )


_GUILDS_OF_MEMBER: Final = (
    "SELECT guild_id FROM game_results WHERE user_id = ?"
    " UNION SELECT guild_id FROM ratings WHERE user_id = ?"
    " UNION SELECT guild_id FROM rating_opt_outs WHERE user_id = ?"
)
_USER_ID_UPDATES: Final = {
    "game_results": "UPDATE game_results SET user_id = ? WHERE user_id = ?",
    "month_titles": "UPDATE month_titles SET user_id = ? WHERE user_id = ?",
    "nights": "UPDATE nights SET planner_id = ? WHERE planner_id = ?",
    "night_rsvps": "UPDATE night_rsvps SET user_id = ?, locale = NULL WHERE user_id = ?",
    "night_sent": "UPDATE night_sent SET user_id = ? WHERE user_id = ?",
    "night_seats": "UPDATE night_seats SET user_id = ? WHERE user_id = ?",
}
"""Tables whose ``user_id`` column names the member: their rows stay, with the stand-in."""
_TIMERS: Final = "SELECT id, key, payload FROM timers"
_REWRITES: Final[tuple[tuple[str, str, Callable[[_Replacer, Any], tuple[Any, ...]]], ...]] = (
    (
        "SELECT game_id, user_id, details FROM game_results WHERE details LIKE ?",
        "UPDATE game_results SET details = ? WHERE game_id = ? AND user_id = ?",
        lambda r, row: (r.json(row["details"]), row["game_id"], row["user_id"]),
    ),
    # Who a rated game left out or ranked last for leaving: the same stand-in, so a
    # rebuild of the ratings replays the same numbers for the others.
    (
        "SELECT game_id, excluded, leavers FROM rated_games"
        " WHERE excluded LIKE ? OR leavers LIKE ?",
        "UPDATE rated_games SET excluded = ?, leavers = ? WHERE game_id = ?",
        lambda r, row: (r.json(row["excluded"]), r.json(row["leavers"]), row["game_id"]),
    ),
    (
        "SELECT id, meta FROM nights WHERE meta LIKE ?",
        "UPDATE nights SET meta = ? WHERE id = ?",
        lambda r, row: (r.json(row["meta"]), row["id"]),
    ),
    (
        _TIMERS + " WHERE key LIKE ? OR payload LIKE ?",
        "UPDATE timers SET key = ?, payload = ? WHERE id = ?",
        lambda r, row: (r.text(row["key"]), r.json(row["payload"]), row["id"]),
    ),
    (
        "SELECT job FROM scheduler_runs WHERE job LIKE ?",
        "UPDATE scheduler_runs SET job = ? WHERE job = ?",
        lambda r, row: (r.text(row["job"]), row["job"]),
    ),
    (
        "SELECT job_id FROM job_runs WHERE job_id LIKE ?",
        "UPDATE job_runs SET job_id = ? WHERE job_id = ?",
        lambda r, row: (r.text(row["job_id"]), row["job_id"]),
    ),
)
"""Texts and JSON that may hold the member's id: ``(select, update, its parameters)``."""


async def _rows(conn: Tx, sql: str, params: list[Any]) -> list[Any]:
    async with conn.execute(sql, params) as cur:
        return list(await cur.fetchall())


async def _count(conn: Tx, sql: str, params: tuple[Any, ...]) -> int:
    async with conn.execute(sql, params) as cur:
        return max(cur.rowcount, 0)


async def _forget_in_games(conn: Tx, replace: _Replacer, guild_ids: set[int]) -> int:
    """The member's id replaced in the games' state and ``meta`` (their names dropped);
    returns how many games (lobbies aside) held a seat of theirs, and adds their servers
    to ``guild_ids``."""
    rows = await _rows(
        conn,
        "SELECT id, kind, guild_id, state, meta FROM games WHERE state LIKE ? OR meta LIKE ?",
        [replace.like] * 2,
    )
    games = 0
    for row in rows:
        state, meta = replace.json(row["state"]), replace.meta(row["meta"])
        if state == row["state"] and meta == row["meta"]:
            continue  # the digits were part of another number
        await conn.execute(
            "UPDATE games SET state = ?, meta = ?, version = version + 1 WHERE id = ?",
            (state, meta, row["id"]),
        )
        guild_ids.add(int(row["guild_id"]))
        games += row["kind"] != LOBBY
    return games


async def _running_games(conn: Tx, user_id: int) -> list[tuple[str, int]]:
    """``(kind, number)`` of the running games (lobbies included) the member sits in: their
    id stands in the state as a string (``"123"``, quotes included, so never part of
    another id)."""
    async with conn.execute(
        "SELECT kind, number, state FROM games WHERE status = 'active' AND state LIKE ?"
        " ORDER BY id",
        (f'%"{user_id}"%',),
    ) as cur:
        rows = await cur.fetchall()
    return [(str(row["kind"]), int(row["number"])) for row in rows]


def _export_line(row: sqlite3.Row, names_of: dict[int, dict[str, Any]]) -> ExportLine:
    game_id = int(row["game_id"])
    names = names_of.get(game_id)
    if names is None:
        meta = json.loads(row["meta"])
        kept = meta.get("names") if isinstance(meta, dict) else None
        names = names_of[game_id] = kept if isinstance(kept, dict) else {}
    user_id = int(row["user_id"])
    name = names.get(str(user_id))
    return ExportLine(
        game_id=game_id,
        kind=str(row["kind"]),
        result_kind=str(row["result_kind"]),
        number=int(row["number"]),
        finished_at=from_iso(row["finished_at"]),
        user_id=user_id,
        name=str(name) if name is not None else None,
        rank=None if row["rank"] is None else int(row["rank"]),
        points=int(row["points"]),
        won=bool(row["won"]),
        rated=None
        if row["rated"] is None
        else bool(row["rated"]) and user_id not in json.loads(row["excluded"]),
    )
