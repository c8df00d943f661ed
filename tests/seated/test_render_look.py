"""The kit's look: cards as cards, tables that read at a glance (Papayoo's the whole way).

A whole four-player Papayoo game (three colleagues and a computer) is rendered step by step
from the engine alone, no Discord, once with the card emojis off (cards as ``7♥``) and once
with every card's art uploaded (a registry filled through :class:`bot.emojis.CardEmojis`):

- the table: the seats in playing order, ``▶`` before whoever must act, a computer seat
  "thinking…" and never the turn timer's countdown, the previous trick (who played what, who
  took it), the scores round by round, the Papayoo of the round;
- the hand: sorted by suit then rank, a line and a row of buttons per suit, each button a
  card's art and rank (or ``7♥`` without art), the playable ones in their suit's colour;
- every payload (the table, each hand and its controls, the pass select) is one the fake
  Discord's validation takes, with the application's own emojis only.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.cardart import ART_KEYS
from bot.emojis import CardEmojis
from bot.engine import Game, new_game
from bot.engine.cards import standard_deck, suit_of
from bot.fakediscord.validation import check_message, emoji_problem, walk_with_paths
from bot.i18n import Lang, t
from bot.seated import HandContext, TableContext
from bot.seated.controls import group_rows, hand_controls
from bot.seated.render import BLANK
from bot.ui import PayloadView
from cogs.papayoo._pass import suggested_pass
from cogs.papayoo._render import PapayooRenderer
from cogs.speahx._render import SpeahxRenderer
from tests.seated.toy import HighCardRenderer

NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
DEADLINE = NOW + timedelta(seconds=90)
PLAYERS = ["111", "222", "333", "cpu1"]
NAMES = {"111": "Ana", "222": "Bob", "333": "Élodie"}
RENDER = PapayooRenderer()
CARD_TEXT = re.compile(r"^(P\d{1,2}|\d{1,2}[♠♥♦♣])$")
ART = re.compile(r"<:gn_(PY)?[0-9A-Z]+_[0-9a-f]{6}:(\d+)>")


class Uploads:
    """What the registry's sync calls: an application with no emoji yet, every upload
    taken (ids handed out in turn)."""

    def __init__(self) -> None:
        self.ids = itertools.count(1_300_000_000_000_000_000)

    async def fetch_application_emojis(self) -> list[Any]:
        return []

    async def create_application_emoji(self, *, name: str, image: bytes) -> Any:
        return SimpleNamespace(name=name, id=next(self.ids), animated=False)


@pytest.fixture
async def card_art() -> AsyncIterator[CardEmojis]:
    """Every card's art as an application emoji, for as long as the test runs."""
    registry = CardEmojis(art=lambda: {key: key.encode() for key in ART_KEYS})
    registry.start(Uploads())  # type: ignore[arg-type]
    await registry.done.wait()
    assert len(registry.emojis) == len(ART_KEYS)
    yield registry
    await registry.stop()


# -- checking ---------------------------------------------------------------------------------


def payload_problems(
    embeds: Sequence[discord.Embed], view: PayloadView | None, emoji_ids: set[int] | None
) -> list[str]:
    """Why the fake Discord would refuse this message (nothing: it takes it)."""
    components = view.to_components() if view is not None else []
    payload = {"embeds": [e.to_dict() for e in embeds], "components": components}
    problems = []
    for path, comp in walk_with_paths(components):
        emojis = [comp.get("emoji")] + [o.get("emoji") for o in comp.get("options") or []]
        for emoji in emojis:
            if emoji is not None and emoji_problem(emoji, emoji_ids) is not None:
                problems.append(f"{path}: {emoji}")
    refused = check_message(payload, creating=True, has_files=False, emoji_ids=emoji_ids)
    if refused is not None:
        problems.append(str(refused[1]))
    return problems


def fields(embed: discord.Embed) -> dict[str, str]:
    return {str(f.name): str(f.value) for f in embed.fields}


def art_ids(text: str) -> set[int]:
    return {int(m.group(2)) for m in ART.finditer(text)}


def check_table(
    embed: discord.Embed, view: Mapping[str, Any], locale: Lang, art: CardEmojis | None
) -> None:
    shown = fields(embed)
    if not view["history"] and view["phase"] == "pass":  # no score before the first trick
        assert t("papayoo.table.scores", locale) not in shown
    else:
        scores, legend = shown[t("papayoo.table.scores", locale)].rsplit("\n", 1)
        assert scores.startswith("```") and scores.endswith("```")
        assert legend == t("papayoo.table.scores_legend", locale)
        header = scores.splitlines()[1].split()
        rounds = [t("papayoo.table.round_col", locale, round=n) for n in range(1, view["round"])]
        assert header[: len(rounds)] == rounds
        assert header[-1] == t("papayoo.table.total_col", locale)
        for player in view["players"]:
            name = RENDER.cell_name(player, view, locale)
            assert any(line.startswith(name) for line in scores.splitlines()), (name, scores)

    to_act = view["to_act"]
    if view["phase"] == "over":
        assert not any(
            line.startswith("▶") for value in shown.values() for line in value.split("\n")
        )
        return
    title = t("papayoo.table.passes" if view["phase"] == "pass" else "seated.to_act", locale)
    seats = shown[title].splitlines()
    assert len(seats) == len(view["players"])
    marked = [line for line in seats if line.startswith("▶ ")]
    assert len(marked) == len(to_act)
    for player in to_act:
        who = RENDER.who(player, locale)
        [line] = [line for line in marked if who in line]
        if player.startswith("cpu"):
            assert line == "▶ " + t("seated.thinking", locale, player=who)
            assert "<t:" not in line
        else:
            assert f"<t:{int(DEADLINE.timestamp())}:R>" in line
    if view["phase"] == "play":
        order = view["players"][view["players"].index(view["leader"]) :]
        order += view["players"][: view["players"].index(view["leader"])]
        assert all(RENDER.who(p, locale) in line for p, line in zip(order, seats, strict=True))
        papayoo = shown[t("papayoo.table.papayoo", locale)]
        assert RENDER.card_in(view["papayoo"], view) in papayoo
        for played, line in zip(view["trick"], seats, strict=False):
            assert line.endswith(RENDER.card_in(played["card"], view))
        last = view["last_trick"]
        if last is not None:
            previous = shown[t("papayoo.table.last_trick", locale)]
            for player, card in zip(last["players"], last["cards"], strict=True):
                assert f"{RENDER.who(player, locale)} {RENDER.card_in(card, view)}" in previous
            winner = RENDER.who(last["winner"], locale)
            took = t("papayoo.table.last_trick_won", locale, winner=winner, points=last["points"])
            assert took in previous
        else:
            assert t("papayoo.table.last_trick", locale) not in shown
    if art is not None and view["phase"] == "play":
        ids = art_ids("\n".join(shown.values()))
        assert ids and ids <= {e.id for e in art.emojis.values()}
        marked_art = art.emojis["PY" + view["papayoo"]]
        assert str(marked_art) in shown[t("papayoo.table.papayoo", locale)]


def check_hand(
    embed: discord.Embed,
    controls: PayloadView | None,
    view: Mapping[str, Any],
    locale: Lang,
    art: CardEmojis | None,
) -> None:
    hand: list[str] = view["you"]["hand"]
    suits = [s for s in ("S", "H", "D", "C", "P") if any(suit_of(c) == s for c in hand)]
    text = fields(embed)[t("seated.your_hand", locale, count=len(hand))]
    lines = text.splitlines()
    assert len(lines) == len(suits)  # a line per suit, in suit order, each sorted by rank
    for suit, line in zip(suits, lines, strict=True):
        held = [c for c in hand if suit_of(c) == suit]
        assert line == " ".join(RENDER.card_in(c, view) for c in held)
        numbers = [int(c[1:] if suit == "P" else c[:-1]) for c in held]
        assert numbers == sorted(numbers)
    assert controls is not None
    rows = controls.to_components()
    if view["phase"] == "pass":
        check_pass(embed, rows, view, locale, art)
        return
    per_row = [[b["custom_id"] for b in row["components"]] for row in rows]
    buttons = [b for row in rows for b in row["components"]]
    assert len(buttons) == len(hand)
    groups = [[c for c in hand if suit_of(c) == s] for s in suits]
    if sum(-(-len(g) // 5) for g in groups) <= 5:  # a row per suit fits: never two in a row
        row_suits = []
        index = iter(hand)
        for row in per_row:
            row_suits.append({suit_of(next(index)) for _ in row})
        assert all(len(s) == 1 for s in row_suits), row_suits
        assert len(rows) == sum(-(-len(g) // 5) for g in groups)
    legal = {a["card"] for a in view["you"]["legal_actions"]}
    for code, button in zip(hand, buttons, strict=True):
        assert button["disabled"] == (code not in legal)
        if code in legal:
            style = {"S": 1, "C": 1, "H": 4, "D": 4, "P": 3}[suit_of(code)]
            assert button["style"] == style
        else:
            assert button["style"] == discord.ButtonStyle.secondary.value
        if art is None:
            assert button["label"] == RENDER.card_name(code) and "emoji" not in button
            assert CARD_TEXT.match(button["label"])
        else:
            rank = code[1:] if code.startswith("P") else code[:-1]
            assert button["label"] == rank
            key = "PY" + code if code == view["papayoo"] else code
            assert int(button["emoji"]["id"]) == art.emojis[key].id


def check_pass(
    embed: discord.Embed,
    rows: list[dict[str, Any]],
    view: Mapping[str, Any],
    locale: Lang,
    art: CardEmojis | None,
) -> None:
    """The pass: the suggested cards named on the hand, "Pass these" and "Choose myself";
    choosing shows the hand as buttons to tick (the suggestion ticked), never more than five
    rows of five, then the button that passes."""
    hand: list[str] = view["you"]["hand"]
    suggested = suggested_pass(view)
    assert len(set(suggested)) == view["pass_size"] and set(suggested) <= set(hand)
    assert RENDER.cards(RENDER.hand_order(suggested), view) in str(embed.description)
    [[accept, own]] = [row["components"] for row in rows]
    assert accept["label"] == t("papayoo.private.accept", locale) and accept["style"] == 3
    assert own["label"] == t("papayoo.private.own", locale)
    ticked = int(own["custom_id"].rsplit(".", 1)[1])
    assert accept["custom_id"] == own["custom_id"].replace(":sel:", ":pick:")
    chooser = hand_controls("papayoo", 7, view, RENDER, locale, ticked=ticked)
    assert chooser is not None
    emoji_ids = {e.id for e in art.emojis.values()} if art is not None else None
    assert payload_problems([embed], chooser, emoji_ids) == []
    laid = [row["components"] for row in chooser.to_components()]
    assert len(laid) <= 5 and all(len(row) <= 5 for row in laid)
    *card_rows, [done, clear] = laid
    assert clear["label"] == t("papayoo.private.clear", locale) and not clear["disabled"]
    buttons = [b for row in card_rows for b in row]
    assert len(buttons) == len(hand)
    for code, button in zip(hand, buttons, strict=True):
        on = code in suggested
        rank = RENDER.card_name(code) if art is None else RENDER.card_rank(code)
        assert button["label"] == (f"✓ {rank}" if on else rank)
        assert ("emoji" in button) == (art is not None)
        style = {"S": 1, "C": 1, "H": 4, "D": 4, "P": 3}[suit_of(code)] if on else 2
        assert button["style"] == style and not button["disabled"]
    assert done["label"] == accept["label"] and done["custom_id"] == accept["custom_id"]
    assert not done["disabled"]


# -- the whole game ---------------------------------------------------------------------------


def play_whole_game(art: CardEmojis | None, locale: Lang) -> dict[str, int]:
    """Render every step of a four-player, two-round Papayoo; what the steps met."""
    game: Game = new_game("papayoo", PLAYERS, 7, {"rounds": 2})
    emoji_ids = {e.id for e in art.emojis.values()} if art is not None else None
    seen = {"steps": 0, "thinking": 0, "previous": 0, "hands": 0, "pass": 0, "rounds": 0}
    problems: list[str] = []
    last: list[str] = []
    while True:
        view = game.public_view() | {"names": NAMES}
        status = "over" if game.is_over() else "active"
        table = RENDER.table(TableContext(7, view, locale, DEADLINE, last, status))
        check_table(table, view, locale, art)
        problems += [
            f"step {seen['steps']} table: {p}" for p in payload_problems([table], None, emoji_ids)
        ]
        seen["steps"] += 1
        seen["thinking"] += any(p.startswith("cpu") for p in view["to_act"])
        seen["previous"] += view["last_trick"] is not None
        seen["rounds"] = max(seen["rounds"], len(view["history"]))
        if game.is_over():
            break
        for player in game.to_act():
            if player.startswith("cpu"):
                continue
            mine = game.view(player) | {"names": NAMES}
            hand = RENDER.hand(HandContext(7, mine, locale, DEADLINE, last, status))
            controls = hand_controls("papayoo", 7, mine, RENDER, locale)
            check_hand(hand, controls, mine, locale, art)
            problems += [
                f"step {seen['steps']} hand of {player}: {p}"
                for p in payload_problems([hand], controls, emoji_ids)
            ]
            seen["hands"] += 1
            seen["pass"] += mine["phase"] == "pass"
        actor = game.to_act()[0]
        events = game.apply(actor, game.auto_action(actor))
        last = RENDER.event_lines(events, game.public_view() | {"names": NAMES}, locale)
    assert not problems, "\n".join(problems[:10])
    return seen


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_a_whole_papayoo_game_reads_at_a_glance_with_cards_as_text(locale: Lang) -> None:
    seen = play_whole_game(None, locale)
    assert seen["rounds"] == 2 and seen["thinking"] > 20 and seen["previous"] > 20
    assert seen["hands"] > 60 and seen["pass"] >= 6


@pytest.mark.parametrize("locale", ["en", "fr"])
async def test_a_whole_papayoo_game_shows_every_card_as_its_art(
    card_art: CardEmojis, locale: Lang
) -> None:
    seen = play_whole_game(card_art, locale)
    assert seen["rounds"] == 2 and seen["hands"] > 60


def test_a_table_as_players_read_it() -> None:
    """One moment of a trick, as text: the Papayoo, the previous trick, the seats from the
    leader on with their cards and the computer thinking, the scores by round."""
    game = new_game("papayoo", PLAYERS, 7, {"rounds": 2})
    while True:
        view = game.public_view()
        if view["round"] == 2 and view["to_act"] == ["cpu1"] and view["trick"]:
            break
        actor = game.to_act()[0]
        game.apply(actor, game.auto_action(actor))
    view = game.public_view() | {"names": NAMES}
    embed = RENDER.table(TableContext(7, view, "en", DEADLINE, (), "active"))
    shown = fields(embed)
    seats = shown["Turn order"].splitlines()
    assert "▶ 🤖 Computer 1 is thinking…" in seats
    assert all(line.startswith(("▶ ", "◦ ")) for line in seats)
    assert "<t:" not in shown["Turn order"]
    scores = shown["Scores"].splitlines()
    assert scores[1].split() == ["R1", "R2…", "Total"]
    history, points = view["history"][0], view["round_points"]
    assert scores[2].split() == [
        "Ana",
        str(history["111"]),
        str(points["111"]),
        str(view["scores"]["111"] + points["111"]),
    ]
    assert scores[5].split() == [
        "Computer",
        "1",
        str(history["cpu1"]),
        str(points["cpu1"]),
        str(view["scores"]["cpu1"] + points["cpu1"]),
    ]


# -- the kit's defaults -----------------------------------------------------------------------


def test_the_kits_table_marks_the_turn_and_a_thinking_computer() -> None:
    render = HighCardRenderer()
    view = {"players": ["111", "cpu1", "222"], "to_act": ["cpu1"]}
    embed = render.table(TableContext(3, view, "en", DEADLINE, (), "active"))
    assert fields(embed)["Turn order"] == "◦ <@111>\n▶ 🤖 Computer 1 is thinking…\n◦ <@222>"
    view = {"players": ["111", "cpu1", "222"], "to_act": ["222"]}
    embed = render.table(TableContext(3, view, "fr", DEADLINE, (), "active"))
    when = f"<t:{int(DEADLINE.timestamp())}:R>"
    assert fields(embed)["Ordre de jeu"].splitlines() == [
        "◦ <@111>",
        "◦ 🤖 Ordinateur 1",
        f"▶ <@222> · le minuteur joue à sa place {when}",
    ]
    over = render.table(TableContext(3, view, "en", DEADLINE, (), "over"))
    assert "Turn order" not in fields(over)


def test_the_kits_hand_is_sorted_by_suit_then_rank_a_line_per_suit() -> None:
    render = HighCardRenderer()
    hand = ["KH", "2S", "10H", "AS", "3D", "JK", "9C", "2H"]
    assert render.hand_order(hand) == ["2S", "AS", "2H", "10H", "KH", "3D", "9C", "JK"]
    assert render.hand_text(hand) == "2♠ A♠\n2♥ 10♥ K♥\n3♦\n9♣\nJK"


def test_rows_by_suit() -> None:
    def rows(groups: str) -> list[str]:
        items = [{"n": k} for k in range(len(groups))]
        laid = group_rows(items, list(groups))
        return ["".join(groups[b["n"]] for b in row) for row in laid]

    # A row per suit; a suit of more than five on two rows.
    assert rows("SSHHHDCCCC") == ["SS", "HHH", "D", "CCCC"]
    assert rows("SSSSSSSHD") == ["SSSSS", "SS", "H", "D"]
    # Six rows are too many: the two shortest neighbours that fit in one share it.
    assert rows("SSSSSSHHHDDDDCCCCPP") == ["SSSSS", "SHHH", "DDDD", "CCCC", "PP"]
    # Nothing fits by suit: plain rows of five in hand order.
    assert rows("SSSSSSHHHHHHDDDDDDCC") == ["SSSSS", "SHHHH", "HHDDD", "DDDCC"]


# -- big hands ----------------------------------------------------------------------------------


def big_speahx_hand(cards: int) -> tuple[Game, str]:
    """A 14-player Speahx (three decks) whose first player holds ``cards`` cards."""
    players = [str(100 + k) for k in range(14)]
    game: Game = new_game("speahx", players, 3)
    deck = (standard_deck() * 3)[:cards]
    game._hands[0] = deck  # type: ignore[attr-defined]
    return game, players[0]


@pytest.mark.parametrize("cards", [29, 44, 60])
async def test_a_big_hand_keeps_its_pictures_over_a_field_per_suit(
    card_art: CardEmojis, cards: int
) -> None:
    """Above about 28 cards a hand's art passes an embed field's 1,024 characters: it goes on
    over more fields, whole suits together, and Discord takes the message."""
    game, me = big_speahx_hand(cards)
    render = SpeahxRenderer()
    view = game.view(me)
    hand = view["you"]["hand"]
    assert len(hand) == cards
    embed = render.hand(HandContext(7, view, "en", DEADLINE, [], "active"))
    title = t("seated.your_hand", "en", count=cards)
    names = [str(f.name) for f in embed.fields]
    first = names.index(title)
    shown = [str(f.value) for f in embed.fields[first:] if f.name in (title, BLANK)]
    assert len(shown) >= 2 and all(len(value) <= 1024 for value in shown)
    assert names[first + 1 : first + len(shown)] == [BLANK] * (len(shown) - 1)
    assert "\n".join(shown) == render.hand_text(hand, view)  # every card its art, in order
    assert len(ART.findall("\n".join(shown))) == cards
    lines = [line for value in shown for line in value.splitlines()]
    suits = {suit_of(c) for c in hand}
    assert len(lines) >= len(suits)  # a suit is never on another suit's line
    emoji_ids = {e.id for e in card_art.emojis.values()}
    assert payload_problems([embed], None, emoji_ids) == []


async def test_a_hand_too_big_for_its_pictures_is_shown_as_text(card_art: CardEmojis) -> None:
    game, me = big_speahx_hand(120)
    view = game.view(me)
    render = SpeahxRenderer()
    embed = render.hand(HandContext(7, view, "en", DEADLINE, [], "active"))
    text = "\n".join(str(f.value) for f in embed.fields if f.name in ("Your hand (120)", BLANK))
    assert text == render.hand_text(view["you"]["hand"], view, art=False)
    assert payload_problems([embed], None, {e.id for e in card_art.emojis.values()}) == []


def test_a_hand_fits_one_field_as_before_without_pictures() -> None:
    game, me = big_speahx_hand(60)
    view = game.view(me)
    render = SpeahxRenderer()
    embed = render.hand(HandContext(7, view, "en", DEADLINE, [], "active"))
    assert fields(embed)["Your hand (60)"] == render.hand_text(view["you"]["hand"], view)
    assert BLANK not in fields(embed)
