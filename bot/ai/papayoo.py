"""The Papayoo computer player: perfect-information Monte Carlo from the player's view.

``easy`` is the engine's rule player (``rule_pass``, ``rule_play``: the turn timer's
move). ``normal`` and ``hard`` sample the hidden hands consistently with everything the
view shows (hand sizes, the voids that this round's tricks reveal, the cards this player
passed to the left that are not played yet), then, for each legal card, play every
sampled deal out to the end of the round with a fast rule policy, and play the card that
takes the fewest points on average (Sturtevant's Hearts player, without the search). The
same deals serve every card, so the comparison is paired. ``normal`` spends a quarter of
the budget, ``hard`` all of it. The pass (the Papayoo suit is not known yet) is the rule
player's (``rule_pass``) for ``easy`` and ``normal``; ``hard`` weighs it against a few
swaps by playing sampled rounds out (a small gain, within the noise of 130 deals).

The rollouts run on lists of numbers per suit, not through ``Game.apply``.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.ai.base import Action, View, ViewError, legal_in, register
from bot.engine.cards import papayoo_deck
from bot.engine.papayoo import (
    KIND,
    LOW_ORDER,
    NUMBER,
    PASS,
    PAYOO,
    SUIT,
    SUIT_ORDER,
    rule_pass,
    rule_play,
)

SUIT_INDEX: Final[dict[str, int]] = {s: i for i, s in enumerate(SUIT_ORDER)}
"""S, H, D, C, P -> 0..4."""
P: Final = SUIT_INDEX[PAYOO]
CARD_SUIT: Final[dict[str, int]] = {c: SUIT_INDEX[s] for c, s in SUIT.items()}
CODE: Final[dict[tuple[int, int], str]] = {(CARD_SUIT[c], NUMBER[c]): c for c in SUIT}

PLAYS_PER_MS: Final = 200
"""Simulated card plays per millisecond of budget, measured on one core of a small server
with some margin: the default 150 ms gives about 70 ms (p50) and 135 ms (p99) of CPU per
move at 4 players (``bench/papayoo_ai.py`` prints the real times)."""
MIN_DEALS: Final = 4
"""Even a tiny budget samples this many deals when there is a choice."""
LEVEL_SHARE: Final[dict[str, float]] = {"normal": 0.25, "hard": 1.0}
PASS_SPARES: Final = 3
"""``hard`` weighs the rule player's pass against swaps with this many next cards."""


@dataclass(frozen=True)
class Knowledge:
    """What one player knows during the tricks, read from their view alone."""

    n: int
    seat: int
    hand: tuple[str, ...]
    papayoo_suit: int
    leader: int
    trick: tuple[str, ...]
    played: frozenset[str]
    """Every card played this round: finished tricks and the open trick."""
    voids: tuple[frozenset[int], ...]
    """Per seat, the suits that seat showed it no longer holds."""
    known: tuple[tuple[str, ...], ...]
    """Per seat, hidden cards known to be there: the unplayed cards this player passed."""
    sizes: tuple[int, ...]
    """Per seat, the number of cards in hand."""
    unknown: tuple[str, ...]
    """The cards that may be in another hand, known ones excepted."""


def read_view(view: View) -> Knowledge:
    """The trick-play knowledge of the player whose view this is."""
    try:
        players: list[str] = list(view["players"])
        you = view["you"]
        me = you["id"]
        seat = players.index(me)
        n = len(players)
        index = {p: i for i, p in enumerate(players)}
        hand = tuple(you["hand"])
        trick = tuple(t["card"] for t in view["trick"])
        leader = index[view["leader"]]
        suit = SUIT_INDEX[view["papayoo_suit"]]
        voids: list[set[int]] = [set() for _ in range(n)]
        played: set[str] = set(trick)
        tricks = [(t["players"], t["cards"]) for t in view.get("round_tricks", [])]
        tricks.append(([players[(leader + k) % n] for k in range(len(trick))], list(trick)))
        for who, cards in tricks:
            played.update(cards)
            if cards:
                led = CARD_SUIT[cards[0]]
                for p, c in zip(who, cards, strict=True):
                    if CARD_SUIT[c] != led:
                        voids[index[p]].add(led)
        sizes = tuple(int(view["hand_sizes"][p]) for p in players)
        known: list[tuple[str, ...]] = [() for _ in range(n)]
        if you.get("received") is not None:
            left = (seat + 1) % n
            known[left] = tuple(c for c in you.get("passed") or () if c not in played)
    except (KeyError, TypeError, ValueError) as err:
        raise ViewError(f"not a Papayoo trick-play view: {err!r}") from err
    mine = set(hand)
    taken = mine | played | {c for k in known for c in k}
    unknown = tuple(c for c in papayoo_deck(n) if c not in taken)
    if len(hand) != sizes[seat] or mine & played:
        raise ViewError("the view's hand does not match its table")
    return Knowledge(
        n=n,
        seat=seat,
        hand=hand,
        papayoo_suit=suit,
        leader=leader,
        trick=trick,
        played=frozenset(played),
        voids=tuple(frozenset(v) for v in voids),
        known=tuple(known),
        sizes=sizes,
        unknown=unknown,
    )


def sample_deal(know: Knowledge, rnd: random.Random) -> list[list[str]]:
    """One deal of the hidden cards consistent with ``know``: a hand per seat (this
    player's own hand as it is). Each card goes to a seat not void in its suit, with a
    probability proportional to the room left there, the most constrained cards first; a
    dead end is repaired by moving cards along (an augmenting path). When the view misses
    some played cards (a game saved before tricks were recorded), the extra unknown cards
    are left out. ``ViewError`` when no deal fits."""
    n = know.n
    hands: list[list[str]] = [list(k) for k in know.known]
    hands[know.seat] = list(know.hand)
    room = [know.sizes[s] - len(hands[s]) for s in range(n)]
    room[know.seat] = 0
    # An extra seat n, void in nothing, takes the cards the view cannot place.
    room.append(len(know.unknown) - sum(room))
    if min(room) < 0:
        raise ViewError("more hidden cards than unknown cards")
    hands.append([])
    voids = [*know.voids, frozenset()]
    allowed = {
        s: [q for q in range(n + 1) if q != know.seat and s not in voids[q]] for s in range(5)
    }
    cards = list(know.unknown)
    rnd.shuffle(cards)
    cards.sort(key=lambda c: len(allowed[CARD_SUIT[c]]))
    for card in cards:
        seats = [q for q in allowed[CARD_SUIT[card]] if room[q] > 0]
        if seats:
            pick = rnd.randrange(sum(room[q] for q in seats))
            for q in seats:
                pick -= room[q]
                if pick < 0:
                    break
            hands[q].append(card)
            room[q] -= 1
        elif not _place(card, hands, room, allowed, set(), know.known):
            raise ViewError("no deal of the hidden cards fits the view")
    hands.pop()
    return hands


def _place(
    card: str,
    hands: list[list[str]],
    room: list[int],
    allowed: dict[int, list[int]],
    seen: set[int],
    known: Sequence[Sequence[str]],
) -> bool:
    """Put ``card`` in a seat allowed for it, moving other cards along if need be."""
    for q in allowed[CARD_SUIT[card]]:
        if q in seen:
            continue
        seen.add(q)
        if room[q] > 0:
            hands[q].append(card)
            room[q] -= 1
            return True
        fixed = known[q] if q < len(known) else ()
        for i, other in enumerate(hands[q]):
            if other not in fixed and _place(other, hands, room, allowed, seen, known):
                hands[q][i] = card
                return True
    return False


# ---------------------------------------------------------------- rollouts
# A hand is five sorted lists of numbers (S, H, D, C, Payoo); a card is (suit, number).

Hand = list[list[int]]


def _to_hand(cards: Sequence[str]) -> Hand:
    hand: Hand = [[], [], [], [], []]
    for c in cards:
        hand[CARD_SUIT[c]].append(NUMBER[c])
    for suit in hand:
        suit.sort()
    return hand


def _policy(
    hands: list[Hand], seat: int, trick: list[tuple[int, int]], best: int, psuit: int, n: int
) -> tuple[int, int]:
    """The rollout's rule player (``rule_play`` on numbers, knowing the deal): removes the
    card from ``hands[seat]`` and returns it. ``best``: the winning number of the trick."""
    hand = hands[seat]
    if trick:
        led = trick[0][0]
        mine = hand[led]
        if mine:
            i = bisect_left(mine, best)
            if i:
                if led == psuit and best > 7 and 7 in mine:
                    mine.remove(7)
                    return led, 7
                return led, mine.pop(i - 1)
            j = 1 if led == psuit and mine[0] == 7 and len(mine) > 1 else 0
            low = mine[j]
            if len(trick) < n - 1:
                for k in range(len(trick) + 1, n):
                    rest = hands[(seat + k - len(trick)) % n][led]
                    if rest and rest[-1] > low:
                        return led, mine.pop(j)
            top = len(mine) - 1
            if led == psuit and mine[top] == 7 and top:
                top -= 1
            return led, mine.pop(top)
        papayoo = hand[psuit]
        if 7 in papayoo:
            papayoo.remove(7)
            return psuit, 7
        pick = -1
        danger = -99
        for s in range(5):
            if hand[s]:
                x = hand[s][-1]
                d = x if s == P else 2 * x - 6
                if d > danger:
                    danger = d
                    pick = s
        return pick, hand[pick].pop()
    pick = -1
    key = (2, 99)
    for s in range(5):
        mine = hand[s]
        if not mine:
            continue
        j = 1 if s == psuit and mine[0] == 7 else 0
        if j >= len(mine):
            continue
        x = mine[j]
        beaten = 0
        for k in range(1, n):
            rest = hands[(seat + k) % n][s]
            if rest and rest[-1] > x:
                beaten = 1
                break
        cand = (1 - beaten, x)
        if cand < key:
            key = cand
            pick = s
    if pick < 0:
        hand[psuit].remove(7)
        return psuit, 7
    mine = hand[pick]
    return pick, mine.pop(1 if pick == psuit and mine[0] == 7 else 0)


def _finish(
    hands: list[Hand], trick: list[tuple[int, int]], leader: int, psuit: int, n: int, me: int
) -> int:
    """Play the round out from the open ``trick``; the points ``me`` takes from here on."""
    taken = 0
    best = -1
    if trick:
        led = trick[0][0]
        best = max(x for s, x in trick if s == led)
    turn = (leader + len(trick)) % n
    while True:
        while len(trick) < n:
            card = _policy(hands, turn, trick, best, psuit, n)
            trick.append(card)
            if card[0] == trick[0][0] and card[1] > best:
                best = card[1]
            turn = (turn + 1) % n
        led = trick[0][0]
        win = 0
        top = -1
        points = 0
        for k, (s, x) in enumerate(trick):
            if s == led and x > top:
                top = x
                win = k
            if s == P:
                points += x
            elif s == psuit and x == 7:
                points += 40
        winner = (leader + win) % n
        if winner == me:
            taken += points
        if not any(hands[winner]):
            return taken
        leader = turn = winner
        trick = []
        best = -1


def _candidates(know: Knowledge, legal: list[str]) -> list[str]:
    """The legal cards, one of each run of equivalent ones (the same suit, no card of
    another hand between them, neither the Papayoo nor a Payoo: those differ in points)."""
    papayoo = CODE[(know.papayoo_suit, 7)]
    out: list[str] = []
    ordered = sorted(legal, key=lambda c: (CARD_SUIT[c], NUMBER[c]))
    for card in ordered:
        if out and card != papayoo and CARD_SUIT[card] != P:
            prev = out[-1]
            if (
                CARD_SUIT[prev] == CARD_SUIT[card]
                and prev != papayoo
                and all(
                    CODE.get((CARD_SUIT[card], x)) in know.played
                    or CODE.get((CARD_SUIT[card], x)) in legal
                    for x in range(NUMBER[prev] + 1, NUMBER[card])
                )
            ):
                continue
        out.append(card)
    return out


def monte_carlo(know: Knowledge, legal: list[str], seed: int, plays: int) -> dict[str, float]:
    """For each candidate card, the average points this player takes from the open trick
    to the end of the round, over sampled deals, until ``plays`` simulated card plays."""
    rnd = random.Random(seed)
    cands = _candidates(know, legal)
    totals = dict.fromkeys(cands, 0.0)
    remaining = sum(know.sizes) + len(know.trick)
    n = know.n
    trick0 = [(CARD_SUIT[c], NUMBER[c]) for c in know.trick]
    deals = 0
    spent = 0
    while deals < MIN_DEALS or spent < plays:
        deal = sample_deal(know, rnd)
        base = [_to_hand(h) for h in deal]
        for card in cands:
            hands = [[s[:] for s in h] for h in base]
            suit, number = CARD_SUIT[card], NUMBER[card]
            hands[know.seat][suit].remove(number)
            trick = [*trick0, (suit, number)]
            totals[card] += _finish(hands, trick, know.leader, know.papayoo_suit, n, know.seat)
        deals += 1
        spent += len(cands) * remaining + remaining
    return {c: t / deals for c, t in totals.items()}


def _rule_card(know: Knowledge) -> str:
    """The rule player's card for this view."""
    return rule_play(know.hand, know.trick, SUIT_ORDER[know.papayoo_suit], know.n, know.played)


def _pass_candidates(hand: list[str], need: int) -> list[list[str]]:
    """The rule player's pass, then that pass with one card swapped for one of the next
    three most dangerous cards."""
    ranked = rule_pass(hand, len(hand))
    base = ranked[:need]
    cands = [base]
    for spare in ranked[need : need + PASS_SPARES]:
        for k in range(need):
            cands.append([*base[:k], spare, *base[k + 1 :]])
    return cands


def monte_carlo_pass(view: View, seed: int, plays: int) -> list[str]:
    """The pass whose rounds, played out over sampled deals (the others pass like the rule
    player, the die is thrown at random), give this player the fewest points."""
    you = view["you"]
    players: list[str] = list(view["players"])
    n = len(players)
    seat = players.index(you["id"])
    hand: list[str] = list(you["hand"])
    aside: list[str] = list(you.get("passed") or ())
    need = int(view["pass_size"]) - len(aside)
    cands = _pass_candidates(hand, need)
    if len(cands) == 1:
        return cands[0]
    rnd = random.Random(seed)
    mine = set(hand) | set(aside)
    unknown = [c for c in papayoo_deck(n) if c not in mine]
    size = len(hand) + len(aside)
    leader = players.index(view["dealer"])
    left, right = (seat + 1) % n, (seat - 1) % n
    totals = [0.0] * len(cands)
    deals = spent = 0
    while deals < MIN_DEALS or spent < plays:
        rnd.shuffle(unknown)
        hands: list[list[str]] = []
        k = 0
        for s in range(n):
            if s == seat:
                hands.append([])
            else:
                hands.append(unknown[k : k + size])
                k += size
        passes = [rule_pass(h, len(aside) + need) if h else [] for h in hands]
        psuit = rnd.randrange(4)
        after: list[list[str]] = []
        for s in range(n):
            if s in (seat, left):
                after.append([])
            else:
                give = set(passes[s])
                after.append([c for c in hands[s] if c not in give] + passes[(s - 1) % n])
        for i, cand in enumerate(cands):
            given = set(cand)
            own = [c for c in hand if c not in given] + passes[right]
            lefts = set(passes[left])
            to_left = [c for c in hands[left] if c not in lefts] + aside + cand
            full = [*after]
            full[seat] = own
            full[left] = to_left
            totals[i] += _finish([_to_hand(h) for h in full], [], leader, psuit, n, seat)
        deals += 1
        spent += len(cands) * n * size
    best = min(range(len(cands)), key=lambda i: (totals[i], i))
    return cands[best]


def _pass_action(view: View, level: str, seed: int, budget_ms: int) -> Action:
    you = view["you"]
    need = int(view["pass_size"]) - len(you.get("passed") or ())
    if level != "hard":
        return {"type": PASS, "cards": rule_pass(list(you["hand"]), need)}
    plays = int(budget_ms * PLAYS_PER_MS)
    return {"type": PASS, "cards": monte_carlo_pass(view, seed, plays)}


@register(KIND)
def decide_papayoo(view: View, level: str, seed: int, budget_ms: int) -> Action:
    """The Papayoo AI (``bot.ai.decide`` calls it with a checked level)."""
    legal = legal_in(view)
    if legal[0]["type"] == PASS:
        return _pass_action(view, level, seed, budget_ms)
    cards = [a["card"] for a in legal]
    if len(cards) == 1:
        return {"type": "play", "card": cards[0]}
    know = read_view(view)
    rule = _rule_card(know)
    if level == "easy":
        return {"type": "play", "card": rule}
    plays = int(budget_ms * PLAYS_PER_MS * LEVEL_SHARE[level])
    scores = monte_carlo(know, cards, seed, plays)
    best = min(scores, key=lambda c: (round(scores[c], 6), c != rule, LOW_ORDER[c]))
    return {"type": "play", "card": best}
