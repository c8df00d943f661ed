"""Drive Papayoo through the fake Discord as its players would: lobby, pass, tricks.

The driver reads the game from the database only to decide what a player wants to do; every
move itself is a click on a message that player can see (a DM, or an ephemeral after
"Show my hand" when their DMs are closed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.seated.controls import stamp, ticks
from bot.settings import Settings
from bot.storage import StoredGame
from cogs.papayoo._pass import suggested_pass
from cogs.papayoo._render import PapayooRenderer
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeGuild, FakeMessage, FakeUser

COGS = ["cogs.config", "cogs.help", "cogs.papayoo"]
RENDER = PapayooRenderer()


def make_bot(db_path: Path, clock: FakeClock) -> GamenightBot:
    return GamenightBot(Settings(database_path=db_path), clock, COGS)


def hand_text(hand: Sequence[str]) -> str:
    return RENDER.hand_text(hand)


@dataclass
class Table:
    """An office with players, and the Papayoo game they play (once started)."""

    fake: FakeDiscord
    bot: GamenightBot
    guild: FakeGuild
    channel: FakeChannel
    users: list[FakeUser]
    closed: set[int] = field(default_factory=set)
    settle: float = 0.02
    game_id: int = 0
    hands_seen: dict[int, list[str]] = field(default_factory=dict)
    """Every full hand text each player held (at the deal and after the pass)."""
    computer_hands: list[str] = field(default_factory=list)
    """The same for computer seats (whose hands nobody may see)."""
    wait_quiet: bool = True
    """Wait for the edits a click set off before the next one (benchmarks don't)."""

    def user(self, player: str) -> FakeUser:
        return next(u for u in self.users if str(u.id) == player)

    async def stored(self) -> StoredGame:
        return await self.bot.store.games.require(self.game_id)

    async def quiet(self) -> None:
        """Wait for the edits and computer moves the last click set off."""
        cog = self.bot.get_cog("Papayoo")
        if cog is not None and self.wait_quiet:
            await cog.settle()  # type: ignore[attr-defined]

    def table_message(self, stored: StoredGame) -> FakeMessage:
        return self.fake.message(stored.meta["table_id"])

    def private_messages(self, user: FakeUser) -> list[FakeMessage]:
        """What only this user sees, newest first."""
        mine = self.fake.dms(user) + self.fake.ephemerals(user)
        return sorted(mine, key=lambda m: m.id, reverse=True)

    async def show_hand(self, user: FakeUser) -> FakeMessage:
        shown = await self.fake.click(
            user,
            self.table_message(await self.stored()),
            f"gn:papayoo:{self.game_id}:hand",
            settle=self.settle,
        )
        assert shown.ephemeral and shown.response is not None, shown.text
        return shown.response

    async def controls(self, user: FakeUser, custom_id: str) -> FakeMessage:
        """The private message holding the control ``custom_id`` (pressing "Show my hand"
        first when the user's DMs are closed)."""
        if user.id in self.closed:
            shown = await self.show_hand(user)
            assert any(c.get("custom_id") == custom_id for c in self.fake.components_of(shown))
            return shown

        def find() -> FakeMessage | None:
            for msg in self.private_messages(user):
                for comp in self.fake.components_of(msg):
                    if comp.get("custom_id") == custom_id and not comp.get("disabled"):
                        return msg
            return None

        found = await self.fake.wait_for(find, timeout=5)
        assert isinstance(found, FakeMessage)
        return found

    async def open_and_start(
        self, options: dict[str, Any] | None = None, players: int | None = None
    ) -> int:
        host, *others = self.users[: players or len(self.users)]
        lobby = await self.fake.slash(host, self.channel, "papayoo begin", options or {})
        assert lobby.response is not None and not lobby.ephemeral
        for user in others:
            joined = await self.fake.click(user, lobby, label=join_label(self.fake, lobby))
            assert joined.callback_type == 7, joined
        started = await self.fake.click(host, lobby, label=start_label(self.fake, lobby))
        assert started.callback_type == 7, started
        games = await self.bot.store.games.find(kind="papayoo", channel_id=self.channel.id)
        self.game_id = games[0].id
        await self.quiet()
        await self.record_hands()
        return self.game_id

    async def record_hands(self) -> None:
        stored = await self.stored()
        for player in stored.game.public_view()["players"]:
            hand = stored.game.view(player)["hand"]
            if player.startswith("cpu"):
                self.computer_hands.append(hand_text(hand))
            else:
                self.hands_seen.setdefault(int(player), []).append(hand_text(hand))

    def pick_id(self, stored: StoredGame, player: str) -> str:
        """The pass's select of earlier versions (its custom id is still taken)."""
        return f"gns:papayoo:{self.game_id}:pick:{stamp(stored.game.legal_actions(player))}"

    def pass_id(self, stored: StoredGame, player: str, action: str, cards: Sequence[str]) -> str:
        """A pass control: ``pick`` makes the pass of ``cards``, ``sel`` shows them ticked."""
        view = stored.game.view(player)
        ticked = ticks(RENDER.hand_order(view["hand"]), cards)
        mark = stamp(stored.game.legal_actions(player))
        return f"gn:papayoo:{self.game_id}:{action}:{mark}.{ticked}"

    def play_id(self, stored: StoredGame, player: str, card: str) -> str:
        legal = stored.game.legal_actions(player)
        index = next(i for i, a in enumerate(legal) if a.get("card") == card)
        return f"gn:papayoo:{self.game_id}:do:{stamp(legal)}.{index}"

    def accept_id(self, stored: StoredGame, player: str) -> str:
        """ "Pass these": the suggested pass."""
        return self.pass_id(stored, player, "pick", suggested_pass(stored.game.view(player)))

    def pass_path(self, stored: StoredGame, player: str, chosen: Sequence[str]) -> list[str]:
        """The controls a person presses to pass ``chosen``: "Pass these" when it is the
        suggested pass; else "Choose myself" (the suggestion ticked), "Untick all" when that
        is shorter, a click per card to untick or tick, and "Pass these"."""
        suggested = suggested_pass(stored.game.view(player))
        if set(chosen) == set(suggested):
            return [self.accept_id(stored, player)]
        path = [self.pass_id(stored, player, "sel", suggested)]
        ticked = list(suggested)
        change = RENDER.hand_order(list(set(chosen) ^ set(suggested)))
        if len(change) > 1 + len(chosen):
            path.append(self.pass_id(stored, player, "sel", []) + ".0")  # "Untick all"
            ticked, change = [], RENDER.hand_order(list(chosen))
        for code in change:
            ticked = [c for c in ticked if c != code] if code in ticked else [*ticked, code]
            path.append(self.pass_id(stored, player, "sel", ticked))
        return [*path, self.pass_id(stored, player, "pick", chosen)]

    async def pass_cards(self, player: str, cards: Sequence[str] | None = None) -> Any:
        """``player`` passes ``cards`` (default: the last of their hand) as a person does
        (:meth:`pass_path`)."""
        stored = await self.stored()
        view = stored.game.view(player)
        user = self.user(player)
        chosen = list(cards or view["hand"][-view["pass_size"] :])
        *ticks, last = self.pass_path(stored, player, chosen)
        msg = await self.controls(user, ticks[0] if ticks else last)
        for custom_id in ticks:
            ticked = await self.fake.click(user, msg, custom_id, settle=0)
            assert ticked.callback_type == 7, ticked.text
        picked = await self.fake.click(user, msg, last, settle=self.settle)
        assert picked.callback_type == 7, picked.text
        await self.quiet()
        return picked

    async def play_card(self, player: str, card: str | None = None) -> Any:
        stored = await self.stored()
        view = stored.game.view(player)
        code = card or view["legal"][0]
        custom_id = self.play_id(stored, player, code)
        msg = await self.controls(self.user(player), custom_id)
        played = await self.fake.click(self.user(player), msg, custom_id, settle=self.settle)
        assert played.callback_type == 7, played.text
        await self.quiet()
        return played

    async def step(self) -> bool:
        """One move by whoever must act; ``False`` once the game is over."""
        stored = await self.stored()
        if not stored.is_active:
            return False
        view = stored.game.public_view()
        if view["phase"] == "pass":
            for player in view["to_act"]:
                await self.pass_cards(player)
            await self.record_hands()
        else:
            await self.play_card(view["turn"])
        return True

    async def play_to_the_end(self, limit: int = 500) -> None:
        for _ in range(limit):
            if not await self.step():
                return
        raise AssertionError("the game did not end")


def join_label(fake: FakeDiscord, lobby: Any) -> str:
    labels = [b.label for b in fake.buttons(lobby)]
    return "Rejoindre" if "Rejoindre" in labels else "Join"


def start_label(fake: FakeDiscord, lobby: Any) -> str:
    labels = [b.label for b in fake.buttons(lobby)]
    return "Lancer" if "Lancer" in labels else "Start"


def office(
    fake: FakeDiscord, names: Sequence[str], *, french: Sequence[str] = (), locale: str = "en-US"
) -> Any:
    """A guild with a channel and these users as members."""
    guild = fake.add_guild("Office", locale=locale)
    channel = fake.add_text_channel(guild, "games")
    users = []
    for name in names:
        user = fake.add_user(name, locale="fr" if name in french else "en-US")
        fake.add_member(guild, user)
        users.append(user)
    return guild, channel, users


async def forge(
    fake: FakeDiscord,
    user: FakeUser,
    message: FakeMessage,
    custom_id: str,
    values: Sequence[str] | None = None,
    *,
    settle: float = 0.02,
) -> Any:
    """A component interaction no honest client would send (a disabled button, a select with
    the wrong number of values): the component must exist on the message."""
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
    if values is not None:
        data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
    inter = fake._new_interaction(
        3, user, message.channel, data, f"forged {custom_id}", source=message
    )
    return await fake._run(inter, timeout=5.0, settle=settle)
