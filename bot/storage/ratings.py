"""Ratings per server, scope and season: ``bot.store.ratings``.

Written in the transaction that records a finished game's result (:meth:`RatingStore.record`,
called by :meth:`bot.storage.games.GameStore.act`), read by the boards and profiles.

Exactly once: ``rated_games`` holds one row per finished game the ratings have seen (its
primary key), so a result recorded twice, or a commit tried again, rates once; the row is
in the same transaction as the result, so a crash leaves both or neither. The updates of
one server are taken in turn by the upsert of its ``rating_seq`` row (held until the
commit, also across processes on PostgreSQL), and ``seq`` is their order, which
:meth:`RatingStore.rebuild` replays: the rebuild gives the live numbers again.

Every method joins the caller's transaction when there is one (storage transactions
compose: a nested one is a savepoint), e.g. ``/forget-me``::

    async with bot.db.transaction():
        await bot.store.ratings.forget(guild_id, user_id)
        ...  # the caller's other writes, committed together
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.ratings.ledger import (
    AWAY_MOVES,
    RATED_KINDS,
    Seat,
    Standing,
    scopes_of,
    seats_of,
    update,
)
from bot.ratings.model import display_rating, is_provisional
from bot.ratings.seasons import SeasonPeriod, season_key
from bot.ratings.settings import SETTINGS_KEY, RatingSettings
from bot.storage.db import Database
from bot.storage.game_settings import GameSettingsStore
from bot.storage.guilds import GuildSettingsStore
from bot.storage.models import PlayerResult, StoredGame

__all__ = [
    "HeadToHead",
    "RatingPoint",
    "RatingRow",
    "RatingStore",
    "RebuildReport",
    "Verdict",
]

log = logging.getLogger("gamenight.storage.ratings")


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A member's rating in one scope and season. ``rating`` is the displayed number;
    ``games``/``wins`` are the season's; ``provisional``: fewer than 5 rated games in the
    scope over every season (``career``)."""

    user_id: int
    scope: str
    season: str
    mu: float
    sigma: float
    rating: int
    games: int
    wins: int
    provisional: bool
    career: int = 0


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A member's rating right after one rated game."""

    game_id: int
    at: datetime
    mu: float
    sigma: float
    rating: int


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Finished games two members both played, from the viewer's side."""

    games: int = 0
    ahead: int = 0
    behind: int = 0
    tied: int = 0


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the ratings made of a finished game (its ``rated_games`` row). ``reason`` of a
    game not rated: ``casual`` (the host's choice), ``computers`` (computer seats),
    ``too_few`` (fewer than two members to rate)."""

    rated: bool
    reason: str
    season: str
    excluded: tuple[int, ...] = ()
    leavers: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RebuildReport:
    guilds: int
    games: int
    rated: int
    rows: int


_ROW = (
    "SELECT user_id, scope, season, mu, sigma, rating, games, wins, career, last_seq FROM ratings"
)


def _row(row: Any) -> RatingRow:
    return RatingRow(
        user_id=int(row["user_id"]),
        scope=row["scope"],
        season=row["season"],
        mu=float(row["mu"]),
        sigma=float(row["sigma"]),
        rating=int(row["rating"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        provisional=is_provisional(int(row["career"])),
        career=int(row["career"]),
    )


def _standing(row: Any) -> Standing:
    return Standing(
        float(row["mu"]),
        float(row["sigma"]),
        int(row["games"]),
        int(row["wins"]),
        int(row["career"]),
    )


def _ids(text: str) -> tuple[int, ...]:
    """The member ids of a JSON list (``excluded``, ``leavers``)."""
    return tuple(int(v) for v in json.loads(text))


def _leavers(stored: StoredGame) -> tuple[int, ...]:
    """Members who left the game: the turn timer played their last :data:`AWAY_MOVES`
    moves or more in a row (``meta["away"]``, kept by the seated kit)."""
    away: dict[str, int] = stored.meta.get("away") or {}
    return tuple(
        sorted(int(p) for p, n in away.items() if str(p).isdigit() and int(n) >= AWAY_MOVES)
    )


_KINDS = "(" + ", ".join("?" * len(RATED_KINDS)) + ")"
"""Placeholders for :data:`RATED_KINDS` (the kinds are parameters)."""

_UPSERT = (
    "INSERT OR REPLACE INTO ratings (guild_id, scope, season, user_id, mu, sigma, rating,"
    " games, wins, career, last_seq, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_POINT = (
    "INSERT OR REPLACE INTO rating_points (game_id, scope, user_id, guild_id, season, seq,"
    " place, mu, sigma, rating, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class RatingStore:
    """``ratings``, ``rating_points``, ``rated_games``, ``rating_opt_outs`` and the season
    period (the ``ratings`` entry of the server's game settings)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        settings: GuildSettingsStore,
        game_settings: GameSettingsStore,
    ) -> None:
        self._db = db
        self._clock = clock
        self._settings = settings
        self._game_settings = game_settings

    # -- settings ------------------------------------------------------------------------

    async def rating_settings(self, guild_id: int) -> RatingSettings:
        return RatingSettings.model_validate(await self._game_settings.get(guild_id, SETTINGS_KEY))

    async def season_period(self, guild_id: int) -> SeasonPeriod:
        return (await self.rating_settings(guild_id)).season_period

    async def set_season_period(self, guild_id: int, period: SeasonPeriod) -> None:
        """Raises ``pydantic.ValidationError`` (nothing saved) for an unknown period."""
        await self._game_settings.update(
            guild_id,
            SETTINGS_KEY,
            {"season_period": period},
            validate=lambda data: RatingSettings.model_validate(data).model_dump(),
        )

    async def current_season(self, guild_id: int, now: datetime) -> str:
        """The key of the season the instant ``now`` is in, for the server's period and
        time zone."""
        zone = (await self._settings.get(guild_id)).zone
        return season_key(now, zone, await self.season_period(guild_id))

    # -- opting out ----------------------------------------------------------------------

    async def set_opted_out(self, guild_id: int, user_id: int, out: bool) -> None:
        """Keep a member out of the ratings' later updates and of every board (or back in)."""
        if out:
            await self._db.execute(
                "INSERT OR IGNORE INTO rating_opt_outs (guild_id, user_id, since) VALUES (?, ?, ?)",
                (guild_id, user_id, to_iso(self._clock.now())),
            )
        else:
            await self._db.execute(
                "DELETE FROM rating_opt_outs WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )

    async def opted_out(self, guild_id: int) -> set[int]:
        rows = await self._db.fetchall(
            "SELECT user_id FROM rating_opt_outs WHERE guild_id = ?", (guild_id,)
        )
        return {int(row["user_id"]) for row in rows}

    async def is_opted_out(self, guild_id: int, user_id: int) -> bool:
        row = await self._db.fetchone(
            "SELECT 1 FROM rating_opt_outs WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return row is not None

    async def forget(self, guild_id: int, user_id: int, *, alias: int | None = None) -> None:
        """Delete the member's ratings, rating history and opt-out row in the server (inside
        the caller's transaction when there is one). The games they played stay rated for
        the others.

        ``alias``: the id (0 or below, the same for all of that member's seats in the
        server) their seats in ``game_results`` now carry; the games' verdicts name the
        alias too, so a rebuild still replays those games with that seat in them and gives
        the others their live numbers again. A rebuild keeps no rating of an id 0 or below."""
        if alias is not None and alias > 0:
            raise ValueError("an alias is 0 or below: it must never be a member's id")
        async with self._db.transaction() as conn:
            for table in ("ratings", "rating_points", "rating_opt_outs"):
                await conn.execute(
                    f"DELETE FROM {table} WHERE guild_id = ? AND user_id = ?",  # noqa: S608
                    (guild_id, user_id),
                )
            if alias is None:
                return
            rows = await self._db.fetchall(
                "SELECT game_id, excluded, leavers FROM rated_games WHERE guild_id = ?"
                " AND (excluded <> '[]' OR leavers <> '[]')",
                (guild_id,),
            )
            for row in rows:
                excluded, leavers = _ids(row["excluded"]), _ids(row["leavers"])
                if user_id not in excluded and user_id not in leavers:
                    continue
                await conn.execute(
                    "UPDATE rated_games SET excluded = ?, leavers = ? WHERE game_id = ?",
                    (
                        json.dumps([alias if u == user_id else u for u in excluded]),
                        json.dumps([alias if u == user_id else u for u in leavers]),
                        row["game_id"],
                    ),
                )

    # -- boards --------------------------------------------------------------------------

    async def board(
        self, guild_id: int, scope: str, season: str, *, offset: int = 0, limit: int = 10
    ) -> list[RatingRow]:
        """The season's ranking in ``scope`` (rating, then games, then user id), members who
        opted out left out; provisional ones are in, marked."""
        rows = await self._db.fetchall(
            _ROW + " WHERE guild_id = ? AND scope = ? AND season = ? AND user_id NOT IN"  # noqa: S608
            " (SELECT user_id FROM rating_opt_outs WHERE guild_id = ?)"
            " ORDER BY rating DESC, games DESC, user_id LIMIT ? OFFSET ?",
            (guild_id, scope, season, guild_id, limit, offset),
        )
        return [_row(row) for row in rows]

    async def count(self, guild_id: int, scope: str, season: str) -> int:
        value = await self._db.fetchval(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND scope = ? AND season = ?"
            " AND user_id NOT IN (SELECT user_id FROM rating_opt_outs WHERE guild_id = ?)",
            (guild_id, scope, season, guild_id),
        )
        return int(value or 0)

    async def rank_of(
        self, guild_id: int, scope: str, season: str, user_id: int
    ) -> tuple[int, RatingRow] | None:
        """The member's 1-based place on the board and their row (``None``: not on it)."""
        found = await self._db.fetchone(
            _ROW + " WHERE guild_id = ? AND scope = ? AND season = ? AND user_id = ?"  # noqa: S608
            " AND user_id NOT IN (SELECT user_id FROM rating_opt_outs WHERE guild_id = ?)",
            (guild_id, scope, season, user_id, guild_id),
        )
        if found is None:
            return None
        row = _row(found)
        ahead = await self._db.fetchval(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND scope = ? AND season = ?"
            " AND (rating > ? OR (rating = ? AND games > ?)"
            " OR (rating = ? AND games = ? AND user_id < ?))"
            " AND user_id NOT IN (SELECT user_id FROM rating_opt_outs WHERE guild_id = ?)",
            (
                guild_id,
                scope,
                season,
                row.rating,
                row.rating,
                row.games,
                row.rating,
                row.games,
                user_id,
                guild_id,
            ),
        )
        return int(ahead or 0) + 1, row

    async def player(self, guild_id: int, user_id: int, season: str) -> list[RatingRow]:
        """Every scope the member has a rating in that season (``overall`` among them)."""
        rows = await self._db.fetchall(
            _ROW + " WHERE guild_id = ? AND user_id = ? AND season = ? ORDER BY scope",
            (guild_id, user_id, season),
        )
        return [_row(row) for row in rows]

    async def history(
        self, guild_id: int, scope: str, user_id: int, *, season: str | None = None
    ) -> list[RatingPoint]:
        """The member's rating after each of their rated games in ``scope``, oldest first."""
        sql = (
            "SELECT game_id, at, mu, sigma, rating FROM rating_points"
            " WHERE guild_id = ? AND user_id = ? AND scope = ?"
        )
        params: list[Any] = [guild_id, user_id, scope]
        if season is not None:
            sql += " AND season = ?"
            params.append(season)
        rows = await self._db.fetchall(sql + " ORDER BY seq", params)
        return [
            RatingPoint(
                game_id=int(row["game_id"]),
                at=from_iso(row["at"]),
                mu=float(row["mu"]),
                sigma=float(row["sigma"]),
                rating=int(row["rating"]),
            )
            for row in rows
        ]

    async def head_to_head(
        self, guild_id: int, user_id: int, other_id: int, *, scope: str | None = None
    ) -> HeadToHead:
        """Finished games both members played (rated or not), from ``user_id``'s side:
        ahead of, behind or tied with ``other_id``. ``scope``: one game kind (its games
        with computer seats included)."""
        sql = (
            "SELECT a.rank AS mine, b.rank AS theirs FROM game_results AS a"
            " JOIN game_results AS b ON b.game_id = a.game_id AND b.user_id = ?"
            " WHERE a.guild_id = ? AND a.user_id = ?"
        )
        params: list[Any] = [other_id, guild_id, user_id]
        if scope is not None:
            sql += " AND (a.kind = ? OR a.kind = ?)"
            params += [scope, f"{scope}.computers"]
        rows = await self._db.fetchall(sql, params)
        ahead = behind = tied = 0
        last = 1 << 30
        for row in rows:
            mine = last if row["mine"] is None else int(row["mine"])
            theirs = last if row["theirs"] is None else int(row["theirs"])
            ahead += mine < theirs
            behind += mine > theirs
            tied += mine == theirs
        return HeadToHead(len(rows), ahead, behind, tied)

    async def seasons(self, guild_id: int) -> list[str]:
        """The keys of the seasons with rated games, newest first."""
        rows = await self._db.fetchall(
            "SELECT season, MAX(seq) AS last FROM rated_games WHERE guild_id = ? AND rated = 1"
            " GROUP BY season ORDER BY last DESC",
            (guild_id,),
        )
        return [str(row["season"]) for row in rows]

    async def verdict(self, game_id: int) -> Verdict | None:
        """What the ratings made of a finished game (``None``: not seen)."""
        row = await self._db.fetchone(
            "SELECT rated, reason, season, excluded, leavers FROM rated_games WHERE game_id = ?",
            (game_id,),
        )
        if row is None:
            return None
        return Verdict(
            bool(row["rated"]),
            row["reason"],
            row["season"],
            _ids(row["excluded"]),
            _ids(row["leavers"]),
        )

    # -- the update of a finished game ----------------------------------------------------

    async def _next_seq(self, guild_id: int) -> int:
        """The server's next update number; holds its row until the commit (the server's
        updates one after the other, also across processes)."""
        value = await self._db.fetchval(
            "INSERT INTO rating_seq (guild_id, last) VALUES (?, 1)"
            " ON CONFLICT (guild_id) DO UPDATE SET last = rating_seq.last + 1 RETURNING last",
            (guild_id,),
        )
        if value is None:
            raise RuntimeError("the rating counter answered nothing")
        return int(value)

    async def _judge(self, stored: StoredGame, lines: Sequence[PlayerResult]) -> Verdict:
        settings = await self._settings.get(stored.guild_id)
        season = season_key(
            stored.updated_at, settings.zone, await self.season_period(stored.guild_id)
        )
        members = {line.user_id for line in lines}
        excluded = tuple(sorted(members & await self.opted_out(stored.guild_id)))
        leavers = tuple(p for p in _leavers(stored) if p in members)
        if stored.meta.get("casual"):
            return Verdict(False, "casual", season)
        if any(line.kind not in (None, stored.kind) for line in lines):
            return Verdict(False, "computers", season)
        if len(members) - len(excluded) < 2:
            return Verdict(False, "too_few", season, excluded, leavers)
        return Verdict(True, "", season, excluded, leavers)

    async def record(self, stored: StoredGame, lines: Sequence[PlayerResult]) -> bool:
        """Rate a game that just finished, with its result lines, inside the transaction
        that records them. Once per game: ``False`` when it was seen before or is not a
        rated kind (nothing written), else ``True`` (its verdict is written, rated or not)."""
        if stored.kind not in RATED_KINDS or not lines:
            return False
        async with self._db.transaction():
            seq, verdict, changed = await self._mark(stored, lines)
            at = to_iso(stored.updated_at)
            if not changed:
                log.info("game already rated", extra={"game_id": stored.id})
                return False
            if not verdict.rated:
                return True
            seats = seats_of(
                [(line.user_id, line.rank, line.won) for line in lines],
                verdict.excluded,
                verdict.leavers,
            )
            for scope in scopes_of(stored.kind):
                current, earlier = await self._standings(
                    stored.guild_id, scope, verdict.season, [s.user_id for s in seats]
                )
                after = update(seats, current, earlier)
                await self._write(
                    stored.guild_id, stored.id, scope, verdict.season, seq, at, seats, after
                )
            return True

    async def _standings(
        self, guild_id: int, scope: str, season: str, users: Sequence[int]
    ) -> tuple[dict[int, Standing | None], dict[int, Standing | None]]:
        current: dict[int, Standing | None] = {}
        earlier: dict[int, Standing | None] = {}
        for user in users:
            row = await self._db.fetchone(
                _ROW + " WHERE guild_id = ? AND scope = ? AND season = ? AND user_id = ?",
                (guild_id, scope, season, user),
            )
            current[user] = None if row is None else _standing(row)
            if row is None:
                old = await self._db.fetchone(
                    _ROW + " WHERE guild_id = ? AND user_id = ? AND scope = ? AND season <> ?"
                    " ORDER BY last_seq DESC LIMIT 1",
                    (guild_id, user, scope, season),
                )
                earlier[user] = None if old is None else _standing(old)
        return current, earlier

    async def _write(
        self,
        guild_id: int,
        game_id: int,
        scope: str,
        season: str,
        seq: int,
        at: str,
        seats: Sequence[Seat],
        after: dict[int, Standing],
    ) -> None:
        async with self._db.transaction() as conn:
            await conn.executemany(_UPSERT, _rating_rows(guild_id, scope, season, seq, at, after))
            await conn.executemany(
                _POINT,
                [
                    _point_row(game_id, scope, guild_id, season, seq, at, seat, after)
                    for seat in seats
                ],
            )

    # -- the rebuild -----------------------------------------------------------------------

    async def unseen(self) -> list[int]:
        """Servers with finished games of a rated kind the ratings have not seen (games
        played before the ratings existed)."""
        rows = await self._db.fetchall(
            "SELECT DISTINCT g.guild_id FROM games AS g"  # noqa: S608
            " WHERE g.status = 'over' AND g.kind IN "
            + _KINDS
            + " AND EXISTS (SELECT 1 FROM game_results AS r WHERE r.game_id = g.id)"
            " AND NOT EXISTS (SELECT 1 FROM rated_games AS m WHERE m.game_id = g.id)"
            " ORDER BY g.guild_id",
            RATED_KINDS,
        )
        return [int(row["guild_id"]) for row in rows]

    async def catch_up(self) -> RebuildReport | None:
        """At start-up: rate the games played before the ratings existed (the rebuild of
        the servers that have some); ``None`` when there are none."""
        guilds = await self.unseen()
        if not guilds:
            return None
        report = await self.rebuild(guilds)
        log.info(
            "games played before the ratings rated",
            extra={"guilds": report.guilds, "games": report.games},
        )
        return report

    async def rebuild(self, guild_ids: Iterable[int] | None = None) -> RebuildReport:
        """Recompute every rating of the servers (all by default) from the stored results,
        in one transaction: the finished games never seen get their verdict first (in the
        order they finished, after those seen), then every verdict is replayed in order.
        The same stored results give the same numbers, and the live ones."""
        async with self._db.transaction():
            if guild_ids is None:
                rows = await self._db.fetchall(
                    "SELECT guild_id FROM game_results UNION SELECT guild_id FROM rated_games"
                )
                guilds = sorted({int(row["guild_id"]) for row in rows})
            else:
                guilds = sorted(set(guild_ids))
            games = rated = written = 0
            for guild_id in guilds:
                await self._judge_unseen(guild_id)
                counts = await self._replay(guild_id)
                games += counts[0]
                rated += counts[1]
                written += counts[2]
            return RebuildReport(len(guilds), games, rated, written)

    async def _judge_unseen(self, guild_id: int) -> None:
        from bot.storage.games import GameStore  # the games' rows, loaded as act() does

        rows = await self._db.fetchall(
            "SELECT g.id FROM games AS g"  # noqa: S608
            " WHERE g.guild_id = ? AND g.status = 'over' AND g.kind IN "
            + _KINDS
            + " AND NOT EXISTS (SELECT 1 FROM rated_games AS m WHERE m.game_id = g.id)"
            " AND EXISTS (SELECT 1 FROM game_results AS r WHERE r.game_id = g.id)"
            " ORDER BY (SELECT MIN(r.finished_at) FROM game_results AS r"
            " WHERE r.game_id = g.id), g.id",
            (guild_id, *RATED_KINDS),
        )
        if not rows:
            return
        games = GameStore(self._db, self._clock)
        for row in rows:
            stored = await games.get(int(row["id"]))
            if stored is None:
                continue
            lines = await self._lines(stored.id)
            finished = await self._db.fetchval(
                "SELECT MIN(finished_at) FROM game_results WHERE game_id = ?", (stored.id,)
            )
            when = from_iso(finished) if finished else stored.updated_at
            await self._mark(_at(stored, when), lines)  # the numbers come with the replay

    async def _lines(self, game_id: int) -> list[PlayerResult]:
        rows = await self._db.fetchall(
            "SELECT user_id, rank, won, points, kind FROM game_results WHERE game_id = ?"
            " ORDER BY rank IS NULL, rank, user_id",
            (game_id,),
        )
        return [
            PlayerResult(
                user_id=int(row["user_id"]),
                points=int(row["points"]),
                won=bool(row["won"]),
                rank=None if row["rank"] is None else int(row["rank"]),
                kind=row["kind"],
            )
            for row in rows
        ]

    async def _mark(
        self, stored: StoredGame, lines: Sequence[PlayerResult]
    ) -> tuple[int, Verdict, bool]:
        """The game's verdict and its ``rated_games`` row: ``(seq, verdict, written)``;
        ``written`` is ``False`` when the game had one already (nothing changes)."""
        seq = await self._next_seq(stored.guild_id)
        verdict = await self._judge(stored, lines)
        changed = await self._db.execute(
            "INSERT OR IGNORE INTO rated_games (game_id, guild_id, seq, kind, season, rated,"
            " reason, excluded, leavers, rated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stored.id,
                stored.guild_id,
                seq,
                stored.kind,
                verdict.season,
                int(verdict.rated),
                verdict.reason,
                json.dumps(list(verdict.excluded)),
                json.dumps(list(verdict.leavers)),
                to_iso(stored.updated_at),
            ),
        )
        return seq, verdict, changed > 0

    async def _replay(self, guild_id: int) -> tuple[int, int, int]:
        """Every verdict of the server in order, from its game's result lines."""
        await self._db.execute(
            "UPDATE rating_seq SET last = last WHERE guild_id = ?", (guild_id,)
        )  # holds the server's updates until the rebuild commits
        marks = await self._db.fetchall(
            "SELECT game_id, seq, kind, season, rated, excluded, leavers, rated_at"
            " FROM rated_games WHERE guild_id = ? ORDER BY seq",
            (guild_id,),
        )
        results = await self._db.fetchall(
            "SELECT r.game_id, r.user_id, r.rank, r.won FROM game_results AS r"
            " JOIN rated_games AS m ON m.game_id = r.game_id"
            " WHERE m.guild_id = ? AND m.rated = 1 ORDER BY r.game_id, r.rank IS NULL, r.rank,"
            " r.user_id",
            (guild_id,),
        )
        by_game: dict[int, list[tuple[int, int | None, bool]]] = defaultdict(list)
        for row in results:
            rank = None if row["rank"] is None else int(row["rank"])
            by_game[int(row["game_id"])].append((int(row["user_id"]), rank, bool(row["won"])))
        table: dict[tuple[str, str, int], Standing] = {}
        last_seq: dict[tuple[str, str, int], int] = {}
        updated: dict[tuple[str, str, int], str] = {}
        latest: dict[tuple[str, int], tuple[str, Standing]] = {}
        points: list[tuple[Any, ...]] = []
        rated = 0
        for mark in marks:
            if not mark["rated"]:
                continue
            game_id, seq, season = int(mark["game_id"]), int(mark["seq"]), mark["season"]
            at = mark["rated_at"]
            seats = seats_of(
                by_game.get(game_id, []), _ids(mark["excluded"]), _ids(mark["leavers"])
            )
            if not seats:
                continue
            rated += 1
            for scope in scopes_of(mark["kind"]):
                current: dict[int, Standing | None] = {}
                earlier: dict[int, Standing | None] = {}
                for seat in seats:
                    current[seat.user_id] = table.get((scope, season, seat.user_id))
                    before = latest.get((scope, seat.user_id))
                    earlier[seat.user_id] = (
                        before[1] if before is not None and before[0] != season else None
                    )
                after = update(seats, current, earlier)
                for user, standing in after.items():
                    table[(scope, season, user)] = standing
                    last_seq[(scope, season, user)] = seq
                    updated[(scope, season, user)] = at
                    latest[(scope, user)] = (season, standing)
                points += [
                    _point_row(game_id, scope, guild_id, season, seq, at, seat, after)
                    for seat in seats
                    if seat.user_id > 0  # a forgotten member's alias plays, keeps nothing
                ]
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
            await conn.execute("DELETE FROM rating_points WHERE guild_id = ?", (guild_id,))
            rows = [
                _rating_row(guild_id, key, table[key], last_seq[key], updated[key])
                for key in sorted(table)
                if key[2] > 0
            ]
            if rows:
                await conn.executemany(_UPSERT, rows)
            if points:
                await conn.executemany(_POINT, points)
        return len(marks), rated, len(table)


def _at(stored: StoredGame, when: datetime) -> StoredGame:
    from dataclasses import replace

    return replace(stored, updated_at=when)


def _rating_row(
    guild_id: int, key: tuple[str, str, int], s: Standing, seq: int, at: str
) -> tuple[Any, ...]:
    scope, season, user = key
    rating = display_rating(s.mu, s.sigma)
    return (guild_id, scope, season, user, s.mu, s.sigma, rating, s.games, s.wins, s.career,
            seq, at)  # fmt: skip


def _rating_rows(
    guild_id: int, scope: str, season: str, seq: int, at: str, after: dict[int, Standing]
) -> list[tuple[Any, ...]]:
    return [_rating_row(guild_id, (scope, season, user), s, seq, at) for user, s in after.items()]


def _point_row(
    game_id: int,
    scope: str,
    guild_id: int,
    season: str,
    seq: int,
    at: str,
    seat: Seat,
    after: dict[int, Standing],
) -> tuple[Any, ...]:
    s = after[seat.user_id]
    rating = display_rating(s.mu, s.sigma)
    return (game_id, scope, seat.user_id, guild_id, season, seq, seat.place, s.mu, s.sigma,
            rating, at)  # fmt: skip
