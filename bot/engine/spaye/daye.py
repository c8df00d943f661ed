"""Challenges, draws and reveals: how a däye is played (docs/rules/spaye.md, "A däye").

Every handler checks everything first and only then changes the state, so an
``IllegalAction`` leaves the game exactly as it was.
"""

from __future__ import annotations

from typing import Any

from bot.engine.base import Action, Event, IllegalAction
from bot.engine.cards import NIKAYE
from bot.engine.spaye.rules import (
    DAYE_POINTS,
    FINAL_CARDS,
    FINAL_DAYE_POINTS,
    FINAL_VICTORY_PER_NIKAYE,
    VICTORY_POINTS,
    card_value,
    is_player_id,
    named,
    named_all,
)
from bot.engine.spaye.state import Challenge, Daye, State

# -- shared checks ---------------------------------------------------------------------------


def check_no_daye(s: State) -> None:
    """One challenge or däye at a time per Späye. **[R]**"""
    if s.daye is not None:
        raise IllegalAction(
            f"a däye is under way between {named_all(s.daye.players)}",
            "spaye.daye_under_way",
            players=list(s.daye.players),
        )
    if s.challenge is not None:
        c = s.challenge
        raise IllegalAction(
            f"{named(c.by)} has challenged {named_all(c.targets)}: wait for the answer",
            "spaye.challenge_pending",
            by=c.by,
            targets=list(c.targets),
        )


def _colleague(raw: object, challenger: str) -> str:
    if not is_player_id(raw):
        raise IllegalAction("name the colleague you challenge", "spaye.name_a_colleague")
    if raw == challenger:
        raise IllegalAction("you cannot challenge yourself", "spaye.self_challenge")
    return raw


def _targets(s: State, player: str, action: Action) -> list[str]:
    """The challenged colleague(s): one, or two for the final däye (3 cards left)."""
    if len(s.table) < FINAL_CARDS:
        raise IllegalAction(
            "no card is left on the table: the final däye was played", "spaye.no_cards"
        )
    if len(s.table) == FINAL_CARDS:
        raw = action.get("targets")
        if not isinstance(raw, list) or len(raw) != 2:
            raise IllegalAction(
                "only the final däye is left: it needs three players, so challenge two colleagues",
                "spaye.final_needs_two",
            )
        targets = [_colleague(t, player) for t in raw]
        if targets[0] == targets[1]:
            raise IllegalAction(
                "challenge two different colleagues for the final däye", "spaye.same_target"
            )
        return targets
    if action.get("targets") is not None:
        raise IllegalAction(
            "the final däye comes when 3 cards are left: challenge one colleague",
            "spaye.not_final",
            table=len(s.table),
        )
    return [_colleague(action.get("target"), player)]


# -- challenge, accept, decline, expire ------------------------------------------------------


def challenge(s: State, player: str, action: Action) -> list[Event]:
    check_no_daye(s)
    targets = _targets(s, player, action)
    final = len(s.table) == FINAL_CARDS
    s.join(player, *targets)
    s.challenge = Challenge(by=player, targets=targets, final=final)
    return [{"type": "challenge", "by": player, "targets": list(targets), "final": final}]


def _invitation(s: State, player: str, verb: str) -> Challenge | Daye:
    """What ``player`` may answer now: a challenge, or a däye recruiting them."""
    c, d = s.challenge, s.daye
    if c is not None:
        if player not in c.targets:
            waiting = [t for t in c.targets if t not in c.accepted]
            raise IllegalAction(
                f"only {named_all(waiting)} can {verb} this challenge",
                "spaye.not_challenged",
                players=waiting,
            )
        if player in c.accepted:
            waiting = [t for t in c.targets if t not in c.accepted]
            raise IllegalAction(
                f"you already accepted; waiting for {named_all(waiting)}",
                "spaye.already_accepted",
                players=waiting,
            )
        return c
    if d is not None and d.offer is not None:
        if player != d.offer:
            raise IllegalAction(
                f"only {named(d.offer)} can {verb} this invitation",
                "spaye.not_invited",
                player=d.offer,
            )
        return d
    raise IllegalAction("nobody is waiting for your answer", "spaye.no_invitation")


def accept(s: State, player: str, action: Action) -> list[Event]:
    c = _invitation(s, player, "accept")
    if isinstance(c, Daye):
        return _recruit_accepted(s, c, player)
    c.accepted.append(player)
    events: list[Event] = [{"type": "challenge_accepted", "by": c.by, "player": player}]
    if len(c.accepted) < len(c.targets):
        return events
    s.challenge = None
    events += lapse_proposal(s)
    s.dayes += 1
    players = [c.by, *c.targets]
    s.become_spayin(*players)
    s.daye = Daye(number=s.dayes, players=players, final=c.final)
    events.append({"type": "daye_started", "daye": s.dayes, "players": players, "final": c.final})
    return events


def lapse_proposal(s: State) -> list[Event]:
    """The first däye starts: a proposal nobody agreed to lapses; the exercise is fixed."""
    if s.proposal is None:
        return []
    proposal, s.proposal = s.proposal, None
    return [{"type": "exercise_proposal_lapsed", **proposal}]


def decline(s: State, player: str, action: Action) -> list[Event]:
    c = _invitation(s, player, "decline")
    if isinstance(c, Daye):
        by = c.offer_by
        c.offer = c.offer_by = None
        return [{"type": "recruit_declined", "daye": c.number, "by": by, "player": player}]
    s.challenge = None
    return [{"type": "challenge_declined", "by": c.by, "targets": c.targets, "player": player}]


def expire(s: State) -> list[Event]:
    """The bot's clock ran out on a challenge or on a recruit's invitation."""
    c, d = s.challenge, s.daye
    if c is not None:
        s.challenge = None
        return [
            {"type": "challenge_expired", "by": c.by, "targets": c.targets, "accepted": c.accepted}
        ]
    if d is not None and d.offer is not None:
        event = {"type": "recruit_expired", "daye": d.number, "by": d.offer_by, "player": d.offer}
        d.offer = d.offer_by = None
        return [event]
    raise IllegalAction("no challenge is waiting for an answer", "spaye.nothing_to_expire")


# -- recruiting a third player after a tie that left 3 cards ---------------------------------


def _check_in_daye(s: State, player: str) -> Daye:
    d = s.daye
    if d is None:
        if s.challenge is not None:
            raise IllegalAction("the challenge has not been accepted yet", "spaye.not_accepted_yet")
        raise IllegalAction("no däye is under way", "spaye.no_daye")
    if player not in d.players:
        raise IllegalAction(
            f"you are not in this däye: it is between {named_all(d.players)}",
            "spaye.not_in_daye",
            players=list(d.players),
        )
    return d


def recruit(s: State, player: str, action: Action) -> list[Event]:
    d = _check_in_daye(s, player)
    if not d.recruiting:
        raise IllegalAction("nobody needs to be recruited now", "spaye.no_recruit")
    if d.offer is not None:
        raise IllegalAction(
            f"{named(d.offer)} has not answered yet", "spaye.recruit_pending", player=d.offer
        )
    raw = action.get("player")
    if not is_player_id(raw):
        raise IllegalAction("name the colleague you recruit", "spaye.name_a_colleague")
    if raw in d.players:
        raise IllegalAction(
            f"{named(raw)} is already in this däye", "spaye.already_in_daye", player=raw
        )
    s.join(raw)
    d.offer, d.offer_by = raw, player
    return [{"type": "recruit_offered", "daye": d.number, "by": player, "player": raw}]


def _recruit_accepted(s: State, d: Daye, player: str) -> list[Event]:
    by = d.offer_by
    d.players.append(player)
    d.final, d.recruiting = True, False
    d.offer = d.offer_by = None
    s.become_spayin(player)
    return [
        {
            "type": "recruit_accepted",
            "daye": d.number,
            "by": by,
            "player": player,
            "players": list(d.players),
            "final": True,
        }
    ]


# -- drawing and revealing -------------------------------------------------------------------


def draw(s: State, player: str, action: Action) -> list[Event]:
    d = _check_in_daye(s, player)
    if d.recruiting:
        raise IllegalAction(
            "the tie left only the final däye's 3 cards: recruit a third player first",
            "spaye.must_recruit",
        )
    if player not in d.waiting():
        raise IllegalAction(
            f"you already drew; waiting for {named_all(d.waiting())}",
            "spaye.already_drawn",
            players=d.waiting(),
        )
    rng = s.make_rng()
    card = s.table.pop(0 if s.stacked else rng.randbelow(len(s.table)))
    s.keep_rng(rng)
    if len(d.rounds) == d.revealed:
        d.rounds.append([])
    d.rounds[-1].append((player, card))
    events: list[Event] = [
        {
            "type": "card_drawn",
            "daye": d.number,
            "player": player,
            "waiting": d.waiting(),
            "table": len(s.table),
        }
    ]
    if not d.waiting():
        events += _reveal(s, d)
    return events


def _reveal(s: State, d: Daye) -> list[Event]:
    """Everyone drew: the cards are shown together and go to the discard."""
    rnd = d.rounds[-1]
    d.revealed = len(d.rounds)
    s.discard.extend(c for _, c in rnd)
    events: list[Event] = [
        {
            "type": "reveal",
            "daye": d.number,
            "round": d.revealed,
            "final": d.final,
            "cards": [{"player": p, "card": c} for p, c in rnd],
            "table": len(s.table),
        }
    ]
    events += _reinsert_nikaye(s)
    if d.final:
        events += _conclude_final(s, d)
    else:
        events += _conclude_ordinary(s, d)
    return events


def _reinsert_nikaye(s: State) -> list[Event]:
    """All three nikäyes drawn and cards left: one replaces a random table card.

    Done at the reveal, not at the draw: a hidden first card must not give itself away.
    """
    if not s.table or s.nikayes_on_table():
        return []
    rng = s.make_rng()
    at = len(s.table) - 1 if s.stacked else rng.randbelow(len(s.table))
    s.keep_rng(rng)
    s.discard.remove(NIKAYE)
    s.discard.append(s.table[at])
    s.table[at] = NIKAYE
    return [{"type": "nikaye_reinserted", "table": len(s.table)}]


def _conclude_ordinary(s: State, d: Daye) -> list[Event]:
    rnd = d.rounds[-1]
    (p, a), (q, b) = rnd
    if NIKAYE not in (a, b) and card_value(a) == card_value(b):
        if len(s.table) == FINAL_CARDS:
            d.recruiting = True
            return [{"type": "recruit_needed", "daye": d.number, "players": list(d.players)}]
        return [{"type": "tie", "daye": d.number, "round": d.revealed, "players": [p, q]}]
    events = [s.award(x, "daye", DAYE_POINTS, d.number) for x in (p, q)]
    if NIKAYE in (a, b):
        for i, (me, mine) in enumerate(rnd):
            if mine == NIKAYE:
                d.nikayes.append(me)
                events.append(_set_exercise(s, d, me, card_value(rnd[1 - i][1]), 0))
    else:
        d.winner = p if card_value(a) > card_value(b) else q
        events.append(s.award(d.winner, "victory", VICTORY_POINTS, d.number))
    return _end_daye(s, d, events)


def _conclude_final(s: State, d: Daye) -> list[Event]:
    """The final däye: every nikäyé wins 3 points per nikäye in play, at stake with the
    exercise; the reps are the sum of the two other cards."""
    rnd = d.rounds[-1]
    events = [s.award(p, "daye", FINAL_DAYE_POINTS, d.number) for p, _ in rnd]
    in_play = sum(1 for _, c in rnd if c == NIKAYE)
    for i, (p, c) in enumerate(rnd):
        if c != NIKAYE:
            continue
        d.nikayes.append(p)
        reps = sum(card_value(o) for j, (_, o) in enumerate(rnd) if j != i)
        events.append(_set_exercise(s, d, p, reps, FINAL_VICTORY_PER_NIKAYE * in_play))
    return _end_daye(s, d, events)


def _set_exercise(s: State, d: Daye, player: str, reps: int, victory: int) -> Event:
    ex = s.new_exercise(
        player=player,
        daye=d.number,
        daye_players=list(d.players),
        final=d.final,
        origin="nikaye",
        exercise=s.options["exercise"],
        reps=reps,
        stake_reps=reps,
        stake_victory=victory,
    )
    return exercise_event("exercise_set", ex.to_dict())


def exercise_event(kind: str, ex: dict[str, Any]) -> Event:
    keys = ("id", "player", "daye", "final", "origin", "exercise", "reps", "sets", "bonus")
    return {
        "type": kind,
        **{k: ex[k] for k in keys},
        "stake": {"reps": ex["stake_reps"], "victory": ex["stake_victory"]},
    }


def _end_daye(s: State, d: Daye, events: list[Event]) -> list[Event]:
    d.over = True
    s.last, s.daye = d, None
    events.append(
        {
            "type": "daye_over",
            "daye": d.number,
            "final": d.final,
            "players": list(d.players),
            "winner": d.winner,
            "nikayes": list(d.nikayes),
            "table": len(s.table),
        }
    )
    return events
