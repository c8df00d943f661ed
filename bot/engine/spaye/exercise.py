"""Exercises, the committee and the titleholders' bonuses (docs/rules/spaye.md).

Rep points are earned when the exercise is confirmed; in the final däye the
victory points are at stake with the exercise too. Every handler checks
everything before it changes anything.
"""

from __future__ import annotations

from typing import Any

from bot.engine.base import Action, Event, IllegalAction
from bot.engine.cards import NIKAYE
from bot.engine.spaye.daye import exercise_event
from bot.engine.spaye.rules import (
    MAX_EXERCISE_NAME,
    MAX_EXERCISE_TEXT,
    TITLE_NAMES,
    is_player_id,
    named,
    named_all,
)
from bot.engine.spaye.state import Exercise, State

# -- finding the exercise an action is about -------------------------------------------------


def _by_id(s: State, raw: object) -> Exercise:
    ex = None if isinstance(raw, bool) or not isinstance(raw, int) else s.exercise(raw)
    if ex is None:
        raise IllegalAction(f"there is no exercise #{raw} to do", "spaye.unknown_exercise", id=raw)
    return ex


def own_exercise(s: State, player: str, action: Action) -> Exercise:
    """The exercise named by ``"id"``; it may be left out when the player has only one."""
    raw = action.get("id")
    if raw is None:
        mine = [e.id for e in s.exercises if e.player == player]
        if not mine:
            raise IllegalAction("you have no exercise to do", "spaye.no_exercise")
        if len(mine) > 1:
            raise IllegalAction(
                f"you have {len(mine)} exercises to do: say which one",
                "spaye.which_exercise",
                ids=mine,
            )
        raw = mine[0]
    ex = _by_id(s, raw)
    if ex.player != player:
        raise IllegalAction(
            f"exercise #{ex.id} is for {named(ex.player)} to do",
            "spaye.not_your_exercise",
            id=ex.id,
            player=ex.player,
        )
    return ex


def _check_no_request(ex: Exercise) -> None:
    if ex.request is not None:
        raise IllegalAction(
            "your adjustment is waiting for the committee's answer",
            "spaye.adjustment_pending",
            id=ex.id,
        )


# -- doing it, giving up, lapsing ------------------------------------------------------------


def earned(ex: Exercise) -> tuple[int, int]:
    """``(victory, reps)`` points a confirmation earns now.

    As drawn: the points at stake (a bonus never changes them). Adjusted: the reps
    actually done, never more than at stake, and no victory points (final däye).
    """
    if ex.adjusted:
        return 0, min(ex.reps * ex.sets, ex.stake_reps)
    return ex.stake_victory, ex.stake_reps


def _pay(s: State, ex: Exercise, victory: int, reps: int) -> list[Event]:
    events = []
    if victory:
        events.append(s.award(ex.player, "victory", victory, ex.daye))
    if reps:
        events.append(s.award(ex.player, "reps", reps, ex.daye))
    return events


def exercise_done(s: State, player: str, action: Action) -> list[Event]:
    ex = own_exercise(s, player, action)
    _check_no_request(ex)
    victory, reps = earned(ex)
    s.exercises.remove(ex)
    event = exercise_event("exercise_done", ex.to_dict())
    event["adjusted"] = ex.adjusted
    event["points"] = {"victory": victory, "reps": reps}
    return [event, *_pay(s, ex, victory, reps)]


def give_up(s: State, player: str, action: Action) -> list[Event]:
    ex = own_exercise(s, player, action)
    s.exercises.remove(ex)
    return [exercise_event("exercise_given_up", ex.to_dict())]


def lapse_all(s: State) -> list[Event]:
    """The day closed: exercises not confirmed earn nothing, victory at stake included."""
    events = [exercise_event("exercise_lapsed", ex.to_dict()) for ex in s.exercises]
    s.exercises.clear()
    return events


# -- the committee ---------------------------------------------------------------------------


def _requested(ex: Exercise, action: Action) -> tuple[int, str]:
    reps, name = action.get("reps"), action.get("exercise")
    if reps is None:
        reps = ex.reps
    if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= ex.reps:
        raise IllegalAction(
            f"the reps must be a whole number from 1 to {ex.reps}",
            "spaye.bad_reps",
            max=ex.reps,
        )
    if name is None:
        name = ex.exercise
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_EXERCISE_TEXT:
        raise IllegalAction(
            f"name the exercise (1 to {MAX_EXERCISE_NAME} characters)", "spaye.bad_exercise_name"
        )
    if (reps, name.strip()) == (ex.reps, ex.exercise):
        raise IllegalAction(
            "an adjustment lowers the reps or changes the exercise", "spaye.no_change"
        )
    return reps, name.strip()


def ask_committee(s: State, player: str, action: Action) -> list[Event]:
    ex = own_exercise(s, player, action)
    _check_no_request(ex)
    ex.request = _requested(ex, action)
    return [
        {
            "type": "adjustment_asked",
            "id": ex.id,
            "player": player,
            "reps": ex.request[0],
            "exercise": ex.request[1],
            "was": {"reps": ex.reps, "exercise": ex.exercise},
            "final": ex.final,
            "approvers": s.approvers(ex),
        }
    ]


def join_committee(s: State, action: Action) -> list[Event]:
    """SYSTEM: the bot saw that ``player`` holds the guild's committee role (it learns roles
    only from a member's own interaction), so they may answer adjustments from now on."""
    player = action.get("player")
    if not is_player_id(player):
        raise IllegalAction("name the committee member", "spaye.name_a_colleague")
    committee: list[str] = s.options["committee"]
    if player in committee:
        raise IllegalAction(
            f"{named(player)} is already on the committee",
            "spaye.already_committee",
            player=player,
        )
    committee.append(player)
    return [{"type": "committee_joined", "player": player}]


def _request_for(s: State, player: str, action: Action) -> tuple[Exercise, tuple[int, str]]:
    raw = action.get("id")
    if raw is None:
        open_ = [e.id for e in s.exercises if e.request is not None and player in s.approvers(e)]
        if len(open_) != 1:
            if not open_:
                raise IllegalAction("no adjustment is waiting for your answer", "spaye.no_request")
            raise IllegalAction(
                f"{len(open_)} adjustments are waiting: say which one",
                "spaye.which_request",
                ids=open_,
            )
        raw = open_[0]
    ex = _by_id(s, raw)
    request = ex.request
    if request is None:
        raise IllegalAction(
            f"nobody asked to adjust exercise #{ex.id}", "spaye.no_request", id=ex.id
        )
    if ex.player == player:
        raise IllegalAction(
            "you cannot answer your own adjustment", "spaye.own_adjustment", id=ex.id
        )
    approvers = s.approvers(ex)
    if player not in approvers:
        raise IllegalAction(
            f"only {named_all(approvers)} can answer this adjustment",
            "spaye.not_approver",
            id=ex.id,
            players=approvers,
        )
    return ex, request


def approve(s: State, player: str, action: Action) -> list[Event]:
    ex, (reps, name) = _request_for(s, player, action)
    ex.reps, ex.exercise = reps, name
    ex.request, ex.adjusted = None, True
    cancelled = ex.stake_victory if ex.final else 0
    if ex.final:
        ex.stake_victory = 0  # an adjusted exercise in the final däye cancels the victory
    return [
        {
            "type": "adjustment_approved",
            "id": ex.id,
            "player": ex.player,
            "by": player,
            "reps": ex.reps,
            "exercise": ex.exercise,
            "victory_cancelled": cancelled,
        }
    ]


def refuse(s: State, player: str, action: Action) -> list[Event]:
    ex, (reps, name) = _request_for(s, player, action)
    ex.request = None
    return [
        {
            "type": "adjustment_refused",
            "id": ex.id,
            "player": ex.player,
            "by": player,
            "reps": reps,
            "exercise": name,
        }
    ]


# -- bonuses ---------------------------------------------------------------------------------


def bonus_blocker(ex: Exercise, title: str) -> str | None:
    """Why ``title``'s bonus cannot apply to ``ex``, or ``None`` when it can."""
    name = TITLE_NAMES[title]
    if ex.origin != "nikaye":
        return "a bonus applies only to your own nikäye exercise"
    if ex.bonus is not None:
        return "this exercise already had a bonus"
    if ex.adjusted or ex.request is not None:
        return "a bonus cannot apply to an adjusted exercise"
    if title == "tikao" and not ex.final:
        return f"the {name} bonus applies only in the final däye"
    if title != "tikao" and ex.final:
        return f"the {name} bonus does not apply in the final däye"
    return None


def _bonus_exercise(s: State, player: str, title: str, action: Action) -> Exercise:
    name = TITLE_NAMES[title]
    holder = s.options["bonuses"].get(title)
    if holder != player:
        raise IllegalAction(
            f"only the {name} can use this bonus", "spaye.not_bonus_holder", title=title
        )
    if title in s.bonuses_used:
        raise IllegalAction(f"the {name} bonus was already used", "spaye.bonus_used", title=title)
    ex = own_exercise(s, player, action)
    why = bonus_blocker(ex, title)
    if why is not None:
        raise IllegalAction(why, "spaye.bonus_not_applicable", title=title, id=ex.id)
    return ex


def share_partners(s: State, holder: str) -> list[str]:
    """Späyins of the month (earlier days and today) the Grand Späyin may share with."""
    ids = [*s.options["month_spayins"], *s.spayins]
    return [p for p in dict.fromkeys(ids) if p != holder]


def _use(s: State, title: str, ex: Exercise, **details: Any) -> Event:
    ex.bonus = title
    s.bonuses_used[title] = {"player": ex.player, "daye": ex.daye, "exercise": ex.id}
    return {"type": "bonus_used", "title": title, "player": ex.player, "id": ex.id, **details}


def bonus_share(s: State, player: str, action: Action) -> list[Event]:
    """Grand Späyin: the holder does ceil(n/2), the partner floor(n/2), for n points."""
    ex = _bonus_exercise(s, player, "grand_spayin", action)
    mate = action.get("with")
    if mate == player:
        raise IllegalAction("share your exercise with someone else", "spaye.share_self")
    if not is_player_id(mate):
        raise IllegalAction("name the späyin you share with", "spaye.name_a_colleague")
    if mate not in share_partners(s, player):
        raise IllegalAction(
            f"{named(mate)} has not played Späye this month",
            "spaye.bad_partner",
            player=mate,
        )
    n = ex.reps
    events = [_use(s, "grand_spayin", ex, partner=mate)]
    ex.reps = (n + 1) // 2
    events.append(exercise_event("exercise_changed", ex.to_dict()))
    s.join(mate)
    other = s.new_exercise(
        player=mate,
        daye=ex.daye,
        daye_players=list(ex.daye_players),
        final=False,
        origin="share",
        exercise=ex.exercise,
        reps=n // 2,
        bonus="grand_spayin",
    )
    events.append(exercise_event("exercise_set", other.to_dict()))
    return events


def bonus_tyrant(s: State, player: str, action: Action) -> list[Event]:
    """Mastäye: every other späyin of today does all the reps; the holder does none."""
    ex = _bonus_exercise(s, player, "mastaye", action)
    victims = [p for p in s.spayins if p != player]
    events = [_use(s, "mastaye", ex, players=victims)]
    s.exercises.remove(ex)
    events.append(exercise_event("exercise_exempted", ex.to_dict()))
    events += _pay(s, ex, *earned(ex))
    for p in victims:
        other = s.new_exercise(
            player=p,
            daye=ex.daye,
            daye_players=list(ex.daye_players),
            final=False,
            origin="tyrant",
            exercise=ex.exercise,
            reps=ex.reps,
            bonus="mastaye",
        )
        events.append(exercise_event("exercise_set", other.to_dict()))
    return events


def bonus_double(s: State, player: str, action: Action) -> list[Event]:
    """Tikäo: the final's three cards are shuffled and drawn again for the holder's fate only:
    a nikäye means the exercise twice (with a pause), anything else exempts them."""
    ex = _bonus_exercise(s, player, "tikao", action)
    if s.last is None or not s.last.final:
        raise RuntimeError("a final exercise without a final däye")
    draws = s.last.rounds[-1]
    cards = [c for _, c in draws]
    rng = s.make_rng()
    rng.shuffle(cards)
    s.keep_rng(rng)
    card = cards[[p for p, _ in draws].index(player)]
    events = [_use(s, "tikao", ex, card=card, double=card == NIKAYE)]
    if card == NIKAYE:
        ex.sets = 2
        events.append(exercise_event("exercise_changed", ex.to_dict()))
        return events
    s.exercises.remove(ex)
    events.append(exercise_event("exercise_exempted", ex.to_dict()))
    return events + _pay(s, ex, *earned(ex))


# -- what a player may do about exercises ----------------------------------------------------


def exercise_actions(s: State, player: str) -> list[dict[str, Any]]:
    acts: list[dict[str, Any]] = []
    held = [t for t, h in s.available_bonuses().items() if h == player]
    for ex in s.exercises:
        if ex.player == player:
            if ex.request is None:
                acts.append({"type": "exercise_done", "id": ex.id})
                acts.append({"type": "ask_committee", "id": ex.id, "reps": None, "exercise": None})
            acts.append({"type": "give_up", "id": ex.id})
            acts += _bonus_actions(s, ex, held)
        elif ex.request is not None and player in s.approvers(ex):
            acts.append({"type": "approve", "id": ex.id})
            acts.append({"type": "refuse", "id": ex.id})
    return acts


def _bonus_actions(s: State, ex: Exercise, held: list[str]) -> list[dict[str, Any]]:
    acts: list[dict[str, Any]] = []
    for title in held:
        if bonus_blocker(ex, title) is not None:
            continue
        if title == "grand_spayin":
            acts += [
                {"type": "bonus_share", "id": ex.id, "with": p}
                for p in share_partners(s, ex.player)
            ]
        elif title == "mastaye":
            acts.append({"type": "bonus_tyrant", "id": ex.id})
        else:
            acts.append({"type": "bonus_double", "id": ex.id})
    return acts


# -- the day's exercise, chosen with the späyins' agreement ----------------------------------


def _check_before_first_daye(s: State) -> None:
    if s.dayes > 0:
        exercise = s.options["exercise"]
        raise IllegalAction(
            f"the day's exercise is fixed since the first däye: {exercise}",
            "spaye.exercise_fixed",
            exercise=exercise,
        )


def propose_exercise(s: State, player: str, action: Action) -> list[Event]:
    """Another exercise for the day, until the first däye starts; one proposal at a time.
    It replaces the day's exercise once a second colleague agrees."""
    _check_before_first_daye(s)
    if s.proposal is not None:
        raise IllegalAction(
            f"{named(s.proposal['by'])} already proposed {s.proposal['exercise']}: "
            "agree to it, or wait for the first däye",
            "spaye.proposal_pending",
            by=s.proposal["by"],
            exercise=s.proposal["exercise"],
        )
    name = action.get("exercise")
    if not isinstance(name, str) or not 1 <= len(" ".join(name.split())) <= MAX_EXERCISE_TEXT:
        raise IllegalAction(
            f"name the exercise (1 to {MAX_EXERCISE_NAME} characters)", "spaye.bad_exercise_name"
        )
    name = " ".join(name.split())
    if name == s.options["exercise"]:
        raise IllegalAction(
            f"{name} is already the day's exercise", "spaye.same_exercise", exercise=name
        )
    s.proposal = {"by": player, "exercise": name}
    return [
        {
            "type": "exercise_proposed",
            "by": player,
            "exercise": name,
            "was": s.options["exercise"],
        }
    ]


def agree_exercise(s: State, player: str, action: Action) -> list[Event]:
    """A second colleague agrees: the proposed exercise becomes the day's."""
    _check_before_first_daye(s)
    proposal = s.proposal
    if proposal is None:
        raise IllegalAction("no other exercise is proposed", "spaye.no_proposal")
    if proposal["by"] == player:
        raise IllegalAction("a second colleague must agree to your proposal", "spaye.own_proposal")
    wanted = action.get("exercise")
    if wanted is not None and wanted != proposal["exercise"]:
        raise IllegalAction(
            f"the exercise proposed now is {proposal['exercise']}",
            "spaye.stale_proposal",
            exercise=proposal["exercise"],
        )
    was = s.options["exercise"]
    s.options["exercise"] = proposal["exercise"]
    s.proposal = None
    return [
        {
            "type": "exercise_agreed",
            "by": proposal["by"],
            "player": player,
            "exercise": proposal["exercise"],
            "was": was,
        }
    ]


def exercise_choice_actions(s: State, player: str) -> list[dict[str, Any]]:
    """Propose another exercise, or agree to the one proposed, before the first däye."""
    if s.dayes > 0:
        return []
    if s.proposal is None:
        return [{"type": "propose_exercise", "exercise": None}]
    if s.proposal["by"] == player:
        return []
    return [{"type": "agree_exercise", "exercise": s.proposal["exercise"]}]
