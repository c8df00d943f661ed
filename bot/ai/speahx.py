"""The Speahx computer player, from the player's view alone.

What the view shows: this player's hand and chance cards, the pile, every player's hand and
table-card counts, the stock and burned counts, the cards out of the game (jokers or
Terminator jacks), the events of the previous turn, and what the whole table saw
(``seen``: the burned cards and, per player, the cards seen going into their hand and not
seen played since). From these ``read_view`` builds the *unseen* cards (the full deck
minus every card this player can place) and the cards known to be in another hand.
``hard`` counts like a player who remembers the whole game (``seen``); ``easy`` and
``normal`` remember only the previous turn, so for them a burned card counts as unseen.
The same view and seed always give the same move, at every level.

``normal`` is a rule player (``rule_action``) that weighs each card on its own: it scores
each legal move by the cards it really sheds (while the stock lasts a hand is refilled to
5), the chance that the next player cannot follow the card left on top (estimated from the
unseen cards), a bonus for a burn (four of a kind, a 10 on a big pile) and a cost for
spending a 2, a 10 or a joker that could save a later turn; it draws chance cards rather
than collect a pile when their expected cost is lower, hands a joker's pile to the most
loaded opponent (the likeliest loser stays the loser) and names the suit the others hold
least of. A little seeded noise (``NOISE``, growing in a long game) settles near ties.

``easy`` is that rule player as a beginner: ``MISS`` of its moves (a seeded draw) are a
random legal move instead of its choice; the others are ``normal``'s move.

``hard`` sheds in bulk: every card of its lowest ordinary rank that can be played
(``first_reasonable``; a 2, a 10 or a joker kept for when nothing else fits), else the rule
player's move (chance cards, collect, specials, suits and targets), then weighs that move
against the rule player's best moves by determinized sampling: deal the truly unseen cards
at random into the other hands (after the cards known there), the table cards and the
stock (the burned cards are known), then for each move play the next turns out with the
engine's own turn-timer player and score the state reached by this player's estimated
chance of not being the loser. The same deals serve every move (a paired comparison), and
a move replaces the bulk move only when its mean gain over it exceeds one standard error
(few samples make a noisy choice; the first move is the better bet then). The budget counts
simulated actions, never the clock. The bulk move's rank gets seeded noise that grows in a
long game (``BULK_NOISE``), so all-``hard`` tables never pass the same piles back and forth
forever. On ``bench/speahx_ai.py`` each level is clearly ahead of the one below it, and
``easy`` of random play.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.ai.base import Action, View, ViewError, legal_in, register
from bot.engine.cards import JOKER, SUITS
from bot.engine.speahx import (
    HAND,
    KIND,
    RANK,
    SPECIAL,
    SUIT,
    TABLE,
    TEN,
    TERMINATOR,
    TWO,
    VALUE,
    Speahx,
    full_deck,
    top_run,
)

ACTIONS_PER_MS: Final = 20
"""Simulated engine actions per millisecond of budget, measured on one core of a small
server with a margin: the default 150 ms gives about 35 ms (p50) and 70 ms (p99) of CPU
per move at 4 players (``bench/speahx_ai.py`` prints the real times)."""
ROLLOUT_COST: Final = 3
"""A sampled future's setup and scoring, counted in actions."""
MIN_DEALS: Final = 2
"""Even a tiny budget samples this many deals when there is a choice."""
LEVEL_SHARE: Final[dict[str, float]] = {"hard": 1.0}
"""The share of the budget each sampling level spends."""
SHORTLIST: Final = 5
"""The rule player's best plays that the sampling weighs (with collect and chance)."""
HORIZON_ROUNDS: Final = 2
"""Each sampled future runs this many rounds of turns (at least ``MIN_HORIZON`` turns)."""
MIN_HORIZON: Final = 6
TEMPERATURE: Final = 3.0
"""Cards of difference that make one player e times likelier to be the loser."""
TABLE_WEIGHT: Final = 1.3
"""A face-down table card weighs more than a hand card: it may fail and take the pile."""
KEEP_COST: Final[dict[str, float]] = {TWO: 1.6, TEN: 2.4, JOKER: 3.0}
"""What holding on to a special card is worth, in cards, while the hand is large."""
FOUR_BONUS: Final = 2.5
"""A four-of-a-kind burn: the same player plays again on an empty pile."""
NOISE: Final = 0.6
"""Each play's rule score gets up to this much seeded noise: near ties go either way, so
computer players never pass the same piles back and forth forever."""
LONG_GAME: Final = 150
"""Past this many turns the noise grows with the turn count: two players left who pass the
same cards back and forth (2s named, piles collected) end up trying something else."""
MISS: Final = 0.35
"""The share of ``easy``'s moves that are a random legal move (a seeded draw)."""
BULK_NOISE: Final = 0.9
"""``hard``'s bulk move ranks each playable rank by its value plus up to this much seeded
noise, times the turn count over ``LONG_GAME`` past it: below one rank step until then,
so the lowest rank goes first; in a long game the ranks mix and the cycle breaks."""
CONFIDENCE: Final = 1.0
"""A sampled move replaces the rule player's when its mean gain exceeds this many standard
errors."""


@dataclass(frozen=True)
class Knowledge:
    """What one player knows, read from their view alone."""

    players: tuple[str, ...]
    seat: int
    phase: str
    jokers: bool
    hand: tuple[str, ...]
    chance: tuple[str, ...]
    """This turn's chance cards still unplayed, latest last."""
    drawn: int
    pile: tuple[str, ...]
    follow: str
    """The suit to follow; ``""`` on an empty pile."""
    named: str
    stock: int
    burned: int
    burned_cards: tuple[str, ...]
    """The burned cards the view names (``seen``); empty for an older view."""
    removed: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    tables: tuple[tuple[int, ...], ...]
    """Per seat, the positions of the face-down table cards."""
    out: tuple[int, ...]
    known: tuple[tuple[str, ...], ...]
    """Per seat, cards known to be in that hand (this player's own hand excepted)."""
    unseen: tuple[str, ...]
    """The cards this player cannot place: other hands (known ones excepted), table cards,
    stock and burned cards."""
    legal: tuple[dict[str, Any], ...]
    turns: int
    dealer: int

    @property
    def n(self) -> int:
        return len(self.players)

    def load(self, seat: int) -> float:
        """How many cards a seat still has to shed, table cards weighted."""
        return self.hand_sizes[seat] + TABLE_WEIGHT * len(self.tables[seat])


def _removed_cards(count: int, jokers: bool) -> list[str]:
    if jokers:
        return [JOKER] * count
    return list(TERMINATOR) * (count // 4)


def _take(pool: Counter[str], cards: Sequence[str]) -> None:
    for card in cards:
        if pool[card] <= 0:
            raise ViewError(f"the view shows {card} more often than the deck holds it")
        pool[card] -= 1


def _known_from(events: Sequence[dict[str, Any]], index: dict[str, int]) -> dict[int, list[str]]:
    """Cards that the previous turn's events put into a hand."""
    known: dict[int, list[str]] = {}
    for event in events:
        kind = event.get("type")
        if kind == "collect" or kind == "table_failed":
            known.setdefault(index[event["player"]], []).extend(event["cards"])
        elif kind == "joker_target":
            known.setdefault(index[event["target"]], []).extend(event["cards"])
        elif kind == "table_shown":
            known.setdefault(index[event["player"]], []).append(event["card"])
    return known


def read_view(view: View, *, counts: bool = True) -> Knowledge:
    """The knowledge of the player whose view this is. ``counts``: count what the whole
    table saw (``seen``: the burned cards, the cards known in each hand); without it only
    the previous turn's events are remembered and a burned card counts as unseen."""
    try:
        players = tuple(str(p) for p in view["players"])
        index = {p: i for i, p in enumerate(players)}
        you = view["you"]
        seat = index[you["id"]]
        n = len(players)
        jokers = bool(view["jokers"])
        hand = tuple(you["hand"])
        chance = tuple(you.get("chance") or ())
        pile = tuple(view["pile"])
        removed = _removed_cards(int(view["removed"]), jokers)
        sizes = tuple(int(view["hand_sizes"][p]) for p in players)
        tables = tuple(tuple(int(i) for i in view["table_cards"][p]) for p in players)
        out = tuple(index[p] for p in view["out"])
        seen = view.get("seen")
        if seen is not None and counts:  # what the whole table saw: counted, not guessed
            held = seen["held"]
            found = {index[p]: [c for c, k in held[p].items() for _ in range(int(k))] for p in held}
            burned = [c for c, k in seen["burned"].items() for _ in range(int(k))]
        else:  # not counting (or an older view): the previous turn only
            last_turn = view.get("last_turn") or {}
            found = _known_from(last_turn.get("events") or (), index)
            burned = []
        chance_info = view.get("chance") or {}
        drawn = int(chance_info.get("drawn", 0)) if chance_info else 0
        pool = Counter(full_deck(n, jokers))
        _take(pool, [*hand, *chance, *pile, *removed, *burned])
        known: list[tuple[str, ...]] = []
        for s in range(n):
            cards = found.get(s, []) if s != seat else []
            cards = cards[: sizes[s]]
            _take(pool, cards)
            known.append(tuple(cards))
        unseen = tuple(c for c in sorted(pool) for _ in range(pool[c]))
        know = Knowledge(
            players=players,
            seat=seat,
            phase=str(view["phase"]),
            jokers=jokers,
            hand=hand,
            chance=chance,
            drawn=drawn,
            pile=pile,
            follow=str(view.get("suit") or ""),
            named=str(view.get("named") or ""),
            stock=int(view["stock"]),
            burned=int(view["burned"]),
            burned_cards=tuple(burned),
            removed=tuple(removed),
            hand_sizes=sizes,
            tables=tables,
            out=out,
            known=tuple(known),
            unseen=unseen,
            legal=tuple(you["legal_actions"]),
            turns=int(view.get("turns", 0)),
            dealer=index.get(str(view.get("dealer")), 0),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise ViewError(f"not a Speahx player's view: {err!r}") from err
    hidden = sum(sizes) - sizes[seat] - sum(len(k) for k in known)
    hidden += sum(len(t) for t in tables) + know.stock + know.burned - len(burned)
    if chance_info and chance_info.get("player") != you["id"]:
        hidden += int(chance_info.get("held", 0))  # another player's chance cards
    if hidden != len(unseen) or len(hand) != sizes[seat]:
        raise ViewError("the view's counts do not add up to the deck")
    return know


# ------------------------------------------------------------------ the rule player


def playable(card: str, pile: Sequence[str], follow: str) -> bool:
    """Whether ``card`` could be played alone on ``pile`` (docs/rules/speahx.md)."""
    if not pile or RANK[card] in SPECIAL:
        return True
    top = pile[-1]
    return SUIT[card] == follow or RANK[card] == RANK[top]


def _next_seat(know: Knowledge) -> int:
    out = set(know.out)
    seat = (know.seat + 1) % know.n
    while seat in out and seat != know.seat:
        seat = (seat + 1) % know.n
    return seat


def _blocked(know: Knowledge, top: str, follow: str) -> float:
    """The chance that the next player cannot follow ``top`` (``follow`` to follow), their
    cards taken at random from the unseen ones (the cards known in their hand counted)."""
    unseen = know.unseen
    if not unseen:
        return 0.0
    rank = RANK[top]

    def fits(card: str) -> bool:
        return RANK[card] in SPECIAL or SUIT[card] == follow or RANK[card] == rank

    nxt = _next_seat(know)
    if any(fits(c) for c in know.known[nxt]):
        return 0.0
    miss = 1.0 - sum(fits(c) for c in unseen) / len(unseen)
    held = know.hand_sizes[nxt] - len(know.known[nxt])
    if know.hand_sizes[nxt] == 0 and know.stock == 0:
        held = 1  # a table card, turned blind
    return float(miss ** max(held, 0))


def _shed(know: Knowledge, count: int) -> float:
    """The cards a play of ``count`` really sheds: while the stock lasts the hand is
    refilled to 5 (a new card still counts a little: it may be better)."""
    after = len(know.hand) - count
    refill = min(know.stock, max(0, HAND - after))
    real = count - min(refill, count)
    return real + 0.3 * (count - real)


def _keep_cost(know: Knowledge, rank: str, count: int) -> float:
    """What spending ``count`` special cards of ``rank`` costs: less as the hand empties."""
    cost = KEEP_COST.get(rank, 0.0)
    if not cost:
        return 0.0
    left = len(know.hand) - count + (HAND if know.stock else 0)
    return cost * count * min(1.0, left / 4)


def _play_score(know: Knowledge, cards: Sequence[str]) -> float:
    """The rule player's score of laying ``cards`` (from the hand or with a chance card)."""
    rank = RANK[cards[0]]
    pile = know.pile
    from_hand = len(cards) - 1 if know.chance else len(cards)  # a chance card is in it
    score = _shed(know, from_hand) if from_hand else 0.2
    score -= _keep_cost(know, rank, len(cards))
    terminator = not know.jokers and len(cards) == 4 and sorted(cards) == sorted(TERMINATOR)
    if rank == JOKER or terminator:
        if not pile:
            return score - 2.0
        return score + 0.9 * len(pile) + _target_gain(know)
    if rank == TEN:
        # Burns the pile and plays again: a big pile burned is one this player no longer
        # risks collecting when it comes round.
        return score + 0.8 + 0.1 * min(len(pile), 10)
    if top_run([*pile, *cards]) == 4:
        return score + FOUR_BONUS
    if rank == TWO:
        suit = name_suit(know, list(cards))
        return score + 0.6 * _blocked(know, cards[-1], suit) * (len(pile) + len(cards))
    top = cards[-1]
    return score + 0.6 * _blocked(know, top, SUIT[top]) * (len(pile) + len(cards))


def _target_gain(know: Knowledge) -> float:
    """A little more for a joker when the most loaded opponent is close to this player."""
    others = [s for s in range(know.n) if s != know.seat and s not in know.out]
    if not others:
        return 0.0
    gap = know.load(know.seat) - max(know.load(s) for s in others)
    return 1.0 if abs(gap) < 4 else 0.0


def _chance_odds(know: Knowledge) -> float:
    """The chance that a chance card can be played on the pile as it is."""
    unseen = know.unseen
    if not unseen:
        return 0.0
    return sum(playable(c, know.pile, know.follow) for c in unseen) / len(unseen)


def _chance_cost(know: Knowledge) -> float:
    """The expected cards gained by drawing chance cards from here (the best of collecting
    or drawing again after each miss), against ``len(pile)`` for collecting now."""
    q = _chance_odds(know)
    pile = float(len(know.pile))
    draws = min(3 - know.drawn, know.stock)
    best = pile
    for _ in range(draws):
        best = (1 - q) * (1 + min(pile, best))
    return best


def name_suit(know: Knowledge, extra: Sequence[str] = ()) -> str:
    """The suit to name on a 2: the one the others hold least of (the unseen cards), then
    the one this player holds most of."""
    gone = set(extra)
    mine = Counter(SUIT[c] for c in know.hand if c not in gone and RANK[c] not in SPECIAL)
    unseen = Counter(SUIT[c] for c in know.unseen)
    return min(SUITS, key=lambda s: (unseen[s] - 0.5 * mine[s], -mine[s], SUITS.index(s)))


def pick_target(know: Knowledge, targets: Sequence[str]) -> str:
    """Who takes a joker's pile: the most loaded opponent (the likeliest loser stays so),
    ties to the nearest on the left (the order of ``targets``)."""
    index = {p: i for i, p in enumerate(know.players)}
    return max(targets, key=lambda p: (know.load(index[p]), -targets.index(p)))


def scored_moves(know: Knowledge, rnd: random.Random) -> list[tuple[float, dict[str, Any]]]:
    """Every legal move of the play phase with its rule score (plus ``NOISE`` drawn from
    ``rnd``), best first."""
    scored: list[tuple[float, dict[str, Any]]] = []
    pile = len(know.pile)
    noise = NOISE * max(1.0, know.turns / LONG_GAME)
    for i, action in enumerate(know.legal):
        kind = action["type"]
        if kind == "play":
            score = _play_score(know, action["cards"])
        elif kind == "collect":
            score = -float(pile) - 0.2
        elif kind == "chance":
            score = -_chance_cost(know) - 0.1
        else:  # table: every position is as blind as the others; the first
            score = -0.01 * i
        scored.append((score + noise * rnd.random(), action))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def first_reasonable(know: Knowledge, rnd: random.Random) -> Action | None:
    """The bulk move: every card of the lowest ordinary rank that can be played (a 2, a 10
    or a joker only when nothing else fits, and then the rule player's choice), each rank's
    value plus seeded noise from ``rnd`` (``BULK_NOISE``). None when no ordinary play is
    legal."""
    noise = BULK_NOISE * max(1.0, know.turns / LONG_GAME)
    jitter: dict[str, float] = {}
    best: tuple[float, int] | None = None
    pick: dict[str, Any] | None = None
    for action in know.legal:
        if action["type"] != "play":
            continue
        cards = action["cards"]
        rank = RANK[cards[0]]
        if rank in SPECIAL or (not know.jokers and len(cards) == 4 and rank == "J"):
            continue
        if rank not in jitter:
            jitter[rank] = noise * rnd.random()
        key = (VALUE[cards[0]] + jitter[rank], -len(cards))
        if best is None or key < best:
            best, pick = key, action
    return None if pick is None else dict(pick)


def rule_action(know: Knowledge, rnd: random.Random) -> Action:
    """The rule player's move (``normal``)."""
    legal = know.legal
    phase = know.phase
    if phase == "suit":
        return {"type": "suit", "suit": name_suit(know)}
    if phase == "target":
        target = pick_target(know, [a["player"] for a in legal])
        return next(dict(a) for a in legal if a["player"] == target)
    if phase == "show":
        return {"type": "show", "show": False}
    return dict(scored_moves(know, rnd)[0][1])


# ------------------------------------------------------------------ sampling


def sample_state(know: Knowledge, rnd: random.Random, view: View) -> dict[str, Any]:
    """A full game state consistent with ``know``: the unseen cards dealt at random into
    the other hands (after the known cards), all table cards, the stock and the burned
    cards. In the engine's saved form (``Speahx.from_dict``)."""
    cards = list(know.unseen)
    rnd.shuffle(cards)
    n = know.n
    hands: list[list[str]] = []
    for s in range(n):
        if s == know.seat:
            hands.append(list(know.hand))
            continue
        need = know.hand_sizes[s] - len(know.known[s])
        hands.append([*know.known[s], *cards[:need]])
        del cards[:need]
    table: list[list[str | None]] = []
    for s in range(n):
        row: list[str | None] = [None] * TABLE
        for i in know.tables[s]:
            row[i] = cards.pop()
        table.append(row)
    stock = cards[: know.stock]
    burned = [*know.burned_cards, *cards[know.stock :]]
    return {
        "players": list(know.players),
        "options": {"jokers": know.jokers},
        "rng": rnd.getrandbits(64),
        "dealer": know.dealer,
        "turn": know.seat,
        "phase": know.phase,
        "hands": hands,
        "table": table,
        "stock": stock,
        "pile": list(know.pile),
        "named": know.named,
        "burned": burned,
        "known": _seen_held(know, view),
        "removed": list(know.removed),
        "out": list(know.out),
        "chance": list(know.chance),
        "chance_mode": bool(know.chance) and know.phase == "play",
        "drawn": know.drawn,
        "turned": str(view["you"].get("turned") or ""),
        "before": "",
        "turn_events": [],
        "turns": know.turns,
        "last_turn": None,
        "last": [],
    }


def _seen_held(know: Knowledge, view: View) -> list[dict[str, int]]:
    """The ``seen`` counts of every hand, in the engine's saved form (none when the view
    has no ``seen``)."""
    held = (view.get("seen") or {}).get("held") or {}
    return [{str(c): int(k) for c, k in (held.get(p) or {}).items()} for p in know.players]


def _outcome(game: Speahx, seat: int) -> float:
    """This seat's estimated chance of not being the loser in ``game`` as it stands."""
    data = game.public_view()
    players = data["players"]
    me = players[seat]
    if data["loser"] is not None:
        return 0.0 if data["loser"] == me else 1.0
    out = set(data["out"])
    if me in out:
        return 1.0
    sizes = data["hand_sizes"]
    tables = data["table_cards"]
    loads = {p: sizes[p] + TABLE_WEIGHT * len(tables[p]) for p in players if p not in out}
    base = max(loads.values())
    weights = {p: math.exp((x - base) / TEMPERATURE) for p, x in loads.items()}
    return 1.0 - weights[me] / sum(weights.values())


def _rollout(game: Speahx, seat: int, action: Action, turns: int) -> tuple[float, int]:
    """Apply ``action`` then let the turn timer play ``turns`` turns; (outcome, actions)."""
    actor = game.to_act()[0]
    events = game.apply(actor, action)
    steps = 1
    left = turns
    while True:
        if events and events[-1]["type"] == "game_over":
            break
        if events and events[-1]["type"] == "turn":
            left -= 1
            if left <= 0:
                break
        actor = game.to_act()[0]
        events = game.apply(actor, game.auto_action(actor))
        steps += 1
    return _outcome(game, seat), steps


def monte_carlo(
    know: Knowledge, view: View, moves: Sequence[Action], seed: int, work: int
) -> list[tuple[float, float]]:
    """For each move, over sampled states until ``work`` simulated actions: the mean gain
    over ``moves[0]`` in the estimated chance of not being the loser a few turns later, and
    the standard error of that mean (the same states serve every move: paired)."""
    rnd = random.Random(seed)
    alive = know.n - len(know.out)
    turns = max(MIN_HORIZON, HORIZON_ROUNDS * alive)
    sums = [0.0] * len(moves)
    squares = [0.0] * len(moves)
    deals = 0
    spent = 0
    while deals < MIN_DEALS or spent < work:
        state = sample_state(know, rnd, view)
        values: list[float] = []
        for move in moves:
            value, steps = _rollout(Speahx.from_dict(state), know.seat, move, turns)
            values.append(value)
            spent += steps + ROLLOUT_COST
        for i, value in enumerate(values):
            gain = value - values[0]
            sums[i] += gain
            squares[i] += gain * gain
        deals += 1
    out: list[tuple[float, float]] = []
    for total, square in zip(sums, squares, strict=True):
        mean = total / deals
        spread = max(0.0, square / deals - mean * mean)
        out.append((mean, math.sqrt(spread / max(1, deals - 1))))
    return out


def _shortlist(know: Knowledge, rule: Action, rnd: random.Random) -> list[Action]:
    """The moves worth sampling, the rule player's ``rule`` first: every suit or target, or
    the play phase's best few plays, collect and chance."""
    if know.phase in ("suit", "target"):
        others = [dict(a) for a in know.legal]
    else:
        scored = [a for _, a in scored_moves(know, rnd)]
        plays = [a for a in scored if a["type"] == "play"][:SHORTLIST]
        others = [*plays, *(a for a in scored if a["type"] in ("collect", "chance"))]
    return [rule, *(a for a in others if a != rule)]


@register(KIND)
def decide_speahx(view: View, level: str, seed: int, budget_ms: int) -> Action:
    """The Speahx AI (``bot.ai.decide`` calls it with a checked level)."""
    legal = legal_in(view)
    if len(legal) == 1:
        return dict(legal[0])
    know = read_view(view, counts=level == "hard")
    rule = rule_action(know, random.Random(seed))
    if level == "easy":
        miss = random.Random(seed + 1)
        return dict(miss.choice(legal)) if miss.random() < MISS else rule
    if level == "normal":
        return rule
    lead = first_reasonable(know, random.Random(seed + 2)) if know.phase == "play" else None
    if lead is not None:
        rule = lead
    if know.phase == "show" or legal[0]["type"] == "table":
        return rule
    moves = _shortlist(know, rule, random.Random(seed))
    if len(moves) <= 1:
        return rule
    work = int(budget_ms * ACTIONS_PER_MS * LEVEL_SHARE[level])
    gains = monte_carlo(know, view, moves, seed + 1, work)
    # The sampling overrules the rule player only where it sees a clear gain: a move whose
    # paired gain is within noise of the rule move's is no better on the evidence.
    best = max(range(len(moves)), key=lambda i: (gains[i][0] - CONFIDENCE * gains[i][1], -i))
    return moves[best] if gains[best][0] - CONFIDENCE * gains[best][1] > 0 else rule
