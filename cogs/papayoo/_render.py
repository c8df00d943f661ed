"""What Papayoo looks like on Discord: cards, the table, the summaries, a player's hand.

Pure functions of engine views and events plus a language: no I/O, no Discord calls. The
public renders take ``public_view()`` and public events only, so they cannot show a hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final

import discord

from bot.engine.papayoo import HAND_SIZE
from bot.i18n import Lang, t

SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
GROUPS: Final = ("S", "H", "D", "C", "P")
COLOUR: Final = discord.Colour.dark_green()
MAX_FIELD: Final = 1024


def mention(player: str) -> str:
    return f"<@{player}>"


def mentions(players: Iterable[str]) -> str:
    return ", ".join(mention(p) for p in players)


def card(code: str) -> str:
    """``"7H"`` -> ``"7♥"``; a Payoo keeps its code (``"P12"``)."""
    if code.startswith("P"):
        return code
    return code[:-1] + SUIT_SYMBOLS.get(code[-1], code[-1])


def cards(codes: Iterable[str]) -> str:
    return " ".join(card(c) for c in codes)


def suit_of(code: str) -> str:
    return "P" if code.startswith("P") else code[-1]


def hand_text(hand: Sequence[str]) -> str:
    """A hand by suit, one line per suit held: ``♠ 2 5 9`` ... ``Payoo 3 14``."""
    lines = []
    for group in GROUPS:
        numbers = [c[1:] if group == "P" else c[:-1] for c in hand if suit_of(c) == group]
        if numbers:
            head = "Payoo" if group == "P" else SUIT_SYMBOLS[group]
            lines.append(f"{head} {' '.join(numbers)}")
    return "\n".join(lines) or "—"


def suit_name(suit: str, locale: Lang) -> str:
    return t(f"papayoo.suit.{suit}", locale)


def timer_text(seconds: int, locale: Lang) -> str:
    if not seconds:
        return t("papayoo.timer.off", locale)
    return t("papayoo.timer.on", locale, seconds=seconds)


def when(deadline: datetime) -> str:
    """A Discord timestamp counting down in every reader's own time zone."""
    return f"<t:{int(deadline.timestamp())}:R>"


def tricks_per_round(view: Mapping[str, Any]) -> int:
    return HAND_SIZE[len(view["players"])]


def tricks_done(view: Mapping[str, Any]) -> int:
    """Tricks finished in this round (the current trick is number ``tricks_done + 1``)."""
    return int(sum(view["tricks_taken"].values()))


# -- the lobby --------------------------------------------------------------------------------


def lobby_embed(view: Mapping[str, Any], locale: Lang, *, note: str | None = None) -> discord.Embed:
    options = view["options"]
    embed = discord.Embed(
        title=t("papayoo.lobby.title", locale),
        description=t("papayoo.lobby.description", locale, host=mention(view["host"])),
        colour=COLOUR,
    )
    players = view["players"]
    embed.add_field(
        name=t("papayoo.lobby.players", locale, count=len(players), max=8),
        value="\n".join(mention(p) for p in players),
        inline=True,
    )
    embed.add_field(
        name=t("papayoo.lobby.options", locale),
        value=t(
            "papayoo.lobby.options_value",
            locale,
            rounds=options.get("rounds", 4),
            timer=timer_text(int(options.get("turn_seconds", 90)), locale),
        ),
        inline=True,
    )
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return embed


# -- the table --------------------------------------------------------------------------------


def pass_title(game_id: int, view: Mapping[str, Any], locale: Lang) -> str:
    return t(
        "papayoo.table.title_pass",
        locale,
        game_id=game_id,
        round=view["round"],
        rounds=view["rounds"],
    )


def trick_title(
    game_id: int, round_no: int, rounds: int, trick_no: int, tricks: int, locale: Lang
) -> str:
    return t(
        "papayoo.table.title_trick",
        locale,
        game_id=game_id,
        round=round_no,
        rounds=rounds,
        trick=trick_no,
        tricks=tricks,
    )


def _scores(view: Mapping[str, Any], locale: Lang) -> str:
    return "\n".join(
        t(
            "papayoo.table.score_line",
            locale,
            player=mention(p),
            total=view["scores"][p],
            round=view["round_points"][p],
        )
        for p in view["players"]
    )


def table_embed(
    game_id: int, view: Mapping[str, Any], locale: Lang, deadline: datetime | None
) -> discord.Embed:
    """The live table: the pass in progress, or the current trick."""
    if view["phase"] == "pass":
        return _pass_table(game_id, view, locale, deadline)
    embed = discord.Embed(
        title=trick_title(
            game_id,
            view["round"],
            view["rounds"],
            tricks_done(view) + 1,
            tricks_per_round(view),
            locale,
        ),
        colour=COLOUR,
    )
    _papayoo_field(embed, view, locale)
    embed.add_field(name=t("papayoo.table.leader", locale), value=mention(view["leader"]))
    trick = view["trick"]
    embed.add_field(
        name=t("papayoo.table.trick", locale),
        value="\n".join(f"{mention(p['player'])} {card(p['card'])}" for p in trick)
        or t("papayoo.table.trick_empty", locale),
        inline=False,
    )
    turn = mention(view["turn"])
    embed.add_field(
        name=t("papayoo.table.to_play", locale),
        value=t("papayoo.table.deadline", locale, player=turn, when=when(deadline))
        if deadline
        else turn,
        inline=False,
    )
    embed.add_field(name=t("papayoo.table.scores", locale), value=_scores(view, locale))
    return embed


def _papayoo_field(embed: discord.Embed, view: Mapping[str, Any], locale: Lang) -> None:
    suit = view["papayoo_suit"]
    if suit:
        embed.add_field(
            name=t("papayoo.table.papayoo", locale),
            value=t(
                "papayoo.table.papayoo_value",
                locale,
                card=card(view["papayoo"]),
                suit=suit_name(suit, locale),
            ),
        )


def _pass_table(
    game_id: int, view: Mapping[str, Any], locale: Lang, deadline: datetime | None
) -> discord.Embed:
    embed = discord.Embed(
        title=pass_title(game_id, view, locale),
        description=t("papayoo.table.pass_help", locale, size=view["pass_size"]),
        colour=COLOUR,
    )
    locked = set(view["pass_locked"])
    embed.add_field(
        name=t("papayoo.table.passes", locale),
        value="\n".join(f"{'✅' if p in locked else '⏳'} {mention(p)}" for p in view["players"]),
    )
    embed.add_field(name=t("papayoo.table.scores", locale), value=_scores(view, locale))
    footer = t("papayoo.table.dealer", locale, player=mention(view["dealer"]))
    if deadline is not None and len(locked) < len(view["players"]):
        footer += "\n" + t("papayoo.table.pass_deadline", locale, when=when(deadline))
    embed.add_field(name="\u200b", value=footer, inline=False)
    return embed


def abandoned_embed(
    game_id: int, view: Mapping[str, Any], note: str, locale: Lang
) -> discord.Embed:
    """The table of a game ended early: who ended it, the scores it stopped at."""
    embed = discord.Embed(
        title=t("papayoo.abandon.title", locale, game_id=game_id),
        description=note,
        colour=discord.Colour.dark_grey(),
    )
    embed.add_field(name=t("papayoo.table.scores", locale), value=_scores(view, locale))
    return embed


# -- summaries --------------------------------------------------------------------------------


def pass_done_embed(
    game_id: int, view: Mapping[str, Any], die: Mapping[str, Any], locale: Lang
) -> discord.Embed:
    """The pass table once every pass is locked: the die's verdict."""
    return discord.Embed(
        title=pass_title(game_id, view, locale),
        description=t(
            "papayoo.pass.done",
            locale,
            dealer=mention(die["player"]),
            suit=suit_name(die["suit"], locale),
            card=card(die["papayoo"]),
        ),
        colour=COLOUR,
    )


def trick_embed(
    game_id: int,
    won: Mapping[str, Any],
    *,
    round_no: int,
    rounds: int,
    trick_no: int,
    tricks: int,
    papayoo: str | None,
    locale: Lang,
) -> discord.Embed:
    """A finished trick: who played what, who takes it and for how many points."""
    embed = discord.Embed(
        title=trick_title(game_id, round_no, rounds, trick_no, tricks, locale),
        description=t(
            "papayoo.trick.won", locale, winner=mention(won["winner"]), points=won["points"]
        ),
        colour=COLOUR,
    )
    lines = []
    for player, code in zip(won["players"], won["cards"], strict=True):
        star = " 🟥" if code == papayoo else ""
        mark = " ⬅" if player == won["winner"] else ""
        lines.append(f"{mention(player)} {card(code)}{star}{mark}")
    embed.add_field(name=t("papayoo.table.trick", locale), value="\n".join(lines))
    return embed


def round_embed(
    game_id: int, over: Mapping[str, Any], rounds: int, players: Sequence[str], locale: Lang
) -> discord.Embed:
    embed = discord.Embed(
        title=t("papayoo.round.title", locale, game_id=game_id, round=over["round"], rounds=rounds),
        description="\n".join(
            t(
                "papayoo.round.line",
                locale,
                player=mention(p),
                points=over["points"][p],
                total=over["totals"][p],
            )
            for p in players
        ),
        colour=COLOUR,
    )
    return embed


def game_over_embed(game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
    ranking: list[list[str]] = over["ranking"]
    scores: Mapping[str, int] = over["scores"]
    winners = ranking[0] if ranking else []
    key = "papayoo.game.winner" if len(winners) == 1 else "papayoo.game.winners"
    lines = []
    place = 1
    for group in ranking:
        for player in group:
            lines.append(
                t(
                    "papayoo.game.line",
                    locale,
                    rank=place,
                    player=mention(player),
                    score=scores[player],
                )
            )
        place += len(group)
    embed = discord.Embed(
        title=t("papayoo.game.title", locale, game_id=game_id),
        description=t(key, locale, players=mentions(winners)) + "\n\n" + "\n".join(lines),
        colour=discord.Colour.gold(),
    )
    return embed


def stats_embed(
    name: str,
    games: int,
    wins: int,
    points: int,
    rounds: int,
    leaders: Sequence[tuple[int, int, int]],
    locale: Lang,
) -> discord.Embed:
    """One player's record here, and the guild's most frequent winners."""
    embed = discord.Embed(title=t("papayoo.stats.title", locale, name=name), colour=COLOUR)
    embed.add_field(name=t("papayoo.stats.games", locale), value=str(games))
    embed.add_field(name=t("papayoo.stats.wins", locale), value=str(wins))
    average = f"{points / rounds:.1f}" if rounds else "—"
    embed.add_field(name=t("papayoo.stats.average", locale), value=average)
    if leaders:
        embed.add_field(
            name=t("papayoo.stats.leaders", locale),
            value="\n".join(
                t(
                    "papayoo.stats.leader_line",
                    locale,
                    rank=i,
                    player=mention(str(uid)),
                    wins=w,
                    games=g,
                )
                for i, (uid, w, g) in enumerate(leaders, start=1)
            ),
            inline=False,
        )
    return embed


# -- a player's own view ------------------------------------------------------------------------


def neighbours(view: Mapping[str, Any], player: str) -> tuple[str, str]:
    """(left, right): who this player passes to, and who passes to them."""
    players = view["players"]
    seat = players.index(player)
    return players[(seat + 1) % len(players)], players[(seat - 1) % len(players)]


def private_embed(
    game_id: int,
    view: Mapping[str, Any],
    locale: Lang,
    *,
    choice: Sequence[str] = (),
    header: str | None = None,
    deadline: datetime | None = None,
) -> discord.Embed:
    """A player's own view: their hand and what they may do now. ``view`` is ``view(player)``."""
    me = view["player"]
    left, right = neighbours(view, me)
    lines = [header] if header else []
    phase = view["phase"]
    if phase == "pass":
        if me in view["pass_locked"]:
            lines.append(
                t("papayoo.private.locked", locale, cards=cards(view["passed"]), left=mention(left))
            )
        elif choice:
            lines.append(t("papayoo.private.chosen", locale, cards=cards(choice)))
        else:
            lines.append(
                t("papayoo.private.choose", locale, size=view["pass_size"], left=mention(left))
            )
    elif phase == "play":
        if view["received"] is not None and tricks_done(view) == 0 and not view["trick"]:
            lines.append(
                t(
                    "papayoo.private.received",
                    locale,
                    right=mention(right),
                    cards=cards(view["received"]),
                    left=mention(left),
                    cards_passed=cards(view["passed"]),
                )
            )
        if view["trick"]:
            played = " · ".join(f"{mention(p['player'])} {card(p['card'])}" for p in view["trick"])
            lines.append(f"{t('papayoo.table.trick', locale)}: {played}")
        if view["turn"] == me:
            lines.append(t("papayoo.private.your_turn", locale))
        else:
            lines.append(t("papayoo.private.wait", locale, player=mention(view["turn"])))
    else:
        lines.append(t("papayoo.private.over", locale))
    if deadline is not None and me in view["to_act"]:
        lines.append(t("papayoo.private.timer", locale, when=when(deadline)))
    embed = discord.Embed(
        title=t(
            "papayoo.private.title",
            locale,
            game_id=game_id,
            round=view["round"],
            rounds=view["rounds"],
        ),
        description="\n".join(lines),
        colour=COLOUR,
    )
    if view["papayoo_suit"]:
        _papayoo_field(embed, view, locale)
    embed.add_field(
        name=t("papayoo.private.hand", locale), value=hand_text(view["hand"]), inline=False
    )
    return embed
