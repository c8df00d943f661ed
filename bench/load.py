"""Load benchmark: one bot process, N live tables (Papayoo, or ``--game speahx``), players
clicking through Discord.

Two processes, every address on 127.0.0.1:

- this one runs the fake Discord (``tests.fakediscord``) and the simulated players: per
  table, a host opens a lobby with ``/papayoo new`` (``/speahx new``), three colleagues join, the host
  starts; then every player acts whenever a live control for their own decision shows in
  their DMs, after a think time drawn around ``--think`` seconds (0: at once);
- the other runs the real bot (``bench.load_bot``) exactly as in production: system clock,
  APScheduler, SQLite file in WAL mode, INFO logging (to a file here).

Printed, for the measured window (after the start rush, ``--duration`` seconds):
throughput (interactions per second), answer time p50 / p99 / max (dispatch to the first
answer, as Discord's 3 s deadline counts it), failures (no answer within 3 s, or an answer
that was not the update the player expected), REST calls per move (interaction answers not
counted), the bot's CPU ms per interaction (its process CPU time, which the drivers' load
disturbs less than wall time), database trips (batches of statements) and those through
aiosqlite's thread, log lines per interaction, how late the bot's event loop runs and the
garbage collector's time, and memory per live game (the bot's RSS with every table dealt,
minus its RSS once a first table was dealt, divided by the other tables, after a
collection; ``--memory`` also traces the Python heap for the live bytes per game, which RSS
overstates by what the start rush left fragmented). The start rush is reported too: how
long the N lobbies took to open, fill and start, its answer times and failures, and how
many games were stuck (a player without their hand 20 s after the rush). ``--kill-at``
kills the bot (kill -9) during the rush and restarts it on its database, then checks every
game the database holds: its table posted, every hand sent, none twice.

    python -m bench.load --tables 50 --think 0 --duration 20
    python -m bench.load --tables 50 --game speahx --duration 20
    python -m bench.load --tables 200 --think 2 --duration 30
    python -m bench.load --tables 1000 --think 5 --duration 20 --open-rate 20
    python -m bench.load --tables 400 --think 5 --open-rate 20 --kill-at 10
    python -m bench.load --tables 50 --bot-root OTHER_CHECKOUT   # the same load on other code

The run stops by itself: the bot is told to quit (killed after a grace period).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._latency import percentile
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser

ANSWER = re.compile(r"^/interactions/[^/]+/[^/]+/callback$")
MOVE = re.compile(r"^gns?:(?:papayoo|speahx):(\d+):(do|pick|play|choose|pass):(.*)$")
GAMES = {
    "papayoo": lambda args: {"rounds": args.rounds, "turn_seconds": args.turn_seconds},
    "speahx": lambda args: {"turn_seconds": args.turn_seconds},
}
"""The seated games whose hands are private (``/<game> new`` options). Spit's board is a
public real-time race: ``bench.spit_discord`` measures it."""
ROOT = Path(__file__).resolve().parent.parent


class LoadFake(FakeDiscord):
    """The fake Discord, waking the players whose DMs changed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.changed: dict[int, asyncio.Event] = {}
        self.keep_history = False

    def watch(self, channel_id: int) -> asyncio.Event:
        event = self.changed.get(channel_id)
        if event is None:
            event = self.changed[channel_id] = asyncio.Event()
        return event

    def _poke(self, msg: FakeMessage) -> None:
        event = self.changed.get(msg.channel.id)
        if event is not None:
            event.set()
        if msg.visible_to is not None:
            event = self.changed.get(-msg.visible_to.id)
            if event is not None:
                event.set()

    def _new_message(
        self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
    ) -> FakeMessage:
        msg = super()._new_message(channel, author, payload, **extra)
        self._poke(msg)
        return msg

    def _edit_message(self, msg: FakeMessage, payload: dict[str, Any]) -> None:
        super()._edit_message(msg, payload)
        if not self.keep_history:
            msg.history.clear()
        self._poke(msg)


@dataclass
class Figures:
    """What the players saw."""

    latencies: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    stale: int = 0

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
    ) -> BotProcess:
        env = {**os.environ, "PYTHONPATH": str(root)}
        env.pop("DISCORD_TOKEN", None)
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
            *(["--tracemalloc"] if traced else []),
            *(["--cogs", f"cogs.{game}"] if game != "papayoo" else []),
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


class Load:
    def __init__(self, fake: LoadFake, args: argparse.Namespace) -> None:
        self.fake = fake
        self.args = args
        self.tables: list[TableRun] = []
        self.rush = Figures()
        self.play = Figures()
        self.measuring = False
        self.stop = asyncio.Event()
        self.rng = random.Random(args.seed)

    def build(self) -> None:
        guild = self.fake.add_guild("Office")
        for i in range(self.args.tables):
            channel = self.fake.add_text_channel(guild, f"table-{i}")
            users = []
            for j in range(self.args.players):
                user = self.fake.add_user(f"p{i}x{j}")
                self.fake.add_member(guild, user)
                self.fake.get_dm_channel(user)
                users.append(user)
            self.tables.append(TableRun(channel, users))

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
            fig, self.fake.slash(host, table.channel, f"{game} new", options, settle=0)
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
        result = await self._interact(fig, self.fake.click(host, message, start, settle=0))
        table.started = result is not None

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
        """The live move controls of the user's newest private hand."""
        channel = user.dm_channel
        found: list[tuple[FakeMessage, dict[str, Any]]] = []
        messages: list[FakeMessage] = []
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

    async def player(self, table: TableRun, user: FakeUser) -> None:
        assert user.dm_channel is not None
        changed = self.fake.watch(user.dm_channel.id)
        done: set[tuple[str, float | None]] = set()  # a control, on one edit of its message

        def fresh() -> list[tuple[FakeMessage, dict[str, Any]]]:
            return [
                (m, c)
                for m, c in self.controls(user)
                if (c["custom_id"], m.edited_mono) not in done
            ]

        while not self.stop.is_set():
            live = fresh()
            if not live:
                changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), 1.0)
                continue
            if self.args.think:
                await asyncio.sleep(self.rng.uniform(0, 2 * self.args.think))
                if self.stop.is_set():
                    return
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
            done.update((c["custom_id"], m.edited_mono) for m, c in live)
            result = await self._interact(fig, coro)
            fig.moves += 1
            if result is not None and result.callback_type not in (6, 7):
                fig.fail("not an update")
            if result is not None and result.response is not None:
                confirm = [
                    b
                    for b in self.fake.buttons(result.response)
                    if b.custom_id and ":pass:" in b.custom_id and not b.disabled
                ]
                if confirm:  # an older Papayoo: the pass is confirmed with a button
                    await self._interact(
                        fig, self.fake.click(user, result.response, confirm[0].custom_id, settle=0)
                    )
                    fig.moves += 1

    def stuck(self) -> int:
        """Started tables (the Start click answered) where a player has no hand 20 s later."""
        stuck = 0
        for table in self.tables:
            if not table.started:
                continue  # counted as rush failures, not as stuck games
            for user in table.seated:
                channel = user.dm_channel
                msgs = self.fake.messages_in.get(channel.id, ()) if channel else ()
                if not any(m.embeds for m in msgs):
                    stuck += 1
                    break
        return stuck


def check_starts(db: Path, load: Load) -> dict[str, Any]:
    """Every game the database holds: its table posted, each player's hand sent, once.

    ``games`` in the database; ``no_table``: games whose table message is missing;
    ``no_hand`` / ``twice``: players without a hand / with more than one for the game.
    """
    by_channel = {table.channel.id: table for table in load.tables}
    out = {"games": 0, "no_table": 0, "no_hand": 0, "twice": 0}
    faulty: set[int] = set()
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        rows = conn.execute(
            "SELECT id, channel_id, meta, state FROM games WHERE kind = ?", (load.args.game,)
        ).fetchall()
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


def index_messages(fake: LoadFake) -> None:
    """Keep each channel's messages in a list (the fake only keeps them by id)."""
    fake.messages_in = {}  # type: ignore[attr-defined]
    original = fake._new_message

    def new_message(
        channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
    ) -> FakeMessage:
        msg = original(channel, author, payload, **extra)
        fake.messages_in.setdefault(channel.id, []).append(msg)  # type: ignore[attr-defined]
        return msg

    fake._new_message = new_message  # type: ignore[method-assign]


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


async def run(args: argparse.Namespace) -> dict[str, Any]:
    fake = LoadFake()
    index_messages(fake)
    await fake.start(patch=False)
    load = Load(fake, args)
    load.build()
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.bot_root).resolve() if args.bot_root else ROOT
        bot = await BotProcess.start(
            fake,
            Path(tmp) / "load.sqlite3",
            root,
            Path(tmp) / "bot.log",
            args.profile,
            args.memory,
            args.game,
        )
        try:
            # One table first, so that the base counts what any game loads once (modules,
            # caches); then the rush of the others.
            await load.rush_phase(load.tables[:1])
            base = await bot.stats("gc")
            if args.memory:
                await bot.stats("snapshot")
            rush = asyncio.create_task(load.rush_phase(load.tables[1:]))
            restart_s = None
            if args.kill_at is not None:
                # kill -9 in the middle of the rush, then the same bot again on its database.
                await asyncio.sleep(args.kill_at)
                killed = time.monotonic()
                bot.proc.kill()
                await bot.proc.wait()
                bot = await BotProcess.start(
                    fake, Path(tmp) / "load.sqlite3", root, Path(tmp) / "bot2.log", game=args.game
                )
                restart_s = time.monotonic() - killed
            rush_seconds = await asyncio.wait_for(rush, args.timeout)
            players = [
                asyncio.create_task(load.player(table, user))
                for table in load.tables
                for user in table.users
            ]
            settled = time.monotonic() + 20
            while load.stuck() and time.monotonic() < settled:
                await asyncio.sleep(0.5)
            stuck = load.stuck()
            starts = check_starts(Path(tmp) / "load.sqlite3", load) if args.kill_at else None
            await asyncio.sleep(args.warmup)
            live = await bot.stats("gc")
            growth = await bot.stats("growth") if args.memory else []
            if args.memory:
                census = await bot.stats("census")
                print("census:", census)
            mark = len(fake.calls)
            perf = Instructions()
            await perf.start(bot.proc.pid)
            before = await bot.stats("profile" if args.profile else "stats")
            load.measuring = True
            driver_cpu = -cpu_seconds()
            await asyncio.sleep(args.duration)
            after = await bot.stats()
            instructions = await perf.stop()
            driver_cpu += cpu_seconds()
            load.measuring = False
            calls = fake.calls[mark:]
            load.stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            log_lines = Counter[str]()
            logs = [Path(tmp) / "bot.log", Path(tmp) / "bot2.log"]  # bot2: after a kill -9
            text = "\n".join(p.read_text(errors="replace") for p in logs if p.exists())
            if args.keep_log:
                Path(args.keep_log).write_text(text)
            for line in text.splitlines():
                match = re.search(r'msg="?([^"]*)"?', line) or re.search(r"\] (.*)$", line)
                log_lines[(match.group(1) if match else line)[:60]] += 1
        finally:
            await bot.stop()
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
    }
    return out


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


def report(out: dict[str, Any]) -> None:
    print(
        f"{out['tables']} tables, think {out['think']} s | start rush {out['rush_s']:.1f} s:"
        f" answers {out['rush']}, failures {out['rush_failures'] or 0}, tables not started"
        f" {out['not_started']}, started games without every hand {out['stuck']}"
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
        f" {out['log_lines']:.2f} log lines per interaction (players: {out['driver_share']:.0%});"
        f" REST calls per move {out['rest_per_move']:.2f}"
    )
    print(
        f"  event loop: a callback due runs {out['lag_mean_ms']:.1f} ms late on average,"
        f" {out['lag_max_ms']:.0f} ms at worst; garbage collector {out['gc_ms']:.2f} ms per"
        f" interaction, {out['gc_full']} full collections, longest pause"
        f" {out['gc_max_ms']:.0f} ms"
    )
    print(
        f"  memory: base {out['base_mb']:.0f} MB, {out['kb_per_game']:.0f} KB per live game"
        f" RSS ({out['objects_per_game']:.0f} Python objects"
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
        "--memory", action="store_true", help="trace the bot's heap: live KB per game (slower)"
    )
    parser.add_argument(
        "--kill-at",
        type=float,
        help="kill -9 the bot this many seconds into the start rush, restart it on its"
        " database, then check every game's table and hands (none missing, none twice)",
    )
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    out = asyncio.run(run(args))
    report(out)
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
