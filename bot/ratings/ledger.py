"""One rated game's update of a scope: the same code for the live update (inside the
transaction that records the result) and for the rebuild (a replay of every result), so
both give the same numbers, to the last bit.

A member's standing in a scope and season is a :class:`Standing`. At their first rated game
of a season it starts from their latest standing of an earlier season, softened
(:func:`bot.ratings.model.soften`), or from a newcomer's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from bot.ratings.model import MU, SIGMA, Skill, placements, rate, soften

__all__ = [
    "AWAY_MOVES",
    "OVERALL",
    "RATED_KINDS",
    "Seat",
    "Standing",
    "scopes_of",
    "seats_of",
    "start_of_season",
    "update",
]

OVERALL: Final = "overall"
"""The scope every rated game counts in too, whatever its kind."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's rating in one scope and season: the estimate, the season's games and
    wins, and ``career`` (rated games in the scope over every season: the provisional
    mark)."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    career: int = 0


@dataclass(frozen=True, slots=True)
class Seat:
    """A rated player of one game: their placement among the rated, and whether they won."""

    user_id: int
    place: int
    won: bool


def scopes_of(kind: str) -> tuple[str, str]:
    """The scopes a game of ``kind`` counts in: its own, then ``overall``."""
    return (kind, OVERALL)


def start_of_season(earlier: Standing | None) -> Standing:
    """The standing a member starts a season with: their latest one of an earlier season,
    softened (its games and wins are the old season's: they start at 0), or a newcomer's."""
    if earlier is None:
        return Standing()
    mu, sigma = soften(earlier.mu, earlier.sigma)
    return Standing(mu, sigma, 0, 0, earlier.career)


def update(
    seats: Sequence[Seat],
    current: Mapping[int, Standing | None],
    earlier: Mapping[int, Standing | None],
) -> dict[int, Standing]:
    """The standings after one game. ``current``: each seat's standing in this season
    (``None``: none yet); ``earlier``: their latest standing of an earlier season, for those
    with none in this one."""
    before = []
    for seat in seats:
        now = current.get(seat.user_id)
        before.append(now if now is not None else start_of_season(earlier.get(seat.user_id)))
    after = rate([Skill(b.mu, b.sigma) for b in before], [s.place for s in seats])
    return {
        seat.user_id: Standing(
            skill.mu, skill.sigma, old.games + 1, old.wins + int(seat.won), old.career + 1
        )
        for seat, old, skill in zip(seats, before, after, strict=True)
    }


AWAY_MOVES: Final = 3
"""A member the turn timer played for this many times in a row, up to the game's end, left
the game: they finish last (the game records it in ``meta["away"]``)."""

RATED_KINDS: Final = ("papayoo", "speahx", "spit")
"""The games that are rated (each also counts in :data:`OVERALL`). Späye is not: see the
README (its däyes are pairwise and mostly one-sided, measured in ``bench/office.py``)."""


def seats_of(
    results: Sequence[tuple[int, int | None, bool]],
    excluded: Collection[int] = (),
    leavers: Collection[int] = (),
) -> list[Seat]:
    """The rated seats of a game from its result lines ``(user_id, rank, won)``, by rank
    then user id: members in ``excluded`` are left out (the others keep their order), those
    in ``leavers`` finish last and do not win. Fewer than two seats left: nothing to rate
    (``[]``)."""
    kept = sorted(
        ((user, rank, won) for user, rank, won in results if user not in excluded),
        key=lambda line: (line[1] is None, line[1] or 0, line[0]),
    )  # one order whatever the lines' order: the floating-point sums come out the same
    if len(kept) < 2:
        return []
    places = placements({user: rank for user, rank, _ in kept}, set(leavers))
    return [Seat(user, places[user], won and user not in leavers) for user, _, won in kept]
