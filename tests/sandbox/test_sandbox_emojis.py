"""The sandbox shows the cards as pictures: the bot's application emojis, served by the page,
drawn in messages and on buttons, and kept with the world across a restart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.emojis import card_emoji, card_text
from bot.sandbox.render import RenderContext, render_message, render_modal
from tests.sandbox.browser import chromium, missing_browser
from tests.sandbox.conftest import Sandbox, run_sandbox

pytestmark = pytest.mark.e2e
BROWSER = missing_browser()


async def synced(box: Sandbox) -> Any:
    """The bot's card emojis once its start-up sync is over (the sandbox turns them on)."""
    registry = box.page.bot.card_emojis
    await asyncio.wait_for(registry.done.wait(), 60)
    assert registry.report.failed is None and not registry.report.refused
    return registry


async def frame_html(box: Sandbox, user: str, message_id: int) -> str:
    """The HTML the page pushes to ``user``'s view for that message."""
    async with box.http.ws_connect(f"{box.url}/ws?user={user}") as ws:
        async with asyncio.timeout(10):
            while True:
                frame = json.loads((await ws.receive()).data)
                for item in frame["items"] if frame["t"] == "batch" else [frame]:
                    if item.get("id") == str(message_id):
                        return str(item["html"])


def test_text_and_components_show_an_emoji_as_its_picture() -> None:
    message = {
        "id": "5",
        "content": "played <:gn_7H_x:123> and <a:dance:456>, not `<:gn_2S_y:789>`",
        "components": [
            {
                "type": 1,
                "components": [
                    {
                        "type": 2,
                        "style": 2,
                        "custom_id": "c",
                        "emoji": {"id": "123", "name": "gn_7H_x"},
                    },
                    {"type": 2, "style": 2, "custom_id": "d", "emoji": {"name": "🂡"}},
                ],
            },
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "s",
                        "options": [
                            {"label": "7", "value": "7H", "emoji": {"id": "123", "name": "gn_7H_x"}}
                        ],
                    }
                ],
            },
        ],
    }
    html = render_message(message, RenderContext())
    img = '<img class="emoji" src="/emojis/123.png" alt=":gn_7H_x:" title=":gn_7H_x:">'
    assert html.count(img) == 3  # in the text, on the button, in the select's option
    assert '<img class="emoji" src="/emojis/456.gif" alt=":dance:" title=":dance:">' in html
    assert "<code>&lt;:gn_2S_y:789&gt;</code>" in html  # code stays code
    assert '<span class="emoji">🂡</span>' in html  # a unicode emoji stays text


def test_a_unicode_emoji_carries_its_name_for_a_machine_without_an_emoji_font() -> None:
    """Each Unicode emoji is marked with the name Discord gives it: the page shows that name
    where no font draws the emoji (tests/sandbox/test_browser.py sees it done)."""
    message = {
        "id": "6",
        "content": "⏱ Time is up: 7♥ for @Bob 👍🏽 `⏳ in code`\n```\n🤖\n```",
        "embeds": [{"title": "🏆 Titles", "fields": [{"name": "🤖 Hal", "value": "🂡"}]}],
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 2, "custom_id": "c", "emoji": {"name": "⏳"}},
                    {"type": 2, "style": 2, "custom_id": "d", "label": "🟥 Play"},
                ],
            }
        ],
    }
    html = render_message(message, RenderContext())
    for char, name in (
        ("⏱", ":stopwatch:"),
        ("♥", ":hearts:"),
        ("🏆", ":trophy:"),
        ("🤖", ":robot_face:"),
        ("🟥", ":red_square:"),
    ):
        assert f'<span class="emoji-char" title="{name}">{char}</span>' in html
    assert (
        '<span class="emoji"><span class="emoji-char" title=":hourglass_flowing_sand:">⏳' in html
    )
    assert 'title=":thumbs_up_medium_skin_tone:">👍🏽</span>' in html  # one sequence, one name
    assert "<code>⏳ in code</code>" in html and "<code>🤖</code>" in html  # code stays as typed
    assert '<div class="embed-field-value">🂡</div>' in html  # not an emoji: text as it is
    # A form keeps what is typed in its fields as it is.
    modal = {
        "title": "🏋️ Exercise",
        "custom_id": "m",
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 4, "custom_id": "x", "label": "✅ Name", "style": 2, "value": "🤖"}
                ],
            }
        ],
    }
    form = render_modal(modal, RenderContext(), 1)
    assert 'title=":weight_lifting:">🏋️</span> Exercise' in form
    assert 'title=":white_check_mark:">✅</span> Name' in form
    assert '<textarea name="x" id="f-x" required rows="4">🤖</textarea>' in form


async def test_the_page_serves_the_card_emojis_and_a_restart_uploads_none(
    sandbox_db: Path,
) -> None:
    async with run_sandbox(sandbox_db) as box:
        registry = await synced(box)
        fake = box.page.fake
        assert registry.report.uploaded and len(fake.application_emojis) == len(registry.emojis)
        seven = card_emoji("7H")
        assert seven is not None and seven.id in fake.application_emojis
        async with box.http.get(f"{box.url}/emojis/{seven.id}.png") as res:
            assert res.status == 200 and res.content_type == "image/png"
            assert await res.read() == fake.application_emojis[seven.id].data
        for missing in ("/emojis/1.png", f"/emojis/{seven.id}.exe", "/emojis/x.png"):
            async with box.http.get(box.url + missing) as res:
                assert res.status == 404, missing

        # A message of the bot, with the card in its text and on a button, as a game sends it.
        text = card_text("7H", "7♥")
        assert text == f"<:{seven.name}:{seven.id}>"
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(emoji=seven, custom_id="sandbox-emoji-test"))
        channel = box.page.bot.get_channel(fake.general().id)
        sent = await channel.send(f"Ana played {text}", view=view)
        img = f'<img class="emoji" src="/emojis/{seven.id}.png" alt=":{seven.name}:"'
        html = await frame_html(box, box.user("Ana"), sent.id)
        assert html.count(img) == 2 and "Ana played" in html
        ids = set(fake.application_emojis)

    async with run_sandbox(sandbox_db) as box:
        registry = await synced(box)
        assert registry.report.uploaded == [] and registry.report.deleted == []
        assert registry.report.kept == len(ids)
        assert set(box.page.fake.application_emojis) == ids
        assert card_emoji("7H") == seven
        async with box.http.get(f"{box.url}/emojis/{seven.id}.png") as res:
            assert res.status == 200
        html = await frame_html(box, box.user("Bob"), sent.id)  # the old message, its picture
        assert html.count(img) == 2

        if BROWSER is not None:
            pytest.skip(f"the browser part: {BROWSER}")
        async with chromium(sandbox_db.parent / "profile") as context:
            page = context.pages[0] if context.pages else await context.new_page()
            await page.goto(f"{box.url}/#as={box.user('Ana')}")
            article = page.locator(f"#m-{sent.id}")
            await article.wait_for(timeout=30_000)
            pictures = article.locator("img.emoji")
            assert await pictures.count() == 2
            for i in range(2):
                await page.wait_for_function(
                    "e => e.complete && e.naturalWidth > 0",
                    arg=await pictures.nth(i).element_handle(),
                    timeout=10_000,
                )
            on_button = await article.locator("button img.emoji").bounding_box()
            assert on_button is not None and on_button["width"] >= 28
