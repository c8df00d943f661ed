"""The game's buttons: a click on a private hand or on a public board becomes a move.

A hand's controls carry the stamp of the decision they were made for
(:mod:`bot.seated.controls`): the move is committed only while the player's decision is
still that one (``GameStore.act`` with a guard, the turn timer armed in the same
transaction), answered on the clicker's own message, then published
(:mod:`bot.seated.publish`). A click on controls of a decision that is gone changes nothing
and is answered with the hand as it is now. A public board's clicks are applied in the order
Discord received them (:mod:`bot.seated.order`) and answered by updating the board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord

from bot.engine import Event, IllegalAction
from bot.i18n import Lang, has_key, locale_for_user, t
from bot.present import mention
from bot.seated.abandon import AbandonRoom
from bot.seated.base import is_private
from bot.seated.controls import parse, stamp
from bot.seated.timers import away_update
from bot.storage import StoredGame
from bot.ui import GameView, Press, auto_defer, respond, update_message

__all__ = ["MovesRoom"]


class MovesRoom(AbandonRoom):
    """Moves from a hand's controls and from a public board."""

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        stored = await self.bot.store.games.require(press.game_id)
        player = str(interaction.user.id)
        if press.action in ("abandon", "keep"):
            await self._confirm_abandon(interaction, press, stored, locale)
            return
        if player not in self.public(stored)["players"]:
            await self.say(interaction, t("seated.not_a_player", locale))
            return
        if press.action == "hand":
            await self._show_hand(interaction, stored, player, locale)
            return
        if self.spec.public_board:
            await self.board_move(interaction, press, stored.id, player, locale)
            return
        if not is_private(interaction):
            await self.say(interaction, t("errors.unknown_button", locale))
            return
        if not self.own_copy(interaction, stored, player):
            await self.say(interaction, t("seated.not_your_hand", locale))
            return
        copy = "dm" if interaction.guild_id is None else "eph"
        if copy == "dm" and not self.live_dm(interaction, stored, player):
            await self._retired_press(interaction, stored, player, locale)
            return
        if copy == "eph":
            self.new_copy(stored, player, interaction, interaction.message, fresh=False)
        try:
            await self._on_hand_press(interaction, press, stored, player, locale, copy)
        finally:
            if copy == "dm":
                hand = (stored.meta.get("hands") or {}).get(player)
                self.keep_token(interaction, stored, player, hand)

    def own_copy(
        self, interaction: discord.Interaction[Any], stored: StoredGame, player: str
    ) -> bool:
        """Whether the clicked message is ``player``'s own copy of their hand: in a DM, the
        DM channel their hand was sent to (no other player's); in a server, an ephemeral
        shown in answer to their own click. Discord only delivers a click to whom the
        message is shown; a forged one on another player's hand must not be answered there
        (with the clicker's cards) nor become their live copy."""
        message = interaction.message
        if message is None:
            return False
        live = self._live.get(stored.id)
        copies = live.copies if live is not None else {}
        if any(seat != player and c.message_id == message.id for seat, c in copies.items()):
            return False  # another player's "Show my hand"
        hands: Mapping[str, Any] = stored.meta.get("hands") or {}
        channel = interaction.channel_id
        for seat, ids in hands.items():
            if ids and seat != player and (int(ids[1]) == message.id or int(ids[0]) == channel):
                return False  # another player's DM hand, or their DMs
        if interaction.guild_id is None:
            mine = hands.get(player)
            if mine:
                return int(mine[0]) == channel
            recipient = getattr(interaction.channel, "recipient", None)
            return recipient is not None and recipient.id == interaction.user.id
        shown = message.interaction_metadata
        return shown is not None and shown.user.id == interaction.user.id

    @staticmethod
    def live_dm(interaction: discord.Interaction[Any], stored: StoredGame, player: str) -> bool:
        """Whether the pressed DM is the player's live DM hand (not one retired when their
        DMs closed: :meth:`bot.seated.table.TableRoom._retire_dm`)."""
        mine = (stored.meta.get("hands") or {}).get(player)
        message = interaction.message
        if not mine or message is None:
            return False
        return int(mine[1]) == message.id

    async def _retired_press(
        self,
        interaction: discord.Interaction[Any],
        stored: StoredGame,
        player: str,
        locale: Lang,
    ) -> None:
        """A press on a retired DM hand changes nothing: answered privately with the hand as
        it is now (no controls: they are on the table's "Show my hand")."""
        embed, _controls = await self.hand_message(stored, player, locale=locale)
        text = (
            t("seated.stale", locale)
            + "\n"
            + t("seated.hand_retired", locale, table=self.table_link_text(stored, locale))
        )
        await respond(interaction, content=text, embed=embed, ephemeral=True)

    async def _on_hand_press(
        self,
        interaction: discord.Interaction[Any],
        press: Press,
        stored: StoredGame,
        player: str,
        locale: Lang,
        copy: str,
    ) -> None:
        if not stored.is_active:
            await self._refresh(interaction, stored, player, locale, copy)
            return
        legal = stored.game.legal_actions(player)
        parsed = parse(press.arg)
        if (
            press.action == "page"
            and parsed is not None
            and parsed[0] == stamp(legal)
            and parsed[1]
        ):
            controls = self.controls(stored, player, locale, page=parsed[1][0])
            await update_message(interaction, view=controls or GameView())
            return
        if press.action == "sel" and parsed is not None and parsed[0] == stamp(legal):
            chooser = self.chooser(stored, player, locale, parsed[1][0]) if parsed[1] else None
            if chooser is not None:  # a card ticked or unticked: only the controls change
                await update_message(interaction, view=chooser)
                return
        action = self._action(press, parsed, legal, stored, player, locale)
        if action is None or parsed is None:
            await self._refresh(
                interaction, stored, player, locale, copy, note=t("seated.stale", locale)
            )
            return
        await self.move(interaction, stored, player, action, parsed[0], locale, copy)

    def _action(
        self,
        press: Press,
        parsed: tuple[str, list[int]] | None,
        legal: list[dict[str, Any]],
        stored: StoredGame,
        player: str,
        locale: Lang,
    ) -> dict[str, Any] | None:
        """The action a click means, or ``None`` for controls of a decision that is gone."""
        if parsed is None or parsed[0] != stamp(legal) or not legal:
            return None
        if press.action == "pick" and press.values:  # the select of earlier versions
            return {"type": legal[0]["type"], "cards": list(press.values)}
        if press.action == "pick":  # a multi-card choice's button: the cards ticked
            cards = self.picked(stored, player, locale, parsed[1][0]) if parsed[1] else None
            return None if cards is None else {"type": legal[0]["type"], "cards": cards}
        if press.action != "do":
            return None
        if press.values:  # a forged value is no number: from no turn of this game
            chosen = press.values[0]
            index = int(chosen) if chosen.isascii() and chosen.isdigit() else -1
        else:
            index = parsed[1][0] if parsed[1] else -1
        return dict(legal[index]) if 0 <= index < len(legal) else None

    async def _refresh(
        self,
        interaction: discord.Interaction[Any],
        stored: StoredGame,
        player: str,
        locale: Lang,
        copy: str,
        note: str | None = None,
    ) -> None:
        """Answer a click that changes nothing with the hand as it is now (quietly)."""
        embed, controls = await self.hand_message(stored, player, note=note, locale=locale)
        await update_message(interaction, content=None, embed=embed, view=controls or GameView())
        if stored.is_active:  # an ended game's messages are edited no more: nothing to note
            self.hands.shown((stored.id, player, copy), stored.version)

    async def _show_hand(
        self, interaction: discord.Interaction[Any], stored: StoredGame, player: str, locale: Lang
    ) -> None:
        embed, controls = await self.hand_message(stored, player, locale=locale)
        shown = await respond(interaction, embed=embed, view=controls or GameView(), ephemeral=True)
        self.new_copy(stored, player, interaction, shown, fresh=True)
        if stored.is_active:
            self.hands.shown((stored.id, player, "eph"), stored.version)

    async def move(
        self,
        interaction: discord.Interaction[Any],
        stored: StoredGame,
        player: str,
        action: Mapping[str, Any],
        mark: str,
        locale: Lang,
        copy: str,
    ) -> None:
        """A player's move: committed, answered on their own message, then published."""

        before = stored.game.to_act()
        async with auto_defer(interaction):
            try:
                after, events = await self._act_decided(stored, player, action, mark)
            except IllegalAction as err:
                if err.key == "seated.stale":
                    fresh = await self.bot.store.games.require(stored.id)
                    await self._refresh(
                        interaction, fresh, player, locale, copy, note=t("seated.stale", locale)
                    )
                else:
                    await self.say(interaction, self.refusal(err, locale))
                return
            self.note_move(after, events)
            answered = False
            try:
                embed, controls = await self.hand_message(after, player, locale=locale)
                await update_message(
                    interaction, content=None, embed=embed, view=controls or GameView()
                )
                answered = True
                self.hands.shown((after.id, player, copy), after.version)
            finally:
                # The move is made: the others see it even when its answer failed (Discord
                # down), and the player's own message follows once Discord is back.
                self._publish(after, events, before=before, actor=player)
                other = "eph" if copy == "dm" else "dm"
                if other == "dm" or player in self.live(after).copies:
                    self._edit_other_copy(after, player, other)
                if not answered:
                    self._edit_other_copy(after, player, copy)

    async def board_move(
        self,
        interaction: discord.Interaction[Any],
        press: Press,
        game_id: int,
        player: str,
        locale: Lang,
    ) -> None:
        """A click on a public board: applied in arrival order, answered by updating the board
        itself. A click on someone else's controls changes nothing: it is answered privately
        when the game says whose they are (:meth:`not_your_controls`), else like a click that
        lost a race, with the board as it is now (a quiet refresh), never an error."""
        not_yours: list[str] = []

        async def apply() -> tuple[StoredGame, list[Event], Sequence[str]] | None:
            stored = await self.bot.store.games.require(game_id)
            if not stored.is_active:
                return None
            owner = self.board_owner(press.arg, stored)
            if owner is not None and owner != player:
                told = self.not_your_controls(stored, owner, player, locale)
                if told is not None:  # the game says whose they are: nothing else happens
                    not_yours.append(told)
                    return None
            action = self.board_action(press.arg, stored, player)
            if action is None:
                return None
            before = stored.game.to_act()
            try:
                after, events = await self.bot.store.games.act(
                    game_id,
                    player,
                    action,
                    in_tx=lambda new, evs: self._arm(new, before, player),
                    meta_update=away_update(stored, player, timer=False),
                )
            except IllegalAction:
                return None
            return after, events, before

        moved = await self.order.run(game_id, interaction.id, apply)
        if not_yours:
            await self.say(interaction, not_yours[0])
            return
        stored = moved[0] if moved else await self.bot.store.games.require(game_id)
        if moved:
            self.note_move(moved[0], moved[1])
        answered = False
        try:
            await update_message(
                interaction, embed=self.table_embed(stored), view=self.table_view(stored)
            )
            answered = True
            if stored.is_active or moved:  # a move that ended it: forgotten once published
                self.tables.shown((game_id, "table"), stored.version)
            self.keep_token(interaction, stored, None, stored.meta.get("table_id"))
        finally:
            latest = await self.bot.store.games.require(game_id)
            if latest.version > stored.version or not answered:  # a later move went first
                self._edit_table(latest)
            if moved:
                after, events, before = moved
                self._publish(after, events, before=before, actor=player, table=False)

    def board_owner(self, arg: str | None, stored: StoredGame) -> str | None:
        """Whose a public-board control is (``None``: it names no seat). The default reads
        :func:`bot.seated.controls.board_button`'s ``<stamp>.<seat>.<index>``; a game that
        encodes its controls otherwise reads its own."""
        parsed = parse(arg)
        players = self.public(stored)["players"]
        if parsed is None or not parsed[1] or not 0 <= parsed[1][0] < len(players):
            return None
        return str(players[parsed[1][0]])

    def not_your_controls(
        self, stored: StoredGame, owner: str, player: str, locale: Lang
    ) -> str | None:
        """The private answer to ``player`` pressing ``owner``'s controls on a public board:
        the game's ``<kind>.not_yours`` ({player}: the owner) when it has one; ``None`` (a
        quiet refresh of the board) otherwise."""
        key = f"{self.kind}.not_yours"
        return t(key, locale, player=mention(owner, locale)) if has_key(key, locale) else None

    def board_action(
        self, arg: str | None, stored: StoredGame, player: str
    ) -> dict[str, Any] | None:
        """The move a public-board control means for ``player`` (``None``: not theirs, or a
        decision that is gone). The default reads :func:`bot.seated.controls.board_button`'s
        ``<stamp>.<seat>.<index>``; a real-time game may encode the move itself, so that a
        click stays good while the opponent's moves leave it possible."""
        parsed = parse(arg)
        if parsed is None or len(parsed[1]) < 2:
            return None
        players = self.public(stored)["players"]
        seat, index = parsed[1][0], parsed[1][1]
        if not 0 <= seat < len(players) or players[seat] != player:
            return None
        legal = stored.game.legal_actions(player)
        if parsed[0] != stamp(legal) or not 0 <= index < len(legal):
            return None
        return dict(legal[index])
