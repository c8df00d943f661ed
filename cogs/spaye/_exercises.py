"""The records of reveals and the exercises on them: settling (done, given up) and bonuses.

A record is the message of the reveal that ended a däye, with one row of buttons per
exercise it set. Its text and the lines added under it are kept in ``meta["records"]``:
each move on one of its exercises saves the record's new line with the move itself (the
line is decided on the version the move is saved on), then the message is redrawn from
the saved state, and once more from the latest state when another move went in between.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import Event
from bot.i18n import Lang, t
from bot.present import mention
from bot.storage import StoredGame
from bot.ui import GameView, notify, respond, say, update_message
from cogs.spaye import _render as render
from cogs.spaye._click import (
    Click,
    bonus_titles,
    clicked,
    close_with,
    find_exercise,
    share_partners,
)
from cogs.spaye._views import (
    bonus_menu as bonus_menu_view,
)
from cogs.spaye._views import (
    exercise_items,
    exercise_view,
    parse_int,
    request_items,
)

if TYPE_CHECKING:
    from cogs.spaye._table import SpayeTable


def record_view(
    stored: StoredGame, record: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
) -> GameView:
    """One row per open exercise of the record: its buttons, or Approve / Refuse while the
    committee is asked."""
    if not stored.is_active:
        return GameView()
    ask = int(stored.meta.get("ask", 0))
    rows: list[discord.ui.Item[Any]] = []
    for row, ex in enumerate(e for e in view["exercises"] if e["id"] in record.get("ids", [])):
        if ex["request"] is not None:
            rows += request_items(stored.id, ex["id"], ask, locale, row=row)
        else:
            bonus = bool(bonus_titles(stored, ex["player"], ex["id"]))
            rows += exercise_items(stored.id, ex, bonus, locale, row=row)
    return GameView(*rows)


def record_of(stored: StoredGame, eid: int) -> tuple[str, dict[str, Any]] | None:
    """The record that set exercise ``eid``: ``(key, a copy of it)``."""
    records: dict[str, Any] = stored.meta.get("records") or {}
    for key, record in records.items():
        if eid in record.get("ids", []):
            return key, dict(record)
    return None


def with_lines(
    stored: StoredGame, eid: int, lines: Sequence[str]
) -> tuple[str, dict[str, Any]] | None:
    """The ``meta`` change that adds ``lines`` under the record of exercise ``eid``, to save
    with the move: ``(record key, meta update)``; ``None`` for an exercise without a record
    (a bonus handed it over: its own message)."""
    found = record_of(stored, eid)
    if found is None:
        return None
    key, record = found
    record["lines"] = [*record.get("lines", []), *lines]
    records = {**(stored.meta.get("records") or {}), key: record}
    return key, {"records": records}


def _drawn(stored: StoredGame, key: str, locale: Lang) -> tuple[int | None, str, GameView]:
    record: dict[str, Any] = (stored.meta.get("records") or {})[key]
    view = stored.game.public_view()
    message = record.get("message")
    content = render.record_text(record, view, locale)
    return (
        message if isinstance(message, int) else None,
        content,
        record_view(stored, record, view, locale),
    )


def _same(a: tuple[int | None, str, GameView], b: tuple[int | None, str, GameView]) -> bool:
    ids = [[getattr(i, "custom_id", None) for i in x[2].children] for x in (a, b)]
    return a[1] == b[1] and ids[0] == ids[1]


async def redraw_record(
    table: SpayeTable,
    stored: StoredGame,
    key: str,
    interaction: discord.Interaction[Any] | None = None,
) -> None:
    """Redraw the record ``key`` as saved in ``stored``: the clicked message when the click
    was on it, else by its id; then from the latest state if a later move got there first
    (its own redraw may have reached Discord before this one)."""
    public = (await table.settings_of(stored.guild_id)).locale
    drawn = _drawn(stored, key, public)
    message, content, buttons = drawn
    if interaction is not None and (
        clicked(interaction, message) or (message is None and interaction.message is not None)
    ):
        # the click came from the record (before its id was saved, the only message with
        # its exercises' buttons)
        await update_message(interaction, content, view=buttons)
    elif message is not None:
        await table.edit(stored, message, content, buttons, _channel(stored, key))
    latest = await table.bot.store.games.require(stored.id)
    if latest.version == stored.version:
        return
    now = _drawn(latest, key, public)
    if now[0] is not None and not _same(now, drawn):  # unposted: its posting draws it anew
        await table.edit(latest, now[0], now[1], now[2], _channel(latest, key))


async def record_posted(
    table: SpayeTable, stored: StoredGame, key: str, message: discord.Message
) -> None:
    """The record ``key``, drawn from ``stored``, was posted as ``message``: keep where it
    is. A move on its exercises saved meanwhile (a click on the message before its id was
    known) is drawn on it now."""
    latest = await table.bot.store.games.merge_meta_entry(
        stored.id, "records", key, {"message": message.id, "channel": message.channel.id}
    )
    if latest.version == stored.version + 1 or not latest.is_active:
        # nothing happened since; or the day closed, and its records keep their buttons,
        # which a click then finds answered privately (its thread may be archived already)
        return
    public = (await table.settings_of(stored.guild_id)).locale
    now = _drawn(latest, key, public)
    if not _same(now, _drawn(stored, key, public)):
        await table.edit(latest, message.id, now[1], now[2], message.channel.id)


def _channel(stored: StoredGame, key: str) -> int | None:
    """Where the record ``key`` was posted (the day's thread, or its channel)."""
    found = ((stored.meta.get("records") or {}).get(key) or {}).get("channel")
    return found if isinstance(found, int) else None


def handed_over(events: Sequence[Event]) -> list[Event]:
    """The exercises a bonus handed over (share, tyrant): each gets its own message."""
    return [e for e in events if e["type"] == "exercise_set" and e["origin"] != "nikaye"]


async def post_exercises(
    table: SpayeTable,
    stored: StoredGame,
    posts: Sequence[tuple[int, Event]],
    locale: Lang,
) -> None:
    """One message per exercise a bonus handed over, with its buttons, each in its ticket's
    turn."""
    for ticket, e in posts:
        await table.post(
            stored,
            ticket,
            render.exercise_prompt(e, locale),
            exercise_view(stored.id, e, False, locale),
            notify(e["player"]),  # who was handed the exercise
        )


async def settle_exercise(table: SpayeTable, c: Click) -> None:
    eid = parse_int(c.press.arg)
    if eid is None or find_exercise(c.view, eid) is None:
        await say(c.interaction, t("spaye.stale.exercise", c.locale))
        return
    action = {"type": "exercise_done" if c.press.action == "done" else "give_up", "id": eid}
    events = table.preview(c.stored, c.user, action)
    line = render.exercise_settled(events, c.public)
    finish = [render.finished(e, c.public) for e in events if e["type"] == "day_finished"]
    change = with_lines(c.stored, eid, [line, *finish])
    after, _ = await table.act(c.stored, c.user, action, change[1] if change else None)
    if change is None:  # an exercise a bonus handed over: its own message
        await close_with(c, "\n".join([line, *finish]))
        return
    await redraw_record(table, after, change[0], c.interaction)


async def bonus_menu(table: SpayeTable, c: Click) -> None:
    eid = parse_int(c.press.arg)
    ex = find_exercise(c.view, eid)
    if ex is None or eid is None:
        await say(c.interaction, t("spaye.stale.exercise", c.locale))
        return
    titles = bonus_titles(c.stored, c.user, eid)
    if not titles:
        key = "spaye.bonus.none" if c.user == ex["player"] else "spaye.bonus.not_yours"
        await say(c.interaction, t(key, c.locale, player=mention(ex["player"])))
        return
    names = ", ".join(render.title_name(x) for x in titles)
    partners = share_partners(c.stored, c.user, eid) if "grand_spayin" in titles else []
    today = c.view["spayins"]
    partners.sort(key=lambda p: p not in today)  # today's späyins first
    known: dict[str, str] = c.stored.meta.get("names") or {}
    labels = {p: known.get(p) or member_name(table, c.stored.guild_id, p) for p in partners}
    await respond(
        c.interaction,
        t("spaye.bonus.menu", c.locale, id=eid, titles=names),
        view=bonus_menu_view(c.stored.id, eid, titles, labels, c.locale),
        ephemeral=True,
    )


def member_name(table: SpayeTable, guild_id: int, user_id: str) -> str:
    """A member's display name for a menu (menus can't show mentions)."""
    guild = table.bot.get_guild(guild_id)
    member = guild.get_member(int(user_id)) if guild is not None else None
    if member is None:
        user = table.bot.get_user(int(user_id))
        return user.display_name if user is not None else user_id
    return member.display_name


async def use_bonus(table: SpayeTable, c: Click) -> None:
    eid = parse_int(c.press.arg)
    if eid is None or find_exercise(c.view, eid) is None:
        await say(c.interaction, t("spaye.stale.exercise", c.locale))
        return
    action: dict[str, Any] = {"type": f"bonus_{c.press.action}", "id": eid}
    if c.press.action == "share":
        action["with"] = (c.press.values or ("",))[0]
    events = table.preview(c.stored, c.user, action)
    text = render.bonus_used(events, c.public)
    finish = [render.finished(e, c.public) for e in events if e["type"] == "day_finished"]
    change = with_lines(c.stored, eid, [text, *finish])
    after, events = await table.act(c.stored, c.user, action, change[1] if change else None)
    # the tickets right after the save: these posts come in its order
    said = None if change is not None else table.ticket(after)
    posts = [(table.ticket(after), e) for e in handed_over(events)]
    try:
        await update_message(c.interaction, t("spaye.bonus.used", c.locale), view=GameView())
        if change is not None:
            await redraw_record(table, after, change[0])
    finally:
        if said is not None:
            await table.post(after, said, "\n".join([text, *finish]))
        await post_exercises(table, after, posts, c.public)
