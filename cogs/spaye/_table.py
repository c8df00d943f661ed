"""Späye's buttons, selects and modal: :class:`SpayeTable` routes each click to its feature
(``_daye``: challenges, invitations, recruiting, draws; ``_exercises``: the records of
reveals, settling exercises, bonuses; ``_committee``: adjustments; ``_choice``: the day's
exercise).

Every click goes the same way, and no lock is held across a Discord call::

    read the game -> refuse a stale component -> decide the move on that version ->
    GameStore.act with a guard on that version (the move, its meta and a bonus spent are
    committed together under the store's own lock) -> then, outside any lock: answer the
    clicker (edit the clicked message or reply), post a NEW channel message only for a
    reveal that ends a däye

A click that lost a race (another move was saved between the read and the save) raises
:class:`~cogs.spaye._click.Moved` before anything is said or saved, and is decided again
on the new state: two clicks never both act on the same version, so the channel shows moves
in the order they were saved. A message edited from two clicks at once (an exercise record)
is redrawn from the latest state afterwards.

Where it is said: the day is played in its thread (``_thread``): clicks on its messages
are answered in place, and every message the bot posts with its token for the day (a
reveal's record, a challenge made from the channel, a bonus's exercises, the closing) takes
a ticket of the day's sequencer right after its move is saved (:meth:`SpayeTable.ticket`:
no ``await`` between the save and the ticket), so the thread shows results in the order
they happened, and the closing comes after the last of them. Every saved move also edits
the day's board in the channel (coalesced).

A calm thread: a däye makes two new messages. The reply to ``/daye`` carries the whole
däye (answers, draws, every tied round, the recruiting of a third player) and is edited in
place; the reveal that ends it is the record, with the buttons of the exercises it set,
redrawn as they are confirmed, adjusted or given up (its text is kept in
``meta["records"]``). An expiry edits the invitation's message. Only a bonus's handed-over
exercises and a recruit's invitation (it must ping them) post more. Nothing is kept in
memory but the display names seen since the last move.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.engine import Event, IllegalAction, load_game
from bot.i18n import Lang, locale_for_user, t
from bot.present import refusal
from bot.storage import StoredGame
from bot.text import clip
from bot.ui import Press, auto_defer, report_error, say
from cogs.spaye import _choice, _committee, _daye, _exercises
from cogs.spaye import _render as render
from cogs.spaye._click import Click, Moved
from cogs.spaye._periods import SpayeGuild, guild_settings
from cogs.spaye._thread import day_posts, post_in_day, posts_to, refresh_board

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.spaye")

TRIES: Final = 5
"""How many times a click is decided again when other moves keep going first."""

Handler = Callable[["SpayeTable", Click], Awaitable[None]]

HANDLERS: Final[dict[str, Handler]] = {
    "accept": _daye.answer_invitation,
    "decline": _daye.answer_invitation,
    "recruit": _daye.recruit,
    "draw": _daye.draw,
    "done": _exercises.settle_exercise,
    "giveup": _exercises.settle_exercise,
    "bonus": _exercises.bonus_menu,
    "tyrant": _exercises.use_bonus,
    "double": _exercises.use_bonus,
    "share": _exercises.use_bonus,
    "approve": _committee.answer_request,
    "refuse": _committee.answer_request,
    "agree": _choice.agree,
}


NAMES_KEPT: Final = 256
"""Days whose newly seen display names wait for their next move: one per server running a
Späye; names of a day that ended before a move saved them are dropped past this."""


class SpayeTable:
    """The handlers of one bot's Späye components (``bot.actions`` routes ``spaye`` here)."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self._names: dict[int, dict[str, str]] = {}

    def note_names(self, game_id: int, *users: discord.abc.User) -> None:
        """Remember how these members are called: saved in the game's ``meta["names"]`` with
        the next move (the bot has no member list: menus and the month's picture need them)."""
        if game_id not in self._names and len(self._names) >= NAMES_KEPT:
            del self._names[next(iter(self._names))]  # a day that ended before its next move
        seen = self._names.setdefault(game_id, {})
        for user in users:
            seen[str(user.id)] = user.display_name

    async def settings_of(self, guild_id: int) -> SpayeGuild:
        return await guild_settings(self.bot, guild_id)

    def channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    def ticket(self, stored: StoredGame) -> int:
        """The day's next post ticket: take it right after the move's save (no ``await``
        in between), then :meth:`post` it (or skip it: ``day_posts(...).skip``)."""
        return day_posts(self.bot, stored.id).take()

    async def post(
        self,
        stored: StoredGame,
        ticket: int,
        content: str,
        view: discord.ui.View | None = None,
        allowed_mentions: discord.AllowedMentions | None = None,
    ) -> discord.Message:
        """Post in the day's thread (or channel) in ``ticket``'s turn."""
        kwargs: dict[str, Any] = {
            "content": clip(content, 2000),
            "allowed_mentions": allowed_mentions or discord.AllowedMentions.none(),
        }
        if view is not None:
            kwargs["view"] = view
        return await post_in_day(self.bot, stored.id, ticket, **kwargs)

    # -- acting -------------------------------------------------------------------------------

    @staticmethod
    def preview(stored: StoredGame, player: str, action: Mapping[str, Any]) -> list[Event]:
        """The events ``action`` would make on ``stored`` (nothing saved): a move's change to
        ``meta`` (a record's new line) is decided with them and saved in the same commit.
        The engine is deterministic (its randomness is in the state) and :meth:`act` saves
        only on the same version, so the move makes exactly these events. Raises
        ``IllegalAction`` as the move itself would."""
        return load_game(stored.game.dumps()).apply(player, action)

    async def act(
        self,
        stored: StoredGame,
        player: str,
        action: dict[str, Any],
        meta: Mapping[str, Any] | None = None,
    ) -> tuple[StoredGame, list[Event]]:
        """Save ``action``, decided on ``stored``: only if the game is still at that version
        (else :class:`Moved`, nothing saved), with ``meta`` and any bonus it spends."""
        seen = dict(self._names.get(stored.id, {}))
        known: dict[str, str] = dict(stored.meta.get("names") or {})
        if any(known.get(k) != v for k, v in seen.items()):
            meta = {**(meta or {}), "names": {**known, **seen}}

        def same_version(now: StoredGame) -> None:
            if now.version != stored.version:
                raise Moved

        outcome = await self.bot.store.games.act(
            stored.id,
            player,
            action,
            meta_update=meta,
            in_tx=self.spend_bonuses,
            guard=same_version,
        )
        refresh_board(self.bot, outcome.game)  # synchronous: callers take tickets after
        names = self._names.get(stored.id, {})
        for key in seen:
            if names.get(key) == seen[key]:
                names.pop(key)
        if not names:
            self._names.pop(stored.id, None)
        return outcome.game, outcome.events

    async def spend_bonuses(self, stored: StoredGame, events: list[Event]) -> None:
        """Mark a title's bonus spent with the move that uses it, and every bonus of a day
        that finishes (a voided day gets them back: the database trigger does it)."""
        month = stored.meta.get("bonus_month")
        if not isinstance(month, str):
            return
        titles = [e["title"] for e in events if e["type"] == "bonus_used"]
        if any(e["type"] == "day_finished" for e in events) or stored.status == "over":
            titles += list(stored.game.result().get("bonuses_used") or {})
        for title in dict.fromkeys(titles):
            await self.bot.store.titles.use_bonus(stored.guild_id, month, title, stored.id)

    async def decided(
        self,
        interaction: discord.Interaction[Any],
        locale: Lang,
        decide: Callable[[], Awaitable[None]],
    ) -> None:
        """Run ``decide`` (which reads the game itself) again while other moves go first."""
        for _ in range(TRIES):
            try:
                await decide()
                return
            except Moved:
                continue
        await say(interaction, t("spaye.stale.busy", locale))

    async def edit(
        self,
        stored: StoredGame,
        message_id: int,
        content: str,
        view: discord.ui.View,
        channel_id: int | None = None,
    ) -> None:
        """Edit one of the day's messages that was not clicked (an expiry, a bonus): in
        ``channel_id``, else where the day's invitation was made, else the day's thread."""
        channel_id = channel_id or int(stored.meta.get("invite_channel") or posts_to(stored))
        message = self.channel(channel_id, stored.guild_id).get_partial_message(message_id)
        try:
            await message.edit(content=clip(content, 2000), view=view)
        except discord.HTTPException:
            log.warning("could not edit a Späye message", extra={"game_id": stored.id})

    # -- the components -----------------------------------------------------------------------

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        try:
            if press.action == "ask":
                await _committee.ask(self, interaction, press, locale)
                return
            handler = HANDLERS.get(press.action)
            if handler is None:
                await say(interaction, t("errors.unknown_button", locale))
                return

            async def decide() -> None:
                stored = await self.bot.store.games.require(press.game_id)
                if not stored.is_active:
                    status = render.status_name(stored.status, locale)
                    await say(interaction, t("spaye.stale.day_over", locale, status=status))
                    return
                settings = await self.settings_of(stored.guild_id)
                user = str(interaction.user.id)
                self.note_names(stored.id, interaction.user)
                await handler(self, Click(interaction, press, stored, user, locale, settings))

            async with auto_defer(interaction):
                await self.decided(interaction, locale, decide)
        except IllegalAction as err:
            await say(interaction, refusal(err, locale, render.format_param))

    async def on_modal(self, interaction: discord.Interaction[Any]) -> None:
        """A committee request submitted (the ``on_interaction`` listener calls this)."""
        locale = locale_for_user(interaction)
        try:
            await _committee.on_modal(self, interaction, locale)
        except IllegalAction as err:
            await say(interaction, refusal(err, locale, render.format_param))
        except Exception as err:
            await report_error(interaction, err, where="spaye:modal")
        finally:
            await self.bot.private.flush_for(interaction)

    async def on_expiry(self, payload: dict[str, Any]) -> None:
        """The ``spaye.invite_expiry`` timer (see :func:`cogs.spaye._daye.on_expiry`)."""
        await _daye.on_expiry(self, payload)

    # -- slash commands -----------------------------------------------------------------------

    async def invite(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        targets: Sequence[str],
        settings: SpayeGuild,
        away: str | None = None,
    ) -> None:
        """``/daye``: challenge, or recruit after a tie that left the final three cards
        (``away``: used outside the day's thread, see :func:`cogs.spaye._daye.invite`)."""
        locale = locale_for_user(interaction)

        async def decide() -> None:
            stored = await self.bot.store.games.require(game_id)
            await _daye.invite(self, interaction, stored, targets, settings, away)

        await self.decided(interaction, locale, decide)

    async def propose(
        self, interaction: discord.Interaction[Any], game_id: int, name: str, settings: SpayeGuild
    ) -> None:
        """``/spaye exercise``: propose another exercise; a colleague's Agree replaces it."""
        locale = locale_for_user(interaction)

        async def decide() -> None:
            stored = await self.bot.store.games.require(game_id)
            await _choice.propose(self, interaction, stored, name, settings)

        await self.decided(interaction, locale, decide)
