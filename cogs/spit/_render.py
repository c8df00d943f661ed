"""What Spit looks like on Discord: one public board, both players' piles and controls.

Spit hides nothing but face-down cards, so the whole game is one channel message. Each
player has their own controls on it (their colour on every button): one row per spit pile
with a button per stock pile (the card, enabled when it fits that spit pile), and a last row
for the moves of the moment (Spit!, the slap, a move that uncovers a card).

A control names the move itself (``p.<pile>.<card>.<spit>.<onto>`` ...): a click stays good
while the opponent's moves leave it possible, and one that lost a race is refused by the
engine and answered with the board as it is now.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import discord

from bot.i18n import Lang, t
from bot.seated import Label, SeatedRenderer, TableContext
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
        names = view.get("names") or {}
        a, b = view["players"]
        return t(
            "spit.title",
            locale,
            game_id=game_id,
            a=names.get(a) or self.plain(a, view, locale),
            b=names.get(b) or self.plain(b, view, locale),
        )

    def centre(self, view: Mapping[str, Any], locale: Lang) -> str:
        piles = []
        for j, pile in enumerate(view["spit_piles"]):
            top = self.card(pile["top"]) if pile["top"] else "—"
            arrow = ARROWS[j] if len(view["spit_piles"]) == 2 else "⬇"
            piles.append(t("spit.spit_pile", locale, arrow=arrow, card=top, size=pile["size"]))
        return "   ".join(piles)

    def phase_line(self, view: Mapping[str, Any], locale: Lang) -> str:
        phase = view["phase"]
        if phase == "spit":
            ready = view["ready"]
            if view.get("lone_spitter"):
                return t("spit.phase.lone", locale, player=self.who(view["lone_spitter"], locale))
            if ready:
                return t("spit.phase.ready", locale, player=self.who(ready[0], locale))
            return t("spit.phase.spit", locale)
        if phase == "slap":
            key = "spit.phase.take" if view["options"].get("no_slap") else "spit.phase.slap"
            return t(key, locale)
        if phase == "over":
            winner = view.get("winner")
            return t("spit.phase.over", locale, player=self.who(winner, locale)) if winner else ""
        return t("spit.phase.play", locale)

    def stock_line(self, view: Mapping[str, Any], player: str, locale: Lang) -> str:
        piles = []
        for pile in view["stocks"][player]:
            if pile["top"] is None:
                piles.append("·")
            else:
                down = f"+{pile['down']}" if pile["down"] else ""
                piles.append(f"{self.card(pile['top'])}{down}")
        return t(
            "spit.stock_line",
            locale,
            piles="  ".join(piles),
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
                name=f"{COLOURS[seat]} {self.plain(player, view, locale)}",
                value=self.who(player, locale) + "\n" + self.stock_line(view, player, locale),
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
                    top = self.card(pile["top"]) if pile["top"] else "·"
                    arrow = ARROWS[j] if spits == 2 else "⬇"
                    arg = f"{seat}.{encode(play)}" if play else f"{seat}.x{j}{i}"
                    items.append(
                        GameButton(
                            kind,
                            game_id,
                            "do",
                            arg,
                            label=f"{top} {arrow}",
                            emoji=COLOURS[seat],
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
                    label=label.text[:80],
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
            return Label(f"{self.card(action['card'])} → {self.card(action['onto'])}")
        if kind == "fill":
            return Label(t("spit.action.fill", locale, card=self.card(action["card"])))
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
            who = self.who(str(event.get("player", "")), locale) if event.get("player") else ""
            if kind == "play":
                lines.append(
                    t(
                        "spit.ev.play",
                        locale,
                        player=who,
                        card=self.card(event["card"]),
                        onto=self.card(event["onto"]),
                    )
                )
            elif kind == "spit":
                cards = " ".join(self.card(c["card"]) for c in event["cards"])
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
                lines.append(
                    t("spit.phase.over", locale, player=self.who(str(event["winner"]), locale))
                )
        return lines[-6:]

    def result(self, game_id: int, over: Mapping[str, Any], locale: Lang) -> discord.Embed:
        winner = str(over.get("winner") or "")
        scores: Mapping[str, Any] = over.get("scores") or {}
        lines = [
            t("spit.result_line", locale, player=self.who(p, locale), left=n)
            for p, n in scores.items()
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
