"""No credential is ever printed: a database's password (in the URL's userinfo or in its
query string, ``password`` / ``sslpassword``, any case, percent-encoded or not), the bot's
token, an interaction's token.

The processes run for real (``python -m bot``, ``python -m bot copy-database``) and their
output is searched for the secret; the bot's own log lines are captured on the throwaway
PostgreSQL server of tests/storage_backends.py.
"""

from __future__ import annotations

import io
import logging
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.logging import setup_logging
from bot.redaction import MASK, SecretFilter, add_secret, mask_secrets, redact_url, url_secrets
from bot.sandbox import sandbox_settings
from bot.settings import Settings
from bot.storage.postgres import PostgresDatabase, redact
from tests.bot.test_postgres import run_bot
from tests.fakediscord import FakeDiscord

SECRET = "s3cr3t-Pa55"


def _closed_port() -> int:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgresql://gn:{SECRET}@db:5432/gn", "postgresql://gn:***@db:5432/gn"),
        (f"postgresql://gn@db/gn?password={SECRET}", "postgresql://gn@db/gn?password=***"),
        (
            f"postgres://gn@db/gn?sslmode=require&SSLPassword={SECRET}&passfile=/run/pgpass",
            "postgres://gn@db/gn?sslmode=require&SSLPassword=***&passfile=/run/pgpass",
        ),
        (f"postgresql://gn@db/gn?pass%77ord={SECRET}", "postgresql://gn@db/gn?pass%77ord=***"),
        (f"postgresql://gn@db/gn?PASSWORD={SECRET}&x=1", "postgresql://gn@db/gn?PASSWORD=***&x=1"),
        (
            f"postgresql://gn:{SECRET}@db1:5432,db2:5433/gn",
            "postgresql://gn:***@db1:5432,db2:5433/gn",
        ),
        (
            "postgresql://gn@db/gn?passfile=/run/pgpass",
            "postgresql://gn@db/gn?passfile=/run/pgpass",
        ),
    ],
)
def test_redact_hides_every_form_of_password(url: str, shown: str) -> None:
    assert redact(url) == redact_url(url) == shown
    assert SECRET not in shown


def test_url_secrets_are_masked_in_any_text() -> None:
    url = f"postgresql://gn@db/gn?password={SECRET.replace('-', '%2D')}"
    assert SECRET in url_secrets(url)
    assert (
        mask_secrets(f"auth failed for {SECRET}!", *url_secrets(url)) == f"auth failed for {MASK}!"
    )
    assert SECRET not in mask_secrets(f"at {url}")


def test_a_refused_database_url_is_not_repeated_by_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"mysql://gn:{SECRET}@db/gn?password={SECRET}")
    with pytest.raises(ValidationError) as raised:
        Settings()
    assert SECRET not in str(raised.value) and SECRET not in repr(raised.value)
    assert all(SECRET not in e["msg"] for e in raised.value.errors())
    monkeypatch.setenv("DATABASE_URL", f"postgresql://gn@db/gn?password={SECRET}")
    settings = Settings()
    assert SECRET not in repr(settings) and SECRET not in settings.describe_database()


def test_the_sandbox_never_takes_the_bots_database_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"postgresql://gn@db/gn?password={SECRET}")
    settings = sandbox_settings(tmp_path / "sandbox.sqlite3")
    assert settings.database_url is None
    assert settings.describe_database() == str(tmp_path / "sandbox.sqlite3")


def test_an_unreachable_server_with_a_query_password_is_named_without_it(tmp_path: Path) -> None:
    port = _closed_port()
    done = run_bot(
        DATABASE_URL=f"postgresql://gn@127.0.0.1:{port}/db?password={SECRET}",
        DISCORD_TOKEN="x",
        DATABASE_PATH=str(tmp_path / "d.db"),
        LOG_LEVEL="DEBUG",
    )
    assert done.returncode == 1
    assert "cannot reach PostgreSQL" in done.stderr and f"password={MASK}" in done.stderr
    assert SECRET not in done.stderr + done.stdout


@pytest.mark.parametrize("where", ["query", "userinfo", "sslpassword"])
def test_copy_database_never_prints_the_password(tmp_path: Path, where: str) -> None:
    port = _closed_port()
    url = {
        "query": f"postgresql://gn@127.0.0.1:{port}/db?password={SECRET}",
        "userinfo": f"postgresql://gn:{SECRET}@127.0.0.1:{port}/db",
        "sslpassword": f"postgresql://gn@127.0.0.1:{port}/db?sslPassword={SECRET}",
    }[where]
    source = tmp_path / "db.sqlite3"
    source.write_bytes(b"")  # there, so the copy goes as far as the server
    done = run_bot("copy-database", "--to", url, DATABASE_PATH=str(source))
    assert done.returncode == 1, done.stderr + done.stdout
    assert "cannot reach PostgreSQL" in done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr


def test_a_bad_copy_target_is_refused_without_repeating_it(tmp_path: Path) -> None:
    done = run_bot(
        "copy-database",
        "--to",
        f"mysql://gn:{SECRET}@db/gn?password={SECRET}",
        DATABASE_PATH=str(tmp_path / "d.db"),
    )
    assert done.returncode == 2
    assert SECRET not in done.stdout + done.stderr


async def test_database_opened_and_closed_lines_hide_a_query_password(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The throwaway server trusts local connections: the password is sent and ignored.
    user, at, rest = postgres_url.removeprefix("postgresql://").partition("@")
    url = f"postgresql://{user}:{SECRET}{at}{rest}?password={SECRET}&sslpassword={SECRET}"
    caplog.set_level(logging.INFO, logger="gamenight")
    db = PostgresDatabase(url)
    await db.open()
    await db.close()
    lines = [r for r in caplog.records if r.getMessage() in ("database opened", "database closed")]
    assert len(lines) == 2
    for record in lines:
        assert SECRET not in str(record.__dict__)
        assert f"password={MASK}" in record.path  # type: ignore[attr-defined]
    assert SECRET not in caplog.text


def test_the_log_filter_masks_tokens_and_registered_secrets() -> None:
    add_secret("MTIz.bot-token-of-the-test")
    record = logging.makeLogRecord(
        {
            "msg": "event %s; %s",
            "args": (
                {"t": "INTERACTION_CREATE", "d": {"id": "1", "token": "aW50ZXJhY3Rpb24x"}},
                "POST /api/v10/interactions/1/aW50ZXJhY3Rpb24x/callback",
            ),
            "auth": "Bot MTIz.bot-token-of-the-test",
        }
    )
    assert SecretFilter().filter(record)
    text = record.getMessage() + str(record.__dict__["auth"])
    assert "aW50ZXJhY3Rpb24x" not in text and "bot-token-of-the-test" not in text
    assert f"'token': '{MASK}'" in text and f"/interactions/1/{MASK}/callback" in text


@pytest.fixture
def debug_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The process's logging as ``python -m bot`` sets it up at ``LOG_LEVEL=DEBUG``, its
    stderr captured; the test's logging put back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stderr", captured)
    setup_logging("DEBUG", "kv")
    try:
        yield captured
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        logging.getLogger("aiosqlite").setLevel(logging.NOTSET)
        logging.getLogger("apscheduler.executors").setLevel(logging.NOTSET)


async def test_the_debug_log_masks_an_interactions_token(
    fake_discord: FakeDiscord, tmp_path: Path, debug_log: io.StringIO
) -> None:
    fake = fake_discord
    owner = fake.add_user("Olga")
    guild = fake.add_guild("Office", owner=owner)
    general = fake.add_text_channel(guild, "general")
    bob = fake.add_user("Bob")
    fake.add_member(guild, bob)
    bot = GamenightBot(Settings(database_path=tmp_path / "db.sqlite3"), FakeClock(), ["cogs.help"])
    async with fake.run_client(bot):
        shown = await fake.slash(bob, general, "help")
        assert shown.ephemeral and shown.embed is not None
    token = shown.interaction.token
    text = debug_log.getvalue()
    assert "INTERACTION_CREATE" in text  # discord.py's gateway DEBUG line was written...
    assert f"'token': '{MASK}'" in text  # ...its token masked
    assert f"/interactions/{shown.interaction.id}/{MASK}/callback" in text  # the answer's URL
    assert token not in text
