"""The pure ratings package: seasons, the model, the ledger."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ratings.ledger import Seat, Standing, seats_of, start_of_season, update
from bot.ratings.model import (
    MU,
    PROVISIONAL_GAMES,
    SIGMA,
    Skill,
    display_rating,
    is_provisional,
    placements,
    rate,
    soften,
)
from bot.ratings.seasons import (
    is_season_key,
    next_season,
    previous_season,
    season_bounds,
    season_key,
    season_label,
)

PARIS = ZoneInfo("Europe/Paris")


@pytest.mark.parametrize(
    ("period", "key"), [("month", "2026-12"), ("quarter", "2026-Q4"), ("year", "2026")]
)
def test_season_keys_and_labels(period: str, key: str) -> None:
    when = datetime(2026, 12, 31, 22, 30, tzinfo=UTC)  # 23:30 in Paris
    assert season_key(when, PARIS, period) == key  # type: ignore[arg-type]
    assert season_key(datetime(2026, 12, 31, 23, 30, tzinfo=UTC), PARIS, period) != key
    start, end = season_bounds(key, PARIS)
    assert start <= when < end
    assert season_key(start, PARIS, period) == key  # type: ignore[arg-type]
    assert season_key(end, PARIS, period) == next_season(key)  # type: ignore[arg-type]
    assert previous_season(next_season(key)) == key


def test_season_labels_in_both_languages() -> None:
    assert season_label("2026-Q4", "en") == "Q4 2026"
    assert season_label("2026-Q4", "fr") == "T4 2026"
    assert season_label("2026-12", "en") == "December 2026"
    assert season_label("2026-12", "fr") == "décembre 2026"
    assert season_label("2026", "fr") == "2026"
    assert previous_season("2026-Q1") == "2025-Q4"
    assert previous_season("2026-01") == "2025-12"
    assert not is_season_key("2026-Q5") and not is_season_key("26")
    with pytest.raises(ValueError, match="season key"):
        season_bounds("nope", PARIS)


@given(st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1)),
       st.sampled_from(["month", "quarter", "year"]))  # fmt: skip
def test_every_instant_is_in_its_seasons_bounds(naive: datetime, period: str) -> None:
    when = naive.replace(tzinfo=UTC)
    key = season_key(when, PARIS, period)  # type: ignore[arg-type]
    start, end = season_bounds(key, PARIS)
    assert start <= when < end


def test_placements_with_ties_leavers_and_gaps() -> None:
    assert placements({"a": 1, "b": 1, "c": 3}) == {"a": 1, "b": 1, "c": 3}
    assert placements({"a": 1, "b": 2, "c": 3}, left={"a"}) == {"b": 1, "c": 2, "a": 3}
    assert placements({"a": 2, "b": None, "c": 4}) == {"a": 1, "c": 2, "b": 3}
    assert placements({"a": 1, "b": 2, "c": 3}, left={"a", "b"}) == {"c": 1, "a": 2, "b": 2}


def test_rating_moves_winners_up_and_is_deterministic() -> None:
    skills = [Skill(), Skill(), Skill()]
    after = rate(skills, [1, 2, 3])
    assert after[0].mu > MU > after[2].mu
    assert all(s.sigma < SIGMA for s in after)
    assert rate(skills, [1, 2, 3]) == after
    assert rate([Skill()], [1]) == [Skill()]
    with pytest.raises(ValueError):
        rate(skills, [1, 2])


def test_display_rating_and_provisional() -> None:
    assert display_rating(MU, SIGMA) == 1000
    assert display_rating(35.0, 2.0) == 1000 + 40 * 29
    assert display_rating(-100.0, 8.0) == 0
    assert is_provisional(PROVISIONAL_GAMES - 1) and not is_provisional(PROVISIONAL_GAMES)


@given(st.floats(min_value=-50, max_value=80), st.floats(min_value=0.5, max_value=SIGMA))
def test_softening_widens_sigma_up_to_a_newcomers(mu: float, sigma: float) -> None:
    new_mu, new_sigma = soften(mu, sigma)
    assert new_mu == mu
    assert sigma <= new_sigma <= SIGMA


def test_a_season_starts_from_the_last_standing_softened() -> None:
    old = Standing(30.0, 3.0, 12, 7, 40)
    start = start_of_season(old)
    assert (start.mu, start.sigma) == soften(30.0, 3.0)
    assert (start.games, start.wins, start.career) == (0, 0, 40)
    assert start_of_season(None) == Standing()


def test_seats_leave_out_the_excluded_and_need_two() -> None:
    lines = [(1, 1, True), (2, 2, False), (3, 3, False)]
    assert seats_of(lines, excluded={1}) == [Seat(2, 1, False), Seat(3, 2, False)]
    assert seats_of(lines, leavers={1}) == [Seat(1, 3, False), Seat(2, 1, False),
                                            Seat(3, 2, False)]  # fmt: skip
    assert seats_of(lines, excluded={1, 2}) == []


def test_update_counts_games_wins_and_career() -> None:
    seats = [Seat(1, 1, True), Seat(2, 2, False)]
    after = update(seats, {1: Standing(games=2, wins=1, career=9), 2: None}, {2: None})
    assert (after[1].games, after[1].wins, after[1].career) == (3, 2, 10)
    assert (after[2].games, after[2].wins, after[2].career) == (1, 0, 1)


@given(
    st.lists(
        st.tuples(st.integers(1, 10**6), st.one_of(st.none(), st.integers(1, 8)), st.booleans()),
        min_size=2,
        max_size=14,
        unique_by=lambda line: line[0],
    ),
    st.randoms(use_true_random=False),
)
def test_the_update_is_the_same_whatever_the_order_of_the_lines(
    lines: list[tuple[int, int | None, bool]], rnd: object
) -> None:
    """The live update and the rebuild read the same lines in different orders: the numbers
    (floating-point sums included) must not depend on it."""
    shuffled = list(lines)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    start = {user: Standing(mu=20 + user % 11, sigma=2 + user % 5) for user, _, _ in lines}
    first = update(seats_of(lines), start, {})
    second = update(seats_of(shuffled), start, {})
    assert first == second
