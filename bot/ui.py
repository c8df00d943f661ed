"""The shared UI kit: persistent game buttons and selects, replies, errors, deferring.

Buttons that outlive a restart. A :class:`GameButton` carries everything in its custom id,
``gn:<kind>:<game_id>:<action>[:<arg>]``, and every click is routed to the handler its cog
registered for ``kind`` (all state is in the database, so yesterday's buttons still work)::

    # in the cog
    async def cog_load(self) -> None:
        self.bot.actions.register("papayoo", self.on_press)

    async def on_press(self, interaction: discord.Interaction, press: Press) -> None:
        stored, events = await self.bot.store.games.act(
            press.game_id, interaction.user.id, {"type": press.action, "card": press.arg})
        await update_message(interaction, embed=render(stored, events), view=board(stored))

    # when sending the board
    view = game_view(GameButton("papayoo", game_id, "play", "7H", label="7♥"))

The kit answers for the handler when it raises: an ``IllegalAction`` becomes an ephemeral
reply in the clicker's language (:func:`translate_illegal`), anything else is logged and
answered with the generic "something went wrong". After every press, private content that
could not be sent as a DM is delivered (``bot.private.flush_for``).

Answer within 3 seconds: Discord drops an interaction not acknowledged in time. Every slash
command and every click is acknowledged by the kit if its handler has not answered 2 s after
Discord created it (:func:`acknowledged`: a database away waits for it, up to 30 s); a slash
command whose answer is public says so with ``extras=PUBLIC_ANSWER``. Engine moves and
database writes take milliseconds; for anything that may be slow wrap the work in
``async with auto_defer(interaction):`` (defers once 1.5 s passed since Discord created it) or call
:func:`defer` first, and answer with :func:`respond`, which picks the initial response or a
follow-up as needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, Protocol, Self, TypeAlias, TypeVar, cast

import discord
from discord import app_commands
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context

from bot.engine import IllegalAction
from bot.i18n import Lang, has_key, locale_for_user, normalize_locale, t
from bot.limits import CLICKS, MOVES, RateLimiter, RateRule
from bot.present import refusal
from bot.storage import DatabaseLost, GameNotFound
from bot.text import clip

__all__ = [
    "CUSTOM_ID_MAX",
    "GAME_ID_MAX",
    "PUBLIC_ANSWER",
    "ActionHandler",
    "ActionRouter",
    "ClickToken",
    "GameButton",
    "GameSelect",
    "GameView",
    "PersistentItem",
    "Press",
    "PressGuard",
    "accept_decline",
    "acknowledged",
    "auto_defer",
    "defer",
    "edit_by_token",
    "error_text",
    "game_custom_id",
    "game_view",
    "message_nonce",
    "reply_error",
    "report_error",
    "respond",
    "response_lock",
    "say",
    "translate_illegal",
    "update_message",
]

log = logging.getLogger("gamenight.ui")

CUSTOM_ID_MAX = 100
_KIND = r"[a-z][a-z0-9_]*"
_ACTION = r"[a-z][a-z0-9_.-]*"
_NAME = re.compile(rf"^{_KIND}$")
_ACTION_NAME = re.compile(rf"^{_ACTION}$")


@dataclass(frozen=True, slots=True)
class Press:
    """A click on a :class:`GameButton` (or a choice in a :class:`GameSelect`)."""

    kind: str
    game_id: int
    action: str
    arg: str | None = None
    values: tuple[str, ...] = ()
    """The options chosen in a select; empty for a button."""


ActionHandler: TypeAlias = Callable[[discord.Interaction[Any], Press], Awaitable[None]]
"""``async (interaction, press) -> None``; it must answer the interaction."""

PressGuard: TypeAlias = Callable[[discord.Interaction[Any], Press], Awaitable[str | None]]
"""``async (interaction, press) -> refusal key or None``: whether the game a press names
may be touched from where it was clicked (:attr:`ActionRouter.guard`)."""

GAME_ID_MAX: Final = 2**63 - 1
"""The largest id a database row has: a custom id naming more is no game of ours."""


class ActionRouter:
    """Which handler answers the buttons of each game kind (``bot.actions``), and how fast a
    member may click them (:attr:`limiter`, shared with the command tree).

    Before a handler runs, the press passes :meth:`check`: the :attr:`guard` the bot set
    (the game belongs to the server it was clicked in; in a DM, the clicker plays in it),
    for every kind whose ``game_id`` names a game (``games=True``, the default)."""

    def __init__(self, limiter: RateLimiter | None = None) -> None:
        self._handlers: dict[tuple[str, str | None], ActionHandler] = {}
        self._not_games: set[tuple[str, str | None]] = set()
        self.guard: PressGuard | None = None
        self._moves: set[str] = set()
        self.limiter = RateLimiter() if limiter is None else limiter
        """Interactions per member in a few seconds (:mod:`bot.limits`)."""

    def register(
        self,
        kind: str,
        handler: ActionHandler,
        *,
        action: str | None = None,
        games: bool = True,
        moves: bool = False,
    ) -> None:
        """Route ``kind``'s presses (only ``action`` ones if given) to ``handler``;
        ``games=False``: its custom ids' number is no game's id (a page number). ``moves``:
        they are a game's moves, never held by the clicks' rate limit."""
        if not _NAME.match(kind) or kind == "hand":
            raise ValueError(f"bad game kind for buttons: {kind!r}")
        self._handlers[(kind, action)] = handler
        if games:
            self._not_games.discard((kind, action))
        else:
            self._not_games.add((kind, action))
        if moves:
            self._moves.add(kind)

    def unregister(self, kind: str) -> None:
        """Forget every handler of ``kind`` (in ``cog_unload``)."""
        for key in [k for k in self._handlers if k[0] == kind]:
            del self._handlers[key]
            self._not_games.discard(key)
        self._moves.discard(kind)

    def throttle(self, user_id: int, kind: str) -> RateRule | None:
        """Count a click on ``kind``'s buttons: ``None``, or the rule it goes over."""
        return self.limiter.allow(user_id, MOVES if kind in self._moves else CLICKS)

    def lookup(self, kind: str, action: str) -> ActionHandler | None:
        return self._handlers.get((kind, action)) or self._handlers.get((kind, None))

    async def check(self, interaction: discord.Interaction[Any], press: Press) -> bool:
        """Whether ``press`` may go to its handler; if not, the clicker was told why
        (privately, in their language) and nothing happened."""
        if not 0 <= press.game_id <= GAME_ID_MAX:
            await reply_error(interaction, "errors.unknown_button")
            return False
        route: tuple[str, str | None] = (press.kind, press.action)
        if route not in self._handlers:
            route = (press.kind, None)
        if self.guard is None or route in self._not_games:
            return True
        refused = await self.guard(interaction, press)
        if refused is not None:
            await reply_error(interaction, refused)
            return False
        return True


@functools.lru_cache(maxsize=256)
def _valid_route(kind: str, action: str) -> bool:
    return bool(_NAME.match(kind) and _ACTION_NAME.match(action))


def game_custom_id(
    kind: str, game_id: int, action: str, arg: str | None = None, *, prefix: str = "gn"
) -> str:
    """``gn:<kind>:<game_id>:<action>[:<arg>]``, checked to fit Discord's 100 characters."""
    if not _valid_route(kind, action):
        raise ValueError(f"bad kind or action: {kind!r}, {action!r}")
    if arg is not None and ":" in arg:
        raise ValueError("a button argument cannot contain ':'")
    custom_id = f"{prefix}:{kind}:{game_id}:{action}" + (f":{arg}" if arg is not None else "")
    if len(custom_id) > CUSTOM_ID_MAX:
        raise ValueError(f"custom id longer than {CUSTOM_ID_MAX} characters: {custom_id!r}")
    return custom_id


class _KitClient(Protocol):
    actions: ActionRouter
    private: _Flusher


class _Flusher(Protocol):
    async def flush_for(self, interaction: discord.Interaction[Any]) -> None: ...


def _kit(interaction: discord.Interaction[Any]) -> _KitClient | None:
    client = interaction.client
    if isinstance(getattr(client, "actions", None), ActionRouter):
        return cast(_KitClient, client)
    return None


async def dispatch(interaction: discord.Interaction[Any], press: Press) -> None:
    """Run the handler registered for ``press``; report its errors; deliver pending DMs."""
    kit = _kit(interaction)
    handler = kit.actions.lookup(press.kind, press.action) if kit else None
    try:
        if handler is None:
            log.warning("button without handler", extra={"kind": press.kind, "act": press.action})
            await reply_error(interaction, "errors.unknown_button")
            return
        rule = kit.actions.throttle(interaction.user.id, press.kind) if kit else None
        if rule is not None:
            log.info("click refused: too fast", extra={"kind": press.kind, "act": press.action})
            await reply_error(
                interaction, "limits.too_fast_clicks", count=rule.count, seconds=f"{rule.seconds:g}"
            )
            return
        async with acknowledged(interaction):
            if kit is not None and not await kit.actions.check(interaction, press):
                return
            await handler(interaction, press)
    except Exception as err:
        await report_error(interaction, err, where=f"{press.kind}:{press.action}")
    finally:
        if kit is not None:
            await kit.private.flush_for(interaction)


ItemT = TypeVar("ItemT", bound="discord.ui.Item[discord.ui.View]")


class PersistentItem(discord.ui.DynamicItem[ItemT], template=r"(?!)"):
    """The one base of the kit's persistent components (:class:`GameButton`,
    :class:`GameSelect`, ``bot.private.HandButton``...): its custom id says which game and
    which action it is (a :class:`Press`), so it works after a restart, and every click goes
    to the handler registered for its kind (:func:`dispatch`).

    A subclass gives its ``template`` (named groups ``kind``, ``game_id``, ``action``,
    ``arg``; a fixed part of the id needs no group, see :attr:`route`), builds its
    component in ``__init__`` with :func:`game_custom_id` and passes it here with its press,
    and says how to make itself again from a press (:meth:`rebuild`). A select says what
    was chosen (:meth:`chosen`)::

        class UserPick(PersistentItem[discord.ui.UserSelect[discord.ui.View]],
                       template=r"gnu:(?P<kind>spaye):(?P<game_id>[0-9]+):(?P<action>[a-z_]+)"):
            def __init__(self, game_id: int, action: str) -> None:
                custom_id = game_custom_id("spaye", game_id, action, prefix="gnu")
                super().__init__(discord.ui.UserSelect(custom_id=custom_id),
                                 Press("spaye", game_id, action))

            @classmethod
            def rebuild(cls, press, item):
                return cls(press.game_id, press.action)

            def chosen(self) -> tuple[str, ...]:
                return tuple(str(user.id) for user in self.item.values)
    """

    route: ClassVar[dict[str, str]] = {}
    """Parts of the press the template fixes rather than matches (``{"action": "hand"}``)."""

    def __init__(self, item: ItemT, press: Press, *, row: int | None = None) -> None:
        super().__init__(item, row=row)
        self.press = press

    @classmethod
    def press_of(cls, match: re.Match[str]) -> Press:
        """The press a custom id says."""
        found = {**cls.route, **{k: v for k, v in match.groupdict().items() if v is not None}}
        return Press(found["kind"], int(found["game_id"]), found["action"], found.get("arg"))

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> Self:
        """The item again from its press (``item``: the clicked component, e.g. a select's
        options)."""
        raise NotImplementedError

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls.rebuild(cls.press_of(match), item)

    def chosen(self) -> tuple[str, ...]:
        """What a select's user chose (``press.values``); a button chooses nothing."""
        return ()

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, replace(self.press, values=self.chosen()))


class GameButton(
    PersistentItem[discord.ui.Button[discord.ui.View]],
    template=rf"gn:(?P<kind>(?!hand:){_KIND}):(?P<game_id>\d+):(?P<action>{_ACTION})(?::(?P<arg>[^:]*))?",
):
    """A persistent button whose custom id says which game and which action it is."""

    def __init__(
        self,
        kind: str,
        game_id: int,
        action: str,
        arg: str | None = None,
        *,
        label: str | None = None,
        emoji: str | discord.PartialEmoji | None = None,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        custom_id = game_custom_id(kind, game_id, action, arg)
        button: discord.ui.Button[discord.ui.View] = discord.ui.Button(
            label=label, emoji=emoji, style=style, disabled=disabled, custom_id=custom_id
        )
        super().__init__(button, Press(kind, game_id, action, arg), row=row)

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> GameButton:
        return cls(press.kind, press.game_id, press.action, press.arg)


class GameSelect(
    PersistentItem[discord.ui.Select[discord.ui.View]],
    template=rf"gns:(?P<kind>{_KIND}):(?P<game_id>\d+):(?P<action>{_ACTION})(?::(?P<arg>[^:]*))?",
):
    """A persistent select (e.g. the cards to pass); the handler gets ``press.values``."""

    def __init__(
        self,
        kind: str,
        game_id: int,
        action: str,
        options: Sequence[discord.SelectOption],
        arg: str | None = None,
        *,
        placeholder: str | None = None,
        min_values: int = 1,
        max_values: int = 1,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        select: discord.ui.Select[discord.ui.View] = discord.ui.Select(
            custom_id=game_custom_id(kind, game_id, action, arg, prefix="gns"),
            options=list(options),
            placeholder=placeholder,
            min_values=min_values,
            max_values=max_values,
            disabled=disabled,
        )
        super().__init__(select, Press(kind, game_id, action, arg), row=row)

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> GameSelect:
        options = item.options if isinstance(item, discord.ui.Select) else []
        return cls(press.kind, press.game_id, press.action, options, press.arg)

    def chosen(self) -> tuple[str, ...]:
        return tuple(str(v) for v in self.item.values)


class GameView(discord.ui.View):
    """A view without timeout whose errors get the kit's answer (refusal or generic error).

    Use it for a cog's own views too; kit items (:class:`GameButton`...) report their errors
    themselves.
    """

    def __init__(self, *items: discord.ui.Item[Any], timeout: float | None = None) -> None:
        super().__init__(timeout=timeout)
        for item in items:
            self.add_item(item)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        await report_error(interaction, error, where=str(getattr(item, "custom_id", item)))

    def is_finished(self) -> bool:
        """A view of kit items only (:class:`GameButton`, :class:`GameSelect`...) is routed by
        its custom ids, never through discord.py's view store: counted as finished, it is not
        stored per message (each stored view of a live hand or table would stay in memory)."""
        children = self.children
        if children and all(isinstance(item, discord.ui.DynamicItem) for item in children):
            return True
        return super().is_finished()


Component: TypeAlias = dict[str, Any]
"""One component as Discord's API spells it (a button or a select)."""


def _emoji(emoji: str | discord.PartialEmoji | None) -> dict[str, Any] | None:
    if emoji is None:
        return None
    partial = discord.PartialEmoji.from_str(emoji) if isinstance(emoji, str) else emoji
    return dict(partial.to_dict())


def button_payload(
    kind: str,
    game_id: int,
    action: str,
    arg: str | None = None,
    *,
    label: str | None = None,
    emoji: str | discord.PartialEmoji | None = None,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
) -> Component:
    """What :class:`GameButton` sends, built directly: for controls rebuilt on every move."""
    data: Component = {
        "type": 2,
        "style": style.value,
        "disabled": disabled,
        "custom_id": game_custom_id(kind, game_id, action, arg),
    }
    if label is not None:
        data["label"] = label
    if emoji is not None:
        data["emoji"] = _emoji(emoji)
    return data


def option_payload(
    label: str,
    value: str,
    *,
    description: str | None = None,
    emoji: str | discord.PartialEmoji | None = None,
) -> dict[str, Any]:
    """One option of :func:`select_payload` (as :class:`discord.SelectOption` sends it)."""
    data: dict[str, Any] = {"label": label, "value": value, "default": False}
    if description is not None:
        data["description"] = description
    if emoji is not None:
        data["emoji"] = _emoji(emoji)
    return data


def select_payload(
    kind: str,
    game_id: int,
    action: str,
    options: Sequence[dict[str, Any]],
    arg: str | None = None,
    *,
    placeholder: str | None = None,
    min_values: int = 1,
    max_values: int = 1,
    disabled: bool = False,
) -> Component:
    """What :class:`GameSelect` sends, built directly (``options`` from :func:`option_payload`)."""
    data: Component = {
        "type": 3,
        "custom_id": game_custom_id(kind, game_id, action, arg, prefix="gns"),
        "min_values": min_values,
        "max_values": max_values,
        "disabled": disabled,
        "options": list(options),
    }
    if placeholder is not None:
        data["placeholder"] = placeholder
    return data


class PayloadView(GameView):
    """Kit controls given as rows of component payloads (:func:`button_payload`,
    :func:`select_payload`) rather than item objects.

    A hand or a board is rebuilt on every move; building discord.py items for it cost more
    than the rest of the render. Presses are routed by the custom ids, as for
    :class:`GameButton` and :class:`GameSelect`, so nothing is stored per message.
    """

    def __init__(self, rows: Sequence[Sequence[Component]]) -> None:
        super().__init__()
        self.rows = [list(row) for row in rows if row]

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self.rows]

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False

    @property
    def components(self) -> list[Component]:
        """Every component, row after row."""
        return [c for row in self.rows for c in row]


async def edit_by_id(
    client: discord.Client,
    channel_id: int,
    message_id: int,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    embeds: Sequence[discord.Embed] = MISSING,
    view: discord.ui.View | None = MISSING,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> None:
    """Edit a message known by its ids, without reading back the message Discord returns:
    a table or a hand is edited after every move, and nobody needs the answer. An edit
    notifies nobody unless ``allowed_mentions`` says so."""
    with handle_message_parameters(
        content=content,
        embed=embed,
        embeds=embeds,
        view=view,
        allowed_mentions=allowed_mentions or discord.AllowedMentions.none(),
    ) as params:
        await client.http.edit_message(channel_id, message_id, params=params)


@dataclass(frozen=True, slots=True)
class ClickToken:
    """What editing the message a click answered takes: the interaction's token, not the
    interaction (which holds the whole payload, the clicked message with its components and
    the clicker, as long as it is kept)."""

    application_id: int
    token: str

    @classmethod
    def of(cls, interaction: discord.Interaction[Any]) -> ClickToken:
        return cls(interaction.application_id, interaction.token)


async def edit_by_token(
    client: discord.Client,
    click: ClickToken,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    embeds: Sequence[discord.Embed] = MISSING,
    view: discord.ui.View | None = MISSING,
    message_id: int | None = None,
) -> None:
    """Edit the message a click answered with its token (``@original``, as
    ``Interaction.edit_original_response`` does: not counted by the global limit), or with
    ``message_id`` a follow-up sent with it (as ``Interaction.followup.edit_message``),
    without reading back the message Discord returns."""
    hook = discord.Webhook.partial(click.application_id, click.token, client=client)
    with handle_message_parameters(
        content=content,
        embed=embed,
        embeds=embeds,
        view=view,
        previous_allowed_mentions=client.allowed_mentions,
    ) as params:
        adapter = async_context.get()
        if message_id is not None:
            await adapter.edit_webhook_message(
                click.application_id,
                click.token,
                message_id,
                session=hook.session,
                proxy=client.http.proxy,
                proxy_auth=client.http.proxy_auth,
                payload=params.payload,
                multipart=params.multipart,
                files=params.files,
                with_components=bool(view),
            )
            return
        await adapter.edit_original_interaction_response(
            click.application_id,
            click.token,
            session=hook.session,
            proxy=client.http.proxy,
            proxy_auth=client.http.proxy_auth,
            payload=params.payload,
            multipart=params.multipart,
            files=params.files,
        )


def game_view(*items: discord.ui.Item[Any]) -> GameView:
    """A persistent view (no timeout) holding ``items``."""
    return GameView(*items)


def accept_decline(
    kind: str,
    game_id: int,
    locale: str,
    *,
    arg: str | None = None,
    accept: str = "accept",
    decline: str = "decline",
) -> GameView:
    """The one accept/decline prompt: two buttons routed to ``kind``'s handler."""
    return game_view(
        GameButton(
            kind,
            game_id,
            accept,
            arg,
            label=t("ui.accept", locale),
            style=discord.ButtonStyle.success,
        ),
        GameButton(
            kind,
            game_id,
            decline,
            arg,
            label=t("ui.decline", locale),
            style=discord.ButtonStyle.danger,
        ),
    )


# -- answering -------------------------------------------------------------------------------

_response_locks: dict[int, asyncio.Lock] = {}


def response_lock(
    interaction: discord.Interaction[Any],
) -> asyncio.Lock | contextlib.nullcontext[None]:
    """Hold it around a first answer sent by hand (``interaction.response...``): a deferral
    of :func:`auto_defer` (or :func:`acknowledged`) never crosses it."""
    lock = _response_locks.get(interaction.id)
    return lock if lock is not None else contextlib.nullcontext()


UNKNOWN_INTERACTION = 10062
"""Discord's code for an interaction no longer answerable (its 3 s, or 15 min, are over)."""


def expired(error: BaseException) -> bool:
    """Whether ``error`` says the interaction can no longer be answered."""
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION


def message_nonce(prefix: str, name: str) -> str:
    """A message nonce (25 characters at most) naming ``name``: posted again with it (a
    process died after posting, before recording it), the message is the one Discord made
    within the last minutes. Discord compares the nonces of all the bot's messages, in every
    channel: ``name`` says which message, for whom."""
    return prefix + hashlib.sha256(name.encode()).hexdigest()[: 25 - len(prefix)]


def notify(*users: str | int | None) -> discord.AllowedMentions:
    """The ``allowed_mentions`` of a message meant to notify exactly ``users`` (player ids;
    computer seats and ``None`` are skipped): never everyone, a role or anyone else."""
    ids = dict.fromkeys(int(u) for u in users if u is not None and str(u).isdigit())
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=i) for i in ids]
    )


def _message_kwargs(
    content: str | None,
    embed: discord.Embed | None,
    embeds: Sequence[discord.Embed] | None,
    view: discord.ui.View | None,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "allowed_mentions": allowed_mentions or discord.AllowedMentions.none()
    }
    if content is not None:
        kwargs["content"] = content
    if embed is not None:
        kwargs["embed"] = embed
    if embeds:
        kwargs["embeds"] = list(embeds)
    if view is not None:
        kwargs["view"] = view
    return kwargs


async def respond(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions | None = None,
    files: Sequence[discord.File] = (),
) -> discord.Message | None:
    """Send a message answering ``interaction``: the response if none yet, else a follow-up.
    Returns the message when Discord's answer names it (it does: no extra call to fetch it).
    It notifies nobody unless ``allowed_mentions`` (:func:`notify`) names them. ``files`` are
    attached (at most 10, each within the server's upload size; a picture an embed shows as
    ``attachment://<filename>``)."""
    kwargs = _message_kwargs(content, embed, embeds, view, allowed_mentions)
    if files:
        kwargs["files"] = list(files)
    lock = _response_locks.get(interaction.id)
    async with lock if lock is not None else contextlib.nullcontext():
        if interaction.response.is_done():
            sent: Any = await interaction.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
            return sent if isinstance(sent, discord.Message) else None
        answer = await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
    resource = getattr(answer, "resource", None)
    return resource if isinstance(resource, discord.Message) else None


async def update_message(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> None:
    """Edit the message whose button was pressed (works before or after a defer)."""
    kwargs = _message_kwargs(content, embed, embeds, view, allowed_mentions)
    lock = _response_locks.get(interaction.id)
    async with lock if lock is not None else contextlib.nullcontext():
        try:
            if interaction.response.is_done():
                await interaction.edit_original_response(**kwargs)
            else:
                await interaction.response.edit_message(**kwargs)
        except discord.NotFound as err:
            message = interaction.message
            if not expired(err) or message is None or message.flags.ephemeral:
                raise
            # Answered too late (a bot under load): Discord shows the click as failed, but
            # what it did is done, and the message it was on must show it all the same.
            log.warning(
                "interaction expired; its message edited directly",
                extra={"interaction": interaction.id},
            )
            await edit_by_id(interaction.client, message.channel.id, message.id, **kwargs)


async def defer(
    interaction: discord.Interaction[Any], *, ephemeral: bool = False, thinking: bool = False
) -> None:
    """Acknowledge now, answer later with :func:`respond` / :func:`update_message`.

    For a button, ``thinking=False`` keeps the message as it is (then update it); for a
    command, ``thinking=True`` shows "… is thinking". No-op if already answered.
    """
    async with response_lock(interaction):
        if not interaction.response.is_done():
            await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)


@contextlib.asynccontextmanager
async def auto_defer(
    interaction: discord.Interaction[Any],
    *,
    ephemeral: bool = False,
    thinking: bool = False,
    after: float = 1.5,
) -> AsyncIterator[None]:
    """Defer ``interaction`` only if the block is still running ``after`` seconds after
    Discord created it (a busy bot may receive it late: the deadline counts from then).
    Blocks may nest (a handler's inside :func:`acknowledged`): they share one lock."""
    lock = _response_locks.get(interaction.id)
    owner = lock is None
    if lock is None:
        lock = _response_locks[interaction.id] = asyncio.Lock()
    created = getattr(interaction, "created_at", None)
    age = (discord.utils.utcnow() - created).total_seconds() if created is not None else 0.0
    wait = min(after, max(0.0, after - age))
    if wait == 0.0 and not interaction.response.is_done():
        # Reached us late (a busy bot): acknowledge before the work, not after another turn
        # of a long event loop queue. The block then answers by editing.
        with contextlib.suppress(discord.HTTPException):
            async with lock:
                await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)

    deferring = False

    async def later() -> None:
        nonlocal deferring
        await asyncio.sleep(wait)
        deferring = True
        async with lock:
            if not interaction.response.is_done():
                await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)

    task = asyncio.create_task(later())
    try:
        yield
    finally:
        # A deferral already on its way is let through, not cancelled: Discord may have
        # taken it while discord.py would not know, and the next answer would be refused.
        if not deferring:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, discord.HTTPException):
            await task
        if owner:
            _response_locks.pop(interaction.id, None)


PUBLIC_ANSWER: dict[str, Any] = {"answer": "public"}
"""``extras`` of a slash command whose answer is public (a lobby, a day opened): when it has
to be deferred before its own code could, it is deferred publicly (see :func:`acknowledged`)."""

ACKNOWLEDGE_AFTER = 2.0
"""Seconds after Discord created an interaction at which the bot acknowledges it if its
handler has not answered yet (Discord drops it at 3 s). Later than :func:`auto_defer`'s
1.5 s: a handler's own deferral, which knows how it will answer, comes first."""


def _answers_publicly(interaction: discord.Interaction[Any]) -> bool:
    command = interaction.command
    return command is not None and command.extras.get("answer") == PUBLIC_ANSWER["answer"]


@contextlib.asynccontextmanager
async def acknowledged(interaction: discord.Interaction[Any]) -> AsyncIterator[None]:
    """Whatever the handler inside does, ``interaction`` is acknowledged in time: deferred
    if it is still running :data:`ACKNOWLEDGE_AFTER` seconds after Discord created it (its
    database away and waited for, a slow answer). Wraps every slash command (the command
    tree) and every click (:func:`dispatch`), so none depends on its handler deferring.

    A command is deferred privately ("is thinking" seen by its author alone: a refusal or
    "nothing changed" stays private), or publicly with ``extras=PUBLIC_ANSWER``; a click
    is deferred without changing its message. Autocomplete cannot be deferred."""
    kind = interaction.type
    if kind is discord.InteractionType.autocomplete or kind is discord.InteractionType.ping:
        yield
        return
    command = kind is discord.InteractionType.application_command
    async with auto_defer(
        interaction,
        ephemeral=command and not _answers_publicly(interaction),
        thinking=command,
        after=ACKNOWLEDGE_AFTER,
    ):
        yield


# -- errors ----------------------------------------------------------------------------------


def translate_illegal(err: IllegalAction, locale: str) -> str:
    """The refusal in the player's language when the catalog has ``err.key``, else English."""
    return refusal(err, normalize_locale(locale))


async def reply_error(interaction: discord.Interaction[Any], key: str, **params: Any) -> None:
    """An ephemeral, translated refusal (never raises: the user may have gone)."""
    await say(interaction, t(key, locale_for_user(interaction), **params))


async def say(interaction: discord.Interaction[Any], text: str) -> None:
    """A private answer (or follow-up); never raises: the player may have gone."""
    try:
        await respond(interaction, text, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not answer an interaction", extra={"interaction": interaction.id})


def _permission_names(names: Sequence[str], locale: Lang) -> str:
    return ", ".join(
        t(f"perm.{n}", locale) if has_key(f"perm.{n}") else n.replace("_", " ").title()
        for n in names
    )


def error_text(error: BaseException, locale: Lang) -> str | None:
    """The user-facing text for an expected error, ``None`` for a bug (log it)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, IllegalAction):
        return translate_illegal(error, locale)
    if isinstance(error, GameNotFound):
        return t("errors.game_not_found", locale)
    if isinstance(error, DatabaseLost):
        unsure = error.committed is None
        return t("errors.database_unsure" if unsure else "errors.database_lost", locale)
    if isinstance(error, app_commands.NoPrivateMessage):
        return t("errors.guild_only", locale)
    if isinstance(error, app_commands.MissingPermissions):
        perms = _permission_names(error.missing_permissions, locale)
        return t("errors.missing_permissions", locale, permissions=perms)
    if isinstance(error, app_commands.BotMissingPermissions):
        perms = _permission_names(error.missing_permissions, locale)
        return t("errors.bot_missing_permissions", locale, permissions=perms)
    if isinstance(error, app_commands.CommandOnCooldown):
        return t("errors.cooldown", locale, seconds=max(1, round(error.retry_after)))
    if isinstance(error, app_commands.CheckFailure):
        return t("errors.not_allowed", locale)
    if isinstance(error, app_commands.TransformerError):
        return t("errors.bad_value", locale, value=clip(str(error.value), 100))
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return t("errors.outdated_command", locale)
    return None


ALREADY_ACKNOWLEDGED = 40060
"""Discord's code for a second answer to one interaction (a 400, but no refused payload)."""


def refused_payload(error: BaseException) -> discord.HTTPException | None:
    """Discord's refusal of something the bot sent, behind ``error``: HTTP 400 (50035
    "Invalid Form Body": an emoji, a length or a layout it does not take; 50006 an empty
    message). ``None`` for any other error."""
    original = getattr(error, "original", error)
    if (
        isinstance(original, discord.HTTPException)
        and original.status == 400
        and original.code != ALREADY_ACKNOWLEDGED
    ):
        return original
    return None


async def report_error(
    interaction: discord.Interaction[Any], error: BaseException, *, where: str = ""
) -> None:
    """Tell the user what went wrong (ephemeral); log it when it is a bug. Never raises.

    A payload Discord refused (:func:`refused_payload`) is a bug too, logged with Discord's
    error body; the user is told that only the answer failed: a handler answers after its
    move is committed, so a move made stays made."""
    original = getattr(error, "original", error)
    if expired(original):
        # A busy bot answered too late: nobody can be told any more, and nothing is broken.
        log.warning(
            "interaction expired before its answer",
            extra={"where": where or _describe(interaction), "interaction": interaction.id},
        )
        return
    locale = locale_for_user(interaction)
    refused = refused_payload(error)
    text = None if refused is not None else error_text(error, locale)
    if text is None:
        extra: dict[str, Any] = {
            "where": where or _describe(interaction),
            "guild_id": interaction.guild_id,
            "user_id": interaction.user.id,
        }
        if refused is not None:
            extra["discord_code"] = refused.code
            extra["discord_error"] = refused.text
            extra["discord_errors"] = getattr(refused, "_errors", None)
        log.error(
            "Discord refused the bot's answer"
            if refused is not None
            else "unhandled error in an interaction",
            exc_info=(type(original), original, original.__traceback__),
            extra=extra,
        )
        text = t("errors.generic" if refused is None else "errors.discord_refused", locale)
    await say(interaction, text)


def _describe(interaction: discord.Interaction[Any]) -> str:
    command = interaction.command
    if command is not None:
        return f"/{command.qualified_name}"
    data: dict[str, Any] = dict(interaction.data or {})
    return str(data.get("custom_id", interaction.type.name))
