"""Whole games through the fake Discord, with the real bot, read from each player's side.

Plays (``--games``, default all three) (a) a 4-player Papayoo game (default rounds; Dee's
DMs closed unless ``--closed-dms`` says otherwise), (b) a Speahx game of
``--speahx-players`` colleagues, to its end or ``--speahx-cap`` moves, and (c) a Späye day
of 30 colleagues with every Discord limit on (:mod:`bench.spaye_day`: the bot's messages in
the channel and in the day's thread, per däye, results out of order and after the closing,
pings per colleague). Every move is what a person does: they look at their own messages
(their hand by DM, or the copy "Show my hand" gave them when their DMs are closed, pressing
it again only when that copy has no control for the decision), then press the card's button,
or open a select and pick, turning pages when the move is on another one. Choices are random
among the legal moves, with a fixed seed (``--seed``): a Papayoo card among the legal ones; a
Speahx control among the distinct moves (the pile is collected only when nothing else is
possible), reached as a person reaches it: its button, or the button of its cards and then
its top card. A Papayoo pass takes the suggested pass half the time ("Pass these"), swaps one
of its cards three times in ten ("Choose myself", a click per card unticked or ticked, "Pass
these"), and is a random choice of cards otherwise, made the same way ("Untick all" first when
that is shorter). A player acts
once the bot has finished publishing the previous move (a person reads the screen first).

Prints, for each player: messages received (channel messages that mention them, DMs,
ephemeral answers), edits of their private messages (their hand), pings (mentions + DMs:
what notifies), clicks per move (mean, max, 1 / 2 / 3+; and for a Papayoo pass, by how it
was chosen), "stale control" answers and
refusals met; for Speahx, the most controls shown at once in a hand and the clicks per move
of all players; for the channel: messages posted, edits of the table; and the bot-token calls
per move (calls authorised with the bot's token: not the interaction callbacks, not the
interaction webhooks), by route. Each player's transcript (every state of every message they
saw, in order, with their own actions between) is written to ``--out`` (default: a new
temporary directory, printed at the end).

Machine speed: the fake's per-route buckets are off (``Limits.global_only``, as the cog tests
do) unless ``--limits``; the table is edited after every move (``TABLE_EDIT_INTERVAL`` 0, as
at a human pace where moves are seconds apart, unless ``--table-interval``); turn notices
keep the bot's delay (8 s), which nobody at machine speed reaches.

    python -m bench.transcripts
    python -m bench.transcripts --card-emojis --seed 7 --out /tmp/transcripts
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bot.seated.start
from bench.spaye_day import run_day
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord import FakeDiscord, InteractionResult
from bot.fakediscord.models import FakeChannel, FakeMessage, FakeUser, MessageVersion
from bot.fakediscord.ratelimits import Limits
from bot.i18n import t
from bot.limits import RateLimiter
from bot.seated import SeatedCog
from bot.seated.controls import stamp
from bot.settings import Settings
from cogs.papayoo._pass import suggested_pass
from cogs.speahx._controls import distinct_moves, plan
from tests.cogs.papayoo_support import Table, join_label, office, start_label
from tests.seated.driver import Seats

MACHINE_SPEED = (
    "bench.transcripts plays whole games at machine speed (a move every few milliseconds on "
    "one channel and one player's messages): Discord's per-route buckets would only hold it "
    "up. The global limit and the ban stay on; --limits plays with them all"
)
STALE = t("seated.stale", "en")
PAPAYOO = ["Ana", "Bob", "Cyd", "Dee"]
ACCEPT = 0.5
"""The share of Papayoo passes that take the suggested pass as it is."""
SWAP = 0.3
"""The share that swap one card of it; the rest choose every card themselves."""


# -- what each player did and met ---------------------------------------------------------------


@dataclass
class Player:
    user: FakeUser
    closed: bool = False
    rnd: random.Random = field(default_factory=random.Random)
    clicks: list[int] = field(default_factory=list)
    """Clicks of each move (a button 1, a select 1 + the values ticked, a page turn 1, a
    "Show my hand" 1)."""
    show_hand: int = 0
    stale: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    missing: int = 0
    """Moves whose control was not on the player's messages (found by "Show my hand")."""
    own_updates: int = 0
    """Edits of their private messages that answered their own clicks."""
    actions: list[tuple[float, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """As the office wrote it (the fake's username is in lower case)."""
        return self.user.global_name or self.user.name.capitalize()


class Game:
    """What the two games share: the players, their clicks, the bot's answers."""

    kind = ""

    def __init__(self, fake: FakeDiscord, gamebot: GamenightBot, channel: FakeChannel) -> None:
        self.fake = fake
        self.bot = gamebot
        self.channel = channel
        self.players: dict[int, Player] = {}
        self.moves = 0
        self.game_id = 0

    @property
    def cog(self) -> SeatedCog:
        return next(
            c for c in self.bot.cogs.values() if isinstance(c, SeatedCog) and c.kind == self.kind
        )

    def of(self, player_id: str) -> Player:
        return self.players[int(player_id)]

    async def interact(
        self,
        player: Player,
        what: str,
        act: Callable[[], Awaitable[InteractionResult]],
        *,
        move: bool = True,
    ) -> InteractionResult:
        """``player`` does ``what``; the answer is classified as a person reads it."""
        player.actions.append((time.time(), what))
        result = await act()
        msg = result.response
        if result.callback_type in (6, 7) and msg is not None and is_private(msg):
            player.own_updates += 1
        if STALE in result.text:
            player.stale.append(what)
        elif move and result.callback_type == 4:
            player.refusals.append(f"{what}: {one_line(result.text)}")
        return result

    def clicking(
        self, player: Player, msg: FakeMessage, custom_id: str
    ) -> Callable[[], Awaitable[InteractionResult]]:
        """``player``'s click on ``custom_id`` of ``msg``, to make."""

        async def click() -> InteractionResult:
            return await self.fake.click(player.user, msg, custom_id, settle=0)

        return click

    async def click(self, player: Player, msg: FakeMessage, custom_id: str, what: str) -> Any:
        return await self.interact(
            player, f"clicks {what}", lambda: self.fake.click(player.user, msg, custom_id, settle=0)
        )

    async def select(
        self, player: Player, msg: FakeMessage, custom_id: str, values: list[str], what: str
    ) -> Any:
        return await self.interact(
            player,
            f"opens a select and picks {what}",
            lambda: self.fake.select(player.user, msg, custom_id, values, settle=0),
        )

    async def lobby(self, options: dict[str, Any]) -> None:
        """The host opens the lobby, everybody joins, the host starts."""
        host, *others = self.players.values()
        lobby = await self.interact(
            host,
            f"types /{self.kind} begin",
            lambda: self.fake.slash(host.user, self.channel, f"{self.kind} begin", options),
            move=False,
        )
        assert lobby.response is not None and not lobby.ephemeral, lobby.text
        for player in others:
            label = join_label(self.fake, lobby)
            assert lobby.response is not None
            join = next(b for b in self.fake.buttons(lobby) if b.label == label)
            await self.interact(
                player,
                f'clicks "{label}"',
                self.clicking(player, lobby.response, str(join.custom_id)),
                move=False,
            )
        label = start_label(self.fake, lobby)
        started = await self.interact(
            host,
            f'clicks "{label}"',
            lambda: self.fake.click(host.user, lobby, label=label, settle=0),
            move=False,
        )
        assert started.callback_type == 7, started.text
        await self.cog.settle()
        self.game_id = (await self.bot.store.games.find(kind=self.kind))[0].id

    def private(self, player: Player) -> list[FakeMessage]:
        """What only this player sees (their DMs and ephemerals), newest first."""
        mine = self.fake.dms(player.user) + self.fake.ephemerals(player.user)
        return sorted(mine, key=lambda m: m.id, reverse=True)

    def holding(self, player: Player, custom_id: str) -> FakeMessage | None:
        for msg in self.private(player):
            for comp in self.fake.components_of(msg):
                if comp.get("custom_id") == custom_id and not comp.get("disabled"):
                    return msg
        return None


def is_private(msg: FakeMessage) -> bool:
    return msg.visible_to is not None or msg.channel.guild is None


def one_line(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# -- Papayoo -----------------------------------------------------------------------------------


class PapayooGame(Game):
    kind = "papayoo"

    def __init__(self, *args: Any, table: Table, seed: int) -> None:
        super().__init__(*args)
        self.table = table
        for user in table.users:
            self.players[user.id] = Player(
                user, user.id in table.closed, random.Random(f"{seed}:papayoo:{user.name}")
            )
        self.cards = 0
        self.passes: list[tuple[int, str]] = []
        """Each pass: its clicks (with "Show my hand" when it was needed) and how it was
        chosen."""

    async def controls(self, player: Player, custom_id: str) -> tuple[FakeMessage, int]:
        """The message holding ``custom_id`` and the clicks it took to bring it up."""
        self.table.game_id = self.game_id
        if not player.closed:
            try:
                found = await self.fake.wait_for(
                    lambda: self.holding(player, custom_id), timeout=3.0
                )
                assert isinstance(found, FakeMessage)
                return found, 0
            except TimeoutError:
                player.missing += 1
        else:
            found = self.holding(player, custom_id)
            if found is not None:
                return found, 0
        player.show_hand += 1
        table = self.table.table_message(await self.table.stored())
        shown = await self.interact(
            player,
            'clicks "Show my hand"',
            lambda: self.fake.click(
                player.user, table, f"gn:papayoo:{self.game_id}:hand", settle=0
            ),
            move=False,
        )
        assert shown.response is not None, shown.text
        return shown.response, 1

    async def pass_cards(self, player_id: str) -> None:
        """A pass as people make it: half take the suggested pass ("Pass these"); three in
        ten swap one of its cards ("Choose myself", untick one, tick another, "Pass these");
        the rest pass cards of their own choosing, at random ("Choose myself", "Untick all"
        when that is shorter, a click per card to untick or tick, "Pass these")."""
        stored = await self.table.stored()
        view = stored.game.view(player_id)
        player = self.of(player_id)
        hand = sorted(view["hand"])
        suggested = suggested_pass(view)
        roll = player.rnd.random()
        if roll < ACCEPT:
            chosen, how = list(suggested), "suggested"
        elif roll < ACCEPT + SWAP:
            out = player.rnd.choice(sorted(suggested))
            chosen = [c for c in suggested if c != out]
            chosen.append(player.rnd.choice([c for c in hand if c not in suggested]))
            how = "one card swapped"
        else:
            chosen, how = player.rnd.sample(hand, view["pass_size"]), "own choice"
        path = self.table.pass_path(stored, player_id, chosen)
        msg, extra = await self.controls(player, path[0])
        for custom_id in path:
            button = next(
                c for c in self.fake.components_of(msg) if c.get("custom_id") == custom_id
            )
            await self.click(player, msg, custom_id, control_label(button))
        clicks = extra + len(path)
        player.clicks.append(clicks)
        self.passes.append((clicks, how))
        self.moves += 1

    async def play_card(self, player_id: str) -> None:
        stored = await self.table.stored()
        view = stored.game.view(player_id)
        player = self.of(player_id)
        card = player.rnd.choice(sorted(view["legal"]))
        custom_id = self.table.play_id(stored, player_id, card)
        msg, extra = await self.controls(player, custom_id)
        button = next(c for c in self.fake.components_of(msg) if c.get("custom_id") == custom_id)
        await self.click(player, msg, custom_id, control_label(button))
        player.clicks.append(extra + 1)
        self.moves += 1
        self.cards += 1

    def card_names(self, cards: Sequence[str]) -> list[str]:
        from cogs.papayoo._render import PapayooRenderer

        return [PapayooRenderer().card_option(c, {}).text for c in cards]

    async def play(self) -> None:
        while True:
            stored = await self.table.stored()
            if not stored.is_active:
                return
            view = stored.game.public_view()
            if view["phase"] == "pass":
                await asyncio.gather(*(self.pass_cards(p) for p in view["to_act"]))
            else:
                await self.play_card(view["turn"])
            await self.cog.settle()


# -- Speahx ------------------------------------------------------------------------------------


class SpeahxGame(Game):
    kind = "speahx"

    def __init__(self, *args: Any, seats: Seats, seed: int) -> None:
        super().__init__(*args)
        self.seats = seats
        for user in seats.users:
            self.players[user.id] = Player(user, False, random.Random(f"{seed}:speahx:{user.name}"))

    async def move(self, player_id: str) -> None:
        """A random distinct move, made as a person makes it: on the first screen (a button,
        or a select: open, pick), or after the button that opens its screen (its cards,
        then the top card), turning pages forward in a hand too big for one screen."""
        stored = await self.seats.stored()
        view = stored.game.view(player_id)
        player = self.of(player_id)
        moves = distinct_moves(view)
        wanted = [m for m in moves if m.action.get("type") != "collect"] or moves
        chosen = player.rnd.choice(wanted)
        screen, _ = plan(moves).where()[chosen.index]
        mark = stamp(view["you"]["legal_actions"])
        prefix = f"gn:speahx:{self.game_id}:"
        button = f"{prefix}do:{mark}.{chosen.index}"
        opener = f"{prefix}page:{mark}.{screen}"
        clicks = 0

        def hand() -> FakeMessage | None:
            for msg in self.private(player):
                ids = [str(c.get("custom_id")) for c in self.fake.components_of(msg)]
                mine = (
                    f"{prefix}do:{mark}",
                    f"{prefix}page:{mark}",
                    f"gns:speahx:{self.game_id}:do:{mark}",
                )
                if any(i.startswith(mine) for i in ids):
                    return msg
            return None

        msg = await self.fake.wait_for(hand, timeout=5.0)
        assert isinstance(msg, FakeMessage), f"{player.name} has no controls"
        for _ in range(10):
            comps = self.fake.components_of(msg)
            if any(c.get("custom_id") == button for c in comps):
                label = control_label(next(c for c in comps if c.get("custom_id") == button))
                await self.click(player, msg, button, label)
                clicks += 1
                break
            select = next(
                (
                    s
                    for s in self.fake.selects(msg)
                    if any(o["value"] == str(chosen.index) for o in s["options"])
                ),
                None,
            )
            if select is not None:
                option = next(o for o in select["options"] if o["value"] == str(chosen.index))
                await self.select(
                    player, msg, select["custom_id"], [option["value"]], control_label(option)
                )
                clicks += 2
                break
            pages = [
                c
                for c in comps
                if str(c.get("custom_id", "")).startswith(f"{prefix}page:")
                and not c.get("disabled")
            ]
            target = [c for c in pages if c["custom_id"] == opener]
            forward = target or [c for c in pages if int(str(c["custom_id"]).rsplit(".", 1)[1]) > 0]
            assert forward, f"{player.name}: no control for {dict(chosen.action)}"
            turned = await self.interact(
                player,
                f"clicks {control_label(forward[-1])}",
                self.clicking(player, msg, str(forward[-1]["custom_id"])),
                move=False,
            )
            clicks += 1
            assert turned.response is not None
            msg = turned.response
        else:
            raise AssertionError(f"{player.name}: paged 10 times without finding the move")
        player.clicks.append(clicks)
        self.moves += 1

    def most_controls(self) -> int:
        """The most controls (buttons and selects) any hand showed at once, every version of
        every private message."""
        most = 0
        for player in self.players.values():
            for msg in self.private(player):
                for version in msg.versions:
                    shown = sum(
                        1
                        for row in version.components
                        for comp in row.get("components") or [row]
                        if comp.get("type") in (2, 3)
                    )
                    most = max(most, shown)
        return most

    async def play(self, cap: int) -> None:
        while self.moves < cap:
            stored = await self.seats.stored()
            if not stored.is_active:
                return
            await self.move(stored.game.to_act()[0])
            await self.cog.settle()


# -- reading what a player saw -----------------------------------------------------------------

CARD_ART = re.compile(r"<a?:gn_(\w+?)_[0-9a-f]{6}:\d+>")
CUSTOM_EMOJI = re.compile(r"<a?:(\w+):\d+>")
MENTION = re.compile(r"<@!?(\d+)>")
TIMESTAMP = re.compile(r"<t:(\d+)(?::([tTdDfFR]))?>")


class Reader:
    """Message states as text a person can read: mentions by name, card art by its card."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.names = {u.id: u.global_name or u.name.capitalize() for u in fake.users.values()}
        self.names[fake.bot_user.id] = fake.bot_user.name

    def text(self, text: str) -> str:
        text = CARD_ART.sub(lambda m: f"[{m.group(1)}]", text)
        text = CUSTOM_EMOJI.sub(lambda m: f":{m.group(1)}:", text)
        text = TIMESTAMP.sub(timestamp, text)
        return MENTION.sub(lambda m: "@" + self.names.get(int(m.group(1)), m.group(1)), text)

    def version(self, version: MessageVersion) -> list[str]:
        lines: list[str] = []
        if version.content:
            lines.append(self.text(version.content))
        for embed in version.embeds:
            if embed.get("author", {}).get("name"):
                lines.append(self.text(embed["author"]["name"]))
            if embed.get("title"):
                lines.append(f"## {self.text(str(embed['title']))}")
            if embed.get("description"):
                lines.append(self.text(str(embed["description"])))
            for fld in embed.get("fields", []):
                lines.append(f"### {self.text(str(fld.get('name', '')))}")
                lines.append(self.text(str(fld.get("value", ""))))
            if embed.get("footer", {}).get("text"):
                lines.append(f"-- {self.text(embed['footer']['text'])}")
        for row in version.components:
            items = []
            for comp in row.get("components") or [row]:
                if comp.get("type") == 2:
                    label = control_label(comp)
                    items.append(f"({label})" if comp.get("disabled") else f"[{label}]")
                elif comp.get("type") == 10:
                    lines.append(self.text(str(comp.get("content", ""))))
                elif "options" in comp:
                    options = " | ".join(control_label(o) for o in comp["options"])
                    count = comp.get("max_values", 1)
                    many = f" (pick {count})" if count > 1 else ""
                    items.append(f"<{comp.get('placeholder', 'select')}{many} ▾ {options}>")
            if items:
                lines.append("  ".join(items))
        return [self.text(line) for line in lines]


def timestamp(match: re.Match[str]) -> str:
    """A Discord timestamp as the bot's clock wrote it (the reader sees it in their time)."""
    when = datetime.fromtimestamp(int(match.group(1)), UTC).strftime("%H:%M:%S UTC")
    return f"‹{when}{', relative' if match.group(2) == 'R' else ''}›"


def control_label(comp: dict[str, Any]) -> str:
    emoji = comp.get("emoji") or {}
    art = ""
    if emoji.get("id"):
        match = re.match(r"gn_(\w+?)_[0-9a-f]{6}$", str(emoji.get("name", "")))
        art = f"[{match.group(1)}]" if match else f":{emoji.get('name')}:"
    elif emoji.get("name"):
        art = str(emoji["name"])
    label = str(comp.get("label") or "")
    return " ".join(x for x in (art, label) if x) or "?"


def transcript(game: Game, player: Player, reader: Reader) -> str:
    """Every state of every message the player saw, in order, and their actions between."""
    entries: list[tuple[float, int, int, list[str]]] = []
    for at, what in player.actions:
        entries.append((at, 0, 0, [f">>> {player.name} {what}"]))
    for msg in sorted(game.fake.messages.values(), key=lambda m: m.id):
        if msg.channel is game.channel and msg.visible_to is None:
            where = f"#{msg.channel.name}"
        elif msg.visible_to is player.user:
            where = "only you"
        elif msg.channel is player.user.dm_channel and player.user.dm_channel is not None:
            where = "DM"
        else:
            continue
        versions = msg.versions
        for k, version in enumerate(versions):
            state = "new" if k == 0 else f"edit {k}"
            gone = " (deleted later)" if msg.deleted and k == len(versions) - 1 else ""
            pings = ""
            if k == 0 and (player.user in msg.mentions or where == "DM"):
                pings = " — pings you"
            stamp_ = datetime.fromtimestamp(version.at, UTC).strftime("%H:%M:%S.%f")[:-3]
            head = f"--- [{where}] message {msg.id % 100000:05d}, {state}{gone}{pings} · {stamp_}"
            entries.append((version.at, 1, msg.id, [head, *reader.version(version)]))
    entries.sort(key=lambda e: (e[0], e[1], e[2]))
    return "\n".join("\n".join(lines) for _, _, _, lines in entries) + "\n"


# -- the figures -------------------------------------------------------------------------------


def clicks_text(clicks: list[int]) -> str:
    if not clicks:
        return "no moves"
    spread = Counter(min(c, 3) for c in clicks)
    return (
        f"mean {statistics.fmean(clicks):.2f}, max {max(clicks)};"
        f" 1: {spread[1]}, 2: {spread[2]}, 3+: {spread[3]}"
    )


def report(game: Game, mark: int, out: Path, art: bool) -> None:
    fake = game.fake
    reader = Reader(fake)
    everything = sorted(fake.messages.values(), key=lambda m: m.id)
    in_channel = [m for m in everything if m.channel is game.channel and m.visible_to is None]
    stored_table = in_channel[0] if in_channel else None
    print(
        f"  {'player':<8}{'@chan':>6}{'DMs':>5}{'eph':>5}{'hand edits (own/pushed)':>25}"
        f"{'pings':>7}  clicks per move"
    )
    for player in game.players.values():
        user = player.user
        mentioned = [m for m in in_channel if user in m.mentions]
        dms = [
            m for m in everything if user.dm_channel is not None and m.channel is user.dm_channel
        ]
        ephemerals = [m for m in everything if m.visible_to is user]
        private = dms + ephemerals
        edits = sum(len(m.history) for m in private)
        pushed = edits - player.own_updates
        own = f"{edits} ({player.own_updates}/{pushed})"
        print(
            f"  {player.name:<8}{len(mentioned):>6}{len(dms):>5}{len(ephemerals):>5}{own:>25}"
            f"{len(mentioned) + len(dms):>7}  {clicks_text(player.clicks)}"
        )
        (out / f"{game.kind}-{player.name}.txt").write_text(transcript(game, player, reader))
    for player in game.players.values():
        notes = []
        if player.closed:
            notes.append(f"DMs closed, pressed Show my hand {player.show_hand}×")
        elif player.show_hand:
            notes.append(f"pressed Show my hand {player.show_hand}×")
        if player.missing:
            notes.append(f"{player.missing} move(s) without a control in their DMs")
        if player.stale:
            notes.append(f"{len(player.stale)} stale answer(s): {player.stale[:3]}")
        if player.refusals:
            notes.append(f"{len(player.refusals)} refusal(s): {player.refusals[:3]}")
        if notes:
            print(f"  {player.name}: " + "; ".join(notes))
    print(
        "  (clicks: 1 a button; 2 a select, opened then one pick, or a button that opens a"
        " screen (Speahx: the cards, then the top card) then a button; 3+ a pass chosen card by"
        " card (one click per card ticked or unticked), a page turn, or Show my hand first)"
    )
    stale = sum(len(p.stale) for p in game.players.values())
    refused = sum(len(p.refusals) for p in game.players.values())
    print(f"  stale-control answers met: {stale}; refusals met: {refused}")
    table_edits = len(stored_table.history) if stored_table is not None else 0
    print(
        f"  channel: {len(in_channel)} messages posted"
        f" ({sum(m.deleted for m in in_channel)} deleted since), {table_edits} edits of the table"
    )
    calls = [
        f"{c.method} {c.route}"
        for c in fake.calls_since(mark)
        if not c.path.startswith(("/interactions/", "/webhooks/"))
    ]
    art_text = "card emojis on" if art else "card emojis off"
    print(
        f"  bot-token calls per move ({art_text}): {len(calls) / max(1, game.moves):.3f}"
        f" ({len(calls)} calls, {game.moves} moves)"
    )
    for kind, n in Counter(calls).most_common():
        print(f"    {n:5d}  {kind}")


# -- running -----------------------------------------------------------------------------------


async def new_bot(db: Path, cogs: list[str], art: bool) -> GamenightBot:
    bot = GamenightBot(
        Settings(database_path=db, card_emojis=art),
        FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)),
        cogs,
    )
    bot.actions.limiter = RateLimiter({})  # its members play at machine speed: no rate
    return bot


async def emojis_ready(gamebot: GamenightBot, art: bool) -> None:
    if art:
        await asyncio.wait_for(gamebot.card_emojis.done.wait(), 120)
        if not gamebot.card_emojis.emojis:
            raise RuntimeError(f"the card emojis were not uploaded: {gamebot.card_emojis.report}")


async def papayoo(args: argparse.Namespace, out: Path, tmp: Path) -> None:
    fake = FakeDiscord(limits=Limits() if args.limits else Limits.global_only(MACHINE_SPEED))
    await fake.start()
    try:
        gamebot = await new_bot(tmp / "papayoo.sqlite3", ["cogs.papayoo"], args.card_emojis)
        guild, channel, users = office(fake, PAPAYOO)
        closed = {u.id for u in users if u.name in {n.lower() for n in args.closed_dms}}
        for user in users:
            if user.id in closed:
                fake.close_dms(user)
        started = time.perf_counter()
        async with fake.run_client(gamebot):
            await emojis_ready(gamebot, args.card_emojis)
            table = Table(fake, gamebot, guild, channel, users, closed=closed, settle=0.0)
            game = PapayooGame(fake, gamebot, channel, table=table, seed=args.seed)
            await game.lobby({})
            table.game_id = game.game_id
            mark = fake.mark()
            await game.play()
            await game.cog.settle()
            stored = await table.stored()
            elapsed = time.perf_counter() - started
            print(
                f"Papayoo: 4 players ({', '.join(PAPAYOO)}; DMs closed:"
                f" {', '.join(sorted(args.closed_dms)) or 'nobody'}),"
                f" {len(stored.game.result()['rounds'])} rounds, {game.cards} cards +"
                f" {game.moves - game.cards} passes = {game.moves} moves, {stored.status},"
                f" {elapsed:.1f} s"
            )
            report(game, mark, out, args.card_emojis)
            print(pass_text(game.passes))
            if fake.problems():
                print("  fake Discord problems:", *fake.problems(), sep="\n    ")
        await gamebot.store.close()
    finally:
        await fake.stop()


def pass_text(passes: list[tuple[int, str]]) -> str:
    """``clicks for a Papayoo pass: mean, max`` over every pass, then by how it was chosen."""
    clicks = [c for c, _ in passes]
    if not clicks:
        return "  clicks for a Papayoo pass: no pass"
    ways = []
    for how in ("suggested", "one card swapped", "own choice"):
        mine = [c for c, way in passes if way == how]
        if mine:
            ways.append(f"{how} {len(mine)}× mean {statistics.fmean(mine):.2f} max {max(mine)}")
    return (
        f"  clicks for a Papayoo pass ({len(clicks)} passes, Show my hand included): mean"
        f" {statistics.fmean(clicks):.2f}, max {max(clicks)}; " + "; ".join(ways)
    )


async def speahx(args: argparse.Namespace, out: Path, tmp: Path) -> None:
    fake = FakeDiscord(limits=Limits() if args.limits else Limits.global_only(MACHINE_SPEED))
    await fake.start()
    try:
        gamebot = await new_bot(tmp / "speahx.sqlite3", ["cogs.speahx"], args.card_emojis)
        names = [f"P{i:02d}" for i in range(args.speahx_players)]
        _, channel, users = office(fake, names)
        started = time.perf_counter()
        async with fake.run_client(gamebot):
            await emojis_ready(gamebot, args.card_emojis)
            seats = Seats(fake, gamebot, "speahx", channel, users)
            game = SpeahxGame(fake, gamebot, channel, seats=seats, seed=args.seed)
            await game.lobby({})
            seats.game_id = game.game_id
            mark = fake.mark()
            await game.play(args.speahx_cap)
            await game.cog.settle()
            stored = await seats.stored()
            elapsed = time.perf_counter() - started
            end = (
                "played to its end"
                if stored.status == "over"
                else f"stopped at the cap of {args.speahx_cap} moves ({stored.status})"
            )
            print(f"Speahx: {len(users)} players, {game.moves} moves, {end}, {elapsed:.1f} s")
            report(game, mark, out, args.card_emojis)
            clicks = [c for p in game.players.values() for c in p.clicks]
            print(f"  the most controls shown at once in a Speahx hand: {game.most_controls()}")
            print(f"  Speahx clicks per move, all players: {clicks_text(clicks)}")
            if fake.problems():
                print("  fake Discord problems:", *fake.problems(), sep="\n    ")
        await gamebot.store.close()
    finally:
        await fake.stop()


async def run(args: argparse.Namespace) -> None:
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gamenight-transcripts-"))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if "papayoo" in args.games:
            await papayoo(args, out, Path(tmp))
            print()
        if "speahx" in args.games:
            await speahx(args, out, Path(tmp))
            print()
        if "spaye" in args.games:
            await run_day()  # every Discord limit on, whatever --limits says
    print(f"\ntranscripts: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="the deals and every choice")
    parser.add_argument(
        "--games",
        default="papayoo,speahx,spaye",
        help="comma-separated games to play (default: papayoo,speahx,spaye)",
    )
    parser.add_argument("--speahx-players", type=int, default=10)
    parser.add_argument("--speahx-cap", type=int, default=2000, help="Speahx moves at most")
    parser.add_argument("--out", help="directory for the transcripts (default: a new temp dir)")
    parser.add_argument(
        "--closed-dms",
        default="Dee",
        help="comma-separated Papayoo players whose DMs are closed ('' for nobody)",
    )
    parser.add_argument("--card-emojis", action="store_true", help="cards as application emojis")
    parser.add_argument("--limits", action="store_true", help="all of Discord's rate limits")
    parser.add_argument(
        "--table-interval", type=float, default=0.0, help="seconds between two table edits"
    )
    args = parser.parse_args()
    args.closed_dms = {n.strip() for n in args.closed_dms.split(",") if n.strip()}
    args.games = {g.strip() for g in args.games.split(",") if g.strip()}
    SeatedCog.TABLE_EDIT_INTERVAL = args.table_interval
    seed = args.seed
    bot.seated.start.new_seed = lambda: seed
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
