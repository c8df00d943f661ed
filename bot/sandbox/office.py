"""The sandbox's office: its server set up as a real one, and a Späye day played to its end.

- :func:`set_up_office` does what the owner of a real office does once: names
  #announcements as the channel of the month's titles, with ``/config announce-channel``
  when the bot offers it, else with the public function that command's settings go through
  (:func:`bot.spaye_settings.update_spaye_settings`); the sandbox never picks the bot's
  storage itself.
- :class:`DayPlayer` plays the rest of today's Späye with the simulated colleagues: it reads
  the day (who the game waits for, what they may do) and makes each move with the same
  interaction through the fake Discord that a person's click makes: ``/daye`` for a
  challenge, then Accept, Draw, the recruit select after a tie, Approve, Done. It never
  writes the database; a refusal or an unanswered interaction stops it with the reason.
  So the month's end can be tried in seconds.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.fakediscord import InteractionResult
from bot.fakediscord.models import FakeChannel, FakeMessage, FakeUser, walk_components
from bot.limits import COMMANDS
from bot.sandbox.world import SandboxDiscord
from bot.spaye_settings import spaye_settings, update_spaye_settings

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["DayPlayer", "PlayRefused", "Played", "set_up_office"]

log = logging.getLogger("gamenight.sandbox")

ANNOUNCEMENTS = "announcements"
"""The channel of the month's titles in the sandbox's office."""
SPAYE_COMPONENT = re.compile(r"gnu?:spaye:(?P<game>\d+):(?P<action>[a-z_]+)(?::(?P<arg>[^:]*))?")
ANNOUNCE_COMMAND = ("config", "announce-channel")
"""How an office's owner names the channel of the month's titles."""
ANSWER_TIMEOUT = 3.5
"""As the page: Discord gives the bot 3 s to answer, the player waits a little longer."""


class PlayRefused(Exception):
    """The day cannot be played on (no colleague to challenge, the bot refused a move...)."""


def _ephemeral_text(result: InteractionResult) -> str:
    msgs = [m for m in result.messages if m.visible_to is not None]
    return " ".join(SandboxDiscord.text_of(m) for m in msgs).strip()


async def set_up_office(
    fake: SandboxDiscord, bot: GamenightBot, *, timeout: float = ANSWER_TIMEOUT
) -> bool:
    """The owner names #announcements as the channel of the month's titles, as the owner of
    a real office does once: with ``/config announce-channel`` when the bot offers it
    (neither its private answer nor the interaction is kept: a new office is empty), else
    with the same call the Späye settings' command makes (:func:`update_spaye_settings`).
    ``fake.set_up`` remembers it is done; ``False`` (and a warning) when it did not hold."""
    guild = fake.office
    announcements = next(
        (c for c in guild.channels if c.type == 0 and c.name == ANNOUNCEMENTS), None
    )
    if announcements is None:
        fake.set_up = True
        return True
    if ANNOUNCE_COMMAND[1] in _subcommands(fake, ANNOUNCE_COMMAND[0]):
        owner = _owner(fake)
        before = set(fake.messages)
        result = await fake.slash(
            owner,
            fake.general(),
            " ".join(ANNOUNCE_COMMAND),
            {"channel": announcements},
            timeout=timeout,
            settle=0,
        )
        # Part of building the world, like the channels: neither the private answer nor
        # the interaction is kept (a new sandbox has no messages and no interactions).
        for msg_id in set(fake.messages) - before:
            if fake.messages[msg_id].visible_to is owner:
                del fake.messages[msg_id]
        fake.interactions.pop(result.interaction.id, None)
        answer = _ephemeral_text(result) or "no answer"
    else:
        await update_spaye_settings(bot, guild.id, {"announce_channel_id": announcements.id})
        answer = "saved"
    settings = await spaye_settings(bot, guild.id)
    if getattr(settings, "announce_channel_id", None) != announcements.id:
        log.warning("sandbox: the announcement channel could not be set", extra={"answer": answer})
        return False
    fake.set_up = True
    return True


def _owner(fake: SandboxDiscord) -> FakeUser:
    """The office's owner (the one colleague who may use ``/config``)."""
    owner = fake.users.get(fake.office.owner_id or 0)
    return owner if owner is not None else fake.colleagues()[0]


def _subcommands(fake: SandboxDiscord, name: str) -> set[str]:
    schema = fake._find_command_schema(fake.office, name) or {}
    return {str(o.get("name")) for o in schema.get("options") or [] if o.get("type") == 1}


@dataclass
class Played:
    """What :meth:`DayPlayer.play` did: the moves made and the day's status after them."""

    game_id: int
    moves: int
    status: str
    seconds: float


class DayPlayer:
    """Plays the rest of today's Späye with the simulated colleagues (see the module)."""

    MAX_MOVES = 1000
    """A day takes a few hundred moves at most; past this something loops."""
    STALLS = 20
    """Moves in a row that changed nothing before giving up."""

    def __init__(
        self,
        fake: SandboxDiscord,
        bot: GamenightBot,
        *,
        timeout: float = ANSWER_TIMEOUT,
        wait: float = 60.0,
        on_move: Callable[[int], None] | None = None,
    ) -> None:
        self.fake = fake
        self.bot = bot
        self.timeout = timeout
        self.wait = wait
        self.on_move = on_move
        self._turn = 0
        self._commands: dict[int, deque[float]] = {}

    # -- the day ------------------------------------------------------------------------------

    def colleagues(self) -> list[FakeUser]:
        guild = self.fake.office
        return [u for u in self.fake.colleagues() if u.id in guild.members]

    async def _open_day(self) -> Any:
        guild = self.fake.office
        days = await self.bot.store.games.find(guild_id=guild.id, kind="spaye", limit=1)
        if days:
            return days[0]
        owner = _owner(self.fake)
        channel = self.fake.general()
        await self._pace(owner)
        result = await self.fake.slash(
            owner, channel, "spaye start", {}, timeout=self.timeout, settle=0
        )
        self._sent(owner)
        days = await self.bot.store.games.find(guild_id=guild.id, kind="spaye", limit=1)
        if not days:
            said = _ephemeral_text(result) or "no answer"
            raise PlayRefused(f"today's Späye could not be opened: {said}")
        return days[0]

    async def play(self) -> Played:
        """Play until the day is finished (or no longer active); raises :class:`PlayRefused`
        when it cannot go on."""
        started = time.monotonic()
        stored = await self._open_day()
        game_id = stored.id
        moves = stalls = 0
        while stored is not None and stored.is_active:
            if moves >= self.MAX_MOVES or stalls >= self.STALLS:
                raise PlayRefused(f"the day is stuck after {moves} moves")
            version = stored.version
            result = await self._move(stored)
            moves += 1
            if self.on_move is not None:
                self.on_move(moves)
            stored = await self._after(game_id, version, result)
            stalls = stalls + 1 if stored is not None and stored.version == version else 0
        status = "gone" if stored is None else stored.status
        return Played(game_id, moves, status, time.monotonic() - started)

    async def _after(self, game_id: int, version: int, result: InteractionResult) -> Any:
        """The day once the move is saved. A bot busy elsewhere (a reveal waiting for the
        channel's rate limit holds the day's lock) defers its answer and saves the move
        later: wait for it, so the next move is read from the day as it is, not as it was.
        A move refused (answered, nothing saved) is left after a short grace."""
        deadline = time.monotonic() + self.wait
        answered_at: float | None = None
        while True:
            stored = await self.bot.store.games.get(game_id)
            if stored is None or stored.version != version:
                return stored
            now = time.monotonic()
            if result.interaction.followed_up.is_set():
                answered_at = answered_at or now
                if now - answered_at > 0.3:
                    return stored
            if now > deadline:
                return stored
            await asyncio.sleep(0.02)

    # -- one move -----------------------------------------------------------------------------

    def _user(self, player: str) -> FakeUser | None:
        try:
            user = self.fake.users.get(int(player))
        except ValueError:
            return None
        return user if user is not None and not user.bot else None

    async def _move(self, stored: Any) -> InteractionResult:
        game = stored.game
        give_ups: list[tuple[FakeUser, int]] = []
        for player in game.to_act():
            user = self._user(player)
            if user is None:
                continue
            acts = game.legal_actions(player)
            kinds = {a["type"] for a in acts}
            if "accept" in kinds:
                return await self._press(user, stored.id, "accept")
            if "draw" in kinds:
                return await self._press(user, stored.id, "draw")
            if "recruit" in kinds:
                return await self._recruit(user, stored)
            for act in acts:
                if act["type"] == "approve":
                    return await self._press(user, stored.id, "approve", prefix=f"{act['id']}-")
                if act["type"] == "exercise_done":
                    return await self._press(user, stored.id, "done", arg=str(act["id"]))
            give_ups += [(user, a["id"]) for a in acts if a["type"] == "give_up"]
        if game.to_act():
            if not give_ups:
                raise PlayRefused("the day waits for someone the sandbox cannot play for")
            user, eid = give_ups[0]
            return await self._press(user, stored.id, "giveup", arg=str(eid))
        return await self._challenge(stored)

    async def _challenge(self, stored: Any) -> InteractionResult:
        """``/daye`` between colleagues in turn, so everyone plays; the final (3 cards left)
        names two."""
        people = self.colleagues()
        view = stored.game.public_view()
        final = bool(view["final_next"])
        needed = 3 if final else 2
        if len(people) < needed:
            raise PlayRefused(
                f"{'the final däye' if final else 'a däye'} needs {needed} colleagues in the"
                " server; add some with --users"
            )
        n = len(people)
        by = people[self._turn % n]
        others = [people[(self._turn + 1 + i + self._turn // n) % n] for i in range(n)]
        targets = list(dict.fromkeys(u for u in others if u is not by))[: needed - 1]
        self._turn += 1
        options: dict[str, Any] = {"colleague": targets[0]}
        if final:
            options["colleague2"] = targets[1]
        # where a colleague types it: the day's thread (its board links to it), else its channel
        thread = stored.meta.get("thread_id")
        channel = (
            self.fake.channels.get(thread if isinstance(thread, int) else stored.channel_id)
            or self.fake.channels.get(stored.channel_id)
            or self.fake.general()
        )
        await self._pace(by)
        result = await self.fake.slash(by, channel, "daye", options, timeout=self.timeout, settle=0)
        self._sent(by)
        return self._check(result, "/daye")

    async def _pace(self, user: FakeUser) -> None:
        """Wait until ``user`` may type another command: the bot holds a member to a few
        commands in a few seconds (:mod:`bot.limits`), which a colleague at machine speed
        would otherwise meet, and be refused, in every view."""
        rule = self.bot.actions.limiter.rules.get(COMMANDS)
        if rule is None:
            return
        sent = self._commands.setdefault(user.id, deque())
        now = time.monotonic()
        while sent and now - sent[0] >= rule.seconds:
            sent.popleft()
        if len(sent) >= rule.count - 1:  # one to spare, for the person at the page
            await asyncio.sleep(sent[0] + rule.seconds - now + 0.05)
            sent.popleft()

    def _sent(self, user: FakeUser) -> None:
        """Note a command of ``user`` once answered (the bot counted it by then)."""
        self._commands.setdefault(user.id, deque()).append(time.monotonic())

    async def _recruit(self, user: FakeUser, stored: Any) -> InteractionResult:
        daye = stored.game.public_view()["daye"] or {}
        playing = {str(p) for p in daye.get("players") or []}
        offered = {str((daye.get("offer") or {}).get("player") or "")}
        free = [u for u in self.colleagues() if str(u.id) not in playing | offered]
        if not free:
            raise PlayRefused("no colleague is free to be recruited for the final däye")
        msg, comp = await self._component(user, stored.id, "recruit")
        pick = free[self._turn % len(free)]
        self._turn += 1
        result = await self.fake.select(
            user, msg, comp["custom_id"], [pick], timeout=self.timeout, settle=0
        )
        return self._check(result, "the recruit menu")

    async def _press(
        self, user: FakeUser, game_id: int, action: str, *, arg: str | None = None, prefix: str = ""
    ) -> InteractionResult:
        msg, comp = await self._component(user, game_id, action, arg=arg, prefix=prefix)
        result = await self.fake.click(user, msg, comp["custom_id"], timeout=self.timeout, settle=0)
        return self._check(result, f"the button {comp.get('label') or action!r}")

    def _check(self, result: InteractionResult, what: str) -> InteractionResult:
        if not result.answered:
            raise PlayRefused(f"{self.fake.bot_user.name} did not answer {what}")
        return result

    async def _component(
        self, user: FakeUser, game_id: int, action: str, *, arg: str | None = None, prefix: str = ""
    ) -> tuple[FakeMessage, dict[str, Any]]:
        """The newest enabled control of ``action`` on the day that ``user`` can see, waiting
        for the bot to post it as a colleague would: some come after the click that caused
        them is answered, behind the channel's rate limit (a quick day queues reveals)."""
        deadline = time.monotonic() + self.wait
        while True:
            found = self._find(user, game_id, action, arg, prefix)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise PlayRefused(f"no {action!r} control appeared for {user.name}")
            await asyncio.sleep(0.02)

    def _find(
        self, user: FakeUser, game_id: int, action: str, arg: str | None, prefix: str
    ) -> tuple[FakeMessage, dict[str, Any]] | None:
        fake = self.fake
        for msg in sorted(fake.messages.values(), key=lambda m: m.id, reverse=True):
            if msg.deleted or not msg.components or not fake.can_see(user, msg):
                continue
            if not _reachable(msg.channel, user):
                continue
            for comp in walk_components(msg.components):
                match = SPAYE_COMPONENT.fullmatch(str(comp.get("custom_id") or ""))
                if match is None or comp.get("disabled"):
                    continue
                if int(match["game"]) != game_id or match["action"] != action:
                    continue
                got = match["arg"] or ""
                if (arg is None or got == arg) and got.startswith(prefix):
                    return msg, comp
        return None


def _reachable(channel: FakeChannel, user: FakeUser) -> bool:
    return not channel.is_dm or channel.recipient is user
