"""Before the hour: planning a night, its Discord scheduled event, its RSVP message, the
Interested list, the reminders and the minimum-players check.

Order of every accepted action: the night is stored first, then Discord is told (event,
message), then the ids Discord gave are stored, then the member is answered. Notices go
through ``bot.store.nights.mark_sent`` (claimed before sending: never twice) and the
durable timers (``night.remind_day``, ``night.remind_hour``, ``night.calloff``,
``night.start``, keys ``night:<id>:<kind>``), so a restart sends nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final
from zoneinfo import ZoneInfo

import discord

from bot.budget import Priority, priority
from bot.clock import from_iso, to_iso
from bot.i18n import Lang, locale_for_user, normalize_locale, t
from bot.storage import StaleNight
from bot.storage.models import Night, RsvpAnswer
from bot.text import TooLong, clip, code, escape, neutralize, plain
from bot.ui import GameButton, GameSelect, Press, game_view, notify, reply_error, respond

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger(__name__)

NIGHT_GAMES: Final = ("papayoo", "speahx", "spit")
"""The games a night's tables play (Späye is the daily challenge, not a table game)."""
GAME_NAMES: Final = {"papayoo": "Papayoo", "speahx": "Speahx", "spit": "Spit"}
KIND: Final = "night"
"""The kind in the RSVP message's custom ids (``gn:night:<id>:rsvp:in``...)."""
SETTINGS: Final = "gamenight"
"""The per-server settings of game nights (``planner_role``)."""
EVENT_HOURS: Final = 3
"""How long the scheduled event lasts (Discord needs an end for an external event)."""
MAX_AHEAD: Final = timedelta(days=365)
TITLE_LIMIT: Final = 100
ANSWERS: Final[tuple[RsvpAnswer, ...]] = ("in", "maybe", "no")
ANSWER_STYLE: Final = {
    "in": discord.ButtonStyle.success,
    "maybe": discord.ButtonStyle.secondary,
    "no": discord.ButtonStyle.danger,
}
REMIND_DAY: Final = "night.remind_day"
REMIND_HOUR: Final = "night.remind_hour"
CALLOFF: Final = "night.calloff"
START: Final = "night.start"
NEXT_WEEK: Final = "night.next_week"
"""A weekly night's hour: plan the next week's (its own timer: the start's handler is the
seating's)."""
TIMER_KINDS: Final = (REMIND_DAY, REMIND_HOUR, CALLOFF, START, NEXT_WEEK, "night.poll_end")


class Refused(Exception):
    """Bad input: ``key`` (and its params) is the private answer; nothing was changed."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def timer_key(night_id: int, kind: str) -> str:
    return f"night:{night_id}:{kind.removeprefix('night.')}"


def parse_games(text: str) -> list[str]:
    """``"papayoo, Spit"`` -> ``["papayoo", "spit"]``; ``any``/``all``: every game."""
    words = [w.strip().lower() for w in text.replace(";", ",").replace(" ", ",").split(",")]
    words = [w for w in words if w]
    if any(w in ("any", "all", "tout", "tous") for w in words):
        return list(NIGHT_GAMES)
    names = {name.lower(): kind for kind, name in GAME_NAMES.items()}
    games: list[str] = []
    for word in words:
        kind = names.get(word)
        if kind is None:
            raise Refused("gamenight.refused.unknown_game", game=code(word, 32),
                          games=", ".join(GAME_NAMES.values()))  # fmt: skip
        if kind not in games:
            games.append(kind)
    if not games:
        raise Refused("gamenight.refused.no_game", games=", ".join(GAME_NAMES.values()))
    return games


def parse_when(text: str, zone: str, now: datetime) -> datetime:
    """``"2025-03-20 19:30"`` in the server's time zone -> UTC; refuses the past and more
    than a year ahead."""
    cleaned = text.strip().replace("T", " ").replace("h", ":")
    try:
        local = datetime.strptime(cleaned, "%Y-%m-%d %H:%M")
    except ValueError:
        raise Refused("gamenight.refused.bad_when", when=code(text, 40)) from None
    start = local.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)
    if start <= now:
        raise Refused("gamenight.refused.past")
    if start > now + MAX_AHEAD:
        raise Refused("gamenight.refused.too_far")
    return start


def shown_time(night: Night) -> str:
    """Discord's own timestamp markup: each reader sees it in their time zone."""
    return f"<t:{int(night.starts_at.timestamp())}:F>"


def games_text(games: Sequence[str]) -> str:
    return ", ".join(GAME_NAMES.get(g, g) for g in games)


async def may_plan(bot: GamenightBot, interaction: discord.Interaction[Any]) -> bool:
    """The server's planner role when ``/config gamenight-role`` set one, else members who
    may create events (Create Events, Manage Events or Manage Server)."""
    member = interaction.user
    if interaction.guild is None or not isinstance(member, discord.Member):
        return False
    saved = await bot.store.game_settings.get(interaction.guild.id, SETTINGS)
    role_id = saved.get("planner_role")
    perms = interaction.permissions
    if perms.administrator or perms.manage_guild:
        return True
    if role_id:
        return any(role.id == int(role_id) for role in member.roles)
    return bool(perms.create_events or perms.manage_events)


def rsvp_view(night: Night, locale: Lang) -> discord.ui.View:
    buttons = [
        GameButton(
            KIND,
            night.id,
            "rsvp",
            answer,
            label=t(f"gamenight.rsvp.{answer}", locale),
            style=ANSWER_STYLE[answer],
            row=0,
        )
        for answer in ANSWERS
    ]
    options = [discord.SelectOption(label=GAME_NAMES[g], value=g) for g in night.games]
    wish = GameSelect(KIND, night.id, "wish", options,
                      placeholder=t("gamenight.rsvp.wish", locale), min_values=0,
                      max_values=len(options), row=1)  # fmt: skip
    return game_view(*buttons, wish)


async def rsvp_text(bot: GamenightBot, night: Night, locale: Lang) -> str:
    answers = await bot.store.nights.rsvps(night.id)
    lines = [
        t("gamenight.rsvp.title", locale, title=escape(night.title)),
        t("gamenight.rsvp.when", locale, when=shown_time(night), games=games_text(night.games)),
    ]
    if night.min_players:
        lines.append(t("gamenight.rsvp.minimum", locale, count=night.min_players))
    for answer in ANSWERS:
        who = [r for r in answers if r.answer == answer]
        names = ", ".join(f"<@{r.user_id}>" for r in who) or "—"
        lines.append(f"{t(f'gamenight.rsvp.{answer}', locale)} ({len(who)}): {names}")
    if night.status == "cancelled":
        lines.append(t("gamenight.rsvp.cancelled", locale))
    elif night.status == "called_off":
        lines.append(t("gamenight.rsvp.called_off", locale))
    return "\n".join(lines)


async def public_locale(bot: GamenightBot, guild_id: int) -> Lang:
    return (await bot.guild_settings(guild_id)).locale


async def refresh_rsvp(bot: GamenightBot, night: Night) -> None:
    """Edit the night's one RSVP message to its answers (buttons gone once it ended)."""
    if night.rsvp_message_id is None:
        return
    locale = await public_locale(bot, night.guild_id)
    channel = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
    message = channel.get_partial_message(night.rsvp_message_id)
    view = rsvp_view(night, locale) if night.status in ("planned", "polling") else None
    try:
        with priority(Priority.TABLE):
            await message.edit(content=await rsvp_text(bot, night, locale), view=view,
                               allowed_mentions=discord.AllowedMentions.none())  # fmt: skip
    except discord.HTTPException:
        log.warning("could not refresh a night's RSVP message", extra={"night_id": night.id})


async def schedule_timers(bot: GamenightBot, night: Night) -> None:
    """(Re)arm the night's timers from its start (those already past are skipped)."""
    now = bot.clock.now()
    wanted = [
        (REMIND_DAY, night.starts_at - timedelta(days=1)),
        (REMIND_HOUR, night.starts_at - timedelta(hours=1)),
        (START, night.starts_at),
    ]
    if night.min_players:
        wanted.append((CALLOFF, night.starts_at - timedelta(minutes=night.calloff_minutes)))
    if night.weekly:
        wanted.append((NEXT_WEEK, night.starts_at))
    for kind, due in wanted:
        if kind not in (START, NEXT_WEEK) and due <= now:
            continue
        await bot.timers.schedule(kind, max(due, now), {"night_id": night.id},
                                  key=timer_key(night.id, kind))  # fmt: skip


async def cancel_timers(bot: GamenightBot, night_id: int, *, keep: Sequence[str] = ()) -> None:
    """Drop the night's pending timers (but those of the kinds in ``keep``)."""
    for kind in TIMER_KINDS:
        if kind not in keep:
            await bot.timers.cancel(timer_key(night_id, kind))


POLL_ANSWERS: Final = 10
"""Discord's most answers in a poll: at most 10 evenings to choose from."""
POLL_LEAD: Final = timedelta(hours=2)
"""A poll lasts whole hours and ends an hour before the earliest evening at the latest."""
POLL_HOURS: Final = 24
POLL_END: Final = "night.poll_end"


def split_when(text: str) -> list[str]:
    """``"2025-03-20 19:30 | 2025-03-21 19:30"``: several evenings, for a poll."""
    parts = [p.strip() for p in text.replace(";", "|").split("|")]
    return [p for p in parts if p] or [text]


def local_label(start: datetime, zone: str) -> str:
    """A poll answer (plain text, 55 characters at most): the evening in the server's zone."""
    return start.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")


async def open_poll(
    bot: GamenightBot,
    interaction: discord.Interaction[Any],
    night: Night,
    starts: Sequence[datetime],
) -> None:
    """An undecided evening: a Discord poll of the candidate evenings in the channel; when it
    ends (``night.poll_end``) the night is made from the winner."""
    locale = locale_for_user(interaction)
    public = (await bot.guild_settings(night.guild_id)).locale
    zone = str(night.meta.get("timezone") or "UTC")
    hours = int(
        min(POLL_HOURS, (starts[0] - bot.clock.now() - timedelta(hours=1)).total_seconds() // 3600)
    )
    poll = discord.Poll(
        question=clip(t("gamenight.poll.question", public, title=night.title), 300),
        duration=timedelta(hours=max(1, hours)),
    )
    for start in starts:
        poll.add_answer(text=local_label(start, zone))
    messageable = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
    try:
        message = await messageable.send(poll=poll, allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException:
        await bot.store.nights.update(night.id, status="cancelled")
        await respond(interaction, t("gamenight.refused.poll_failed", locale), ephemeral=True)
        return
    night = await bot.store.nights.update(
        night.id, meta={**night.meta, "poll_message_id": message.id}
    )
    await bot.timers.schedule(POLL_END, bot.clock.now() + timedelta(hours=max(1, hours)),
                              {"night_id": night.id}, key=timer_key(night.id, POLL_END))  # fmt: skip
    await respond(interaction, t("gamenight.poll.opened", locale, title=escape(night.title),
                                 id=night.id, count=len(starts)), ephemeral=True)  # fmt: skip


async def close_poll(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The poll's end: the evening with the most votes (the earliest of a tie) becomes the
    night's, then its event and RSVP message are made."""
    night = await bot.store.nights.get(int(payload["night_id"]))
    if night is None or night.status != "polling":
        return
    guild = bot.get_guild(night.guild_id)
    evenings = [from_iso(x) for x in night.meta.get("evenings", [])]
    message_id = night.meta.get("poll_message_id")
    if guild is None or not evenings or message_id is None:
        return
    channel = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
    message = await channel.fetch_message(int(message_id))
    poll = message.poll
    if poll is not None and not poll.is_finalised():
        try:
            await poll.end()
        except discord.HTTPException:
            log.info("the night's poll had ended already", extra={"night_id": night.id})
        message = await channel.fetch_message(int(message_id))
        poll = message.poll
    counts = [a.vote_count for a in poll.answers] if poll is not None else []
    counts += [0] * (len(evenings) - len(counts))
    best = max(range(len(evenings)), key=lambda i: (counts[i], -i))
    start = evenings[best]
    if start <= bot.clock.now():
        await cancel(bot, night, by_hand=False)
        return
    try:
        night = await bot.store.nights.update(night.id, when_status=["polling"],
                                              status="planned", starts_at=start)  # fmt: skip
    except StaleNight:
        return
    await publish(bot, guild, night)


async def publish(bot: GamenightBot, guild: discord.Guild, night: Night) -> Night | str:
    """Make the stored night's scheduled event, post its RSVP message and arm its timers;
    the night as stored then, or the refusal's key (the night is then cancelled)."""
    public = (await bot.guild_settings(guild)).locale
    channel = guild.get_channel(night.channel_id)
    channel_name = getattr(channel, "name", None) or "Discord"
    try:
        event = await guild.create_scheduled_event(
            name=clip(night.title, TITLE_LIMIT),
            start_time=night.starts_at,
            end_time=night.starts_at + timedelta(hours=EVENT_HOURS),
            entity_type=discord.EntityType.external,
            privacy_level=discord.PrivacyLevel.guild_only,
            location=clip(f"#{channel_name}", 100),
            description=t("gamenight.event.description", public, games=games_text(night.games)),
        )
    except discord.HTTPException as err:
        await bot.store.nights.update(night.id, status="cancelled")
        if err.status == 403:
            return "gamenight.refused.no_create_events"
        return "gamenight.refused.event_failed"
    night = await bot.store.nights.update(night.id, event_id=event.id)
    messageable = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
    try:
        message = await messageable.send(
            await rsvp_text(bot, night, public),
            view=rsvp_view(night, public),
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException:
        log.warning("could not post a night's RSVP message", extra={"night_id": night.id})
    else:
        night = await bot.store.nights.update(night.id, rsvp_message_id=message.id)
    await schedule_timers(bot, night)
    return night


def next_week(night: Night) -> datetime:
    """The same local time a week later, in the zone the night was planned in (a change
    of daylight-saving time keeps the hour people know)."""
    zone = ZoneInfo(str(night.meta.get("timezone") or "UTC"))
    local = night.starts_at.astimezone(zone).replace(tzinfo=None) + timedelta(days=7)
    return local.replace(tzinfo=zone).astimezone(UTC)


async def plan_next_week(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """A weekly night at its hour: the next week's night is planned once (its own event,
    RSVP message and timers), unless the series was cancelled."""
    night = await bot.store.nights.get(int(payload["night_id"]))
    if night is None or not night.weekly or night.status == "cancelled":
        return
    guild = bot.get_guild(night.guild_id)
    if guild is None or not await bot.store.nights.mark_sent(night.id, "next_week"):
        return
    following = await bot.store.nights.create(
        guild_id=night.guild_id,
        channel_id=night.channel_id,
        title=night.title,
        starts_at=next_week(night),
        planner_id=night.planner_id,
        games=night.games,
        min_players=night.min_players,
        calloff_minutes=night.calloff_minutes,
        calloff_policy=night.calloff_policy,
        allow_computers=night.allow_computers,
        weekly=True,
        meta={**night.meta, "after": night.id},
    )
    with priority(Priority.NOTICE):
        published = await publish(bot, guild, following)
    if isinstance(published, str):
        log.warning("could not plan a weekly night", extra={"night_id": night.id, "why": published})


async def plan(
    bot: GamenightBot,
    interaction: discord.Interaction[Any],
    *,
    when: str,
    games: str,
    title: str | None,
    min_players: int,
    calloff_hours: int,
    keep: bool,
    computers: bool,
    weekly: bool = False,
) -> None:
    guild = interaction.guild
    channel = interaction.channel
    locale = locale_for_user(interaction)
    try:
        if guild is None or channel is None:
            raise Refused("gamenight.refused.guild_only")
        if not await may_plan(bot, interaction):
            raise Refused("gamenight.refused.not_planner")
        if not interaction.app_permissions.create_events:
            raise Refused("gamenight.refused.no_create_events")
        settings = await bot.guild_settings(guild)
        now = bot.clock.now()
        starts = sorted({parse_when(w, settings.timezone, now) for w in split_when(when)})
        if len(starts) > POLL_ANSWERS:
            raise Refused("gamenight.refused.too_many_evenings", limit=POLL_ANSWERS)
        if len(starts) > 1 and starts[0] - now < POLL_LEAD:
            raise Refused("gamenight.refused.poll_too_soon")
        start = starts[0]
        kinds = parse_games(games)
        try:
            name = plain(neutralize(title, TITLE_LIMIT)) if title else t("gamenight.default_title",
                                                                  settings.locale)  # fmt: skip
        except TooLong:
            raise Refused("gamenight.refused.title_long", limit=TITLE_LIMIT) from None
        except ValueError:
            raise Refused("gamenight.refused.title_empty") from None
    except Refused as refused:
        await reply_error(interaction, refused.key, **refused.params)
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    night = await bot.store.nights.create(
        guild_id=guild.id,
        channel_id=channel.id,
        title=name,
        starts_at=start,
        planner_id=interaction.user.id,
        games=kinds,
        min_players=min_players,
        calloff_minutes=calloff_hours * 60,
        calloff_policy="keep" if keep else "cancel",
        allow_computers=computers,
        weekly=weekly,
        status="polling" if len(starts) > 1 else "planned",
        meta={"timezone": settings.timezone, "evenings": [to_iso(x) for x in starts]},
    )
    if len(starts) > 1:
        await open_poll(bot, interaction, night, starts)
        return
    published = await publish(bot, guild, night)
    if isinstance(published, str):
        await respond(interaction, t(published, locale), ephemeral=True)
        return
    night = published
    await respond(
        interaction,
        t(
            "gamenight.planned",
            locale,
            title=escape(night.title),
            when=shown_time(night),
            id=night.id,
            games=games_text(kinds),
        ),
        ephemeral=True,
    )


async def on_press(bot: GamenightBot, interaction: discord.Interaction[Any], press: Press) -> None:
    """An RSVP button (``rsvp``, arg the answer) or the wished games (``wish``)."""
    night = await bot.store.nights.get(press.game_id)
    if interaction.user.bot:
        await reply_error(interaction, "gamenight.refused.bot")
        return
    if night is None or night.status not in ("planned", "polling"):
        await reply_error(interaction, "gamenight.refused.night_over")
        return
    user_id = interaction.user.id
    locale = locale_for_user(interaction)  # kept with the answer: their reminders' language
    if press.action == "rsvp" and press.arg in ANSWERS:
        answer: RsvpAnswer = press.arg
        await bot.store.nights.set_rsvp(night.id, user_id, answer, locale=locale)
    elif press.action == "wish":
        wished = [g for g in press.values if g in night.games]
        before = await bot.store.nights.rsvp(night.id, user_id)
        await bot.store.nights.set_rsvp(
            night.id, user_id, before.answer if before else "in", wished, locale=locale
        )
    else:
        await reply_error(interaction, "errors.unknown_button")
        return
    mine = await bot.store.nights.rsvp(night.id, user_id)
    await respond(
        interaction,
        t(
            "gamenight.rsvp.saved",
            locale,
            answer=t(f"gamenight.rsvp.{mine.answer}", locale),  # type: ignore[union-attr]
            games=games_text(mine.games)
            if mine and mine.games
            else t("gamenight.rsvp.any", locale),
        ),
        ephemeral=True,
    )
    await refresh_rsvp(bot, night)


async def interested(
    bot: GamenightBot, guild_id: int, event_id: int, user_id: int, added: bool
) -> None:
    """A member marked the night's event Interested (``added``) or not: their answer follows
    (Interested: in; no longer: maybe, if they were in)."""
    night = await bot.store.nights.by_event(guild_id, event_id)
    if night is None or night.status not in ("planned", "polling"):
        return
    user = bot.get_user(user_id)
    if user is not None and user.bot:
        return
    before = await bot.store.nights.rsvp(night.id, user_id)
    if added and (before is None or before.answer != "in"):
        await bot.store.nights.set_rsvp(night.id, user_id, "in")
    elif not added and before is not None and before.answer == "in":
        await bot.store.nights.set_rsvp(night.id, user_id, "maybe")
    else:
        return
    await refresh_rsvp(bot, night)


async def cancel_event(bot: GamenightBot, night: Night) -> None:
    """Cancel the night's scheduled event (it stays in Discord's list as cancelled)."""
    guild = bot.get_guild(night.guild_id)
    if guild is None or night.event_id is None:
        return
    try:
        event = await guild.fetch_scheduled_event(night.event_id)
        await event.cancel()
    except discord.HTTPException:
        log.warning("could not cancel a night's event", extra={"night_id": night.id})


async def cancel(bot: GamenightBot, night: Night, *, by_hand: bool) -> bool:
    """Cancel the night once: its timers dropped, its event cancelled (unless it was
    deleted by hand), one message in its channel. ``False`` if it was not open."""
    try:
        night = await bot.store.nights.update(night.id, when_status=("planned", "polling"),
                                              status="cancelled")  # fmt: skip
    except StaleNight:
        return False
    await cancel_timers(bot, night.id)
    if not by_hand:
        await cancel_event(bot, night)
    await refresh_rsvp(bot, night)
    if await bot.store.nights.mark_sent(night.id, "cancelled"):
        locale = await public_locale(bot, night.guild_id)
        channel = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
        key = "gamenight.cancelled.by_hand" if by_hand else "gamenight.cancelled"
        try:
            with priority(Priority.NOTICE):
                await channel.send(t(key, locale, title=escape(night.title)),
                                   allowed_mentions=discord.AllowedMentions.none())  # fmt: skip
        except discord.HTTPException:
            log.warning("could not announce a cancelled night", extra={"night_id": night.id})
    return True


async def remind(bot: GamenightBot, payload: dict[str, Any], what: str) -> None:
    """DM each member who is in, once (``mark_sent`` before the DM), at notice priority."""
    night = await bot.store.nights.get(int(payload["night_id"]))
    if night is None or night.status != "planned":
        return
    for rsvp in await bot.store.nights.attendees(night.id):
        if not await bot.store.nights.mark_sent(night.id, what, rsvp.user_id):
            continue
        # the language they answered in; the server's when they only marked the event
        locale: Lang = (
            normalize_locale(rsvp.locale)
            if rsvp.locale
            else (await bot.guild_settings(night.guild_id)).locale
        )
        text = t(f"gamenight.{what}", locale, title=escape(night.title), when=shown_time(night),
                 channel=f"<#{night.channel_id}>")  # fmt: skip
        with priority(Priority.NOTICE):
            await bot.private.send(rsvp.user_id, f"night:{night.id}:{what}", text, locale=locale)


async def calloff(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The minimum-players check: below it the night is called off (policy ``cancel``) or
    kept; either way every member who is in is told once, in the channel."""
    night = await bot.store.nights.get(int(payload["night_id"]))
    if night is None or night.status != "planned" or not night.min_players:
        return
    ins = await bot.store.nights.attendees(night.id)
    if len(ins) >= night.min_players:
        return
    if night.calloff_policy == "cancel":
        try:
            night = await bot.store.nights.update(night.id, when_status=["planned"],
                                                  status="called_off")  # fmt: skip
        except StaleNight:
            return
        await cancel_timers(bot, night.id, keep=(NEXT_WEEK,))  # a weekly series goes on
        await cancel_event(bot, night)
        await refresh_rsvp(bot, night)
    if not await bot.store.nights.mark_sent(night.id, "calloff"):
        return
    locale = await public_locale(bot, night.guild_id)
    key = (
        "gamenight.calloff.cancel" if night.calloff_policy == "cancel" else "gamenight.calloff.keep"
    )
    names = " ".join(f"<@{r.user_id}>" for r in ins)
    text = t(key, locale, title=escape(night.title), count=len(ins), minimum=night.min_players,
             players=names or "—")  # fmt: skip
    channel = bot.get_partial_messageable(night.channel_id, guild_id=night.guild_id)
    with priority(Priority.NOTICE):
        await channel.send(text, allowed_mentions=notify(*(r.user_id for r in ins)))


async def edit(
    bot: GamenightBot,
    interaction: discord.Interaction[Any],
    night: Night,
    *,
    when: str | None,
    games: str | None,
    title: str | None,
) -> None:
    """Move, rename or change the games of a planned night: the night, then its event, its
    RSVP message and its timers follow."""
    guild = interaction.guild
    changes: dict[str, Any] = {}
    try:
        if guild is None:
            raise Refused("gamenight.refused.guild_only")
        if night.status != "planned":
            raise Refused("gamenight.refused.night_over")
        if when is not None:
            zone = (await bot.guild_settings(guild)).timezone
            changes["starts_at"] = parse_when(when, zone, bot.clock.now())
        if games is not None:
            changes["games"] = parse_games(games)
        if title is not None:
            try:
                changes["title"] = plain(neutralize(title, TITLE_LIMIT))
            except TooLong:
                raise Refused("gamenight.refused.title_long", limit=TITLE_LIMIT) from None
            except ValueError:
                raise Refused("gamenight.refused.title_empty") from None
        if not changes:
            raise Refused("gamenight.refused.nothing_to_edit")
    except Refused as refused:
        await reply_error(interaction, refused.key, **refused.params)
        return
    await interaction.response.defer(ephemeral=True, thinking=True)
    try:
        night = await bot.store.nights.update(night.id, when_status=["planned"], **changes)
    except StaleNight:
        await respond(interaction, t("gamenight.refused.night_over", locale_for_user(interaction)),
                      ephemeral=True)  # fmt: skip
        return
    if night.event_id is not None and guild is not None:
        public = (await bot.guild_settings(guild)).locale
        try:
            event = await guild.fetch_scheduled_event(night.event_id)
            await event.edit(
                name=clip(night.title, TITLE_LIMIT),
                start_time=night.starts_at,
                end_time=night.starts_at + timedelta(hours=EVENT_HOURS),
                description=t("gamenight.event.description", public, games=games_text(night.games)),
            )
        except discord.HTTPException:
            log.warning("could not update a night's event", extra={"night_id": night.id})
    if "starts_at" in changes:
        await cancel_timers(bot, night.id)
        await schedule_timers(bot, night)
    await refresh_rsvp(bot, night)
    await respond(
        interaction,
        t(
            "gamenight.edited",
            locale_for_user(interaction),
            title=escape(night.title),
            when=shown_time(night),
            games=games_text(night.games),
        ),
        ephemeral=True,
    )
