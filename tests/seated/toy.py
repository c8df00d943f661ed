"""A toy seated game, defined in the tests: the whole kit serves it with no copied code.

"High card": 2 to 4 players hold three cards each and play them in turn; the highest total
of played card values wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.engine.base import Action, Event, Game, IllegalAction, register
from bot.engine.cards import value
from bot.seated import SeatedCog, SeatedRenderer, SeatedSpec, seated_group, turn_option

DEAL = (("2S", "9H", "5C"), ("KD", "3S", "4H"), ("7C", "8D", "AS"), ("6H", "10S", "QC"))


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
    ) -> None:
        self.players, self.hands, self.turn, self.played = list(players), hands, turn, played

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> HighCard:
        if options:
            raise ValueError(f"highcard takes no option, not {sorted(options)}")
        return cls(
            players, [list(DEAL[i]) for i in range(len(players))], 0, {p: [] for p in players}
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HighCard:
        return cls(data["players"], data["hands"], data["turn"], data["played"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hands": self.hands,
            "turn": self.turn,
            "played": self.played,
        }

    def to_act(self) -> list[str]:
        return [] if self.is_over() else [self.players[self.turn]]

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        if player not in self.to_act():
            return []
        return [{"type": "play", "card": c} for c in self.hands[self.turn]]

    def apply(self, player: str, action: Action) -> list[Event]:
        if dict(action) not in self.legal_actions(player):
            raise IllegalAction("not now", "highcard.not_now")
        self.hands[self.turn].remove(action["card"])
        self.played[player].append(action["card"])
        self.turn = (self.turn + 1) % len(self.players)
        events: list[Event] = [{"type": "played", "player": player, "card": action["card"]}]
        if self.is_over():
            events.append({"type": "game_over", **self.result()})
        return events

    def public_view(self) -> dict[str, Any]:
        return {"players": self.players, "to_act": self.to_act(), "played": self.played}

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
        return not any(self.hands)

    def result(self) -> dict[str, Any]:
        scores = {p: sum(value(c) for c in cards) for p, cards in self.played.items()}
        order = sorted(set(scores.values()), reverse=True)
        return {
            "ranking": [[p for p in self.players if scores[p] == s] for s in order],
            "scores": scores,
        }


class HighCardRenderer(SeatedRenderer):
    kind = "highcard"

    def name(self, locale: str) -> str:
        return "High card"


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
    register(HighCard)
    register(OpenCard)


async def setup(bot: Any) -> None:
    await bot.add_cog(HighCardCog(bot))
    await bot.add_cog(OpenCardCog(bot))
