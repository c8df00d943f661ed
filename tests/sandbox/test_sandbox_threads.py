"""Threads in the sandbox, as Discord shows them: a chip under the message a thread started
from (its name, its message count), the thread listed under its channel, commands used in
it, archived threads marked, a thread kept across a restart (no browser here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.fakediscord.models import FakeChannel
from bot.sandbox.render import RenderContext, render_message
from tests.sandbox.conftest import Sandbox, run_sandbox
from tests.sandbox.test_sandbox import frames_until

pytestmark = pytest.mark.e2e


async def started(box: Sandbox, name: str = "Späye · Monday") -> FakeChannel:
    """Ana writes in #general and starts a thread from her message."""
    fake = box.page.fake
    ana = fake.users[int(box.user("Ana"))]
    msg = await fake.post_message(ana, fake.general(), "Who plays today?")
    return await fake.start_thread(ana, msg, name)


async def test_a_thread_is_listed_under_its_channel_and_its_chip_opens_it(
    sandbox: Sandbox,
) -> None:
    fake = sandbox.page.fake
    ana, bob = sandbox.user("Ana"), sandbox.user("Bob")
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={bob}") as ws:
        assert json.loads((await ws.receive()).data)["t"] == "hello"
        thread = await started(sandbox)
        seen = await frames_until(
            ws,
            lambda f: (
                f.get("t") == "channels" and any(c["kind"] == "thread" for c in f["channels"])
            ),
        )
        channels = next(f for f in reversed(seen) if f.get("t") == "channels")["channels"]
        assert [c["kind"] for c in channels] == ["text", "thread", "text", "dm"]
        listed = channels[1]
        assert listed["id"] == str(thread.id) and listed["parent"] == str(fake.general().id)
        assert listed["name"] == "Späye · Monday" and not listed["archived"]
        starter = await frames_until(
            ws, lambda f: f.get("id") == str(thread.id) and "thread-chip" in f.get("html", "")
        )
        chip = next(f for f in reversed(starter) if f.get("id") == str(thread.id))["html"]
        assert 'data-action="open-thread"' in chip and f'data-channel="{thread.id}"' in chip
        assert "0 messages" in chip

        # A command typed in the thread is used in the thread.
        status, answer = await sandbox.act(ana, "slash", channel=str(thread.id), command="help")
        assert status == 200 and answer["ok"] and answer["channel"] == str(thread.id)
        assert fake.message(answer["message"]).channel is thread
        await fake.post_message(fake.users[int(bob)], thread, "me!")
        counted = await frames_until(
            ws, lambda f: f.get("id") == str(thread.id) and "1 message " in f.get("html", "")
        )
        assert counted
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={bob}") as ws:
        hello = json.loads((await ws.receive()).data)
        assert [c["kind"] for c in hello["channels"]] == ["text", "thread", "text", "dm"]


async def test_an_idle_thread_archives_when_the_clock_moves_a_day(sandbox: Sandbox) -> None:
    thread = await started(sandbox)
    bob = sandbox.user("Bob")
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={bob}") as ws:
        assert json.loads((await ws.receive()).data)["t"] == "hello"
        async with sandbox.http.post(sandbox.url + "/api/clock", json={"to": "day"}) as res:
            assert res.status == 200
        assert thread.archived
        seen = await frames_until(
            ws, lambda f: f.get("t") == "channels" and f["channels"][1]["archived"]
        )
        assert seen
        chip = await frames_until(
            ws, lambda f: f.get("id") == str(thread.id) and "Archived" in f.get("html", "")
        )
        assert chip
    # A command there reopens it, as Discord's client does.
    status, answer = await sandbox.act(bob, "slash", channel=str(thread.id), command="help")
    assert status == 200 and answer["ok"] and not thread.archived


async def test_a_deleted_thread_leaves_the_list_and_refuses_commands(sandbox: Sandbox) -> None:
    thread = await started(sandbox)
    await sandbox.page.fake.delete_thread(thread)
    ana = sandbox.user("Ana")
    async with sandbox.http.ws_connect(f"{sandbox.url}/ws?user={ana}") as ws:
        hello = json.loads((await ws.receive()).data)
    assert [c["kind"] for c in hello["channels"]] == ["text", "text", "dm"]
    status, answer = await sandbox.act(ana, "slash", channel=str(thread.id), command="help")
    assert status == 403 and "cannot see this thread" in answer["error"]


async def test_a_thread_survives_a_restart(sandbox_db: Path) -> None:
    async with run_sandbox(sandbox_db) as box:
        thread = await started(box)
        await box.page.fake.post_message(box.page.fake.users[int(box.user("Bob"))], thread, "hi")
        thread_id = thread.id
    async with run_sandbox(sandbox_db) as box:
        fake = box.page.fake
        again = fake.channels[thread_id]
        assert again.is_thread and again.name == "Späye · Monday" and again.message_count == 1
        assert fake.thread_of(fake.message(thread_id)) is again
        assert [m.content for m in fake.channel_messages(again)] == ["hi"]
        assert set(again.members) == {int(box.user("Ana")), int(box.user("Bob"))}


def test_the_chip_says_when_a_thread_is_archived() -> None:
    message = {
        "id": "7",
        "content": "The day starts",
        "author": {"username": "gamenight", "bot": True},
        "thread": {
            "id": "7",
            "name": "Späye <b>",
            "message_count": 1,
            "thread_metadata": {"archived": True, "locked": False},
        },
    }
    html = render_message(message, RenderContext())
    assert "1 message ›" in html and "Archived" in html and "thread-chip archived" in html
    assert "Späye &lt;b&gt;" in html  # the name is escaped
    ctx = RenderContext(threads={7: "Späye · Monday"})
    assert "#Späye · Monday" in render_message({"id": "8", "content": "see <#7>"}, ctx)
