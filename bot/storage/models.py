"""The typed records the stores return. No SQL here, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Literal, NamedTuple, TypeAlias
from zoneinfo import ZoneInfo, available_timezones

from pydantic import BaseModel, ConfigDict, field_validator

from bot.clock import local_date
from bot.engine import Event, Game

__all__ = [
    "NIGHT_STATUSES",
    "RSVP_ANSWERS",
    "TITLES",
    "ActOutcome",
    "CalloffPolicy",
    "GameResult",
    "GameStatus",
    "GuildSettings",
    "MonthTitle",
    "Night",
    "NightSeat",
    "NightStatus",
    "NightTable",
    "PendingPrivate",
    "Placements",
    "PlayerResult",
    "PlayerStats",
    "Rsvp",
    "RsvpAnswer",
    "SeatStatus",
    "SpayeDay",
    "StoredGame",
    "Timer",
    "Title",
    "is_known_timezone",
]

GameStatus: TypeAlias = Literal["active", "over", "voided"]
Title: TypeAlias = Literal["grand_spayin", "mastaye", "tikao"]
TITLES: tuple[Title, ...] = ("grand_spayin", "mastaye", "tikao")
"""Späye's monthly titles: Grand Späyin (däye column), Mastäye (victory), Tikäo (repetition)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game row with its engine state loaded.

    ``game`` is a fresh engine object: mutating it changes nothing stored; only
    :meth:`GameStore.act` saves moves.
    """

    id: int
    kind: str
    guild_id: int
    channel_id: int
    status: GameStatus
    game: Game
    meta: dict[str, Any]
    version: int
    created_at: datetime
    updated_at: datetime
    number: int = 0
    """The number players see: 1, 2, 3... per server and kind (``id`` is the database's,
    kept in custom ids); 0 for a game not stored yet."""

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def shown_number(self) -> int:
        """The game's number as players see it (the id of a game that has none)."""
        return self.number or self.id


class ActOutcome(NamedTuple):
    """What :meth:`GameStore.act` returns, already committed: ``stored, events = outcome``."""

    game: StoredGame
    events: list[Event]

    @property
    def finished(self) -> bool:
        """The action ended the game (it is now over or voided)."""
        return self.game.status != "active"


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones()) | {"UTC"}


def is_known_timezone(name: str) -> bool:
    """Whether ``name`` is an IANA time zone key (``Europe/Paris``, ``UTC``...)."""
    return name in _zones()


class GuildSettings(BaseModel):
    """One guild's own settings (what every game shares), with the defaults for anything
    never set. A game's settings are its own, in ``bot.store.game_settings`` (Späye's:
    :mod:`bot.spaye_settings`).

    ``locale`` is always usable: the admin's choice when ``locale_explicit``, otherwise the
    guild's preferred locale (passed to :meth:`GuildSettingsStore.get`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    guild_id: int
    timezone: str = "UTC"
    locale: Literal["en", "fr"] = "en"
    locale_explicit: bool = False

    @field_validator("timezone")
    @classmethod
    def _iana_zone(cls, value: str) -> str:
        if not is_known_timezone(value):
            raise ValueError(f"unknown time zone {value!r} (use an IANA name like Europe/Paris)")
        return value

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def today(self, now: datetime) -> date:
        """The guild's calendar day at instant ``now`` (the key of its Späye day)."""
        return local_date(now, self.zone)


@dataclass(frozen=True, slots=True)
class Timer:
    """A durable deadline (``timers`` row)."""

    id: int
    key: str
    kind: str
    due_at: datetime
    payload: dict[str, Any]
    done: bool
    attempts: int
    last_error: str | None
    claimed_by: str | None = None
    """The process running it (its :attr:`bot.timers.TimerService.owner`), until
    ``lease_until``; ``None`` when nobody holds it."""
    lease_until: datetime | None = None
    """Past this instant a claim is void (its process died): another process takes it."""


@dataclass(frozen=True, slots=True)
class PendingPrivate:
    """Private content waiting for its user's next interaction (their DMs were closed)."""

    user_id: int
    key: str
    content: str | None
    embeds: list[dict[str, Any]]
    notified: bool
    locale: str | None


@dataclass(frozen=True, slots=True)
class SpayeDay:
    """The one Späye of a guild's calendar day."""

    guild_id: int
    day: date
    game_id: int
    status: GameStatus


@dataclass(frozen=True, slots=True)
class MonthTitle:
    """A title earned in ``month`` (``YYYY-MM``); its bonus is for the following month."""

    guild_id: int
    month: str
    title: Title
    user_id: int
    bonus_used_game_id: int | None
    announced: bool
    awarded_at: datetime

    @property
    def bonus_available(self) -> bool:
        return self.bonus_used_game_id is None


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player's line in a finished game, as a results recorder produces it."""

    user_id: int
    points: int = 0
    won: bool = False
    rank: int | None = None
    rounds: int = 0
    details: dict[str, Any] = field(default_factory=dict)
    kind: str | None = None
    """Filed under this kind instead of the game's (e.g. ``papayoo.computers``: a game with
    computer seats, kept apart from the colleagues-only record)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """A stored ``game_results`` row."""

    game_id: int
    guild_id: int
    kind: str
    user_id: int
    points: int
    won: bool
    rank: int | None
    rounds: int
    details: dict[str, Any]
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's totals over finished games of one kind in one guild."""

    user_id: int
    games: int
    wins: int
    points: int
    rounds: int = 0


@dataclass(frozen=True, slots=True)
class Placements:
    """A player's finished games of one kind in one guild by the place they finished in."""

    games: int
    wins: int
    places: dict[int, int]
    """``{place: games}`` (1 the best; a tie shares its place); games with no place apart."""


NightStatus: TypeAlias = Literal[
    "planned", "polling", "seating", "playing", "closed", "cancelled", "called_off"
]
NIGHT_STATUSES: tuple[NightStatus, ...] = (
    "planned",
    "polling",
    "seating",
    "playing",
    "closed",
    "cancelled",
    "called_off",
)
RsvpAnswer: TypeAlias = Literal["in", "maybe", "no"]
RSVP_ANSWERS: tuple[RsvpAnswer, ...] = ("in", "maybe", "no")
CalloffPolicy: TypeAlias = Literal["cancel", "keep"]
SeatStatus: TypeAlias = Literal["seated", "waiting", "left"]


@dataclass(frozen=True, slots=True)
class Night:
    """A game night: planned (or polling for its evening or game), then seated, played,
    closed; or cancelled by its planner (or its event deleted), or called off for want of
    players. ``starts_at`` is UTC; ``games`` are game kinds (``papayoo``, ``spit``...)."""

    id: int
    guild_id: int
    channel_id: int
    title: str
    starts_at: datetime
    planner_id: int
    games: list[str]
    status: NightStatus
    event_id: int | None
    rsvp_message_id: int | None
    board_message_id: int | None
    min_players: int
    calloff_minutes: int
    calloff_policy: CalloffPolicy
    allow_computers: bool
    weekly: bool
    meta: dict[str, Any]
    version: int = 1
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        """Not ended: planned, polling, seating or playing."""
        return self.status in ("planned", "polling", "seating", "playing")


@dataclass(frozen=True, slots=True)
class Rsvp:
    """One member's answer to a night, and the games they would like (empty: any)."""

    night_id: int
    user_id: int
    answer: RsvpAnswer
    games: list[str]
    at: datetime
    locale: str | None = None
    """The language of their last answer (``None``: answered by the event's Interested)."""


@dataclass(frozen=True, slots=True)
class NightTable:
    night_id: int
    table_no: int
    kind: str
    game_id: int | None
    thread_id: int | None


@dataclass(frozen=True, slots=True)
class NightSeat:
    night_id: int
    user_id: int
    table_no: int | None
    status: SeatStatus
