"""What Spit looks like on Discord: one public board, and each player's own panel.

Spit hides nothing but face-down cards, so the board in the channel shows both players'
piles: the spit piles, each side marked with its player's colour (🟦 the first seat, 🟥 the
second) and what just happened. Its one control, **My controls**, opens the presser's
panel, an ephemeral message only they see (:meth:`SpitRenderer.hand`): the spit piles, their
own piles and what the opponent has left, with their buttons alone, one row per spit pile
with a button per stock pile (the card, enabled when it fits that spit pile), and a last row
for the moves of the moment (Spit!, the slap, a move that uncovers a card). Cards are the
application's card emojis (:mod:`bot.emojis`) where it has them, else text (``7♥``); a
pile's size is said in words (``7♥ · 3 cards``).

A control names the move itself (``<seat>.p.<pile>.<card>.<spit>.<onto>`` ...): a click
stays good while the opponent's moves leave it possible, and one that lost a race is refused
by the engine and answered with the panel as it is now.

Cards left: a player's stock and spit cards, and once the game is over with one spit pile in
play, that pile too for the player it was left to (:meth:`SpitRenderer.cards_left`), as the
engine's result counts them: the board, the panels and the result say the same number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import discord

from bot.emojis import card_emoji, card_text
from bot.i18n import Lang, t
from bot.present import SUIT_SYMBOLS
from bot.seated import HandContext, Label, SeatedRenderer, TableContext
from bot.text import clip
from bot.ui import GameView, PayloadView, button_payload

COLOURS: Final = ("🟦", "🟥")
ARROWS: Final = ("⬅", "➡")
STYLES: Final = (discord.ButtonStyle.primary, discord.ButtonStyle.danger)
PANEL_COLOURS: Final = (discord.Colour.blue(), discord.Colour.red())


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

    def cards_left(self, view: Mapping[str, Any]) -> dict[str, int]:
        """Each player's cards left: their stock and spit cards; once the game is over with
        one spit pile in play, the pile left to the loser counts for them (the engine's
        ``result()`` scores, which the result message shows)."""
        left = {str(p): int(n) for p, n in (view.get("cards_left") or {}).items()}
        winner = view.get("winner")
        piles = view.get("spit_piles") or []
        if view.get("phase") == "over" and winner and len(piles) == 1:
            for player in left:
                if player != winner:
                    left[player] += int(piles[0]["size"])
        return left

    def piles_text(self, view: Mapping[str, Any], player: str, locale: Lang) -> str:
        """A player's stock piles, each as its face-up card and its size (``J♦ · 2 cards``),
        in the order of their buttons."""
        piles = []
        for pile in view["stocks"][player]:
            if pile["top"] is None:
                piles.append(t("spit.empty_place", locale))
            else:
                size = self.count(1 + int(pile["down"]), locale)
                piles.append(f"{self.face(pile['top'])} · {size}")
        return "   ".join(piles)

    def stock_line(self, view: Mapping[str, Any], player: str, locale: Lang) -> str:
        """A player's side: who, their spit cards and cards left, then their stock piles."""
        return t(
            "spit.stock_line",
            locale,
            player=self.who(player, locale),
            piles=self.piles_text(view, player, locale),
            spit=view["spit_cards"][player],
            left=self.cards_left(view)[player],
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
        """The public board's one control: **My controls**, which opens the presser's own
        panel (:meth:`hand`, :meth:`panel_controls`), shown to them alone. No player's moves
        are on the board, so nobody can take the other's buttons for theirs."""
        button = button_payload(
            kind,
            game_id,
            "panel",
            label=t("spit.panel.open", locale),
            emoji="🎮",
            style=discord.ButtonStyle.primary,
        )
        return PayloadView([[button]])

    def panel_controls(
        self, kind: str, game_id: int, view: Mapping[str, Any], locale: Lang
    ) -> PayloadView | None:
        """One player's controls, for their panel alone: a row per spit pile with a button
        per stock pile (the card, enabled when it fits that spit pile), then a row for the
        moves of the moment (Spit!, the slap, a move that uncovers a card). ``None`` once
        the game is over."""
        if view.get("phase") == "over":
            return None
        you = view.get("you") or {}
        player = str(you.get("id", ""))
        players = list(view.get("players") or [])
        if player not in players:
            return None
        seat = players.index(player)
        legal = list(you.get("legal_actions") or [])
        spits = len(view["spit_piles"])
        rows: list[list[dict[str, Any]]] = []
        for j in range(spits):
            arrow = ARROWS[j] if spits == 2 else "⬇"
            row = []
            for i, pile in enumerate(view["stocks"][player]):
                play = next(
                    (a for a in legal if a["type"] == "play" and a["pile"] == i and a["spit"] == j),
                    None,
                )
                art = card_emoji(pile["top"]) if pile["top"] else None
                top = self.plain_card(pile["top"]) if pile["top"] else "·"
                # The card's emoji with its rank, else the card in text; then the spit pile.
                text = f"{pile['top'][:-1]} {arrow}" if art is not None else f"{top} {arrow}"
                row.append(
                    button_payload(
                        kind,
                        game_id,
                        "do",
                        f"{seat}.{encode(play)}" if play else f"{seat}.x{j}{i}",
                        label=text,
                        emoji=art,
                        style=STYLES[seat] if play else discord.ButtonStyle.secondary,
                        disabled=play is None,
                    )
                )
            rows.append(row)
        others = [a for a in legal if a["type"] in ("spit", "slap", "take")]
        fill = next((a for a in legal if a["type"] == "fill"), None)
        extra = [
            button_payload(
                kind,
                game_id,
                "do",
                f"{seat}.{encode(action)}",
                label=clip(self.action_label(action, view, locale).text, 80),
                style=discord.ButtonStyle.success,
            )
            for action in [*others, *([fill] if fill else [])][:5]
        ]
        rows.append(extra)
        return PayloadView(rows)

    def hand(self, ctx: HandContext) -> discord.Embed:
        """A player's panel, shown to them alone: the spit piles, what to do now, their own
        piles (in the order of their buttons) and what the opponent has left."""
        view, locale = ctx.view, ctx.locale
        player = ctx.player
        players = list(view["players"])
        seat = players.index(player) if player in players else 0
        other = next((p for p in players if p != player), player)
        left = self.cards_left(view)
        embed = discord.Embed(
            title=t(
                "spit.panel.title",
                locale,
                marker=COLOURS[seat % 2],
                game_id=ctx.game_id,
            ),
            colour=PANEL_COLOURS[seat % 2],
        )
        if ctx.status == "voided":
            embed.colour = discord.Colour.dark_grey()
        lines = [ctx.note] if ctx.note else []
        lines += [self.centre(view, locale), self.panel_phase(view, player, locale)]
        lines += [f"-# {line}" for line in list(ctx.last)[-3:]]
        embed.description = "\n".join(line for line in lines if line)
        embed.add_field(
            name=t("spit.panel.yours", locale, marker=COLOURS[seat % 2]),
            value=t(
                "spit.panel.your_line",
                locale,
                piles=self.piles_text(view, player, locale),
                spit=view["spit_cards"][player],
                left=left[player],
            )[:1024],
            inline=False,
        )
        embed.add_field(
            name=t(
                "spit.panel.opponent",
                locale,
                marker=COLOURS[(seat + 1) % 2],
                name=self.plain(other, view, locale)[:200],
            ),
            value=t(
                "spit.panel.opponent_line",
                locale,
                spit=view["spit_cards"][other],
                left=left[other],
            ),
            inline=False,
        )
        return embed

    def panel_phase(self, view: Mapping[str, Any], player: str, locale: Lang) -> str:
        """What the panel's owner does now: the board's phase line, said to them."""
        if view["phase"] == "spit" and player in (view.get("ready") or []):
            other = next((p for p in view["players"] if p != player), player)
            return t("spit.panel.ready", locale, player=self.side(other, view, locale))
        return self.phase_line(view, locale)

    def format_param(self, name: str, value: Any, locale: Lang) -> str | None:
        if name in ("onto", "top") and isinstance(value, str):
            return self.face(value)
        return super().format_param(name, value, locale)

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

    def history_score(self, player: str, result: Mapping[str, Any], locale: Lang) -> str | None:
        """Spit's scores are the cards each player had left."""
        scores: Mapping[str, Any] = result.get("scores") or {}
        if player not in scores:
            return None
        return t("seated.history.cards_left", locale, left=scores[player])

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
