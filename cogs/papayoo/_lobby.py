"""The Papayoo lobby: who sits at the table before the game starts.

A lobby is stored as its own ``games`` row of kind ``papayoo_lobby`` so that joining,
leaving, starting and cancelling go through ``GameStore.act`` like any move: committed
before the answer, one at a time per lobby (a double click is refused, never applied
twice), and still there after a restart. Starting a lobby creates the Papayoo game in the
same transaction (see the cog).

Actions: ``{"type": "join" | "leave" | "start" | "cancel" | "expire"}``. The host sits first,
cannot leave (they cancel), and alone may start (3 to 8 players) or cancel. ``expire`` is the
bot's (``SYSTEM``) when the lobby was not started in time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bot.engine import GAMES, SYSTEM, Event, Game, IllegalAction
from bot.engine.papayoo import MAX_PLAYERS, MIN_PLAYERS
from bot.storage import GameStatus, PlayerResult, StoredGame

KIND: Final = "papayoo_lobby"
OPEN: Final = "open"
STARTED: Final = "started"
CANCELLED: Final = "cancelled"
EXPIRED: Final = "expired"
ACTIONS: Final = ("join", "leave", "start", "cancel", "expire")


class PapayooLobby(Game):
    """Players gathering for one Papayoo game; ``options`` are the game's options."""

    kind = KIND

    def __init__(
        self, host: str, players: Sequence[str], options: Mapping[str, Any], status: str = OPEN
    ) -> None:
        self.host = host
        self.players = list(players)
        self.options = dict(options)
        self.status = status

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> PapayooLobby:
        if len(players) != 1:
            raise ValueError("a lobby opens with its host alone")
        return cls(players[0], players, options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PapayooLobby:
        return cls(data["host"], data["players"], data["options"], data["status"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "players": list(self.players),
            "options": dict(self.options),
            "status": self.status,
        }

    def to_act(self) -> list[str]:
        return [self.host] if self.status == OPEN else []

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        legal = []
        for kind in ACTIONS:
            try:
                self._check(player, kind)
            except IllegalAction:
                continue
            legal.append({"type": kind})
        return legal

    def _check(self, player: str, kind: str) -> None:
        if self.status != OPEN:
            raise IllegalAction("this lobby is closed", "papayoo.lobby.closed")
        if kind == "join":
            if player in self.players:
                raise IllegalAction("you are already in this game", "papayoo.lobby.already_in")
            if len(self.players) >= MAX_PLAYERS:
                raise IllegalAction(
                    f"the table is full ({MAX_PLAYERS} players)",
                    "papayoo.lobby.full",
                    max=MAX_PLAYERS,
                )
        elif kind == "leave":
            if player not in self.players:
                raise IllegalAction("you are not in this game", "papayoo.lobby.not_in")
            if player == self.host:
                raise IllegalAction(
                    "the host cancels rather than leaves", "papayoo.lobby.host_leaves"
                )
        elif kind in ("start", "cancel"):
            if player != self.host:
                raise IllegalAction(
                    "only the host can do that", "papayoo.lobby.not_host", host=self.host
                )
            if kind == "start" and len(self.players) < MIN_PLAYERS:
                raise IllegalAction(
                    f"at least {MIN_PLAYERS} players are needed",
                    "papayoo.lobby.too_few",
                    min=MIN_PLAYERS,
                    count=len(self.players),
                )
        elif kind == "expire":
            if player != SYSTEM:
                raise IllegalAction(
                    "only the bot closes a lobby for lack of time", "errors.not_allowed"
                )
        else:
            raise IllegalAction(f"unknown lobby action {kind!r}", "papayoo.lobby.unknown")

    def apply(self, player: str, action: Mapping[str, Any]) -> list[Event]:
        kind = str(action.get("type"))
        self._check(player, kind)
        if kind == "join":
            self.players.append(player)
        elif kind == "leave":
            self.players.remove(player)
        elif kind == "start":
            self.status = STARTED
        elif kind == "expire":
            self.status = EXPIRED
        else:
            self.status = CANCELLED
        return [{"type": kind, "player": player}]

    def view(self, player: str) -> dict[str, Any]:
        return self.public_view()

    def public_view(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "host": self.host,
            "players": list(self.players),
            "options": dict(self.options),
            "status": self.status,
        }

    def is_over(self) -> bool:
        return self.status != OPEN

    def result(self) -> dict[str, Any]:
        return {"ranking": [], "scores": {}, "voided": self.status in (CANCELLED, EXPIRED)}


def lobby_status(game: Game) -> GameStatus:
    """Started lobbies are ``over``, cancelled and expired ones ``voided``."""
    if not game.is_over():
        return "active"
    return "voided" if getattr(game, "status", None) in (CANCELLED, EXPIRED) else "over"


def no_results(stored: StoredGame) -> list[PlayerResult]:
    """A lobby is not a game played: it feeds no stats."""
    return []


def register_lobby() -> None:
    """Make lobby rows loadable (called when the cog loads, undone when it unloads)."""
    GAMES[KIND] = PapayooLobby


def unregister_lobby() -> None:
    if GAMES.get(KIND) is PapayooLobby:
        del GAMES[KIND]
