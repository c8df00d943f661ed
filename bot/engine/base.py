"""The one protocol every game implements (see docs/engine.md)."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

JSON: TypeAlias = Any
"""A JSON-compatible value (dict, list, str, int, float, bool, None)."""
Event: TypeAlias = dict[str, Any]
"""A JSON-compatible dict with a ``"type"`` key; the cogs render events."""
Action: TypeAlias = Mapping[str, Any]

SYSTEM = "@system"
"""The actor id the bot uses for actions no player takes: a challenge expiring, a day voided
at closing time, a turn timer firing. Never a Discord user id."""


class IllegalAction(ValueError):
    """An action that is not legal for that player now. The message says why, in plain words.

    ``key`` and ``params`` let the bot translate the message; ``str(err)`` is English.
    """

    def __init__(self, message: str, key: str = "", **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


class Game(ABC):
    """A pure, deterministic game state machine.

    Subclasses set ``kind`` and implement the abstract methods. All randomness
    comes from state kept in the game; ``dumps`` holds everything needed to go on.
    """

    kind: ClassVar[str]
    min_players: ClassVar[int] = 1
    """Seated games (a lobby gathers their players) declare how many may sit."""
    max_players: ClassVar[int] = 1
    examples: ClassVar[tuple[tuple[int, Mapping[str, Any]], ...]] = ()
    """Tables worth playing, as ``(number of players, options)``: the protocol test plays each
    (none declared: the fewest and the most players, with the default options)."""

    @classmethod
    @abstractmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Game:
        """Start a game. Bad players or options raise ``ValueError`` with a readable message."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game from ``to_dict()`` output."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-compatible (without the ``kind`` key)."""

    @abstractmethod
    def to_act(self) -> list[str]:
        """Ids of the players who may act now (``[]`` when over)."""

    @abstractmethod
    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        """Every legal action of that player now."""

    @abstractmethod
    def apply(self, player: str, action: Action) -> list[Event]:
        """Apply one legal action; raise ``IllegalAction`` (changing nothing) otherwise."""

    @abstractmethod
    def view(self, player: str) -> dict[str, Any]:
        """What that player may see, JSON-compatible.

        The public fields plus, for a player of the game, ``"you"``: the same shape in every
        game, so one renderer and one AI driver serve them all::

            {"id": player, "hand": [card codes] (card games), "legal_actions": [...], ...}

        ``legal_actions`` is ``legal_actions(player)``; games add their own private fields.
        """

    def auto_action(self, player: str) -> dict[str, Any]:
        """The move the bot makes for an absent player (turn timer) and the floor every
        computer player must beat. The default is the first legal action; games override it
        with a sensible one. ``IllegalAction`` when the player has nothing to do now."""
        legal = self.legal_actions(player)
        if not legal:
            raise IllegalAction("there is nothing for you to do now", "game.nothing_to_do")
        return dict(legal[0])

    @abstractmethod
    def public_view(self) -> dict[str, Any]:
        """What a spectator may see."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """``{"ranking": [[ids tied first], ...], "scores": {...}}``."""

    def dumps(self) -> str:
        data = self.to_dict()
        return json.dumps({"kind": self.kind, **data}, separators=(",", ":"), sort_keys=True)


def check_seating(kind: str, players: Sequence[str], seed: int, low: int, high: int) -> None:
    """``ValueError`` a user can read for a table of the wrong size, bad or repeated ids, or
    a seed that is not a whole number (every seated game's ``new`` starts with this)."""
    if not low <= len(players) <= high:
        size = f"exactly {low}" if low == high else f"{low} to {high}"
        raise ValueError(f"{kind} needs {size} players, not {len(players)}")
    if any(not isinstance(p, str) or not p for p in players):
        raise ValueError("players must be non-empty string ids")
    if len(set(players)) != len(players):
        raise ValueError("a player cannot take two seats")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the seed must be a whole number, not {seed!r}")


def seat_of(seats: Mapping[str, int], player: str, kind: str) -> int:
    """The seat of ``player``; ``IllegalAction`` (``<kind>.not_a_player``) for anyone else."""
    seat = seats.get(player)
    if seat is None:
        raise IllegalAction(
            f"player {player} is not playing in this game", f"{kind}.not_a_player", player=player
        )
    return seat


def check_turn(
    players: Sequence[str], turn: int, seats: Mapping[str, int], player: str, kind: str
) -> None:
    """``IllegalAction`` (``<kind>.not_your_turn``, or not a player) unless it is ``player``'s
    turn in a game where one seat acts at a time."""
    current = players[turn]
    if player != current:
        seat_of(seats, player, kind)
        raise IllegalAction(
            f"it is player {current}'s turn", f"{kind}.not_your_turn", player=current
        )


GAMES: dict[str, type[Game]] = {}
"""The registry of game kinds, filled by each game module."""


def register(cls: type[Game]) -> type[Game]:
    GAMES[cls.kind] = cls
    return cls


def new_game(
    kind: str,
    players: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> Game:
    """Start a game of ``kind`` (one of ``GAMES``)."""
    try:
        cls = GAMES[kind]
    except KeyError:
        raise ValueError(
            f"unknown game {kind!r}; known games: {', '.join(sorted(GAMES))}"
        ) from None
    if any(not isinstance(p, str) or not p for p in players):
        raise ValueError("players must be non-empty string ids")
    if len(set(players)) != len(players):
        raise ValueError("a player cannot take two seats")
    return cls.new(list(players), seed, dict(options or {}))


def load_game(text: str) -> Game:
    """Rebuild a game from ``dumps()``; it behaves exactly as the original from here on."""
    data = json.loads(text)
    kind = data.pop("kind", None)
    if kind not in GAMES:
        raise ValueError(f"unknown game {kind!r}")
    return GAMES[kind].from_dict(data)


def check_options(
    options: Mapping[str, Any], defaults: Mapping[str, Any], game: str
) -> dict[str, Any]:
    """Options with defaults filled in; unknown keys or wrong types raise ``ValueError``."""
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise ValueError(
            f"{game}: unknown option(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(defaults)) or 'none'}"
        )
    merged = dict(defaults)
    for key, val in options.items():
        want = type(defaults[key])
        if want is int and (isinstance(val, bool) or not isinstance(val, int)):
            raise ValueError(f"{game}: option {key} must be a whole number, not {val!r}")
        if want is not int and not isinstance(val, want):
            raise ValueError(f"{game}: option {key} must be a {want.__name__}, not {val!r}")
        merged[key] = val
    return merged
