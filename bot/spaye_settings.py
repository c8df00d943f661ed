"""Späye's own guild settings, kept in the generic per-game store (``game_settings``).

They live beside the runtime, not in the Späye cog, so that tools outside the cog (the
sandbox, the tests) read them too; the Späye cog adds the ``/config`` subcommands that change
them. The server's own settings (time zone, language) stay in ``bot.store.settings``.

===========================  ==================================================  ==========
field                        meaning                                             default
===========================  ==================================================  ==========
``closing_time``             guild-local ``HH:MM`` when an unfinished day is     ``23:59``
                             voided (``/config closing-time``)
``challenge_expiry_minutes`` how long a däye challenge waits for its answer      10
``committee_role_id``        a role whose members may answer adjustments too     ``None``
``default_exercise``         the exercise a day opens with                       push-ups
``announce_channel_id``      where the month's titles are announced (else the    ``None``
                             channel of the latest Späye)
``reminder_minutes``         remind the channel this long before closing time    60
                             when cards remain; ``None``: no reminder
``open_time``                open the day's Späye by itself at this guild-local  ``None``
                             ``HH:MM``; ``None``: only ``/spaye start`` opens it
``open_weekdays``            the weekdays of that opening, 0 = Monday .. 6 =     Mon-Fri
                             Sunday
``open_channel_id``          where it opens (else the channel of the latest      ``None``
                             Späye)
``day_place``                ``thread``: the day is played in a thread started   thread
                             from its board; ``channel``: in the channel
``thread_refused``           what Discord refused the last time a thread was     ``None``
                             tried (``create`` or ``send``): the day fell back
                             to the channel (``/config show`` says so)
``thread_refused_channel``   the channel where it was refused                    ``None``
===========================  ==================================================  ==========

Until schema version 5 the first five lived in ``guild_settings``; that migration copied
every server's values here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bot.clock import parse_hhmm
from bot.text import neutralize

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "DEFAULT_CLOSING",
    "DEFAULT_EXERCISE",
    "GAME",
    "SpayeSettings",
    "parse_reminder",
    "parse_weekdays",
    "spaye_settings",
    "update_spaye_settings",
    "weekday_names",
]

GAME: Final = "spaye"
DEFAULT_CLOSING: Final = "23:59"
DEFAULT_EXERCISE: Final = "push-ups"
WORKDAYS: Final = (0, 1, 2, 3, 4)
_DAY_NAMES: Final = {
    "mon": 0, "monday": 0, "lun": 0, "lundi": 0,
    "tue": 1, "tuesday": 1, "mar": 1, "mardi": 1,
    "wed": 2, "wednesday": 2, "mer": 2, "mercredi": 2,
    "thu": 3, "thursday": 3, "jeu": 3, "jeudi": 3,
    "fri": 4, "friday": 4, "ven": 4, "vendredi": 4,
    "sat": 5, "saturday": 5, "sam": 5, "samedi": 5,
    "sun": 6, "sunday": 6, "dim": 6, "dimanche": 6,
}  # fmt: skip


class SpayeSettings(BaseModel):
    """A guild's Späye settings with their defaults (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    closing_time: str = DEFAULT_CLOSING
    challenge_expiry_minutes: int = Field(default=10, ge=1, le=1440)
    committee_role_id: int | None = None
    default_exercise: str = Field(default=DEFAULT_EXERCISE, min_length=1, max_length=200)
    announce_channel_id: int | None = None
    reminder_minutes: int | None = Field(default=60, ge=1, le=24 * 60 - 1)
    open_time: str | None = None
    open_weekdays: tuple[int, ...] = WORKDAYS
    open_channel_id: int | None = None
    day_place: Literal["thread", "channel"] = "thread"
    thread_refused: Literal["create", "send"] | None = None
    thread_refused_channel: int | None = None

    @field_validator("closing_time")
    @classmethod
    def _closing(cls, value: str) -> str:
        return parse_hhmm(value).strftime("%H:%M")

    @field_validator("default_exercise")
    @classmethod
    def _exercise(cls, value: str) -> str:
        # Its neutral form (bot.text), the one every message shows: 100 characters as
        # written, up to twice that once escaped.
        if not value.strip():
            raise ValueError("the exercise needs a name")
        return neutralize(value, 100)

    @field_validator("open_time")
    @classmethod
    def _hhmm(cls, value: str | None) -> str | None:
        return None if value is None else parse_hhmm(value).strftime("%H:%M")

    @field_validator("open_weekdays")
    @classmethod
    def _weekdays(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value or any(not 0 <= d <= 6 for d in value):
            raise ValueError("weekdays are 0 (Monday) to 6 (Sunday), at least one")
        return tuple(sorted(set(value)))


def validate(data: dict[str, Any]) -> dict[str, Any]:
    """The store's check: the settings with defaults filled in, or ``ValidationError``."""
    return SpayeSettings.model_validate(data).model_dump(mode="json")


async def spaye_settings(bot: GamenightBot, guild_id: int) -> SpayeSettings:
    """The guild's Späye settings, defaults filled in."""
    return SpayeSettings.model_validate(await bot.store.game_settings.get(guild_id, GAME))


async def update_spaye_settings(
    bot: GamenightBot, guild_id: int, changes: dict[str, Any]
) -> SpayeSettings:
    """Save ``changes``; raises ``pydantic.ValidationError`` (nothing saved) when bad."""
    saved = await bot.store.game_settings.update(guild_id, GAME, changes, validate=validate)
    return SpayeSettings.model_validate(saved)


def parse_reminder(text: str) -> int | None:
    """``"1:00"`` -> 60 minutes, ``"0:30"`` -> 30, ``"off"`` -> ``None`` (no reminder).
    Anything else, or ``0:00``, raises ``ValueError``."""
    word = text.strip().lower()
    if word in ("off", "none", "non", "aucun", "0"):
        return None
    when = parse_hhmm(word)
    minutes = when.hour * 60 + when.minute
    if minutes == 0:
        raise ValueError("a reminder comes at least one minute before closing")
    return minutes


def parse_weekdays(text: str) -> tuple[int, ...]:
    """``"mon-fri"``, ``"lun,mer,ven"``, ``"monday, thursday"`` -> weekday numbers
    (0 = Monday); a range may wrap (``"sat-mon"``). Anything else raises ``ValueError``."""
    days: set[int] = set()
    parts = [p for p in re.split(r"[,\s]+", text.strip().lower()) if p]
    if not parts:
        raise ValueError("name at least one weekday")
    for part in parts:
        ends = part.split("-")
        if len(ends) > 2 or any(e.rstrip(".") not in _DAY_NAMES for e in ends):
            raise ValueError(f"{part!r} is not a weekday or a range of weekdays")
        first, last = (_DAY_NAMES[e.rstrip(".")] for e in (ends[0], ends[-1]))
        day = first
        days.add(day)
        while day != last:
            day = (day + 1) % 7
            days.add(day)
    return tuple(sorted(days))


def weekday_names(days: tuple[int, ...], names: list[str]) -> str:
    """``(0, 1, 2, 3, 4)`` with the reader's seven day names -> ``"Mon, Tue, ..."``."""
    return ", ".join(names[d] for d in days)
