"""``python -m bot`` without a token (or with bad settings): a short message, exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def run_bot(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "LOG_LEVEL"}}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_missing_token_explains_how_to_get_one(tmp_path: Path) -> None:
    done = run_bot(tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "DISCORD_TOKEN is missing" in done.stderr
    assert "Developer Portal" in done.stderr and "Reset Token" in done.stderr
    assert "bot applications.commands" in done.stderr
    assert not (tmp_path / "data").exists()  # nothing created before the token check


def test_empty_token_in_dotenv_is_missing(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=\nDATABASE_PATH=data/gamenight.sqlite3\nDEV_GUILD_ID=\nLOG_LEVEL=INFO\n",
        encoding="utf-8",
    )
    done = run_bot(tmp_path)
    assert done.returncode == 2
    assert "DISCORD_TOKEN is missing" in done.stderr and "Traceback" not in done.stderr


def test_invalid_setting_is_reported_without_traceback(tmp_path: Path) -> None:
    done = run_bot(tmp_path, LOG_LEVEL="chatty", DISCORD_TOKEN="x")
    assert done.returncode == 2
    assert "LOG_LEVEL" in done.stderr and "Traceback" not in done.stderr


def test_settings_from_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISCORD_TOKEN", "DATABASE_PATH", "DEV_GUILD_ID", "LOG_LEVEL", "LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "DEV_GUILD_ID=\nLOG_LEVEL=\nDISCORD_TOKEN=  \n", encoding="utf-8"
    )
    settings = Settings()
    assert settings.discord_token is None and settings.dev_guild_id is None
    assert settings.log_level == "INFO" and str(settings.database_path).endswith(
        "gamenight.sqlite3"
    )
    (tmp_path / ".env").write_text("DEV_GUILD_ID=42\nLOG_LEVEL=warn\nDISCORD_TOKEN=abc\n")
    settings = Settings()
    assert settings.dev_guild_id == 42 and settings.log_level == "WARNING"
    assert settings.discord_token is not None and settings.discord_token.get_secret_value() == "abc"
    assert "abc" not in repr(settings)
