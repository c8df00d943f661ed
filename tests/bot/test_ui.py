"""The UI kit: custom ids, routing, error replies, answering in time."""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.engine import IllegalAction
from bot.private import HandButton
from bot.storage import GameNotFound
from bot.ui import (
    PUBLIC_ANSWER,
    ActionRouter,
    GameButton,
    GameSelect,
    PersistentItem,
    Press,
    accept_decline,
    acknowledged,
    auto_defer,
    defer,
    dispatch,
    error_text,
    game_custom_id,
    report_error,
    respond,
    translate_illegal,
    update_message,
)
from tests.bot.fakes import FakeInteraction


class Flusher:
    def __init__(self) -> None:
        self.flushed: list[int] = []

    async def flush_for(self, interaction: Any) -> None:
        self.flushed.append(interaction.id)


def kit_client(router: ActionRouter) -> SimpleNamespace:
    return SimpleNamespace(actions=router, private=Flusher())


def test_custom_ids() -> None:
    assert game_custom_id("papayoo", 42, "play", "7H") == "gn:papayoo:42:play:7H"
    assert game_custom_id("spaye", 1, "accept") == "gn:spaye:1:accept"
    for bad in (("Papayoo", 1, "play"), ("papayoo", 1, "Play"), ("papayoo", 1, "a:b")):
        with pytest.raises(ValueError):
            game_custom_id(*bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        game_custom_id("papayoo", 1, "play", "a:b")
    with pytest.raises(ValueError, match="100"):
        game_custom_id("papayoo", 1, "play", "x" * 90)


def test_templates_route_to_the_right_item() -> None:
    button = GameButton("papayoo", 42, "play", "7H", label="7♥")
    assert button.custom_id == "gn:papayoo:42:play:7H"
    game = GameButton.__discord_ui_compiled_template__
    hand = HandButton.__discord_ui_compiled_template__
    select = GameSelect.__discord_ui_compiled_template__
    assert game.fullmatch("gn:papayoo:42:play:7H")
    assert game.fullmatch("gn:spaye:3:accept")
    assert not game.fullmatch("gn:hand:papayoo:42")
    assert hand.fullmatch("gn:hand:papayoo:42")
    assert not hand.fullmatch("gn:papayoo:42:play")
    assert select.fullmatch("gns:papayoo:42:pass")
    assert not game.fullmatch("gns:papayoo:42:pass")


async def test_from_custom_id_round_trip() -> None:
    template = GameButton.__discord_ui_compiled_template__
    match = template.fullmatch("gn:spaye:9:bonus:tikao")
    assert isinstance(match, re.Match)
    item = await GameButton.from_custom_id(None, None, match)  # type: ignore[arg-type]
    assert item.press == Press("spaye", 9, "bonus", "tikao")
    options = [discord.SelectOption(label="7♥", value="7H")]
    select = GameSelect("papayoo", 4, "pass", options, max_values=3)
    match = GameSelect.__discord_ui_compiled_template__.fullmatch(select.custom_id)
    assert match is not None
    again = await GameSelect.from_custom_id(None, select.item, match)  # type: ignore[arg-type]
    assert again.press == Press("papayoo", 4, "pass") and again.item.options == options


class UserPick(
    PersistentItem[discord.ui.UserSelect[discord.ui.View]],
    template=r"gnu:(?P<kind>toy):(?P<game_id>[0-9]+):(?P<action>[a-z_]+)(?::(?P<arg>[^:]*))?",
):
    """A fourth kind of persistent item on the one base (as a user select of a game)."""

    def __init__(self, game_id: int, action: str, arg: str | None = None) -> None:
        custom_id = game_custom_id("toy", game_id, action, arg, prefix="gnu")
        select: discord.ui.UserSelect[discord.ui.View] = discord.ui.UserSelect(custom_id=custom_id)
        super().__init__(select, Press("toy", game_id, action, arg))

    @classmethod
    def rebuild(cls, press: Press, item: discord.ui.Item[Any]) -> UserPick:
        return cls(press.game_id, press.action, press.arg)

    def chosen(self) -> tuple[str, ...]:
        return ("7", "8")


async def test_one_base_serves_every_persistent_item(monkeypatch: pytest.MonkeyPatch) -> None:
    pick = UserPick(3, "recruit", "2")
    assert pick.custom_id == "gnu:toy:3:recruit:2"
    match = UserPick.__discord_ui_compiled_template__.fullmatch(pick.custom_id)
    assert match is not None
    again = await UserPick.from_custom_id(None, pick.item, match)  # type: ignore[arg-type]
    assert isinstance(again, UserPick) and again.press == Press("toy", 3, "recruit", "2")
    hand = HandButton("papayoo", 42)
    match = HandButton.__discord_ui_compiled_template__.fullmatch(hand.custom_id)
    assert match is not None
    assert HandButton.press_of(match) == hand.press == Press("papayoo", 42, "hand")
    pressed: list[Press] = []

    async def routed(interaction: Any, press: Press) -> None:
        pressed.append(press)

    monkeypatch.setattr("bot.ui.dispatch", routed)
    await again.callback(None)  # type: ignore[arg-type]
    assert pressed == [Press("toy", 3, "recruit", "2", ("7", "8"))]


def test_accept_decline_view_is_persistent() -> None:
    view = accept_decline("spaye", 5, "fr", arg="2")
    assert view.timeout is None and view.is_persistent()
    labels = [getattr(getattr(item, "item", None), "label", None) for item in view.children]
    assert labels == ["Accepter", "Refuser"]
    ids = [getattr(item, "custom_id", None) for item in view.children]
    assert ids == ["gn:spaye:5:accept:2", "gn:spaye:5:decline:2"]


def test_router() -> None:
    router = ActionRouter()

    async def any_action(i: Any, p: Press) -> None: ...
    async def accept(i: Any, p: Press) -> None: ...

    router.register("spaye", any_action)
    router.register("spaye", accept, action="accept")
    assert router.lookup("spaye", "accept") is accept
    assert router.lookup("spaye", "draw") is any_action
    assert router.lookup("papayoo", "play") is None
    router.unregister("spaye")
    assert router.lookup("spaye", "accept") is None
    with pytest.raises(ValueError):
        router.register("hand", any_action)


async def test_dispatch_runs_handler_and_flushes() -> None:
    router = ActionRouter()
    seen: list[Press] = []

    async def handler(interaction: Any, press: Press) -> None:
        seen.append(press)
        await respond(interaction, "ok")

    router.register("counter", handler)
    client = kit_client(router)
    interaction = FakeInteraction(client=client)
    await dispatch(interaction, Press("counter", 1, "inc"))  # type: ignore[arg-type]
    assert seen == [Press("counter", 1, "inc")]
    assert interaction.texts == ["ok"]
    assert client.private.flushed == [interaction.id]


async def test_dispatch_translates_illegal_actions() -> None:
    router = ActionRouter()

    async def refuse(interaction: Any, press: Press) -> None:
        raise IllegalAction("This game is over.", "game.closed")

    router.register("counter", refuse)
    interaction = FakeInteraction(client=kit_client(router), locale=discord.Locale.french)
    await dispatch(interaction, Press("counter", 1, "inc"))  # type: ignore[arg-type]
    [sent] = interaction.log
    assert (
        sent.ephemeral
        and sent.content == "Cette partie est terminée : elle n'accepte plus de coups."
    )


async def test_dispatch_reports_bugs_generically(caplog: pytest.LogCaptureFixture) -> None:
    router = ActionRouter()

    async def broken(interaction: Any, press: Press) -> None:
        await respond(interaction, "partial")
        raise KeyError("oops")

    router.register("counter", broken)
    client = kit_client(router)
    interaction = FakeInteraction(client=client)
    with caplog.at_level(logging.ERROR, logger="gamenight.ui"):
        await dispatch(interaction, Press("counter", 1, "inc"))  # type: ignore[arg-type]
    assert interaction.log[-1].how == "followup" and interaction.log[-1].ephemeral
    assert interaction.log[-1].content.startswith("Something went wrong")  # type: ignore[union-attr]
    assert "unhandled error" in caplog.text and "KeyError" in caplog.text
    assert client.private.flushed == [interaction.id]


async def test_dispatch_without_handler() -> None:
    interaction = FakeInteraction(client=kit_client(ActionRouter()))
    await dispatch(interaction, Press("counter", 1, "inc"))  # type: ignore[arg-type]
    assert interaction.texts == ["This button does nothing any more."]


def test_translate_illegal() -> None:
    assert translate_illegal(IllegalAction("plain words"), "fr") == "plain words"
    assert translate_illegal(IllegalAction("x", "no.such.key"), "fr") == "x"
    assert translate_illegal(IllegalAction("x", "errors.cooldown", seconds=2), "fr") == (
        "Pas si vite : réessayez dans 2 s."
    )


def test_error_texts() -> None:
    missing = app_commands.MissingPermissions(["manage_guild"])
    assert (
        error_text(missing, "fr") == "Il vous faut la permission Gérer le serveur pour faire cela."
    )
    assert error_text(app_commands.NoPrivateMessage(), "en") == "This only works in a server."
    assert error_text(GameNotFound(3), "en") == "This game no longer exists."
    wrapped = app_commands.CommandInvokeError(
        SimpleNamespace(name="x", qualified_name="x"),  # type: ignore[arg-type]
        IllegalAction("nope"),
    )
    assert error_text(wrapped, "en") == "nope"
    assert error_text(RuntimeError("bug"), "en") is None


async def test_report_error_never_raises_when_discord_fails(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = FakeInteraction()

    async def gone(*args: Any, **kwargs: Any) -> None:
        raise discord.NotFound(SimpleNamespace(status=404, reason="gone"), "Unknown interaction")

    interaction.response.send_message = gone  # type: ignore[method-assign]
    await report_error(interaction, RuntimeError("bug"))  # type: ignore[arg-type]
    assert "could not answer" in caplog.text


async def test_respond_and_update_pick_the_right_call() -> None:
    interaction = FakeInteraction()
    await respond(interaction, "first")  # type: ignore[arg-type]
    await respond(interaction, "second", ephemeral=True)  # type: ignore[arg-type]
    assert [(s.how, s.content) for s in interaction.log] == [
        ("response", "first"),
        ("followup", "second"),
    ]
    assert "view" not in interaction.log[0].kwargs and "embed" not in interaction.log[0].kwargs
    board = FakeInteraction()
    await update_message(board, "new board")  # type: ignore[arg-type]
    await update_message(board, "newer board")  # type: ignore[arg-type]
    assert [s.how for s in board.log] == ["edit", "edit_original"]
    late = FakeInteraction()
    await defer(late, thinking=True)  # type: ignore[arg-type]
    await defer(late)  # type: ignore[arg-type]
    assert [s.how for s in late.log] == ["defer"]


async def test_auto_defer_only_when_slow() -> None:
    fast = FakeInteraction()
    async with auto_defer(fast, after=0.05):  # type: ignore[arg-type]
        await respond(fast, "quick")  # type: ignore[arg-type]
    assert [s.how for s in fast.log] == ["response"]

    slow = FakeInteraction()
    async with auto_defer(slow, after=0.001, ephemeral=True):  # type: ignore[arg-type]
        await asyncio.sleep(0.02)
        await respond(slow, "late")  # type: ignore[arg-type]
    assert [s.how for s in slow.log] == ["defer", "followup"]


async def test_auto_defer_acknowledges_a_late_interaction_before_the_work() -> None:
    late = FakeInteraction()
    late.created_at = discord.utils.utcnow() - timedelta(seconds=2)  # type: ignore[attr-defined]
    async with auto_defer(late):  # type: ignore[arg-type]
        assert [s.how for s in late.log] == ["defer"]  # already, before the block's work
        await update_message(late, "done")  # type: ignore[arg-type]
    assert [s.how for s in late.log] == ["defer", "edit_original"]


def _late(**kwargs: Any) -> FakeInteraction:
    """An interaction Discord created 2.5 s ago: past the kit's acknowledgement point."""
    late = FakeInteraction(**kwargs)
    late.created_at = discord.utils.utcnow() - timedelta(seconds=2.5)  # type: ignore[attr-defined]
    return late


async def test_a_click_whose_handler_never_defers_is_acknowledged_by_the_kit() -> None:
    router = ActionRouter()
    seen: list[list[str]] = []

    async def handler(interaction: Any, press: Press) -> None:
        seen.append([s.how for s in interaction.log])  # what the kit did before the work
        await respond(interaction, "done", ephemeral=True)

    router.register("waits", handler)
    late = _late(client=kit_client(router))
    await dispatch(late, Press("waits", 1, "go"))  # type: ignore[arg-type]
    assert seen == [["defer"]]
    assert late.log[0].kwargs == {"ephemeral": False, "thinking": False}  # the message stays
    assert [s.how for s in late.log] == ["defer", "followup"]


async def test_a_handlers_own_deferral_inside_the_kits_is_made_once() -> None:
    router = ActionRouter()

    async def handler(interaction: Any, press: Press) -> None:
        async with auto_defer(interaction, ephemeral=True):
            await update_message(interaction, "done")

    router.register("own", handler)
    late = _late(client=kit_client(router))
    await dispatch(late, Press("own", 1, "go"))  # type: ignore[arg-type]
    assert [s.how for s in late.log] == ["defer", "edit_original"]


@pytest.mark.parametrize(("extras", "private"), [({}, True), (dict(PUBLIC_ANSWER), False)])
async def test_a_slow_slash_command_is_deferred_as_it_will_answer(
    extras: dict[str, Any], private: bool
) -> None:
    late = _late(
        type=discord.InteractionType.application_command,
        command=SimpleNamespace(extras=extras),
    )
    async with acknowledged(late):  # type: ignore[arg-type]
        assert [s.how for s in late.log] == ["defer"]
    assert late.log[0].kwargs == {"ephemeral": private, "thinking": True}


async def test_autocomplete_is_never_deferred() -> None:
    late = _late(type=discord.InteractionType.autocomplete)
    async with acknowledged(late):  # type: ignore[arg-type]
        await asyncio.sleep(0)
    assert late.log == []


async def test_game_view_reports_errors_of_its_items() -> None:
    from bot.ui import GameView

    view = GameView(discord.ui.Button(label="x", custom_id="cog:x"))
    assert view.timeout is None
    interaction = FakeInteraction(locale=discord.Locale.french)
    await view.on_error(interaction, IllegalAction("nope"), view.children[0])  # type: ignore[arg-type]
    assert interaction.texts == ["nope"]
