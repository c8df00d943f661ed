"""A running sandbox (the real bot, the fake Discord and the page) for the sandbox's tests."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.sandbox import bind, serve
from bot.sandbox.page import SandboxPage


@dataclass
class Sandbox:
    """A started sandbox: ``url`` of the page, its ``page`` (with ``fake`` and ``bot``)."""

    url: str
    page: SandboxPage
    http: aiohttp.ClientSession

    def user(self, name: str) -> str:
        """The id (as the page writes it) of the colleague called ``name``."""
        return next(str(u.id) for u in self.page.fake.colleagues() if u.global_name == name)

    async def act(self, user: str, kind: str, **body: Any) -> tuple[int, dict[str, Any]]:
        async with self.http.post(
            f"{self.url}/api/act", json={"user": user, "kind": kind, **body}
        ) as res:
            return res.status, await res.json()


@contextlib.asynccontextmanager
async def run_sandbox(database: Path, users: int = 4) -> AsyncIterator[Sandbox]:
    sock = bind("127.0.0.1", 0)
    args = argparse.Namespace(database=database, users=users)
    ready: asyncio.Future[SandboxPage] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(args, sock, ready=ready, stop=stop))
    try:
        done, _ = await asyncio.wait({ready, task}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            raise RuntimeError(f"the sandbox stopped at start-up: {task.result()}")
        if ready not in done:
            raise TimeoutError("the sandbox did not start within 60 s")
        host, port = sock.getsockname()[:2]
        async with aiohttp.ClientSession() as http:
            yield Sandbox(f"http://{host}:{port}", ready.result(), http)
    finally:
        stop.set()
        code = await asyncio.wait_for(task, 30)
        sock.close()
        assert code == 0


@pytest.fixture
def sandbox_db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sandbox.sqlite3"


@pytest.fixture
async def sandbox(sandbox_db: Path) -> AsyncIterator[Sandbox]:
    async with run_sandbox(sandbox_db) as box:
        yield box
