"""Small stand-ins for discord.py objects, for unit tests that need no Discord at all.

End-to-end behaviour is tested against the fake Discord server (test_e2e.py); these are for
checking one helper at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from types import SimpleNamespace
from typing import Any

import discord

_ids = count(1000)


@dataclass
class Sent:
    how: str
    content: str | None
    kwargs: dict[str, Any]

    @property
    def ephemeral(self) -> bool:
        return bool(self.kwargs.get("ephemeral"))


@dataclass
class FakeResponse:
    log: list[Sent]
    done: bool = False

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, content: str | None = None, **kwargs: Any) -> None:
        assert not self.done, "responded twice"
        self.done = True
        self.log.append(Sent("response", content, kwargs))

    async def edit_message(self, content: str | None = None, **kwargs: Any) -> None:
        assert not self.done, "responded twice"
        self.done = True
        self.log.append(Sent("edit", content, kwargs))

    async def defer(self, **kwargs: Any) -> None:
        assert not self.done, "responded twice"
        self.done = True
        self.log.append(Sent("defer", None, kwargs))


@dataclass
class FakeFollowup:
    log: list[Sent]

    async def send(self, content: str | None = None, **kwargs: Any) -> None:
        self.log.append(Sent("followup", content, kwargs))


@dataclass
class FakeInteraction:
    client: Any = None
    locale: discord.Locale = discord.Locale.american_english
    user_id: int = 111
    guild: Any = None
    permissions: discord.Permissions = field(default_factory=discord.Permissions.none)
    log: list[Sent] = field(default_factory=list)
    id: int = field(default_factory=lambda: next(_ids))
    command: Any = None
    data: dict[str, Any] = field(default_factory=dict)
    type: discord.InteractionType = discord.InteractionType.component

    def __post_init__(self) -> None:
        self.user = SimpleNamespace(id=self.user_id, mention=f"<@{self.user_id}>")
        self.response = FakeResponse(self.log)
        self.followup = FakeFollowup(self.log)

    @property
    def guild_id(self) -> int | None:
        return None if self.guild is None else self.guild.id

    async def edit_original_response(self, content: str | None = None, **kwargs: Any) -> None:
        self.log.append(Sent("edit_original", content, kwargs))

    @property
    def texts(self) -> list[str]:
        return [s.content for s in self.log if s.content]
