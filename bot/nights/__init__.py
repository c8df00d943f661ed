"""A game night's pure rules: who sits at which table (:mod:`.seating`) and how the night's
results add up (:mod:`.points`).

Like :mod:`bot.engine`: no discord, no I/O, no clock, no global random; the same input (and
seed) gives the same answer.
"""

from bot.nights.points import Standing, night_points, standings
from bot.nights.seating import (
    ANY,
    Attendee,
    Placement,
    PlayerCount,
    Seating,
    Table,
    Waiting,
    open_from_waiting,
    place_latecomer,
    seat,
    table_games,
    without,
)

__all__ = [
    "ANY",
    "Attendee",
    "Placement",
    "PlayerCount",
    "Seating",
    "Standing",
    "Table",
    "Waiting",
    "night_points",
    "open_from_waiting",
    "place_latecomer",
    "seat",
    "standings",
    "table_games",
    "without",
]
