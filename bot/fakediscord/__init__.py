"""A fake Discord (gateway + REST) that a real discord.py client connects to."""

from .driver import FakeDiscord, InteractionResult, RunningClient
from .models import (
    ButtonInfo,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    LateInteraction,
    MessageVersion,
    RecordedCall,
)

__all__ = [
    "ButtonInfo",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionResult",
    "LateInteraction",
    "MessageVersion",
    "RecordedCall",
    "RunningClient",
]
