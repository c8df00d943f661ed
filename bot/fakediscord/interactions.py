"""Interactions of the fake Discord: the deadline of their first answer (late
interactions), their callbacks and the webhook routes of their tokens (follow-ups, edits)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import FILES, PAYLOAD, ApiError, json_response, no_content
from .models import (
    EPHEMERAL,
    LOADING,
    FakeChannel,
    FakeEmoji,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    LateInteraction,
)
from .ratelimits import RestClock
from .validation import check_choices, check_modal

# Which callback types each interaction type accepts.
ALLOWED_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}


class InteractionsMixin:
    """Interaction callbacks and webhooks of :class:`~.server.FakeDiscordServer`."""

    application_id: int
    bot_user: FakeUser
    late_after: float
    enforce_deadline: bool
    token_lifetime: float | None
    rest_clock: RestClock
    messages: dict[int, FakeMessage]
    interactions: dict[int, FakeInteraction]
    application_emojis: dict[int, FakeEmoji]
    late_interactions: list[LateInteraction]
    answer_latencies: list[float]
    _late_timers: dict[int, asyncio.TimerHandle]
    _token_born: dict[int, float]

    if TYPE_CHECKING:

        def _attachments_from_files(
            self, files: list[dict[str, Any]], payload: dict[str, Any]
        ) -> list[dict[str, Any]]: ...

        def _message_payload(self, request: web.Request) -> dict[str, Any]: ...

        def _check_message(
            self, payload: dict[str, Any], *, creating: bool, has_files: bool
        ) -> tuple[int, dict[str, Any]] | None: ...

        def _new_message(
            self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
        ) -> FakeMessage: ...

        def _edit_message(self, msg: FakeMessage, payload: dict[str, Any]) -> None: ...

        @staticmethod
        def _notify(msg: FakeMessage, payload: dict[str, Any]) -> None: ...

        async def _announce_create(self, msg: FakeMessage) -> None: ...

        async def _announce_update(self, msg: FakeMessage) -> None: ...

        async def _announce_delete(self, msg: FakeMessage) -> None: ...

        def _mark_deleted(self, msg: FakeMessage) -> None: ...

        def _check_thread_active(self, channel: FakeChannel) -> None: ...

    # ------------------------------------------------------------------ late interactions

    def _schedule_late_check(self, inter: FakeInteraction) -> None:
        # Called as the interaction is dispatched: its token's lifetime starts now.
        self._token_born[inter.id] = self.rest_clock()
        loop = asyncio.get_running_loop()
        self._late_timers[inter.id] = loop.call_later(
            self.late_after, self._late_timer_fired, inter
        )

    def _late_timer_fired(self, inter: FakeInteraction) -> None:
        self._late_timers.pop(inter.id, None)
        if inter.callback_type is None and not inter.late:
            self._flag_late(inter, answered=False)

    def _flag_late(self, inter: FakeInteraction, *, answered: bool) -> None:
        inter.late = True
        waited = time.monotonic() - inter.dispatched_mono
        self.late_interactions.append(
            LateInteraction(inter.id, inter.description, waited, answered)
        )

    # ------------------------------------------------------------------ tokens

    def _interaction_for_token(self, request: web.Request) -> FakeInteraction:
        token = request.match_info["webhook_token"]
        for inter in reversed(self.interactions.values()):
            if inter.token == token:
                if str(self.application_id) != request.match_info["webhook_id"]:
                    break
                if self.token_expired(inter):
                    raise ApiError(401, 50027, "Invalid Webhook Token")
                return inter
        raise ApiError(404, 10015, "Unknown Webhook")

    def token_age(self, inter: FakeInteraction) -> float:
        """Seconds (rest_clock) since the interaction was created."""
        born = self._token_born.get(inter.id)
        if born is None:
            return time.monotonic() - inter.dispatched_mono
        return self.rest_clock() - born

    def token_expired(self, inter: FakeInteraction) -> bool:
        lifetime = self.token_lifetime
        return lifetime is not None and self.token_age(inter) >= lifetime

    # ------------------------------------------------------------------ interactions

    async def _interaction_callback(self, request: web.Request) -> web.Response:
        try:
            inter = self.interactions[int(request.match_info["interaction_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10062, "Unknown interaction") from None
        if inter.token != request.match_info["interaction_token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        if inter.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        now = time.monotonic()
        if self.enforce_deadline and now - inter.dispatched_mono > self.late_after:
            if not inter.late:
                self._flag_late(inter, answered=True)
            raise ApiError(404, 10062, "Unknown interaction")
        payload = request[PAYLOAD]
        if not isinstance(payload, dict) or "type" not in payload:
            raise ApiError(400, 50035, "Invalid Form Body")
        ctype = int(payload["type"])
        data = dict(payload.get("data") or {})
        if ctype not in ALLOWED_CALLBACKS.get(inter.type, set()) or (
            ctype in (6, 7) and inter.source_message is None
        ):
            raise ApiError.form(
                "type",
                "INTERACTION_RESPONSE_TYPE_INVALID",
                f"Interaction response type {ctype} is not valid here",
            )

        message: FakeMessage | None = None
        created = False
        if ctype == 4:
            data["_attachments"] = self._attachments_from_files(request[FILES], data)
            problem = self._check_message(data, creating=True, has_files=bool(request[FILES]))
            if problem:
                raise ApiError.from_problem(problem)
            message = self._interaction_message(inter, data, response=True)
            created = True
        elif ctype == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            message = self._interaction_message(inter, {"flags": flags}, response=True)
            message.flags = flags
            created = True
        elif ctype == 6:
            message = inter.source_message
        elif ctype == 7:
            assert inter.source_message is not None
            data["_attachments"] = self._attachments_from_files(request[FILES], data)
            problem = self._check_message(data, creating=False, has_files=bool(request[FILES]))
            if problem:
                raise ApiError.from_problem(problem)
            message = inter.source_message
            self._edit_message(message, data)
        elif ctype == 8:
            choices = list(data.get("choices") or [])
            problem = check_choices(choices)
            if problem:
                raise ApiError.from_problem(problem)
            inter.choices = choices
        elif ctype == 9:
            problem = check_modal(data, emoji_ids=self.application_emojis)
            if problem:
                raise ApiError.from_problem(problem)
            inter.modal = data

        inter.callback_type = ctype
        inter.callback_mono = now
        inter.response_message = message
        latency = now - inter.dispatched_mono
        self.answer_latencies.append(latency)
        timer = self._late_timers.pop(inter.id, None)
        if timer is not None:
            timer.cancel()
        if latency > self.late_after and not inter.late:
            self._flag_late(inter, answered=True)
        if ctype not in (5, 6):
            inter.followed_up.set()
        inter.answered.set()

        if message is not None and created and ctype == 4:
            await self._announce_create(message)
        elif message is not None and ctype == 7:
            await self._announce_update(message)

        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return no_content()
        body: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "activity_instance_id": None,
                "response_message_id": str(message.id) if message is not None else None,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(message is not None and message.ephemeral),
            }
        }
        if ctype in (4, 5, 7) and message is not None:
            body["resource"] = {"type": ctype, "message": message.to_json()}
        return json_response(body)

    def _interaction_message(
        self, inter: FakeInteraction, payload: dict[str, Any], *, response: bool
    ) -> FakeMessage:
        flags = int(payload.get("flags") or 0)
        msg = self._new_message(
            inter.channel,
            self.bot_user,
            payload,
            type=20 if (response and inter.type == 2) else 0,
            visible_to=inter.user if flags & EPHEMERAL else None,
            interaction=inter,
            webhook_id=self.application_id,
        )
        if not response:
            inter.followups.append(msg)
        return msg

    async def _webhook_execute(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        if inter.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        payload = self._message_payload(request)
        problem = self._check_message(payload, creating=True, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        original = inter.response_message
        if inter.callback_type == 5 and original is not None and original.loading:
            # Discord turns the first follow-up of a deferred response into the response itself.
            ephemeral = original.flags & EPHEMERAL
            self._edit_message(original, payload)
            original.flags |= ephemeral
            self._notify(original, payload)  # posted now, as far as anyone is told
            msg = original
            inter.followups.append(msg)
            await self._announce_create(msg)
        else:
            msg = self._interaction_message(inter, payload, response=False)
            await self._announce_create(msg)
        inter.followed_up.set()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(msg.to_json())
        return no_content()

    def _webhook_message(self, request: web.Request, inter: FakeInteraction) -> FakeMessage:
        ref = request.match_info.get("message_id", "@original")
        if ref == "@original":
            # After 6/7 this is the message the component was on, for the token's lifetime.
            msg = inter.response_message
            if msg is None or msg.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            return msg
        try:
            msg = self.messages[int(ref)]
        except (KeyError, ValueError):
            raise ApiError(404, 10008, "Unknown Message") from None
        if msg.deleted or (
            msg.webhook_id != self.application_id and msg is not inter.source_message
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    async def _webhook_get_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        return json_response(self._webhook_message(request, inter).to_json())

    async def _webhook_edit_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        msg = self._webhook_message(request, inter)
        payload = self._message_payload(request)
        problem = self._check_message(payload, creating=False, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        if not msg.loading:
            self._check_thread_active(msg.channel)
        was_loading = msg.loading
        self._edit_message(msg, payload)
        if was_loading:
            await self._announce_create(msg)
        else:
            await self._announce_update(msg)
        inter.followed_up.set()
        return json_response(msg.to_json())

    async def _webhook_delete_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        msg = self._webhook_message(request, inter)
        self._mark_deleted(msg)
        await self._announce_delete(msg)
        inter.followed_up.set()
        return no_content()
