"""What Papayoo looks like on Discord: the table, a player's hand, the round's record.

Pure functions of engine views and events plus a language (a :class:`SeatedRenderer`): no
I/O, no Discord calls. The public renders take ``public_view()`` and public events only, so
they cannot show a hand. A card reads the same everywhere: ``7♥`` and ``P12`` on buttons,
in the hand and on the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import discord

from bot.engine.papayoo import HAND_SIZE
from bot.i18n import Lang, t
from bot.seated import HandContext, Label, MultiPick, SeatedRenderer, TableContext

GROUPS: Final = ("S", "H", "D", "C", "P")


def suit_of(code: str) -> str:
    return "P" if code.startswith("P") else code[-1]


def tricks_per_round(view: Mapping[str, Any]) -> int:
    return HAND_SIZE[len(view["players"])]


def tricks_done(view: Mapping[str, Any]) -> int:
    """Tricks finished in this round (the current trick is number ``tricks_done + 1``)."""
    return int(sum(view["tricks_taken"].values()))


class PapayooRenderer(SeatedRenderer):
    kind = "papayoo"
    colour = discord.Colour.dark_green()

    def name(self, locale: Lang) -> str:
        return "Papayoo"

    def hand_text(self, hand: Sequence[str]) -> str:
        """One line per suit held, each card as it reads on its button."""
        lines = [self.cards(c for c in hand if suit_of(c) == group) for group in GROUPS]
        return "\n".join(line for line in lines if line) or "—"

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
        return "\n".join(
            t(
                "papayoo.table.score_line",
                locale,
                player=self.who(p, locale),
                total=view["scores"][p],
                round=view["round_points"][p],
            )
            for p in view["players"]
        )

    def papayoo_line(self, view: Mapping[str, Any], locale: Lang) -> str | None:
        suit = view["papayoo_suit"]
        if not suit:
            return None
        return t(
            "papayoo.table.papayoo_value",
            locale,
            card=self.card(view["papayoo"]),
            suit=self.suit_name(suit, locale),
        )

    def trick_text(self, view: Mapping[str, Any], locale: Lang) -> str:
        played = view["trick"]
        if not played:
            return t("papayoo.table.trick_empty", locale)
        return "\n".join(f"{self.who(p['player'], locale)} {self.card(p['card'])}" for p in played)

    # -- the table ---------------------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        view, locale = ctx.view, ctx.locale
        embed = discord.Embed(title=self.title(ctx.game_id, view, locale), colour=self.colour)
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        papayoo = self.papayoo_line(view, locale)
        if view["phase"] == "pass" and ctx.status == "active":
            embed.description = t("papayoo.table.pass_help", locale, size=view["pass_size"])
            locked = set(view["pass_locked"])
            embed.add_field(
                name=t("papayoo.table.passes", locale),
                value="\n".join(
                    f"{'✅' if p in locked else '⏳'} {self.who(p, locale)}"
                    for p in view["players"]
                ),
            )
        elif view["phase"] == "play":
            if papayoo:
                embed.add_field(name=t("papayoo.table.papayoo", locale), value=papayoo)
            embed.add_field(
                name=t("papayoo.table.trick", locale), value=self.trick_text(view, locale)
            )
        self.add_last(embed, ctx.last, locale)
        self.add_turn(embed, ctx)
        embed.add_field(
            name=t("papayoo.table.scores", locale), value=self.scores(view, locale), inline=False
        )
        return embed

    # -- a player's hand ---------------------------------------------------------------------

    def hand(self, ctx: HandContext) -> discord.Embed:
        embed = super().hand(ctx)
        view = ctx.view
        if view["phase"] == "play" and view["trick"]:
            embed.insert_field_at(
                0,
                name=t("papayoo.table.trick", ctx.locale),
                value=self.trick_text(view, ctx.locale),
            )
        papayoo = self.papayoo_line(view, ctx.locale)
        if papayoo:
            embed.insert_field_at(0, name=t("papayoo.table.papayoo", ctx.locale), value=papayoo)
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
                    cards=self.cards(you["passed"]),
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
                    cards=self.cards(you["received"]),
                    left=self.who(left, locale),
                    cards_passed=self.cards(you["passed"]),
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
                "papayoo.private.choose", ctx.locale, size=need, left=self.who(left, ctx.locale)
            )
        return t("papayoo.private.your_turn", ctx.locale)

    def multi_pick(self, view: Mapping[str, Any], locale: Lang) -> MultiPick | None:
        you = view.get("you") or {}
        if view["phase"] != "pass" or not you.get("legal_actions"):
            return None
        need = view["pass_size"] - len(you["passed"])
        return MultiPick(
            "pass", need, list(you["hand"]), t("papayoo.private.select", locale, size=need)
        )

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        if action.get("type") == "pass":
            return Label(t("papayoo.action.pass", locale, cards=self.cards(action["cards"])))
        return super().action_label(action, view, locale)

    # -- what happened -----------------------------------------------------------------------

    def event_lines(
        self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any], locale: Lang
    ) -> list[str]:
        lines: list[str] = []
        for event in events:
            kind = event["type"]
            if kind == "trick_won":
                cards = " ".join(f"{self.card(c)}" for c in event["cards"])
                lines.append(
                    t(
                        "papayoo.trick.won_line",
                        locale,
                        winner=self.who(event["winner"], locale),
                        points=event["points"],
                        cards=cards,
                    )
                )
            elif kind == "die":
                lines.append(
                    t(
                        "papayoo.pass.done",
                        locale,
                        dealer=self.who(event["player"], locale),
                        suit=self.suit_name(event["suit"], locale),
                        card=self.card(event["papayoo"]),
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
        if not lines:
            played = [e for e in events if e["type"] == "card_played"]
            if played:
                last = played[-1]
                lines.append(
                    t(
                        "papayoo.played_line",
                        locale,
                        player=self.who(last["player"], locale),
                        card=self.card(last["card"]),
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
            card=self.card(action["card"]),
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
