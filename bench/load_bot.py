"""The bot side of ``bench.load``: one real bot process pointed at a fake Discord.

Started by ``bench.load`` (never by hand)::

    python -m bench.load_bot --api http://127.0.0.1:PORT/api/v10 --gateway ws://127.0.0.1:PORT/gateway
        --db FILE [--cogs cogs.papayoo]

It runs the bot as ``python -m bot`` would (system clock, APScheduler, INFO logging to
stderr) and talks to its parent on stdin/stdout, one line each way:

- it prints ``READY`` once connected and every cog is loaded;
- ``profile`` -> start profiling (written to ``--profile`` at quit);
- ``stats`` -> one JSON line: process CPU seconds, RSS, database thread round-trips, log
  records at INFO or above, interactions received, ``store.games.act`` calls and seconds;
- ``die-in-timer`` -> kill -9 itself inside the next timer it runs, once claimed (its
  lease holds: the timer is left for another process once the lease passes); answers ``{}``;
- ``quit`` (or end of stdin) -> a clean shutdown.

The database and shards come from the environment as for ``python -m bot``
(``DATABASE_URL``, ``SHARD_COUNT``, ``SHARD_IDS``); ``--db`` is the SQLite file otherwise.

Works on any checkout of the bot that has ``bot.client.GamenightBot`` and
``bot.settings.Settings`` (run it with that checkout's root on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import ctypes
import gc
import json
import logging
import os
import resource
import signal
import sys
import threading
import time
import tracemalloc
import types
from collections import Counter
from pathlib import Path
from typing import Any

import aiosqlite.core
import discord
import yarl

TOKEN = "fake-token"  # noqa: S105
profiler = cProfile.Profile(time.process_time)
COUNTS = {
    "db_round_trips": 0,
    "db_calls": 0,
    "log_records": 0,
    "threads": 0,
    "interactions": 0,
    "act_calls": 0,
    "act_s": 0.0,
}
"""``act_calls`` / ``act_s``: calls of ``bot.store.games.act`` and their wall time (the
lock, the load when stale, the engine, the transaction: the database's time per move);
``interactions``: INTERACTION_CREATE events this process's shards received."""
GC = {"gc_s": 0.0, "gc_full": 0, "gc_max_s": 0.0}
"""Time in the garbage collector (all generations), full collections, the longest pause."""
DIE_IN_TIMER = threading.Event()
"""Set by ``die-in-timer``: the next timer run kills the process."""
LAG = {"lag_max_s": 0.0, "lag_sum_s": 0.0, "lag_ticks": 0}
"""How late the event loop runs a callback due now: a tick every 50 ms."""


def _time_gc() -> None:
    began = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
            return
        took = time.perf_counter() - began[0]
        GC["gc_s"] += took
        GC["gc_max_s"] = max(GC["gc_max_s"], took)
        if info.get("generation") == 2:
            GC["gc_full"] += 1

    gc.callbacks.append(callback)


async def _watch_lag(tick: float = 0.05) -> None:
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + tick
        await asyncio.sleep(tick)
        late = max(0.0, loop.time() - due)
        LAG["lag_max_s"] = max(LAG["lag_max_s"], late)
        LAG["lag_sum_s"] += late
        LAG["lag_ticks"] += 1


def _count_round_trips() -> None:
    """Every call into aiosqlite's worker thread (a statement, a fetch, a commit) passes
    through ``Connection._execute``: count them."""
    original = aiosqlite.core.Connection._execute

    async def counted(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["db_round_trips"] += 1
        return await original(self, fn, *args, **kwargs)

    aiosqlite.core.Connection._execute = counted  # type: ignore[method-assign]

    try:  # a trip of statements, on the event loop or in the thread (code since the kit)
        import bot.storage.db as db_module
    except ImportError:
        return
    run = getattr(db_module, "_run_in_thread", None)
    if run is not None:

        def run_counted(*args: Any) -> Any:
            COUNTS["db_calls"] += 1
            return run(*args)

        db_module._run_in_thread = run_counted

    original_to_thread = asyncio.to_thread

    async def to_thread(func: Any, /, *args: Any, **kwargs: Any) -> Any:
        COUNTS["threads"] += 1
        return await original_to_thread(func, *args, **kwargs)

    asyncio.to_thread = to_thread


def _time_moves(timer_log: str | None) -> None:
    """Time ``GameStore.act`` (database time per move), count the interactions received,
        and, with ``timer_log``, append a line per timer run (``run``, then ``done`` once it
        was marked done), flushed at once (a kill -9 loses none): ``run|done|died PID ID KEY DUE
    UNIX_TIME``."""
    try:
        from bot.storage.games import GameStore
    except ImportError:
        return
    act = GameStore.act

    async def timed_act(self: Any, *args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await act(self, *args, **kwargs)
        finally:
            COUNTS["act_calls"] += 1
            COUNTS["act_s"] += time.perf_counter() - began

    GameStore.act = timed_act  # type: ignore[method-assign]
    parse = discord.state.ConnectionState.parse_interaction_create

    def counted(self: Any, data: Any) -> None:
        COUNTS["interactions"] += 1
        parse(self, data)

    discord.state.ConnectionState.parse_interaction_create = counted  # type: ignore[method-assign]
    if not timer_log:
        return
    try:
        from bot.timers import TimerService
    except ImportError:
        return
    out = open(timer_log, "a", buffering=1)  # noqa: SIM115 (open for the process's life)
    run_one = TimerService._run_one
    pid = os.getpid()

    async def logged(self: Any, timer: Any) -> int:
        due = timer.due_at.isoformat()
        out.write(f"run {pid} {timer.id} {timer.key} {due} {time.time():.3f}\n")
        if DIE_IN_TIMER.is_set():  # claimed, not run: kill -9 here
            out.write(f"died {pid} {timer.id} {timer.key} {due} {time.time():.3f}\n")
            out.flush()
            os.kill(pid, signal.SIGKILL)
        ran = await run_one(self, timer)
        out.write(f"done {pid} {timer.id} {timer.key} {due} {time.time():.3f}\n")
        return ran

    TimerService._run_one = logged  # type: ignore[method-assign]


class _Counter(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        COUNTS["log_records"] += 1


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_parts() -> dict[str, int]:
    """The resident memory's parts: anonymous (the heap, malloc's arenas, thread stacks) and
    file-backed (shared libraries, SQLite's mapped WAL index)."""
    parts = {"rss_anon": 0, "rss_file": 0}
    with contextlib.suppress(OSError), open("/proc/self/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("RssAnon", "RssFile", "RssShmem"):
                key = "rss_anon" if name == "RssAnon" else "rss_file"
                parts[key] += int(value.split()[0]) * 1024
    return parts


def stats() -> dict[str, Any]:
    """The bot's counters now; the maxima start again from here (the next call's are the
    window's)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out = {
        "cpu": usage.ru_utime + usage.ru_stime,
        "cpu_sys": usage.ru_stime,
        "rss": rss_bytes(),
        **rss_parts(),
        "time": time.monotonic(),
        **COUNTS,
        **GC,
        **LAG,
    }
    GC["gc_max_s"] = LAG["lag_max_s"] = 0.0
    return out


async def serve(args: argparse.Namespace) -> None:
    from bot.client import GamenightBot
    from bot.settings import Settings

    try:
        from bot.logging import setup_logging

        setup_logging("INFO")
    except ImportError:
        logging.basicConfig(level=logging.INFO)
    logging.getLogger().addHandler(_Counter(level=logging.INFO))
    discord.http.Route.BASE = args.api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(args.gateway)
    _count_round_trips()
    _time_moves(args.timer_log)
    _time_gc()
    options = {"freeze_startup": True} if args.freeze else {}
    bot = GamenightBot(
        Settings(database_path=Path(args.db)),
        cogs=args.cogs.split(","),
        **options,  # as python -m bot runs it (code since it existed)
    )
    bot._connection.guild_ready_timeout = 0.05
    runner = asyncio.create_task(bot.start(TOKEN))
    lag = asyncio.create_task(_watch_lag())
    ready = asyncio.create_task(bot.wait_until_ready())
    await asyncio.wait({runner, ready}, return_when=asyncio.FIRST_COMPLETED)
    if runner.done():
        await runner
    caught_up = getattr(bot, "caught_up", None)
    if caught_up is not None:
        await caught_up()
    card_emojis = getattr(bot, "card_emojis", None)
    if card_emojis is not None and bot.settings.card_emojis:
        # Drawn once at start-up (half a megabyte of pictures): before the measures, so
        # that "memory per live game" does not count it.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(card_emojis.done.wait(), 60)
    gc.collect()
    print("READY", flush=True)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    snapshots: dict[str, Any] = {}
    while True:
        line = (await reader.readline()).decode().strip()
        if line == "stats":
            print(json.dumps(stats()), flush=True)
        elif line == "gc":
            gc.collect()
            with contextlib.suppress(OSError, AttributeError):
                ctypes.CDLL("libc.so.6").malloc_trim(0)  # give freed memory back: RSS is live
            traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
            extra = {"objects": len(gc.get_objects()), "traced": traced}
            print(json.dumps(stats() | extra), flush=True)
        elif line == "snapshot":
            gc.collect()
            snapshots["base"] = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
            print(json.dumps({}), flush=True)
        elif line == "growth":  # what the heap gained since "snapshot", by line, largest first
            gc.collect()
            base_snapshot = snapshots.get("base")
            rows = []
            if base_snapshot is not None:
                deep = tracemalloc.get_traceback_limit() > 1  # TRACE_FRAMES: by call path
                diff = tracemalloc.take_snapshot().compare_to(
                    base_snapshot, "traceback" if deep else "lineno"
                )
                rows = [
                    f"{d.size_diff // 1024} KB {d.count_diff} {_where(d.traceback)}"
                    for d in diff[:20]
                ]
            print(json.dumps(rows), flush=True)
        elif line == "heap":
            gc.collect()
            top = tracemalloc.take_snapshot().statistics("lineno")[:25]
            print(json.dumps([f"{x.size // 1024} KB {x.count} {x.traceback}" for x in top]))
        elif line == "census":
            kinds = Counter(
                f"coroutine {o.cr_code.co_qualname}"
                if isinstance(o, types.CoroutineType)
                else type(o).__qualname__
                for o in gc.get_objects()
            )
            print(json.dumps(dict(kinds.most_common(120))), flush=True)
        elif line == "die-in-timer":
            DIE_IN_TIMER.set()
            print(json.dumps({}), flush=True)
        elif line == "profile":
            profiler.enable()
            print(json.dumps(stats()), flush=True)
        elif line in ("quit", ""):
            break
    profiler.disable()
    if args.profile:
        profiler.dump_stats(args.profile)
    await bot.close()
    runner.cancel()
    lag.cancel()


def _where(trace: tracemalloc.Traceback) -> str:
    """Where memory was allocated: the line, and with several frames traced the project's
    own calls that led there (the code that keeps it, more often than not)."""
    frames = list(trace)  # most recent call last
    ours = [f for f in frames[:-1] if "/bot/" in f.filename or "/cogs/" in f.filename]
    path = " < ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(ours[-3:]))
    return f"{frames[-1]}" + (f" < {path}" if path else "")


def main() -> None:
    parser = argparse.ArgumentParser(description="the bot process of bench.load")
    parser.add_argument("--api", required=True)
    parser.add_argument("--gateway", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--cogs", default="cogs.papayoo")
    parser.add_argument("--freeze", action="store_true", help="GamenightBot(freeze_startup=True)")
    parser.add_argument("--timer-log", help="append a line per timer run there")
    parser.add_argument("--profile", help="write cProfile stats of the measured window here")
    parser.add_argument(
        "--tracemalloc", action="store_true", help="trace the Python heap (slower; live bytes)"
    )
    args = parser.parse_args()
    if args.tracemalloc:
        tracemalloc.start(int(os.environ.get("TRACE_FRAMES", "1")))
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
