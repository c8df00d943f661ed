"""Process settings, read once from the environment or a ``.env`` file.

Variables (see README "Configuration"): ``DISCORD_TOKEN``, ``DATABASE_PATH``, ``DATABASE_URL``,
``DEV_GUILD_ID``,
``LOG_LEVEL``, ``LOG_FORMAT``, ``REST_CALLS_PER_SECOND``, ``REST_SHARE``, ``SHARD_COUNT``,
``SHARD_IDS``, ``CARD_EMOJIS``. An empty value (``DEV_GUILD_ID=`` as in ``.env.example``)
means "unset", so the default applies.

Shards: without ``SHARD_COUNT`` the bot keeps one unsharded gateway connection. With it, the
process runs ``SHARD_IDS`` (all shards when unset) of ``SHARD_COUNT``; ``SHARD_COUNT=auto``
takes Discord's recommended count and runs every shard. Several processes on one token
share Discord's global REST limit: each takes ``REST_SHARE`` of ``REST_CALLS_PER_SECOND``,
by default its part of the shards (``len(SHARD_IDS) / SHARD_COUNT``), else 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = ["LOG_LEVELS", "POSTGRES_SCHEMES", "Settings", "check_database_url", "parse_shard_ids"]

POSTGRES_SCHEMES = ("postgresql", "postgres")

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class Settings(BaseSettings):
    """The bot's process-wide settings (per-guild settings live in the database)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
        # A validation error never repeats the value it refused: DATABASE_URL may hold a
        # password, DISCORD_TOKEN is one.
        hide_input_in_errors=True,
    )

    discord_token: SecretStr | None = Field(
        default=None, description="The bot token from the Discord Developer Portal."
    )
    database_path: Path = Field(
        default=Path("data/gamenight.sqlite3"), description="SQLite file, created on start-up."
    )
    database_url: SecretStr | None = Field(
        default=None,
        description=(
            "postgresql://user:password@host:port/database: PostgreSQL instead of the SQLite "
            "file (needs the postgres extra). Unset: SQLite at DATABASE_PATH."
        ),
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

    rest_share: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description=(
            "This process's part of REST_CALLS_PER_SECOND when several processes run on one "
            "token (their shares add up to 1 at most); default: len(SHARD_IDS) / SHARD_COUNT, "
            "else 1."
        ),
    )

    shard_count: int | Literal["auto"] | None = Field(
        default=None,
        description=(
            "Gateway shards of the whole bot (every process gives the same); auto: Discord's "
            "recommended count. Unset: one unsharded connection."
        ),
    )
    shard_ids: Annotated[list[int] | None, NoDecode] = Field(
        default=None,
        description='The shards this process runs, e.g. "0,1" or "0-3" (default: all).',
    )

    card_emojis: bool = Field(
        default=True,
        description=(
            "Show cards as pictures: upload the card art as application emojis at start-up "
            "(once; see bot/emojis.py). false: cards are written as text."
        ),
    )

    @field_validator("database_url", mode="after")
    @classmethod
    def _supported_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        return SecretStr(check_database_url(value.get_secret_value().strip()))

    @property
    def database_url_value(self) -> str | None:
        """``DATABASE_URL`` in clear (``None``: SQLite)."""
        return None if self.database_url is None else self.database_url.get_secret_value()

    def describe_database(self) -> str:
        """The database in use, for logs (never the password)."""
        url = self.database_url_value
        if url is None:
            return str(self.database_path)
        parts = urlsplit(url)
        host = parts.hostname or "localhost"
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}{parts.path}"

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: object) -> str:
        level = str(value).strip().upper()
        if level == "WARN":
            level = "WARNING"
        if level not in LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(LOG_LEVELS)}")
        return level

    @field_validator("shard_count", mode="before")
    @classmethod
    def _count_or_auto(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip().lower()
            if value != "auto":
                try:
                    value = int(value)
                except ValueError:
                    raise ValueError("must be a whole number of shards, or auto") from None
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise ValueError("must be 1 or more")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _ids_from_text(cls, value: object) -> object:
        if isinstance(value, str):
            return parse_shard_ids(value)
        return value

    @field_validator("shard_ids", mode="after")
    @classmethod
    def _ids_within_count(cls, value: list[int] | None, info: ValidationInfo) -> list[int] | None:
        if value is None:
            return None
        if "shard_count" not in info.data:
            return value  # SHARD_COUNT itself is invalid: that error says it
        count = info.data["shard_count"]
        if count is None:
            raise ValueError("needs SHARD_COUNT (the shards of the whole bot), e.g. SHARD_COUNT=2")
        if count == "auto":
            raise ValueError("needs a number in SHARD_COUNT, not auto")
        if not value:
            raise ValueError("names no shard")
        seen: set[int] = set()
        for shard in value:
            if not 0 <= shard < count:
                raise ValueError(
                    f"shard {shard} is out of range: SHARD_COUNT={count} has shards 0 to {count - 1}"
                )
            if shard in seen:
                raise ValueError(f"shard {shard} is named twice")
            seen.add(shard)
        return value

    @property
    def sharded(self) -> bool:
        """Whether the bot connects as shards (``SHARD_COUNT`` set)."""
        return self.shard_count is not None

    @property
    def rest_share_used(self) -> float:
        """This process's part of the token's REST budget (``REST_SHARE``, else its shards)."""
        if self.rest_share is not None:
            return self.rest_share
        if isinstance(self.shard_count, int) and self.shard_ids is not None:
            return len(self.shard_ids) / self.shard_count
        return 1.0

    def describe_shards(self) -> str:
        """What this process runs, for the start-up log line."""
        if self.shard_count is None:
            return "one unsharded connection"
        if self.shard_count == "auto":
            return "every shard of Discord's recommended count"
        ids = self.shard_ids if self.shard_ids is not None else range(self.shard_count)
        return f"shards {','.join(map(str, ids))} of {self.shard_count}"

    @field_validator("discord_token", mode="after")
    @classmethod
    def _blank_token_is_unset(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value().strip():
            return None
        return SecretStr(value.get_secret_value().strip())


def check_database_url(url: str) -> str:
    """``url`` if it names a PostgreSQL database we can use, else ``ValueError`` (the
    message never repeats the URL: it may hold a password)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise ValueError(
            "is not a URL: give postgresql://user:password@host:port/database"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in POSTGRES_SCHEMES:
        named = f"{scheme}:// is not supported" if scheme else "is not a URL"
        raise ValueError(
            f"{named}: give postgresql://user:password@host:port/database "
            "(or leave DATABASE_URL unset for SQLite at DATABASE_PATH)"
        )
    if not (parts.netloc or parts.query):
        raise ValueError("names no server: give postgresql://user:password@host:port/database")
    return url


def parse_shard_ids(text: str) -> list[int] | None:
    """``"0,1"`` or ``"0-3,8"`` as a list of shard ids, in order (``None`` when blank)."""
    out: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            if dash:
                low, high = int(first), int(last)
                if high < low:
                    raise ValueError
                out.extend(range(low, high + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise ValueError(
                f"{part!r} is not a shard id or range: give ids like 0,1 or 0-3"
            ) from None
    return out or None
