"""Papayoo for 3 to 8 players (the rules: docs/rules/papayoo.md).

A round: deal, simultaneous pass to the left, the die picks the Papayoo suit, then
tricks until the hands are empty. The lowest total after the last round wins.

Options: ``rounds`` (1..20, default 4); ``turn_seconds`` (0 = no timer, else 15..600,
default 90; only stored here, the bot runs the timer and shows it in the views).

Actions (plain JSON dicts)
    ``{"type": "pass", "cards": ["3S", ...]}``  during the pass. The pass is incremental:
        ``legal_actions`` lists one single-card pass per card still in hand, and
        ``apply`` takes 1 up to the remaining number of distinct cards of the hand. Once
        a player has put aside exactly the pass size their pass is locked; the cards move
        to the left neighbours only when every pass is locked, so nobody sees what they
        receive before their own pass is locked. A client that knows the whole pass
        sends it at once. Partial passes emit no event.
    ``{"type": "play", "card": "7H"}``  during the tricks, by the player whose turn it is.
    The dicts that ``legal_actions`` returns are shared and prebuilt: treat them as
    read-only.

``auto_action(player)``: what the bot applies for an absent player when their timer
fires: the rule player (``rule_pass``, ``rule_play``), from what that player knows. Pass:
the most dangerous cards (high Payoo, high cards of short suits, uncovered 7s). Trick
play: duck under the winning card, dump the Papayoo or the worst card when void, lead
low. ``IllegalAction`` when that player has nothing to do.

Events (public; no event holds a hidden card)
    ``deal`` {round, rounds, dealer, hand_size, pass_size}: rounds 2+ from ``apply``;
        round 1 from ``deal_event()``.
    ``pass_locked`` {player};  ``pass_complete`` {round};
    ``die`` {suit, papayoo ("7H"), player (the dealer, who throws it)};
    ``card_played`` {player, card};
    ``trick_won`` {winner, players, cards, points}: ``players[k]`` played ``cards[k]``,
        from the leader on;
    ``round_over`` {round, points: {id: n}, totals: {id: n}};
    ``game_over`` {ranking, scores}.

``public_view()``: kind, players (seat order), phase ("pass" | "play" | "over"), round,
rounds, turn_seconds, dealer, pass_size, pass_locked (ids), to_act, turn (id or None),
papayoo_suit, papayoo (None before the die), leader, led_suit (None when no trick is
open), trick [{player, card}], last_trick {winner, players, cards, points} or None,
hand_sizes {id: n} (during the pass, put-aside cards still count), tricks_taken and
round_points (this round) and scores (totals) as {id: n}, history [{id: n} per round],
round_tricks [{leader, players, cards, winner, points}] (this round's finished tricks,
oldest first: what a player at the table remembers, so voids show from the view alone).
``view(player)`` adds player, hand (sorted by suit S H D C P, then number), passed (the
cards this player put aside or passed this round), received (None until every pass is
locked), legal (the card codes this player may play or pass now), and ``you`` (the shape
every game shares: id, hand, legal_actions, passed, received). Never another player's
hand or pass choice.

``result()``: ranking (ids grouped by equal total, lowest first: the first group wins),
scores {id: total}, rounds [{id: points} per round].

Refusals raise ``IllegalAction`` with key ``papayoo.<reason>``: not_a_player {player},
not_your_turn {player}, game_over, wrong_phase {expected}, bad_action {expected, got},
not_in_hand {card}, must_follow {suit, cards}, pass_size {need, size, got},
pass_duplicate {cards}, pass_locked.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final, NoReturn

from bot.engine.base import (
    Action,
    Event,
    Game,
    IllegalAction,
    check_options,
    check_seating,
    check_turn,
    register,
    seat_of,
)
from bot.engine.cards import SUITS, papayoo_deck, papayoo_number
from bot.engine.rng import Rng

KIND: Final = "papayoo"
PAYOO: Final = "P"
SUIT_ORDER: Final = (*SUITS, PAYOO)
"""Suit order for sorting hands and breaking ties: spades, hearts, diamonds, clubs, Payoo."""
SUIT_NAMES: Final[dict[str, str]] = {
    "S": "spades",
    "H": "hearts",
    "D": "diamonds",
    "C": "clubs",
    "P": "Payoo",
}
DIE_FACES: Final = (*SUITS, *SUITS)
"""The 8-sided die: each suit twice."""
PAPAYOO_POINTS: Final = 40
ROUND_TOTAL: Final = 250
"""Payoos 1..20 sum to 210, plus the Papayoo's 40."""

HAND_SIZE: Final[dict[int, int]] = {3: 20, 4: 15, 5: 12, 6: 10, 7: 8, 8: 7}
PASS_SIZE: Final[dict[int, int]] = {3: 5, 4: 5, 5: 4, 6: 3, 7: 3, 8: 3}
MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 8

DEFAULTS: Final[dict[str, Any]] = {"rounds": 4, "turn_seconds": 90}
ROUNDS_RANGE: Final = (1, 20)
TURN_SECONDS_RANGE: Final = (15, 600)

PASS: Final = "pass"  # noqa: S105 - the pass phase, not a password
PLAY: Final = "play"
OVER: Final = "over"

# Lookup tables over the 60 cards, built once: the hot path never parses a card code.
ALL_CARDS: Final = papayoo_deck(MIN_PLAYERS)
SUIT: Final[dict[str, str]] = {c: ("P" if c[0] == "P" else c[-1]) for c in ALL_CARDS}
NUMBER: Final[dict[str, int]] = {c: papayoo_number(c) for c in ALL_CARDS}
HAND_ORDER: Final[dict[str, int]] = {
    c: SUIT_ORDER.index(SUIT[c]) * 100 + NUMBER[c] for c in ALL_CARDS
}
"""How a hand is sorted: by suit (S, H, D, C, P), then number."""
LOW_ORDER: Final[dict[str, int]] = {
    c: NUMBER[c] * 10 + SUIT_ORDER.index(SUIT[c]) for c in ALL_CARDS
}
"""Lowest number first, ties in suit order S, H, D, C, P: the rule player's tie-break."""
POINTS: Final[dict[str, dict[str, int]]] = {
    suit: {
        c: (NUMBER[c] if SUIT[c] == PAYOO else PAPAYOO_POINTS if c == f"7{suit}" else 0)
        for c in ALL_CARDS
    }
    for suit in SUITS
}
"""``POINTS[papayoo_suit][card]``: a Payoo its number, the Papayoo 40, the rest 0."""
LED_STRENGTH: Final[dict[str, dict[str, int]]] = {
    led: {c: (NUMBER[c] if SUIT[c] == led else 0) for c in ALL_CARDS} for led in SUIT_ORDER
}
"""``LED_STRENGTH[led_suit][card]``: its number when it follows the led suit, else 0."""
PLAY_ACTIONS: Final[dict[str, dict[str, Any]]] = {c: {"type": PLAY, "card": c} for c in ALL_CARDS}
PASS_ACTIONS: Final[dict[str, dict[str, Any]]] = {
    c: {"type": PASS, "cards": [c]} for c in ALL_CARDS
}

HIGHER: Final[dict[str, tuple[str, ...]]] = {
    c: tuple(x for x in ALL_CARDS if SUIT[x] == SUIT[c] and NUMBER[x] > NUMBER[c])
    for c in ALL_CARDS
}
"""The cards of the same suit that beat ``card``."""


# ------------------------------------------------------------ the rule player
# The turn timer's move (``auto_action``) and the ``easy`` computer player. It uses only
# what its player knows: their hand, the table, this round's tricks and the Papayoo suit.


def pass_danger(card: str, hand: Collection[str]) -> int:
    """How much ``card`` hurts in ``hand`` before the die (the Papayoo suit is unknown).

    High Payoo cards take Payoo tricks, which are full of points. High cards take tricks,
    worse in a short suit. Any 7 may become the Papayoo, unless low cards of its suit
    let it slip under another card. Low cards of the same suit make a card safer.
    """
    number = NUMBER[card]
    suit = SUIT[card]
    same = [NUMBER[c] for c in hand if SUIT[c] == suit]
    lower = sum(1 for x in same if x < number)
    if suit == PAYOO:
        return 2 * number - 8 - 3 * lower
    danger = 4 * max(0, number - 4) - 4 * lower
    if number == 7:
        danger += max(0, 14 - 5 * lower)
    if len(same) <= 2:
        danger += 6
    return danger


def rule_pass(hand: Sequence[str], need: int) -> list[str]:
    """The ``need`` most dangerous cards of ``hand`` (``pass_danger``), ties lowest first."""
    ranked = sorted(hand, key=lambda c: (-pass_danger(c, hand), LOW_ORDER[c]))
    return ranked[:need]


def _beatable(card: str, hand: Collection[str], gone: Collection[str]) -> bool:
    """Whether a card that may still be in another hand beats ``card``."""
    return any(x not in hand and x not in gone for x in HIGHER[card])


def _dump_danger(card: str) -> int:
    """When void: which card to get rid of first (after the Papayoo)."""
    number = NUMBER[card]
    return number if SUIT[card] == PAYOO else 2 * number - 6


def rule_play(
    hand: Sequence[str],
    trick: Sequence[str],
    papayoo_suit: str,
    players: int,
    gone: Collection[str],
) -> str:
    """The rule player's card: ``hand`` is the player's, ``trick`` the cards on the table
    (leader first), ``gone`` every card played this round (tricks and table).

    Follow: the highest card under the trick's winning card (the Papayoo first); when every
    card wins, the highest if last or sure to win anyway, else the lowest (never the
    Papayoo if another card will do). Void: the Papayoo, else the most dangerous card (high
    Payoo, high card). Lead: the lowest card that another card may still beat, never the
    Papayoo if another card will do.
    """
    papayoo = "7" + papayoo_suit
    if trick:
        led = SUIT[trick[0]]
        follow = sorted((c for c in hand if SUIT[c] == led), key=NUMBER.__getitem__)
        if follow:
            best = max(NUMBER[c] for c in trick if SUIT[c] == led)
            under = [c for c in follow if NUMBER[c] < best]
            if under:
                return papayoo if papayoo in under else under[-1]
            safe = [c for c in follow if c != papayoo] or follow
            if len(trick) == players - 1 or not _beatable(safe[0], hand, gone):
                return safe[-1]
            return safe[0]
        if papayoo in hand:
            return papayoo
        return max(hand, key=lambda c: (_dump_danger(c), -LOW_ORDER[c]))
    options = [c for c in hand if c != papayoo] or list(hand)
    return min(options, key=lambda c: (not _beatable(c, hand, gone), NUMBER[c], LOW_ORDER[c]))


def _shuffle_plan(size: int, cap: int = 1 << 60) -> list[tuple[int, tuple[int, ...]]]:
    """Fisher-Yates bounds ``size, size-1, .., 2`` grouped so each group's product <= cap."""
    groups: list[tuple[int, tuple[int, ...]]] = []
    bound = size
    while bound > 1:
        bounds: list[int] = []
        product = 1
        while bound > 1 and product * bound <= cap:
            product *= bound
            bounds.append(bound)
            bound -= 1
        groups.append((product, tuple(bounds)))
    return groups


SHUFFLE_PLANS: Final = {size: _shuffle_plan(size) for size in (56, 60)}


def _shuffle(rng: Rng, deck: list[str]) -> None:
    """Fisher-Yates, exactly uniform like ``Rng.shuffle`` but about 4x faster.

    One ``randbelow`` of a product of consecutive bounds is split into its mixed-radix
    digits, each uniform in its own range: about 6 draws per deck instead of 59.
    """
    randbelow = rng.randbelow
    for product, bounds in SHUFFLE_PLANS[len(deck)]:
        r = randbelow(product)
        for bound in bounds:
            r, j = divmod(r, bound)
            i = bound - 1
            deck[i], deck[j] = deck[j], deck[i]


def _ranking(players: Sequence[str], scores: Sequence[int]) -> list[list[str]]:
    """Players grouped by score, lowest first; equal scores share a group (seat order)."""
    groups: dict[int, list[str]] = {}
    for player, score in zip(players, scores, strict=True):
        groups.setdefault(score, []).append(player)
    return [groups[score] for score in sorted(groups)]


def _check_range(name: str, val: int, low: int, high: int) -> None:
    if not low <= val <= high:
        raise ValueError(f"papayoo: option {name} must be between {low} and {high}, not {val}")


@register
class Papayoo(Game):
    """The state machine. Seats are indexes into ``players``; the left neighbour is seat+1."""

    kind = KIND
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    examples = (
        (3, {"rounds": 1}),
        (4, {"rounds": 2, "turn_seconds": 0}),
        (6, {"rounds": 1}),
        (8, {"rounds": 1}),
    )

    __slots__ = (
        "_aside",
        "_dealer",
        "_hands",
        "_history",
        "_last_trick",
        "_leader",
        "_led",
        "_locked",
        "_n",
        "_next",
        "_phase",
        "_players",
        "_points",
        "_received",
        "_rng",
        "_round",
        "_round_tricks",
        "_rounds",
        "_scores",
        "_seat",
        "_suit",
        "_taken",
        "_trick",
        "_tricks",
        "_turn",
        "_turn_seconds",
        "_won",
    )

    def __init__(self, players: Sequence[str], rounds: int, turn_seconds: int, rng: Rng) -> None:
        n = len(players)
        self._players = list(players)
        self._n = n
        self._seat = {p: i for i, p in enumerate(players)}
        self._next = [(i + 1) % n for i in range(n)]
        self._rounds = rounds
        self._turn_seconds = turn_seconds
        self._rng = rng
        self._round = 0
        self._dealer = 0
        self._phase = PASS
        self._hands: list[list[str]] = [[] for _ in range(n)]
        self._aside: list[list[str]] = [[] for _ in range(n)]
        """Cards put aside for the pass; after the exchange, the cards passed this round."""
        self._locked = [False] * n
        self._received: list[list[str]] | None = None
        self._suit = ""
        """The Papayoo suit of this round, ``""`` before the die."""
        self._points: dict[str, int] = {}
        self._leader = 0
        self._turn = 0
        self._trick: list[str] = []
        self._led = ""
        self._won: list[list[str]] = [[] for _ in range(n)]
        self._taken = [0] * n
        """Points taken in this round's tricks so far."""
        self._tricks = [0] * n
        self._scores = [0] * n
        self._history: list[list[int]] = []
        self._last_trick: dict[str, Any] | None = None
        self._round_tricks: list[dict[str, Any]] = []
        """This round's finished tricks (the ``last_trick`` dicts, oldest first)."""

    # ------------------------------------------------------------------ setup

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Papayoo:
        check_seating(KIND, players, seed, MIN_PLAYERS, MAX_PLAYERS)
        opts = check_options(options, DEFAULTS, KIND)
        _check_range("rounds", opts["rounds"], *ROUNDS_RANGE)
        if opts["turn_seconds"] != 0:
            _check_range("turn_seconds (0 for no timer)", opts["turn_seconds"], *TURN_SECONDS_RANGE)
        rng = Rng(seed)
        game = cls(players, opts["rounds"], opts["turn_seconds"], rng)
        game._dealer = rng.randbelow(len(players))
        game._deal()
        return game

    def _deal(self) -> None:
        """Start the next round: shuffle, deal from the dealer's left, open the pass."""
        n = self._n
        self._round += 1
        deck = papayoo_deck(n)
        _shuffle(self._rng, deck)
        size = HAND_SIZE[n]
        key = HAND_ORDER.__getitem__
        for i in range(n):
            seat = (self._dealer + 1 + i) % n
            self._hands[seat] = sorted(deck[i * size : (i + 1) * size], key=key)
        self._phase = PASS
        self._aside = [[] for _ in range(n)]
        self._locked = [False] * n
        self._received = None
        self._suit = ""
        self._points = {}
        self._trick = []
        self._led = ""
        self._won = [[] for _ in range(n)]
        self._taken = [0] * n
        self._tricks = [0] * n
        self._last_trick = None
        self._round_tricks = []

    def deal_event(self) -> Event:
        """The ``deal`` event of the current round (``apply`` emits it for rounds 2+)."""
        return {
            "type": "deal",
            "round": self._round,
            "rounds": self._rounds,
            "dealer": self._players[self._dealer],
            "hand_size": HAND_SIZE[self._n],
            "pass_size": PASS_SIZE[self._n],
        }

    # ------------------------------------------------------------ persistence

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": list(self._players),
            "options": {"rounds": self._rounds, "turn_seconds": self._turn_seconds},
            "rng": self._rng.state,
            "round": self._round,
            "dealer": self._dealer,
            "phase": self._phase,
            "hands": [list(h) for h in self._hands],
            "aside": [list(a) for a in self._aside],
            "locked": list(self._locked),
            "received": None if self._received is None else [list(r) for r in self._received],
            "papayoo_suit": self._suit,
            "leader": self._leader,
            "turn": self._turn,
            "trick": list(self._trick),
            "led": self._led,
            "won": [list(w) for w in self._won],
            "taken": list(self._taken),
            "tricks": list(self._tricks),
            "scores": list(self._scores),
            "history": [list(h) for h in self._history],
            "last_trick": None
            if self._last_trick is None
            else {
                **self._last_trick,
                "players": list(self._last_trick["players"]),
                "cards": list(self._last_trick["cards"]),
            },
            "round_tricks": [
                {**t, "players": list(t["players"]), "cards": list(t["cards"])}
                for t in self._round_tricks
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Papayoo:
        opts = data["options"]
        game = cls(data["players"], opts["rounds"], opts["turn_seconds"], Rng(0))
        game._rng.state = data["rng"]
        game._round = data["round"]
        game._dealer = data["dealer"]
        game._phase = data["phase"]
        game._hands = [list(h) for h in data["hands"]]
        game._aside = [list(a) for a in data["aside"]]
        game._locked = list(data["locked"])
        received = data["received"]
        game._received = None if received is None else [list(r) for r in received]
        game._suit = data["papayoo_suit"]
        game._points = POINTS[game._suit] if game._suit else {}
        game._leader = data["leader"]
        game._turn = data["turn"]
        game._trick = list(data["trick"])
        game._led = data["led"]
        game._won = [list(w) for w in data["won"]]
        game._taken = list(data["taken"])
        game._tricks = list(data["tricks"])
        game._scores = list(data["scores"])
        game._history = [list(h) for h in data["history"]]
        last = data["last_trick"]
        game._last_trick = None if last is None else dict(last)
        # Games saved before round_tricks existed lose the tricks of their current round.
        game._round_tricks = [dict(t) for t in data.get("round_tricks", [])]
        return game

    # --------------------------------------------------------------- queries

    def to_act(self) -> list[str]:
        phase = self._phase
        if phase == PLAY:
            return [self._players[self._turn]]
        if phase == PASS:
            locked = self._locked
            return [p for i, p in enumerate(self._players) if not locked[i]]
        return []

    def is_over(self) -> bool:
        return self._phase == OVER

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        phase = self._phase
        if phase == PLAY:
            seat = self._turn
            if self._players[seat] != player:
                return []
            hand = self._hands[seat]
            if self._trick:
                led = self._led
                follow = [PLAY_ACTIONS[c] for c in hand if SUIT[c] == led]
                if follow:
                    return follow
            return [PLAY_ACTIONS[c] for c in hand]
        if phase == PASS:
            seat_of = self._seat.get(player)
            if seat_of is None or self._locked[seat_of]:
                return []
            return [PASS_ACTIONS[c] for c in self._hands[seat_of]]
        return []

    def auto_action(self, player: str) -> dict[str, Any]:
        """The action the bot takes for an absent player when their timer fires: the rule
        player, from what that player knows (their hand, the table, this round's tricks).

        Pass: the remaining pass cards, most dangerous first (``rule_pass``: high Payoo,
        high cards of short suits, 7s not covered by low cards). Trick play: ``rule_play``
        (duck under the winning card, dump the Papayoo or the worst card when void, lead
        low). Deterministic. Raises ``IllegalAction`` when the player has nothing to do now.
        """
        phase = self._phase
        if phase == OVER:
            raise IllegalAction("the game is over", "papayoo.game_over")
        seat = self._seat_of(player)
        if phase == PASS:
            if self._locked[seat]:
                raise IllegalAction("your pass is already locked", "papayoo.pass_locked")
            need = PASS_SIZE[self._n] - len(self._aside[seat])
            return {"type": PASS, "cards": rule_pass(self._hands[seat], need)}
        self._check_turn(player)
        gone = {c for t in self._round_tricks for c in t["cards"]}
        gone.update(self._trick)
        card = rule_play(self._hands[seat], self._trick, self._suit, self._n, gone)
        return {"type": PLAY, "card": card}

    # ---------------------------------------------------------------- apply

    def apply(self, player: str, action: Action) -> list[Event]:
        phase = self._phase
        if phase == PLAY:
            # The hot path of every rollout, inlined.
            seat = self._turn
            if player != self._players[seat]:
                self._check_turn(player)
            if type(action) is not dict or action.get("type") != PLAY:
                self._action_type(action, PLAY)
            card: str = action.get("card", "")
            hand = self._hands[seat]
            if card not in hand:
                self._refuse_card(card)
            trick = self._trick
            if not trick:
                self._led = SUIT[card]
            elif SUIT[card] != self._led:
                self._check_void(hand)
            hand.remove(card)
            trick.append(card)
            events: list[Event] = [{"type": "card_played", "player": player, "card": card}]
            if len(trick) < self._n:
                self._turn = self._next[seat]
            else:
                self._end_trick(events)
            return events
        if phase == PASS:
            return self._apply_pass(player, action)
        raise IllegalAction("the game is over", "papayoo.game_over")

    def _seat_of(self, player: str) -> int:
        return seat_of(self._seat, player, KIND)

    def _check_turn(self, player: str) -> None:
        check_turn(self._players, self._turn, self._seat, player, KIND)

    @staticmethod
    def _action_type(action: Action, want: str) -> None:
        kind = action.get("type") if isinstance(action, Mapping) else None
        if kind == want:
            return
        if kind in (PASS, PLAY):
            now = "pass cards" if want == PASS else "play a card"
            raise IllegalAction(
                f"it is time to {now}, not to {kind}", "papayoo.wrong_phase", expected=want
            )
        raise IllegalAction(
            f"unknown action {kind!r}: expected {want!r}",
            "papayoo.bad_action",
            expected=want,
            got=str(kind),
        )

    def _apply_pass(self, player: str, action: Action) -> list[Event]:
        seat = self._seat.get(player)
        if seat is None:
            seat = self._seat_of(player)
        if self._locked[seat]:
            raise IllegalAction("your pass is already locked", "papayoo.pass_locked")
        if type(action) is not dict or action.get("type") != PASS:
            self._action_type(action, PASS)
        cards = action.get("cards")
        if not isinstance(cards, list):
            raise IllegalAction(
                "a pass needs a list of cards", "papayoo.bad_action", expected=PASS, got="cards"
            )
        size = PASS_SIZE[self._n]
        aside = self._aside[seat]
        need = size - len(aside)
        if not 1 <= len(cards) <= need:
            if aside:
                raise IllegalAction(
                    f"you must pass {need} more cards, not {len(cards)}",
                    "papayoo.pass_size",
                    need=need,
                    size=size,
                    got=len(cards),
                )
            raise IllegalAction(
                f"you must pass {size} cards, not {len(cards)}",
                "papayoo.pass_size",
                need=need,
                size=size,
                got=len(cards),
            )
        hand = self._hands[seat]
        for card in cards:
            if card not in hand:
                self._refuse_card(card)
        if len(set(cards)) != len(cards):
            raise IllegalAction(
                "you cannot pass the same card twice", "papayoo.pass_duplicate", cards=cards[:]
            )
        for card in cards:
            hand.remove(card)
            aside.append(card)
        if len(aside) < size:
            return []
        self._locked[seat] = True
        events: list[Event] = [{"type": "pass_locked", "player": player}]
        if all(self._locked):
            self._exchange(events)
        return events

    def _exchange(self, events: list[Event]) -> None:
        """Every pass is locked: each goes to the left neighbour, then the die is thrown."""
        n = self._n
        key = HAND_ORDER.__getitem__
        received: list[list[str]] = [[] for _ in range(n)]
        for seat in range(n):
            left = self._next[seat]
            received[left] = sorted(self._aside[seat], key=key)
        for seat in range(n):
            hand = self._hands[seat]
            hand.extend(received[seat])
            hand.sort(key=key)
        self._received = received
        events.append({"type": "pass_complete", "round": self._round})
        suit = DIE_FACES[self._rng.randbelow(len(DIE_FACES))]
        self._suit = suit
        self._points = POINTS[suit]
        events.append(
            {
                "type": "die",
                "suit": suit,
                "papayoo": f"7{suit}",
                "player": self._players[self._dealer],
            }
        )
        self._phase = PLAY
        self._leader = self._turn = self._dealer
        self._trick = []
        self._led = ""

    @staticmethod
    def _refuse_card(card: Any) -> NoReturn:
        if not isinstance(card, str) or not card:
            raise IllegalAction(
                "a play needs one card code", "papayoo.bad_action", expected=PLAY, got="card"
            )
        raise IllegalAction(f"{card} is not in your hand", "papayoo.not_in_hand", card=card)

    def _check_void(self, hand: list[str]) -> None:
        """A card off the led suit is legal only when the hand holds none of that suit."""
        led = self._led
        follow = [c for c in hand if SUIT[c] == led]
        if follow:
            raise IllegalAction(
                f"you must follow {SUIT_NAMES[led]}: you hold {', '.join(follow)}",
                "papayoo.must_follow",
                suit=led,
                cards=follow,
            )

    def _end_trick(self, events: list[Event]) -> None:
        """The highest card of the led suit takes the trick and leads the next."""
        trick = self._trick
        strength = list(map(LED_STRENGTH[self._led].__getitem__, trick))
        win_k = strength.index(max(strength))
        n = self._n
        leader = self._leader
        winner = (leader + win_k) % n
        gained = sum(map(self._points.__getitem__, trick))
        self._won[winner].extend(trick)
        self._taken[winner] += gained
        self._tricks[winner] += 1
        players = self._players
        order = players[leader:] + players[:leader]
        last = self._last_trick = {
            "winner": players[winner],
            "players": order,
            "cards": trick,
            "points": gained,
        }
        self._round_tricks.append(last)
        events.append(
            {
                "type": "trick_won",
                "winner": players[winner],
                "players": order[:],
                "cards": trick[:],
                "points": gained,
            }
        )
        self._trick = []
        self._led = ""
        self._leader = self._turn = winner
        if not self._hands[winner]:
            self._end_round(events)

    def _end_round(self, events: list[Event]) -> None:
        players = self._players
        taken = self._taken
        self._history.append(list(taken))
        scores = self._scores
        for i, pts in enumerate(taken):
            scores[i] += pts
        events.append(
            {
                "type": "round_over",
                "round": self._round,
                "points": dict(zip(players, taken, strict=True)),
                "totals": dict(zip(players, scores, strict=True)),
            }
        )
        if self._round >= self._rounds:
            self._phase = OVER
            events.append(
                {
                    "type": "game_over",
                    "ranking": _ranking(players, scores),
                    "scores": dict(zip(players, scores, strict=True)),
                }
            )
            return
        self._dealer = self._next[self._dealer]
        self._deal()
        events.append(self.deal_event())

    # ---------------------------------------------------------------- views

    def public_view(self) -> dict[str, Any]:
        players = self._players
        n = self._n
        in_pass = self._phase == PASS
        leader = self._leader
        last = self._last_trick
        return {
            "kind": KIND,
            "players": list(players),
            "phase": self._phase,
            "round": self._round,
            "rounds": self._rounds,
            "turn_seconds": self._turn_seconds,
            "dealer": players[self._dealer],
            "pass_size": PASS_SIZE[n],
            "pass_locked": [p for i, p in enumerate(players) if self._locked[i]],
            "to_act": self.to_act(),
            "turn": players[self._turn] if self._phase == PLAY else None,
            "papayoo_suit": self._suit or None,
            "papayoo": f"7{self._suit}" if self._suit else None,
            "leader": players[leader] if self._phase == PLAY else None,
            "led_suit": self._led or None,
            "trick": [
                {"player": players[(leader + k) % n], "card": c} for k, c in enumerate(self._trick)
            ],
            "last_trick": None
            if last is None
            else {**last, "players": list(last["players"]), "cards": list(last["cards"])},
            # During the pass a hand counts its put-aside cards: the count reveals nothing.
            "hand_sizes": {
                p: len(self._hands[i]) + (len(self._aside[i]) if in_pass else 0)
                for i, p in enumerate(players)
            },
            "tricks_taken": dict(zip(players, self._tricks, strict=True)),
            "round_points": dict(zip(players, self._taken, strict=True)),
            "scores": dict(zip(players, self._scores, strict=True)),
            "history": [dict(zip(players, h, strict=True)) for h in self._history],
            "round_tricks": [
                {
                    "leader": t["players"][0],
                    "players": list(t["players"]),
                    "cards": list(t["cards"]),
                    "winner": t["winner"],
                    "points": t["points"],
                }
                for t in self._round_tricks
            ],
        }

    def view(self, player: str) -> dict[str, Any]:
        view = self.public_view()
        seat = self._seat.get(player)
        if seat is None:
            return view
        key = HAND_ORDER.__getitem__
        view["player"] = player
        view["hand"] = sorted(self._hands[seat], key=key)
        view["passed"] = sorted(self._aside[seat], key=key)
        view["received"] = None if self._received is None else list(self._received[seat])
        legal = self.legal_actions(player)
        view["legal"] = [a["card"] if self._phase == PLAY else a["cards"][0] for a in legal]
        view["you"] = {
            "id": player,
            "hand": view["hand"],
            "legal_actions": [dict(a) for a in legal],
            "passed": view["passed"],
            "received": view["received"],
        }
        return view

    def result(self) -> dict[str, Any]:
        players = self._players
        return {
            "ranking": _ranking(players, self._scores),
            "scores": dict(zip(players, self._scores, strict=True)),
            "rounds": [dict(zip(players, h, strict=True)) for h in self._history],
        }
