"""Checks of message and modal payloads against Discord's documented limits.

The fake answers a payload that breaks one of these with HTTP 400, the way
Discord does, so a bot bug that Discord would reject fails in tests too.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection
from typing import Any

import emoji as emoji_data

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


VARIATION_SELECTOR = "\ufe0f"
SNOWFLAKE = re.compile(r"^[0-9]{1,20}$")
MAX_FILES = 10
MAX_FILE_BYTES = 10 * 1024 * 1024
"""Discord's upload limit for a bot in a server without boosts (10 MiB a file)."""
MAX_V2_TEXT = 4000
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")


def is_unicode_emoji(name: object) -> bool:
    """True when `name` is one emoji of Unicode's emoji list, as Discord requires.

    Discord accepts an emoji with or without its variation selector (U+FE0F), so both
    spellings are looked up. A playing-card character such as U+1F0A0 is not an emoji.
    """
    if not isinstance(name, str) or not name:
        return False
    if emoji_data.is_emoji(name):
        return True
    bare = name.replace(VARIATION_SELECTOR, "")
    return bool(bare) and (
        emoji_data.is_emoji(bare) or emoji_data.is_emoji(bare + VARIATION_SELECTOR)
    )


def emoji_problem(value: object, known_ids: Collection[int] | None = None) -> str | None:
    """Why Discord refuses a component emoji, or None when it takes it.

    A custom emoji (a server's or the application's own) is named by its id; a Unicode
    emoji by its name alone, which must be an emoji. With ``known_ids`` (the custom emojis
    the bot may use: the fake's guilds have none, so the application's own), an id not
    among them is refused too, as Discord refuses an emoji it cannot resolve.
    """
    if not isinstance(value, dict):
        return "name"
    emoji_id = value.get("id")
    if emoji_id is not None:
        if not SNOWFLAKE.match(str(emoji_id)):
            return "id"
        return "id" if known_ids is not None and int(str(emoji_id)) not in known_ids else None
    return None if is_unicode_emoji(value.get("name")) else "name"


def _check_emoji(
    errs: FormErrors, path: str, value: object, known_ids: Collection[int] | None
) -> None:
    field = emoji_problem(value, known_ids)
    if field is not None:
        errs.add(f"{path}.emoji.{field}", "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji")


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


def walk_with_paths(
    components: list[dict[str, Any]], base: str = "components"
) -> list[tuple[str, dict[str, Any]]]:
    """Every component of a tree with its path in Discord's error shape."""
    out: list[tuple[str, dict[str, Any]]] = []
    stack = [(f"{base}.{i}", c) for i, c in reversed(list(enumerate(components)))]
    while stack:
        path, comp = stack.pop()
        out.append((path, comp))
        children = [
            (f"{path}.components.{j}", c) for j, c in enumerate(comp.get("components") or [])
        ]
        if comp.get("accessory"):
            children.append((f"{path}.accessory", comp["accessory"]))
        if comp.get("component"):
            children.append((f"{path}.component", comp["component"]))
        stack.extend(reversed(children))
    return out


SELECT_TYPES = (3, 5, 6, 7, 8)


def _check_custom_id(errs: FormErrors, path: str, comp: dict[str, Any], seen: set[str]) -> None:
    """At most 100 characters, and unique within the message (or modal)."""
    custom_id = comp.get("custom_id")
    if custom_id is None:
        return
    _max_len(errs, f"{path}.custom_id", custom_id, 100)
    if custom_id in seen:
        errs.add(
            f"{path}.custom_id",
            "COMPONENT_CUSTOM_ID_DUPLICATED",
            "Component custom id cannot be duplicated",
        )
    seen.add(custom_id)


def _check_button(
    errs: FormErrors, path: str, comp: dict[str, Any], known_ids: Collection[int] | None = None
) -> None:
    style, custom_id = comp.get("style"), comp.get("custom_id")
    _max_len(errs, f"{path}.label", comp.get("label"), 80)
    if style not in (1, 2, 3, 4, 5, 6):
        errs.add(f"{path}.style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
        return
    if style == 5:
        if not comp.get("url"):
            errs.add(f"{path}.url", "BASE_TYPE_REQUIRED", "This field is required")
        if custom_id is not None:
            errs.add(
                f"{path}.custom_id",
                "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                "A custom id cannot be set on a link button",
            )
    elif style == 6:
        if not comp.get("sku_id"):
            errs.add(f"{path}.sku_id", "BASE_TYPE_REQUIRED", "This field is required")
        if custom_id is not None or comp.get("label") or comp.get("emoji") or comp.get("url"):
            errs.add(
                path,
                "BUTTON_COMPONENT_PREMIUM_FIELDS",
                "A premium button cannot have a custom id, label, emoji or url",
            )
    else:
        if not custom_id:
            errs.add(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
        if comp.get("url"):
            errs.add(
                f"{path}.url",
                "BUTTON_COMPONENT_URL_NOT_ALLOWED",
                "A url can only be on a link button",
            )
    if style != 6 and not comp.get("label") and not comp.get("emoji"):
        errs.add(f"{path}.label", "BASE_TYPE_REQUIRED", "A label or an emoji is required")
    if "emoji" in comp and comp["emoji"] is not None:
        _check_emoji(errs, path, comp["emoji"], known_ids)


def _check_select(
    errs: FormErrors, path: str, comp: dict[str, Any], known_ids: Collection[int] | None = None
) -> None:
    if not comp.get("custom_id"):
        errs.add(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errs, f"{path}.placeholder", comp.get("placeholder"), 150)
    low, high = comp.get("min_values", 1), comp.get("max_values", 1)
    if not isinstance(low, int) or not 0 <= low <= 25:
        errs.add(f"{path}.min_values", "NUMBER_TYPE_MAX", "Must be between 0 and 25.")
    if not isinstance(high, int) or not 1 <= high <= 25:
        errs.add(f"{path}.max_values", "NUMBER_TYPE_MAX", "Must be between 1 and 25.")
    elif isinstance(low, int) and low > high:
        errs.add(
            f"{path}.min_values",
            "SELECT_COMPONENT_MIN_VALUES_GREATER_THAN_MAX",
            "min_values must be less than or equal to max_values",
        )
    if comp.get("type") != 3:
        return
    options = comp.get("options") or []
    if not options or len(options) > 25:
        errs.add(f"{path}.options", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
    if isinstance(high, int) and options and high > len(options):
        errs.add(
            f"{path}.max_values",
            "SELECT_COMPONENT_MAX_VALUES_TOO_LARGE",
            "max_values must be less than or equal to the number of options",
        )
    values = [o.get("value") for o in options]
    if len(values) != len(set(values)):
        errs.add(
            f"{path}.options",
            "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
            "Select component option values cannot be duplicated",
        )
    defaults = sum(1 for o in options if o.get("default"))
    if isinstance(high, int) and defaults > high:
        errs.add(
            f"{path}.options",
            "SELECT_COMPONENT_TOO_MANY_DEFAULTS",
            "The number of default options exceeds max_values",
        )
    for k, opt in enumerate(options):
        opath = f"{path}.options.{k}"
        for key in ("label", "value"):
            if not opt.get(key):
                errs.add(f"{opath}.{key}", "BASE_TYPE_REQUIRED", "This field is required")
        _max_len(errs, f"{opath}.label", opt.get("label"), 100)
        _max_len(errs, f"{opath}.value", opt.get("value"), 100)
        _max_len(errs, f"{opath}.description", opt.get("description"), 100)
        if "emoji" in opt and opt["emoji"] is not None:
            _check_emoji(errs, opath, opt["emoji"], known_ids)


def _check_components(
    errs: FormErrors,
    components: list[dict[str, Any]],
    v2: bool,
    known_ids: Collection[int] | None = None,
) -> None:
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
            selects = [c for c in children if c.get("type") in SELECT_TYPES]
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
    text = 0
    for path, comp in walk_with_paths(components):
        ctype = comp.get("type")
        _check_custom_id(errs, path, comp, seen)
        if ctype == 2:
            _check_button(errs, path, comp, known_ids)
        elif ctype in SELECT_TYPES:
            _check_select(errs, path, comp, known_ids)
        elif ctype == 10:
            text += len(str(comp.get("content") or ""))
    if text > MAX_V2_TEXT:
        errs.add(
            "components",
            "MAX_TEXT_DISPLAY_LENGTH_EXCEEDED",
            f"The text of all text displays must be {MAX_V2_TEXT} or fewer in length.",
        )


def check_files(files: list[dict[str, Any]]) -> tuple[int, dict[str, Any]] | None:
    """Discord's limits on uploads: at most 10 files, each within the upload size."""
    if len(files) > MAX_FILES:
        errs = FormErrors()
        errs.add("files", "BASE_TYPE_MAX_LENGTH", f"Must be {MAX_FILES} or fewer in length.")
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    for f in files:
        if len(f.get("data") or b"") > MAX_FILE_BYTES:
            return 413, {"code": 40005, "message": "Request entity too large"}
    return None


def check_choices(choices: list[Any]) -> tuple[int, dict[str, Any]] | None:
    """An autocomplete answer: at most 25 choices, names 1–100, string values up to 100."""
    errs = FormErrors()
    if len(choices) > 25:
        errs.add("data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, choice in enumerate(choices):
        name = choice.get("name") if isinstance(choice, dict) else None
        if not name:
            errs.add(f"data.choices.{i}.name", "BASE_TYPE_REQUIRED", "This field is required")
        _max_len(errs, f"data.choices.{i}.name", name, 100)
        value = choice.get("value") if isinstance(choice, dict) else None
        _max_len(errs, f"data.choices.{i}.value", value, 100)
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    return None


def _check_command_name(errs: FormErrors, path: str, name: object, *, chat_input: bool) -> None:
    if not isinstance(name, str) or not name:
        errs.add(path, "BASE_TYPE_REQUIRED", "This field is required")
        return
    if chat_input and (not COMMAND_NAME.match(name) or name != name.lower()):
        errs.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    _max_len(errs, path, name, 32)


def _check_described(
    errs: FormErrors, path: str, item: dict[str, Any], *, chat_input: bool
) -> None:
    _check_command_name(errs, f"{path}.name", item.get("name"), chat_input=chat_input)
    for lang, name in (item.get("name_localizations") or {}).items():
        _check_command_name(errs, f"{path}.name_localizations.{lang}", name, chat_input=chat_input)
    if not chat_input:
        return
    description = item.get("description")
    if not description:
        errs.add(f"{path}.description", "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(errs, f"{path}.description", description, 100)
    for lang, text in (item.get("description_localizations") or {}).items():
        if not text:
            errs.add(f"{path}.description_localizations.{lang}", "BASE_TYPE_REQUIRED", "Required")
        _max_len(errs, f"{path}.description_localizations.{lang}", text, 100)


def _check_options(errs: FormErrors, path: str, options: list[dict[str, Any]]) -> None:
    if len(options) > 25:
        errs.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    optional_seen = False
    for i, opt in enumerate(options):
        opath = f"{path}.{i}"
        _check_described(errs, opath, opt, chat_input=True)
        if opt.get("name") in names:
            errs.add(
                f"{opath}.name",
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                "Option names must be unique",
            )
        names.add(opt.get("name") or "")
        if opt.get("type") in (1, 2):
            _check_options(errs, f"{opath}.options", opt.get("options") or [])
            continue
        if opt.get("required"):
            if optional_seen:
                errs.add(
                    f"{opath}.required",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            errs.add(f"{opath}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for k, choice in enumerate(choices):
            if not choice.get("name"):
                errs.add(f"{opath}.choices.{k}.name", "BASE_TYPE_REQUIRED", "Required")
            _max_len(errs, f"{opath}.choices.{k}.name", choice.get("name"), 100)
            _max_len(errs, f"{opath}.choices.{k}.value", choice.get("value"), 100)
        if choices and opt.get("autocomplete"):
            errs.add(
                f"{opath}.autocomplete",
                "APPLICATION_COMMAND_OPTION_CHOICES_AND_AUTOCOMPLETE",
                "Autocomplete cannot be set on an option with choices",
            )


def check_command(body: object) -> tuple[int, dict[str, Any]] | None:
    """An application command as Discord checks it when it is registered."""
    errs = FormErrors()
    if not isinstance(body, dict):
        errs.add("_root", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    else:
        chat_input = int(body.get("type", 1)) == 1
        _check_described(errs, "_root", body, chat_input=chat_input)
        _check_options(errs, "options", body.get("options") or [])
    if errs:
        errors = errs.errors.pop("_root", {}) | errs.errors
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errors}
    return None


def check_message(
    payload: dict[str, Any],
    *,
    creating: bool,
    has_files: bool,
    emoji_ids: Collection[int] | None = None,
) -> tuple[int, dict[str, Any]] | None:
    """None if the payload is acceptable, else (status, error JSON). ``emoji_ids``: the
    custom emojis components may show (None: any well-formed id)."""
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
    _check_components(errs, components, v2, emoji_ids)
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


def check_modal(
    data: dict[str, Any], *, emoji_ids: Collection[int] | None = None
) -> tuple[int, dict[str, Any]] | None:
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
    seen: set[str] = set()
    for path, comp in walk_with_paths(comps, "data.components"):
        ctype = comp.get("type")
        if ctype == 4:
            if not comp.get("custom_id"):
                errs.add(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
            if comp.get("style", 1) not in (1, 2):
                errs.add(f"{path}.style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2}.")
            _max_len(errs, f"{path}.label", comp.get("label"), 45)
            _max_len(errs, f"{path}.placeholder", comp.get("placeholder"), 100)
            _max_len(errs, f"{path}.value", comp.get("value"), 4000)
            low, high = comp.get("min_length"), comp.get("max_length")
            if low is not None and not (isinstance(low, int) and 0 <= low <= 4000):
                errs.add(f"{path}.min_length", "NUMBER_TYPE_MAX", "Must be between 0 and 4000.")
            if high is not None and not (isinstance(high, int) and 1 <= high <= 4000):
                errs.add(f"{path}.max_length", "NUMBER_TYPE_MAX", "Must be between 1 and 4000.")
            if isinstance(low, int) and isinstance(high, int) and low > high:
                errs.add(
                    f"{path}.min_length", "BASE_TYPE_BAD_LENGTH", "Must be at most max_length."
                )
        elif ctype == 18:
            _max_len(errs, f"{path}.label", comp.get("label"), 45)
            _max_len(errs, f"{path}.description", comp.get("description"), 100)
        elif ctype in SELECT_TYPES:
            _check_select(errs, path, comp, emoji_ids)
        _check_custom_id(errs, path, comp, seen)
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    return None


# -- application emojis ------------------------------------------------------------------

MAX_APPLICATION_EMOJIS = 2000
"""Emojis one application may own."""
MAX_EMOJI_BYTES = 256 * 1024
"""An emoji's picture at most (256 KiB)."""
EMOJI_NAME = re.compile(r"^[A-Za-z0-9_]{2,32}$")
IMAGE_DATA_URI = re.compile(r"^data:image/(png|jpeg|jpg|gif|webp);base64,(.*)$", re.DOTALL)
MAX_EMOJIS = (30008, "Maximum number of emojis reached (2000)")
IMAGE_MAGIC = {
    "png": (b"\x89PNG\r\n\x1a\n",),
    "jpeg": (b"\xff\xd8\xff",),
    "jpg": (b"\xff\xd8\xff",),
    "gif": (b"GIF87a", b"GIF89a"),
    "webp": (b"RIFF",),
}


def emoji_name_problem(name: object) -> tuple[str, str] | None:
    """(code, message) of Discord's refusal of an emoji name, or None."""
    if not isinstance(name, str) or not name:
        return "BASE_TYPE_REQUIRED", "This field is required"
    if not 2 <= len(name) <= 32:
        return "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length."
    if not EMOJI_NAME.match(name):
        return "STRING_TYPE_REGEX", "String value did not match validation regex."
    return None


def decode_emoji_image(image: object) -> tuple[str, bytes] | tuple[str, str]:
    """``("png", bytes)`` of a data URI, or ``("error", code)`` when Discord refuses it."""
    if not isinstance(image, str) or not image:
        return "error", "BASE_TYPE_REQUIRED"
    match = IMAGE_DATA_URI.match(image)
    if match is None:
        return "error", "IMAGE_INVALID"
    kind = match.group(1)
    try:
        data = base64.b64decode(match.group(2), validate=True)
    except (binascii.Error, ValueError):
        return "error", "IMAGE_INVALID"
    if not data.startswith(IMAGE_MAGIC[kind]) or (kind == "webp" and data[8:12] != b"WEBP"):
        return "error", "IMAGE_INVALID"
    if len(data) > MAX_EMOJI_BYTES:
        return "error", "BINARY_TYPE_MAX_SIZE"
    return ("jpeg" if kind == "jpg" else kind), data


IMAGE_ERRORS = {
    "BASE_TYPE_REQUIRED": "This field is required",
    "IMAGE_INVALID": "Invalid image data",
    "BINARY_TYPE_MAX_SIZE": "File cannot be larger than 256.0 kb.",
}


def check_application_emoji(
    body: object, *, taken: Collection[str], count: int, creating: bool
) -> tuple[int, dict[str, Any]] | None:
    """An application emoji as Discord checks it: a name of 2–32 ``[A-Za-z0-9_]`` unique in
    the application, a PNG/JPEG/GIF/WEBP data URI of at most 256 KiB (creating), at most
    2,000 emojis. ``taken``: the names of the application's other emojis."""
    errs = FormErrors()
    if not isinstance(body, dict):
        errs.add("_root", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors.pop("_root")}
    if creating or "name" in body:
        name = body.get("name")
        problem = emoji_name_problem(name)
        if problem is not None:
            errs.add("name", *problem)
        elif name in taken:
            errs.add("name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken")
    if creating:
        kind, detail = decode_emoji_image(body.get("image"))
        if kind == "error":
            assert isinstance(detail, str)
            errs.add("image", detail, IMAGE_ERRORS[detail])
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    if creating and count >= MAX_APPLICATION_EMOJIS:
        code, message = MAX_EMOJIS
        return 400, {"code": code, "message": message}
    return None


THREAD_NAME_MAX = 100
MAX_SLOWMODE = 21600
THREAD_ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)


def check_thread(
    payload: object, *, creating: bool, with_message: bool = True
) -> tuple[int, dict[str, Any]] | None:
    """A thread's JSON as Discord checks it: when it is started (from a message, or without
    one with ``with_message=False``) or edited (``creating=False``)."""
    errs = FormErrors()
    if not isinstance(payload, dict):
        errs.add("_root", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors.pop("_root")}
    name = payload.get("name")
    if creating and name is None:
        errs.add("name", "BASE_TYPE_REQUIRED", "This field is required")
    elif name is not None:
        if not isinstance(name, str):
            errs.add("name", "STRING_TYPE_CONVERT", "Could not interpret the value as string.")
        elif not 1 <= len(name.strip()) <= THREAD_NAME_MAX or len(name) > THREAD_NAME_MAX:
            errs.add(
                "name",
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {THREAD_NAME_MAX} in length.",
            )
    duration = payload.get("auto_archive_duration")
    if duration is not None and (
        isinstance(duration, bool) or duration not in THREAD_ARCHIVE_DURATIONS
    ):
        errs.add(
            "auto_archive_duration",
            "BASE_TYPE_CHOICES",
            "Value must be one of {60, 1440, 4320, 10080}.",
        )
    slowmode = payload.get("rate_limit_per_user")
    if slowmode is not None:
        if isinstance(slowmode, bool) or not isinstance(slowmode, int):
            errs.add("rate_limit_per_user", "NUMBER_TYPE_COERCE", "Value is not int.")
        elif slowmode < 0:
            errs.add(
                "rate_limit_per_user",
                "NUMBER_TYPE_MIN",
                "int value should be greater than or equal to 0.",
            )
        elif slowmode > MAX_SLOWMODE:
            errs.add(
                "rate_limit_per_user",
                "NUMBER_TYPE_MAX",
                f"int value should be less than or equal to {MAX_SLOWMODE}.",
            )
    for key in ("archived", "locked", "invitable"):
        value = payload.get(key)
        if value is not None and not isinstance(value, bool):
            errs.add(key, "BASE_TYPE_BOOLEAN", "Must be either true or false.")
    if creating and not with_message:
        kind = payload.get("type")
        if kind is not None and kind not in (10, 11, 12):
            errs.add("type", "BASE_TYPE_CHOICES", "Value must be one of {10, 11, 12}.")
    if errs:
        code, message = INVALID_FORM_BODY
        return 400, {"code": code, "message": message, "errors": errs.errors}
    return None
