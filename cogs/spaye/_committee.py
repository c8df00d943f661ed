"""Exercise adjustments: "Ask the committee" (a modal), and Approve / Refuse by the other
players of the däye or a member of the guild's committee role."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import SYSTEM, IllegalAction
from bot.i18n import Lang, t
from bot.present import mention
from bot.ui import Press, auto_defer, notify, respond, response_lock, say
from cogs.spaye import _render as render
from cogs.spaye._click import Click, close_with, find_exercise
from cogs.spaye._exercises import record_of, redraw_record, with_lines
from cogs.spaye._naming import exercise_named
from cogs.spaye._views import (
    EXERCISE_FIELD,
    KIND,
    REPS_FIELD,
    AskModal,
    modal_values,
    parse_int,
    parse_modal_id,
    parse_pair,
    request_view,
)

if TYPE_CHECKING:
    from cogs.spaye._table import SpayeTable


async def ask(
    table: SpayeTable, interaction: discord.Interaction[Any], press: Press, locale: Lang
) -> None:
    """ "Ask the committee": the modal (answered at once, so no defer)."""
    stored = await table.bot.store.games.require(press.game_id)
    eid = parse_int(press.arg)
    ex = find_exercise(stored.game.public_view(), eid) if stored.is_active else None
    if ex is None:
        await say(interaction, t("spaye.stale.exercise", locale))
        return
    if ex["player"] != str(interaction.user.id):
        await say(
            interaction,
            t("spaye.not_your_exercise", locale, id=ex["id"], player=mention(ex["player"])),
        )
        return
    if ex["request"] is not None:
        await say(interaction, t("spaye.adjustment_pending", locale, id=ex["id"]))
        return
    async with response_lock(interaction):
        late = interaction.response.is_done()
        if not late:
            await interaction.response.send_modal(AskModal(stored.id, ex, locale))
    if late:
        # Acknowledged meanwhile (the database was slow): a form opens only as the first
        # answer, so the member clicks again.
        await say(interaction, t("spaye.ask_too_slow", locale))


async def on_modal(table: SpayeTable, interaction: discord.Interaction[Any], locale: Lang) -> None:
    """A committee request submitted."""
    data: Mapping[str, Any] = interaction.data or {}
    ids = parse_modal_id(str(data.get("custom_id", "")))
    if ids is None:
        await say(interaction, t("errors.unknown_button", locale))
        return
    game_id, eid = ids
    if not await table.bot.actions.check(interaction, Press(KIND, game_id, "ask")):
        return  # another server's game: refused by the kit, as for a click
    values = modal_values(data)

    async def decide() -> None:
        await submit_request(table, interaction, game_id, eid, values, locale)

    async with auto_defer(interaction):
        await table.decided(interaction, locale, decide)


async def submit_request(
    table: SpayeTable,
    interaction: discord.Interaction[Any],
    game_id: int,
    eid: int,
    values: Mapping[str, str],
    locale: Lang,
) -> None:
    stored = await table.bot.store.games.require(game_id)
    ex = find_exercise(stored.game.public_view(), eid) if stored.is_active else None
    if ex is None:
        await say(interaction, t("spaye.stale.exercise", locale))
        return
    raw_reps = values.get(REPS_FIELD, "").strip()
    reps = parse_int(raw_reps)
    if raw_reps and reps is None:
        await say(interaction, t("spaye.modal.bad_reps", locale, max=ex["reps"]))
        return
    raw_name = values.get(EXERCISE_FIELD, "")
    name = await exercise_named(interaction, raw_name, locale) if raw_name.strip() else ""
    if name is None:
        return
    ask_no = int(stored.meta.get("ask", 0)) + 1
    action = {"type": "ask_committee", "id": eid, "reps": reps, "exercise": name or None}
    after, events = await table.act(stored, str(interaction.user.id), action, {"ask": ask_no})
    found = record_of(after, eid)
    if found is not None:  # the request shows on the exercise's own message
        await redraw_record(table, after, found[0], interaction)
        return
    public = (await table.settings_of(after.guild_id)).locale
    await respond(
        interaction,
        render.adjustment_request(events[0], public),
        view=request_view(after.id, eid, ask_no, public),
        allowed_mentions=notify(*events[0]["approvers"]),  # who decides, not the asker
    )


async def answer_request(table: SpayeTable, c: Click) -> None:
    pair = parse_pair(c.press.arg)
    ex = find_exercise(c.view, pair[0] if pair else None)
    request = ex["request"] if ex else None
    if ex is None or pair is None or request is None or c.stored.meta.get("ask") != pair[1]:
        await say(c.interaction, t("spaye.stale.request", c.locale))
        return
    stored = c.stored
    # the nikäyé never answers their own request: joining would change the day for nothing
    joins = c.user not in request["approvers"] and c.user != ex["player"]
    if joins and on_committee(c):
        with contextlib.suppress(IllegalAction):  # already on it: fine
            stored, _ = await table.act(stored, SYSTEM, {"type": "committee", "player": c.user})
    action = {"type": c.press.action, "id": pair[0]}
    events = table.preview(stored, c.user, action)
    line = render.adjustment_answered(events[0], c.public)
    change = with_lines(stored, pair[0], [line])
    after, _ = await table.act(stored, c.user, action, change[1] if change else None)
    if change is None:
        await close_with(c, line)
        return
    await redraw_record(table, after, change[0], c.interaction)


def on_committee(c: Click) -> bool:
    """Whether the clicker holds the guild's committee role (seen on their own click)."""
    role_id = c.settings.spaye.committee_role_id
    member = c.interaction.user
    return (
        role_id is not None
        and isinstance(member, discord.Member)
        and any(r.id == role_id for r in member.roles)
    )
