"""A lobby becomes a game: the start, its Discord side (finished after a failure or a
restart), and the resume of every running game when the bot comes back.

The start creates the game in the lobby's transaction; the lobby message becomes the table;
the players are called once (marked before it is sent) and each gets their hand exactly once
(a hand sent but not recorded is found again in the DM). A durable timer finishes whatever
a failure or a restart cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import discord

from bot.budget import Priority, priority
from bot.engine import Event, IllegalAction, new_game
from bot.engine.lobby import Lobby, is_computer
from bot.i18n import LOCALES, Lang, has_key, t
from bot.limits import LimitReached, MemberLimits, member_limits
from bot.present import mention
from bot.private import DMS_CLOSED
from bot.seated.publish import PublishRoom
from bot.seated.spec import LOBBY_KIND
from bot.storage import StoredGame
from bot.storage.db import Tx
from bot.storage.games import TxHook
from bot.storage.limits import count_live_games
from bot.ui import (
    GameView,
    auto_defer,
    notify,
    refused_payload,
    report_error,
    update_message,
)

__all__ = ["StartRoom", "new_seed"]

log = logging.getLogger("gamenight.seated")


def new_seed() -> int:
    """Each game's deal comes from here (tests pin it)."""
    return secrets.randbelow(1 << 62)


class StartRoom(PublishRoom):
    """From a lobby to a game on the table, with every hand dealt."""

    async def _lobby_closed(self, lobby: StoredGame, events: list[Event]) -> None:
        """Inside the lobby's transaction: a started or cancelled lobby needs no expiry."""
        if not lobby.is_active:
            await self.bot.timers.cancel(self.lobby_key(lobby.id))

    # -- limits (bot.limits) ------------------------------------------------------------------

    def seated_kinds(self) -> list[str]:
        """Where a member sits: lobbies and every seated game loaded in this bot."""
        kinds = {LOBBY_KIND, self.kind}
        kinds.update(cog.kind for cog in self.bot.cogs.values() if isinstance(cog, StartRoom))
        return sorted(kinds)

    async def within_live_limit(
        self,
        conn: Tx,
        limits: MemberLimits,
        guild_id: int,
        players: list[str],
        actor: str | None = None,
        *,
        adding: int = 0,
    ) -> None:
        """In a transaction that seats ``players`` (its rows written; ``adding``: seats not
        written yet): each human sits in at most ``live_games_per_member`` live games and
        open lobbies of the server, else :class:`LimitReached` (naming the player, unless
        it is ``actor`` or alone)."""
        kinds = self.seated_kinds()
        for player in players:
            if is_computer(player):
                continue
            seats = await count_live_games(conn, guild_id, player, kinds) + adding
            if seats > limits.live_games_per_member:
                if player == actor or (actor is None and len(players) == 1):
                    raise LimitReached("limits.live_games", limit=limits.live_games_per_member)
                raise LimitReached(
                    "limits.live_games_player",
                    player=mention(player),
                    limit=limits.live_games_per_member,
                )

    def joined_within_limit(self, limits: MemberLimits, user: str) -> TxHook:
        """The ``in_tx`` of a join: the member now sits in one more lobby; past the limit,
        :class:`LimitReached` takes the join back."""

        async def check(lobby: StoredGame, events: list[Event]) -> None:
            await self._lobby_closed(lobby, events)
            async with self.bot.db.transaction() as conn:
                await self.within_live_limit(conn, limits, lobby.guild_id, [user], user)

        return check

    async def _start(
        self,
        interaction: discord.Interaction[Any],
        lobby: StoredGame,
        public: Lang,
        locale: Lang,
        *,
        as_player: str | None = None,
    ) -> None:
        """Start the lobby and create the game in one transaction; the lobby message becomes
        the table; then the players are called and get their hands. ``as_player``: who starts
        it (the host, when a challenged colleague's Accept starts the game)."""
        created: dict[str, StoredGame] = {}
        table_id = interaction.message.id if interaction.message is not None else None
        limits = await member_limits(self.bot.store, lobby.guild_id)
        starter = as_player or str(interaction.user.id)
        create = self._game_from_lobby(created, public, table_id, limits, starter)

        async with auto_defer(interaction):
            try:
                await self.bot.store.games.act(lobby.id, starter, {"type": "start"}, in_tx=create)
            except IllegalAction as err:
                await self.say(interaction, self.lobby_refusal(err, locale))
                return
            except LimitReached as err:
                await self.say(interaction, t(err.key, locale, **err.params))
                return
            stored = created["game"]
            self._opening(stored)
            try:
                await update_message(  # "" clears a challenge's question ("accept?")
                    interaction, "", embed=self.table_embed(stored), view=self.table_view(stored)
                )
                self.tables.shown((stored.id, "table"), stored.version)
                self.keep_token(interaction, stored, None, table_id)
            except discord.HTTPException as err:
                if refused_payload(err) is not None:
                    await report_error(interaction, err, where=f"{self.kind} start")
                else:
                    log.warning("the start was not answered", extra={"game_id": stored.id})
                self._edit_table(stored)  # by the bot's token, once Discord takes it
            self._spawn(self._post_start(stored))

    def _game_from_lobby(
        self,
        created: dict[str, StoredGame],
        public: Lang,
        table_id: int | None,
        limits: MemberLimits | None,
        starter: str,
        extra: Mapping[str, Any] | None = None,
    ) -> TxHook:
        """The ``in_tx`` of a lobby's start: the game is created in the lobby's transaction
        (within each player's live-game limit unless ``limits`` is ``None``: a table the bot
        seats itself), armed, with its start timer; ``created["game"]`` holds it then.
        ``extra``: keys added to the game's ``meta``."""

        async def create(started: StoredGame, events: list[Event]) -> None:
            table = started.game
            if not isinstance(table, Lobby):
                raise TypeError(f"#{started.id} is not a lobby")
            game = new_game(self.kind, table.players, new_seed(), table.options)
            await self._lobby_closed(started, events)
            kit: Mapping[str, Any] = started.meta.get("kit") or {}
            meta = {
                "lobby_id": started.id,
                "host": table.host,
                "locale": public,
                "locales": {p: started.meta.get(f"locale:{p}", public) for p in table.players},
                "names": {
                    p: started.meta[f"name:{p}"]
                    for p in table.players
                    if f"name:{p}" in started.meta
                },
                "computers": dict(table.computers),
                "table_id": table_id,
                "posted": False,
                **kit,
                **(extra or {}),
            }

            async def seats_within_limit(conn: Tx, game_id: int) -> None:
                # The lobby closed in this transaction: each player's new game replaces it.
                if limits is not None:
                    await self.within_live_limit(
                        conn, limits, started.guild_id, list(table.players), starter
                    )

            game_id = await self.bot.store.games.create(
                self.kind,
                started.guild_id,
                started.channel_id,
                game,
                meta,
                in_tx=seats_within_limit,
            )
            new = await self.bot.store.games.require(game_id)
            await self._arm(new, [], None)
            due = self.bot.clock.now() + timedelta(seconds=self.START_RETRY)
            await self.bot.timers.schedule(
                self.start_timer(), due, {"game_id": game_id}, key=self.start_key(game_id)
            )
            created["game"] = new

        return create

    def _opening(self, stored: StoredGame) -> None:
        """The first table's "last move" lines: the game's ``deal_event()``, when it has one
        (who deals, the first round), as its renderer's ``event_lines`` show it."""
        deal = getattr(stored.game, "deal_event", None)
        if not callable(deal):
            return
        view = self.public(stored)
        lines = {
            lang: self.render.event_lines([deal()], view, lang) for lang in self.locales(stored)
        }
        if any(lines.values()):
            self.live(stored).last = lines

    async def on_start_timer(self, payload: dict[str, Any]) -> None:
        """The Discord side of a start that a failure or a restart cut short."""
        stored = await self.bot.store.games.get(int(payload["game_id"]))
        if stored is not None and stored.is_active and not stored.meta.get("posted"):
            await self._post_start(stored, resumed=True)
            stored = await self.bot.store.games.require(stored.id)
            if not stored.meta.get("posted"):
                raise RuntimeError(f"game #{stored.id}: the start is not posted yet")

    async def _post_start(self, stored: StoredGame, *, resumed: bool = False) -> None:
        """The Discord side of a start (resumed after a failure or a restart): the table,
        the call to the players (at most once: marked before it is sent), each player's
        hand (exactly once: a hand sent but not recorded is found again in the DM), the
        first computer move. One start at a time per game."""
        lock = self._starting.setdefault(stored.id, asyncio.Lock())
        try:
            async with lock:
                stored = await self.bot.store.games.require(stored.id)
                if stored.is_active and not stored.meta.get("posted"):
                    await self._deal_out(stored, resumed=resumed)
        finally:
            if not lock.locked():
                self._starting.pop(stored.id, None)

    async def _deal_out(self, stored: StoredGame, *, resumed: bool) -> None:
        public = self.public_locale(stored)
        players = self.public(stored)["players"]
        humans = [p for p in players if not is_computer(p)]
        hands: dict[str, Any] = dict(stored.meta.get("hands") or {})
        if resumed:
            self._edit_table(stored)
        try:
            if not stored.meta.get("called"):
                stored = await self.bot.store.games.update_meta(stored.id, {"called": True})
                key = f"{self.kind}.started"  # a game may say its own (Spit: no hands)
                await self.channel(stored).send(
                    t(
                        key if has_key(key, public) else "seated.started",
                        public,
                        game=self.render.name(public),
                        game_id=stored.shown_number,
                        players=" ".join(mention(p, public) for p in players),
                    ),
                    allowed_mentions=notify(*humans),
                )
            missing = [p for p in ([] if self.spec.public_board else humans) if p not in hands]
        except discord.HTTPException:
            log.exception("could not call the players of a game", extra={"game_id": stored.id})
            missing = []  # the start timer finishes the start

        async def hand_of(player: str) -> list[int] | None:
            found = await self._find_hand(stored, player) if resumed else None
            ids = found or await self._send_hand(stored, player)
            if ids is not None:
                # Recorded as soon as it is sent: a hand that came late (Discord opens DM
                # channels slowly) is kept up to date while the others are still on their way.
                latest = await self.bot.store.games.merge_meta(stored.id, "hands", {player: ids})
                if latest.game.view(player) != stored.game.view(player):
                    self._edit_hand(latest, player)  # what happened since it was drawn
            return ids

        # Each hand is a DM of its own: sent side by side, not one after the other.
        sent = await asyncio.gather(*(hand_of(p) for p in missing), return_exceptions=True)
        for player, result in zip(missing, sent, strict=True):
            if isinstance(result, discord.HTTPException):
                log.warning(
                    "could not send a hand; the start timer tries again",
                    extra={"game_id": stored.id, "status": result.status},
                )
            elif isinstance(result, BaseException):
                raise result
            else:
                hands[player] = result
        posted = self.spec.public_board or all(p in hands for p in humans)
        closed = {p: None for p in missing if p in hands and hands[p] is None}
        if closed:  # each hand sent was recorded as it went; closed DMs are noted here
            await self.bot.store.games.merge_meta(stored.id, "hands", closed)
        stored = await self.bot.store.games.update_meta(
            stored.id, {"called": True, "posted": posted}
        )
        if posted:
            await self.bot.timers.cancel(self.start_key(stored.id))
        self._after_turn(stored, before=[], actor=None)

    async def _find_hand(self, stored: StoredGame, player: str) -> list[int] | None:
        """A hand of this game already in the player's DMs (sent before a crash): a message
        newer than the table whose controls or title name this game."""
        mark = f":{self.kind}:{stored.id}:"
        names = "|".join(re.escape(self.render.name(lang)) for lang in LOCALES)
        title = re.compile(rf"({names}) (#|n°){stored.shown_number}\b")
        after = (
            discord.Object(id=int(stored.meta["table_id"])) if stored.meta.get("table_id") else None
        )
        try:
            dm = await self.bot.private.dm_channel(int(player))
            async for message in dm.history(limit=10, after=after):
                if self.bot.user is None or message.author.id != self.bot.user.id:
                    continue
                ids = [
                    str(getattr(child, "custom_id", "") or "")
                    for row in message.components
                    for child in getattr(row, "children", [row])
                ]
                titles = [e.title or "" for e in message.embeds]
                if any(mark in i for i in ids) or any(title.search(x) for x in titles):
                    return [dm.id, message.id]
        except discord.HTTPException:
            return None
        return None

    async def _send_hand(self, stored: StoredGame, player: str) -> list[int] | None:
        """A new DM holding the player's hand; ``None`` when their DMs are closed."""
        if self.bot.private.known_closed(int(player)):
            return None
        embed, controls = await self.hand_message(stored, player)
        try:
            with priority(Priority.UNBLOCK):
                dm = await self.bot.private.dm_channel(int(player))
                message = await dm.send(embed=embed, view=controls or GameView())
        except discord.Forbidden as err:
            if err.code == DMS_CLOSED:
                self.bot.private.dms_closed(int(player))
            return None
        return [dm.id, message.id]

    # -- after a restart --------------------------------------------------------------------

    async def _resume(self) -> None:
        """After a restart: finish the Discord side of starts cut short; wake computer seats."""
        await self.bot.wait_until_ready()
        for stored in await self.bot.store.games.find(kind=self.kind, limit=10_000):
            await self._resume_notices(stored)
            if not stored.meta.get("posted"):
                await self._post_start(stored, resumed=True)
            elif any(is_computer(p) for p in stored.game.to_act()):
                self._after_turn(stored, before=[], actor=None)

    async def _resume_notices(self, stored: StoredGame) -> None:
        """Turn notices posted before the restart: kept (and deleted once the player acts)
        while the player must still act; deleted now otherwise."""
        now = stored.game.to_act()
        for key, where in stored.meta.items():
            if not key.startswith("notice:") or not where:
                continue
            player = key.removeprefix("notice:")
            message = self.bot.get_partial_messageable(int(where[0])).get_partial_message(
                int(where[1])
            )
            if player in now:
                self.notices.adopt(stored.id, player, message)
            else:
                with contextlib.suppress(discord.HTTPException):
                    await message.delete()
