"""The cards as application emojis, through the real discord.py client and the fake Discord.

- the fake's ``/applications/{id}/emojis`` routes as Discord answers them: listing, creating
  (name, uniqueness, picture format and size, 2,000 at most), one emoji, renaming, deleting,
  the picture served as Discord's CDN does; components showing a custom emoji the
  application does not own are refused;
- the bot's registry (:mod:`bot.emojis`): the first start uploads every card, a restart
  uploads none, a changed picture uploads that card only and deletes its old emoji, a
  refused upload is one log line and the card is text; every call is a bot-token call the
  fake counts and the REST budget paced.
"""

from __future__ import annotations

import asyncio
import base64
import io
import logging
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import discord
import pytest
from PIL import Image

from bot.budget import Priority
from bot.cardart import ART_KEYS, all_art, card_png
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.emojis import CardEmojis, card_emoji, card_text, emoji_name, parse_name
from bot.fakediscord.models import FakeEmoji
from bot.fakediscord.validation import MAX_APPLICATION_EMOJIS
from bot.settings import Settings
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e

EMOJIS = "/applications/{}/emojis"
EMOJI = "/applications/{}/emojis/{}"
FEW = ("7H", "10S", "QD", "P13", "JK", "BACK")
"""A few cards, for the tests that need not upload all 83."""


def png(colour: tuple[int, int, int] = (10, 200, 30), size: int = 128) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGBA", (size, size), (*colour, 255)).save(buffer, format="PNG")
    return buffer.getvalue()


def data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def make_bot(tmp_path: Path, art: Mapping[str, bytes] | None = None) -> GamenightBot:
    settings = Settings(database_path=tmp_path / "bot.sqlite3", card_emojis=True)
    bot = GamenightBot(settings, FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)), [])
    if art is not None:
        pictures = dict(art)
        bot.card_emojis = CardEmojis(art=lambda: pictures)
    return bot


async def start_and_sync(fake: FakeDiscord, bot: GamenightBot) -> None:
    async with fake.run_client(bot):
        await bot.card_emojis.done.wait()


def few_art() -> dict[str, bytes]:
    return {key: card_png(key) for key in FEW}


# -- the fake's routes --------------------------------------------------------------------


class Api:
    """Plain REST calls to the fake with a bot token (every one counts like the bot's)."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session
        self.base = f"{fake.api_base}/applications/{fake.application_id}/emojis"

    async def call(self, method: str, path: str = "", body: object = None) -> tuple[int, object]:
        async with self.session.request(
            method, self.base + path, json=body, headers={"Authorization": "Bot t"}
        ) as resp:
            payload = await resp.json() if resp.status != 204 else None
            return resp.status, payload

    async def create(self, name: str, image: str) -> tuple[int, object]:
        return await self.call("POST", "", {"name": name, "image": image})


@pytest.fixture
async def api(fake_discord: FakeDiscord) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as session:
        yield Api(fake_discord, session)


def errors_of(payload: object, field: str) -> list[str]:
    assert isinstance(payload, dict) and payload["code"] == 50035, payload
    return [e["code"] for e in payload["errors"][field]["_errors"]]


async def test_create_list_get_rename_delete_and_the_cdn(
    fake_discord: FakeDiscord, api: Api
) -> None:
    picture = card_png("7H")
    status, made = await api.create("gn_7H_abcdef", data_uri(picture))
    assert status == 201 and isinstance(made, dict)
    assert made["name"] == "gn_7H_abcdef" and made["animated"] is False
    assert made["user"]["id"] == str(fake_discord.bot_user.id)
    emoji_id = int(made["id"])

    status, listed = await api.call("GET")
    assert status == 200 and listed == {"items": [made]}
    status, one = await api.call("GET", f"/{emoji_id}")
    assert status == 200 and one == made

    status, renamed = await api.call("PATCH", f"/{emoji_id}", {"name": "gn_7H_000000"})
    assert status == 200 and isinstance(renamed, dict) and renamed["name"] == "gn_7H_000000"
    assert fake_discord.emoji_named("gn_7H_000000") is fake_discord.application_emojis[emoji_id]

    # The picture, as Discord's CDN serves it (no token, no rate limit).
    url = fake_discord.emoji_url(emoji_id)
    assert url.endswith(f"/emojis/{emoji_id}.png")
    async with api.session.get(url) as resp:
        assert resp.status == 200 and resp.content_type == "image/png"
        assert await resp.read() == picture

    status, _ = await api.call("DELETE", f"/{emoji_id}")
    assert status == 204 and not fake_discord.application_emojis
    status, gone = await api.call("GET", f"/{emoji_id}")
    assert status == 404 and isinstance(gone, dict) and gone["code"] == 10014
    status, gone = await api.call("DELETE", f"/{emoji_id}")
    assert status == 404
    async with api.session.get(url) as resp:
        assert resp.status == 404


async def test_what_discord_refuses_on_create(fake_discord: FakeDiscord, api: Api) -> None:
    good = data_uri(png())
    assert (await api.create("taken", good))[0] == 201

    for name, code in (
        ("x", "BASE_TYPE_BAD_LENGTH"),
        ("x" * 33, "BASE_TYPE_BAD_LENGTH"),
        ("no-dash", "STRING_TYPE_REGEX"),
        ("kéké", "STRING_TYPE_REGEX"),
        ("taken", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"),
    ):
        status, payload = await api.create(name, good)
        assert status == 400 and errors_of(payload, "name") == [code], name
    assert (await api.create("x" * 32, good))[0] == 201
    assert (await api.create("ok", good))[0] == 201

    too_big = png(size=1) + b"\0" * (256 * 1024)
    for image, code in (
        (base64.b64encode(png()).decode(), "IMAGE_INVALID"),  # not a data URI
        (data_uri(b"plain text", "text/plain"), "IMAGE_INVALID"),
        (data_uri(b"not a png at all"), "IMAGE_INVALID"),
        ("data:image/png;base64,@@@", "IMAGE_INVALID"),
        (data_uri(too_big), "BINARY_TYPE_MAX_SIZE"),
        ("", "BASE_TYPE_REQUIRED"),
    ):
        status, payload = await api.create("fine_name", image)
        assert status == 400 and errors_of(payload, "image") == [code], image[:30]
    just_fits = png(size=1) + b"\0" * (256 * 1024 - len(png(size=1)))
    assert (await api.create("fits", data_uri(just_fits)))[0] == 201

    # Renaming checks the name the same way (its own name is not "taken").
    emoji_id = fake_discord.emoji_named("ok").id  # type: ignore[union-attr]
    status, payload = await api.call("PATCH", f"/{emoji_id}", {"name": "taken"})
    assert status == 400 and errors_of(payload, "name") == ["APPLICATION_EMOJI_NAME_ALREADY_TAKEN"]
    assert (await api.call("PATCH", f"/{emoji_id}", {"name": "ok"}))[0] == 200

    # Another application's emojis: no access.
    async with api.session.get(
        f"{fake_discord.api_base}/applications/1234/emojis", headers={"Authorization": "Bot t"}
    ) as resp:
        assert resp.status == 403


async def test_at_most_2000_emojis(fake_discord: FakeDiscord, api: Api) -> None:
    fill(fake_discord, MAX_APPLICATION_EMOJIS - 1)
    assert (await api.create("the_last", data_uri(png())))[0] == 201
    status, payload = await api.create("one_more", data_uri(png()))
    assert status == 400 and payload == {
        "code": 30008,
        "message": "Maximum number of emojis reached (2000)",
    }


def fill(fake: FakeDiscord, count: int) -> None:
    """``count`` emojis someone else uploaded (not the bot's card art)."""
    for n in range(count):
        emoji = FakeEmoji(id=fake.snowflake(), name=f"other_{n}", data=png(size=1), format="png")
        fake.application_emojis[emoji.id] = emoji


async def test_components_may_show_only_the_applications_emojis(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "general")
    bot = make_bot(tmp_path, few_art())
    async with fake.run_client(bot):
        await bot.card_emojis.done.wait()
        target = bot.get_channel(channel.id)
        assert isinstance(target, discord.TextChannel)
        own = card_emoji("7H")
        assert own is not None and own.id in fake.application_emojis

        view = discord.ui.View()
        view.add_item(discord.ui.Button(label="play", emoji=own, custom_id="own"))
        sent = await target.send(card_text("7H", "7♥"), view=view)
        assert sent.content == f"<:{own.name}:{own.id}>"
        shown = fake.message(sent.id)
        assert str(shown.components[0]["components"][0]["emoji"]["id"]) == str(own.id)

        stranger = discord.PartialEmoji(name="gn_7H_ffffff", id=123456789012345678)
        assert stranger.id not in fake.application_emojis
        view = discord.ui.View()
        view.add_item(discord.ui.Button(label="play", emoji=stranger, custom_id="x"))
        with pytest.raises(discord.HTTPException) as refused:
            await target.send("no", view=view)
        assert refused.value.status == 400 and refused.value.code == 50035
        assert "emoji.id" in refused.value.text or "Invalid emoji" in refused.value.text

        # A select option too.
        view = discord.ui.View()
        view.add_item(
            discord.ui.Select(
                custom_id="pick", options=[discord.SelectOption(label="7", emoji=stranger)]
            )
        )
        with pytest.raises(discord.HTTPException):
            await target.send("no", view=view)


# -- the bot's registry -------------------------------------------------------------------


async def test_first_start_uploads_every_card_and_a_restart_none(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    mark = fake.mark()
    bot = make_bot(tmp_path)
    levels: list[Priority] = []
    acquire = bot.budget.acquire

    async def noting(level: Priority = Priority.UNBLOCK) -> None:
        task = asyncio.current_task()
        if task is not None and task.get_name() == "card-emojis":
            levels.append(level)
        await acquire(level)

    bot.budget.acquire = noting  # type: ignore[method-assign]
    await start_and_sync(fake, bot)
    # Every emoji call waited in the budget at the lowest priority.
    assert levels == [Priority.OPTIONAL] * (len(ART_KEYS) + 1)
    art = all_art()
    report = bot.card_emojis.report
    assert report.uploaded == list(ART_KEYS) and not report.refused and not report.deleted
    assert len(ART_KEYS) == 83
    assert fake.count("GET", EMOJIS, since=mark) == 1
    assert fake.count("POST", EMOJIS, since=mark) == len(ART_KEYS)
    names = sorted(e.name for e in fake.application_emojis.values())
    assert names == sorted(emoji_name(key, png) for key, png in art.items())
    for emoji in fake.application_emojis.values():
        parsed = parse_name(emoji.name)
        assert parsed is not None and emoji.data == art[parsed[0]]
        assert 2 <= len(emoji.name) <= 32 and emoji.user is fake.bot_user
    # Every emoji call was a bot-token call: counted against the global limit by the fake,
    # paced by the bot's budget, and never a 429.
    calls = [c for c in fake.calls_since(mark) if c.route.startswith("/applications/{")]
    emoji_calls = [c for c in calls if "/emojis" in c.route]
    assert len(emoji_calls) == len(ART_KEYS) + 1
    counted = {index for index, _ in fake.rate_limiter.global_calls}
    indexes = [i for i, c in enumerate(fake.calls) if c in emoji_calls]
    assert set(indexes) <= counted
    assert bot.budget.figures.sent >= len(emoji_calls)
    assert not fake.rate_limited

    mark = fake.mark()
    again = make_bot(tmp_path)
    await start_and_sync(fake, again)
    assert fake.count("POST", EMOJIS, since=mark) == 0
    assert fake.count("DELETE", EMOJI, since=mark) == 0
    assert fake.count("GET", EMOJIS, since=mark) == 1
    assert again.card_emojis.report.kept == len(ART_KEYS)
    assert not again.card_emojis.report.uploaded


async def test_a_changed_picture_uploads_that_card_and_deletes_its_old_emoji(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    fill(fake, 3)  # someone else's emojis: never touched
    art = few_art()
    await start_and_sync(fake, make_bot(tmp_path, art))
    old = fake.emoji_named(emoji_name("7H", art["7H"]))
    assert old is not None

    changed = dict(art)
    changed["7H"] = png((250, 0, 0))
    del changed["JK"]  # a card without art any more: its emoji goes
    mark = fake.mark()
    bot = make_bot(tmp_path, changed)
    async with fake.run_client(bot):
        await bot.card_emojis.done.wait()
        new = fake.emoji_named(emoji_name("7H", changed["7H"]))
        assert new is not None and new.data == changed["7H"]
        assert card_emoji("7H") == discord.PartialEmoji(name=new.name, id=new.id)
        assert card_text("7H", "7♥") == f"<:{new.name}:{new.id}>"
        assert card_text("JK", "🃏") == "🃏"
    assert fake.count("POST", EMOJIS, since=mark) == 1
    assert fake.count("DELETE", EMOJI, since=mark) == 2
    assert old.id not in fake.application_emojis
    assert bot.card_emojis.report.uploaded == ["7H"]
    assert sorted(bot.card_emojis.report.deleted) == sorted([old.name, emoji_name("JK", art["JK"])])
    assert sum(1 for e in fake.application_emojis.values() if e.name.startswith("other_")) == 3
    assert len(fake.application_emojis) == 3 + len(changed)
    # The bot stopped: renderers get the text form.
    assert card_emoji("7H") is None and card_text("7H", "7♥") == "7♥"


async def test_a_refused_upload_is_one_log_line_and_the_card_is_text(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    art = few_art()
    art["QD"] = png(size=1) + b"\0" * (300 * 1024)  # over 256 KiB: Discord refuses it
    art["P13"] = png(size=1) + b"\0" * (300 * 1024)
    bot = make_bot(tmp_path, art)
    caplog.set_level(logging.INFO, logger="gamenight.emojis")
    async with fake.run_client(bot):
        await bot.card_emojis.done.wait()
        assert card_emoji("QD") is None and card_text("QD", "Q♦") == "Q♦"
        assert card_text("P13", "P13") == "P13"
        seven = card_emoji("7H")
        assert seven is not None and card_text("7H", "7♥") == str(seven)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert "refused" in warnings[0].getMessage()
    assert warnings[0].refused == 2  # type: ignore[attr-defined]
    assert sorted(bot.card_emojis.report.refused) == ["P13", "QD"]
    assert sorted(bot.card_emojis.report.uploaded) == sorted(set(FEW) - {"QD", "P13"})


async def test_no_room_left_stops_uploading_after_the_first_refusal(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    fill(fake, MAX_APPLICATION_EMOJIS - 2)
    mark = fake.mark()
    bot = make_bot(tmp_path, few_art())
    caplog.set_level(logging.WARNING, logger="gamenight.emojis")
    await start_and_sync(fake, bot)
    report = bot.card_emojis.report
    assert report.uploaded == list(FEW[:2])
    assert list(report.refused) == list(FEW[2:])
    # One refused call (30008), then no more tries.
    assert fake.count("POST", EMOJIS, since=mark) == 3
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


async def test_the_setting_turns_the_art_off(fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    settings = Settings(database_path=tmp_path / "bot.sqlite3", card_emojis=False)
    bot = GamenightBot(settings, FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)), [])
    mark = fake.mark()
    async with fake.run_client(bot):
        assert card_emoji("7H") is None and card_text("7H", "7♥") == "7♥"
    assert fake.count("GET", EMOJIS, since=mark) == 0
    assert not fake.application_emojis
