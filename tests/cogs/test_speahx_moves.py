"""Speahx's hand controls: choose the cards, then play, one control per distinct move.

Over random playouts of 2 to 14 players (jokers on and off, card art on and off), every
hand's controls are read as a player meets them (every page), and checked against the
engine itself: a move's outcome is the game after it, applied to a copy. So:

- no two controls make equivalent moves (the same cards, as a multiset, ending the same way);
- every legal move of the engine is reachable by a control (itself or an equivalent one);
- Draw a chance card and Collect the pile are buttons whenever they are legal, on every page;
- every payload is one the fake Discord takes (its own validation: rows, labels, emojis);
- clicks per move: one for every move while the distinct plays fit as buttons (a hand of a
  few cards: always), at most two (open a select, pick) plus page turns otherwise.

Then end to end through the fake Discord: a duplicate order is played by its one control, a
huge hand's second page, and a click on controls of a decision that is gone.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import pytest

import bot.emojis
from bot.cardart import ART_KEYS
from bot.engine import load_game, new_game
from bot.engine.cards import standard_deck
from bot.engine.speahx import RANK, Speahx, top_run
from bot.fakediscord.validation import check_message, emoji_problem
from bot.i18n import Lang, t
from bot.seated import HandContext
from bot.seated.controls import stamp
from cogs.speahx._cog import RENDERER
from cogs.speahx._controls import distinct_moves, hand_controls, move_for
from tests.cogs.conftest import MakeBot
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

KIND = "speahx"
GAME_ID = 7
NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
STEPS = 160
"""Moves per random playout (a whole game of random moves can last thousands)."""
BUTTON_PLAYS = 20
"""Distinct plays that always come as buttons (four rows of five)."""


# -- reading the controls as a player meets them -----------------------------------------------


@dataclass
class Reach:
    """What the controls of one decision reach: legal index -> clicks (from the first page)."""

    clicks: dict[int, int] = field(default_factory=dict)
    buttons: dict[int, int] = field(default_factory=dict)
    """Index -> on how many pages it is a button."""
    pages: list[list[int]] = field(default_factory=list)
    """The indices of each page's controls."""
    problems: list[str] = field(default_factory=list)


def read_controls(view: Mapping[str, Any], locale: Lang) -> Reach:
    """Every page of the hand's controls: each control's index and its clicks, and every
    payload checked as the fake Discord checks it."""
    reach = Reach()
    legal = view["you"]["legal_actions"]
    mark = stamp(legal)
    prefix = f"gn:{KIND}:{GAME_ID}:"
    embed = RENDERER.hand(HandContext(GAME_ID, view, locale, NOW, (), "active"))
    page, turns = 0, 0
    seen_pages: set[int] = set()
    while page not in seen_pages:
        seen_pages.add(page)
        controls = hand_controls(KIND, GAME_ID, view, RENDERER.look, locale, page=page)
        assert controls is not None
        payload = {"embeds": [embed.to_dict()], "components": controls.to_components()}
        refused = check_message(payload, creating=True, has_files=False)
        if refused is not None:
            reach.problems.append(json.dumps(refused[1], ensure_ascii=False))
        next_page: int | None = None
        shown: list[int] = []
        reach.pages.append(shown)
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
                    if not comp["disabled"] and int(rest[0]) > page:
                        next_page = int(rest[0])
                    continue
                assert action == "do" and len(rest) == 1, custom_id
                index = int(rest[0])
                shown.append(index)
                reach.buttons[index] = reach.buttons.get(index, 0) + 1
                reach.clicks[index] = min(reach.clicks.get(index, 99), turns + 1)
            else:
                assert custom_id.startswith(f"gns:{KIND}:{GAME_ID}:do:{mark}."), custom_id
                for option in comp["options"]:
                    index = int(option["value"])
                    shown.append(index)
                    reach.clicks[index] = min(reach.clicks.get(index, 99), turns + 2)
        if next_page is None:
            break
        page, turns = next_page, turns + 1
    return reach


# -- the engine's own word on what a move does ------------------------------------------------


def outcome(game: Speahx, action: Mapping[str, Any]) -> tuple[Any, ...]:
    """The game after ``action`` (on a copy), up to what the rules never read: the order of
    the pile's cards (only their ranks on top, and the suit to follow, count), of burned and
    removed cards, and the events' wording."""
    after = Speahx.from_dict(game.to_dict())
    after.apply(after.to_act()[0], dict(action))
    state = after.to_dict()
    pile = state["pile"]
    return (
        state["phase"],
        state["turn"],
        tuple(tuple(sorted(h)) for h in state["hands"]),
        tuple(tuple(str(c) for c in row) for row in state["table"]),
        len(state["stock"]),
        (
            tuple(sorted(pile)),
            after.public_view()["suit"],
            top_run(pile),
            RANK[pile[-1]] if pile else "",
        ),
        state["named"],
        tuple(sorted(state["burned"])),
        tuple(sorted(state["removed"])),
        tuple(state["out"]),
        tuple(state["chance"]),
        state["chance_mode"],
        state["drawn"],
        state["turned"],
        json.dumps(state["known"], sort_keys=True),
    )


def move_of(action: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a move lays or does, without the order of its cards."""
    cards = action.get("cards") if action.get("type") == "play" else None
    if cards is not None:
        return ("play", tuple(sorted(cards)))
    return tuple(sorted((k, json.dumps(v)) for k, v in action.items()))


@dataclass
class Tally:
    decisions: int = 0
    big: int = 0
    """Decisions with more distinct plays than fit as buttons."""
    clicks: Counter[str] = field(default_factory=Counter)
    """``"<what> <clicks>"`` -> moves."""
    worst: int = 0


def check_decision(game: Speahx, player: str, locale: Lang, tally: Tally, where: str) -> None:
    view = game.view(player) | {"names": {player: "Marie-Bérénice Łukasiewicz-Ørsted"}}
    legal = view["you"]["legal_actions"]
    reach = read_controls(view, locale)
    assert not reach.problems, f"{where}: {reach.problems}"
    for shown in reach.pages:
        assert len(shown) == len(set(shown)), f"{where}: a move has two controls"
    on_pages = Counter(i for shown in reach.pages for i in shown)
    for index, pages in on_pages.items():
        everywhere = legal[index]["type"] in ("chance", "collect")
        assert pages == (len(reach.pages) if everywhere else 1), f"{where}: {legal[index]}"
    effects: dict[tuple[Any, ...], int] = {}
    for index in reach.clicks:
        assert 0 <= index < len(legal), where
        effect = (move_of(legal[index]), outcome(game, legal[index]))
        assert effect not in effects, (
            f"{where}: {legal[index]} and {legal[effects[effect]]} are the same move"
        )
        effects[effect] = index
    for action in legal:
        effect = (move_of(action), outcome(game, action))
        assert effect in effects, f"{where}: no control makes {action}"
    for index, action in enumerate(legal):
        if action["type"] in ("chance", "collect"):
            assert reach.buttons.get(index) == len(reach.pages), f"{where}: {action} not a button"
    plays = [m for m in distinct_moves(view) if m.rank is not None]
    tally.decisions += 1
    big = len(plays) > BUTTON_PLAYS
    tally.big += big
    for index, clicks in reach.clicks.items():
        kind = str(legal[index]["type"])
        cards = len(legal[index].get("cards") or []) if kind == "play" else 0
        what = f"{kind}{'' if kind != 'play' else ' ×1' if cards == 1 else ' ×n'}"
        tally.clicks[f"{what}{' (big hand)' if big else ''}: {clicks}"] += 1
        tally.worst = max(tally.worst, clicks)
        if not big or kind != "play":
            assert clicks == 1, f"{where}: {legal[index]} takes {clicks} clicks"
        else:
            assert clicks <= 2 + len(reach.pages) - 1, where


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
def test_every_decision_of_random_playouts_has_one_control_per_distinct_move(
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
    assert tally.big > 0, "no hand outgrew the buttons: the selects went unchecked"
    assert tally.clicks["chance: 1"] and tally.clicks["collect: 1"]
    assert tally.clicks["play ×1: 1"] > tally.clicks["play ×1 (big hand): 2"]
    print(f"\n{tally.decisions} decisions ({tally.big} big hands); clicks per move:")
    for what, moves in sorted(tally.clicks.items()):
        print(f"  {what}: {moves}")


def big_hand(seed: int = 1) -> tuple[Speahx, str]:
    """Two decks in one hand on an empty pile: more distinct plays than one page holds."""
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
    assert len(reach.pages) == 2
    assert max(reach.clicks.values()) == 3  # a page turn, then a select


def hand_with(hand: list[str], pile: list[str]) -> tuple[Speahx, str]:
    game = new_game(KIND, ["111", "222", "333"], 5, {})
    state = json.loads(game.dumps())
    state["hands"][state["turn"]] = hand
    state["pile"] = pile
    made = load_game(json.dumps(state))
    assert isinstance(made, Speahx)
    return made, state["players"][state["turn"]]


def labels(game: Speahx, player: str, locale: Lang = "en") -> list[list[str]]:
    controls = hand_controls(KIND, GAME_ID, game.view(player), RENDERER.look, locale)
    assert controls is not None
    return [[str(c.get("label") or c.get("placeholder")) for c in row] for row in controls.rows]


def test_three_eights_read_as_the_cards_then_which_one_ends_on_top() -> None:
    game, player = hand_with(["5D", "8S", "8H", "8C", "KH"], ["3C", "4H"])
    assert labels(game, player) == [
        ["8♥", "8♥ 8♠", "8♥ 8♣ 8♠ · 8♠ on top", "8♠ 8♣ 8♥ · 8♥ on top", "8♥ 8♠ 8♣ · 8♣ on top"],
        ["K♥"],
        ["Draw a chance card", "Collect the pile (2)"],
    ]
    assert labels(game, player, "fr")[0][2] == "8♥ 8♣ 8♠ · 8♠ dessus"
    # On an 8, the three 8s make four of a kind: one control, whichever goes on top.
    game, player = hand_with(["5D", "8S", "8H", "8C", "KH"], ["3C", "8D"])
    assert labels(game, player) == [
        ["5♦"],
        ["8♠", "8♥", "8♣", "8♠ 8♥", "8♠ 8♣ 8♥ · burns the pile"],
        ["Draw a chance card", "Collect the pile (2)"],
    ]


def test_orders_that_end_the_same_are_one_control() -> None:
    # 8♠ 8♥ on two 8s burn the pile whichever goes on top; two 10s burn it too.
    game, player = hand_with(["8S", "8H", "10S", "10C", "QH"], ["8D", "8C"])
    assert labels(game, player) == [
        ["8♠", "8♥", "8♥ 8♠ · burns the pile"],
        ["10♠", "10♣", "10♣ 10♠"],
        ["Draw a chance card", "Collect the pile (2)"],
    ]
    view = game.view(player)
    legal = view["you"]["legal_actions"]
    other = {"type": "play", "cards": ["8S", "8H"]}
    assert other in legal and move_for(view, other) == move_for(view, legal[2])
    assert move_for(view, {"type": "play", "cards": ["QH"]}) is None


def test_a_big_hand_groups_plays_by_rank_in_words() -> None:
    deck = standard_deck()
    rnd = random.Random(3)
    game, player = hand_with(rnd.sample(deck, 30), ["7H"])
    rows = labels(game, player)
    assert rows[-1] == ["Draw a chance card", "Collect the pile (1)"]
    placeholders = [row[0] for row in rows if row[0].startswith("Play ")]
    assert placeholders and all("Choose a move" not in p for p in placeholders)
    assert any("tens" in p for p in placeholders)


@pytest.fixture
def huge_first_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deal gives the first player two whole decks (and the pile is empty)."""
    dealt = Speahx.new.__func__  # type: ignore[attr-defined]

    def rigged(cls: type[Speahx], players: Any, seed: int, options: Any) -> Speahx:
        game: Speahx = dealt(cls, players, seed, options)
        state = game.to_dict()
        state["hands"][state["turn"]] = standard_deck() * 2
        return Speahx.from_dict(state)

    monkeypatch.setattr(Speahx, "new", classmethod(rigged))


@pytest.mark.usefixtures("huge_first_hand")
async def test_a_huge_hand_through_discord_turns_a_page_plays_and_refuses_a_stale_click(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot_ = make_bot(["cogs.speahx"])
    async with fake.run_client(bot_):
        guild = fake.add_guild("Office")
        channel = fake.add_text_channel(guild, "games")
        users = []
        for name in ("Ana", "Bob"):
            user = fake.add_user(name)
            fake.add_member(guild, user)
            users.append(user)
        seats = Seats(fake, bot_, KIND, channel, users)
        await seats.open_and_start({"turn_seconds": 0})
        stored = await seats.stored()
        player = stored.game.to_act()[0]
        user = seats.user(player)
        legal = stored.game.legal_actions(player)
        mark = stamp(legal)
        message = seats.hand(user)
        first = copy.deepcopy(message.components)
        ids = [str(c.get("custom_id")) for c in fake.components_of(message)]
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
