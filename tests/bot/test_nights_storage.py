"""Game nights' storage (``bot.store.nights``): nights, answers, notices sent once, tables
and seats. Also run on PostgreSQL (tests/bot/test_postgres.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.clock import FakeClock
from bot.storage import StaleNight, Store

GUILD = 5
START = datetime(2025, 3, 20, 18, 30, tzinfo=UTC)


async def new_night(store: Store, **fields: object) -> int:
    base: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": 10,
        "title": "Friday cards",
        "starts_at": START,
        "planner_id": 111,
        "games": ["papayoo", "spit"],
    }
    base.update(fields)
    night = await store.nights.create(**base)  # type: ignore[arg-type]
    return night.id


async def test_a_night_is_stored_and_read_back(store: Store) -> None:
    night_id = await new_night(store, min_players=4, calloff_minutes=120, weekly=True,
                               allow_computers=True, event_id=77, meta={"tz": "Europe/Paris"})  # fmt: skip
    night = await store.nights.get(night_id)
    assert night is not None
    assert (night.title, night.starts_at, night.games, night.status) == (
        "Friday cards", START, ["papayoo", "spit"], "planned")  # fmt: skip
    assert (night.min_players, night.calloff_minutes, night.calloff_policy) == (4, 120, "cancel")
    assert night.allow_computers and night.weekly and night.is_open
    assert night.meta == {"tz": "Europe/Paris"} and night.version == 1
    assert await store.nights.by_event(GUILD, 77) == night
    assert await store.nights.by_event(GUILD + 1, 77) is None
    assert await store.nights.get(night_id + 100) is None


async def test_upcoming_lists_the_open_nights_soonest_first(store: Store) -> None:
    later = await new_night(store, starts_at=START + timedelta(days=7))
    sooner = await new_night(store)
    gone = await new_night(store, starts_at=START - timedelta(days=1))
    await store.nights.update(gone, status="cancelled")
    await new_night(store, guild_id=GUILD + 1)
    assert [n.id for n in await store.nights.upcoming(GUILD)] == [sooner, later]
    assert {n.id for n in await store.nights.open_nights()} >= {sooner, later}
    assert gone not in {n.id for n in await store.nights.open_nights()}


async def test_update_is_guarded_by_version_and_status(store: Store, clock: FakeClock) -> None:
    night_id = await new_night(store)
    clock.advance(timedelta(minutes=1))
    night = await store.nights.update(night_id, rsvp_message_id=999, games=["spit"],
                                      starts_at=START + timedelta(hours=1))  # fmt: skip
    assert night.version == 2 and night.rsvp_message_id == 999 and night.games == ["spit"]
    assert night.starts_at == START + timedelta(hours=1) and night.updated_at == clock.now()
    assert await store.nights.by_message(999) == night
    with pytest.raises(StaleNight):
        await store.nights.update(night_id, version=1, title="late")
    with pytest.raises(StaleNight):
        await store.nights.update(night_id, when_status=("polling",), status="cancelled")
    kept = await store.nights.get(night_id)
    assert kept is not None and kept.title == "Friday cards" and kept.status == "planned"
    done = await store.nights.update(night_id, version=2, when_status=("planned",),
                                     status="called_off")  # fmt: skip
    assert done.status == "called_off" and not done.is_open
    with pytest.raises(LookupError):
        await store.nights.update(night_id + 100, title="nobody")
    with pytest.raises(ValueError):
        await store.nights.update(night_id, status="sleeping")
    with pytest.raises(ValueError):
        await store.nights.update(night_id, planner_id=5)


async def test_one_of_two_racing_updates_wins(store: Store) -> None:
    night_id = await new_night(store)
    outcomes = await asyncio.gather(
        store.nights.update(night_id, version=1, status="cancelled"),
        store.nights.update(night_id, version=1, status="seating"),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["Night", "StaleNight"]


async def test_answers_change_and_keep_their_games(store: Store, clock: FakeClock) -> None:
    night_id = await new_night(store)
    await store.nights.set_rsvp(night_id, 1, "in", ["spit"])
    clock.advance(timedelta(seconds=1))
    await store.nights.set_rsvp(night_id, 2, "maybe")
    clock.advance(timedelta(seconds=1))
    await store.nights.set_rsvp(night_id, 3, "no")
    clock.advance(timedelta(seconds=1))
    changed = await store.nights.set_rsvp(night_id, 2, "in")
    assert changed.games == [] and changed.answer == "in"
    kept = await store.nights.set_rsvp(night_id, 1, "maybe")
    assert kept.games == ["spit"]
    again = await store.nights.set_rsvp(night_id, 1, "in", [])
    assert again.games == []
    assert [(r.user_id, r.answer) for r in await store.nights.rsvps(night_id)] == [
        (3, "no"),
        (1, "in"),
        (2, "in"),
    ]  # fmt: skip  (same instant: by user id)
    assert [r.user_id for r in await store.nights.attendees(night_id)] == [1, 2]
    assert (await store.nights.rsvp(night_id, 3)).answer == "no"  # type: ignore[union-attr]
    assert await store.nights.rsvp(night_id, 4) is None
    with pytest.raises(ValueError):
        await store.nights.set_rsvp(night_id, 4, "perhaps")  # type: ignore[arg-type]


async def test_a_notice_is_claimed_once(store: Store) -> None:
    night_id = await new_night(store)
    assert await store.nights.mark_sent(night_id, "remind_day", 1)
    assert not await store.nights.mark_sent(night_id, "remind_day", 1)
    assert await store.nights.mark_sent(night_id, "remind_hour", 1)
    assert await store.nights.mark_sent(night_id, "remind_day", 2)
    assert await store.nights.was_sent(night_id, "remind_day", 2)
    assert not await store.nights.was_sent(night_id, "calloff")
    claims = await asyncio.gather(*(store.nights.mark_sent(night_id, "calloff") for _ in range(5)))
    assert sorted(claims) == [False] * 4 + [True]


async def test_tables_seats_and_the_night_of_a_game(store: Store) -> None:
    night_id = await new_night(store)
    await store.nights.add_table(night_id, 1, "papayoo")
    table = await store.nights.add_table(night_id, 1, "papayoo", game_id=42, thread_id=900)
    assert (table.game_id, table.thread_id) == (42, 900)
    await store.nights.add_table(night_id, 2, "spit", game_id=43)
    assert [t.table_no for t in await store.nights.tables(night_id)] == [1, 2]
    found = await store.nights.night_of_game(43)
    assert found is not None and found.id == night_id
    assert await store.nights.night_of_game(44) is None
    await store.nights.set_seat(night_id, 1, 1, "seated")
    await store.nights.set_seat(night_id, 2, None, "waiting")
    await store.nights.set_seat(night_id, 1, None, "left")
    seats = {s.user_id: (s.table_no, s.status) for s in await store.nights.seats(night_id)}
    assert seats == {1: (None, "left"), 2: (None, "waiting")}
