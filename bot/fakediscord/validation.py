"""Checks of message and modal payloads against Discord's documented limits.

The fake answers a payload that breaks one of these with HTTP 400, the way
Discord does, so a bot bug that Discord would reject fails in tests too.
"""

from __future__ import annotations

from typing import Any

from .models import IS_COMPONENTS_V2, walk_components

# (code, message) of Discord's errors used by the fake.
EMPTY_MESSAGE = (50006, "Cannot send an empty message")
INVALID_FORM_BODY = (50035, "Invalid Form Body")


class FormErrors:
    """Collects errors in Discord's nested `errors` shape."""

    def __init__(self) -> None:
        self.errors: dict[str, Any] = {}

    def add(self, path: str, code: str, message: str) -> None:
        node = self.errors
        for part in path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def __bool__(self) -> bool:
        return bool(self.errors)


def _max_len(errs: FormErrors, path: str, value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        errs.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _check_embeds(errs: FormErrors, embeds: list[dict[str, Any]]) -> None:
    if len(embeds) > 10:
        errs.add("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, embed in enumerate(embeds):
        base = f"embeds.{i}"
        _max_len(errs, f"{base}.title", embed.get("title"), 256)
        _max_len(errs, f"{base}.description", embed.get("description"), 4096)
        _max_len(errs, f"{base}.footer.text", (embed.get("footer") or {}).get("text"), 2048)
        _max_len(errs, f"{base}.author.name", (embed.get("author") or {}).get("name"), 256)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errs.add(f"{base}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, fld in enumerate(fields):
            name, value = fld.get("name"), fld.get("value")
            if not name:
                errs.add(f"{base}.fields.{j}.name", "BASE_TYPE_REQUIRED", "This field is required")
            if not value:
                errs.add(f"{base}.fields.{j}.value", "BASE_TYPE_REQUIRED", "This field is required")
            _max_len(errs, f"{base}.fields.{j}.name", name, 256)
            _max_len(errs, f"{base}.fields.{j}.value", value, 1024)
            total += len(str(name or "")) + len(str(value or ""))
        for key in ("title", "description"):
            total += len(str(embed.get(key) or ""))
        total += len(str((embed.get("footer") or {}).get("text") or ""))
        total += len(str((embed.get("author") or {}).get("name") or ""))
    if total > 6000:
        errs.add("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")


def _check_components(errs: FormErrors, components: list[dict[str, Any]], v2: bool) -> None:
    if not v2:
        if len(components) > 5:
            errs.add("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
        for i, row in enumerate(components):
            if row.get("type") != 1:
                errs.add(
                    f"components.{i}", "UNION_TYPE_CHOICES", 'Value of field "type" must be 1.'
                )
                continue
            children = row.get("components") or []
            if not children:
                errs.add(
                    f"components.{i}.components",
                    "BASE_TYPE_MIN_LENGTH",
                    "Must be 1 or more in length.",
                )
            selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
            if len(children) > 5:
                errs.add(
                    f"components.{i}.components",
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 5 or fewer in length.",
                )
            if selects and len(children) > 1:
                errs.add(
                    f"components.{i}.components",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
    elif len(walk_components(components)) > 40:
        errs.add("components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length.")

    seen: set[str] = set()
    for comp in walk_components(components):
        custom_id = comp.get("custom_id")
        ctype = comp.get("type")
        if custom_id is not None:
            _max_len(errs, "components.custom_id", custom_id, 100)
            if custom_id in seen:
                errs.add(
                    "components.custom_id",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen.add(custom_id)
        if ctype == 2:
            _max_len(errs, "components.label", comp.get("label"), 80)
            if comp.get("style") == 5:
                if not comp.get("url"):
                    errs.add("components.url", "BASE_TYPE_REQUIRED", "This field is required")
            elif comp.get("style") != 6 and not custom_id:
                errs.add("components.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
            if not comp.get("label") and not comp.get("emoji") and comp.get("style") != 6:
                errs.add(
                    "components.label", "BASE_TYPE_REQUIRED", "A label or an emoji is required"
                )
        elif ctype == 3:
            options = comp.get("options") or []
            if not options or len(options) > 25:
                errs.add(
                    "components.options",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 25 in length.",
                )
            values = [o.get("value") for o in options]
            if len(values) != len(set(values)):
                errs.add(
                    "components.options",
                    "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                    "Select component option values cannot be duplicated",
                )
            for opt in options:
                _max_len(errs, "components.options.label", opt.get("label"), 100)
                _max_len(errs, "components.options.value", opt.get("value"), 100)
                _max_len(errs, "components.options.description", opt.get("description"), 100)
        if ctype in (3, 5, 6, 7, 8):
            _max_len(errs, "components.placeholder", comp.get("placeholder"), 150)


def check_message(
    payload: dict[str, Any], *, creating: bool, has_files: bool
) -> tuple[int, dict[str, Any]] | None:
    """None if the payload is acceptable, else (status, error JSON)."""
    errs = FormErrors()
    flags = int(payload.get("flags") or 0)
    v2 = bool(flags & IS_COMPONENTS_V2)
    content = payload.get("content")
    embeds = payload.get("embeds") or []
    components = payload.get("components") or []
    if v2 and (content or embeds):
        errs.add(
            "content",
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "The 'content' and 'embeds' fields cannot be used when using IS_COMPONENTS_V2",
        )
    _max_len(errs, "content", content, 2000)
    _check_embeds(errs, embeds)
    _check_components(errs, components, v2)
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    if creating and not (
        content
        or embeds
        or components
        or has_files
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        code, message = EMPTY_MESSAGE
        return 400, {"code": code, "message": message}
    return None


def check_modal(data: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    errs = FormErrors()
    if not data.get("title"):
        errs.add("data.title", "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errs, "data.title", data.get("title"), 45)
    if not data.get("custom_id"):
        errs.add("data.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errs, "data.custom_id", data.get("custom_id"), 100)
    comps = data.get("components") or []
    if not comps or len(comps) > 5:
        errs.add("data.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    for comp in walk_components(comps):
        if comp.get("type") == 4:
            _max_len(errs, "data.components.label", comp.get("label"), 45)
            _max_len(errs, "data.components.placeholder", comp.get("placeholder"), 100)
        if comp.get("type") == 18:
            _max_len(errs, "data.components.label", comp.get("label"), 45)
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    return None
