"""The month's points and titles (docs/rules/spaye.md, "Points of the month")."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import SYSTEM
from bot.engine.spaye import TITLES, month_standings
from tests.engine.test_spaye_support import NK, A, B, C, D, daye, ok, own, stacked, table


def day(*entries: tuple[str, str, int], status: str = "finished") -> dict[str, Any]:
    """A day's result with these points, in this order."""
    timeline = [
        {"seq": i, "player": p, "column": col, "points": n, "daye": 1}
        for i, (p, col, n) in enumerate(entries)
    ]
    return {
        "status": status,
        "timeline": timeline,
        "spayins": list(dict.fromkeys(e[0] for e in entries)),
    }


def titles(*days: dict[str, Any]) -> dict[str, str | None]:
    out: dict[str, str | None] = month_standings(days)["titles"]
    return out


def test_month_sums_the_three_columns_of_every_finished_day() -> None:
    month = month_standings(
        [day((A, "daye", 1), (B, "daye", 1), (B, "victory", 1)), day((A, "reps", 12))]
    )
    assert month["points"] == {
        A: {"daye": 1, "victory": 0, "reps": 12, "total": 13},
        B: {"daye": 1, "victory": 1, "reps": 0, "total": 2},
    }
    assert month["days"] == 2 and month["spayins"] == [A, B]


def test_month_titles_go_to_most_points_in_each_column() -> None:
    got = titles(
        day((A, "daye", 3), (B, "daye", 1), (B, "victory", 2), (C, "reps", 20), (A, "reps", 5))
    )
    assert got == {"grand_spayin": A, "mastaye": B, "tikao": C}
    assert tuple(got) == TITLES


def test_month_title_tie_other_columns_then_first_to_reach() -> None:
    # Tied däye points: more points in the two other columns wins.
    assert titles(day((A, "daye", 2), (B, "daye", 2), (B, "reps", 1)))["grand_spayin"] == B
    # Tied again there: who reached the tied score first, across days...
    first = day((B, "daye", 1), (A, "daye", 1))
    second = day((A, "daye", 1), (B, "daye", 1))
    assert titles(first, second)["grand_spayin"] == A
    # ...and inside one day, in timeline order.
    assert titles(day((B, "daye", 1), (A, "daye", 1)))["grand_spayin"] == B
    # Reaching the score, not earning the last point, decides.
    late = day((A, "victory", 1), (B, "victory", 2), (A, "victory", 1))
    assert titles(late)["mastaye"] == B


def test_month_title_other_columns_beat_reaching_first() -> None:
    got = titles(day((A, "reps", 10), (B, "reps", 10), (B, "daye", 1)))
    assert got["tikao"] == B


def test_nobody_with_zero_points_gets_a_title() -> None:
    assert titles(day((A, "daye", 1), (B, "daye", 1))) == {
        "grand_spayin": A,
        "mastaye": None,
        "tikao": None,
    }
    assert titles() == {"grand_spayin": None, "mastaye": None, "tikao": None}


def test_one_player_may_hold_several_titles() -> None:
    got = titles(day((A, "daye", 3), (A, "victory", 6), (A, "reps", 29), (B, "daye", 3)))
    assert got == {"grand_spayin": A, "mastaye": A, "tikao": A}


def test_voided_day_counts_no_points_but_its_spayins_played() -> None:
    """docs/rules/spaye.md: accepting makes both späyins for the month, even if that day is voided."""
    g = stacked(table("KS", "2H", size=5), [A, B])
    daye(g, A, B)
    ok(g, SYSTEM, {"type": "void"})
    voided = g.result()
    assert voided["status"] == "voided"
    month = month_standings([day((C, "daye", 1)), voided])
    zero = {"daye": 0, "victory": 0, "reps": 0, "total": 0}
    assert month["points"] == {
        C: {"daye": 1, "victory": 0, "reps": 0, "total": 1},
        A: zero,
        B: zero,
    }
    assert month["spayins"] == [C, A, B]
    assert month["titles"]["mastaye"] is None and month["days"] == 1
    # even a result that still lists points counts nothing once voided
    assert month_standings([day((A, "daye", 5), status="voided")])["points"] == {A: zero}


def test_running_day_does_not_count_yet() -> None:
    assert month_standings([day((A, "daye", 1), status="running")])["days"] == 0


def test_month_refuses_something_that_is_not_a_day_result() -> None:
    with pytest.raises(ValueError):
        month_standings([{"timeline": []}])
    with pytest.raises(ValueError):
        month_standings([day((A, "luck", 1))])


def test_month_of_real_days() -> None:
    one = stacked([NK, "9S", "5H"])
    daye(one, A, B, C)
    own(one, A, "exercise_done")
    two = stacked(table("KS", "2H", size=5), [B, D])
    daye(two, B, D)
    daye(two, B, D, A)
    ok(two, SYSTEM, {"type": "close"})  # A's final exercise lapses: no victory, no reps
    month = month_standings([one.result(), two.result()])
    assert month["points"][A] == {"daye": 6, "victory": 3, "reps": 14, "total": 23}
    assert month["points"][B] == {"daye": 7, "victory": 1, "reps": 0, "total": 8}
    assert month["titles"] == {"grand_spayin": B, "mastaye": A, "tikao": A}
    assert month["spayins"] == [A, B, C, D]
