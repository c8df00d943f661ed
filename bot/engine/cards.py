"""Card codes shared by every game (see docs/engine.md, "Card codes").

Rank then suit: ``AS``, ``10H``, ``QC``. Papayoo's suited cards are ``1S``..``10C``
and its Payoo cards ``P1``..``P20``. A joker is ``JK``, a nikäye ``NK``.
"""

from __future__ import annotations

from typing import Final

SUITS: Final = ("S", "H", "D", "C")
RANKS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_VALUE: Final[dict[str, int]] = {r: i + 2 for i, r in enumerate(RANKS)}
"""2..10 face value, J=11, Q=12, K=13, A=14."""

JOKER: Final = "JK"
NIKAYE: Final = "NK"
SUIT_NAMES: Final[dict[str, str]] = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SYMBOLS: Final[dict[str, str]] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def standard_deck() -> list[str]:
    """The 52 standard cards, in a fixed order (suit by suit, 2 up to A)."""
    return [rank + suit for suit in SUITS for rank in RANKS]


def rank_of(card: str) -> str:
    """``"10H" -> "10"``; jokers and nikäyes are their own rank."""
    if card in (JOKER, NIKAYE):
        return card
    return card[:-1]


def suit_of(card: str) -> str:
    """``"10H" -> "H"``; Payoo cards have suit ``"P"``; jokers and nikäyes ``""``."""
    if card in (JOKER, NIKAYE):
        return ""
    if card.startswith("P"):
        return "P"
    return card[-1]


def is_standard(card: str) -> bool:
    return len(card) >= 2 and card[-1] in SUITS and card[:-1] in RANK_VALUE


def value(card: str) -> int:
    """Standard value of a card: 2..10, J=11, Q=12, K=13, A=14."""
    return RANK_VALUE[rank_of(card)]


def papayoo_deck(players: int) -> list[str]:
    """The Papayoo deck: ``1S``..``10C`` and ``P1``..``P20``; 7-8 players remove the 1s."""
    low = 2 if players >= 7 else 1
    suited = [f"{n}{suit}" for suit in SUITS for n in range(low, 11)]
    return suited + [f"P{n}" for n in range(1, 21)]


def papayoo_number(card: str) -> int:
    """The number printed on a Papayoo card: ``"7H" -> 7``, ``"P13" -> 13``."""
    return int(card[1:]) if card.startswith("P") else int(card[:-1])
