"""``/spit``: Spit on the seated-game kit: one public board, and a panel per player.

``/spit challenge @colleague`` asks one colleague (Accept / Decline: the kit's challenges,
:mod:`bot.seated.challenge`, turned on in the spec); ``/spit begin`` opens a lobby like the
other games (where the host may seat a computer opponent). The kit runs the lobby, the
board (the table message) and the computer opponent.

Each player plays from their own panel, an ephemeral message only they see: **My controls**
on the board opens it. That press is answered by updating the board (a free refresh) and
the panel comes as its follow-up, so the press's token edits both for 15 minutes without the
bot's token. A press on the panel is applied in the order Discord created the presses
(:mod:`bot.seated.order`, as the board's were) and answered by updating the panel; the board
and the other player's panel follow through the players' own tokens (:meth:`SpitCog._publish`).
A player has one live panel: opening a new one retires the older one. A press on an older
panel, or on a panel that is not the presser's (a forged press), changes nothing and is
answered privately with the presser's panel as it is now. The game's lock is never held
during a Discord call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.engine import Event, IllegalAction
from bot.engine.lobby import is_computer
from bot.i18n import Lang, locale_for_user, t
from bot.present import mention
from bot.seated import Challenge, OptionSpec, SeatedCog, SeatedSpec, seated_group
from bot.seated.base import is_private, token_until
from bot.seated.timers import away_update
from bot.storage import StoredGame
from bot.ui import (
    ClickToken,
    GameView,
    PayloadView,
    Press,
    auto_defer,
    edit_by_token,
    respond,
    update_message,
)
from cogs.spit._render import SpitRenderer, decode

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.spit")

KIND: Final = "spit"
CHALLENGE_MINUTES: Final = 10
RENDERER: Final = SpitRenderer()
SPEC: Final = SeatedSpec(
    KIND,
    RENDERER,
    options=(
        OptionSpec("piles", "Stock piles: 5 (1 to 5 cards) or 4 (1 to 4 cards)", 5, 4, 5),
        OptionSpec("alternate_colors", "Cards on a spit pile alternate black and red", False),
        OptionSpec("no_slap", "No slapping: who empties their stock first picks a pile", False),
    ),
    public_board=True,
    challenge=Challenge(minutes=CHALLENGE_MINUTES),
)


@dataclass
class Panel:
    """A player's live panel and the token that edits it (free of the bot's budget)."""

    client: discord.Client
    token: ClickToken
    """The click's token, not the interaction (which holds its whole payload)."""
    message_id: int | None
    expires: float
    original: bool
    """The panel is the token's own message (a press on the panel, or a panel sent as the
    answer); else it is the follow-up of a press on the board, edited by its id."""

    @property
    def alive(self) -> bool:
        return self.expires > time.monotonic()

    async def edit(self, **kwargs: Any) -> None:
        if self.original or self.message_id is None:
            await edit_by_token(self.client, self.token, **kwargs)
        else:
            await edit_by_token(self.client, self.token, message_id=self.message_id, **kwargs)


def _age(interaction: discord.Interaction[Any]) -> float:
    """Seconds since Discord created the interaction (its token lives 15 minutes from then)."""
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


class SpitCog(SeatedCog, name="Spit"):
    """Spit for 2 players, in real time."""

    spec = SPEC
    spit = seated_group(KIND, "Spit", SPEC.options, "2", challenge=SPEC.challenge)
    COMPUTER_DELAY = 1.0
    """Scales a computer opponent's reaction time (tests set 0)."""
    REACTION: Final = {"easy": 1.6, "normal": 1.0, "hard": 0.6}
    """Seconds before a computer opponent reacts to the board, by level."""
    PER_OPTION: Final = {"easy": 0.25, "normal": 0.15, "hard": 0.08}
    """Seconds more for each move it could make: more choice, slower choice."""

    def __init__(self, bot: GamenightBot) -> None:
        super().__init__(bot)
        self.panels: dict[int, dict[str, Panel]] = {}
        """Each game's live panel per player (in memory: after a restart, a player's next
        press on their panel makes it live again)."""
        self._panel_locks: dict[tuple[int, str], asyncio.Lock] = {}
        self._panel_shown: dict[tuple[int, str], int] = {}
        self._panel_sending: dict[tuple[int, str], int] = {}
        """The version each player's panel shows, and the newest one an edit started sending:
        the edits that follow the other player's moves go one at a time (the lock), a press's
        answer never waits for them, and whichever lands last, the panel ends up current."""

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """A human-like pace: a reaction delay, plus a choice time that grows with the moves
        on offer. The move is the one it chose on that board; the kit drops it quietly if
        the board changed meanwhile."""
        level = str((stored.meta.get("computers") or {}).get(player, "normal"))
        options = len(stored.game.legal_actions(player))
        seconds = self.REACTION.get(level, 1.0) + self.PER_OPTION.get(level, 0.15) * options
        return seconds * self.COMPUTER_DELAY

    def board_owner(self, arg: str | None, stored: StoredGame) -> str | None:
        """``<seat>.<move>``: the player sitting in ``seat`` (``None``: no seat named)."""
        seat = (arg or "").partition(".")[0]
        players = stored.game.public_view()["players"]
        return str(players[int(seat)]) if seat.isdigit() and int(seat) < len(players) else None

    def board_action(
        self, arg: str | None, stored: StoredGame, player: str
    ) -> dict[str, Any] | None:
        """``<seat>.<move>``: the move itself, good while the board still allows it."""
        if self.board_owner(arg, stored) != player:
            return None
        return decode((arg or "").partition(".")[2])

    def not_your_controls(self, stored: StoredGame, owner: str, player: str, locale: Lang) -> str:
        """Whose buttons these are, and which colour marks the presser's own."""
        return t("spit.not_yours", locale, player=mention(owner, locale))

    # -- the panels ------------------------------------------------------------------------

    def controls(
        self, stored: StoredGame, player: str, locale: Lang, *, page: int = 0
    ) -> PayloadView | None:
        """A player's panel controls: their own moves, nobody else's."""
        view = self.named(stored, stored.game.view(player))
        return RENDERER.panel_controls(self.kind, stored.id, view, locale)

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """**My controls** on the board, and the presses on a panel; everything else (the
        board's older per-player buttons, abandon) as the kit does it."""
        if press.action != "panel" and not (press.action == "do" and is_private(interaction)):
            await super().on_press(interaction, press)
            return
        locale = locale_for_user(interaction)
        stored = await self.bot.store.games.require(press.game_id)
        player = str(interaction.user.id)
        if player not in self.public(stored)["players"]:
            await self.say(interaction, t("seated.not_a_player", locale))
            return
        if press.action == "panel":
            await self.open_panel(interaction, stored, player, locale)
        else:
            await self.panel_move(interaction, press, stored, player, locale)

    async def open_panel(
        self, interaction: discord.Interaction[Any], stored: StoredGame, player: str, locale: Lang
    ) -> None:
        """**My controls**: the board is refreshed in the answer (its token then edits the
        board for free), and the presser's panel comes as an ephemeral follow-up."""
        table_id = stored.meta.get("table_id")
        message = interaction.message
        on_board = message is not None and table_id is not None and message.id == int(table_id)
        if on_board:
            await update_message(
                interaction, embed=self.table_embed(stored), view=self.table_view(stored)
            )
            self.tables.shown((stored.id, "table"), stored.version)
            self.keep_token(interaction, stored, None, table_id)
        latest = await self.bot.store.games.require(stored.id)
        embed, controls = await self.hand_message(latest, player, locale=locale)
        sent = await respond(interaction, embed=embed, view=controls or GameView(), ephemeral=True)
        until = token_until(_age(interaction))
        panel = Panel(
            self.bot, ClickToken.of(interaction), sent.id if sent else None, until, not on_board
        )
        self.new_panel(stored, player, panel)
        self._answered((stored.id, player), latest.version)

    def new_panel(self, stored: StoredGame, player: str, panel: Panel) -> None:
        """``panel`` is ``player``'s live panel from now on; the one before, another message,
        is retired through its own token: it says the controls moved, with none left."""
        panels = self.panels.setdefault(stored.id, {})
        old = panels.get(player)
        panels[player] = panel
        if old is None or not old.alive or old.message_id == panel.message_id:
            return
        if old.message_id is None or panel.message_id is None:
            return  # cannot be told apart: left as it is
        self._spawn(self._retire_panel(old, self.player_locale(stored, player)))

    async def _retire_panel(self, old: Panel, locale: Lang) -> None:
        try:
            await old.edit(content=t("spit.panel.moved", locale), embed=None, view=GameView())
        except discord.HTTPException as err:  # dismissed by the player, or its token gone
            log.debug("an older panel was not retired", extra={"status": err.status})

    def own_panel(self, interaction: discord.Interaction[Any], stored: StoredGame) -> bool:
        """The pressed message is an ephemeral shown to the presser (no other player's)."""
        message = interaction.message
        if message is None or not message.flags.ephemeral:
            return False
        shown = message.interaction_metadata
        return shown is not None and shown.user.id == interaction.user.id

    async def panel_move(
        self,
        interaction: discord.Interaction[Any],
        press: Press,
        stored: StoredGame,
        player: str,
        locale: Lang,
    ) -> None:
        """A press on a panel: the move applied in arrival order, answered with the panel.
        A press on another player's panel, on the presser's older panel or naming another
        seat changes nothing: the presser's panel as it is now, with "from an earlier turn"."""
        mine = self.own_panel(interaction, stored)
        message = interaction.message
        live = self.panels.get(stored.id, {}).get(player)
        older = (
            live is not None
            and live.alive
            and live.message_id is not None
            and message is not None
            and live.message_id != message.id
        )
        if not mine or older or self.board_owner(press.arg, stored) != player:
            await self._panel_now(interaction, stored, player, locale, mine, stale=True)
            return
        refused: list[IllegalAction] = []

        async def apply() -> tuple[StoredGame, list[Event], Sequence[str]] | None:
            fresh = await self.bot.store.games.require(stored.id)
            action = self.board_action(press.arg, fresh, player) if fresh.is_active else None
            if action is None:
                return None
            before = fresh.game.to_act()
            try:
                after, events = await self.bot.store.games.act(
                    fresh.id,
                    player,
                    action,
                    in_tx=lambda new, evs: self._arm(new, before, player),
                    meta_update=away_update(fresh, player, timer=False),
                )
            except IllegalAction as err:  # a race lost: the board changed meanwhile
                refused.append(err)
                return None
            return after, events, before

        async with auto_defer(interaction):
            moved = await self.order.run(stored.id, interaction.id, apply)
            now = moved[0] if moved else await self.bot.store.games.require(stored.id)
            if moved:
                self.note_move(now, moved[1])
            note = self.refusal(refused[0], locale) if refused else None
            answered = False
            try:
                await self._panel_now(interaction, now, player, locale, True, note=note)
                answered = True
            finally:
                if moved:
                    after, events, before = moved
                    self._publish(after, events, before=before, actor=player)
                if not answered:
                    self._refresh_panel(now, player)

    async def _panel_now(
        self,
        interaction: discord.Interaction[Any],
        stored: StoredGame,
        player: str,
        locale: Lang,
        mine: bool,
        *,
        stale: bool = False,
        note: str | None = None,
    ) -> None:
        """Answer with ``player``'s panel as the game is now (``stored``, or a newer version
        if the other player moved meanwhile): on the pressed message when it is theirs (it
        becomes their live panel), else in a new ephemeral message."""
        if stale:
            note = t("spit.panel.stale", locale)
        key = (stored.id, player)
        latest = await self.bot.store.games.require(stored.id)
        if latest.version > stored.version:
            stored = latest
        embed, controls = await self.hand_message(stored, player, note=note, locale=locale)
        if mine and interaction.message is not None:
            await update_message(
                interaction, content=None, embed=embed, view=controls or GameView()
            )
            message_id: int | None = interaction.message.id
        else:
            sent = await respond(
                interaction, embed=embed, view=controls or GameView(), ephemeral=True
            )
            message_id = sent.id if sent else None
        until = token_until(_age(interaction))
        panel = Panel(self.bot, ClickToken.of(interaction), message_id, until, original=True)
        self.new_panel(stored, player, panel)
        self._answered(key, stored.version)

    def _answered(self, key: tuple[int, str], version: int) -> None:
        """A press's answer showed ``version`` on the panel. It never waits for the panel's
        edits (they may wait for Discord's rate limits); an edit of a newer state sent
        meanwhile may have landed first: then the panel is shown again as it is now."""
        self._panel_shown[key] = version
        self.hands.shown((*key, "panel"), version)
        if self._panel_sending.get(key, -1) > version:
            self._spawn(self._panel_again(key))

    async def _panel_again(self, key: tuple[int, str]) -> None:
        async with self._panel_lock(key):
            game_id, player = key
            current = self.panels.get(game_id, {}).get(player)
            stored = await self.bot.store.games.get(game_id)
            if current is None or not current.alive or stored is None:
                return
            embed, controls = await self.hand_message(stored, player)
            try:
                await current.edit(content=None, embed=embed, view=controls or GameView())
            except discord.HTTPException as err:
                log.debug("a panel was not shown again", extra={"status": err.status})
                return
            self._panel_shown[key] = max(self._panel_shown.get(key, -1), stored.version)

    def _panel_lock(self, key: tuple[int, str]) -> asyncio.Lock:
        lock = self._panel_locks.get(key)
        if lock is None:
            lock = self._panel_locks[key] = asyncio.Lock()
        return lock

    def _refresh_panel(self, stored: StoredGame, player: str) -> None:
        """``player``'s live panel shows ``stored`` (newest state wins), through the token of
        their latest press: no bot-token call."""
        panel = self.panels.get(stored.id, {}).get(player)
        if panel is None or not panel.alive:
            return
        key = (stored.id, player)

        async def send() -> None:
            async with self._panel_lock(key):
                current = self.panels.get(stored.id, {}).get(player)
                if current is None or not current.alive:
                    return
                if self._panel_shown.get(key, -1) >= stored.version:
                    return  # a press's answer showed as new a state already
                self._panel_sending[key] = stored.version
                embed, controls = await self.hand_message(stored, player)
                await current.edit(content=None, embed=embed, view=controls or GameView())
                if self._panel_shown.get(key, -1) > stored.version:
                    # A newer answer was shown meanwhile, perhaps before this edit landed.
                    self._spawn(self._panel_again(key))
                else:
                    self._panel_shown[key] = stored.version

        self.hands.submit((stored.id, player, "panel"), stored.version, send, None)

    def _publish(
        self,
        after: StoredGame,
        events: list[Event],
        *,
        before: Sequence[str],
        actor: str | None,
        extra: Mapping[Lang, Sequence[str]] | None = None,
        notes: Mapping[str, str] | None = None,
        table: bool = True,
    ) -> None:
        """The kit's publishing (the board, the result, the computer opponent), and every live
        panel follows (the mover's own is skipped when its answer showed this version)."""
        super()._publish(
            after, events, before=before, actor=actor, extra=extra, notes=notes, table=table
        )
        for player in self.public(after)["players"]:
            if not is_computer(player):
                self._refresh_panel(after, player)

    async def _forget(self, game_id: int) -> None:
        await super()._forget(game_id)
        self.panels.pop(game_id, None)
        for key in [k for k in self._panel_shown if k[0] == game_id]:
            self._panel_shown.pop(key, None)
            self._panel_sending.pop(key, None)
            self._panel_locks.pop(key, None)
