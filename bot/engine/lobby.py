"""The lobby of every seated game: who sits at the table before the game starts.

``new_game("lobby", [host], seed, {"game": "papayoo", **game_options})``. The lobby is a game
of the engine like the others, so joining, leaving and starting go through the same protocol,
the same store (one write per action, committed before the answer) and the same tests.

Seats: the host sits first. Seat limits come from the game class's ``min_players`` and
``max_players``; the game's options are validated by the game itself when the lobby opens
(a bad option raises ``ValueError`` with the game's own message).

Actions (plain JSON dicts)
    ``{"type": "join"}`` / ``{"type": "leave"}``  anyone / a seated colleague (not the host,
        who cancels instead);
    ``{"type": "start"}`` / ``{"type": "cancel"}``  the host only; start needs ``min_players``;
    ``{"type": "add_computer", "level": "easy" | "normal" | "hard"}``  the host seats a
        computer player (id ``cpu1``, ``cpu2``...: never a Discord id, so no stats line);
    ``{"type": "remove_computer", "player": "cpu1"}``  the host frees that seat;
    ``{"type": "expire"}``  ``SYSTEM`` only, when nobody started the lobby in time.

Events: ``joined`` / ``left`` {player}; ``computer_added`` {player, level};
``computer_removed`` {player}; ``started`` {players, game, options};
``cancelled`` {by}; ``expired``.

``public_view()``: kind, game, host, players (seat order), computers {id: level}, options,
status ("open" | "started" | "cancelled" | "expired"), min_players, max_players, to_act.
``view(p)`` adds ``you`` {id, seated, legal_actions}. ``result()``: no ranking (a lobby has no
winner); ``status`` "voided" once cancelled or expired, so the store files it as voided.

Refusals raise ``IllegalAction`` with key ``lobby.<reason>``: closed, already_in, full,
not_in, host_leaves, not_host {host}, too_few {min, count}, not_computer {player},
bad_level {level}, unknown {action}, system_only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from bot.engine.base import GAMES, SYSTEM, Action, Event, Game, IllegalAction, register

KIND: Final = "lobby"
OPEN: Final = "open"
STARTED: Final = "started"
CANCELLED: Final = "cancelled"
EXPIRED: Final = "expired"
LEVELS: Final = ("easy", "normal", "hard")
COMPUTER_PREFIX: Final = "cpu"
ACTIONS: Final = ("join", "leave", "start", "cancel", "add_computer", "remove_computer", "expire")


def is_computer(player: str) -> bool:
    """Computer seats have ids ``cpu<n>``; colleagues have Discord ids (digits)."""
    return player.startswith(COMPUTER_PREFIX)


def seated_class(game: str) -> type[Game]:
    """The game class a lobby gathers players for; ``ValueError`` for an unknown or unseated
    kind."""
    cls = GAMES.get(game)
    if cls is None or cls.kind == KIND or cls.max_players < 2:
        raise ValueError(f"lobby: {game!r} is not a game played at a table")
    return cls


def validate_options(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The game checks its own options: a trial game with placeholder seats must accept them."""
    cls = seated_class(game)
    trial = [f"{COMPUTER_PREFIX}{i + 1}" for i in range(cls.min_players)]
    cls.new(trial, 0, dict(options))
    return dict(options)


@register
class Lobby(Game):
    """Players gathering for one seated game."""

    kind = KIND
    examples = ((1, {"game": "papayoo"}), (1, {"game": "papayoo", "rounds": 2}))

    __slots__ = ("computers", "game", "host", "options", "players", "status")

    def __init__(
        self,
        game: str,
        host: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        computers: Mapping[str, str] | None = None,
        status: str = OPEN,
    ) -> None:
        self.game = game
        self.host = host
        self.players = list(players)
        self.options = dict(options)
        self.computers = dict(computers or {})
        self.status = status

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Lobby:
        if len(players) != 1:
            raise ValueError("a lobby opens with its host alone")
        opts = dict(options)
        game = opts.pop("game", None)
        if not isinstance(game, str):
            raise ValueError("lobby: option game names the game to play, e.g. 'papayoo'")
        return cls(game, players[0], players, validate_options(game, opts))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Lobby:
        return cls(
            data.get("game", "papayoo"),
            data["host"],
            data["players"],
            data["options"],
            data.get("computers"),
            data["status"],
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "host": self.host,
            "players": list(self.players),
            "options": dict(self.options),
            "computers": dict(self.computers),
            "status": self.status,
        }

    @property
    def limits(self) -> tuple[int, int]:
        cls = seated_class(self.game)
        return cls.min_players, cls.max_players

    # -- queries ------------------------------------------------------------------------------

    def to_act(self) -> list[str]:
        return [self.host] if self.status == OPEN else []

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        legal: list[dict[str, Any]] = []
        for kind in ACTIONS:
            if kind == "add_computer":
                candidates: list[dict[str, Any]] = [{"type": kind, "level": lv} for lv in LEVELS]
            elif kind == "remove_computer":
                candidates = [{"type": kind, "player": p} for p in self.computers]
            else:
                candidates = [{"type": kind}]
            for action in candidates:
                try:
                    self._check(player, action)
                except IllegalAction:
                    continue
                legal.append(action)
        return legal

    def auto_action(self, player: str) -> dict[str, Any]:
        """Nobody moves for an absent host: the lobby only expires (``SYSTEM``)."""
        if player == SYSTEM and self.status == OPEN:
            return {"type": "expire"}
        return super().auto_action(player)

    def is_over(self) -> bool:
        return self.status != OPEN

    def result(self) -> dict[str, Any]:
        voided = self.status in (CANCELLED, EXPIRED)
        return {"ranking": [], "scores": {}, "status": "voided" if voided else self.status}

    def public_view(self) -> dict[str, Any]:
        low, high = self.limits
        return {
            "kind": KIND,
            "game": self.game,
            "host": self.host,
            "players": list(self.players),
            "computers": dict(self.computers),
            "options": dict(self.options),
            "status": self.status,
            "min_players": low,
            "max_players": high,
            "to_act": self.to_act(),
        }

    def view(self, player: str) -> dict[str, Any]:
        view = self.public_view()
        view["you"] = {
            "id": player,
            "seated": player in self.players,
            "legal_actions": self.legal_actions(player),
        }
        return view

    # -- actions ------------------------------------------------------------------------------

    def _check(self, player: str, action: Action) -> None:
        kind = action.get("type") if isinstance(action, Mapping) else None
        if kind not in ACTIONS:
            raise IllegalAction(f"unknown lobby action {kind!r}", "lobby.unknown", action=str(kind))
        if self.status != OPEN:
            raise IllegalAction("this lobby is closed", "lobby.closed")
        low, high = self.limits
        if kind == "expire":
            if player != SYSTEM:
                raise IllegalAction(
                    "only the bot closes a lobby for lack of time", "lobby.system_only"
                )
            return
        if kind == "join":
            if player in self.players:
                raise IllegalAction("you are already at this table", "lobby.already_in")
            if is_computer(player) or player == SYSTEM:
                raise IllegalAction("only colleagues join a table", "lobby.not_in")
        elif kind == "leave":
            if player not in self.players:
                raise IllegalAction("you are not at this table", "lobby.not_in")
            if player == self.host:
                raise IllegalAction("the host cancels rather than leaves", "lobby.host_leaves")
            return
        elif player != self.host:
            raise IllegalAction("only the host can do that", "lobby.not_host", host=self.host)
        if kind in ("join", "add_computer") and len(self.players) >= high:
            raise IllegalAction(f"the table is full ({high} players)", "lobby.full", max=high)
        if kind == "add_computer" and action.get("level") not in LEVELS:
            level = str(action.get("level"))
            raise IllegalAction(f"unknown level {level!r}", "lobby.bad_level", level=level)
        if kind == "remove_computer" and action.get("player") not in self.computers:
            who = str(action.get("player"))
            raise IllegalAction(
                f"{who} is not a computer seat here", "lobby.not_computer", player=who
            )
        if kind == "start" and len(self.players) < low:
            raise IllegalAction(
                f"at least {low} players are needed",
                "lobby.too_few",
                min=low,
                count=len(self.players),
            )

    def apply(self, player: str, action: Action) -> list[Event]:
        self._check(player, action)
        kind = action["type"]
        if kind == "join":
            self.players.append(player)
            return [{"type": "joined", "player": player}]
        if kind == "leave":
            self.players.remove(player)
            return [{"type": "left", "player": player}]
        if kind == "add_computer":
            n = 1
            while f"{COMPUTER_PREFIX}{n}" in self.computers:
                n += 1
            seat = f"{COMPUTER_PREFIX}{n}"
            self.computers[seat] = str(action["level"])
            self.players.append(seat)
            return [{"type": "computer_added", "player": seat, "level": self.computers[seat]}]
        if kind == "remove_computer":
            seat = str(action["player"])
            del self.computers[seat]
            self.players.remove(seat)
            return [{"type": "computer_removed", "player": seat}]
        if kind == "start":
            self.status = STARTED
            return [
                {
                    "type": "started",
                    "game": self.game,
                    "players": list(self.players),
                    "options": dict(self.options),
                }
            ]
        if kind == "cancel":
            self.status = CANCELLED
            return [{"type": "cancelled", "by": player}]
        self.status = EXPIRED
        return [{"type": "expired"}]
