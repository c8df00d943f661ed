"""The sandbox as an office: titles in #announcements, a day played by the colleagues through
the bot, a steady gateway heartbeat, and "/" in the command box as in Discord."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.gateway
import pytest

from bot.fakediscord import FakeDiscord
from bot.fakediscord.models import FakeChannel, FakeMessage
from bot.fakediscord.ratelimits import Limits
from bot.sandbox import office
from bot.spaye_settings import spaye_settings
from tests.sandbox.browser import PageDriver, chromium, missing_browser
from tests.sandbox.conftest import Sandbox, run_sandbox

pytestmark = pytest.mark.e2e

TITLES_PICTURE = re.compile(r"spaye-\d{4}-\d{2}\.png")


def channel(sandbox: Sandbox, name: str) -> FakeChannel:
    return next(c for c in sandbox.page.fake.office.channels if c.name == name)


def is_titles(msg: FakeMessage) -> bool:
    return any(TITLES_PICTURE.fullmatch(str(a.get("filename"))) for a in msg.attachments)


# -- 2. the office is set up: titles go to #announcements --------------------------------------


async def test_the_owner_named_announcements_and_left_no_trace(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    settings = await spaye_settings(sandbox.page.bot, fake.office.id)
    assert settings.announce_channel_id == channel(sandbox, "announcements").id
    assert fake.set_up
    assert not [m for m in fake.messages.values() if not m.deleted]  # empty channels, no DMs
    assert not fake.interactions


async def test_the_set_up_is_done_once_and_remembered(
    sandbox_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with run_sandbox(sandbox_db) as first:
        assert first.page.fake.set_up
    again: list[object] = []

    async def set_up_office(*args: object, **kwargs: object) -> bool:
        again.append(args)
        return True

    monkeypatch.setattr(office, "set_up_office", set_up_office)
    async with run_sandbox(sandbox_db) as second:
        fake = second.page.fake
        assert fake.set_up and not again
        settings = await spaye_settings(second.page.bot, fake.office.id)
        assert settings.announce_channel_id == channel(second, "announcements").id


# -- 3. the colleagues play the rest of the day -------------------------------------------------


async def play(sandbox: Sandbox) -> tuple[int, dict[str, Any]]:
    async with sandbox.http.post(f"{sandbox.url}/api/play", json={}) as res:
        return res.status, await res.json()


async def test_the_day_is_played_by_clicks_and_its_titles_reach_announcements(
    sandbox: Sandbox,
) -> None:
    fake, bot = sandbox.page.fake, sandbox.page.bot
    fake.limits = Limits.global_only(
        "a whole day of about 110 moves on one channel: the channel's 5 messages per 5 s "
        "would only stretch it to half a minute; the button's pacing is not what is tested"
    )
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={sandbox.user('Bob')}") as ws:
        playing = asyncio.create_task(play(sandbox))
        frames: list[dict[str, Any]] = []
        while not any(f.get("t") == "play" for f in frames):
            frames += [await ws.receive_json(timeout=10)]
        assert (await play(sandbox))[0] == 409  # one game of the colleagues at a time
        status, answer = await playing
    assert status == 200, answer
    assert answer["ok"] and answer["status"] == "over"

    (day,) = await bot.store.games.find(kind="spaye", status=None)
    assert day.status == "over"
    # Every move was an interaction of a colleague, as their clicks would be.
    moves = [i for i in fake.interactions.values() if i.user in fake.colleagues()]
    assert len(moves) >= answer["moves"] > 26  # 26 däyes at least, each a /daye and more
    kinds = {i.data.get("name") or str(i.data.get("custom_id")).split(":")[3] for i in moves}
    assert {"daye", "accept", "draw", "done"} <= kinds
    assert not fake.problems()

    async with sandbox.http.post(f"{sandbox.url}/api/clock", json={"to": "month_end"}) as res:
        assert res.status == 200
    titles = await fake.wait_for_message(channel(sandbox, "announcements"), is_titles, timeout=30)
    assert titles.author is fake.bot_user
    assert not [m for m in fake.channel_messages(fake.general()) if is_titles(m)]


async def test_the_rest_of_the_day_is_played_in_its_thread_with_no_late_result(
    sandbox: Sandbox,
) -> None:
    """Every Discord limit on: the colleagues play the day where it lives (its thread), the
    channel keeps the board alone, and every result is posted in its däye's order before the
    play is over (none comes after)."""
    fake = sandbox.page.fake
    status, answer = await play(sandbox)
    assert status == 200 and answer["status"] == "over", answer
    general = fake.general()
    (thread,) = fake.threads(general)
    mine = [m for m in fake.channel_messages(general) if m.author is fake.bot_user]
    assert len(mine) == 1 and fake.thread_of(mine[0]) is thread  # the board
    assert results(fake, thread) == list(range(1, len(results(fake, thread)) + 1))
    shown = len(results(fake, thread))
    (day,) = await sandbox.page.bot.store.games.find(kind="spaye", status=None)
    assert shown == day.game.result()["dayes"] > 0  # how many varies with the cards drawn
    await asyncio.sleep(1.0)
    assert len(results(fake, thread)) == shown  # nothing was still on its way
    assert not fake.problems()


def results(fake: FakeDiscord, thread: FakeChannel) -> list[int]:
    """The däye numbers of the reveals' records in the thread, in the order posted."""
    firsts = [(m.history[0] if m.history else m).content for m in fake.channel_messages(thread)]
    return [int(x.split("#")[1].split(",")[0].split(":")[0]) for x in firsts if x.startswith("🎴")]


@pytest.mark.member_limits
async def test_three_colleagues_play_a_day_under_the_bots_limits_and_are_never_refused(
    sandbox_db: Path,
) -> None:
    """Three colleagues type about nine /daye each in seconds, past the bot's rate of
    commands per member: they keep to it, so no view shows a "Not so fast" (a day's
    clicks are its moves, never held)."""
    async with run_sandbox(sandbox_db, users=3) as three:
        fake = three.page.fake
        fake.limits = Limits.global_only("a whole day on one channel; the pacing is not tested")
        status, answer = await play(three)
        assert status == 200 and answer["status"] == "over", answer
        assert answer["moves"] > 3 * 8  # more commands and clicks each than the rate's window
        refused = [m.text for m in fake.messages.values() if "Not so fast" in (m.text or "")]
        assert refused == []


async def test_the_day_cannot_be_played_by_one_colleague_alone(sandbox_db: Path) -> None:
    async with run_sandbox(sandbox_db, users=1) as alone:
        status, answer = await play(alone)
        assert status == 409
        assert "colleagues" in answer["error"]
        (day,) = await alone.page.bot.store.games.find(kind="spaye")
        assert day.is_active  # opened by /spaye start, as the owner would


# -- 4. the gateway's heartbeat -----------------------------------------------------------------


async def test_a_heartbeat_is_acknowledged_after_a_round_trip_without_holding_the_gateway() -> None:
    fake = FakeDiscord(heartbeat_ack_delay=0.2)
    await fake.start()
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(fake.gateway_url) as ws,
        ):
            assert (await ws.receive_json(timeout=5))["op"] == 10
            sent = time.monotonic()
            await ws.send_json({"op": 1, "d": None})
            await ws.send_json({"op": 2, "d": {"token": "t", "intents": 0}})
            first = await ws.receive_json(timeout=5)
            assert first.get("t") == "READY"  # the gateway answered on, meanwhile
            while (await ws.receive_json(timeout=5))["op"] != 11:
                pass
            assert time.monotonic() - sent >= 0.2
    finally:
        await fake.stop()


async def test_discord_py_measures_the_heartbeat_from_the_heartbeat_it_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """discord.py notes when it sent a heartbeat in its keep-alive thread once the send has
    returned; an ACK handled before that was measured from the previous heartbeat, one
    interval too long ("Can't keep up, websocket is 41.3s behind" with the real interval)."""
    latencies: list[float] = []
    ack = discord.gateway.KeepAliveHandler.ack

    def record(self: discord.gateway.KeepAliveHandler) -> None:
        ack(self)
        latencies.append(self.latency)

    monkeypatch.setattr(discord.gateway.KeepAliveHandler, "ack", record)
    # An interval long enough that a busy machine's scheduling delays (a few tenths of a
    # second with four test workers on two cores) stay below it, while the bug measures a
    # whole interval.
    interval = 1.0
    fake = FakeDiscord(heartbeat_interval_ms=int(interval * 1000))
    fake.add_guild("Office", owner=fake.add_user("Ana"))
    await fake.start()
    client = discord.Client(intents=discord.Intents.none())
    try:
        async with fake.run_client(client):
            deadline = time.monotonic() + 6.5
            while time.monotonic() < deadline:  # a busy loop, as a bot at work
                sum(range(20_000))
                await asyncio.sleep(0.001)
    finally:
        await fake.stop()
    assert len(latencies) >= 5
    assert max(latencies) < interval, latencies


# -- 1. "/" in the command box ------------------------------------------------------------------

REASON = missing_browser()


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Any]:
    if REASON is not None:
        pytest.skip(REASON)
    async with chromium(tmp_path / "chromium-profile") as context:
        context.set_default_timeout(30_000)
        yield context


async def test_typing_a_slash_opens_the_command_list_with_one_slash(
    sandbox: Sandbox, browser: Any
) -> None:
    page = await PageDriver.open(browser, sandbox.url, {"Ana": sandbox.user("Ana")})
    view = page.view("Ana")
    box = view.get_by_role("textbox", name="Command")
    suggestions = view.locator(".suggest [role=option]")
    await box.click()
    assert await box.input_value() == ""  # a click only focuses, as in Discord
    await box.press("/")
    assert await box.input_value() == "/"
    await suggestions.first.wait_for()
    assert await view.locator(".suggest-none").count() == 0
    await box.press("/")  # a newcomer's second slash
    assert await box.input_value() == "/"
    await box.press_sequentially("da")
    assert await box.input_value() == "/da"
    await view.locator('.suggest [role=option][data-path="daye"]').wait_for()
    paths = await suggestions.evaluate_all("items => items.map(i => i.dataset.path)")
    assert paths and all(p.startswith("da") for p in paths)
    await box.fill("//he")  # pasted
    assert await box.input_value() == "/he"
    await view.locator('.suggest [role=option][data-path="help"]').wait_for()
    await box.press("Enter")
    assert await box.input_value() == "/help"
    assert not page.errors


async def test_the_time_bar_plays_the_day_and_says_why_it_cannot(
    sandbox_db: Path, browser: Any
) -> None:
    async with run_sandbox(sandbox_db, users=1) as alone:
        page = await PageDriver.open(browser, alone.url, {"Ana": alone.user("Ana")})
        button = page.page.get_by_role("button", name="Play the rest of the day")
        await button.click()
        status = page.page.locator("#clock-status")
        await status.filter(has_text="colleagues in the server").wait_for()
        assert await button.is_enabled()
        (day,) = await alone.page.bot.store.games.find(kind="spaye")  # opened by a click too
        assert day.is_active
        assert not page.errors
