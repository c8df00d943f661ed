"""A toy seated game, defined in the tests: the whole kit serves it with no copied code.

"High card", the worked example of ``docs/adding-a-game.md``: 2 to 4 players hold three
cards each and, in turn, play one or draw one from a small stock (while it lasts). Who plays
an 8 names a suit. A played card scores its value, one more when it is of the suit named
last; the highest total wins once every hand is empty (a player with none is passed over).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord

from bot.engine.base import Action, Event, Game, IllegalAction, register
from bot.engine.cards import suit_of, value
from bot.i18n import CATALOGS, t
from bot.seated import (
    SeatedCog,
    SeatedRenderer,
    SeatedSpec,
    TableContext,
    seated_group,
    turn_option,
)

DEAL = (("2S", "9H", "5C"), ("KD", "3S", "4H"), ("7C", "8D", "AS"), ("6H", "10S", "QC"))
STOCK = ("JH", "4D")
"""What ``draw`` takes, in order."""
SUITS = ("S", "H", "D", "C")


class HighCard(Game):
    kind = "highcard"
    min_players = 2
    max_players = 4

    def __init__(
        self,
        players: Sequence[str],
        hands: list[list[str]],
        turn: int,
        played: dict[str, list[str]],
        stock: list[str] | None = None,
        naming: str | None = None,
        suit: str | None = None,
    ) -> None:
        self.players, self.hands, self.turn, self.played = list(players), hands, turn, played
        self.stock = list(STOCK) if stock is None else stock
        self.naming, self.suit = naming, suit

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> HighCard:
        if options:
            raise ValueError(f"highcard takes no option, not {sorted(options)}")
        return cls(
            players, [list(DEAL[i]) for i in range(len(players))], 0, {p: [] for p in players}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HighCard:
        return cls(
            data["players"],
            data["hands"],
            data["turn"],
            data["played"],
            data["stock"],
            data["naming"],
            data["suit"],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hands": self.hands,
            "turn": self.turn,
            "played": self.played,
            "stock": self.stock,
            "naming": self.naming,
            "suit": self.suit,
        }

    def to_act(self) -> list[str]:
        if self.is_over():
            return []
        return [self.naming or self.players[self.turn]]

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        if player not in self.to_act():
            return []
        if self.naming:
            return [{"type": "name", "suit": s} for s in SUITS]
        plays: list[dict[str, Any]] = [{"type": "play", "card": c} for c in self.hands[self.turn]]
        return plays + ([{"type": "draw"}] if self.stock else [])

    def apply(self, player: str, action: Action) -> list[Event]:
        if dict(action) not in self.legal_actions(player):
            raise IllegalAction("not now", "highcard.not_now")
        events: list[Event]
        if action["type"] == "name":
            self.naming, self.suit = None, action["suit"]
            events = [{"type": "named", "player": player, "suit": self.suit}]
        elif action["type"] == "draw":
            self.hands[self.turn].append(self.stock.pop(0))
            events = [{"type": "drew", "player": player}]
        else:
            self.hands[self.turn].remove(action["card"])
            self.played[player].append(action["card"])
            events = [{"type": "played", "player": player, "card": action["card"]}]
            if action["card"].startswith("8"):
                self.naming = player
        if action["type"] != "play" or not self.naming:
            self.pass_turn()
        if self.is_over():
            events.append({"type": "game_over", **self.result()})
        return events

    def deal_event(self) -> Event:
        """The opening event: the kit shows it on the first table (its event lines)."""
        return {"type": "deal", "stock": len(self.stock)}

    def pass_turn(self) -> None:
        """To the next player who still holds a card."""
        for step in range(1, len(self.players) + 1):
            seat = (self.turn + step) % len(self.players)
            if self.hands[seat]:
                self.turn = seat
                return

    def public_view(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "to_act": self.to_act(),
            "played": self.played,
            "stock": len(self.stock),
            "suit": self.suit,
        }

    def view(self, player: str) -> dict[str, Any]:
        view = self.public_view()
        if player in self.players:
            hand = self.hands[self.players.index(player)]
            view["you"] = {
                "id": player,
                "hand": list(hand),
                "legal_actions": self.legal_actions(player),
            }
        return view

    def is_over(self) -> bool:
        return not any(self.hands) and self.naming is None

    def result(self) -> dict[str, Any]:
        scores = {
            p: sum(value(c) + (suit_of(c) == self.suit) for c in cards)
            for p, cards in self.played.items()
        }
        order = sorted(set(scores.values()), reverse=True)
        return {
            "ranking": [[p for p in self.players if scores[p] == s] for s in order],
            "scores": scores,
        }


TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "highcard.action.draw": "Draw",
        "highcard.action.name": "Name {suit}",
        "highcard.suit": "Suit named",
        "highcard.played": "{player} played {card}.",
        "highcard.drew": "{player} drew a card.",
        "highcard.named": "{player} named {suit}.",
        "highcard.final": "Final scores",
        "highcard.deal": "Three cards each, {stock} in the stock.",
    },
    "fr": {
        "highcard.action.draw": "Piocher",
        "highcard.action.name": "Annoncer {suit}",
        "highcard.suit": "Couleur annoncée",
        "highcard.played": "{player} a joué {card}.",
        "highcard.drew": "{player} a pioché une carte.",
        "highcard.named": "{player} a annoncé {suit}.",
        "highcard.final": "Scores finaux",
        "highcard.deal": "Trois cartes chacun, {stock} dans la pioche.",
    },
}
"""The toy's catalogs: a real game's are ``bot/locales/highcard.en.json`` and ``.fr.json``;
the toy's exist only during its tests (:func:`install`, :func:`uninstall`)."""


class HighCardRenderer(SeatedRenderer):
    kind = "highcard"

    def name(self, locale: str) -> str:
        return "High card"

    def table(self, ctx: TableContext) -> discord.Embed:
        embed = super().table(ctx)
        if ctx.view.get("suit"):
            suit = self.label_param("suit", ctx.view["suit"], ctx.view, ctx.locale)
            embed.add_field(name=t("highcard.suit", ctx.locale), value=suit)
        result = ctx.result()
        if result is not None:
            scores = result["scores"]
            lines = [f"{self.who(p, ctx.locale)} · {scores.get(p, 0)}" for p in ctx.view["players"]]
            embed.add_field(name=t("highcard.final", ctx.locale), value="\n".join(lines))
        return embed

    def event_lines(
        self, events: Sequence[Mapping[str, Any]], view: Mapping[str, Any], locale: str
    ) -> list[str]:
        lines = []
        for event in events:
            who = self.who(str(event.get("player")), locale)
            if event["type"] == "played":
                lines.append(
                    t("highcard.played", locale, player=who, card=self.card(event["card"]))
                )
            elif event["type"] == "drew":
                lines.append(t("highcard.drew", locale, player=who))
            elif event["type"] == "deal":
                lines.append(t("highcard.deal", locale, stock=event["stock"]))
            elif event["type"] == "named":
                suit = self.label_param("suit", event["suit"], view, locale)
                lines.append(t("highcard.named", locale, player=who, suit=suit))
        return lines


SPEC = SeatedSpec(
    "highcard",
    HighCardRenderer(),
    options=(turn_option(0),),
)


class HighCardCog(SeatedCog, name="HighCard"):
    spec = SPEC
    highcard = seated_group("highcard", "High card", SPEC.options, "2 to 4")


class OpenCard(HighCard):
    """The same game on a public board: every hand is face up (as in Spit)."""

    kind = "opencard"


class OpenCardRenderer(HighCardRenderer):
    kind = "opencard"


OPEN_SPEC = SeatedSpec("opencard", OpenCardRenderer(), public_board=True)


class OpenCardCog(SeatedCog, name="OpenCard"):
    spec = OPEN_SPEC
    opencard = seated_group("opencard", "Open card", (), "2 to 4")


def install() -> None:
    """The toy's kinds in the registry and its texts in the catalogs, for its tests."""
    register(HighCard)
    register(OpenCard)
    for lang, texts in TEXTS.items():
        CATALOGS[lang].update(texts)


def uninstall() -> None:
    """The registry and the catalogs as they were."""
    from bot.engine import GAMES

    GAMES.pop(HighCard.kind, None)
    GAMES.pop(OpenCard.kind, None)
    for lang, texts in TEXTS.items():
        for key in texts:
            CATALOGS[lang].pop(key, None)


async def setup(bot: Any) -> None:
    await bot.add_cog(HighCardCog(bot))
    await bot.add_cog(OpenCardCog(bot))
