"""Structured logs on stderr: ``key=value`` lines (default) or JSON lines.

Every record goes through :class:`bot.redaction.SecretFilter` first: passwords of database
URLs, interaction and webhook tokens and the bot's token are masked (``***``) in every line,
discord.py's DEBUG gateway and HTTP lines included.

Extra fields passed with ``log.info("game saved", extra={"game_id": 4})`` become keys::

    ts=2025-03-14T09:00:00.123Z level=INFO logger=gamenight.storage msg="game saved" game_id=4
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Literal

from bot.redaction import SecretFilter

__all__ = ["JsonFormatter", "KeyValueFormatter", "setup_logging"]

# Attributes every LogRecord has; anything else on a record came from ``extra=``.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
    fields: dict[str, Any] = {
        "ts": stamp.replace("+00:00", "Z"),
        "level": record.levelname,
        "logger": record.name,
        "msg": record.getMessage(),
    }
    for key, value in record.__dict__.items():
        if key not in _STANDARD and not key.startswith("_"):
            fields[key] = value
    if record.exc_text:  # set (and its secrets masked) by SecretFilter
        fields["exc"] = record.exc_text
    elif record.exc_info:
        fields["exc"] = logging.Formatter().formatException(record.exc_info)
    return fields


def _kv_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    if text and not any(c in text for c in ' ="\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)


class KeyValueFormatter(logging.Formatter):
    """One ``key=value`` line per record; values with spaces or quotes are JSON-quoted."""

    def format(self, record: logging.LogRecord) -> str:
        return " ".join(f"{key}={_kv_value(value)}" for key, value in _fields(record).items())


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(_fields(record), default=str, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: Literal["kv", "json"] = "kv") -> None:
    """Send every logger (ours, discord.py's, APScheduler's) to stderr in one format, its
    secrets masked (:class:`~bot.redaction.SecretFilter` on the handler: a filter on the
    handler, not on a logger, sees the records every logger propagates to the root)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else KeyValueFormatter())
    handler.addFilter(SecretFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = logging.getLevelNamesMapping()[level]
    root.setLevel(numeric)
    # APScheduler logs every job run at INFO and aiosqlite every statement at DEBUG.
    noisy = numeric if numeric == logging.DEBUG else max(numeric, logging.WARNING)
    logging.getLogger("apscheduler.executors").setLevel(noisy)
    logging.getLogger("aiosqlite").setLevel(max(numeric, logging.INFO))
