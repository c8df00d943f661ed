"""Discord's REST rate limits, as the fake Discord enforces them.

One table, :class:`Limits`, holds every number; :class:`RateLimiter` applies it to the
requests of one fake. The model follows Discord's documentation
(https://discord.com/developers/docs/topics/rate-limits):

- a global limit per bot token (``Authorization: Bot ...``), 50 requests a second, that
  interaction endpoints do not count against (``POST /interactions/{id}/{token}/callback``
  and everything under ``/webhooks/{application_id}/{interaction_token}``);
- per-route buckets, keyed by the route template plus its top-level ("major") resource
  (channel, guild, or webhook id + token), announced in ``X-RateLimit-*`` headers with a
  stable bucket hash per route template;
- a refused request is answered 429 and not applied;
- 401, 403 and 429 answers (except 429 of scope ``shared``) are invalid requests; 10,000 of
  them within 10 minutes get the client banned (every request answered 429 from then on).

Windows are fixed: a bucket's window opens with its first request and lasts ``per``
seconds; when it is used up, requests are refused until the window ends (``retry_after`` is
the time left). Time is :class:`RestClock`: real monotonic time, which a test may freeze or
move forward; it is not the sandbox's game clock.
"""

from __future__ import annotations

import bisect
import math
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "BAN_BODY",
    "Decision",
    "Limits",
    "Rate",
    "RateLimitHit",
    "RateLimiter",
    "RestClock",
    "Scope",
]

Scope = Literal["user", "global", "shared"]
"""``X-RateLimit-Scope`` of a 429: ``user`` a per-route bucket of the bot, ``global`` the
bot's global limit, ``shared`` a limit of a shared resource (not modelled yet)."""

UNLIMITED: int = 10_000
"""What an unlimited bucket announces: discord.py sizes its buckets from the headers (without
them it sends a route's requests one at a time), so unlimited routes still carry headers."""

BAN_BODY: dict[str, Any] = {
    "message": (
        "You are being blocked from accessing our API temporarily due to exceeding our "
        "rate limits frequently."
    ),
    "code": 0,
}
"""The body of every answer to a banned client (Cloudflare's ban: no ``Via`` header, so
discord.py raises at once instead of retrying)."""

VIA = "1.1 google"
"""Discord's answers come through Google's front end; discord.py treats a 429 without ``Via``
as a Cloudflare ban and raises instead of waiting."""


@dataclass(frozen=True)
class Rate:
    """``limit`` requests per ``per`` seconds."""

    limit: int
    per: float

    def __post_init__(self) -> None:
        if self.limit < 1 or self.per <= 0:
            raise ValueError(f"a rate needs limit >= 1 and per > 0, not {self!r}")


@dataclass(frozen=True)
class Limits:
    """The table of Discord's REST limits the fake enforces (defaults: Discord's).

    ``None`` for a route's rate means unlimited (the answers still carry headers).
    Build custom tables with keyword arguments, e.g. ``Limits(dm_open=Rate(5, 5.0))``;
    :meth:`off` turns everything off and must say why.
    """

    #: Per bot token, every route except the interaction endpoints.
    global_rate: Rate | None = Rate(50, 1.0)
    #: ``POST /channels/{channel_id}/messages``, per channel.
    message_create: Rate | None = Rate(5, 5.0)
    #: ``PATCH /channels/{channel_id}/messages/{message_id}``: all edits of one channel share it.
    message_edit: Rate | None = Rate(5, 5.0)
    #: ``DELETE /channels/{channel_id}/messages/{message_id}``, per channel.
    message_delete: Rate | None = Rate(5, 1.0)
    #: Each route under ``/webhooks/{application_id}/{interaction_token}``, per token.
    interaction_webhook: Rate | None = Rate(5, 2.0)
    #: ``POST /users/@me/channels`` (opening a DM); unlimited unless set.
    dm_open: Rate | None = None
    #: Any other route, per route template + major resource.
    default: Rate | None = Rate(50, 1.0)
    #: Invalid requests (401, 403, 429 except scope ``shared``) that get a client banned...
    invalid_request_limit: int = 10_000
    #: ...within this many seconds.
    invalid_request_window: float = 600.0
    #: Set by :meth:`off`: why this fake runs without limits.
    off_reason: str | None = None
    #: Set by :meth:`global_only`: why this fake runs without per-route buckets.
    relaxed_reason: str | None = None

    @property
    def enabled(self) -> bool:
        return self.off_reason is None

    @classmethod
    def global_only(cls, reason: str) -> Limits:
        """Discord's global limit and ban, without the per-route buckets: for tests that play
        whole games at machine speed (a move every few milliseconds on one channel and one
        player's messages), which the buckets would only hold up. Say why."""
        if not reason or not reason.strip():
            raise ValueError("Limits.global_only needs the reason the buckets are turned off")
        return cls(
            message_create=None,
            message_edit=None,
            message_delete=None,
            interaction_webhook=None,
            dm_open=None,
            default=None,
            relaxed_reason=reason.strip(),
        )

    @classmethod
    def off(cls, reason: str) -> Limits:
        """No 429, no ban: every route announces an unlimited bucket. Say why."""
        if not reason or not reason.strip():
            raise ValueError("Limits.off needs the reason the limits are turned off")
        return cls(off_reason=reason.strip())


@dataclass(frozen=True)
class RateLimitHit:
    """One request answered 429 (``fake.rate_limited``)."""

    at: float  # RestClock seconds
    method: str
    route: str
    path: str
    scope: Scope
    retry_after: float
    global_: bool
    bucket: str | None = None


@dataclass
class Decision:
    """What the limiter says about one request: the headers of its answer and, when it is
    ``refused``, the status and body to answer instead of applying it."""

    at: float
    counts_global: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    body: dict[str, Any] | None = None
    scope: Scope | None = None

    @property
    def refused(self) -> bool:
        return self.status is not None


class RestClock:
    """Monotonic seconds for REST limits and interaction token lifetimes.

    Real time by default; a test may :meth:`freeze` it (every request then happens at the
    same instant) and :meth:`advance` it (frozen or not). It only moves forward.
    """

    def __init__(self) -> None:
        self._offset = 0.0
        self._frozen_at: float | None = None

    def __call__(self) -> float:
        if self._frozen_at is not None:
            return self._frozen_at
        return time.monotonic() + self._offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the REST clock only moves forward")
        if self._frozen_at is not None:
            self._frozen_at += seconds
        else:
            self._offset += seconds

    def freeze(self) -> None:
        if self._frozen_at is None:
            self._frozen_at = self()

    def resume(self) -> None:
        """Run again from the frozen instant."""
        if self._frozen_at is not None:
            self._offset = self._frozen_at - time.monotonic()
            self._frozen_at = None

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None


@dataclass
class _Window:
    """A fixed window: opened by its first request, ``rate.per`` seconds long."""

    rate: Rate
    resets_at: float = -math.inf
    used: int = 0

    def remaining(self, now: float) -> int:
        return self.rate.limit if now >= self.resets_at else self.rate.limit - self.used

    def take(self, now: float) -> None:
        if now >= self.resets_at:
            self.resets_at = now + self.rate.per
            self.used = 0
        self.used += 1

    def reset_after(self, now: float) -> float:
        return max(0.0, self.resets_at - now) if now < self.resets_at else self.rate.per


@dataclass(frozen=True)
class _Rule:
    """How one request is limited."""

    name: str  # a field of Limits, or "callback"
    bucket_hash: str | None  # None: no bucket, no headers (interaction callbacks)
    major: str
    counts_global: bool


def _ceil_ms(seconds: float) -> float:
    return math.ceil(seconds * 1000 - 1e-6) / 1000


def _bucket_hash(key: str) -> str:
    # Opaque and stable per route template, like Discord's (a hex string).
    return format(zlib.crc32(key.encode()), "08x") + format(zlib.adler32(key.encode()), "08x")


def classify(method: str, route: str, params: Mapping[str, str]) -> _Rule:
    """The rule of a request: ``route`` is the fake's template (``/channels/{channel_id}``)."""
    key = f"{method} {route}"
    if route.startswith("/interactions/") and route.endswith("/callback"):
        return _Rule("callback", None, "", counts_global=False)
    if route.startswith("/webhooks/{webhook_id}/{webhook_token}"):
        major = f"{params.get('webhook_id', '')}+{params.get('webhook_token', '')}"
        return _Rule("interaction_webhook", _bucket_hash(key), major, counts_global=False)
    major = "+".join(params[k] for k in ("channel_id", "guild_id") if k in params)
    name = "default"
    if route == "/channels/{channel_id}/messages" and method == "POST":
        name = "message_create"
    elif route == "/channels/{channel_id}/messages/{message_id}" and method == "PATCH":
        name = "message_edit"
    elif route == "/channels/{channel_id}/messages/{message_id}" and method == "DELETE":
        name = "message_delete"
    elif route == "/users/@me/channels" and method == "POST":
        name = "dm_open"
    return _Rule(name, _bucket_hash(key), major, counts_global=True)


class RateLimiter:
    """Applies a :class:`Limits` table to the requests of one fake Discord."""

    def __init__(self, limits: Limits | None = None, clock: RestClock | None = None) -> None:
        self.clock = clock or RestClock()
        self._limits = Limits() if limits is None else limits
        self._global: dict[str | None, _Window] = {}
        self._buckets: dict[tuple[str | None, str, str], _Window] = {}
        #: Every 429 answered for a rate limit (not the ban's), oldest first.
        self.hits: list[RateLimitHit] = []
        #: Times (clock) of 401/403/429 answers, oldest first.
        self.invalid_times: list[float] = []
        #: (call log index, clock time) of every request that counted against the global limit.
        self.global_calls: list[tuple[int, float]] = []
        #: When the client was banned (clock), or None.
        self.banned_at: float | None = None

    @property
    def limits(self) -> Limits:
        return self._limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        if not isinstance(limits, Limits):
            raise TypeError("limits must be a Limits table; Limits.off(reason) turns them off")
        self._limits = limits
        self._global.clear()
        self._buckets.clear()

    @property
    def banned(self) -> bool:
        return self.banned_at is not None

    # -- requests ------------------------------------------------------------------------

    def admit(
        self, method: str, route: str, path: str, params: Mapping[str, str], auth: str | None
    ) -> Decision:
        """Decide about one request and take its share of the limits if it goes through.

        The decision carries the headers of the answer; a refused one also its status
        and body (the request must then not be applied)."""
        now = self.clock()
        limits = self._limits
        rule = classify(method, route, params)
        decision = Decision(at=now, counts_global=rule.counts_global)
        decision.headers["Via"] = VIA
        if limits.enabled and self.banned:
            decision.headers = {"Retry-After": str(3600)}
            decision.status, decision.body = 429, dict(BAN_BODY)
            decision.counts_global = False
            return decision
        rate: Rate | None = getattr(limits, rule.name, None) if limits.enabled else None
        if rule.bucket_hash is None:
            return decision
        if rate is None:
            self._unlimited_headers(decision.headers, rule.bucket_hash)
            return decision
        bucket = self._buckets.get((auth, rule.bucket_hash, rule.major))
        if bucket is None or bucket.rate != rate:
            bucket = self._buckets[(auth, rule.bucket_hash, rule.major)] = _Window(rate)

        glob: _Window | None = None
        if rule.counts_global and limits.global_rate is not None:
            glob = self._global.get(auth)
            if glob is None or glob.rate != limits.global_rate:
                glob = self._global[auth] = _Window(limits.global_rate)

        if glob is not None and glob.remaining(now) <= 0:
            retry = _ceil_ms(glob.reset_after(now))
            self._bucket_headers(decision.headers, bucket, rule.bucket_hash, now)
            self._refuse(decision, method, route, path, "global", retry, rule.bucket_hash)
            decision.headers["X-RateLimit-Global"] = "true"
            return decision
        if bucket.remaining(now) <= 0:
            retry = _ceil_ms(bucket.reset_after(now))
            self._bucket_headers(decision.headers, bucket, rule.bucket_hash, now)
            self._refuse(decision, method, route, path, "user", retry, rule.bucket_hash)
            return decision
        if glob is not None:
            glob.take(now)
        bucket.take(now)
        self._bucket_headers(decision.headers, bucket, rule.bucket_hash, now)
        return decision

    def answered(self, status: int, decision: Decision) -> None:
        """Count an answer: 401, 403 and 429 (not of scope ``shared``) are invalid requests."""
        if status in (401, 403) or (status == 429 and decision.scope in ("user", "global")):
            bisect.insort(self.invalid_times, decision.at)
            limits = self._limits
            if (
                limits.enabled
                and not self.banned
                and self.invalid_requests(limits.invalid_request_window, now=decision.at)
                >= limits.invalid_request_limit
            ):
                self.banned_at = decision.at

    def _refuse(
        self,
        decision: Decision,
        method: str,
        route: str,
        path: str,
        scope: Scope,
        retry_after: float,
        bucket_hash: str,
    ) -> None:
        is_global = scope == "global"
        decision.status = 429
        decision.scope = scope
        decision.counts_global = False
        decision.body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
            "code": 0,
        }
        decision.headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
        decision.headers["X-RateLimit-Scope"] = scope
        self.hits.append(
            RateLimitHit(
                at=decision.at,
                method=method,
                route=route,
                path=path,
                scope=scope,
                retry_after=retry_after,
                global_=is_global,
                bucket=None if is_global else bucket_hash,
            )
        )

    @staticmethod
    def _bucket_headers(
        headers: dict[str, str], bucket: _Window, bucket_hash: str, now: float
    ) -> None:
        reset_after = _ceil_ms(bucket.reset_after(now))
        headers["X-RateLimit-Limit"] = str(bucket.rate.limit)
        headers["X-RateLimit-Remaining"] = str(bucket.remaining(now))
        headers["X-RateLimit-Reset"] = f"{time.time() + reset_after:.3f}"
        headers["X-RateLimit-Reset-After"] = f"{reset_after:.3f}"
        headers["X-RateLimit-Bucket"] = bucket_hash

    @staticmethod
    def _unlimited_headers(headers: dict[str, str], bucket_hash: str) -> None:
        headers["X-RateLimit-Limit"] = str(UNLIMITED)
        headers["X-RateLimit-Remaining"] = str(UNLIMITED - 1)
        headers["X-RateLimit-Reset"] = f"{time.time() + 1:.3f}"
        headers["X-RateLimit-Reset-After"] = "1.000"
        headers["X-RateLimit-Bucket"] = bucket_hash

    # -- reading -------------------------------------------------------------------------

    def invalid_requests(self, window: float = 600.0, *, now: float | None = None) -> int:
        """401/403/429 answers within the last ``window`` seconds."""
        now = self.clock() if now is None else now
        times = self.invalid_times
        return len(times) - bisect.bisect_left(times, now - window)

    def global_calls_per_second(self, since: int = 0) -> tuple[float, int]:
        """(mean, worst) requests a second that counted against the global limit.

        ``since`` is a call-log bookmark (``fake.mark()``). The mean spreads the calls over
        the seconds from the first to the last one (at least one); the worst is the most
        calls within any one-second window."""
        times = sorted(t for index, t in self.global_calls if index >= since)
        if not times:
            return 0.0, 0
        span = max(1.0, math.ceil(times[-1] - times[0]))
        worst = 0
        start = 0
        for end, t in enumerate(times):
            # A call one second after another is in the next second, also when the float
            # sum of a clock moved by 1.0 comes back a hair short of it.
            while t - times[start] >= 1.0 - 1e-9:
                start += 1
            worst = max(worst, end - start + 1)
        return len(times) / span, worst
