"""The application of the fake Discord: its users and application routes, its application
commands (global and per guild) and its own emojis (with the CDN serving their pictures)."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import PAYLOAD, ApiError, json_response, no_content
from .models import FakeChannel, FakeEmoji, FakeGuild, FakeUser, SnowflakeFactory
from .validation import (
    check_application_emoji,
    check_command,
    check_message,
    decode_emoji_image,
)


class ApplicationMixin:
    """Users, the application, its commands and emojis of :class:`~.server.FakeDiscordServer`."""

    snowflake: SnowflakeFactory
    application_id: int
    application_flags: int
    bot_user: FakeUser
    users: dict[int, FakeUser]
    global_commands: dict[tuple[str, int], dict[str, Any]]
    guild_commands: dict[int, dict[tuple[str, int], dict[str, Any]]]
    application_emojis: dict[int, FakeEmoji]

    if TYPE_CHECKING:

        @property
        def base_url(self) -> str: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

        def _guild(self, request: web.Request) -> FakeGuild: ...

        def get_dm_channel(self, user: FakeUser) -> FakeChannel: ...

    # ------------------------------------------------------------------ users, application

    async def _get_me(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(
            self.bot_user.to_json() | {"verified": True, "mfa_enabled": False, "flags": 0}
        )

    async def _get_user(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        try:
            user = self.users[int(request.match_info["user_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10013, "Unknown User") from None
        return json_response(user.to_json())

    async def _get_application(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        owner = next((u for u in self.users.values() if not u.bot), self.bot_user)
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner.to_json(),
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "team": None,
                "bot": self.bot_user.to_json(),
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "integration_types_config": {"0": {}},
            }
        )

    async def _create_dm(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        payload = request[PAYLOAD] or {}
        try:
            user = self.users[int(payload["recipient_id"])]
        except (KeyError, ValueError, TypeError):
            raise ApiError(400, 50033, "Invalid Recipient(s)") from None
        return json_response(self.get_dm_channel(user).to_json(bot=self.bot_user))

    # ------------------------------------------------------------------ application commands

    def _command_store(
        self, request: web.Request
    ) -> tuple[dict[tuple[str, int], dict[str, Any]], int | None]:
        self._require_bot_auth(request)
        if request.match_info["application_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in request.match_info:
            guild = self._guild(request)
            return self.guild_commands.setdefault(guild.id, {}), guild.id
        return self.global_commands, None

    def _store_command(
        self,
        store: dict[tuple[str, int], dict[str, Any]],
        guild_id: int | None,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        problem = check_command(body)
        if problem:
            raise ApiError.from_problem(problem)
        key = (body["name"], int(body.get("type", 1)))
        old = store.get(key)
        cmd = {
            "id": old["id"] if old else str(self.snowflake()),
            "application_id": str(self.application_id),
            "version": str(self.snowflake()),
            "type": key[1],
            "name": body["name"],
            "description": body.get("description", ""),
            "options": body.get("options", []),
            "default_member_permissions": body.get("default_member_permissions"),
            "dm_permission": body.get("dm_permission", True),
            "nsfw": body.get("nsfw", False),
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types", [0]),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        store[key] = cmd
        return cmd

    async def _get_commands(self, request: web.Request) -> web.Response:
        store, _ = self._command_store(request)
        return json_response(list(store.values()))

    async def _put_commands(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        body = request[PAYLOAD]
        if not isinstance(body, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        errors: dict[str, Any] = {}
        for i, item in enumerate(body):
            problem = check_command(item)
            if problem:
                errors[str(i)] = problem[1]["errors"]
        if sum(1 for item in body if int(item.get("type", 1)) == 1) > 100:
            errors["_errors"] = [
                {"code": "APPLICATION_COMMANDS_TOO_MANY", "message": "Max 100 chat input commands"}
            ]
        if errors:
            raise ApiError(400, 50035, "Invalid Form Body", errors)
        old = dict(store)
        store.clear()
        out = []
        for item in body:
            key = (item.get("name"), int(item.get("type", 1)))
            if key in old:
                store[key] = old[key]
            out.append(self._store_command(store, guild_id, item))
        return json_response(out)

    async def _post_command(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        return json_response(self._store_command(store, guild_id, request[PAYLOAD]), 201)

    def _find_command(
        self, request: web.Request
    ) -> tuple[dict[tuple[str, int], dict[str, Any]], tuple[str, int]]:
        store, _ = self._command_store(request)
        for key, cmd in store.items():
            if cmd["id"] == request.match_info["command_id"]:
                return store, key
        raise ApiError(404, 10063, "Unknown application command")

    async def _get_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        return json_response(store[key])

    async def _patch_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        merged = store[key] | dict(request[PAYLOAD] or {})
        del store[key]
        return json_response(
            self._store_command(store, merged.get("guild_id") and int(merged["guild_id"]), merged)
        )

    async def _delete_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        del store[key]
        return no_content()

    # ------------------------------------------------------------------ application emojis

    def _check_message(
        self, payload: dict[str, Any], *, creating: bool, has_files: bool
    ) -> tuple[int, dict[str, Any]] | None:
        """check_message, with the custom emojis a component may show: the application's
        own (the fake's guilds have no emojis)."""
        return check_message(
            payload, creating=creating, has_files=has_files, emoji_ids=self.application_emojis
        )

    def emoji_url(self, emoji: FakeEmoji | int) -> str:
        """Where the fake serves an emoji's picture, as Discord's CDN does."""
        found = emoji if isinstance(emoji, FakeEmoji) else self.application_emojis[emoji]
        return f"{self.base_url}/emojis/{found.id}.{found.format.replace('jpeg', 'jpg')}"

    def emoji_named(self, name: str) -> FakeEmoji | None:
        """The application's emoji of that name, if it owns one."""
        return next((e for e in self.application_emojis.values() if e.name == name), None)

    def application_emojis_json(self) -> list[dict[str, Any]]:
        """The application's emojis with their pictures (base64), to keep them across runs."""
        return [
            {
                "id": str(e.id),
                "name": e.name,
                "format": e.format,
                "animated": e.animated,
                "data": base64.b64encode(e.data).decode("ascii"),
            }
            for e in self.application_emojis.values()
        ]

    def load_application_emojis(self, items: list[dict[str, Any]]) -> None:
        """Restore what :meth:`application_emojis_json` kept (uploaded by the bot user)."""
        for item in items:
            emoji = FakeEmoji(
                id=int(item["id"]),
                name=str(item["name"]),
                data=base64.b64decode(item["data"]),
                format=str(item.get("format") or "png"),
                user=self.bot_user,
                animated=bool(item.get("animated")),
            )
            self.application_emojis[emoji.id] = emoji
        if self.application_emojis:
            self.snowflake._last = max(self.snowflake._last, *self.application_emojis)

    def _application(self, request: web.Request) -> None:
        self._require_bot_auth(request)
        if request.match_info["application_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")

    def _application_emoji(self, request: web.Request) -> FakeEmoji:
        self._application(request)
        try:
            return self.application_emojis[int(request.match_info["emoji_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10014, "Unknown Emoji") from None

    async def _list_application_emojis(self, request: web.Request) -> web.Response:
        self._application(request)
        return json_response({"items": [e.to_json() for e in self.application_emojis.values()]})

    async def _create_application_emoji(self, request: web.Request) -> web.Response:
        self._application(request)
        body = request[PAYLOAD]
        problem = check_application_emoji(
            body,
            taken={e.name for e in self.application_emojis.values()},
            count=len(self.application_emojis),
            creating=True,
        )
        if problem:
            raise ApiError.from_problem(problem)
        fmt, data = decode_emoji_image(body["image"])
        assert isinstance(data, bytes)
        emoji = FakeEmoji(
            id=self.snowflake(),
            name=body["name"],
            data=data,
            format=fmt,
            user=self.bot_user,
            animated=fmt == "gif",
        )
        self.application_emojis[emoji.id] = emoji
        return json_response(emoji.to_json(), 201)

    async def _get_application_emoji(self, request: web.Request) -> web.Response:
        return json_response(self._application_emoji(request).to_json())

    async def _edit_application_emoji(self, request: web.Request) -> web.Response:
        emoji = self._application_emoji(request)
        body = request[PAYLOAD]
        problem = check_application_emoji(
            body,
            taken={e.name for e in self.application_emojis.values() if e is not emoji},
            count=len(self.application_emojis),
            creating=False,
        )
        if problem:
            raise ApiError.from_problem(problem)
        if "name" in body:
            emoji.name = body["name"]
        return json_response(emoji.to_json())

    async def _delete_application_emoji(self, request: web.Request) -> web.Response:
        emoji = self._application_emoji(request)
        del self.application_emojis[emoji.id]
        return no_content()

    async def _get_emoji_image(self, request: web.Request) -> web.Response:
        """The CDN: ``/emojis/{id}.png`` (any extension gives the uploaded picture)."""
        try:
            emoji = self.application_emojis[int(request.match_info["emoji_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 0, "404: Not Found") from None
        return web.Response(
            body=emoji.data,
            content_type=emoji.content_type,
            headers={"Cache-Control": "public, max-age=31536000"},
        )
