"""Discord message JSON -> HTML for the sandbox page (pure functions, no I/O).

The page never builds markup itself: the server renders every message (content with Discord's
markdown, embeds, attachments, buttons, selects, components v2) and every modal here, so the
rendering is tested without a browser. Everything user-controlled is escaped; the only tags
produced are the ones written below.

Interactive elements carry ``data-*`` attributes the page's script acts on:

- a button: ``data-action="click" data-custom-id=...`` (absent when disabled);
- a select: ``<div class="select" data-custom-id data-min data-max>`` holding one input per
  option (``value`` = the option's value, or the id of a user / role / channel);
- a modal: ``<form class="modal" data-custom-id>`` with named fields;
- a Unicode emoji: ``<span class="emoji-char" title=":name:">`` (see :func:`mark_emojis`).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import emoji as emoji_data

__all__ = [
    "RenderContext",
    "emoji_img",
    "mark_emojis",
    "render_components",
    "render_embed",
    "render_markdown",
    "render_message",
    "render_modal",
    "render_thread_chip",
]

EPHEMERAL = 1 << 6
LOADING = 1 << 7

BUTTON_STYLES = {1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium"}
SELECT_KINDS = {3: "string", 5: "user", 6: "role", 7: "mentionable", 8: "channel"}
EYE = (
    '<svg class="eye" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true">'
    '<path fill="currentColor" d="M12 5C5.6 5 2 12 2 12s3.6 7 10 7 10-7 10-7-3.6-7-10-7zm0 '
    '11a4 4 0 1 1 0-8 4 4 0 0 1 0 8z"/></svg>'
)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")


@dataclass
class RenderContext:
    """What the renderer needs to know about the world, as seen by one user (``viewer``)."""

    viewer: int | None = None
    users: Mapping[int, str] = field(default_factory=dict)
    """Display names of users (and members) by id."""
    roles: Mapping[int, str] = field(default_factory=dict)
    channels: Mapping[int, str] = field(default_factory=dict)
    """Names of the guild's text channels by id (what channel selects offer)."""
    threads: Mapping[int, str] = field(default_factory=dict)
    """Names of the threads the viewer sees, by id (mentions and links name them)."""
    members: Sequence[int] = ()
    """Ids a user select offers (the guild's members), in order."""
    bot_ids: frozenset[int] = frozenset()

    def user_name(self, user_id: int) -> str:
        return self.users.get(user_id, f"unknown user {user_id}")

    def channel_name(self, channel_id: int) -> str | None:
        """A text channel's or a thread's name."""
        return self.channels.get(channel_id) or self.threads.get(channel_id)


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


# -- markdown -------------------------------------------------------------------------------

_CODE_BLOCK = re.compile(r"```(?:([A-Za-z0-9_+-]+)\n)?([\s\S]*?)```")
_INLINE_CODE = re.compile(r"(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)")
_BOLD = re.compile(r"\*\*(?=\S)([\s\S]+?)(?<=\S)\*\*")
_UNDERLINE = re.compile(r"__(?=\S)([\s\S]+?)(?<=\S)__")
_ITALIC_STAR = re.compile(r"\*(?=\S)([\s\S]+?)(?<=\S)\*")
_ITALIC_UNDERSCORE = re.compile(r"(?<![\w])_(?=\S)([\s\S]+?)(?<=\S)_(?![\w])")
_STRIKE = re.compile(r"~~(?=\S)([\s\S]+?)(?<=\S)~~")
_SPOILER = re.compile(r"\|\|([\s\S]+?)\|\|")
# On escaped text: < and > are &lt; &gt;, & is &amp;.
_USER = re.compile(r"&lt;@!?(\d+)&gt;")
_ROLE = re.compile(r"&lt;@&amp;(\d+)&gt;")
_CHANNEL = re.compile(r"&lt;#(\d+)&gt;")
_TIMESTAMP = re.compile(r"&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;")
_EMOJI = re.compile(r"&lt;(a?):(\w+):(\d+)&gt;")
_SLASH = re.compile(r"&lt;/([\w -]+):\d+&gt;")
_JUMP = re.compile(
    r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/channels/(?:\d+|@me)/(\d+)(?:/(\d+))?"
)
_MASKED_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^\s)]+)\)")
_URL = re.compile(r"(?<![\"'=>])\bhttps?://[^\s<]+[^\s<.,:;\"')\]]")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


def emoji_img(emoji_id: Any, name: str, *, animated: bool = False) -> str:
    """A custom emoji (``<:name:id>`` in text, ``{"id", "name"}`` on a component) as the
    picture the page serves at ``/emojis/{id}.png`` (``.gif`` when animated)."""
    digits = "".join(ch for ch in str(emoji_id) if ch.isdigit())
    label = esc(f":{name}:")
    ext = "gif" if animated else "png"
    return f'<img class="emoji" src="/emojis/{digits}.{ext}" alt="{label}" title="{label}">'


def _timestamp(seconds: int, style: str | None) -> str:
    when = datetime.fromtimestamp(seconds, tz=UTC)
    fallback = when.strftime("%Y-%m-%d %H:%M UTC")
    return (
        f'<time class="ts" datetime="{esc(when.isoformat())}" data-style="{esc(style or "f")}">'
        f"{esc(fallback)}</time>"
    )


def _inline(text: str, ctx: RenderContext, keep: list[str]) -> str:
    """Inline markdown of one piece of text without code; ``keep`` holds finished HTML."""

    def stash(fragment: str) -> str:
        keep.append(fragment)
        return f"\x00{len(keep) - 1}\x00"

    out = esc(text).replace("&#x27;", "'")

    def mention(m: re.Match[str]) -> str:
        uid = int(m[1])
        me = " mention-me" if ctx.viewer == uid else ""
        return stash(f'<span class="mention{me}">@{esc(ctx.user_name(uid))}</span>')

    out = _ROLE.sub(
        lambda m: stash(
            f'<span class="mention">@{esc(ctx.roles.get(int(m[1]), "unknown role"))}</span>'
        ),
        out,
    )
    out = _USER.sub(mention, out)
    out = _CHANNEL.sub(
        lambda m: stash(
            f'<span class="mention">#{esc(ctx.channel_name(int(m[1])) or "unknown channel")}</span>'
        ),
        out,
    )
    out = _TIMESTAMP.sub(lambda m: stash(_timestamp(int(m[1]), m[2])), out)
    out = _EMOJI.sub(lambda m: stash(emoji_img(m[3], m[2], animated=bool(m[1]))), out)
    out = _SLASH.sub(lambda m: stash(f'<span class="mention">/{m[1]}</span>'), out)

    def jump_html(channel_id: str, message_id: str | None, label: str | None = None) -> str:
        channel = ctx.channel_name(int(channel_id))
        where = f"#{esc(channel)}" if channel else "Direct messages"
        target = f' data-jump="{message_id}"' if message_id else ""
        text = label or (f"{where} › message" if message_id else where)
        return (
            f'<a class="jump mention" href="#m-{message_id or ""}" data-channel="{channel_id}"'
            f"{target}>{text}</a>"
        )

    def masked(m: re.Match[str]) -> str:
        link = _JUMP.fullmatch(m[2])
        if link:
            return stash(jump_html(link[1], link[2], m[1]))
        return stash(f'<a href="{m[2]}" target="_blank" rel="noopener noreferrer">{m[1]}</a>')

    out = _MASKED_LINK.sub(masked, out)
    out = _JUMP.sub(lambda m: stash(jump_html(m[1], m[2])), out)
    out = _URL.sub(
        lambda m: stash(f'<a href="{m[0]}" target="_blank" rel="noopener noreferrer">{m[0]}</a>'),
        out,
    )
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    out = _UNDERLINE.sub(r"<u>\1</u>", out)
    out = _ITALIC_STAR.sub(r"<em>\1</em>", out)
    out = _ITALIC_UNDERSCORE.sub(r"<em>\1</em>", out)
    out = _STRIKE.sub(r"<s>\1</s>", out)
    out = _SPOILER.sub(r'<span class="spoiler" tabindex="0">\1</span>', out)
    return out


def _line_inline(line: str, ctx: RenderContext, keep: list[str]) -> str:
    """Inline markdown of a line, with `code` spans kept verbatim."""
    parts: list[str] = []
    last = 0
    for m in _INLINE_CODE.finditer(line):
        parts.append(_inline(line[last : m.start()], ctx, keep))
        keep.append(f"<code>{esc(m[2].strip() if m[1] == '``' else m[2])}</code>")
        parts.append(f"\x00{len(keep) - 1}\x00")
        last = m.end()
    parts.append(_inline(line[last:], ctx, keep))
    return "".join(parts)


def _blocks(text: str, ctx: RenderContext, keep: list[str]) -> str:
    """Block markdown: headings, subtext, quotes, lists; other lines joined with <br>."""
    out: list[str] = []
    quote: list[str] = []
    items: list[str] = []
    pending_br = False

    def flush() -> None:
        nonlocal pending_br
        if quote:
            out.append(f"<blockquote>{'<br>'.join(quote)}</blockquote>")
            quote.clear()
            pending_br = False
        if items:
            out.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()
            pending_br = False

    for line in text.split("\n"):
        heading = re.match(r"^(#{1,3}) (.+)$", line)
        if line.startswith("> ") or line == ">":
            if items:
                flush()
            quote.append(_line_inline(line[2:], ctx, keep))
            continue
        bullet = re.match(r"^\s*[-*] (.+)$", line)
        if bullet and not line.startswith("-# "):
            if quote:
                flush()
            items.append(_line_inline(bullet[1], ctx, keep))
            continue
        flush()
        if heading:
            level = len(heading[1])
            out.append(
                f'<h{level + 2} class="md-h">{_line_inline(heading[2], ctx, keep)}</h{level + 2}>'
            )
            pending_br = False
        elif line.startswith("-# "):
            out.append(f'<div class="subtext">{_line_inline(line[3:], ctx, keep)}</div>')
            pending_br = False
        else:
            if pending_br:
                out.append("<br>")
            out.append(_line_inline(line, ctx, keep))
            pending_br = True
    flush()
    return "".join(out)


def render_markdown(text: str, ctx: RenderContext) -> str:
    """Discord's markdown (the subset bots use) as safe HTML."""
    keep: list[str] = []
    out: list[str] = []
    last = 0
    for m in _CODE_BLOCK.finditer(text):
        out.append(_blocks(text[last : m.start()].strip("\n"), ctx, keep))
        out.append(f'<pre class="code-block"><code>{esc(m[2].strip(chr(10)))}</code></pre>')
        last = m.end()
    out.append(_blocks(text[last:].strip("\n") if last else text, ctx, keep))
    joined = "".join(part for part in out if part)
    # Fragments may nest stashes (a link inside bold text): expand until none is left.
    while _PLACEHOLDER.search(joined):
        joined = _PLACEHOLDER.sub(lambda m: keep[int(m[1])], joined)
    return joined


# -- embeds and attachments -----------------------------------------------------------------


def _attachment_url(att: Mapping[str, Any]) -> str:
    return f"/attachments/{esc(att.get('id', ''))}/{esc(att.get('filename', 'file'))}"


def _is_image(att: Mapping[str, Any]) -> bool:
    ctype = str(att.get("content_type") or "")
    if ctype.startswith("image/"):
        return True
    return str(att.get("filename", "")).lower().endswith(IMAGE_EXTENSIONS)


def _media_url(url: str, attachments: Sequence[Mapping[str, Any]]) -> str | None:
    """An embed's or component's media URL; ``attachment://name`` points at the message's file."""
    if url.startswith("attachment://"):
        name = url.removeprefix("attachment://")
        for att in attachments:
            if att.get("filename") == name:
                return _attachment_url(att)
        return None
    if url.startswith(("http://", "https://")):
        return esc(url)
    return None


def render_attachments(attachments: Sequence[Mapping[str, Any]], used: set[str]) -> str:
    """Files of a message not already shown by an embed: pictures inline, others as links."""
    out = []
    for att in attachments:
        if att.get("filename") in used:
            continue
        url = _attachment_url(att)
        name = esc(att.get("filename", "file"))
        if _is_image(att):
            out.append(
                f'<a class="attachment" href="{url}" target="_blank">'
                f'<img class="attachment-image" src="{url}" alt="{name}"></a>'
            )
        else:
            size = int(att.get("size") or 0)
            out.append(
                f'<a class="attachment attachment-file" href="{url}" download="{name}">'
                f"📄 {name} <small>{size:,} bytes</small></a>"
            )
    return f'<div class="attachments">{"".join(out)}</div>' if out else ""


def render_embed(
    embed: Mapping[str, Any], ctx: RenderContext, attachments: Sequence[Mapping[str, Any]] = ()
) -> str:
    color = embed.get("color")
    style = f' style="border-left-color:#{int(color):06x}"' if isinstance(color, int) else ""
    parts: list[str] = []
    author = embed.get("author") or {}
    if author.get("name"):
        parts.append(f'<div class="embed-author">{esc(author["name"])}</div>')
    if embed.get("title"):
        title = render_markdown(str(embed["title"]), ctx)
        if embed.get("url"):
            title = f'<a href="{esc(embed["url"])}" target="_blank" rel="noopener">{title}</a>'
        parts.append(f'<div class="embed-title">{title}</div>')
    if embed.get("description"):
        parts.append(
            f'<div class="embed-description">{render_markdown(str(embed["description"]), ctx)}</div>'
        )
    fields = embed.get("fields") or []
    if fields:
        cells = []
        for fld in fields:
            inline = " inline" if fld.get("inline") else ""
            cells.append(
                f'<div class="embed-field{inline}">'
                f'<div class="embed-field-name">{render_markdown(str(fld.get("name", "")), ctx)}</div>'
                f'<div class="embed-field-value">{render_markdown(str(fld.get("value", "")), ctx)}</div>'
                "</div>"
            )
        parts.append(f'<div class="embed-fields">{"".join(cells)}</div>')
    image = _media_url(str((embed.get("image") or {}).get("url") or ""), attachments)
    if image:
        parts.append(f'<img class="embed-image" src="{image}" alt="">')
    thumb = _media_url(str((embed.get("thumbnail") or {}).get("url") or ""), attachments)
    footer = embed.get("footer") or {}
    foot_bits = []
    if footer.get("text"):
        foot_bits.append(esc(footer["text"]))
    if embed.get("timestamp"):
        try:
            when = datetime.fromisoformat(str(embed["timestamp"]))
            foot_bits.append(_timestamp(int(when.timestamp()), "f"))
        except ValueError:
            pass
    if foot_bits:
        parts.append(f'<div class="embed-footer">{" • ".join(foot_bits)}</div>')
    body = "".join(parts)
    if thumb:
        body = f'<div class="embed-with-thumb"><div>{body}</div><img class="embed-thumbnail" src="{thumb}" alt=""></div>'
    return f'<div class="embed"{style}>{body}</div>'


def _embed_files(embeds: Sequence[Mapping[str, Any]]) -> set[str]:
    used = set()
    for embed in embeds:
        for key in ("image", "thumbnail"):
            url = str((embed.get(key) or {}).get("url") or "")
            if url.startswith("attachment://"):
                used.add(url.removeprefix("attachment://"))
    return used


# -- components -----------------------------------------------------------------------------


def _emoji(comp: Mapping[str, Any]) -> str:
    emoji = comp.get("emoji") or {}
    name = emoji.get("name")
    if not name:
        return ""
    if emoji.get("id"):
        return emoji_img(emoji["id"], str(name), animated=bool(emoji.get("animated")))
    return f'<span class="emoji">{esc(name)}</span>'


def _button(comp: Mapping[str, Any]) -> str:
    style = BUTTON_STYLES.get(int(comp.get("style") or 2), "secondary")
    label = esc(comp.get("label") or "")
    inner = _emoji(comp) + (f"<span>{label}</span>" if label else "")
    disabled = bool(comp.get("disabled"))
    if style == "link":
        if disabled:
            return f'<span class="btn btn-link" aria-disabled="true">{inner} ↗</span>'
        return (
            f'<a class="btn btn-link" href="{esc(comp.get("url") or "#")}" target="_blank" '
            f'rel="noopener noreferrer">{inner} ↗</a>'
        )
    attrs = f'class="btn btn-{style}" type="button"'
    if disabled:
        return f"<button {attrs} disabled>{inner}</button>"
    return (
        f'<button {attrs} data-action="click" data-custom-id="{esc(comp.get("custom_id", ""))}">'
        f"{inner}</button>"
    )


def _select_options(
    comp: Mapping[str, Any], ctx: RenderContext
) -> list[tuple[str, str, str, bool]]:
    """(value, label, description, default) of every choice of a select."""
    kind = SELECT_KINDS.get(int(comp.get("type") or 3), "string")
    defaults = {str(d.get("id")) for d in comp.get("default_values") or []}
    if kind == "string":
        return [
            (
                str(o.get("value", "")),
                (f"{_emoji(o)} " if o.get("emoji") else "") + esc(o.get("label", "")),
                esc(o.get("description") or ""),
                bool(o.get("default")),
            )
            for o in comp.get("options") or []
        ]
    out: list[tuple[str, str, str, bool]] = []
    if kind in ("user", "mentionable"):
        for uid in ctx.members:
            out.append((str(uid), esc(ctx.user_name(uid)), "", str(uid) in defaults))
    if kind in ("role", "mentionable"):
        for rid, name in ctx.roles.items():
            out.append((str(rid), "@" + esc(name), "role", str(rid) in defaults))
    if kind == "channel":
        for cid, name in ctx.channels.items():
            out.append((str(cid), "#" + esc(name), "", str(cid) in defaults))
    return out


def _select(comp: Mapping[str, Any], ctx: RenderContext, *, in_modal: bool = False) -> str:
    cid = esc(comp.get("custom_id", ""))
    default_min = 0 if in_modal else 1
    lo = int(comp["min_values"]) if comp.get("min_values") is not None else default_min
    hi = int(comp.get("max_values") or 1)
    disabled = bool(comp.get("disabled"))
    kind = SELECT_KINDS.get(int(comp.get("type") or 3), "string")
    placeholder = esc(comp.get("placeholder") or "Make a selection")
    multi = hi > 1
    rows = []
    for value, label, desc, default in _select_options(comp, ctx):
        checked = " checked" if default else ""
        kind_attr = "checkbox" if multi or in_modal else "radio"
        dis = " disabled" if disabled else ""
        rows.append(
            f'<label class="option"><input type="{kind_attr}" name="{cid}" value="{esc(value)}"'
            f"{checked}{dis}><span>{label}</span>"
            + (f"<small>{desc}</small>" if desc else "")
            + "</label>"
        )
    confirm = ""
    if multi and not in_modal and not disabled:
        confirm = '<button type="button" class="btn btn-primary select-confirm">Choose</button>'
    limits = ""
    if multi or in_modal:
        limits = (
            f'<div class="select-limits">choose {lo}–{hi}</div>'
            if lo != hi
            else f'<div class="select-limits">choose {hi}</div>'
        )
    state = " disabled" if disabled else ""
    return (
        f'<div class="select{state}" data-custom-id="{cid}" data-kind="{kind}" data-min="{lo}" '
        f'data-max="{hi}"{" data-modal" if in_modal else ""}>'
        f'<div class="select-placeholder">{placeholder}</div>'
        f'<div class="select-menu" role="listbox" aria-label="{placeholder}">{"".join(rows)}{limits}{confirm}</div>'
        "</div>"
    )


def _media(url: str, attachments: Sequence[Mapping[str, Any]], css: str) -> str:
    src = _media_url(url, attachments)
    return f'<img class="{css}" src="{src}" alt="">' if src else ""


def render_components(
    components: Sequence[Mapping[str, Any]],
    ctx: RenderContext,
    attachments: Sequence[Mapping[str, Any]] = (),
) -> str:
    """Action rows (buttons, selects) and components v2 (containers, sections, text...)."""
    out = []
    for comp in components:
        ctype = int(comp.get("type") or 0)
        if ctype == 1:
            inner = render_components(comp.get("components") or [], ctx, attachments)
            out.append(f'<div class="row">{inner}</div>')
        elif ctype == 2:
            out.append(_button(comp))
        elif ctype in SELECT_KINDS:
            out.append(_select(comp, ctx))
        elif ctype == 9:  # section
            inner = render_components(comp.get("components") or [], ctx, attachments)
            accessory = comp.get("accessory")
            side = render_components([accessory], ctx, attachments) if accessory else ""
            out.append(
                f'<div class="section"><div class="section-text">{inner}</div>'
                f'<div class="section-accessory">{side}</div></div>'
            )
        elif ctype == 10:  # text display
            out.append(
                f'<div class="text-display">{render_markdown(str(comp.get("content", "")), ctx)}</div>'
            )
        elif ctype == 11:  # thumbnail
            out.append(_media(str((comp.get("media") or {}).get("url", "")), attachments, "thumb"))
        elif ctype == 12:  # media gallery
            items = "".join(
                _media(str((i.get("media") or {}).get("url", "")), attachments, "gallery-item")
                for i in comp.get("items") or []
            )
            out.append(f'<div class="gallery">{items}</div>')
        elif ctype == 13:  # file
            url = str((comp.get("file") or {}).get("url", ""))
            name = url.removeprefix("attachment://")
            src = _media_url(url, attachments)
            if src:
                out.append(f'<a class="attachment attachment-file" href="{src}">📄 {esc(name)}</a>')
        elif ctype == 14:  # separator
            out.append('<hr class="separator">')
        elif ctype == 17:  # container
            color = comp.get("accent_color")
            style = (
                f' style="border-left-color:#{int(color):06x}"' if isinstance(color, int) else ""
            )
            inner = render_components(comp.get("components") or [], ctx, attachments)
            out.append(f'<div class="container"{style}>{inner}</div>')
    return "".join(out)


def _component_files(components: Sequence[Mapping[str, Any]]) -> set[str]:
    used = set()
    stack = list(components)
    while stack:
        comp = stack.pop()
        for key in ("media", "file"):
            url = str((comp.get(key) or {}).get("url") or "")
            if url.startswith("attachment://"):
                used.add(url.removeprefix("attachment://"))
        stack.extend(comp.get("components") or [])
        stack.extend(comp.get("items") or [])
        if comp.get("accessory"):
            stack.append(comp["accessory"])
    return used


# -- Unicode emojis -------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)([a-zA-Z0-9]+)[^>]*>")
_VERBATIM = frozenset({"code", "pre", "textarea"})
"""Elements whose text is shown (or sent back) as it is: emojis there stay bare."""


def _emoji_name(char: str) -> str:
    """The short name of a Unicode emoji (``:stopwatch:``), as chat apps write one in text."""
    name = emoji_data.demojize(char, language="alias")
    return name if name != char else ""


def _wrap_emoji(char: str, _data: Mapping[str, Any]) -> str:
    name = _emoji_name(char)
    if not name:
        return char
    return f'<span class="emoji-char" title="{esc(name)}">{char}</span>'


@functools.lru_cache(maxsize=4096)
def _marked_text(part: str) -> str:
    """One piece of text between tags, its emojis marked (the same pieces come back for
    every view and every redraw of a table: a card, a name, a line of the board)."""
    return emoji_data.replace_emoji(part, replace=_wrap_emoji)


def mark_emojis(markup: str) -> str:
    """Every Unicode emoji in the text of ``markup`` (HTML made by this module) wrapped in
    ``<span class="emoji-char" title=":name:">``: its short name on hover, as on Discord,
    and the text the page shows instead of an empty box where no font of the machine draws
    the emoji (no colour emoji font installed). Text inside code and form fields is left as
    it is.

    Only the text between tags is read: this module escapes every ``<`` of the content, and
    a ``>`` inside an attribute is escaped too.
    """
    out: list[str] = []
    verbatim = 0
    last = 0

    def text(part: str) -> str:
        if verbatim or part.isascii():  # most text is; no emoji is
            return part
        return _marked_text(part)

    for m in _TAG.finditer(markup):
        out.append(text(markup[last : m.start()]))
        out.append(m[0])
        if m[2].lower() in _VERBATIM:
            verbatim = max(0, verbatim + (-1 if m[1] else 1))
        last = m.end()
    out.append(text(markup[last:]))
    return "".join(out)


# -- messages and modals --------------------------------------------------------------------


def _header(message: Mapping[str, Any], ctx: RenderContext) -> str:
    author = message.get("author") or {}
    name = author.get("global_name") or author.get("username") or "?"
    badge = '<span class="app-badge">APP</span>' if author.get("bot") else ""
    when = ""
    if message.get("timestamp"):
        when = f'<time class="ts msg-time" datetime="{esc(message["timestamp"])}" data-style="t"></time>'
    edited = ' <span class="edited">(edited)</span>' if message.get("edited_timestamp") else ""
    return (
        f'<div class="msg-head"><span class="author">{esc(name)}</span>{badge}{when}{edited}</div>'
    )


def render_message(message: Mapping[str, Any], ctx: RenderContext) -> str:
    """One message (Discord's JSON shape) as an ``<article>``.

    ``message["flags"]`` decides the ephemeral footer and the "thinking" state;
    ``interaction_metadata`` gives the "used /command" line above a command's answer.
    """
    flags = int(message.get("flags") or 0)
    attachments = list(message.get("attachments") or [])
    classes = ["msg"]
    meta = message.get("interaction_metadata") or {}
    reply = ""
    if meta and meta.get("user"):
        who = meta["user"].get("global_name") or meta["user"].get("username") or "?"
        what = f"/{esc(meta['name'])}" if meta.get("name") else "a button"
        used = "used" if meta.get("name") else "clicked"
        reply = f'<div class="msg-reply"><span class="reply-user">{esc(who)}</span> {used} <span class="reply-cmd">{what}</span></div>'
    body: list[str] = []
    if flags & LOADING:
        author = (message.get("author") or {}).get("username") or "The bot"
        name = (message.get("author") or {}).get("global_name") or author
        body.append(f'<div class="thinking">{esc(name)} is thinking…</div>')
    elif message.get("content"):
        body.append(f'<div class="content">{render_markdown(str(message["content"]), ctx)}</div>')
    embeds = list(message.get("embeds") or [])
    body.extend(render_embed(e, ctx, attachments) for e in embeds)
    components = list(message.get("components") or [])
    shown = _embed_files(embeds) | _component_files(components)
    body.append(render_attachments(attachments, shown))
    if components:
        body.append(
            f'<div class="components">{render_components(components, ctx, attachments)}</div>'
        )
    if flags & EPHEMERAL:
        classes.append("ephemeral")
        body.append(
            '<div class="ephemeral-note">' + EYE + " Only you can see this • "
            '<button type="button" class="link-button" data-action="dismiss">Dismiss message</button></div>'
        )
    thread = message.get("thread")
    if isinstance(thread, Mapping):
        body.append(render_thread_chip(thread))
    mid = esc(message.get("id", ""))
    return mark_emojis(
        f'<article class="{" ".join(classes)}" id="m-{mid}" data-message-id="{mid}">'
        f'{reply}{_header(message, ctx)}<div class="msg-body">{"".join(body)}</div></article>'
    )


def render_thread_chip(thread: Mapping[str, Any]) -> str:
    """What Discord shows under a message a thread was started from: the thread's name and
    how many messages it has, opening it when clicked; an archived (or locked) one says so."""
    meta = thread.get("thread_metadata") or {}
    count = int(thread.get("message_count") or 0)
    words = "message" if count == 1 else "messages"
    state = ""
    classes = ["thread-chip"]
    if meta.get("archived") or meta.get("locked"):
        classes.append("archived")
        label = "Archived" if meta.get("archived") else "Locked"
        if meta.get("archived") and meta.get("locked"):
            label = "Archived · locked"
        state = f'<span class="thread-state">{label}</span>'
    tid = esc(thread.get("id", ""))
    return (
        f'<button type="button" class="{" ".join(classes)}" data-action="open-thread"'
        f' data-channel="{tid}" title="Open the thread">'
        f'<span class="thread-icon" aria-hidden="true">⤷</span>'
        f'<span class="thread-name">{esc(thread.get("name") or "")}</span>'
        f'<span class="thread-count">{count} {words} ›</span>{state}</button>'
    )


def _text_input(comp: Mapping[str, Any], label: str, description: str) -> str:
    cid = esc(comp.get("custom_id", ""))
    required = comp.get("required", True)
    attrs = [f'name="{cid}"', f'id="f-{cid}"']
    if required:
        attrs.append("required")
    if comp.get("min_length") is not None:
        attrs.append(f'minlength="{int(comp["min_length"])}"')
    if comp.get("max_length") is not None:
        attrs.append(f'maxlength="{int(comp["max_length"])}"')
    if comp.get("placeholder"):
        attrs.append(f'placeholder="{esc(comp["placeholder"])}"')
    value = esc(comp.get("value") or "")
    star = ' <span class="required">*</span>' if required else ""
    head = f'<label for="f-{cid}">{esc(label)}{star}</label>'
    if description:
        head += f'<div class="field-description">{esc(description)}</div>'
    if int(comp.get("style") or 1) == 2:
        field_html = f'<textarea {" ".join(attrs)} rows="4">{value}</textarea>'
    else:
        field_html = f'<input type="text" {" ".join(attrs)} value="{value}">'
    return f'<div class="field" data-field="{cid}">{head}{field_html}</div>'


def _modal_component(comp: Mapping[str, Any], ctx: RenderContext) -> str:
    ctype = int(comp.get("type") or 0)
    if ctype == 1:
        return "".join(_modal_component(c, ctx) for c in comp.get("components") or [])
    if ctype == 18:  # label wrapping one component
        inner = comp.get("component") or {}
        label = str(comp.get("label", ""))
        desc = str(comp.get("description") or "")
        if int(inner.get("type") or 0) == 4:
            return _text_input(inner, label, desc)
        head = f"<label>{esc(label)}</label>"
        if desc:
            head += f'<div class="field-description">{esc(desc)}</div>'
        return f'<div class="field">{head}{_select(inner, ctx, in_modal=True)}</div>'
    if ctype == 4:
        return _text_input(comp, str(comp.get("label", "")), "")
    if ctype == 10:
        return (
            f'<div class="text-display">{render_markdown(str(comp.get("content", "")), ctx)}</div>'
        )
    if ctype in SELECT_KINDS:
        return f'<div class="field">{_select(comp, ctx, in_modal=True)}</div>'
    return ""


def render_modal(modal: Mapping[str, Any], ctx: RenderContext, interaction_id: int | str) -> str:
    """A modal the bot answered with (callback type 9) as a form the page shows as a dialog."""
    fields = "".join(_modal_component(c, ctx) for c in modal.get("components") or [])
    return mark_emojis(
        f'<form class="modal" data-custom-id="{esc(modal.get("custom_id", ""))}" '
        f'data-interaction-id="{esc(interaction_id)}">'
        f'<h2 class="modal-title">{esc(modal.get("title", ""))}</h2>{fields}'
        '<div class="modal-error" role="alert"></div>'
        '<div class="modal-actions"><button type="button" class="btn btn-link-plain" data-action="cancel">Cancel</button>'
        '<button type="submit" class="btn btn-primary">Submit</button></div></form>'
    )
