"""A discord.py client connected to the fake Discord (``fake.run_client(client)``)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING

import discord

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
        wanted = set(self.fake.guilds)
        while True:
            if self.task.done():
                exc = self.task.exception()
                raise RuntimeError(f"client stopped before it was ready: {exc!r}") from exc
            if self.client.is_ready():
                present = {g.id for g in self.client.guilds if not g.unavailable}
                if wanted <= present:
                    return
            if time.monotonic() > deadline:
                await self.crash()
                raise TimeoutError(f"client not ready after {self.ready_timeout}s")
            await asyncio.sleep(0.01)

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
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        ws = client.ws
        if ws is not None:
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
        # Give the fake a moment to notice the dropped socket.
        for _ in range(100):
            if not any(s.connected for s in self.fake.sessions):
                break
            await asyncio.sleep(0.01)
