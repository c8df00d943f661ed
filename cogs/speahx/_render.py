"""What Speahx looks like on Discord: the pile, every player's cards left, a player's hand.

Pure functions of engine views and events plus a language (a :class:`SeatedRenderer`). The
public renders take ``public_view()`` and public events only: a face-down card (anyone's
table cards, the stock, a chance card kept in hand) is never named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import discord

from bot.i18n import Lang, t
from bot.present import SUIT_SYMBOLS
from bot.seated import HandContext, Label, SeatedRenderer, TableContext

PILE_SHOWN: Final = 6
"""How many of the pile's top cards the table shows."""
BURN_WHY: Final = ("ten", "four", "joker", "terminator")


class SpeahxRenderer(SeatedRenderer):
    kind = "speahx"
    colour = discord.Colour.dark_red()

    def name(self, locale: Lang) -> str:
        return "Speahx"

    def card(self, code: str) -> str:
        return "🃏" if code == "JK" else super().card(code)

    def suit(self, suit: str, locale: Lang) -> str:
        return f"{SUIT_SYMBOLS[suit]} {t(f'speahx.suit.{suit}', locale)}"

    def options_text(self, options: Mapping[str, Any], locale: Lang) -> str:
        jokers = t(
            "speahx.opt.jokers_on" if options.get("jokers") else "speahx.opt.jokers_off", locale
        )
        seconds = int(options.get("turn_seconds", 0) or 0)
        timer = (
            t("speahx.opt.timer", locale, seconds=seconds)
            if seconds
            else t("speahx.opt.no_timer", locale)
        )
        return f"{jokers} · {timer}\n{t('speahx.opt.decks', locale)}"

    def title(self, game_id: int, view: Mapping[str, Any], locale: Lang) -> str:
        return t(
            "speahx.title",
            locale,
            game_id=game_id,
            players=len(view["players"]),
            decks=view["decks"],
        )

    def pile_text(self, view: Mapping[str, Any], locale: Lang, *, titled: bool = True) -> str:
        pile: list[str] = view["pile"]
        if not pile:
            return t("speahx.pile_empty", locale)
        shown = [self.card(c) for c in pile[-PILE_SHOWN:]]
        shown[-1] = f"**{shown[-1]}**"
        more = "… " if len(pile) > PILE_SHOWN else ""
        key = "speahx.pile" if titled else "speahx.pile_cards"
        line = t(key, locale, cards=more + " ".join(shown), count=len(pile))
        if view.get("suit"):
            key = "speahx.follow_named" if view.get("named") else "speahx.follow"
            line += "\n" + t(key, locale, suit=self.suit(view["suit"], locale))
        return line

    def seats(self, view: Mapping[str, Any], locale: Lang) -> str:
        out: list[str] = view["out"]
        lines = []
        for player in view["players"]:
            who = self.who(player, locale)
            if player in out:
                lines.append(t("speahx.seat_out", locale, player=who, place=out.index(player) + 1))
                continue
            mark = "▶ " if player == view.get("turn") else ""
            lines.append(
                mark
                + t(
                    "speahx.seat",
                    locale,
                    player=who,
                    hand=view["hand_sizes"][player],
                    table=len(view["table_cards"][player]),
                )
            )
        return "\n".join(lines)[:1024]

    # -- the table ---------------------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        view, locale = ctx.view, ctx.locale
        embed = discord.Embed(title=self.title(ctx.game_id, view, locale), colour=self.colour)
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        embed.description = self.pile_text(view, locale)
        embed.add_field(
            name=t("speahx.players", locale), value=self.seats(view, locale), inline=False
        )
        embed.add_field(
            name=t("speahx.stock_title", locale),
            value=self.stock_text(view, locale),
            inline=False,
        )
        self.add_last(embed, ctx.last, locale)
        self.add_turn(embed, ctx)
        return embed

    @staticmethod
    def stock_text(view: Mapping[str, Any], locale: Lang) -> str:
        """The stock and burned counts, then one short line of the burned cards per rank
        (what every player at the table saw and may count)."""
        text = t("speahx.stock", locale, stock=view["stock"], burned=view["burned"])
        burned = (view.get("seen") or {}).get("burned") or {}
        per_rank: dict[str, int] = {}
        for card, count in burned.items():
            rank = card[:-1] or card
            per_rank[rank] = per_rank.get(rank, 0) + int(count)
        if not per_rank:
            return text
        ranks = " · ".join(f"{rank}×{count}" for rank, count in per_rank.items())
        return text + "\n" + t("speahx.seen_burned", locale, ranks=ranks)

    # -- a player's hand ---------------------------------------------------------------------

    def hand(self, ctx: HandContext) -> discord.Embed:
        embed = super().hand(ctx)
        view, locale = ctx.view, ctx.locale
        you = view["you"]
        embed.insert_field_at(
            0,
            name=t("speahx.pile_title", locale),
            value=self.pile_text(view, locale, titled=False),
            inline=False,
        )
        positions = you.get("table_positions") or []
        embed.add_field(
            name=t("speahx.your_table", locale),
            value=" ".join(f"🂠{p + 1}" for p in positions) or "—",
            inline=False,
        )
        if you.get("chance"):
            embed.add_field(
                name=t("speahx.your_chance", locale), value=self.cards(you["chance"]), inline=False
            )
        return embed

    def prompt(self, ctx: HandContext) -> str:
        view, locale = ctx.view, ctx.locale
        phase = view["phase"]
        if phase == "suit":
            return t("speahx.prompt.suit", locale)
        if phase == "target":
            return t("speahx.prompt.target", locale, count=max(len(view["pile"]) - 1, 0))
        if phase == "show":
            return t("speahx.prompt.show", locale, card=self.card(str(view["you"].get("turned"))))
        if view.get("chance") and view["chance"].get("player") == ctx.player:
            return t("speahx.prompt.chance", locale, drawn=view["chance"]["drawn"])
        return t("speahx.prompt.play", locale)

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        kind = action.get("type")
        if kind == "play":
            cards: list[str] = list(action["cards"])
            text = self.cards(cards)
            if (
                len(cards) == 4
                and all(c.startswith("J") and c != "JK" for c in cards)
                and not view.get("jokers")
            ):
                text = t("speahx.action.terminator", locale, cards=text)
            return Label(text, style=discord.ButtonStyle.primary)
        if kind == "collect":
            return Label(
                t("speahx.action.collect", locale, count=len(view["pile"])),
                style=discord.ButtonStyle.danger,
            )
        if kind == "chance":
            return Label(t("speahx.action.chance", locale), emoji="🎲")
        if kind == "table":
            return Label(
                t("speahx.action.table", locale, n=int(action["position"]) + 1), emoji="🎴"
            )
        if kind == "suit":
            suit = str(action["suit"])
            text = self.suit(suit, locale) + (" · Speah!" if suit == "S" else "")
            return Label(text, style=discord.ButtonStyle.primary)
        if kind == "target":
            name = self.plain(str(action["player"]), view, locale)
            return Label(t("speahx.action.target", locale, player=name), emoji="🃏")
        if kind == "show":
            key = "speahx.action.show" if action.get("show") else "speahx.action.hide"
            return Label(t(key, locale))
        return super().action_label(action, view, locale)

    # -- what happened -----------------------------------------------------------------------

    def event_lines(
        self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any], locale: Lang
    ) -> list[str]:
        lines: list[str] = []
        for event in events:
            line = self.event_line(event, locale)
            if line:
                lines.append(line)
        return lines[-8:]

    def event_line(self, event: Mapping[str, Any], locale: Lang) -> str | None:
        kind = event["type"]
        who = self.who(str(event.get("player", "")), locale) if event.get("player") else ""
        if kind == "play":
            key = "speahx.ev.play_table" if event.get("source") == "table" else "speahx.ev.play"
            if event.get("source") == "chance":
                key = "speahx.ev.play_chance"
            return t(key, locale, player=who, cards=self.cards(event["cards"]))
        if kind in ("speah", "torkel"):
            return t(f"speahx.ev.{kind}", locale, player=who)
        if kind == "suit_named":
            return t("speahx.ev.suit", locale, player=who, suit=self.suit(event["suit"], locale))
        if kind == "burn":
            why = event["why"] if event["why"] in BURN_WHY else "ten"
            again = t("speahx.ev.again", locale) if event.get("again") else ""
            return t(f"speahx.ev.burn_{why}", locale, player=who) + again
        if kind == "joker_target":
            return t(
                "speahx.ev.target",
                locale,
                player=who,
                target=self.who(str(event["target"]), locale),
                count=len(event["cards"]),
            )
        if kind == "collect":
            return t("speahx.ev.collect", locale, player=who, count=len(event["cards"]))
        if kind == "chance_drawn":
            return t("speahx.ev.chance", locale, player=who, n=event["number"])
        if kind == "chance_kept":
            return t("speahx.ev.chance_kept", locale, player=who, count=event["count"])
        if kind == "table_failed":
            return t("speahx.ev.table_failed", locale, player=who, count=len(event["cards"]))
        if kind == "table_shown":
            return t("speahx.ev.table_shown", locale, player=who, card=self.card(event["card"]))
        if kind == "out":
            return t("speahx.ev.out", locale, player=who, place=event["place"])
        if kind == "game_over":
            return t("speahx.ev.loser", locale, player=self.who(str(event["loser"]), locale))
        return None

    def hands_changed(self, events: Sequence[Mapping[str, Any]]) -> set[str]:
        """The player a joker (or the Terminator) hands the pile to."""
        return {str(e["target"]) for e in events if e["type"] == "joker_target"}

    def result(self, game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
        ranking: list[list[str]] = over["ranking"]
        order = [p for group in ranking for p in group]
        lines = [f"{i}. {self.who(p, locale)}" for i, p in enumerate(order, start=1)]
        loser = over.get("loser") or (order[-1] if order else None)
        head = t("speahx.result_head", locale, winner=self.who(order[0], locale) if order else "—")
        if loser:
            head += "\n" + t("speahx.ev.loser", locale, player=self.who(str(loser), locale))
        return discord.Embed(
            title=t("seated.result_title", locale, game="Speahx", game_id=game_id),
            description=head + "\n\n" + "\n".join(lines),
            colour=discord.Colour.gold(),
        )

    def auto_line(
        self, player: str, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> str:
        """Every Speahx move is public: the table says which one the timer made."""
        label = self.action_label(action, view, locale).text
        return t("speahx.timer", locale, player=self.who(player, locale), move=label)

    def format_param(self, name: str, value: Any, locale: Lang) -> str | None:
        if name == "suit" and isinstance(value, str) and value in SUIT_SYMBOLS:
            return self.suit(value, locale)
        return super().format_param(name, value, locale)
