"""Limits per member, per channel and per server: what one member (or a script with their
account) may hold and how fast they may ask.

- **Open lobbies** (``/<game> begin``, ``/<game> challenge``): at most
  :attr:`MemberLimits.lobbies_per_member` hosted by one member, :attr:`~MemberLimits.
  lobbies_per_channel` in one channel, :attr:`~MemberLimits.lobbies_per_server` in the server.
- **Live games**: a member sits in at most :attr:`MemberLimits.live_games_per_member` seated
  games at once, open lobbies included (opening or joining a lobby, accepting a challenge and
  starting a table all count).
- **Commands per few seconds**: :class:`RateLimiter`, in memory per process, applied at one
  place for slash commands (the command tree's ``interaction_check``) and for clicks (the
  action router's :func:`bot.ui.dispatch`). A game's own moves are not counted: a real
  player's clicks on their hand are never refused.

The first two are a server's settings (``/config limits``, saved as the ``limits`` entry of
``bot.store.game_settings``), counted in the database (:mod:`bot.storage.limits`), since
several processes share it. Every refusal is a private answer naming the limit, and
nothing is changed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from bot.storage import Store

__all__ = [
    "COMMANDS",
    "LIMITS_KEY",
    "MOVES",
    "LimitReached",
    "MemberLimits",
    "RateLimiter",
    "RateRule",
    "member_limits",
    "update_member_limits",
]

LIMITS_KEY: Final = "limits"
"""The entry of ``game_settings`` that holds a server's :class:`MemberLimits`."""


class MemberLimits(BaseModel):
    """A server's limits (defaults for a server that never changed them)."""

    model_config = ConfigDict(extra="ignore")

    lobbies_per_member: int = Field(default=3, ge=1, le=25)
    lobbies_per_channel: int = Field(default=10, ge=1, le=100)
    lobbies_per_server: int = Field(default=50, ge=1, le=5000)
    live_games_per_member: int = Field(default=5, ge=1, le=25)


LIMIT_FIELDS: Final = tuple(MemberLimits.model_fields)
"""The settings of ``/config limits``, in ``/config show`` order."""


async def member_limits(store: Store, guild_id: int) -> MemberLimits:
    """The server's limits (its saved values over the defaults)."""
    return MemberLimits.model_validate(await store.game_settings.get(guild_id, LIMITS_KEY))


async def update_member_limits(
    store: Store, guild_id: int, changes: Mapping[str, Any]
) -> MemberLimits:
    """Validate and save ``changes``; ``pydantic.ValidationError`` (nothing saved) for a bad
    value."""
    saved = await store.game_settings.update(
        guild_id,
        LIMITS_KEY,
        changes,
        validate=lambda data: MemberLimits.model_validate(data).model_dump(),
    )
    return MemberLimits.model_validate(saved)


class LimitReached(Exception):
    """A limit refuses what a member asked (raised inside the transaction that would have
    gone over it, so nothing is kept): ``key`` names the refusal's catalog text."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class RateRule:
    """At most ``count`` interactions in ``seconds`` (a sliding window)."""

    count: int
    seconds: float


COMMANDS: Final = "commands"
"""The bucket of slash commands (what creates things: lobbies, challenges, a däye)."""
CLICKS: Final = "clicks"
"""The bucket of clicks on the bot's buttons and menus other than a game's moves."""
MOVES: Final = "moves"
"""Clicks that are a game's own moves: never counted."""

DEFAULT_RULES: Final[Mapping[str, RateRule | None]] = {
    COMMANDS: RateRule(8, 5.0),
    CLICKS: RateRule(30, 5.0),
    MOVES: None,
}
"""A real member types far fewer than 8 commands in 5 s, and clicks a lobby or a Späye
button far fewer than 30 times; a script is held to that. Game moves are free: each is
checked by the engine, and a fast Spit player must never be refused."""


class RateLimiter:
    """Interactions per member and bucket in a sliding window (in memory, one process).

    ``allow(user, bucket)`` records the interaction and returns ``None``, or refuses it
    (nothing recorded) with the rule it broke. Members idle for a whole window are
    forgotten as they are met, so the memory stays that of the members active now.
    """

    def __init__(
        self,
        rules: Mapping[str, RateRule | None] | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rules = dict(DEFAULT_RULES if rules is None else rules)
        self._now = now
        self._seen: dict[tuple[int, str], deque[float]] = {}
        self._swept = now()

    def allow(self, user_id: int, bucket: str) -> RateRule | None:
        """``None`` (counted) or the rule that refuses this interaction."""
        now = self._now()
        self._sweep(now)  # on moves too: they are most of what comes once tables run
        rule = self.rules.get(bucket)
        if rule is None:
            return None
        times = self._seen.setdefault((user_id, bucket), deque())
        while times and now - times[0] >= rule.seconds:
            times.popleft()
        if len(times) >= rule.count:
            return rule
        times.append(now)
        return None

    def _sweep(self, now: float) -> None:
        longest = max((r.seconds for r in self.rules.values() if r is not None), default=0.0)
        if now - self._swept < longest:
            return
        self._swept = now
        for key in [
            k for k, times in self._seen.items() if not times or now - times[-1] >= longest
        ]:
            del self._seen[key]

    def __len__(self) -> int:
        """Members and buckets held in memory."""
        return len(self._seen)
