"""Game nights (``/gamenight``): the nights, their answers, the notices sent once, and the
tables and seats of the hour."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.storage.db import Database
from bot.storage.models import (
    NIGHT_STATUSES,
    RSVP_ANSWERS,
    CalloffPolicy,
    Night,
    NightSeat,
    NightStatus,
    NightTable,
    Rsvp,
    RsvpAnswer,
    SeatStatus,
)

__all__ = ["NightStore", "StaleNight"]

_SELECT = (
    "SELECT id, guild_id, channel_id, title, starts_at, planner_id, games, status, event_id,"
    " rsvp_message_id, board_message_id, min_players, calloff_minutes, calloff_policy,"
    " allow_computers, weekly, meta, version, created_at, updated_at FROM nights"
)

_OF_GAME = _SELECT + " WHERE id IN (SELECT night_id FROM night_tables WHERE game_id = ?)"  # noqa: S608

_UPDATABLE = frozenset(
    {
        "channel_id",
        "title",
        "starts_at",
        "games",
        "status",
        "event_id",
        "rsvp_message_id",
        "board_message_id",
        "min_players",
        "calloff_minutes",
        "calloff_policy",
        "allow_computers",
        "weekly",
        "meta",
    }
)
_OPEN: tuple[NightStatus, ...] = ("planned", "polling", "seating", "playing")


class StaleNight(Exception):
    """The night changed since the version the caller read (nothing was written)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _night(row: sqlite3.Row) -> Night:
    return Night(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        title=row["title"],
        starts_at=from_iso(row["starts_at"]),
        planner_id=int(row["planner_id"]),
        games=list(json.loads(row["games"])),
        status=row["status"],
        event_id=None if row["event_id"] is None else int(row["event_id"]),
        rsvp_message_id=None if row["rsvp_message_id"] is None else int(row["rsvp_message_id"]),
        board_message_id=(
            None if row["board_message_id"] is None else int(row["board_message_id"])
        ),
        min_players=int(row["min_players"]),
        calloff_minutes=int(row["calloff_minutes"]),
        calloff_policy=row["calloff_policy"],
        allow_computers=bool(row["allow_computers"]),
        weekly=bool(row["weekly"]),
        meta=dict(json.loads(row["meta"])),
        version=int(row["version"]),
        created_at=from_iso(row["created_at"]),
        updated_at=from_iso(row["updated_at"]),
    )


def _rsvp(row: sqlite3.Row) -> Rsvp:
    return Rsvp(
        night_id=int(row["night_id"]),
        user_id=int(row["user_id"]),
        answer=row["answer"],
        games=list(json.loads(row["games"])),
        at=from_iso(row["at"]),
        locale=row["locale"],
    )


def _column_value(name: str, value: Any) -> Any:
    if name in ("games", "meta"):
        return _dumps(list(value) if name == "games" else dict(value))
    if name == "starts_at":
        return to_iso(value)
    if name in ("allow_computers", "weekly"):
        return 1 if value else 0
    if name == "status" and value not in NIGHT_STATUSES:
        raise ValueError(f"unknown night status {value!r}")
    if name == "calloff_policy" and value not in ("cancel", "keep"):
        raise ValueError(f"unknown call-off policy {value!r}")
    return value


class NightStore:
    """``nights`` and its satellite tables. Every method commits before it returns."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    # -- nights --------------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        title: str,
        starts_at: datetime,
        planner_id: int,
        games: Sequence[str],
        status: NightStatus = "planned",
        event_id: int | None = None,
        rsvp_message_id: int | None = None,
        min_players: int = 0,
        calloff_minutes: int = 0,
        calloff_policy: CalloffPolicy = "cancel",
        allow_computers: bool = False,
        weekly: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> Night:
        """Store a new night; returns it (with its id)."""
        if status not in NIGHT_STATUSES:
            raise ValueError(f"unknown night status {status!r}")
        now = to_iso(self._clock.now())
        async with self._db.transaction() as conn:
            async with conn.execute(
                "INSERT INTO nights (guild_id, channel_id, title, starts_at, planner_id, games,"
                " status, event_id, rsvp_message_id, min_players, calloff_minutes,"
                " calloff_policy, allow_computers, weekly, meta, version, created_at,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    title,
                    to_iso(starts_at),
                    planner_id,
                    _dumps(list(games)),
                    status,
                    event_id,
                    rsvp_message_id,
                    min_players,
                    calloff_minutes,
                    _column_value("calloff_policy", calloff_policy),
                    1 if allow_computers else 0,
                    1 if weekly else 0,
                    _dumps(dict(meta or {})),
                    now,
                    now,
                ),
            ) as cur:
                night_id = cur.lastrowid
            if night_id is None:
                raise RuntimeError("the night row got no id")
            async with conn.execute(f"{_SELECT} WHERE id = ?", (night_id,)) as cur:
                row = await cur.fetchone()
        return _night(row)

    async def get(self, night_id: int) -> Night | None:
        row = await self._db.fetchone(f"{_SELECT} WHERE id = ?", (night_id,))
        return None if row is None else _night(row)

    async def by_event(self, guild_id: int, event_id: int) -> Night | None:
        """The night whose Discord scheduled event is ``event_id`` (the newest if several)."""
        row = await self._db.fetchone(
            f"{_SELECT} WHERE guild_id = ? AND event_id = ? ORDER BY id DESC LIMIT 1",
            (guild_id, event_id),
        )
        return None if row is None else _night(row)

    async def by_message(self, message_id: int) -> Night | None:
        """The night whose RSVP message (or poll) is ``message_id``."""
        row = await self._db.fetchone(
            f"{_SELECT} WHERE rsvp_message_id = ? ORDER BY id DESC LIMIT 1", (message_id,)
        )
        return None if row is None else _night(row)

    async def upcoming(self, guild_id: int) -> list[Night]:
        """The guild's nights not ended yet (planned, polling, seating, playing), soonest
        first."""
        rows = await self._db.fetchall(
            f"{_SELECT} WHERE guild_id = ? AND status IN (?, ?, ?, ?) ORDER BY starts_at, id",
            (guild_id, *_OPEN),
        )
        return [_night(row) for row in rows]

    async def open_nights(self) -> list[Night]:
        """Every night not ended yet, in any guild (to re-arm work at start-up)."""
        rows = await self._db.fetchall(
            f"{_SELECT} WHERE status IN (?, ?, ?, ?) ORDER BY starts_at, id", _OPEN
        )
        return [_night(row) for row in rows]

    async def update(
        self,
        night_id: int,
        *,
        version: int | None = None,
        when_status: Collection[NightStatus] | None = None,
        **fields: Any,
    ) -> Night:
        """Change ``fields`` of the night (its version grows by one); returns the new row.

        ``version``: only if the night is still at that version; ``when_status``: only if its
        status is one of those. Otherwise :class:`StaleNight` and nothing written (a missing
        night raises ``LookupError``)."""
        unknown = set(fields) - _UPDATABLE
        if unknown:
            raise ValueError(f"not a night field: {', '.join(sorted(unknown))}")
        sets = ["version = version + 1", "updated_at = ?"]
        params: list[Any] = [to_iso(self._clock.now())]
        for name, value in sorted(fields.items()):
            sets.append(f"{name} = ?")
            params.append(_column_value(name, value))
        where = ["id = ?"]
        params.append(night_id)
        if version is not None:
            where.append("version = ?")
            params.append(version)
        if when_status is not None:
            statuses = list(when_status)
            if not statuses:
                raise StaleNight(f"night {night_id}: no status allowed")
            where.append(f"status IN ({', '.join('?' for _ in statuses)})")
            params.extend(statuses)
        async with self._db.transaction() as conn:
            async with conn.execute(
                # the column names come from _UPDATABLE, the values are parameters
                f"UPDATE nights SET {', '.join(sets)} WHERE {' AND '.join(where)}",  # noqa: S608
                params,
            ) as cur:
                changed = cur.rowcount
            async with conn.execute(f"{_SELECT} WHERE id = ?", (night_id,)) as cur:
                row = await cur.fetchone()
        if row is None:
            raise LookupError(f"no night {night_id}")
        if changed == 0:
            raise StaleNight(f"night {night_id} is not in the expected state")
        return _night(row)

    # -- answers ---------------------------------------------------------------------------

    async def set_rsvp(
        self,
        night_id: int,
        user_id: int,
        answer: RsvpAnswer,
        games: Sequence[str] | None = None,
        *,
        locale: str | None = None,
    ) -> Rsvp:
        """Record (or change) ``user_id``'s answer; ``games=None`` keeps the games they
        already wished (none for a new answer), ``locale=None`` the language known."""
        if answer not in RSVP_ANSWERS:
            raise ValueError(f"unknown answer {answer!r}")
        now = to_iso(self._clock.now())
        wished = None if games is None else _dumps(list(games))
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO night_rsvps (night_id, user_id, answer, games, at, locale)"
                " VALUES (?, ?, ?, coalesce(?, '[]'), ?, ?) ON CONFLICT (night_id, user_id)"
                " DO UPDATE SET answer = excluded.answer,"
                " games = coalesce(?, night_rsvps.games), at = excluded.at,"
                " locale = coalesce(excluded.locale, night_rsvps.locale)",
                (night_id, user_id, answer, wished, now, locale, wished),
            )
            async with conn.execute(
                "SELECT night_id, user_id, answer, games, at, locale FROM night_rsvps"
                " WHERE night_id = ? AND user_id = ?",
                (night_id, user_id),
            ) as cur:
                row = await cur.fetchone()
        return _rsvp(row)

    async def rsvp(self, night_id: int, user_id: int) -> Rsvp | None:
        row = await self._db.fetchone(
            "SELECT night_id, user_id, answer, games, at, locale FROM night_rsvps"
            " WHERE night_id = ? AND user_id = ?",
            (night_id, user_id),
        )
        return None if row is None else _rsvp(row)

    async def rsvps(self, night_id: int) -> list[Rsvp]:
        """Every answer, oldest first (the order people answered)."""
        rows = await self._db.fetchall(
            "SELECT night_id, user_id, answer, games, at, locale FROM night_rsvps WHERE night_id = ?"
            " ORDER BY at, user_id",
            (night_id,),
        )
        return [_rsvp(row) for row in rows]

    async def attendees(self, night_id: int) -> list[Rsvp]:
        """The answers "in", oldest first."""
        return [r for r in await self.rsvps(night_id) if r.answer == "in"]

    # -- notices sent once ---------------------------------------------------------------

    async def mark_sent(self, night_id: int, what: str, user_id: int = 0) -> bool:
        """Claim the notice ``what`` to ``user_id`` (0: the channel); ``True`` only the first
        time. Claim before sending: a crash between the two loses that one notice rather
        than sending it twice."""
        changed = await self._db.execute(
            "INSERT OR IGNORE INTO night_sent (night_id, what, user_id, at) VALUES (?, ?, ?, ?)",
            (night_id, what, user_id, to_iso(self._clock.now())),
        )
        return changed > 0

    async def was_sent(self, night_id: int, what: str, user_id: int = 0) -> bool:
        row = await self._db.fetchone(
            "SELECT 1 FROM night_sent WHERE night_id = ? AND what = ? AND user_id = ?",
            (night_id, what, user_id),
        )
        return row is not None

    # -- tables and seats (the hour) -------------------------------------------------------

    async def add_table(
        self,
        night_id: int,
        table_no: int,
        kind: str,
        game_id: int | None = None,
        thread_id: int | None = None,
    ) -> NightTable:
        """Record table ``table_no`` (or update its game and thread when it exists)."""
        await self._db.execute(
            "INSERT INTO night_tables (night_id, table_no, kind, game_id, thread_id)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (night_id, table_no) DO UPDATE SET"
            " kind = excluded.kind, game_id = coalesce(excluded.game_id, night_tables.game_id),"
            " thread_id = coalesce(excluded.thread_id, night_tables.thread_id)",
            (night_id, table_no, kind, game_id, thread_id),
        )
        tables = {t.table_no: t for t in await self.tables(night_id)}
        return tables[table_no]

    async def tables(self, night_id: int) -> list[NightTable]:
        rows = await self._db.fetchall(
            "SELECT night_id, table_no, kind, game_id, thread_id FROM night_tables"
            " WHERE night_id = ? ORDER BY table_no",
            (night_id,),
        )
        return [
            NightTable(
                night_id=int(r["night_id"]),
                table_no=int(r["table_no"]),
                kind=r["kind"],
                game_id=None if r["game_id"] is None else int(r["game_id"]),
                thread_id=None if r["thread_id"] is None else int(r["thread_id"]),
            )
            for r in rows
        ]

    async def set_seat(
        self, night_id: int, user_id: int, table_no: int | None, status: SeatStatus
    ) -> NightSeat:
        if status not in ("seated", "waiting", "left"):
            raise ValueError(f"unknown seat status {status!r}")
        await self._db.execute(
            "INSERT INTO night_seats (night_id, user_id, table_no, status, at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (night_id, user_id) DO UPDATE SET"
            " table_no = excluded.table_no, status = excluded.status, at = excluded.at",
            (night_id, user_id, table_no, status, to_iso(self._clock.now())),
        )
        return NightSeat(night_id=night_id, user_id=user_id, table_no=table_no, status=status)

    async def seats(self, night_id: int) -> list[NightSeat]:
        rows = await self._db.fetchall(
            "SELECT night_id, user_id, table_no, status FROM night_seats WHERE night_id = ?"
            " ORDER BY at, user_id",
            (night_id,),
        )
        return [
            NightSeat(
                night_id=int(r["night_id"]),
                user_id=int(r["user_id"]),
                table_no=None if r["table_no"] is None else int(r["table_no"]),
                status=r["status"],
            )
            for r in rows
        ]

    async def night_of_game(self, game_id: int) -> Night | None:
        """The night one of whose tables plays game ``game_id``."""
        row = await self._db.fetchone(
            _OF_GAME,
            (game_id,),
        )
        return None if row is None else _night(row)
