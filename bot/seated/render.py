"""What a seated game looks like: the part a game's cog writes (a :class:`SeatedRenderer`).

Renderers are pure: engine views and events plus a language in, embeds and short texts out.
No I/O, no Discord calls, and nothing flows back into the rules. The public renders get
``public_view()`` and public events only, so they cannot show a hand.

Cards look like cards: in message text a card is its art (:func:`bot.emojis.card_text`,
``<:gn_7H_…:id>``) or, without art, its text exactly as before (``7♥``, ``P12``); on a button
or in a select it is its art (:func:`bot.emojis.card_emoji`) with its rank, or its text. A
hand reads sorted by suit then rank, a line (or a row of buttons) per suit; a big hand keeps
its art over several embed fields (:meth:`SeatedRenderer.hand_fields`). The table shows
the seats in playing order, ``▶`` before whoever must act; a computer seat to act "is
thinking…", never a countdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Final

import discord

from bot.emojis import card_emoji, card_text
from bot.engine.cards import RANK_VALUE, rank_of, suit_of
from bot.engine.lobby import is_computer
from bot.i18n import Lang, has_key, placeholders, t
from bot.present import SUIT_SYMBOLS, mention, when
from bot.seated.controls import Label, MultiPick, board_button, stamp
from bot.text import clip, escape
from bot.ui import GameView, PayloadView

__all__ = [
    "SUIT_ORDER",
    "HandContext",
    "Label",
    "MultiPick",
    "SeatedRenderer",
    "TableContext",
    "hand_key",
    "mark_unrated",
    "unrated_note",
]

SUIT_ORDER: Final = ("S", "H", "D", "C", "P")
"""How hands are grouped: spades, hearts, diamonds, clubs (black and red in turn), Payoo;
anything else (a joker) after them."""
SUIT_STYLES: Final[dict[str, discord.ButtonStyle]] = {
    "S": discord.ButtonStyle.primary,
    "C": discord.ButtonStyle.primary,
    "H": discord.ButtonStyle.danger,
    "D": discord.ButtonStyle.danger,
    "P": discord.ButtonStyle.success,
}
"""A playable card's button: black suits blurple, red suits red, Payoo green (as its art);
a card that may not be played now is grey."""
FIELD_MAX: Final = 1024
"""An embed field's value at most."""
HAND_ART_MAX: Final = 3000
"""The art of a hand takes at most this many characters over its fields (Discord's card
emojis are about 37 each: some 80 cards); a bigger hand is shown as the cards' text."""
BLANK: Final = "\u200b"
"""The name of a field that goes on with the one above it (a field must have a name)."""
TURN: Final = "▶"
"""Before the seat whose turn it is."""
SEAT: Final = "◦"
"""Before the other seats."""


def hand_key(code: str) -> tuple[int, int, str]:
    """Sort key of a hand: suit (:data:`SUIT_ORDER`), then rank (2..10, J, Q, K, A; Papayoo's
    numbers), then the code."""
    suit = suit_of(code)
    group = SUIT_ORDER.index(suit) if suit in SUIT_ORDER else len(SUIT_ORDER)
    rank = code[1:] if suit == "P" else rank_of(code)
    number = RANK_VALUE.get(rank) or (int(rank) if rank.isdigit() else 99)
    return group, number, code


def pack_lines(lines: Sequence[Sequence[str]], limit: int = FIELD_MAX) -> list[str]:
    """Lines of words (a hand's suits, its cards) as texts of at most ``limit`` characters:
    a line per text line, whole lines together while they fit, a line longer than ``limit``
    cut between two words."""
    rows: list[str] = []
    for line in lines:
        row = ""
        for word in line:
            if row and len(row) + 1 + len(word) > limit:
                rows.append(row)
                row = word
            else:
                row = f"{row} {word}" if row else word
        if row:
            rows.append(row)
    texts: list[str] = []
    for row in rows:
        if texts and len(texts[-1]) + 1 + len(row) <= limit:
            texts[-1] += "\n" + row
        else:
            texts.append(row[:limit])
    return texts


@dataclass(frozen=True)
class TableContext:
    """Everything the public table shows at one moment."""

    game_id: int
    view: Mapping[str, Any]
    """``public_view()``."""
    locale: Lang
    deadline: datetime | None = None
    last: Sequence[str] = ()
    """What just happened, one short line each (the last move, the timer's move)."""
    status: str = "active"
    note: str | None = None
    outcome: Mapping[str, Any] | None = None
    """The engine's ``result()`` once the game is over (read it with :meth:`result`)."""

    def result(self) -> Mapping[str, Any] | None:
        """The engine's ``result()`` (``ranking``, ``scores`` and the game's own fields) when
        the game is over; ``None`` while it runs and for an abandoned game."""
        return self.outcome if self.status == "over" else None


@dataclass(frozen=True)
class HandContext:
    """Everything one player's private hand shows at one moment."""

    game_id: int
    view: Mapping[str, Any]
    """``view(player)``: the public fields plus ``you``."""
    locale: Lang
    deadline: datetime | None = None
    last: Sequence[str] = ()
    status: str = "active"
    note: str | None = None
    current: bool = True
    """The player must act (or the game is over): the hand may show the table's state (the
    trick, the pile; ``last`` is empty otherwise). Off turn the hand is not edited when others
    move, so it shows only what stays true: the hand itself, and that it is not their turn."""

    @property
    def player(self) -> str:
        return str(self.view["you"]["id"])

    @property
    def to_act(self) -> bool:
        return self.status == "active" and bool(self.view["you"]["legal_actions"])


class SeatedRenderer:
    """The defaults every card game shares; a game overrides what it shows differently."""

    kind: ClassVar[str]
    colour: ClassVar[discord.Colour] = discord.Colour.blurple()

    # -- names ------------------------------------------------------------------------------

    def name(self, locale: Lang) -> str:
        return t(f"help.{self.kind}.title", locale)

    def who(self, player: str, locale: Lang) -> str:
        return mention(player, locale)

    def plain(self, player: str, view: Mapping[str, Any], locale: Lang) -> str:
        """A player's name as plain text (buttons and selects cannot show a mention)."""
        names: Mapping[str, str] = view.get("names") or {}
        if player in names:
            return names[player]
        if is_computer(player):
            return t("seated.computer", locale, n=player.removeprefix("cpu"))
        seats = list(view.get("players") or [])
        return t("seated.seat", locale, n=seats.index(player) + 1 if player in seats else "?")

    def shown(self, player: str, view: Mapping[str, Any], locale: Lang) -> str:
        """A player's name where markdown is read (a title, a field's name): :meth:`plain`
        with its markdown escaped and its mentions inert (a display name such as ``__x__``
        shows as written)."""
        return escape(self.plain(player, view, locale))

    def hands_changed(self, events: Sequence[Mapping[str, Any]]) -> set[str]:
        """Players whose hand a move changed although their turn did not start or end (e.g.
        the pile handed to someone): their hands are redrawn too."""
        return set()

    def players(self, players: Iterable[str], locale: Lang) -> str:
        return ", ".join(self.who(p, locale) for p in players)

    def card_name(self, code: str) -> str:
        """A card as plain text: ``"10H"`` -> ``"10♥"``; other codes (``P12``, ``JK``) stay
        as the rules name them."""
        if len(code) >= 2 and code[-1] in SUIT_SYMBOLS and code[0] != "P":
            return code[:-1] + SUIT_SYMBOLS[code[-1]]
        return code

    def marked(self, view: Mapping[str, Any]) -> str | None:
        """The card drawn with its marked art in ``view`` (Papayoo's Papayoo), if any."""
        return None

    def card(self, code: str) -> str:
        """A card in message text: its art, or :meth:`card_name` without one."""
        return card_text(code, self.card_name(code))

    def card_in(self, code: str, view: Mapping[str, Any] | None) -> str:
        """:meth:`card` with the art ``view`` marks (Papayoo's Papayoo)."""
        marked = self.marked(view) if view is not None else None
        if marked is None:
            return self.card(code)
        return card_text(code, self.card_name(code), papayoo=marked)

    def cards(self, codes: Iterable[str], view: Mapping[str, Any] | None = None) -> str:
        return " ".join(self.card_in(c, view) for c in codes)

    def card_plain(self, code: str) -> str:
        """A card as plain text for a button's or an option's label (no art markup there):
        :meth:`card` when the card has no art, else :meth:`card_name`."""
        return self.card(code) if card_emoji(code) is None else self.card_name(code)

    def card_group(self, code: str) -> str:
        """The row a card's button goes in, the line it is on in a hand: its suit."""
        return suit_of(code)

    def hand_order(self, hand: Sequence[str]) -> list[str]:
        """A hand as it is shown: by suit, then rank (:func:`hand_key`)."""
        return sorted(hand, key=hand_key)

    def card_rank(self, code: str) -> str:
        """What a card's button says next to its art: the rank (``10``, ``Q``, ``12``)."""
        return code[1:] if suit_of(code) == "P" else rank_of(code)

    def card_label(self, code: str, view: Mapping[str, Any]) -> Label:
        """A card on a button: its art and rank, or its text (``7♥``) without art; the
        style of its suit (:data:`SUIT_STYLES`)."""
        style = SUIT_STYLES.get(suit_of(code), discord.ButtonStyle.secondary)
        emoji = card_emoji(code, papayoo=self.marked(view))
        if emoji is None:
            return Label(self.card_plain(code), style=style)
        return Label(self.card_rank(code), emoji=emoji, style=style)

    def card_option(self, code: str, view: Mapping[str, Any]) -> Label:
        """A card in a select: its art (if any) and its text."""
        emoji = card_emoji(code, papayoo=self.marked(view))
        return Label(self.card_plain(code), emoji=emoji)

    def options_text(self, options: Mapping[str, Any], locale: Lang) -> str:
        """The lobby's line of options."""
        return ", ".join(f"{k}: {v}" for k, v in options.items()) or "—"

    def title(self, game_id: int, view: Mapping[str, Any], locale: Lang) -> str:
        return f"{self.name(locale)} #{game_id}"

    # -- the table and the hand -------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        embed = discord.Embed(
            title=self.title(ctx.game_id, ctx.view, ctx.locale), colour=self.colour
        )
        self.add_last(embed, ctx.last, ctx.locale)
        self.add_turn(embed, ctx)
        return embed

    def add_last(self, embed: discord.Embed, last: Sequence[str], locale: Lang) -> None:
        if last:
            embed.add_field(
                name=t("seated.last", locale), value=clip("\n".join(last), 1024), inline=False
            )

    def add_turn(self, embed: discord.Embed, ctx: TableContext) -> None:
        """The seats in playing order, ``▶`` before whoever must act (with when the bot moves
        for them; a computer seat "is thinking…")."""
        if ctx.status != "active" or not ctx.view.get("to_act"):
            return
        embed.add_field(name=self.seats_title(ctx), value=self.seats_text(ctx), inline=False)

    def seats_title(self, ctx: TableContext) -> str:
        return t("seated.to_act", ctx.locale)

    def seat_order(self, view: Mapping[str, Any]) -> list[str]:
        """The seats in playing order (``players``; a game may start from whoever leads)."""
        players = list(view.get("players") or [])
        return players + [p for p in view.get("to_act") or [] if p not in players]

    def seats_text(self, ctx: TableContext) -> str:
        """A line per seat (:meth:`seat_line`), within an embed field."""
        acting = set(ctx.view.get("to_act") or [])
        lines = [self.seat_line(p, p in acting, ctx) for p in self.seat_order(ctx.view)]
        text = "\n".join(lines)
        return (
            text if len(text) <= 1024 else clip("\n".join(clip(line, 120) for line in lines), 1024)
        )

    def seat_line(self, player: str, acting: bool, ctx: TableContext) -> str:
        """One seat: ``▶ @Ana · the bot moves in 2 minutes``, ``▶ 🤖 Computer 1 is
        thinking…``, ``◦ @Bob``."""
        who = self.who(player, ctx.locale)
        if not acting:
            return f"{SEAT} {who}"
        if is_computer(player):
            return f"{TURN} " + t("seated.thinking", ctx.locale, player=who)
        if ctx.deadline is not None:
            deadline = when(ctx.deadline)
            return f"{TURN} " + t("seated.turn_deadline", ctx.locale, players=who, when=deadline)
        return f"{TURN} {who}"

    def hand(self, ctx: HandContext) -> discord.Embed:
        embed = discord.Embed(
            title=self.title(ctx.game_id, ctx.view, ctx.locale), colour=self.colour
        )
        embed.description = "\n".join(self.hand_lines(ctx))
        hand = ctx.view["you"].get("hand")
        if hand is not None:
            for k, value in enumerate(self.hand_fields(hand, ctx.view)):
                name = t("seated.your_hand", ctx.locale, count=len(hand)) if k == 0 else BLANK
                embed.add_field(name=name, value=value, inline=False)
        return embed

    def suit_lines(
        self, hand: Sequence[str], view: Mapping[str, Any] | None = None, *, art: bool = True
    ) -> list[list[str]]:
        """A hand's cards as they are shown, a list per suit (by rank); ``art=False``: the
        cards' text only."""
        lines: dict[str, list[str]] = {}
        for code in self.hand_order(hand):
            shown = self.card_in(code, view) if art else self.card_name(code)
            lines.setdefault(self.card_group(code), []).append(shown)
        return list(lines.values())

    def hand_text(
        self, hand: Sequence[str], view: Mapping[str, Any] | None = None, *, art: bool = True
    ) -> str:
        """A hand in text: a line per suit, sorted by rank (``art=False``: the cards' text
        only, for a hand too long to show as art)."""
        return "\n".join(" ".join(line) for line in self.suit_lines(hand, view, art=art))

    def hand_fields(self, hand: Sequence[str], view: Mapping[str, Any]) -> list[str]:
        """The values of the embed fields that show a hand, each within Discord's 1,024
        characters: a line per suit in one field when it fits; else the suits spread over
        several fields (whole suits together while they fit, a suit longer than a field cut
        between two cards). The art stays unless the whole hand's art would pass
        :data:`HAND_ART_MAX` (the embed holds 6,000 characters with the game's other
        fields): then the cards' text, spread the same way."""
        lines = self.suit_lines(hand, view)
        if sum(len(c) + 1 for line in lines for c in line) > HAND_ART_MAX:
            lines = self.suit_lines(hand, view, art=False)
        return pack_lines(lines) or ["—"]

    def hand_lines(self, ctx: HandContext) -> list[str]:
        """The hand's text: what just happened, then what to do now."""
        lines = [ctx.note] if ctx.note else []
        lines += list(ctx.last)
        if ctx.status == "over":
            lines.append(t("seated.hand_over", ctx.locale))
        elif ctx.status == "voided":
            lines.append(t("seated.hand_abandoned", ctx.locale))
        elif ctx.to_act:
            lines.append(self.prompt(ctx))
            if ctx.deadline is not None:
                lines.append(t("seated.hand_deadline", ctx.locale, when=when(ctx.deadline)))
        else:  # the hand is not edited when others move: name nobody, it would go stale
            lines.append(t("seated.wait", ctx.locale))
        return lines

    def prompt(self, ctx: HandContext) -> str:
        return t("seated.your_turn", ctx.locale)

    # -- the controls -----------------------------------------------------------------------

    def action_card(self, action: Mapping[str, Any]) -> str | None:
        """The one hand card an action plays (hand buttons show the whole hand then)."""
        if isinstance(action.get("card"), str):
            return str(action["card"])
        cards = action.get("cards")
        if isinstance(cards, list) and len(cards) == 1 and isinstance(cards[0], str):
            return cards[0]
        return None

    def extra_actions(self, legal: Sequence[Mapping[str, Any]]) -> list[int]:
        """The legal actions (their indexes) shown as buttons on their own row beside the
        hand's card buttons: every action that plays no single card (:meth:`action_card`),
        such as Draw or "name a suit". Five at most keep the card buttons; more, and every
        action is a button of its own."""
        return [i for i, action in enumerate(legal) if self.action_card(action) is None]

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        """How a legal action reads on a button or in a select: a card its art and rank
        (:meth:`card_label`), another move the catalog's ``<game>.action.<type>`` filled with
        the action's fields (``{suit}``, ``{card}``, ``{cards}``..., each as
        :meth:`label_param` shows it), else its type; cards the text does not name follow
        it."""
        kind = str(action.get("type"))
        cards = action.get("cards")
        if isinstance(action.get("card"), str):
            return self.card_label(action["card"], view)
        key = f"{self.kind}.action.{kind}"
        named: set[str] = set()
        if has_key(key, locale):
            named = placeholders(t(key, locale))
            params = {
                name: self.label_param(name, value, view, locale)
                for name, value in action.items()
                if name in named
            }
            text = t(key, locale, **params)
        else:
            text = kind
        if isinstance(cards, list) and cards and "cards" not in named:
            text = f"{text} {' '.join(self.card_plain(str(c)) for c in cards)}"
        return Label(text)

    def label_param(self, name: str, value: Any, view: Mapping[str, Any], locale: Lang) -> str:
        """An action's field in its label (plain text: no art, no mention): a card its text,
        ``cards`` their texts, a ``suit`` its symbol, a ``player`` their name."""
        if name == "card" and isinstance(value, str):
            return self.card_plain(value)
        if name == "cards" and isinstance(value, list):
            return " ".join(self.card_plain(str(c)) for c in value)
        if name == "suit" and isinstance(value, str):
            return SUIT_SYMBOLS.get(value, value)
        if name == "player" and isinstance(value, str):
            return self.plain(value, view, locale)
        return str(value)

    def action_text(self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang) -> str:
        """A legal action in message text (a card as its art)."""
        if isinstance(action.get("card"), str):
            return self.card_in(action["card"], view)
        return self.action_label(action, view, locale).text

    def multi_pick(self, view: Mapping[str, Any], locale: Lang) -> MultiPick | None:
        return None

    def board_controls(
        self, kind: str, game_id: int, views: Mapping[str, Mapping[str, Any]], locale: Lang
    ) -> GameView:
        """A public board's controls (``SeatedSpec.public_board``): each player's legal actions
        as buttons, one row per player (five at most); :func:`board_button` makes each one."""
        rows = []
        for seat, view in enumerate(views.values()):
            legal = view.get("you", {}).get("legal_actions") or []
            mark = stamp(legal)
            rows.append(
                [
                    board_button(
                        kind,
                        game_id,
                        seat,
                        legal,
                        index,
                        self.action_label(action, view, locale),
                        mark=mark,
                    )
                    for index, action in enumerate(legal[:5])
                ]
            )
        return PayloadView(rows[:5])

    # -- what happened ----------------------------------------------------------------------

    def event_lines(
        self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any], locale: Lang
    ) -> list[str]:
        """Short public lines for a move's events (shown on the table and in the hands)."""
        return []

    def records(
        self,
        game_id: int,
        events: Sequence[Mapping[str, Any]],
        view: Mapping[str, Any],
        locale: Lang,
    ) -> list[discord.Embed]:
        """New channel messages for a move, only where people want a record: a round's
        summary, the final result (at most about one per round)."""
        over = next((e for e in events if e.get("type") == "game_over"), None)
        return [] if over is None else [self.result(game_id, over, locale)]

    def result(self, game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
        ranking: list[list[str]] = list(over.get("ranking") or [])
        scores: Mapping[str, Any] = over.get("scores") or {}
        lines = []
        place = 1
        for group in ranking:
            for player in group:
                score = f" · {scores[player]}" if player in scores else ""
                lines.append(f"{place}. {self.who(player, locale)}{score}")
            place += len(group)
        winners = ranking[0] if ranking else []
        return discord.Embed(
            title=t("seated.result_title", locale, game=self.name(locale), game_id=game_id),
            description=t("seated.winner", locale, players=self.players(winners, locale))
            + "\n\n"
            + "\n".join(lines),
            colour=discord.Colour.gold(),
        )

    def auto_line(
        self, player: str, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> str:
        """The table's line when the turn timer moved for ``player``."""
        move = self.action_text(action, view, locale)
        return t("seated.timer_moved", locale, player=self.who(player, locale), move=move)

    def auto_lines(
        self,
        moves: Sequence[tuple[str, Mapping[str, Any]]],
        view: Mapping[str, Any],
        locale: Lang,
    ) -> list[str]:
        """The table's lines when the turn timer moved for several players at once."""
        return [self.auto_line(player, action, view, locale) for player, action in moves]

    def format_param(self, name: str, value: Any, locale: Lang) -> str | None:
        """A refusal's parameter as the table shows it (``None``: leave it as it is)."""
        if name in ("player", "host") and isinstance(value, str):
            return self.who(value, locale)
        if name == "card" and isinstance(value, str):
            return self.card(value)
        if name == "cards" and isinstance(value, list):
            return self.cards(str(c) for c in value)
        return None


def unrated_note(casual: bool, computers: bool, locale: Lang) -> str | None:
    """The line saying a game is not rated, and why (``None``: it is rated)."""
    if casual:
        return t("seated.unrated_casual", locale)
    if computers:
        return t("seated.unrated_computers", locale)
    return None


def mark_unrated(embed: discord.Embed, note: str | None) -> discord.Embed:
    """``note`` (:func:`unrated_note`) added to the embed's footer."""
    if note:
        footer = embed.footer.text
        embed.set_footer(text=f"{footer} · {note}" if footer else note)
    return embed
