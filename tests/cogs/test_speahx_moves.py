"""Speahx's hand controls: the cards by rank and count, then the top card when it matters.

Every screen of a hand's controls is read as a player meets them (the first screen, then
each screen its buttons open), and checked against the engine itself: a move's outcome is
the game after it, applied to a copy. So, for random hands of every size up to 45 cards
(hypothesis) and for every decision of random playouts of 2 to 14 players:

- every legal move of the engine is reachable in at most two clicks (a button; a button then
  a button; a select, opened then one pick), with at most eight controls on every screen;
- nothing illegal is offered, and no two controls make the same move (as many cards of one
  rank, the same pile left to follow);
- a label says what the engine does: the suit to follow, a burn, "you play again", the
  Terminator (every four-jack combination, jokers on and off);
- Draw a chance card and Collect the pile are buttons on the first screen whenever legal;
- every payload is one the fake Discord takes (its own validation: rows, labels, emojis).

Then end to end through the fake Discord: a many-move hand, a three-card move in two clicks
that survives a restart between them, the top-card step only when it matters, a stale step
refused, and a hand of two decks (past a hundred moves: its selects are paged).
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot.emojis
from bot.cardart import ART_KEYS
from bot.engine import load_game, new_game
from bot.engine.cards import standard_deck
from bot.engine.speahx import RANK, Speahx, full_deck, is_terminator, top_run
from bot.fakediscord.validation import check_message, emoji_problem
from bot.i18n import Lang, t
from bot.seated import HandContext
from bot.seated.controls import stamp
from cogs.speahx._cog import RENDERER
from cogs.speahx._controls import CONTROLS_MAX, distinct_moves, hand_controls, move_for, plan
from tests.cogs.conftest import MakeBot
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

KIND = "speahx"
GAME_ID = 7
NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
STEPS = 160
"""Moves per random playout (a whole game of random moves can last thousands)."""
SELECTS_HOLD = 100
"""Distinct moves that four selects hold: past that, a hand's selects are paged."""


# -- reading the controls as a player meets them -----------------------------------------------


@dataclass
class Reach:
    """What the controls of one decision reach: legal index -> clicks (from the first screen)."""

    clicks: dict[int, int] = field(default_factory=dict)
    first: dict[int, str] = field(default_factory=dict)
    """Index -> its control's kind on the first screen ("button" or "select")."""
    shown: dict[int, int] = field(default_factory=dict)
    """Screen -> the controls it shows."""
    offered: Counter[int] = field(default_factory=Counter)
    """Index -> on how many controls it is."""
    labels: dict[int, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def read_controls(view: Mapping[str, Any], locale: Lang) -> Reach:
    """Every screen of the hand's controls: each move's fewest clicks, every payload checked
    as the fake Discord checks it."""
    reach = Reach()
    legal = view["you"]["legal_actions"]
    mark = stamp(legal)
    prefix = f"gn:{KIND}:{GAME_ID}:"
    embed = RENDERER.hand(HandContext(GAME_ID, view, locale, NOW, (), "active"))
    todo = [(0, 0)]
    seen: set[int] = set()
    while todo:
        screen, depth = todo.pop(0)
        if screen in seen:
            continue
        seen.add(screen)
        controls = hand_controls(KIND, GAME_ID, view, RENDERER, locale, page=screen)
        assert controls is not None
        payload = {"embeds": [embed.to_dict()], "components": controls.to_components()}
        refused = check_message(payload, creating=True, has_files=False)
        if refused is not None:
            reach.problems.append(json.dumps(refused[1], ensure_ascii=False))
        reach.shown[screen] = len(controls.components)
        for comp in controls.components:
            for emoji in [comp.get("emoji")] + [o.get("emoji") for o in comp.get("options", [])]:
                if emoji is not None and emoji_problem(emoji) is not None:
                    reach.problems.append(f"emoji {emoji!r}")
            custom_id = str(comp["custom_id"])
            if comp["type"] == 2:
                assert custom_id.startswith(prefix), custom_id
                action, arg = custom_id.removeprefix(prefix).split(":", 1)
                head, *rest = arg.split(".")
                assert head == mark
                if action == "page":
                    if not comp["disabled"]:
                        todo.append((int(rest[0]), depth + 1))
                    continue
                assert action == "do" and len(rest) == 1, custom_id
                found = [(int(rest[0]), depth + 1, str(comp.get("label")))]
                kind = "button"
            else:
                assert custom_id.startswith(f"gns:{KIND}:{GAME_ID}:do:{mark}."), custom_id
                found = [(int(o["value"]), depth + 2, str(o["label"])) for o in comp["options"]]
                kind = "select"
            for index, clicks, label in found:
                reach.offered[index] += 1
                reach.clicks[index] = min(reach.clicks.get(index, 99), clicks)
                reach.labels[index] = label
                if screen == 0:
                    reach.first[index] = kind
    return reach


# -- the engine's own word on what a move does ------------------------------------------------


def outcome(game: Speahx, action: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a move decides, by the engine: the cards' rank and count (which cards of the
    rank go is the bot's choice), and the pile left to follow (its suit, its run on top,
    what stays after a partial burn), the burns and who plays next."""
    after = Speahx.from_dict(game.to_dict())
    events = after.apply(after.to_act()[0], dict(action))
    if action["type"] != "play":
        return tuple(sorted((k, json.dumps(v)) for k, v in action.items() if k != "cards"))
    view = after.public_view()
    pile = view["pile"]
    partial = any(e["type"] == "burn" and not e["again"] for e in events)
    return (
        RANK[action["cards"][0]],
        len(action["cards"]),
        view["phase"],
        view["turn"],
        view["suit"] if view["phase"] != "suit" else None,
        top_run(pile),
        tuple(sorted(pile)) if partial else len(pile),
        view["burned"],
        view["removed"],
        tuple(view["out"]),
    )


def says(game: Speahx, action: Mapping[str, Any], label: str, locale: Lang) -> None:
    """A play's label says what the engine does: the Terminator, a burn of the whole pile
    and whether the same player plays again, the suit the next player follows."""
    player = game.to_act()[0]
    after = Speahx.from_dict(game.to_dict())
    events = after.apply(player, dict(action))
    burns = [e for e in events if e["type"] == "burn"]
    assert ("Terminator" in label) == any(e["why"] == "terminator" for e in burns), label
    leaves = any(e["why"] in ("joker", "terminator") for e in burns)
    whole = any(e["why"] in ("ten", "four") and e["again"] for e in burns)
    again = after.to_act() == [player] and after.public_view()["phase"] == "play"
    burn_words = t("speahx.look.burns", locale)
    assert (burn_words in label) == whole, (label, events)
    assert (t("speahx.look.burns_again", locale) in label) == (whole and again), label
    view = after.public_view()
    if not whole and not leaves and view["phase"] != "suit" and view["suit"]:
        assert t(f"speahx.suit.{view['suit']}", locale) in label, (label, view["suit"])


@dataclass
class Tally:
    decisions: int = 0
    clicks: Counter[str] = field(default_factory=Counter)
    """``"<what>: <clicks>"`` -> moves."""
    most_shown: int = 0
    steps: int = 0
    """Decisions with a second screen."""


def check_decision(game: Speahx, player: str, locale: Lang, tally: Tally, where: str) -> None:
    view = game.view(player) | {"names": {player: "Marie-Bérénice Łukasiewicz-Ørsted"}}
    legal = view["you"]["legal_actions"]
    reach = read_controls(view, locale)
    assert not reach.problems, f"{where}: {reach.problems}"
    assert max(reach.shown.values()) <= CONTROLS_MAX, f"{where}: {reach.shown}"
    tally.most_shown = max(tally.most_shown, *reach.shown.values())
    tally.steps += len(reach.shown) > 1
    for index, times in reach.offered.items():
        every_page = legal[index]["type"] in ("chance", "collect")  # on each page of a huge hand
        assert times == 1 or every_page, f"{where}: {legal[index]} has {times} controls"
    effects: dict[tuple[Any, ...], int] = {}
    for index in reach.clicks:
        assert 0 <= index < len(legal), f"{where}: {index} is no legal move"
        effect = outcome(game, legal[index])
        assert effect not in effects, (
            f"{where}: {legal[index]} and {legal[effects[effect]]} are the same move"
        )
        effects[effect] = index
        if legal[index]["type"] == "play":
            says(game, legal[index], reach.labels[index], locale)
    for action in legal:
        assert outcome(game, action) in effects, f"{where}: no control makes {action}"
    for index, action in enumerate(legal):
        if action["type"] in ("chance", "collect"):
            assert reach.first.get(index) == "button", f"{where}: {action} not a button"
    paged = len(distinct_moves(view)) > SELECTS_HOLD
    tally.decisions += 1
    for index, clicks in reach.clicks.items():
        kind = str(legal[index]["type"])
        cards = len(legal[index].get("cards") or []) if kind == "play" else 0
        what = f"{kind}{'' if kind != 'play' else ' ×1' if cards == 1 else ' ×n'}"
        tally.clicks[f"{what}: {clicks}"] += 1
        if not paged:
            assert clicks <= 2, f"{where}: {legal[index]} takes {clicks} clicks"
        if kind in ("chance", "collect"):
            assert clicks == 1, where


def playout(players: int, seed: int) -> Iterator[tuple[Speahx, str]]:
    names = [f"{900 + k}" for k in range(players)]
    game = new_game(KIND, names, seed, {"jokers": seed % 2 == 1})
    assert isinstance(game, Speahx)
    rnd = random.Random(seed)
    for _ in range(STEPS):
        if game.is_over():
            return
        player = game.to_act()[0]
        yield game, player
        legal = game.legal_actions(player)
        # Collect a little more often than at random: the hands that grow are the hard ones.
        collect = [a for a in legal if a["type"] == "collect"]
        action = collect[0] if collect and rnd.random() < 0.3 else rnd.choice(legal)
        game.apply(player, action)


@pytest.fixture
def card_art(monkeypatch: pytest.MonkeyPatch) -> None:
    """The application has an emoji for every card."""
    registry = bot.emojis.CardEmojis()
    registry._emojis = {
        key: discord.PartialEmoji(name=f"gn_{key}_abc123", id=10**17 + k)
        for k, key in enumerate(ART_KEYS)
    }
    monkeypatch.setattr(bot.emojis, "_active", registry)


@pytest.mark.parametrize("art", [False, True], ids=["text", "art"])
def test_every_decision_of_random_playouts_reaches_every_move_in_two_clicks(
    art: bool, request: pytest.FixtureRequest
) -> None:
    if art:
        request.getfixturevalue("card_art")
    tally = Tally()
    for players in range(2, 15):
        seed = players * 31 + art
        locale: Lang = "fr" if players % 3 == 0 else "en"
        for step, (game, player) in enumerate(playout(players, seed)):
            check_decision(game, player, locale, tally, f"{players}p seed {seed} step {step}")
    assert tally.decisions > 1000
    assert tally.steps > 0, "no choice of cards ended in several ways: no second screen met"
    assert tally.clicks["chance: 1"] and tally.clicks["collect: 1"]
    assert tally.clicks["play ×n: 2"] and tally.clicks["play ×1: 1"]
    print(f"\n{tally.decisions} decisions, at most {tally.most_shown} controls; clicks:")
    for what, moves in sorted(tally.clicks.items()):
        print(f"  {what}: {moves}")


@st.composite
def speahx_states(draw: st.DrawFn) -> tuple[Speahx, str]:
    """A random turn: any table size, jokers or not, a hand of 1 to 45 cards of the game's
    decks, a pile of 0 to 10 of the others, the stock full or empty, maybe a chance card."""
    players = draw(st.integers(2, 14))
    jokers = draw(st.booleans())
    seed = draw(st.integers(0, 2**32))
    game = new_game(KIND, [f"{900 + k}" for k in range(players)], seed, {"jokers": jokers})
    assert isinstance(game, Speahx)
    state = game.to_dict()
    deck = full_deck(players, jokers)
    random.Random(seed).shuffle(deck)
    size = draw(st.integers(1, 45))
    piled = draw(st.integers(0, 10))
    turn = state["turn"]
    state["hands"][turn] = deck[:size]
    state["pile"] = [c for c in deck[size : size + piled] if c != "JK"]
    rest = deck[size + piled :]
    state["stock"] = rest if draw(st.booleans()) else []
    if state["pile"] and RANK[state["pile"][-1]] == "2":
        state["named"] = draw(st.sampled_from("SHDC"))
    if state["stock"] and draw(st.integers(0, 3)) == 0:
        state["chance"] = [state["stock"].pop()]
        state["chance_mode"] = True
        state["drawn"] = draw(st.integers(1, 3))
    if not state["stock"] and draw(st.booleans()):
        state["hands"][turn] = []  # hand and stock empty: the table cards' turn
    made = Speahx.from_dict(state)
    return made, state["players"][turn]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(speahx_states(), st.sampled_from(["en", "fr"]))
def test_any_hand_reaches_every_legal_move_in_two_clicks_of_eight_controls(
    state: tuple[Speahx, str], locale: Lang
) -> None:
    game, player = state
    tally = Tally()
    check_decision(game, player, locale, tally, "random state")
    view = game.view(player)
    assert len(distinct_moves(view)) <= SELECTS_HOLD  # a hand of up to 45 cards
    assert all(c <= 2 for c in read_controls(view, locale).clicks.values())


def hand_with(hand: list[str], pile: list[str], *, jokers: bool = False) -> tuple[Speahx, str]:
    game = new_game(KIND, ["111", "222", "333"], 5, {"jokers": jokers})
    state = json.loads(game.dumps())
    state["hands"][state["turn"]] = hand
    state["pile"] = pile
    made = load_game(json.dumps(state))
    assert isinstance(made, Speahx)
    return made, state["players"][state["turn"]]


def labels(game: Speahx, player: str, locale: Lang = "en", page: int = 0) -> list[list[str]]:
    controls = hand_controls(KIND, GAME_ID, game.view(player), RENDERER, locale, page=page)
    assert controls is not None
    return [[str(c.get("label") or c.get("placeholder")) for c in row] for row in controls.rows]


def test_three_eights_read_as_the_cards_then_which_one_ends_on_top() -> None:
    game, player = hand_with(["5D", "8S", "8H", "8C", "KH"], ["3C", "4H"])
    assert labels(game, player) == [
        [
            "8♥ · ♥ hearts to follow",
            "2× 8 · ♠ spades to follow",
            "3× 8: choose the card on top",
            "K♥ · ♥ hearts to follow",
        ],
        ["Draw a chance card", "Collect the pile (2)"],
    ]
    assert labels(game, player, page=1) == [
        [
            "8♠ on top · ♠ spades to follow",
            "8♥ on top · ♥ hearts to follow",
            "8♣ on top · ♣ clubs to follow",
        ],
        ["Back to every move"],
    ]
    assert labels(game, player, "fr", page=1)[0][0] == "8♠ dessus · ♠ pique à suivre"
    # On an 8, three 8s make four of a kind: one control, whichever goes on top.
    game, player = hand_with(["5D", "8S", "8H", "8C", "KH"], ["3C", "8D"])
    assert labels(game, player) == [
        [
            "5♦ · ♦ diamonds to follow",
            "1× 8: choose the card on top",
            "2× 8 · ♥ hearts to follow",
            "3× 8 · burns the pile, you play again",
        ],
        ["Draw a chance card", "Collect the pile (2)"],
    ]


def test_orders_and_cards_that_end_the_same_are_one_control() -> None:
    # 8♠ 8♥ on two 8s burn the pile whichever goes on top; one 10 burns it whichever it is.
    game, player = hand_with(["8S", "8H", "10S", "10C", "QH"], ["8D", "8C"])
    assert labels(game, player) == [
        [
            "1× 8: choose the card on top",
            "2× 8 · burns the pile, you play again",
            "10♠ · burns the pile, you play again",
            "2× 10 · burns the pile, you play again",
        ],
        ["Draw a chance card", "Collect the pile (2)"],
    ]
    view = game.view(player)
    legal = view["you"]["legal_actions"]
    tens = [a for a in legal if a["type"] == "play" and a["cards"] in (["10S"], ["10C"])]
    assert len(tens) == 2 and move_for(view, tens[0]) == move_for(view, tens[1])
    assert move_for(view, {"type": "play", "cards": ["QH"]}) is None


def test_the_prompt_offers_only_the_legal_moves() -> None:
    """ "… or collect the pile" only where Collect is a control; no draw once the stock is
    out; table cards when they are the move."""

    def prompt(game: Speahx, player: str, locale: Lang = "en") -> str:
        view = game.view(player)
        return RENDERER.prompt(HandContext(GAME_ID, view, locale, NOW, (), "active"))

    game, player = hand_with(["5D", "KH"], [])
    state = game.to_dict()
    state["chance"], state["chance_mode"], state["drawn"] = ["7S"], True, 1
    state["stock"].remove("7S") if "7S" in state["stock"] else None
    chance = Speahx.from_dict(state)
    kinds = {a["type"] for a in chance.legal_actions(player)}
    assert "collect" not in kinds
    assert prompt(chance, player) == "**Chance card 1/3** drawn: play it or draw another."
    assert (
        prompt(chance, player, "fr")
        == "**Carte chance 1/3** tirée : jouez-la ou tirez-en une autre."
    )
    game, player = hand_with(["5D", "KH"], ["3D"])
    assert prompt(game, player) == (
        "**Your turn**: play cards of one rank, draw a chance card, or collect the pile."
    )
    state = game.to_dict()
    state["stock"], state["hands"][state["turn"]] = [], []
    table = Speahx.from_dict(state)
    assert prompt(table, player) == (
        "**Your turn**: turn one of your table cards or collect the pile."
    )
    state["pile"] = []
    assert prompt(Speahx.from_dict(state), player) == "**Your turn**: turn one of your table cards."


JACKS = [f"J{s}" for s in "SHDC"]


@pytest.mark.parametrize("jokers", [False, True], ids=["no jokers", "jokers"])
def test_the_terminator_label_agrees_with_the_engine_for_every_four_jacks(jokers: bool) -> None:
    """Every four jacks (three decks: a suit up to three times), as the engine's play and as
    the renderer's labels (the move's control, the timer's line): "Terminator" exactly when
    the engine says so."""
    seen = 0
    for four in itertools.combinations_with_replacement(JACKS, 4):
        cards = list(four)
        verdict = is_terminator(cards, jokers)
        game, player = hand_with([*sorted(cards), "5D"], [], jokers=jokers)
        view = game.view(player)
        label = RENDERER.action_label({"type": "play", "cards": cards}, view, "en").text
        assert ("Terminator" in label) == verdict, (cards, jokers, label)
        four_jacks = [m for m in distinct_moves(view) if m.rank == "J" and m.count == 4]
        assert four_jacks, cards
        seen += 1
        for move in four_jacks:
            text = RENDERER.look(move, view, "en").text
            after = Speahx.from_dict(game.to_dict())
            events = after.apply(player, dict(move.action))
            engine = any(e["type"] == "burn" and e["why"] == "terminator" for e in events)
            assert ("Terminator" in text) == engine == move.terminator, (move.action, text)
    assert seen == 35  # every multiset of four jacks (a suit up to four times)


def test_a_many_move_hand_shows_at_most_eight_controls() -> None:
    game, player = hand_with(random.Random(3).sample(standard_deck(), 30), ["7H"])
    view = game.view(player)
    assert len(distinct_moves(view)) > 20
    laid = plan(distinct_moves(view))
    for page in [0, *laid.steps]:
        rows = labels(game, player, page=page)
        assert sum(len(r) for r in rows) <= CONTROLS_MAX
    assert labels(game, player)[-1] == ["Draw a chance card", "Collect the pile (1)"]


def big_hand(seed: int = 1) -> tuple[Speahx, str]:
    """Two decks in one hand on an empty pile: more distinct moves than four selects hold."""
    game = new_game(KIND, ["111", "222", "333"], seed, {})
    state = json.loads(game.dumps())
    state["hands"][state["turn"]] = standard_deck() * 2
    state["pile"] = []
    big = load_game(json.dumps(state))
    assert isinstance(big, Speahx)
    return big, state["players"][state["turn"]]


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_a_huge_hand_pages_its_selects_and_keeps_draw_as_a_button(locale: Lang) -> None:
    game, player = big_hand()
    tally = Tally()
    check_decision(game, player, locale, tally, "huge hand")
    reach = read_controls(game.view(player), locale)
    assert len(reach.shown) == 2 and max(reach.shown.values()) <= CONTROLS_MAX
    assert max(reach.clicks.values()) == 3  # a page turn, then a select


# -- through the fake Discord -------------------------------------------------------------------

MANY = ["3D", "5S", "8S", "8H", "8C", "10S", "10H", "KS"]
"""A first hand of 13 moves on an empty pile: the 8s end seven ways, two 10s one way."""


def rig(monkeypatch: pytest.MonkeyPatch, hand: list[str]) -> None:
    """The deal gives the first player ``hand`` (the pile is empty)."""
    dealt = Speahx.new.__func__  # type: ignore[attr-defined]

    def rigged(cls: type[Speahx], players: Any, seed: int, options: Any) -> Speahx:
        game: Speahx = dealt(cls, players, seed, options)
        state = game.to_dict()
        state["hands"][state["turn"]] = list(hand)
        return Speahx.from_dict(state)

    monkeypatch.setattr(Speahx, "new", classmethod(rigged))


def two_players(fake: FakeDiscord, bot_: Any) -> Seats:
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    users = []
    for name in ("Ana", "Bob"):
        user = fake.add_user(name)
        fake.add_member(guild, user)
        users.append(user)
    return Seats(fake, bot_, KIND, channel, users)


def controls(fake: FakeDiscord, message: Any) -> list[dict[str, Any]]:
    """The buttons and selects a message shows (not its rows)."""
    return [c for c in fake.components_of(message) if c.get("type") != 1]


def button(fake: FakeDiscord, message: Any, label: str) -> dict[str, Any]:
    return next(c for c in controls(fake, message) if str(c.get("label")).startswith(label))


@pytest.mark.e2e
async def test_three_cards_in_two_clicks_through_a_restart_and_one_way_moves_in_one(
    fake_discord: FakeDiscord,
    make_bot: MakeBot,
    monkeypatch: pytest.MonkeyPatch,
    db_file: Path,
) -> None:
    rig(monkeypatch, MANY)
    fake = fake_discord
    bot_ = make_bot(["cogs.speahx"])
    async with fake.run_client(bot_) as running:
        seats = two_players(fake, bot_)
        await seats.open_and_start({"turn_seconds": 0})
        stored = await seats.stored()
        player = stored.game.to_act()[0]
        user = seats.user(player)
        message = seats.hand(user)
        shown = controls(fake, message)
        assert len(distinct_moves(stored.game.view(player))) > CONTROLS_MAX
        assert len(shown) <= CONTROLS_MAX, [c.get("label") for c in shown]
        # Two 10s end one way: their control plays at once; three 8s open the top card.
        tens = button(fake, message, "2× 10 · burns the pile")
        assert ":do:" in tens["custom_id"]
        eights = button(fake, message, "Eights")
        assert ":page:" in eights["custom_id"]
        opened = await fake.click(user, message, eights["custom_id"], settle=seats.settle)
        assert opened.callback_type == 7, opened.text
        assert (await seats.stored()).version == stored.version  # nothing played yet
        await running.crash()
    await bot_.store.close()
    again = make_bot(["cogs.speahx"])
    async with fake.run_client(again):
        seats.bot = again
        message = seats.hand(user)
        three = button(fake, message, "3× 8 · ♣")
        played = await fake.click(user, message, three["custom_id"], settle=seats.settle)
        assert played.callback_type == 7, played.text
        await seats.cog.settle()
        after = await seats.stored()
        assert after.version == stored.version + 1
        play = next(e for e in after.game.public_view()["last"] if e["type"] == "play")
        assert sorted(play["cards"]) == ["8C", "8H", "8S"] and play["cards"][-1] == "8C"
        assert after.game.public_view()["suit"] == "C"
    await again.store.close()


@pytest.mark.e2e
async def test_a_second_step_from_an_earlier_turn_is_refused_with_the_hand_now(
    fake_discord: FakeDiscord, make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig(monkeypatch, ["5S", "8S", "8H", "KH", "KS"])
    fake = fake_discord
    bot_ = make_bot(["cogs.speahx"])
    async with fake.run_client(bot_):
        seats = two_players(fake, bot_)
        await seats.open_and_start({"turn_seconds": 0})
        stored = await seats.stored()
        player = stored.game.to_act()[0]
        user = seats.user(player)
        message = seats.hand(user)
        first = copy.deepcopy(message.components)
        step = button(fake, message, "1× 8")
        opened = await fake.click(user, message, step["custom_id"], settle=seats.settle)
        assert opened.callback_type == 7, opened.text
        message = seats.hand(user)
        labels_now = [str(c.get("label")) for c in controls(fake, message)]
        assert labels_now == [
            "8♠ on top · ♠ spades to follow",
            "8♥ on top · ♥ hearts to follow",
            "Back to every move",
        ]
        second = copy.deepcopy(message.components)
        back = button(fake, message, "Back")
        assert (await fake.click(user, message, back["custom_id"])).callback_type == 7
        # The player plays 5♠ instead: both screens of that decision are now stale.
        await seats.act(player, {"type": "play", "cards": ["5S"]})
        after = await seats.stored()
        assert after.version == stored.version + 1
        for screen, label in ((second, "8♠ on top"), (first, "1× 8")):
            message = seats.hand(user)
            message.components = copy.deepcopy(screen)
            old = button(fake, message, label)
            stale = await fake.click(user, message, old["custom_id"])
            assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
            assert "Not your turn" in stale.text or "⏳" in stale.text, stale.text
            assert (await seats.stored()).version == after.version
    await bot_.store.close()


@pytest.fixture
def huge_first_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deal gives the first player two whole decks (and the pile is empty)."""
    rig(monkeypatch, standard_deck() * 2)


@pytest.mark.usefixtures("huge_first_hand")
async def test_a_huge_hand_through_discord_turns_a_page_plays_and_refuses_a_stale_click(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot_ = make_bot(["cogs.speahx"])
    async with fake.run_client(bot_):
        seats = two_players(fake, bot_)
        await seats.open_and_start({"turn_seconds": 0})
        stored = await seats.stored()
        player = stored.game.to_act()[0]
        user = seats.user(player)
        legal = stored.game.legal_actions(player)
        mark = stamp(legal)
        message = seats.hand(user)
        first = copy.deepcopy(message.components)
        ids = [str(c.get("custom_id")) for c in controls(fake, message)]
        assert len(ids) <= CONTROLS_MAX
        assert f"gn:{KIND}:{stored.id}:page:{mark}.1" in ids
        assert any(i.startswith(f"gn:{KIND}:{stored.id}:do:") for i in ids)  # Draw
        turned = await fake.click(
            user, message, f"gn:{KIND}:{stored.id}:page:{mark}.1", settle=seats.settle
        )
        assert turned.callback_type == 7, turned.text
        message = seats.hand(user)
        last = fake.selects(message)[-1]
        value = last["options"][-1]["value"]
        assert legal[int(value)]["type"] == "play"
        picked = await fake.select(user, message, last["custom_id"], [value], settle=seats.settle)
        assert picked.callback_type == 7, picked.text
        await seats.cog.settle()
        after = await seats.stored()
        assert after.version == stored.version + 1
        # A click on the first page's controls, racing the edit: nothing is played, and the
        # player is answered on their own hand, saying why.
        message = seats.hand(user)
        message.components = first
        select = fake.selects(message)[0]
        option = select["options"][0]["value"]
        stale = await fake.select(user, message, select["custom_id"], [option])
        assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
        assert (await seats.stored()).version == after.version
    await bot_.store.close()
