"""How Spit reads, through the fake Discord: the board shows both sides with their colours
and no player's buttons; each player's panel shows their own piles and moves only; cards as
cards (emojis, or text as before); a start message that promises no hand."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.emojis import CardEmojis, active_registry
from bot.engine import new_game
from bot.fakediscord.validation import check_message
from bot.i18n import t
from bot.seated import SeatedCog, TableContext
from bot.settings import Settings
from cogs.spit._render import COLOURS, SpitRenderer
from tests.cogs.test_spit import (
    COGS,
    challenge,
    control,
    office,
    open_panel,
    same_deal,
    seat_of,
)
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage, walk_components

pytestmark = pytest.mark.e2e
__all__ = ["same_deal"]  # the pinned deal (autouse), shared with test_spit

STANDARD = [
    r + s
    for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    for s in "SHDC"
]


def payloads_discord_takes(fake: FakeDiscord) -> None:
    """Every message the bot sent or edited, and every interaction answer, as Discord checks
    them (emojis must be the application's own); nothing was refused."""
    for number, call in enumerate(fake.calls):
        body = call.json
        if not isinstance(body, dict):
            continue
        if call.route.endswith("/callback"):
            data = body.get("data")
            if body.get("type") in (4, 7) and isinstance(data, dict):
                refused = check_message(dict(data), creating=False, has_files=False)
                assert refused is None, (number, call.route, refused)
        elif "components" in body or "embeds" in body or "content" in body:
            refused = check_message(dict(body), creating=False, has_files=False)
            assert refused is None, (number, call.route, refused)
    assert [c for c in fake.failed_calls() if c.status == 400] == []


def buttons_by_row(message: FakeMessage) -> list[list[dict[str, Any]]]:
    rows = []
    for row in message.components:
        rows.append([c for c in walk_components(row.get("components") or []) if c.get("type") == 2])
    return rows


async def play_a_little(
    fake: FakeDiscord,
    bot: Any,
    panels: dict[str, FakeMessage],
    game_id: int,
    users: dict[str, Any],
    moves: int,
) -> None:
    cog = bot.get_cog("Spit")
    assert isinstance(cog, SeatedCog)
    for _ in range(moves):
        await cog.settle()
        stored = await bot.store.games.require(game_id)
        if not stored.is_active or not stored.game.to_act():
            return
        p = stored.game.to_act()[0]
        seat = stored.game.public_view()["players"].index(p)
        move = control(game_id, seat, stored.game.auto_action(p))
        await fake.click(users[p], fake.message(panels[p].id), move)
    await cog.settle()


async def test_the_board_has_no_players_buttons_and_each_panel_only_its_owners(
    fake_discord: FakeDiscord, make_bot: Any
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        players = (await bot.store.games.require(game_id)).game.public_view()["players"]
        panels = {p: await open_panel(fake, u, board) for p, u in users.items()}
        await play_a_little(fake, bot, panels, game_id, users, 6)
        # The board: one button, the same for both, that opens the presser's own panel.
        board_buttons = fake.buttons(fake.message(board.id))
        assert [(b.label, b.custom_id) for b in board_buttons] == [
            (t("spit.panel.open", "en"), f"gn:spit:{game_id}:panel")
        ]
        stored = await bot.store.games.require(game_id)
        names = {str(ana.id): "Ana", str(bob.id): "Bob"}
        render = SpitRenderer()
        for p, locale in ((str(ana.id), "en"), (str(bob.id), "fr")):
            seat = players.index(p)
            other = players[1 - seat]
            panel = fake.message(panels[p].id)
            # Only its owner's moves, and each card button one of their own face-up cards.
            buttons = [b for row in buttons_by_row(panel) for b in row]
            assert buttons and {seat_of(b["custom_id"]) for b in buttons} == {seat}
            stocks = stored.game.public_view()["stocks"]
            tops = {pile["top"] for pile in stocks[p] if pile["top"]}
            for b in buttons:
                arg = b["custom_id"].split(":")[4].split(".")
                if arg[1] == "p":
                    assert arg[3] in tops, (arg, tops)
            assert not any(b["label"][0] in COLOURS for b in buttons)
            embed = panel.embeds[0]
            assert embed["title"].startswith(COLOURS[seat])
            mine = t("spit.panel.yours", locale, marker=COLOURS[seat])
            theirs = t("spit.panel.opponent", locale, marker=COLOURS[1 - seat], name=names[other])
            fields = {f["name"]: f["value"] for f in embed["fields"]}
            assert set(fields) == {mine, theirs}, fields
            for pile in stocks[p]:  # the owner's own piles, in the order of their buttons
                if pile["top"]:
                    assert render.plain_card(pile["top"]) in fields[mine]
            assert not any(render.plain_card(c) in fields[theirs] for c in STANDARD)
        assert fake.ephemerals(ana) and all(m.visible_to is ana for m in fake.ephemerals(ana))
    await bot.store.close()
    payloads_discord_takes(fake)


async def test_each_side_shows_its_colour_and_the_start_promises_no_hand(
    fake_discord: FakeDiscord, make_bot: Any
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        players = (await bot.store.games.require(game_id)).game.public_view()["players"]
        names = {str(ana.id): "Ana", str(bob.id): "Bob"}
        marker = {p: COLOURS[players.index(p)] for p in players}

        # The start message: both called, no DMs and no "Show my hand" promised.
        started = [m for m in fake.channel_messages(channel) if "🃏" in (m.content or "")]
        assert len(started) == 1, [m.content for m in fake.channel_messages(channel)]
        text = started[0].content or ""
        assert f"<@{ana.id}>" in text and f"<@{bob.id}>" in text
        assert "DM" not in text and "Show my hand" not in text and "hand" not in text
        assert "Spit!" in text and t("spit.panel.open", "en") in text
        assert fake.dms(ana) == [] and fake.dms(bob) == []
        assert not any(b.label == t("private.show_hand", "en") for b in fake.buttons(board))

        # The board: no more challenge question ("accept within 10 minutes?") above it;
        # each side's name with its colour, in the title and on its side.
        assert not fake.message(board.id).content
        embed = fake.message(board.id).embeds[0]
        for p in players:
            assert f"{marker[p]} {names[p]}" in embed["title"]
        sides = {f["name"]: f["value"] for f in embed["fields"]}
        for p in players:
            name = f"{marker[p]} {names[p]}"
            assert name in sides, sides
            assert sides[name].startswith(f"<@{p}> · spit cards: 11 · cards left: 26")
            assert " · 1 card" in sides[name] and " · 5 cards" in sides[name]
            assert "+" not in sides[name]  # no more "J♦+1"

        # No button of either player on the board.
        assert [b.custom_id for b in fake.buttons(board)] == [f"gn:spit:{game_id}:panel"]

        # What happened is told with the player's colour.
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = {p: await open_panel(fake, u, board) for p, u in users.items()}
        await play_a_little(fake, bot, panels, game_id, users, 4)
        now = fake.message(board.id).text
        assert re.search(r"(🟦|🟥) <@\d+>", now), now
        assert "cards" in fake.message(board.id).embeds[0]["description"]
    await bot.store.close()
    payloads_discord_takes(fake)


def tiny_png(n: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", (16, 16), (n % 256, 40, 90, 255)).save(buffer, format="PNG")
    return buffer.getvalue()


async def test_cards_show_as_the_applications_emojis_on_the_board_and_its_buttons(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = GamenightBot(Settings(database_path=db_file, card_emojis=True), clock, COGS)
    art = {key: tiny_png(n) for n, key in enumerate(STANDARD)}
    bot.card_emojis = CardEmojis(art=lambda: art)
    async with fake.run_client(bot):
        await bot.card_emojis.done.wait()
        assert sorted(bot.card_emojis.emojis) == sorted(STANDARD)
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = {p: await open_panel(fake, u, board) for p, u in users.items()}
        await play_a_little(fake, bot, panels, game_id, users, 6)
        shown = fake.message(board.id)
        embed = shown.embeds[0]
        sides = "\n".join(f["value"] for f in embed["fields"])
        assert re.search(r"<:gn_[0-9A-Z]+_[0-9a-f]{6}:\d+> · \d cards?", sides), sides
        assert re.search(r"\*\*<:gn_\w+:\d+>\*\* · \d+ cards?", embed["description"]), embed
        ids = {int(e.id) for e in bot.card_emojis.emojis.values()}
        card_buttons = [
            b
            for panel in panels.values()
            for row in buttons_by_row(fake.message(panel.id))
            for b in row
            if (b.get("emoji") or {}).get("id")
        ]
        assert card_buttons
        for button in card_buttons:
            assert int(button["emoji"]["id"]) in ids
            assert button["label"][0] in "1234567890AJQK"  # the rank beside the card's art
    await bot.store.close()
    assert active_registry() is None  # the next tests see text cards again
    payloads_discord_takes(fake)


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_the_board_reads_as_text_without_emojis(locale: str) -> None:
    game = new_game("spit", ["100", "200"], 7, {})
    for _ in range(7):
        mover = game.to_act()[0]
        game.apply(mover, game.auto_action(mover))
    view = game.public_view() | {"names": {"100": "Ana", "200": "Bob"}}
    render = SpitRenderer()
    embed = render.table(TableContext(3, view, locale))  # type: ignore[arg-type]
    text = "\n".join(
        [embed.title or "", embed.description or ""]
        + [f"{f.name}\n{f.value}" for f in embed.fields]
    )
    assert "<:" not in text
    cards = "cards" if locale == "en" else "cartes"
    assert re.search(rf"\*\*(10|[2-9AJQK])[♠♥♦♣]\*\* · \d+ {cards}", text), text
    assert re.search(rf"(10|[2-9AJQK])[♠♥♦♣] · \d+ {cards}?", text), text
    assert "🟦 Ana" in text and "🟥 Bob" in text
    assert render.count(0, "en") == "no card" and render.count(1, "en") == "1 card"
    assert render.count(3, "fr") == "3 cartes"
    assert len(embed) <= 6000
