"""Computer players decide in a worker process, so that they never slow a colleague's answer.

A decision is CPU work (``bot.ai``'s Monte Carlo player spends about 150 ms at the hard
level). In a thread it would hold the GIL, and the event loop would answer colleagues'
clicks late while a computer thinks (``bench/computers_discord.py`` measures it). So
:func:`think` sends ``(game.dumps(), player, level, seed, budget)`` to a small process pool;
the worker rebuilds the game with ``load_game`` and calls ``bot.ai.choose``. Workers run
``nice``: on a busy CPU the event loop goes first.

The pool is started on the first decision (its start is not counted against the deadline)
and stopped by :func:`shutdown` (the seated cogs call it when they unload: the bot closing).
A thread does the work instead where a process cannot: a kind without an AI (its
``auto_action`` is no work), a kind the worker does not know (one registered at run time), a
platform without processes, a worker that died. This module stays light: a worker imports
it with only ``bot.engine`` and ``bot.ai``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace

from bot.ai import AIS, Choice, choose
from bot.engine import Game, load_game

log = logging.getLogger("gamenight.computers")

WORKERS = min(2, os.cpu_count() or 1)
"""Processes thinking at once (the small server has two cores; the bot needs one)."""

IN_PROCESS = True
"""``False``: every decision in a thread (as when no process can be started)."""

NICENESS = 10
"""How much a worker gives way to the bot's event loop on a busy CPU (Unix ``nice``): a
colleague's answer first, a computer's move a little later (still well within its
deadline)."""

STARTING = 30.0
"""Seconds a decision waits for the pool to start (outside its deadline) before a thread
makes it instead."""

_pool: ProcessPoolExecutor | None = None
_started: list[Future[None]] = []
"""One no-op per worker of ``_pool``: done once its workers have started."""
_unavailable = False


class RemoteError(Exception):
    """An AI's error that could not come back from the worker as it was: its ``repr``."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _worker_start() -> None:
    """A worker leaves Ctrl-C to the bot, which stops the pool itself, and the CPU to the
    event loop when both want it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICENESS)


def _ready() -> None:
    """Nothing: the worker has started (and imported the engine and the AIs)."""


def decide(data: str, player: str, level: str, seed: int, budget_ms: int) -> Choice | None:
    """In the worker: ``choose`` on the game ``data`` (``dumps()``); ``None`` when it cannot
    be done here (a kind unknown to the worker, no move for ``player``): the caller's thread
    does it again and meets the same error as it would have."""
    try:
        choice = choose(load_game(data), player, level=level, seed=seed, budget_ms=budget_ms)
    except Exception:
        return None
    try:  # what goes back must come back: an AI's odd error is sent as its repr
        pickle.loads(pickle.dumps(choice))  # noqa: S301 - the bytes just made here
    except Exception:
        return replace(choice, error=RemoteError(repr(choice.error)), rejected=None)
    return choice


def _start() -> ProcessPoolExecutor | None:
    """The pool, started now if need be; ``None`` where processes cannot be started."""
    global _pool, _unavailable
    if _pool is not None or _unavailable:
        return _pool
    pool: ProcessPoolExecutor | None = None
    try:
        pool = ProcessPoolExecutor(
            WORKERS, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start
        )
        started = [pool.submit(_ready) for _ in range(WORKERS)]
    except (ImportError, NotImplementedError, OSError, ValueError) as err:
        _unavailable = True
        if pool is not None:
            pool.shutdown(wait=False)
        log.warning("computer players think in a thread: no worker process (%r)", err)
        return None
    _pool, _started[:] = pool, started
    return pool


def _forget(pool: ProcessPoolExecutor) -> None:
    """A pool that broke (a worker was killed): the next decision starts a new one."""
    global _pool
    if _pool is pool:
        _pool = None
    pool.shutdown(wait=False)


def shutdown() -> None:
    """Stop the pool: decisions under way finish in the background; the next one starts a new
    pool."""
    global _pool
    pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False)


async def _started_pool() -> ProcessPoolExecutor | None:
    """The pool once its workers have started; ``None`` where none can."""
    pool = _start()
    if pool is None:
        return None
    started = list(_started)
    _, waiting = await asyncio.wait([asyncio.wrap_future(f) for f in started], timeout=STARTING)
    if any(f.done() and (f.cancelled() or f.exception() is not None) for f in started):
        _forget(pool)
        return None
    return None if waiting else pool


async def think(
    game: Game, player: str, *, level: str, seed: int, budget_ms: int, timeout: float
) -> Choice:
    """``bot.ai.choose`` off the event loop, done within ``timeout`` seconds (else
    ``TimeoutError``): in a worker process, else in a thread."""
    pool = await _started_pool() if IN_PROCESS and game.kind in AIS else None
    async with asyncio.timeout(timeout):
        if pool is not None:
            choice: Choice | None = None
            try:
                work = pool.submit(decide, game.dumps(), player, level, seed, budget_ms)
            except RuntimeError:  # broken, or stopped meanwhile (the bot closing)
                _forget(pool)
            else:
                try:
                    choice = await asyncio.wrap_future(work)
                except BrokenProcessPool:
                    _forget(pool)
            if choice is not None:
                return choice
        return await asyncio.to_thread(
            choose, game, player, level=level, seed=seed, budget_ms=budget_ms
        )
