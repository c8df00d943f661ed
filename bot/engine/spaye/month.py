"""The month's points and titles, from the results of its Späye days (docs/rules/spaye.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.engine.spaye.rules import COLUMNS, TITLE_OF_COLUMN

Position = tuple[int, int]
"""``(day index, timeline seq)``: when points were earned, in month order."""


def month_standings(days: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Points and titles of a month.

    ``days`` are the ``result()`` of each Späye day of the month, oldest first. Only
    finished days count points; a voided day's späyins are späyins of the month all the
    same (with 0 points if that was all they played); running days are skipped. Returns::

        {"points": {player: {"daye": n, "victory": n, "reps": n, "total": n}},
         "titles": {"grand_spayin": id | None, "mastaye": id | None, "tikao": id | None},
         "spayins": [ids who played a finished or voided day, in order of first play],
         "days": number of days counted}

    Each title goes to the most points in its column; ties go to more points in the
    other two columns together, then to whoever reached the tied score first (points
    earned by one action are ordered as the timeline lists them: the däye's drawing
    order). Nobody with 0 points gets a title; one player may hold several.
    """
    points: dict[str, dict[str, int]] = {}
    reached: dict[tuple[str, str], list[tuple[Position, int]]] = {}
    spayins: list[str] = []
    counted = 0
    for index, day in enumerate(days):
        status = day.get("status")
        if status not in ("finished", "voided", "running"):
            raise ValueError(f"day {index}: not a Späye result (status {status!r})")
        if status == "running":
            continue
        for p in day.get("spayins", []):
            if p not in spayins:
                spayins.append(p)
            points.setdefault(p, dict.fromkeys(COLUMNS, 0))
        if status != "finished":
            continue
        counted += 1
        for entry in sorted(day["timeline"], key=lambda e: int(e["seq"])):
            player, column, n = entry["player"], entry["column"], entry["points"]
            if column not in COLUMNS or not isinstance(n, int) or n <= 0:
                raise ValueError(f"day {index}: bad timeline entry {entry!r}")
            cols = points.setdefault(player, dict.fromkeys(COLUMNS, 0))
            cols[column] += n
            reached.setdefault((player, column), []).append(
                ((index, int(entry["seq"])), cols[column])
            )
    titles = {TITLE_OF_COLUMN[c]: _titleholder(c, points, reached) for c in COLUMNS}
    return {
        "points": {p: {**cols, "total": sum(cols.values())} for p, cols in points.items()},
        "titles": titles,
        "spayins": spayins,
        "days": counted,
    }


def _titleholder(
    column: str,
    points: dict[str, dict[str, int]],
    reached: dict[tuple[str, str], list[tuple[Position, int]]],
) -> str | None:
    best = max((cols[column] for cols in points.values()), default=0)
    if best <= 0:
        return None
    tied = [p for p, cols in points.items() if cols[column] == best]

    def others(p: str) -> int:
        return sum(n for c, n in points[p].items() if c != column)

    top = max(others(p) for p in tied)
    tied = [p for p in tied if others(p) == top]

    def first_reached(p: str) -> Position:
        return next(pos for pos, total in reached[(p, column)] if total >= best)

    return min(tied, key=first_reached)
