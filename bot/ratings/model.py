"""The rating model: OpenSkill's Plackett-Luce (Weng-Lin's Bayesian approximation).

Each member has, per scope (a game, or ``overall``) and season, a skill estimate ``mu``
and its uncertainty ``sigma``; a new member starts at ``mu = 25``, ``sigma = 25/3``. A
finished game moves every rated player's estimate from their placements (ties shared).
Plackett-Luce rates any number of players (2 to 14) from a ranking alone; the points of a
Papayoo are already in its ranking (the lowest total first) and give nothing more to the
model, which reads ranks only (``bench/office.py`` compares the models on these games).

What members see is :func:`display_rating`: the conservative estimate ``mu - 3 sigma``
(OpenSkill's ``ordinal``) on a scale where a newcomer is 1000, so a rating grows both by
winning and by playing enough for the bot to be sure.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from openskill.models import PlackettLuce

__all__ = [
    "MU",
    "PROVISIONAL_GAMES",
    "SIGMA",
    "SOFTEN_SIGMA",
    "Skill",
    "display_rating",
    "is_provisional",
    "ordinal",
    "placements",
    "ranks_of",
    "rate",
    "soften",
]

MU: Final = 25.0
"""A newcomer's skill estimate."""
SIGMA: Final = MU / 3
"""A newcomer's uncertainty (the widest a rating gets)."""
PROVISIONAL_GAMES: Final = 5
"""A member is provisional (marked on the boards) until this many rated games in a scope."""
SOFTEN_SIGMA: Final = SIGMA / 3
"""Added (in quadrature) to the uncertainty carried into a new season."""
DISPLAY_BASE: Final = 1000
DISPLAY_SCALE: Final = 40

_MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA)

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class Skill:
    """One member's estimate in one scope: ``mu`` and its uncertainty ``sigma``."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    @property
    def rating(self) -> int:
        return display_rating(self.mu, self.sigma)


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate ``mu - 3 sigma`` (0 for a newcomer)."""
    return mu - 3 * sigma


def display_rating(mu: float, sigma: float) -> int:
    """The number members see: ``1000 + 40 * (mu - 3 sigma)``, never below 0."""
    return max(0, round(DISPLAY_BASE + DISPLAY_SCALE * ordinal(mu, sigma)))


def is_provisional(games: int) -> bool:
    """Fewer than :data:`PROVISIONAL_GAMES` rated games in the scope (all seasons)."""
    return games < PROVISIONAL_GAMES


def soften(mu: float, sigma: float) -> tuple[float, float]:
    """The estimate a member starts a new season with: the same ``mu``, its uncertainty
    widened back toward a newcomer's (``sqrt(sigma² + (25/9)²)``, at most 25/3). A member
    who played a lot keeps most of their standing; the new season's first games move it
    more than the last ones of the old season did."""
    return mu, min(SIGMA, math.hypot(sigma, SOFTEN_SIGMA))


def rate(skills: Sequence[Skill], places: Sequence[int], model: Any = None) -> list[Skill]:
    """The estimates after one game: ``places[i]`` is the placement of the player holding
    ``skills[i]`` (1 is first; equal places are a tie). Fewer than two players: unchanged."""
    if len(skills) != len(places):
        raise ValueError("one place per player")
    if len(skills) < 2:
        return list(skills)
    used = _MODEL if model is None else model
    teams = [[used.create_rating([s.mu, s.sigma])] for s in skills]
    rated = used.rate(teams, ranks=[float(p) for p in places])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]


def ranks_of(ranking: Sequence[Sequence[P]]) -> dict[P, int]:
    """Ranks (1, 1, 3...) from an engine's ``ranking`` (groups of tied players, best first)."""
    ranks: dict[P, int] = {}
    place = 1
    for group in ranking:
        for player in group:
            ranks[player] = place
        place += len(group)
    return ranks


def placements(ranks: Mapping[P, int | None], left: Collection[P] = ()) -> dict[P, int]:
    """Placements (1, 1, 3...) from a game's ranks (``None``: unranked, after the ranked),
    players in ``left`` finishing last (tied among them); the order is kept, the numbers
    are those of the players given (someone left out leaves no gap)."""

    def key(player: P) -> tuple[int, int]:
        rank = ranks[player]
        return (1 if player in left else 0, rank if rank is not None and player not in left
                else 1 << 30)  # fmt: skip

    order = sorted(ranks, key=key)
    out: dict[P, int] = {}
    previous: tuple[int, int] | None = None
    place = 0
    for index, player in enumerate(order, 1):
        current = key(player)
        if current != previous:
            place, previous = index, current
        out[player] = place
    return out
