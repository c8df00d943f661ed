"""Secrets kept out of logs and messages: database passwords and Discord tokens.

- :func:`redact_url`: a database URL without its password, for every line that names the
  database (``user:password@`` and the query parameters ``password`` / ``sslpassword``, in
  any case and percent-encoded or not, become ``***``; a ``passfile`` path stays).
- :func:`mask_secrets`: any text with the secrets it may carry masked: database URLs as
  above, the token of an interaction or webhook (``"token": "..."`` in a gateway payload,
  ``/interactions/<id>/<token>/`` and ``/webhooks/<id>/<token>`` in a URL), a bot token,
  and every value given to :func:`add_secret` (the bot's token at start-up).
- :class:`SecretFilter`: a logging filter applying :func:`mask_secrets` to a record's
  message, its ``extra`` fields and its traceback; :func:`bot.logging.setup_logging`
  installs it on the root handler, so every logger (discord.py's gateway and HTTP debug
  lines included) goes through it.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote_plus

__all__ = ["MASK", "SecretFilter", "add_secret", "mask_secrets", "redact_url", "url_secrets"]

MASK = "***"

_PASSWORD_KEYS = frozenset({"password", "sslpassword"})

_URL = re.compile(r"postgres(?:ql)?://[^\s'\"<>`]+", re.IGNORECASE)
_TOKEN_FIELD = re.compile(
    r"""(?P<head>(?P<q>['"])(?:token|access_token|refresh_token)(?P=q)\s*:\s*)"""
    r"""(?P<v>'[^']*'|"(?:[^"\\]|\\.)*")""",
    re.IGNORECASE,
)
_TOKEN_PATH = re.compile(r"(?P<head>/(?:interactions|webhooks)/\d+/)(?P<v>[^/\s?#'\"]+)")
_AUTHORIZATION = re.compile(r"(?P<head>\b(?:Bot|Bearer)\s+)(?P<v>[A-Za-z0-9_\-.]{20,})")
_BOT_TOKEN = re.compile(r"\b[A-Za-z0-9_\-]{23,28}\.[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,}\b")

_secrets: set[str] = set()


def add_secret(value: str | None) -> None:
    """Mask ``value`` wherever it appears in a log line from now on (the bot's token)."""
    if value and len(value) >= 6:
        _secrets.add(value)


def _split_netloc(netloc: str) -> tuple[str | None, str | None, str]:
    userinfo, at, hosts = netloc.rpartition("@")
    if not at:
        return None, None, netloc
    user, colon, password = userinfo.partition(":")
    return user, (password if colon else None), hosts


def _is_password_key(key: str) -> bool:
    return unquote_plus(key).strip().lower() in _PASSWORD_KEYS


def redact_url(url: str) -> str:
    """``url`` without a password: ``postgresql://gn:***@db/x?password=***&passfile=/p``."""
    head, sep, rest = url.partition("://")
    if not sep:
        return url
    rest, hash_, fragment = rest.partition("#")
    location, question, query = rest.partition("?")
    netloc, slash, path = location.partition("/")
    user, password, hosts = _split_netloc(netloc)
    if password is not None:
        netloc = f"{user}:{MASK}@{hosts}"
    if question:
        items = []
        for item in query.split("&"):
            key, equals, _value = item.partition("=")
            items.append(f"{key}={MASK}" if equals and _is_password_key(key) else item)
        query = "&".join(items)
    return f"{head}://{netloc}{slash}{path}{question}{query}{hash_}{fragment}"


def url_secrets(url: str) -> set[str]:
    """The passwords written in ``url`` (as written and decoded), to mask in any text."""
    found: set[str] = set()
    _head, sep, rest = url.partition("://")
    if not sep:
        return found
    rest = rest.partition("#")[0]
    location, _question, query = rest.partition("?")
    _user, password, _hosts = _split_netloc(location.partition("/")[0])
    values = [password] if password else []
    for item in query.split("&"):
        key, equals, value = item.partition("=")
        if equals and value and _is_password_key(key):
            values.append(value)
    for value in values:
        found |= {value, unquote_plus(value)}
    return {v for v in found if v}


def mask_secrets(text: str, *extra: str) -> str:
    """``text`` with every secret it may carry masked (see the module's docstring);
    ``extra``: more values to mask (a URL's passwords, :func:`url_secrets`)."""
    if not text:
        return text
    for secret in sorted({*_secrets, *extra}, key=len, reverse=True):
        if secret and secret in text:
            text = text.replace(secret, MASK)
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    if "token" in text.lower():
        text = _TOKEN_FIELD.sub(lambda m: f"{m['head']}{m['q']}{MASK}{m['q']}", text)
    if "/interactions/" in text or "/webhooks/" in text:
        text = _TOKEN_PATH.sub(lambda m: m["head"] + MASK, text)
    text = _AUTHORIZATION.sub(lambda m: m["head"] + MASK, text)
    return _BOT_TOKEN.sub(MASK, text)


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_secrets(value)
    if isinstance(value, int | float | bool) or value is None:
        return value
    text = str(value)
    masked = mask_secrets(text)
    return value if masked == text else masked


class SecretFilter(logging.Filter):
    """Masks secrets in every record it sees (its message, extra fields and traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format: leave it to the formatter to report
            return True
        masked = mask_secrets(message)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        for key, value in list(record.__dict__.items()):
            if key not in _STANDARD and not key.startswith("_"):
                record.__dict__[key] = _masked(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_secrets(record.stack_info)
        return True


_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "taskName"}
