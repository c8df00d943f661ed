"""Drive Späye through the fake Discord as colleagues would: slash commands, buttons,
selects and the committee modal. Shared by the Späye cog tests and the benchmark.

Decks. ``/spaye start`` shuffles a fresh table. To know every card in advance, a test
stores the day itself: ``SpayeGame.with_table(cards)`` (the engine's test support: draws
take the cards in order, a reinserted nikäye replaces the last table card) saved with
``bot.store.days.open_day(..., day_meta(day))`` exactly as ``/spaye start`` saves it, and
its closing armed the same way. Everything after that goes through Discord.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.client import GamenightBot
from bot.clock import month_of
from bot.engine.cards import NIKAYE, standard_deck, value
from bot.engine.spaye import SpayeGame
from bot.storage import StoredGame
from cogs.spaye._calendar import schedule_closing
from cogs.spaye._month import month_names
from cogs.spaye._opening import announce_day, day_meta
from cogs.spaye._render import card
from tests.fakediscord import FakeDiscord
from tests.fakediscord.driver import InteractionResult
from tests.fakediscord.models import FakeChannel, FakeGuild, FakeMessage, FakeUser

COGS = ["cogs.config", "cogs.help", "cogs.spaye"]
TODAY = date(2025, 3, 14)
NK = NIKAYE


def rounds_table(
    rounds: Sequence[tuple[str, ...]], final: Sequence[str], fillers: int = 0
) -> list[str]:
    """The cards of ``rounds`` in order, then ``fillers`` rounds of two cards of different
    values taken from the rest of the deck, then the final's three cards."""
    used = [c for rnd in rounds for c in rnd] + list(final)
    rest = sorted((c for c in standard_deck() if c not in used), key=value)
    half = len(rest) // 2
    pairs = [(rest[i], rest[i + half]) for i in range(half)][:fillers]
    assert all(value(a) != value(b) for a, b in pairs)
    return [*used[: len(used) - len(final)], *[c for p in pairs for c in p], *final]


@dataclass
class SpayeDriver:
    """One office playing Späye in #general; ``game_id`` once a day is open."""

    fake: FakeDiscord
    bot: GamenightBot
    guild: FakeGuild
    channel: FakeChannel
    settle: float = 0.02
    wait: float = 5.0
    """Seconds to wait for a message the bot posts after its answer (a bench with every
    limit on waits out the channel's bucket)."""
    game_id: int = 0
    results: list[InteractionResult] = field(default_factory=list)
    guild_users: list[FakeUser] = field(default_factory=list)
    _thread_id: int = 0

    # -- the day ------------------------------------------------------------------------------

    async def store_day(
        self, cards: Sequence[str], *, day: date = TODAY, seed: int = 0, **options: Any
    ) -> StoredGame:
        """A day on a stacked table, stored as ``/spaye start`` stores one (``seed`` decides
        only the Tikäo's redraw on such a table)."""
        game = SpayeGame.with_table(cards, seed=seed, options=options)
        names = await month_names(self.bot, self.guild.id, month_of(day))
        self.game_id = await self.bot.store.days.open_day(
            self.guild.id, day, self.channel.id, game, day_meta(day, names)
        )
        await schedule_closing(self.bot, self.guild.id, day, self.game_id)
        return await self.stored()

    async def open_day(
        self, cards: Sequence[str], *, day: date = TODAY, seed: int = 0, **options: Any
    ) -> StoredGame:
        """:meth:`store_day`, then its board posted and its thread started as a workday
        opening does."""
        await self.store_day(cards, day=day, seed=seed, **options)
        await announce_day(self.bot, self.game_id)
        return await self.stored()

    def thread(self) -> FakeChannel | None:
        """The day's thread as last read by :meth:`stored` (``None``: the day is played in
        the channel)."""
        return self.fake.channels.get(self._thread_id) if self._thread_id else None

    async def stored(self) -> StoredGame:
        stored = await self.bot.store.games.require(self.game_id)
        found = stored.meta.get("thread_id")
        self._thread_id = found if isinstance(found, int) else 0
        return stored

    async def view(self) -> dict[str, Any]:
        return (await self.stored()).game.public_view()

    # -- acting -------------------------------------------------------------------------------

    def _keep(self, result: InteractionResult) -> InteractionResult:
        self.results.append(result)
        return result

    async def slash(
        self,
        user: FakeUser,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        where: FakeChannel | None = None,
    ) -> InteractionResult:
        channel = where or self.channel
        return self._keep(
            await self.fake.slash(user, channel, command, options, settle=self.settle)
        )

    async def click(
        self, user: FakeUser, message: FakeMessage | InteractionResult, custom_id: str
    ) -> InteractionResult:
        return self._keep(await self.fake.click(user, message, custom_id, settle=self.settle))

    async def pick(
        self, user: FakeUser, message: FakeMessage, custom_id: str, who: FakeUser
    ) -> InteractionResult:
        return self._keep(
            await self.fake.select(user, message, custom_id, [who], settle=self.settle)
        )

    async def choose(
        self, user: FakeUser, message: FakeMessage, custom_id: str, who: FakeUser
    ) -> InteractionResult:
        """Pick ``who`` in a select of späyins (its options' values are user ids)."""
        return self._keep(
            await self.fake.select(user, message, custom_id, [str(who.id)], settle=self.settle)
        )

    def cid(self, action: str, arg: object, prefix: str = "gn") -> str:
        return f"{prefix}:spaye:{self.game_id}:{action}:{arg}"

    def newest(self, prefix: str, *, user: FakeUser | None = None) -> FakeMessage:
        """The newest message (channel, or ``user``'s ephemerals) with a component whose
        custom id starts with ``prefix``."""
        found = [
            m
            for m in self.fake.messages.values()
            if not m.deleted
            and (m.visible_to is None or m.visible_to is user)
            and any(
                str(c.get("custom_id", "")).startswith(prefix) for c in self.fake.components_of(m)
            )
        ]
        assert found, f"no message with a component {prefix!r}"
        return max(found, key=lambda m: m.id)

    async def wait_newest(self, prefix: str, *, user: FakeUser | None = None) -> FakeMessage:
        """:meth:`newest`, waiting for it (a bot posts some messages after its answer)."""

        def find() -> FakeMessage | None:
            try:
                return self.newest(prefix, user=user)
            except AssertionError:
                return None

        found = await self.fake.wait_for(find, timeout=self.wait)
        assert isinstance(found, FakeMessage)
        return found

    def custom_id(self, message: FakeMessage, prefix: str) -> str:
        return next(
            str(c["custom_id"])
            for c in self.fake.components_of(message)
            if str(c.get("custom_id", "")).startswith(prefix)
        )

    async def challenge(
        self, by: FakeUser, *targets: FakeUser, where: FakeChannel | None = None
    ) -> InteractionResult:
        """``/daye`` in ``where`` (default: the channel). Typed outside the day's thread it
        is answered privately and the invitation is posted in the thread:
        :meth:`invitation` finds it."""
        options: dict[str, Any] = {"colleague": targets[0]}
        if len(targets) > 1:
            options["colleague2"] = targets[1]
        posted = await self.slash(by, "daye", options, where=where)
        if not posted.ephemeral and posted.response is not None:
            # the bot notes the invitation's message after answering: wait for it
            message_id = posted.response.id

            async def noted() -> bool:
                return (await self.stored()).meta.get("daye_message") == message_id

            await self.fake.wait_for(noted)
        return posted

    async def invitation(self) -> FakeMessage:
        """The message of the day's latest invitation (a challenge or a recruit's)."""
        invite = (await self.stored()).meta.get("invite")
        return await self.wait_newest(f"gn:spaye:{self.game_id}:accept:{invite}")

    async def answer(
        self, user: FakeUser, challenge: InteractionResult, action: str = "accept"
    ) -> InteractionResult:
        message = challenge.response
        if challenge.ephemeral:  # typed outside the thread: the invitation is there
            message = await self.invitation()
        assert message is not None
        return await self.click(
            user, message, self.custom_id(message, f"gn:spaye:{self.game_id}:{action}:")
        )

    async def draw(self, user: FakeUser) -> InteractionResult:
        """Press Draw on the message of the däye and round under way."""
        daye = (await self.view())["daye"]
        assert daye is not None, "no däye under way"
        custom_id = self.cid("draw", f"{daye['number']}-{len(daye['rounds']) + 1}")
        return await self.click(user, await self.wait_newest(custom_id), custom_id)

    async def daye(self, players: Sequence[FakeUser]) -> InteractionResult:
        """Challenge, accept and draw once each; returns the last draw."""
        posted = await self.challenge(players[0], *players[1:])
        assert not posted.ephemeral or "/channels/" in posted.text, posted.text
        for player in players[1:]:
            await self.answer(player, posted)
        last = None
        for player in players:
            last = await self.draw(player)
        assert last is not None
        return last

    async def exercise_message(self, eid: int) -> FakeMessage:
        """The record of exercise ``eid``, waiting for it: a draw's answer comes first and
        the record it makes is posted after it."""
        return await self.wait_newest(self.cid("done", eid))

    async def exercise(self, user: FakeUser, eid: int, action: str = "done") -> InteractionResult:
        message = await self.wait_newest(self.cid("done", eid))
        return await self.click(user, message, self.cid(action, eid))

    async def ask_committee(
        self, user: FakeUser, eid: int, reps: str, exercise: str
    ) -> InteractionResult:
        shown = await self.exercise(user, eid, "ask")
        assert shown.callback_type == 9, shown.text
        return self._keep(
            await self.fake.submit_modal(
                user,
                None,
                {"reps": reps, "exercise": exercise},
                from_interaction=shown,
                settle=self.settle,
            )
        )

    # -- what people saw ----------------------------------------------------------------------

    def everything_said(self) -> str:
        """Every version of every message anyone could see: channels, DMs, ephemerals."""
        texts = []
        for m in self.fake.messages.values():
            for v in m.versions:
                texts.append(v.content)
                texts.extend(str(e) for e in v.embeds)
        return "\n".join(texts)

    def check_hidden(self, code: str, shown_before: int) -> None:
        """Nothing anyone can see names the face-down card ``code`` (its rendering in both
        languages); for a nikäye, no new mention of one appeared since ``shown_before``."""
        said = self.everything_said()
        for locale in ("en", "fr"):
            if code == NK:
                assert said.count(card(NK, locale)) == shown_before
            else:
                assert card(code, locale) not in said, code

    def nikayes_shown(self) -> int:
        return self.everything_said().count(card(NK, "en"))
