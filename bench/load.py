"""Load benchmark: one bot process, N live tables (Papayoo, or ``--game speahx``), players
clicking through Discord.

Two processes, every address on 127.0.0.1:

- this one runs the fake Discord (``tests.fakediscord``) and the simulated players: per
  table, a host opens a lobby with ``/papayoo begin`` (``/speahx begin``), three colleagues join, the host
  starts; then every player acts whenever a live control for their own decision shows in
  their DMs, after a think time drawn around ``--think`` seconds (0: at once);
- the other runs the real bot (``bench.load_bot``) exactly as in production: system clock,
  APScheduler, SQLite file in WAL mode, INFO logging (to a file here).

Printed, for the measured window (after the start rush, ``--duration`` seconds):
throughput (interactions per second), answer time p50 / p99 / max (dispatch to the first
answer, as Discord's 3 s deadline counts it), failures (no answer within 3 s, or an answer
that was not the update the player expected), the bot's CPU ms per interaction (its process
CPU time, which the drivers' load disturbs less than wall time), database trips (batches of
statements) and those through aiosqlite's thread, log lines per interaction, how late the
bot's event loop runs and the garbage collector's time, and memory per live game (the bot's
RSS with every table dealt, minus its RSS once a first table was dealt, divided by the other
tables, after a collection; ``--memory`` also traces the Python heap for the live bytes per
game, which RSS overstates by what the start rush left fragmented).

What Discord's limits make matter (the fake enforces Discord's REST limits unless
``--no-limits``):

- bot-token calls per second, mean and worst second (any one-second span): the calls that
  count against Discord's global 50/s, i.e. every REST call but interaction answers and
  ``/webhooks/{application_id}/{interaction_token}`` calls (the fake's own verdict); per
  move, bot-token calls and interaction-token calls (answers and webhooks), beside the
  older "REST calls per move besides interaction answers";
- 429s by scope (global / user / shared; in the window and over the whole run, with the
  routes most refused) and invalid requests (401 / 403 / 429) scaled to 10 minutes, in the
  window and over the run, beside the fake's own count over its last 10 minutes (10,000
  get a bot banned);
- table staleness: for each move (an interaction answered on a player's hand), the time
  from its answer to the next edit of its game's table message (the message carrying the
  game's "Show my hand" button, ``gn:<kind>:<game_id>:hand``), p50 / p99 / max, and the
  moves no later edit showed;
- turn handoff: the time from a move's answer to the moment the fake applied the message
  that gave a player of that game a live control again (their DM hand going from no live
  control to one), p50 / p99 / max;
- stalled games: games running at the end whose state (the database's version, polled)
  did not change in the last max(10, 5 x think) seconds; tables behind: games whose latest
  move, over 10 s old, is not on their table at the end; players who pressed "Show my
  hand" because their hand had not come by DM within 5 s (DM channels opened slowly, see
  ``--dm-open-limit``) and played from that copy meanwhile, as the start message says;
- starts: lobbies whose Start was answered "busy" (the table starts when the bot has room),
  lobbies without their table at the end of the rush and 20 s later, and the time from the
  Start click to the table posted, p50 / p99 / max.

The start rush is reported too: how long the N lobbies took to open, fill and start, its
answer times and failures, and how many games were stuck (a player without their hand 20 s
after the rush). ``--kill-at`` kills the bot (kill -9) during the rush and restarts it on
its database, then checks every game the database holds: its table posted, every hand
sent, none twice. ``--outage AT:SECONDS`` takes the fake's REST API down AT seconds into the
window (every call answered 503, interaction answers too; a player whose click was not
answered clicks again a second later), then checks that every game running at the outage
went on (its state changed after it). ``--dm-open-limit N/S`` limits opening DM channels;
``--token-lifetime SECONDS`` makes interaction tokens expire sooner than Discord's 15
minutes (with a ``--warmup`` longer than it, the window is a long game's steady state).

    python -m bench.load --tables 50 --think 0 --duration 20
    python -m bench.load --tables 50 --game speahx --duration 20
    python -m bench.load --tables 200 --think 2 --duration 30
    python -m bench.load --tables 1000 --think 5 --duration 20 --open-rate 20
    python -m bench.load --tables 400 --think 5 --open-rate 20 --kill-at 10
    python -m bench.load --tables 50 --bot-root OTHER_CHECKOUT   # the same load on other code
    python -m bench.load --tables 200 --think 2 --no-limits "A/B: the cost of the limits"
    python -m bench.load --tables 100 --think 2 --duration 40 --outage 10:15
    python -m bench.load --tables 100 --think 2 --duration 40 --db-restart 10:5
    python -m bench.load --tables 100 --think 2 --token-lifetime 5 --warmup 10
    python -m bench.load --tables 200 --open-rate 50 --dm-open-limit 5/5
    python -m bench.load --tables 200 --think 2 --duration 30 --postgres
    python -m bench.load --tables 200 --think 2 --duration 30 --processes 2
    python -m bench.load --tables 200 --think 2 --duration 30 --processes 2 --rest-shares 0.7,0.3
    python -m bench.load --tables 100 --think 10 --turn-seconds 15 --processes 2 \
        --duration 100 --kill-at 10 --down 45   # kill -9 shard 1's process mid-games
    python -m bench.load --tables 100 --think 10 --turn-seconds 15 --processes 2 \
        --duration 160 --kill-at 10 --down 100 --kill-in-timer   # ... inside a claimed timer

``--postgres`` runs the bot on a throwaway PostgreSQL server (``DATABASE_URL``);
``--processes N`` runs N bot processes on it, shard i of N each (``SHARD_COUNT`` /
``SHARD_IDS``; the tables spread over guilds of every shard; DM interactions, the players'
moves, go to shard 0 as on Discord), and reports the figures per process too (CPU per
interaction, ``store.games.act`` time). With ``--kill-at`` it kills the last shard's process
KILL_AT seconds into the window, restarts it ``--down`` seconds later, then checks every
game went on after the restart, none lost or duplicated, and that each timer due while it
was down ran once (the processes log every timer run; a claim a dead process held is taken
over after its 60 s lease).

The run stops by itself: the bot is told to quit (killed after a grace period).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench._latency import percentile
from bench._pg import BenchDb, postgres_server
from bot.fakediscord.models import FakeChannel, FakeMessage, FakeUser
from bot.fakediscord.ratelimits import Limits, Rate
from bot.i18n import t
from tests.fakediscord import FakeDiscord

ANSWER = re.compile(r"^/interactions/[^/]+/[^/]+/callback$")
INTERACTION_TOKEN = re.compile(r"^/(?:interactions/[^/]+/[^/]+/callback$|webhooks/)")
"""Routes of an interaction's token (its answer, then its webhook): not the bot token's."""
HAND_BUTTON = re.compile(r"^gn:(?:hand:([a-z][a-z0-9_]*):(\d+)|([a-z][a-z0-9_]*):(\d+):hand)$")
"""The table's "Show my hand" button: it names the game the table message shows."""
MOVE = re.compile(r"^gns?:(?:papayoo|speahx):(\d+):(do|pick|play|choose|pass):(.*)$")
GAMES = {
    "papayoo": lambda args: {"rounds": args.rounds, "turn_seconds": args.turn_seconds},
    "speahx": lambda args: {"turn_seconds": args.turn_seconds},
}
"""The seated games whose hands are private (``/<game> begin`` options). Spit's board is a
public real-time race: ``bench.spit_discord`` measures it."""
ROOT = Path(__file__).resolve().parent.parent
LATE = timedelta(seconds=90)
DATABASE_AWAY = {t(key, lang) for key in ("errors.database_lost", "errors.database_unsure")
                 for lang in ("en", "fr")}  # fmt: skip
"""What a player is told when their move could not wait for the database."""
KILL_IN_TIMER_WAIT = 30.0
"""``--kill-in-timer``: how long the process may take to meet a timer (then kill -9 anyway)."""
"""A timer not done this long after its time (a lease of 60 s and a sweep) is lost."""
HAND_WAIT = 5.0
"""Seconds a seated player waits for their hand by DM before pressing "Show my hand"."""


class LoadFake(FakeDiscord):
    """The fake Discord, keeping each channel's messages in a list (the fake only keeps them
    by id), waking the players whose DMs changed and telling ``observer`` of every message
    created or edited."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.changed: dict[int, asyncio.Event] = {}
        self.keep_history = False
        self.messages_in: dict[int, list[FakeMessage]] = {}
        self.observer: Callable[[FakeMessage], None] | None = None

    def watch(self, channel_id: int) -> asyncio.Event:
        event = self.changed.get(channel_id)
        if event is None:
            event = self.changed[channel_id] = asyncio.Event()
        return event

    def _poke(self, msg: FakeMessage) -> None:
        if self.observer is not None:
            self.observer(msg)
        event = self.changed.get(msg.channel.id)
        if event is not None:
            event.set()
        if msg.visible_to is not None:
            event = self.changed.get(-msg.visible_to.id)
            if event is not None:
                event.set()
            dm = msg.visible_to.dm_channel  # a "Show my hand" copy wakes its player too
            event = self.changed.get(dm.id) if dm is not None else None
            if event is not None:
                event.set()

    def _new_message(
        self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
    ) -> FakeMessage:
        msg = super()._new_message(channel, author, payload, **extra)
        self.messages_in.setdefault(channel.id, []).append(msg)
        self._poke(msg)
        return msg

    def _edit_message(self, msg: FakeMessage, payload: dict[str, Any]) -> None:
        super()._edit_message(msg, payload)
        if not self.keep_history:
            msg.history.clear()
        self._poke(msg)


@dataclass
class Timeline:
    """When the fake applied what the players see (``time.monotonic()`` seconds)."""

    tables: dict[int, int] = field(default_factory=dict)
    """Table message id -> its game's id (the message carrying the game's hand button)."""
    table_shown: dict[int, list[float]] = field(default_factory=dict)
    """Game id -> when its table message was posted or edited, in order."""
    posted: dict[int, float] = field(default_factory=dict)
    """Table channel id -> when a game's table first showed there."""
    moves: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    """Game id -> (answered at, player id) of every move answered."""
    live: dict[int, bool] = field(default_factory=dict)
    """Player id -> whether their DM hand shows a live control now."""
    went_live: list[tuple[float, int, int]] = field(default_factory=list)
    """(at, player id, game id): a DM hand went from no live control to a live one."""
    changed: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    """Game id -> when its state changed in the database, from the window on: (the poll
    before, the poll that saw it), the change fell between them (:func:`watch_games`)."""

    def move_times(self, game_id: int) -> list[float]:
        return sorted(t for t, _ in self.moves.get(game_id, ()))


@dataclass
class Figures:
    """What the players saw."""

    latencies: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    stale: int = 0
    deferred: int = 0
    """Clicks answered by deferring (the bot waited over 1.5 s, e.g. on its database)."""

    def fail(self, why: str) -> None:
        self.failures[why] += 1


class BotProcess:
    """The bot in its own process (``bench.load_bot``)."""

    def __init__(self, proc: asyncio.subprocess.Process, log_path: Path) -> None:
        self.proc = proc
        self.log_path = log_path

    @classmethod
    async def start(
        cls,
        fake: FakeDiscord,
        db: Path,
        root: Path,
        log_path: Path,
        profile: str | None = None,
        traced: bool = False,
        game: str = "papayoo",
        env_extra: dict[str, str] | None = None,
        timer_log: Path | None = None,
    ) -> BotProcess:
        env = {**os.environ, "PYTHONPATH": str(root)}
        for name in ("DISCORD_TOKEN", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS", "REST_SHARE"):
            env.pop(name, None)
        env.update(env_extra or {})
        log = log_path.open("w")
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / "bench" / "load_bot.py"),
            "--api",
            fake.api_base,
            "--gateway",
            fake.gateway_url,
            "--db",
            str(db),
            *(["--profile", profile] if profile else []),
            *(["--timer-log", str(timer_log)] if timer_log else []),
            *(["--tracemalloc"] if traced else []),
            # /config too: the load's owner raises the server's limit of open tables.
            "--cogs",
            f"cogs.{game},cogs.config",
            *(["--freeze"] if "freeze_startup" in (root / "bot" / "client.py").read_text() else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            cwd=str(root),
            env=env,
        )
        bot = cls(proc, log_path)
        line = await asyncio.wait_for(bot.readline(), 60)
        if line != "READY":
            raise RuntimeError(f"the bot did not start: {line!r}; see {log_path}")
        return bot

    async def readline(self) -> str:
        assert self.proc.stdout is not None
        return (await self.proc.stdout.readline()).decode().strip()

    async def stats(self, command: str = "stats") -> Any:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{command}\n".encode())
        await self.proc.stdin.drain()
        return json.loads(await asyncio.wait_for(self.readline(), 30))

    async def stop(self) -> None:
        if self.proc.returncode is not None:
            return
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"quit\n")
            await self.proc.stdin.drain()
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


@dataclass
class TableRun:
    channel: FakeChannel
    users: list[FakeUser]
    game_id: int = 0
    seated: list[FakeUser] = field(default_factory=list)
    """The host and those whose Join was answered."""
    started: bool = False
    start_clicked: float | None = None
    """When the host clicked Start (monotonic)."""
    busy: bool = False
    """Start was answered "busy": the table starts when the bot has room."""
    shard: int = 0
    """The shard its guild's events go to (``--processes``)."""


class Load:
    def __init__(self, fake: LoadFake, args: argparse.Namespace) -> None:
        self.fake = fake
        self.args = args
        self.tables: list[TableRun] = []
        self.rush = Figures()
        self.play = Figures()
        self.measuring = False
        self.stop = asyncio.Event()
        self.asleep: set[int] = set()
        """Channels whose players stopped playing (``--kill-in-timer``: the game of the timer
        the killed process held, left to the lease)."""
        self.shown_hands: dict[int, FakeMessage] = {}
        """The copy "Show my hand" gave a player whose DM had not come yet."""
        self.pressed_show = 0
        self.rng = random.Random(args.seed)
        self.timeline = Timeline()
        fake.observer = self.observe

    def observe(self, msg: FakeMessage) -> None:
        """A message was posted or edited: a table shown, a hand gone live."""
        now = time.monotonic()
        line = self.timeline
        channel = msg.channel
        if channel.is_dm:
            user = channel.recipient
            if user is None:
                return
            live = self.controls(user)
            was = line.live.get(user.id, False)
            line.live[user.id] = bool(live)
            match = MOVE.match(str(live[0][1]["custom_id"])) if live else None
            if match and not was:
                line.went_live.append((now, user.id, int(match.group(1))))
            return
        if msg.ephemeral:
            return
        game_id = line.tables.get(msg.id)
        if game_id is None:
            for comp in self.fake.components_of(msg):
                match = HAND_BUTTON.match(str(comp.get("custom_id", "")))
                if match:
                    game_id = int(match.group(2) or match.group(4))
                    break
            else:
                return
            line.tables[msg.id] = game_id
            line.posted.setdefault(channel.id, now)
        line.table_shown.setdefault(game_id, []).append(now)

    def build(self) -> None:
        count = self.args.processes
        self.owner = self.fake.add_user("owner")
        guilds = [
            self.fake.add_guild(f"Office {s}", shard=(s, count), owner=self.owner)
            if count > 1
            else None
            for s in range(count)
        ]
        if count == 1:
            guilds = [self.fake.add_guild("Office", owner=self.owner)]
        for office in guilds:
            assert office is not None
            self.fake.add_member(office, self.owner)
        for i in range(self.args.tables):
            guild = guilds[i % count]
            assert guild is not None
            channel = self.fake.add_text_channel(guild, f"table-{i}")
            users = []
            for j in range(self.args.players):
                user = self.fake.add_user(f"p{i}x{j}")
                self.fake.add_member(guild, user)
                self.fake.get_dm_channel(user)
                users.append(user)
            self.tables.append(TableRun(channel, users, shard=i % count))

    async def _interact(self, figures: Figures, coro: Any) -> Any:
        try:
            result = await coro
        except Exception as err:  # the fake refused (a control gone): the player's slip
            figures.fail(type(err).__name__)
            return None
        if not result.answered:
            figures.fail("no answer")
            return None
        latency = result.latency
        if latency is not None:
            figures.latencies.append(latency)
            if latency > 3.0:
                figures.fail("answered after 3 s")
        return result

    async def open_table(self, table: TableRun) -> None:
        host, *others = table.users
        fig = self.rush
        game = self.args.game
        options = GAMES[game](self.args)
        lobby = await self._interact(
            fig, self.fake.slash(host, table.channel, f"{game} begin", options, settle=0)
        )
        if lobby is None or lobby.response is None:
            fig.fail("lobby not opened")
            return
        message = lobby.response
        labels = {b.label: b.custom_id for b in self.fake.buttons(message)}
        join = labels.get("Join") or labels.get("Rejoindre")
        start = labels.get("Start") or labels.get("Lancer")
        table.seated = [host]
        for user in others:
            if await self._interact(fig, self.fake.click(user, message, join, settle=0)):
                table.seated.append(user)
        table.start_clicked = time.monotonic()
        result = await self._interact(fig, self.fake.click(host, message, start, settle=0))
        table.started = result is not None
        table.busy = (
            result is not None
            and "busy" in result.text.lower()
            and table.channel.id not in self.timeline.posted
        )

    async def allow_every_table(self) -> None:
        """Every table of the load is opened at once in a few servers: their owner raises
        the server's limit of open tables (``/config limits``) above the load's. A bot
        without that command (``--bot-root`` on older code) has no such limit."""
        done: set[int] = set()
        for table in self.tables:
            guild = table.channel.guild
            if guild is None or guild.id in done:
                continue
            done.add(guild.id)
            options = {"lobbies-per-server": min(max(len(self.tables), 1), 5000)}
            try:
                said = await self.fake.slash(self.owner, table.channel, "config limits", options)
            except (LookupError, ValueError, PermissionError) as err:
                print(f"  (no /config limits: {err})", file=sys.stderr)
                continue
            if not said.ephemeral or "**" not in said.text:
                print(f"  (/config limits answered {said.text!r})", file=sys.stderr)

    async def rush_phase(self, tables: list[TableRun]) -> float:
        began = time.monotonic()
        tasks = []
        gap = 1.0 / self.args.open_rate if self.args.open_rate else 0.0
        for table in tables:
            tasks.append(asyncio.create_task(self.open_table(table)))
            if gap:
                await asyncio.sleep(gap)
        await asyncio.gather(*tasks)
        return time.monotonic() - began

    def controls(self, user: FakeUser) -> list[tuple[FakeMessage, dict[str, Any]]]:
        """The live move controls of the user's newest private hand: their DM, else the copy
        "Show my hand" gave them."""
        channel = user.dm_channel
        found: list[tuple[FakeMessage, dict[str, Any]]] = []
        messages: list[FakeMessage] = []
        shown = self.shown_hands.get(user.id)
        if shown is not None:
            messages.append(shown)
        if channel is not None:
            messages += [m for m in self.fake.messages_in.get(channel.id, ()) if not m.deleted]
        for msg in reversed(messages):
            for comp in self.fake.components_of(msg):
                if comp.get("disabled") or not MOVE.match(str(comp.get("custom_id", ""))):
                    continue
                found.append((msg, comp))
            if found:
                return found
        return found

    def has_dm_hand(self, user: FakeUser) -> bool:
        """A hand came by DM (an embed; turn notices are plain text), live or waiting."""
        channel = user.dm_channel
        return channel is not None and any(
            m.embeds and not m.deleted for m in self.fake.messages_in.get(channel.id, ())
        )

    async def show_hand(self, table: TableRun, user: FakeUser) -> None:
        """No hand in the DMs yet (Discord opens DM channels slowly): press "Show my hand" on
        the table, as the start message says, and play from that copy meanwhile."""
        for msg in reversed(self.fake.messages_in.get(table.channel.id, ())):
            for comp in self.fake.components_of(msg):
                custom_id = str(comp.get("custom_id", ""))
                if HAND_BUTTON.match(custom_id):
                    fig = self.play if self.measuring else self.rush
                    result = await self._interact(
                        fig, self.fake.click(user, msg, custom_id, settle=0)
                    )
                    if result is not None and result.response is not None:
                        self.shown_hands[user.id] = result.response
                        self.pressed_show += 1
                    return

    async def player(self, table: TableRun, user: FakeUser) -> None:
        assert user.dm_channel is not None
        changed = self.fake.watch(user.dm_channel.id)
        done: set[tuple[str, float | None]] = set()  # a control, on one edit of its message
        no_hand_since: float | None = None

        def fresh() -> list[tuple[FakeMessage, dict[str, Any]]]:
            return [
                (m, c)
                for m, c in self.controls(user)
                if (c["custom_id"], m.edited_mono) not in done
            ]

        while not self.stop.is_set():
            if table.channel.id in self.asleep:
                await asyncio.sleep(1.0)
                continue
            live = fresh()
            if not live:
                if (
                    user.id not in self.shown_hands
                    and table.channel.id in self.timeline.posted
                    and not self.has_dm_hand(user)
                ):
                    now = time.monotonic()
                    no_hand_since = no_hand_since or now
                    if now - no_hand_since > HAND_WAIT:
                        await self.show_hand(table, user)
                        continue
                changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), 1.0)
                continue
            if self.args.think:
                await asyncio.sleep(self.rng.uniform(0, 2 * self.args.think))
                if self.stop.is_set():
                    return
                if table.channel.id in self.asleep:
                    continue
                live = fresh()
                if not live:
                    continue
            msg, comp = live[0]
            fig = self.play if self.measuring else self.rush
            if comp.get("type") == 3:
                count = int(comp.get("min_values") or 1)
                values = [o["value"] for o in comp.get("options", [])][-count:]
                coro = self.fake.select(user, msg, comp["custom_id"], values, settle=0)
            else:
                coro = self.fake.click(user, msg, comp["custom_id"], settle=0)
            used = {(c["custom_id"], m.edited_mono) for m, c in live}
            done.update(used)
            result = await self._interact(fig, coro)
            fig.moves += 1
            self._moved(comp["custom_id"], user, result)
            if result is None:  # not answered (an outage): click again a moment later
                done.difference_update(used)
                await asyncio.sleep(1.0)
                continue
            if result is not None and result.callback_type not in (6, 7):
                fig.fail("not an update")
            if result is not None and result.callback_type == 6:
                fig.deferred += 1
            if result is not None and result.response is not None:
                confirm = [
                    b
                    for b in self.fake.buttons(result.response)
                    if b.custom_id and ":pass:" in b.custom_id and not b.disabled
                ]
                if confirm:  # an older Papayoo: the pass is confirmed with a button
                    again = await self._interact(
                        fig, self.fake.click(user, result.response, confirm[0].custom_id, settle=0)
                    )
                    fig.moves += 1
                    self._moved(confirm[0].custom_id, user, again)

    def _moved(self, custom_id: str | None, user: FakeUser, result: Any) -> None:
        """A move answered: when, in which game, by whom."""
        match = MOVE.match(custom_id or "")
        answered = result.interaction.callback_mono if result is not None else None
        if match and answered is not None:
            moves = self.timeline.moves.setdefault(int(match.group(1)), [])
            moves.append((answered, user.id))

    def waiting(self) -> list[TableRun]:
        """Lobbies whose Start was answered "busy" and whose table is not posted yet."""
        return [t for t in self.tables if t.busy and t.channel.id not in self.timeline.posted]

    def stuck(self) -> int:
        """Started tables (the Start click answered) where a player has no hand 20 s later
        (lobbies still waiting for room are counted apart: :meth:`waiting`)."""
        stuck = 0
        for table in self.tables:
            if not table.started:
                continue  # counted as rush failures, not as stuck games
            if table.busy and table.channel.id not in self.timeline.posted:
                continue
            for user in table.seated:
                channel = user.dm_channel
                msgs = self.fake.messages_in.get(channel.id, ()) if channel else ()
                if not any(m.embeds for m in msgs):
                    stuck += 1
                    break
        return stuck


async def check_starts(db: BenchDb, load: Load) -> dict[str, Any]:
    """Every game the database holds: its table posted, each player's hand sent, once.

    ``games`` in the database; ``no_table``: games whose table message is missing;
    ``no_hand`` / ``twice``: players without a hand / with more than one for the game.
    """
    by_channel = {table.channel.id: table for table in load.tables}
    out = {"games": 0, "no_table": 0, "no_hand": 0, "twice": 0}
    faulty: set[int] = set()
    rows = await db.fetch(
        "SELECT id, channel_id, meta, state FROM games WHERE kind = ?", load.args.game
    )
    for game_id, channel_id, meta, state in rows:
        out["games"] += 1
        table = by_channel[channel_id]
        posted = {m.id for m in load.fake.messages_in.get(channel_id, ()) if not m.deleted}
        if json.loads(meta).get("table_id") not in posted:
            out["no_table"] += 1
        seated = set(json.loads(state)["players"])  # a Join lost in the crash: one less
        for user in (u for u in table.users if str(u.id) in seated):
            # A player sits at one table: an embed in their DMs is its hand.
            channel = user.dm_channel
            msgs = load.fake.messages_in.get(channel.id, ()) if channel else ()
            hands = [m for m in msgs if not m.deleted and m.embeds]
            out["no_hand"] += not hands
            out["twice"] += len(hands) > 1
            if len(hands) != 1:
                faulty.add(game_id)
    out["faulty_ids"] = sorted(faulty)[:10]  # type: ignore[assignment]
    return out


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"p50 {statistics.median(values) * 1000:.0f} ms, p99 {percentile(values, 0.99) * 1000:.0f}"
        f" ms, max {max(values) * 1000:.0f} ms"
    )


async def games_in(db: BenchDb, kind: str) -> dict[int, tuple[int, str, int]]:
    """The database's games of ``kind``: id -> (channel id, status, version)."""
    rows = await db.fetch("SELECT id, channel_id, status, version FROM games WHERE kind = ?", kind)
    return {row[0]: (row[1], row[2], row[3]) for row in rows}


async def watch_games(db: BenchDb, load: Load, every: float = 0.5) -> None:
    """Until the players stop: when each game's state changed in the database (a move
    committed), as (the poll before, the poll that saw it). A click answered without a
    move (a control gone stale in an outage, answered with the current hand) changes
    nothing there."""
    seen: dict[int, int] = {}
    before = time.monotonic()
    while not load.stop.is_set():
        now = time.monotonic()
        try:
            games = await games_in(db, load.args.game)
        except Exception:
            if not load.args.db_restart:
                raise
            await asyncio.sleep(every)  # the database is away (--db-restart): poll again
            continue
        for game_id, (_, _, version) in games.items():
            if seen.get(game_id, version) != version:
                load.timeline.changed.setdefault(game_id, []).append((before, now))
            seen[game_id] = version
        before = now
        await asyncio.sleep(every)


def worst_second(times: list[float]) -> int:
    """The most of ``times`` within any one second."""
    times = sorted(times)
    worst = start = 0
    for end, at in enumerate(times):
        while at - times[start] >= 1.0:
            start += 1
        worst = max(worst, end - start + 1)
    return worst


def figures_ms(values: list[float]) -> dict[str, float | None]:
    """p50 / p99 / max in ms (None without values), for --json."""
    if not values:
        return {"n": 0, "p50_ms": None, "p99_ms": None, "max_ms": None}
    return {
        "n": len(values),
        "p50_ms": statistics.median(values) * 1000,
        "p99_ms": percentile(values, 0.99) * 1000,
        "max_ms": max(values) * 1000,
    }


def rest_limits(
    fake: LoadFake, marks: tuple[int, int], window: tuple[float, float]
) -> dict[str, Any]:
    """What Discord's limits see of the window's calls (``marks``: the call log's bookmarks at
    its start and end; ``window``: its monotonic start and end) and of the whole run."""
    m0, m1 = marks
    t0, t1 = window
    seconds = max(t1 - t0, 1e-9)
    calls = fake.calls[m0:m1]
    limiter = getattr(fake, "rate_limiter", None)
    if limiter is not None:  # the fake's own verdict: what counted against the global limit
        bot_times = [fake.calls[i].at for i, _ in limiter.global_calls if m0 <= i < m1]
    else:
        bot_times = [c.at for c in calls if not INTERACTION_TOKEN.match(c.route)]
    by_token = sum(1 for c in calls if INTERACTION_TOKEN.match(c.route))
    hits = list(getattr(fake, "rate_limited", ()))
    clock = getattr(fake, "rest_clock", time.monotonic)
    shift = clock() - time.monotonic()  # rest clock - monotonic (0 unless moved)
    in_window = [h for h in hits if t0 + shift <= h.at <= t1 + shift]
    if limiter is None:  # an older fake: its 429s, scope unknown
        hits = [c for c in fake.calls if c.status == 429]
        in_window = [c for c in calls if c.status == 429]

    def scopes(rows: list[Any]) -> dict[str, int]:
        counts = Counter(getattr(r, "scope", "unknown") for r in rows)
        return {scope: counts.get(scope, 0) for scope in ("global", "user", "shared")} | {
            k: v for k, v in counts.items() if k not in ("global", "user", "shared")
        }

    invalid = sum(1 for c in calls if c.status in (401, 403, 429))
    first = fake.calls[0].at if fake.calls else t0
    run_s = max((fake.calls[-1].at if fake.calls else t1) - first, 1e-9)
    run_invalid = sum(1 for c in fake.calls if c.status in (401, 403, 429))
    own = fake.invalid_requests(600.0) if hasattr(fake, "invalid_requests") else None
    return {
        "bot_calls": len(bot_times),
        "bot_per_s": len(bot_times) / seconds,
        "bot_worst_s": worst_second(bot_times),
        "token_calls": by_token,
        "r429": scopes(in_window),
        "r429_routes": Counter(f"{h.method} {h.route}" for h in in_window).most_common(3),
        "r429_run": scopes(hits),
        "invalid": invalid,
        "invalid_per_10min": invalid * 600.0 / seconds,
        "invalid_run": run_invalid,
        "invalid_run_per_10min": run_invalid * 600.0 / run_s,
        "invalid_fake_10min": own,
        "banned": bool(getattr(fake, "banned", False)),
    }


def what_players_saw(
    load: Load,
    window: tuple[float, float],
    games_end: dict[int, tuple[int, str, int]],
    outage: dict[str, Any],
) -> dict[str, Any]:
    """Table staleness, turn handoffs, stalled games and tables behind, waiting lobbies,
    the games after an outage."""
    t0, t1 = window
    line = load.timeline
    times = {game_id: line.move_times(game_id) for game_id in line.moves}
    stale: list[float] = []
    unshown = 0
    for game_id, moves in times.items():
        shown = line.table_shown.get(game_id, [])
        for at in moves:
            if t0 <= at <= t1:
                i = bisect.bisect_right(shown, at)
                if i < len(shown):
                    stale.append(shown[i] - at)
                else:
                    unshown += 1
    handoffs: list[float] = []
    for at, _, game_id in line.went_live:
        moves = times.get(game_id) or []
        i = bisect.bisect_right(moves, at) - 1
        if i >= 0 and t0 <= moves[i] <= t1:
            handoffs.append(at - moves[i])
    quiet = max(10.0, 5 * load.args.think)
    stalled = []
    for game_id, (channel_id, status, _) in games_end.items():
        changes = [seen for _, seen in line.changed.get(game_id, ())]
        last = max(changes or [line.posted.get(channel_id, -math.inf)])
        if status == "active" and t1 - last > quiet:
            stalled.append(game_id)
    behind = []
    for game_id, moves in times.items():
        latest = max((at for at in moves if at <= t1), default=None)
        shown = [at for at in line.table_shown.get(game_id, []) if at <= t1]
        if latest is not None and latest <= t1 - 10 and (not shown or shown[-1] < latest):
            behind.append(game_id)
    waits = [
        max(0.0, line.posted[t.channel.id] - t.start_clicked)
        for t in load.tables
        if t.start_clicked is not None and t.channel.id in line.posted
    ]
    out: dict[str, Any] = {
        "staleness": figures_ms(stale),
        "unshown_moves": unshown,
        "handoff": figures_ms(handoffs),
        "quiet_s": quiet,
        "stalled": len(stalled),
        "stalled_ids": sorted(stalled)[:10],
        "behind": len(behind),
        "behind_ids": sorted(behind)[:10],
        "busy": sum(1 for t in load.tables if t.busy),
        "show_hand": load.pressed_show,
        "start_wait": figures_ms(waits),
        "never_posted": sum(
            1
            for t in load.tables
            if t.start_clicked is not None and t.channel.id not in line.posted
        ),
    }
    if outage:
        ended = outage["ended"]
        on = {g for g, polls in line.changed.items() if any(after >= ended for after, _ in polls)}
        running = outage["running"]
        out["outage"] = {
            "what": "PostgreSQL restart" if load.args.db_restart else "Discord REST outage",
            "deferred": load.play.deferred,
            "told_database_away": sum(
                1
                for table in load.tables
                for user in table.users
                for msg in load.fake.ephemerals(user)
                if msg.text in DATABASE_AWAY
            ),
            "at_s": outage["began"] - t0,
            "seconds": ended - outage["began"],
            "running": len(running),
            "stopped": len(running - on),
            "stopped_ids": sorted(running - on)[:10],
            "after_s": t1 - ended,
        }
    return out


def limits_of(args: argparse.Namespace) -> Limits:
    if args.no_limits is not None:
        return Limits.off(args.no_limits)
    if args.dm_open_limit is not None:
        return Limits(dm_open=args.dm_open_limit)
    return Limits()


ADDITIVE = (
    "cpu", "cpu_sys", "db_round_trips", "db_calls", "threads", "log_records", "gc_s",
    "gc_full", "lag_sum_s", "lag_ticks", "interactions", "act_calls", "act_s",
)  # fmt: skip
"""The bot's counters that add up over processes (and over a killed process's lives)."""


def minus(after: dict[str, Any], before: dict[str, Any]) -> dict[str, float]:
    return {k: after.get(k, 0) - before.get(k, 0) for k in ADDITIVE}


def plus(*parts: dict[str, Any]) -> dict[str, float]:
    return {k: sum(part.get(k, 0) for part in parts) for k in ADDITIVE}


def summed(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """Several processes' ``stats`` as one: counters and memory added, maxima the worst."""
    out: dict[str, Any] = dict(stats[0]) | plus(*stats)
    for key in ("rss", "rss_anon", "rss_file", "objects", "traced"):
        out[key] = sum(s.get(key, 0) for s in stats)
    for key in ("gc_max_s", "lag_max_s"):
        out[key] = max(s.get(key, 0) for s in stats)
    return out


@dataclass
class Slot:
    """One bot process (a shard of ``--processes``) and its counters over the window,
    across a kill -9 and restart."""

    shard: int
    bot: BotProcess
    before: dict[str, Any] = field(default_factory=dict)
    done: dict[str, float] = field(default_factory=dict)
    """The window's counters of its earlier lives (before a kill)."""


def timer_runs(path: Path, down: tuple[datetime, datetime] | None) -> dict[str, Any]:
    """The timer log of every process (``run`` / ``done`` lines): timers run twice, and
    those due while a process was down (``down``: UTC), run / done once each."""
    runs: Counter[int] = Counter()
    dones: Counter[int] = Counter()
    due: dict[int, datetime] = {}
    keys: dict[int, str] = {}
    died: dict[int, tuple[str, float]] = {}  # timer -> (pid, when) of a process killed in it
    done_by: dict[int, tuple[str, float]] = {}
    key_done: dict[str, list[tuple[float, str, int]]] = {}  # key -> (when, pid, timer) done
    text = path.read_text() if path.exists() else ""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 6:
            continue  # a line cut by kill -9
        what, pid, timer_id, key, due_at, at = parts
        tid = int(timer_id)
        if what == "died":
            died[tid] = (pid, float(at))
            continue
        (runs if what == "run" else dones)[tid] += 1
        if what == "done":
            done_by[tid] = (pid, float(at))
            key_done.setdefault(key, []).append((float(at), pid, tid))
        due[tid] = datetime.fromisoformat(due_at)
        keys[tid] = key
    out: dict[str, Any] = {
        "runs": sum(runs.values()),
        "timers": len(runs),
        "done_twice": sum(1 for n in dones.values() if n > 1),
        "run_twice": sum(1 for n in runs.values() if n > 1),
        # Timers a process was killed in, after claiming them: done once by another process,
        # and how long after the death (the lease, then the next sweep).
        # The same key may be scheduled again meanwhile (a new row: the restarted process
        # arming its games' deadlines), so the first done of that key after the death counts.
        "died_in": [
            died_report(tid, pid, at, keys.get(tid, "?"), dones[tid], key_done)
            for tid, (pid, at) in died.items()
        ],
    }
    if down is not None:
        began, ended = down
        during = [t for t, at in due.items() if began <= at <= ended]
        out |= {
            "due_down": len(during),
            "due_down_kinds": dict(Counter(keys[t].split(":")[0] for t in during)),
            "due_down_done_once": sum(1 for t in during if dones[t] == 1),
            "due_down_not_done": sum(1 for t in during if dones[t] == 0),
            "due_down_done_twice": sum(1 for t in during if dones[t] > 1),
            "due_down_run_twice": sum(1 for t in during if runs[t] > 1),
        }
    return out


def died_report(
    tid: int, pid: str, at: float, key: str, done: int, key_done: dict[str, list[Any]]
) -> dict[str, Any]:
    """A timer a process was killed in: done how often, and the first run of its key done
    after the death (by which process, how long after, the same row or a new one)."""
    after = sorted(d for d in key_done.get(key, []) if d[0] > at)
    first = after[0] if after else None
    return {
        "key": key,
        "done": done,
        "next_done_after_s": None if first is None else round(first[0] - at, 1),
        "next_done_by_another": first is not None and first[1] != pid,
        "next_done_same_row": first is not None and first[2] == tid,
    }


async def kill_shard(
    slots: list[Slot],
    spawn: Callable[[int, str], Any],
    db: BenchDb,
    load: Load,
    out: dict[str, Any],
    timer_log: Path,
) -> None:
    """``--kill-at`` with ``--processes``: kill -9 the last shard's process KILL_AT seconds
    into the window, restart it ``--down`` seconds later; the games' versions then. With
    ``--kill-in-timer`` it dies inside a timer it claimed, and that game's players stop
    playing, so only the timer (taken over once its lease passed) can move it on."""
    args = load.args
    slot = slots[-1]
    await asyncio.sleep(args.kill_at)
    slot.done = plus(slot.done, minus(await slot.bot.stats(), slot.before))
    out["killed"] = time.monotonic()
    out["killed_utc"] = datetime.now(UTC)
    if args.kill_in_timer:
        # It dies inside its next timer, once claimed (or at the deadline, if none comes).
        await slot.bot.stats("die-in-timer")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(slot.bot.proc.wait(), KILL_IN_TIMER_WAIT)
        died = [line.split() for line in timer_log.read_text().splitlines()]
        for game_id in {int(f[3].split(":")[1]) for f in died if f[0] == "died" and len(f) == 6}:
            channel = (await games_in(db, args.game)).get(game_id, (None,))[0]
            if channel is not None:
                load.asleep.add(channel)
        out["killed"] = time.monotonic()
        out["killed_utc"] = datetime.now(UTC)
    if slot.bot.proc.returncode is None:
        slot.bot.proc.kill()
    await slot.bot.proc.wait()
    await asyncio.sleep(args.down)
    out["restarting_utc"] = datetime.now(UTC)
    slot.bot = await spawn(slot.shard, f"bot{slot.shard}-2.log")
    out["restarted"] = time.monotonic()
    slot.before = await slot.bot.stats()
    out["versions"] = await games_in(db, args.game)


async def check_kill(
    db: BenchDb, load: Load, kill: dict[str, Any], timer_log: Path
) -> dict[str, Any]:
    """After a shard's process was killed and restarted: every game went on (its version
    grew after the restart), none lost or duplicated; the timers due while it was down."""
    games = await games_in(db, load.args.game)
    at_restart = kill["versions"]
    per_channel = Counter(channel for channel, _, _ in games.values())
    shard_of = {t.channel.id: t.shard for t in load.tables}
    started = {t.channel.id for t in load.tables if t.channel.id in load.timeline.posted}
    active = {g for g, (_, status, _) in at_restart.items() if status == "active"}
    went_on = {g for g in active if games.get(g, (0, "", -1))[2] > at_restart[g][2]}
    stopped = sorted(active - went_on)
    return {
        "down_s": kill["restarted"] - kill["killed"],
        "games": len(games),
        "by_shard": dict(Counter(shard_of.get(c, -1) for c, _, _ in games.values())),
        "tables_posted": len(started),
        "lost": len(started - set(per_channel)),
        "duplicated": sum(1 for n in per_channel.values() if n > 1),
        "active_at_restart": len(active),
        "went_on": len(went_on),
        "stopped": len(stopped),
        "stopped_ids": stopped[:10],
        "stopped_by_shard": dict(Counter(shard_of.get(games[g][0], -1) for g in stopped)),
        "timers": timer_runs(timer_log, (kill["killed_utc"], kill["restarting_utc"])),
        "pending_overdue": len(
            [
                row
                for row in await db.fetch("SELECT due_at FROM timers WHERE done = 0")
                if datetime.fromisoformat(row[0]).replace(tzinfo=UTC) < datetime.now(UTC) - LATE
            ]
        ),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.postgres:
        async with postgres_server() as (url, server):
            return await run_on(args, url, server)
    return await run_on(args, None)


async def run_on(args: argparse.Namespace, url: str | None, server: Any = None) -> dict[str, Any]:
    options: dict[str, Any] = {"limits": limits_of(args)}
    if args.token_lifetime is not None:
        options["token_lifetime"] = args.token_lifetime
    fake = LoadFake(**options)
    await fake.start(patch=False)
    load = Load(fake, args)
    load.build()
    out: dict[str, Any] = {}
    window_kill = args.kill_at is not None and args.processes > 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.bot_root).resolve() if args.bot_root else ROOT
        sqlite = Path(tmp) / "load.sqlite3"
        db = BenchDb(sqlite, url)
        timer_log = Path(tmp) / "timers.log"

        async def spawn(shard: int, log_name: str, first: bool = False) -> BotProcess:
            env = {"DATABASE_URL": url} if url else {}
            if args.processes > 1:
                env |= {"SHARD_COUNT": str(args.processes), "SHARD_IDS": str(shard)}
            if args.rest_shares:
                env["REST_SHARE"] = str(args.rest_shares[shard])
            return await BotProcess.start(
                fake,
                sqlite,
                root,
                Path(tmp) / log_name,
                args.profile if first and shard == 0 else None,
                args.memory and first,
                args.game,
                env,
                timer_log,
            )

        # One after the other: the first creates the schema.
        slots = [Slot(0, await spawn(0, "bot0.log", True))]
        for shard in range(1, args.processes):
            slots.append(Slot(shard, await spawn(shard, f"bot{shard}.log", True)))

        async def stats_all(command: str = "stats") -> dict[str, Any]:
            return summed([await slot.bot.stats(command) for slot in slots])

        try:
            # One table first, so that the base counts what any game loads once (modules,
            # caches); then the rush of the others.
            await load.allow_every_table()
            await load.rush_phase(load.tables[:1])
            base = await stats_all("gc")
            if args.memory:
                await stats_all("snapshot")
            rush = asyncio.create_task(load.rush_phase(load.tables[1:]))
            restart_s = None
            if args.kill_at is not None and not window_kill:
                # kill -9 in the middle of the rush, then the same bot again on its database.
                await asyncio.sleep(args.kill_at)
                killed = time.monotonic()
                slots[0].bot.proc.kill()
                await slots[0].bot.proc.wait()
                slots[0].bot = await spawn(0, "bot0-2.log")
                restart_s = time.monotonic() - killed
            rush_seconds = await asyncio.wait_for(rush, args.timeout)
            unposted_after_rush = sum(
                1
                for t in load.tables
                if t.start_clicked is not None and t.channel.id not in load.timeline.posted
            )
            players = [
                asyncio.create_task(load.player(table, user))
                for table in load.tables
                for user in table.users
            ]
            settled = time.monotonic() + 20
            while (load.stuck() or load.waiting()) and time.monotonic() < settled:
                await asyncio.sleep(0.5)
            stuck = load.stuck()
            waiting = len(load.waiting())
            starts = (
                await check_starts(db, load)
                if args.kill_at is not None and not window_kill
                else None
            )
            await asyncio.sleep(args.warmup)
            live = await stats_all("gc")
            growth = await slots[0].bot.stats("growth") if args.memory else []
            if args.memory:
                census = await slots[0].bot.stats("census")
                print("census:", census)
            mark = len(fake.calls)
            perf = Instructions()
            if args.processes == 1:
                await perf.start(slots[0].bot.proc.pid)
            for slot in slots:
                slot.before = await slot.bot.stats(
                    "profile" if args.profile and slot.shard == 0 else "stats"
                )
            before = summed([slot.before for slot in slots])
            load.measuring = True
            t0, m0 = time.monotonic(), len(fake.calls)
            watcher = asyncio.create_task(watch_games(db, load))
            driver_cpu = -cpu_seconds()
            outage: dict[str, Any] = {}
            if args.outage:
                outage_task = asyncio.create_task(start_outage(fake, db, args, outage))
            if args.db_restart:
                outage_task = asyncio.create_task(restart_database(server, db, args, outage))
            kill: dict[str, Any] = {}
            if window_kill:
                kill_task = asyncio.create_task(kill_shard(slots, spawn, db, load, kill, timer_log))
            await asyncio.sleep(args.duration)
            t1, m1 = time.monotonic(), len(fake.calls)
            games_end = await games_in(db, args.game)
            if window_kill:
                await kill_task
            ends = [await slot.bot.stats() for slot in slots]
            per_process = [
                plus(slot.done, minus(end, slot.before))
                for slot, end in zip(slots, ends, strict=True)
            ]
            after = summed(ends) | plus(before, *per_process)
            instructions = await perf.stop()
            driver_cpu += cpu_seconds()
            load.measuring = False
            calls = fake.calls[mark:]
            load.stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            if args.outage or args.db_restart:
                await outage_task
            await watcher
            kill_check = await check_kill(db, load, kill, timer_log) if window_kill else None
            limited = rest_limits(fake, (m0, m1), (t0, t1))
            saw = what_players_saw(load, (t0, t1), games_end, outage)
            log_lines = Counter[str]()
            logs = sorted(Path(tmp).glob("bot*.log"))  # bot0-2: after a kill -9
            text = "\n".join(p.read_text(errors="replace") for p in logs if p.exists())
            if args.keep_log:
                Path(args.keep_log).write_text(text)
                if timer_log.exists():
                    shutil.copy(timer_log, f"{args.keep_log}.timers")
            for line in text.splitlines():
                match = re.search(r'msg="?([^"]*)"?', line) or re.search(r"\] (.*)$", line)
                log_lines[(match.group(1) if match else line)[:60]] += 1
            timers = timer_runs(timer_log, None)
        finally:
            for slot in slots:
                await slot.bot.stop()
            await db.close()
            await fake.stop()
    play = load.play
    window = after["time"] - before["time"]
    interactions = len(play.latencies)
    rest = [c for c in calls if not ANSWER.match(c.route)]
    cpu = after["cpu"] - before["cpu"]
    out = {
        "tables": args.tables,
        "think": args.think,
        "restart_s": restart_s,
        "kill_at": args.kill_at,
        "starts": starts,
        "rush_s": rush_seconds,
        "rush": summary(load.rush.latencies),
        "rush_failures": dict(load.rush.failures),
        "stuck": stuck,
        "not_started": sum(1 for table in load.tables if not table.started),
        "window_s": window,
        "interactions": interactions,
        "per_s": interactions / window,
        "answer": summary(play.latencies),
        "p50_ms": statistics.median(play.latencies) * 1000 if play.latencies else 0,
        "p99_ms": percentile(play.latencies, 0.99) * 1000 if play.latencies else 0,
        "failures": dict(play.failures),
        "rest_per_move": len(rest) / max(1, play.moves),
        "bot_per_move": limited["bot_calls"] / max(1, play.moves),
        "token_per_move": limited["token_calls"] / max(1, play.moves),
        **limited,
        **saw,
        "waiting_after_rush": unposted_after_rush,
        "waiting": waiting,
        "limits": "off: " + args.no_limits if args.no_limits is not None else "on",
        "dm_open_limit": args.dm_open_limit and (args.dm_open_limit.limit, args.dm_open_limit.per),
        "token_lifetime": getattr(fake, "token_lifetime", None),
        "rest_kinds": Counter(f"{c.method} {c.route}" for c in rest).most_common(6),
        "cpu_ms": 1000 * cpu / max(1, interactions),
        "cpu_share": cpu / window,
        "sys_share": (after.get("cpu_sys", 0) - before.get("cpu_sys", 0)) / max(cpu, 1e-9),
        "instr_u": instructions.get("u", 0) / max(1, interactions) / 1e6,
        "instr_k": instructions.get("k", 0) / max(1, interactions) / 1e6,
        "db_trips": (after["db_round_trips"] - before["db_round_trips"]) / max(1, interactions),
        "threads": (after["threads"] - before["threads"]) / max(1, interactions),
        "db_calls": (after.get("db_calls", 0) - before.get("db_calls", 0)) / max(1, interactions),
        "log_lines": (after["log_records"] - before["log_records"]) / max(1, interactions),
        "kb_per_game": (live["rss"] - base["rss"]) / 1024 / max(1, args.tables - 1),
        "anon_kb_per_game": (live.get("rss_anon", 0) - base.get("rss_anon", 0))
        / 1024
        / max(1, args.tables - 1),
        "base_mb": base["rss"] / 2**20,
        "objects_per_game": (live["objects"] - base["objects"]) / max(1, args.tables - 1),
        "heap_kb_per_game": (live["traced"] - base["traced"]) / 1024 / max(1, args.tables - 1),
        "top_log": log_lines.most_common(3),
        "driver_share": driver_cpu / window,
        "gc_ms": 1000 * (after.get("gc_s", 0) - before.get("gc_s", 0)) / max(1, interactions),
        "gc_full": after.get("gc_full", 0) - before.get("gc_full", 0),
        "gc_max_ms": 1000 * after.get("gc_max_s", 0),
        "lag_mean_ms": 1000
        * (after.get("lag_sum_s", 0) - before.get("lag_sum_s", 0))
        / max(1, after.get("lag_ticks", 0) - before.get("lag_ticks", 0)),
        "lag_max_ms": 1000 * after.get("lag_max_s", 0),
        "growth": growth,
        "processes": args.processes,
        "database": "PostgreSQL" if args.postgres else "SQLite",
        "act_calls": after["act_calls"] - before["act_calls"],
        "act_ms": 1000
        * (after["act_s"] - before["act_s"])
        / max(1, after["act_calls"] - before["act_calls"]),
        "per_process": [
            {
                "shard": slot.shard,
                "interactions": part["interactions"],
                "per_s": part["interactions"] / window,
                "cpu_ms": 1000 * part["cpu"] / max(1, part["interactions"]),
                "cpu_share": part["cpu"] / window,
                "act_calls": part["act_calls"],
                "act_ms": 1000 * part["act_s"] / max(1, part["act_calls"]),
            }
            for slot, part in zip(slots, per_process, strict=True)
        ],
        "timers": timers,
        "kill_check": kill_check,
    }
    return out


async def start_outage(
    fake: LoadFake, db: BenchDb, args: argparse.Namespace, out: dict[str, Any]
) -> None:
    """``--outage AT:SECONDS``: Discord's REST API down AT seconds into the window; which
    games were running then."""
    at, seconds = args.outage
    await asyncio.sleep(at)
    games = await games_in(db, args.game)
    out["running"] = {g for g, (_, status, _) in games.items() if status == "active"}
    out["began"] = time.monotonic()
    out["ended"] = out["began"] + seconds
    fake.outage(seconds)


async def restart_database(
    server: Any, db: BenchDb, args: argparse.Namespace, out: dict[str, Any]
) -> None:
    """``--db-restart AT:SECONDS``: PostgreSQL stopped (``pg_ctl stop -m fast``) AT seconds
    into the window and started again SECONDS later; which games were running then."""
    at, seconds = args.db_restart
    await asyncio.sleep(at)
    games = await games_in(db, args.game)
    out["running"] = {g for g, (_, status, _) in games.items() if status == "active"}
    out["began"] = time.monotonic()
    await asyncio.to_thread(server.halt)
    await asyncio.sleep(max(0.0, seconds - (time.monotonic() - out["began"])))
    await asyncio.to_thread(server.launch)
    out["ended"] = time.monotonic()


class Instructions:
    """Instructions the bot's process retires (``perf stat``, user and kernel), when perf
    is installed and allowed: unlike CPU time, barely moved by what else runs on the
    machine, so a change's effect shows between two runs on a busy machine."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, pid: int) -> None:
        if shutil.which("perf") is None:
            return
        self.proc = await asyncio.create_subprocess_exec(
            *("perf", "stat", "-x", ",", "-e", "instructions:u,instructions:k", "-p", str(pid)),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        await asyncio.sleep(0.2)  # attached

    async def stop(self) -> dict[str, float]:
        if self.proc is None:
            return {}
        self.proc.send_signal(signal.SIGINT)
        _, err = await self.proc.communicate()
        counts: dict[str, float] = {}
        for line in err.decode(errors="replace").splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[0].isdigit():
                counts[fields[2].split(":")[-1]] = float(fields[0])
        return counts


def ms(figures: dict[str, Any]) -> str:
    if not figures["n"]:
        return "none"
    return (
        f"p50 {figures['p50_ms']:.0f} ms, p99 {figures['p99_ms']:.0f} ms,"
        f" max {figures['max_ms']:.0f} ms"
    )


def report_limits(out: dict[str, Any]) -> None:
    """The window as Discord's limits see it, and what the players saw of the tables."""
    setup = "Discord's limits" if out["limits"] == "on" else f"no limits ({out['limits']})"
    if out["dm_open_limit"]:
        setup += ", DM opens {} per {:g} s".format(*out["dm_open_limit"])
    if out["token_lifetime"] is not None:
        setup += f", interaction tokens expire after {out['token_lifetime']:g} s"

    def scopes(counts: dict[str, int]) -> str:
        return ", ".join(f"{scope} {n}" for scope, n in counts.items())

    print(
        f"  REST ({setup}): bot-token calls {out['bot_per_s']:.1f}/s mean,"
        f" {out['bot_worst_s']} in the worst second; per move {out['bot_per_move']:.2f}"
        f" bot-token and {out['token_per_move']:.2f} interaction-token calls"
        f" (REST calls per move besides interaction answers: {out['rest_per_move']:.2f})"
    )
    fake_count = (
        f", the fake's count over 10 min {out['invalid_fake_10min']}"
        if out["invalid_fake_10min"] is not None
        else ""
    )
    print(
        f"  429s in the window: {scopes(out['r429'])}"
        + (f" ({out['r429_routes']})" if out["r429_routes"] else "")
        + f"; whole run: {scopes(out['r429_run'])}. Invalid requests (401/403/429):"
        f" {out['invalid']} in the window = {out['invalid_per_10min']:.0f} per 10 min;"
        f" {out['invalid_run']} in the run = {out['invalid_run_per_10min']:.0f} per 10 min"
        f"{fake_count}" + (" -- BANNED by the fake Discord" if out["banned"] else "")
    )
    print(
        f"  tables: staleness (a move answered -> its table edited) {ms(out['staleness'])},"
        f" {out['unshown_moves']} moves of the window never shown; turn handoff (a move"
        f" answered -> the next player's live control) {ms(out['handoff'])}"
    )
    print(
        f"  stalled games (running, state unchanged in the last {out['quiet_s']:g} s):"
        f" {out['stalled']}"
        + (f" {out['stalled_ids']}" if out["stalled"] else "")
        + f"; tables behind (a move over 10 s old not shown): {out['behind']}"
        + (f" {out['behind_ids']}" if out["behind"] else "")
        + f"; players who pressed Show my hand, their DM not there after {HAND_WAIT:g} s:"
        f" {out.get('show_hand', 0)}"
    )
    outage = out.get("outage")
    if outage:
        print(
            f"  {outage['what']} {outage['seconds']:.1f} s from {outage['at_s']:.1f} s into"
            f" the window ({outage['after_s']:.1f} s measured after it): {outage['running']}"
            f" games running, {outage['stopped']} without a move after it (state unchanged)"
            + (f" {outage['stopped_ids']}" if outage["stopped"] else "")
            + f"; {outage['deferred']} clicks of the window deferred (waited over 1.5 s),"
            f" {outage['told_database_away']} players told the database was away"
        )


def report(out: dict[str, Any]) -> None:
    print(
        f"{out['tables']} tables, think {out['think']} s | start rush {out['rush_s']:.1f} s:"
        f" answers {out['rush']}, failures {out['rush_failures'] or 0}, tables not started"
        f" {out['not_started']}, started games without every hand {out['stuck']}"
    )
    print(
        f"  starts: {out['busy']} answered busy, {out['waiting_after_rush']} lobbies without"
        f" their table at the end of the rush, {out['waiting']} still waiting 20 s later,"
        f" {out['never_posted']} never; Start -> table posted {ms(out['start_wait'])}"
    )
    if out["starts"] is not None:
        starts = out["starts"]
        print(
            f"  kill -9 {out['kill_at']:.0f} s into the rush, back in {out['restart_s']:.1f} s:"
            f" {starts['games']} games in the database, {starts['no_table']} without their"
            f" table, {starts['no_hand']} hands missing, {starts['twice']} hands sent twice"
            + (f" (games {starts['faulty_ids']})" if starts["faulty_ids"] else "")
        )
    print(
        f"  window {out['window_s']:.1f} s: {out['interactions']} interactions,"
        f" {out['per_s']:.0f}/s, answer {out['answer']}, failures {out['failures'] or 0}"
    )
    print(
        f"  bot: {out['cpu_ms']:.2f} CPU ms per interaction ({out['cpu_share']:.0%} of a core,"
        f" {out['sys_share']:.0%} of it in the kernel),"
        f" {out['db_calls']:.1f} db trips ({out['db_trips']:.1f} through a thread),"
        f" {out['threads']:.2f} to_thread,"
        f" {out['log_lines']:.2f} log lines per interaction (players: {out['driver_share']:.0%})"
    )
    print(
        f"  {out['database']}, {out['processes']} bot process(es): store.games.act"
        f" {out['act_ms']:.1f} ms per call (database time per move, lock and engine"
        f" included; {out['act_calls']} calls); timers run {out['timers']['runs']}"
        f" ({out['timers']['timers']} timers, {out['timers']['run_twice']} run twice,"
        f" {out['timers']['done_twice']} done twice)"
    )
    for part in out["per_process"] if out["processes"] > 1 else []:
        print(
            f"    shard {part['shard']}: {part['interactions']} interactions received"
            f" ({part['per_s']:.0f}/s), {part['cpu_ms']:.2f} CPU ms per interaction received"
            f" ({part['cpu_share']:.0%} of a core), store.games.act {part['act_ms']:.1f} ms"
            f" x {part['act_calls']}"
        )
    check = out.get("kill_check")
    if check:
        timers = check["timers"]
        print(
            f"  kill -9 of shard {out['processes'] - 1}'s process {out['kill_at']:g} s into"
            f" the window, back {check['down_s']:.1f} s later: {check['games']} games in the"
            f" database (by shard {check['by_shard']}), {check['tables_posted']} tables posted,"
            f" {check['lost']} lost, {check['duplicated']} duplicated;"
            f" {check['active_at_restart']} running at the restart, {check['went_on']} went on"
            f" after it, {check['stopped']} did not"
            + (
                f" {check['stopped_ids']} by shard {check['stopped_by_shard']}"
                if check["stopped"]
                else ""
            )
        )
        print(
            f"  timers due while it was down: {timers['due_down']} ({timers['due_down_kinds']}),"
            f" {timers['due_down_done_once']} run to the end exactly once,"
            f" {timers['due_down_not_done']} never, {timers['due_down_done_twice']} twice"
            f" ({timers['due_down_run_twice']} started twice: taken over after a lease);"
            f" all timers: {timers['runs']} runs, {timers['done_twice']} done twice;"
            f" {check['pending_overdue']} pending over {LATE.seconds} s past due at the end"
        )
        for died in timers["died_in"]:
            print(
                f"  killed inside timer {died['key']} (claimed, not run): that row done"
                f" {died['done']} time(s); the key next done {died['next_done_after_s']} s after"
                f" the kill, by another process: {died['next_done_by_another']}, on the same row"
                f" (taken over after its lease): {died['next_done_same_row']}"
            )
    report_limits(out)
    print(
        f"  event loop: a callback due runs {out['lag_mean_ms']:.1f} ms late on average,"
        f" {out['lag_max_ms']:.0f} ms at worst; garbage collector {out['gc_ms']:.2f} ms per"
        f" interaction, {out['gc_full']} full collections, longest pause"
        f" {out['gc_max_ms']:.0f} ms"
    )
    print(
        f"  memory: base {out['base_mb']:.0f} MB, {out['kb_per_game']:.0f} KB per live game"
        f" RSS ({out['anon_kb_per_game']:.0f} KB of it anonymous,"
        f" {out['objects_per_game']:.0f} Python objects"
        + (f", {out['heap_kb_per_game']:.0f} KB of live heap" if out["heap_kb_per_game"] else "")
        + " per game)"
    )
    if out["instr_u"]:
        print(
            f"  bot instructions per interaction: {out['instr_u']:.2f} M in Python and"
            f" libraries, {out['instr_k']:.2f} M in the kernel (perf stat)"
        )
    for row in out.get("growth") or []:
        print(f"    heap growth: {row}")
    print(f"  REST: {out['rest_kinds']}")
    print(f"  log: {out['top_log']}")


def rate(text: str) -> Rate:
    """``N/S``: N per S seconds."""
    try:
        count, seconds = text.split("/")
        return Rate(int(count), float(seconds))
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected N/S (e.g. 5/5), not {text!r}") from err


def outage_spec(text: str) -> tuple[float, float]:
    """``AT:SECONDS``."""
    try:
        at, seconds = (float(x) for x in text.split(":"))
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected AT:SECONDS (e.g. 5:10), not {text!r}") from err
    if at < 0 or seconds <= 0:
        raise argparse.ArgumentTypeError("AT must be >= 0 and SECONDS > 0")
    return at, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--game", choices=sorted(GAMES), default="papayoo")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds before a move")
    parser.add_argument("--rounds", type=int, default=20, help="rounds per game (long games)")
    parser.add_argument("--turn-seconds", type=int, default=90)
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument(
        "--open-rate", type=float, default=0.0, help="lobbies opened per second (0: all at once)"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="bound on the start rush")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep-log", help="copy the bot's log there")
    parser.add_argument("--bot-root", help="checkout whose bot to run (default: this one)")
    parser.add_argument("--profile", help="profile the bot in the window (cProfile file)")
    parser.add_argument(
        "--memory",
        action="store_true",
        help="trace the bot's heap: live KB per game (slower; TRACE_FRAMES=N in the"
        " environment: its growth by call path, N frames deep)",
    )
    parser.add_argument(
        "--kill-at",
        type=float,
        help="kill -9 the bot this many seconds into the start rush, restart it on its"
        " database, then check every game's table and hands (none missing, none twice)",
    )
    parser.add_argument(
        "--dm-open-limit",
        type=rate,
        metavar="N/S",
        help="the fake allows N DM openings (POST /users/@me/channels) per S seconds",
    )
    parser.add_argument(
        "--token-lifetime",
        type=float,
        metavar="SECONDS",
        help="interaction tokens expire after this (Discord: 900): long games' steady state",
    )
    parser.add_argument(
        "--no-limits",
        metavar="REASON",
        help="run the fake Discord without rate limits (for A/B figures), saying why",
    )
    parser.add_argument(
        "--outage",
        type=outage_spec,
        metavar="AT:SECONDS",
        help="Discord's REST API down AT seconds into the window for SECONDS; then check"
        " that every game running went on",
    )
    parser.add_argument(
        "--db-restart",
        type=outage_spec,
        metavar="AT:SECONDS",
        help="with --postgres: PostgreSQL stopped AT seconds into the window and started"
        " again SECONDS later; then check that every game running went on",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="run the bot on a throwaway PostgreSQL server (stopped at the end)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="bot processes, one shard each (SHARD_COUNT=N); over 1 implies --postgres",
    )
    parser.add_argument(
        "--kill-in-timer",
        action="store_true",
        help="with --processes and --kill-at: the process dies inside a timer it claimed"
        " (its lease then holds the timer until it passes)",
    )
    parser.add_argument(
        "--rest-shares",
        type=lambda text: [float(x) for x in text.split(",")],
        metavar="S0,S1,...",
        help="with --processes: each process's REST_SHARE, shard 0's first (default: equal)",
    )
    parser.add_argument(
        "--down",
        type=float,
        default=40.0,
        help="with --processes and --kill-at: seconds the killed process stays down",
    )
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    if args.no_limits is not None and args.dm_open_limit is not None:
        parser.error("--no-limits and --dm-open-limit exclude each other")
    if args.no_limits is not None and not args.no_limits.strip():
        parser.error("--no-limits needs a reason")
    if args.outage and sum(args.outage) >= args.duration:
        parser.error("--outage must end within the window (--duration)")
    if args.db_restart:
        if sum(args.db_restart) >= args.duration:
            parser.error("--db-restart must end within the window (--duration)")
        if args.outage:
            parser.error("--db-restart and --outage exclude each other")
        args.postgres = True
    if args.processes < 1:
        parser.error("--processes must be >= 1")
    if args.rest_shares and (len(args.rest_shares) != args.processes or sum(args.rest_shares) > 1):
        parser.error("--rest-shares: one share per process, adding up to 1 at most")
    if args.processes > 1:
        args.postgres = True
        if args.kill_at is not None and args.kill_at + args.down + 10 >= args.duration:
            parser.error("--kill-at + --down must end 10 s before the window does (--duration)")
    out = asyncio.run(run(args))
    report(out)
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
