"""Challenges, invitations, recruiting and draws: everything a däye's own message shows,
and the reveal that ends it (a new message, the record of its exercises)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import SYSTEM, Event, IllegalAction
from bot.i18n import Lang, locale_for_user, t
from bot.present import mention, mentions, refusal
from bot.storage import StoredGame
from bot.text import clip
from bot.ui import GameView, notify, respond, say, update_message
from cogs.spaye import _render as render
from cogs.spaye._click import EXPIRY_KIND, Click, clicked, expiry_key, is_bot
from cogs.spaye._exercises import record_posted, record_view
from cogs.spaye._periods import SpayeGuild
from cogs.spaye._thread import day_posts, jump
from cogs.spaye._views import draw_view, invitation_view, parse_int, parse_pair, recruit_view

if TYPE_CHECKING:
    from cogs.spaye._table import SpayeTable


async def invite(
    table: SpayeTable,
    interaction: discord.Interaction[Any],
    stored: StoredGame,
    targets: Sequence[str],
    settings: SpayeGuild,
    away: str | None = None,
) -> None:
    """The invitation and its expiry timer.

    A challenge is the reply to ``/daye``: that one message then carries the whole däye
    (answers, draws, ties). Its mention pings the colleagues once; no DM repeats it. A
    recruit (after a tie that left 3 cards) is invited in a new message, which pings
    them and carries the final däye from then on; the recruiting menu is taken away.

    ``away``: ``/daye`` was used outside the day's thread (the catalog key of the private
    answer that says so): the invitation is posted in the thread (mentioned there, the
    colleagues are added to it) and the member gets its link.
    """
    locale = locale_for_user(interaction)
    user = str(interaction.user.id)
    d = stored.game.public_view()["daye"]
    invite_no = int(stored.meta.get("invite", 0)) + 1
    recruiting = d is not None and d["recruiting"] and user in d["players"]
    if recruiting and len(targets) != 1:
        await say(interaction, t("spaye.recruit.one", locale))
        return
    action: dict[str, Any]
    if recruiting:
        action = {"type": "recruit", "player": targets[0]}
    elif len(targets) == 2:
        action = {"type": "challenge", "targets": list(targets)}
    else:
        action = {"type": "challenge", "target": targets[0]}
    meta = {"invite": invite_no, "invite_channel": None if away else interaction.channel_id}
    try:
        after, events = await table.act(stored, user, action, meta)
    except IllegalAction as err:
        await say(interaction, refusal(err, locale, render.format_param))
        return
    ticket = table.ticket(after) if away else None  # right after the save: in its order
    try:
        await _invited(table, interaction, after, events, targets, settings, ticket, away)
    except BaseException:
        if ticket is not None:
            day_posts(table.bot, after.id).skip(ticket)
        raise


async def _invited(
    table: SpayeTable,
    interaction: discord.Interaction[Any],
    after: StoredGame,
    events: Sequence[Event],
    targets: Sequence[str],
    settings: SpayeGuild,
    ticket: int | None,
    away: str | None,
) -> None:
    locale = locale_for_user(interaction)
    user = str(interaction.user.id)
    public = settings.locale
    invite_no = int(after.meta.get("invite", 0))
    minutes = settings.spaye.challenge_expiry_minutes
    first = events[0]
    now = after.game.public_view()
    if first["type"] == "recruit_offered":
        old = after.meta.get("daye_message")
        if clicked(interaction, old):
            await update_message(interaction, render.daye_text(now, public), view=GameView())
        elif isinstance(old, int):
            await table.edit(after, old, render.daye_text(now, public), GameView())
        text = render.recruit_offer(user, first["player"], minutes, public)
        told = notify(first["player"])  # the colleague invited, nobody else
    else:
        text = render.challenge_text(now, minutes, public)
        told = notify(*targets)  # the colleagues challenged, nobody else
    await table.bot.timers.schedule(
        EXPIRY_KIND,
        table.bot.clock.now() + timedelta(minutes=minutes),
        {"game_id": after.id, "invite": invite_no},
        key=expiry_key(after.id),
    )
    buttons = invitation_view(after.id, invite_no, public)
    if ticket is not None and away is not None:
        message = await table.post(after, ticket, text, buttons, told)
        await table.bot.store.games.update_meta(
            after.id, {"daye_message": message.id, "invite_channel": message.channel.id}
        )
        link = jump(after.guild_id, message.channel.id, message.id)
        await say(interaction, t(away, locale, link=link))
        return
    await respond(interaction, text, view=buttons, allowed_mentions=told)
    message = await interaction.original_response()
    await table.bot.store.games.update_meta(after.id, {"daye_message": message.id})


async def answer_invitation(table: SpayeTable, c: Click) -> None:
    view = c.view
    invite_no = parse_int(c.press.arg)
    offer = view["daye"] is not None and view["daye"]["offer"] is not None
    if invite_no != c.stored.meta.get("invite") or (view["challenge"] is None and not offer):
        await say(c.interaction, t("spaye.stale.invite", c.locale))
        return
    after, events = await table.act(c.stored, c.user, {"type": c.press.action})
    now = after.game.public_view()
    kind = events[0]["type"]
    minutes = c.settings.spaye.challenge_expiry_minutes
    if now["challenge"] is not None:  # the final: one colleague accepted, one to go
        content, keep = render.challenge_text(now, minutes, c.public), True
    elif kind == "challenge_declined":
        e = events[0]
        content = "\n".join(
            [
                render.challenge(e["by"], e["targets"], len(e["targets"]) == 2, minutes, c.public),
                render.challenge_answered(e, [], c.public),
            ]
        )
        keep = False
    elif kind == "recruit_declined":
        content = "\n".join(
            [
                render.recruit_offer(events[0]["by"], c.user, minutes, c.public),
                t("spaye.recruit.declined", c.public, player=mention(c.user)),
            ]
        )
        keep = False
    else:  # the däye starts (or the recruit joins): this message carries its draws
        await table.bot.timers.cancel(expiry_key(after.id))
        daye = now["daye"]
        lines = [render.daye_text(now, c.public)]
        if kind == "recruit_accepted":
            lines.insert(0, t("spaye.recruit.accepted", c.public, player=mention(c.user)))
        round_no = len(daye["rounds"]) + 1
        await update_message(
            c.interaction,
            clip("\n".join(lines), 2000),
            view=draw_view(after.id, daye["number"], round_no, c.public),
        )
        return
    buttons = invitation_view(after.id, invite_no, c.public) if keep and invite_no else GameView()
    await update_message(c.interaction, clip(content, 2000), view=buttons)
    if not keep:
        await table.bot.timers.cancel(expiry_key(after.id))
    if kind == "recruit_declined":
        await offer_recruiting(table, after)


async def offer_recruiting(table: SpayeTable, stored: StoredGame) -> None:
    """The däye's message gets its recruiting menu back (a recruit declined or timed out)."""
    public = (await table.settings_of(stored.guild_id)).locale
    now = stored.game.public_view()
    d = now["daye"]
    message_id = stored.meta.get("recruit_message")
    if d is None or not d["recruiting"] or not isinstance(message_id, int):
        return
    await table.edit(
        stored,
        message_id,
        render.daye_text(now, public),
        recruit_view(stored.id, d["number"], public),
    )
    await table.bot.store.games.update_meta(stored.id, {"daye_message": message_id})


async def on_expiry(table: SpayeTable, payload: dict[str, Any]) -> None:
    """The ``spaye.invite_expiry`` timer: the invitation it names timed out (if still open:
    a later invitation makes it refuse, which the timer runner counts as done). The
    invitation's own message says so: no new message."""
    game_id, invite_no = int(payload["game_id"]), int(payload["invite"])

    def same_invitation(now: StoredGame) -> None:
        if now.meta.get("invite") != invite_no:
            raise IllegalAction("this invitation was already answered", "spaye.stale.invite")

    stored, events = await table.bot.store.games.act(
        game_id, SYSTEM, {"type": "expire"}, guard=same_invitation
    )
    settings = await table.settings_of(stored.guild_id)
    public = settings.locale
    e = events[0]
    minutes = settings.spaye.challenge_expiry_minutes
    if e["type"] == "recruit_expired":
        head = render.recruit_offer(e["by"], e["player"], minutes, public)
    else:
        head = render.challenge(e["by"], e["targets"], len(e["targets"]) == 2, minutes, public)
    message_id = stored.meta.get("daye_message")
    if isinstance(message_id, int):
        await table.edit(stored, message_id, f"{head}\n{render.expired(e, public)}", GameView())
    if e["type"] == "recruit_expired":
        await offer_recruiting(table, stored)


async def recruit(table: SpayeTable, c: Click) -> None:
    d = c.view["daye"]
    if d is None or not d["recruiting"] or str(d["number"]) != c.press.arg:
        await say(c.interaction, t("spaye.stale.recruit", c.locale))
        return
    if c.user not in d["players"]:
        await say(
            c.interaction,
            t("spaye.not_in_daye", c.locale, players=mentions(d["players"], c.locale)),
        )
        return
    picked = list(c.press.values)
    if any(is_bot(c.interaction, p) for p in picked):
        await say(c.interaction, t("spaye.daye.bot", c.locale))
        return
    await invite(table, c.interaction, c.stored, picked, c.settings)


async def draw(table: SpayeTable, c: Click) -> None:
    """Draws, ties and the recruiting menu all live on the däye's message; the reveal that
    ends the däye is a new message: the record, with the exercises' buttons."""
    d = c.view["daye"]
    pair = parse_pair(c.press.arg)
    if d is None or pair != (d["number"], len(d["rounds"]) + 1):
        await say(c.interaction, t("spaye.stale.draw", c.locale))
        return
    action = {"type": "draw"}
    # A draw that ends the däye makes its record: saved with the move, so a click on the
    # record's buttons finds it even before the record's message id is known.
    made = reveal_record(table.preview(c.stored, c.user, action), c.public)
    meta = None
    if made is not None and made[1]["ids"]:
        meta = {"records": {**(c.stored.meta.get("records") or {}), made[0]: made[1]}}
    after, events = await table.act(c.stored, c.user, action, meta)
    now = after.game.public_view()
    types = {e["type"] for e in events}
    daye = now["daye"]
    text = render.daye_text(now, c.public)
    if daye is not None and "recruit_needed" in types:
        await update_message(
            c.interaction, text, view=recruit_view(after.id, d["number"], c.public)
        )
        message = c.interaction.message
        if message is not None:
            await table.bot.store.games.update_meta(after.id, {"recruit_message": message.id})
        return
    if daye is not None:
        round_no = len(daye["rounds"]) + 1
        await update_message(
            c.interaction, text, view=draw_view(after.id, daye["number"], round_no, c.public)
        )
        return
    ticket = table.ticket(after)  # right after the save: the record comes in its order
    try:
        await update_message(c.interaction, text, view=GameView())
    finally:
        await post_reveal(table, ticket, after, events, c.public)


def reveal_record(events: Sequence[Event], locale: Lang) -> tuple[str, dict[str, Any]] | None:
    """The record that a draw's ``events`` make when they end the däye: ``(key, record)``,
    keyed by the däye's number; ``None`` while the däye goes on."""
    over = [e for e in events if e["type"] == "daye_over"]
    if not over:
        return None
    reveal = [e for e in events if e["type"] == "reveal"][-1:]
    rest = [e for e in events if e["type"] in ("nikaye_reinserted", "daye_over")]
    ids = [e["id"] for e in events if e["type"] == "exercise_set" and e["origin"] == "nikaye"]
    record: dict[str, Any] = {
        "text": render.reveal([*reveal, *rest], locale),
        "ids": ids,
        "lines": [render.finished(e, locale) for e in events if e["type"] == "day_finished"],
    }
    return str(over[0]["daye"]), record


async def post_reveal(
    table: SpayeTable,
    ticket: int,
    stored: StoredGame,
    events: Sequence[Event],
    locale: Lang,
) -> None:
    """The reveal as a new message in the day's thread (the record), in ``ticket``'s turn,
    carrying the buttons of the exercises it set. Its text was saved in ``meta["records"]``
    with the draw; once posted, the record keeps where its message is, so that it can be
    redrawn as those exercises change (and is redrawn at once if one changed meanwhile)."""
    made = reveal_record(events, locale)
    if made is None:  # not the end of a däye: nothing to post in the ticket's turn
        day_posts(table.bot, stored.id).skip(ticket)
        return
    key, record = made
    saved = (stored.meta.get("records") or {}).get(key)
    if record["ids"] and isinstance(saved, dict):
        record = saved
    view = stored.game.public_view()
    owing = [e["player"] for e in events if e["type"] == "exercise_set"]
    message = await table.post(
        stored,
        ticket,
        render.record_text(record, view, locale),
        record_view(stored, record, view, locale),
        notify(*owing),  # who owes an exercise, not every name it shows
    )
    if record["ids"]:
        await record_posted(table, stored, key, message)
