"""Seating a game night (bot.nights.seating): targeted cases and properties."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.nights.seating import (
    ANY,
    NO_SEAT,
    NO_SUCH_GAME,
    TOO_FEW,
    Attendee,
    PlayerCount,
    Seating,
    open_from_waiting,
    place_latecomer,
    seat,
    table_games,
    without,
)

GAMES = table_games()
KINDS = sorted(GAMES)


def person(uid: int, wishes: set[str] | None = ANY, rating: float = 25.0) -> Attendee:
    return Attendee(uid, None if wishes is None else frozenset(wishes), rating)


def test_the_counts_are_the_engines() -> None:
    assert {
        "papayoo": PlayerCount(3, 8),
        "speahx": PlayerCount(2, 14),
        "spit": PlayerCount(2, 2),
    } == GAMES


def test_nights_is_pure() -> None:
    code = (
        "import sys\nbefore = set(sys.modules)\nimport bot.nights\n"
        "bad = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "['discord', 'asyncio', 'aiosqlite', 'sqlite3', 'datetime', 'time'])\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""


def test_close_ratings_sit_together() -> None:
    """Twelve Papayoo players make two tables (eight at most a table): the six strongest
    together, the six weakest together."""
    ratings = [10, 40, 11, 41, 12, 42, 13, 43, 14, 44, 15, 45]
    people = [person(i, {"papayoo"}, rating=r) for i, r in enumerate(ratings)]
    seating = seat(people, GAMES)
    assert [sorted(t.user_ids()) for t in seating.tables] == [
        [1, 3, 5, 7, 9, 11],
        [0, 2, 4, 6, 8, 10],
    ]
    assert all(t.spread == 5 for t in seating.tables)


def test_a_table_is_cut_by_the_rating_in_its_game() -> None:
    """Four Spit players: Ana is the strongest overall but new at Spit's speed, Dan the
    weakest overall but a Spit regular. Cut by their Spit ratings (the overall one where
    they have none), the two tables are Bob and Dan, then Cid and Ana."""
    ana = Attendee(1, frozenset({"spit"}), 1500.0, (("spit", 900.0),))
    bob = Attendee(2, frozenset({"spit"}), 1400.0)
    cid = Attendee(3, frozenset({"spit"}), 1300.0, (("papayoo", 2000.0),))
    dan = Attendee(4, frozenset({"spit"}), 1000.0, (("spit", 1350.0),))
    seating = seat([ana, bob, cid, dan], GAMES)
    assert [t.user_ids() for t in seating.tables] == [(2, 4), (3, 1)]  # strongest first
    assert [t.spread for t in seating.tables] == [50.0, 400.0]
    overall = seat([Attendee(a.user_id, a.wishes, a.rating) for a in (ana, bob, cid, dan)], GAMES)
    assert [t.user_ids() for t in overall.tables] == [(1, 2), (3, 4)]
    # a latecomer goes to the table whose mean rating at its game is closest to theirs
    late = Attendee(5, frozenset({"papayoo"}), 1000.0, (("papayoo", 1800.0),))
    papayoo = seat([Attendee(10 + i, frozenset({"papayoo"}), 1000.0) for i in range(3)], GAMES)
    placed = place_latecomer(papayoo, late, GAMES)
    assert placed.table == 0
    assert placed.seating.tables[0].players[0] is late  # strongest at Papayoo first


def test_spits_odd_one_out_waits_unless_computers_may_sit() -> None:
    people = [person(i, {"spit"}) for i in range(5)]
    seating = seat(people, GAMES)
    assert len(seating.tables) == 2 and seating.waiting_ids() == [4]
    assert seating.waiting[0].reason == NO_SEAT
    with_cpu = seat(people, GAMES, computers=True)
    assert with_cpu.waiting == () and sum(t.computers for t in with_cpu.tables) == 1


def test_too_few_for_a_game_wait_and_flexible_people_fill_it() -> None:
    two = [person(1, {"papayoo"}), person(2, {"papayoo"})]
    assert [w.reason for w in seat(two, GAMES).waiting] == [TOO_FEW, TOO_FEW]
    filled = seat([*two, person(3, {"papayoo", "spit"})], GAMES)
    assert filled.waiting == () and filled.tables[0].game == "papayoo"
    short = seat(two, GAMES, computers=True)
    assert short.tables[0].computers == 1 and short.waiting == ()


def test_an_any_player_makes_spit_even() -> None:
    people = [person(i, {"spit"}) for i in range(3)] + [person(3, {"papayoo", "spit"})]
    seating = seat(people, GAMES)
    assert seating.waiting == () and [t.game for t in seating.tables] == ["spit", "spit"]


def test_a_wish_for_no_offered_game_waits() -> None:
    seating = seat([person(1, {"chess"}), person(2), person(3)], GAMES)
    assert [(w.attendee.user_id, w.reason) for w in seating.waiting] == [(1, NO_SUCH_GAME)]


def test_twice_the_same_person_is_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        seat([person(1), person(1)], GAMES)


def test_a_latecomer_takes_a_computers_seat_then_the_closest_table() -> None:
    base = seat([person(1, {"spit"}, 10)], GAMES, computers=True)
    placed = place_latecomer(base, person(2, {"spit"}, 50), GAMES)
    assert placed.table == 0 and placed.seating.tables[0].computers == 0
    ratings = [10, 11, 12, 13, 14, 15, 40, 41, 42, 43, 44, 45]
    papayoo = seat([person(i, {"papayoo"}, r) for i, r in enumerate(ratings)], GAMES)
    assert papayoo.table_of(11) == 0 and papayoo.table_of(0) == 1
    placed = place_latecomer(papayoo, person(99, {"papayoo"}, 39), GAMES)
    assert placed.table == 0 and len(placed.seating.tables[0].players) == 7
    closed = place_latecomer(papayoo, person(99, {"papayoo"}, 39), GAMES, closed={0})
    assert closed.table == 1


def test_latecomers_wait_then_open_a_table_together() -> None:
    full = seat([person(1, {"spit"}), person(2, {"spit"})], GAMES)
    first = place_latecomer(full, person(3, {"spit"}), GAMES)
    assert first.table is None and first.seating.waiting_ids() == [3]
    second = place_latecomer(first.seating, person(4, {"spit"}), GAMES)
    assert second.table == 1 and second.opened == (1,) and second.seating.waiting == ()
    with pytest.raises(ValueError):
        place_latecomer(second.seating, person(4), GAMES)


def test_leaving_frees_the_seat() -> None:
    seating = seat([person(1, {"spit"}), person(2, {"spit"}), person(3, {"spit"})], GAMES)
    after = without(seating, 3)
    assert after.waiting == () and sorted(after.seated()) == [1, 2]
    assert open_from_waiting(Seating(), GAMES) == (Seating(), ())


wishes = st.one_of(st.none(), st.frozensets(st.sampled_from([*KINDS, "chess"]), min_size=1))
crowds = st.lists(
    st.tuples(wishes, st.floats(min_value=0, max_value=50, allow_nan=False)),
    max_size=40,
).map(lambda rows: [Attendee(1000 + i, w, r) for i, (w, r) in enumerate(rows)])


def check(
    seating: Seating, people: list[Attendee], computers: bool, *, at_start: bool = True
) -> None:
    seated = seating.seated()
    assert len(seated) == len(set(seated)), "seated twice"
    waiting = seating.waiting_ids()
    assert sorted(seated + waiting) == sorted(p.user_id for p in people), "lost or doubled"
    for table in seating.tables:
        counts = GAMES[table.game]
        assert counts.low <= table.size <= counts.high
        assert table.players, "a table of computers only"
        assert all(p.wants(table.game) for p in table.players), "a wish broken"
        if not computers:
            assert table.computers == 0
    for entry in seating.waiting:
        if entry.reason == NO_SUCH_GAME:
            assert not any(entry.attendee.wants(g) for g in GAMES)
    if computers and at_start:  # computer seats leave nobody who wished a game waiting
        assert all(w.reason == NO_SUCH_GAME for w in seating.waiting)


@settings(max_examples=150, deadline=None)
@given(crowds, st.booleans(), st.integers(0, 2**32))
def test_every_table_fits_nobody_twice_every_wish_kept(
    people: list[Attendee], computers: bool, seed: int
) -> None:
    seating = seat(people, GAMES, computers=computers, seed=seed)
    check(seating, people, computers)
    assert seat(people, GAMES, computers=computers, seed=seed) == seating


@settings(max_examples=100, deadline=None)
@given(crowds, crowds, st.booleans())
def test_latecomers_keep_every_property(
    people: list[Attendee], late: list[Attendee], computers: bool
) -> None:
    seating = seat(people, GAMES, computers=computers)
    latecomers = [Attendee(p.user_id + 1000, p.wishes, p.rating) for p in late]
    for newcomer in latecomers:
        placed = place_latecomer(seating, newcomer, GAMES)
        seating = placed.seating
        assert seating.table_of(newcomer.user_id) == placed.table
    check(seating, people + latecomers, computers, at_start=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=50, allow_nan=False), min_size=3, max_size=30))
def test_one_game_tables_are_contiguous_in_rating(ratings: list[float]) -> None:
    """Within one game, no one at a weaker table outrates someone at a stronger one."""
    people = [Attendee(i, frozenset({"papayoo"}), r) for i, r in enumerate(ratings)]
    tables = seat(people, GAMES).tables
    for stronger, weaker in itertools.pairwise(tables):
        assert min(p.rating for p in stronger.players) >= max(p.rating for p in weaker.players)


def test_a_night_of_23_with_two_latecomers_and_a_leaver() -> None:
    """Mixed wishes (five only Spit, eight any, the rest one or two games), then two
    latecomers and one leaver: every table within its counts, nobody twice, every wish kept;
    the same again with the same seed."""
    wishes: list[set[str] | None] = (
        [{"spit"}] * 5
        + [None] * 8
        + [{"papayoo"}] * 4
        + [{"speahx"}] * 3
        + [{"papayoo", "speahx"}] * 3
    )
    people = [person(100 + i, w, rating=10 + (i * 37) % 30) for i, w in enumerate(wishes)]
    assert len(people) == 23
    seating = seat(people, GAMES, seed=7)
    check(seating, people, computers=False)
    assert seating.waiting == ()
    assert seat(people, GAMES, seed=7) == seating
    late = [person(200, {"spit"}, 20), person(201, None, 35)]
    for newcomer in late:
        seating = place_latecomer(seating, newcomer, GAMES, seed=7).seating
    check(seating, people + late, computers=False, at_start=False)
    leaver = people[0].user_id
    seating = without(seating, leaver)
    assert leaver not in seating.seated() and leaver not in seating.waiting_ids()
    assert sorted(seating.seated() + seating.waiting_ids()) == sorted(
        p.user_id for p in people + late if p.user_id != leaver
    )
