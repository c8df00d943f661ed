"""Night points: every table's placements turned into points on one scale, and the night's
standings.

The rule, the same for every game: at a table of ``n`` seats (computer seats count as
opponents, but earn nothing), a player scores ::

    100 × (opponents placed below them + ½ × opponents tied with them) / (n − 1)

that is, the share of their opponents they beat, ties halved. The winner of a table always
scores 100 and the last 0, whatever the table's size, so a win at a table of two is worth a
win at a table of eight; the points of one table add up to 50 × n, which is the average
of 50 a seat. A table of one seat scores nothing. The placements are the engine's
``result()["ranking"]``: groups of player ids, best first, each group tied.

Standings add a night's tables up per person. Order: the most points, then the most table
wins (first place, shared or not), then the best mean a table, then the fewest tables
played; people equal on all four share a rank (and are listed by id). Someone who played no
table yet comes after everyone who did.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from bot.engine.lobby import is_computer

__all__ = ["FULL", "Standing", "night_points", "standings"]

FULL: Final = 100
"""The points of a table's winner."""


def night_points(ranking: Sequence[Sequence[str]]) -> dict[str, Fraction]:
    """The night points of each person at one table (computer seats left out), exact."""
    seats = sum(len(group) for group in ranking)
    players = [p for group in ranking for p in group]
    if len(set(players)) != len(players):
        raise ValueError("a player is placed twice")
    out: dict[str, Fraction] = {}
    if seats < 2:
        return {p: Fraction(0) for p in players if not is_computer(p)}
    below = seats
    for group in ranking:
        below -= len(group)
        tied = len(group) - 1
        share = Fraction(2 * below + tied, 2 * (seats - 1))
        for player in group:
            if not is_computer(player):
                out[player] = FULL * share
    return out


@dataclass(frozen=True, slots=True)
class Standing:
    """One person's night: rank (shared on a full tie), points, wins, tables played."""

    rank: int
    player: str
    points: Fraction
    wins: int
    tables: int

    @property
    def mean(self) -> Fraction:
        return self.points / self.tables if self.tables else Fraction(0)

    def shown(self) -> str:
        """The points as the board shows them: one decimal at most (``87.5``, ``100``)."""
        value = round(float(self.points), 1)
        return f"{value:g}" if value != int(value) else str(int(value))


def standings(
    rankings: Iterable[Sequence[Sequence[str]]], *, attendees: Iterable[str] = ()
) -> list[Standing]:
    """The night's standings from every finished table's ranking. ``attendees`` who played
    no table yet are listed too, with nothing."""
    points: dict[str, Fraction] = {p: Fraction(0) for p in attendees if not is_computer(p)}
    wins: dict[str, int] = dict.fromkeys(points, 0)
    tables: dict[str, int] = dict.fromkeys(points, 0)
    for ranking in rankings:
        for player, value in night_points(ranking).items():
            points[player] = points.get(player, Fraction(0)) + value
            tables[player] = tables.get(player, 0) + 1
            wins.setdefault(player, 0)
        if ranking and len([p for g in ranking for p in g]) >= 2:
            for player in ranking[0]:
                if not is_computer(player):
                    wins[player] += 1

    def strength(player: str) -> tuple[bool, Fraction, int, Fraction, int]:
        mean = points[player] / tables[player] if tables[player] else Fraction(0)
        return (tables[player] == 0, -points[player], -wins[player], -mean, tables[player])

    ordered = sorted(points, key=lambda p: (strength(p), _id_key(p)))
    out: list[Standing] = []
    for index, player in enumerate(ordered):
        same = out and strength(out[-1].player) == strength(player)
        rank = out[-1].rank if same else index + 1
        out.append(Standing(rank, player, points[player], wins[player], tables[player]))
    return out


def _id_key(player: str) -> tuple[int, str]:
    return (len(player), player)  # Discord ids are digits: shorter is smaller
