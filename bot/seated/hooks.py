"""Every hook a seated game may set or override, in one typed protocol: :class:`GameHooks`.

A game's cog is a :class:`~bot.seated.cog.SeatedCog` subclass; what it says about itself is
its :class:`~bot.seated.spec.SeatedSpec` (``spec``), how it looks is its renderer
(``spec.renderer``, a :class:`~bot.seated.render.SeatedRenderer` subclass), and the few
rules of the table the kit cannot guess are the methods below. Everything else (lobby,
start, table, hands, timer, notices, computers, abandon, stats) is the kit's and the same
for every game. ``SeatedCog`` answers the protocol with its defaults (mypy checks it in
:mod:`bot.seated.cog`).

What the games set today:

=======================  ====================================================================
``spec``                 every game: kind, renderer, options (``turn_option()`` for a turn timer),
                         ``refresh_all`` (Papayoo), ``public_board`` and ``challenge`` (Spit)
``check_options``        none (the kit checks the turn timer itself)
``results``              Papayoo: rounds played and points per round (then ``file_results``)
``stats_fields``         Papayoo: average points per round
``computer_delay``       Spit: a reaction time by level and by the moves on offer
``controls``             Speahx: the cards, then the top card on a second page (the kit: a control a move)
``board_owner``          Spit: whose a board control is (its seat is the first part of its id)
``not_your_controls``    Spit: the private answer to a press on the other player's controls
``board_action``         Spit: a board button encodes the move itself
``COMPUTER_DELAY``       Spit: scales its reaction time (tests set 0)
=======================  ====================================================================

The renderer's hooks (pure: views and events in, embeds and texts out), each with a default
in :class:`~bot.seated.render.SeatedRenderer`: ``name``, ``colour``, ``title``,
``options_text``, ``card``/``cards``/``hand_text``, ``table``, ``hand``/``hand_lines``/
``prompt``, ``action_label``/``label_param``/``action_card``, ``extra_actions`` (moves
beside the card buttons), ``multi_pick`` (Papayoo's pass),
``board_controls`` (Spit), ``event_lines``, ``hands_changed`` (Speahx), ``records``/
``result``, ``auto_line``/``auto_lines`` (the turn timer's move) and ``format_param`` (a
refusal's parameters, for :func:`bot.present.refusal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from bot.i18n import Lang
from bot.seated.render import SeatedRenderer
from bot.seated.spec import SeatedSpec
from bot.storage import PlayerResult, PlayerStats, StoredGame
from bot.ui import PayloadView

__all__ = ["GameHooks"]


class GameHooks(Protocol):
    """What a seated game may set or override on its :class:`~bot.seated.cog.SeatedCog`."""

    spec: ClassVar[SeatedSpec]
    """The game's kind, renderer, options and the kit features it turns on."""
    COMPUTER_DELAY: ClassVar[float]
    """Seconds before a computer seat's move appears (the default :meth:`computer_delay`)."""

    @property
    def render(self) -> SeatedRenderer:
        """How the game looks: ``spec.renderer``."""
        ...

    def check_options(self, values: Mapping[str, Any], locale: Lang) -> str | None:
        """The game's own check of ``/<game> begin`` options, worded for the player (``None``:
        fine). The engine checks them again; the kit checks the turn timer."""
        ...

    def public(self, stored: StoredGame) -> dict[str, Any]:
        """The game's public view (``public_view()``, computed once per version)."""
        ...

    def results(self, stored: StoredGame) -> list[PlayerResult]:
        """The result lines of a finished game (default: the engine's ranking and scores)."""
        ...

    def file_results(self, stored: StoredGame, lines: list[PlayerResult]) -> list[PlayerResult]:
        """Where the lines are kept: apart (``<game>.computers``) when computers played."""
        ...

    def stats_fields(self, stats: PlayerStats, locale: Lang) -> list[tuple[str, str]]:
        """The game's own ``(name, value)`` fields of ``/<game> stats``."""
        ...

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """How long a computer seat takes before its move appears."""
        ...

    def controls(
        self, stored: StoredGame, player: str, locale: Lang, *, page: int = 0
    ) -> PayloadView | None:
        """``player``'s hand controls now (``None``: nothing to do), page ``page`` of a hand
        too big for one message."""
        ...

    def board_owner(self, arg: str | None, stored: StoredGame) -> str | None:
        """Whose a public-board control is (``None``: it names no seat)."""
        ...

    def not_your_controls(
        self, stored: StoredGame, owner: str, player: str, locale: Lang
    ) -> str | None:
        """The private answer to ``player`` pressing ``owner``'s board controls (``None``: a
        quiet refresh of the board)."""
        ...

    def board_action(
        self, arg: str | None, stored: StoredGame, player: str
    ) -> dict[str, Any] | None:
        """The move a public-board control means for ``player`` (``None``: not theirs, or a
        decision that is gone)."""
        ...
