"""What Spit looks like on Discord: one public board, both players' piles and controls.

Spit hides nothing but face-down cards, so the whole game is one channel message. Each
player has a colour (🟦 the first seat, 🟥 the second), shown next to their name on the
title, on their side of the board, on what they did, and on every one of their controls:
one row per spit pile with a button per stock pile (the card, enabled when it fits that
spit pile), and a last row for the moves of the moment (Spit!, the slap, a move that
uncovers a card). Cards are the application's card emojis (:mod:`bot.emojis`) where it has
them, else text (``7♥``); a pile's size is said in words (``7♥ · 3 cards``).

A control names the move itself (``p.<pile>.<card>.<spit>.<onto>`` ...): a click stays good
while the opponent's moves leave it possible, and one that lost a race is refused by the
engine and answered with the board as it is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import discord

from bot.emojis import card_emoji, card_text
from bot.i18n import Lang, t
from bot.present import SUIT_SYMBOLS
from bot.seated import Label, SeatedRenderer, TableContext
from bot.text import clip
from bot.ui import GameButton, GameView

COLOURS: Final = ("🟦", "🟥")
ARROWS: Final = ("⬅", "➡")
STYLES: Final = (discord.ButtonStyle.primary, discord.ButtonStyle.danger)


def encode(action: Mapping[str, Any]) -> str:
    """A move as a control's argument: short, and enough to rebuild the move."""
    kind = action["type"]
    if kind == "play":
        return f"p.{action['pile']}.{action['card']}.{action['spit']}.{action['onto']}"
    if kind == "fill":
        return f"f.{action['pile']}.{action['card']}.{action['to']}"
    if kind == "spit":
        return "s" if action.get("pile") is None else f"s.{action['pile']}"
    return f"{'l' if kind == 'slap' else 't'}.{action['pile']}"


def decode(code: str) -> dict[str, Any] | None:
    """The move a control's argument names (``None`` when it names none)."""
    parts = code.split(".")
    try:
        if parts[0] == "p" and len(parts) == 5:
            return {
                "type": "play",
                "pile": int(parts[1]),
                "card": parts[2],
                "spit": int(parts[3]),
                "onto": parts[4],
            }
        if parts[0] == "f" and len(parts) == 4:
            return {"type": "fill", "pile": int(parts[1]), "card": parts[2], "to": int(parts[3])}
        if parts[0] == "s":
            return {"type": "spit"} if len(parts) == 1 else {"type": "spit", "pile": int(parts[1])}
        if parts[0] in ("l", "t") and len(parts) == 2:
            return {"type": "slap" if parts[0] == "l" else "take", "pile": int(parts[1])}
    except ValueError:
        return None
    return None


class SpitRenderer(SeatedRenderer):
    kind = "spit"
    colour = discord.Colour.orange()

    def name(self, locale: Lang) -> str:
        return "Spit"

    def options_text(self, options: Mapping[str, Any], locale: Lang) -> str:
        parts = [t("spit.opt.piles", locale, piles=options.get("piles", 5))]
        if options.get("alternate_colors"):
            parts.append(t("spit.opt.alternate", locale))
        if options.get("no_slap"):
            parts.append(t("spit.opt.no_slap", locale))
        return " · ".join(parts)

    def title(self, game_id: int, view: Mapping[str, Any], locale: Lang) -> str:
        a, b = view["players"]
        return t(
            "spit.title",
            locale,
            game_id=game_id,
            a=f"{COLOURS[0]} {self.shown(a, view, locale)}",
            b=f"{COLOURS[1]} {self.shown(b, view, locale)}",
        )

    # -- cards, sizes and sides ----------------------------------------------------------------

    def plain_card(self, code: str) -> str:
        """A card as plain text (``7♥``), for labels, where no emoji markup can show."""
        if len(code) >= 2 and code[-1] in SUIT_SYMBOLS:
            return code[:-1] + SUIT_SYMBOLS[code[-1]]
        return code

    def face(self, code: str) -> str:
        """A card in message text: its emoji, else ``7♥``."""
        return card_text(code, self.plain_card(code))

    def count(self, n: int, locale: Lang) -> str:
        """A number of cards in words: ``no card``, ``1 card``, ``3 cards``."""
        return t(
            "spit.cards.none" if n <= 0 else "spit.cards.one" if n == 1 else "spit.cards.many",
            locale,
            n=n,
        )

    def marker(self, player: str, view: Mapping[str, Any]) -> str:
        """A player's colour: 🟦 the first seat, 🟥 the second."""
        players = list(view.get("players") or [])
        return COLOURS[players.index(player) % 2] if player in players else ""

    def side(self, player: str, view: Mapping[str, Any], locale: Lang) -> str:
        """A player named with their colour: ``🟦 @Ana``."""
        return f"{self.marker(player, view)} {self.who(player, locale)}".strip()

    def centre(self, view: Mapping[str, Any], locale: Lang) -> str:
        piles = []
        for j, pile in enumerate(view["spit_piles"]):
            arrow = ARROWS[j] if len(view["spit_piles"]) == 2 else "⬇"
            if not pile["top"]:
                piles.append(t("spit.spit_pile_empty", locale, arrow=arrow))
                continue
            piles.append(
                t(
                    "spit.spit_pile",
                    locale,
                    arrow=arrow,
                    card=self.face(pile["top"]),
                    size=self.count(pile["size"], locale),
                )
            )
        return "   ".join(piles)

    def phase_line(self, view: Mapping[str, Any], locale: Lang) -> str:
        phase = view["phase"]
        if phase == "spit":
            ready = view["ready"]
            if view.get("lone_spitter"):
                lone = self.side(view["lone_spitter"], view, locale)
                return t("spit.phase.lone", locale, player=lone)
            if ready:
                return t("spit.phase.ready", locale, player=self.side(ready[0], view, locale))
            return t("spit.phase.spit", locale)
        if phase == "slap":
            key = "spit.phase.take" if view["options"].get("no_slap") else "spit.phase.slap"
            return t(key, locale)
        if phase == "over":
            winner = view.get("winner")
            if not winner:
                return ""
            return t("spit.phase.over", locale, player=self.side(winner, view, locale))
        return t("spit.phase.play", locale)

    def stock_line(self, view: Mapping[str, Any], player: str, locale: Lang) -> str:
        """A player's side: who, their spit cards and cards left, then each stock pile as
        its face-up card and its size (``J♦ · 2 cards``), in the order of their buttons."""
        piles = []
        for pile in view["stocks"][player]:
            if pile["top"] is None:
                piles.append(t("spit.empty_place", locale))
            else:
                size = self.count(1 + int(pile["down"]), locale)
                piles.append(f"{self.face(pile['top'])} · {size}")
        return t(
            "spit.stock_line",
            locale,
            player=self.who(player, locale),
            piles="   ".join(piles),
            spit=view["spit_cards"][player],
            left=view["cards_left"][player],
        )

    # -- the board ---------------------------------------------------------------------------

    def table(self, ctx: TableContext) -> discord.Embed:
        view, locale = ctx.view, ctx.locale
        embed = discord.Embed(title=self.title(ctx.game_id, view, locale), colour=self.colour)
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        embed.description = self.centre(view, locale) + "\n" + self.phase_line(view, locale)
        for seat, player in enumerate(view["players"]):
            embed.add_field(
                name=t(
                    "spit.side",
                    locale,
                    marker=COLOURS[seat],
                    name=clip(self.shown(player, view, locale), 200),
                ),
                value=clip(self.stock_line(view, player, locale), 1024),
                inline=False,
            )
        self.add_last(embed, ctx.last, locale)
        return embed

    def board_controls(
        self, kind: str, game_id: int, views: Mapping[str, Mapping[str, Any]], locale: Lang
    ) -> GameView:
        items: list[discord.ui.Item[Any]] = []
        extra: list[tuple[int, Mapping[str, Any], Mapping[str, Any]]] = []
        for seat, view in enumerate(views.values()):
            legal = list(view.get("you", {}).get("legal_actions") or [])
            player = view["players"][seat]
            piles = view["stocks"][player]
            spits = len(view["spit_piles"])
            for j in range(spits):
                row = seat * 2 + j
                for i, pile in enumerate(piles):
                    play = next(
                        (
                            a
                            for a in legal
                            if a["type"] == "play" and a["pile"] == i and a["spit"] == j
                        ),
                        None,
                    )
                    arrow = ARROWS[j] if spits == 2 else "⬇"
                    arg = f"{seat}.{encode(play)}" if play else f"{seat}.x{j}{i}"
                    # The card's emoji, then the side's colour and the card's rank in the
                    # label; without an emoji, the colour as the emoji and the card in text.
                    art = card_emoji(pile["top"]) if pile["top"] else None
                    top = self.plain_card(pile["top"]) if pile["top"] else "·"
                    if art is not None:
                        text = f"{COLOURS[seat]} {pile['top'][:-1]} {arrow}"
                    else:
                        text = f"{top} {arrow}"
                    items.append(
                        GameButton(
                            kind,
                            game_id,
                            "do",
                            arg,
                            label=text,
                            emoji=art or COLOURS[seat],
                            style=STYLES[seat] if play else discord.ButtonStyle.secondary,
                            disabled=play is None,
                            row=row,
                        )
                    )
            others = [a for a in legal if a["type"] in ("spit", "slap", "take")]
            fill = next((a for a in legal if a["type"] == "fill"), None)
            extra += [(seat, a, view) for a in [*others, *([fill] if fill else [])]]
        for seat, action, view in extra[:5]:
            label = self.action_label(action, view, locale)
            items.append(
                GameButton(
                    kind,
                    game_id,
                    "do",
                    f"{seat}.{encode(action)}",
                    label=clip(label.text, 80),
                    emoji=COLOURS[seat],
                    style=STYLES[seat],
                    row=4,
                )
            )
        return GameView(*items)

    def action_label(
        self, action: Mapping[str, Any], view: Mapping[str, Any], locale: Lang
    ) -> Label:
        kind = action["type"]
        if kind == "play":
            card, onto = self.plain_card(action["card"]), self.plain_card(action["onto"])
            return Label(f"{card} → {onto}")
        if kind == "fill":
            return Label(t("spit.action.fill", locale, card=self.plain_card(action["card"])))
        if kind == "spit":
            if action.get("pile") is None:
                return Label(t("spit.action.spit", locale))
            return Label(t("spit.action.spit_on", locale, arrow=ARROWS[int(action["pile"])]))
        sizes = [p["size"] for p in view.get("spit_piles") or []]
        pile = int(action["pile"])
        size = sizes[pile] if pile < len(sizes) else 0
        key = "spit.action.slap" if kind == "slap" else "spit.action.take"
        return Label(t(key, locale, arrow=ARROWS[pile], size=size))

    # -- what happened -----------------------------------------------------------------------

    def event_lines(self, events: Any, view: Mapping[str, Any], locale: Lang) -> list[str]:
        lines: list[str] = []
        for event in events:
            kind = event["type"]
            player = str(event.get("player") or "")
            who = self.side(player, view, locale) if player else ""
            if kind == "play":
                lines.append(
                    t(
                        "spit.ev.play",
                        locale,
                        player=who,
                        card=self.face(event["card"]),
                        onto=self.face(event["onto"]),
                    )
                )
            elif kind == "spit":
                cards = " ".join(self.face(c["card"]) for c in event["cards"])
                lines.append(t("spit.ev.spit", locale, cards=cards))
            elif kind == "ready":
                lines.append(t("spit.ev.ready", locale, player=who))
            elif kind == "blocked":
                lines.append(t("spit.ev.blocked", locale))
            elif kind in ("slap", "take"):
                lines.append(
                    t(f"spit.ev.{kind}", locale, player=who, arrow=ARROWS[int(event["pile"]) % 2])
                )
            elif kind == "layout":
                lines.append(t("spit.ev.layout", locale))
            elif kind == "stock_empty":
                lines.append(t("spit.ev.stock_empty", locale, player=who))
            elif kind == "game_over":
                winner = self.side(str(event["winner"]), view, locale)
                lines.append(t("spit.phase.over", locale, player=winner))
        return lines[-6:]

    def result(self, game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
        winner = str(over.get("winner") or "")
        scores: Mapping[str, Any] = over.get("scores") or {}
        lines = [
            t(
                "spit.result_line",
                locale,
                player=f"{COLOURS[seat % 2]} {self.who(p, locale)}",
                left=n,
            )
            for seat, (p, n) in enumerate(scores.items())
        ]
        return discord.Embed(
            title=t("seated.result_title", locale, game="Spit", game_id=game_id),
            description=t(
                "spit.phase.over", locale, player=self.who(winner, locale) if winner else "—"
            )
            + "\n\n"
            + "\n".join(lines),
            colour=discord.Colour.gold(),
        )
