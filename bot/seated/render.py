"""What a seated game looks like: the part a game's cog writes (a :class:`SeatedRenderer`).

Renderers are pure: engine views and events plus a language in, embeds and short texts out.
No I/O, no Discord calls, and nothing flows back into the rules. The public renders get
``public_view()`` and public events only, so they cannot show a hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import discord

from bot.engine.lobby import is_computer
from bot.i18n import Lang, has_key, t
from bot.present import SUIT_SYMBOLS, mention, when
from bot.seated.controls import Label, MultiPick, board_button, stamp
from bot.ui import GameView, PayloadView

__all__ = [
    "HandContext",
    "Label",
    "MultiPick",
    "SeatedRenderer",
    "TableContext",
]


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

    def hands_changed(self, events: Sequence[Mapping[str, Any]]) -> set[str]:
        """Players whose hand a move changed although their turn did not start or end (e.g.
        the pile handed to someone): their hands are redrawn too."""
        return set()

    def players(self, players: Iterable[str], locale: Lang) -> str:
        return ", ".join(self.who(p, locale) for p in players)

    def card(self, code: str) -> str:
        """``"10H"`` -> ``"10♥"``; other codes (``P12``, ``JK``) stay as the rules name them."""
        if len(code) >= 2 and code[-1] in SUIT_SYMBOLS and code[0] != "P":
            return code[:-1] + SUIT_SYMBOLS[code[-1]]
        return code

    def cards(self, codes: Iterable[str]) -> str:
        return " ".join(self.card(c) for c in codes)

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
                name=t("seated.last", locale), value="\n".join(last)[:1024], inline=False
            )

    def add_turn(self, embed: discord.Embed, ctx: TableContext) -> None:
        """Whose turn it is, and when the bot moves for them."""
        if ctx.status != "active":
            return
        acting = list(ctx.view.get("to_act") or [])
        if not acting:
            return
        who = self.players(acting, ctx.locale)
        value = (
            t("seated.turn_deadline", ctx.locale, players=who, when=when(ctx.deadline))
            if ctx.deadline is not None
            else who
        )
        embed.add_field(name=t("seated.to_act", ctx.locale), value=value, inline=False)

    def hand(self, ctx: HandContext) -> discord.Embed:
        embed = discord.Embed(
            title=self.title(ctx.game_id, ctx.view, ctx.locale), colour=self.colour
        )
        embed.description = "\n".join(self.hand_lines(ctx))
        hand = ctx.view["you"].get("hand")
        if hand is not None:
            embed.add_field(
                name=t("seated.your_hand", ctx.locale, count=len(hand)),
                value=self.hand_text(hand)[:1024] or "—",
                inline=False,
            )
        return embed

    def hand_text(self, hand: Sequence[str]) -> str:
        return self.cards(hand)

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

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        """How a legal action reads on a button or in a select."""
        kind = str(action.get("type"))
        cards = action.get("cards")
        if isinstance(action.get("card"), str):
            return Label(self.card(action["card"]))
        key = f"{self.kind}.action.{kind}"
        text = t(key, locale) if has_key(key, locale) else kind
        if isinstance(cards, list) and cards:
            text = f"{text} {self.cards(cards)}"
        return Label(text)

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
        label = self.action_label(action, view, locale).text
        return t("seated.timer_moved", locale, player=self.who(player, locale), move=label)

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
