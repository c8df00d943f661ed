"""Private messages: DM, or keep for the next interaction; "Show my hand"."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.engine import IllegalAction
from bot.private import CLOSED_MEMORY, HandButton, PrivateMessenger, PrivateRender, hand_key
from bot.storage import Store, StoredGame
from tests.bot.conftest import new_counter
from tests.bot.fakes import FakeInteraction

pytestmark = pytest.mark.usefixtures("counter_kind")


def http_error(cls: type[discord.HTTPException], status: int, code: int) -> Exception:
    return cls(SimpleNamespace(status=status, reason="no"), {"code": code, "message": "no"})


class FakeDMs:
    """Just enough of a discord.Client for PrivateMessenger.send."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, dict[str, Any]]] = []
        self.fail: dict[int, Exception] = {}
        self.created: list[int] = []

    async def create_dm(self, user: discord.abc.Snowflake) -> Any:
        self.created.append(user.id)
        return self.get_partial_messageable(user.id + 1000)

    def get_partial_messageable(self, channel_id: int, **kwargs: Any) -> Any:
        user_id = channel_id - 1000

        async def send(**kwargs: Any) -> None:
            if user_id in self.fail:
                raise self.fail[user_id]
            self.sent.append((user_id, kwargs))

        return SimpleNamespace(id=channel_id, send=send)


@pytest.fixture
def dms() -> FakeDMs:
    return FakeDMs()


@pytest.fixture
def private(store: Store, dms: FakeDMs) -> PrivateMessenger:
    return PrivateMessenger(dms, store.private, store.games)  # type: ignore[arg-type]


async def test_dm_sent(private: PrivateMessenger, dms: FakeDMs, store: Store) -> None:
    assert await private.send(111, "papayoo:1:hand", "your cards")
    assert dms.sent == [(111, {"content": "your cards", "embed": None})]
    assert await store.private.pending(111) == []


async def test_dm_channel_opened_once_and_kept_across_restarts(
    private: PrivateMessenger, dms: FakeDMs, store: Store
) -> None:
    assert await private.send(111, "a", "one")
    assert await private.send(111, "b", "two")
    assert dms.created == [111]
    restarted = PrivateMessenger(dms, store.private, store.games)  # type: ignore[arg-type]
    assert await restarted.send(111, "c", "three")
    assert dms.created == [111]  # known from the database
    assert [user for user, _ in dms.sent] == [111, 111, 111]
    await store.private.forget_user(111)
    assert await store.private.dm_channel(111) is None


async def test_a_dm_channel_asked_for_at_once_is_opened_once(
    private: PrivateMessenger, dms: FakeDMs, store: Store
) -> None:
    channels = await asyncio.gather(*(private.dm_channel(111) for _ in range(3)))
    assert dms.created == [111]  # joining the lobby and the start racing for it
    assert {c.id for c in channels} == {1111}
    assert await store.private.dm_channel(111) == 1111


async def test_closed_dms_are_kept_and_delivered_once(
    private: PrivateMessenger, dms: FakeDMs, store: Store
) -> None:
    dms.fail[111] = http_error(discord.Forbidden, 403, 50007)
    embed = discord.Embed(title="Hand", description="7H 8H")
    assert not await private.send(111, "papayoo:1:hand", "old hand")
    assert not await private.send(111, "papayoo:1:hand", "new hand", embed=embed)
    interaction = FakeInteraction(locale=discord.Locale.french)
    assert await private.deliver_pending(interaction) == 1  # type: ignore[arg-type]
    [sent] = interaction.log
    assert sent.ephemeral
    assert sent.content is not None
    assert sent.content.startswith("📭 Je n'ai pas pu") and sent.content.endswith("new hand")
    assert sent.kwargs["embeds"][0].title == "Hand"
    assert await private.deliver_pending(FakeInteraction()) == 0  # type: ignore[arg-type]

    assert not await private.send(111, "papayoo:1:hand", "newest hand")
    again = FakeInteraction()
    await private.flush_for(again)  # type: ignore[arg-type]
    assert again.texts == ["newest hand"]  # told once per key


async def test_other_failures_keep_the_message_too(
    private: PrivateMessenger, dms: FakeDMs, store: Store
) -> None:
    dms.fail[111] = http_error(discord.HTTPException, 500, 0)
    assert not await private.send(111, "spaye:1:exercise", "29 push-ups")
    assert [p.content for p in await store.private.pending(111)] == ["29 push-ups"]
    with pytest.raises(ValueError):
        await private.send(111, "k")


async def test_a_dm_that_goes_through_clears_the_stale_copy(
    private: PrivateMessenger, dms: FakeDMs, store: Store
) -> None:
    dms.fail[111] = http_error(discord.Forbidden, 403, 50007)
    await private.send(111, "papayoo:1:hand", "old")
    del dms.fail[111]
    private.dms_opened(111)  # or CLOSED_MEMORY later
    assert await private.send(111, "papayoo:1:hand", "fresh")
    assert not await store.private.has_pending(111)


async def test_closed_dms_are_remembered_so_discord_is_not_asked_again_and_again(
    private: PrivateMessenger, dms: FakeDMs, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    dms.fail[111] = http_error(discord.Forbidden, 403, 50007)
    assert not await private.send(111, "papayoo:1:hand", "old")
    assert private.known_closed(111)
    dms.fail[111] = RuntimeError("Discord must not be asked again")
    assert not await private.send(111, "papayoo:1:hand", "newer")  # kept, Discord not asked
    pending = await store.private.pending(111)
    assert [p.content for p in pending] == ["newer"]
    del dms.fail[111]
    later = time.monotonic() + CLOSED_MEMORY + 1
    monkeypatch.setattr("bot.private.time.monotonic", lambda: later)
    assert not private.known_closed(111)
    assert await private.send(111, "papayoo:1:hand", "fresh")


def render(stored: StoredGame, user_id: int, locale: str) -> PrivateRender:
    if str(user_id) not in stored.game.to_dict()["players"]:
        raise IllegalAction("You are not playing in this game.", "errors.not_a_player")
    return f"{locale}: total {stored.game.public_view()['total']}", None, None


async def test_show_hand(private: PrivateMessenger, store: Store, dms: FakeDMs) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    private.register_renderer("counter", render)
    dms.fail[111] = http_error(discord.Forbidden, 403, 50007)
    await private.send(111, hand_key("counter", game_id), "stale hand")

    player = FakeInteraction(user_id=111, locale=discord.Locale.french)
    await private.show_hand(player, "counter", game_id)  # type: ignore[arg-type]
    assert player.texts == ["fr: total 0"] and player.log[0].ephemeral
    assert not await store.private.has_pending(111)  # the hand shown replaces the kept one

    stranger = FakeInteraction(user_id=999)
    await private.show_hand(stranger, "counter", game_id)  # type: ignore[arg-type]
    assert stranger.texts == ["You are not playing in this game."]

    missing = FakeInteraction()
    await private.show_hand(missing, "counter", game_id + 1)  # type: ignore[arg-type]
    assert missing.texts == ["This game no longer exists."]

    unknown = FakeInteraction()
    await private.show_hand(unknown, "papayoo", game_id)  # type: ignore[arg-type]
    assert unknown.texts == ["This button does nothing any more."]


async def test_async_renderer_and_hand_button(private: PrivateMessenger, store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())

    async def slow_render(stored: StoredGame, user_id: int, locale: str) -> PrivateRender:
        return None, discord.Embed(title="hand"), None

    private.register_renderer("counter", slow_render)
    button = private.hand_button("counter", game_id, "fr")
    assert button.custom_id == f"gn:hand:counter:{game_id}"
    assert button.item.label == "Voir ma main"
    interaction = FakeInteraction(client=SimpleNamespace(private=private))
    await button.callback(interaction)  # type: ignore[arg-type]
    assert interaction.log[0].kwargs["embed"].title == "hand"
    with pytest.raises(ValueError):
        HandButton("Bad Kind", 1)
