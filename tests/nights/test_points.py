"""Night points and standings (bot.nights.points)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.nights.points import FULL, night_points, standings


def test_the_winner_scores_100_and_the_last_0_at_any_table_size() -> None:
    for seats in range(2, 15):
        ranking = [[str(i)] for i in range(1, seats + 1)]
        points = night_points(ranking)
        assert points["1"] == FULL and points[str(seats)] == 0


def test_ties_are_halved_and_computers_earn_nothing() -> None:
    points = night_points([["1"], ["2", "cpu1"], ["3"]])
    assert points == {"1": 100, "2": 50, "3": 0}
    assert night_points([["1", "2"]]) == {"1": 50, "2": 50}
    assert night_points([["1"]]) == {"1": 0}


def test_standings_order_and_shared_ranks() -> None:
    tables = [
        [["1"], ["2"]],  # 1: 100, 2: 0
        [["2"], ["3"], ["4"]],  # 2: 100, 3: 50, 4: 0
        [["3"], ["1"]],  # 3: 100, 1: 0
    ]
    board = standings(tables, attendees=["1", "2", "3", "4", "5"])
    assert [(s.rank, s.player, s.points) for s in board] == [
        (1, "3", 150),
        (2, "1", 100),
        (2, "2", 100),
        (4, "4", 0),
        (5, "5", 0),  # played no table yet: last
    ]
    assert board[0].wins == 1 and board[0].tables == 2 and board[0].shown() == "150"
    assert board[4].tables == 0  # came, played nothing yet


def test_wins_then_mean_break_ties() -> None:
    # All 100 points: 1, 3 and 4 won a table, 2 came second twice -> 2 last; 1 did it in
    # one table (the better mean) -> 1 first; 3 and 4 are equal on everything.
    board = standings([[["1"], ["cpu1"]], [["3"], ["2"], ["4"]], [["4"], ["2"], ["3"]]])
    assert [(s.rank, s.player) for s in board] == [(1, "1"), (2, "3"), (2, "4"), (4, "2")]
    # Same points and wins: the better mean a table (fewer tables) first.
    board = standings([[["1"], ["2"]], [["3"], ["2"], ["cpu1"]], [["3"], ["1"], ["cpu1"]]])
    assert [s.player for s in board[:2]] == ["3", "1"]
    assert standings([[["7"], ["8"], ["9"]]])[1].shown() == "50"
    assert standings([[["7"], ["8", "9"], ["6"]]])[1].shown() == "50"
    odd = standings([[["1"], ["2"], ["3"], ["4"]]])
    assert odd[1].points == Fraction(200, 3) and odd[1].shown() == "66.7"


@settings(max_examples=200, deadline=None)
@given(st.permutations(["1", "2", "3", "4", "5", "cpu1", "cpu2"]), st.data())
def test_a_tables_points_average_50_a_seat(players: list[str], data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(1, len(players) - 1))))
    ranking = [players[a:b] for a, b in zip([0, *cuts], [*cuts, len(players)], strict=True)]
    points = night_points(ranking)
    humans = [p for p in players if not p.startswith("cpu")]
    assert set(points) == set(humans)
    assert all(0 <= v <= FULL for v in points.values())
    # Everyone, computers counted as if people, shares 50 a seat.
    as_people = [[p.replace("cpu", "9") for p in g] for g in ranking]
    assert sum(night_points(as_people).values()) == Fraction(50 * len(players))
