"""Polls in the fake Discord: a message created with a ``poll``, members' votes, the poll's
end and Discord's results message.

As Discord has them:

- a message (channel message, interaction response or follow-up) may carry a ``poll``,
  checked by :func:`~.validation.check_poll` (question 1-300 characters, 1-10 answers of
  1-55, ``duration`` 1-768 hours, default 24, ``layout_type`` 1), never in a components-v2
  message, never added by an edit (400 50035); a bot needs Send Polls (``1 << 49``, in the
  fake's default @everyone) → 403 50013;
- answers get ids 1, 2, ... in order; ``message.poll.results`` holds ``is_finalized`` and
  ``answer_counts`` (``id``, ``count``, ``me_voted`` for the bot);
- members vote through the driver (:meth:`PollsMixin.vote` / :meth:`PollsMixin.unvote`):
  MESSAGE_POLL_VOTE_ADD / MESSAGE_POLL_VOTE_REMOVE go to sessions with the
  GUILD_MESSAGE_POLLS intent (``1 << 24``), or DIRECT_MESSAGE_POLLS (``1 << 25``) in a DM;
- ``GET /channels/{channel_id}/polls/{message_id}/answers/{answer_id}`` lists an answer's
  voters (``{"users": [...]}``, ascending by id, ``after``, ``limit`` 1-100, default 25;
  an unknown answer or a message without a poll: 404 10008);
- ``POST /channels/{channel_id}/polls/{message_id}/expire`` ends the bot's own poll now
  (another's: 403 50005; not a poll: 400 520006; ended: 400 520001);
- at its end (its expiry on the fake's clock, see :mod:`~.wallclock`, or expire) the
  results are finalised (MESSAGE_UPDATE) and Discord posts its results message in the
  channel: type 46 (POLL_RESULT), by the poll's author, replying to the poll, with one
  ``poll_result`` embed (``poll_question_text``, ``total_votes``, and when one answer has
  the most votes ``victor_answer_id``, ``victor_answer_text``, ``victor_answer_votes``,
  ``victor_answer_emoji_*``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import ApiError, json_response
from .models import FakeChannel, FakeGuild, FakeMessage, FakeUser, iso
from .validation import POLL_HOURS_DEFAULT

INTENT_GUILD_MESSAGE_POLLS = 1 << 24
INTENT_DIRECT_MESSAGE_POLLS = 1 << 25
SEND_POLLS = 1 << 49
POLL_RESULT = 46

__all__ = [
    "INTENT_DIRECT_MESSAGE_POLLS",
    "INTENT_GUILD_MESSAGE_POLLS",
    "POLL_RESULT",
    "SEND_POLLS",
    "FakePoll",
    "PollsMixin",
]


@dataclass(eq=False)
class FakePoll:
    """A message's poll and its votes."""

    question: str
    #: ``{"answer_id": n, "poll_media": {"text": ..., "emoji": ...}}`` in order.
    answers: list[dict[str, Any]]
    expiry: float
    allow_multiselect: bool = False
    layout_type: int = 1
    finalized: bool = False
    #: The bot's user id, for ``me_voted``.
    me: int = 0
    #: answer id -> the voters, by user id.
    votes: dict[int, dict[int, FakeUser]] = field(default_factory=dict)

    def answer_id(self, answer: int | str) -> int:
        """An answer by id, or by its exact text."""
        for entry in self.answers:
            if answer in (entry["answer_id"], entry["poll_media"].get("text")):
                return int(entry["answer_id"])
        texts = [a["poll_media"].get("text") for a in self.answers]
        raise LookupError(f"the poll has no answer {answer!r} (it has {texts})")

    def text_of(self, answer_id: int) -> str:
        return str(self.answer(answer_id)["poll_media"].get("text") or "")

    def answer(self, answer_id: int) -> dict[str, Any]:
        return next(a for a in self.answers if a["answer_id"] == answer_id)

    def count(self, answer_id: int) -> int:
        return len(self.votes.get(answer_id, {}))

    def voted_by(self, user: FakeUser) -> list[int]:
        return [a for a, voters in sorted(self.votes.items()) if user.id in voters]

    @property
    def total_votes(self) -> int:
        return sum(len(v) for v in self.votes.values())

    def victor(self) -> int | None:
        """The answer with the most votes, None on a tie or without votes."""
        counts = sorted(
            ((self.count(a["answer_id"]), a["answer_id"]) for a in self.answers), reverse=True
        )
        if not counts or counts[0][0] == 0 or (len(counts) > 1 and counts[1][0] == counts[0][0]):
            return None
        return int(counts[0][1])

    def state(self) -> dict[str, Any]:
        """Everything of the poll as plain JSON (the sandbox keeps it across restarts)."""
        return {
            "question": self.question,
            "answers": self.answers,
            "expiry": self.expiry,
            "allow_multiselect": self.allow_multiselect,
            "layout_type": self.layout_type,
            "finalized": self.finalized,
            "me": self.me,
            "votes": {str(a): sorted(v) for a, v in self.votes.items()},
        }

    @classmethod
    def from_state(cls, data: dict[str, Any], users: dict[int, FakeUser]) -> FakePoll:
        votes = {
            int(a): {u: users[u] for u in ids if u in users}
            for a, ids in (data.get("votes") or {}).items()
        }
        return cls(
            question=data["question"],
            answers=list(data["answers"]),
            expiry=float(data["expiry"]),
            allow_multiselect=bool(data.get("allow_multiselect")),
            layout_type=int(data.get("layout_type") or 1),
            finalized=bool(data.get("finalized")),
            me=int(data.get("me") or 0),
            votes=votes,
        )

    def to_json(self, *, viewer: int | None = None) -> dict[str, Any]:
        """Discord's poll JSON; ``me_voted`` says whether ``viewer`` (default: the bot)
        voted, as each person's client sees it."""
        me = self.me if viewer is None else viewer
        return {
            "question": {"text": self.question},
            "answers": [dict(a) for a in self.answers],
            "expiry": iso(self.expiry),
            "allow_multiselect": self.allow_multiselect,
            "layout_type": self.layout_type,
            "results": {
                "is_finalized": self.finalized,
                "answer_counts": [
                    {
                        "id": a["answer_id"],
                        "count": self.count(a["answer_id"]),
                        "me_voted": me in self.votes.get(a["answer_id"], {}),
                    }
                    for a in self.answers
                    if self.count(a["answer_id"])
                ],
            },
        }


class PollsMixin:
    """Polls of :class:`~.server.FakeDiscordServer` (see the module docstring)."""

    bot_user: FakeUser
    messages: dict[int, FakeMessage]

    if TYPE_CHECKING:

        def discord_now(self) -> float: ...

        async def broadcast(
            self,
            event: str,
            data: dict[str, Any],
            *,
            intent: int = 0,
            guild_id: int | EllipsisType | None = ...,
        ) -> None: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

        def _channel(self, request: web.Request) -> FakeChannel: ...

        def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage: ...

        def _new_message(
            self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
        ) -> FakeMessage: ...

        async def _announce_create(self, msg: FakeMessage) -> None: ...

        async def _announce_update(self, msg: FakeMessage) -> None: ...

    # ------------------------------------------------------------------ creation

    def _add_poll_routes(self, app: web.Application, api: str) -> None:
        base = api + "/channels/{channel_id}/polls/{message_id:\\d+}"
        app.router.add_get(base + "/answers/{answer_id:\\d+}", self._get_answer_voters)
        app.router.add_post(base + "/expire", self._expire_poll)

    def _check_can_poll(self, channel: FakeChannel, payload: dict[str, Any]) -> None:
        """Send Polls for a poll in a guild channel (403 50013)."""
        if payload.get("poll") is None or channel.guild is None:
            return
        member = channel.guild.members.get(self.bot_user.id)
        if member is None or not member.permissions & SEND_POLLS:
            raise ApiError(403, 50013, "Missing Permissions")

    def _new_poll(self, data: dict[str, Any]) -> FakePoll:
        """The poll of a new message, from its (checked) create body."""
        hours = int(data.get("duration") or POLL_HOURS_DEFAULT)
        answers = [
            {
                "answer_id": i,
                "poll_media": {
                    k: v for k, v in (a.get("poll_media") or {}).items() if k in ("text", "emoji")
                },
            }
            for i, a in enumerate(data.get("answers") or [], start=1)
        ]
        return FakePoll(
            question=str((data.get("question") or {}).get("text") or ""),
            answers=answers,
            expiry=self.discord_now() + hours * 3600,
            allow_multiselect=bool(data.get("allow_multiselect")),
            layout_type=int(data.get("layout_type") or 1),
            me=self.bot_user.id,
        )

    def _message_changed(self, msg: FakeMessage) -> None:
        """Called when a poll's votes or results change (the sandbox redraws the message)."""

    # ------------------------------------------------------------------ routes

    def _poll_message(
        self, request: web.Request, not_a_poll: ApiError
    ) -> tuple[FakeMessage, FakePoll]:
        self._require_bot_auth(request)
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        if msg.poll is None:
            raise not_a_poll
        poll: FakePoll = msg.poll
        return msg, poll

    async def _get_answer_voters(self, request: web.Request) -> web.Response:
        _msg, poll = self._poll_message(request, ApiError(404, 10008, "Unknown Message"))
        answer_id = int(request.match_info["answer_id"])
        if answer_id not in {a["answer_id"] for a in poll.answers}:
            raise ApiError(404, 10008, "Unknown Message")
        try:
            limit = int(request.query.get("limit", 25))
            after = int(request.query.get("after", 0))
        except ValueError:
            raise ApiError.form("limit", "NUMBER_TYPE_COERCE", "Value is not int.") from None
        if not 1 <= limit <= 100:
            raise ApiError.form(
                "limit", "NUMBER_TYPE_MAX", "int value should be between 1 and 100."
            )
        voters = sorted(poll.votes.get(answer_id, {}).values(), key=lambda u: u.id)
        return json_response({"users": [u.to_json() for u in voters if u.id > after][:limit]})

    async def _expire_poll(self, request: web.Request) -> web.Response:
        msg, poll = self._poll_message(
            request, ApiError(400, 520006, "Cannot expire a non-poll message")
        )
        if msg.author is not self.bot_user:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        if poll.finalized:
            raise ApiError(400, 520001, "Poll expired")
        await self.end_poll(msg)
        return json_response(msg.to_json())

    # ------------------------------------------------------------------ votes and the end

    def poll_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages.values() if m.poll is not None and not m.deleted]

    async def vote(
        self, user: FakeUser, message: FakeMessage, answers: int | str | Iterable[int | str]
    ) -> list[int]:
        """The user votes for one answer (id or text), or several in a multiselect poll, as
        Discord's client lets them: MESSAGE_POLL_VOTE_ADD per new answer. Returns the answer
        ids added. A single-choice poll already voted on must be unvoted first."""
        poll = await self._open_poll(user, message)
        wanted = [answers] if isinstance(answers, (int, str)) else list(answers)
        ids = list(dict.fromkeys(poll.answer_id(a) for a in wanted))
        if not poll.allow_multiselect and (len(ids) > 1 or poll.voted_by(user)):
            raise ValueError("a single-choice poll takes one vote; remove the vote first")
        added = [a for a in ids if user.id not in poll.votes.get(a, {})]
        for answer_id in added:
            poll.votes.setdefault(answer_id, {})[user.id] = user
            await self._announce_vote("MESSAGE_POLL_VOTE_ADD", message, user, answer_id)
        if added:
            self._message_changed(message)
        return added

    async def unvote(
        self, user: FakeUser, message: FakeMessage, answer: int | str | None = None
    ) -> list[int]:
        """The user removes their vote (for one answer, or all of theirs):
        MESSAGE_POLL_VOTE_REMOVE per answer. Returns the answer ids removed."""
        poll = await self._open_poll(user, message)
        ids = poll.voted_by(user) if answer is None else [poll.answer_id(answer)]
        removed = [a for a in ids if poll.votes.get(a, {}).pop(user.id, None) is not None]
        for answer_id in removed:
            await self._announce_vote("MESSAGE_POLL_VOTE_REMOVE", message, user, answer_id)
        if removed:
            self._message_changed(message)
        return removed

    async def _open_poll(self, user: FakeUser, message: FakeMessage) -> FakePoll:
        poll: FakePoll | None = message.poll
        if poll is None or message.deleted:
            raise LookupError(f"{message!r} has no poll")
        guild: FakeGuild | None = message.channel.guild
        if guild is not None and user.id not in guild.members:
            raise PermissionError(f"{user!r} is not a member of {guild!r}")
        if guild is None and user is not message.channel.recipient and user is not self.bot_user:
            raise PermissionError(f"{user!r} cannot see {message.channel!r}")
        if not poll.finalized and self.discord_now() >= poll.expiry:
            await self.end_poll(message)
        if poll.finalized:
            raise PermissionError("the poll has ended")
        return poll

    async def _announce_vote(
        self, name: str, message: FakeMessage, user: FakeUser, answer_id: int
    ) -> None:
        guild = message.channel.guild
        data: dict[str, Any] = {
            "user_id": str(user.id),
            "channel_id": str(message.channel.id),
            "message_id": str(message.id),
            "answer_id": answer_id,
        }
        if guild is not None:
            data["guild_id"] = str(guild.id)
        intent = INTENT_DIRECT_MESSAGE_POLLS if guild is None else INTENT_GUILD_MESSAGE_POLLS
        await self.broadcast(name, data, intent=intent, guild_id=guild.id if guild else None)

    async def end_poll(self, message: FakeMessage) -> FakeMessage:
        """Finalise the poll's results (MESSAGE_UPDATE) and post Discord's results message
        (type 46) in its channel; returns the results message. A poll ends once
        (ValueError for an ended one)."""
        poll: FakePoll | None = message.poll
        if poll is None or poll.finalized:
            raise ValueError(f"{message!r} has no poll, or its poll has ended")
        poll.finalized = True
        poll.expiry = min(poll.expiry, self.discord_now())
        self._message_changed(message)
        await self._announce_update(message)
        fields = [
            {"name": "poll_question_text", "value": poll.question, "inline": False},
            {"name": "total_votes", "value": str(poll.total_votes), "inline": False},
        ]
        victor = poll.victor()
        if victor is not None:
            emoji = poll.answer(victor)["poll_media"].get("emoji") or {}
            fields += [
                {"name": "victor_answer_id", "value": str(victor), "inline": False},
                {"name": "victor_answer_text", "value": poll.text_of(victor), "inline": False},
                {"name": "victor_answer_votes", "value": str(poll.count(victor)), "inline": False},
            ]
            if emoji.get("id"):
                fields.append(
                    {"name": "victor_answer_emoji_id", "value": str(emoji["id"]), "inline": False}
                )
            if emoji.get("name"):
                fields.append(
                    {"name": "victor_answer_emoji_name", "value": emoji["name"], "inline": False}
                )
        reference: dict[str, Any] = {
            "type": 0,
            "message_id": str(message.id),
            "channel_id": str(message.channel.id),
        }
        if message.channel.guild is not None:
            reference["guild_id"] = str(message.channel.guild.id)
        result = self._new_message(
            message.channel,
            message.author,
            {"embeds": [{"type": "poll_result", "fields": fields}], "message_reference": reference},
            type=POLL_RESULT,
        )
        await self._announce_create(result)
        return result

    async def end_due_polls(self) -> list[FakeMessage]:
        """End every poll whose expiry passed on the fake's clock; their results messages."""
        now = self.discord_now()
        due = [m for m in self.poll_messages() if not m.poll.finalized and m.poll.expiry <= now]
        return [await self.end_poll(m) for m in sorted(due, key=lambda m: m.id)]
