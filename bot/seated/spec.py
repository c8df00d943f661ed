"""What a seated game tells the kit about itself: its :class:`SeatedSpec`.

A game declares its engine kind, its renderer, the options of ``/<game> begin``
(:class:`OptionSpec`) and the kit features it turns on: a turn timer (:func:`turn_option`),
a public board, challenges (:class:`Challenge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from discord import app_commands

from bot.engine import Game
from bot.seated.render import SeatedRenderer
from bot.storage import PlayerResult, StoredGame

__all__ = [
    "CASUAL",
    "CASUAL_OPTION",
    "LOBBY_KIND",
    "TURN_SECONDS",
    "TURN_SECONDS_RANGE",
    "Challenge",
    "OptionSpec",
    "SeatedSpec",
    "SeatedTable",
    "lobby_status",
    "no_results",
    "turn_option",
]

LOBBY_KIND: Final = "lobby"
TURN_SECONDS: Final = "turn_seconds"
"""The kit's turn-timer option: seconds before the bot moves for a late player (0: off)."""
TURN_SECONDS_RANGE: Final = (15, 600)
"""A turn timer that is on lasts this long at least and at most."""


@dataclass(frozen=True)
class OptionSpec:
    """One option of ``/<game> begin``."""

    name: str
    description: str
    """English; the French comes from ``<game>.cmd.new.<name>.description``."""
    default: int | bool | str
    min: int | None = None
    max: int | None = None
    choices: Sequence[str] = ()
    engine: bool = True
    """``True``: an option of the engine's game; ``False``: the kit's (e.g. a turn timer the
    engine knows nothing of)."""
    key: str | None = None
    """Its catalog keys' prefix (``<key>.name``, ``<key>.description``) when it is not the
    game's ``<game>.cmd.new.<name>`` (an option every game has, worded once)."""

    def annotation(self) -> Any:
        if isinstance(self.default, bool):
            return bool
        if isinstance(self.default, int):
            if self.min is not None or self.max is not None:
                return app_commands.Range[int, self.min, self.max]
            return int
        return str


def turn_option(default: int = 90, *, engine: bool = False) -> OptionSpec:
    """The turn timer of ``/<game> begin``: 0 (off) or :data:`TURN_SECONDS_RANGE` seconds,
    checked by the kit before the lobby opens (``<game>.bad_turn_seconds`` words the
    refusal when the game's catalog has it). ``engine=True`` when the engine's game takes
    the timer as an option of its own (Papayoo) rather than the kit keeping it."""
    low, high = TURN_SECONDS_RANGE
    return OptionSpec(
        TURN_SECONDS,
        f"Seconds per turn before the turn timer plays for a late player: 0 (off) or {low} to {high} (default {default})",
        default,
        0,
        high,
        engine=engine,
    )


CASUAL: Final = "casual"
"""The kit's option of every ``/<game> begin``: a casual game, left out of the ratings
(kept in the game's ``meta``)."""
CASUAL_OPTION: Final = OptionSpec(
    CASUAL,
    "Casual game: not rated (a game with computers never is)",
    False,
    engine=False,
    key="seated.cmd.new.casual",
)


@dataclass(frozen=True)
class Challenge:
    """``/<game> challenge opponent``: one colleague is asked (Accept / Decline) instead of a
    lobby anyone joins; the accept starts the game. The texts are the game's own
    (``<game>.challenge.text|self|bot|closed|not_you|declined``)."""

    minutes: int = 10
    """The challenge expires after this long."""


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
    challenge: Challenge | None = None
    """Challenges turned on (``/<game> challenge``); also give it to :func:`seated_group`."""

    @property
    def begin_options(self) -> tuple[OptionSpec, ...]:
        """The options of ``/<game> begin``: the game's, then the kit's (casual)."""
        return (*self.options, CASUAL_OPTION)

    def option(self, name: str) -> OptionSpec | None:
        return next((o for o in self.begin_options if o.name == name), None)


@dataclass(frozen=True)
class SeatedTable:
    """A table the bot seats itself (a game night's): opened with its seats taken and
    started at once by :meth:`~bot.seated.lobby.LobbyRoom.open_table`."""

    key: str
    """The table's identity: opening the same key again finds the table (or its lobby)
    rather than making another."""
    guild_id: int
    channel_id: int
    """Where the table sits: a channel or a thread."""
    players: tuple[str, ...]
    """The members' ids, the first one hosting."""
    computers: tuple[str, ...] = ()
    """The level of each computer seat (``easy``, ``normal``, ``hard``)."""
    names: Mapping[str, str] = field(default_factory=dict)
    locales: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    """The engine's options of ``/<game> begin`` (the defaults when left out)."""
    call: bool = True
    """``False``: the kit does not call the players in the channel (whoever seated them
    told them already)."""


def no_results(stored: StoredGame) -> list[PlayerResult]:
    return []


def lobby_status(game: Game) -> Any:
    if not game.is_over():
        return "active"
    return "voided" if game.result()["status"] == "voided" else "over"
