"""``/papayoo``: the lobby, the pass, the tricks, the turn timer and the stats.

Every move goes the same way, under one per-game lock so that the public table is edited
in the order the moves were made::

    read the game -> refuse a stale button -> GameStore.act (committed, timer re-armed in the
    same transaction) -> answer the player by updating their own message (type 7)
    -> edit the table message once (or finish it and post the next one at the end of a trick)
    -> DM whoever must act next

Nothing lives in memory but the locks: the lobby and the game are rows of ``games``, the
table message id is in the game's ``meta``, the deadline is a durable timer.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.engine import SYSTEM, Event, Game, IllegalAction, new_game
from bot.engine.papayoo import TURN_SECONDS_RANGE, Papayoo
from bot.i18n import Lang, has_key, locale_for_user, normalize_locale, t
from bot.private import PrivateRender, hand_key
from bot.storage import PlayerResult, StoredGame, default_results
from bot.ui import GameView, Press, auto_defer, game_view, respond, update_message
from cogs.papayoo import _render as render
from cogs.papayoo._lobby import (
    KIND as LOBBY_KIND,
)
from cogs.papayoo._lobby import (
    PapayooLobby,
    lobby_status,
    no_results,
    register_lobby,
    unregister_lobby,
)
from cogs.papayoo._views import KIND, Tag, lobby_view, parse_arg, private_controls

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.papayoo")

TIMER_KIND: Final = "papayoo.turn"
LOBBY_TIMER_KIND: Final = "papayoo.lobby_expiry"
LOBBY_MINUTES: Final = 30
"""A lobby not started within this time is closed (and the channel told)."""


def new_seed() -> int:
    """Each game's deck order comes from here (tests pin it)."""
    return secrets.randbelow(1 << 62)


def turn_key(game_id: int) -> str:
    """The one turn timer of a game: each move replaces it."""
    return f"papayoo:{game_id}:turn"


def lobby_key(lobby_id: int) -> str:
    """The one expiry timer of a lobby: starting or cancelling it drops the timer."""
    return f"papayoo_lobby:{lobby_id}:expire"


def papayoo_results(stored: StoredGame) -> list[PlayerResult]:
    """The engine's ranking and totals, with the number of rounds (for points per round)."""
    per_round: list[dict[str, int]] = stored.game.result()["rounds"]
    return [
        replace(
            line,
            rounds=len(per_round),
            details={"rounds": [r.get(str(line.user_id), 0) for r in per_round]},
        )
        for line in default_results(stored)
    ]


def as_papayoo(game: Game) -> Papayoo:
    if not isinstance(game, Papayoo):
        raise TypeError(f"not a Papayoo game: {game.kind}")
    return game


def refusal(err: IllegalAction, locale: Lang) -> str:
    """A refusal in the player's language, with cards, suits and players shown as on the table."""
    params = dict(err.params)
    for name in ("player", "host"):
        if isinstance(params.get(name), str):
            params[name] = render.mention(params[name])
    if isinstance(params.get("card"), str):
        params["card"] = render.card(params["card"])
    if isinstance(params.get("cards"), list):
        params["cards"] = render.cards(params["cards"])
    if isinstance(params.get("suit"), str):
        params["suit"] = render.suit_name(params["suit"], locale)
    if params.get("expected") in ("pass", "play"):
        params["expected"] = t(f"papayoo.phase.{params['expected']}", locale)
    if err.key and has_key(err.key, locale):
        return t(err.key, locale, **params)
    return str(err)


async def say(interaction: discord.Interaction[Any], text: str) -> None:
    await respond(interaction, text, ephemeral=True)


def is_private(interaction: discord.Interaction[Any]) -> bool:
    """Whether the clicked message is the clicker's alone (a DM or an ephemeral): the answer
    to a game button edits it with their hand, which must never land on a shared message."""
    message = interaction.message
    return interaction.guild_id is None or (message is not None and message.flags.ephemeral)


def auto_text(auto: Mapping[str, Any], locale: Lang) -> str:
    """What the turn timer did for this player, said to them."""
    if auto["type"] == "pass":
        return t("papayoo.timer.passed_for_you", locale, cards=render.cards(auto["cards"]))
    return t("papayoo.timer.played_for_you", locale, card=render.card(auto["card"]))


def is_stale(view: Mapping[str, Any], action: str, tag: Tag) -> bool:
    """Whether a button was made for a turn that is gone (an earlier pass, trick or round)."""
    if view["round"] != tag.round:
        return True
    if action in ("choose", "pass"):
        return bool(view["phase"] != "pass")
    return view["phase"] != "play" or render.tricks_done(view) != tag.trick


class PapayooCog(commands.Cog, name="Papayoo"):
    """Papayoo for 3 to 8 players."""

    papayoo = app_commands.Group(
        name=_("papayoo", key="papayoo.cmd.name"),
        description=_("Papayoo, the trick game for 3 to 8 players", key="papayoo.cmd.description"),
        guild_only=True,
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    async def cog_load(self) -> None:
        register_lobby()
        games = self.bot.store.games
        games.register_kind(LOBBY_KIND, status=lobby_status, results=no_results)
        games.register_kind(KIND, results=papayoo_results)
        self.bot.actions.register(LOBBY_KIND, self.on_lobby_press)
        self.bot.actions.register(KIND, self.on_press)
        self.bot.private.register_renderer(KIND, self.render_hand)
        self.bot.timers.register(TIMER_KIND, self.on_turn_timer)
        self.bot.timers.register(LOBBY_TIMER_KIND, self.on_lobby_timer)

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(LOBBY_KIND)
        self.bot.actions.unregister(KIND)
        self.bot.private.unregister_renderer(KIND)
        self.bot.timers.unregister(TIMER_KIND)
        self.bot.timers.unregister(LOBBY_TIMER_KIND)
        unregister_lobby()

    def _lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    # -- /papayoo new and the lobby ------------------------------------------------------------

    @papayoo.command(
        name=_("new", key="papayoo.cmd.new.name"),
        description=_(
            "Open a Papayoo table that others can join", key="papayoo.cmd.new.description"
        ),
    )
    @app_commands.rename(
        rounds=_("rounds", key="papayoo.cmd.new.rounds.name"),
        turn_seconds=_("turn_seconds", key="papayoo.cmd.new.turn_seconds.name"),
    )
    @app_commands.describe(
        rounds=_("Number of rounds, 1 to 20 (default 4)", key="papayoo.cmd.new.rounds.description"),
        turn_seconds=_(
            "Seconds per turn before the bot plays: 0 (off) or 15 to 600 (default 90)",
            key="papayoo.cmd.new.turn_seconds.description",
        ),
    )
    async def new(
        self,
        interaction: discord.Interaction[Any],
        rounds: app_commands.Range[int, 1, 20] = 4,
        turn_seconds: app_commands.Range[int, 0, 600] = 90,
    ) -> None:
        guild, channel_id = interaction.guild, interaction.channel_id
        if guild is None or channel_id is None:
            raise app_commands.NoPrivateMessage()
        low, high = TURN_SECONDS_RANGE
        if turn_seconds and not low <= turn_seconds <= high:
            await say(
                interaction,
                t(
                    "papayoo.bad_turn_seconds",
                    locale_for_user(interaction),
                    min=low,
                    max=high,
                    value=turn_seconds,
                ),
            )
            return
        public = (await self.bot.guild_settings(guild)).locale
        host = str(interaction.user.id)
        lobby = PapayooLobby.new([host], 0, {"rounds": rounds, "turn_seconds": turn_seconds})
        meta = {"locale": public, f"locale:{host}": locale_for_user(interaction)}
        lobby_id = await self.bot.store.games.create(LOBBY_KIND, guild.id, channel_id, lobby, meta)
        sent = await interaction.response.send_message(
            embed=render.lobby_embed(lobby.public_view(), public),
            view=lobby_view(lobby_id, public),
        )
        due = self.bot.clock.now() + timedelta(minutes=LOBBY_MINUTES)
        payload = {"lobby_id": lobby_id, "message_id": sent.message_id}
        await self.bot.timers.schedule(LOBBY_TIMER_KIND, due, payload, key=lobby_key(lobby_id))

    async def on_lobby_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        stored = await self.bot.store.games.require(press.game_id)
        if not stored.is_active:
            await say(interaction, t("papayoo.lobby.closed", locale))
            return
        user = str(interaction.user.id)
        public = normalize_locale(stored.meta.get("locale"))
        try:
            if press.action == "start":
                await self._start(interaction, stored, public)
                return
            meta = {f"locale:{user}": locale} if press.action == "join" else None
            lobby, _ = await self.bot.store.games.act(
                stored.id, user, {"type": press.action}, meta_update=meta, in_tx=self._lobby_closed
            )
        except IllegalAction as err:
            await say(interaction, refusal(err, locale))
            return
        note = t("papayoo.lobby.cancelled", public) if lobby.status == "voided" else None
        await update_message(
            interaction,
            embed=render.lobby_embed(lobby.game.public_view(), public, note=note),
            view=lobby_view(lobby.id, public) if lobby.is_active else GameView(),
        )

    async def _lobby_closed(self, lobby: StoredGame, events: list[Event]) -> None:
        """Inside the lobby's transaction: a started or cancelled lobby needs no expiry."""
        if not lobby.is_active:
            await self.bot.timers.cancel(lobby_key(lobby.id))

    async def on_lobby_timer(self, payload: dict[str, Any]) -> None:
        """Nobody started the lobby in time: close it, strip its buttons, tell the channel."""
        lobby_id = int(payload["lobby_id"])
        # An IllegalAction (the lobby started or was cancelled meanwhile) ends the timer.
        lobby, _ = await self.bot.store.games.act(lobby_id, SYSTEM, {"type": "expire"})
        public = normalize_locale(lobby.meta.get("locale"))
        view = lobby.game.public_view()
        note = t("papayoo.lobby.expired", public, minutes=LOBBY_MINUTES)
        channel = self._channel(lobby)
        try:
            if payload.get("message_id"):
                await channel.get_partial_message(int(payload["message_id"])).edit(
                    embed=render.lobby_embed(view, public, note=note), view=GameView()
                )
            await channel.send(
                t(
                    "papayoo.lobby.expired_notice",
                    public,
                    host=render.mention(view["host"]),
                    minutes=LOBBY_MINUTES,
                )
            )
        except discord.HTTPException:
            log.exception("could not show an expired Papayoo lobby", extra={"game_id": lobby_id})

    async def _start(
        self, interaction: discord.Interaction[Any], lobby: StoredGame, public: Lang
    ) -> None:
        """Start the lobby and create the game in one transaction, then deal."""
        created: dict[str, int] = {}

        async def create(started: StoredGame, events: list[Event]) -> None:
            table = started.game
            if not isinstance(table, PapayooLobby):
                raise TypeError(f"#{started.id} is not a Papayoo lobby")
            players = table.players
            game = new_game(KIND, players, new_seed(), table.options)
            await self._lobby_closed(started, events)
            meta = {
                "lobby_id": started.id,
                "host": table.host,
                "locale": public,
                "locales": {p: started.meta.get(f"locale:{p}", public) for p in players},
            }
            game_id = await self.bot.store.games.create(
                KIND, started.guild_id, started.channel_id, game, meta
            )
            new = await self.bot.store.games.require(game_id)
            await self._arm_timer(new, [as_papayoo(game).deal_event()])
            created["id"] = game_id

        started, _ = await self.bot.store.games.act(
            lobby.id, interaction.user.id, {"type": "start"}, in_tx=create
        )
        game_id = created["id"]
        async with self._lock(game_id):
            note = t("papayoo.lobby.started", public, game_id=game_id)
            await update_message(
                interaction,
                embed=render.lobby_embed(started.game.public_view(), public, note=note),
                view=GameView(),
            )
            stored = await self.bot.store.games.require(game_id)
            deadline = await self._deadline(game_id)
            stored = await self._post_table(stored, deadline)
            players = stored.game.public_view()["players"]
            await self._send_privates(stored, players, "papayoo.dm.deal", deadline)

    # -- the game's buttons --------------------------------------------------------------------

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        tag = parse_arg(press.arg, press.action)
        if tag is None or not is_private(interaction):
            await say(interaction, t("errors.unknown_button", locale))
            return
        if press.action == "choose":  # nothing is saved: no lock, no defer
            found = await self._readable(interaction, press, tag, locale)
            if found is not None:
                await self._choose(interaction, press.values, *found, locale)
            return
        async with auto_defer(interaction), self._lock(press.game_id):
            found = await self._readable(interaction, press, tag, locale)
            if found is not None:
                await self._move(interaction, press.action, tag.cards, *found, locale)

    async def _readable(
        self, interaction: discord.Interaction[Any], press: Press, tag: Tag, locale: Lang
    ) -> tuple[StoredGame, dict[str, Any]] | None:
        """The game and the clicker's view for a button of this turn, or ``None`` once the
        clicker has been told why not. A message whose buttons can never work again (the game
        ended, the bot moved for them) is updated in place: no live button is left on it."""
        stored = await self.bot.store.games.require(press.game_id)
        if not stored.is_active:
            key = "papayoo.abandon.stale" if stored.status == "voided" else "game.closed"
            await update_message(interaction, t(key, locale, game_id=stored.id), view=GameView())
            return None
        view = stored.game.view(str(interaction.user.id))
        if "hand" not in view:
            await say(interaction, t("papayoo.not_a_player", locale))
            return None
        auto = self._auto_move(stored, view["player"], press.action, tag)
        if auto is not None:
            deadline = await self._deadline(stored.id)
            await update_message(
                interaction,
                auto_text(auto, locale),
                embed=render.private_embed(stored.id, view, locale, deadline=deadline),
                view=private_controls(stored.id, view, locale) or GameView(),
            )
            return None
        if is_stale(view, press.action, tag):
            await say(interaction, t("papayoo.stale", locale))
            return None
        return stored, view

    @staticmethod
    def _auto_move(
        stored: StoredGame, player: str, action: str, tag: Tag
    ) -> Mapping[str, Any] | None:
        """What the turn timer did for ``player`` on the turn this button was made for."""
        auto: Mapping[str, Any] | None = (stored.meta.get("auto") or {}).get(player)
        if auto is None or auto.get("round") != tag.round:
            return None
        if action in ("choose", "pass"):
            return auto if auto.get("type") == "pass" else None
        return auto if auto.get("type") == "play" and auto.get("trick") == tag.trick else None

    async def _choose(
        self,
        interaction: discord.Interaction[Any],
        choice: Sequence[str],
        stored: StoredGame,
        view: dict[str, Any],
        locale: Lang,
    ) -> None:
        """The pass select: show the choice with Confirm enabled. Nothing is saved yet."""
        problem = self._pass_problem(view, choice)
        if problem is not None:
            await say(interaction, refusal(problem, locale))
            return
        deadline = await self._deadline(stored.id)
        await update_message(
            interaction,
            embed=render.private_embed(stored.id, view, locale, choice=choice, deadline=deadline),
            view=private_controls(stored.id, view, locale, choice),
        )

    @staticmethod
    def _pass_problem(view: Mapping[str, Any], chosen: Sequence[str]) -> IllegalAction | None:
        """Why these cards cannot be this player's whole pass (``None``: they can)."""
        if view["player"] in view["pass_locked"]:
            return IllegalAction("your pass is already locked", "papayoo.pass_locked")
        size = view["pass_size"]
        if len(chosen) != size or len(set(chosen)) != len(chosen):
            return IllegalAction(
                f"you must pass {size} cards",
                "papayoo.pass_size",
                need=size,
                size=size,
                got=len(set(chosen)),
            )
        for code in chosen:
            if code not in view["hand"]:
                return IllegalAction(
                    f"{code} is not in your hand", "papayoo.not_in_hand", card=code
                )
        return None

    async def _move(
        self,
        interaction: discord.Interaction[Any],
        move: str,
        cards: tuple[str, ...],
        stored: StoredGame,
        view: dict[str, Any],
        locale: Lang,
    ) -> None:
        """Confirm a pass or play a card (under the game's lock)."""
        user = view["player"]
        action: dict[str, Any]
        if move == "pass":
            problem = self._pass_problem(view, cards)
            if problem is not None:
                await say(interaction, refusal(problem, locale))
                return
            action = {"type": "pass", "cards": list(cards)}
        elif move == "play":
            action = {"type": "play", "card": cards[0]}
        else:
            await say(interaction, t("errors.unknown_button", locale))
            return
        before = stored.game.public_view()
        try:
            after, events = await self.bot.store.games.act(
                stored.id, user, action, in_tx=self._arm_timer
            )
        except IllegalAction as err:
            await say(interaction, refusal(err, locale))
            return
        deadline = await self._deadline(stored.id)
        mine = after.game.view(user)
        header = (
            t("papayoo.private.played", locale, card=render.card(action["card"]))
            if move == "play"
            else None
        )
        controls = private_controls(after.id, mine, locale) if after.is_active else None
        await update_message(
            interaction,
            "",  # the DM's "your turn" line is over
            embed=render.private_embed(after.id, mine, locale, header=header, deadline=deadline),
            view=controls or GameView(),
        )
        await self._after(before, after, events, deadline, actor=user)

    # -- after a move: the table and the next players ------------------------------------------

    async def _after(
        self,
        before: Mapping[str, Any],
        after: StoredGame,
        events: list[Event],
        deadline: datetime | None,
        *,
        actor: str | None,
        note: str | None = None,
    ) -> None:
        """Publish a committed move; a Discord failure here never undoes it."""
        try:
            after = await self._publish(before, after, events, deadline)
            if note:
                await self._channel(after).send(note)
            await self._notify(after, events, deadline, actor)
        except discord.HTTPException:
            log.exception("could not show a Papayoo move", extra={"game_id": after.id})

    def _channel(self, stored: StoredGame) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)

    def _table_view(self, stored: StoredGame) -> GameView:
        locale = normalize_locale(stored.meta.get("locale"))
        return game_view(self.bot.private.hand_button(KIND, stored.id, locale))

    async def _post_table(self, stored: StoredGame, deadline: datetime | None) -> StoredGame:
        """A new table message; its id is saved for the next edits."""
        locale = normalize_locale(stored.meta.get("locale"))
        message = await self._channel(stored).send(
            embed=render.table_embed(stored.id, stored.game.public_view(), locale, deadline),
            view=self._table_view(stored),
        )
        return await self.bot.store.games.update_meta(stored.id, {"table_id": message.id})

    async def _edit_table(self, stored: StoredGame, **kwargs: Any) -> None:
        table_id = stored.meta.get("table_id")
        if table_id is None:
            return
        await self._channel(stored).get_partial_message(int(table_id)).edit(**kwargs)

    async def _publish(
        self,
        before: Mapping[str, Any],
        after: StoredGame,
        events: list[Event],
        deadline: datetime | None,
    ) -> StoredGame:
        """Edit the table once; at the end of a pass, trick or round finish it and post anew."""
        locale = normalize_locale(after.meta.get("locale"))
        view = after.game.public_view()
        by_type = {e["type"]: e for e in events}
        if "pass_complete" in by_type:
            await self._edit_table(
                after,
                embed=render.pass_done_embed(after.id, before, by_type["die"], locale),
                view=GameView(),
            )
            return await self._post_table(after, deadline)
        won = by_type.get("trick_won")
        if won is None:
            await self._edit_table(
                after, embed=render.table_embed(after.id, view, locale, deadline)
            )
            return after
        over = by_type.get("round_over")
        await self._edit_table(
            after,
            embed=render.trick_embed(
                after.id,
                won,
                round_no=before["round"],
                rounds=before["rounds"],
                trick_no=render.tricks_done(before) + 1,
                tricks=render.tricks_per_round(before),
                papayoo=before["papayoo"],
                locale=locale,
            ),
            view=GameView(),
        )
        if over is None:
            return await self._post_table(after, deadline)
        embeds = [render.round_embed(after.id, over, view["rounds"], view["players"], locale)]
        finished = by_type.get("game_over")
        if finished is not None:
            embeds.append(render.game_over_embed(after.id, finished, locale))
        await self._channel(after).send(embeds=embeds)
        if finished is not None:
            return after
        return await self._post_table(after, deadline)

    async def _notify(
        self,
        stored: StoredGame,
        events: list[Event],
        deadline: datetime | None,
        actor: str | None,
    ) -> None:
        """DM the players who must act now (not the one who just moved: their message says)."""
        if not stored.is_active:
            return
        view = stored.game.public_view()
        types = {e["type"] for e in events}
        if "deal" in types:
            targets, key = view["players"], "papayoo.dm.deal"
        elif "pass_complete" in types:
            targets, key = view["players"], "papayoo.dm.pass_done"
        elif view["phase"] == "play" and "card_played" in types:
            targets, key = [view["turn"]], "papayoo.dm.turn"
        else:
            return
        players = [p for p in targets if p != actor]
        await self._send_privates(stored, players, key, deadline)

    async def _send_privates(
        self, stored: StoredGame, players: Sequence[str], key: str, deadline: datetime | None
    ) -> None:
        """Each player's hand with what they may do now: by DM, else kept for their next click.

        A player whose DM failed is remembered in the game's ``meta`` (``dm_closed``): later
        messages of the round go straight to the fallback, without a DM bound to fail. Each
        deal tries the DM again, so opening one's DMs takes effect from the next round."""
        closed: list[str] = list(stored.meta.get("dm_closed") or [])
        retry = key == "papayoo.dm.deal"
        still = [p for p in closed if not (retry and p in players)]
        for player in players:
            if await self._send_private(
                stored, player, key, deadline, dm=retry or player not in closed
            ):
                continue
            if player not in still:
                still.append(player)
        if sorted(still) != sorted(closed):
            await self.bot.store.games.update_meta(stored.id, {"dm_closed": still})

    async def _send_private(
        self, stored: StoredGame, player: str, key: str, deadline: datetime | None, *, dm: bool
    ) -> bool:
        """One player's hand; ``True`` if it went by DM. With ``dm=False`` it is only kept."""
        locales: dict[str, str] = stored.meta.get("locales") or {}
        locale = normalize_locale(locales.get(player) or stored.meta.get("locale"))
        view = stored.game.view(player)
        content = t(key, locale, game_id=stored.id, round=view["round"])
        embed = render.private_embed(stored.id, view, locale, deadline=deadline)
        if not dm:
            embeds = [dict(embed.to_dict())]
            await self.bot.store.private.put(
                int(player), hand_key(KIND, stored.id), content, embeds, locale
            )
            return False
        return await self.bot.private.send(
            int(player),
            hand_key(KIND, stored.id),
            content,
            embed=embed,
            view=private_controls(stored.id, view, locale),
            locale=locale,
        )

    async def render_hand(self, stored: StoredGame, user_id: int, locale: Lang) -> PrivateRender:
        """ "Show my hand": the same private view, as an ephemeral message."""
        if stored.kind != KIND:
            raise IllegalAction("not a Papayoo game", "papayoo.not_a_player")
        view = stored.game.view(str(user_id))
        if "hand" not in view:
            raise IllegalAction("you are not playing in this game", "papayoo.not_a_player")
        deadline = await self._deadline(stored.id)
        controls = private_controls(stored.id, view, locale) if stored.is_active else None
        return None, render.private_embed(stored.id, view, locale, deadline=deadline), controls

    # -- the turn timer ------------------------------------------------------------------------

    async def _deadline(self, game_id: int) -> datetime | None:
        timer = await self.bot.store.timers.get(turn_key(game_id))
        return None if timer is None or timer.done else timer.due_at

    async def _arm_timer(self, stored: StoredGame, events: list[Event]) -> None:
        """Inside the move's transaction: replace the turn timer for the turn that is now."""
        view = stored.game.public_view()
        seconds = view["turn_seconds"]
        if not seconds:
            return
        key = turn_key(stored.id)
        if not stored.is_active:
            await self.bot.timers.cancel(key)
            return
        payload: dict[str, Any] = {
            "game_id": stored.id,
            "phase": view["phase"],
            "round": view["round"],
        }
        if view["phase"] == "play":
            payload |= {
                "trick": render.tricks_done(view),
                "card": len(view["trick"]),
                "player": view["turn"],
            }
        elif not any(e["type"] == "deal" for e in events):
            return  # a pass locked: the others keep the deadline of the deal
        due = self.bot.clock.now() + timedelta(seconds=seconds)
        await self.bot.timers.schedule(TIMER_KIND, due, payload, key=key)

    @staticmethod
    def _timer_is_current(view: Mapping[str, Any], payload: Mapping[str, Any]) -> bool:
        if view["phase"] != payload.get("phase") or view["round"] != payload.get("round"):
            return False
        if view["phase"] == "pass":
            return True
        return (
            render.tricks_done(view) == payload.get("trick")
            and len(view["trick"]) == payload.get("card")
            and view["turn"] == payload.get("player")
        )

    async def on_turn_timer(self, payload: dict[str, Any]) -> None:
        """Time is up: the bot moves for whoever has not (the lowest cards), and says so."""
        game_id = int(payload["game_id"])
        async with self._lock(game_id):
            stored = await self.bot.store.games.get(game_id)
            if stored is None or not stored.is_active:
                return
            before = stored.game.public_view()
            if not self._timer_is_current(before, payload):
                log.info("stale Papayoo timer ignored", extra={"game_id": game_id})
                return
            game = as_papayoo(stored.game)
            moved: list[tuple[str, dict[str, Any]]] = []
            events: list[Event] = []
            for player in before["to_act"]:
                action = game.auto_action(player)
                # Remembered so that this player's old buttons can say what happened.
                auto = {**action, "round": before["round"], "trick": render.tricks_done(before)}
                stored, new_events = await self.bot.store.games.act(
                    game_id,
                    player,
                    action,
                    meta_update={"auto": {**(stored.meta.get("auto") or {}), player: auto}},
                    in_tx=self._arm_timer,
                )
                game = as_papayoo(stored.game)
                moved.append((player, dict(action)))
                events.extend(new_events)
            locale = normalize_locale(stored.meta.get("locale"))
            if before["phase"] == "pass":
                note = t(
                    "papayoo.timer.auto_pass",
                    locale,
                    players=render.mentions(p for p, _ in moved),
                )
            else:
                player, action = moved[0]
                note = t(
                    "papayoo.timer.auto_play",
                    locale,
                    player=render.mention(player),
                    card=render.card(action["card"]),
                )
            deadline = await self._deadline(game_id)
            await self._after(before, stored, events, deadline, actor=None, note=note)

    # -- /papayoo abandon ----------------------------------------------------------------------

    @papayoo.command(
        name=_("abandon", key="papayoo.cmd.abandon.name"),
        description=_(
            "End a running Papayoo game for everyone (host or Manage Server); no result is kept",
            key="papayoo.cmd.abandon.description",
        ),
    )
    @app_commands.rename(game=_("game", key="papayoo.cmd.abandon.game.name"))
    @app_commands.describe(
        game=_(
            "The game's number (Papayoo #…), needed when several run in this channel",
            key="papayoo.cmd.abandon.game.description",
        )
    )
    async def abandon(
        self, interaction: discord.Interaction[Any], game: app_commands.Range[int, 1] | None = None
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        target = await self._game_to_abandon(interaction, game, locale)
        if target is None:
            return
        host = await self._host(target)
        if str(interaction.user.id) != host and not interaction.permissions.manage_guild:
            host_text = render.mention(host) if host else "—"
            await say(interaction, t("papayoo.abandon.not_allowed", locale, host=host_text))
            return
        async with self._lock(target.id):
            stored = await self.bot.store.games.require(target.id)
            if not stored.is_active:
                await say(interaction, t("game.closed", locale))
                return
            ended = await self.bot.store.games.set_status(stored.id, "voided")
            await self.bot.timers.cancel(turn_key(stored.id))
            public = normalize_locale(ended.meta.get("locale"))
            by = render.mention(str(interaction.user.id))
            note = t("papayoo.abandon.done", public, game_id=ended.id, player=by)
            await respond(interaction, note)
            view = ended.game.public_view()
            for player in view["players"]:  # a hand kept for closed DMs is moot now
                await self.bot.store.private.discard(int(player), hand_key(KIND, ended.id))
            try:
                embed = render.abandoned_embed(ended.id, view, note, public)
                await self._edit_table(ended, embed=embed, view=GameView())
            except discord.HTTPException:
                log.exception("could not close an abandoned table", extra={"game_id": ended.id})

    async def _host(self, stored: StoredGame) -> str | None:
        """Who opened the game (games started before ``host`` was kept: from their lobby)."""
        if stored.meta.get("host"):
            return str(stored.meta["host"])
        lobby = await self.bot.store.games.get(int(stored.meta.get("lobby_id") or 0))
        table = lobby.game if lobby is not None else None
        return table.host if isinstance(table, PapayooLobby) else None

    async def _game_to_abandon(
        self, interaction: discord.Interaction[Any], game_id: int | None, locale: Lang
    ) -> StoredGame | None:
        """The running game the command names, or the only one in this channel."""
        if game_id is not None:
            stored = await self.bot.store.games.get(game_id)
            if stored is None or stored.kind != KIND or stored.guild_id != interaction.guild_id:
                await say(interaction, t("papayoo.abandon.unknown", locale, game_id=game_id))
                return None
            if not stored.is_active:
                await say(interaction, t("game.closed", locale))
                return None
            return stored
        running = await self.bot.store.games.find(
            guild_id=interaction.guild_id, kind=KIND, channel_id=interaction.channel_id
        )
        if len(running) == 1:
            return running[0]
        if not running:
            await say(interaction, t("papayoo.abandon.none", locale))
        else:
            numbers = ", ".join(f"#{g.id}" for g in reversed(running))
            await say(interaction, t("papayoo.abandon.which", locale, games=numbers))
        return None

    # -- /papayoo stats ------------------------------------------------------------------------

    @papayoo.command(
        name=_("stats", key="papayoo.cmd.stats.name"),
        description=_("Papayoo games played and won here", key="papayoo.cmd.stats.description"),
    )
    @app_commands.rename(player=_("player", key="papayoo.cmd.stats.player.name"))
    @app_commands.describe(
        player=_("Whose record (default: yours)", key="papayoo.cmd.stats.player.description")
    )
    async def stats(
        self, interaction: discord.Interaction[Any], player: discord.User | None = None
    ) -> None:
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        target = player or interaction.user
        results = self.bot.store.results
        mine = [r for r in await results.rows(interaction.guild_id, KIND) if r.user_id == target.id]
        leaders = await results.leaderboard(interaction.guild_id, KIND, limit=5)
        embed = render.stats_embed(
            target.display_name,
            games=len(mine),
            wins=sum(r.won for r in mine),
            points=sum(r.points for r in mine),
            rounds=sum(r.rounds for r in mine),
            leaders=[(s.user_id, s.wins, s.games) for s in leaders],
            locale=locale_for_user(interaction),
        )
        await respond(interaction, embed=embed, ephemeral=True)
