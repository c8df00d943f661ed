"""Späye's buttons, selects and modal: challenges, draws, exercises, committee, bonuses.

Every click goes the same way, under one per-game lock so the channel shows moves in the
order they were made::

    read the game -> refuse a stale component -> GameStore.act (committed; a bonus spent in
    the same transaction) -> answer the clicker (edit the clicked message or reply) ->
    post a NEW channel message only for a reveal that ends a däye

A calm channel: a däye makes two new messages. The reply to ``/daye`` carries the whole
däye (answers, draws, every tied round, the recruiting of a third player) and is edited in
place; the reveal that ends it is the record, with the buttons of the exercises it set,
redrawn as they are confirmed, adjusted or given up (its text is kept in
``meta["records"]`` while they are open). An expiry edits the invitation's message. Only
a bonus's handed-over exercises and a recruit's invitation (it must ping them) post more.
Nothing is kept in memory but the locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.engine import SYSTEM, Event, IllegalAction
from bot.i18n import Lang, locale_for_user, normalize_locale, t
from bot.storage import GuildSettings, StoredGame
from bot.ui import GameView, Press, auto_defer, report_error, respond, update_message
from cogs.spaye import _render as render
from cogs.spaye._views import (
    EXERCISE_FIELD,
    REPS_FIELD,
    AskModal,
    agree_view,
    bonus_menu,
    draw_view,
    exercise_items,
    exercise_view,
    invitation_view,
    modal_values,
    parse_int,
    parse_modal_id,
    parse_pair,
    recruit_view,
    request_items,
    request_view,
)

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.spaye")

EXPIRY_KIND: Final = "spaye.invite_expiry"
BONUS_OF_ACTION: Final = {
    "bonus_share": "grand_spayin",
    "bonus_tyrant": "mastaye",
    "bonus_double": "tikao",
}


def expiry_key(game_id: int) -> str:
    """One pending invitation per day at a time: each new one replaces the timer."""
    return f"spaye:{game_id}:invite"


@dataclass(frozen=True)
class Click:
    """One component interaction on a Späye day, with what every handler needs."""

    interaction: discord.Interaction[Any]
    press: Press
    stored: StoredGame
    user: str
    locale: Lang
    settings: GuildSettings

    @property
    def public(self) -> Lang:
        return normalize_locale(self.settings.locale)

    @property
    def view(self) -> dict[str, Any]:
        return self.stored.game.public_view()


async def say(interaction: discord.Interaction[Any], text: str) -> None:
    await respond(interaction, text, ephemeral=True)


def find_exercise(view: Mapping[str, Any], eid: int | None) -> dict[str, Any] | None:
    return next((e for e in view["exercises"] if e["id"] == eid), None)


def bonus_titles(stored: StoredGame, player: str, eid: int) -> list[str]:
    """The bonuses ``player`` may use on exercise ``eid`` right now."""
    acts = stored.game.legal_actions(player)
    titles = [
        BONUS_OF_ACTION[a["type"]]
        for a in acts
        if a["type"] in BONUS_OF_ACTION and a.get("id") == eid
    ]
    return list(dict.fromkeys(titles))


class SpayeTable:
    """The handlers of one bot's Späye components (``bot.actions`` routes ``spaye`` here)."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._names: dict[int, dict[str, str]] = {}
        self._handlers: dict[str, Callable[[Click], Awaitable[None]]] = {
            "accept": self._answer_invitation,
            "decline": self._answer_invitation,
            "draw": self._draw,
            "done": self._settle_exercise,
            "giveup": self._settle_exercise,
            "approve": self._answer_request,
            "refuse": self._answer_request,
            "bonus": self._bonus_menu,
            "tyrant": self._use_bonus,
            "double": self._use_bonus,
            "share": self._use_bonus,
            "recruit": self._recruit,
            "agree": self._agree,
        }

    def note_names(self, game_id: int, *users: discord.abc.User) -> None:
        """Remember how these members are called: saved in the game's ``meta["names"]`` with
        the next move (the bot has no member list: menus and the month's picture need them)."""
        seen = self._names.setdefault(game_id, {})
        for user in users:
            seen[str(user.id)] = user.display_name

    def lock(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    async def settings_of(self, guild_id: int) -> GuildSettings:
        guild = self.bot.get_guild(guild_id)
        return await self.bot.guild_settings(guild if guild is not None else guild_id)

    def channel(self, channel_id: int, guild_id: int | None) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    def here(self, c: Click) -> discord.PartialMessageable:
        """The channel of the click (the day's channel when Discord did not say)."""
        return self.channel(c.interaction.channel_id or c.stored.channel_id, c.stored.guild_id)

    # -- acting -------------------------------------------------------------------------------

    async def act(
        self,
        stored: StoredGame,
        player: str,
        action: dict[str, Any],
        meta: Mapping[str, Any] | None = None,
    ) -> tuple[StoredGame, list[Event]]:
        seen = self._names.pop(stored.id, {})
        known: dict[str, str] = dict(stored.meta.get("names") or {})
        if any(known.get(k) != v for k, v in seen.items()):
            meta = {**(meta or {}), "names": {**known, **seen}}
        outcome = await self.bot.store.games.act(
            stored.id, player, action, meta_update=meta, in_tx=self.spend_bonuses
        )
        return outcome.game, outcome.events

    async def spend_bonuses(self, stored: StoredGame, events: list[Event]) -> None:
        """Mark a title's bonus spent with the move that uses it, and every bonus of a day
        that finishes (a voided day gets them back: the database trigger does it)."""
        month = stored.meta.get("bonus_month")
        if not isinstance(month, str):
            return
        titles = [e["title"] for e in events if e["type"] == "bonus_used"]
        if any(e["type"] == "day_finished" for e in events) or stored.status == "over":
            titles += list(stored.game.result().get("bonuses_used") or {})
        for title in dict.fromkeys(titles):
            await self.bot.store.titles.use_bonus(stored.guild_id, month, title, stored.id)

    # -- the components -----------------------------------------------------------------------

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        locale = locale_for_user(interaction)
        try:
            if press.action == "ask":
                await self._ask(interaction, press, locale)
                return
            handler = self._handlers.get(press.action)
            if handler is None:
                await say(interaction, t("errors.unknown_button", locale))
                return
            async with auto_defer(interaction), self.lock(press.game_id):
                stored = await self.bot.store.games.require(press.game_id)
                if not stored.is_active:
                    status = render.status_name(stored.status, locale)
                    await say(interaction, t("spaye.stale.day_over", locale, status=status))
                    return
                settings = await self.settings_of(stored.guild_id)
                user = str(interaction.user.id)
                self.note_names(stored.id, interaction.user)
                await handler(Click(interaction, press, stored, user, locale, settings))
        except IllegalAction as err:
            await say(interaction, render.refusal(err, locale))

    # challenges and invitations ------------------------------------------------------------

    async def invite(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        targets: Sequence[str],
        settings: GuildSettings,
    ) -> None:
        """``/daye``: challenge, or recruit after a tie that left the final three cards."""
        async with self.lock(game_id):
            await self._invite(interaction, game_id, targets, settings)

    async def _invite(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        targets: Sequence[str],
        settings: GuildSettings,
    ) -> None:
        """The invitation and its expiry timer (lock held).

        A challenge is the reply to ``/daye``: that one message then carries the whole däye
        (answers, draws, ties). Its mention pings the colleagues once; no DM repeats it. A
        recruit (after a tie that left 3 cards) is invited in a new message, which pings
        them and carries the final däye from then on; the recruiting menu is taken away.
        """
        locale = locale_for_user(interaction)
        user = str(interaction.user.id)
        public = normalize_locale(settings.locale)
        stored = await self.bot.store.games.require(game_id)
        d = stored.game.public_view()["daye"]
        invite = int(stored.meta.get("invite", 0)) + 1
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
        meta = {"invite": invite, "invite_channel": interaction.channel_id}
        try:
            after, events = await self.act(stored, user, action, meta)
        except IllegalAction as err:
            await say(interaction, render.refusal(err, locale))
            return
        minutes = settings.challenge_expiry_minutes
        first = events[0]
        now = after.game.public_view()
        if first["type"] == "recruit_offered":
            old = after.meta.get("daye_message")
            if _clicked(interaction, old):
                await update_message(interaction, render.daye_text(now, public), view=GameView())
            elif isinstance(old, int):
                await self._edit(after, old, render.daye_text(now, public), GameView())
            text = render.recruit_offer(user, first["player"], minutes, public)
        else:
            text = render.challenge_text(now, minutes, public)
        await self.bot.timers.schedule(
            EXPIRY_KIND,
            self.bot.clock.now() + timedelta(minutes=minutes),
            {"game_id": game_id, "invite": invite},
            key=expiry_key(game_id),
        )
        await respond(interaction, text, view=invitation_view(game_id, invite, public))
        message = await interaction.original_response()
        await self.bot.store.games.update_meta(game_id, {"daye_message": message.id})

    async def _edit(
        self, stored: StoredGame, message_id: int, content: str, view: discord.ui.View
    ) -> None:
        """Edit one of the day's messages that was not clicked (an expiry, a bonus)."""
        channel_id = int(stored.meta.get("invite_channel") or stored.channel_id)
        message = self.channel(channel_id, stored.guild_id).get_partial_message(message_id)
        try:
            await message.edit(content=content[:2000], view=view)
        except discord.HTTPException:
            log.warning("could not edit a Späye message", extra={"game_id": stored.id})

    async def _answer_invitation(self, c: Click) -> None:
        view = c.view
        invite = parse_int(c.press.arg)
        offer = view["daye"] is not None and view["daye"]["offer"] is not None
        if invite != c.stored.meta.get("invite") or (view["challenge"] is None and not offer):
            await say(c.interaction, t("spaye.stale.invite", c.locale))
            return
        after, events = await self.act(c.stored, c.user, {"type": c.press.action})
        now = after.game.public_view()
        kind = events[0]["type"]
        minutes = c.settings.challenge_expiry_minutes
        if now["challenge"] is not None:  # the final: one colleague accepted, one to go
            content, keep = render.challenge_text(now, minutes, c.public), True
        elif kind == "challenge_declined":
            e = events[0]
            content = "\n".join(
                [
                    render.challenge(
                        e["by"], e["targets"], len(e["targets"]) == 2, minutes, c.public
                    ),
                    render.challenge_answered(e, [], c.public),
                ]
            )
            keep = False
        elif kind == "recruit_declined":
            content = "\n".join(
                [
                    render.recruit_offer(events[0]["by"], c.user, minutes, c.public),
                    t("spaye.recruit.declined", c.public, player=render.mention(c.user)),
                ]
            )
            keep = False
        else:  # the däye starts (or the recruit joins): this message carries its draws
            await self.bot.timers.cancel(expiry_key(after.id))
            daye = now["daye"]
            lines = [render.daye_text(now, c.public)]
            if kind == "recruit_accepted":
                lines.insert(
                    0, t("spaye.recruit.accepted", c.public, player=render.mention(c.user))
                )
            round_no = len(daye["rounds"]) + 1
            await update_message(
                c.interaction,
                "\n".join(lines)[:2000],
                view=draw_view(after.id, daye["number"], round_no, c.public),
            )
            return
        view_ = invitation_view(after.id, invite, c.public) if keep and invite else GameView()
        await update_message(c.interaction, content[:2000], view=view_)
        if not keep:
            await self.bot.timers.cancel(expiry_key(after.id))
        if kind == "recruit_declined":
            await self._offer_recruiting(after)

    async def _offer_recruiting(self, stored: StoredGame) -> None:
        """The däye's message gets its recruiting menu back (a recruit declined or timed out)."""
        settings = await self.settings_of(stored.guild_id)
        public = normalize_locale(settings.locale)
        now = stored.game.public_view()
        d = now["daye"]
        message_id = stored.meta.get("recruit_message")
        if d is None or not d["recruiting"] or not isinstance(message_id, int):
            return
        await self._edit(
            stored,
            message_id,
            render.daye_text(now, public),
            recruit_view(stored.id, d["number"], public),
        )
        await self.bot.store.games.update_meta(stored.id, {"daye_message": message_id})

    async def on_expiry(self, payload: dict[str, Any]) -> None:
        """The ``spaye.invite_expiry`` timer: the invitation it names timed out (if still
        open: a later invitation makes it refuse, which the timer runner counts as done).
        The invitation's own message says so: no new message."""
        game_id, invite = int(payload["game_id"]), int(payload["invite"])

        async def same_invitation(new: StoredGame, events: list[Event]) -> None:
            if new.meta.get("invite") != invite:
                raise IllegalAction("this invitation was already answered", "spaye.stale.invite")

        async with self.lock(game_id):
            outcome = await self.bot.store.games.act(
                game_id, SYSTEM, {"type": "expire"}, in_tx=same_invitation
            )
        stored, events = outcome  # the lock is not held across Discord calls
        settings = await self.settings_of(stored.guild_id)
        public = normalize_locale(settings.locale)
        e = events[0]
        minutes = settings.challenge_expiry_minutes
        if e["type"] == "recruit_expired":
            head = render.recruit_offer(e["by"], e["player"], minutes, public)
        else:
            head = render.challenge(e["by"], e["targets"], len(e["targets"]) == 2, minutes, public)
        message_id = stored.meta.get("daye_message")
        if isinstance(message_id, int):
            await self._edit(stored, message_id, f"{head}\n{render.expired(e, public)}", GameView())
        if e["type"] == "recruit_expired":
            await self._offer_recruiting(stored)

    async def _recruit(self, c: Click) -> None:
        d = c.view["daye"]
        if d is None or not d["recruiting"] or str(d["number"]) != c.press.arg:
            await say(c.interaction, t("spaye.stale.recruit", c.locale))
            return
        if c.user not in d["players"]:
            await say(
                c.interaction,
                t("spaye.not_in_daye", c.locale, players=render.mentions(d["players"], c.locale)),
            )
            return
        picked = list(c.press.values)
        if any(_is_bot(c.interaction, p) for p in picked):
            await say(c.interaction, t("spaye.daye.bot", c.locale))
            return
        await self._invite(c.interaction, c.stored.id, picked, c.settings)

    # drawing ------------------------------------------------------------------------------

    async def _draw(self, c: Click) -> None:
        """Draws, ties and the recruiting menu all live on the däye's message; the reveal
        that ends the däye is a new message: the record, with the exercises' buttons."""
        d = c.view["daye"]
        pair = parse_pair(c.press.arg)
        if d is None or pair != (d["number"], len(d["rounds"]) + 1):
            await say(c.interaction, t("spaye.stale.draw", c.locale))
            return
        after, events = await self.act(c.stored, c.user, {"type": "draw"})
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
                await self.bot.store.games.update_meta(after.id, {"recruit_message": message.id})
            return
        if daye is not None:
            round_no = len(daye["rounds"]) + 1
            await update_message(
                c.interaction, text, view=draw_view(after.id, daye["number"], round_no, c.public)
            )
            return
        await update_message(c.interaction, text, view=GameView())
        await self.post_reveal(self.here(c), after, events, c.public)

    async def post_reveal(
        self,
        channel: discord.abc.Messageable,
        stored: StoredGame,
        events: Sequence[Event],
        locale: Lang,
    ) -> None:
        """The reveal as a new message (the record), carrying the buttons of the exercises it
        set. Its text is kept in ``meta["records"]`` while those exercises are open, so the
        message can be redrawn as they change."""
        reveal = [e for e in events if e["type"] == "reveal"][-1:]
        rest = [e for e in events if e["type"] in ("nikaye_reinserted", "daye_over")]
        text = render.reveal([*reveal, *rest], locale)
        ids = [e["id"] for e in events if e["type"] == "exercise_set" and e["origin"] == "nikaye"]
        daye = next(e["daye"] for e in events if e["type"] == "daye_over")
        record: dict[str, Any] = {"text": text, "ids": ids, "lines": []}
        finish = [render.finished(e, locale) for e in events if e["type"] == "day_finished"]
        record["lines"] += finish
        view = stored.game.public_view()
        message = await channel.send(
            render.record_text(record, view, locale),
            view=self.record_view(stored, record, view, locale),
        )
        if ids:
            record["message"] = message.id
            records = dict(stored.meta.get("records") or {})
            records[str(daye)] = record
            await self.bot.store.games.update_meta(stored.id, {"records": records})

    def record_view(
        self, stored: StoredGame, record: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> GameView:
        """One row per open exercise of the record: its buttons, or Approve / Refuse while the
        committee is asked."""
        ask = int(stored.meta.get("ask", 0))
        rows: list[discord.ui.Item[Any]] = []
        for row, ex in enumerate(e for e in view["exercises"] if e["id"] in record.get("ids", [])):
            if ex["request"] is not None:
                rows += request_items(stored.id, ex["id"], ask, locale, row=row)
            else:
                bonus = bool(bonus_titles(stored, ex["player"], ex["id"]))
                rows += exercise_items(stored.id, ex, bonus, locale, row=row)
        return GameView(*rows)

    def _record_of(self, stored: StoredGame, eid: int) -> tuple[str, dict[str, Any]] | None:
        records: dict[str, Any] = stored.meta.get("records") or {}
        for key, record in records.items():
            if eid in record.get("ids", []):
                return key, dict(record)
        return None

    async def _redraw_record(
        self,
        c: Click | None,
        stored: StoredGame,
        key: str,
        record: dict[str, Any],
        interaction: discord.Interaction[Any] | None = None,
    ) -> None:
        """Save the record (dropped once its exercises are all settled) and redraw its
        message: the clicked one when the click was on it, else by its id."""
        view = stored.game.public_view()
        open_ids = {e["id"] for e in view["exercises"]}
        records = dict(stored.meta.get("records") or {})
        if set(record.get("ids", [])) & open_ids and stored.is_active:
            records[key] = record
        else:
            records.pop(key, None)
        stored = await self.bot.store.games.update_meta(stored.id, {"records": records})
        public = normalize_locale((await self.settings_of(stored.guild_id)).locale)
        content = render.record_text(record, view, public)
        buttons = self.record_view(stored, record, view, public) if stored.is_active else GameView()
        target = interaction or (c.interaction if c is not None else None)
        if target is not None and _clicked(target, record.get("message")):
            await update_message(target, content, view=buttons)
        elif isinstance(record.get("message"), int):
            await self._edit(stored, int(record["message"]), content, buttons)

    async def post_exercises(
        self,
        channel: discord.abc.Messageable,
        stored: StoredGame,
        events: Sequence[Event],
        locale: Lang,
    ) -> None:
        """One message per exercise a bonus handed over (share, tyrant), with its buttons."""
        for e in events:
            if e["type"] != "exercise_set" or e["origin"] == "nikaye":
                continue
            await channel.send(
                render.exercise_prompt(e, locale),
                view=exercise_view(stored.id, e, False, locale),
            )

    # exercises ----------------------------------------------------------------------------

    async def _settle_exercise(self, c: Click) -> None:
        eid = parse_int(c.press.arg)
        if eid is None or find_exercise(c.view, eid) is None:
            await say(c.interaction, t("spaye.stale.exercise", c.locale))
            return
        kind = "exercise_done" if c.press.action == "done" else "give_up"
        after, events = await self.act(c.stored, c.user, {"type": kind, "id": eid})
        line = render.exercise_settled(events, c.public)
        finish = [render.finished(e, c.public) for e in events if e["type"] == "day_finished"]
        found = self._record_of(after, eid)
        if found is None:  # an exercise a bonus handed over: its own message
            await _close_with(c, "\n".join([line, *finish]))
            return
        key, record = found
        record["lines"] = [*record.get("lines", []), line, *finish]
        await self._redraw_record(c, after, key, record)

    async def _ask(self, interaction: discord.Interaction[Any], press: Press, locale: Lang) -> None:
        """ "Ask the committee": the modal (answered at once, so no lock and no defer)."""
        stored = await self.bot.store.games.require(press.game_id)
        eid = parse_int(press.arg)
        ex = find_exercise(stored.game.public_view(), eid) if stored.is_active else None
        if ex is None:
            await say(interaction, t("spaye.stale.exercise", locale))
            return
        if ex["player"] != str(interaction.user.id):
            await say(
                interaction,
                t(
                    "spaye.not_your_exercise",
                    locale,
                    id=ex["id"],
                    player=render.mention(ex["player"]),
                ),
            )
            return
        if ex["request"] is not None:
            await say(interaction, t("spaye.adjustment_pending", locale, id=ex["id"]))
            return
        await interaction.response.send_modal(AskModal(stored.id, ex, locale))

    async def on_modal(self, interaction: discord.Interaction[Any]) -> None:
        """A committee request submitted (the ``on_interaction`` listener calls this)."""
        data: Mapping[str, Any] = interaction.data or {}
        ids = parse_modal_id(str(data.get("custom_id", "")))
        if ids is None:
            return
        game_id, eid = ids
        locale = locale_for_user(interaction)
        try:
            async with auto_defer(interaction), self.lock(game_id):
                await self._submit_request(interaction, game_id, eid, modal_values(data), locale)
        except IllegalAction as err:
            await say(interaction, render.refusal(err, locale))
        except Exception as err:
            await report_error(interaction, err, where="spaye:modal")
        finally:
            await self.bot.private.flush_for(interaction)

    async def _submit_request(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        eid: int,
        values: Mapping[str, str],
        locale: Lang,
    ) -> None:
        stored = await self.bot.store.games.require(game_id)
        ex = find_exercise(stored.game.public_view(), eid) if stored.is_active else None
        if ex is None:
            await say(interaction, t("spaye.stale.exercise", locale))
            return
        raw_reps = values.get(REPS_FIELD, "").strip()
        reps = parse_int(raw_reps)
        if raw_reps and reps is None:
            await say(interaction, t("spaye.modal.bad_reps", locale, max=ex["reps"]))
            return
        name = values.get(EXERCISE_FIELD, "").strip()
        ask = int(stored.meta.get("ask", 0)) + 1
        action = {
            "type": "ask_committee",
            "id": eid,
            "reps": reps,
            "exercise": name or None,
        }
        after, events = await self.act(stored, str(interaction.user.id), action, {"ask": ask})
        public = normalize_locale((await self.settings_of(after.guild_id)).locale)
        found = self._record_of(after, eid)
        if found is not None:  # the request shows on the exercise's own message
            key, record = found
            await self._redraw_record(None, after, key, record, interaction)
            return
        await respond(
            interaction,
            render.adjustment_request(events[0], public),
            view=request_view(after.id, eid, ask, public),
        )

    async def _answer_request(self, c: Click) -> None:
        pair = parse_pair(c.press.arg)
        ex = find_exercise(c.view, pair[0] if pair else None)
        request = ex["request"] if ex else None
        if ex is None or pair is None or request is None or c.stored.meta.get("ask") != pair[1]:
            await say(c.interaction, t("spaye.stale.request", c.locale))
            return
        stored = c.stored
        # the nikäyé never answers their own request: joining would change the day for nothing
        joins = c.user not in request["approvers"] and c.user != ex["player"]
        if joins and self._on_committee(c):
            with contextlib.suppress(IllegalAction):  # already on it: fine
                stored, _ = await self.act(stored, SYSTEM, {"type": "committee", "player": c.user})
        after, events = await self.act(stored, c.user, {"type": c.press.action, "id": pair[0]})
        line = render.adjustment_answered(events[0], c.public)
        found = self._record_of(after, pair[0])
        if found is None:
            await _close_with(c, line)
            return
        key, record = found
        record["lines"] = [*record.get("lines", []), line]
        await self._redraw_record(c, after, key, record)

    @staticmethod
    def _on_committee(c: Click) -> bool:
        """Whether the clicker holds the guild's committee role (seen on their own click)."""
        role_id = c.settings.committee_role_id
        member = c.interaction.user
        return (
            role_id is not None
            and isinstance(member, discord.Member)
            and any(r.id == role_id for r in member.roles)
        )

    # the day's exercise -------------------------------------------------------------------

    async def propose(
        self,
        interaction: discord.Interaction[Any],
        game_id: int,
        name: str,
        settings: GuildSettings,
    ) -> None:
        """``/spaye exercise``: propose another exercise; a colleague's Agree replaces it."""
        locale = locale_for_user(interaction)
        public = normalize_locale(settings.locale)
        async with self.lock(game_id):
            stored = await self.bot.store.games.require(game_id)
            number = int(stored.meta.get("proposal", 0)) + 1
            action = {"type": "propose_exercise", "exercise": name}
            try:
                after, events = await self.act(
                    stored, str(interaction.user.id), action, {"proposal": number}
                )
            except IllegalAction as err:
                await say(interaction, render.refusal(err, locale))
                return
            await respond(
                interaction,
                render.exercise_choice(events, public),
                view=agree_view(after.id, number, public),
            )

    async def _agree(self, c: Click) -> None:
        proposal = c.view["proposal"]
        if proposal is None or parse_int(c.press.arg) != c.stored.meta.get("proposal"):
            await say(c.interaction, t("spaye.stale.proposal", c.locale))
            return
        action = {"type": "agree_exercise", "exercise": proposal["exercise"]}
        _, events = await self.act(c.stored, c.user, action)
        await _close_with(c, render.exercise_choice(events, c.public))

    # bonuses ------------------------------------------------------------------------------

    async def _bonus_menu(self, c: Click) -> None:
        eid = parse_int(c.press.arg)
        ex = find_exercise(c.view, eid)
        if ex is None or eid is None:
            await say(c.interaction, t("spaye.stale.exercise", c.locale))
            return
        titles = bonus_titles(c.stored, c.user, eid)
        if not titles:
            key = "spaye.bonus.none" if c.user == ex["player"] else "spaye.bonus.not_yours"
            await say(c.interaction, t(key, c.locale, player=render.mention(ex["player"])))
            return
        names = ", ".join(render.title_name(x) for x in titles)
        partners = share_partners(c.stored, c.user, eid) if "grand_spayin" in titles else []
        today = c.view["spayins"]
        partners.sort(key=lambda p: p not in today)  # today's späyins first
        known: dict[str, str] = c.stored.meta.get("names") or {}
        labels = {p: known.get(p) or self._name(c.stored.guild_id, p) for p in partners}
        await respond(
            c.interaction,
            t("spaye.bonus.menu", c.locale, id=eid, titles=names),
            view=bonus_menu(c.stored.id, eid, titles, labels, c.locale),
            ephemeral=True,
        )

    def _name(self, guild_id: int, user_id: str) -> str:
        """A member's display name for a menu (menus can't show mentions)."""
        guild = self.bot.get_guild(guild_id)
        member = guild.get_member(int(user_id)) if guild is not None else None
        if member is None:
            user = self.bot.get_user(int(user_id))
            return user.display_name if user is not None else user_id
        return member.display_name

    async def _use_bonus(self, c: Click) -> None:
        eid = parse_int(c.press.arg)
        if eid is None or find_exercise(c.view, eid) is None:
            await say(c.interaction, t("spaye.stale.exercise", c.locale))
            return
        action: dict[str, Any] = {"type": f"bonus_{c.press.action}", "id": eid}
        if c.press.action == "share":
            action["with"] = (c.press.values or ("",))[0]
        after, events = await self.act(c.stored, c.user, action)
        text = render.bonus_used(events, c.public)
        await update_message(c.interaction, t("spaye.bonus.used", c.locale), view=GameView())
        finish = [render.finished(e, c.public) for e in events if e["type"] == "day_finished"]
        found = self._record_of(after, eid)
        if found is not None:
            key, record = found
            record["lines"] = [*record.get("lines", []), text, *finish]
            await self._redraw_record(None, after, key, record)
        else:
            await self.here(c).send("\n".join([text, *finish])[:2000])
        await self.post_exercises(self.here(c), after, events, c.public)


def share_partners(stored: StoredGame, player: str, eid: int) -> list[str]:
    """The späyins the Grand Späyin may share exercise ``eid`` with (the engine's list)."""
    return [
        str(a["with"])
        for a in stored.game.legal_actions(player)
        if a["type"] == "bonus_share" and a.get("id") == eid
    ]


def _clicked(interaction: discord.Interaction[Any], message_id: object) -> bool:
    """Whether the interaction came from the message ``message_id``."""
    message = interaction.message
    return message is not None and isinstance(message_id, int) and message.id == message_id


def _message_text(interaction: discord.Interaction[Any]) -> str:
    message = interaction.message
    return message.content if message is not None else ""


async def _close_with(c: Click, line: str) -> None:
    """The clicked message, its buttons gone, with ``line`` added: what the click did."""
    await update_message(
        c.interaction, f"{_message_text(c.interaction)}\n{line}"[:2000], view=GameView()
    )


def _is_bot(interaction: discord.Interaction[Any], user_id: str) -> bool:
    """Whether a user picked in a user select is a bot (from the interaction's resolved data)."""
    data: Mapping[str, Any] = interaction.data or {}
    users = (data.get("resolved") or {}).get("users") or {}
    return bool((users.get(user_id) or {}).get("bot"))
