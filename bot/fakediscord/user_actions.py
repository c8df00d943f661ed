"""Users acting in the test driver: how an interaction is dispatched to the bot and
awaited, and users clicking buttons, picking in selects, submitting modals and writing
messages."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .models import (
    MANAGE_THREADS,
    PRIVATE_THREAD,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    SnowflakeFactory,
    walk_components,
)
from .result import InteractionResult

if TYPE_CHECKING:
    from .driver import FakeDiscord
    from .gateway import GatewaySession

SELECT_TYPES = {3, 5, 6, 7, 8}


class UserActionsMixin:
    """Interactions and messages sent by users, for :class:`~.driver.FakeDiscord`."""

    snowflake: SnowflakeFactory
    application_id: int
    bot_user: FakeUser
    messages: dict[int, FakeMessage]
    interactions: dict[int, FakeInteraction]
    _last_activity: float

    if TYPE_CHECKING:

        def sessions_for(self, guild: FakeGuild | int | None) -> list[GatewaySession]: ...

        def _no_session(self, guild: FakeGuild | None) -> str: ...

        def _schedule_late_check(self, inter: FakeInteraction) -> None: ...

        def _new_message(
            self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
        ) -> FakeMessage: ...

        async def _announce_create(self, msg: FakeMessage) -> None: ...

        async def sweep_threads(self) -> list[FakeChannel]: ...

        async def set_archived(
            self, thread: FakeChannel, archived: bool, *, locked: bool | None = None
        ) -> None: ...

        def _resolve_option(
            self,
            guild: FakeGuild | None,
            name: str,
            value: Any,
            schema: dict[str, Any] | None,
            resolved: dict[str, dict[str, Any]],
        ) -> dict[str, Any]: ...

    # ------------------------------------------------------------------ interactions

    def _base_payload(self, inter: FakeInteraction) -> dict[str, Any]:
        channel, guild, user = inter.channel, inter.guild, inter.user
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "data": inter.data,
            "channel_id": str(channel.id),
            "token": inter.token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise ValueError(
                    f"{user!r} is not a member of {guild!r}; use fake.add_member first"
                )
            bot_member = guild.members[self.bot_user.id]
            # Discord gives the permissions in the channel (or thread) the interaction is in.
            in_channel = member.permissions_in(channel)
            payload.update(
                {
                    "guild_id": str(guild.id),
                    "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                    "guild_locale": guild.locale,
                    "member": member.to_json(with_permissions=True)
                    | {"permissions": str(in_channel)},
                    "app_permissions": str(bot_member.permissions_in(channel)),
                    "context": 0,
                    "channel": channel.to_json() | {"permissions": str(in_channel)},
                }
            )
        else:
            payload.update(
                {
                    "user": user.to_json(),
                    "app_permissions": str(1 << 11 | 1 << 14 | 1 << 15 | 1 << 16),
                    "context": 1,
                    "channel": channel.to_json(bot=self.bot_user) | {"permissions": "0"},
                }
            )
        if inter.source_message is not None:
            payload["message"] = inter.source_message.to_json()
        return payload

    async def _run(
        self,
        inter: FakeInteraction,
        *,
        timeout: float,
        settle: float,
    ) -> InteractionResult:
        sessions = self.sessions_for(inter.guild)  # its guild's shard; DMs: shard 0
        if not sessions:
            raise RuntimeError(self._no_session(inter.guild))
        await self.sweep_threads()
        if inter.channel.is_thread:
            await self._user_enters_thread(inter.user, inter.channel, "use it")
        payload = self._base_payload(inter)
        self.interactions[inter.id] = inter
        result = InteractionResult(cast("FakeDiscord", self), inter)
        inter.dispatched_mono = time.monotonic()
        self._schedule_late_check(inter)
        for session in sessions:
            await session.dispatch("INTERACTION_CREATE", payload)
        deadline = inter.dispatched_mono + timeout
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inter.answered.wait(), max(0.0, deadline - time.monotonic()))
        if inter.callback_type == 5:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    inter.followed_up.wait(), max(0.0, deadline - time.monotonic())
                )
        if inter.callback_type is not None:
            await self._settle(settle, deadline)
        result.settled_mono = time.monotonic()
        return result

    async def _settle(self, settle: float, deadline: float) -> None:
        """Wait until the fake saw no REST call for `settle` seconds (bounded)."""
        while True:
            now = time.monotonic()
            idle = now - self._last_activity
            if idle >= settle or now >= deadline:
                return
            await asyncio.sleep(min(settle - idle, deadline - now))

    def _new_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        description: str,
        *,
        source: FakeMessage | None = None,
        command_name: str | None = None,
    ) -> FakeInteraction:
        if channel.is_dm and channel.recipient is not user:
            raise ValueError(f"{user!r} cannot use {channel!r}")
        return FakeInteraction(
            id=self.snowflake(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            type=itype,
            user=user,
            channel=channel,
            guild=channel.guild,
            data=data,
            description=description,
            source_message=source,
            command_name=command_name,
        )

    # -- components

    def _as_message(self, message: FakeMessage | InteractionResult | int) -> FakeMessage:
        if isinstance(message, InteractionResult):
            if message.response is None:
                raise ValueError(f"{message!r} has no response message")
            return message.response
        if isinstance(message, int):
            return self.messages[message]
        return message

    def _find_component(
        self, msg: FakeMessage, *, types: set[int], custom_id: str | None, label: str | None
    ) -> dict[str, Any]:
        for comp in walk_components(msg.components):
            if comp.get("type") not in types:
                continue
            if custom_id is not None and comp.get("custom_id") == custom_id:
                return comp
            if custom_id is None and label is not None and comp.get("label") == label:
                return comp
        have = [
            (c.get("label"), c.get("custom_id"))
            for c in walk_components(msg.components)
            if c.get("type") in types
        ]
        raise LookupError(
            f"no component custom_id={custom_id!r} label={label!r} in {msg!r}; it has {have}"
        )

    def _check_can_see(self, user: FakeUser, msg: FakeMessage) -> None:
        if msg.deleted:
            raise LookupError(f"{msg!r} was deleted")
        if msg.visible_to is not None and msg.visible_to is not user:
            raise PermissionError(f"{user!r} cannot see the ephemeral {msg!r}")

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | InteractionResult | int,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Click a button of message (by custom_id, or by label)."""
        msg = self._as_message(message)
        self._check_can_see(user, msg)
        comp = self._find_component(msg, types={2}, custom_id=custom_id, label=label)
        if comp.get("disabled"):
            raise PermissionError(
                f"button {comp.get('label')!r} ({comp.get('custom_id')}) is disabled"
            )
        if not comp.get("custom_id"):
            raise ValueError("link buttons do not send interactions")
        data = {"custom_id": comp["custom_id"], "component_type": 2}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        inter = self._new_interaction(
            3,
            user,
            msg.channel,
            data,
            f"button {comp.get('label')!r} ({comp['custom_id']}) by {user.name}",
            source=msg,
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage | InteractionResult | int,
        custom_id: str,
        values: Sequence[Any],
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Pick values in a select menu (strings, or FakeUser/FakeRole/FakeChannel for entity selects)."""
        msg = self._as_message(message)
        self._check_can_see(user, msg)
        comp = self._find_component(msg, types=SELECT_TYPES, custom_id=custom_id, label=None)
        if comp.get("disabled"):
            raise PermissionError(f"select {custom_id!r} is disabled")
        data, _ = self._select_data(msg.channel.guild, comp, values)
        inter = self._new_interaction(
            3, user, msg.channel, data, f"select {custom_id!r} by {user.name}", source=msg
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    def _select_data(
        self, guild: FakeGuild | None, comp: dict[str, Any], values: Sequence[Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        ctype = comp["type"]
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ValueError(
                f"select {comp.get('custom_id')!r} takes {lo}..{hi} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": ctype}
        resolved: dict[str, dict[str, Any]] = {}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options", [])]
            for v in values:
                if v not in allowed:
                    raise ValueError(
                        f"select {comp['custom_id']!r} has no option {v!r} (has {allowed})"
                    )
            data["values"] = list(values)
        else:
            out = []
            for v in values:
                opt = self._resolve_option(guild, "_", v, None, resolved)
                out.append(opt["value"])
            data["values"] = out
            data["resolved"] = resolved
        return data, resolved

    # -- modals

    def modals_shown(self, user: FakeUser) -> list[FakeInteraction]:
        return [i for i in self.interactions.values() if i.user is user and i.modal is not None]

    async def submit_modal(
        self,
        user: FakeUser,
        custom_id: str | None,
        values: dict[str, Any],
        *,
        from_interaction: InteractionResult | None = None,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Submit a modal the bot showed to user: values maps each field's
        custom_id to its text (or a list of values for a select in a label)."""
        if from_interaction is not None:
            origin = from_interaction.interaction
            if origin.modal is None:
                raise ValueError(f"{from_interaction!r} did not answer with a modal")
        else:
            shown = [
                i
                for i in self.modals_shown(user)
                if custom_id is None or (i.modal or {}).get("custom_id") == custom_id
            ]
            if not shown:
                raise LookupError(f"no modal {custom_id!r} was shown to {user!r}")
            origin = shown[-1]
        modal = origin.modal
        assert modal is not None
        if custom_id is not None and modal["custom_id"] != custom_id:
            raise ValueError(f"modal shown has custom_id {modal['custom_id']!r}, not {custom_id!r}")
        remaining = dict(values)
        components = [self._modal_component(c, remaining) for c in modal.get("components", [])]
        if remaining:
            raise LookupError(f"modal {modal['custom_id']!r} has no fields {sorted(remaining)}")
        data = {
            "custom_id": modal["custom_id"],
            "components": [c for c in components if c is not None],
        }
        inter = self._new_interaction(
            5,
            user,
            origin.channel,
            data,
            f"modal {modal['custom_id']!r} by {user.name}",
            source=origin.source_message,
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    def _modal_component(
        self, comp: dict[str, Any], values: dict[str, Any]
    ) -> dict[str, Any] | None:
        ctype = comp.get("type")
        if ctype == 1:
            return {
                "type": 1,
                "id": comp.get("id", 0),
                "components": [
                    c
                    for c in (self._modal_component(x, values) for x in comp.get("components", []))
                    if c
                ],
            }
        if ctype == 18:
            inner = self._modal_component(comp["component"], values)
            return {"type": 18, "id": comp.get("id", 0), "component": inner}
        if ctype == 4:
            cid = comp["custom_id"]
            value = str(values.pop(cid, comp.get("value") or ""))
            if comp.get("required", True) and not value:
                raise ValueError(f"modal field {cid!r} is required")
            lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
            if value and not lo <= len(value) <= hi:
                raise ValueError(f"modal field {cid!r} must be {lo}..{hi} characters")
            return {"type": 4, "id": comp.get("id", 0), "custom_id": cid, "value": value}
        if ctype in SELECT_TYPES:
            cid = comp["custom_id"]
            picked = values.pop(cid, [])
            data, _ = self._select_data(
                None, comp | {"min_values": comp.get("min_values", 0)}, picked
            )
            return {
                "type": ctype,
                "id": comp.get("id", 0),
                "custom_id": cid,
                "values": data["values"],
            }
        return None

    # -- users writing in channels

    async def _user_enters_thread(self, user: FakeUser, thread: FakeChannel, doing: str) -> None:
        """What Discord's client does before a user acts in a thread: nothing in a deleted
        one (LookupError) nor, without MANAGE_THREADS, in a locked one (PermissionError);
        an archived one it unarchives first (PATCH archived=false as the user: THREAD_UPDATE)."""
        if thread.deleted:
            raise LookupError(f"{thread!r} was deleted")
        guild = thread.guild
        assert guild is not None
        member = guild.members.get(user.id)
        perms = 0 if member is None else member.permissions_in(thread)
        if not perms & VIEW_CHANNEL or (
            thread.type == PRIVATE_THREAD
            and user.id not in thread.members
            and not perms & MANAGE_THREADS
        ):
            raise PermissionError(f"{user!r} cannot see {thread!r}")
        if thread.locked and not perms & MANAGE_THREADS:
            raise PermissionError(f"{thread!r} is locked: {user!r} cannot {doing}")
        if thread.archived:
            await self.set_archived(thread, False)

    async def post_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A user writes a message (dispatched as MESSAGE_CREATE to the bot). In a thread
        they need SEND_MESSAGES_IN_THREADS; an archived thread is unarchived first, and the
        author and the members they mention join it."""
        if channel.is_thread:
            await self.sweep_threads()
            await self._user_enters_thread(user, channel, "write in it")
            assert channel.guild is not None
            member = channel.guild.members.get(user.id)
            if member is None or not member.permissions_in(channel) & SEND_MESSAGES_IN_THREADS:
                raise PermissionError(f"{user!r} may not send messages in threads")
        msg = self._new_message(channel, user, {"content": content})
        await self._announce_create(msg)
        return msg
