"""A discord.py client connected to the fake Discord (``fake.run_client(client)``).

A sharded client (:class:`discord.AutoShardedClient`, or a ``Client`` given ``shard_id``)
is ready when every guild of its shards is; several clients on one fake (processes running
different shards of one token) each wait for their own guilds and crash on their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import discord

from .gateway import shard_of

if TYPE_CHECKING:
    from .driver import FakeDiscord


class RunningClient:
    """`async with fake.run_client(client)`: a discord.py client connected to the fake."""

    def __init__(
        self,
        fake: FakeDiscord,
        client: discord.Client,
        token: str,
        ready_timeout: float,
        guild_ready_timeout: float | None,
    ) -> None:
        self.fake = fake
        self.client = client
        self.token = token
        self.ready_timeout = ready_timeout
        self.guild_ready_timeout = guild_ready_timeout
        self.task: asyncio.Task[None] | None = None
        self.crashed = False
        self.closed = False

    async def __aenter__(self) -> RunningClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if not self.crashed:
            await self.close()

    async def start(self) -> None:
        if self.guild_ready_timeout is not None:
            # Same as passing guild_ready_timeout=... to the Client: how long
            # discord.py waits for more GUILD_CREATEs before it fires on_ready.
            self.client._connection.guild_ready_timeout = self.guild_ready_timeout
        self.task = asyncio.create_task(self.client.start(self.token), name="fake-discord-client")
        deadline = time.monotonic() + self.ready_timeout
        while True:
            if self.task.done():
                exc = self.task.exception()
                raise RuntimeError(f"client stopped before it was ready: {exc!r}") from exc
            if self.client.is_ready():
                present = {g.id for g in self.client.guilds if not g.unavailable}
                if self.wanted_guilds() <= present:
                    return
            if time.monotonic() > deadline:
                await self.crash()
                raise TimeoutError(f"client not ready after {self.ready_timeout}s")
            await asyncio.sleep(0.01)

    def shard_ids(self) -> set[int] | None:
        """The shards the client runs (``None``: unsharded, every guild)."""
        client = self.client
        count = client.shard_count
        if not count:
            return None
        if isinstance(client, discord.AutoShardedClient):
            return set(client.shard_ids or range(count))
        return {client.shard_id or 0}

    def wanted_guilds(self) -> set[int]:
        """The fake's guilds the client gets (those of its shards)."""
        ids = self.shard_ids()
        count = self.client.shard_count or 1
        return {g for g in self.fake.guilds if ids is None or shard_of(g, count) in ids}

    def websockets(self) -> list[discord.gateway.DiscordWebSocket]:
        """The client's gateway connections (one per shard)."""
        client = self.client
        if isinstance(client, discord.AutoShardedClient):
            return [info._parent.ws for info in client.shards.values()]
        ws = client.ws
        return [] if ws is None else [ws]

    def session_ids(self) -> set[str]:
        """The ids of the client's gateway sessions at the fake."""
        return {ws.session_id for ws in self.websockets() if ws.session_id}

    async def close(self) -> None:
        """Clean shutdown: the client's own close(), then its task ends."""
        if self.closed or self.crashed:
            return
        self.closed = True
        await self.client.close()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self.task, timeout=5)

    async def crash(self) -> None:
        """Kill the client as a dying process would: no close() of the client,
        no close frame to the gateway; the socket just drops.

        The bot's close()/cog_unload logic does not run. Only discord.py's own
        connection resources (gateway socket, heartbeat thread, HTTP session)
        are released so the test process does not leak them; resources the bot
        itself owns (database, schedulers) are left as they are.
        """
        if self.crashed or self.closed:
            return
        self.crashed = True
        client = self.client
        sockets = self.websockets()
        mine = self.session_ids()
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if isinstance(client, discord.AutoShardedClient):
            for info in client.shards.values():
                info._parent._cancel_task()  # each shard reads its socket in its own task
        for ws in sockets:
            keep_alive = getattr(ws, "_keep_alive", None)
            if keep_alive is not None:
                keep_alive.stop()
            with contextlib.suppress(Exception):
                # Drop the TCP connection without a websocket close frame.
                transport = ws.socket._response.connection.transport  # type: ignore[union-attr]
                if transport is not None:
                    transport.abort()
        with contextlib.suppress(Exception):
            await client.http.close()
        # Give the fake a moment to notice the dropped sockets (this client's only: another
        # client on the fake keeps its own).
        for _ in range(100):
            if not any(
                s.connected and (not mine or s.session_id in mine) for s in self.fake.sessions
            ):
                break
            await asyncio.sleep(0.01)
