"""A game night from its hour: the seating, the tables, the latecomers, the board, the close.

At the hour (the ``night.start`` timer) the attendees are split into tables
(:func:`bot.nights.seating.seat`, each rated by their displayed overall rating, the default
for the unrated) and the seating is stored on the night in one write before anything is
sent; from then on every step reads it and is done once:

- each table gets its own public thread (:func:`bot.threads.open_thread`, the night's
  channel when the bot may not open threads) and is opened full and started through the
  seated kit (:meth:`~bot.seated.lobby.LobbyRoom.open_table`, by the key
  ``night:<night>:<table>``): the kit calls its players in the thread once, which is their
  one ping;
- the people left waiting are told once each (``mark_sent``);
- the board (one message in the night's channel) is posted once and edited as tables end.

``/gamenight join`` seats a latecomer (:func:`~bot.nights.seating.place_latecomer`: every
table already plays, so they wait until enough wait to open a table, which the
``night.tables`` timer opens); ``/gamenight leave`` takes someone off the waiting list (or off
the night: their table plays on). When every table is over, the board shows the champion and
the podium with its picture and the night closes. The games are rated as any game is.

A kill at any point loses nothing and sends nothing twice: the timers run again, and each
step finds what the one before did (the stored seating, the tables' rows, the kit's key,
``mark_sent``).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.budget import Priority, priority
from bot.i18n import Lang, locale_for_user, t
from bot.nights import (
    ANY,
    Attendee,
    PlayerCount,
    Seating,
    Table,
    Waiting,
    place_latecomer,
    seat,
    table_games,
    without,
)
from bot.present import mention, mentions, when
from bot.ratings.ledger import OVERALL
from bot.ratings.model import MU, SIGMA, display_rating
from bot.seated import SeatedCog
from bot.seated.spec import SeatedTable
from bot.storage import StoredGame
from bot.storage.nights import StaleNight
from bot.threads import open_thread
from bot.ui import message_nonce, notify
from cogs.gamenight._board import BoardTable, board_embed, night_standings, picture_words
from cogs.gamenight._picture import night_picture

if TYPE_CHECKING:
    from bot.client import GamenightBot
    from bot.storage.models import Night, NightStatus

__all__ = ["TABLES", "NightRunner", "dump_seating", "load_seating"]

log = logging.getLogger("gamenight.nights")

TABLES: Final = "night.tables"
"""The timer that opens the tables a night's seating holds and has not opened yet (after a
latecomer's join filled one from the waiting list)."""
COMPUTER_LEVEL: Final = "normal"
PICTURE: Final = "night.png"
RUNNING: Final[tuple[NightStatus, ...]] = ("seating", "playing")
PLANNED: Final[tuple[NightStatus, ...]] = ("planned",)
SEATING: Final[tuple[NightStatus, ...]] = ("seating",)
PLAYING: Final[tuple[NightStatus, ...]] = ("playing",)
STALE_TRIES: Final = 5


def dump_seating(seating: Seating) -> dict[str, Any]:
    """The seating as the night's ``meta`` keeps it (JSON)."""

    def person(a: Attendee) -> list[Any]:
        return [a.user_id, None if a.wishes is None else sorted(a.wishes), a.rating]

    return {
        "tables": [
            {
                "game": tb.game,
                "players": [[*person(p), dict(p.by_game)] for p in tb.players],
                "computers": tb.computers,
            }
            for tb in seating.tables
        ],
        "waiting": [
            [*person(w.attendee), w.reason, dict(w.attendee.by_game)] for w in seating.waiting
        ],
    }


def load_seating(data: Mapping[str, Any]) -> Seating:
    def person(row: Sequence[Any], by_game: Any) -> Attendee:
        wishes = None if row[1] is None else frozenset(row[1])
        games = tuple(sorted((str(g), float(r)) for g, r in (by_game or {}).items()))
        return Attendee(int(row[0]), wishes, float(row[2]), games)

    def extra(row: Sequence[Any], at: int) -> Any:
        return row[at] if len(row) > at else None  # a seating saved before game ratings

    return Seating(
        tuple(
            Table(
                tb["game"],
                tuple(person(p, extra(p, 3)) for p in tb["players"]),
                int(tb["computers"]),
            )
            for tb in data.get("tables", [])
        ),
        tuple(Waiting(person(w, extra(w, 4)), str(w[3])) for w in data.get("waiting", [])),
    )


class NightRunner:
    """The running side of :class:`~cogs.gamenight._cog.GamenightCog`."""

    bot: GamenightBot

    def _runner_init(self) -> None:
        self._board_locks: dict[int, asyncio.Lock] = {}

    def _runner_load(self) -> None:
        self._runner_init()
        self.bot.timers.register(TABLES, self._on_tables)

    # -- helpers ------------------------------------------------------------------------------

    def _seated(self, kind: str) -> SeatedCog | None:
        return next(
            (c for c in self.bot.cogs.values() if isinstance(c, SeatedCog) and c.kind == kind),
            None,
        )

    def _games(self, night: Night) -> dict[str, PlayerCount]:
        """The night's games this bot runs, with their player counts."""
        return {
            kind: counts
            for kind, counts in table_games().items()
            if kind in night.games and self._seated(kind) is not None
        }

    async def _public(self, night: Night) -> Lang:
        guild = self.bot.get_guild(night.guild_id)
        return (await self.bot.guild_settings(guild or night.guild_id)).locale

    async def _attendee(
        self, night: Night, user_id: int, games: Sequence[str], season: str
    ) -> Attendee:
        """The member as the seating sees them: their wishes, their overall rating this
        season, and their rating in each of the night's games where they are no longer
        provisional (a few games say little: the overall rating judges them there)."""
        wishes = frozenset(games) if games else ANY
        rows = await self.bot.store.ratings.player(night.guild_id, user_id, season)
        overall = next((row.rating for row in rows if row.scope == OVERALL), None)
        by_game = tuple(
            (row.scope, float(row.rating))
            for row in rows
            if row.scope in night.games and not row.provisional
        )
        rating = float(display_rating(MU, SIGMA) if overall is None else overall)
        return Attendee(user_id, wishes, rating, by_game)

    async def _change_seating(self, night_id: int, change: Any, **fields: Any) -> tuple[Night, Any]:
        """Apply ``change(night, seating) -> (seating, answer)`` and store the new seating on
        the night, optimistically (a concurrent change, in this process or another, is read
        again and ``change`` retried)."""
        for _ in range(STALE_TRIES):
            night = await self._require(night_id)
            seating, answer = change(night, load_seating(night.meta.get("seating") or {}))
            if seating is None:
                return night, answer
            meta = {**night.meta, "seating": dump_seating(seating)}
            try:
                night = await self.bot.store.nights.update(
                    night_id, version=night.version, meta=meta, **fields
                )
            except StaleNight:
                continue
            return night, answer
        raise StaleNight(f"night {night_id} kept changing")

    async def _require(self, night_id: int) -> Night:
        night = await self.bot.store.nights.get(night_id)
        if night is None:
            raise LookupError(f"no night {night_id}")
        return night

    # -- the hour -----------------------------------------------------------------------------

    async def start_night(self, night_id: int) -> None:
        """The hour of night ``night_id`` (the ``night.start`` timer): seat the attendees,
        open and start every table, tell those waiting, post the board. Run again after a
        kill, it finishes what is missing and sends nothing twice."""
        night = await self.bot.store.nights.get(night_id)
        if night is None or night.status not in ("planned", *RUNNING):
            return
        if night.status == "planned":
            night = await self._seat_everyone(night)
            if night.status != "seating":
                return
        await self._open_tables(night)
        night = await self._require(night_id)
        await self._tell_waiting(night)
        if night.status == "seating":
            try:
                night = await self.bot.store.nights.update(
                    night_id, when_status=SEATING, status="playing"
                )
            except StaleNight:
                night = await self._require(night_id)
        await self.refresh_board(night_id)
        log.info("a night is seated", extra={"night_id": night_id})

    async def _seat_everyone(self, night: Night) -> Night:
        games = self._games(night)
        season = await self.bot.store.ratings.current_season(night.guild_id, self.bot.clock.now())
        rsvps = await self.bot.store.nights.attendees(night.id)
        people = [await self._attendee(night, r.user_id, r.games, season) for r in rsvps]
        seating = seat(people, games, computers=night.allow_computers, seed=night.id)
        try:
            return await self.bot.store.nights.update(
                night.id,
                version=night.version,
                when_status=PLANNED,
                status="seating",
                meta={**night.meta, "seating": dump_seating(seating)},
            )
        except StaleNight:
            return await self._require(night.id)  # another run seated it (or it was cancelled)

    async def _open_tables(self, night: Night) -> None:
        """Open every table of the seating not opened yet, side by side."""
        seating = load_seating(night.meta.get("seating") or {})
        rows = {row.table_no: row for row in await self.bot.store.nights.tables(night.id)}
        public = await self._public(night)
        opening = [
            self._open_table(night, no, table, rows.get(no), public)
            for no, table in enumerate(seating.tables, 1)
        ]
        results = await asyncio.gather(*opening, return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        for err in failed:
            log.error("a night's table did not open", exc_info=err, extra={"night_id": night.id})
        if failed:
            raise failed[0]  # the timer runs again; what opened is kept

    async def _open_table(
        self, night: Night, no: int, table: Table, row: Any, public: Lang
    ) -> None:
        if row is not None and row.game_id is not None:
            return
        cog = self._seated(table.game)
        if cog is None:
            raise LookupError(f"no {table.game} here")
        where = row.thread_id if row is not None else None
        if where is None:
            name = t(
                "gamenight.run.thread",
                public,
                title=night.title,
                n=no,
                game=cog.render.name(public),
            )
            where = (await open_thread(self.bot, night.channel_id, name)).channel_id
            await self.bot.store.nights.add_table(night.id, no, table.game, thread_id=where)
        players = tuple(str(uid) for uid in table.user_ids())
        game = await cog.open_table(
            SeatedTable(
                key=f"night:{night.id}:{no}",
                guild_id=night.guild_id,
                channel_id=where,
                players=players,
                computers=(COMPUTER_LEVEL,) * table.computers,
                options={},
            ),
            public,
        )
        await self.bot.store.nights.add_table(night.id, no, table.game, game_id=game.id)
        for uid in table.user_ids():
            await self.bot.store.nights.set_seat(night.id, uid, no, "seated")

    async def _tell_waiting(self, night: Night) -> None:
        """The people the seating left waiting, told once each in the night's channel."""
        seating = load_seating(night.meta.get("seating") or {})
        told: list[int] = []
        for uid in seating.waiting_ids():
            await self.bot.store.nights.set_seat(night.id, uid, None, "waiting")
            if await self.bot.store.nights.mark_sent(night.id, "waiting", uid):
                told.append(uid)
        if not told:
            return
        public = await self._public(night)
        text = t("gamenight.run.waiting", public, players=mentions(told, public))
        try:
            await self.bot.get_partial_messageable(night.channel_id).send(
                text, allowed_mentions=notify(*told)
            )
        except discord.HTTPException:
            log.warning("could not tell a night's waiting list", extra={"night_id": night.id})

    async def _on_tables(self, payload: dict[str, Any]) -> None:
        """The ``night.tables`` timer: open the tables the waiting list filled."""
        night = await self.bot.store.nights.get(int(payload["night_id"]))
        if night is None or night.status not in RUNNING:
            return
        await self._open_tables(night)
        await self.refresh_board(night.id)

    # -- the board and the close -----------------------------------------------------------

    async def _board_tables(self, night: Night) -> list[BoardTable]:
        seating = load_seating(night.meta.get("seating") or {})
        rows = {row.table_no: row for row in await self.bot.store.nights.tables(night.id)}
        out = []
        for no, table in enumerate(seating.tables, 1):
            row = rows.get(no)
            stored = (
                await self.bot.store.games.get(row.game_id)
                if row is not None and row.game_id is not None
                else None
            )
            players = (
                tuple(stored.game.public_view()["players"])
                if stored
                else tuple(str(uid) for uid in table.user_ids())
            )
            ranking: tuple[tuple[str, ...], ...] | None = None
            void = False
            if stored is not None and not stored.is_active:
                if stored.status == "over":
                    result = stored.game.result()
                    ranking = tuple(tuple(group) for group in result.get("ranking") or ())
                void = ranking is None
            out.append(
                BoardTable(no, table.game, row.thread_id if row else None, players, ranking, void)
            )
        return out

    async def refresh_board(self, night_id: int) -> None:
        """Post the board once, or edit it to what the night is now; close the night when
        every table is over. One refresh at a time per night in this process; another
        process's refresh only edits the same message to the same (or newer) state."""
        lock = self._board_locks.setdefault(night_id, asyncio.Lock())
        async with lock:
            night = await self._require(night_id)
            if night.status not in (*RUNNING, "closed"):
                return
            tables = await self._board_tables(night)
            seating = load_seating(night.meta.get("seating") or {})
            finished = night.status == "playing" and bool(tables) and all(tb.done for tb in tables)
            closing = finished or night.status == "closed"
            await self._show_board(night, tables, seating, closed=closing)
            if finished:
                try:
                    await self.bot.store.nights.update(
                        night_id, when_status=PLAYING, status="closed"
                    )
                    log.info("a night closed", extra={"night_id": night_id})
                except StaleNight:
                    pass

    async def _show_board(
        self, night: Night, tables: list[BoardTable], seating: Seating, *, closed: bool
    ) -> None:
        public = await self._public(night)
        people = [str(uid) for uid in (*seating.seated(), *seating.waiting_ids())]
        ranked = night_standings(tables, people)
        embed = board_embed(
            night.title,
            tables,
            ranked,
            [str(uid) for uid in seating.waiting_ids()],
            public,
            closed=closed,
        )
        files: list[discord.File] = []
        if closed:
            names = {s.player: self._name(night, s.player) for s in ranked}
            data = night_picture(ranked, names, picture_words(night.title, public))
            files.append(discord.File(io.BytesIO(data), filename=PICTURE))
            embed.set_image(url=f"attachment://{PICTURE}")
        channel = self.bot.get_partial_messageable(night.channel_id)
        try:
            with priority(Priority.NOTICE):
                if night.board_message_id is not None:
                    message = channel.get_partial_message(night.board_message_id)
                    if files:
                        await message.edit(embed=embed, attachments=files)
                    else:
                        await message.edit(embed=embed)
                    return
                # The nonce names the night's board: a run that died after posting it, before
                # recording its id, posts again and Discord gives back the same message.
                nonce = message_nonce("gn-night-", f"{night.id}:board")
                sent = await channel.send(embed=embed, files=files, nonce=nonce)
            await self.bot.store.nights.update(night.id, board_message_id=sent.id)
        except discord.HTTPException:
            log.warning("could not show a night's board", extra={"night_id": night.id})

    def _name(self, night: Night, player: str) -> str:
        guild = self.bot.get_guild(night.guild_id)
        member = guild.get_member(int(player)) if guild and player.isdigit() else None
        user = member or (self.bot.get_user(int(player)) if player.isdigit() else None)
        return user.display_name if user is not None else f"#{player[-4:]}"

    async def on_game_over(self, stored: StoredGame) -> None:
        """A seated game ended: when it is one of a night's tables, the board follows."""
        night = await self.bot.store.nights.night_of_game(stored.id)
        if night is not None and night.status in RUNNING:
            await self.refresh_board(night.id)

    async def resume_nights(self) -> None:
        """After a restart: the boards of the nights playing are brought up to date (a game
        that ended while the bot was down), and those whose tables are all over close."""
        for night in await self.bot.store.nights.open_nights():
            if night.status == "playing":
                try:
                    await self.refresh_board(night.id)
                except Exception:
                    log.exception("could not resume a night", extra={"night_id": night.id})

    # -- /gamenight join and leave -----------------------------------------------------------

    async def _running_night(
        self, interaction: discord.Interaction[Any], locale: Lang
    ) -> Night | None:
        """The server's night being played, else ``None`` once the member was told why."""
        guild = interaction.guild
        if interaction.user.bot:
            await self._say(interaction, t("gamenight.run.bot", locale))
            return None
        if guild is None:
            await self._say(interaction, t("errors.guild_only", locale))
            return None
        nights = [n for n in await self.bot.store.nights.open_nights() if n.guild_id == guild.id]
        running = [n for n in nights if n.status in RUNNING]
        if running:
            return running[-1]
        planned = [n for n in nights if n.status in ("planned", "polling")]
        if planned:
            text = t("gamenight.run.not_started", locale, when=when(planned[0].starts_at))
        else:
            text = t("gamenight.run.none", locale)
        await self._say(interaction, text)
        return None

    async def _say(self, interaction: discord.Interaction[Any], text: str) -> None:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)

    async def join_night(self, interaction: discord.Interaction[Any]) -> None:
        """``/gamenight join``: a latecomer waits until enough wait to open a table."""
        locale = locale_for_user(interaction)
        night = await self._running_night(interaction, locale)
        if night is None:
            return
        user_id = interaction.user.id
        games = self._games(night)
        season = await self.bot.store.ratings.current_season(night.guild_id, self.bot.clock.now())
        rsvp = await self.bot.store.nights.rsvp(night.id, user_id)
        person = await self._attendee(night, user_id, rsvp.games if rsvp else [], season)

        def change(current: Night, seating: Seating) -> tuple[Seating | None, Any]:
            table = seating.table_of(user_id)
            if table is not None:
                return None, ("seated", table + 1)
            if user_id in seating.waiting_ids():
                return None, ("waiting", 0)
            playing = range(len(seating.tables))
            placed = place_latecomer(seating, person, games, closed=playing, seed=current.id)
            return placed.seating, ("placed", placed)

        night, (what, detail) = await self._change_seating(night.id, change)
        if what == "seated":
            await self._say(interaction, t("gamenight.run.already_seated", locale, n=detail))
            return
        if what == "waiting":
            await self._say(interaction, t("gamenight.run.already_waiting", locale))
            return
        await self.bot.store.nights.set_rsvp(night.id, user_id, "in", locale=locale)
        if detail.table is None:
            await self.bot.store.nights.set_seat(night.id, user_id, None, "waiting")
            count = len(detail.seating.waiting)
            await self._say(interaction, t("gamenight.run.joined_waiting", locale, count=count))
        else:
            await self._say(
                interaction, t("gamenight.run.joined_table", locale, n=detail.table + 1)
            )
        if detail.opened:
            due = self.bot.clock.now() + timedelta(seconds=0)
            key = f"{TABLES}:{night.id}:{len(detail.seating.tables)}"
            await self.bot.timers.schedule_once(TABLES, due, {"night_id": night.id}, key)
        else:
            await self.refresh_board(night.id)

    async def leave_night(self, interaction: discord.Interaction[Any]) -> None:
        """``/gamenight leave``: off the waiting list, or off the night (their table plays
        on; its turn timer moves for them)."""
        locale = locale_for_user(interaction)
        night = await self._running_night(interaction, locale)
        if night is None:
            return
        user_id = interaction.user.id
        seats = {s.user_id: s for s in await self.bot.store.nights.seats(night.id)}
        mine = seats.get(user_id)
        if mine is None:
            await self._say(interaction, t("gamenight.run.not_in", locale))
            return
        if mine.status == "left":
            await self._say(interaction, t("gamenight.run.already_left", locale))
            return

        def change(current: Night, seating: Seating) -> tuple[Seating | None, Any]:
            if user_id in seating.waiting_ids():
                return without(seating, user_id), "waiting"
            return None, "seated"

        night, was = await self._change_seating(night.id, change)
        await self.bot.store.nights.set_seat(night.id, user_id, mine.table_no, "left")
        await self.bot.store.nights.set_rsvp(night.id, user_id, "no")
        key = "gamenight.run.left_waiting" if was == "waiting" else "gamenight.run.left_table"
        await self._say(interaction, t(key, locale, who=mention(str(user_id), locale)))
        await self.refresh_board(night.id)
