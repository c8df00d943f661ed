"""Random Späye days played to the end through the public protocol only, checking the
rules' invariants and the secrecy of cards at every step."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import SYSTEM, load_game, new_game
from bot.engine.base import Event, Game
from bot.engine.spaye import TITLES, month_standings
from bot.engine.spaye.rules import spaye_deck

POOL = ["11", "22", "33", "44", "55", "66"]
OUTSIDERS = ["77", "88"]
"""Committee members and last month's späyins who are not in the day's pool."""
DECK = Counter(spaye_deck())
CARDS = frozenset(DECK)
SORTED_DECK = sorted(DECK.elements())
NK = "NK"
MAX_STEPS = 3000


def setup(rnd: random.Random) -> tuple[list[str], dict[str, Any]]:
    roster = rnd.sample(POOL, rnd.randint(0, 3))
    options: dict[str, Any] = {}
    if rnd.random() < 0.7:
        options["bonuses"] = {t: rnd.choice(POOL) for t in TITLES if rnd.random() < 0.7}
    if rnd.random() < 0.5:
        options["month_spayins"] = rnd.sample([*POOL, *OUTSIDERS], 3)
    if rnd.random() < 0.3:
        options["committee"] = [rnd.choice(OUTSIDERS)]
    if rnd.random() < 0.2:
        options["exercise"] = "squats"
    return roster, options


# -- choosing a move through the public protocol ---------------------------------------------


def moves(game: Game) -> list[tuple[str, dict[str, Any]]]:
    """Every (player, action) on offer: what ``to_act`` lists, plus anyone of the pool
    challenging when that is open, plus the bot's expiry."""
    found = [(p, a) for p in game.to_act() for a in game.legal_actions(p)]
    for p in POOL:
        found += [
            (p, a)
            for a in game.legal_actions(p)
            if a["type"] in ("challenge", "propose_exercise", "agree_exercise")
        ]
    found += [(SYSTEM, a) for a in game.legal_actions(SYSTEM) if a["type"] == "expire"]
    return found


def fill(game: Game, player: str, action: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """Fill the ``None`` blanks the way the bot would from a command."""
    action = dict(action)
    others = [p for p in POOL if p != player]
    if action["type"] == "challenge":
        if "targets" in action:
            action["targets"] = rnd.sample(others, 2)
        else:
            action["target"] = rnd.choice(others)
    elif action["type"] == "propose_exercise":
        current = game.public_view()["exercise"]
        action["exercise"] = rnd.choice([x for x in ("squats", "plank", "burpees") if x != current])
    elif action["type"] == "recruit":
        busy = game.public_view()["daye"]["players"]
        action["player"] = rnd.choice([p for p in POOL if p not in busy])
    elif action["type"] == "ask_committee":
        ex = next(e for e in game.public_view()["exercises"] if e["id"] == action["id"])
        action["reps"] = rnd.randint(1, ex["reps"])
        action["exercise"] = rnd.choice([None, "squats", "plank"])
        if action["reps"] == ex["reps"] and action["exercise"] in (None, ex["exercise"]):
            action["exercise"] = "plank" if ex["exercise"] != "plank" else "squats"
    return action


def pick(game: Game, rnd: random.Random, close_rate: float) -> tuple[str, dict[str, Any]]:
    if rnd.random() < close_rate:
        return SYSTEM, {"type": "close"}
    options = moves(game)
    assert options, "nobody can move but the day is not over"
    player, action = rnd.choice(options)
    return player, fill(game, player, action, rnd)


# -- invariants ------------------------------------------------------------------------------


def raw(game: Game) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def revealed(daye: dict[str, Any] | None) -> list[str]:
    if daye is None:
        return []
    return [c for rnd in daye["rounds"][: daye["revealed"]] for _, c in rnd]


def hidden(daye: dict[str, Any] | None) -> list[str]:
    if daye is None:
        return []
    return [c for rnd in daye["rounds"][daye["revealed"] :] for _, c in rnd]


SHORT_VALUE = re.compile(r'(?<!\\)"(\w{2,3})"(?!\s*:)')
"""A short whole string value (not a key) of a JSON text: every card code is one."""


def cards_in_text(text: str) -> list[str]:
    """Every card code among the string values of a JSON text."""
    return [s for s in SHORT_VALUE.findall(text) if s in CARDS]


def cards_in(value: Any) -> list[str]:
    """Every card code among the string values (not the keys) of a JSON-compatible value."""
    return cards_in_text(json.dumps(value))


def check_cards(data: dict[str, Any]) -> None:
    """55 cards conserved; between rounds the table is odd and holds a nikäye; the final
    däye has exactly three cards."""
    face_down = hidden(data["daye"])
    assert sorted(data["table"] + data["discard"] + face_down) == SORTED_DECK
    if not face_down and data["table"]:
        assert len(data["table"]) % 2 == 1
        assert NK in data["table"], "the table holds cards but no nikäye"
    daye = data["daye"]
    if daye is not None and daye["final"]:
        assert len(daye["players"]) == 3
        assert len(data["table"]) + len(face_down) == 3


def check_events(events: list[Event]) -> None:
    for e in events:
        text = json.dumps(e)
        assert isinstance(e.get("type"), str)
        if e["type"] == "reveal":
            assert len(e["cards"]) == (3 if e["final"] else 2)
        elif e["type"] != "bonus_used":
            assert cards_in_text(text) == [], f"an event shows a card: {e}"


def check_views(game: Game, data: dict[str, Any]) -> None:
    """A view shows exactly the revealed cards of the däye under way and the last one."""
    allowed = Counter(revealed(data["daye"]) + revealed(data["last"]))
    for who in [*data["roster"], "stranger"]:
        view = game.view(who)
        text = json.dumps(view)
        assert "discard" not in view and isinstance(view["table"], int)
        assert Counter(cards_in_text(text)) == allowed
    assert Counter(cards_in(game.public_view())) == allowed


def check_to_act(game: Game) -> None:
    acting = game.to_act()
    assert SYSTEM not in acting and len(set(acting)) == len(acting)
    for p in acting:
        free = ("challenge", "propose_exercise", "agree_exercise")
        assert [a for a in game.legal_actions(p) if a["type"] not in free]


def check_result(game: Game) -> None:
    res = game.result()
    json.dumps(res)
    for p, cols in res["points"].items():
        assert res["scores"][p] == sum(cols.values())
        for col, n in cols.items():
            assert n == sum(
                t["points"] for t in res["timeline"] if t["player"] == p and t["column"] == col
            )
    ranked = [p for group in res["ranking"] for p in group]
    assert sorted(ranked) == sorted(res["scores"])


def play(
    seed: int, close_rate: float, check_every: int = 1, seen: Counter[str] | None = None
) -> tuple[Game, list[Any]]:
    rnd = random.Random(seed)
    roster, options = setup(rnd)
    game = new_game("spaye", roster, seed, options)
    log: list[Any] = []
    for step in range(MAX_STEPS):
        if game.is_over():
            break
        player, action = pick(game, rnd, close_rate)
        events = game.apply(player, json.loads(json.dumps(action)))
        log.append((player, action))
        check_events(events)
        if seen is not None:
            seen.update(e["type"] for e in events)
        checked = step % check_every == 0
        data = raw(game) if checked else game.to_dict()  # the JSON round trip when checked
        check_cards(data)
        if checked:
            check_to_act(game)
            check_views(game, data)
    assert game.is_over(), "the day never ended"
    assert game.to_act() == [] and game.legal_actions(POOL[0]) == []
    check_result(game)
    return game, log


# -- hundreds of seeded days -----------------------------------------------------------------


SLOW = pytest.mark.slow


@pytest.mark.parametrize("chunk", [0, 1, pytest.param(2, marks=SLOW), pytest.param(3, marks=SLOW)])
def test_random_days_play_to_the_end(chunk: int) -> None:
    results = []
    seen: Counter[str] = Counter()
    for seed in range(chunk * 75, (chunk + 1) * 75):
        game, _ = play(seed, close_rate=0.0, check_every=7, seen=seen)
        res = game.result()
        assert res["status"] == "finished"
        assert game.public_view()["table"] == 0
        daye_points = sum(cols["daye"] for cols in res["points"].values())
        assert daye_points == 2 * (res["dayes"] - 1) + 9  # ordinary däyes, then the final
        results.append(res)
    month = month_standings(results)
    assert month["days"] == 75
    assert None not in month["titles"].values()
    common = {"tie", "nikaye_reinserted", "adjustment_approved", "adjustment_refused"}
    common |= {"bonus_used", "exercise_done", "exercise_given_up", "challenge_expired"}
    assert common <= set(seen)


@pytest.mark.parametrize("chunk", [0, pytest.param(1, marks=SLOW)])
def test_random_days_closed_at_any_time(chunk: int) -> None:
    statuses: Counter[str] = Counter()
    for seed in range(1000 + chunk * 50, 1000 + (chunk + 1) * 50):
        game, _ = play(seed, close_rate=0.01, check_every=5)
        res = game.result()
        statuses[res["status"]] += 1
        if res["status"] == "voided":
            assert res["timeline"] == [] and set(res["scores"].values()) <= {0}
    assert statuses["voided"] > 0


def test_same_seed_same_day() -> None:
    one, log_one = play(7, close_rate=0.0, check_every=50)
    two, log_two = play(7, close_rate=0.0, check_every=50)
    assert log_one == log_two and one.dumps() == two.dumps()


# -- properties ------------------------------------------------------------------------------

PROPERTY = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@PROPERTY
@given(seed=st.integers(0, 2**32), close_rate=st.sampled_from([0.0, 0.003, 0.02]))
def test_invariants_hold_at_every_step(seed: int, close_rate: float) -> None:
    play(seed, close_rate)


@PROPERTY
@given(seed=st.integers(0, 2**32), fork=st.integers(0, 250))
def test_a_day_saved_at_any_point_goes_on_identically(seed: int, fork: int) -> None:
    rnd = random.Random(seed)
    roster, options = setup(rnd)
    game = new_game("spaye", roster, seed, options)
    copy: Game | None = None
    for step in range(MAX_STEPS):
        if step == fork:
            copy = load_game(game.dumps())
        if game.is_over():
            break
        player, action = pick(game, rnd, 0.002)
        events = game.apply(player, action)
        if copy is not None:
            assert copy.apply(player, json.loads(json.dumps(action))) == events
    if copy is None:
        copy = load_game(game.dumps())
    assert copy.dumps() == game.dumps()
    assert copy.result() == game.result()
