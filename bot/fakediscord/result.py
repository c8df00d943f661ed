"""What the bot did with one interaction, as the test driver hands it back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .models import ButtonInfo, FakeInteraction, FakeMessage

if TYPE_CHECKING:
    from .driver import FakeDiscord


class InteractionResult:
    """What the bot did with one interaction; read live from the fake's state."""

    def __init__(self, fake: FakeDiscord, interaction: FakeInteraction) -> None:
        self.fake = fake
        self.interaction = interaction
        self.settled_mono = interaction.dispatched_mono

    @property
    def answered(self) -> bool:
        return self.interaction.callback_type is not None

    @property
    def callback_type(self) -> int | None:
        """4 message, 5 deferred message, 6 deferred update, 7 update message, 9 modal."""
        return self.interaction.callback_type

    @property
    def deferred(self) -> bool:
        return self.callback_type in (5, 6)

    @property
    def latency(self) -> float | None:
        return self.interaction.latency

    @property
    def response(self) -> FakeMessage | None:
        """The response message: the new message (4, 5) or the updated one (6, 7)."""
        return self.interaction.response_message

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.modal

    @property
    def ephemeral(self) -> bool:
        msg = self.response
        return bool(msg is not None and msg.ephemeral)

    @property
    def content(self) -> str | None:
        msg = self.response
        return None if msg is None else msg.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        msg = self.response
        return [] if msg is None else msg.embeds

    @property
    def embed(self) -> dict[str, Any] | None:
        embeds = self.embeds
        return embeds[0] if embeds else None

    @property
    def components(self) -> list[dict[str, Any]]:
        msg = self.response
        return [] if msg is None else msg.components

    @property
    def text(self) -> str:
        """Response content plus embed texts (see FakeMessage.text)."""
        msg = self.response
        return "" if msg is None else msg.text

    @property
    def buttons(self) -> list[ButtonInfo]:
        msg = self.response
        return [] if msg is None else self.fake.buttons(msg)

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.interaction.followups)

    @property
    def messages(self) -> list[FakeMessage]:
        """Messages created as a consequence: the response, follow-ups, and any
        message the bot created elsewhere (channels, DMs) between the dispatch
        and the moment the result settled."""
        inter = self.interaction
        out: list[FakeMessage] = []
        for msg in self.fake.messages.values():
            if msg.interaction is inter or (
                msg.author is self.fake.bot_user
                and msg.interaction is None
                and inter.dispatched_mono <= msg.created_mono <= self.settled_mono
            ):
                out.append(msg)
        return out

    @property
    def edited(self) -> list[FakeMessage]:
        """Messages edited between the dispatch and the moment the result settled."""
        inter = self.interaction
        return [
            m
            for m in self.fake.messages.values()
            if m.edited_mono is not None
            and inter.dispatched_mono <= m.edited_mono <= self.settled_mono
        ]

    def __repr__(self) -> str:
        return (
            f"<InteractionResult {self.interaction.description} callback={self.callback_type} "
            f"ephemeral={self.ephemeral} content={self.content!r}>"
        )
