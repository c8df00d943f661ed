"""What Papayoo looks like on Discord: the table, a player's hand, the round's record.

Pure functions of engine views and events plus a language (a :class:`SeatedRenderer`): no
I/O, no Discord calls. The public renders take ``public_view()`` and public events only, so
they cannot show a hand. A card reads the same everywhere, on buttons, in the hand and on
the table: its art (the round's Papayoo marked), or ``7♥`` and ``P12`` without art.

The table at a glance: the Papayoo of the round, the previous trick (who played what, who
took it and its points), the seats from the trick's leader on with the cards already played
and ``▶`` before whoever plays now, and the scores round by round in a small table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import discord

from bot.columns import clip as clip_columns
from bot.columns import display_width, ljust, rjust
from bot.engine.papayoo import HAND_SIZE
from bot.i18n import Lang, t
from bot.seated import HandContext, Label, MultiPick, SeatedRenderer, TableContext
from bot.text import clip
from cogs.papayoo._pass import suggested_pass

ROUND_COLUMNS: Final = 6
"""The scores table shows this many rounds at most (the latest); the total counts them all."""
NAME_WIDTH: Final = 12


def tricks_per_round(view: Mapping[str, Any]) -> int:
    return HAND_SIZE[len(view["players"])]


def tricks_done(view: Mapping[str, Any]) -> int:
    """Tricks finished in this round (the current trick is number ``tricks_done + 1``)."""
    return int(sum(view["tricks_taken"].values()))


def has_scores(view: Mapping[str, Any]) -> bool:
    """Whether there are scores to show yet (not before the first trick of the game)."""
    return bool(view["history"]) or view["phase"] != "pass"


class PapayooRenderer(SeatedRenderer):
    kind = "papayoo"
    colour = discord.Colour.dark_green()

    def name(self, locale: Lang) -> str:
        return "Papayoo"

    def marked(self, view: Mapping[str, Any]) -> str | None:
        """The round's Papayoo gets its marked art (once the die has said which it is)."""
        papayoo = view.get("papayoo")
        return str(papayoo) if papayoo else None

    def suit_name(self, suit: str, locale: Lang) -> str:
        return t(f"papayoo.suit.{suit}", locale)

    def options_text(self, options: Mapping[str, Any], locale: Lang) -> str:
        rounds = int(options.get("rounds", 4))
        seconds = int(options.get("turn_seconds", 90))
        timer = (
            t("papayoo.timer.on", locale, seconds=seconds)
            if seconds
            else t("papayoo.timer.off", locale)
        )
        return (
            t("papayoo.rounds_one" if rounds == 1 else "papayoo.rounds", locale, rounds=rounds)
            + f" · {timer}"
        )

    def title(self, game_id: int, view: Mapping[str, Any], locale: Lang) -> str:
        if view["phase"] == "pass":
            return t(
                "papayoo.table.title_pass",
                locale,
                game_id=game_id,
                round=view["round"],
                rounds=view["rounds"],
            )
        if view["phase"] == "over":
            return t("papayoo.game.title", locale, game_id=game_id)
        return t(
            "papayoo.table.title_trick",
            locale,
            game_id=game_id,
            round=view["round"],
            rounds=view["rounds"],
            trick=min(tricks_done(view) + 1, tricks_per_round(view)),
            tricks=tricks_per_round(view),
        )

    def scores(self, view: Mapping[str, Any], locale: Lang) -> str:
        """The scores round by round, in a code block: a column per round (the round being
        played marked ``…``, its points so far), then the total with them; at most
        :data:`ROUND_COLUMNS` rounds (the total counts every one). Columns line up for any
        name (padded by display width: emoji and CJK take two columns, accents none), and a
        line under the block says what the columns are."""
        players: list[str] = list(view["players"])
        history: list[Mapping[str, int]] = list(view["history"])
        columns: list[tuple[str, dict[str, str]]] = [
            (
                t("papayoo.table.round_col", locale, round=n),
                {p: str(points[p]) for p in players},
            )
            for n, points in enumerate(history, start=1)
        ]
        if view["phase"] == "play":
            columns.append(
                (
                    t("papayoo.table.round_col", locale, round=view["round"]) + "…",
                    {p: str(view["round_points"][p]) for p in players},
                )
            )
        columns = columns[-ROUND_COLUMNS:]
        running = view["phase"] == "play"
        totals = {
            p: view["scores"][p] + (view["round_points"][p] if running else 0) for p in players
        }
        columns.append((t("papayoo.table.total_col", locale), {p: str(totals[p]) for p in players}))
        names = {p: self.cell_name(p, view, locale) for p in players}
        width = max(display_width(n) for n in names.values())
        widths = [
            max(display_width(head), *(len(v) for v in cells.values())) for head, cells in columns
        ]
        lines = [
            " " * width
            + "".join(f" {rjust(head, w)}" for (head, _), w in zip(columns, widths, strict=True))
        ]
        for p in players:
            lines.append(
                ljust(names[p], width)
                + "".join(
                    f" {cells[p]:>{w}}" for (_, cells), w in zip(columns, widths, strict=True)
                )
            )
        block = "```\n" + "\n".join(line.rstrip() for line in lines) + "\n```"
        return block + "\n" + t("papayoo.table.scores_legend", locale)

    def cell_name(self, player: str, view: Mapping[str, Any], locale: Lang) -> str:
        """A player's name in the scores' code block (no mention shows there), at most
        :data:`NAME_WIDTH` columns as a monospace font shows it."""
        name = self.plain(player, view, locale).replace("🤖", "").replace("`", "'").strip()
        return clip_columns(name, NAME_WIDTH)

    def papayoo_line(self, view: Mapping[str, Any], locale: Lang) -> str | None:
        suit = view["papayoo_suit"]
        if not suit:
            return None
        return t(
            "papayoo.table.papayoo_value",
            locale,
            card=self.card_in(view["papayoo"], view),
            suit=self.suit_name(suit, locale),
        )

    def trick_text(self, view: Mapping[str, Any], locale: Lang) -> str:
        played = view["trick"]
        if not played:
            return t("papayoo.table.trick_empty", locale)
        return "\n".join(
            f"{self.who(p['player'], locale)} {self.card_in(p['card'], view)}" for p in played
        )

    def last_trick_text(self, view: Mapping[str, Any], locale: Lang) -> str | None:
        """The previous trick: who played what from its leader on, who took it, its points."""
        last = view.get("last_trick")
        if not last:
            return None
        played = " · ".join(
            f"{self.who(p, locale)} {self.card_in(c, view)}"
            for p, c in zip(last["players"], last["cards"], strict=True)
        )
        won = t(
            "papayoo.table.last_trick_won",
            locale,
            winner=self.who(last["winner"], locale),
            points=last["points"],
        )
        return f"{played}\n{won}"

    # -- the table ---------------------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        view, locale = ctx.view, ctx.locale
        embed = discord.Embed(title=self.title(ctx.game_id, view, locale), colour=self.colour)
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        if view["phase"] == "pass" and ctx.status == "active":
            embed.description = t("papayoo.table.pass_help", locale, size=view["pass_size"])
        papayoo = self.papayoo_line(view, locale)
        if papayoo and view["phase"] == "play":
            embed.add_field(name=t("papayoo.table.papayoo", locale), value=papayoo)
        previous = self.last_trick_text(view, locale)
        last = list(ctx.last)
        if previous and view["phase"] != "pass":
            embed.add_field(name=t("papayoo.table.last_trick", locale), value=clip(previous, 1024))
            # the previous trick is there: the last move does not tell it a second time
            won = self.won_line(view["last_trick"], view, locale)
            last = [line for line in last if line != won]
        self.add_last(embed, last, locale)
        self.add_turn(embed, ctx)
        if has_scores(view):
            embed.add_field(
                name=t("papayoo.table.scores", locale),
                value=self.scores(view, locale),
                inline=False,
            )
        return embed

    def seat_order(self, view: Mapping[str, Any]) -> list[str]:
        """During a trick, from its leader on: the order the cards are played in."""
        players: list[str] = list(view["players"])
        leader = view.get("leader")
        if view["phase"] != "play" or leader not in players:
            return players
        k = players.index(leader)
        return players[k:] + players[:k]

    def seats_title(self, ctx: TableContext) -> str:
        if ctx.view["phase"] == "pass":
            return t("papayoo.table.passes", ctx.locale)
        return super().seats_title(ctx)

    def seat_line(self, player: str, acting: bool, ctx: TableContext) -> str:
        """A seat with the card it played in this trick (``◦ @Ana 5♠``), or, during the
        pass, ``✅`` once its pass is locked."""
        view = ctx.view
        if view["phase"] == "pass" and player in view["pass_locked"]:
            return f"✅ {self.who(player, ctx.locale)}"
        line = super().seat_line(player, acting, ctx)
        played = next((p["card"] for p in view["trick"] if p["player"] == player), None)
        return f"{line} {self.card_in(played, view)}" if played else line

    # -- a player's hand ---------------------------------------------------------------------

    def hand(self, ctx: HandContext) -> discord.Embed:
        """The hand; the trick and the scores only while the hand is current (its player's
        turn, or the game's end: off turn it is not edited and they would go stale)."""
        embed = super().hand(ctx)
        view = ctx.view
        if not ctx.current and view["phase"] == "play":
            # Off turn the hand is not edited as the tricks go by: a trick number drawn when
            # its player last moved would lag behind the table's. The round stays true.
            embed.title = t(
                "papayoo.hand.title_round",
                ctx.locale,
                game_id=ctx.game_id,
                round=view["round"],
                rounds=view["rounds"],
            )
        if ctx.current and view["phase"] == "play" and view["trick"]:
            embed.insert_field_at(
                0,
                name=t("papayoo.table.trick", ctx.locale),
                value=self.trick_text(view, ctx.locale),
            )
        papayoo = self.papayoo_line(view, ctx.locale)
        if papayoo:
            embed.insert_field_at(0, name=t("papayoo.table.papayoo", ctx.locale), value=papayoo)
        if ctx.current and has_scores(view):
            embed.add_field(
                name=t("papayoo.table.scores", ctx.locale),
                value=self.scores(view, ctx.locale),
                inline=False,
            )
        return embed

    def hand_lines(self, ctx: HandContext) -> list[str]:
        view, locale, me = ctx.view, ctx.locale, ctx.player
        lines = super().hand_lines(ctx)
        players = view["players"]
        seat = players.index(me)
        left, right = players[(seat + 1) % len(players)], players[(seat - 1) % len(players)]
        you = view["you"]
        if view["phase"] == "pass" and me in view["pass_locked"]:
            lines.insert(
                0,
                t(
                    "papayoo.private.locked",
                    locale,
                    cards=self.cards(you["passed"], view),
                    left=self.who(left, locale),
                ),
            )
        elif view["phase"] == "play" and you["received"] is not None and tricks_done(view) == 0:
            lines.insert(
                0,
                t(
                    "papayoo.private.received",
                    locale,
                    right=self.who(right, locale),
                    cards=self.cards(you["received"], view),
                    left=self.who(left, locale),
                    cards_passed=self.cards(you["passed"], view),
                ),
            )
        return lines

    def prompt(self, ctx: HandContext) -> str:
        view = ctx.view
        if view["phase"] == "pass":
            players = view["players"]
            left = players[(players.index(ctx.player) + 1) % len(players)]
            need = view["pass_size"] - len(view["you"]["passed"])
            return t(
                "papayoo.private.choose",
                ctx.locale,
                size=need,
                left=self.who(left, ctx.locale),
                cards=self.cards(self.hand_order(suggested_pass(view)), view),
            )
        return t("papayoo.private.your_turn", ctx.locale)

    def multi_pick(self, view: Mapping[str, Any], locale: Lang) -> MultiPick | None:
        you = view.get("you") or {}
        if view["phase"] != "pass" or not you.get("legal_actions"):
            return None
        need = view["pass_size"] - len(you["passed"])
        return MultiPick(
            "pass",
            need,
            list(you["hand"]),
            t("papayoo.private.select", locale, size=need),
            suggested=suggested_pass(view),
            accept=t("papayoo.private.accept", locale),
            choose=t("papayoo.private.own", locale),
            clear=t("papayoo.private.clear", locale),
        )

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        if action.get("type") == "pass":
            cards = " ".join(self.card_plain(c) for c in action["cards"])
            return Label(t("papayoo.action.pass", locale, cards=cards))
        return super().action_label(action, view, locale)

    # -- what happened -----------------------------------------------------------------------

    def won_line(self, trick: Mapping[str, Any], view: Mapping[str, Any], locale: Lang) -> str:
        """``@Ana takes the trick 2♦ 1♦ 3♦ 10♦: 0 points.`` (a ``trick_won`` event, or the
        view's ``last_trick``: the table drops this line when it shows the previous trick)."""
        return t(
            "papayoo.trick.won_line",
            locale,
            winner=self.who(trick["winner"], locale),
            points=trick["points"],
            cards=self.cards(trick["cards"], view),
        )

    def event_lines(
        self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any], locale: Lang
    ) -> list[str]:
        lines: list[str] = []
        for event in events:
            kind = event["type"]
            if kind == "trick_won":
                lines.append(self.won_line(event, view, locale))
            elif kind == "die":
                lines.append(
                    t(
                        "papayoo.pass.done",
                        locale,
                        dealer=self.who(event["player"], locale),
                        suit=self.suit_name(event["suit"], locale),
                        card=self.card_in(event["papayoo"], view),
                    )
                )
            elif kind == "round_over":
                lines.append(t("papayoo.round.over_line", locale, round=event["round"]))
            elif kind == "deal":
                lines.append(
                    t(
                        "papayoo.round.deal_line",
                        locale,
                        round=event["round"],
                        rounds=event["rounds"],
                        dealer=self.who(event["dealer"], locale),
                    )
                )
        if not lines:  # a card the turn timer played is told by the timer's line
            played = [e for e in events if e["type"] == "card_played" and not e.get("timer")]
            if played:
                last = played[-1]
                lines.append(
                    t(
                        "papayoo.played_line",
                        locale,
                        player=self.who(last["player"], locale),
                        card=self.card_in(last["card"], view),
                    )
                )
        return lines

    def records(
        self,
        game_id: int,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any],
        locale: Lang,
    ) -> list[discord.Embed]:
        """One message per round: the round's points (and the final result after the last)."""
        embeds: list[discord.Embed] = []
        for event in events:
            if event["type"] == "round_over":
                embeds.append(
                    discord.Embed(
                        title=t(
                            "papayoo.round.title",
                            locale,
                            game_id=game_id,
                            round=event["round"],
                            rounds=view["rounds"],
                        ),
                        description="\n".join(
                            t(
                                "papayoo.round.line",
                                locale,
                                player=self.who(p, locale),
                                points=event["points"][p],
                                total=event["totals"][p],
                            )
                            for p in view["players"]
                        ),
                        colour=self.colour,
                    )
                )
            elif event["type"] == "game_over":
                embeds.append(self.result(game_id, event, locale))
        return embeds

    def result(self, game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
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
                        player=self.who(player, locale),
                        score=scores[player],
                    )
                )
            place += len(group)
        return discord.Embed(
            title=t("papayoo.game.title", locale, game_id=game_id),
            description=t(key, locale, players=self.players(winners, locale))
            + "\n\n"
            + "\n".join(lines),
            colour=discord.Colour.gold(),
        )

    def auto_line(
        self, player: str, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> str:
        """What the table says when the timer moved: a played card is public, a pass is not."""
        if action.get("type") == "pass":
            return t("papayoo.timer.auto_pass", locale, players=self.who(player, locale))
        return t(
            "papayoo.timer.auto_play",
            locale,
            player=self.who(player, locale),
            card=self.card_in(action["card"], view),
        )

    def auto_lines(
        self,
        moves: Sequence[tuple[str, Mapping[str, Any]]],
        view: Mapping[str, Any],
        locale: Lang,
    ) -> list[str]:
        """Players late with their pass share one line; a played card gets its own."""
        passed = [player for player, action in moves if action.get("type") == "pass"]
        lines = (
            [t("papayoo.timer.auto_pass", locale, players=self.players(passed, locale))]
            if passed
            else []
        )
        return lines + [
            self.auto_line(player, action, view, locale)
            for player, action in moves
            if action.get("type") != "pass"
        ]

    def format_param(self, name: str, value: Any, locale: Lang) -> str | None:
        if name == "suit" and isinstance(value, str):
            return self.suit_name(value, locale)
        if name == "expected" and value in ("pass", "play"):
            return t(f"papayoo.phase.{value}", locale)
        return super().format_param(name, value, locale)
