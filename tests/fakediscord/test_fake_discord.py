"""Tests of the fake Discord, driven by a tiny real discord.py bot."""

from __future__ import annotations

import asyncio
import io
import re
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser

pytestmark = pytest.mark.e2e


@dataclass
class Seen:
    """What the test bot observed, for assertions."""

    errors: list[Exception] = field(default_factory=list)
    ready: int = 0
    messages: list[discord.Message] = field(default_factory=list)


class VoteButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"vote:(?P<choice>\w+)"):
    def __init__(self, choice: str) -> None:
        super().__init__(discord.ui.Button(label=f"Vote {choice}", custom_id=f"vote:{choice}"))
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> VoteButton:
        return cls(match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"{interaction.user.name} voted {self.choice}", ephemeral=True
        )


class CounterView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=60)
        self.count = 0

    @discord.ui.button(label="+1", custom_id="counter:inc")
    async def inc(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        self.count += 1
        if self.count >= 2:
            button.disabled = True
        await interaction.response.edit_message(content=f"count: {self.count}", view=self)


class PickView(discord.ui.View):
    @discord.ui.select(
        custom_id="pick:game",
        options=[
            discord.SelectOption(label=g, value=g.lower()) for g in ("Spaye", "Papayoo", "Spit")
        ],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}")


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    comment: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Comment", custom_id="comment")
    mood: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Mood", custom_id="mood", required=False
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"thanks: {self.comment.value} / {self.mood.value or '-'}"
        )


class TeamView(discord.ui.View):
    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="team:pick", max_values=2)
    async def team(
        self, interaction: discord.Interaction, select: discord.ui.UserSelect[Any]
    ) -> None:
        names = sorted(u.display_name for u in select.values)
        await interaction.response.send_message("team: " + ", ".join(names))


class PanelView(discord.ui.LayoutView):
    def __init__(self, text: str = "Panel") -> None:
        super().__init__(timeout=60)
        go: discord.ui.Button[Any] = discord.ui.Button(label="Go", custom_id="panel:go")
        go.callback = self.go  # type: ignore[method-assign]
        self.add_item(discord.ui.Container(discord.ui.TextDisplay(text), discord.ui.ActionRow(go)))

    async def go(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await asyncio.sleep(0.02)
        await interaction.edit_original_response(view=PanelView("Gone"))


def make_bot(seen: Seen, intents: discord.Intents | None = None) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=intents or discord.Intents.default())

    async def setup_hook() -> None:
        bot.add_dynamic_items(VoteButton)
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]

    @bot.event
    async def on_ready() -> None:
        seen.ready += 1

    @bot.event
    async def on_message(message: discord.Message) -> None:
        seen.messages.append(message)

    @bot.tree.command(description="Ping")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"pong ({interaction.locale.value}, {interaction.guild_locale})"
        )

    @bot.tree.command(description="Secret")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you", ephemeral=True)

    @bot.tree.command(description="Slow")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await interaction.followup.send("done slowly")
        await interaction.followup.send("and a second message", ephemeral=True)

    @bot.tree.command(description="Progress")
    async def progress(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("step 1")
        await interaction.edit_original_response(content="step 2")

    @bot.tree.command(description="Announce")
    async def announce(interaction: discord.Interaction) -> None:
        assert isinstance(interaction.channel, discord.TextChannel)
        msg = await interaction.channel.send(
            "v1", file=discord.File(io.BytesIO(b"hello"), "note.txt")
        )
        await msg.edit(content=f"v2 by {interaction.user.mention}")
        size = len(await msg.attachments[0].read())
        await interaction.response.send_message(f"announced ({size} bytes)", ephemeral=True)

    @bot.tree.command(description="Counter")
    async def counter(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("count: 0", view=CounterView())

    @bot.tree.command(description="Board")
    async def board(interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(VoteButton("yes"))
        view.add_item(VoteButton("no"))
        await interaction.response.send_message("Vote!", view=view)

    @bot.tree.command(description="Pick")
    async def pick(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Pick a game", view=PickView())

    @bot.tree.command(description="Team")
    async def team(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Pick your team", view=TeamView())

    @bot.tree.command(description="Panel")
    async def panel(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(view=PanelView())

    @bot.tree.command(description="Play a game")
    async def play(interaction: discord.Interaction, game: str) -> None:
        await interaction.response.send_message(f"playing {game}")

    @play.autocomplete("game")
    async def play_game(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        games = ("Spaye", "Papayoo", "Spit")
        return [
            app_commands.Choice(name=g, value=g.lower())
            for g in games
            if current.lower() in g.lower()
        ]

    @bot.tree.command(description="Mods only")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def purge(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("purged", ephemeral=True)

    @bot.tree.context_menu(name="High five")
    async def high_five(interaction: discord.Interaction, member: discord.Member) -> None:
        await interaction.response.send_message(
            f"{interaction.user.mention} high-fives {member.mention}"
        )

    @bot.tree.context_menu(name="Quote")
    async def quote(interaction: discord.Interaction, message: discord.Message) -> None:
        await interaction.response.send_message(f"> {message.content}")

    @bot.tree.command(description="Feedback")
    async def feedback(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(FeedbackModal())

    @bot.tree.command(description="DM a colleague")
    async def poke(interaction: discord.Interaction, colleague: discord.User) -> None:
        try:
            await colleague.send(f"{interaction.user.name} pokes you")
        except discord.Forbidden as exc:
            seen.errors.append(exc)
            await interaction.response.send_message("their DMs are closed", ephemeral=True)
        else:
            await interaction.response.send_message("poked", ephemeral=True)

    @bot.tree.command(description="Too long")
    async def shout(interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("A" * 2001)
        except discord.HTTPException as exc:
            seen.errors.append(exc)
            await interaction.response.send_message("too long")

    @bot.tree.command(description="Never answers")
    async def ignore(interaction: discord.Interaction) -> None:
        return None

    spaye = app_commands.Group(name="spaye", description="Späye")

    @spaye.command(description="Start a game")
    @app_commands.describe(rounds="rounds", partner="partner")
    async def start(
        interaction: discord.Interaction,
        rounds: app_commands.Range[int, 1, 10],
        partner: discord.Member,
        where: discord.TextChannel | None = None,
    ) -> None:
        target = where.name if where else "here"
        await interaction.response.send_message(
            f"{rounds} rounds with {partner.display_name} in {target}",
            embed=discord.Embed(title="Späye", description="Game on"),
        )

    admin = app_commands.Group(name="admin", description="Admin", parent=spaye)

    @admin.command(description="Reset")
    async def reset(interaction: discord.Interaction, role: discord.Role) -> None:
        await interaction.response.send_message(f"reset for {role.name}")

    bot.tree.add_command(spaye)
    return bot


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    general: FakeChannel
    ana: FakeUser
    ben: FakeUser
    seen: Seen


@pytest.fixture
async def world(fake_discord: FakeDiscord) -> World:
    fake = fake_discord
    guild = fake.add_guild("Office", locale="de")
    general = fake.add_text_channel(guild, "general")
    ana = fake.add_user("Ana", locale="fr")
    ben = fake.add_user("Ben")
    fake.add_member(guild, ana)
    fake.add_member(guild, ben, nick="Benny")
    return World(fake, guild, general, ana, ben, Seen())


async def test_slash_command_answered(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "ping")
    assert result.answered and result.callback_type == 4
    assert result.content == "pong (fr, de)"
    assert not result.ephemeral
    assert fake.last_message(world.general) is result.response
    assert world.seen.ready == 1
    assert fake.answer_latencies and fake.answer_latencies[0] < 1


async def test_commands_synced_and_subcommands_with_resolved_options(world: World) -> None:
    fake = world.fake
    other = fake.add_text_channel(world.guild, "games")
    mods = fake.add_role(world.guild, "Mods")
    async with fake.run_client(make_bot(world.seen)):
        names = {name for name, _ in fake.global_commands}
        assert {"ping", "spaye", "feedback"} <= names
        started = await fake.slash(
            world.ana,
            world.general,
            "spaye start",
            {"rounds": 3, "partner": world.ben, "where": other},
        )
        reset = await fake.slash(world.ana, world.general, "spaye admin reset", {"role": mods})
        with pytest.raises(ValueError, match="no option"):
            await fake.slash(
                world.ana, world.general, "spaye start", {"round": 3, "partner": world.ben}
            )
    assert started.content == "3 rounds with Benny in games"
    assert started.embed is not None and started.embed["title"] == "Späye"
    assert "Game on" in started.text
    assert reset.content == "reset for Mods"


async def test_ephemeral_reply_only_visible_to_its_user(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "secret")
    assert result.ephemeral and result.content == "only you"
    assert fake.ephemerals(world.ana) == [result.response]
    assert fake.ephemerals(world.ben) == []
    assert result.response not in fake.channel_messages(world.general)
    assert result.response in fake.channel_messages(world.general, as_user=world.ana)
    assert result.response not in fake.channel_messages(world.general, as_user=world.ben)
    with pytest.raises(PermissionError):
        fake._check_can_see(world.ben, result.response)  # type: ignore[arg-type]


async def test_defer_then_followup(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "slow")
    assert result.callback_type == 5 and result.deferred
    # The first follow-up of a deferred response becomes the response itself.
    assert result.content == "done slowly"
    assert not result.response.loading  # type: ignore[union-attr]
    assert [m.content for m in result.messages] == ["done slowly", "and a second message"]
    assert result.followups[1].ephemeral and result.followups[1].visible_to is world.ana


async def test_edit_of_the_original_response(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "progress")
    assert result.content == "step 2"
    assert [v.content for v in result.response.versions] == ["step 1", "step 2"]  # type: ignore[union-attr]
    assert fake.count("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original") == 1


async def test_channel_message_edit_and_rest_calls_counted(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        mark = fake.mark()
        result = await fake.slash(world.ana, world.general, "announce")
        calls = fake.calls_since(mark)
    assert result.ephemeral and result.content == "announced (5 bytes)"
    posted = [m for m in result.messages if not m.ephemeral]
    assert len(posted) == 1
    msg = posted[0]
    assert msg.content == f"v2 by <@{world.ana.id}>" and [e.content for e in msg.edits] == ["v1"]
    assert msg.mentions == [world.ana]
    assert msg.attachments[0]["filename"] == "note.txt" and msg.attachments[0]["size"] == 5
    assert fake.count("POST", "/channels/{channel_id}/messages", since=mark) == 1
    assert fake.count("PATCH", "/channels/{channel_id}/messages/{message_id}", since=mark) == 1
    assert (
        fake.count(
            "POST", "/interactions/{interaction_id}/{interaction_token}/callback", since=mark
        )
        == 1
    )
    assert [(c.method, c.route) for c in calls] == [
        ("POST", "/channels/{channel_id}/messages"),
        ("PATCH", "/channels/{channel_id}/messages/{message_id}"),
        ("GET", "/attachments/{attachment_id}/{filename}"),
        ("POST", "/interactions/{interaction_id}/{interaction_token}/callback"),
    ]
    assert calls[0].files == ["note.txt"] and calls[0].json["content"] == "v1"


async def test_button_click_updates_message(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "counter")
        assert fake.buttons(result.response) == [("+1", "counter:inc", False)]  # type: ignore[arg-type]
        first = await fake.click(world.ben, result, "counter:inc")
        second = await fake.click(world.ana, result.response, label="+1")  # type: ignore[arg-type]
        with pytest.raises(PermissionError, match="disabled"):
            await fake.click(world.ana, result, "counter:inc")
    assert first.callback_type == 7 and first.response is result.response
    assert second.content == "count: 2"
    assert result.buttons == [("+1", "counter:inc", True)]
    assert [v.content for v in result.response.versions] == ["count: 0", "count: 1", "count: 2"]  # type: ignore[union-attr]


async def test_dynamic_button_routed_after_client_restart(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)) as first:
        board = (await fake.slash(world.ana, world.general, "board")).response
        assert board is not None
        await first.crash()
    assert first.crashed and not first.client.is_closed()
    assert fake.active_session() is None
    async with fake.run_client(make_bot(world.seen)):
        vote = await fake.click(world.ben, board, label="Vote no")
    assert vote.ephemeral and vote.content == "ben voted no"
    assert fake.identifies == 2
    assert world.seen.ready == 2


async def test_gateway_drop_is_resumed(world: World) -> None:
    fake = world.fake
    bot = make_bot(world.seen)

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s before identifying again on the same client

    bot.before_identify_hook = no_identify_delay  # type: ignore[method-assign]
    async with fake.run_client(bot):
        await fake.close_gateway(code=4000)
        await fake.wait_for(lambda: fake.resumes == 1 and fake.active_session() is not None)
        after_resume = await fake.slash(world.ana, world.general, "ping")
        await fake.close_gateway(code=4000, resumable=False)
        await fake.wait_for(lambda: fake.identifies == 2 and fake.active_session() is not None)
        after_identify = await fake.slash(world.ana, world.general, "ping")
    assert after_resume.answered and after_identify.answered


async def test_select_menu(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        menu = await fake.slash(world.ana, world.general, "pick")
        assert [o["value"] for o in fake.selects(menu)[0]["options"]] == [
            "spaye",
            "papayoo",
            "spit",
        ]
        with pytest.raises(ValueError, match="no option"):
            await fake.select(world.ben, menu, "pick:game", ["chess"])
        picked = await fake.select(world.ben, menu, "pick:game", ["papayoo"])
    assert picked.content == "picked papayoo"


async def test_user_select_resolves_members(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        menu = await fake.slash(world.ana, world.general, "team")
        picked = await fake.select(world.ana, menu, "team:pick", [world.ana, world.ben])
    assert picked.content == "team: Ana, Benny"


async def test_components_v2_deferred_update_then_edit(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        panel = await fake.slash(world.ana, world.general, "panel")
        assert "Panel" in panel.text and panel.buttons == [("Go", "panel:go", False)]
        go = await fake.click(world.ben, panel, "panel:go")
    assert go.callback_type == 6 and go.response is panel.response
    assert "Gone" in panel.text
    assert go.edited == [panel.response]
    assert fake.count("PATCH", "/webhooks/{}/{}/messages/@original") == 1


async def test_slash_in_dm(world: World) -> None:
    fake = world.fake
    dm = fake.dm_channel(world.ana)
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, dm, "ping")
    assert result.content == "pong (fr, None)"
    assert fake.dms(world.ana) == [result.response]


async def test_autocomplete(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        choices = await fake.autocomplete(world.ana, world.general, "play", {"game": "sp"}, "game")
        played = await fake.slash(world.ana, world.general, "play", {"game": choices[1]["value"]})
    assert choices == [{"name": "Spaye", "value": "spaye"}, {"name": "Spit", "value": "spit"}]
    assert played.content == "playing spit"


async def test_default_permissions_and_contexts_are_enforced(world: World) -> None:
    fake = world.fake
    boss = fake.add_user("Boss")
    fake.add_member(
        world.guild, boss, roles=[fake.add_role(world.guild, "Boss", permissions=1 << 5)]
    )
    async with fake.run_client(make_bot(world.seen)):
        with pytest.raises(PermissionError, match="lacks the permissions"):
            await fake.slash(world.ana, world.general, "purge")
        with pytest.raises(PermissionError, match="DMs"):
            await fake.slash(boss, fake.dm_channel(boss), "purge")
        allowed = await fake.slash(boss, world.general, "purge")
    assert allowed.content == "purged"


async def test_context_menus(world: World) -> None:
    fake = world.fake
    said = await fake.post_message(world.ben, world.general, "nice hand")
    async with fake.run_client(make_bot(world.seen)):
        five = await fake.context_menu(world.ana, world.general, "High five", world.ben)
        quoted = await fake.context_menu(world.ana, world.general, "Quote", said)
    assert five.content == f"<@{world.ana.id}> high-fives <@{world.ben.id}>"
    assert five.response is not None and five.response.mentions == [world.ana, world.ben]
    assert quoted.content == "> nice hand"


async def test_modal_round_trip(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        opened = await fake.slash(world.ana, world.general, "feedback")
        assert opened.callback_type == 9 and opened.response is None
        assert opened.modal is not None and opened.modal["title"] == "Feedback"
        with pytest.raises(ValueError, match="required"):
            await fake.submit_modal(world.ana, None, {"mood": "ok"}, from_interaction=opened)
        submitted = await fake.submit_modal(
            world.ana, opened.modal["custom_id"], {"comment": "great"}, from_interaction=opened
        )
    assert submitted.content == "thanks: great / -"


async def test_dm_sent(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "poke", {"colleague": world.ben})
    assert result.content == "poked"
    assert [m.content for m in fake.dms(world.ben)] == ["ana pokes you"]
    assert fake.dms(world.ana) == []
    assert fake.count("POST", "/users/@me/channels") == 1


async def test_dm_to_closed_dms_is_forbidden_50007(world: World) -> None:
    fake = world.fake
    fake.close_dms(world.ben)
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "poke", {"colleague": world.ben})
    assert result.content == "their DMs are closed"
    [error] = world.seen.errors
    assert isinstance(error, discord.Forbidden)
    assert (
        error.status == 403
        and error.code == 50007
        and error.text == "Cannot send messages to this user"
    )
    assert fake.dms(world.ben) == []


async def test_payload_that_discord_rejects_gets_400(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "shout")
    assert result.content == "too long"
    [error] = world.seen.errors
    assert isinstance(error, discord.HTTPException) and error.code == 50035
    assert "content" in error.text


async def test_unanswered_interaction_is_flagged_late(world: World) -> None:
    fake = world.fake
    fake.late_after = 0.2
    async with fake.run_client(make_bot(world.seen)):
        result = await fake.slash(world.ana, world.general, "ignore", timeout=0.4)
    assert not result.answered and result.response is None
    [late] = fake.late_interactions
    assert late.description == "/ignore by ana" and not late.answered
    fake.late_interactions.clear()  # expected here; otherwise the fixture fails the test


async def test_gateway_message_events_and_user_messages(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)):
        await fake.post_message(world.ana, world.general, "hello bot")
        await fake.wait_for(lambda: any(m.author.id == world.ana.id for m in world.seen.messages))
    [msg] = [m for m in world.seen.messages if m.author.id == world.ana.id]
    assert msg.channel.id == world.general.id
    assert msg.content == ""  # no message content intent
    intents = discord.Intents.default()
    intents.message_content = True
    async with fake.run_client(make_bot(world.seen, intents)):
        await fake.post_message(world.ana, world.general, "hello again")
        await fake.wait_for(lambda: world.seen.messages[-1].content == "hello again")


async def test_channel_added_while_connected_and_concurrent_commands(world: World) -> None:
    fake = world.fake
    async with fake.run_client(make_bot(world.seen)) as running:
        late_channel = fake.add_text_channel(world.guild, "late")
        await fake.wait_for(lambda: running.client.get_channel(late_channel.id))
        announced = await fake.slash(world.ben, late_channel, "announce")
        mark = fake.mark()
        results = await asyncio.gather(
            *(fake.slash(world.ana, world.general, "ping", settle=0) for _ in range(20))
        )
    assert announced.content == "announced (5 bytes)"
    assert fake.last_message(late_channel).content == f"v2 by <@{world.ben.id}>"  # type: ignore[union-attr]
    assert all(r.content == "pong (fr, de)" for r in results)
    assert fake.count("POST", "/interactions/{}/{}/callback", since=mark) == 20
    assert len(fake.answer_latencies) == 21


async def test_stop_restores_discord_bases() -> None:
    before = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    fake = FakeDiscord()
    await fake.start()
    assert f"{fake.base_url}/api/v10" == discord.http.Route.BASE
    other = FakeDiscord()
    with pytest.raises(RuntimeError, match="already patched"):
        await other.start()
    await other.stop()
    await fake.stop()
    assert before == (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)


async def test_missing_route_is_reported() -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        guild = fake.add_guild()
        async with fake.run_client(discord.Client(intents=discord.Intents.default())) as running:
            with pytest.raises(discord.NotFound):
                await running.client.http.get_all_custom_emojis(guild.id)
    finally:
        await fake.stop()
    [problem] = fake.problems()
    assert "no" in problem and "/emojis" in problem


async def test_a_nonce_with_enforce_nonce_creates_one_message(world: World) -> None:
    """Discord returns the message an author already created with that nonce (in the past
    few minutes) instead of creating another; a nonce over 25 characters is refused."""
    fake = world.fake
    bot = make_bot(world.seen)
    async with fake.run_client(bot):
        channel = bot.get_partial_messageable(world.general.id, guild_id=world.guild.id)
        first = await channel.send("closed", nonce="gn-closed-1")
        again = await channel.send("closed", nonce="gn-closed-1")
        other = await channel.send("closed", nonce="gn-closed-2")
        assert again.id == first.id != other.id
        assert len(fake.channel_messages(world.general)) == 2
        with pytest.raises(discord.HTTPException) as refused:
            await channel.send("closed", nonce="x" * 26)
        assert refused.value.code == 50035
