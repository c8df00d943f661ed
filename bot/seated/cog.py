"""The seated-game layer: lobby, table, private hands, turn timer, notices, abandon, stats.

A game's cog is a :class:`SeatedCog` with a :class:`~bot.seated.spec.SeatedSpec` (its engine
kind, its renderer, the options of ``/<game> begin``, the kit features it turns on) and nothing
else to write but how the game looks; what it may change is listed in one place,
:class:`bot.seated.hooks.GameHooks`. Every move goes the same way::

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

The rooms. :class:`SeatedCog` is composed of one class per part of the game, each built on
the rooms it uses, all on :class:`~bot.seated.base.SeatedBase` (state, names, texts):

==========================================  ==================================================
:mod:`~bot.seated.table` ``TableRoom``      the table and hand messages, their edits
:mod:`~bot.seated.timers` ``TimerRoom``     the turn timer, its warning, the bot's move
:mod:`~bot.seated.computers`                computer seats: their move and their pace
:mod:`~bot.seated.publish` ``PublishRoom``  after a move: table, hands, records, notices
:mod:`~bot.seated.start` ``StartRoom``      a lobby becomes a game; resume after a restart
:mod:`~bot.seated.lobby` ``LobbyRoom``      ``/<game> begin`` and the lobby's buttons
:mod:`~bot.seated.challenge`                ``/<game> challenge`` (Accept / Decline)
:mod:`~bot.seated.abandon` ``AbandonRoom``  ``/<game> end``
:mod:`~bot.seated.moves` ``MovesRoom``      the game's buttons: hand and board moves
:mod:`~bot.seated.stats` ``StatsRoom``      ``/<game> stats``
:mod:`~bot.seated.history` ``HistoryRoom``  ``/<game> history``: the last games, paged
==========================================  ==================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot import computers
from bot.seated.base import SWEEP_AFTER
from bot.seated.challenge import ChallengeRoom
from bot.seated.editor import MessageEditor
from bot.seated.history import HistoryRoom
from bot.seated.moves import MovesRoom
from bot.seated.notices import TurnNotices
from bot.seated.order import ArrivalOrder
from bot.seated.spec import LOBBY_KIND, lobby_status, no_results
from bot.seated.stats import StatsRoom
from bot.timers import cron

PURGE_MINUTE = 23
"""Closed lobbies are purged every hour at this minute (UTC), and at start-up."""

if TYPE_CHECKING:
    from bot.client import GamenightBot
    from bot.seated.hooks import GameHooks

__all__ = ["SeatedCog"]


class SeatedCog(ChallengeRoom, MovesRoom, StatsRoom, HistoryRoom):
    """Base class of every seated game's cog. Subclasses set ``spec`` and add the group
    ``seated_group(...)`` as a class attribute; they may override the hooks of
    :class:`bot.seated.hooks.GameHooks`."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self.kind = self.spec.kind
        self.render = self.spec.renderer
        self.background = bot.background
        self.tables = MessageEditor(
            min_interval=self.TABLE_EDIT_INTERVAL,
            limit=self.background,
            budget=bot.budget,
            on_refused=self._refused,
        )
        self.hands = MessageEditor(
            limit=self.background, budget=bot.budget, on_refused=self._refused
        )
        self.waiting = []
        self._waiter = None
        self.notices = TurnNotices(self._send_notice, delay=self.NOTICE_DELAY)
        self.order = ArrivalOrder()
        self._live = {}
        self._views = {}
        self._sweep_at = SWEEP_AFTER
        self._tasks = set()
        self._starting = {}

    async def cog_load(self) -> None:
        games = self.bot.store.games
        games.register_kind(LOBBY_KIND, status=lobby_status, results=no_results)
        games.register_kind(self.kind, results=self.results)
        self.bot.actions.register(self.lobby_buttons, self.on_lobby_press)
        self.bot.actions.register(self.kind, self.on_press, moves=True)
        self.register_history()
        self.bot.private.register_renderer(self.kind, self.render_hand, shown=self.hand_shown)
        self.bot.timers.register(self.turn_timer(), self.on_turn_timer)
        self.bot.timers.register(self.warn_timer(), self.on_warn_timer)
        self.bot.timers.register(self.lobby_timer(), self.on_lobby_timer)
        self.bot.timers.register(self.start_timer(), self.on_start_timer)
        self.bot.timers.add_cron(
            self.purge_job(), self.purge_lobbies, cron("UTC", minute=PURGE_MINUTE)
        )
        self._spawn(self._resume())

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(self.lobby_buttons)
        self.bot.actions.unregister(self.kind)
        self.bot.private.unregister_renderer(self.kind)
        for kind in (self.turn_timer(), self.warn_timer(), self.lobby_timer(), self.start_timer()):
            self.bot.timers.unregister(kind)
        self.bot.timers.remove_cron(self.purge_job())
        for task in list(self._tasks):
            task.cancel()
        self.notices.close()
        self.tables.close()
        self.hands.close()
        computers.shutdown()


if TYPE_CHECKING:

    def _hooks(cog: SeatedCog) -> GameHooks:
        """mypy checks here that a seated cog answers every hook of :class:`GameHooks`."""
        return cog
