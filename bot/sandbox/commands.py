"""Slash commands as the page's command box shows them, and the checks Discord's client makes.

:func:`command_menu` lists the commands the bot synced (guild and global), one entry per
runnable path (``"spaye start"``), with names and descriptions in the user's language and
the commands a member may not use left out, as Discord's picker does.

:func:`parse_options` turns what the page sent (strings, ids) into option values for
:meth:`bot.fakediscord.FakeDiscord.slash`, refusing what Discord's client refuses before
anything reaches the bot: an unknown or missing required option, a value that is not one of
the choices, a number out of its range, a text too short or too long, a user who is not in
the server. Refusals are :class:`CommandRefused` with a sentence for the page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bot.fakediscord.models import FakeChannel, FakeGuild, FakeRole, FakeUser

__all__ = ["CommandRefused", "command_menu", "find_leaf", "parse_options"]

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10
OPTION_KINDS = {
    STRING: "string",
    INTEGER: "integer",
    BOOLEAN: "boolean",
    USER: "user",
    CHANNEL: "channel",
    ROLE: "role",
    MENTIONABLE: "mentionable",
    NUMBER: "number",
}
MAX_SAFE_INTEGER = 2**53


class CommandRefused(ValueError):
    """What Discord's client would refuse to send, in words for the page."""


def _local(node: Mapping[str, Any], key: str, locale: str) -> str:
    names = node.get(f"{key}_localizations") or {}
    return str(names.get(locale) or names.get(locale.split("-")[0]) or node.get(key) or "")


def _option_entry(opt: Mapping[str, Any], locale: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": opt["name"],
        "label": _local(opt, "name", locale),
        "description": _local(opt, "description", locale),
        "kind": OPTION_KINDS.get(int(opt["type"]), "string"),
        "required": bool(opt.get("required")),
        "autocomplete": bool(opt.get("autocomplete")),
    }
    if opt.get("choices"):
        entry["choices"] = [
            {"name": _local(c, "name", locale), "value": c["value"]} for c in opt["choices"]
        ]
    for key in ("min_value", "max_value", "min_length", "max_length", "channel_types"):
        if opt.get(key) is not None:
            entry[key] = opt[key]
    return entry


def command_menu(
    commands: list[dict[str, Any]], locale: str, allowed: Any = None
) -> list[dict[str, Any]]:
    """One entry per runnable path of the chat-input commands, sorted by label.

    ``allowed(schema) -> bool`` filters the top-level commands (permissions, contexts).
    """
    out: list[dict[str, Any]] = []
    for cmd in commands:
        if int(cmd.get("type", 1)) != 1 or (allowed is not None and not allowed(cmd)):
            continue
        stack: list[tuple[list[str], list[str], Mapping[str, Any]]] = [
            ([cmd["name"]], [_local(cmd, "name", locale)], cmd)
        ]
        while stack:
            path, labels, node = stack.pop()
            subs = [
                o
                for o in node.get("options") or []
                if int(o["type"]) in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ]
            if subs:
                for sub in subs:
                    stack.append(
                        ([*path, sub["name"]], [*labels, _local(sub, "name", locale)], sub)
                    )
                continue
            out.append(
                {
                    "path": " ".join(path),
                    "label": " ".join(labels),
                    "description": _local(node, "description", locale),
                    "options": [_option_entry(o, locale) for o in node.get("options") or []],
                }
            )
    return sorted(out, key=lambda e: e["label"])


def find_leaf(schema: Mapping[str, Any], path: str) -> Mapping[str, Any]:
    """The subcommand node of ``path`` ("group sub") inside a command's schema."""
    node = schema
    for part in path.split()[1:]:
        node = next(
            (
                o
                for o in node.get("options") or []
                if o["name"] == part and int(o["type"]) in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ),
            {},
        )
        if not node:
            raise CommandRefused(f"/{path} is not a command of this bot")
    if any(int(o["type"]) in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in node.get("options") or []):
        raise CommandRefused(f"/{path} needs a subcommand")
    return node


def _number(text: str, name: str, integer: bool) -> int | float:
    try:
        value: int | float = int(text) if integer else float(text)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise CommandRefused(f"{name}: {text!r} is not {kind}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise CommandRefused(f"{name}: {text!r} is not a number")
    if abs(value) > MAX_SAFE_INTEGER:
        raise CommandRefused(f"{name}: {text!r} is too large")
    return value


def _one(
    opt: Mapping[str, Any], raw: Any, guild: FakeGuild | None, users: Mapping[int, FakeUser]
) -> Any:
    name = opt["name"]
    otype = int(opt["type"])
    text = str(raw).strip() if not isinstance(raw, bool) else raw
    if otype in (INTEGER, NUMBER):
        value: Any = _number(str(text), name, otype == INTEGER)
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if lo is not None and value < lo:
            raise CommandRefused(f"{name}: the value must be greater than or equal to {lo}")
        if hi is not None and value > hi:
            raise CommandRefused(f"{name}: the value must be less than or equal to {hi}")
    elif otype == STRING:
        value = str(raw)
        lo, hi = opt.get("min_length"), opt.get("max_length", 6000)
        if lo is not None and len(value) < lo:
            raise CommandRefused(f"{name}: must be at least {lo} characters long")
        if hi is not None and len(value) > hi:
            raise CommandRefused(f"{name}: must be at most {hi} characters long")
    elif otype == BOOLEAN:
        if text in (True, "true", "True", "1"):
            value = True
        elif text in (False, "false", "False", "0"):
            value = False
        else:
            raise CommandRefused(f"{name}: choose True or False")
    elif otype in (USER, MENTIONABLE, ROLE, CHANNEL):
        value = _entity(otype, name, str(text), guild, users, opt)
    else:
        raise CommandRefused(f"{name}: this kind of option is not supported here")
    choices = opt.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise CommandRefused(f"{name}: pick one of the choices")
    return value


def _entity(
    otype: int,
    name: str,
    text: str,
    guild: FakeGuild | None,
    users: Mapping[int, FakeUser],
    opt: Mapping[str, Any],
) -> FakeUser | FakeRole | FakeChannel:
    try:
        ident = int(text)
    except ValueError:
        raise CommandRefused(f"{name}: pick from the list") from None
    if otype in (USER, MENTIONABLE):
        user = users.get(ident)
        if user is not None and (guild is None or ident in guild.members):
            return user
    if otype in (ROLE, MENTIONABLE) and guild is not None:
        role = next((r for r in guild.roles if r.id == ident), None)
        if role is not None:
            return role
    if otype == CHANNEL and guild is not None:
        channel = next((c for c in guild.channels if c.id == ident), None)
        types = opt.get("channel_types")
        if channel is not None and (not types or channel.type in types):
            return channel
    what = {USER: "member", ROLE: "role", CHANNEL: "channel", MENTIONABLE: "member or role"}
    raise CommandRefused(f"{name}: no such {what[otype]} in this server")


def parse_options(
    leaf: Mapping[str, Any],
    path: str,
    raw: Mapping[str, Any],
    guild: FakeGuild | None,
    users: Mapping[int, FakeUser],
    *,
    partial: bool = False,
) -> dict[str, Any]:
    """Option values for ``fake.slash`` from the page's strings (see the module docstring).

    ``partial``: the options typed so far while another one is being autocompleted (a
    required option may still be missing).
    """
    schema = {o["name"]: o for o in leaf.get("options") or []}
    given = {k: v for k, v in raw.items() if v is not None and v != ""}
    unknown = sorted(set(given) - set(schema))
    if unknown:
        raise CommandRefused(f"/{path} has no option {unknown[0]}")
    missing = [n for n, o in schema.items() if o.get("required") and n not in given]
    if missing and not partial:
        raise CommandRefused(f"/{path}: the option {missing[0]} is required")
    return {name: _one(schema[name], value, guild, users) for name, value in given.items()}
