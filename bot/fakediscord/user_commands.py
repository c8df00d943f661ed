"""Users running application commands in the test driver: slash commands (with their
options checked against what the bot registered), autocomplete and context menus."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .models import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    SnowflakeFactory,
)
from .result import InteractionResult

# Application command option types.
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10


class UserCommandsMixin:
    """Application commands run by users, for :class:`~.driver.FakeDiscord`."""

    snowflake: SnowflakeFactory
    global_commands: dict[tuple[str, int], dict[str, Any]]
    guild_commands: dict[int, dict[tuple[str, int], dict[str, Any]]]

    if TYPE_CHECKING:

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
        ) -> FakeInteraction: ...

        async def _run(
            self, inter: FakeInteraction, *, timeout: float, settle: float
        ) -> InteractionResult: ...

    def _find_command_schema(self, guild: FakeGuild | None, name: str) -> dict[str, Any] | None:
        if guild is not None:
            cmd = self.guild_commands.get(guild.id, {}).get((name, 1))
            if cmd is not None:
                return cmd
        return self.global_commands.get((name, 1))

    def _resolve_option(
        self,
        guild: FakeGuild | None,
        name: str,
        value: Any,
        schema: dict[str, Any] | None,
        resolved: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        otype = schema.get("type") if schema else None
        if otype is None:
            if isinstance(value, FakeUser | FakeMember):
                otype = USER
            elif isinstance(value, FakeChannel):
                otype = CHANNEL
            elif isinstance(value, FakeRole):
                otype = ROLE
            elif isinstance(value, bool):
                otype = BOOLEAN
            elif isinstance(value, int):
                otype = INTEGER
            elif isinstance(value, float):
                otype = NUMBER
            else:
                otype = STRING
        if schema and schema.get("choices"):
            allowed = [c["value"] for c in schema["choices"]]
            if value not in allowed:
                raise ValueError(f"option {name!r}: {value!r} is not one of the choices {allowed}")
        if otype in (USER, MENTIONABLE) and isinstance(value, FakeUser | FakeMember):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.to_json()
            if guild is not None and user.id in guild.members:
                member = guild.members[user.id]
                resolved.setdefault("members", {})[str(user.id)] = member.to_json(
                    with_user=False, with_permissions=True
                )
            return {"name": name, "type": otype, "value": str(user.id)}
        if otype in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_json()
            return {"name": name, "type": otype, "value": str(value.id)}
        if otype == CHANNEL and isinstance(value, FakeChannel):
            data = value.to_json() | {"permissions": str(1 << 11 | 1 << 10)}
            resolved.setdefault("channels", {})[str(value.id)] = data
            return {"name": name, "type": otype, "value": str(value.id)}
        if otype in (USER, ROLE, CHANNEL, MENTIONABLE):
            raise TypeError(f"option {name!r} needs a FakeUser/FakeRole/FakeChannel, got {value!r}")
        if otype == INTEGER and not isinstance(value, int):
            raise TypeError(f"option {name!r} is an integer option, got {value!r}")
        if otype == NUMBER:
            value = float(value)
        if otype == STRING:
            value = str(value)
        return {"name": name, "type": otype, "value": value}

    def _check_command_allowed(
        self, schema: dict[str, Any] | None, user: FakeUser, channel: FakeChannel
    ) -> None:
        """What Discord's client enforces before a user can even run a command."""
        if schema is None:
            return
        name = schema["name"]
        contexts = schema.get("contexts")
        if channel.guild is None:
            if contexts is not None and 1 not in contexts:
                raise PermissionError(f"/{name} cannot be used in DMs (contexts={contexts})")
            if contexts is None and schema.get("dm_permission") is False:
                raise PermissionError(f"/{name} cannot be used in DMs")
            if schema.get("guild_id"):
                raise PermissionError(f"/{name} is a guild command")
            return
        if contexts is not None and 0 not in contexts:
            raise PermissionError(f"/{name} cannot be used in guilds (contexts={contexts})")
        if schema.get("guild_id") and int(schema["guild_id"]) != channel.guild.id:
            raise PermissionError(f"/{name} is registered for another guild")
        needed = schema.get("default_member_permissions")
        member = channel.guild.members.get(user.id)
        if needed is not None and member is not None:
            needed_bits = int(needed)
            if member.permissions & needed_bits != needed_bits:
                raise PermissionError(
                    f"{user.name} lacks the permissions {needed_bits} that /{name} requires"
                )

    def _command_data(
        self,
        guild: FakeGuild | None,
        command: str,
        options: dict[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        parts = command.strip().lstrip("/").split()
        if not parts or len(parts) > 3:
            raise ValueError(f"bad command path {command!r}")
        schema = self._find_command_schema(guild, parts[0])
        data: dict[str, Any] = {
            "id": schema["id"] if schema else str(self._stable_command_id(parts[0])),
            "name": parts[0],
            "type": 1,
        }
        if schema and schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        resolved: dict[str, dict[str, Any]] = {}
        # Walk subcommand groups / subcommands in the schema, if known.
        node_opts: list[dict[str, Any]] | None = schema.get("options", []) if schema else None
        containers: list[dict[str, Any]] = []
        for depth, part in enumerate(parts[1:]):
            sub_schema = None
            if node_opts is not None:
                sub_schema = next((o for o in node_opts if o.get("name") == part), None)
                if sub_schema is None:
                    raise ValueError(f"/{' '.join(parts[: depth + 1])} has no subcommand {part!r}")
            kind = (
                sub_schema["type"]
                if sub_schema
                else (SUB_COMMAND_GROUP if depth == 0 and len(parts) == 3 else SUB_COMMAND)
            )
            containers.append({"name": part, "type": kind, "options": []})
            node_opts = sub_schema.get("options", []) if sub_schema else None
        leaf: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in node_opts or []}
        for name, value in options.items():
            if node_opts is not None and name not in by_name:
                raise ValueError(f"/{command} has no option {name!r} (has {sorted(by_name)})")
            if name == focused:
                opt_type = by_name[name]["type"] if name in by_name else STRING
                leaf.append({"name": name, "type": opt_type, "value": value, "focused": True})
                continue
            leaf.append(self._resolve_option(guild, name, value, by_name.get(name), resolved))
        for o in node_opts or []:
            if (
                focused is None
                and o.get("required")
                and o["name"] not in options
                and o.get("type") not in (1, 2)
            ):
                raise ValueError(f"/{command}: required option {o['name']!r} missing")
        if containers:
            containers[-1]["options"] = leaf
            for outer, inner in zip(
                reversed(containers[:-1]), reversed(containers[1:]), strict=True
            ):
                outer["options"] = [inner]
            data["options"] = [containers[0]]
        else:
            data["options"] = leaf
        if resolved:
            data["resolved"] = resolved
        return data

    def _stable_command_id(self, name: str) -> int:
        ids: dict[str, int] = self.__dict__.setdefault("_unsynced_command_ids", {})
        if name not in ids:
            ids[name] = self.snowflake()
        return ids[name]

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Run "/command" (or "group sub" / "group subgroup sub") as user in channel.

        Option values: str, int, float, bool, FakeUser/FakeMember, FakeChannel,
        FakeRole. If the bot synced its commands, option names, types, choices
        and required options are checked against what it registered.
        """
        name = command.strip().lstrip("/").split()[0]
        self._check_command_allowed(self._find_command_schema(channel.guild, name), user, channel)
        data = self._command_data(channel.guild, command, options or {})
        inter = self._new_interaction(
            2, user, channel, data, f"/{command} by {user.name}", command_name=name
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        focused: str,
        *,
        timeout: float = 5.0,
    ) -> list[dict[str, Any]]:
        """Type into option `focused` of /command; returns the choices the bot
        offered ([{"name": ..., "value": ...}]), or raises if it did not answer."""
        if focused not in options:
            raise ValueError(f"options must contain the focused option {focused!r}")
        name = command.strip().lstrip("/").split()[0]
        self._check_command_allowed(self._find_command_schema(channel.guild, name), user, channel)
        data = self._command_data(channel.guild, command, options, focused=focused)
        inter = self._new_interaction(
            4, user, channel, data, f"autocomplete /{command} {focused} by {user.name}"
        )
        inter.command_name = name
        await self._run(inter, timeout=timeout, settle=0.0)
        if inter.choices is None:
            raise TimeoutError(f"the bot did not answer {inter.description} within {timeout}s")
        return [dict(c) for c in inter.choices]

    async def context_menu(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        target: FakeUser | FakeMember | FakeMessage,
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Run a user (target FakeUser/FakeMember) or message (target FakeMessage)
        context menu command."""
        guild = channel.guild
        resolved: dict[str, dict[str, Any]] = {}
        if isinstance(target, FakeMessage):
            ctype = 3
            resolved["messages"] = {str(target.id): target.to_json()}
        else:
            ctype = 2
            self._resolve_option(guild, "target", target, None, resolved)
        key = (name, ctype)
        schema = (self.guild_commands.get(guild.id, {}) if guild else {}).get(key) or (
            self.global_commands.get(key)
        )
        self._check_command_allowed(schema, user, channel)
        data: dict[str, Any] = {
            "id": schema["id"] if schema else str(self._stable_command_id(f"{ctype}:{name}")),
            "name": name,
            "type": ctype,
            "target_id": str(target.id),
            "resolved": resolved,
        }
        if schema and schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        inter = self._new_interaction(
            2, user, channel, data, f"context menu {name!r} by {user.name}", command_name=name
        )
        return await self._run(inter, timeout=timeout, settle=settle)
