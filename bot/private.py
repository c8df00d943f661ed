"""Private messages for every game: DMs, with a fallback when a user's DMs are closed.

``bot.private.send(user_id, key, content, embed=...)`` tries a DM. When Discord refuses it
(error 50007: the user does not accept DMs from server members), the content is kept in
``pending_private`` under ``(user_id, key)`` — a newer send with the same key replaces it,
so use one key per thing, e.g. ``hand_key("papayoo", 42)`` -> ``"papayoo:42:hand"`` — and
``send`` returns ``False``. The game goes on: nothing is lost and nothing crashes.

The user gets it on their next interaction with the bot: after every slash command and
every kit button the bot calls :meth:`PrivateMessenger.flush_for`, which sends each pending
item as an ephemeral follow-up (the first time for a key, with a line saying their DMs are
closed). Cogs with their own views may call ``flush_for`` themselves.

Hands are also always one click away: :meth:`PrivateMessenger.hand_button` gives a
persistent "Show my hand" button (custom id ``gn:hand:<kind>:<game_id>``) that answers
ephemerally with what the renderer registered for the kind returns::

    bot.private.register_renderer("papayoo", render_hand)

    def render_hand(stored: StoredGame, user_id: int, locale: Lang) -> PrivateRender:
        view = stored.game.view(str(user_id))        # raise IllegalAction for non-players
        return text, embed, None

``register_renderer(kind, render, shown=...)`` may also name what to do once a copy is
shown (the seated kit keeps one live copy of each hand: the one before is retired).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, ClassVar, TypeAlias

import discord

from bot.engine import IllegalAction
from bot.i18n import Lang, locale_for_user, t
from bot.storage import DatabaseClosed, GameStore, PrivateStore, StoredGame
from bot.ui import (
    ActionRouter,
    PersistentItem,
    Press,
    acknowledged,
    reply_error,
    report_error,
    respond,
    translate_illegal,
)

__all__ = [
    "CLOSED_MEMORY",
    "DMS_CLOSED",
    "HandButton",
    "HandShown",
    "PrivateMessenger",
    "PrivateRender",
    "PrivateRenderer",
    "hand_key",
]

log = logging.getLogger("gamenight.private")

DMS_CLOSED = 50007
"""Discord's error code for "Cannot send messages to this user"."""
MESSAGE_MAX = 2000
DM_MEMORY = 100_000
CLOSED_MEMORY = 10 * 60.0
"""Seconds a user whose DMs refused the bot (50007) is not sent DMs again (they may open
them again: then the next try after this delivers)."""
"""DM channel ids kept in memory (the database keeps them all)."""

PrivateRender: TypeAlias = tuple[str | None, discord.Embed | None, discord.ui.View | None]
"""``(content, embed, view)`` for an ephemeral answer; any of them may be ``None``."""
PrivateRenderer: TypeAlias = Callable[
    [StoredGame, int, Lang], PrivateRender | Awaitable[PrivateRender]
]
"""``(stored_game, user_id, locale) -> (content, embed, view)``; may be async."""
HandShown: TypeAlias = Callable[
    [StoredGame, discord.Interaction[Any], discord.Message | None], None
]
"""``(stored_game, interaction, message)``: "Show my hand" was answered with ``message`` (when
Discord named it), e.g. so that the kind keeps one live copy of each hand."""


def hand_key(kind: str, game_id: int) -> str:
    """The pending-private key of a player's hand in a game (one per game)."""
    return f"{kind}:{game_id}:hand"


class PrivateMessenger:
    """DMs with a fallback (``bot.private``)."""

    def __init__(self, client: discord.Client, store: PrivateStore, games: GameStore) -> None:
        self._client = client
        self._store = store
        self._games = games
        self.renderers: dict[str, PrivateRenderer] = {}
        self.shown: dict[str, HandShown] = {}
        self._dms: dict[int, int] = {}
        self._opening: dict[int, asyncio.Future[discord.DMChannel]] = {}
        self._closed: dict[int, float] = {}
        self.dms_created = 0
        """DM channels opened on Discord (``POST /users/@me/channels``) by this process."""

    def dms_closed(self, user_id: int) -> None:
        """Discord said this user's DMs are closed: no DM is tried for a while."""
        if len(self._closed) >= DM_MEMORY:
            self._closed.clear()
        self._closed[user_id] = time.monotonic() + CLOSED_MEMORY

    def dms_opened(self, user_id: int) -> None:
        """Forget that the user's DMs were closed (the next DM is tried at once)."""
        self._closed.pop(user_id, None)

    def known_closed(self, user_id: int) -> bool:
        """Whether the user's DMs refused the bot lately (see :meth:`dms_closed`)."""
        until = self._closed.get(user_id)
        if until is None:
            return False
        if until <= time.monotonic():
            del self._closed[user_id]
            return False
        return True

    async def dm_channel(self, user_id: int) -> discord.PartialMessageable:
        """The user's DM channel: known (in memory, then in the database, kept across
        restarts) or opened once on Discord and remembered. discord.py's own cache holds
        128 DM channels: with hundreds of players almost every DM would cost a lookup."""
        channel, new = await self._open_dm(user_id)
        if new:
            await self._remember_dm(user_id, channel.id)
        return channel

    async def _open_dm(self, user_id: int) -> tuple[discord.PartialMessageable, bool]:
        channel_id = self._dms.get(user_id)
        if channel_id is None:
            channel_id = await self._store.dm_channel(user_id)
            channel_id = self._dms.get(user_id, channel_id)  # opened while we read
        new = channel_id is None
        if channel_id is None:
            opening = self._opening.get(user_id)
            if opening is None:  # one call to Discord however many ask at once
                opening = self._opening[user_id] = asyncio.ensure_future(
                    self._client.create_dm(discord.Object(id=user_id))
                )
                opening.add_done_callback(partial(self._opened, user_id))
                self.dms_created += 1
            else:
                new = False  # the first asker remembers it
            channel_id = (await asyncio.shield(opening)).id
        if len(self._dms) >= DM_MEMORY:
            self._dms.clear()
        self._dms[user_id] = channel_id
        messageable = self._client.get_partial_messageable(
            channel_id, type=discord.ChannelType.private
        )
        return messageable, new

    def _opened(self, user_id: int, opening: asyncio.Future[discord.DMChannel]) -> None:
        """Known in memory the moment Discord answers (before the database has it)."""
        self._opening.pop(user_id, None)
        if not opening.cancelled() and opening.exception() is None:
            self._dms[user_id] = opening.result().id

    async def _remember_dm(self, user_id: int, channel_id: int) -> None:
        try:
            await self._store.remember_dm(user_id, channel_id)
        except Exception:
            log.exception("could not remember a DM channel", extra={"user_id": user_id})

    def register_renderer(
        self, kind: str, renderer: PrivateRenderer, *, shown: HandShown | None = None
    ) -> None:
        """What "Show my hand" shows for games of ``kind`` (``shown``: told of each copy)."""
        self.renderers[kind] = renderer
        if shown is not None:
            self.shown[kind] = shown

    def unregister_renderer(self, kind: str) -> None:
        self.renderers.pop(kind, None)
        self.shown.pop(kind, None)

    def hand_button(
        self, kind: str, game_id: int, locale: str, *, row: int | None = None
    ) -> HandButton:
        """A persistent "Show my hand" button for the public game message."""
        return HandButton(kind, game_id, label=t("private.show_hand", locale), row=row)

    async def send(
        self,
        user_id: int,
        key: str,
        content: str | None = None,
        *,
        embed: discord.Embed | None = None,
        view: discord.ui.View | None = None,
        locale: str | None = None,
        nonce: str | None = None,
    ) -> bool:
        """DM ``user_id``; ``True`` if delivered. Otherwise keep it for later, return ``False``.

        ``nonce`` (25 characters at most) names a message that must arrive once: sent again
        within minutes (its timer run again after its process died), Discord gives back the
        first instead of a second one.

        ``key`` names what this is (``hand_key(kind, game_id)``, ``"spaye:7:exercise"``): a later
        send with the same key replaces content not yet delivered. ``view`` is only sent with a
        DM (components cannot be kept); a kept message falls back to content and embed.
        ``locale`` is the language ``content`` is written in. Never raises for Discord errors.
        """
        if content is None and embed is None:
            raise ValueError("a private message needs content or an embed")
        opened: tuple[discord.PartialMessageable, bool] | None = None
        if self.known_closed(user_id):
            await self._keep(user_id, key, content, embed, locale)
            return False
        try:
            opened = channel, _ = await self._open_dm(user_id)
            kwargs: dict[str, Any] = {"content": content, "embed": embed}
            if view is not None:
                kwargs["view"] = view
            if nonce is not None:
                kwargs["nonce"] = nonce
            await channel.send(**kwargs)
        except discord.HTTPException as err:
            closed = isinstance(err, discord.Forbidden) and err.code == DMS_CLOSED
            if closed:
                self.dms_closed(user_id)
            log.log(
                logging.INFO if closed else logging.WARNING,
                "private message kept for later",
                extra={"user_id": user_id, "key": key, "status": err.status, "code": err.code},
            )
            await self._keep(user_id, key, content, embed, locale)
            if opened is not None and opened[1]:  # after what the user must see
                await self._remember_dm(user_id, opened[0].id)
            return False
        if opened[1]:
            await self._remember_dm(user_id, opened[0].id)
        try:
            await self._store.discard(user_id, key)  # an older undelivered copy is stale now
        except Exception:
            log.exception("could not clear a stale private message", extra={"key": key})
        return True

    async def _keep(
        self,
        user_id: int,
        key: str,
        content: str | None,
        embed: discord.Embed | None,
        locale: str | None,
    ) -> None:
        embeds = [embed.to_dict()] if embed is not None else []
        try:
            await self._store.put(user_id, key, content, [dict(e) for e in embeds], locale)
        except Exception:
            log.exception("could not keep a private message", extra={"key": key})

    async def deliver_pending(self, interaction: discord.Interaction[Any]) -> int:
        """Send what waits for the user as ephemeral messages; returns how many were sent."""
        user_id = interaction.user.id
        if not await self._store.has_pending(user_id):
            return 0
        locale = locale_for_user(interaction)
        sent = 0
        for item in await self._store.pending(user_id):
            notice = None if item.notified else t("private.dms_closed", locale)
            text = "\n\n".join(part for part in (notice, item.content) if part)
            embeds = [discord.Embed.from_dict(e) for e in item.embeds]
            if len(text) > MESSAGE_MAX and notice is not None:
                await respond(interaction, notice, ephemeral=True)
                text = item.content or ""
            await respond(interaction, text or None, embeds=embeds, ephemeral=True)
            await self._store.delivered(user_id, item.key)
            sent += 1
        return sent

    async def flush_for(self, interaction: discord.Interaction[Any]) -> None:
        """:meth:`deliver_pending`, swallowing errors (called after every handled interaction)."""
        try:
            await self.deliver_pending(interaction)
        except DatabaseClosed:
            return  # the bot is stopping: what is kept waits for the next start
        except Exception:
            log.exception("could not deliver pending private messages")

    async def show_hand(
        self, interaction: discord.Interaction[Any], kind: str, game_id: int
    ) -> None:
        """Answer "Show my hand" ephemerally with the kind's renderer."""
        renderer = self.renderers.get(kind)
        if renderer is None:
            await reply_error(interaction, "errors.unknown_button")
            return
        stored = await self._games.get(game_id)
        if stored is None:
            await reply_error(interaction, "errors.game_not_found")
            return
        locale = locale_for_user(interaction)
        try:
            rendered = renderer(stored, interaction.user.id, locale)
            if inspect.isawaitable(rendered):
                rendered = await rendered
            content, embed, view = rendered
        except IllegalAction as err:
            await respond(interaction, translate_illegal(err, locale), ephemeral=True)
            return
        if content is None and embed is None:
            content = t("private.nothing_to_show", locale)
        message = await respond(interaction, content, embed=embed, view=view, ephemeral=True)
        shown = self.shown.get(kind)
        if shown is not None:
            shown(stored, interaction, message)
        await self._store.discard(interaction.user.id, hand_key(kind, game_id))


class HandButton(
    PersistentItem[discord.ui.Button[discord.ui.View]],
    template=r"gn:hand:(?P<kind>[a-z][a-z0-9_]*):(?P<game_id>\d+)",
):
    """The persistent "Show my hand" button; works for any kind with a renderer."""

    route: ClassVar[dict[str, str]] = {"action": "hand"}

    def __init__(
        self,
        kind: str,
        game_id: int,
        *,
        label: str = "Show my hand",
        row: int | None = None,
    ) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", kind):
            raise ValueError(f"bad game kind {kind!r}")
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label,
            style=discord.ButtonStyle.primary,
            emoji="🎴",
            custom_id=f"gn:hand:{kind}:{game_id}",
        )
        super().__init__(button, Press(kind, game_id, "hand"), row=row)
        self.kind = kind
        self.game_id = game_id

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> HandButton:
        return cls(press.kind, press.game_id)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Answered here, not by a kind's handler: every game's hand shows the same way."""
        private = getattr(interaction.client, "private", None)
        try:
            if not isinstance(private, PrivateMessenger):
                await reply_error(interaction, "errors.unknown_button")
                return
            async with acknowledged(interaction):
                actions = getattr(interaction.client, "actions", None)
                if isinstance(actions, ActionRouter) and not await actions.check(
                    interaction, self.press
                ):
                    return
                await private.show_hand(interaction, self.kind, self.game_id)
        except Exception as err:
            await report_error(interaction, err, where=f"hand:{self.kind}")
        if isinstance(private, PrivateMessenger):
            await private.flush_for(interaction)
