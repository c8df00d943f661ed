"""Play any seated game through the fake Discord as its players would.

The driver reads the game from the database only to decide what a player wants to do; the
move itself is a click (or a choice in a select) on the player's own hand message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.client import GamenightBot
from bot.seated import SeatedCog
from bot.seated.controls import stamp
from bot.storage import StoredGame
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeGuild, FakeMessage, FakeUser


def two_colleagues(fake: FakeDiscord) -> tuple[FakeGuild, FakeChannel, FakeUser, FakeUser]:
    """An office (its #games) with Ana and Bob in it."""
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob")
    for user in (ana, bob):
        fake.add_member(guild, user)
    return guild, channel, ana, bob


@dataclass
class Seats:
    fake: FakeDiscord
    bot: GamenightBot
    kind: str
    channel: FakeChannel
    users: list[FakeUser]
    game_id: int = 0
    settle: float = 0.0

    @property
    def cog(self) -> SeatedCog:
        cog = next(
            c for c in self.bot.cogs.values() if isinstance(c, SeatedCog) and c.kind == self.kind
        )
        return cog

    def user(self, player: str) -> FakeUser:
        return next(u for u in self.users if str(u.id) == player)

    async def stored(self) -> StoredGame:
        return await self.bot.store.games.require(self.game_id)

    async def open_and_start(self, options: dict[str, Any] | None = None) -> int:
        host, *others = self.users
        lobby = await self.fake.slash(host, self.channel, f"{self.kind} begin", options or {})
        assert lobby.response is not None and not lobby.ephemeral, lobby.text
        for user in others:
            joined = await self.fake.click(user, lobby, label="Join", settle=self.settle)
            assert joined.callback_type == 7, joined.text
        started = await self.fake.click(host, lobby, label="Start", settle=self.settle)
        assert started.callback_type == 7, started.text
        await self.cog.settle()
        self.game_id = (await self.bot.store.games.find(kind=self.kind))[0].id
        return self.game_id

    def hand(self, user: FakeUser) -> FakeMessage:
        dms = self.fake.dms(user)
        assert dms, f"{user.name} has no hand DM"
        return dms[-1]

    async def act(self, player: str, action: Mapping[str, Any]) -> Any:
        """``player`` makes ``action`` (one of their legal actions) with their controls: on
        the hand as it is, or on the page of the controls that holds it (turned first, as a
        player who knows where a move is). A game whose controls show one move for several
        equivalent actions says which one it offers (``offered_action``)."""
        stored = await self.stored()
        legal = stored.game.legal_actions(player)
        offered = getattr(self.cog, "offered_action", None)
        if offered is not None:
            action = offered(stored, player, action)
        index = legal.index(dict(action))
        mark = stamp(legal)
        user = self.user(player)
        message = self.hand(user)
        button = f"gn:{self.kind}:{self.game_id}:do:{mark}.{index}"
        page = 0 if self.holds(message, button, index) else self.page_of(stored, player, index)
        if page:
            turned = await self.fake.click(
                user,
                message,
                f"gn:{self.kind}:{self.game_id}:page:{mark}.{page}",
                settle=self.settle,
            )
            assert turned.callback_type == 7, turned.text
            message = self.hand(user)
        ids = {c.get("custom_id") for c in self.fake.components_of(message)}
        if button in ids:
            result = await self.fake.click(user, message, button, settle=self.settle)
        else:
            select = next(
                (
                    s
                    for s in self.fake.selects(message)
                    if any(o["value"] == str(index) for o in s["options"])
                ),
                None,
            )
            assert select is not None, (
                f"{user.name} has no control for {dict(action)} (move {index} of {len(legal)},"
                f" stamp {mark}): {sorted(ids)}"
            )
            result = await self.fake.select(
                user, message, select["custom_id"], [str(index)], settle=self.settle
            )
        assert result.callback_type == 7, result.text
        await self.cog.settle()
        return result

    def holds(self, message: FakeMessage, button: str, index: int) -> bool:
        """Whether ``message`` shows the control of legal action ``index``."""
        for comp in self.fake.components_of(message):
            if comp.get("custom_id") == button:
                return True
            if any(o.get("value") == str(index) for o in comp.get("options") or []):
                return True
        return False

    def page_of(self, stored: StoredGame, player: str, index: int) -> int:
        """The first page of ``player``'s controls holding legal action ``index`` (0 when
        none does: the assertion in :meth:`act` then says what the hand offers)."""
        mark = stamp(stored.game.legal_actions(player))
        button = f"gn:{self.kind}:{self.game_id}:do:{mark}.{index}"
        seen: set[tuple[str, ...]] = set()
        page = 0
        while True:
            controls = self.cog.controls(stored, player, "en", page=page)
            comps = controls.components if controls is not None else []
            ids = tuple(str(c.get("custom_id")) for c in comps)
            if ids in seen:  # past the last page: the controls repeat
                return 0
            seen.add(ids)
            for comp in comps:
                if comp.get("custom_id") == button:
                    return page
                if any(o.get("value") == str(index) for o in comp.get("options") or []):
                    return page
            page += 1

    async def play_auto(self, limit: int = 5000) -> int:
        """Everyone plays the timer's move until the game ends; returns the moves made."""
        for moves in range(limit):
            stored = await self.stored()
            if not stored.is_active:
                return moves
            player = stored.game.to_act()[0]
            await self.act(player, stored.game.auto_action(player))
        raise AssertionError("the game did not end")
