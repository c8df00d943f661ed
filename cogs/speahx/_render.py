"""What Speahx looks like on Discord: the pile, every player's cards left, a player's hand.

Pure functions of engine views and events plus a language (a :class:`SeatedRenderer`). The
public renders take ``public_view()`` and public events only: a face-down card (anyone's
table cards, the stock, a chance card kept in hand) is never named.

Cards in message text are the application's card emojis when it has them (the kit's
:meth:`~bot.seated.SeatedRenderer.card`), else the text they always were (``8♠``, ``🃏``);
controls show the top card's emoji (:func:`bot.emojis.card_emoji`) beside the cards' text.
A hand's controls are :mod:`cogs.speahx._controls` (the cards, then the top card when it
matters); :meth:`SpeahxRenderer.look`, :meth:`~SpeahxRenderer.choice_look` and
:meth:`~SpeahxRenderer.rank_look` say how each one reads, the consequence in words.

A player's own hand tells their own moves in the second person ("You play 8♠.") and, to
them alone, the cards they drew from the stock (:meth:`SpeahxRenderer.drew`). A
finished game's table and hands say it is over, with the places, the loser marked 💀.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

import discord

from bot.emojis import card_emoji
from bot.engine.cards import JOKER
from bot.engine.speahx import RANK, SUIT, is_terminator
from bot.i18n import Lang, t
from bot.present import SUIT_SYMBOLS
from bot.seated import HandContext, Label, SeatedRenderer, TableContext
from bot.text import clip
from cogs.speahx._controls import Choice, Look, Move

PILE_SHOWN: Final = 3
"""How many of the pile's top cards the table and the hands show, top first."""
FIELD_MAX: Final = 1024
BURN_WHY: Final = ("ten", "four", "joker", "terminator")


class SpeahxRenderer(SeatedRenderer):
    kind = "speahx"
    colour = discord.Colour.dark_red()

    def name(self, locale: Lang) -> str:
        return "Speahx"

    def card_name(self, code: str) -> str:
        return "🃏" if code == "JK" else super().card_name(code)

    def arts(self, codes: Sequence[str], limit: int = FIELD_MAX) -> str:
        """Cards in message text (their art); as plain text when the art would not fit."""
        text = self.cards(codes)
        return text if len(text) <= limit else " ".join(self.card_name(c) for c in codes)

    def plain_cards(self, codes: Sequence[str]) -> str:
        """Cards on a button or in a select (no art markup there)."""
        return " ".join(self.card_plain(c) for c in codes)

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
        if view.get("phase") == "over":
            return t("seated.result_title", locale, game="Speahx", game_id=game_id)
        return t(
            "speahx.title",
            locale,
            game_id=game_id,
            players=len(view["players"]),
            decks=view["decks"],
        )

    def pile_text(self, view: Mapping[str, Any], locale: Lang, *, titled: bool = True) -> str:
        """The pile's top cards, top first (the top one in bold), its size, the suit to follow."""
        pile: list[str] = view["pile"]
        if not pile:
            return t("speahx.pile_empty", locale)
        shown = [self.card(c) for c in reversed(pile[-PILE_SHOWN:])]
        shown[0] = f"**{shown[0]}**"
        more = " · …" if len(pile) > PILE_SHOWN else ""
        key = "speahx.pile" if titled else "speahx.pile_cards"
        line = t(key, locale, cards=" · ".join(shown) + more, count=len(pile))
        if view.get("suit") and view.get("phase") != "over":
            key = "speahx.follow_named" if view.get("named") else "speahx.follow"
            line += "\n" + t(key, locale, suit=self.suit(view["suit"], locale))
        return line

    @staticmethod
    def place(player: str, view: Mapping[str, Any]) -> int | None:
        """The place of a player out (1 first out), or the loser's once the game is over;
        ``None`` for a player still in the game."""
        out: list[str] = list(view.get("out") or [])
        if player in out:
            return out.index(player) + 1
        if view.get("phase") == "over" and view.get("loser") == player:
            return len(out) + 1
        return None

    def places(self, view: Mapping[str, Any], locale: Lang) -> str:
        """The final places, first out first, the loser last and marked 💀."""
        lines = [
            t("speahx.seat_out", locale, player=self.who(p, locale), place=i)
            for i, p in enumerate(view.get("out") or [], start=1)
        ]
        loser = view.get("loser")
        if loser:
            lines.append(
                t(
                    "speahx.seat_loser",
                    locale,
                    player=self.who(str(loser), locale),
                    place=len(lines) + 1,
                    hand=view["hand_sizes"].get(loser, 0),
                )
            )
        return clip("\n".join(lines), FIELD_MAX) or "—"

    def seat_counts(self, player: str, view: Mapping[str, Any], locale: Lang) -> str:
        """``@Ana: 5 in hand · 5 face down``, or ``🏁 @Ana: out, place 1``."""
        who = self.who(player, locale)
        out: list[str] = list(view.get("out") or [])
        if player in out:
            return t("speahx.seat_out", locale, player=who, place=out.index(player) + 1)
        return t(
            "speahx.seat",
            locale,
            player=who,
            hand=view["hand_sizes"][player],
            table=len(view["table_cards"][player]),
        )

    def seats(self, view: Mapping[str, Any], locale: Lang) -> str:
        """Every seat in playing order (the next seat plays next) with its cards left, when no
        one is to act (the game over or abandoned); during play :meth:`add_turn` lists them."""
        lines = [self.seat_counts(p, view, locale) for p in view["players"]]
        return clip("\n".join(lines), FIELD_MAX)

    def seat_line(self, player: str, acting: bool, ctx: TableContext) -> str:
        """The kit's seat in playing order (``▶`` before whoever must act, the timer) with
        the seat's cards: in hand and face-down table cards, or the place of a player out."""
        if player in (ctx.view.get("out") or []):
            return self.seat_counts(player, ctx.view, ctx.locale)
        line = super().seat_line(player, acting, ctx)
        who = self.who(player, ctx.locale)
        counts = self.seat_counts(player, ctx.view, ctx.locale)
        return line.replace(who, counts, 1) if who in line else f"{line} · {counts}"

    # -- the table ---------------------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        view, locale = ctx.view, ctx.locale
        embed = discord.Embed(title=self.title(ctx.game_id, view, locale), colour=self.colour)
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        embed.description = self.pile_text(view, locale)
        if ctx.status == "active" and view.get("to_act"):
            self.add_turn(embed, ctx)
        elif view.get("phase") == "over":
            embed.add_field(
                name=t("speahx.places", locale), value=self.places(view, locale), inline=False
            )
        else:
            embed.add_field(
                name=t("speahx.players", locale), value=self.seats(view, locale), inline=False
            )
        embed.add_field(
            name=t("speahx.stock_title", locale),
            value=self.stock_text(view, locale),
            inline=False,
        )
        self.add_last(embed, ctx.last, locale)
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

    def add_last(self, embed: discord.Embed, last: Sequence[str], locale: Lang) -> None:
        """What just happened; the oldest lines left out rather than a card cut in two."""
        lines = list(last)
        while lines and len("\n".join(lines)) > FIELD_MAX:
            lines.pop(0)
        super().add_last(embed, lines, locale)

    def finished(self, ctx: HandContext) -> bool:
        """The hand's player is out, or the game is over: no live-game line is shown."""
        return ctx.status != "voided" and (
            ctx.view.get("phase") == "over" or self.place(ctx.player, ctx.view) is not None
        )

    def hand(self, ctx: HandContext) -> discord.Embed:
        ctx = replace(ctx, last=self.yours(ctx.last, ctx.view, ctx.player, ctx.locale))
        embed = super().hand(ctx)
        view, locale = ctx.view, ctx.locale
        you = view["you"]
        if self.finished(ctx):
            if not you.get("hand"):
                embed.clear_fields()  # "Your hand (0)": nothing left to show
            return embed
        if ctx.current:  # off turn the hand is not edited as the pile changes
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
                name=t("speahx.your_chance", locale), value=self.arts(you["chance"]), inline=False
            )
        return embed

    def hand_lines(self, ctx: HandContext) -> list[str]:
        """The kit's lines, after the note the cards the player drew (:meth:`drew`); a
        finished player's place instead of waiting for a turn."""
        lines = super().hand_lines(ctx)
        drew = self.drew(ctx)
        if drew:
            lines.insert(1 if ctx.note else 0, drew)
        place = self.place(ctx.player, ctx.view)
        if place is None or ctx.status == "voided" or not lines:
            return lines
        key = "speahx.you.last" if ctx.view.get("loser") == ctx.player else "speahx.you.finished"
        mine = t(key, ctx.locale, place=place)
        if ctx.status == "over":
            lines.insert(len(lines) - 1, mine)  # before "the result is in the channel"
        else:
            lines[-1] = mine  # instead of "not your turn yet"
        return lines

    def drew(self, ctx: HandContext) -> str | None:
        """``You drew J♠ A♥.``: the cards the player's latest refill took from the stock, in
        their own hand only (``view(player)["you"]["drawn"]``: the ``refill`` event never
        names them), from the end of that turn until their next turn starts."""
        if ctx.status == "voided":
            return None
        drawn = [str(c) for c in ctx.view["you"].get("drawn") or []]
        if not drawn:
            return None
        return t("speahx.you.drew", ctx.locale, cards=self.arts(self.hand_order(drawn), 400))

    def yours(
        self, lines: Sequence[str], view: Mapping[str, Any], player: str, locale: Lang
    ) -> list[str]:
        """The last move's lines as ``player``'s own hand tells them: their own moves in the
        second person (the move's events are the view's ``last``)."""
        mine: dict[str, str] = {}
        for event in view.get("last") or []:
            public = self.event_line(event, locale)
            own = self.event_line(event, locale, you=player)
            if public and own and public != own:
                mine[public] = own
        return [mine.get(line, line) for line in lines]

    def prompt(self, ctx: HandContext) -> str:
        view, locale = ctx.view, ctx.locale
        phase = view["phase"]
        if phase == "suit":
            return t("speahx.prompt.suit", locale)
        if phase == "target":
            return t("speahx.prompt.target", locale, count=max(len(view["pile"]) - 1, 0))
        if phase == "show":
            return t("speahx.prompt.show", locale, card=self.card(str(view["you"].get("turned"))))
        kinds = {str(a.get("type")) for a in view["you"].get("legal_actions") or []}
        offers: tuple[tuple[str, str], ...]
        if view.get("chance") and view["chance"].get("player") == ctx.player:
            head = t("speahx.prompt.chance", locale, drawn=view["chance"]["drawn"])
            offers = ("play", "play_it"), ("chance", "draw_another"), ("collect", "collect")
        else:
            head = t("speahx.prompt.play", locale)
            offers = (
                ("play", "play"),
                ("table", "table"),
                ("chance", "draw"),
                ("collect", "collect"),
            )
        parts = [t(f"speahx.prompt.do.{key}", locale) for kind, key in offers if kind in kinds]
        return f"{head} {self.either(parts, locale)}."

    @staticmethod
    def either(parts: Sequence[str], locale: Lang) -> str:
        """``a``, ``a or b``, ``a, b or c``: the moves a prompt offers, every one legal."""
        if len(parts) <= 1:
            return "".join(parts)
        if len(parts) == 2:
            return t("speahx.prompt.or2", locale, a=parts[0], b=parts[1])
        return t("speahx.prompt.or_n", locale, first=", ".join(parts[:-1]), last=parts[-1])

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        kind = action.get("type")
        if kind == "play":
            cards: list[str] = list(action["cards"])
            text = self.plain_cards(cards)
            if is_terminator(cards, bool(view.get("jokers"))):
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

    def look(
        self, move: Move, view: Mapping[str, Any], locale: Lang, *, short: bool = False
    ) -> Look:
        """How one distinct move reads on its button or select option: the cards by rank and
        count ("3× 7", a single card by its name), then what follows in words ("♥ hearts to
        follow", "burns the pile, you play again"); the top card's emoji. ``short``: on the
        second screen of its cards, where the cards are already chosen, the way it ends
        alone ("7♥ on top · ♥ hearts to follow")."""
        action = move.action
        if action.get("type") != "play":
            label = self.action_label(action, view, locale)
            return Look(label.text, label.emoji, label.style, label.description)
        cards = [str(c) for c in action["cards"]]
        ending = self.ending(move, view, locale)
        if short:
            head = (
                t("speahx.look.stay", locale, cards=self.plain_cards(list(reversed(move.stays))))
                if move.stays is not None
                else t("speahx.look.on_top", locale, card=self.card_plain(cards[-1]))
            )
            text = f"{head} · {ending}"
        else:
            text = f"{self.chosen(move, locale)} · {ending}"
        return Look(text, card_emoji(cards[-1]), discord.ButtonStyle.primary)

    def chosen(self, move: Move, locale: Lang) -> str:
        """The cards a play chooses: ``7♥`` alone, ``3× 7``, or the Terminator's jacks."""
        cards = [str(c) for c in move.action["cards"]]
        if move.terminator:
            return t("speahx.action.terminator", locale, cards=self.plain_cards(cards))
        if move.count == 1:
            return self.card_plain(cards[0])
        return self.count_of(str(move.rank), move.count)

    def count_of(self, rank: str, count: int) -> str:
        return f"{count}× {'🃏' if rank == JOKER else rank}"

    def ending(self, move: Move, view: Mapping[str, Any], locale: Lang) -> str:
        """What a play leaves the next player, in plain words."""
        if move.leaves:
            rest = len(view.get("pile") or [])
            return t("speahx.look.gives" if rest else "speahx.look.leaves", locale)
        if move.burns:
            key = "speahx.look.burns_again" if self.again(move, view) else "speahx.look.burns"
            return t(key, locale)
        follow = (
            t("speahx.look.follow", locale, suit=self.suit(SUIT[move.top], locale))
            if move.top is not None
            else t("speahx.look.name_suit", locale)
        )
        if move.stays is not None:
            return t("speahx.look.partial", locale, count=len(move.stays), then=follow)
        return follow

    @staticmethod
    def again(move: Move, view: Mapping[str, Any]) -> bool:
        """Whether the player plays again after the burn (the engine's ``again``): cards
        left in hand (chance cards join it), or table cards once the stock is empty."""
        you = view["you"]
        held = len(you.get("hand") or []) + len(you.get("chance") or []) - move.count
        return held > 0 or (not view.get("stock") and bool(you.get("table_positions")))

    def choice_look(self, choice: Choice, view: Mapping[str, Any], locale: Lang) -> Look:
        """The cards chosen ("3× 7"), and that the next screen picks the top card (or what
        stays after a partial burn)."""
        first = choice.moves[0]
        cards = self.chosen(first, locale) if choice.count > 1 else self.count_of(choice.rank, 1)
        key = "speahx.look.choose_stay" if first.stays is not None else "speahx.look.choose_top"
        return Look(t(key, locale, cards=cards), "▶️", discord.ButtonStyle.primary)

    def rank_look(self, moves: Sequence[Move], view: Mapping[str, Any], locale: Lang) -> Look:
        """A rank's moves behind one button: ``Sevens (3 in hand): choose how many``."""
        rank = str(moves[0].rank)
        held = sum(RANK[c] == rank for c in view["you"].get("hand") or [])
        held += sum(RANK[c] == rank for c in view["you"].get("chance") or [])
        text = t("speahx.look.rank", locale, rank=t(f"speahx.rank.{rank}", locale), count=held)
        return Look(text[:1].upper() + text[1:], "▶️", discord.ButtonStyle.primary)

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

    def event_line(
        self, event: Mapping[str, Any], locale: Lang, *, you: str | None = None
    ) -> str | None:
        """One event's line; ``you``: in that player's own hand (their moves as "You …")."""
        kind = event["type"]
        who = self.who(str(event.get("player", "")), locale) if event.get("player") else ""
        ev = "speahx.you." if you is not None and event.get("player") == you else "speahx.ev."
        if kind == "play":
            key = "play_table" if event.get("source") == "table" else "play"
            if event.get("source") == "chance":
                key = "play_chance"
            return t(ev + key, locale, player=who, cards=self.arts(event["cards"], 400))
        if kind in ("speah", "torkel"):
            return t(f"speahx.ev.{kind}", locale, player=who)
        if kind == "suit_named":
            return t(ev + "suit", locale, player=who, suit=self.suit(event["suit"], locale))
        if kind == "burn":
            why = event["why"] if event["why"] in BURN_WHY else "ten"
            again = t(ev + "again", locale) if event.get("again") else ""
            return t(f"{ev}burn_{why}", locale, player=who) + again
        if kind == "joker_target":
            if you is not None and event.get("target") == you:
                ev = "speahx.you.given_"
            return t(
                ev + "target",
                locale,
                player=who,
                target=self.who(str(event["target"]), locale),
                count=len(event["cards"]),
            )
        if kind == "collect":
            return t(ev + "collect", locale, player=who, count=len(event["cards"]))
        if kind == "chance_drawn":
            return t(ev + "chance", locale, player=who, n=event["number"])
        if kind == "chance_kept":
            return t(ev + "chance_kept", locale, player=who, count=event["count"])
        if kind == "table_failed":
            return t(ev + "table_failed", locale, player=who, count=len(event["cards"]))
        if kind == "table_shown":
            return t("speahx.ev.table_shown", locale, player=who, card=self.card(event["card"]))
        if kind == "out":
            return t(ev + "out", locale, player=who, place=event["place"])
        if kind == "game_over" and event.get("loser"):
            ev = "speahx.you." if you is not None and event["loser"] == you else "speahx.ev."
            return t(ev + "loser", locale, player=self.who(str(event["loser"]), locale))
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

    def history_score(self, player: str, result: Mapping[str, Any], locale: Lang) -> str | None:
        """Speahx's scores are the places themselves: the loser is marked instead."""
        return "💀" if str(result.get("loser")) == player else None

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
