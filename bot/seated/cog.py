"""The seated-game layer: lobby, table, private hands, turn timer, notices, abandon, stats.

A game's cog is a :class:`SeatedCog` with a :class:`SeatedSpec` (its engine kind, its
renderer and the options of ``/<game> new``) and nothing else to write but how the game
looks. Every move goes the same way::

    click -> the stamp of the clicked controls checked against the player's decision now
      -> GameStore.act (the move and the turn timer committed in one transaction)
      -> the clicker's own message updated in the interaction answer
      -> then, outside any lock: the table edited (coalesced), the hands of whoever must act
         now edited, a record posted only at the end of a round or game, turn notices

Messages. The lobby message becomes the game's one table message, edited in place. Each
player has one private hand: a DM edited in place (and, when they pressed "Show my hand",
that ephemeral copy too: every copy updates together). Whoever must act is pinged by a
notice unless they act within a few seconds (:mod:`bot.seated.notices`). A channel record is
posted when the game starts (the ping that calls the players), when a round or the game ends,
and when it is abandoned.

Durability. The lobby, the game, the hand message ids and the turn timer are in the
database; a restart resumes everything (old buttons included: a click on controls of a
decision that is gone is answered with the current hand and changes nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Final

import discord
from discord.ext import commands

from bot import computers
from bot.ai import LEVELS as AI_BUDGETS
from bot.ai import timed_out
from bot.budget import Dropped, Priority, priority
from bot.engine import SYSTEM, Event, Game, IllegalAction, new_game
from bot.engine.lobby import LEVELS, Lobby, is_computer
from bot.i18n import Lang, has_key, locale_for_user, normalize_locale, t
from bot.private import DMS_CLOSED, PrivateRender
from bot.seated.commands import OptionSpec
from bot.seated.controls import hand_controls, parse, stamp
from bot.seated.editor import MessageEditor
from bot.seated.notices import TurnNotices
from bot.seated.order import ArrivalOrder
from bot.seated.render import HandContext, SeatedRenderer, TableContext, mention
from bot.storage import PlayerResult, StoredGame, default_results
from bot.ui import (
    GameButton,
    GameSelect,
    GameView,
    Press,
    auto_defer,
    edit_by_id,
    refused_payload,
    report_error,
    respond,
    update_message,
)

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.seated")

LOBBY_KIND: Final = "lobby"
EPHEMERAL_TTL: Final = 14 * 60.0
"""Discord takes an interaction's token for 15 minutes: a minute is kept in hand."""
TABLE_REFUSED_PAUSE: Final = 300.0
WAITING_POLL: Final = 1.0
"""Seconds between two looks at the REST budget for lobbies waiting to start."""
"""An ephemeral "Show my hand" copy can be edited for 15 minutes after its interaction."""


def new_seed() -> int:
    """Each game's deal comes from here (tests pin it)."""
    return secrets.randbelow(1 << 62)


@dataclass(frozen=True)
class SeatedSpec:
    """What a seated game tells the kit about itself."""

    kind: str
    renderer: SeatedRenderer
    options: tuple[OptionSpec, ...] = ()
    lobby_minutes: int = 30
    refresh_all: frozenset[str] = frozenset({"game_over"})
    """Event types after which every player's hand is redrawn (a new deal, the pass done)."""
    warn_seconds: int = 15
    public_board: bool = False
    """A game that hides no hand (Spit): no private hands; every player's controls are on
    the one table message, each click answered by updating that message, moves applied in
    the order Discord received them (:mod:`bot.seated.order`)."""


def no_results(stored: StoredGame) -> list[PlayerResult]:
    return []


def lobby_status(game: Game) -> Any:
    if not game.is_over():
        return "active"
    return "voided" if game.result()["status"] == "voided" else "over"


@dataclass
class _Copy:
    interaction: discord.Interaction[Any]
    expires: float


@dataclass
class _Live:
    """What lives in memory about a running game (rebuilt after a restart)."""

    last: dict[Lang, list[str]] = field(default_factory=dict)
    """What just happened, one short line each, per language (the table's and each hand's)."""
    deadline: datetime | None = None
    deadline_known: bool = False
    copies: dict[str, _Copy] = field(default_factory=dict)
    dm_tokens: dict[str, _Copy] = field(default_factory=dict)
    """Each player's latest click on their DM hand: its token edits that hand for free."""
    table_token: _Copy | None = None
    """The latest click answered on the table (its Start, a board move): same for the table."""
    table_refused_until: float = 0.0
    """Discord refused to edit the table (a permission lost): not tried again until then."""
    host_told: bool = False
    computer: asyncio.Task[None] | None = None
    public: tuple[int, dict[str, Any]] | None = None
    """``public_view()`` of one version: a move reads it many times."""
    noted: int = 0
    """The version whose events ``last`` shows."""


def is_private(interaction: discord.Interaction[Any]) -> bool:
    """The clicked message is the clicker's alone (a DM or an ephemeral)."""
    message = interaction.message
    return interaction.guild_id is None or (message is not None and message.flags.ephemeral)


class SeatedCog(commands.Cog):
    """Base class of every seated game's cog. Subclasses set ``spec`` and add the group
    ``seated_group(...)`` as a class attribute."""

    spec: ClassVar[SeatedSpec]
    TABLE_EDIT_INTERVAL: ClassVar[float] = 1.0
    """Seconds between two edits of one table: faster moves are shown together."""
    NOTICE_DELAY: ClassVar[float] = 8.0
    START_RETRY: ClassVar[float] = 30.0
    """Seconds after a start before a durable timer finishes its Discord side if it is not
    done by then (a failure, a restart)."""
    COMPUTER_DELAY: ClassVar[float] = 1.2
    """A computer player's move appears after this, at a human pace."""
    AI_GRACE: ClassVar[float] = 1.0
    """Seconds a computer player may run past its budget before the timer's move is used."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self.kind = self.spec.kind
        self.render = self.spec.renderer
        self.background: asyncio.Semaphore = bot.background
        self.tables = MessageEditor(
            min_interval=self.TABLE_EDIT_INTERVAL,
            limit=self.background,
            budget=bot.budget,
            on_refused=self._refused,
        )
        self.hands = MessageEditor(
            limit=self.background, budget=bot.budget, on_refused=self._refused
        )
        self.waiting: list[tuple[int, discord.Interaction[Any]]] = []
        """Lobbies whose Start waits for room in the REST budget, oldest first."""
        self._waiter: asyncio.Task[None] | None = None
        self.notices = TurnNotices(self._send_notice, delay=self.NOTICE_DELAY)
        self.order = ArrivalOrder()
        self._live: dict[int, _Live] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._starting: dict[int, asyncio.Lock] = {}

    # -- registration -----------------------------------------------------------------------

    @property
    def lobby_buttons(self) -> str:
        """The button kind of this game's lobbies (``papayoo_lobby``: old lobby buttons too)."""
        return f"{self.kind}_lobby"

    def turn_timer(self) -> str:
        return f"{self.kind}.turn"

    def warn_timer(self) -> str:
        return f"{self.kind}.warn"

    def lobby_timer(self) -> str:
        return f"{self.kind}.lobby_expiry"

    def turn_key(self, game_id: int) -> str:
        return f"{self.kind}:{game_id}:turn"

    def warn_key(self, game_id: int) -> str:
        return f"{self.kind}:{game_id}:warn"

    def start_timer(self) -> str:
        return f"{self.kind}.start"

    def start_key(self, game_id: int) -> str:
        return f"{self.kind}:{game_id}:start"

    def lobby_key(self, lobby_id: int) -> str:
        return f"{self.lobby_buttons}:{lobby_id}:expire"

    async def cog_load(self) -> None:
        games = self.bot.store.games
        games.register_kind(LOBBY_KIND, status=lobby_status, results=no_results)
        games.register_kind(self.kind, results=self.results)
        self.bot.actions.register(self.lobby_buttons, self.on_lobby_press)
        self.bot.actions.register(self.kind, self.on_press)
        self.bot.private.register_renderer(self.kind, self.render_hand)
        self.bot.timers.register(self.turn_timer(), self.on_turn_timer)
        self.bot.timers.register(self.warn_timer(), self.on_warn_timer)
        self.bot.timers.register(self.lobby_timer(), self.on_lobby_timer)
        self.bot.timers.register(self.start_timer(), self.on_start_timer)
        self._spawn(self._resume())

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(self.lobby_buttons)
        self.bot.actions.unregister(self.kind)
        self.bot.private.unregister_renderer(self.kind)
        for kind in (self.turn_timer(), self.warn_timer(), self.lobby_timer(), self.start_timer()):
            self.bot.timers.unregister(kind)
        for task in list(self._tasks):
            task.cancel()
        self.notices.close()
        self.tables.close()
        self.hands.close()
        computers.shutdown()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def results(self, stored: StoredGame) -> list[PlayerResult]:
        """The result lines of a finished game: colleagues only (computer seats get none),
        filed apart when computers played (:meth:`computer_kind`)."""
        return self.file_results(stored, default_results(stored))

    def computer_kind(self) -> str:
        """Where the results of games with computer seats are kept, apart from the others."""
        return f"{self.kind}.computers"

    def file_results(self, stored: StoredGame, lines: list[PlayerResult]) -> list[PlayerResult]:
        if not any(is_computer(p) for p in self.public(stored)["players"]):
            return lines
        return [replace(line, kind=self.computer_kind()) for line in lines]

    def public(self, stored: StoredGame) -> dict[str, Any]:
        """``stored.game.public_view()``, computed once per version of a live game (each
        caller gets its own top-level copy; nested values are shared, never to be changed)."""
        if not stored.is_active or stored.kind != self.kind:
            return stored.game.public_view()
        live = self.live(stored.id)
        memo = live.public
        if memo is None or memo[0] != stored.version:
            memo = live.public = (stored.version, stored.game.public_view())
        return dict(memo[1])

    def live(self, game_id: int) -> _Live:
        live = self._live.get(game_id)
        if live is None:
            live = self._live[game_id] = _Live()
        return live

    async def settle(self) -> None:
        """Wait until every edit and computer move under way is done (tests, benchmarks)."""
        for _ in range(100):
            await asyncio.sleep(0)
            busy = [t for t in self._tasks if not t.done()]
            if busy:
                await asyncio.gather(*busy, return_exceptions=True)
                continue
            if self.tables.busy() or self.hands.busy():
                await self.tables.drain()
                await self.hands.drain()
                continue
            return

    # -- texts ------------------------------------------------------------------------------

    def refusal(self, err: IllegalAction, locale: Lang) -> str:
        """A refusal in the player's language, with cards and players as the table shows them."""
        params = dict(err.params)
        for name, value in err.params.items():
            shown = self.render.format_param(name, value, locale)
            if shown is not None:
                params[name] = shown
        if err.key and has_key(err.key, locale):
            return t(err.key, locale, **params)
        return str(err)

    def lobby_refusal(self, err: IllegalAction, locale: Lang) -> str:
        """A lobby's refusal: one closed meanwhile (started by another click, cancelled,
        expired) is a closed table, not a game that is over."""
        if err.key == "game.closed":
            return t("lobby.closed", locale)
        return self.refusal(err, locale)

    async def say(self, interaction: discord.Interaction[Any], text: str) -> None:
        await respond(interaction, text, ephemeral=True)

    @staticmethod
    def named(stored: StoredGame, view: dict[str, Any]) -> dict[str, Any]:
        """A view with the players' display names (``names``), for plain-text labels such as
        buttons, where a mention cannot show. Only what the lobby saw when they sat down."""
        view["names"] = dict(stored.meta.get("names") or {})
        return view

    def public_locale(self, stored: StoredGame) -> Lang:
        return normalize_locale(stored.meta.get("locale"))

    def player_locale(self, stored: StoredGame, player: str) -> Lang:
        locales: Mapping[str, str] = stored.meta.get("locales") or {}
        return normalize_locale(locales.get(player) or stored.meta.get("locale"))

    def locales(self, stored: StoredGame) -> set[Lang]:
        """Every language the game is shown in: the channel's and each player's."""
        locales: Mapping[str, str] = stored.meta.get("locales") or {}
        return {self.public_locale(stored), *(normalize_locale(v) for v in locales.values())}

    def channel(self, stored: StoredGame) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)

    # -- the lobby --------------------------------------------------------------------------

    async def open_lobby(
        self, interaction: discord.Interaction[Any], values: Mapping[str, Any]
    ) -> None:
        """``/<game> new``: a lobby message others join."""
        guild, channel_id = interaction.guild, interaction.channel_id
        locale = locale_for_user(interaction)
        if guild is None or channel_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        engine = {
            o.name: values[o.name] for o in self.spec.options if o.engine and o.name in values
        }
        kit = {
            o.name: values[o.name] for o in self.spec.options if not o.engine and o.name in values
        }
        host = str(interaction.user.id)
        problem = self.check_options(values, locale)
        if problem is not None:
            await self.say(interaction, problem)
            return
        try:
            lobby = new_game(LOBBY_KIND, [host], 0, {"game": self.kind, **engine})
        except ValueError as err:
            await self.say(interaction, t("seated.bad_option", locale, reason=str(err)))
            return
        async with auto_defer(interaction, thinking=True):
            public = (await self.bot.guild_settings(guild)).locale
            meta = {
                "locale": public,
                f"locale:{host}": locale,
                f"name:{host}": interaction.user.display_name,
                "kit": kit,
            }
            games = self.bot.store.games
            lobby_id = await games.create(LOBBY_KIND, guild.id, channel_id, lobby, meta)
            stored = await games.require(lobby_id)
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

    def check_options(self, values: Mapping[str, Any], locale: Lang) -> str | None:
        """A game's own check of ``/<game> new`` options, in the player's language (``None``:
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
                min=view["min_players"],
                max=view["max_players"],
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
        options = {**view["options"], **(stored.meta.get("kit") or {})}
        embed.add_field(
            name=t("lobby.options", locale), value=self.render.options_text(options, locale)
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
        stored = await self.bot.store.games.require(press.game_id)
        if not stored.is_active:
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
        async with auto_defer(interaction):
            try:
                lobby, _ = await self.bot.store.games.act(
                    stored.id, user, action, meta_update=meta, in_tx=self._lobby_closed
                )
            except IllegalAction as err:
                await self.say(interaction, self.lobby_refusal(err, locale))
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

    async def _lobby_closed(self, lobby: StoredGame, events: list[Event]) -> None:
        """Inside the lobby's transaction: a started or cancelled lobby needs no expiry."""
        if not lobby.is_active:
            await self.bot.timers.cancel(self.lobby_key(lobby.id))

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
            }
            game_id = await self.bot.store.games.create(
                self.kind, started.guild_id, started.channel_id, game, meta
            )
            new = await self.bot.store.games.require(game_id)
            await self._arm(new, [], None)
            due = self.bot.clock.now() + timedelta(seconds=self.START_RETRY)
            await self.bot.timers.schedule(
                self.start_timer(), due, {"game_id": game_id}, key=self.start_key(game_id)
            )
            created["game"] = new

        async with auto_defer(interaction):
            try:
                await self.bot.store.games.act(
                    lobby.id,
                    as_player or str(interaction.user.id),
                    {"type": "start"},
                    in_tx=create,
                )
            except IllegalAction as err:
                await self.say(interaction, self.lobby_refusal(err, locale))
                return
            stored = created["game"]
            try:
                await update_message(
                    interaction, embed=self.table_embed(stored), view=self.table_view(stored)
                )
                self.tables.shown((stored.id, "table"), stored.version)
                self.keep_token(interaction, stored.id, None, table_id)
            except discord.HTTPException as err:
                if refused_payload(err) is not None:
                    await report_error(interaction, err, where=f"{self.kind} start")
                else:
                    log.warning("the start was not answered", extra={"game_id": stored.id})
                self._edit_table(stored)  # by the bot's token, once Discord takes it
            self._spawn(self._post_start(stored))

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
                await self.channel(stored).send(
                    t(
                        "seated.started",
                        public,
                        game=self.render.name(public),
                        game_id=stored.id,
                        players=" ".join(mention(p, public) for p in players),
                    ),
                    allowed_mentions=discord.AllowedMentions(users=True),
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
        title = re.compile(rf"#{stored.id}\b")
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

    # -- the table and the hands ------------------------------------------------------------

    async def deadline(self, stored: StoredGame) -> datetime | None:
        live = self.live(stored.id)
        if not live.deadline_known:
            timer = await self.bot.store.timers.get(self.turn_key(stored.id))
            live.deadline = None if timer is None or timer.done else timer.due_at
            live.deadline_known = True
        return live.deadline if stored.is_active else None

    def table_embed(
        self, stored: StoredGame, *, deadline: datetime | None = None, note: str | None = None
    ) -> discord.Embed:
        return self.render.table(
            TableContext(
                game_id=stored.id,
                view=self.named(stored, self.public(stored)),
                locale=self.public_locale(stored),
                deadline=deadline,
                last=self.live(stored.id).last.get(self.public_locale(stored), []),
                status=stored.status,
                note=note,
            )
        )

    def table_view(self, stored: StoredGame) -> GameView:
        if not stored.is_active:
            return GameView()
        if self.spec.public_board:
            locale = self.public_locale(stored)
            views = {
                p: self.named(stored, stored.game.view(p)) for p in self.public(stored)["players"]
            }
            return self.render.board_controls(self.kind, stored.id, views, locale)
        label = t("private.show_hand", self.public_locale(stored))
        return GameView(
            GameButton(
                self.kind,
                stored.id,
                "hand",
                label=label,
                emoji="🎴",
                style=discord.ButtonStyle.primary,
            )
        )

    async def hand_message(
        self,
        stored: StoredGame,
        player: str,
        *,
        note: str | None = None,
        locale: Lang | None = None,
    ) -> tuple[discord.Embed, GameView | None]:
        locale = locale or self.player_locale(stored, player)
        view = self.named(stored, stored.game.view(player))
        deadline = await self.deadline(stored)
        embed = self.render.hand(
            HandContext(
                game_id=stored.id,
                view=view,
                locale=locale,
                deadline=deadline if player in stored.game.to_act() else None,
                last=self.live(stored.id).last.get(locale, []),
                status=stored.status,
                note=note,
            )
        )
        controls = (
            hand_controls(self.kind, stored.id, view, self.render, locale)
            if stored.is_active
            else None
        )
        return embed, controls

    def _edit_table(self, stored: StoredGame, note: str | None = None) -> None:
        table_id = stored.meta.get("table_id")
        live = self.live(stored.id)
        if not table_id or live.table_refused_until > time.monotonic():
            return
        by_bot = partial(edit_by_id, self.bot, stored.channel_id, int(table_id))
        edit, level = self._edit_path(live.table_token, by_bot, Priority.TABLE)

        async def send() -> None:
            deadline = await self.deadline(stored)
            await edit(
                embed=self.table_embed(stored, deadline=deadline, note=note),
                view=self.table_view(stored),
            )

        self.tables.submit((stored.id, "table"), stored.version, send, level)

    def _edit_path(
        self, token: _Copy | None, by_bot: Any, level: Priority
    ) -> tuple[Any, Priority | None]:
        """How to edit a message: with the token of the latest click answered on it while
        Discord still takes it (not counted by the global limit), else with the bot's token
        at ``level``. A token Discord refuses falls back to the bot's token at once."""
        if token is None or token.expires <= time.monotonic():
            return by_bot, level

        async def edit(**kwargs: Any) -> None:
            try:
                await token.interaction.edit_original_response(**kwargs)
            except discord.HTTPException as err:
                if err.status not in (401, 404):
                    raise
                token.expires = 0.0
                with priority(level):
                    await by_bot(**kwargs)

        return edit, None

    def keep_token(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        player: str | None,
        message: Any = None,
    ) -> None:
        """Remember a click's token when its answer edited the message it was on, and that
        message is the game's: the DM hand of ``player`` (``message``: its recorded
        ``[channel, message]`` ids), or the table (``player=None``, ``message`` its id)."""
        kind = interaction.response.type
        if kind not in (
            discord.InteractionResponseType.message_update,
            discord.InteractionResponseType.deferred_message_update,
        ):
            return
        expected = message[1] if isinstance(message, list | tuple) else message
        clicked = interaction.message
        if expected is None or clicked is None or clicked.id != int(expected):
            return  # an older copy: its token must not edit in place of the game's message
        # Discord takes the token for 15 minutes from the click, not from the answer.
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        token = _Copy(interaction, time.monotonic() + EPHEMERAL_TTL - max(0.0, age))
        live = self.live(game_id)
        if player is None:
            live.table_token = token
        else:
            live.dm_tokens[player] = token

    def _refused(self, key: Any, err: discord.HTTPException) -> None:
        """Discord refused an edit (403): a DM closed in the middle of a game, or the table's
        channel no longer open to the bot. Told once, never retried in a loop."""
        if not isinstance(key, tuple) or not key:
            return
        game_id = int(key[0])
        if len(key) == 3 and key[2] == "dm" and err.code == DMS_CLOSED:
            self._spawn(self._dms_closed(game_id, str(key[1])))
        elif key[-1] == "table":
            live = self.live(game_id)
            live.table_refused_until = time.monotonic() + TABLE_REFUSED_PAUSE
            log.warning(
                "Discord refused to edit a table",
                extra={"game_id": game_id, "status": err.status, "code": err.code},
            )
            if not live.host_told:
                live.host_told = True
                self._spawn(self._tell_host(game_id))

    async def _dms_closed(self, game_id: int, player: str) -> None:
        """A player closed their DMs during the game: their hand is shown on the table's
        "Show my hand" from now on, and their turn notices mention them in the channel."""
        log.info("DMs closed during a game", extra={"game_id": game_id, "user_id": player})
        stored = await self.bot.store.games.get(game_id)
        if stored is None:
            return
        if player in (stored.meta.get("hands") or {}):
            await self.bot.store.games.merge_meta(game_id, "hands", {player: None})
        self.live(game_id).dm_tokens.pop(player, None)
        self.bot.private.dms_closed(int(player))

    async def _tell_host(self, game_id: int) -> None:
        stored = await self.bot.store.games.get(game_id)
        if stored is None:
            return
        host = str(stored.meta.get("host") or "")
        if not host or is_computer(host):
            return
        locale = self.player_locale(stored, host)
        text = t(
            "seated.table_refused",
            locale,
            game=self.render.name(locale),
            game_id=game_id,
            channel=f"<#{stored.channel_id}>",
        )
        with contextlib.suppress(Dropped), priority(Priority.NOTICE):
            await self.bot.private.send(
                int(host), f"{self.kind}:{game_id}:refused", text, locale=locale
            )

    def _edit_hand(self, stored: StoredGame, player: str, note: str | None = None) -> None:
        """Every live copy of one player's hand shows ``stored`` (newest state wins)."""
        copies: list[tuple[str, Any, Priority | None]] = []
        live = self.live(stored.id)
        level = Priority.UNBLOCK if player in stored.game.to_act() else Priority.TABLE
        dm = (stored.meta.get("hands") or {}).get(player)
        if dm:
            by_bot = partial(edit_by_id, self.bot, int(dm[0]), int(dm[1]))
            copies.append(("dm", *self._edit_path(live.dm_tokens.get(player), by_bot, level)))
        copy = live.copies.get(player)
        if copy is not None and copy.expires > time.monotonic():
            copies.append(("eph", copy.interaction.edit_original_response, None))
        for name, edit, paced in copies:

            async def send(edit: Any = edit) -> None:
                embed, controls = await self.hand_message(stored, player, note=note)
                await edit(content=None, embed=embed, view=controls or GameView())

            self.hands.submit((stored.id, player, name), stored.version, send, paced)

    async def render_hand(self, stored: StoredGame, user_id: int, locale: Lang) -> PrivateRender:
        """ "Show my hand" on an older table message (kept for old buttons)."""
        if stored.kind != self.kind or str(user_id) not in self.public(stored)["players"]:
            raise IllegalAction("you are not playing in this game", "seated.not_a_player")
        embed, controls = await self.hand_message(stored, str(user_id), locale=locale)
        return None, embed, controls

    # -- the game's buttons -----------------------------------------------------------------

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
        copy = "dm" if interaction.guild_id is None else "eph"
        if copy == "eph":
            self.live(stored.id).copies[player] = _Copy(
                interaction, time.monotonic() + EPHEMERAL_TTL
            )
        try:
            await self._on_hand_press(interaction, press, stored, player, locale, copy)
        finally:
            if copy == "dm":
                hand = (stored.meta.get("hands") or {}).get(player)
                self.keep_token(interaction, stored.id, player, hand)

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
            view = self.named(stored, stored.game.view(player))
            controls = hand_controls(
                self.kind, stored.id, view, self.render, locale, page=parsed[1][0]
            )
            await update_message(interaction, view=controls or GameView())
            return
        action = self._action(press, parsed, legal)
        if action is None or parsed is None:
            await self._refresh(
                interaction, stored, player, locale, copy, note=t("seated.stale", locale)
            )
            return
        await self.move(interaction, stored, player, action, parsed[0], locale, copy)

    def _action(
        self, press: Press, parsed: tuple[str, list[int]] | None, legal: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The action a click means, or ``None`` for controls of a decision that is gone."""
        if parsed is None or parsed[0] != stamp(legal):
            return None
        if press.action == "pick":
            return (
                {"type": next(iter(legal))["type"], "cards": list(press.values)} if legal else None
            )
        if press.action != "do":
            return None
        index = int(press.values[0]) if press.values else (parsed[1][0] if parsed[1] else -1)
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
        self.hands.shown((stored.id, player, copy), stored.version)

    async def _show_hand(
        self, interaction: discord.Interaction[Any], stored: StoredGame, player: str, locale: Lang
    ) -> None:
        embed, controls = await self.hand_message(stored, player, locale=locale)
        await respond(interaction, embed=embed, view=controls or GameView(), ephemeral=True)
        self.live(stored.id).copies[player] = _Copy(interaction, time.monotonic() + EPHEMERAL_TTL)
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

        def same_decision(now: StoredGame) -> None:
            if stamp(now.game.legal_actions(player)) != mark:
                raise IllegalAction("this control is from an earlier turn", "seated.stale")

        before = stored.game.to_act()
        async with auto_defer(interaction):
            try:
                after, events = await self.bot.store.games.act(
                    stored.id,
                    player,
                    action,
                    guard=same_decision,
                    in_tx=lambda new, evs: self._arm(new, before, player),
                )
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
                if other == "dm" or player in self.live(after.id).copies:
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
        itself. A click on someone else's controls, or one that lost a race, gets the board as
        it is now (a quiet refresh), never an error."""

        async def apply() -> tuple[StoredGame, list[Event], Sequence[str]] | None:
            stored = await self.bot.store.games.require(game_id)
            if not stored.is_active:
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
                )
            except IllegalAction:
                return None
            return after, events, before

        moved = await self.order.run(game_id, interaction.id, apply)
        stored = moved[0] if moved else await self.bot.store.games.require(game_id)
        if moved:
            self.note_move(moved[0], moved[1])
        answered = False
        try:
            await update_message(
                interaction, embed=self.table_embed(stored), view=self.table_view(stored)
            )
            answered = True
            self.tables.shown((game_id, "table"), stored.version)
            self.keep_token(interaction, game_id, None, stored.meta.get("table_id"))
        finally:
            latest = await self.bot.store.games.require(game_id)
            if latest.version > stored.version or not answered:  # a later move went first
                self._edit_table(latest)
            if moved:
                after, events, before = moved
                self._publish(after, events, before=before, actor=player, table=False)

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

    def _edit_other_copy(self, stored: StoredGame, player: str, copy: str) -> None:
        """The player's other copy of the hand (DM or "Show my hand") follows."""
        dm = (stored.meta.get("hands") or {}).get(player)
        live = self.live(stored.id)
        live_copy = live.copies.get(player)
        level: Priority | None
        if copy == "dm" and dm:
            by_bot = partial(edit_by_id, self.bot, int(dm[0]), int(dm[1]))
            edit, level = self._edit_path(live.dm_tokens.get(player), by_bot, Priority.TABLE)
        elif copy == "eph" and live_copy is not None and live_copy.expires > time.monotonic():
            edit, level = live_copy.interaction.edit_original_response, None
        else:
            return

        async def send() -> None:
            embed, controls = await self.hand_message(stored, player)
            await edit(content=None, embed=embed, view=controls or GameView())

        self.hands.submit((stored.id, player, copy), stored.version, send, level)

    # -- after a move -----------------------------------------------------------------------

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
        """Show a committed move (never raises; Discord calls run in the background).
        ``table=False``: the interaction answer already showed the table."""
        public = self.public_locale(after)
        view = self.public(after)
        self.note_move(after, events, extra)
        if table:
            self._edit_table(after)
        records = self.render.records(after.id, events, view, public)
        if records:
            self._spawn(self._post_records(after, records))
        players: list[str] = view["players"]
        now = after.game.to_act() if after.is_active else []
        if not after.is_active or any(e.get("type") in self.spec.refresh_all for e in events):
            targets: Iterable[str] = players
        else:
            gained = set(now) - set(before)
            lost = set(before) - set(now)
            changed = gained | lost | set(notes or {}) | self.render.hands_changed(events)
            targets = [p for p in players if p in changed]
        for player in [] if self.spec.public_board else targets:
            if player != actor and not is_computer(player):
                self._edit_hand(after, player, note=(notes or {}).get(player))
        self._after_turn(after, before=before, actor=actor)

    def note_move(
        self,
        after: StoredGame,
        events: list[Event],
        extra: Mapping[Lang, Sequence[str]] | None = None,
    ) -> None:
        """What the table and the hands say happened last (kept until the next move), in
        each language the game is shown in (the channel's, each player's)."""
        live = self.live(after.id)
        if not extra and live.noted == after.version:
            return  # the move's own answer noted it already
        live.noted = after.version
        view = self.public(after)
        lines = {
            lang: [*(extra or {}).get(lang, ()), *self.render.event_lines(events, view, lang)]
            for lang in self.locales(after)
        }
        if any(lines.values()):
            live.last = lines

    def _after_turn(self, stored: StoredGame, *, before: Sequence[str], actor: str | None) -> None:
        """Notices and computer moves for whoever must act now."""
        now = stored.game.to_act() if stored.is_active else []
        done = [p for p in before if p not in now or p == actor]
        if done:
            self.notices.clear(stored.id, done)
        if not stored.is_active:
            self.notices.clear(stored.id)
            self._spawn(self._forget(stored.id))
            return
        fresh = [p for p in now if not is_computer(p) and (p not in before or p == actor)]
        if not self.spec.public_board:
            self.notices.arm(stored.id, fresh)
        if any(is_computer(p) for p in now):
            live = self.live(stored.id)
            if live.computer is None or live.computer.done():
                live.computer = self._spawn(self._computers(stored.id))

    async def _forget(self, game_id: int) -> None:
        """A finished game's memory goes once its last edits are out."""
        await self.tables.drain()
        await self.hands.drain()
        self._live.pop(game_id, None)
        self.tables.forget_game(game_id)
        self.hands.forget_game(game_id)

    async def _post_records(self, stored: StoredGame, embeds: list[discord.Embed]) -> None:
        try:
            with priority(Priority.NOTICE):
                await self.channel(stored).send(embeds=embeds[:10])
        except Dropped:
            log.warning(
                "a game record was dropped (too many refusals)", extra={"game_id": stored.id}
            )
        except discord.HTTPException:
            log.exception("could not post a game record", extra={"game_id": stored.id})

    async def _send_notice(
        self, game_id: int, player: str, warning: bool
    ) -> discord.Message | None:
        stored = await self.bot.store.games.get(game_id)
        if stored is None or not stored.is_active or player not in stored.game.to_act():
            return None
        locale = self.player_locale(stored, player)
        name = self.render.name(locale)
        table_id = stored.meta.get("table_id")
        link = f"https://discord.com/channels/{stored.guild_id}/{stored.channel_id}/{table_id}"
        deadline = await self.deadline(stored)
        key = "seated.notice_warn" if warning and deadline else "seated.notice"
        text = t(
            key,
            locale,
            game=name,
            game_id=game_id,
            link=link,
            when=f"<t:{int(deadline.timestamp())}:R>" if deadline else "",
        )
        dm = (stored.meta.get("hands") or {}).get(player)
        message: discord.Message | None = None
        if dm and not self.bot.private.known_closed(int(player)):
            try:
                message = await self.bot.get_partial_messageable(int(dm[0])).send(text)
            except discord.Forbidden as err:
                if err.code != DMS_CLOSED:
                    raise
                await self._dms_closed(game_id, player)  # closed during the game
        if message is None:
            message = await self.channel(stored).send(
                f"{mention(player)} {text} {t('seated.notice_closed_dms', locale)}",
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=int(player))]),
            )
        # Noted in the game, so that a restart can still delete it (see _resume).
        await self.bot.store.games.update_meta(
            game_id, {f"notice:{player}": [message.channel.id, message.id]}
        )
        return message

    # -- the turn timer ---------------------------------------------------------------------

    def turn_seconds(self, stored: StoredGame) -> int:
        seconds = stored.meta.get("turn_seconds")
        if seconds is None:
            seconds = self.public(stored).get("turn_seconds", 0)
        return int(seconds or 0)

    async def _arm(self, stored: StoredGame, before: Sequence[str], actor: str | None) -> None:
        """Inside the move's transaction: a new decision gets a new deadline; players who
        merely left the turn (a pass locked) leave the others' deadline as it was."""
        live = self.live(stored.id)
        now = stored.game.to_act() if stored.is_active else []
        seconds = self.turn_seconds(stored)
        if not now or not seconds:
            armed = live.deadline is not None or not live.deadline_known
            if seconds and armed:  # a game without a timer never armed one: nothing to cancel
                await self.bot.timers.cancel(self.turn_key(stored.id))
                await self.bot.timers.cancel(self.warn_key(stored.id))
            live.deadline, live.deadline_known = None, True
            return
        if not (set(now) - set(before)) and actor not in now:
            return
        due = self.bot.clock.now() + timedelta(seconds=seconds)
        payload = {"game_id": stored.id, "players": now}
        await self.bot.timers.schedule(
            self.turn_timer(), due, payload, key=self.turn_key(stored.id)
        )
        warn = self.spec.warn_seconds
        if seconds >= 2 * warn:
            await self.bot.timers.schedule(
                self.warn_timer(),
                due - timedelta(seconds=warn),
                payload,
                key=self.warn_key(stored.id),
            )
        live.deadline, live.deadline_known = due, True

    async def on_warn_timer(self, payload: dict[str, Any]) -> None:
        stored = await self.bot.store.games.get(int(payload["game_id"]))
        if stored is None or not stored.is_active:
            return
        deadline = await self.deadline(stored)
        if deadline is not None and deadline <= self.bot.clock.now():
            return  # overdue (the bot was down): the move itself comes at once, unannounced
        now = stored.game.to_act()
        late = [p for p in payload.get("players") or now if p in now and not is_computer(p)]
        await self.notices.warn(stored.id, late)

    async def on_turn_timer(self, payload: dict[str, Any]) -> None:
        """Time is up: the bot moves for whoever has not, and says so on the table and in
        each of their hands (several players late together are shown together)."""
        game_id = int(payload["game_id"])
        stored = await self.bot.store.games.get(game_id)
        if stored is None or not stored.is_active:
            return
        before = stored.game.to_act()
        late = [p for p in payload.get("players") or before if p in before]
        after: StoredGame | None = None
        events: list[Event] = []
        moves: list[tuple[str, Mapping[str, Any]]] = []
        for player in late:
            stored = await self.bot.store.games.require(game_id)
            if not stored.is_active or player not in stored.game.to_act():
                continue
            done = await self._bot_move(stored, player)
            if done is None:
                continue
            after, evs, action = done
            events.extend(evs)
            if not is_computer(player):
                moves.append((player, action))
        if after is None:
            return
        view = self.public(after)
        extra = {lang: self.render.auto_lines(moves, view, lang) for lang in self.locales(after)}
        notes: dict[str, str] = {}
        for player, action in moves:
            locale = self.player_locale(after, player)
            label = self.render.action_label(action, view, locale).text
            notes[player] = t("seated.timer_moved_you", locale, move=label)
        self._publish(after, events, before=before, actor=None, extra=extra, notes=notes)

    async def _bot_move(
        self, stored: StoredGame, player: str
    ) -> tuple[StoredGame, list[Event], Mapping[str, Any]] | None:
        """The bot's move for ``player`` (timer or computer seat), guarded like a click:
        committed, not yet shown. ``None`` when the decision changed meanwhile."""
        game = stored.game
        mark = stamp(game.legal_actions(player))
        if is_computer(player):
            action = await self._think(stored, player)
        else:
            action = game.auto_action(player)

        def same_decision(now: StoredGame) -> None:
            if stamp(now.game.legal_actions(player)) != mark:
                raise IllegalAction("the decision changed", "seated.stale")

        before = game.to_act()
        try:
            after, events = await self.bot.store.games.act(
                stored.id,
                player,
                action,
                guard=same_decision,
                in_tx=lambda new, evs: self._arm(new, before, player),
            )
        except IllegalAction:
            return None
        return after, events, action

    async def _computer_move(self, stored: StoredGame, player: str) -> None:
        """A computer seat moves, shown like a colleague's move."""
        before = stored.game.to_act()
        done = await self._bot_move(stored, player)
        if done is not None:
            after, events, _ = done
            self._publish(after, events, before=before, actor=player)

    # -- computer seats ---------------------------------------------------------------------

    def _level(self, stored: StoredGame, player: str) -> str:
        return str((stored.meta.get("computers") or {}).get(player, "normal"))

    async def _think(self, stored: StoredGame, player: str) -> dict[str, Any]:
        """A computer seat's move, decided off the event loop within its level's budget.
        An AI error, an illegal answer or a late one falls back to the timer's move (logged),
        so a computer never stalls a game."""
        level = self._level(stored, player)
        budget = AI_BUDGETS.get(level, AI_BUDGETS["normal"])
        seed = (stored.id * 1_000_003 + stored.version) & 0x7FFF_FFFF
        game = stored.game
        try:
            choice = await computers.think(
                game,
                player,
                level=level,
                seed=seed,
                budget_ms=budget,
                timeout=budget / 1000 + self.AI_GRACE,
            )
        except TimeoutError:
            choice = timed_out(game, player)
        if choice.fallback not in (None, "no_ai"):
            log.warning(
                "a computer player fell back to the timer's move",
                extra={"game_id": stored.id, "why": choice.fallback, "error": repr(choice.error)},
            )
        return dict(choice.action)

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """How long a computer seat takes before its move appears (a real-time game makes it
        a reaction time that depends on the level and on the options it sees)."""
        return self.COMPUTER_DELAY

    async def _computers(self, game_id: int) -> None:
        """Computer seats move, at a human pace, while it is their turn. Each decides on the
        board it saw before its delay; if the board changed meanwhile, its move is dropped
        quietly and it looks again."""
        while True:
            stored = await self.bot.store.games.get(game_id)
            if stored is None or not stored.is_active:
                return
            waiting = [p for p in stored.game.to_act() if is_computer(p)]
            if not waiting:
                return
            await asyncio.sleep(self.computer_delay(stored, waiting[0]))
            try:
                await self._computer_move(stored, waiting[0])
            except Exception:
                log.exception("a computer seat could not move", extra={"game_id": game_id})
                return

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

    # -- abandon ----------------------------------------------------------------------------

    async def ask_abandon(self, interaction: discord.Interaction[Any], game_id: int | None) -> None:
        """``/<game> abandon``: the host or a manager is asked to confirm."""
        locale = locale_for_user(interaction)
        target = await self._game_to_abandon(interaction, game_id, locale)
        if target is None:
            return
        if not self._may_abandon(interaction, target):
            host = target.meta.get("host")
            await self.say(
                interaction,
                t("seated.abandon_not_allowed", locale, host=mention(str(host)) if host else "—"),
            )
            return
        name = self.render.name(locale)
        await respond(
            interaction,
            t("seated.abandon_confirm", locale, game=name, game_id=target.id),
            view=GameView(
                GameButton(
                    self.kind,
                    target.id,
                    "abandon",
                    label=t("seated.abandon_yes", locale),
                    style=discord.ButtonStyle.danger,
                ),
                GameButton(self.kind, target.id, "keep", label=t("seated.abandon_no", locale)),
            ),
            ephemeral=True,
        )

    def _may_abandon(self, interaction: discord.Interaction[Any], stored: StoredGame) -> bool:
        return str(interaction.user.id) == str(stored.meta.get("host")) or bool(
            interaction.permissions.manage_guild
        )

    async def _game_to_abandon(
        self, interaction: discord.Interaction[Any], game_id: int | None, locale: Lang
    ) -> StoredGame | None:
        name = self.render.name(locale)
        if game_id is not None:
            stored = await self.bot.store.games.get(game_id)
            if (
                stored is None
                or stored.kind != self.kind
                or stored.guild_id != interaction.guild_id
            ):
                await self.say(
                    interaction, t("seated.abandon_unknown", locale, game=name, game_id=game_id)
                )
                return None
            if not stored.is_active:
                await self.say(interaction, t("game.closed", locale))
                return None
            return stored
        running = await self.bot.store.games.find(
            guild_id=interaction.guild_id, kind=self.kind, channel_id=interaction.channel_id
        )
        if len(running) == 1:
            return running[0]
        if not running:
            await self.say(interaction, t("seated.abandon_none", locale, game=name))
        else:
            numbers = ", ".join(f"#{g.id}" for g in reversed(running))
            await self.say(interaction, t("seated.abandon_which", locale, game=name, games=numbers))
        return None

    async def _confirm_abandon(
        self, interaction: discord.Interaction[Any], press: Press, stored: StoredGame, locale: Lang
    ) -> None:
        if press.action == "keep":
            await update_message(interaction, t("seated.abandon_kept", locale), view=GameView())
            return
        if not self._may_abandon(interaction, stored):
            await self.say(interaction, t("errors.not_allowed", locale))
            return
        if not stored.is_active:
            await update_message(interaction, t("seated.abandon_already", locale), view=GameView())
            return
        ended = await self.bot.store.games.set_status(stored.id, "voided")
        await self.bot.timers.cancel(self.turn_key(stored.id))
        await self.bot.timers.cancel(self.warn_key(stored.id))
        public = self.public_locale(ended)
        name = self.render.name(public)
        by = mention(str(interaction.user.id))
        await update_message(
            interaction,
            t("seated.abandon_done_you", locale, game=name, game_id=ended.id),
            view=GameView(),
        )
        note = t("seated.abandoned", public, game=name, game_id=ended.id, player=by)
        self.live(ended.id).last = {
            lang: [
                t(
                    "seated.abandoned",
                    lang,
                    game=self.render.name(lang),
                    game_id=ended.id,
                    player=by,
                )
            ]
            for lang in self.locales(ended)
        }
        self._publish(ended, [], before=stored.game.to_act(), actor=None)
        try:
            await self.channel(ended).send(note, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.exception("could not announce an abandoned game", extra={"game_id": ended.id})

    # -- stats ------------------------------------------------------------------------------

    async def show_stats(
        self, interaction: discord.Interaction[Any], player: discord.User | None
    ) -> None:
        """``/<game> stats``: one colleague's record here and the most frequent winners (SQL
        sums; computer seats never have a line)."""
        locale = locale_for_user(interaction)
        if interaction.guild_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        target = player or interaction.user
        results = self.bot.store.results
        mine = await results.player(interaction.guild_id, self.kind, target.id)
        leaders = await results.leaderboard(interaction.guild_id, self.kind, limit=5)
        name = self.render.name(locale)
        embed = discord.Embed(
            title=t("seated.stats_title", locale, game=name, name=target.display_name),
            colour=self.render.colour,
        )
        embed.add_field(name=t("seated.stats_games", locale), value=str(mine.games))
        embed.add_field(name=t("seated.stats_wins", locale), value=str(mine.wins))
        for name_key, value in self.stats_fields(mine, locale):
            embed.add_field(name=name_key, value=value)
        computers = await results.player(interaction.guild_id, self.computer_kind(), target.id)
        if computers.games:
            embed.add_field(
                name=t("seated.stats_computers", locale),
                value=t(
                    "seated.stats_computers_line",
                    locale,
                    games=computers.games,
                    wins=computers.wins,
                ),
                inline=False,
            )
        if leaders:
            embed.add_field(
                name=t("seated.stats_leaders", locale),
                value="\n".join(
                    t(
                        "seated.stats_leader_line",
                        locale,
                        rank=i,
                        player=mention(str(s.user_id)),
                        wins=s.wins,
                        games=s.games,
                    )
                    for i, s in enumerate(leaders, start=1)
                ),
                inline=False,
            )
        await respond(interaction, embed=embed, ephemeral=True)

    def stats_fields(self, stats: Any, locale: Lang) -> list[tuple[str, str]]:
        """A game's own lines of ``/<game> stats`` (e.g. Papayoo's points per round)."""
        return []
