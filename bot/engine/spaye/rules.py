"""Späye constants, card values and options (docs/rules/spaye.md)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeGuard

from bot.engine.base import SYSTEM, check_options
from bot.engine.cards import NIKAYE, standard_deck, value

TITLES: Final = ("grand_spayin", "mastaye", "tikao")
"""The month's titles, in the order of their columns."""
COLUMNS: Final = ("daye", "victory", "reps")
"""The three score columns: däye, victory, repetition."""
TITLE_OF_COLUMN: Final[dict[str, str]] = dict(zip(COLUMNS, TITLES, strict=True))
COLUMN_OF_TITLE: Final[dict[str, str]] = dict(zip(TITLES, COLUMNS, strict=True))
TITLE_NAMES: Final[dict[str, str]] = {
    "grand_spayin": "Grand Späyin",
    "mastaye": "Mastäye",
    "tikao": "Tikäo",
}

DEFAULT_EXERCISE: Final = "push-ups"
DEFAULT_OPTIONS: Final[dict[str, Any]] = {
    "exercise": DEFAULT_EXERCISE,
    "bonuses": {},
    "month_spayins": [],
    "committee": [],
}

NIKAYES: Final = 3
NIKAYE_VALUE: Final = 20
"""A nikäye's worth when it is the *opponent's* card."""
DECK_SIZE: Final = 52 + NIKAYES
FINAL_CARDS: Final = 3
"""55 is odd and every ordinary round takes 2 cards, so the final däye gets exactly 3."""
DAYE_POINTS: Final = 1
FINAL_DAYE_POINTS: Final = 3
VICTORY_POINTS: Final = 1
FINAL_VICTORY_PER_NIKAYE: Final = 3
MAX_EXERCISE_NAME: Final = 100
"""An exercise's name as its author writes it. The bot stores and passes on its neutral
form (markdown escaped, mentions inert), which the bot checks against this limit."""
MAX_EXERCISE_TEXT: Final = 2 * MAX_EXERCISE_NAME
"""What the engine accepts of that neutral form: escaping adds one character at most to each."""


def spaye_deck() -> list[str]:
    """The 52 standard cards and the three nikäyes, in a fixed order."""
    return [*standard_deck(), *([NIKAYE] * NIKAYES)]


def card_value(card: str) -> int:
    """2..10, J=11, Q=12, K=13, A=14; a nikäye is worth 20 as the opponent's card."""
    return NIKAYE_VALUE if card == NIKAYE else value(card)


def named(player: str) -> str:
    """How a refusal's English fallback names a player: ``player 123`` (the engine writes no
    Discord markup; the translated text shows a mention, from the refusal's parameters)."""
    return f"player {player}"


def named_all(players: Iterable[str]) -> str:
    """``player A``, ``players A and B``, ``players A, B and C`` (see :func:`named`)."""
    ids = list(players)
    if len(ids) <= 1:
        return "".join(named(p) for p in ids)
    return f"players {', '.join(ids[:-1])} and {ids[-1]}"


def is_player_id(player: object) -> TypeGuard[str]:
    """A player id is a non-empty string and never the bot's own ``SYSTEM`` actor."""
    return isinstance(player, str) and bool(player.strip()) and player != SYSTEM


def _ids(options: Mapping[str, Any], key: str) -> list[str]:
    ids: list[Any] = options[key]
    bad = [p for p in ids if not is_player_id(p)]
    if bad:
        raise ValueError(f"spaye: option {key} must list player ids, not {bad[0]!r}")
    return list(dict.fromkeys(ids))


def check_spaye_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options with defaults filled in; anything malformed raises ``ValueError``."""
    merged = check_options(options, DEFAULT_OPTIONS, "spaye")
    exercise = merged["exercise"].strip()
    if not exercise or len(exercise) > MAX_EXERCISE_TEXT:
        raise ValueError(
            f"spaye: option exercise must name an exercise (1 to {MAX_EXERCISE_NAME} characters)"
        )
    bonuses: dict[Any, Any] = merged["bonuses"]
    for title, holder in bonuses.items():
        if title not in TITLES:
            raise ValueError(
                f"spaye: option bonuses has an unknown title {title!r}; known: {', '.join(TITLES)}"
            )
        if not is_player_id(holder):
            raise ValueError(f"spaye: the holder of {title} must be a player id, not {holder!r}")
    return {
        "exercise": exercise,
        "bonuses": {t: bonuses[t] for t in TITLES if t in bonuses},
        "month_spayins": _ids(merged, "month_spayins"),
        "committee": _ids(merged, "committee"),
    }
