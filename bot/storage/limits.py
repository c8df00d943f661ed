"""What a member, a channel and a server hold now, counted in the database: open lobbies and
live seated games (the limits of :mod:`bot.limits`).

Counted in SQL, not in memory: several processes share one database, and each sees the
others' lobbies only there. The counts run inside the transaction that creates the lobby
(or seats the member), after the row is written: the new lobby takes its number by bumping
its counter row first (:func:`bot.storage.games.insert_game`), which holds that row until the
commit, so two lobbies opened at once in one server are counted one after the other, in any
process, and the second sees the first.

Who sits where is in the game's state (the engine's JSON text): a lobby's ``host`` and every
seated game's ``players``, an array of ids as strings. A member is found in that array by
the text ``"<id>"`` (ids are digits, quotes included, so one id never matches another).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.clock import to_iso
from bot.storage.db import Database, Tx

__all__ = [
    "LOBBY",
    "OpenLobbies",
    "count_live_games",
    "count_open_lobbies",
    "purge_closed_lobbies",
]

LOBBY = "lobby"
"""The kind of every seated game's lobby rows (:data:`bot.seated.spec.LOBBY_KIND`)."""


@dataclass(frozen=True, slots=True)
class OpenLobbies:
    """Open lobbies now: hosted by the member, in the channel, in the server."""

    member: int
    channel: int
    server: int


async def _count(conn: Tx, sql: str, params: Sequence[object]) -> int:
    async with conn.execute(sql, tuple(params)) as cur:
        row = await cur.fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


async def count_open_lobbies(conn: Tx, guild_id: int, channel_id: int, host: str) -> OpenLobbies:
    """The open lobbies of the server, of ``channel_id`` and hosted by ``host`` (one query,
    on the ``games_by_guild`` index)."""
    async with conn.execute(
        "SELECT count(*),"
        " coalesce(sum(CASE WHEN channel_id = ? THEN 1 ELSE 0 END), 0),"
        " coalesce(sum(CASE WHEN json_extract(state, '$.host') = ? THEN 1 ELSE 0 END), 0)"
        " FROM games WHERE guild_id = ? AND kind = ? AND status = 'active'",
        (channel_id, host, guild_id, LOBBY),
    ) as cur:
        row = await cur.fetchone()
    if row is None:
        return OpenLobbies(0, 0, 0)
    return OpenLobbies(member=int(row[2]), channel=int(row[1]), server=int(row[0]))


async def count_live_games(
    conn: Tx,
    guild_id: int,
    player: str,
    kinds: Sequence[str],
) -> int:
    """The live games of ``kinds`` in the server where ``player`` has a seat (an open lobby
    they sit in included when ``kinds`` holds :data:`LOBBY`)."""
    if not kinds:
        return 0
    marks = ", ".join("?" for _ in kinds)  # placeholders only: every value is a parameter
    return await _count(
        conn,
        "SELECT count(*) FROM games WHERE guild_id = ? AND status = 'active'"  # noqa: S608
        f" AND kind IN ({marks}) AND json_extract(state, '$.players') LIKE ?",
        (guild_id, *kinds, f'%"{int(player)}"%'),
    )


async def purge_closed_lobbies(db: Database, before: datetime) -> int:
    """Delete the lobbies closed without a game (cancelled, declined, expired: ``voided``)
    last changed before ``before``, and their timers; returns how many lobbies went."""
    async with db.transaction() as conn:
        async with conn.execute(
            "SELECT id FROM games WHERE kind = ? AND status = 'voided' AND updated_at < ?",
            (LOBBY, to_iso(before)),
        ) as cur:
            ids = [int(row[0]) for row in await cur.fetchall()]
        for lobby_id in ids:
            await delete_lobby(conn, lobby_id)
        return len(ids)


async def delete_lobby(conn: Tx, lobby_id: int) -> None:
    """Delete one lobby row that is no longer open, and its timers (keys
    ``<game>_lobby:<id>:...``, see :meth:`bot.seated.base.SeatedBase.lobby_key`)."""
    conn.defer(
        "DELETE FROM timers WHERE key LIKE ? AND EXISTS (SELECT 1 FROM games"
        " WHERE id = ? AND kind = ? AND status <> 'active')",
        (f"%lobby:{int(lobby_id)}:%", lobby_id, LOBBY),
    )
    async with conn.execute(
        "DELETE FROM games WHERE id = ? AND kind = ? AND status <> 'active'", (lobby_id, LOBBY)
    ):
        pass
