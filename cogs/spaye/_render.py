"""Späye's words on Discord: every public line and ephemeral answer, from engine events and
views. Nothing here decides anything; nothing here ever names a card before its reveal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord

from bot.engine import Event
from bot.engine.cards import NIKAYE
from bot.engine.spaye import TITLE_NAMES
from bot.i18n import Lang, has_key, t
from bot.present import SUIT_SYMBOLS, mention, mentions
from bot.text import clip

COLOUR = discord.Colour(0xE67E22)


def card(code: str, locale: Lang) -> str:
    """``7H`` -> ``7♥``; a nikäye by its name."""
    if code == NIKAYE:
        return t("spaye.card.nikaye", locale)
    return f"{code[:-1]}{SUIT_SYMBOLS.get(code[-1], code[-1])}"


def title_name(title: str) -> str:
    return TITLE_NAMES.get(title, title)


def format_param(name: str, value: Any, locale: Lang) -> str | None:
    """How a Späye refusal shows its own parameters (titles, day statuses, exercise ids);
    players are shown as mentions by :func:`bot.present.refusal` itself, which is given
    this function: ``refusal(err, locale, format_param)``."""
    if name == "title" and isinstance(value, str):
        return title_name(value)
    if name == "status" and isinstance(value, str):
        return status_name(value, locale)
    if name == "ids" and isinstance(value, list):
        return ", ".join(f"#{i}" for i in value)
    return None


def status_name(status: str, locale: Lang) -> str:
    """``running`` / ``active``, ``finished`` / ``over``, ``voided``, in words."""
    key = {"active": "running", "over": "finished"}.get(status, status)
    if has_key(f"spaye.status.{key}", locale):
        return t(f"spaye.status.{key}", locale)
    return status


# -- the day ---------------------------------------------------------------------------------


def opened(opener: str | None, view: Mapping[str, Any], locale: Lang) -> str:
    """The opening message; ``opener`` ``None``: the bot opened it (workday opening)."""
    first = (
        t("spaye.start.opened_auto", locale, exercise=view["exercise"])
        if opener is None
        else t("spaye.start.opened", locale, player=mention(opener), exercise=view["exercise"])
    )
    lines = [
        first,
        t("spaye.start.table", locale, table=view["table"]),
    ]
    bonuses = view["bonuses"]
    if bonuses:
        held = ", ".join(f"{title_name(k)} ({mention(v)})" for k, v in bonuses.items())
        lines.append(t("spaye.start.bonuses", locale, bonuses=held))
    lines.append(t("spaye.start.how", locale))
    return "\n".join(lines)


def closed_for_today(time: str, next_day: str, locale: Lang) -> str:
    return t("spaye.start.closed", locale, time=time, next=next_day)


def exercise_choice(events: Sequence[Event], locale: Lang) -> str:
    lines: list[str] = []
    for e in events:
        if e["type"] == "exercise_proposed":
            lines.append(
                t(
                    "spaye.choice.proposed",
                    locale,
                    by=mention(e["by"]),
                    exercise=e["exercise"],
                    was=e["was"],
                )
            )
        elif e["type"] == "exercise_agreed":
            lines.append(
                t(
                    "spaye.choice.agreed",
                    locale,
                    player=mention(e["player"]),
                    exercise=e["exercise"],
                )
            )
    return "\n".join(lines)


def finished(event: Event, locale: Lang) -> str:
    scores: dict[str, int] = event.get("scores") or {}
    ranking = [p for group in event.get("ranking") or [] for p in group if scores.get(p)]
    lines = [t("spaye.day.finished", locale)]
    if ranking:
        board = ", ".join(f"{mention(p)} {scores[p]}" for p in ranking)
        lines.append(t("spaye.day.ranking", locale, ranking=board))
    return "\n".join(lines)


# -- challenges ------------------------------------------------------------------------------


def challenge(by: str, targets: Sequence[str], final: bool, minutes: int, locale: Lang) -> str:
    key = "spaye.challenge.final" if final else "spaye.challenge.posted"
    return t(key, locale, by=mention(by), targets=mentions(targets, locale), minutes=minutes)


def challenge_answered(event: Event, waiting: Sequence[str], locale: Lang) -> str:
    if event["type"] == "challenge_declined":
        return t("spaye.challenge.declined", locale, player=mention(event["player"]))
    if waiting:
        return t(
            "spaye.challenge.accepted_waiting",
            locale,
            player=mention(event["player"]),
            waiting=mentions(waiting, locale),
        )
    return t("spaye.challenge.accepted", locale, player=mention(event["player"]))


def expired(event: Event, locale: Lang) -> str:
    if event["type"] == "recruit_expired":
        return t("spaye.recruit.expired", locale, player=mention(event["player"]))
    return t(
        "spaye.challenge.expired",
        locale,
        by=mention(event["by"]),
        targets=mentions(event["targets"], locale),
    )


def recruit_offer(by: str, player: str, minutes: int, locale: Lang) -> str:
    return t("spaye.recruit.offer", locale, by=mention(by), player=mention(player), minutes=minutes)


def challenge_text(view: Mapping[str, Any], minutes: int, locale: Lang) -> str:
    """The challenge message while its challenge waits: who, whom, who accepted already."""
    c = view["challenge"]
    lines = [challenge(c["by"], c["targets"], c["final"], minutes, locale)]
    waiting = [p for p in c["targets"] if p not in c["accepted"]]
    for p in c["accepted"]:
        lines.append(
            t(
                "spaye.challenge.accepted_waiting",
                locale,
                player=mention(p),
                waiting=mentions(waiting, locale),
            )
        )
    return "\n".join(lines)


# -- the däye --------------------------------------------------------------------------------


def daye_header(daye: Mapping[str, Any], locale: Lang) -> str:
    key = "spaye.daye.final_header" if daye["final"] else "spaye.daye.header"
    return t(key, locale, number=daye["number"], players=mentions(daye["players"], locale))


def round_line(
    daye: Mapping[str, Any], number: int, cards: Sequence[Mapping[str, str]], locale: Lang
) -> str:
    shown = " · ".join(f"{mention(c['player'])} **{card(c['card'], locale)}**" for c in cards)
    key = "spaye.reveal.final" if daye["final"] and len(cards) == 3 else "spaye.reveal.cards"
    return t(key, locale, number=daye["number"], round=number, cards=shown)


def daye_text(view: Mapping[str, Any], locale: Lang) -> str:
    """The däye message, from the view alone: its header, every tied round revealed so far
    (a tie's reveal never disappears), who drew face down, who is still to draw, the
    recruiting of a third player; once the däye is over, "revealed below"."""
    daye = view["daye"]
    over = daye is None
    if over:
        daye = view["last_daye"]
    lines = [daye_header(daye, locale)]
    rounds = daye["rounds"]
    ties = rounds if not over else rounds[:-1]
    for number, cards in enumerate(ties, start=1):
        lines.append(round_line(daye, number, cards, locale))
        if over or number < len(rounds) or not daye["recruiting"]:
            lines.append(
                t("spaye.reveal.tie", locale, players=mentions(daye["players"][:2], locale))
            )
        else:
            lines.append(
                t("spaye.reveal.recruit", locale, players=mentions(daye["players"], locale))
            )
    if over:
        lines.append(t("spaye.daye.revealed_below", locale))
        return clip("\n".join(lines), 2000)
    if daye["recruiting"] and daye["offer"] is not None:
        offer = daye["offer"]
        lines.append(
            t(
                "spaye.recruit.invited",
                locale,
                by=mention(offer["by"]),
                player=mention(offer["player"]),
            )
        )
    for player in daye.get("drawn") or []:
        lines.append(t("spaye.daye.drew_face_down", locale, player=mention(player)))
    waiting = daye.get("waiting") or []
    if waiting:
        lines.append(t("spaye.daye.waiting", locale, players=mentions(waiting, locale)))
    lines.append(t("spaye.daye.table", locale, table=view["table"]))
    return clip("\n".join(lines), 2000)


def record_text(record: Mapping[str, Any], view: Mapping[str, Any], locale: Lang) -> str:
    """The reveal message: the reveal as it happened (kept in the game's meta while its
    exercises are open), each exercise of the däye still to settle *as it stands now*, then
    what happened to them (done, given up, the committee's answers, bonuses)."""
    lines = [str(record["text"])]
    pending = [e for e in view["exercises"] if e["id"] in record.get("ids", [])]
    for ex in pending:
        lines.append(exercise_line(ex, locale))
    lines += [str(x) for x in record.get("lines", [])]
    if pending:
        lines.append(t("spaye.ex.how", locale))
    return clip("\n".join(lines), 2000)


def exercise_line(ex: Mapping[str, Any], locale: Lang) -> str:
    """One exercise still to settle: what to do now and what confirming it earns."""
    what = exercise_words(ex, locale)
    line = t("spaye.ex.todo", locale, id=ex["id"], player=mention(ex["player"]), what=what)
    stake = ex.get("stake") or {}
    if ex.get("adjusted"):
        line += " " + t(
            "spaye.ex.stake_adjusted",
            locale,
            reps=min(ex["reps"] * ex.get("sets", 1), stake.get("reps", 0)),
        )
    elif stake.get("victory"):
        line += " " + t(
            "spaye.ex.stake_final", locale, reps=stake["reps"], victory=stake["victory"]
        )
    else:
        line += " " + t("spaye.ex.stake", locale, reps=stake.get("reps", 0))
    request = ex.get("request")
    if request is not None:
        line += "\n" + t(
            "spaye.adj.asked",
            locale,
            player=mention(ex["player"]),
            id=ex["id"],
            asked=f"{request['reps']} {request['exercise']}",
            was=f"{ex['reps']} {ex['exercise']}",
        )
        line += " " + t("spaye.adj.who", locale, players=mentions(request["approvers"], locale))
        if ex.get("final"):
            line += " " + t("spaye.adj.final_warning", locale)
    return line


def reveal(events: Sequence[Event], locale: Lang) -> str:
    """The simultaneous reveal and what it means: winner, tie, nikäyes, reinsertion."""
    lines: list[str] = []
    for e in events:
        kind = e["type"]
        if kind == "reveal":
            cards = " · ".join(
                f"{mention(c['player'])} **{card(c['card'], locale)}**" for c in e["cards"]
            )
            key = "spaye.reveal.final" if e["final"] else "spaye.reveal.cards"
            lines.append(t(key, locale, number=e["daye"], round=e["round"], cards=cards))
        elif kind == "nikaye_reinserted":
            lines.append(t("spaye.reveal.reinserted", locale))
        elif kind == "tie":
            lines.append(t("spaye.reveal.tie", locale, players=mentions(e["players"], locale)))
        elif kind == "recruit_needed":
            lines.append(t("spaye.reveal.recruit", locale, players=mentions(e["players"], locale)))
        elif kind == "daye_over":
            lines.append(daye_over(e, locale))
    return "\n".join(lines)


def daye_over(e: Event, locale: Lang) -> str:
    left = t("spaye.daye.table", locale, table=e["table"])
    if e["winner"] is not None:
        return t("spaye.reveal.winner", locale, player=mention(e["winner"])) + " " + left
    players = mentions(e["nikayes"], locale)
    key = "spaye.reveal.final_nikayes" if e["final"] else "spaye.reveal.nikayes"
    return t(key, locale, players=players, count=len(e["nikayes"])) + " " + left


# -- exercises -------------------------------------------------------------------------------


def exercise_prompt(ex: Mapping[str, Any], locale: Lang) -> str:
    """The nikäyé's exercise: what to do, what it earns, which buttons to use."""
    what = exercise_words(ex, locale)
    stake = ex.get("stake") or {}
    if ex["origin"] == "nikaye":
        lines = [t("spaye.ex.todo", locale, id=ex["id"], player=mention(ex["player"]), what=what)]
        if stake.get("victory"):
            lines.append(
                t("spaye.ex.stake_final", locale, reps=stake["reps"], victory=stake["victory"])
            )
        else:
            lines.append(t("spaye.ex.stake", locale, reps=stake.get("reps", 0)))
        lines.append(t("spaye.ex.how", locale))
    else:
        bonus = title_name(ex.get("bonus") or "")
        lines = [
            t(
                "spaye.ex.handed",
                locale,
                id=ex["id"],
                player=mention(ex["player"]),
                what=what,
                bonus=bonus,
            ),
            t("spaye.ex.no_points", locale),
        ]
    return "\n".join(lines)


def exercise_words(ex: Mapping[str, Any], locale: Lang) -> str:
    """``20 push-ups`` or ``20 push-ups, twice``."""
    text = f"{ex['reps']} {ex['exercise']}"
    if ex.get("sets", 1) > 1:
        text = t("spaye.ex.sets", locale, what=text, sets=ex["sets"])
    return text


def exercise_settled(events: Sequence[Event], locale: Lang) -> str:
    """What the Done / Give up click changed, for the exercise message."""
    lines: list[str] = []
    for e in events:
        if e["type"] == "exercise_done":
            pts = e["points"]
            who, what = mention(e["player"]), exercise_words(e, locale)
            if pts["victory"]:
                lines.append(
                    t(
                        "spaye.ex.done_final",
                        locale,
                        player=who,
                        what=what,
                        reps=pts["reps"],
                        victory=pts["victory"],
                    )
                )
            else:
                lines.append(t("spaye.ex.done", locale, player=who, what=what, reps=pts["reps"]))
        elif e["type"] == "exercise_given_up":
            lines.append(t("spaye.ex.given_up", locale, player=mention(e["player"])))
    return "\n".join(lines)


def adjustment_request(e: Event, locale: Lang) -> str:
    was = e["was"]
    lines = [
        t(
            "spaye.adj.asked",
            locale,
            player=mention(e["player"]),
            id=e["id"],
            asked=f"{e['reps']} {e['exercise']}",
            was=f"{was['reps']} {was['exercise']}",
        ),
        t("spaye.adj.who", locale, players=mentions(e["approvers"], locale)),
    ]
    if e["final"]:
        lines.append(t("spaye.adj.final_warning", locale))
    return "\n".join(lines)


def adjustment_answered(e: Event, locale: Lang) -> str:
    what = f"{e['reps']} {e['exercise']}"
    if e["type"] == "adjustment_approved":
        text = t(
            "spaye.adj.approved",
            locale,
            by=mention(e["by"]),
            player=mention(e["player"]),
            what=what,
        )
        if e.get("victory_cancelled"):
            text += " " + t("spaye.adj.victory_cancelled", locale, victory=e["victory_cancelled"])
        return text
    return t("spaye.adj.refused", locale, by=mention(e["by"]), player=mention(e["player"]))


def bonus_used(events: Sequence[Event], locale: Lang) -> str:
    lines: list[str] = []
    for e in events:
        if e["type"] != "bonus_used":
            continue
        who, name = mention(e["player"]), title_name(e["title"])
        if e["title"] == "grand_spayin":
            lines.append(
                t(
                    "spaye.bonus.shared",
                    locale,
                    player=who,
                    title=name,
                    partner=mention(e["partner"]),
                )
            )
        elif e["title"] == "mastaye":
            victims = mentions(e["players"], locale) or t("spaye.nobody", locale)
            lines.append(t("spaye.bonus.tyrant", locale, player=who, title=name, players=victims))
        else:
            key = "spaye.bonus.double" if e["double"] else "spaye.bonus.exempt"
            lines.append(t(key, locale, player=who, title=name, card=card(e["card"], locale)))
    for e in events:
        if e["type"] == "exercise_changed":
            lines.append(
                t(
                    "spaye.bonus.now",
                    locale,
                    player=mention(e["player"]),
                    what=exercise_words(e, locale),
                )
            )
    return "\n".join(lines)


# -- /spaye status ---------------------------------------------------------------------------


def status_embed(view: Mapping[str, Any], day: str, locale: Lang) -> discord.Embed:
    """Cards left, the däye or challenge under way, pending exercises: no card at all."""
    embed = discord.Embed(
        title=t("spaye.status.title", locale, day=day),
        colour=COLOUR,
        description=t(
            "spaye.status.line",
            locale,
            status=status_name(view["status"], locale),
            exercise=view["exercise"],
            table=view["table"],
            dayes=view["dayes"],
        ),
    )
    now: list[str] = []
    c = view.get("challenge")
    if c is not None:
        now.append(
            t(
                "spaye.status.challenge",
                locale,
                by=mention(c["by"]),
                targets=mentions(c["targets"], locale),
            )
        )
    d = view.get("daye")
    if d is not None:
        now.append(daye_header(d, locale))
        if d["recruiting"]:
            now.append(t("spaye.status.recruiting", locale))
        elif d["waiting"]:
            now.append(t("spaye.daye.waiting", locale, players=mentions(d["waiting"], locale)))
    if not now:
        key = "spaye.status.final_next" if view["final_next"] else "spaye.status.free"
        now.append(t(key, locale))
    embed.add_field(
        name=t("spaye.status.now", locale), value=clip("\n".join(now), 1024), inline=False
    )
    pending = []
    for ex in view["exercises"]:
        line = f"#{ex['id']} {mention(ex['player'])}: {exercise_words(ex, locale)}"
        if ex["request"] is not None:
            line += " · " + t("spaye.status.asked", locale)
        pending.append(line)
    if pending:
        embed.add_field(
            name=t("spaye.status.exercises", locale),
            value=clip("\n".join(pending), 1024),
            inline=False,
        )
    scores: dict[str, int] = view["scores"]
    top = sorted((p for p in scores if scores[p]), key=lambda p: -scores[p])[:10]
    if top:
        embed.add_field(
            name=t("spaye.status.points", locale),
            value=clip(
                "\n".join(
                    t(
                        "spaye.status.points_line",
                        locale,
                        player=mention(p),
                        total=scores[p],
                        **view["points"][p],
                    )
                    for p in top
                ),
                1024,
            ),
            inline=False,
        )
    return embed
