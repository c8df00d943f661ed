"""The page's actions on components, whatever the game: buttons (disabled ones refused),
selects (their min/max, user pickers), forms (modals) and pictures, with a tiny discord.py
bot of this test's own against the sandbox's Discord."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import discord
import pytest
from aiohttp.test_utils import TestClient, TestServer
from discord import app_commands

from bot.sandbox.page import SandboxPage
from bot.sandbox.world import SandboxClock, SandboxDiscord, WorldStore

pytestmark = pytest.mark.e2e
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


class Feedback(discord.ui.Modal, title="Feedback"):
    comment: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Comment", custom_id="comment")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"thanks: {self.comment.value}", ephemeral=True)


class Panel(discord.ui.View):
    @discord.ui.button(label="Form", custom_id="t:form")
    async def form(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await interaction.response.send_modal(Feedback())

    @discord.ui.button(label="Off", custom_id="t:off", disabled=True)
    async def off(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message("never")

    @discord.ui.select(
        custom_id="t:pick",
        min_values=2,
        max_values=3,
        options=[discord.SelectOption(label=x, value=x) for x in "abcd"],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message("picked " + "".join(select.values))

    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="t:who")
    async def who(
        self, interaction: discord.Interaction, select: discord.ui.UserSelect[Any]
    ) -> None:
        await interaction.response.send_message(f"chose {select.values[0].mention}")


class TinyBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="panel", description="A panel of components")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                "panel", view=Panel(timeout=None), file=discord.File(io.BytesIO(PNG), "hand.png")
            )

    async def setup_hook(self) -> None:
        await self.tree.sync()


@pytest.fixture
async def page(tmp_path: Any) -> AsyncIterator[tuple[SandboxDiscord, TestClient]]:  # type: ignore[type-arg]
    clock = SandboxClock()
    fake = SandboxDiscord(clock)
    fake.build(3)
    store = WorldStore(tmp_path / "world.sqlite3")
    await store.open()
    await fake.start()
    try:
        async with fake.run_client(TinyBot()):
            sandbox = SandboxPage(fake, bot=None, store=store, clock=clock)
            async with TestClient(TestServer(sandbox.app())) as client:
                yield fake, client
            await sandbox.close()
    finally:
        await fake.stop()
        await store.close()
    assert not fake.internal_errors and not fake.late_interactions


async def act(client: TestClient, user: Any, kind: str, **body: Any) -> tuple[int, dict[str, Any]]:  # type: ignore[type-arg]
    res = await client.post("/api/act", json={"user": str(user.id), "kind": kind, **body})
    return res.status, await res.json()


async def test_components_behave_as_discord(page: tuple[SandboxDiscord, TestClient]) -> None:  # type: ignore[type-arg]
    fake, client = page
    ana, bob, cid = fake.colleagues()
    general = fake.general()
    status, answer = await act(client, ana, "slash", channel=str(general.id), command="panel")
    assert status == 200 and answer["ok"]
    panel = answer["message"]

    # A picture attached to the message is shown inline and served by the page.
    res = await client.get(f"/attachments/{fake.message(panel).attachments[0]['id']}/hand.png")
    assert res.status == 200 and res.content_type == "image/png" and await res.read() == PNG

    # A disabled button cannot be pressed; a select takes 2 to 3 values.
    status, answer = await act(client, bob, "click", message=panel, custom_id="t:off")
    assert status == 400 and "disabled" in answer["error"]
    status, answer = await act(
        client, bob, "select", message=panel, custom_id="t:pick", values=["a"]
    )
    assert status == 400 and "2..3 values" in answer["error"]
    status, answer = await act(
        client, bob, "select", message=panel, custom_id="t:pick", values=["a", "z"]
    )
    assert status == 400 and "no option 'z'" in answer["error"]
    status, answer = await act(
        client, bob, "select", message=panel, custom_id="t:pick", values=["a", "c"]
    )
    assert status == 200 and fake.message(answer["message"]).content == "picked ac"
    status, answer = await act(
        client, bob, "select", message=panel, custom_id="t:who", values=[str(cid.id)]
    )
    assert status == 200 and fake.message(answer["message"]).content == f"chose <@{cid.id}>"
    before = len(fake.interactions)

    # A form opens for the clicker only; its required field is required.
    status, answer = await act(client, bob, "click", message=panel, custom_id="t:form")
    assert (
        status == 200
        and '<form class="modal"' in answer["modal"]
        and 'name="comment"' in answer["modal"]
    )
    form = answer["modal"].split('data-interaction-id="')[1].split('"')[0]
    status, answer = await act(client, cid, "modal", interaction=form, values={"comment": "x"})
    assert status == 403
    status, answer = await act(client, bob, "modal", interaction=form, values={})
    assert status == 400 and "required" in answer["error"]
    assert len(fake.interactions) == before + 1  # refused forms never reached the bot
    status, answer = await act(client, bob, "modal", interaction=form, values={"comment": "nice"})
    thanks = fake.message(answer["message"])
    assert thanks.content == "thanks: nice" and thanks.visible_to is bob


def test_the_sandbox_clock_only_moves_forward() -> None:
    clock = SandboxClock()
    assert clock.advance_to(clock.now() - timedelta(hours=1)) == timedelta()
    assert clock.advance_to(clock.now() + timedelta(hours=2)) > timedelta(hours=1, minutes=59)
    assert clock.offset > timedelta(hours=1, minutes=59)


async def test_a_colleagues_language_and_dms_change_only_for_a_colleague(
    page: tuple[SandboxDiscord, TestClient],  # type: ignore[type-arg]
) -> None:
    fake, client = page
    res = await client.post("/api/user", json={"user": "42", "locale": "fr"})
    assert res.status == 404
    ana = fake.colleagues()[0]
    res = await client.post("/api/user", json={"user": str(ana.id), "locale": "xx"})
    assert res.status == 400
    res = await client.post(
        "/api/user", json={"user": str(ana.id), "locale": "fr", "dms_open": False}
    )
    assert res.status == 200 and ana.locale == "fr" and not ana.dms_open
