"""The one entry of the computer players, and the registry of one AI per game kind.

An AI is a function ``(view, level, seed, budget_ms) -> action``: it sees exactly
``game.view(its player)`` (what a human in that seat sees) and returns one of that
player's legal actions. It never reads ``dumps()``: what is hidden, it samples.

Pure like the engine: no clock, so ``budget_ms`` is a work budget (a number of simulated
card plays calibrated to about that many milliseconds on a small server), and the same
``seed`` gives the same action. A caller that needs a hard deadline runs ``choose`` in a
worker and, when it is late, takes ``timed_out(game, player)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from bot.engine import Game, IllegalAction, load_game

View: TypeAlias = dict[str, Any]
Action: TypeAlias = dict[str, Any]
Decider: TypeAlias = Callable[[View, str, int, int], Action]
"""``(view, level, seed, budget_ms) -> action``."""

LEVELS: Final[dict[str, int]] = {"easy": 5, "normal": 150, "hard": 150}
"""The levels, weakest first, with their default budget per move in milliseconds."""

AIS: dict[str, Decider] = {}
"""The registry: one AI per game kind, filled by each AI module."""


class ViewError(ValueError):
    """The view is not one this AI can read, is inconsistent, or leaves nothing to do."""


def legal_in(view: View) -> list[Action]:
    """The player's legal actions as their view lists them; ``ViewError`` when none."""
    legal: list[Action] = list(view.get("you", {}).get("legal_actions") or ())
    if not legal:
        raise ViewError("this player has nothing to do now")
    return legal


class NoAI(LookupError):
    """No computer player for this kind of game (yet)."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"no computer player for {kind!r}")
        self.kind = kind


def register(kind: str) -> Callable[[Decider], Decider]:
    """Decorator: the AI of ``kind``."""

    def wrap(decider: Decider) -> Decider:
        AIS[kind] = decider
        return decider

    return wrap


def decide(kind: str, view: View, *, level: str, seed: int, budget_ms: int) -> Action:
    """A legal action for the player whose ``view`` this is.

    ``level`` is one of ``LEVELS``; ``NoAI`` for a kind without AI, ``ValueError`` for an
    unknown level or a view where that player has nothing to do.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; known: {', '.join(LEVELS)}")
    decider = AIS.get(kind)
    if decider is None:
        raise NoAI(kind)
    return decider(view, level, seed, max(0, budget_ms))


@dataclass(frozen=True)
class Choice:
    """What ``choose`` decided. ``fallback`` says why the AI's own action was not used:
    ``None`` (it was), ``"no_ai"``, ``"error"`` (``error`` holds it), ``"illegal"`` (the AI
    returned ``rejected``, which the game refused), ``"timeout"`` (see ``timed_out``)."""

    action: Action
    fallback: str | None = None
    error: BaseException | None = None
    rejected: Action | None = None


def is_legal(game: Game, player: str, action: Action) -> bool:
    """Whether ``game`` accepts ``action`` from ``player`` now (tried on a copy)."""
    try:
        load_game(game.dumps()).apply(player, action)
    except IllegalAction:
        return False
    return True


def choose(game: Game, player: str, *, level: str, seed: int, budget_ms: int) -> Choice:
    """The computer player's move for ``player``, checked legal; else ``auto_action``.

    Logs nothing: the caller logs ``fallback`` and ``error``. ``IllegalAction`` (from
    ``auto_action``) when the player has nothing to do now.
    """
    try:
        action = decide(game.kind, game.view(player), level=level, seed=seed, budget_ms=budget_ms)
    except NoAI:
        return Choice(game.auto_action(player), "no_ai")
    except Exception as err:  # an AI bug must not stop the game: the timer's move it is
        return Choice(game.auto_action(player), "error", err)
    if not isinstance(action, dict) or not is_legal(game, player, action):
        return Choice(game.auto_action(player), "illegal", rejected=action)
    return Choice(action)


def timed_out(game: Game, player: str) -> Choice:
    """The move when the caller's deadline passed before ``choose`` answered."""
    return Choice(game.auto_action(player), "timeout")
