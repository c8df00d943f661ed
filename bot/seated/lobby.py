"""The lobby: ``/<game> begin`` opens a table others join; the host seats computer players and
starts it (or it expires). A start while the bot's REST budget is taken by running games
waits its turn and starts by itself (:meth:`LobbyRoom._wait_for_room`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any, Final

import discord

from bot.budget import Dropped, Priority, priority
from bot.engine import SYSTEM, Game, IllegalAction, new_game
from bot.engine.lobby import LEVELS
from bot.i18n import Lang, has_key, locale_for_user, t
from bot.limits import LimitReached, MemberLimits, member_limits
from bot.present import mention
from bot.seated.render import unrated_note
from bot.seated.spec import CASUAL, LOBBY_KIND, TURN_SECONDS, TURN_SECONDS_RANGE, SeatedTable
from bot.seated.start import StartRoom
from bot.storage import StoredGame
from bot.storage.db import Tx
from bot.storage.games import TxHook
from bot.storage.limits import count_open_lobbies
from bot.ui import GameButton, GameSelect, GameView, Press, auto_defer, respond, update_message

__all__ = ["CLOSED_LOBBY_KEPT", "WAITING_POLL", "LobbyRoom"]

log = logging.getLogger("gamenight.seated")

WAITING_POLL: Final = 1.0
"""Seconds between two looks at the REST budget for lobbies waiting to start."""

CLOSED_LOBBY_KEPT: Final = timedelta(hours=1)
"""How long the row of a lobby closed without a game (cancelled, declined) stays: a late
click on its message still finds it closed. The hourly purge deletes it then; an expired
lobby goes at once (its message has no buttons left)."""


class LobbyRoom(StartRoom):
    """``/<game> begin`` and the lobby's buttons."""

    async def open_lobby(
        self, interaction: discord.Interaction[Any], values: Mapping[str, Any]
    ) -> None:
        """``/<game> begin``: a lobby message others join."""
        guild, channel_id = interaction.guild, interaction.channel_id
        locale = locale_for_user(interaction)
        if guild is None or channel_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        host = str(interaction.user.id)
        made = await self._new_lobby(interaction, host, values, locale)
        if made is None:
            return
        lobby, kit = made
        limits = await member_limits(self.bot.store, guild.id)
        if not await self.lobby_allowed(interaction, limits, guild.id, channel_id, host, locale):
            return
        async with auto_defer(interaction, thinking=True):
            public = (await self.bot.guild_settings(guild)).locale
            lobby_id = await self.create_lobby(
                interaction, guild.id, channel_id, lobby, kit, limits, public, locale
            )
            if lobby_id is None:
                return
            stored = await self.bot.store.games.require(lobby_id)
            message = await respond(
                interaction,
                embed=self.lobby_embed(stored, public),
                view=self.lobby_view(stored, public),
            )
        self._spawn(self._open_dm(host))
        if message is None:
            message = await interaction.original_response()
        due = self.bot.clock.now() + timedelta(minutes=self.spec.lobby_minutes)
        payload = {"lobby_id": lobby_id, "message_id": message.id}
        await self.bot.timers.schedule(
            self.lobby_timer(), due, payload, key=self.lobby_key(lobby_id)
        )

    async def _new_lobby(
        self,
        interaction: discord.Interaction[Any],
        host: str,
        values: Mapping[str, Any],
        locale: Lang,
    ) -> tuple[Game, dict[str, Any]] | None:
        """The lobby game of ``/<game> begin`` (or a challenge) with its options checked, and
        the kit's own options; ``None`` once the player was told what is wrong."""
        options = self.spec.begin_options
        engine = {o.name: values[o.name] for o in options if o.engine and o.name in values}
        kit = {o.name: values[o.name] for o in options if not o.engine and o.name in values}
        if not kit.get(CASUAL):
            kit.pop(CASUAL, None)  # only a casual game says so
        problem = self.check_turn(values, locale) or self.check_options(values, locale)
        if problem is not None:
            await self.say(interaction, problem)
            return None
        try:
            lobby = new_game(LOBBY_KIND, [host], 0, {"game": self.kind, **engine})
        except ValueError as err:
            await self.say(interaction, t("seated.bad_option", locale, reason=str(err)))
            return None
        return lobby, kit

    async def create_lobby(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int,
        channel_id: int,
        lobby: Any,
        kit: Any,
        limits: MemberLimits,
        public: Lang,
        locale: Lang,
        **meta: Any,
    ) -> int | None:
        """The lobby's row, made within the server's limits (counted in the same
        transaction): its id, or ``None`` when a limit refused it (the member was told)."""
        host = str(interaction.user.id)
        try:
            return await self.bot.store.games.create(
                LOBBY_KIND,
                guild_id,
                channel_id,
                lobby,
                {
                    "locale": public,
                    f"locale:{host}": locale,
                    f"name:{host}": interaction.user.display_name,
                    **meta,
                    "kit": kit,
                },
                in_tx=self.within_lobby_limits(limits, guild_id, channel_id, host),
            )
        except LimitReached as err:
            await self.say(interaction, t(err.key, locale, **err.params))
            return None

    async def open_table(self, table: SeatedTable, public: Lang) -> StoredGame:
        """A table the bot seats itself: a lobby with every seat taken (members and
        computer seats) whose message is posted in ``table.channel_id``, started at once;
        the lobby message becomes the table and the start goes on as a host's Start does.

        Exactly once by ``table.key``: every step is recorded before the next, so opening
        the same key again after a failure or a restart resumes it (the lobby, its message,
        the start, the hands) and returns the same game; it never makes a second one. The
        members' live-game limits do not apply (the bot, not a member, seats them)."""
        found = await self._keyed(table)
        if found is not None and found.kind == self.kind:
            if not found.meta.get("posted"):
                await self._post_start(found, resumed=True)
            return await self.bot.store.games.require(found.id)
        lobby = found
        if lobby is None:
            lobby_id = await self.bot.store.games.create(
                LOBBY_KIND,
                table.guild_id,
                table.channel_id,
                self._full_lobby(table),
                {
                    "locale": public,
                    **{f"locale:{p}": lang for p, lang in table.locales.items()},
                    **{f"name:{p}": name for p, name in table.names.items()},
                    "kit": {},
                    "seated_key": table.key,
                },
            )
            lobby = await self.bot.store.games.require(lobby_id)
        if not lobby.meta.get("table_id"):
            with priority(Priority.TABLE):
                message = await self.channel(lobby).send(embed=self.lobby_embed(lobby, public))
            lobby = await self.bot.store.games.update_meta(lobby.id, {"table_id": message.id})
        created: dict[str, StoredGame] = {}
        extra: dict[str, Any] = {"seated_key": table.key}
        if not table.call:
            extra["called"] = True
        host = table.players[0]
        start = self._game_from_lobby(
            created, public, int(lobby.meta["table_id"]), None, host, extra
        )
        await self.bot.store.games.act(lobby.id, host, {"type": "start"}, in_tx=start)
        stored = created["game"]
        self._opening(stored)
        self._edit_table(stored)
        await self._post_start(stored)
        return await self.bot.store.games.require(stored.id)

    def _full_lobby(self, table: SeatedTable) -> Game:
        """The lobby of :meth:`open_table` with every seat taken (the engine checks the
        counts: a table too small or too large is refused here, before anything is
        written)."""
        host, *others = table.players
        lobby = new_game(LOBBY_KIND, [host], 0, {"game": self.kind, **table.options})
        for player in others:
            lobby.apply(player, {"type": "join"})
        for level in table.computers:
            lobby.apply(host, {"type": "add_computer", "level": level})
        low = lobby.public_view()["min_players"]
        if len(table.players) + len(table.computers) < low:
            raise IllegalAction(f"at least {low} players are needed", "lobby.too_few")
        return lobby

    async def _keyed(self, table: SeatedTable) -> StoredGame | None:
        """The game (else the open lobby) opened before with ``table.key``, if any."""
        found: StoredGame | None = None
        for kind in (self.kind, LOBBY_KIND):
            for stored in await self.bot.store.games.find(
                kind=kind, channel_id=table.channel_id, status=None, limit=1000
            ):
                if stored.meta.get("seated_key") != table.key:
                    continue
                if kind == self.kind:
                    return stored
                if stored.is_active:
                    found = stored
        return found

    def within_lobby_limits(
        self, limits: MemberLimits, guild_id: int, channel_id: int, host: str
    ) -> Callable[[Tx, int | None], Awaitable[None]]:
        """The check of a new lobby, run in its transaction once its row is written (so it
        counts itself): open lobbies of the host, the channel and the server, and the live
        games the host sits in. :class:`LimitReached` rolls the lobby back. (Two lobbies
        opened at once are counted one after the other: see :mod:`bot.storage.limits`.)"""

        async def check(conn: Tx, lobby_id: int | None = None) -> None:
            new = 1 if lobby_id is None else 0  # before the row is written: count it too
            now = await count_open_lobbies(conn, guild_id, channel_id, host)
            if now.member + new > limits.lobbies_per_member:
                raise LimitReached("limits.lobbies_member", limit=limits.lobbies_per_member)
            if now.channel + new > limits.lobbies_per_channel:
                raise LimitReached("limits.lobbies_channel", limit=limits.lobbies_per_channel)
            if now.server + new > limits.lobbies_per_server:
                raise LimitReached("limits.lobbies_server", limit=limits.lobbies_per_server)
            await self.within_live_limit(conn, limits, guild_id, [host], adding=new)

        return check

    async def lobby_allowed(
        self,
        interaction: discord.Interaction[Any],
        limits: MemberLimits,
        guild_id: int,
        channel_id: int,
        host: str,
        locale: Lang,
    ) -> bool:
        """The limits of a new lobby read before anything is written (a refusal is then
        private at once, before any deferral); the same check runs again in the lobby's
        transaction, which alone decides when two arrive together."""
        check = self.within_lobby_limits(limits, guild_id, channel_id, host)
        try:
            async with self.bot.db.read() as conn:
                await check(conn, None)
        except LimitReached as err:
            await self.say(interaction, t(err.key, locale, **err.params))
            return False
        return True

    def check_turn(self, values: Mapping[str, Any], locale: Lang) -> str | None:
        """The kit's check of the turn timer (:func:`bot.seated.spec.turn_option`): 0 (off)
        or :data:`~bot.seated.spec.TURN_SECONDS_RANGE` seconds."""
        option = self.spec.option(TURN_SECONDS)
        if option is None:
            return None
        low, high = TURN_SECONDS_RANGE
        seconds = int(values.get(TURN_SECONDS, option.default))
        if not seconds or low <= seconds <= high:
            return None
        key = f"{self.kind}.bad_turn_seconds"
        if has_key(key, locale):
            return t(key, locale, min=low, max=high, value=seconds)
        reason = f"{TURN_SECONDS} (0 for no timer) must be between {low} and {high}"
        return t("seated.bad_option", locale, reason=reason)

    def check_options(self, values: Mapping[str, Any], locale: Lang) -> str | None:
        """A game's own check of ``/<game> begin`` options, in the player's language (``None``:
        fine). The engine checks them again; this only words the refusal better."""
        return None

    def lobby_embed(
        self, stored: StoredGame, locale: Lang, note: str | None = None
    ) -> discord.Embed:
        view = self.public(stored)
        name = self.render.name(locale)
        embed = discord.Embed(
            title=t("lobby.title", locale, game=name),
            description=t(
                "lobby.description",
                locale,
                host=mention(view["host"], locale),
                seats=t(
                    "lobby.seats"
                    if view["min_players"] == view["max_players"]
                    else "lobby.seats_range",
                    locale,
                    min=view["min_players"],
                    max=view["max_players"],
                ),
            ),
            colour=self.render.colour,
        )
        levels = view["computers"]
        lines = [
            mention(p, locale)
            + (" · " + t("lobby.level." + levels[p], locale) if p in levels else "")
            for p in view["players"]
        ]
        embed.add_field(
            name=t("lobby.players", locale, count=len(view["players"]), max=view["max_players"]),
            value="\n".join(lines),
        )
        kit = stored.meta.get("kit") or {}
        options = {**view["options"], **{k: v for k, v in kit.items() if k != CASUAL}}
        text = self.render.options_text(options, locale)
        unrated = unrated_note(bool(kit.get(CASUAL)), bool(levels), locale)
        embed.add_field(
            name=t("lobby.options", locale), value=text + (f"\n{unrated}" if unrated else "")
        )
        if note:
            embed.add_field(name="\u200b", value=note, inline=False)
        return embed

    def lobby_view(self, stored: StoredGame, locale: Lang) -> GameView:
        kind, lobby_id = self.lobby_buttons, stored.id
        styles = {
            "join": discord.ButtonStyle.success,
            "leave": discord.ButtonStyle.secondary,
            "start": discord.ButtonStyle.primary,
            "cancel": discord.ButtonStyle.danger,
        }
        buttons: list[discord.ui.Item[Any]] = [
            *(
                GameButton(kind, lobby_id, action, label=t(f"lobby.{action}", locale), style=style)
                for action, style in styles.items()
            ),
            GameSelect(
                kind,
                lobby_id,
                "add_computer",
                [
                    discord.SelectOption(label=t(f"lobby.level.{lv}", locale), value=lv, emoji="🤖")
                    for lv in LEVELS
                ],
                placeholder=t("lobby.add_computer", locale),
                row=1,
            ),
        ]
        if self.public(stored)["computers"]:
            buttons.append(
                GameButton(
                    kind,
                    lobby_id,
                    "remove_computer",
                    label=t("lobby.remove_computer", locale),
                    row=2,
                )
            )
        return GameView(*buttons)

    async def on_lobby_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        user = str(interaction.user.id)
        stored = await self.bot.store.games.get(press.game_id)
        if stored is None or not stored.is_active:  # gone: an expired lobby is deleted
            await self.say(interaction, t("lobby.closed", locale))
            return
        public = self.public_locale(stored)
        action: dict[str, Any] = {"type": press.action}
        if press.action == "add_computer":
            action["level"] = press.values[0] if press.values else "normal"
        elif press.action == "remove_computer":
            computers = list(self.public(stored)["computers"])
            action["player"] = computers[-1] if computers else ""
        if press.action == "start":
            if self.bot.budget.congested() and {"type": "start"} in stored.game.legal_actions(user):
                await self._wait_for_room(interaction, stored, public)
                return
            await self._start(interaction, stored, public, locale)
            return
        meta = (
            {f"locale:{user}": locale, f"name:{user}": interaction.user.display_name}
            if press.action == "join"
            else None
        )
        in_tx: TxHook = self._lobby_closed
        if press.action == "join":
            in_tx = self.joined_within_limit(
                await member_limits(self.bot.store, stored.guild_id), user
            )
        async with auto_defer(interaction):
            try:
                lobby, _ = await self.bot.store.games.act(
                    stored.id, user, action, meta_update=meta, in_tx=in_tx
                )
            except IllegalAction as err:
                await self.say(interaction, self.lobby_refusal(err, locale))
                return
            except LimitReached as err:
                await self.say(interaction, t(err.key, locale, **err.params))
                return
            if press.action == "join":
                self._spawn(self._open_dm(user))  # the start then sends the hand at once
            note = t("lobby.cancelled", public) if lobby.status == "voided" else None
            await update_message(
                interaction,
                embed=self.lobby_embed(lobby, public, note),
                view=self.lobby_view(lobby, public) if lobby.is_active else GameView(),
            )

    async def _wait_for_room(
        self, interaction: discord.Interaction[Any], lobby: StoredGame, public: Lang
    ) -> None:
        """The bot's REST budget is taken by running games: the lobby says so and starts by
        itself, in turn, once there is room (its Start click answers it then)."""
        if all(lobby_id != lobby.id for lobby_id, _ in self.waiting):
            self.waiting.append((lobby.id, interaction))
        position = next(i for i, (lid, _) in enumerate(self.waiting, 1) if lid == lobby.id)
        note = t("lobby.busy", public, position=position)
        await update_message(
            interaction,
            embed=self.lobby_embed(lobby, public, note),
            view=self.lobby_view(lobby, public),
        )
        log.info(
            "a start waits for room", extra={"game_id": lobby.id, "waiting": len(self.waiting)}
        )
        if self._waiter is None or self._waiter.done():
            self._waiter = self._spawn(self._start_waiting())

    async def _start_waiting(self) -> None:
        """Start the waiting lobbies one by one, oldest first, while the budget has room."""
        while self.waiting:
            await asyncio.sleep(WAITING_POLL)
            while self.waiting and not self.bot.budget.congested():
                lobby_id, interaction = self.waiting.pop(0)
                lobby = await self.bot.store.games.get(lobby_id)
                if lobby is None or not lobby.is_active:
                    continue
                locale = locale_for_user(interaction)
                try:
                    await self._start(interaction, lobby, self.public_locale(lobby), locale)
                except Exception:
                    log.exception("a waiting start failed", extra={"game_id": lobby_id})

    async def _open_dm(self, user: str) -> None:
        """Find or open a lobby player's DM channel now, not in the start's rush."""
        try:
            with priority(Priority.TABLE):  # ahead of notices: the start's hands need it
                await self.bot.private.dm_channel(int(user))
        except (discord.HTTPException, Dropped):
            log.info("could not open a DM channel yet", extra={"user_id": user})

    async def on_lobby_timer(self, payload: dict[str, Any]) -> None:
        """Nobody started the lobby in time: close it, strip its buttons, tell the channel."""
        lobby_id = int(payload["lobby_id"])
        lobby, _ = await self.bot.store.games.act(lobby_id, SYSTEM, {"type": "expire"})
        public = self.public_locale(lobby)
        note = t("lobby.expired", public, minutes=self.spec.lobby_minutes)
        channel = self.channel(lobby)
        try:
            if payload.get("message_id"):
                await channel.get_partial_message(int(payload["message_id"])).edit(
                    embed=self.lobby_embed(lobby, public, note), view=GameView()
                )
        except discord.HTTPException:
            log.warning("could not close an expired lobby", extra={"game_id": lobby_id})
        # Its message says so and has no buttons left: the row and its timers are not needed.
        await self.bot.store.games.delete_lobby(lobby_id)
        log.info("an abandoned lobby expired", extra={"game_id": lobby_id})

    def purge_job(self) -> str:
        return f"{self.kind}.purge_lobbies"

    async def purge_lobbies(self) -> None:
        """The hourly job (and at start-up): delete the rows of lobbies closed without a
        game more than :data:`CLOSED_LOBBY_KEPT` ago, and their timers."""
        gone = await self.bot.store.games.purge_closed_lobbies(
            self.bot.clock.now() - CLOSED_LOBBY_KEPT
        )
        if gone:
            log.info("closed lobbies purged", extra={"count": gone})
