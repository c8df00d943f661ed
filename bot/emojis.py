"""The cards as application emojis: uploaded once, then shown in messages and on buttons.

At start-up (:meth:`CardEmojis.start`, from the client's ``setup_hook`` when
``CARD_EMOJIS`` is on) the bot lists its application's emojis and makes them match the
card art (:mod:`bot.cardart`). An emoji's name says which card and which art it shows:
``gn_<art key>_<6 hex of the PNG's hash>`` (``gn_10H_3fa9c1``, ``gn_PY7H_0b12de``), so

- a card whose emoji has the current name is kept (a restart with the same art uploads
  nothing: one call, the listing);
- a card without one is uploaded, and an older ``gn_<same key>_*`` is deleted once the
  new one is up; ``gn_`` emojis of art keys that no longer exist are deleted too;
- emojis not named ``gn_...`` belong to whoever made them and are left alone.

Every call waits in the REST budget at :attr:`~bot.budget.Priority.OPTIONAL`, behind
anything a game sends. A refused upload (the application's 2,000 emojis, a bad picture,
any HTTP error) is logged in one line for the whole start-up, and that card is shown as
text. The same if the listing fails: every card is text until the next start.

Renderers ask, at any time (before the listing, the answer is ``None`` / the fallback):

- :func:`card_emoji` ``(code, *, papayoo=None) -> discord.PartialEmoji | None`` for a
  button or a select option;
- :func:`card_text` ``(code, fallback, *, papayoo=None) -> str``: ``<:gn_7H_3fa9c1:id>``
  for message text, or ``fallback`` when the card has no emoji.

``papayoo`` is the Papayoo card's code of the round (``"7H"``): that card gets its marked
art. The functions read the registry of the bot that started last (one bot a process);
``bot.card_emojis`` is that registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

import discord

from bot.budget import Priority, priority
from bot.cardart import all_art, art_hash, art_key

__all__ = [
    "MAX_APPLICATION_EMOJIS",
    "PREFIX",
    "CardEmojis",
    "SyncReport",
    "active_registry",
    "card_emoji",
    "card_text",
    "emoji_name",
    "parse_name",
]

log = logging.getLogger("gamenight.emojis")

PREFIX: Final = "gn_"
"""Emojis named so are the bot's card art; others are left alone."""
MAX_APPLICATION_EMOJIS: Final = 2000
"""Emojis one application may own (Discord)."""
TOO_MANY_EMOJIS: Final = 30008
"""Discord's error code for "Maximum number of emojis reached": no upload can succeed."""
NAME: Final = re.compile(r"^gn_([A-Za-z0-9]+)_([0-9a-f]{6})$")


def emoji_name(key: str, png: bytes) -> str:
    """The emoji name of one card's art: ``gn_<key>_<hash>`` (at most 32 characters)."""
    name = f"{PREFIX}{key}_{art_hash(png)}"
    if len(name) > 32:
        raise ValueError(f"emoji name too long for Discord: {name}")
    return name


def parse_name(name: str) -> tuple[str, str] | None:
    """``(art key, hash)`` of a card emoji's name; ``None`` for anyone else's emoji."""
    match = NAME.match(name)
    return (match.group(1), match.group(2)) if match else None


@dataclass
class SyncReport:
    """What one start-up's sync did (tests, the log line)."""

    listed: int = 0
    kept: int = 0
    uploaded: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    """Art key -> why its upload was refused (or not tried, once Discord said it is full)."""
    failed: str | None = None
    """Why the whole sync stopped (the listing failed), if it did."""


ArtSource = Callable[[], Mapping[str, bytes]]


class CardEmojis:
    """The card emojis of one bot (see the module's docstring).

    ``art`` gives every art key's PNG (default: :func:`bot.cardart.all_art`, drawn in a
    thread on first use); tests pass other pictures to play a change of art.
    """

    def __init__(self, art: ArtSource | None = None) -> None:
        self._art_source: ArtSource = art or all_art
        self._emojis: dict[str, discord.PartialEmoji] = {}
        self._task: asyncio.Task[None] | None = None
        self.report = SyncReport()
        self.done = asyncio.Event()
        """Set when the start-up's sync finished (or gave up)."""

    # -- lookups -----------------------------------------------------------------------------

    def emoji(self, code: str, *, papayoo: str | None = None) -> discord.PartialEmoji | None:
        key = art_key(code, papayoo=papayoo)
        return self._emojis.get(key) if key is not None else None

    def text(self, code: str, fallback: str, *, papayoo: str | None = None) -> str:
        found = self.emoji(code, papayoo=papayoo)
        return str(found) if found is not None else fallback

    @property
    def emojis(self) -> dict[str, discord.PartialEmoji]:
        """Art key -> its emoji, for the cards that have one now."""
        return dict(self._emojis)

    # -- life --------------------------------------------------------------------------------

    def start(self, client: discord.Client) -> None:
        """Make this the registry :func:`card_emoji` reads, and sync in the background."""
        global _active
        _active = self
        if self._task is None or self._task.done():
            self.done.clear()
            self._task = asyncio.create_task(self._run(client), name="card-emojis")

    async def stop(self) -> None:
        """Stop a sync still running; :func:`card_emoji` answers ``None`` from now on."""
        global _active
        if _active is self:
            _active = None
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self, client: discord.Client) -> None:
        try:
            with priority(Priority.OPTIONAL):
                await self.sync(client)
        except Exception as exc:  # never let the art stop the bot
            self.report.failed = self.report.failed or repr(exc)
            log.exception("card emojis: sync failed; cards show as text")
        finally:
            self.done.set()

    # -- the sync ----------------------------------------------------------------------------

    async def sync(self, client: discord.Client) -> SyncReport:
        """List the application's emojis, upload missing or changed art, delete outdated art.

        Call it inside ``priority(Priority.OPTIONAL)`` (:meth:`start` does)."""
        report = self.report = SyncReport()
        art = await asyncio.to_thread(self._art_source)
        wanted = {key: emoji_name(key, png) for key, png in art.items()}
        try:
            existing = await client.fetch_application_emojis()
        except Exception as exc:
            report.failed = _why(exc)
            log.warning(
                "card emojis: the application's emojis could not be listed; cards show as text",
                extra={"error": report.failed},
            )
            return report
        report.listed = len(existing)

        current: dict[str, discord.Emoji] = {}
        outdated: dict[str, list[discord.Emoji]] = {}
        strays: list[discord.Emoji] = []
        for found in existing:
            parsed = parse_name(found.name)
            if parsed is None:
                continue  # someone else's emoji
            key = parsed[0]
            if key not in wanted:
                strays.append(found)
            elif found.name == wanted[key]:
                current[key] = found
            else:
                outdated.setdefault(key, []).append(found)
        self._emojis = {key: _partial(found) for key, found in current.items()}
        report.kept = len(current)

        missing = [key for key in wanted if key not in current]
        if len(existing) + len(missing) > MAX_APPLICATION_EMOJIS:
            # No room for the new art next to the old: make room first.
            for key in missing:
                for old in outdated.pop(key, []):
                    await self._delete(old, report)
            for old in strays:
                await self._delete(old, report)
            strays = []

        full = False
        for key in missing:
            if full:
                report.refused[key] = "not tried: the application has no room for emojis"
                continue
            try:
                made = await client.create_application_emoji(name=wanted[key], image=art[key])
            except discord.HTTPException as exc:
                report.refused[key] = _why(exc)
                full = exc.code == TOO_MANY_EMOJIS
                continue
            except Exception as exc:  # the budget dropped it, the network failed...
                report.refused[key] = _why(exc)
                continue
            self._emojis[key] = _partial(made)
            report.uploaded.append(key)
            for old in outdated.pop(key, []):
                await self._delete(old, report)
        for old in strays:
            await self._delete(old, report)

        if report.refused:
            first_key = next(iter(report.refused))
            log.warning(
                "card emojis: uploads refused; those cards show as text",
                extra={
                    "refused": len(report.refused),
                    "cards": ",".join(report.refused),
                    "first_error": f"{first_key}: {report.refused[first_key]}",
                },
            )
        log.info(
            "card emojis ready",
            extra={
                "cards": len(self._emojis),
                "kept": report.kept,
                "uploaded": len(report.uploaded),
                "deleted": len(report.deleted),
                "refused": len(report.refused),
            },
        )
        return report

    async def _delete(self, old: discord.Emoji, report: SyncReport) -> None:
        try:
            await old.delete()
        except Exception as exc:  # left for the next start
            log.warning(
                "card emojis: an outdated emoji could not be deleted",
                extra={"emoji": old.name, "error": _why(exc)},
            )
            return
        report.deleted.append(old.name)


def _partial(found: discord.Emoji) -> discord.PartialEmoji:
    return discord.PartialEmoji(name=found.name, id=found.id, animated=found.animated)


def _why(exc: BaseException) -> str:
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.code}: {exc.text}"[:200]
    return repr(exc)[:200]


_active: CardEmojis | None = None


def active_registry() -> CardEmojis | None:
    """The registry of the bot that started last (``None`` before any, or after it stopped)."""
    return _active


def card_emoji(code: str, *, papayoo: str | None = None) -> discord.PartialEmoji | None:
    """The emoji of a card code (for a button or a select option), or ``None``."""
    registry = _active
    return registry.emoji(code, papayoo=papayoo) if registry is not None else None


def card_text(code: str, fallback: str, *, papayoo: str | None = None) -> str:
    """``<:name:id>`` of a card code for message text, or ``fallback`` without an emoji."""
    registry = _active
    return registry.text(code, fallback, papayoo=papayoo) if registry is not None else fallback
