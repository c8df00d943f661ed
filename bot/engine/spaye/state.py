"""The whole state of one Späye day, as plain data that round-trips through JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.engine.base import Event
from bot.engine.cards import NIKAYE
from bot.engine.rng import Rng
from bot.engine.spaye.rules import COLUMNS

Draw = tuple[str, str]
"""``(player, card)`` in drawing order."""


@dataclass
class Challenge:
    """A challenge waiting for its answer(s); two targets when it is for the final däye."""

    by: str
    targets: list[str]
    final: bool
    accepted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "targets": list(self.targets),
            "final": self.final,
            "accepted": list(self.accepted),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Challenge:
        return cls(d["by"], list(d["targets"]), d["final"], list(d["accepted"]))


@dataclass
class Daye:
    """One däye: every round of draws until a winner or a nikäye (one participation)."""

    number: int
    players: list[str]
    final: bool
    rounds: list[list[Draw]] = field(default_factory=lambda: [[]])
    revealed: int = 0
    """How many rounds were revealed; a round's cards stay hidden until all have drawn."""
    recruiting: bool = False
    """A tie left the final three cards: the two späyins must recruit a third player."""
    offer: str | None = None
    offer_by: str | None = None
    winner: str | None = None
    nikayes: list[str] = field(default_factory=list)
    over: bool = False

    def drawn(self) -> list[str]:
        """Who drew in the current round."""
        return [p for p, _ in self.rounds[-1]] if len(self.rounds) > self.revealed else []

    def waiting(self) -> list[str]:
        """Who still has to draw in the current round."""
        if self.over or self.recruiting:
            return []
        done = self.drawn()
        return [p for p in self.players if p not in done]

    def hidden_cards(self) -> list[str]:
        return [c for rnd in self.rounds[self.revealed :] for _, c in rnd]

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "players": list(self.players),
            "final": self.final,
            "rounds": [[[p, c] for p, c in rnd] for rnd in self.rounds],
            "revealed": self.revealed,
            "recruiting": self.recruiting,
            "offer": self.offer,
            "offer_by": self.offer_by,
            "winner": self.winner,
            "nikayes": list(self.nikayes),
            "over": self.over,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Daye:
        return cls(
            number=d["number"],
            players=list(d["players"]),
            final=d["final"],
            rounds=[[(p, c) for p, c in rnd] for rnd in d["rounds"]],
            revealed=d["revealed"],
            recruiting=d["recruiting"],
            offer=d["offer"],
            offer_by=d["offer_by"],
            winner=d["winner"],
            nikayes=list(d["nikayes"]),
            over=d["over"],
        )


@dataclass
class Exercise:
    """An exercise still to confirm. ``stake_*`` are the points its confirmation earns."""

    id: int
    player: str
    daye: int
    daye_players: list[str]
    final: bool
    origin: str
    """``"nikaye"`` (the player's own), ``"share"`` (Grand Späyin's partner) or ``"tyrant"``
    (handed over by the Mastäye)."""
    exercise: str
    reps: int
    sets: int = 1
    stake_reps: int = 0
    stake_victory: int = 0
    adjusted: bool = False
    bonus: str | None = None
    request: tuple[int, str] | None = None
    """An adjustment ``(reps, exercise)`` waiting for the committee."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "player": self.player,
            "daye": self.daye,
            "daye_players": list(self.daye_players),
            "final": self.final,
            "origin": self.origin,
            "exercise": self.exercise,
            "reps": self.reps,
            "sets": self.sets,
            "stake_reps": self.stake_reps,
            "stake_victory": self.stake_victory,
            "adjusted": self.adjusted,
            "bonus": self.bonus,
            "request": None if self.request is None else list(self.request),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Exercise:
        req = d["request"]
        return cls(
            id=d["id"],
            player=d["player"],
            daye=d["daye"],
            daye_players=list(d["daye_players"]),
            final=d["final"],
            origin=d["origin"],
            exercise=d["exercise"],
            reps=d["reps"],
            sets=d["sets"],
            stake_reps=d["stake_reps"],
            stake_victory=d["stake_victory"],
            adjusted=d["adjusted"],
            bonus=d["bonus"],
            request=None if req is None else (req[0], req[1]),
        )


@dataclass
class State:
    """Everything a Späye day needs to go on; ``to_dict`` is what ``dumps`` stores."""

    roster: list[str]
    options: dict[str, Any]
    rng: int
    table: list[str]
    discard: list[str]
    stacked: bool = False
    """Test support (``SpayeGame.with_table``): draws take the table's cards in order."""
    status: str = "running"
    challenge: Challenge | None = None
    daye: Daye | None = None
    last: Daye | None = None
    dayes: int = 0
    spayins: list[str] = field(default_factory=list)
    exercises: list[Exercise] = field(default_factory=list)
    next_exercise: int = 1
    points: dict[str, dict[str, int]] = field(default_factory=dict)
    timeline: list[dict[str, Any]] = field(default_factory=list)
    bonuses_used: dict[str, dict[str, Any]] = field(default_factory=dict)
    proposal: dict[str, str] | None = None
    """Another exercise proposed for the day (``{by, exercise}``), waiting for a colleague's
    agreement; only before the first däye starts."""

    # -- queries ---------------------------------------------------------------------------

    def running(self) -> bool:
        return self.status == "running"

    def nikayes_on_table(self) -> int:
        return self.table.count(NIKAYE)

    def exercise(self, eid: int) -> Exercise | None:
        return next((e for e in self.exercises if e.id == eid), None)

    def approvers(self, ex: Exercise) -> list[str]:
        """Who may answer an adjustment: the däye's other players, then committee members."""
        ids = [*ex.daye_players, *self.options["committee"]]
        return [p for p in dict.fromkeys(ids) if p != ex.player]

    def available_bonuses(self) -> dict[str, str]:
        """Bonuses whose holder may still use them today: ``{title: holder}``."""
        held: dict[str, str] = self.options["bonuses"]
        return {t: h for t, h in held.items() if t not in self.bonuses_used}

    def total(self, player: str) -> int:
        return sum(self.points.get(player, {}).values())

    # -- changes ---------------------------------------------------------------------------

    def join(self, *players: str) -> None:
        """A newcomer joins the day's roster when a challenge, recruit or bonus names them."""
        for p in players:
            if p not in self.roster:
                self.roster.append(p)
            self.points.setdefault(p, dict.fromkeys(COLUMNS, 0))

    def become_spayin(self, *players: str) -> None:
        for p in players:
            if p not in self.spayins:
                self.spayins.append(p)

    def award(self, player: str, column: str, points: int, daye: int) -> Event:
        """Add points and log them in the timeline (the month's "who reached it first")."""
        self.join(player)
        self.points[player][column] += points
        self.timeline.append(
            {
                "seq": len(self.timeline),
                "player": player,
                "column": column,
                "points": points,
                "daye": daye,
            }
        )
        return {
            "type": "points",
            "player": player,
            "column": column,
            "points": points,
            "daye": daye,
        }

    def new_exercise(self, **fields: Any) -> Exercise:
        ex = Exercise(id=self.next_exercise, **fields)
        self.next_exercise += 1
        self.exercises.append(ex)
        return ex

    def make_rng(self) -> Rng:
        return Rng(self.rng)

    def keep_rng(self, rng: Rng) -> None:
        self.rng = rng.state

    # -- serialisation ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "roster": list(self.roster),
            "options": _copy_options(self.options),
            "rng": self.rng,
            "table": list(self.table),
            "discard": list(self.discard),
            "stacked": self.stacked,
            "status": self.status,
            "challenge": None if self.challenge is None else self.challenge.to_dict(),
            "daye": None if self.daye is None else self.daye.to_dict(),
            "last": None if self.last is None else self.last.to_dict(),
            "dayes": self.dayes,
            "spayins": list(self.spayins),
            "exercises": [e.to_dict() for e in self.exercises],
            "next_exercise": self.next_exercise,
            "points": {p: dict(cols) for p, cols in self.points.items()},
            "timeline": [dict(t) for t in self.timeline],
            "bonuses_used": {t: dict(u) for t, u in self.bonuses_used.items()},
            "proposal": None if self.proposal is None else dict(self.proposal),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> State:
        chal, daye, last = d["challenge"], d["daye"], d["last"]
        return cls(
            roster=list(d["roster"]),
            options=_copy_options(d["options"]),
            rng=d["rng"],
            table=list(d["table"]),
            discard=list(d["discard"]),
            stacked=d["stacked"],
            status=d["status"],
            challenge=None if chal is None else Challenge.from_dict(chal),
            daye=None if daye is None else Daye.from_dict(daye),
            last=None if last is None else Daye.from_dict(last),
            dayes=d["dayes"],
            spayins=list(d["spayins"]),
            exercises=[Exercise.from_dict(e) for e in d["exercises"]],
            next_exercise=d["next_exercise"],
            points={p: dict(cols) for p, cols in d["points"].items()},
            timeline=[dict(t) for t in d["timeline"]],
            bonuses_used={t: dict(u) for t, u in d["bonuses_used"].items()},
            proposal=None if d.get("proposal") is None else dict(d["proposal"]),
        )


def _copy_options(options: dict[str, Any]) -> dict[str, Any]:
    return {
        "exercise": options["exercise"],
        "bonuses": dict(options["bonuses"]),
        "month_spayins": list(options["month_spayins"]),
        "committee": list(options["committee"]),
    }
