"""``python -m bot`` with a token but no route to Discord, or a revoked token: one clear line
on stderr saying what failed and what to check, exit code 1, no traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import discord
import pytest

from bot.__main__ import run
from bot.fakediscord import FakeDiscord
from bot.settings import Settings


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_no_route_to_discord_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{closed_port()}/api/v10")
    code = await run(Settings(database_path=tmp_path / "db.sqlite3"), "some-token")
    err = capsys.readouterr().err
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gamenight: cannot reach Discord (")
    assert "check the network connection, DNS, proxy or firewall" in lines[0]
    assert "Traceback" not in err


async def test_a_revoked_token_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeDiscord(token="the-new-token")
    await fake.start()
    try:
        code = await run(Settings(database_path=tmp_path / "db.sqlite3"), "a-revoked-token")
    finally:
        await fake.stop()
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines() == [
        "gamenight: Discord refused the token (401 Unauthorized): check DISCORD_TOKEN, or make "
        "a new one (Developer Portal -> Bot -> Reset Token)"
    ]
