"""``SpayeGame``: one guild's Späye day behind the engine protocol (:mod:`bot.engine.base`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from bot.engine.base import SYSTEM, Action, Event, Game, IllegalAction, register
from bot.engine.cards import NIKAYE
from bot.engine.rng import Rng
from bot.engine.spaye import daye, exercise
from bot.engine.spaye.rules import (
    COLUMNS,
    FINAL_CARDS,
    check_spaye_options,
    is_player_id,
    spaye_deck,
)
from bot.engine.spaye.state import Daye, Exercise, State

Handler = Callable[[State, str, Action], list[Event]]

PLAYER_ACTIONS: dict[str, Handler] = {
    "challenge": daye.challenge,
    "accept": daye.accept,
    "decline": daye.decline,
    "recruit": daye.recruit,
    "draw": daye.draw,
    "exercise_done": exercise.exercise_done,
    "give_up": exercise.give_up,
    "ask_committee": exercise.ask_committee,
    "approve": exercise.approve,
    "refuse": exercise.refuse,
    "bonus_share": exercise.bonus_share,
    "bonus_tyrant": exercise.bonus_tyrant,
    "bonus_double": exercise.bonus_double,
    "propose_exercise": exercise.propose_exercise,
    "agree_exercise": exercise.agree_exercise,
}
SYSTEM_ACTIONS = ("expire", "void", "close", "committee")


@register
class SpayeGame(Game):
    """A Späye day. See the package docstring for actions, events and views."""

    kind: ClassVar[str] = "spaye"
    examples = ((2, {}), (4, {}), (0, {}))  # the roster so far (it may be empty)

    def __init__(self, state: State) -> None:
        self._s = state

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> SpayeGame:
        opts = check_spaye_options(options)
        bad = [p for p in players if not is_player_id(p)]
        if bad:
            raise ValueError(f"spaye: {bad[0]!r} cannot be a player")
        rng = Rng(seed)
        table = spaye_deck()
        rng.shuffle(table)
        state = State(roster=[], options=opts, rng=rng.state, table=table, discard=[])
        state.join(*players)
        return cls(state)

    @classmethod
    def with_table(
        cls,
        table: Sequence[str],
        *,
        players: Sequence[str] = (),
        seed: int = 0,
        options: Mapping[str, Any] | None = None,
    ) -> SpayeGame:
        """TEST SUPPORT ONLY: a day whose table is exactly ``table``, drawn in that order.

        The other cards of the 55 start in the discard, as if drawn earlier. On this
        *stacked* table every draw takes the first card and a reinserted nikäye
        replaces the last one; the Tikäo's redraw still shuffles with the seed. No
        player action leads here: ``new_game`` always spreads a shuffled table.
        """
        game = cls.new(players, seed, options or {})
        rest = Counter(spaye_deck())
        rest.subtract(table)
        if any(n < 0 for n in rest.values()):
            raise ValueError("with_table: cards must come from one Späye deck")
        if len(table) % 2 != 1 or (table and NIKAYE not in table):
            raise ValueError("with_table: the table holds an odd count with a nikäye")
        game._s.table = list(table)
        game._s.discard = sorted(rest.elements())
        game._s.stacked = True
        return game

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SpayeGame:
        return cls(State.from_dict(data))

    def to_dict(self) -> dict[str, Any]:
        return self._s.to_dict()

    # -- acting ----------------------------------------------------------------------------

    def apply(self, player: str, action: Action) -> list[Event]:
        s = self._s
        if not s.running():
            raise IllegalAction("this Späye is over", "spaye.over", status=s.status)
        kind = action.get("type") if isinstance(action, Mapping) else None
        if player == SYSTEM:
            events = self._system(kind, action)
        elif kind in SYSTEM_ACTIONS:
            raise IllegalAction("only the bot can do that", "spaye.system_only", action=kind)
        elif not isinstance(kind, str) or kind not in PLAYER_ACTIONS:
            raise IllegalAction(
                f"unknown Späye action {kind!r}", "spaye.unknown_action", action=kind
            )
        elif not is_player_id(player):
            raise IllegalAction(f"{player!r} cannot play Späye", "spaye.bad_player")
        else:
            events = PLAYER_ACTIONS[kind](s, player, action)
        return events + self._finish_if_done()

    def _system(self, kind: object, action: Action) -> list[Event]:
        s = self._s
        if kind == "expire":
            return daye.expire(s)
        if kind == "committee":
            return exercise.join_committee(s, action)
        if kind == "void":
            if not s.table:
                raise IllegalAction(
                    "no card is left: close the day instead of voiding it",
                    "spaye.nothing_to_void",
                )
            return self._void()
        if kind == "close":
            return self._void() if s.table else self._close()
        raise IllegalAction("the bot does not play Späye", "spaye.system_cannot_play")

    def _void(self) -> list[Event]:
        """Closing time with cards left: no point counts and every bonus used comes back."""
        s = self._s
        s.status = "voided"
        returned = {t: u["player"] for t, u in s.bonuses_used.items()}
        return [{"type": "day_voided", "table": len(s.table), "bonuses_returned": returned}]

    def _close(self) -> list[Event]:
        events = exercise.lapse_all(self._s)
        return events + self._finish_if_done()

    def _finish_if_done(self) -> list[Event]:
        """The day is finished once the table is empty and no exercise is left to confirm."""
        s = self._s
        if not s.running() or s.table or s.daye is not None or s.exercises:
            return []
        s.status = "finished"
        res = self.result()
        return [{"type": "day_finished", "ranking": res["ranking"], "scores": res["scores"]}]

    # -- who may do what -------------------------------------------------------------------

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        s = self._s
        if not s.running():
            return []
        if player == SYSTEM:
            acts: list[dict[str, Any]] = []
            if s.challenge is not None or (s.daye is not None and s.daye.offer is not None):
                acts.append({"type": "expire"})
            if s.table:
                acts.append({"type": "void"})
            return [*acts, {"type": "close"}]
        if not is_player_id(player):
            return []
        return (
            self._challenge_template()
            + exercise.exercise_choice_actions(s, player)
            + self._duties(player)
        )

    def _challenge_template(self) -> list[dict[str, Any]]:
        """Anyone may challenge while no däye or challenge is under way: the bot fills the
        ``None`` blanks with the colleague(s) named in the command."""
        s = self._s
        if s.daye is not None or s.challenge is not None or len(s.table) < FINAL_CARDS:
            return []
        if len(s.table) == FINAL_CARDS:
            return [{"type": "challenge", "targets": [None, None]}]
        return [{"type": "challenge", "target": None}]

    def _duties(self, player: str) -> list[dict[str, Any]]:
        """Everything but challenging: what makes a player someone the game waits for."""
        s = self._s
        acts: list[dict[str, Any]] = []
        c, d = s.challenge, s.daye
        invited = (c is not None and player in c.targets and player not in c.accepted) or (
            d is not None and d.offer == player
        )
        if invited:
            acts += [{"type": "accept"}, {"type": "decline"}]
        if d is not None and player in d.players:
            if d.recruiting and d.offer is None:
                acts.append({"type": "recruit", "player": None})
            elif player in d.waiting():
                acts.append({"type": "draw"})
        return acts + exercise.exercise_actions(s, player)

    def to_act(self) -> list[str]:
        """Invited players, späyins who must draw or recruit, nikäyés with an exercise,
        approvers of an adjustment. Challenging is open to anyone and is not listed."""
        s = self._s
        if not s.running():
            return []
        candidates = dict.fromkeys([*s.roster, *s.options["committee"]])
        return [p for p in candidates if self._duties(p)]

    # -- what may be seen ------------------------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        s = self._s
        c = s.challenge
        return {
            "kind": self.kind,
            "status": s.status,
            "exercise": s.options["exercise"],
            "players": list(s.roster),
            "table": len(s.table),
            "final_next": s.running() and s.daye is None and len(s.table) == FINAL_CARDS,
            "challenge": None if c is None else c.to_dict(),
            "daye": _daye_view(s.daye),
            "last_daye": _daye_view(s.last),
            "dayes": s.dayes,
            "exercises": [_exercise_view(s, e) for e in s.exercises],
            "points": {p: dict(s.points[p]) for p in s.roster},
            "scores": {p: s.total(p) for p in s.roster},
            "spayins": list(s.spayins),
            "bonuses": s.available_bonuses(),
            "bonuses_used": {t: u["player"] for t, u in s.bonuses_used.items()},
            "proposal": None if s.proposal is None else dict(s.proposal),
        }

    def view(self, player: str) -> dict[str, Any]:
        """The public view plus the player's own options. Nobody, the drawer included, sees a
        card before the reveal."""
        v = self.public_view()
        duties = self._duties(player) if self._s.running() and is_player_id(player) else []
        v["you"] = {
            "id": player,
            "to_act": bool(duties),
            "legal_actions": self.legal_actions(player),
            "exercises": [e.id for e in self._s.exercises if e.player == player],
            "bonuses": [t for t, h in self._s.available_bonuses().items() if h == player],
        }
        return v

    def is_over(self) -> bool:
        return not self._s.running()

    def result(self) -> dict[str, Any]:
        """Ranking by total points. A voided day counts nothing and gives its bonuses back."""
        s = self._s
        counted = s.status != "voided"
        points = {p: dict(s.points[p]) if counted else dict.fromkeys(COLUMNS, 0) for p in s.roster}
        scores = {p: sum(cols.values()) for p, cols in points.items()}
        used = {t: u["player"] for t, u in s.bonuses_used.items()}
        return {
            "status": s.status,
            "ranking": _ranking(scores),
            "scores": scores,
            "points": points,
            "timeline": [dict(t) for t in s.timeline] if counted else [],
            "spayins": list(s.spayins),
            "dayes": s.dayes,
            "bonuses_used": used if counted else {},
            "bonuses_returned": {} if counted else used,
        }


def _ranking(scores: dict[str, int]) -> list[list[str]]:
    levels = sorted(set(scores.values()), reverse=True)
    return [[p for p, n in scores.items() if n == level] for level in levels]


def _daye_view(d: Daye | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "number": d.number,
        "players": list(d.players),
        "final": d.final,
        "rounds": [[{"player": p, "card": c} for p, c in rnd] for rnd in d.rounds[: d.revealed]],
        "drawn": d.drawn(),
        "waiting": d.waiting(),
        "recruiting": d.recruiting,
        "offer": None if d.offer is None else {"by": d.offer_by, "player": d.offer},
        "over": d.over,
        "winner": d.winner,
        "nikayes": list(d.nikayes),
    }


def _exercise_view(s: State, ex: Exercise) -> dict[str, Any]:
    return {
        "id": ex.id,
        "player": ex.player,
        "daye": ex.daye,
        "final": ex.final,
        "origin": ex.origin,
        "exercise": ex.exercise,
        "reps": ex.reps,
        "sets": ex.sets,
        "adjusted": ex.adjusted,
        "bonus": ex.bonus,
        "stake": {"reps": ex.stake_reps, "victory": ex.stake_victory},
        "request": None
        if ex.request is None
        else {"reps": ex.request[0], "exercise": ex.request[1], "approvers": s.approvers(ex)},
    }
