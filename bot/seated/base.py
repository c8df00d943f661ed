"""The room every part of the kit stands in: a seated game's state, names and texts.

:class:`SeatedBase` holds what every room of :class:`bot.seated.cog.SeatedCog` reads: the
bot, the spec, the message editors, what lives in memory about each running game
(:class:`Live`), the timer and button names of the game, its public view (computed once per
version), its languages and its refusals. The rooms built on it (:mod:`bot.seated.table`,
:mod:`bot.seated.timers`, :mod:`bot.seated.moves`...) each add one part of the game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Final

import discord
from discord.ext import commands

from bot.engine import Event, IllegalAction
from bot.engine.lobby import is_computer
from bot.i18n import Lang, normalize_locale, t
from bot.present import refusal
from bot.seated.controls import hand_controls, pick_order, ticked_cards
from bot.seated.editor import MessageEditor
from bot.seated.notices import TurnNotices
from bot.seated.order import ArrivalOrder
from bot.seated.render import SeatedRenderer
from bot.seated.spec import TURN_SECONDS, SeatedSpec
from bot.storage import PlayerResult, StoredGame, default_results
from bot.ui import ClickToken, PayloadView, say

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["EPHEMERAL_TTL", "SWEEP_AFTER", "Copy", "Live", "SeatedBase", "is_private"]

log = logging.getLogger("gamenight.seated")

EPHEMERAL_TTL: Final = 14 * 60.0
"""Discord takes an interaction's token for 15 minutes: a minute is kept in hand.
An ephemeral "Show my hand" copy can be edited for 15 minutes after its interaction."""

PUBLIC_VIEWS: Final = 32
"""Public views kept (:meth:`SeatedBase.public`): a move reads its own many times in a few
milliseconds; an idle game's is not kept (a few KB each)."""

SWEEP_AFTER: Final = 64
"""Games held in memory past which the kit looks for ended ones it did not see end (another
process ended them, or a click raced the end); then again at twice as many as it kept."""


@dataclass(slots=True)
class Copy:
    """A message the kit may edit with a click's token (until ``expires``): the token alone,
    not the click (a ``discord.Interaction`` holds its whole payload, the clicked message
    and its components, for as long as it is kept)."""

    token: ClickToken
    expires: float
    message_id: int | None = None
    """The message the token edits, when known (an ephemeral copy of a hand)."""


@dataclass(slots=True)
class Live:
    """What lives in memory about a running game (rebuilt after a restart). Kept while the
    game runs, forgotten once it ended (:meth:`SeatedBase.live`)."""

    last: dict[Lang, list[str]] = field(default_factory=dict)
    """What just happened, one short line each, per language (the table's and each hand's)."""
    deadline: datetime | None = None
    deadline_known: bool = False
    copies: dict[str, Copy] = field(default_factory=dict)
    """Each player's live ephemeral copy of their hand ("Show my hand"): the newest one; the
    copy before it was retired (:meth:`bot.seated.table.TableRoom.new_copy`)."""
    dm_tokens: dict[str, Copy] = field(default_factory=dict)
    """Each player's latest click on their DM hand: its token edits that hand for free."""
    table_token: Copy | None = None
    """The latest click answered on the table (its Start, a board move): same for the table."""
    table_refused_until: float = 0.0
    """Discord refused to edit the table (a permission lost): not tried again until then."""
    host_told: bool = False
    computer: asyncio.Task[None] | None = None
    noted: int = 0
    """The version whose events ``last`` shows."""


def is_private(interaction: discord.Interaction[Any]) -> bool:
    """The clicked message is the clicker's alone (a DM or an ephemeral)."""
    message = interaction.message
    return interaction.guild_id is None or (message is not None and message.flags.ephemeral)


def token_until(age: float = 0.0) -> float:
    """Until when (``time.monotonic()``) a click's token edits its message, ``age`` seconds
    after Discord created it."""
    return time.monotonic() + EPHEMERAL_TTL - max(0.0, age)


class SeatedBase(commands.Cog):
    """A seated game's state and texts; the rooms of :class:`~bot.seated.cog.SeatedCog`
    build on it. Set up by ``SeatedCog.__init__``."""

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

    bot: GamenightBot
    kind: str
    render: SeatedRenderer
    background: asyncio.Semaphore
    tables: MessageEditor
    """The table messages, edits coalesced (:attr:`TABLE_EDIT_INTERVAL`)."""
    hands: MessageEditor
    """Every copy of every private hand."""
    notices: TurnNotices
    order: ArrivalOrder
    """Board moves in the order Discord received them (public boards)."""
    waiting: list[tuple[int, discord.Interaction[Any]]]
    """Lobbies whose Start waits for room in the REST budget, oldest first."""
    _waiter: asyncio.Task[None] | None
    _live: dict[int, Live]
    _views: dict[tuple[int, int], dict[str, Any]]
    """The public views of the latest versions computed (:meth:`public`), oldest first."""
    _sweep_at: int
    """How many games in :attr:`_live` start the next :meth:`sweep`."""
    _tasks: set[asyncio.Task[Any]]
    _starting: dict[int, asyncio.Lock]

    # -- names of the game's buttons and timers ---------------------------------------------

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

    # -- memory -----------------------------------------------------------------------------

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def controls(
        self, stored: StoredGame, player: str, locale: Lang, *, page: int = 0
    ) -> PayloadView | None:
        """``player``'s hand controls now (``None``: nothing to do), page ``page`` of a hand
        too big for one message: the kit's card buttons and menus by default."""
        view = self.named(stored, stored.game.view(player))
        return hand_controls(self.kind, stored.id, view, self.render, locale, page=page)

    def chooser(
        self, stored: StoredGame, player: str, locale: Lang, ticked: int
    ) -> PayloadView | None:
        """``player``'s multi-card choice (Papayoo's pass) being made, ``ticked`` the cards
        ticked so far; ``None`` when they have no such choice now or ``ticked`` names a card
        they do not hold."""
        view = self.named(stored, stored.game.view(player))
        multi = self.render.multi_pick(view, locale)
        if multi is None or ticked_cards(pick_order(multi, self.render), ticked) is None:
            return None
        return hand_controls(self.kind, stored.id, view, self.render, locale, ticked=ticked)

    def picked(
        self, stored: StoredGame, player: str, locale: Lang, ticked: int
    ) -> list[str] | None:
        """The cards a multi-card choice's ``ticked`` names, when they are a whole choice
        of ``player``'s now; else ``None``."""
        view = self.named(stored, stored.game.view(player))
        multi = self.render.multi_pick(view, locale)
        if multi is None:
            return None
        cards = ticked_cards(pick_order(multi, self.render), ticked)
        return cards if cards is not None and len(cards) == multi.count else None

    def public(self, stored: StoredGame) -> dict[str, Any]:
        """``stored.game.public_view()``, computed once per version of a live game (each
        caller gets its own top-level copy; nested values are shared, never to be changed).
        Only the latest few are kept, whatever the number of games: the moves being shown."""
        if not stored.is_active or stored.kind != self.kind:
            return stored.game.public_view()
        key = (stored.id, stored.version)
        view = self._views.get(key)
        if view is None:
            view = self._views[key] = stored.game.public_view()
            if len(self._views) > PUBLIC_VIEWS:
                del self._views[next(iter(self._views))]
        return dict(view)

    def live(self, stored: StoredGame) -> Live:
        """What memory holds about ``stored``. Only a running game's is kept: an ended game
        is read from what is left of it until its last edits are out (then
        :meth:`~bot.seated.publish.PublishRoom._forget` drops it), and a click on its old
        buttons afterwards gets an entry nobody keeps."""
        live = self._live.get(stored.id)
        if live is None:
            live = Live()
            if stored.is_active and stored.kind == self.kind:
                self._live[stored.id] = live
                if len(self._live) >= self._sweep_at:
                    self._sweep_at = 2**62  # one sweep at a time; it sets the next mark
                    self._spawn(self.sweep())
        return live

    def last_lines(self, stored: StoredGame, locale: Lang) -> list[str]:
        """What just happened in ``stored``, in ``locale`` (nothing kept for it: none)."""
        live = self._live.get(stored.id)
        return live.last.get(locale, []) if live is not None else []

    async def sweep(self) -> None:
        """Forget the games memory holds that are no longer running without this process
        having seen them end (ended by another process, or by a move that raced a click),
        and the store's copies of them; games with edits still going out are left for the
        next sweep."""
        try:
            held = set(self._live) | self.tables.games() | self.hands.games()
            held |= self.notices.games()
            running = await self.bot.store.games.running_among(held)
            for game_id in held - running:
                if not (self.tables.busy(game_id) or self.hands.busy(game_id)):
                    self.drop(game_id)
        except Exception:  # the database away: the next mark tries again
            log.warning("could not sweep ended games from memory", exc_info=True)
        finally:
            self._sweep_at = max(SWEEP_AFTER, 2 * len(self._live))

    def in_memory(self) -> dict[str, set[int]]:
        """The games each per-game structure of the kit holds now (tests, benches)."""
        return {
            "live": set(self._live),
            "public views": {game_id for game_id, _ in self._views},
            "table edits": self.tables.games(),
            "hand edits": self.hands.games(),
            "notices": self.notices.games(),
            "arrival order": self.order.games(),
            "starts": set(self._starting),
        }

    def drop(self, game_id: int) -> None:
        """Everything memory holds about one game, gone (its pending edits too)."""
        self._live.pop(game_id, None)
        for key in [k for k in self._views if k[0] == game_id]:
            del self._views[key]
        self.tables.forget_game(game_id)
        self.hands.forget_game(game_id)
        self.notices.clear(game_id)

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

    async def deadline(self, stored: StoredGame) -> datetime | None:
        """When the turn timer moves for whoever must act now (``None``: no timer)."""
        if not stored.is_active:
            return None
        live = self.live(stored)
        if not live.deadline_known:
            timer = await self.bot.store.timers.get(self.turn_key(stored.id))
            live.deadline = None if timer is None or timer.done else timer.due_at
            live.deadline_known = True
        return live.deadline

    def turn_seconds(self, stored: StoredGame) -> int:
        """The game's turn timer (0: none), the kit's option or the engine's."""
        seconds = stored.meta.get(TURN_SECONDS)
        if seconds is None:
            seconds = self.public(stored).get(TURN_SECONDS, 0)
        return int(seconds or 0)

    # -- results ----------------------------------------------------------------------------

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

    # -- texts ------------------------------------------------------------------------------

    def refusal(self, err: IllegalAction, locale: Lang) -> str:
        """A refusal in the player's language, with cards and players as the table shows them."""
        return refusal(err, locale, self.render.format_param)

    def lobby_refusal(self, err: IllegalAction, locale: Lang) -> str:
        """A lobby's refusal: one closed meanwhile (started by another click, cancelled,
        expired) is a closed table, not a game that is over."""
        if err.key == "game.closed":
            return t("lobby.closed", locale)
        return self.refusal(err, locale)

    async def say(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A private answer to the clicker (never raises)."""
        await say(interaction, text)

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

    # -- what a room below asks of one built on it ------------------------------------------

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
        """Show a committed move (:class:`bot.seated.publish.PublishRoom`)."""
        raise NotImplementedError

    async def _think(self, stored: StoredGame, player: str) -> dict[str, Any]:
        """A computer seat's move (:class:`bot.seated.computers.ComputerRoom`)."""
        raise NotImplementedError
