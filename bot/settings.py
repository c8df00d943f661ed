"""Process settings, read once from the environment or a ``.env`` file.

Variables (see README "Configuration"): ``DISCORD_TOKEN``, ``DATABASE_PATH``, ``DEV_GUILD_ID``,
``LOG_LEVEL``, ``LOG_FORMAT``, ``REST_CALLS_PER_SECOND``, ``CARD_EMOJIS``. An empty value (``DEV_GUILD_ID=`` as in ``.env.example``)
means "unset", so the default applies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["LOG_LEVELS", "Settings"]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class Settings(BaseSettings):
    """The bot's process-wide settings (per-guild settings live in the database)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
    )

    discord_token: SecretStr | None = Field(
        default=None, description="The bot token from the Discord Developer Portal."
    )
    database_path: Path = Field(
        default=Path("data/gamenight.sqlite3"), description="SQLite file, created on start-up."
    )
    dev_guild_id: int | None = Field(
        default=None, description="Sync slash commands to this guild only (instant, for testing)."
    )
    log_level: str = Field(default="INFO", description="DEBUG, INFO, WARNING, ERROR or CRITICAL.")
    log_format: Literal["kv", "json"] = Field(
        default="kv", description="kv: key=value lines; json: one JSON object per line."
    )

    rest_calls_per_second: float = Field(
        default=40.0,
        gt=0,
        le=10_000,
        description=(
            "Bot-token REST calls per second at most (Discord allows 50 per token; a bot "
            "with a raised limit may use more)."
        ),
    )

    card_emojis: bool = Field(
        default=True,
        description=(
            "Show cards as pictures: upload the card art as application emojis at start-up "
            "(once; see bot/emojis.py). false: cards are written as text."
        ),
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: object) -> str:
        level = str(value).strip().upper()
        if level == "WARN":
            level = "WARNING"
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level

    @field_validator("discord_token", mode="after")
    @classmethod
    def _blank_token_is_unset(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        return SecretStr(value.get_secret_value().strip())
